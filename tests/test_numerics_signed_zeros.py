"""Which zero NumPy's `maximum` and `minimum` return for equal zeros (0.0 and -0.0): the
second operand, in every layout, length and float dtype; and `max`/`min` reductions, which
fold the elements in order with the same rule, so that the later zero wins (outer axes,
strided arrays, and contiguous arrays too short for NumPy's vector loop). Compared by repr
(every sign) with plain NumPy on both backends."""

from __future__ import annotations

import ember
import numpy as np
import pytest

BACKENDS = ["cranelift", "eager"]
FLOATS = [np.float64, np.float32]
RNG = np.random.default_rng(11)


def _zeros(n, dtype):
    """`n` zeros of random signs."""
    return np.where(RNG.random(n) < 0.5, -0.0, 0.0).astype(dtype)


def _assert_same(fn, *args, backend):
    want = repr(fn(*args))
    ember.reset()
    got = repr(ember.compile(fn, backend=backend)(*args))
    assert got == want, (args, got, want)
    assert not ember.stats()["backend_fallbacks"]


def binary(x, y):
    return np.maximum(x, y), np.minimum(x, y), np.maximum(y, x), np.minimum(y, x)


def with_scalars(x):
    return (np.maximum(x, 0.0), np.maximum(-0.0, x), np.minimum(x, -0.0), np.minimum(0.0, x),
            np.maximum(x, x[0]), np.minimum(x[-1], x))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.__name__)
@pytest.mark.parametrize("n", [1, 2, 3, 7, 8, 9, 16, 17, 33, 100])
def test_elementwise_ties_give_the_second_operand(n, dtype, backend):
    x, y = _zeros(n, dtype), _zeros(n, dtype)
    _assert_same(binary, x, y, backend=backend)
    _assert_same(binary, np.repeat(x, 2)[::2], y[::-1], backend=backend)
    _assert_same(with_scalars, x, backend=backend)
    _assert_same(with_scalars, x[::-1], backend=backend)


def broadcast(x, y):
    return np.maximum(x[:, None], y[None, :]), np.minimum(x[:, None] + 0.0, y)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.__name__)
def test_broadcast_ties(dtype, backend):
    _assert_same(broadcast, _zeros(5, dtype), _zeros(19, dtype), backend=backend)


def reductions(x):
    return x.max(), x.min(), np.max(x), np.amin(x)


def outer_reductions(x):
    return x.max(axis=0), x.min(axis=0), x.T.max(axis=1)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.__name__)
@pytest.mark.parametrize("n", [1, 2, 3, 5, 9, 17, 40])
def test_reductions_give_the_later_zero(n, dtype, backend):
    for _ in range(4):
        x = _zeros(n, dtype)
        _assert_same(reductions, np.repeat(x, 2)[::2], backend=backend)  # strided: in order
        if n <= 2:  # contiguous, shorter than any vector loop of NumPy's
            _assert_same(reductions, x, backend=backend)
        _assert_same(outer_reductions, _zeros(n * 3, dtype).reshape(n, 3), backend=backend)


def in_loop(x):
    best = x[0]
    for i in range(1, x.shape[0]):
        best = np.maximum(best, x[i])
    return best


@pytest.mark.parametrize("backend", BACKENDS)
def test_scalar_maximum_in_a_loop(backend):
    for _ in range(4):
        _assert_same(in_loop, _zeros(9, np.float64), backend=backend)


def fmax_fmin(x, y):
    return (np.fmax(x, y), np.fmin(x, y), np.fmin(y, x), np.fmax(x, 0.0), np.fmin(-0.0, y),
            np.fmax(x[::-1], y))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.__name__)
@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 9, 16, 17, 33])
@pytest.mark.parametrize("errstate", [{}, {"invalid": "raise"}, {"all": "warn"}])
def test_fmax_fmin_ties_are_numpys(n, dtype, backend, errstate):
    """NumPy's `fmax`/`fmin` of equal zeros return the first operand in its scalar loop and
    an operand chosen by length in its vector loops: a compiled kernel meeting such a tie
    raises invalid, so the graph reruns with NumPy (silently: NumPy raises nothing). Under
    `errstate(invalid='ignore')` the kernel's own choice, the first operand, stands."""
    with np.errstate(**errstate):
        for _ in range(3):
            _assert_same(fmax_fmin, _zeros(n, dtype), _zeros(n, dtype), backend=backend)
