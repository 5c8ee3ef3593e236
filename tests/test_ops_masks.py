"""Boolean-mask selections `x[mask]` against NumPy on both backends: their reductions
(`x[m].sum()`, `np.mean(x[m])`, `x[m].max(axis=0)`), arithmetic and assignment back through
the mask (`x[m] += v`, `x[m] = x[m] * 2`), empty selections, NumPy's errors; what needs the
selection's length is a graph break."""

from __future__ import annotations

import warnings

import ember
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from ops_compiled import BACKENDS, check
from test_ops_gather import DTYPES, data


def reductions(x):
    m = x > 0
    return (x[m].sum(), x[m].prod(), x[m].max(), x[m].min(), x[m].any(), x[m].all(),
            np.sum(x[m]), np.mean(x[m]), np.amax(x[~m]) if x.size else x.sum())


def rows(x):
    m = x[:, 0] > 0
    return (x[m].sum(axis=0), x[m].mean(axis=0), x[m].max(axis=-1).sum(),
            (x[m] * 2).min(axis=1).max(), x[m].sum(), x[m].ndim)


def spreads(x):
    m = x[:, 0] > 0
    return (x[m].var(axis=0), x[m].std(axis=0, ddof=1), x[m].var(), np.var(x[m]),
            np.std(x[m], axis=0), x[x != 0].std(), x[m].var(axis=1).sum())


def add_where_positive(x):
    x[x > 0] += 1


def scale_rows(x, v):
    m = x[:, 0] > 0
    x[m] = x[m] * v - 1
    return x


def shift_selected(x):
    m = np.isfinite(x)
    x[m] = 2 * x[m] + 1
    y = x.copy()
    y[y < 0] -= y[y < 0].mean() * 0 + 3
    return y


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES[:4])
def test_reductions_of_a_selection(backend: str, dtype: type) -> None:
    x = data(dtype, (5, 4))
    check(reductions, x, backend=backend, ops=("where",))
    ember.reset()
    check(rows, x, backend=backend, ops=("where",))
    ember.reset()
    x[0, 0] = x[1, 0] = 1  # two rows selected at least: ddof=1 divides by one or more
    check(spreads, x, backend=backend, ops=("where",))


@pytest.mark.parametrize("backend", BACKENDS)
def test_updates_through_a_mask(backend: str) -> None:
    for dtype in DTYPES[:4]:
        x = data(dtype, (5, 4))
        check(add_where_positive, x, backend=backend, ops=("where",))
        ember.reset()
        check(scale_rows, x, data(dtype, (4,), seed=2), backend=backend, ops=("where",))
        ember.reset()
    x = data(np.float64, (7,))
    x[[0, 1, 4]] = [-3.0, np.inf, np.nan]  # y < 0 selects y[0] at least
    check(shift_selected, x, backend=backend, ops=("where",))


def invert_nonzero(x):
    x[x != 0] = 1.0 / x[x != 0]
    return x


def pow_positive(x, y):
    z = x.copy()
    z[z > 0] = z[z > 0] ** (-1.5)
    r = y[(y > 1) & (z < 0)] / z[(y > 1) & (z < 0)]
    return z, r.sum()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.filterwarnings("error")  # NumPy computes only the selected elements: no 1/0
def test_a_mask_written_twice_is_one_mask(backend: str) -> None:
    x = data(np.float64, (5, 4))
    x[1, 2] = x[3, 0] = 0.0
    check(invert_nonzero, x, backend=backend, ops=("where",))
    ember.reset()
    check(pow_positive, x, data(np.float64, (5, 4), seed=3), backend=backend, ops=("where",))


