"""Lists built by appends in loops, comprehensions and generator expressions, captured as
loop ops (`capture/loops/appends.py`): compared with plain Python for values, the exact
type of every item (Python float, NumPy scalar, row), lengths, errors of empty lists, and
for the cases a loop op cannot stand for, the same results through the old paths."""

from __future__ import annotations

import math

import ember
import numpy as np
import pytest
from conftest import RecordingBackend, assert_same
from fuzz_programs import assert_same_outcome, run
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st


def compiled_and_plain(fn, *args, backend="eager"):
    """`fn` compiled (twice: capture, then the cached entry) and plain, on copies."""
    want = fn(*[a.copy() for a in args])
    compiled = ember.compile(fn, backend=backend)
    compiled(*[a.copy() for a in args])
    got = compiled(*[a.copy() for a in args])
    assert_same(got, want, rtol=1e-12)
    return got


def loop_ops(recorder: RecordingBackend) -> int:
    return sum(1 for graph in recorder.graphs for node in graph.nodes if node.op == "loop")


def positives_doubled(x):
    out = []
    for i in range(x.shape[0]):
        if x[i] > 0:
            out.append(x[i] * 2.0)
    return np.array(out)


def row_sums(x):
    res = []
    for i in range(x.shape[0]):
        res.append(x[i].sum())
    return res


def sums_and_rows(X, w):
    res = []
    rows = []
    for i in range(X.shape[0]):
        res.append(X[i].sum())
        rows.append(X[i] * w)
    return np.array(res), np.stack(rows), sum(res), len(res), res[-1], np.concatenate(rows)


def python_floats(x):
    out = []
    for i in range(x.shape[0]):
        if x[i] > 0.5:
            out.append(float(x[i]))
    return out


def selected_stats(x):
    out = []
    for i in range(x.shape[0]):
        if x[i] > 0:
            out.append(x[i])
    return sum(out), len(out), out[-1], out[0], np.asarray(out).mean()


def comprehension(x):
    return np.array([x[i] * 2.0 for i in range(x.shape[0])])


def comprehension_sum(X):
    return sum([X[i].max() for i in range(X.shape[0])])


def generator_sum(X):
    return sum(X[i].max() for i in range(X.shape[0]))


def conditional_rows(X):
    out = []
    for i in range(X.shape[0]):
        if X[i, 0] > 0:
            out.append(X[i] * 2)
    return np.array(out), sum(out)


def aliased(x):
    out = []
    other = out
    for i in range(x.shape[0]):
        out.append(x[i])
    return other, out is other


def indices_kept(x):
    out = []
    for i in range(x.shape[0]):
        if x[i] > 0:
            out.append(i)
    return np.array(out), out


def two_a_trip(x):
    out = []
    for i in range(x.shape[0]):
        out.append(x[i])
        out.append(-x[i])
    return np.array(out), len(out)


def float32_items(x):
    out = []
    for i in range(x.shape[0]):
        if x[i] > 0:
            out.append(x[i] * np.float32(2))
    return np.array(out), sum(out)


def bools(x):
    out = []
    for i in range(x.shape[0]):
        out.append(x[i] > 0)
    return out, np.array(out)


def until_a_large_value(x):
    out = []
    for i in range(x.shape[0]):
        out.append(x[i])
        if x[i] > 1.0:
            break
    return np.array(out), len(out), out


def per_row_lists(X):
    totals = np.zeros(X.shape[0])
    counts = []
    for i in range(X.shape[0]):
        positive = []
        for j in range(X.shape[1]):
            if X[i, j] > 0:
                positive.append(X[i, j])
        totals[i] = sum(positive, 0.0)
        counts.append(len(positive))
    return totals, counts


def positive_entries(X):
    out = []
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            if X[i, j] > 0:
                out.append(X[i, j])
    return np.array(out), len(out)


def below_the_diagonal(X):
    out = []
    for i in range(X.shape[0]):
        for j in range(i):
            if X[i, j] > 0:
                out.append(X[i, j] * 2.0)
    return np.array(out), sum(out)


