"""Branches on 0-d array values outside loops (`loops/frame_branches.py`) and `math`
functions of graph values there: one graph with an `if` op where that is exactly NumPy's
behaviour (values, types, argument mutations, warnings, exceptions, the object returned),
a graph break otherwise."""

from __future__ import annotations

import contextlib
import copy
import io
import math

import ember
import numpy as np
import pytest
from conftest import assert_same, assert_same_aliasing
from fp_harness import observe
from hypothesis import given
from hypothesis import strategies as st

BACKENDS = ["eager", "cranelift"]


def _run_both(fn, calls, backend):
    """`fn` plainly and compiled on each argument tuple of `calls` (in order: the later ones
    hit the cache): results or exceptions, warnings, arguments afterwards and aliasing."""
    compiled = ember.compile(fn, backend=backend)
    for args in calls:
        plain_args, compiled_args = copy.deepcopy(args), copy.deepcopy(args)
        with contextlib.redirect_stdout(io.StringIO()) as want_out:
            want, want_warnings = observe(_catching(fn), plain_args)
        with contextlib.redirect_stdout(io.StringIO()) as got_out:
            got, got_warnings = observe(_catching(compiled), compiled_args)
        assert got_warnings == want_warnings, args
        assert got_out.getvalue() == want_out.getvalue()
        if isinstance(want, Exception):
            assert type(got) is type(want) and str(got) == str(want), (got, want)
        elif type(want) is float:  # `math` functions round as the ufuncs do, not as libm
            assert type(got) is float and (math.isclose(got, want, rel_tol=1e-12) or (
                math.isnan(got) and math.isnan(want))), (got, want)
        else:
            assert_same(got, want)
            assert_same_aliasing(got, compiled_args, want, plain_args)
        for g, w in zip(compiled_args, plain_args, strict=True):
            assert_same(g, w, path="argument")


def _catching(fn):
    def call(*args):
        try:
            return fn(*args)
        except (ValueError, ZeroDivisionError, OverflowError, IndexError) as exc:
            return exc
    return call


def _one_graph(stats) -> None:
    assert stats["graph_breaks"] == 0, stats["break_reasons"]
    assert stats["compiles"] == 1 and stats["region_recaptures"] == 0
    assert not stats["backend_fallbacks"]


# ---- kernels that compile to one graph ----------------------------------------------------

def last_or_missing(dp, amount):
    inf = amount + 1
    return dp[amount] if dp[amount] != inf else -1


def larger_sum(a, b):
    return a if a.sum() > b.sum() else b


def sign_scale(x):
    t = x.sum()
    scale = 1.0 if t > 0 else -1.0
    return x * scale


def early_exit(x, y):
    m, k = x.max(), y.min()
    if m > 0 and k < 0:
        return 1
    return 0


def log_if_positive(x):
    v = x[0]
    if v > 0:
        r = np.log(v)
    else:
        r = v * 2.0
    return r


def log_if_small(x):
    v = x[0]
    r = v
    if v < 1.0:
        r = np.log(v)  # warns on this path only, at this line
    return r


def pick_0d(a, b):
    return a if a > 0 else b  # the 0-d array itself, as Python returns it


def label_or_none(x):
    return "pos" if x.sum() > 0 else None


def nested_returns(x):
    s = x.sum()
    if s > 0:
        if x[0] > 0.5:
            return 1
        s = s * 2
    elif s < -5:
        return 2.5
    return s


def clamp_first(x):
    v = x.sum()
    if v > 1.0:
        x[0] = 1.0
    elif not v > -1.0:
        x[0] = -1.0
    return x


def count_hits(x, y):
    n = 0
    if x[0] > y[0]:
        n += 1
    if x[1] > y[1] or x[2] > y[2]:
        n += 2
    return n, x.mean()


def value_or(x):
    low, high = x.min(), x.max()
    return low or high


def rms(x):
    return math.sqrt(x.sum() / x.size)


def sqrt_on_one_path(x):
    s = x.sum()
    if s > 0:
        s = math.sqrt(s - 1.0)
    return s


