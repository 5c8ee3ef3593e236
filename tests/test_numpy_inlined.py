"""NumPy functions ember has no handler for but NumPy writes in Python are inlined (their
module's globals read as constants; `np.fliplr`, `np.append`, `np.polyval`...), and a few
defined here from ops ember has (`derived.py`: `np.deg2rad`, `np.heaviside`, `np.inner`,
`np.vdot`, `np.vecdot`, `np.result_type`; `np.copyto` in place). Each against NumPy: values, dtypes,
shapes, arguments after the call; and captured whole (no graph break, on the fast path)."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import assert_same

RNG = np.random.default_rng(3)
M = RNG.standard_normal((4, 5))
V = RNG.standard_normal(6)
I = RNG.integers(-5, 5, (3, 4)).astype(np.int32)

WHOLE = [
    ("fliplr", lambda a: np.fliplr(a) * 2, (M,)),
    ("flipud", lambda a: np.flipud(a) + 1, (I,)),
    ("append", lambda a: np.append(a, 1.5) + np.append(a[None], a[None], axis=0).sum(), (V,)),
    ("polyval", lambda a: np.polyval([1.0, -2.0, 0.5], a), (M,)),
    ("tri", lambda a: np.tri(4, 5, -1) * a + np.tri(4, 5, 1, dtype=np.int8), (M,)),
    ("sinc", lambda a: np.sinc(a), (np.array([0.0, 0.5, -1.5, 2.0]),)),
    ("trapezoid", lambda a: np.trapezoid(a, dx=0.5) + np.trapezoid(a[:, 1:], axis=0), (M,)),
    ("logspace", lambda a: np.logspace(0, 2, 5) * a[:, :1], (M,)),
    ("isscalar", lambda a: a * np.isscalar(a[0, 0]) + np.iscomplexobj(a), (M,)),
    ("deg2rad", lambda a: (np.deg2rad(a), np.radians(a.astype(np.float32)), np.rad2deg(a),
                           np.degrees(a)), (M,)),
    ("deg2rad ints", lambda a: np.deg2rad(a) + np.rad2deg(a.astype(np.int16)), (I,)),
    ("heaviside", lambda a: np.heaviside(a, 0.5) + np.heaviside(a.astype(np.float32), a),
     (np.array([-1.0, 0.0, 2.0, np.nan, -0.0]),)),
    ("inner", lambda a: (np.inner(a, a), np.inner(a[0], a[1]), np.inner(a, 2.0)), (M,)),
    ("vdot", lambda a: np.vdot(a, a) + np.vdot(a[:2], a[2:]), (M,)),
    ("vecdot", lambda a: (np.vecdot(a, a), np.linalg.vecdot(a[0], a[1]), np.vecdot(a, a[0]),
                          np.vecdot(a, a[:, :1], axis=0)), (M,)),
    ("vecdot ints", lambda a: np.vecdot(a, a) + np.vecdot(a.T, a[0].astype(np.int8), axis=0),
     (I,)),
    ("result_type", lambda a: a.astype(np.result_type(a, np.float32, 1.0)) * 2, (I,)),
    ("nan_to_num", lambda a: np.nan_to_num(a) + np.nan_to_num(a, nan=-1.0, posinf=9.0),
     (np.array([1.0, np.inf, -np.inf, np.nan]),)),
]


@pytest.mark.parametrize("name, fn, args", WHOLE, ids=[c[0] for c in WHOLE])
def test_captured_whole_and_equal_to_numpy(name, fn, args):
    ember.reset()
    compiled = ember.compile(fn)
    want = fn(*args)
    for _ in range(3):
        assert_same(compiled(*args), want, rtol=1e-12)
    stats = ember.stats()
    assert stats["graph_breaks"] == 0, stats["break_reasons"]
    assert stats["native_calls"] >= 1 or stats["cache_hits"] >= 2


def _copy_where(x):
    y = x * 2
    np.copyto(y, 5.0, where=y > 1)
    return y


def _copy_into_argument(x, z):
    np.copyto(z, x[::-1])
    return z.sum()


def _copy_cast(x):
    y = np.zeros(x.shape, np.float32)
    np.copyto(y, x)
    return y


def _copy_refused_cast(x):
    y = np.zeros(x.shape, np.int64)
    np.copyto(y, x)  # float into int: NumPy's TypeError under casting="same_kind"
    return y


@pytest.mark.parametrize("fn", [_copy_where, _copy_into_argument, _copy_cast, _copy_refused_cast])
def test_copyto_writes_in_place_as_numpy_does(fn):
    ember.reset()
    make = (lambda: (V.copy(), np.zeros(6))) if fn is _copy_into_argument else (lambda: (V.copy(),))
    want_args = make()
    try:
        want = fn(*want_args)
    except TypeError as exc:
        with pytest.raises(TypeError, match="Cannot cast"):
            ember.compile(fn)(*make())
        assert "same_kind" in str(exc)
        return
    got_args = make()
    got = ember.compile(fn)(*got_args)
    assert_same(got, want, rtol=1e-12)
    assert_same(got_args, want_args, rtol=1e-12, path="arguments")


def _fill_local(d):
    d = d.copy()
    np.fill_diagonal(d, np.inf)
    return d


def _fill_argument(d):
    np.fill_diagonal(d, d.sum())
    return d * 2


def _fill_cube(x):
    a = np.zeros((3, 3, 3), np.int64)
    np.fill_diagonal(a, 7.9)  # converted as assignment converts: 7
    return a + x


def _fill_wrapped(d):
    np.fill_diagonal(d, -1.0, wrap=True)
    return d


@pytest.mark.parametrize("fn", [_fill_local, _fill_argument, _fill_cube, _fill_wrapped])
@pytest.mark.parametrize("shape", [(5, 5), (7, 4), (4, 6), (5, 4)])
def test_fill_diagonal_writes_in_place_as_numpy_does(fn, shape):
    """`np.fill_diagonal(a, v)` is `a[k, k] = v` for `k` below the shortest axis (NumPy's
    flat steps), captured without a break and written into its argument."""
    ember.reset()
    make = lambda: (RNG.standard_normal(shape) if fn is not _fill_cube else 2,)  # noqa: E731
    want_args = make()
    got_args = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in want_args)
    want = fn(*want_args)
    got = ember.compile(fn)(*got_args)
    assert_same(got, want)
    assert_same(got_args, want_args, path="arguments")
    # With wrap=, a matrix taller than wide goes on past its first square: left to NumPy.
    tall_wrap = fn is _fill_wrapped and shape[0] > shape[1] + 1
    assert ember.stats()["graph_breaks"] == int(tall_wrap), ember.stats()["break_reasons"]


def test_refusals_inside_numpy_name_the_call():
    def equivalent(a):
        return np.array_equiv(a, a * 1.0)  # builds an `np.broadcast` object

    ember.reset()
    x = np.linspace(0, 1, 5)
    assert ember.compile(equivalent)(x) is equivalent(x)
    reasons = list(ember.stats()["break_reasons"])
    assert len(reasons) == 1 and reasons[0].startswith("call to numpy.array_equiv ("), reasons


def test_errstate_blocks_inside_numpy_are_captured():
    def isclose(a):
        return np.isclose(a, 0.5)  # runs under np.errstate inside NumPy

    ember.reset()
    x = np.linspace(0, 1, 5)
    assert_same(ember.compile(isclose)(x), isclose(x), rtol=0)
    assert ember.stats()["graph_breaks"] == 0, ember.stats()["break_reasons"]


def test_imports_inside_a_captured_function():
    def f(x):
        import math
        import numpy.linalg as la
        from numpy import linalg
        return x * math.pi + la.norm(x) + linalg.norm(x)

    ember.reset()
    assert_same(ember.compile(f)(V), f(V), rtol=1e-12)
    assert ember.stats()["graph_breaks"] == 0, ember.stats()["break_reasons"]


@pytest.mark.parametrize("backend", ["cranelift", "eager"])
@pytest.mark.parametrize("fn", [lambda a: np.vecdot(a, a[:2]), lambda a: np.vecdot(a, 2.0),
                                lambda a: np.vecdot(a, a, axis=3)])
def test_vecdot_raises_numpys_errors(fn, backend):
    with pytest.raises(Exception) as want:
        fn(V)
    with pytest.raises(type(want.value), match=str(want.value).split("(")[0][:40]):
        ember.compile(fn, backend=backend)(V)