def close_pairs(P):
    found = []
    for i in range(P.shape[0]):
        for j in range(P.shape[0]):
            dx = P[i, 0] - P[j, 0]
            dy = P[i, 1] - P[j, 1]
            dist = (dx * dx + dy * dy) ** 0.5
            if dist < 0.3 and i != j:
                found.append(dist)
    return np.array(found)


def several_lists(x):
    small, large = [], []
    for v in x:
        if v < 0:
            small.append(v)
        else:
            large.append(v + 1.0)
    return np.array(small), np.array(large)


COMPILED = [positives_doubled, row_sums, sums_and_rows, python_floats, selected_stats,
            comprehension, comprehension_sum, generator_sum, conditional_rows, aliased,
            indices_kept, two_a_trip, float32_items, bools, several_lists,
            until_a_large_value, positive_entries, below_the_diagonal, close_pairs]


def _arguments(fn, rng):
    if fn in (row_sums, comprehension_sum, generator_sum, conditional_rows,
              positive_entries, below_the_diagonal):
        return (rng.standard_normal((60, 5 if fn is not below_the_diagonal else 60)),)
    if fn is close_pairs:
        return (rng.random((40, 2)),)
    if fn is sums_and_rows:
        return rng.standard_normal((40, 3)), rng.standard_normal(3)
    if fn is float32_items:
        return (rng.standard_normal(50).astype(np.float32),)
    return (rng.standard_normal(50),)


@pytest.mark.parametrize("fn", COMPILED, ids=lambda f: f.__name__)
@pytest.mark.parametrize("backend", ["eager", "cranelift"])
def test_appends_compile_as_one_loop_op(fn, backend) -> None:
    recorder = RecordingBackend(backend)
    compiled_and_plain(fn, *_arguments(fn, np.random.default_rng(0)), backend=recorder)
    assert ember.stats()["graph_breaks"] == 0, ember.stats()["break_reasons"]
    assert loop_ops(recorder) >= 1


@pytest.mark.parametrize("fn", [positives_doubled, selected_stats, conditional_rows,
                                float32_items, several_lists], ids=lambda f: f.__name__)
def test_a_list_left_empty_behaves_as_python(fn) -> None:
    """No item appended: `np.array([])` is float64 of shape (0,), `sum([])` the int 0,
    `out[-1]` an IndexError: the frame runs as Python wherever the list's emptiness
    matters."""
    x = -np.ones((30, 3)) if fn is conditional_rows else -np.ones(30)
    if fn is float32_items:
        x = x.astype(np.float32)
    want, got = run(fn, [x.copy()], {}), run(ember.compile(fn), [x.copy()], {})
    assert_same_outcome(got, want, "")


def test_items_keep_their_exact_types() -> None:
    x = np.linspace(-1, 2, 40)
    got = ember.compile(python_floats)(x)
    assert all(type(v) is float for v in got) and got == python_floats(x)
    stats = ember.compile(row_sums)(np.ones((20, 2)))
    assert all(type(v) is np.float64 for v in stats)
    kept, items = ember.compile(indices_kept)(x)
    assert all(type(i) is int for i in items) and kept.dtype == np.int64


def test_sum_adds_in_python_order() -> None:
    """`sum` adds each item in turn, as Python does: exactly Python's result even where
    the order matters (a large value cancelled later)."""
    x = np.array([1e16, 1.0, -1e16, 1.0] * 10 + [0.5] * 10)
    got, want = ember.compile(selected_stats)(x), selected_stats(x)
    assert got[0] == want[0] and type(got[0]) is type(want[0])


def test_rows_are_distinct_arrays() -> None:
    X = np.random.default_rng(1).standard_normal((20, 3))

    def rows_of(X):
        out = []
        for i in range(X.shape[0]):
            out.append(X[i] * 2.0)
        return out

    got = ember.compile(rows_of)(X)
    got[0][0] = 99.0
    assert got[1][0] == X[1, 0] * 2.0 and type(got) is list and len(got) == 20


def appended_to_an_argument(x, out):
    for i in range(x.shape[0]):
        out.append(x[i])
    return out


