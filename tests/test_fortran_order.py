"""Fortran-ordered arrays as code ported from Fortran makes them: `np.zeros(..., order='F')`
and its kin, `np.array(x, order='F')`, `np.asfortranarray`, and such arrays filled by loops
with the column index outermost. Against NumPy: values, dtype, and the layout of every
result (`.flags`, `.strides`), which follows the inputs' (`graph/layouts.py`); native where
nothing is written through a view."""

from __future__ import annotations

import ember
import numpy as np
import pytest


def created(n, m):
    a = np.zeros((n, m), order='F')
    b = np.ones((n, m), order='F') * 2.0
    c = np.full((m, n), 3.0, order='F')
    d = np.empty((n, m, 2), dtype=np.float32, order='F')
    d[:] = 1.5
    return a, b + a, c, d, np.ones(n, order='F')


def copied(x):
    y = np.array(x, order='F')
    y[0, 0] = 7.0
    return y, x, np.array(x, dtype=np.float32, order='F'), np.array([[1.0, 2.0], [3.0, 4.0]],
                                                                     order='F')


def fortran_view(x):
    y = np.asfortranarray(x)
    return y, y * 2.0, np.asfortranarray(x[0]), y.sum(axis=0)


def gemm_columns(a, b):
    a = np.asfortranarray(a)
    m, k = a.shape
    n = b.shape[1]
    c = np.zeros((m, n), order='F')
    for j in range(n):
        for l in range(k):
            temp = b[l, j]
            for i in range(m):
                c[i, j] = c[i, j] + temp * a[i, l]
    return c


def copy_then_loop(a):
    c = np.copy(a)
    n, m = c.shape
    for j in range(m):
        for i in range(n):
            c[i, j] = c[i, j] * 2.0 + i
    return c


def branchy_columns(a):
    out = np.zeros(a.shape, order='F')
    for j in range(a.shape[1]):
        for i in range(a.shape[0]):
            if a[i, j] > 0.5:
                out[i, j] = a[i, j]
            else:
                out[i, j] = -a[i, j]
    return out


def _check(fn, *args, native=True):
    want = fn(*[np.copy(a) if isinstance(a, np.ndarray) else a for a in args])
    ember.reset()
    compiled = ember.compile(fn)
    for call in range(2):
        inputs = [np.copy(a) if isinstance(a, np.ndarray) else a for a in args]
        got = compiled(*inputs)
        pairs = zip(got, want) if isinstance(want, tuple) else [(got, want)]
        for g, w in pairs:
            assert type(g) is type(w) and g.dtype == w.dtype and g.shape == w.shape
            assert np.array_equal(g, w)
            assert (g.flags.c_contiguous, g.flags.f_contiguous, g.strides) == (
                w.flags.c_contiguous, w.flags.f_contiguous, w.strides), f"call {call}"
    stats = ember.stats()
    if native:
        assert stats["compiles"] >= 1 and stats["graph_breaks"] == 0, stats["break_reasons"]


def test_creation_in_fortran_order():
    _check(created, 3, 4)


@pytest.mark.parametrize("order", ["C", "F"])
def test_array_copy_in_fortran_order(order):
    _check(copied, np.array(np.arange(12.0).reshape(3, 4), order=order))


@pytest.mark.parametrize("order", ["C", "F"])
def test_asfortranarray_read(order):
    _check(fortran_view, np.array(np.arange(12.0).reshape(3, 4), order=order))


@pytest.mark.parametrize("order", ["C", "F"])
def test_asfortranarray_shares_memory_as_numpy_does(order):
    x = np.array(np.arange(12.0).reshape(3, 4), order=order)
    want = np.shares_memory(np.asfortranarray(x), x)
    got = ember.compile(lambda v: np.asfortranarray(v))(x)
    assert np.shares_memory(got, x) == want


def test_column_loops_fill_a_fortran_array():
    rng = np.random.default_rng(0)
    _check(gemm_columns, rng.random((5, 3)), rng.random((3, 4)))


@pytest.mark.parametrize("order", ["C", "F"])
def test_loop_keeps_the_layout_of_an_array_it_stores_into(order):
    a = np.array(np.random.default_rng(1).random((5, 4)), order=order)
    _check(copy_then_loop, a)
    _check(branchy_columns, a)


def like_orders(x):
    e = np.empty_like(x, order='C')
    e[...] = 1.0  # filled before it is read: no uninitialised memory
    return (np.zeros_like(x), np.zeros_like(x, order='C'), np.ones_like(x, order='F'),
            np.full_like(x, 2.0, order='F'), e)


@pytest.mark.parametrize("order", ["C", "F"])
def test_like_functions_with_an_order(order):
    _check(like_orders, np.array(np.arange(12.0).reshape(3, 4), order=order))
