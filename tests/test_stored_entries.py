"""Stored entries (`capture/stored.py`): a fresh process sharing `EMBER_CACHE_DIR` runs a
stored entry without capturing, with NumPy's results; a guard that fails in the new process
(a changed global), a damaged, misplaced or concurrently written file, or an entry that cannot
be restored by name (a user class, a graph break) captures as before; a closure is restored
while its cells pass the guards."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ember
from ember.capture import stored

ROOT = Path(__file__).resolve().parents[1]

# argv: which function, the global `scale`, the dtype.
SCRIPT = r"""
import json, sys
import numpy as np
import ember

which, scale, dtype = sys.argv[1], float(sys.argv[2]), sys.argv[3]

def layer(x, g, b):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-5) * g + b * scale, (x * g).sum()

def closure():
    k = np.float64(scale)
    return lambda x, g, b: (x * k + g - b, x.sum())

def closure_of_float():
    k = float(scale)
    return lambda x, g, b: (x * k + g - b, x.sum())

class Weights:
    def __init__(self, g):
        self.g = g

def method(x, w, b):
    return x * w.g + b, x.sum()

def broken(x, g, b):
    y = x * g
    print("", end="")
    return y + b * scale, x.sum()

# The same function calling a helper whose code depends on `scale`.
if scale > 2.0:
    def helper(v):
        return v * 3.0
else:
    def helper(v):
        return v * 2.0

def helped(x, g, b):
    return helper(x) + g, b.sum()

fn = {"layer": layer, "helped": helped, "closure": closure(), "method": method,
      "closure_of_float": closure_of_float(),
      "broken": broken}[which]