def mixed_types(x):
    out = []
    for i in range(x.shape[0]):
        if x[i] > 0:
            out.append(1.0)
        else:
            out.append(x[i])
    return out


def read_in_the_body(x):
    out = []
    for i in range(x.shape[0]):
        if len(out) < 3:
            out.append(x[i])
    return out


def appended_after_the_loop(x):
    out = []
    for i in range(x.shape[0]):
        out.append(x[i] + 1)
    out.append(5.0)
    return out


def nested_appends(X):
    out = []
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            if X[i, j] > 0:
                out.append(X[i, j])
    return np.array(out)


def held_by_a_list(x):
    out = []
    both = [out, 1]
    for i in range(x.shape[0]):
        out.append(x[i])
    return both


def generator_with_earlier_values(x):
    def values():
        yield 1.0
        for i in range(x.shape[0]):
            yield x[i]
    return sum(values())


def generator_advanced(x):
    it = (x[i] * 2 for i in range(x.shape[0]))
    first = next(it)
    return first, sum(it)


def test_lists_of_an_outer_loop_and_of_its_body() -> None:
    """A list built per trip of an outer loop (an inner loop op's list) beside one the outer
    loop builds: each carried by its own loop; an empty row's sum runs the frame as Python."""
    X = np.random.default_rng(3).standard_normal((30, 20))
    compiled_and_plain(per_row_lists, X)
    X[3] = -1.0
    compiled_and_plain(per_row_lists, X)


def views_appended(X):
    rows = []
    for i in range(X.shape[0]):
        rows.append(X[i])
    X[0] = 5.0
    return np.array(rows), rows


def one_array_appended(X):
    rows = []
    total = np.zeros(X.shape[1])
    for i in range(X.shape[0]):
        total += X[i]
        rows.append(total)
    return np.array(rows)


def changed_after_the_append(X):
    rows = []
    for i in range(X.shape[0]):
        r = X[i] * 2.0
        rows.append(r)
        r[0] = -1.0
    return np.array(rows)


def changed_on_the_next_trip(X):
    rows = []
    prev = np.zeros(X.shape[1])
    for i in range(X.shape[0]):
        cur = X[i] * 2.0
        rows.append(cur)
        prev[0] = 1.0
        prev = cur
    return np.array(rows)


