"""An int argument given as a size whose symbol meets an array's dim that had the same size
at capture (`np.linalg.solve(G[1:, 1:], b[1:])` with `G` of `(n, n)` and `b` of the data's
length, `np.zeros(n) + x`, `np.ones((n, n)) @ x`): capture ties the int's symbol to the
array's (`Tracer.tied_sizes`), so one symbolic graph serves every size (at most two
captures, no break, no fallback), and a call where they differ gets NumPy's own error."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import assert_same


def nodal(branches, conductance, injections, n_nodes):
    a, b = branches[:, 0], branches[:, 1]
    G = np.zeros((n_nodes, n_nodes))
    np.add.at(G, (a, a), conductance)
    np.add.at(G, (b, b), conductance)
    np.add.at(G, (a, b), -conductance)
    np.add.at(G, (b, a), -conductance)
    V = np.concatenate([[0.0], np.linalg.solve(G[1:, 1:], injections[1:])])
    return V, np.sum(V * injections)


def _circuit(n, rng):
    tree = np.array([[i, rng.integers(0, i)] for i in range(1, n)])
    extra = rng.integers(0, n, (2 * n, 2))
    extra = extra[extra[:, 0] != extra[:, 1]]
    branches = np.concatenate([tree, extra]).astype(np.int64)
    return branches, rng.uniform(0.5, 2.0, len(branches)), rng.standard_normal(n), n


def zeros_plus(x, n):
    return np.zeros(n) + x * 2.0


def ones_matmul(x, n):
    return np.ones((n, n)) @ x - x


def eye_solve(x, n):
    return np.linalg.solve(np.eye(n) * 3.0 + 1.0, x)


def _vector_and_len(n, rng):
    return rng.standard_normal(n), n


def _sweep(fn, make, sizes, backend):
    compiled = ember.compile(fn, backend=backend)
    for n in sizes:
        args = make(n, np.random.default_rng(n))
        want = fn(*args)
        assert_same(compiled(*args), want, rtol=1e-9, path=f"{fn.__name__} at {n}")
    return ember.stats()


@pytest.mark.parametrize("backend", ["cranelift", "eager"])
@pytest.mark.parametrize("fn, make", [(nodal, _circuit), (zeros_plus, _vector_and_len),
                                      (ones_matmul, _vector_and_len),
                                      (eye_solve, _vector_and_len)],
                         ids=["nodal", "zeros_plus", "ones_matmul", "eye_solve"])
def test_an_int_tied_to_a_length_captures_twice(fn, make, backend):
    stats = _sweep(fn, make, [5, 8, 13, 21, 34, 9, 3], backend)
    assert stats["captures"] <= 2, stats["recompile_reasons"]
    assert stats["graph_breaks"] == 0, stats["break_reasons"]
    assert stats["entry_fallbacks"] == 0 and stats["failed_frames"] == 0


@pytest.mark.parametrize("backend", ["cranelift", "eager"])
@pytest.mark.parametrize("fn", [zeros_plus, ones_matmul, eye_solve])
def test_a_call_where_they_differ_raises_numpys_error(fn, backend):
    compiled = ember.compile(fn, backend=backend)
    for n in (6, 9):  # the second call captures with the int tied to the length
        x = np.arange(n, dtype=np.float64)
        assert_same(compiled(x, n), fn(x, n))
    x = np.arange(7, dtype=np.float64)
    with pytest.raises(ValueError) as want:
        fn(x, 11)
    with pytest.raises(ValueError) as got:
        compiled(x, 11)
    assert str(got.value) == str(want.value)
    assert_same(compiled(x, 7), fn(x, 7))  # and the symbolic entry serves equal sizes again
    assert ember.stats()["captures"] <= 2


def test_an_int_that_never_meets_an_array_stays_its_own_symbol():
    def pad_to(x, n):
        out = np.zeros(n)
        out[:3] = x[:3]
        return out, x.sum()

    compiled = ember.compile(pad_to)
    for n, m in [(5, 8), (9, 4), (12, 30), (7, 7), (20, 3)]:
        x = np.arange(m, dtype=np.float64)
        assert_same(compiled(x, n), pad_to(x, n))
    assert ember.stats()["entry_fallbacks"] == 0


# ---- slices whose bounds are their axis's size less a constant, and views tied -------------

def conv_valid(img, w):
    kh, kw = w.shape
    H, W = img.shape[0] - kh + 1, img.shape[1] - kw + 1
    out = np.zeros((H, W))
    for p in range(kh):
        for q in range(kw):
            out += w[p, q] * img[p:p + H, q:q + W]
    return out


def conv_twice(img, w):
    return np.tanh(conv_valid(np.maximum(conv_valid(img, w), 0.0), w))


def inner_of_computed(x):
    y = np.cumsum(x * 2.0)
    n = len(y)
    return y[1:n - 1] - y[: n - 2], y[2:n]


def past_the_end(x):
    n = len(x)
    return x[2:n + 3] * 2.0, (x + 1.0)[3:n + 1]


def shifted_pair(x, y, k):
    return x[k:] + y[: len(y) - k]


def _image(n, rng):
    return rng.standard_normal((n + 4, n + 6)), rng.standard_normal((3, 3))


def _vector(n, rng):
    return (rng.standard_normal(n + 4),)


def _pair_and_shift(n, rng):
    return rng.standard_normal(n + 6), rng.standard_normal(n + 6), 1 + n % 4


@pytest.mark.parametrize("backend", ["cranelift", "eager"])
@pytest.mark.parametrize("fn, make", [(conv_valid, _image), (conv_twice, _image),
                                      (inner_of_computed, _vector), (shifted_pair, _pair_and_shift)],
                         ids=["conv_valid", "conv_twice", "inner_of_computed", "shifted_pair"])
def test_bounds_from_the_size_capture_twice(fn, make, backend):
    stats = _sweep(fn, make, [6, 11, 17, 30, 8, 2, 23], backend)
    assert stats["captures"] <= 2, stats["recompile_reasons"]
    assert stats["graph_breaks"] == 0, stats["break_reasons"]
    assert stats["entry_fallbacks"] == 0 and stats["failed_frames"] == 0


@pytest.mark.parametrize("backend", ["cranelift", "eager"])
def test_bounds_past_the_end_are_numpys(backend):
    _sweep(past_the_end, _vector, [6, 11, 17, 2, 3], backend)


def test_a_bound_past_what_the_size_allows_is_numpys():
    def head_of(x, k):
        return x[k:len(x) - 1].copy()  # k past len(x) - 1: an empty slice, as NumPy's

    compiled = ember.compile(head_of)
    for n, k in [(9, 2), (12, 3), (20, 4), (5, 7), (6, 5), (30, 29), (4, 0)]:
        x = np.arange(n, dtype=np.float64)
        assert_same(compiled(x, k), head_of(x, k), path=f"n={n}, k={k}")