compiled = ember.compile(fn)
x = np.linspace(-2.0, 2.0, 48).reshape(6, 8).astype(dtype)
g = np.cos(np.arange(8.0)).astype(dtype)
b = np.sin(np.arange(8.0)).astype(dtype)
args = (x, Weights(g), b) if which == "method" else (x, g, b)
out = [compiled(*args) for _ in range(2)][-1]
want = fn(*args)
s = ember.stats()
print(json.dumps({
    "same": all(np.asarray(o).dtype == np.asarray(w).dtype and np.shape(o) == np.shape(w)
                and np.allclose(o, w, rtol=1e-5, atol=1e-6) for o, w in zip(out, want)),
    "stats": {k: s[k] for k in ("captures", "stored_hits", "stored_writes", "stored_rejected",
                                "native_calls")},
}))
"""


def start(cache: Path, which: str = "layer", scale: float = 1.5, dtype: str = "float64",
          **env: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", SCRIPT, which, str(scale), dtype],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "EMBER_CACHE_DIR": str(cache), **env}, cwd=ROOT)


def finish(proc: subprocess.Popen) -> dict[str, int]:
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    report = json.loads(out.strip().splitlines()[-1])
    assert report["same"], report
    return report["stats"]


def run(cache: Path, *args, **env: str) -> dict[str, int]:
    return finish(start(cache, *args, **env))


def entries(cache: Path) -> list[Path]:
    return sorted((cache / "entries").glob("*.entry"))


def test_second_process_does_not_capture(tmp_path):
    first = run(tmp_path)
    assert first["captures"] == 1 and first["stored_writes"] == 1, first
    assert len(entries(tmp_path)) == 1
    second = run(tmp_path)
    assert second["captures"] == 0 and second["stored_hits"] == 1, second
    assert second["stored_writes"] == second["stored_rejected"] == 0, second
    assert second["native_calls"] == 1, second  # the restored entry runs on the fast path


def test_switched_off_nothing_is_stored(tmp_path):
    first = run(tmp_path, EMBER_STORED_ENTRIES="0")
    assert first["stored_writes"] == 0 and entries(tmp_path) == [], first
    run(tmp_path)
    off = run(tmp_path, EMBER_STORED_ENTRIES="0")
    assert off["captures"] == 1 and off["stored_hits"] == 0, off


def test_other_argument_types_are_other_entries(tmp_path):
    run(tmp_path)
    other = run(tmp_path, "layer", 1.5, "float32")
    assert other["captures"] == 1 and other["stored_hits"] == 0, other
    assert other["stored_rejected"] == 0 and len(entries(tmp_path)) == 2


def test_a_changed_global_fails_the_stored_guards(tmp_path):
    run(tmp_path, "layer", 1.5)
    changed = run(tmp_path, "layer", 2.5)
    assert changed["stored_rejected"] == 1 and changed["captures"] == 1, changed
    assert changed["stored_writes"] == 1, changed  # rewritten for the new value
    again = run(tmp_path, "layer", 2.5)
    assert again["captures"] == 0 and again["stored_hits"] == 1, again


def test_a_helper_with_other_code_fails_the_stored_guards(tmp_path):
    first = run(tmp_path, "helped", 1.5)
    assert first["stored_writes"] == 1, first
    changed = run(tmp_path, "helped", 2.5)  # same function, the helper it calls differs
    assert changed["stored_rejected"] == 1 and changed["captures"] == 1, changed
    same = run(tmp_path, "helped", 2.5)
    assert same["captures"] == 0 and same["stored_hits"] == 1, same


@pytest.mark.parametrize("damage", ["truncate", "flip", "empty", "magic_only", "other_key",
                                    "valid_digest_garbage"])
def test_damaged_files_are_ignored_and_rewritten(tmp_path, damage):
    import hashlib

    run(tmp_path)
    path, = entries(tmp_path)
    data = path.read_bytes()
    head = len(b"EMBERSE1") + 32
    if damage == "truncate":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "flip":
        path.write_bytes(data[:-30] + bytes([data[-30] ^ 0x01]) + data[-29:])
    elif damage == "empty":
        path.write_bytes(b"")
    elif damage == "magic_only":
        path.write_bytes(data[:head])
    elif damage == "other_key":  # a whole, valid file under another name
        run(tmp_path, "layer", 1.5, "float32")
        other = next(p for p in entries(tmp_path) if p != path)
        path.write_bytes(other.read_bytes())
    else:  # the digest checks, the payload is no entry
        payload = b"\x80\x05K\x01."  # pickle of the int 1
        path.write_bytes(b"EMBERSE1" + hashlib.sha256(payload).digest() + payload)
    second = run(tmp_path)
    assert second["stored_rejected"] == 1 and second["captures"] == 1, second
    assert second["stored_writes"] == 1, second
    third = run(tmp_path)
    assert third["captures"] == 0 and third["stored_hits"] == 1, third


def test_concurrent_writers_leave_whole_files(tmp_path):
    reports = [finish(p) for p in [start(tmp_path) for _ in range(4)]]
    assert all(r["stored_rejected"] == 0 for r in reports), reports
    assert len(entries(tmp_path)) == 1
    assert not [p for p in (tmp_path / "entries").iterdir() if p.name.startswith(".tmp-")]
    after = run(tmp_path)
    assert after["captures"] == 0 and after["stored_hits"] == 1, after


def test_a_closure_is_restored_while_its_cells_pass_the_guards(tmp_path):
    """A closure's cells are read from the live function by its guards: the same values
    restore the entry, another value fails them and captures (shipped closures, as Dask
    workers get them, start warm)."""
    first = run(tmp_path, "closure_of_float", 1.5)
    assert first["stored_writes"] == 1 and len(entries(tmp_path)) == 1, first
    second = run(tmp_path, "closure_of_float", 1.5)
    assert second["captures"] == 0 and second["stored_hits"] == 1, second
    assert second["native_calls"] == 1, second
    changed = run(tmp_path, "closure_of_float", 2.5)
    assert changed["stored_rejected"] == 1 and changed["captures"] == 1, changed


@pytest.mark.parametrize("which", ["closure", "method", "broken"])
def test_entries_not_found_again_by_name_are_not_stored(tmp_path, which):
    first = run(tmp_path, which)
    assert first["stored_writes"] == 0 and entries(tmp_path) == [], first
    second = run(tmp_path, which)
    assert second["captures"] >= 1 and second["stored_hits"] == 0, second


# ---- in one process: the stored entry restored after `ember.reset()` ------------------------

def _scaled(x, y, s):
    return x * y + s, (x - y).max()


def _updates(x, y):
    x += y * 2.0
    return None


def _views(x, y):
    return x[1:, :3] * y[:3]


@pytest.fixture
def restorable(tmp_path, monkeypatch):
    """A cache directory of this test's own, where a process may restore what it stored."""
    monkeypatch.setattr(ember.config, "cache_dir", str(tmp_path))
    yield
    stored._stored_here.clear()


