"""Checks of the release wheel named by `EMBER_WHEEL` (built by `.ci/wheel`): it installs
on glibc 2.28 and newer, carries no debug info, and works in a fresh environment without a
Rust toolchain."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

WHEEL = Path(os.environ["EMBER_WHEEL"])
ROOT = Path(__file__).resolve().parents[1]
GLIBC_BASELINE = (2, 28)
MAX_EXTENSION_BYTES = 24 << 20


@pytest.fixture(scope="module")
def extension(tmp_path_factory) -> Path:
    with zipfile.ZipFile(WHEEL) as z:
        (name,) = [n for n in z.namelist() if re.fullmatch(r"ember/_core\..*\.so", n)]
        return Path(z.extract(name, tmp_path_factory.mktemp("wheel")))


def test_wheel_is_tagged_manylinux_2_28_or_older():
    tag = re.search(r"manylinux_(\d+)_(\d+)_x86_64", WHEEL.name)
    assert tag and (int(tag[1]), int(tag[2])) <= GLIBC_BASELINE, WHEEL.name
    assert "-cp311-cp311-" in WHEEL.name


def test_extension_needs_no_newer_glibc_symbol(extension):
    dynsym = subprocess.run(["objdump", "-T", str(extension)], capture_output=True, text=True,
                            check=True).stdout
    versions = {tuple(map(int, v.split("."))) for v in re.findall(r"GLIBC_([\d.]+)", dynsym)}
    assert versions, "no versioned glibc symbol found: objdump output not understood"
    assert max(versions) <= GLIBC_BASELINE, sorted(versions)


def test_extension_is_stripped_and_small(extension):
    headers = subprocess.run(["objdump", "-h", str(extension)], capture_output=True, text=True,
                             check=True).stdout
    assert ".debug_info" not in headers and ".symtab" not in headers
    size = extension.stat().st_size
    print(f"{extension.name}: {size / 2**20:.1f} MiB; wheel {WHEEL.stat().st_size / 2**20:.1f} MiB")
    assert size < MAX_EXTENSION_BYTES


def test_installs_and_runs_without_cargo(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    # Only the new environment and the system's tools: no cargo, rustc or source tree.
    path = os.pathsep.join([str(venv / "bin"), "/usr/bin", "/bin"])
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CARGO", "RUST", "PYTHON"))}
    env.update(PATH=path, VIRTUAL_ENV=str(venv), EMBER_CACHE_DIR=str(tmp_path / "cache"))
    python = str(venv / "bin" / "python")
    assert shutil.which("cargo", path=path) is None
    subprocess.run([python, "-m", "pip", "install", "-q", str(WHEEL)], env=env, check=True,
                   cwd=tmp_path)
    smoke = (
        "import numpy as np, ember, sys\n"
        "assert ember.__file__.startswith(sys.prefix), ember.__file__\n"
        "f = ember.compile(lambda x, y: np.exp(-x * x) * y + x.sum(axis=0))\n"
        "x = np.linspace(-3, 3, 60).reshape(6, 10); y = np.cos(x)\n"
        "np.testing.assert_allclose(f(x, y), np.exp(-x * x) * y + x.sum(axis=0), rtol=1e-12)\n"
        "s = ember.stats()\n"
        "assert s['compiles'] == 1 and not s['backend_fallbacks'] and s['disk_writes'] >= 1, s\n"
    )
    subprocess.run([python, "-c", smoke], env=env, check=True, cwd=tmp_path)
    demo = subprocess.run([python, str(ROOT / "examples" / "demo.py")], env=env, cwd=tmp_path,
                          capture_output=True, text=True, check=False)
    assert demo.returncode == 0, demo.stderr