def arc_of(x):
    return math.acos(x[0]) + math.log(x[1])


def whole_array_work(x):
    if np.any(x < 0):
        x = np.abs(x)
    return x * 2.0


def reduction_in_test(x, y):
    if x.max() > 0 and y.min() < 0:  # y.min() runs only where x.max() > 0
        return 1
    return 0


def cosine(a, b):
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    if na == 0 or nb == 0:
        return 0.0
    return float(a @ b / (na * nb))


def clip_norm(v, limit):
    n = np.linalg.norm(v)
    if n > limit:
        v = v * (limit / n)
    return v


def sorted_on_one_path(x):
    if np.any(x < 0):
        x = np.sort(x)  # a short sort: element by element
    return x * 2.0


def log_on_the_other_path(x):
    # NumPy's warning for log of a negative comes from the path taken only.
    if x.min() > 0:
        y = np.log(x)
    else:
        y = np.zeros_like(x)
    return y.sum()


ONE_GRAPH = [
    (whole_array_work, [(np.array([1.0, -2.0]),), (np.array([1.0, 2.0]),)]),
    (whole_array_work, [(np.linspace(-1.0, 1.0, 500),), (np.linspace(1.0, 2.0, 500),)]),
    (reduction_in_test, [(np.array([1.0]), np.array([-1.0])), (np.array([-1.0]), np.array([2.0])),
                         (np.array([2.0]), np.array([3.0]))]),
    (cosine, [(np.array([1.0, 2.0, 2.0]), np.array([0.0, 1.0, 0.0])),
              (np.zeros(3), np.ones(3)), (np.ones(3), np.zeros(3))]),
    (clip_norm, [(np.array([3.0, 4.0]), 1.0), (np.array([0.3, 0.4]), 1.0)]),
    (clip_norm, [(np.full(300, 2.0), 5.0), (np.full(300, 0.01), 5.0)]),
    (sorted_on_one_path, [(np.array([1.0, -2.0]),), (np.array([1.0, 2.0]),)]),
    (log_on_the_other_path, [(np.array([1.0, 2.0]),), (np.array([-1.0, 2.0]),),
                             (np.array([0.5, 0.0]),)]),
    (last_or_missing, [(np.array([0, 3, 5]), 2), (np.array([0, 3, 3]), 2)]),
    (larger_sum, [(np.ones(3), np.zeros(3)), (np.zeros(3), np.ones(3))]),
    (sign_scale, [(np.ones(3),), (-np.ones(3),)]),
    (early_exit, [(np.array([1.0, -1.0]), np.array([-1.0, 2.0])),
                  (np.array([1.0, 1.0]), np.array([1.0, 1.0])),
                  (np.array([-1.0, -2.0]), np.array([-1.0, -1.0]))]),
    (log_if_positive, [(np.array([2.0]),), (np.array([-2.0]),), (np.array([0.0]),)]),
    (log_if_small, [(np.array([0.0]),), (np.array([-1.0]),), (np.array([2.0]),),
                     (np.array([0.5]),)]),
    (pick_0d, [(np.array(1.0), np.array(2.0)), (np.array(-1.0), np.array(2.0))]),
    (label_or_none, [(np.ones(2),), (-np.ones(2),)]),
    (nested_returns, [(np.array([1.0, 1.0]),), (np.array([0.2, 0.1]),),
                      (np.array([-6.0, 0.0]),), (np.array([-1.0, 0.0]),)]),
    (clamp_first, [(np.array([3.0, 0.0]),), (np.array([-3.0, 0.0]),),
                   (np.array([0.5, 0.0]),)]),
    (count_hits, [(np.array([1.0, 0.0, 3.0]), np.array([0.0, 1.0, 2.0])),
                  (np.array([0.0, 2.0, 1.0]), np.array([1.0, 1.0, 2.0]))]),
    (value_or, [(np.array([0.0, 2.0]),), (np.array([-1.0, 2.0]),)]),
    (rms, [(np.array([1.0, 2.0]),), (np.array([-1.0, -2.0]),), (np.array([np.nan, 1.0]),)]),
    (sqrt_on_one_path, [(np.array([2.0]),), (np.array([0.5]),), (np.array([-1.0]),)]),
    (arc_of, [(np.array([0.5, 2.0]),), (np.array([1.5, 2.0]),), (np.array([0.5, 0.0]),),
              (np.array([0.5, -1.0]),)]),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn,calls", ONE_GRAPH, ids=[f.__name__ for f, _ in ONE_GRAPH])
def test_branch_is_one_graph(fn, calls, backend):
    _run_both(fn, calls, backend)
    _one_graph(ember.stats())


def test_if_op_in_graph(recorder):
    ember.compile(last_or_missing, backend=recorder)(np.array([0, 3, 5]), 2)
    assert len(recorder.graphs) == 1 and "if" in recorder.ops()


# ---- branches that keep the graph break ---------------------------------------------------

def cumsum_on_one_path(x):
    if np.any(x < 0):
        x = np.cumsum(x)  # a scan in a path: the branch breaks
    return x * 2.0


def prints_on_one_path(x):
    if x.sum() > 0:
        print("positive")
    return x + 1.0


def raises_on_one_path(x):
    if x.max() > 10.0:
        raise ValueError("too large")
    return x.sum()


def appends_on_one_path(x, log):
    if x.sum() > 0:
        log.append(1)
    return x + 1.0


def dict_of_path_value(x):
    s = x.sum()
    if s > 0:
        return s, x
    return {"s": s}  # a container holding the path's value: no graph output stands for it



BREAKS = [
    (cumsum_on_one_path, [(np.array([1.0, -2.0]),), (np.array([1.0, 2.0]),)]),
    (prints_on_one_path, [(np.array([1.0]),), (np.array([-1.0]),)]),
    (appends_on_one_path, [(np.ones(2), []), (-np.ones(2), [])]),
    (dict_of_path_value, [(np.ones(2),), (-np.ones(2),)]),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn,calls", BREAKS, ids=[f.__name__ for f, _ in BREAKS])
def test_branch_keeps_break(fn, calls, backend):
    _run_both(fn, calls, backend)
    stats = ember.stats()
    assert stats["graph_breaks"] >= 1 and stats["region_recaptures"] == 0
    assert any("branch on the value" in r for r in stats["break_reasons"]), \
        stats["break_reasons"]


def test_a_path_that_only_raises_is_a_rerun_check():
    """`if x.max() > 10.0: raise ...`: no break; the condition is a run-time check that runs
    the frame as Python, which raises, where it holds."""
    for backend in BACKENDS:
        ember.reset()
        _run_both(raises_on_one_path, [(np.array([1.0]),), (np.array([11.0]),)], backend)
        stats = ember.stats()
        assert stats["graph_breaks"] == 0 and stats["compiles"] == 1, stats["break_reasons"]
        assert stats["entry_fallbacks"] == 1, stats


def test_cost_rule_budget(monkeypatch):
    def long_path(x):
        v = x.sum()
        if v > 0:
            v = v * 1.5 + 2.0
            v = v * 1.5 + 2.0
        return v

    monkeypatch.setattr(ember.config, "branch_op_budget", 2)
    compiled = ember.compile(long_path)
    for data in (np.ones(2), -np.ones(2)):
        assert_same(compiled(data), long_path(data))
    assert ember.stats()["graph_breaks"] >= 1


# ---- random branches over random data ----------------------------------------------------

CONDITIONS = ["a > t", "b < a", "x[0] > t", "a > t and b > 0", "x[1] < t or a < 0",
              "not b > t", "a > b and (x[2] > 0 or t < 0)"]
STATEMENTS = ["a = a * 2.0", "n = n + 1", "x[0] = b", "a = -b", "n = 5", "a = 0.5",
              "b = np.log(b)", "x[1] += a", "t = t - 1.0"]
RESULTS = ["a", "b", "n", "x", "(a, n)", "(x, b)", "t"]


@st.composite
def branch_programs(draw):
    lines = ["a = x.sum()", "b = x.max() - y.min()", "t = y[0]", "n = 0"]
    for _ in range(draw(st.integers(1, 3))):
        cond = draw(st.sampled_from(CONDITIONS))
        kind = draw(st.integers(0, 3))
        then = draw(st.sampled_from(STATEMENTS))
        if kind == 0:
            lines += [f"if {cond}:", f"    {then}"]
        elif kind == 1:
            lines += [f"if {cond}:", f"    {then}", "else:",
                      f"    {draw(st.sampled_from(STATEMENTS))}"]
        elif kind == 2:
            target = draw(st.sampled_from(["a", "n"]))
            other = draw(st.sampled_from(["b", "1", "t", "2.5"]))
            lines.append(f"{target} = {other} if {cond} else {target}")
        else:
            lines += [f"if {cond}:", f"    return {draw(st.sampled_from(RESULTS))}"]
    if draw(st.booleans()):
        lines.append("r = math.sqrt(t)")  # ValueError for a negative t, as in Python
    # Every name is read at the end: a path's value left unread would be a temporary whose
    # warnings a one-graph `if` drops, so such a branch breaks (test_dead_temporaries_warn).
    lines.append(f"return {draw(st.sampled_from(RESULTS))}, a, b, n, t")
    return "def program(x, y):\n" + "".join(f"    {line}\n" for line in lines)


_DATA = st.lists(st.floats(-2.0, 2.0, allow_nan=False, width=64), min_size=3, max_size=3)


@pytest.mark.parametrize("backend", BACKENDS)
@given(source=branch_programs(), data=st.lists(st.tuples(_DATA, _DATA), min_size=2,
                                               max_size=3))
def test_random_branches(backend, source, data):
    ember.reset()
    namespace = {"np": np, "math": math}
    exec(compile(source, f"<program {abs(hash(source))}>", "exec"), namespace)
    fn = namespace["program"]
    calls = [(np.array(xs), np.array(ys)) for xs, ys in data]
    _run_both(fn, calls, backend)
    if not _rebinds_a_product(source):
        _one_graph(ember.stats())


def _rebinds_a_product(source: str) -> bool:
    """Whether `a = a * 2.0` (which may overflow) may be rebound before it is read (`a = -b`
    later, or `a = b if c else a`): a path then holds a temporary nothing reads, whose
    warnings the `if` op would drop, so the branch breaks."""
    lines = [line.strip() for line in source.splitlines()]
    return any(line == "a = a * 2.0" and any(
        later.startswith("a = ") and not later.startswith("a = a ") for later in lines[k + 1:])
        for k, line in enumerate(lines))


def test_rerun_check_on_native_fast_path():
    """The native direct form tests the domain check as the entry does."""
    compiled = ember.compile(rms)
    compiled(np.array([1.0, 2.0]))
    before = ember.stats()["native_calls"]
    assert compiled(np.array([4.0, 4.0])) == 2.0
    assert ember.stats()["native_calls"] == before + 1
    with pytest.raises(ValueError, match="math domain error"):
        compiled(np.array([-1.0, -2.0]))
    assert ember.stats()["entry_fallbacks"] == 1


# ---- a `while` at the frame's level (the `if` of its first test) reading outer values ------

def find_root(parent, x):
    while parent[x] != x:  # `x` a run-time int once calls pass several
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


def root_through_closure(n, x):
    parent = np.arange(n)
    parent[5], parent[3] = 3, 1

    def find(x):  # the array is a cell of the enclosing frame
        while parent[x] != x:
            x = parent[x]
        return x

    return find(x), parent


OUTER_VALUES = [
    (find_root, [(np.array([0, 0, 1, 1, 2, 3]), x) for x in (5, 4, 3, 2, 0)]),
    (root_through_closure, [(10, x) for x in (5, 4, 3, 2)]),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn,calls", OUTER_VALUES, ids=[f.__name__ for f, _ in OUTER_VALUES])
def test_while_in_frame_branch_reads_outer_values(fn, calls, backend):
    """The loop op inside the `if` takes the frame's run-time ints and its cells' arrays as
    the `if`'s operands, or the graph breaks: never a value of another graph."""
    _run_both(fn, calls, backend)
