"""Shared fixtures: a clean ember for every test, a recording backend, and a comparison of
compiled results with NumPy's (value, dtype, shape, scalar-ness, container structure)."""

from __future__ import annotations

import atexit
import math
import os
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import settings

sys.path.insert(0, str(Path(__file__).parent))

# Every run generates the same examples (a fixed seed, no example database), without deadlines:
# a failure is reproducible and the suite never flakes on timing.
settings.register_profile("ember", derandomize=True, database=None, deadline=None,
                          print_blob=True)
settings.load_profile("ember")

# The suite, and every process it starts, writes its persistent compile cache into a
# directory of its own, never into the user's.
_TEST_CACHE_DIR = tempfile.mkdtemp(prefix="ember-test-cache-")
os.environ["EMBER_CACHE_DIR"] = _TEST_CACHE_DIR
atexit.register(shutil.rmtree, _TEST_CACHE_DIR, True)

import ember
from ember.backends import eager


class RecordingBackend:
    """A callable backend that keeps every graph it is given and runs it eagerly (or with
    the backend named)."""

    def __init__(self, backend=None) -> None:
        self.graphs = []
        self.backend = backend

    def __call__(self, graph, example_inputs):
        self.graphs.append(graph)
        if self.backend is None:
            return eager.compile(graph, example_inputs)
        from ember.backends import lookup_backend

        return lookup_backend(self.backend)(graph, example_inputs)

    @property
    def op_counts(self) -> list[int]:
        return [len(g.nodes) for g in self.graphs]

    def ops(self, index: int = -1) -> list[str]:
        return [n.op for n in self.graphs[index].nodes]


@pytest.fixture(autouse=True)
def _fresh_ember():
    ember.reset()
    yield
    ember.reset()


@pytest.fixture
def recorder() -> RecordingBackend:
    return RecordingBackend()


def assert_same(got, want, *, rtol: float = 1e-6, atol: float = 1e-12, path: str = "result"):
    """`got` is what NumPy gave as `want`: same Python/NumPy type, dtype, shape, structure,
    values within float rounding."""
    if isinstance(want, np.ndarray):
        assert type(got) is np.ndarray, f"{path}: {type(got).__name__}, want ndarray"
        assert got.dtype == want.dtype, f"{path}: dtype {got.dtype}, want {want.dtype}"
        assert got.shape == want.shape, f"{path}: shape {got.shape}, want {want.shape}"
        assert_same_layout(got, want, path)
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True,
                                   err_msg=path)
    elif isinstance(want, np.generic):
        assert type(got) is type(want), f"{path}: {type(got).__name__}, want {type(want).__name__}"
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True,
                                   err_msg=path)
    elif isinstance(want, (tuple, list)):
        assert type(got) is type(want), f"{path}: {type(got).__name__}, want {type(want).__name__}"
        assert len(got) == len(want), f"{path}: length {len(got)}, want {len(want)}"
        for i, (g, w) in enumerate(zip(got, want)):
            assert_same(g, w, rtol=rtol, atol=atol, path=f"{path}[{i}]")
    elif isinstance(want, dict):
        assert type(got) is dict and list(got) == list(want), f"{path}: keys {list(got)}"
        for k in want:
            assert_same(got[k], want[k], rtol=rtol, atol=atol, path=f"{path}[{k!r}]")
    else:
        assert type(got) is type(want), f"{path}: {type(got).__name__}, want {type(want).__name__}"
        both_nan = isinstance(want, float) and math.isnan(want) and math.isnan(got)
        # A Python float within rounding, as a NumPy scalar is (`math.expm1` compiled need
        # not round as the C library does).
        close = isinstance(want, float) and math.isclose(got, want, rel_tol=rtol, abs_tol=atol)
        assert got == want or both_nan or close, f"{path}: {got!r}, want {want!r}"


def layout(a: np.ndarray) -> tuple:
    """What NumPy's memory order makes visible: the contiguity flags and the strides of the
    axes longer than 1 (a size-1 axis's stride addresses nothing, and NumPy's own differ)."""
    if a.size == 0:
        return ()
    return (a.flags.c_contiguous, a.flags.f_contiguous,
            tuple(s for s, d in zip(a.strides, a.shape, strict=True) if d > 1))


def assert_same_layout(got: np.ndarray, want: np.ndarray, path: str = "result") -> None:
    """`got` is laid out in memory as NumPy laid out `want` (`x.T + 1` is F-ordered)."""
    assert layout(got) == layout(want), \
        f"{path}: layout (C, F, strides) {layout(got)}, NumPy's {layout(want)}"


def _arrays_in(value, path: str = "result"):
    """(path, array) for every ndarray in a result, through tuples, lists and dicts."""
    if isinstance(value, np.ndarray):
        yield path, value
    elif isinstance(value, (tuple, list)):
        for i, item in enumerate(value):
            yield from _arrays_in(item, f"{path}[{i}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _arrays_in(item, f"{path}[{key!r}]")


def aliasing(result, args) -> list[tuple[str, str, bool, bool]]:
    """How the arrays of `result` relate to the arguments and to each other: for every pair,
    (result path, other path, `is`, `np.shares_memory`). Compared between compiled code and
    NumPy, it says that views, in-place updates and returned arguments alias as in NumPy."""
    outs = list(_arrays_in(result))
    ins = list(_arrays_in(tuple(args), "arg"))
    relations = []
    for i, (path, out) in enumerate(outs):
        for other_path, other in ins + outs[:i]:
            relations.append((path, other_path, out is other, bool(np.shares_memory(out, other))))
    return relations


def assert_same_aliasing(got, got_args, want, want_args) -> None:
    """Compiled results alias the arguments and each other exactly as NumPy's do."""
    got_relations, want_relations = aliasing(got, got_args), aliasing(want, want_args)
    for g, w in zip(got_relations, want_relations, strict=True):
        assert g == w, f"{g[0]} vs {g[1]}: is={g[2]}, shares memory={g[3]}; NumPy: is={w[2]}, " \
                       f"shares memory={w[3]}"