@pytest.mark.parametrize("fn", [mixed_types, read_in_the_body, appended_after_the_loop,
                                nested_appends, held_by_a_list, generator_with_earlier_values,
                                generator_advanced, views_appended, one_array_appended,
                                changed_after_the_append, changed_on_the_next_trip],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("columns", [3, 12])
def test_what_a_loop_op_cannot_stand_for_stays_python(fn, columns) -> None:
    """Items of two types, a list read in the body, views and arrays Python's list would
    share: the loop is no loop op, and the results are Python's."""
    rng = np.random.default_rng(2)
    if fn in (mixed_types, read_in_the_body, appended_after_the_loop, held_by_a_list,
              generator_with_earlier_values, generator_advanced):
        X = rng.standard_normal(10 * columns)
    else:
        X = rng.standard_normal((30, columns))
    compiled_and_plain(fn, X)


def recurrent_states(X, W):
    h = np.zeros(W.shape[0])
    states = []
    for t in range(X.shape[0]):
        h = np.tanh(X[t] + h @ W)
        states.append(h)
    return np.stack(states)


def appended_before_rebinding(X):
    s = np.ones(X.shape[1])
    before, after = [], []
    for t in range(X.shape[0]):
        before.append(s)
        s = 0.5 * s + X[t]
        after.append(s)
    return np.array(before), np.stack(after), s


def appended_twice_and_kept(X):
    m = X[0] * 0.0
    out = []
    for t in range(X.shape[0]):
        m = np.maximum(m, X[t])
        out.append(m)
        out.append(m * 2.0)
    return np.stack(out)


@pytest.mark.parametrize("fn", [recurrent_states, appended_before_rebinding,
                                appended_twice_and_kept], ids=lambda f: f.__name__)
def test_rows_appended_and_rebound_on_the_next_trip(fn) -> None:
    """A state appended and carried to the next trip, which rebinds it (never updates it in
    place): the list keeps each trip's array, as in NumPy, and the loop is one loop op."""
    from test_loops_returns import run_calls

    rng = np.random.default_rng(8)
    ember.reset()
    make = (lambda: (rng.standard_normal((12, 4)), 0.3 * rng.standard_normal((4, 4)))
            ) if fn is recurrent_states else (lambda: (rng.standard_normal((12, 4)),))
    run_calls(fn, [make() for _ in range(2)])


def test_an_argument_list_is_appended_to_for_real() -> None:
    x = np.arange(30.0)
    mine, theirs = [], []
    got = ember.compile(appended_to_an_argument)(x, mine)
    want = appended_to_an_argument(x, theirs)
    assert got is mine and mine == theirs


# Random programs: a loop appending items of one kind under a random condition (on one or
# both paths of an `if`), as a loop, a comprehension or a generator, read by a random
# consumer.
_ITEMS = {"scalar": "x[i] * {c}", "python": "float(x[i]) + {c}", "index": "i",
          "row": "M[i] * {c}", "f32": "np.float32(x[i]) * np.float32({c})",
          "element": "v - {c}"}
_CONDITIONS = ["True", "x[i] > {c}", "x[i] < {c} or i % 3 == 0", "M[i, 0] > {c}"]
_CONSUMERS = ["out", "np.array(out)", "len(out)", "out[-1]", "out[0]", "out[1]", "sum(out)",
              "np.asarray(out)", "np.stack(out)", "(len(out), out)", "np.array(out).sum()",
              "sum(out, 1.5)", "np.array(out, dtype=np.float32)", "np.concatenate(out)"]


@st.composite
def append_programs(draw):
    item = draw(st.sampled_from(sorted(_ITEMS)))
    c, d = (draw(st.sampled_from(["0.5", "-0.25", "2.0", "0.0"])) for _ in range(2))
    condition = draw(st.sampled_from(_CONDITIONS)).format(c=c)
    consumer = draw(st.sampled_from(_CONSUMERS))
    form = draw(st.sampled_from(["loop", "loop", "else", "break", "comprehension",
                                 "generator"]))
    head = "for i, v in enumerate(x)" if item == "element" else "for i in range(x.shape[0])"
    expr, other = _ITEMS[item].format(c=c), _ITEMS[item].format(c=d)
    if form == "loop":
        body = (f"    out = []\n    {head}:\n        if {condition}:\n"
                f"            out.append({expr})\n")
    elif form == "break":
        body = (f"    out = []\n    {head}:\n        out.append({expr})\n"
                f"        if {condition}:\n            break\n")
    elif form == "else":
        body = (f"    out = []\n    {head}:\n        if {condition}:\n"
                f"            out.append({expr})\n        else:\n"
                f"            out.append({other})\n")
    elif form == "comprehension":
        body = f"    out = [{expr} {head} if {condition}]\n"
    else:
        return f"def program(x, M):\n    return sum(({expr} {head} if {condition}), 0.0)\n"
    return f"def program(x, M):\n{body}    return {consumer}\n"


@seed(20261206)
@settings(max_examples=int(__import__("os").environ.get("APPEND_EXAMPLES", "60")), deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(source=append_programs(), n=st.sampled_from([0, 3, 12, 40]),
       data_seed=st.integers(0, 2**16))
def test_random_append_programs_behave_as_python(source, n, data_seed) -> None:
    namespace = {"np": np, "math": math}
    exec(compile(source, "<append program>", "exec"), namespace)  # noqa: S102
    fn = namespace["program"]
    rng = np.random.default_rng(data_seed)
    x, M = rng.standard_normal(n), rng.standard_normal((n, 3))
    ember.reset()
    compiled = ember.compile(fn)
    for _ in range(2):
        want = run(fn, [x.copy(), M.copy()], {})
        got = run(compiled, [x.copy(), M.copy()], {})
        assert_same_outcome(got, want, f"\n{source}")
