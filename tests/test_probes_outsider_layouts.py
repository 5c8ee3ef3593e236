"""Memory layout of advanced indexing by one static list of integers, as an outsider checks it:
NumPy puts the indexed dimension outermost in memory and the other axes in the order of the
array's strides (`fortran_array[[0, 0]]` is C-ordered, `c_array[:, [0, 1]]` is not), whatever
the layout of the array indexed; compiled results must be laid out the same (strides of the
axes longer than 1, contiguity flags) on both backends, also after an elementwise op. And a
result broadcast `out=` a temporary fills it (each element its own memory)."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import layout

PROGRAMS = {
    "rows": lambda a: a[[0, 0]],
    "rows_then_doubled": lambda a: a[[1, 0, 1]] * 2,
    "columns": lambda a: a[:, [0, 1, 0]] + 0,
    "last_axis": lambda a: a[..., [0, 0]] * 2,
    "after_a_slice": lambda a: a[1:, [0, -1]],
}
ARRAYS = {
    "c3": np.arange(24.0).reshape(2, 3, 4), "f3": np.arange(24.0).reshape(4, 3, 2).T,
    "c2": np.arange(12.0).reshape(3, 4), "f2": np.arange(12.0).reshape(4, 3).T,
    "strided": np.arange(15.0).reshape(3, 5)[:, ::2], "bool_f": np.eye(3, dtype=bool).T[:, :2],
}


@pytest.mark.parametrize("array", sorted(ARRAYS))
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_list_indexing_is_laid_out_as_numpys(name, array):
    fn, a = PROGRAMS[name], ARRAYS[array]
    want = fn(a)
    for backend in ("cranelift", "eager"):
        ember.reset()
        got = ember.compile(fn, backend=backend)(a)
        np.testing.assert_array_equal(got, want)
        assert got.dtype == want.dtype
        assert layout(got) == layout(want), (backend, got.strides, want.strides)
        assert ember.stats()["compiles"] >= 1


def _out_broadcast(a):
    t0 = a[:1] * 3
    t1 = a + a
    np.add(t0, t0, out=t1)
    return t1


def _out_broadcast_fortran(a):
    t1 = (a + a).T.copy().T
    np.multiply(a[:, :1], 2, out=t1)
    return t1


@pytest.mark.parametrize("fn", [_out_broadcast, _out_broadcast_fortran],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("array", ["c2", "f2", "c3"])
def test_a_broadcast_result_written_out_to_a_temporary_fills_it(fn, array):
    """`np.add(row, row, out=t)` fills `t`: the result is `t`, every element its own (it was
    returned as a read-only broadcast view of the row, stride 0)."""
    a = ARRAYS[array]
    want = fn(a.copy())
    for backend in ("cranelift", "eager"):
        ember.reset()
        got = ember.compile(fn, backend=backend)(a.copy())
        np.testing.assert_array_equal(got, want)
        assert layout(got) == layout(want), (backend, got.strides, want.strides)
        assert got.flags.writeable
        got[(0,) * got.ndim] = -1  # one element, as in NumPy's
        assert (got == -1).sum() == 1
        assert ember.stats()["compiles"] >= 1
