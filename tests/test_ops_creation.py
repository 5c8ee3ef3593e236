"""Array creation against NumPy: zeros/ones/full/empty, *_like, arange, linspace (of
constants and of values the graph computes), eye."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from probe_harness import assert_scenario_as_numpy, called_twice
from test_ops_elementwise import DTYPES, sample
from test_cranelift_harness import check as check_native
from test_ops_harness import check


@pytest.mark.parametrize("shape", [3, (2, 3), (), (0, 4), [2, 1]])
def test_filled_arrays(shape: object) -> None:
    check(lambda xp: (xp.zeros(shape), xp.ones(shape), xp.full(shape, 7)))
    check(lambda xp: (xp.full(shape, 2.5), xp.full(shape, True), xp.empty(shape).shape))
    for dt in DTYPES:
        check(lambda xp, d=dt: (xp.zeros(shape, d), xp.ones(shape, dtype=d),
                                xp.full(shape, 3, dtype=d)))


def test_empty_is_zeros_with_numpys_dtype_and_shape() -> None:
    from ember.backends import eager
    from ember.graph import Graph
    from ember.numpy_api import lookup_function

    g = Graph()
    e = lookup_function(np.empty)(g, (2, 3), np.int32)
    g.set_outputs([e])
    (out,) = eager.run(g)
    assert out.dtype == np.int32 and out.shape == (2, 3)


def test_like_functions() -> None:
    for x in (sample(np.float32, (2, 3)), sample(np.int8, (4,)), np.float64(1.0)):
        check(lambda xp, x: (xp.zeros_like(x), xp.ones_like(x), xp.full_like(x, 3)), x)
        check(lambda xp, x: (xp.zeros_like(x, dtype=np.int16), xp.ones_like(x, shape=(3, 1)),
                             xp.full_like(x, 2.7), xp.empty_like(x).dtype), x)
    check(lambda xp, x: xp.full((2, 2), x[0]), sample(np.float32, (2,)))


@pytest.mark.parametrize(
    "args",
    [(5,), (2, 7), (7, 2), (0, 10, 3), (10, 0, -3), (0.5, 3), (0, 1, 0.1), (0.1, 1, 0.1),
     (-2.5, 2.5, 0.5), (3, 3), (1, 2, 0)],
)
def test_arange(args: tuple[float, ...]) -> None:
    check(lambda xp: xp.arange(*args))
    check(lambda xp: xp.arange(*args, dtype=np.float32))


@pytest.mark.parametrize(
    ("start", "stop", "num", "endpoint"),
    [(0, 1, 5, True), (0, 1, 5, False), (-3.5, 2, 50, True), (2, 2, 4, True), (0, 1, 1, True),
     (0, 1, 0, True), (1, 0, 7, False), (0, 1e-310, 3, True), (0, 10, -1, True)],
)
def test_linspace(start: float, stop: float, num: int, endpoint: bool) -> None:
    check(lambda xp: xp.linspace(start, stop, num, endpoint=endpoint))
    check(lambda xp: xp.linspace(start, stop, num, endpoint=endpoint, retstep=True))
    check(lambda xp: xp.linspace(start, stop, num, endpoint=endpoint, dtype=np.float32))
    check(lambda xp: xp.linspace(start, stop, num, endpoint=endpoint, dtype=np.int32))


LINSPACE_BETWEEN_VALUES = [
    lambda xp, x: xp.linspace(x.min(), x.max(), 5),
    lambda xp, x: xp.linspace(0, x.max(), 7, endpoint=False, retstep=True),
    lambda xp, x: xp.linspace(x[0], 2.0, 1, retstep=True),
    lambda xp, x: xp.linspace(x[0], x[1], 0),
    lambda xp, x: xp.linspace(x[:3], x[-1], 4, endpoint=False),
    lambda xp, x: xp.linspace(x[:2], x[2:4], 3, dtype=np.int32),
    lambda xp, x: xp.linspace(x[0] * 0, x[0] * 0 + 1e-320, 3),  # a step that rounds to 0
    lambda xp, x: xp.linspace(x[0], x[0], 4),
    lambda xp, x: xp.linspace(x[0], 10, -1),
]


@pytest.mark.parametrize("prog", LINSPACE_BETWEEN_VALUES)
@pytest.mark.parametrize("dt", [np.float64, np.float32, np.int32])
def test_linspace_between_values_of_the_graph(prog, dt) -> None:
    """`np.linspace(x.min(), x.max(), n)`: bounds the graph computes, of any shapes that
    broadcast, NumPy's dtypes and steps (NumPy's own `geomspace`/`logspace` call it so)."""
    x = (sample(np.float64, (6,)) * 4).astype(dt)
    check(prog, x)
    check_native(prog, x)


def spaced(x):
    return (np.geomspace(1, 100, 5), np.logspace(0, x.max(), 4), np.geomspace(x[0], 8.0, 3),
            np.histogram_bin_edges(x, bins=5), np.linspace(x.min(), x.max(), 6) * 2)


@pytest.mark.parametrize("dt", [np.float64, np.float32])
def test_numpys_spacings_built_on_linspace_compile_as_one_graph(dt) -> None:
    x = np.random.default_rng(7).uniform(0.5, 9.0, 6).astype(dt)
    if dt == np.float64:
        assert_scenario_as_numpy(called_twice(spaced, (x,)))
    else:
        # The powers of `logspace` and `geomspace`: compiled code takes libm's powf and pow,
        # where NumPy's SIMD power loops (NumPy 2.4 on AVX-512) may be an ulp away: values
        # within an ulp or two, NumPy's dtypes and shapes.
        want = spaced(x.copy())
        ember.reset()
        got = ember.compile(spaced)(x.copy())
        for g, w in zip(got, want, strict=True):
            assert g.dtype == w.dtype and g.shape == w.shape, (g, w)
            np.testing.assert_allclose(g, w, rtol=1e-15 if w.dtype == np.float64 else 1e-6, atol=0)
    ember.reset()
    ember.compile(spaced)(x)
    assert ember.stats()["graph_breaks"] == 0, ember.stats()["break_reasons"]


@pytest.mark.parametrize(("n", "m", "k"), [(3, None, 0), (2, 4, 1), (4, 2, -1), (3, 3, 5),
                                           (0, 2, 0)])
def test_eye_identity(n: int, m: int | None, k: int) -> None:
    check(lambda xp: xp.eye(n, m, k))
    check(lambda xp: xp.eye(n, m, k=k, dtype=np.int32))
    check(lambda xp: (xp.identity(n), xp.identity(n, dtype=bool)))


def test_asarray() -> None:
    for x in (sample(np.float32, (2, 3)), np.float64(2.0), np.array(3, np.int8)):
        check(lambda xp, x: (xp.asarray(x), xp.asarray(x, dtype=np.int64), xp.asanyarray(x)), x)
        check(lambda xp, x: xp.ascontiguousarray(x), x)
        check(lambda xp, x: xp.asarray([x, x * 2]), x)
    check(lambda xp, x: (xp.asarray(2.5) + x, xp.asarray(True)), sample(np.float32, (2,)))
    check(lambda xp, x: xp.asarray([x, x[0]]), sample(np.float32, (2,)), allow_unsupported=True)


@pytest.mark.parametrize("k", [0, 1, -1, 5, -5])
def test_tril_triu(k: int) -> None:
    for shape in [(3, 4), (4, 3), (2, 3, 3), (4,)]:
        for dt in (np.float32, np.int64, np.bool_):
            x = sample(dt, shape) + (dt != np.bool_)
            check(lambda xp, x: (xp.tril(x, k), xp.triu(x, k=k)), x)
    check(lambda xp, x: xp.tril(x), np.float64(1.0))


def test_fill_values_are_cast_as_numpy_casts_them() -> None:
    check(lambda xp: xp.full(3, 300, np.uint8))
    check(lambda xp: xp.full(3, -1, np.uint8))
    check(lambda xp: (xp.full(3, 2.7, np.int8), xp.full(2, 1e300, np.float32)))
    check(lambda xp: xp.full(2, np.nan, np.int32))
    check(lambda xp: xp.full(2, np.float32(1.5), np.float64))


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                                   np.uint32, np.uint64, np.float32, np.float64, np.bool_])
def test_constant_arrays_of_every_dtype_natively(dtype) -> None:
    """Aranges and identities of every dtype are constants of the compiled graph, which must
    hold every element (they are read by the kernels that use them)."""
    x = np.linspace(-2.0, 2.0, 12).reshape(3, 4)
    if dtype is not np.bool_:
        assert check_native(lambda xp, x: xp.arange(4, dtype=dtype) * 2 + x, x)
        assert check_native(lambda xp, x: (xp.arange(3, dtype=dtype)[:, None]
                                           >= xp.arange(4, dtype=dtype)) * x, x)
    assert check_native(lambda xp, x: xp.eye(3, 4, dtype=dtype) + x, x)


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
def test_linspace_between_computed_values(backend: str) -> None:
    """np.linspace between 0-d values the graph computes (the range of the data), in NumPy's
    dtype and rounding, its tiny-step path included, as one graph."""
    import ember
    from ops_compiled import check as check_compiled

    rng = np.random.default_rng(5)
    x, x32, k = rng.random(20), rng.random(20).astype(np.float32), rng.integers(-9, 9, 12)
    for fn, arg in ((lambda t: np.linspace(t.min(), t.max(), 7), x),
                    (lambda t: np.linspace(t.min(), t.max(), 7), x32),
                    (lambda t: np.linspace(0.0, t.max(), 5, endpoint=False), x32),
                    (lambda t: np.linspace(t[0], 10, 4), k),
                    (lambda t: np.linspace(t.min(), t.max(), 6, dtype=int), x * 30),
                    (lambda t: np.linspace(t.min(), t.max() + 1e-310, 3), np.zeros(4)),
                    (lambda t: (np.linspace(t.min(), t.max(), 1),
                                np.linspace(t.min(), t.max(), 0)), x),
                    (lambda t: np.linspace(t.sum(), t.min(), 9), x),
                    (lambda t: np.linspace(np.float32(1), t.max(), 5), x),
                    (lambda t: np.digitize(t, np.linspace(t.min(), t.max(), 11)), x),
                    (lambda t: np.linspace(t.min(), t.max(), -2), x)):
        ember.reset()
        check_compiled(fn, arg, backend=backend, ops=())
