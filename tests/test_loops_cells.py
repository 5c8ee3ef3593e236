"""Loop bodies that rebind a cell of the frame: a local that a comprehension reads, so CPython
keeps it in a cell (`simplex = simplex[order]` after `[f(simplex[i]) for i in range(3)]`).
Its pseudo-local `.cell#name` is carried like any local (`region._cells_as_locals`,
`Interpreter.STORE_DEREF`), and the cell takes the loop op's result. Rebound at the body's
top, on one path of a branch, before an inner loop, in a `while` inside the body, and read by
a comprehension in the body after; against plain NumPy, compiled without a break."""

from __future__ import annotations

import numpy as np
from test_loops_first_assigned import check


def sorted_rows(P, iters):
    f = np.array([np.sum(P[i] ** 2) for i in range(P.shape[0])])
    for it in range(iters):
        order = np.argsort(f)
        P = P[order]
        f = f[order]
        P[-1] = P[0] * 0.5 + P[-1] * 0.5
        f[-1] = np.sum(P[-1] ** 2)
    return P, f


def doubled_on_a_path(w, x):
    total = np.sum(np.array([w[i] for i in range(3)]))
    for i in range(x.shape[0]):
        if x[i] > 0:
            w = w * 1.5
        else:
            x[i] = -x[i]
    return w, total


def rebound_before_an_inner_loop(w, n):
    first = [w[j] for j in range(2)]
    acc = 0.0
    for i in range(n):
        w = w + 1.0
        for j in range(w.shape[0]):
            acc += w[j]
    return acc, w, first


def comprehension_after_rebinding(w, n):
    s = 0.0
    for i in range(n):
        w = w * 0.5 + 1.0
        s += sum([w[j] for j in range(3)])
    return s, w


def while_in_the_body(w, limits):
    peek = [w[0] for _ in range(2)]
    for i in range(limits.shape[0]):
        k = 0
        while k < limits[i]:
            w = w * 0.5
            k += 1
    return w, peek


def test_rows_sorted_and_rebound():
    P = np.random.default_rng(0).normal(size=(3, 2))
    check(sorted_rows, [(P, 25), (P, 0)])


def test_rebound_on_one_path():
    x = np.random.default_rng(1).normal(size=12)
    check(doubled_on_a_path, [(np.arange(3.0), x), (np.arange(3.0), np.abs(x))])


def test_rebound_before_an_inner_loop():
    check(rebound_before_an_inner_loop, [(np.arange(4.0), 9)])


def test_comprehension_reads_the_rebound_cell():
    check(comprehension_after_rebinding, [(np.arange(3.0), 11)])


def test_while_inside_the_body():
    check(while_in_the_body, [(np.arange(1.0, 4.0), np.array([2, 0, 3, 1]))])


# ---- the loop's own target is a cell: a comprehension of the body reads it ------------------

def window_sums_by_generator(y, coeffs):
    out = np.zeros(len(y) - len(coeffs) + 1)
    for i in range(len(out)):
        out[i] = sum(c * y[i + j] for j, c in enumerate(coeffs))
    return out


def rows_by_comprehension(x):
    out = np.empty(x.shape[0])
    for i, row in enumerate(x):
        out[i] = max(row[k] * (i + k) for k in range(3))
    return out


def target_read_after_the_loop(y):
    total = 0.0
    for i in range(len(y)):
        total += sum(y[i] * k for k in range(2))
    return total, [i * 2 for _ in range(1)]  # the last `i`, through a cell after the loop


def test_generator_reads_the_loop_index():
    y = np.random.default_rng(2).normal(size=40)
    check(window_sums_by_generator, [(y, (0.5, 0.25, -1.0)), (y[:20], (0.5, 0.25, -1.0))])


def test_comprehension_reads_the_loop_targets():
    check(rows_by_comprehension, [(np.random.default_rng(3).normal(size=(30, 4)),)])


def test_a_target_cell_read_after_the_loop_is_python_s_last_item():
    y = np.random.default_rng(4).normal(size=30)
    check(target_read_after_the_loop, [(y,), (y[:12],)], native=False)