@pytest.mark.parametrize("fn, make", [
    (_scaled, lambda dt: (np.arange(12.0).reshape(3, 4).astype(dt),
                          np.linspace(1, 2, 4).astype(dt), 0.5)),
    (_scaled, lambda dt: (np.arange(6.0).astype(dt), np.ones(6, dt), 3)),
    (_updates, lambda dt: (np.arange(8.0).astype(dt), np.full(8, 0.25, dt))),
    (_views, lambda dt: (np.arange(20.0).reshape(4, 5).astype(dt), np.arange(4.0).astype(dt))),
])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_restored_entries_match_numpy(restorable, fn, make, dtype):
    compiled = ember.compile(fn, backend="cranelift")
    first_args = make(dtype)
    compiled(*[a.copy() if isinstance(a, np.ndarray) else a for a in first_args])
    assert ember.stats()["stored_writes"] == 1
    ember.reset()
    stored._stored_here.clear()  # as a fresh process
    args, plain = make(dtype), make(dtype)
    got, want = compiled(*args), fn(*plain)
    s = ember.stats()
    assert s["stored_hits"] == 1 and s["captures"] == 0, s
    for g, w in zip(got if isinstance(got, tuple) else [got],
                    want if isinstance(want, tuple) else [want]):
        assert type(g) is type(w) and np.shape(g) == np.shape(w)
        if w is None:
            continue
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_allclose(g, w, rtol=1e-6)
    for a, p in zip(args, plain):  # arguments updated in place as NumPy updates them
        np.testing.assert_array_equal(a, p)


def test_a_process_does_not_restore_what_it_stored(restorable):
    compiled = ember.compile(_scaled, backend="cranelift")
    compiled(np.ones(4), np.ones(4), 1.0)
    ember.reset()
    compiled(np.ones(4), np.ones(4), 1.0)
    s = ember.stats()
    assert s["captures"] == 1 and s["stored_hits"] == 0, s


def _cache_files(root: Path) -> list[Path]:
    return [*(root / "code").glob("*.bin"), *(root / "entries").glob("*.entry")]


def test_entries_count_against_the_cache_bound(restorable, tmp_path, monkeypatch):
    """Entry files and machine code share `cache_max_bytes`: the least recently used files
    of both kinds go once the directory passes it, and the newest entry stays."""
    compiled = ember.compile(_scaled, backend="cranelift")
    compiled(np.ones(2), np.ones(2), 1.0)
    one = sum(p.stat().st_size for p in _cache_files(tmp_path))
    monkeypatch.setattr(ember.config, "cache_max_bytes", one * 5 // 2)
    for n in range(3, 11):  # each length is another key: a new entry and new machine code
        ember.reset()
        stored._stored_here.clear()
        compiled(np.ones(n), np.ones(n), 1.0)
        assert sum(p.stat().st_size for p in _cache_files(tmp_path)) <= one * 5 // 2
    evictions = ember.stats()["disk_evictions"]
    kept = list((tmp_path / "entries").glob("*.entry"))
    assert evictions >= 1 and 1 <= len(kept) < 9, (evictions, kept)
    ember.reset()
    stored._stored_here.clear()
    compiled(np.ones(10), np.ones(10), 1.0)  # the newest entry is still there
    s = ember.stats()
    assert s["stored_hits"] == 1 and s["captures"] == 0, s


def _mixed(x, y):
    return x + y, "s", 2.5, x


def test_restored_results_of_constants_and_arguments(restorable):
    compiled = ember.compile(_mixed, backend="cranelift")
    compiled(np.arange(3.0), np.ones(3))
    assert ember.stats()["stored_writes"] == 1
    ember.reset()
    stored._stored_here.clear()  # as a fresh process
    x, y = np.arange(3.0), np.ones(3)
    for _ in range(2):
        total, text, number, same = compiled(x, y)
        np.testing.assert_array_equal(total, x + y)
        assert (text, number) == ("s", 2.5) and same is x
    s = ember.stats()
    assert s["stored_hits"] == 1 and s["captures"] == 0 and s["native_calls"] == 1, s
