"""Random draws compiled against plain NumPy: calls on a `np.random.Generator` (an argument, a
global, a closure cell, one made by `np.random.default_rng(seed)` in the frame) and the legacy
`np.random.*` functions, made by the entry ahead of the graph in program order. The values,
dtypes and Python types of the draws, what the frame computes from them, and the generator's
state afterwards are NumPy's; the kernel compiles without a graph break. Draws whose arguments
only the data knows, draws inside a loop op's body, and draws that NumPy refuses run as
Python, and still give NumPy's stream."""

from __future__ import annotations

import copy
import math

import ember
import numpy as np
import pytest


def _state(value):
    if isinstance(value, np.random.Generator):
        return repr(value.bit_generator.state)
    if isinstance(value, np.random.RandomState):
        return repr(value.get_state(legacy=False))
    return None


def _outcome(fn, args, seed):
    """Result (repr), exception, and the state of every generator argument and of the
    global one afterwards."""
    np.random.seed(seed)
    try:
        result = repr(fn(*args))
    except Exception as exc:  # noqa: BLE001 -- compared with the compiled function's
        result = f"raised {type(exc).__name__}: {exc}"
    return result, [_state(a) for a in args], repr(np.random.get_state(legacy=False))


def _check(fn, make, calls=3, breaks=0):
    """`fn` compiled behaves as `fn` on `calls` calls (fresh inputs from `make(call)`);
    `breaks`: the graph breaks it may take (None: any)."""
    ember.reset()
    compiled = ember.compile(fn)
    for call in range(calls):
        args = make(call)
        want = _outcome(fn, copy.deepcopy(args), call)
        got = _outcome(compiled, copy.deepcopy(args), call)
        assert got == want, f"call {call}:\n  compiled {got}\n  NumPy    {want}"
    stats = ember.stats()
    if breaks is not None:  # compiled: an entry ran (a graph, or the draws alone)
        assert stats["cache_hits"] >= calls - 1 and stats["entry_fallbacks"] == 0, stats
        assert stats["graph_breaks"] == breaks, stats["break_reasons"]
    return stats


def _rng(call):
    return np.random.default_rng(100 + call)


# ---------------------------------------------------------------- a generator argument

def normals_and_uniforms(rng, n):
    z = rng.standard_normal((n, 3))
    u = rng.random()
    w = rng.uniform(-1.0, 2.0, n)
    return z.sum(axis=1) * u + w


def integers_table(rng, n, k):
    idx = rng.integers(0, k, size=n)
    table = np.arange(k) * 10
    return table[idx], idx.dtype


def many_methods(rng):
    a = rng.normal(2.0, 0.5, size=4)
    b = rng.binomial(10, 0.3, size=4)
    c = rng.poisson(3.0, 4)
    d = rng.exponential(2.0, 4)
    e = rng.choice(7, size=4)
    f = rng.permutation(6)
    g = rng.integers(5, size=(2, 2), dtype=np.int32)
    h = rng.random(3, dtype=np.float32)
    return a + b, c * d, e, f, g, h


def scalar_draws(rng, x):
    u = rng.random()            # a Python float
    k = rng.integers(0, 10)     # an np.int64
    m = rng.binomial(20, 0.5)   # a Python int
    g = rng.normal()            # a Python float
    return x * u + k + m + g, type(u), type(k), type(m)


def discarded_draws(rng, x):
    rng.random(5)               # advances the stream, result unused
    rng.standard_normal()
    return x + 1.0


def draw_returned(rng, x):
    return rng.normal(size=x.shape), rng.random(), x


@pytest.mark.parametrize("fn,make", [
    (normals_and_uniforms, lambda c: (_rng(c), 5)),
    (integers_table, lambda c: (_rng(c), 50, 7)),
    (many_methods, lambda c: (_rng(c),)),
    (scalar_draws, lambda c: (_rng(c), np.arange(4.0))),
    (discarded_draws, lambda c: (_rng(c), np.arange(3.0))),
    (draw_returned, lambda c: (_rng(c), np.ones(3))),
], ids=lambda v: getattr(v, "__name__", ""))
def test_generator_argument(fn, make):
    _check(fn, make)


