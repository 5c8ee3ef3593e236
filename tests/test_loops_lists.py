"""Python lists used as growable arrays in loops whose trip counts only the data knows
(`capture/loops/appends.py`): appends in `while` loops and in loops over ranges the data
bounds, `len()` of the list in the body. Compared with plain Python for values, the exact
type of every item, lengths and the arguments' state, on both backends, with the loop
captured as a loop op; a list longer than its buffer reruns the frame as Python."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import RecordingBackend, assert_same
from hypothesis import given, seed, settings
from hypothesis import strategies as st


def loop_ops(recorder: RecordingBackend) -> int:
    return sum(1 for graph in recorder.graphs for node in graph.nodes if node.op == "loop")


def compiled_and_plain(fn, *args, backend="eager"):
    """`fn` compiled (twice: capture, then the cached entry) and plain, on copies; the
    arguments' state afterwards too."""
    plain = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    want = fn(*plain)
    compiled = ember.compile(fn, backend=backend)
    for _ in range(2):
        mine = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        got = compiled(*mine)
        assert_same(got, want, rtol=1e-12)
        assert_same(mine, plain)
    return got


def cut_pieces(cuts, n):
    """Rod cutting's reconstruction: NumPy int64 items, a trip count the data decides."""
    pieces = []
    rest = n
    while rest > 0:
        pieces.append(cuts[rest])
        rest -= cuts[rest]
    return pieces


def halvings(x, tol):
    """Python floats appended in a `while True:` left by a `break` on the data, returned as
    an array."""
    seen = []
    v = float(x[0])
    while True:
        if v <= tol:
            break
        seen.append(v)
        v = v * 0.5
    return np.array(seen), len(seen)


def runs_per_row(X):
    """A `while` nested in a `for` appends to a list of the frame: run lengths of rows."""
    lengths = []
    for i in range(X.shape[0]):
        j = 0
        while j < X.shape[1] and X[i, j] > 0:
            j += 1
        if j > 0:
            lengths.append(j)
    return lengths


def csr_nonzeros(ptr, idx, val, cutoff):
    """Appends in a loop over a range the data bounds, and `len()` of the list in the body
    (a CSR row pointer of the entries kept)."""
    kept_ptr = np.zeros(len(ptr), dtype=np.int64)
    kept_idx = []
    kept_val = []
    for i in range(len(ptr) - 1):
        for k in range(ptr[i], ptr[i + 1]):
            if abs(val[k]) > cutoff:
                kept_idx.append(idx[k])
                kept_val.append(val[k])
        kept_ptr[i + 1] = len(kept_idx)
    return kept_ptr, np.array(kept_idx, dtype=np.int64), np.array(kept_val)


def collatz_path(start):
    """Python ints appended while the data says so, summed after the loop by np.sum."""
    path = []
    for s in range(start.shape[0]):
        n = int(start[s])
        while n != 1:
            path.append(n)
            n = n // 2 if n % 2 == 0 else 3 * n + 1
    return np.sum(np.array(path)), path


def _csr(rng, rows, cols):
    dense = np.where(rng.random((rows, cols)) < 0.3, rng.standard_normal((rows, cols)), 0.0)
    ptr = np.concatenate([[0], np.cumsum((dense != 0).sum(axis=1))]).astype(np.int64)
    idx = np.nonzero(dense)[1].astype(np.int64)
    return ptr, idx, dense[dense != 0]


def _arguments(fn, rng):
    if fn is cut_pieces:
        return rng.integers(1, 4, 41), 40
    if fn is halvings:
        return rng.random(3) * 100 + 1.0, 1e-3
    if fn is runs_per_row:
        return (rng.standard_normal((30, 12)) + 0.5,)
    if fn is csr_nonzeros:
        return (*_csr(rng, 20, 15), 0.5)
    return (np.array([27, 9, 1, 6]),)


OPEN = [cut_pieces, halvings, runs_per_row, csr_nonzeros, collatz_path]


