"""First call of a compiled function in a fresh process, with a cold and a warm persistent
cache: ember (`EMBER_CACHE_DIR`), Numba (`@njit(cache=True)`, `NUMBA_CACHE_DIR`) and JAX's
persistent compilation cache when JAX is installed.

Each measurement is a new interpreter: the function is defined, then its first call on
fresh arrays is timed (imports are not). Cold: an empty cache directory; warm: the directory
a previous process filled. Medians over `--runs` processes, one process at a time.

    python benches/first_call.py [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# One source per library for the same three functions: layernorm, gelu, softmax over rows.
EMBER = r"""
import json, time
import numpy as np
import ember

@ember.compile
def step(x, g, b):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    h = (x - mu) / np.sqrt(var + 1e-5) * g + b
    h = 0.5 * h * (1.0 + np.tanh(0.7978845608028654 * (h + 0.044715 * h**3)))
    e = np.exp(h - h.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)

x = np.random.default_rng(0).standard_normal((64, 256)); g = np.ones(256); b = np.zeros(256)
c = time.thread_time(); t = time.perf_counter(); step(x, g, b)
first = time.perf_counter() - t; cpu = time.thread_time() - c
s = ember.stats()
print(json.dumps({"first": first, "cpu": cpu, "stages": s["compile_time"], "hits": s["disk_hits"],
                  "stored": s["stored_hits"], "prepared": s["stored_prepared"]}))
"""

NUMBA = r"""
import json, time
import numpy as np
from numba import njit

@njit(cache=True, fastmath=False)
def step(x, g, b):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        row = x[i]
        mu = row.mean()
        var = ((row - mu) ** 2).mean()
        h = (row - mu) / np.sqrt(var + 1e-5) * g + b
        h = 0.5 * h * (1.0 + np.tanh(0.7978845608028654 * (h + 0.044715 * h**3)))
        e = np.exp(h - h.max())
        out[i] = e / e.sum()
    return out

x = np.random.default_rng(0).standard_normal((64, 256)); g = np.ones(256); b = np.zeros(256)
t = time.perf_counter(); step(x, g, b); first = time.perf_counter() - t
print(json.dumps({"first": first}))
"""

JAX = r"""
import json, sys, time
import numpy as np
import jax, jax.numpy as jnp
jax.config.update("jax_enable_x64", True)
jax.config.update("jax_compilation_cache_dir", sys.argv[1])
jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)

@jax.jit
def step(x, g, b):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    h = (x - mu) / jnp.sqrt(var + 1e-5) * g + b
    h = 0.5 * h * (1.0 + jnp.tanh(0.7978845608028654 * (h + 0.044715 * h**3)))
    e = jnp.exp(h - h.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)

x = np.random.default_rng(0).standard_normal((64, 256)); g = np.ones(256); b = np.zeros(256)
t = time.perf_counter(); step(x, g, b).block_until_ready(); first = time.perf_counter() - t
print(json.dumps({"first": first}))
"""


def one(source: str, cache: str, env: dict[str, str]) -> dict:
    # A file (Numba caches only functions defined in files), written once: Numba's cache
    # index checks the file's modification time.
    script = Path(cache).parent / f"script_{abs(hash(source))}.py"
    if not script.exists():
        script.write_text(source)
    out = subprocess.run([sys.executable, str(script), cache], capture_output=True, text=True,
                         env={**os.environ, **env}, cwd=ROOT, check=True, timeout=600)
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure(name: str, source: str, env_of, runs: int) -> dict[str, list[dict]]:
    """Cold: a new empty directory per process; warm: one directory filled beforehand."""
    results: dict[str, list[dict]] = {"cold": [], "warm": []}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(runs):
            cache = os.path.join(tmp, f"cold{i}")
            os.makedirs(cache)
            results["cold"].append(one(source, cache, env_of(cache)))
        warm = os.path.join(tmp, "warm")
        os.makedirs(warm)
        one(source, warm, env_of(warm))
        for _ in range(runs):
            results["warm"].append(one(source, warm, env_of(warm)))
    return results


def median_ms(rows: list[dict], key: str = "first") -> float:
    return statistics.median(r[key] for r in rows) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    rows = []
    ember = measure("ember", EMBER, lambda c: {"EMBER_CACHE_DIR": c}, args.runs)
    rows.append(("ember", median_ms(ember["cold"]), median_ms(ember["warm"])))
    assert all(r["hits"] > 0 for r in ember["warm"]), "warm ember runs missed the disk cache"
    try:
        import numba  # noqa: F401

        numba_rows = measure("numba", NUMBA, lambda c: {"NUMBA_CACHE_DIR": c}, args.runs)
        rows.append(("numba cache=True", median_ms(numba_rows["cold"]),
                     median_ms(numba_rows["warm"])))
    except ImportError:
        print("numba not installed: `pip install -e '.[bench]'`")
    try:
        import jax  # noqa: F401

        jax_rows = measure("jax", JAX, lambda c: {}, args.runs)
        rows.append(("jax persistent cache", median_ms(jax_rows["cold"]),
                     median_ms(jax_rows["warm"])))
    except ImportError:
        print("jax not installed: its row is left out (`pip install jax` to add it)")

    print(f"first call in a fresh process, medians of {args.runs} processes (ms)")
    print(f"{'':24}{'cold':>10}{'warm':>10}{'cold/warm':>11}")
    for name, cold, warm in rows:
        print(f"{name:24}{cold:10.1f}{warm:10.1f}{cold / warm:10.1f}x")
    # On a machine busier than its cores, wall-clock time mostly measures the wait for one.
    print(f"ember first call, CPU time of its thread (ms, medians): cold "
          f"{median_ms(ember['cold'], 'cpu'):.1f}, warm {median_ms(ember['warm'], 'cpu'):.1f} "
          f"(warm runs restoring a stored entry: "
          f"{sum(r['stored'] for r in ember['warm'])}/{len(ember['warm'])}, from its prepared "
          f"part: {sum(r['prepared'] for r in ember['warm'])})")
    ember_warm = rows[0][2]
    for name, _, warm in rows[1:]:
        print(f"warm {name} / warm ember: {warm / ember_warm:.2f}")
    # What a warm first call still spends: the core passes, scheduling and Cranelift IR
    # building run again; capture is skipped where a stored entry serves the call
    # (`capture/stored.py`), and Cranelift's optimisation, register allocation and emission
    # where the machine code is cached. `EMBER_STORED_ENTRIES=0` measures without the first.
    for label in ("cold", "warm"):
        stages: dict[str, float] = {}
        for r in ember[label]:
            for k, v in r["stages"].items():
                stages.setdefault(k, []).append(v)
        text = ", ".join(f"{k} {statistics.median(v) * 1e3:.1f}" for k, v in stages.items())
        print(f"ember {label} stages (ms, medians): {text}")


if __name__ == "__main__":
    main()