def test_other_bit_generators():
    def f(rng, x):
        return x * rng.standard_normal(x.shape) + rng.integers(0, 3, x.shape)

    for bits in (np.random.MT19937, np.random.Philox, np.random.SFC64):
        _check(f, lambda c, bits=bits: (np.random.Generator(bits(c)), np.ones((3, 2))))


def test_draws_in_an_unrolled_loop():
    def walk(rng, x):
        for _ in range(4):
            x = x + rng.normal(0.0, 1.0, x.shape)
            x = x * rng.random()
        return x

    _check(walk, lambda c: (_rng(c), np.zeros(5)))


def test_python_number_arguments():
    def f(rng, n, scale):
        return rng.normal(0.0, scale, size=n) + rng.integers(0, n, size=n)

    _check(f, lambda c: (_rng(c), 6, 0.5))
    _check(f, lambda c: (_rng(c), 2 + c, 0.5 + c), breaks=None)  # new sizes: recompiled


def test_a_bound_method_argument():
    def f(draw, x):
        return x + draw(size=x.shape)

    _check(f, lambda c: (_rng(c).standard_normal, np.ones(3)))
    _check(f, lambda c: (np.random.RandomState(c).normal, np.ones(3)))


def test_in_a_helper():
    def noise(rng, shape, sigma):
        return sigma * rng.standard_normal(shape)

    def f(rng, x):
        return x + noise(rng, x.shape, 0.1) - noise(rng, x.shape, 0.2)

    _check(f, lambda c: (_rng(c), np.ones((2, 3))))


# ---------------------------------------------------------------- other generators

GLOBAL_RNG = np.random.default_rng(5)


def from_global(x):
    return x + GLOBAL_RNG.normal(size=x.shape)


def test_global_generator():
    ember.reset()
    compiled = ember.compile(from_global)
    start = copy.deepcopy(GLOBAL_RNG.bit_generator.state)
    want = [from_global(np.ones(3)) for _ in range(3)]
    after = GLOBAL_RNG.bit_generator.state
    GLOBAL_RNG.bit_generator.state = start
    got = [compiled(np.ones(3)) for _ in range(3)]
    assert repr(got) == repr(want)
    assert GLOBAL_RNG.bit_generator.state == after
    assert ember.stats()["graph_breaks"] == 0


def test_closure_generator():
    def make(seed):
        rng = np.random.default_rng(seed)

        def step(x):
            return x * rng.random(x.shape)
        return step

    plain, fast = make(3), make(3)
    compiled = ember.compile(fast)
    ember.reset()
    for _ in range(3):
        assert repr(compiled(np.arange(4.0))) == repr(plain(np.arange(4.0)))
    assert ember.stats()["graph_breaks"] == 0


def seeded_inside(x):
    rng = np.random.default_rng(42)
    noise = rng.normal(0.0, 0.1, x.shape)
    return x + noise, rng.random()


def seeded_and_returned(n):
    rng = np.random.default_rng(seed=7)
    a = rng.integers(0, 100, n)
    return np.sort(a), rng


def test_default_rng_inside():
    _check(seeded_inside, lambda c: (np.arange(5.0) * c,))
    ember.reset()
    compiled = ember.compile(seeded_and_returned)
    for _ in range(2):
        (got, rng), (want, rng_want) = compiled(6), seeded_and_returned(6)
        assert repr(got) == repr(want)
        assert rng.bit_generator.state == rng_want.bit_generator.state
        assert rng.random() == rng_want.random()  # a generator of its own each call
    assert ember.stats()["graph_breaks"] == 0


def legacy_functions(x):
    a = np.random.normal(size=x.shape)
    b = np.random.rand(*x.shape)
    c = np.random.randint(0, 5, size=x.shape)
    return x + a * b + c, np.random.random()


def test_legacy_functions():
    _check(legacy_functions, lambda c: (np.ones((2, 3)) * c,))


def test_legacy_random_state_argument():
    def f(rs, x):
        return x + rs.standard_normal(x.shape) + rs.randint(0, 3, x.shape)

    _check(f, lambda c: (np.random.RandomState(c), np.ones(4)))