@pytest.mark.parametrize("fn", OPEN, ids=lambda f: f.__name__)
@pytest.mark.parametrize("backend", ["eager", "cranelift"])
def test_lists_of_data_length_loops_are_loop_ops(fn, backend) -> None:
    recorder = RecordingBackend(backend)
    compiled_and_plain(fn, *_arguments(fn, np.random.default_rng(0)), backend=recorder)
    stats = ember.stats()
    assert stats["graph_breaks"] == 0, stats["break_reasons"]
    assert loop_ops(recorder) >= 1 and not stats["backend_fallbacks"]


def test_items_keep_their_types() -> None:
    cuts = np.random.default_rng(1).integers(1, 4, 41)
    got = ember.compile(cut_pieces)(cuts, 40)
    assert all(type(v) is np.int64 for v in got) and got == cut_pieces(cuts, 40)
    _, path = ember.compile(collatz_path)(np.array([27, 5]))
    assert all(type(v) is int for v in path) and path == collatz_path(np.array([27, 5]))[1]
    assert all(type(v) is int for v in ember.compile(runs_per_row)(np.ones((4, 3))))


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
def test_no_trip_leaves_the_list_empty(backend) -> None:
    """No append: `[]`, and `np.array([])` float64 of shape (0,) (through Python)."""
    compiled_and_plain(cut_pieces, np.ones(5, np.int64), 0, backend=backend)
    compiled_and_plain(halvings, np.array([0.5]), 1.0, backend=backend)
    compiled_and_plain(runs_per_row, -np.ones((6, 4)), backend=backend)


def longer_than_the_buffer(x, limit):
    out = []
    k = 0
    n = int(limit[0])
    while True:
        out.append(x[k % x.shape[0]] + k)
        k += 1
        if k >= n:
            break
    return out, np.array(out).sum()


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
def test_a_list_past_its_buffer_runs_as_python(backend) -> None:
    """More appends than the buffer holds (its size comes from the frame's arrays): the
    run-time check sends the frame to Python, whose list grows; short runs stay native."""
    x = np.arange(4.0)
    recorder = RecordingBackend(backend)
    compiled_and_plain(longer_than_the_buffer, x, np.array([10]), backend=recorder)
    assert loop_ops(recorder) == 1
    compiled_and_plain(longer_than_the_buffer, x, np.array([20_000]), backend=recorder)
    assert loop_ops(recorder) == 1 and ember.stats()["entry_fallbacks"] >= 2


@seed(20261206)
@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(-5, 5), min_size=1, max_size=40), st.integers(0, 3))
def test_random_while_appends_match_python(items, threshold) -> None:
    """A `while` on the data, conditional appends of two lists of different item types, the
    list's length read in the body: Python's results for any data."""
    x = np.array(items, dtype=np.int64)

    def scan(x, t):
        big, steps = [], []
        i = 0
        while i < x.shape[0] and len(big) < 8:
            if x[i] > t:
                big.append(x[i] * 2)
            else:
                steps.append(i * 0.5)
            i += 1 + (x[i] < -3)
        return big, steps, len(big)

    compiled_and_plain(scan, x, threshold, backend="cranelift")


def reachable(adj, s):
    """Depth-first search with a list as its stack, at the frame's level."""
    n = adj.shape[0]
    seen = np.zeros(n, dtype=np.bool_)
    seen[s] = True
    stack = [s]
    visits = 0
    while stack:
        v = stack.pop()
        visits += 1
        for w in range(n):
            if adj[v, w] and not seen[w]:
                seen[w] = True
                stack.append(w)
    return seen, visits


def components(adj):
    """A stack per component, built inside the loop over the vertices."""
    n = adj.shape[0]
    label = np.full(n, -1)
    c = 0
    for s in range(n):
        if label[s] >= 0:
            continue
        stack = [s]
        label[s] = c
        while stack:
            v = stack.pop()
            for w in range(n):
                if adj[v, w] and label[w] < 0:
                    label[w] = c
                    stack.append(w)
        c += 1
    return label, c


