"""Loop bodies that compute with short arrays (`x = x * 0.5 + y[i]` on eight elements,
3-vectors of positions and velocities, `v @ w` of short rows) are written element by element
by the optimiser (`passes/scalarize.rs`), so that the loop compiles to one native loop with
its values in registers instead of running a graph per trip. Each function runs compiled and
plain; results, dtypes and argument mutation must agree, and the optimised body must hold
only 0-d values and element access."""

from __future__ import annotations

import re

import ember
import numpy as np
import pytest
from ember import _core
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from test_loops_returns import run_calls


def optimised_bodies(fn, *args) -> list[str]:
    """The loop bodies of `fn`'s graph after the optimiser, as IR text, one per body."""
    text = ember.explain(fn, *args).graphs[0]
    final = _core.pipeline_stages(text)[-1][1]
    return re.split(r"\n(?=func @)", final)[2:]


def array_statements(body: str) -> list[str]:
    """Statements of a body that compute an array (not 0-d) other than element stores."""
    out = []
    for line in body.splitlines()[1:]:
        line = line.strip()
        if not line.startswith("%") or " store(" in line:
            continue
        if not line.rsplit(" : ", 1)[-1].split(" ")[0].endswith("[]"):
            out.append(line)
    return out


def relax(x, y, n):
    for i in range(n):
        x = x * 0.5 + y[i % 4]
    return x


def damped(x, y, n):
    v = np.zeros(3)
    for i in range(n):
        v = v + 0.01 * (y[i % 4, :3] - v)
    return v


def oscillator(x, y, n):
    p = np.zeros(2)
    vel = np.ones(2)
    for i in range(n):
        acc = -p
        vel = vel + 0.01 * acc
        p = p + 0.01 * vel
    return p, vel


def rotate(x, y, n):
    R = np.array([[0.8, -0.6], [0.6, 0.8]])
    v = x[:2].copy()
    for i in range(n):
        v = R @ v
    return v


def normalised(x, y, n):
    v = x[:3].copy()
    for i in range(n):
        v = v + y[i % 4, :3] * 0.1
        v = v / np.sqrt((v * v).sum())
    return v


def statistics(x, y, n):
    total = 0.0
    hi = -np.inf
    for i in range(n):
        row = y[i % 4] * x
        total += row.mean() + row.sum()
        hi = max(hi, row.max())
    return total, hi


def flips_and_views(x, y, n):
    a = x[:6].copy()
    for i in range(n):
        b = a.reshape(2, 3)
        a = (b.T[::-1] * 0.5 + 0.1).ravel()
    return a


def stores_into_short(x, y, n):
    h = np.zeros(4)
    for i in range(n):
        h2 = h * 0.9
        h2[i % 4] = h2[i % 4] + y[i % 4, 0]
        h = h2
    return h


def integer_counts(x, y, n):
    c = np.zeros(5, dtype=np.int64)
    for i in range(n):
        c = c + (y[i % 4, :5] > 0.5)
        c = c * 3 % 1000
    return c


def float32_state(x, y, n):
    s = x.astype(np.float32)
    for i in range(n):
        s = s * np.float32(0.9) + np.float32(0.1)
    return s


def matrix_state(x, y, n):
    M = np.eye(3)
    for i in range(n):
        M = 0.5 * (M + M.T) + 0.01 * np.outer(x[:3], x[:3])
    return M


KERNELS = [relax, damped, oscillator, rotate, normalised, statistics, flips_and_views,
           stores_into_short, integer_counts, float32_state, matrix_state]
SCALAR = {relax, damped, oscillator, rotate, normalised, statistics, flips_and_views,
          stores_into_short, integer_counts, float32_state}


@pytest.mark.parametrize("fn", KERNELS, ids=lambda f: f.__name__)
def test_short_array_loops_match_numpy(fn):
    rng = np.random.default_rng(3)
    calls = [(rng.random(8), rng.random((4, 8)), n) for n in (0, 1, 7, 200)]
    ember.reset()
    run_calls(fn, calls, native=False)
    stats = ember.stats()
    assert stats["graph_breaks"] == 0, stats["break_reasons"]


@pytest.mark.parametrize("fn", sorted(SCALAR, key=lambda f: f.__name__), ids=lambda f: f.__name__)
def test_short_array_bodies_become_scalar_code(fn):
    rng = np.random.default_rng(0)
    bodies = optimised_bodies(fn, rng.random(8), rng.random((4, 8)), 50)
    assert bodies, "no loop op"
    for body in bodies:
        assert array_statements(body) == [], body


def test_a_body_with_a_long_array_keeps_its_array_ops():
    def long_rows(x, n):
        for i in range(n):
            x = x * 0.5 + 1.0
        return x

    x = np.random.default_rng(1).random(200)  # past scalarize's MAX_ELEMENTS (128)
    (body,) = optimised_bodies(long_rows, x, 1000)
    assert array_statements(body), body
    ember.reset()
    run_calls(long_rows, [(x, 1000)], native=False)