# ---------------------------------------------------------------- what stays Python

def test_draw_from_data_breaks():
    def f(rng, x):
        n = int(x.sum())  # known only from the data
        return rng.normal(size=n).sum()

    _check(f, lambda c: (_rng(c), np.ones(3 + c)), breaks=None)


def bootstrap(rng, x, n_boot):
    n = len(x)
    means = np.empty(n_boot)
    for b in range(n_boot):
        idx = rng.integers(0, n, n)
        means[b] = x[idx].mean()
    return means


def weighted_resamples(rng, x, n_boot):
    out = np.empty(n_boot)
    for b in range(3, n_boot + 3):  # a range that does not start at 0
        w = rng.exponential(1.0, size=len(x))
        out[b - 3] = (x * w).sum() / w.sum()
    return out


def noisy_steps(rng, x, n_steps):
    for _ in range(n_steps):
        x = 0.9 * x + rng.normal(0.0, 0.1, size=x.shape)
    return x


def scalar_per_trip(rng, counts, n_steps):
    for _ in range(n_steps):
        k = rng.integers(0, len(counts))  # an np.int64 each trip
        counts[k] += 1
    return counts


def narrow_integers(rng, counts, n_steps):
    for _ in range(n_steps):
        k = rng.integers(0, 3, dtype=np.int8)  # buffered per call: drawn a row at a time
        counts[k] += 1.0
    return counts


