"""Compiled functions return arrays that alias their arguments and each other exactly as
NumPy's do: a returned argument is the argument, a view of an argument updated in place is a
view of the argument (writes through it reach the caller's array), views of one base share it.
"""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import assert_same, assert_same_aliasing

BACKENDS = ["cranelift", "eager"]


def returned_argument(x):
    return x


def updated_then_sliced(x):
    x += 1
    return x[::2]


def updated_then_transposed(x):
    x[0] = 5
    return x.T


def updated_then_reshaped(x):
    x += 1
    return x.reshape(-1)


def updated_transposed_then_reshaped(x):
    x += 1
    return x.T.reshape(-1)


def updated_returned(x):
    x *= 2
    return x


def two_views_of_an_argument(x):
    return x.T, x[1:]


def two_views_of_a_result(x):
    y = x * 2
    return y, y[1:], y.T


def one_result_twice(x):
    y = x + 1
    return y, y


def updated_view_then_updated_again(x):
    x += 1
    y = x[::2]
    x *= 3
    return y


def view_then_update(x):
    y = x[:, 1:]
    x += 1
    return y


def one_view_twice(x):
    t = x.T
    return t, t


def reversed_when_it_changes_nothing(x):
    return x[:1, :1][::-1, ::-1], x[:0][::-1]


def a_copy_and_its_reversal(x):
    t = x[:1, :1].astype(x.dtype)
    return t, t[::-1], t


def copies_and_the_array_itself(x):
    return x.astype(x.dtype), np.asarray(x), x.astype(x.dtype, copy=False), np.pad(x, 0)


def result_and_argument(x, y):
    return x + y, x, y[::-1]


PROGRAMS = [returned_argument, updated_then_sliced, updated_then_transposed,
            updated_then_reshaped, updated_transposed_then_reshaped, updated_returned,
            two_views_of_an_argument, two_views_of_a_result, one_result_twice,
            updated_view_then_updated_again, view_then_update, one_view_twice,
            reversed_when_it_changes_nothing, copies_and_the_array_itself,
            a_copy_and_its_reversal]


def _arguments(layout):
    base = np.arange(24.0).reshape(4, 6)
    return {"contiguous": base, "transposed": base.T, "strided": base[:, ::2],
            "reversed": base[::-1]}[layout]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided", "reversed"])
@pytest.mark.parametrize("fn", PROGRAMS, ids=lambda f: f.__name__)
def test_results_alias_as_numpy(fn, layout, backend):
    want_x = _arguments(layout).copy(order="K")
    got_x = _arguments(layout).copy(order="K")
    want = fn(want_x)
    got = ember.compile(fn, backend=backend)(got_x)
    assert_same(got, want)
    assert_same(got_x, want_x, path="argument")
    assert_same_aliasing(got, (got_x,), want, (want_x,))


@pytest.mark.parametrize("backend", BACKENDS)
def test_writing_through_a_returned_view_reaches_the_argument(backend):
    x = np.zeros(8)
    view = ember.compile(updated_then_sliced, backend=backend)(x)
    view[:] = 42.0
    np.testing.assert_array_equal(x, [42.0, 1.0] * 4)


@pytest.mark.parametrize("backend", BACKENDS)
def test_returned_argument_is_the_argument(backend):
    x = np.ones(3)
    assert ember.compile(updated_returned, backend=backend)(x) is x
    assert ember.compile(returned_argument, backend=backend)(x) is x


@pytest.mark.parametrize("backend", BACKENDS)
def test_two_arguments_and_a_result(backend):
    x, y = np.arange(5.0), np.arange(5.0, 10.0)
    got = ember.compile(result_and_argument, backend=backend)(x, y)
    want = result_and_argument(x, y)
    assert_same(got, want)
    assert_same_aliasing(got, (x, y), want, (x, y))
    assert got[1] is x


# An update in place of the only view of an op's result (`np.linalg.solve`'s squeezed column,
# `reshape` of a product) is the frame's own business: captured, no break. Where the base or
# another view of it is still held, the update must show there too.
def solved_then_scaled(A, b):
    v = b
    for _ in range(4):
        v = np.linalg.solve(A, v)
        v /= np.max(np.abs(v))
    return v


def flattened_product_centred(A, b):
    y = (A * 2.0).reshape(-1)
    y -= y.mean()
    return y + b.sum()


def flattened_with_base_held(A, b):
    z = A * 2.0
    y = z.reshape(-1)
    y += b[0]
    return z, y


def raveled_with_transpose_held(A, b):
    z = A + b[0]
    y = z.ravel()
    w = z.T
    y *= 3.0
    return w, y


@pytest.mark.parametrize("fn, native", [(solved_then_scaled, True),
                                        (flattened_product_centred, True),
                                        (flattened_with_base_held, False),
                                        (raveled_with_transpose_held, False)],
                         ids=["solved", "flattened", "base_held", "transpose_held"])
def test_updating_the_only_view_of_a_result(fn, native):
    ember.reset()
    A = np.arange(16.0).reshape(4, 4) + 8 * np.eye(4)
    b = np.linspace(1.0, 2.0, 4)
    want = fn(A.copy(), b.copy())
    got = ember.compile(fn)(A.copy(), b.copy())
    assert_same(got, want)
    assert_same_aliasing(got, (), want, ())
    if native:
        assert ember.stats()["graph_breaks"] == 0, ember.stats()["break_reasons"]