def other_masks(x):
    x[x > 0] = x[x > 1] * 2  # a different mask: NumPy's error or assignment, in Python
    return x


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_different_mask_is_not_the_same_mask(backend: str) -> None:
    for x in (np.array([2.0, 3.0, -1.0]), np.array([0.5, 3.0, -1.0])):
        ember.reset()
        compiled = ember.compile(other_masks, backend=backend)
        try:
            want = other_masks(x.copy())
        except ValueError as exc:
            with pytest.raises(ValueError, match=str(exc).split(" ")[0]):
                compiled(x.copy())
        else:
            np.testing.assert_array_equal(compiled(x.copy()), want)
        assert ember.stats()["graph_breaks"] >= 1


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_returned_selection_is_numpys_array(backend: str) -> None:
    for dtype in DTYPES:
        x = data(dtype, (4, 3))
        check(lambda x: (x[x > 0], x[x[:, 1] > 0] * 2), x, backend=backend, ops=("where",))
        ember.reset()


@pytest.mark.parametrize("backend", BACKENDS)
def test_empty_selections(backend: str) -> None:
    x = -np.abs(data(np.float64, (6,))) - 1
    check(lambda x: x[x > 0].sum(), x, backend=backend, ops=("where",))
    ember.reset()
    check(lambda x: x[x > 0].max(), x, backend=backend)  # NumPy's ValueError
    ember.reset()
    check(lambda x: np.min(x[x > 0]), x.astype(np.int32), backend=backend)
    # The mean of nothing, and var/std with no degree of freedom left: NumPy's warnings
    # ("Mean of empty slice", "Degrees of freedom <= 0 for slice") and NaN, from NumPy: the
    # graph raises and the frame reruns as Python.
    for fn in (lambda x: x[x > 0].mean(), lambda x: x[x > 0].var(),
               lambda x: x[x <= x.min()].std(ddof=1)):
        ember.reset()
        with warnings.catch_warnings(record=True) as want:
            warnings.simplefilter("always")
            expected = fn(x)
        compiled = ember.compile(fn, backend=backend)
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            result = compiled(x)
        np.testing.assert_array_equal(result, expected)
        assert type(result) is type(expected)
        assert [str(w.message) for w in got] == [str(w.message) for w in want]
        stats = ember.stats()  # the frame reran as Python (a check, or the FP flags first)
        assert stats["entry_fallbacks"] + stats["fp_reruns"] >= 1, stats


def kl_of_positives(p, q):
    return np.sum(p[p > 0] * np.log(p[p > 0] / np.maximum(q[p > 0], 1e-12)))


def ufuncs_of_a_selection(x):
    m = x > 0
    return (np.sqrt(x[m]).sum(), np.log(x[m]).max(), np.minimum(x[m], 0.5).mean(),
            np.abs(x[m] * -1).sum(), np.exp(np.negative(x[m])).min(), np.log1p(x[m] * 2).sum(),
            np.maximum(np.tanh(x[m]), np.sin(x[m])).sum(), np.floor(x[m] * 3).sum())


