"""Programs that print, log, read array values into Python and call what ember cannot
capture: each such point is one graph break, with graphs on both sides."""

from __future__ import annotations

import logging
import math

import numpy as np
from breaks_harness import Program

log = logging.getLogger("ember.tests.corpus")


def normal(*shape: int, seed: int = 0) -> np.ndarray:
    """The same arguments on every call (programs run several times)."""
    return np.random.default_rng(seed).standard_normal(shape)


def report_norm(x):
    y = x / np.sqrt((x * x).sum())
    print("norm of y:", np.sqrt((y * y).sum()))
    return y * 2


def trace_layers(x, w1, w2):
    h = np.maximum(x @ w1, 0)
    print("hidden", h.shape, h.dtype)
    out = h @ w2
    print(f"out mean {out.mean():.4f}")
    return out


def print_every_few(x):
    for step in range(6):
        x = x * 0.9 + 0.1
        if step % 3 == 0:
            print("step", step)
    return x


def loss_item(pred, target):
    err = pred - target
    loss = (err * err).mean()
    value = loss.item()
    return err * (2.0 / err.size), value


def float_of_mean(x):
    m = float(x.mean())
    return (x - m) / (x.std() + 1e-8), m


def int_of_argmax(x):
    k = int(x.argmax())
    return x[k], k * 2


def tolist_then_sum(x):
    values = (x * 3).tolist()
    return sum(values) / len(values)


def scalar_in_fstring(x):
    total = x.sum()
    label = f"total={total:.2f}"
    return label, x / total


def logs_warning(x):
    z = (x - x.mean()) / x.std()
    if (np.abs(z) > 1.5).any():
        log.warning("outliers present")
    return np.clip(z, -1.5, 1.5)


def uses_linalg(a, b):
    a2 = a @ a.T + np.eye(a.shape[0]) * 3
    x = np.linalg.solve(a2, b)
    return a2 @ x - b, x


def uses_sort(x):
    y = x * x - 1
    s = np.partition(y, 0)
    return s[-1] - s[0], y.mean()


def uses_random(x):
    noise = np.random.default_rng(3).standard_normal(x.shape)
    return x + 0.01 * noise


def string_report(x):
    parts = []
    for name, v in (("min", x.min()), ("max", x.max())):
        parts.append(f"{name}={float(v):.3f}")
    return ", ".join(parts), np.ptp(x)


def repr_of_array(x):
    text = repr(x * 2)
    return len(text) > 0, x + 1


def math_on_value(x):
    s = float((x * x).sum())
    r = math.sqrt(s)
    return x / r


def round_trip_python_list(x):
    as_list = list(x * 2)
    back = np.array(as_list)
    return back + x


def print_inside_helper(x):
    def show(name, v):
        print(name, v.shape)
        return v

    a = show("a", x + 1)
    b = show("b", a * 2)
    return a + b


def print_then_shape_branch(x):
    print("rows:", x.shape[0])
    if x.shape[0] > 2:
        return x[:2] * 2
    return x * 2


CASES = [
    Program(report_norm, lambda: (normal(5),), graphs=2, breaks=1),
    Program(trace_layers, lambda: (normal(3, 4), normal(4, 5, seed=1),
                                   normal(5, 2, seed=2)), graphs=2, breaks=2),
    # Resumed inside the loop, the loop's FOR_ITER runs in Python and `step` is an input, so
    # `step % 3 == 0` is a branch on a value too.
    Program(print_every_few, lambda: (np.ones(3),), graphs=2, breaks=5),
    # `.item()` and float() of a 0-d value are Python numbers in the graph: no break.
    Program(loss_item, lambda: (np.arange(4.0), np.ones(4)), graphs=1, breaks=0),
    Program(float_of_mean, lambda: (normal(6),), graphs=1, breaks=0),
    # int() of an int64 stays in the graph, and so does indexing with it (a gather).
    Program(int_of_argmax, lambda: (np.array([1.0, 5.0, 2.0]),), graphs=1, breaks=0),
    Program(tolist_then_sum, lambda: (np.arange(4.0),), graphs=1, breaks=1),
    Program(scalar_in_fstring, lambda: (np.arange(1.0, 4.0),), graphs=1, breaks=0),
    Program(logs_warning, lambda: (np.array([0.0, 0.1, 0.2, 9.0]),), graphs=2, breaks=2),
    # np.linalg.solve is a graph op: no break.
    Program(uses_linalg, lambda: (normal(3, 3), normal(3, seed=1)),
            graphs=1, breaks=0),
    Program(uses_sort, lambda: (normal(5),), graphs=2, breaks=1),
    # A draw of constant arguments is made by the entry ahead of the graph: no break.
    Program(uses_random, lambda: (np.ones(4),), graphs=1, breaks=0),
    # float() values formatted by the entry after the graph ran.
    Program(string_report, lambda: (np.array([1.0, 4.0, 2.5]),), graphs=1, breaks=0),
    Program(repr_of_array, lambda: (np.arange(3.0),), graphs=2, breaks=1),
    # math.sqrt of a graph value is a graph op, its domain error a check that reruns the
    # frame as Python: no break.
    Program(math_on_value, lambda: (np.arange(1.0, 4.0),), graphs=1, breaks=0),
    # np.array of the list of element values is stacked in the graph: no break.
    Program(round_trip_python_list, lambda: (np.arange(3.0),), graphs=1, breaks=0),
    # Each print breaks twice: where the caller inlines `show`, and in `show` run on its own.
    Program(print_inside_helper, lambda: (np.ones(2),), graphs=3, breaks=4),
    Program(print_then_shape_branch, lambda: (np.ones((4, 2)),), graphs=1, breaks=1),
]