def monotone_stack(x):
    """The previous smaller element: `stack[-1]` and `len(stack)` read in the body, indices
    popped while the data says so."""
    n = x.shape[0]
    left = np.full(n, -1)
    stack = []
    for i in range(n):
        while len(stack) > 0 and x[stack[-1]] >= x[i]:
            stack.pop()
        if stack:
            left[i] = stack[-1]
        stack.append(i)
    return left, stack


def float_stack(x):
    """Python floats pushed and popped: a running pairwise merge."""
    acc = [0.0]
    for i in range(x.shape[0]):
        v = float(x[i])
        while len(acc) > 1 and acc[-1] < v:
            v = v + acc.pop()
        acc.append(v)
    return acc, sum(acc)


STACKS = [reachable, components, monotone_stack, float_stack]


def _graph(rng, n=30):
    return rng.random((n, n)) < 0.06


@pytest.mark.parametrize("fn", STACKS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("backend", ["eager", "cranelift"])
def test_stacks_are_loop_ops(fn, backend) -> None:
    rng = np.random.default_rng(3)
    args = ((_graph(rng), 0) if fn is reachable else (_graph(rng),) if fn is components
            else (rng.standard_normal(40),))
    recorder = RecordingBackend(backend)
    compiled_and_plain(fn, *args, backend=recorder)
    stats = ember.stats()
    assert stats["graph_breaks"] == 0, stats["break_reasons"]
    assert loop_ops(recorder) >= 1 and not stats["backend_fallbacks"]


def pop_too_many(x):
    stack = [0]
    for i in range(x.shape[0]):
        if x[i] > 0:
            stack.append(i)
        else:
            stack.pop()
    return stack


def read_past_the_end(x):
    out = []
    for i in range(x.shape[0]):
        if x[i] > 0:
            out.append(i)
        x[i] = out[-1] if len(out) > 0 else -1
        x[i] += out[len(out) - 2] if x[i] > 3 else 0
    return out


@pytest.mark.parametrize("fn", [pop_too_many, read_past_the_end], ids=lambda f: f.__name__)
def test_empty_pops_and_reads_raise_as_python(fn) -> None:
    """`[].pop()` and an index past either end: Python's IndexError, from a rerun as Python
    (the data decides whether it happens)."""
    from fuzz_programs import assert_same_outcome, run

    for x in (np.array([1.0, -1.0, 2.0, 5.0]), np.array([1.0, -1.0, -1.0, 3.0, 4.0])):
        want = run(fn, [x.copy()], {})
        got = run(ember.compile(fn), [x.copy()], {})
        assert_same_outcome(got, want, "")


@seed(20261207)
@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=1, max_size=30))
def test_random_stack_programs_match_python(ops) -> None:
    """Pushes, pops guarded by the list's truth and its last item, on any data."""
    x = np.array(ops, dtype=np.int64)

    def machine(x):
        stack = [7]
        popped = 0
        for i in range(x.shape[0]):
            if x[i] > 0:
                stack.append(x[i] * 10 + i)
            elif stack and stack[-1] % 2 == 0:
                popped += stack.pop()
            elif len(stack) > 1:
                stack[-1]
                stack.pop()
        return stack, popped, len(stack)

    compiled_and_plain(machine, x, backend="cranelift")


def finish_order(adj):
    """Vertices in the order a search leaves them, then visited backwards (Kosaraju's second
    pass): a loop over `reversed()` of a list whose length only the data knows."""
    n = adj.shape[0]
    order = []
    for s in range(n):
        if adj[s].any():
            order.append(s)
    rank = np.zeros(n, dtype=np.int64)
    k = 0
    for v in reversed(order):
        rank[v] = k
        k += 1
    return rank, k


def weighted_items(x):
    """NumPy floats appended on a condition, then read one by one in a second loop."""
    picked = []
    for i in range(x.shape[0]):
        if x[i] > 0:
            picked.append(x[i])
    total = 0.0
    for v in picked:
        total = total * 0.5 + v
    return total