@pytest.mark.parametrize("fn,make", [
    (bootstrap, lambda c: (_rng(c), np.arange(20.0), 300)),
    (weighted_resamples, lambda c: (_rng(c), np.arange(20.0), 300)),
    (noisy_steps, lambda c: (_rng(c), np.ones(4), 400)),
    (scalar_per_trip, lambda c: (_rng(c), np.zeros(5, dtype=np.int64), 400)),
    (narrow_integers, lambda c: (_rng(c), np.zeros(3), 400)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_one_draw_a_trip_in_a_loop_op(fn, make):
    _check(fn, make)


def test_draws_a_loop_op_cannot_take():
    def two_a_trip(rng, x, n):  # a block each would reorder the stream
        for _ in range(n):
            x = x + rng.random(x.shape) - rng.random(x.shape)
        return x

    def on_a_path(rng, x, n):
        for i in range(n):
            if x[i % 3] > 0.5:
                x = x + rng.random(x.shape)
            x = x * 0.5
        return x

    def nested(rng, x, n):
        for _ in range(n):
            for _ in range(n):
                x = x + rng.random(x.shape)
        return x

    def python_floats(rng, x, n):
        for _ in range(n):
            x = x + rng.random()
        return x

    for fn in (two_a_trip, on_a_path, nested, python_floats):
        _check(fn, lambda c: (_rng(c), np.full(3, 0.75), 300), breaks=None)


@pytest.mark.parametrize("method,args,kwargs", [
    ("random", (), {}), ("random", (), {"dtype": np.float32}), ("standard_normal", (), {}),
    ("standard_normal", (), {"dtype": np.float32}), ("normal", (1.0, 2.0), {}),
    ("uniform", (-1.0, 3.0), {}), ("exponential", (2.0,), {}),
    ("standard_exponential", (), {"dtype": np.float32}), ("integers", (0, 7), {}),
    ("integers", (0, 2 ** 40), {}), ("integers", (-3, 7), {"dtype": np.int32}),
    ("integers", (0, 7), {"dtype": np.uint32}), ("poisson", (3.0,), {}), ("poisson", (30.0,), {}),
    ("binomial", (10, 0.3), {}), ("binomial", (1000, 0.3), {}), ("gamma", (2.0, 1.5), {}),
    ("standard_gamma", (0.5,), {}), ("beta", (2.0, 3.0), {}), ("lognormal", (0.0, 1.0), {}),
    ("laplace", (), {}), ("logistic", (), {}), ("gumbel", (), {}), ("geometric", (0.3,), {}),
    ("chisquare", (3.0,), {}), ("standard_t", (3.0,), {}), ("rayleigh", (), {}),
    ("weibull", (2.0,), {}), ("pareto", (2.0,), {}), ("power", (2.0,), {}),
    ("standard_cauchy", (), {}),
])
@pytest.mark.parametrize("bits", [np.random.PCG64, np.random.MT19937, np.random.Philox,
                                  np.random.SFC64], ids=lambda b: b.__name__)
def test_block_draws_are_numpys_stream(method, args, kwargs, bits):
    """What `draws.BLOCK_DRAWS` rests on: `trips` draws (scalars, or of one size) are one
    draw of `trips` rows, value for value, and leave the generator in the same state."""
    from ember.capture.variables.draws import BLOCK_DRAWS, BlockPlan, _whole

    assert method in BLOCK_DRAWS
    assert _whole(BlockPlan(None, None, method, args, tuple(kwargs.items()), ""))
    for size in (None, 3, (2, 3)):
        one, block = np.random.Generator(bits(7)), np.random.Generator(bits(7))
        one.random(), block.random()  # an odd start: a 32-bit half may be buffered
        rows = np.array([getattr(one, method)(*args, size=size, **kwargs) for _ in range(5)])
        shape = () if size is None else (size,) if isinstance(size, int) else size
        whole = getattr(block, method)(*args, size=(5, *shape), **kwargs)
        if size is None:  # float32 scalars come as Python floats (exactly)
            rows = rows.astype(whole.dtype)
        assert rows.dtype == whole.dtype and np.array_equal(rows, whole)
        assert repr(one.bit_generator.state) == repr(block.bit_generator.state)


def test_narrow_integers_are_not_one_block():
    from ember.capture.variables.draws import BlockPlan, _whole

    for dtype in (np.int8, np.uint16, np.bool_):
        assert not _whole(BlockPlan(None, None, "integers", (0, 2), (("dtype", dtype),), ""))
        one, block = np.random.default_rng(1), np.random.default_rng(1)
        rows = np.array([one.integers(0, 2, size=3, dtype=dtype) for _ in range(8)])
        assert not np.array_equal(rows, block.integers(0, 2, size=(8, 3), dtype=dtype))


def test_shuffle_in_place():
    def f(rng, x):
        y = x * 2
        rng.shuffle(y)
        return y + 1

    _check(f, lambda c: (_rng(c), np.arange(6.0)), breaks=None)


def test_numpy_refuses_the_draw():
    def f(rng, x, k):
        return x + rng.integers(0, k, size=x.shape)

    _check(f, lambda c: (_rng(c), np.ones(3), 0), breaks=None)


def test_graph_error_after_draws_draws_once():
    # The graph raises (an index past the end): the frame runs as Python from the state
    # before the entry's draws, so the generator is drawn from once.
    def f(rng, x):
        i = rng.integers(10, 20)
        return x[i] + rng.random()

    stats = _check(f, lambda c: (_rng(c), np.arange(5.0)), breaks=None)
    assert stats["entry_fallbacks"] >= 1


def test_branch_on_a_draw():
    # A break on the drawn number: the draws before it are the entry's, the rest Python's.
    def branchy(rng, x):
        if rng.random() < 0.5:
            return x + rng.normal(size=x.shape)
        return x - rng.random(x.shape)

    _check(branchy, lambda c: (_rng(c), np.ones(3)), calls=6, breaks=None)


def test_two_paths_to_generators_restored_on_fallback():
    def f(r1, r2, x):
        a = r1.normal(size=x.shape)
        b = r2.normal(size=x.shape)
        return x[int(x[0]) + 10] + a + b  # past the end: NumPy's IndexError

    def pair(call):
        r = _rng(call)
        return (r, r if call % 2 == 0 else _rng(call + 10), np.ones(3))

    ember.reset()
    compiled = ember.compile(f)
    for call in range(4):
        plain, fast = pair(call), pair(call)
        with pytest.raises(IndexError):
            f(*plain)
        with pytest.raises(IndexError):
            compiled(*fast)
        for g, w in zip(fast[:2], plain[:2]):
            assert g.bit_generator.state == w.bit_generator.state


def test_gradient_through_a_draw():
    def loss(w, rng):
        return ((w * rng.normal(size=w.shape)) ** 2).sum()

    grad = ember.grad(loss)
    for seed in range(2):
        r1, r2 = np.random.default_rng(seed), np.random.default_rng(seed)
        w = np.arange(3.0)
        got = grad(w, r1)
        z = r2.normal(size=3)
        np.testing.assert_allclose(got, 2 * w * z ** 2, rtol=1e-12)
        assert r1.bit_generator.state == r2.bit_generator.state


def test_sizes_of_symbolic_shapes():
    # Draws sized by an argument's shape follow it once the shape is symbolic: one capture
    # for every size of 2 or more, NumPy's stream for each (sizes 0 and 1 included).
    def f(rng, x):
        return x + rng.normal(size=x.shape) * rng.random(len(x))

    def g(rng, m):
        return m - rng.integers(0, 9, size=(m.shape[0], 2))

    for fn, make in ((f, lambda n: np.ones(n)), (g, lambda n: np.zeros((n, 2), np.int64))):
        ember.reset()
        compiled = ember.compile(fn)
        for n in (5, 6, 7, 9, 0, 1, 12):
            plain, fast = (_rng(n), make(n)), (_rng(n), make(n))
            assert repr(compiled(*fast)) == repr(fn(*plain))
            assert fast[0].bit_generator.state == plain[0].bit_generator.state
        stats = ember.stats()
        assert stats["graph_breaks"] == 0 and stats["compiles"] <= 4, stats


def test_default_rng_seeded_by_an_argument():
    def simulate(x, seed):
        rng = np.random.default_rng(seed)
        return x * rng.standard_normal(x.shape) + rng.integers(0, 3)

    ember.reset()
    compiled = ember.compile(simulate)
    for seed in range(6):  # a new seed each call: captured once the seed is a run-time int
        assert repr(compiled(np.ones(4), seed)) == repr(simulate(np.ones(4), seed))
    stats = ember.stats()
    assert stats["graph_breaks"] == 0 and stats["compiles"] <= 3, stats


def test_drawn_numbers_as_sizes_and_bounds():
    def size_from_a_draw(rng, x):  # a size the draw decides: a break before np.zeros
        m = rng.binomial(10, 0.5)
        return np.zeros(m) + x.sum()

    def bound_from_a_draw(rng, x):  # a slice bound the draw decides: taken by the entry
        k = rng.poisson(3.0)
        return x[:k] * 2, k + 1

    _check(size_from_a_draw, lambda c: (_rng(c), np.arange(8.0)), breaks=None)
    _check(bound_from_a_draw, lambda c: (_rng(c), np.arange(8.0)), breaks=0)


def test_a_loop_drawing_with_run_time_numbers():
    # Numbers known only at run time (a scale that changes every call) are not a block's:
    # each call draws with its own.
    def f(rng, x, scale):
        out = np.empty(300)
        for i in range(300):
            out[i] = (x * rng.normal(0.0, scale, size=x.shape)).sum()
        return out

    _check(f, lambda c: (_rng(c), np.ones(3), 0.5 + c), calls=5, breaks=None)


def test_draw_sizes_from_ints_that_change():
    # Sizes given by int arguments that change between calls (layers of a model built in the
    # frame): the entry draws with the frame's ints, so the graph's shape follows them, as a
    # symbol once the int is seen to change, and never a graph made for another size.
    def init_layer(rng, n_in, n_out):
        w = rng.standard_normal((n_in, n_out)) / math.sqrt(n_in)
        return w, np.zeros(n_out), rng.permutation(n_in)

    def sizes(c):
        return (_rng(c), (4, 8, 3, 5, 2, 7)[c], (8, 3, 5, 2, 6, 4)[c])

    stats = _check(init_layer, sizes, calls=6, breaks=None)
    assert stats["graph_breaks"] == 0 and stats["entry_fallbacks"] == 0, stats
    assert stats["captures"] == 2 and stats["cache_hits"] == 4, stats