def ufuncs_of_selected_rows(x, w):
    m = x[:, 0] > 0
    return np.maximum(x[m], w).sum(axis=0), np.square(x[m] - w).mean(axis=0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_ufuncs_of_a_selection(backend: str) -> None:
    """Elementwise ufuncs of selections stay selections: negative unselected data raises no
    flag (`np.sqrt`, `np.log`), a zero selected does, as in NumPy; empty selections too."""
    for dtype in (np.float64, np.float32):
        x = data(dtype, (6, 5))
        check(ufuncs_of_a_selection, x, backend=backend, ops=("where",))
        ember.reset()
        check(ufuncs_of_selected_rows, x, data(dtype, (5,), seed=3), backend=backend,
              ops=("where",))
        ember.reset()
        p, q = np.abs(data(dtype, (6, 6))), np.abs(data(dtype, (6, 6), seed=4))
        p[p < 0.3] = 0
        q[0] = 0
        check(kl_of_positives, p, q, backend=backend, ops=("where",))
        ember.reset()
    check(lambda x: np.log(x[x >= 0]).sum(), np.array([0.0, -1.0, 2.0]), backend=backend,
          ops=("where",))
    ember.reset()
    check(lambda x: np.log(x[x > 10]).sum(), np.array([0.0, -1.0, 2.0]), backend=backend,
          ops=("where",))


def selection_in_python(x):
    members = x[x[:, 0] > 0]
    total = members.sum(axis=0)
    if len(members):  # a branch on its length: a break, the selection rebuilt for Python
        total = total + members.mean(axis=0)
    return total, members


@pytest.mark.parametrize("backend", BACKENDS)
def test_mask_errors_and_breaks(backend: str) -> None:
    x = data(np.float64, (4, 3))
    check(lambda x, m: x[m].sum(), x, np.ones(3, bool), backend=backend)  # IndexError
    ember.reset()
    # Its length is the mask's count: no break.
    compiled = ember.compile(lambda x: len(x[x > 0]) + x[x > 0].shape[0], backend=backend)
    assert compiled(x) == 2 * (x > 0).sum()
    assert ember.stats()["graph_breaks"] == 0
    # An element of it by a constant is read in the graph.
    ember.reset()
    compiled = ember.compile(lambda x: x[x > 0][-1] * 2, backend=backend)
    assert compiled(x) == x[x > 0][-1] * 2
    assert ember.stats()["graph_breaks"] == 0
    # Other indexing breaks, and the selection is NumPy's there.
    ember.reset()
    compiled = ember.compile(lambda x: x[x > 0][1:] * 2, backend=backend)
    np.testing.assert_array_equal(compiled(x), x[x > 0][1:] * 2)
    assert ember.stats()["graph_breaks"] >= 1
    for y in (x, -np.abs(x)):
        ember.reset()
        got = ember.compile(selection_in_python, backend=backend)(y.copy())
        want = selection_in_python(y.copy())
        for g, w in zip(got, want, strict=True):
            np.testing.assert_allclose(g, w)
            assert g.shape == w.shape and g.dtype == w.dtype
        assert ember.stats()["failed_frames"] == 0


@given(st.data())
def test_random_selections_match_numpy(draw: st.DataObject) -> None:
    shape = tuple(draw.draw(st.lists(st.integers(0, 5), min_size=1, max_size=3)))
    dtype = draw.draw(st.sampled_from(DTYPES[:4]))
    x = data(dtype, shape, seed=draw.draw(st.integers(0, 100)))
    threshold = draw.draw(st.integers(-5, 5))
    backend = draw.draw(st.sampled_from(BACKENDS))
    ember.reset()
    check(lambda x: (x[x > threshold].sum(), np.any(x[x < threshold])), x, backend=backend,
          ops=("where",))
    ember.reset()
    check(add_where_positive, x, backend=backend, ops=("where",))


def upper_ascii(codes):
    out = codes.copy()
    out[(codes >= 97) & (codes <= 122)] -= 32
    return out


def double_small_in_place(x, lo):
    x[x < lo] *= 2.0
    return x


def bump_rows(a):
    out = a.copy()
    out[a[:, 0] > 0] += a.min(axis=0)
    return out


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn,make", [
    (upper_ascii, lambda n: np.arange(60, 60 + n, dtype=np.uint8)),
    (double_small_in_place, lambda n: (data(np.float32, (n,)), 0.25)),
    (bump_rows, lambda n: data(np.int32, (n, 3))),
])
def test_updates_through_a_mask_of_every_length(backend: str, fn, make) -> None:
    """`x[m] op= v` where the length of `x` changes from call to call (a symbolic dim): the
    update is still `where`, with no break."""
    ember.reset()
    compiled = ember.compile(fn, backend=backend)
    for n in (9, 13, 40):
        args = make(n) if isinstance(make(n), tuple) else (make(n),)
        plain, mine = [np.copy(a) if isinstance(a, np.ndarray) else a for a in args], args
        want, got = fn(*plain), compiled(*mine)
        assert got.dtype == want.dtype and np.array_equal(got, want)
        assert all(np.array_equal(m, p) for m, p in zip(mine, plain) if isinstance(m, np.ndarray))
    assert ember.stats()["graph_breaks"] == 0, ember.stats()["break_reasons"]


def lookup_where_valid(codes, table):
    out = np.full(codes.shape, -1.0)
    ok = codes >= 0
    out[ok] = table[codes[ok]]
    return out


def asof_values(t_left, t_right, v_right):
    pos = np.searchsorted(t_right, t_left, side="right") - 1
    valid = pos >= 0
    out = np.full(t_left.shape, np.nan)
    out[valid] = v_right[pos[valid]] * 2
    return out