def grown_while_iterated(x):
    out = []
    for i in range(x.shape[0]):
        if x[i] > 1.0:
            out.append(i)
    for v in out:
        if v < 3 and len(out) < 50:
            out.append(v + 100)
    return out


@pytest.mark.parametrize("fn", [finish_order, weighted_items], ids=lambda f: f.__name__)
@pytest.mark.parametrize("backend", ["eager", "cranelift"])
def test_loops_over_built_lists_are_loop_ops(fn, backend) -> None:
    rng = np.random.default_rng(5)
    arg = _graph(rng) if fn is finish_order else rng.standard_normal(60)
    recorder = RecordingBackend(backend)
    compiled_and_plain(fn, arg, backend=recorder)
    stats = ember.stats()
    assert stats["graph_breaks"] == 0, stats["break_reasons"]
    assert loop_ops(recorder) >= 2 and not stats["backend_fallbacks"]
    empty = np.zeros_like(arg) if fn is finish_order else -np.abs(arg)
    compiled_and_plain(fn, empty, backend=backend)  # no item: the loop makes no trip


def test_a_list_grown_while_iterated_is_python() -> None:
    x = np.random.default_rng(6).standard_normal(40) * 2
    compiled_and_plain(grown_while_iterated, x)


def topological_order(w):
    """Kahn's algorithm: a queue of the sources from a comprehension, then `while queue:`
    popping and appending at the frame's level."""
    n = w.shape[0]
    indeg = (w > 0).sum(axis=0)
    order = np.full(n, -1)
    queue = [i for i in range(n) if indeg[i] == 0]
    k = 0
    while queue:
        u = queue.pop()
        order[k] = u
        k += 1
        for v in range(n):
            if w[u, v] > 0:
                indeg[v] -= 1
                if indeg[v] == 0:
                    queue.append(v)
    return order, k


def _dag(rng, n=25):
    return np.triu(rng.random((n, n)) < 0.15, 1) * rng.random((n, n))


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
def test_a_queue_built_by_a_comprehension_is_a_loop_op(backend) -> None:
    recorder = RecordingBackend(backend)
    compiled_and_plain(topological_order, _dag(np.random.default_rng(7)), backend=recorder)
    stats = ember.stats()
    assert stats["graph_breaks"] == 0, stats["break_reasons"]
    assert loop_ops(recorder) >= 2 and not stats["backend_fallbacks"]
    # A cycle through every vertex: no source, the queue starts empty (a rerun as Python).
    cycle = np.roll(np.eye(6), 1, axis=1)
    compiled_and_plain(topological_order, cycle, backend=recorder)


def slopes_median(x, y):
    """Theil-Sen: the median of the slopes of pairs with distinct x, a list built by
    conditional appends in a loop nest."""
    slopes = []
    for i in range(x.shape[0]):
        for j in range(i + 1, x.shape[0]):
            if x[j] != x[i]:
                slopes.append((y[j] - y[i]) / (x[j] - x[i]))
    return np.median(np.array(slopes)), len(slopes)


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
def test_median_of_a_built_list(backend) -> None:
    """Odd and even counts, a NaN among the items (NumPy's median is then NaN), and no item
    at all (NumPy warns and gives NaN: a rerun as Python)."""
    import warnings

    rng = np.random.default_rng(8)
    x = np.round(rng.random(14) * 4)
    y = rng.standard_normal(14)
    recorder = RecordingBackend(backend)
    compiled_and_plain(slopes_median, x, y, backend=recorder)
    assert ember.stats()["graph_breaks"] == 0 and loop_ops(recorder) >= 1
    compiled_and_plain(slopes_median, x[:5], y[:5], backend=backend)
    y[3] = np.nan
    compiled_and_plain(slopes_median, x, y, backend=backend)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        compiled_and_plain(slopes_median, np.ones(6), y[:6], backend=backend)


