"""`while` loops in loop bodies whose first test is a Python value and later tests loop
values (`n = 0` then `while n < maxiter and |z| <= 2:`): the first trip runs as code, the
rest is an `if` on the bottom test holding a loop op, on both backends against NumPy."""

from __future__ import annotations

import math

import ember
import numpy as np
import pytest
from conftest import RecordingBackend
from test_loops_windows import loop_ops, run_both


def escape_counts(xs, ys, maxiter):
    counts = np.zeros((ys.shape[0], xs.shape[0]), dtype=np.int64)
    for i in range(ys.shape[0]):
        for j in range(xs.shape[0]):
            zr, zi = 0.0, 0.0
            n = 0
            while n < maxiter and zr * zr + zi * zi <= 4.0:
                zr, zi = zr * zr - zi * zi + xs[j], 2.0 * zr * zi + ys[i]
                n += 1
            counts[i, j] = n
    return counts


def halvings(x):
    out = np.zeros(x.shape[0], dtype=np.int64)
    for i in range(x.shape[0]):
        v = x[i] * 1.0
        k = 0
        while not v < 1.0:
            v = v / 2.0
            k += 1
        out[i] = k
    return out


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
def test_while_after_a_constant_first_test_matches_numpy(backend) -> None:
    for n in (9, 12):
        ember.reset()
        run_both(escape_counts, np.linspace(-2, 0.5, n), np.linspace(-1, 1, n - 2), 25,
                 backend=backend)
        ember.reset()
        x = np.random.default_rng(n).random(n) * 10.0 ** np.arange(n) % 1e6
        run_both(halvings, x, backend=backend)


def test_while_after_a_constant_first_test_is_a_loop_op() -> None:
    for fn, args in ((escape_counts, (np.linspace(-2, 0.5, 12), np.linspace(-1, 1, 10), 25)),
                     (halvings, (np.random.default_rng(0).random(12) * 100,))):
        recorder = RecordingBackend()
        ember.reset()
        ember.compile(fn, backend=recorder)(*args)
        assert ember.stats()["graph_breaks"] == 0 and loop_ops(recorder) >= 1
        assert len(recorder.graphs) == 1


# Delay lines whose Python floats become NumPy scalars one trace after another (`x0, x1 =
# x1, x1 - f1 * ...` makes `x1` one on the first trace, `x0` on the next): the types found
# widen across traces until they settle; a loop of no trips keeps the Python floats.
def secant_roots(t, tol):
    out = []
    for k in range(t.shape[0]):
        x0, x1 = 0.0, 1.0
        f0 = x0 ** 3 + x0 - t[k]
        f1 = x1 ** 3 + x1 - t[k]
        it = 0
        while abs(f1) > tol and it < 60:
            x0, x1 = x1, x1 - f1 * (x1 - x0) / (f1 - f0)
            f0, f1 = f1, x1 ** 3 + x1 - t[k]
            it += 1
        out.append(x1)
    return out


def three_term_lag(c):
    out = np.zeros(c.shape[0])
    for k in range(c.shape[0]):
        a, b, d = 0.0, 0.5, 1.0
        n = 0
        while n < 30 and abs(d - b) > 1e-9:
            a, b, d = b, d, 0.5 * (d + c[k] / d)
            n += 1
        out[k] = d + a
    return out


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
def test_delay_line_types_widen_across_traces(backend) -> None:
    for fn, calls in ((secant_roots, [(np.array([3.0, 2.0, 4.0]), 1e-12),
                                      (np.array([2.0, 2.0, 7.0]), 1e-12)]),
                      (three_term_lag, [(np.array([2.0, 0.25, 9.0]),), (np.array([0.25, 4.0]),)])):
        ember.reset()
        compiled = ember.compile(fn, backend=backend)
        for args in calls:
            got, want = compiled(*args), fn(*args)
            assert [type(g) for g in got] == [type(w) for w in want]
            np.testing.assert_allclose(got, want, rtol=1e-12)
        assert ember.stats()["graph_breaks"] == 0, ember.stats()["break_reasons"]


# Two locals bound to one number at a trip's end (`lam_old = lam`, `b = s; a = s`): a number
# no one updates in place, so each local carries it on its own.
def deflated_eigs(A, k, tol):
    B = A.copy()
    n = B.shape[0]
    vals = np.zeros(k)
    for j in range(k):
        v = np.ones(n) / math.sqrt(n)
        lam_old = 0.0
        it = 0
        while it < 500:
            w = B @ v
            v = w / np.linalg.norm(w)
            lam = v @ B @ v
            if abs(lam - lam_old) < tol * abs(lam):
                break
            lam_old = lam
            it += 1
        vals[j] = lam
        B -= lam * np.outer(v, v)
    return vals
def paired_rows(x):
    out = np.zeros((x.shape[0], 2))
    for i in range(x.shape[0]):
        a = b = 0.0
        n = 0
        while n < 50 and a < x[i]:
            s = a + 0.1
            b = s
            a = s
            n += 1
        out[i] = a, b
    return out
def last_two(x):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        cur = 1.0
        prev = 1.0
        k = 0
        while k < 20:
            nxt = 0.5 * (cur + x[i] / cur)
            prev = cur
            cur = nxt
            if abs(cur - prev) < 1e-12:
                break
            k += 1
        out[i] = cur - prev
    return out


@pytest.mark.parametrize("fn, make", [
    (deflated_eigs, lambda r: (r.random((6, 6)) @ r.random((6, 6)).T + 6 * np.eye(6), 3, 1e-12)),
    (paired_rows, lambda r: (r.random(9),)),
    (last_two, lambda r: (1 + r.random(9),)),
], ids=["deflated_eigs", "paired_rows", "last_two"])
def test_two_locals_bound_to_one_number(fn, make) -> None:
    ember.reset()
    compiled = ember.compile(fn)
    for seed in range(2):
        args = make(np.random.default_rng(seed))
        np.testing.assert_allclose(compiled(*args), fn(*args), rtol=1e-10)
    assert ember.stats()["graph_breaks"] == 0, ember.stats()["break_reasons"]