def rows_of_kept_ids(x, ids):
    keep = ids < 3
    return x[ids[keep]].max(axis=0)


def past_the_table(idx, table):
    m = idx > 0
    out = np.zeros(len(idx))
    out[m] = table[idx[m]]
    return out


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn,make", [
    (lookup_where_valid, lambda r: (r.integers(-3, 6, 25), r.random(6).astype(np.float32))),
    (asof_values, lambda r: (np.sort(r.random(30)), np.sort(r.random(20)), r.random(20))),
    (rows_of_kept_ids, lambda r: (data(np.int32, (5, 3)), r.integers(0, 5, 9))),
    (past_the_table, lambda r: (r.integers(-3, 9, 12), r.random(6))),
])
def test_gathers_at_a_selection_of_indices(backend: str, fn, make) -> None:
    """`a[idx[m]]` is a selection under `m` (assigned back through `m`, reduced), and only the
    selected indices are checked against `a`'s length: NumPy's IndexError past it."""
    r = np.random.default_rng(4)
    ember.reset()
    compiled = ember.compile(fn, backend=backend)
    for _ in range(3):
        args = make(r)
        try:
            want = fn(*args)
        except IndexError as exc:
            with pytest.raises(IndexError, match=str(exc)):
                compiled(*args)
            continue
        got = compiled(*args)
        assert got.dtype == want.dtype and np.array_equal(got, want, equal_nan=True)
    assert ember.stats()["graph_breaks"] == 0, ember.stats()["break_reasons"]


def _masked_totals(x, masks):
    out = np.empty(masks.shape[0], dtype=x.dtype)
    for i in range(masks.shape[0]):
        out[i] = np.sum(x[masks[i]])
    return out


def _first_smallest(w, masks):
    best, best_i = np.inf, -1
    for i in range(masks.shape[0]):
        err = np.sum(w[masks[i]])
        if err < best:
            best, best_i = err, i
    return best_i, best


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_selection_sums_are_numpys_bit_for_bit(dtype) -> None:
    # NumPy sums the gathered elements pairwise (eight running sums, then the rest in
    # order): the same rounding, at every count of selected elements, in a loop body and
    # at the frame's level, so that comparisons of such sums pick what NumPy picks.
    rng = np.random.default_rng(12)
    for n in (1, 5, 8, 9, 16, 23, 40, 128):
        x = (rng.standard_normal(n) * 100).astype(dtype)
        masks = rng.random((12, n)) < rng.random((12, 1))
        masks[0] = False
        ember.reset()
        got = ember.compile(_masked_totals)(x, masks)
        assert repr(got) == repr(_masked_totals(x, masks)), n
        for m in masks[:4]:
            ember.reset()
            compiled = ember.compile(lambda x, m: (x[m].sum(), np.mean(x[m]) if m.any() else 0))
            assert repr(compiled(x, m)) == repr((x[m].sum(), np.mean(x[m]) if m.any() else 0))


def test_ties_between_selection_sums_fall_as_in_numpy() -> None:
    # Uniform weights: errors of thresholds 0.6, 0.7 and 0.8 are equal in NumPy's sums, and
    # the first of them wins (a decision stump's search).
    rng = np.random.default_rng(1)
    x, y = rng.random(30), np.where(rng.random(30) < 0.5, -1, 1)
    masks = np.array([np.where(x > t, -1, 1) != y for t in np.linspace(0.1, 0.9, 9)])
    w = np.full(30, 1 / 30)
    want = _first_smallest(w, masks)
    assert want[0] == 5
    ember.reset()
    assert ember.compile(_first_smallest)(w, masks) == want
    assert ember.stats()["graph_breaks"] == 0


def leak_toward_input(v, current, active):
    v[active] += 0.1 * (-v[active] + current[active])
    return v


def negated_and_inverted(x, k):
    return (-x[x > 0.5]).sum(), ~k[k > 2], (+k[k < 5]).sum()