def test_negative_and_out_of_bounds_constant_indices():
    def picks(x, n):
        v = x[:4] * 1.0
        t = 0.0
        for i in range(n):
            v = v * 0.5
            t += v[-1] + v[0]
        return t, v

    def out_of_bounds(x, n):
        v = x[:4] * 1.0
        t = 0.0
        for i in range(n):
            v = v * 0.5
            t += v[4]
        return t

    x = np.random.default_rng(2).random(8)
    ember.reset()
    run_calls(picks, [(x, 5)], native=False)
    compiled = ember.compile(out_of_bounds)
    with pytest.raises(IndexError):
        out_of_bounds(x.copy(), 3)
    with pytest.raises(IndexError):
        compiled(x.copy(), 3)


_UNARY = ["np.sqrt(np.abs({}))", "-{}", "np.tanh({})", "({} * {})", "np.maximum({}, 0.25)"]
_BINARY = ["({} + {})", "({} - {})", "({} * {})", "np.minimum({}, {})", "({} / (1.5 + {}))"]


@st.composite
def programs(draw):
    """A loop over a short carried array: a random elementwise update, reductions of it into
    a carried float, and element reads at constant positions."""
    n = draw(st.integers(1, 16))
    leaves = ["x", "y[i % 4, :N]", "0.5", "x[::-1]", "s"]

    def expr(depth):
        if depth == 0 or draw(st.booleans()):
            return draw(st.sampled_from(leaves))
        if draw(st.booleans()):
            return draw(st.sampled_from(_UNARY)).format(*[expr(depth - 1)] * 2)
        return draw(st.sampled_from(_BINARY)).format(expr(depth - 1), expr(depth - 1))

    update = expr(3).replace("N", str(n))
    reduce_ = draw(st.sampled_from(["x.sum()", "x.max()", "x.min()", "x.mean()", "x[0]",
                                    f"x[{n - 1}]", "x @ x"]))
    dtype = draw(st.sampled_from(["np.float64", "np.float32"]))
    source = (
        "def program(x0, y, trips):\n"
        f"    x = x0[:{n}].astype({dtype})\n"
        "    s = 0.0\n"
        "    for i in range(trips):\n"
        f"        x = (x * 0.25 + {update}) * 0.5\n"
        f"        s = s * 0.5 + {reduce_}\n"
        "    return x, s\n"
    )
    # Short float64 windows are vectors of 0-d values; longer ones (element loops of their
    # own) and float32 state that a float64 row turns float64 (not one loop op) are not.
    return source, n <= 8 and dtype == "np.float64"


