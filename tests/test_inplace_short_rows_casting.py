"""`x[i:j] op= y` in a loop body, where the slice is a short row (a vector of elements) and
`y` a NumPy scalar: NumPy's ufunc with `out=` the slice casts with 'same_kind', so a float
result into a bool or integer slice raises UFuncTypeError (it was stored with a cast)."""

from __future__ import annotations

import ember
import numpy as np
import pytest


def width_one(a, M):
    s = np.float32(1)
    for i in range(len(a)):
        a[i:i + 1] += s
    return a


def width_one_with_break(a, M):
    s = np.float32(1)
    for i in range(len(a)):
        a[i:i + 1] += s
        if a[0] < a[0]:
            break
    return a


def width_two(a, M):
    s = np.float64(0.5)
    for i in range(1, len(a)):
        a[i - 1:i + 1] -= s
    return a


def row_prefix(a, M):
    s = np.float32(2)
    for r in range(M.shape[0]):
        M[r, :2] *= s
    return M


def python_float(a, M):
    for i in range(len(a)):
        a[i:i + 1] += 1.5
    return a


def same_kind_int(a, M):
    s = np.int64(3)
    for i in range(len(a)):
        a[i:i + 1] += s
    return a


def _outcome(fn, args):
    try:
        return fn(*args), None
    except Exception as exc:  # noqa: BLE001 - raising is an outcome to compare
        return args, exc


@pytest.mark.parametrize("fn", [width_one, width_one_with_break, width_two, row_prefix,
                                python_float, same_kind_int])
@pytest.mark.parametrize("dtype", [np.bool_, np.int32, np.uint8, np.float32])
def test_short_row_updated_in_place_casts_as_numpy(fn, dtype):
    def make():
        return [np.arange(12).astype(dtype), np.arange(12).reshape(4, 3).astype(dtype)]

    want, want_error = _outcome(fn, make())
    ember.reset()
    compiled = ember.compile(fn)
    for _ in range(2):
        got, got_error = _outcome(compiled, make())
        assert type(got_error) is type(want_error)
        assert str(got_error) == str(want_error)
        if want_error is None:
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)
        else:  # the arguments as NumPy left them
            for x, y in zip(got, want, strict=True):
                np.testing.assert_array_equal(x, y)
