"""The persistent compile cache, across fresh interpreters sharing one `EMBER_CACHE_DIR`:
a second process reuses the machine code of the first, results stay NumPy's, concurrent
writers share the directory, damaged files are ignored and rewritten, anything that changes
the code misses, and a disabled cache writes nothing."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]

# argv: dtype, layout ("c" or "transposed"), n (columns), scale (a constant in the code).
SCRIPT = r"""
import json, sys
import numpy as np
import ember

dtype, layout, n, scale = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])

@ember.compile
def f(x, y):
    z = np.tanh(x * y + scale)
    return z.sum(axis=-1) / (np.exp(-x) + 2.0).mean(), z * scale

x = np.linspace(-2.0, 2.0, 8 * n).reshape(8, n).astype(dtype)
y = np.cos(x)
if layout == "transposed":
    x = np.ascontiguousarray(x.T).T
out = f(x, y)
s = ember.stats()
print(json.dumps({
    "out": [o.tolist() for o in out],
    "dtypes": [str(o.dtype) for o in out],
    "stats": {k: v for k, v in s.items() if k.startswith("disk_") or k == "compiles"},
    "fallbacks": s["backend_fallbacks"],
}))
"""


def expected(dtype: str, layout: str, n: int, scale: float):
    x = np.linspace(-2.0, 2.0, 8 * n).reshape(8, n).astype(dtype)
    y = np.cos(x)
    if layout == "transposed":
        x = np.ascontiguousarray(x.T).T
    z = np.tanh(x * y + scale)
    return z.sum(axis=-1) / (np.exp(-x) + 2.0).mean(), z * scale


def env_for(cache: Path | str, **extra: str) -> dict[str, str]:
    # The machine-code cache alone: a stored entry (test_stored_entries.py) would skip
    # capture in later processes, and the compiles capture makes.
    return {**os.environ, "EMBER_CACHE_DIR": str(cache), "EMBER_STORED_ENTRIES": "0", **extra}


def start(cache, *args, **extra) -> subprocess.Popen:
    argv = [str(a) for a in (args or ("float64", "c", 16, 1.0))]
    return subprocess.Popen([sys.executable, "-c", SCRIPT, *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env_for(cache, **extra),
                            cwd=ROOT)


def finish(proc: subprocess.Popen, args=("float64", "c", 16, 1.0)) -> dict[str, int]:
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    report = json.loads(out.strip().splitlines()[-1])
    assert report["stats"]["compiles"] >= 1 and not report["fallbacks"], report
    want = expected(*args)
    rtol = 1e-5 if args[0] == "float32" else 1e-12
    assert report["dtypes"] == [str(w.dtype) for w in want]
    for got, w in zip(report["out"], want):
        np.testing.assert_allclose(np.asarray(got, dtype=w.dtype), w, rtol=rtol, atol=0)
    return report["stats"]


def run(cache, *args, **extra) -> dict[str, int]:
    args = tuple(args) or ("float64", "c", 16, 1.0)
    return finish(start(cache, *args, **extra), args)


def files(cache: Path) -> list[Path]:
    return sorted((cache / "code").glob("*.bin"))


def test_second_process_reuses_the_first_ones_code(tmp_path):
    first = run(tmp_path)
    assert first["disk_misses"] >= 1, first
    assert first["disk_writes"] == first["disk_misses"] == len(files(tmp_path))
    second = run(tmp_path)
    assert second["disk_hits"] == first["disk_misses"] + first["disk_hits"], second
    assert second["disk_misses"] == second["disk_writes"] == second["disk_rejected"] == 0


def test_concurrent_processes_share_one_directory(tmp_path):
    procs = [start(tmp_path) for _ in range(4)]
    reports = [finish(p) for p in procs]
    assert all(r["disk_rejected"] == 0 for r in reports), reports
    assert not [p for p in (tmp_path / "code").iterdir() if p.name.startswith(".tmp.")]
    after = run(tmp_path)
    assert after["disk_misses"] == 0 and after["disk_hits"] == reports[0]["disk_misses"] + \
        reports[0]["disk_hits"], after


def _write_valid_frame(path: Path, payload: bytes) -> None:
    """A file whose magic, length and digest check, holding `payload`."""
    name = bytes.fromhex(path.stem)
    digest = hashlib.sha256(name + payload).digest()
    path.write_bytes(b"EMBERCC1" + len(payload).to_bytes(8, "little") + digest + payload)


@pytest.mark.parametrize("damage", ["truncate", "flip", "empty", "swap", "garbage_payload"])
def test_damaged_files_are_ignored_and_rewritten(tmp_path, damage):
    first = run(tmp_path)
    paths = files(tmp_path)
    assert len(paths) >= 2
    contents = [p.read_bytes() for p in paths]
    for i, p in enumerate(paths):
        data = contents[i]
        if damage == "truncate":
            p.write_bytes(data[: len(data) // 2])
        elif damage == "flip":
            p.write_bytes(data[:-20] + bytes([data[-20] ^ 0x01]) + data[-19:])
        elif damage == "empty":
            p.write_bytes(b"")
        elif damage == "swap":  # a whole, valid file under another function's name
            p.write_bytes(contents[(i + 1) % len(paths)])
        else:  # checksums right, contents no compiled function
            _write_valid_frame(p, b"\xff" * 64)
    second = run(tmp_path)
    assert second["disk_rejected"] == second["disk_writes"] == len(paths), second
    third = run(tmp_path)
    lookups = first["disk_misses"] + first["disk_hits"]
    assert third["disk_hits"] == lookups and third["disk_misses"] == 0, third


@pytest.mark.parametrize("changed", [
    ("float32", "c", 16, 1.0),          # dtype
    ("float64", "c", 24, 1.0),          # shape
    ("float64", "c", 16, 3.0),          # a constant of the code
])
def test_anything_that_changes_the_code_misses(tmp_path, changed):
    base = run(tmp_path)
    other = run(tmp_path, *changed)
    assert other["disk_misses"] >= 1 and other["disk_writes"] == other["disk_misses"], other
    assert len(files(tmp_path)) == base["disk_writes"] + other["disk_writes"]


@pytest.mark.parametrize("args, env", [
    (("float64", "c", 16, 1.0), {"EMBER_NUM_THREADS": "1"}),
    # Kernels take strides at run time: a transposed input runs the same machine code.
    (("float64", "transposed", 16, 1.0), {}),
])
def test_changes_that_keep_the_code_hit(tmp_path, args, env):
    base = run(tmp_path)
    again = run(tmp_path, *args, **env)
    assert again["disk_hits"] == base["disk_misses"] + base["disk_hits"], again
    assert again["disk_misses"] == 0, again


def test_empty_cache_dir_disables_the_cache(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    stats = run("", HOME=str(home), XDG_CACHE_HOME=str(home / "xdg"))
    assert all(stats[k] == 0 for k in ("disk_hits", "disk_misses", "disk_writes")), stats
    assert list(home.iterdir()) == []


def test_cache_dir_none_at_run_time_writes_nothing(tmp_path):
    code = ("import numpy as np, ember\n"
            "ember.config.cache_dir = None\n"
            "f = ember.compile(lambda x: np.sin(x) * 2.0 + 1.0)\n"
            "x = np.arange(12.0)\n"
            "assert np.allclose(f(x), np.sin(x) * 2.0 + 1.0)\n"
            "s = ember.stats()\n"
            "assert s['compiles'] == 1 and s['disk_misses'] == 0, s\n")
    proc = subprocess.run([sys.executable, "-c", code], env=env_for(tmp_path / "c"), cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    assert not (tmp_path / "c").exists()


def test_unwritable_directory_compiles_without_caching(tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a directory")
    stats = run(blocker / "cache")
    assert stats["disk_writes"] == 0 and stats["disk_misses"] >= 1, stats


def test_size_bound_evicts(tmp_path):
    run(tmp_path)
    one = sum(p.stat().st_size for p in files(tmp_path))
    bound = one // 2
    # New constants compile to new code: every such process passes the bound and trims.
    for scale in (2.0, 3.0, 4.0):
        stats = run(tmp_path, "float64", "c", 16, scale, EMBER_CACHE_MAX_BYTES=str(bound))
        assert stats["disk_writes"] >= 1 and stats["disk_evictions"] >= 1, stats
        assert sum(p.stat().st_size for p in files(tmp_path)) <= bound


def test_stats_count_disk_events_in_process(tmp_path):
    import ember

    previous = ember.config.cache_dir
    ember.config.cache_dir = tmp_path
    try:
        f = ember.compile(lambda x: np.sqrt(np.abs(x)) * 3.0 - x)
        x = np.linspace(-1, 1, 37)
        np.testing.assert_allclose(f(x), np.sqrt(np.abs(x)) * 3.0 - x, rtol=1e-12)
        s = ember.stats()
        assert s["disk_misses"] >= 1 and s["disk_writes"] == s["disk_misses"], s
        ember.reset()
        g = ember.compile(lambda x: np.sqrt(np.abs(x)) * 3.0 - x)
        np.testing.assert_allclose(g(x), np.sqrt(np.abs(x)) * 3.0 - x, rtol=1e-12)
        s = ember.stats()
        assert s["disk_hits"] >= 1 and s["disk_misses"] == 0, s
    finally:
        ember.config.cache_dir = previous
    assert ember.config.cache_dir == previous


def test_config_rejects_bad_values():
    import ember

    with pytest.raises(ValueError, match="cache_dir"):
        ember.config.cache_dir = 3
    with pytest.raises(ValueError, match="cache_max_bytes"):
        ember.config.cache_max_bytes = -1