@seed(20261206)
@settings(max_examples=30, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_random_short_array_loops(program_and_scalar):
    source, scalar = program_and_scalar
    namespace = {"np": np}
    exec(compile(source, "<program>", "exec"), namespace)
    program = namespace["program"]
    rng = np.random.default_rng(7)
    x0, y = rng.random(16) + 0.1, rng.random((4, 16))
    if scalar:
        bodies = optimised_bodies(program, x0, y, 400)
        assert bodies and all(array_statements(b) == [] for b in bodies), source
    ember.reset()
    compiled = ember.compile(program)
    # Few trips: a random update may be chaotic (`sqrt(abs(tanh(x)))` near 0), and compiled
    # `tanh` need not round as the C library does, so long runs may drift apart.
    for trips in (0, 3, 30):
        with np.errstate(all="ignore"):
            want = program(x0, y, trips)
            got = compiled(x0, y, trips)
        for g, w in zip(got, want, strict=True):
            assert type(g) is type(w), source
            if isinstance(w, np.ndarray):
                assert g.dtype == w.dtype and g.shape == w.shape, source
            np.testing.assert_allclose(g, w, rtol=2e-5 if "float32" in source else 1e-9,
                                       atol=1e-6, equal_nan=True, err_msg=source)


# Short arrays filled by element loops of their own inside the body: a window of more than
# eight elements gathered by an inner loop op, `table[x]` of a short `x`, a kernel scaled per
# trip and added into a block of the carried array. The inner loops are written out trip by
# trip, so the body is scalar code too.

def window_stats(x, w):
    out = np.zeros((len(x), 2))
    for i in range(w - 1, len(x)):
        seg = x[i - w + 1:i + 1]
        out[i, 0] = seg.mean()
        out[i, 1] = seg.std()
    return out


def flipped_taps(x, h):
    taps = len(h)
    out = np.empty((len(x) - taps) // 3 + 1, dtype=x.dtype)
    for i in range(len(out)):
        out[i] = np.sum(x[i * 3:i * 3 + taps] * h[::-1])
    return out


def table_counts(codes, table):
    n = codes.shape[0]
    d = np.zeros(n, dtype=np.int32)
    for i in range(1, n):
        x = codes[i] ^ codes[i - 1]
        d[i] = int(table[x].sum())
    return d


def scatter_blocks(x, k):
    out = np.zeros((2 * x.shape[0] + 1, 2 * x.shape[1] + 1))
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            out[2 * i:2 * i + 3, 2 * j:2 * j + 3] += x[i, j] * k
    return out


def assembled(nodes, f):
    n = len(nodes)
    K = np.zeros((n, n))
    F = np.zeros(n)
    for e in range(n - 1):
        h = nodes[e + 1] - nodes[e]
        K[e:e + 2, e:e + 2] += np.array([[1.0, -1.0], [-1.0, 1.0]]) / h
        F[e:e + 2] += 0.5 * h * np.array([f[e], f[e + 1]])
    return K, F


def _inner_loop_inputs(fn, rng):
    if fn is window_stats:
        return [(rng.standard_normal(n), 20) for n in (19, 20, 64)]
    if fn is flipped_taps:
        return [(rng.standard_normal(n).astype(dt), rng.standard_normal(9).astype(dt))
                for n, dt in ((40, np.float32), (61, np.float64))]
    if fn is table_counts:
        table = np.array([bin(v).count("1") for v in range(256)], dtype=np.uint8)
        return [(rng.integers(0, 256, (n, 8), dtype=np.uint8), table) for n in (1, 2, 17)]
    if fn is scatter_blocks:
        return [(rng.standard_normal((s, s)), rng.standard_normal((3, 3))) for s in (1, 5)]
    return [(np.cumsum(rng.random(n) + 0.1), rng.standard_normal(n)) for n in (2, 12)]


INNER_LOOPS = [window_stats, flipped_taps, table_counts, scatter_blocks, assembled]


@pytest.mark.parametrize("fn", INNER_LOOPS, ids=lambda f: f.__name__)
def test_bodies_with_short_inner_loops_match_numpy(fn):
    ember.reset()
    for args in _inner_loop_inputs(fn, np.random.default_rng(5)):
        run_calls(fn, [args], native=False)
        assert ember.stats()["graph_breaks"] == 0


@pytest.mark.parametrize("fn", INNER_LOOPS, ids=lambda f: f.__name__)
def test_short_inner_loops_are_written_out(fn):
    args = _inner_loop_inputs(fn, np.random.default_rng(6))[-1]
    bodies = optimised_bodies(fn, *args)
    assert bodies, "no loop op"
    # The outermost body holds no array statement, nor any loop left over a short array.
    assert array_statements(bodies[0]) == [], bodies[0]


def test_a_written_out_lookup_out_of_its_table_raises():
    table = np.arange(128, dtype=np.uint8)
    codes = np.random.default_rng(8).integers(0, 128, (6, 8), dtype=np.uint8)
    compiled = ember.compile(table_counts)
    run_calls(table_counts, [(codes, table)], native=False)
    bad = codes.copy()
    bad[3, 5], bad[2, 5] = 255, 0
    with pytest.raises(IndexError):
        table_counts(bad.copy(), table)
    with pytest.raises(IndexError):
        compiled(bad.copy(), table)


@st.composite
def window_programs(draw):
    """A loop reading a window of `w` elements at a run-time offset, gathered by an element
    loop, and reducing an expression of it."""
    w = draw(st.integers(9, 40))
    expr = draw(st.sampled_from(["seg", "seg * seg", "np.abs(seg - seg.mean())",
                                 "seg * h[:W][::-1]", "np.maximum(seg, 0.0) - seg[0]"]))
    reduce_ = draw(st.sampled_from(["np.sum({})", "np.max({})", "np.mean({})", "({}).std()"]))
    dtype = draw(st.sampled_from(["np.float64", "np.float32"]))
    source = (
        "def program(x, h):\n"
        f"    x = x.astype({dtype})\n"
        "    out = np.zeros(len(x), dtype=x.dtype)\n"
        f"    for i in range(len(x) - {w} + 1):\n"
        f"        seg = x[i:i + {w}]\n"
        f"        out[i] = {reduce_.format(expr.replace('W', str(w)))}\n"
        "    return out\n"
    )
    return source


@seed(20261206)
@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(window_programs())
def test_random_window_loops(source):
    namespace = {"np": np}
    exec(compile(source, "<program>", "exec"), namespace)
    program = namespace["program"]
    rng = np.random.default_rng(9)
    x, h = rng.standard_normal(70), rng.standard_normal(40)
    ember.reset()
    compiled = ember.compile(program)
    want, got = program(x, h), compiled(x, h)
    assert got.dtype == want.dtype and got.shape == want.shape, source
    tol = 1e-4 if "float32" in source else 1e-9
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=source)
