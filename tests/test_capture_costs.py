"""What capture spends on a first call, counted rather than timed (`ember.stats()`:
`capture_attempts`, the runs of a frame's bytecode, and `traced_ops`, the ops they built,
thrown-away runs included): a loop capture refuses is refused early, and what one run of
the frame learned about its loops is not learned again by the next."""

from __future__ import annotations

import ember
import numpy as np
from conftest import assert_same


def _costs(fn, *args) -> tuple[int, int]:
    ember.reset()
    assert_same(ember.compile(fn)(*args), fn(*args))
    stats = ember.stats()
    return stats["capture_attempts"], stats["traced_ops"]


def polynomial_steps(c, x, trips):
    y = x + 0.0
    for _ in range(trips):
        y = np.polyval(c, y) * 0.5
    return y


def test_a_short_loop_over_the_op_budget_is_refused_after_its_first_trip() -> None:
    # Each trip unrolls the polynomial (about 160 ops): four trips project over the budget
    # of 256 after the first, which alone is traced before the loop becomes a loop op.
    c = np.random.default_rng(0).random(40) / 40
    x = np.random.default_rng(1).random(16)
    attempts_one, ops_one = _costs(polynomial_steps, c, x, 1)
    attempts, ops = _costs(polynomial_steps, c, x, 4)
    assert attempts_one == 1 and attempts == 2
    # The thrown-away run traced one trip, the kept one the loop op's body: about two
    # trips' ops, where unrolling on to the budget would have traced four.
    assert ops <= 2 * ops_one + 16, (ops, ops_one)


def _smoothed(u, sweeps):
    for _ in range(sweeps):
        u = 0.5 * u + 0.25 * (u[::-1] + u)
    return u


def polynomial_smoothed_polynomials(c, x, cycles):
    y = x + 0.0
    for _ in range(cycles):
        y = np.polyval(c, y) * 0.5
        y = _smoothed(y, 2)  # a loop of a called function starts mid-trip
        y = np.polyval(c, np.polyval(c, y)) * 0.5
    return y


def test_a_short_loop_is_refused_mid_trip_once_its_first_trip_projects_over_budget() -> None:
    # A trip is about 500 ops, the first polynomial of it about 160. One trip over budget
    # is traced whole, then again as the loop op's body. With four trips, the first
    # polynomial alone projects over the budget of 256 as the inner loop starts: the
    # thrown-away run stops there rather than tracing the rest of the trip.
    c = np.random.default_rng(0).random(40) / 40
    x = np.random.default_rng(1).random(16)
    attempts_one, ops_one = _costs(polynomial_smoothed_polynomials, c, x, 1)
    attempts, ops = _costs(polynomial_smoothed_polynomials, c, x, 4)
    assert attempts_one == 2 and attempts == 2
    assert ops <= 3 * ops_one // 4, (ops, ops_one)


def last_scaled_then_printed(x, n):
    s = np.zeros_like(x)
    for i in range(n):
        last = x * i
        s = s + last
    print("printed", end="")
    return s + last


def test_a_loop_refused_before_a_graph_break_is_refused_once(capsys) -> None:
    # `last`, unbound before the loop and read after it, keeps the loop from being a loop
    # op; the print breaks the graph. The run that stops before the print starts from what
    # the first learned: one refused run, one run to the break, one that stops before it,
    # and the resume function's after the print.
    x = np.random.default_rng(2).random(8)
    attempts, _ = _costs(last_scaled_then_printed, x, 20)
    assert attempts == 4
    assert ember.stats()["graph_breaks"] == 1
    assert capsys.readouterr().out == "printed" * 2


def polynomial_last(c, x, trips):
    y = x + 0.0
    for _ in range(trips):
        last = np.polyval(c, y)
        y = last * 0.5
    return y + last


def test_a_short_loop_over_the_budget_carries_a_local_first_assigned_in_it() -> None:
    # `last`, unbound before the loop and read after it, is carried out of the loop op
    # (`loops/first_assigned.py`): over the op budget after its first trip, the loop is one
    # loop op on the second run, as any short loop is.
    c = np.random.default_rng(3).random(40) / 40
    x = np.random.default_rng(4).random(16)
    attempts, _ = _costs(polynomial_last, c, x, 4)
    assert attempts == 2
    assert ember.stats()["failed_frames"] == 0


def chain(v):
    return (((((((v * 0.5 + 1.0) * 0.5 + 2.0) * 0.5 + 3.0) * 0.5 + 4.0) * 0.5 + 5.0) * 0.5
             + 6.0) * 0.5 + 7.0) * 0.5


def nested_chains(x, trips):
    out = np.zeros((trips, x.shape[0]))
    for t in range(trips):
        for i in range(x.shape[0]):
            out[t, i] = chain(chain(chain(x[i] + t)))
    return out


def test_the_bodies_of_inner_loop_ops_count_toward_the_unrolling_budget() -> None:
    # Each trip of the short loop adds one loop op (its inner loop, of 20 trips) whose body
    # is about 100 ops: four such trips project over the budget, so the outer loop is a
    # loop op too, rather than four copies of the inner one.
    x = np.random.default_rng(5).random(20)
    attempts_one, ops_one = _costs(nested_chains, x, 1)
    attempts, ops = _costs(nested_chains, x, 4)
    assert attempts_one == 1 and attempts == 2
    assert ops <= 2 * ops_one + 16, (ops, ops_one)
