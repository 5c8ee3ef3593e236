"""Division of Python numbers inside loop bodies keeps Python's ZeroDivisionError: a loop
body computes `1.0 / (i - k)` and `a // b`, `a % b` of Python ints as NumPy ops of weak
values, which give inf or 0 with a RuntimeWarning for a zero divisor, so a zero divisor is a
run-time check carried out of the loop op (`operators._python_divisor`,
`region.emit_loop`), and the frame then runs as plain Python, which raises with the same
effects on the arguments before it. Divisions that never see zero stay one compiled loop."""

from __future__ import annotations

import math
import warnings

import ember
import numpy as np
import pytest
from conftest import assert_same
from hypothesis import given, seed, settings
from hypothesis import strategies as st


def reciprocal_sum(n, k):
    t = 0.0
    for i in range(n):
        t += 1.0 / (i - k)
    return t


def int_quotients(x, k):
    t = 0
    for i in range(len(x)):
        t += 1000 // (int(x[i]) - k) + i % (i - k + 100)
    return t


def writes_then_divides(x, k):
    x[0] = 5.0
    for i in range(30):
        x[i + 1] += 1.0 / (i - k)
    return x.sum()


def run(fn, args):
    """What `fn(*args)` returns or raises, and its arguments afterwards."""
    copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            return ("returned", fn(*copies)), copies
    except (ZeroDivisionError, ValueError, RuntimeWarning) as exc:
        return ("raised", type(exc)), copies


CASES = [
    (reciprocal_sum, lambda k: (50, k)),
    (int_quotients, lambda k: (np.arange(40.0), k)),
    (writes_then_divides, lambda k: (np.zeros(40), k)),
]


@pytest.mark.parametrize("fn, make", CASES, ids=lambda c: getattr(c, "__name__", ""))
@seed(20261207)
@settings(max_examples=12, deadline=None, derandomize=True)
@given(k=st.integers(-5, 45))
def test_a_zero_divisor_raises_as_python_does(fn, make, k):
    args = make(k)
    want, want_args = run(fn, args)
    got, got_args = run(ember.compile(fn), args)
    assert got[0] == want[0] and (got[1] == want[1] if got[0] == "raised" else True)
    if want[0] == "returned":
        assert_same(got[1], want[1], rtol=1e-12)
    assert_same(got_args, want_args)


def test_divisions_that_never_see_zero_stay_one_loop():
    ember.reset()
    compiled = ember.compile(reciprocal_sum)
    for n in (40, 50):
        assert_same(compiled(n, -3), reciprocal_sum(n, -3), rtol=1e-12)
    stats = ember.stats()
    assert stats["graph_breaks"] == 0 and stats["captures"] == 2


def roots(x, k):
    t = 0.0
    for i in range(x.shape[0]):
        t += math.sqrt(x[i] - k)
    return t


@pytest.mark.parametrize("k", [0.0, 0.5, 2.0])
def test_a_math_domain_error_in_a_loop_raises_as_python_does(k):
    x = np.linspace(0.0, 1.0, 30)
    want, _ = run(roots, (x, k))
    got, _ = run(ember.compile(roots), (x, k))
    assert got[0] == want[0]
    if want[0] == "returned":
        assert_same(got[1], want[1], rtol=1e-12)
    else:
        assert got[1] == want[1]


def _ratio(a, b):
    return a / b


def ratios_through_a_helper(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = _ratio(1.0, float(x[i]))
    return out


@pytest.mark.parametrize("x", [np.r_[np.ones(30), 0.0], np.arange(1.0, 32.0)])
def test_the_checks_of_a_called_function_reach_the_loop_op(x):
    # The helper's zero-divisor check is the caller's body's: Python raises.
    from probe_harness import assert_behaves_as_numpy

    assert_behaves_as_numpy(ratios_through_a_helper, x, compiled_code=x.all())