@seed(20261208)
@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(-1e3, 1e3), min_size=1, max_size=25), st.floats(-1e3, 1e3))
def test_random_medians_of_selections_match_numpy(values, cut) -> None:
    x = np.array(values)

    def kept_median(x, cut):
        kept = []
        for i in range(x.shape[0]):
            if x[i] >= cut:
                kept.append(x[i])
        if len(kept) == 0:
            return 0.0
        return np.median(np.array(kept))

    compiled_and_plain(kept_median, x, cut, backend="cranelift")


def best_per_bucket(w):
    """A short list of Python floats stored into at an index the data gives (`best[k] =`)."""
    best = [0.0, 0.0, 0.0, 0.0]
    for i in range(w.shape[0]):
        k = int(w[i] * 4) % 4
        if w[i] > best[k]:
            best[k] = float(w[i])
    return best, sum(best)


def leaders(x):
    """Indices of the largest value at even and odd positions: `idx[j] = i`."""
    idx = [0, 0]
    for i in range(x.shape[0]):
        j = i % 2
        if x[i] > x[idx[j]]:
            idx[j] = i
    return idx


def counted_in_front(x):
    """Appends and a store into the first item, the count kept in the list itself."""
    keep = [0]
    for i in range(x.shape[0]):
        if x[i] > 0:
            keep.append(i)
            keep[0] = keep[0] + 1
    return keep


def histogram_counts(x):
    """`[0] * n` as counters, `counts[int(...)] += 1` at an index the data computes."""
    counts = [0] * 40
    for i in range(x.shape[0]):
        counts[int(abs(x[i]) * 10) % 40] += 1
    return counts


def running_maxima(x):
    """`[0.0] * n` of Python floats, each place the max of what it held and an item."""
    best = [0.0] * 20
    for i in range(x.shape[0]):
        k = i % 20
        best[k] = max(best[k], float(x[i]))
    return np.array(best), best


def stored_past_the_end(x):
    marks = [0, 0, 0]
    for i in range(x.shape[0]):
        marks[int(x[i])] = i
    return marks


@pytest.mark.parametrize("fn", [best_per_bucket, leaders, counted_in_front, histogram_counts,
                                running_maxima],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("backend", ["eager", "cranelift"])
def test_stores_into_lists_are_loop_ops(fn, backend) -> None:
    rng = np.random.default_rng(9)
    recorder = RecordingBackend(backend)
    compiled_and_plain(fn, rng.random(40) - 0.3, backend=recorder)
    stats = ember.stats()
    assert stats["graph_breaks"] == 0, stats["break_reasons"]
    assert loop_ops(recorder) >= 1 and not stats["backend_fallbacks"]
    compiled_and_plain(fn, -np.ones(10), backend=backend)


def test_a_store_past_the_end_raises_as_python() -> None:
    from fuzz_programs import assert_same_outcome, run

    for x in (np.array([0.0, 2.0, 1.0]), np.array([0.0, 3.0, 1.0]), np.array([-4.0, 1.0])):
        want = run(stored_past_the_end, [x.copy()], {})
        got = run(ember.compile(stored_past_the_end), [x.copy()], {})
        assert_same_outcome(got, want, "")


def positions_twice(X):
    """Two appends a trip of a `while` nested in a `for`: past the buffer (as many items as
    the frame's arrays hold) where most entries are positive."""
    out = []
    for i in range(X.shape[0]):
        j = 0
        while j < X.shape[1] and X[i, j] > 0:
            out.append(j)
            out.append(-j)
            j += 1
    return len(out), out[-3:]


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
def test_a_nested_list_past_its_buffer_runs_as_python(backend) -> None:
    rng = np.random.default_rng(10)
    recorder = RecordingBackend(backend)
    compiled_and_plain(positions_twice, rng.standard_normal((70, 70)), backend=recorder)
    assert loop_ops(recorder) >= 1 and ember.stats()["entry_fallbacks"] == 0
    compiled_and_plain(positions_twice, np.ones((70, 70)), backend=recorder)
    assert ember.stats()["entry_fallbacks"] >= 2
