"""Control flow that depends on array values, convergence loops, loops with breaks inside,
exceptions, with-blocks and early exits: one break per data-dependent point."""

from __future__ import annotations

import numpy as np
from breaks_harness import Program


def normal(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape)


def sign_branch(x):
    s = x.sum()
    if s > 0:
        y = x / s
    else:
        y = -x
    return y * 2


def clip_if_large(x):
    m = np.abs(x).max()
    if m > 1.0:
        x = x / m
    return x + 1


def relu_or_tanh(x, smooth):
    if smooth:
        return np.tanh(x)
    return np.maximum(x, 0)


def any_nan_guard(x):
    y = np.log(np.abs(x) + 1)
    if np.isnan(y).any():
        return np.zeros_like(y)
    return y


def newton_sqrt(a):
    x = a.copy()
    while np.abs(x * x - a).max() > 1e-12:
        x = 0.5 * (x + a / x)
    return x


def power_iteration(m):
    v = np.ones(m.shape[0]) / np.sqrt(m.shape[0])
    lam = 0.0
    for _ in range(200):
        w = m @ v
        new = float(v @ w)
        v = w / np.sqrt(w @ w)
        if abs(new - lam) < 1e-10:
            break
        lam = new
    return lam, v


def gradient_descent(a, b):
    x = np.zeros(a.shape[1])
    step = 0
    while True:
        g = a.T @ (a @ x - b)
        if np.sqrt(g @ g) < 1e-8 or step > 500:
            break
        x = x - 0.1 * g
        step += 1
    return x, step


def bisection(lo, hi):
    f = lambda t: t**3 - 2 * t - 5
    while hi - lo > 1e-9:
        mid = (lo + hi) / 2
        if f(mid) * f(lo) > 0:
            lo = mid
        else:
            hi = mid
    return lo


def loop_with_print(x):
    total = np.zeros_like(x)
    for i in range(3):
        total = total + x * (i + 1)
        print("partial", i)
    return total


def early_return_inside_loop(x):
    for k in range(5):
        x = x * 2
        if x.max() > 10:
            return x, k
    return x, -1


def try_except_numpy_error(a, b):
    try:
        c = a + b
    except ValueError:
        c = a
    return c * 2


def try_finally_print(x):
    try:
        y = x * 3
        return y.sum()
    finally:
        print("done")


def raise_on_bad_input(x):
    if x.min() < 0:
        raise ValueError("negative input")
    return np.sqrt(x)


def catch_and_reraise(x):
    try:
        return np.linalg.inv(x)
    except np.linalg.LinAlgError:
        print("singular")
        raise


def with_block_around_break(x, log):
    with log:
        y = x * 2
        print("inside")
    return y + 1


def while_data_dependent_count(x):
    n = 0
    while x.sum() > 1:
        x = x / 2
        n += 1
    return x, n


def recursive_halving(x):
    if x.max() < 1:
        return x
    return recursive_halving(x / 2)


def generator_consumer(x):
    def scaled():
        for k in range(3):
            yield x * k

    return sum(scaled())


def break_inside_comprehension(xs):
    return [int(v.sum()) for v in xs]


def nested_loops_with_branch(grid):
    out = grid.copy()
    for i in range(2):
        for j in range(2):
            if out[i, j] > 0:
                out = out * 1.5
    return out


class Log:
    def __init__(self):
        self.events = []

    def __enter__(self):
        self.events.append("enter")
        return self

    def __exit__(self, *exc):
        self.events.append("exit")
        return False


CASES = [
    Program(sign_branch, lambda: (np.arange(4.0),), graphs=1, breaks=0),
    Program(clip_if_large, lambda: (np.array([0.5, 3.0]),), graphs=1, breaks=0),
    Program(relu_or_tanh, lambda: (np.arange(-2.0, 2.0), True), graphs=1, breaks=0),
    Program(any_nan_guard, lambda: (np.array([1.0, -2.0]),), graphs=1, breaks=0),
    # The test at the top is a frame-level branch whose path of no trip leaves `x` (the
    # frame's own copy) as it was; the other path is one loop op (docs/ARCHITECTURE.md,
    # frame-level branches).
    Program(newton_sqrt, lambda: (np.array([2.0, 9.0]),), graphs=1, breaks=0),
    # One loop op: float() of a loop value is a weak float, the data-dependent `if` an if op
    # whose `break` ends the loop (docs/ARCHITECTURE.md, section 12).
    Program(power_iteration, lambda: (np.array([[2.0, 1.0], [1.0, 3.0]]),), graphs=1,
            breaks=0, rtol=1e-6),
    # A `while True:` whose `break` reads an array on every trip is one loop op from its
    # first trip (`whiles.while_true`).
    Program(gradient_descent, lambda: (np.array([[1.0, 0.5], [0.2, 1.0], [0.3, 0.1]]),
                                       np.array([1.0, 2.0, 0.5])), graphs=1, breaks=0),
    Program(bisection, lambda: (2.0, 3.0), graphs=0, breaks=0),
    Program(loop_with_print, lambda: (np.ones(2),), graphs=2, breaks=3),
    # Short loops whose trips branch on array values are loop ops holding the branch.
    Program(early_return_inside_loop, lambda: (np.ones(2),), graphs=1, breaks=0),
    Program(try_except_numpy_error, lambda: (np.ones(2), np.ones(3)), graphs=0, breaks=1),
    Program(try_finally_print, lambda: (np.arange(3.0),), graphs=1, breaks=1),
    Program(raise_on_bad_input, lambda: (np.array([1.0, -1.0]),), graphs=1, breaks=0),
    # np.linalg.inv is a graph op: the singular matrix makes the graph fail, and the frame
    # runs as Python for NumPy's LinAlgError, caught, printed and raised again.
    Program(catch_and_reraise, lambda: (np.zeros((2, 2)),), graphs=1, breaks=0),
    Program(with_block_around_break, lambda: (np.ones(2), Log()), graphs=2, breaks=1),
    # `x` is the argument: each path is traced on to the return, which hands back the
    # argument itself where no trip ran.
    Program(while_data_dependent_count, lambda: (np.full(3, 4.0),), graphs=1, breaks=0),
    Program(recursive_halving, lambda: (np.full(2, 5.0),), graphs=2, breaks=2),
    Program(generator_consumer, lambda: (np.ones(3),), graphs=1, breaks=0),
    # The caller's inlined attempt, then int() (of a float: it may raise) and FOR_ITER per
    # item in the comprehension.
    # `int()` of a float sum is a Python int of the graph, checked at run time: no break.
    Program(break_inside_comprehension, lambda: ([np.ones(2), np.arange(3.0)],), graphs=1,
            breaks=0),
    # The outer loop is a loop op, its body the inner one's trips, each an `if` op.
    Program(nested_loops_with_branch, lambda: (np.array([[1.0, -1.0], [2.0, 0.5]]),),
            graphs=1, breaks=0),
]