def refractory_steps(W, current, steps):
    v = np.zeros(W.shape[0])
    ref = np.zeros(W.shape[0], dtype=np.int32)
    s = np.zeros(W.shape[0], dtype=np.bool_)
    for _ in range(steps):
        active = ref == 0
        v[active] += 0.1 * (-v[active] + current[active]) + (W @ s)[active]
        ref[~active] -= 1
        s = v >= 1.0
        v[s] = 0.0
        ref[s] = 3
    return v, ref


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn,make", [
    (leak_toward_input, lambda r: (r.standard_normal(9), r.random(9), r.random(9) > 0.4)),
    (negated_and_inverted, lambda r: (r.standard_normal(11), r.integers(0, 8, 10))),
    (refractory_steps, lambda r: (0.3 * r.random((6, 6)), 1.0 + r.random(6), 25)),
])
def test_unary_operators_of_a_selection(backend: str, fn, make) -> None:
    """`-x[m]`, `+x[m]`, `~k[m]`: a selection under the same mask, also inside a loop op
    (a leaky neuron's `v[active] += dt * (-v[active] + I[active])`), without a break."""
    r = np.random.default_rng(5)
    ember.reset()
    check(fn, *make(r), backend=backend, ops=())
    assert ember.stats()["graph_breaks"] == 0, ember.stats()["break_reasons"]


def normal_equations_on_kept_rows(X, y, lo):
    keep = y > lo
    A = X[keep].T @ X[keep]
    b = X[keep].T @ y[keep]
    residual = X[~keep] @ np.ones(X.shape[1]) - y[~keep]
    return A, b, np.sum(residual ** 2), (X[keep] @ np.ones((X.shape[1], 2))).sum(axis=0)


def class_scatter(X, labels, k):
    out = []
    for c in range(k):
        sel = labels == c
        d = X[sel] - X[sel].mean(axis=0)
        out.append(d.T @ d)
    return out


def ridge_fold(X, y, fold_of, f):
    tr = fold_of != f
    w = np.linalg.solve(X[tr].T @ X[tr] + 0.1 * np.eye(X.shape[1]), X[tr].T @ y[tr])
    return w, np.mean((X[fold_of == f] @ w - y[fold_of == f]) ** 2)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_products_of_selected_rows(backend: str, dtype: type) -> None:
    """`X[m].T @ X[m]` (the selected rows' Gram matrix, a known shape) and `X[m] @ w` (one
    product per selected row) in the graph, for every count of selected rows."""
    rng = np.random.default_rng(5)
    X = (rng.standard_normal((24, 3)) * 4).astype(dtype)
    y = (rng.standard_normal(24) * 4).astype(dtype)
    rtol = 1e-5 if dtype == np.float32 else 1e-9
    for lo in (-100, 0, 100):  # all rows, some, none
        ember.reset()
        check(normal_equations_on_kept_rows, X, y, lo, backend=backend, rtol=rtol,
              ops=("matmul",))
        assert ember.stats()["graph_breaks"] == 0, ember.stats()["break_reasons"]
    ember.reset()
    check(class_scatter, X, np.arange(24) % 3, 3, backend=backend, rtol=rtol, ops=())
    assert ember.stats()["graph_breaks"] == 0, ember.stats()["break_reasons"]
    if dtype != np.int64:
        ember.reset()
        check(ridge_fold, X, y, np.arange(24) % 5, 2, backend=backend, rtol=rtol, ops=())
        assert ember.stats()["graph_breaks"] == 0, ember.stats()["break_reasons"]


def test_other_uses_of_a_transposed_selection_break_and_stay_numpys() -> None:
    x = data(np.float64, (6, 3))
    m = x[:, 0] > 0
    other = np.roll(m, 1)
    for fn in (lambda x, m, o: x[m].T @ x[o], lambda x, m, o: x[m].T.sum(axis=1),
               lambda x, m, o: x[m].T.T @ np.ones(3), lambda x, m, o: x[m] @ x[m].T):
        ember.reset()
        np.testing.assert_allclose(ember.compile(fn)(x, m, other), fn(x, m, other))
    with pytest.raises(ValueError):
        ember.compile(lambda x, m: x[m] @ np.ones(4))(x, m)
