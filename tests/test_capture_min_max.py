"""Python's `max()`/`min()` of NumPy scalars computed in the graph, outside loop bodies: one
graph when the object returned has one type whatever the data (all NumPy scalars of one
dtype, or all Python numbers of one type); otherwise the comparison runs in Python."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import RecordingBackend, assert_same


def pairs(a):
    return max(a[0], a[1]), min(a[0], a[1], a[2]), max(a[1] * 2, a[2] + 1)


def of_a_list(a):
    return max([a[0], a[2], a[1]]), min((a[3] * a[1], a[0]))


def in_arithmetic(a):
    return a * max(a[0], a[-1]) + min(a[1], a[2])


def python_numbers(a):
    return max(float(a[0]), float(a[1])), min(int(a.shape[0]), 2)


EXACT = [pairs, of_a_list, in_arithmetic, python_numbers]

VALUES = [np.array([1.0, 3.0, 2.0, -1.0]), np.array([np.nan, 1.0, 2.0, 0.0]),
          np.array([1.0, np.nan, -0.0, 0.0]), np.array([-0.0, 0.0, 0.0, -0.0]),
          np.array([5, 5, 2, 9], dtype=np.int32), np.array([True, False, True, True])]


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
@pytest.mark.parametrize("fn", EXACT, ids=lambda f: f.__name__)
def test_min_max_of_scalars_in_one_graph(fn, backend: str) -> None:
    rec = RecordingBackend(backend)
    compiled = ember.compile(fn, backend=rec)
    for a in VALUES:
        if fn is python_numbers and a.dtype == bool:
            continue  # float(np.bool_) is fine, but keep the dtypes comparable
        want = fn(a.copy())
        got = compiled(a.copy())
        assert_same(got, want)
        if isinstance(want, tuple):
            for g, w in zip(got, want, strict=True):  # -0.0 against 0.0: which object
                assert np.signbit(g) == np.signbit(w)
    assert ember.stats()["graph_breaks"] == 0
    assert len(rec.graphs) <= 3  # one per dtype at most


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
def test_mixed_types_keep_pythons_choice(backend: str) -> None:
    def mixed(a):
        return max(a[0], 2), min(a[1], a.astype(np.float32)[2]), max(a[0], 1.5)

    compiled = ember.compile(mixed, backend=backend)
    for a in (np.array([1.0, 3.0, 2.0]), np.array([3.0, 1.0, 0.5])):
        want, got = mixed(a), compiled(a)
        assert_same(got, want)
