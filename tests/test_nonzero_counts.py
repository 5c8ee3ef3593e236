"""`np.count_nonzero`, the lengths of `np.nonzero`'s (and one-argument `np.where`'s)
indices (`len(np.nonzero(x)[0])`, `.shape[0]`, `.size`) and of boolean-mask selections
(`len(x[m])`, `x[m].shape`, `x[m].size`), compiled against NumPy on random arrays (fixed seed): values, types,
no graph break; their values used as indices still break and run right."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import assert_same
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st


def counts(x):
    found = np.nonzero(x)
    return (np.count_nonzero(x), len(found[0]), found[-1].shape[0], found[0].size,
            len(found), np.count_nonzero(x, keepdims=True))


def counts_along(x, axis):
    return np.count_nonzero(x, axis=axis), np.count_nonzero(x, axis=axis, keepdims=True)


def count_in_loop(A):
    out = np.zeros(A.shape[0], dtype=np.int64)
    for i in range(A.shape[0]):
        out[i] = np.count_nonzero(A[i] > 0.5) + len(np.nonzero(A[i])[0])
    return out


def where_counts(x):
    found = np.where(x)
    return len(found), found[0].size, len(found[-1]), found[0].shape


def selection_lengths(x):
    rows = x[x[:, 0] > 0]
    flat = x[x > 0]
    return (len(rows), rows.shape, rows.size, rows.ndim, len(flat), flat.shape, flat.size,
            rows.shape[0] > 1, flat.size / 2)


def cluster_means(X, labels, k):
    means = np.zeros((k, X.shape[1]))
    sizes = np.zeros(k, dtype=np.int64)
    for j in range(k):
        members = X[labels == j]
        sizes[j] = len(members)
        if members.shape[0] > 0:
            means[j, 0] = members.sum(axis=0)[0] / members.shape[0]
    return means, sizes


def selected_by_nonzero(x):
    return x[np.nonzero(x)] * 2


@st.composite
def arrays(draw):
    shape = tuple(draw(st.lists(st.integers(1, 5), min_size=1, max_size=3)))
    dtype = draw(st.sampled_from([np.bool_, np.int32, np.int64, np.float32, np.float64]))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    x = rng.integers(-2, 3, shape).astype(dtype)
    if dtype in (np.float32, np.float64) and draw(st.booleans()):
        x.flat[rng.integers(0, x.size)] = np.nan  # NaN is nonzero
    return x


def _compiled_same(fn, *args):
    ember.reset()
    assert_same(ember.compile(fn)(*args), fn(*args))
    stats = ember.stats()
    assert stats["graph_breaks"] == 0 and stats["compiles"] == 1, stats["break_reasons"]


@seed(20261206)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(arrays())
def test_counts_match_numpy(x) -> None:
    _compiled_same(counts, x)


@seed(20261207)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(arrays(), st.integers(0, 2))
def test_counts_along_an_axis_match_numpy(x, axis) -> None:
    _compiled_same(counts_along, x, axis % x.ndim)


@seed(20261208)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(arrays())
def test_where_and_selection_lengths_match_numpy(x) -> None:
    _compiled_same(where_counts, x)
    x = x.astype(np.float64) if x.dtype == np.bool_ else x
    _compiled_same(selection_lengths, x.reshape(x.shape[0], -1))


def test_selection_lengths_in_a_loop_body_and_across_its_branch() -> None:
    rng = np.random.default_rng(11)
    X = rng.random((40, 3))
    labels = rng.integers(0, 5, 40)
    labels[labels == 3] = 4  # one empty cluster: the branch's other path
    _compiled_same(cluster_means, X, labels, 6)


def test_counts_in_a_loop_body() -> None:
    _compiled_same(count_in_loop, np.random.default_rng(5).random((12, 7)))


def test_indices_used_as_values_break_and_match_numpy() -> None:
    x = np.array([0.0, 1.5, 0.0, -2.0])
    ember.reset()
    assert_same(ember.compile(selected_by_nonzero)(x), selected_by_nonzero(x))
    assert ember.stats()["graph_breaks"] >= 1


def accuracy_per_class(y_true, y_pred, k):
    accs = []
    for c in range(k):
        idx = np.where(y_true == c)[0]
        if len(idx) == 0:
            accs.append(0.0)
        else:
            accs.append(np.mean(y_pred[idx] == c))
    return np.array(accs)


def rows_at_nonzero(x, labels):
    nz = np.nonzero(labels)[0]
    return x[nz].sum(axis=0), x[nz] * 2, len(x[nz]), x[np.flatnonzero(labels > 1)].max()


def test_indexing_with_the_indices_of_a_1d_mask_is_its_selection() -> None:
    """`a[np.where(m)[0]]`, `a[np.nonzero(m)[0]]`, `a[np.flatnonzero(m)]` are `a[:len(m)][m]`:
    in the graph (no break) for arrays at least as long as the mask, every count of selected
    rows; a shorter array still breaks and NumPy raises its IndexError."""
    rng = np.random.default_rng(7)
    y = rng.integers(0, 4, 40)
    p = np.where(rng.random(40) < 0.7, y, rng.integers(0, 4, 40))
    x = rng.standard_normal((40, 3))
    for fn, args in [(accuracy_per_class, (y, p, 4)), (accuracy_per_class, (y, p, 6)),
                     (rows_at_nonzero, (x, rng.integers(0, 3, 40))),
                     (rows_at_nonzero, (x, rng.integers(0, 3, 25))),
                     (rows_at_nonzero, (x, np.full(40, 2)))]:
        ember.reset()
        compiled = ember.compile(fn)
        for _ in range(2):
            assert_same(compiled(*args), fn(*args))
        assert ember.stats()["graph_breaks"] == 0, ember.stats()["break_reasons"]
    ember.reset()
    labels = np.zeros(30, dtype=np.int64)
    labels[25] = 2
    try:
        rows_at_nonzero(x[:20], labels)
    except IndexError as exc:
        want = str(exc)
    with pytest.raises(IndexError, match=want):
        ember.compile(rows_at_nonzero)(x[:20], labels)
