"""`with np.errstate(...):` inside compiled functions: captured into the graph, whose nodes
inside the block warn, raise or stay silent as NumPy does there, whatever the caller's own
errstate (set around the call with `np.errstate`, or with `np.seterr` between calls)."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from probe_harness import assert_behaves_as_numpy, assert_scenario_as_numpy, record

from ember.errors import GraphBreakError

X = np.array([0.0, 1.0, -1.0, 4.0, np.inf])


def ignore_divide(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        r = x / 0.0
    return r + np.log(x)  # outside the block: NumPy warns


def raise_all(x):
    with np.errstate(all="raise"):
        return np.sqrt(x)


def raise_divide_only(x):
    with np.errstate(divide="raise"):
        y = np.sqrt(x)  # invalid still warns
        return y + 1 / x


def nested(x):
    with np.errstate(all="ignore"):
        a = np.log(x)
        with np.errstate(divide="raise"):
            b = x * 2.0
        c = 1.0 / x
    return a, b, c


def nested_raising(x):
    with np.errstate(all="ignore"):
        with np.errstate(divide="raise", invalid="ignore"):
            return np.log(x)


def all_with_an_exception(x):
    with np.errstate(all="raise", under="ignore", over="ignore"):
        return np.exp(x * 1000.0), np.sqrt(x + 2)


def as_ignored_as_numpy_after(x):
    with np.errstate(invalid="ignore"):
        a = np.sqrt(x)
    return a, np.sqrt(x)


def in_a_loop(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        with np.errstate(divide="ignore"):
            out[i] = np.log(x[i])
    return out


def around_a_loop(x):
    out = np.zeros(len(x))
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in range(len(x)):
            out[i] = np.log(x[i]) + np.float64(x[i]) / 0.0
    return out, np.log(x)


def numpy_functions_with_blocks(x):
    return np.nanmean(x), np.nanvar(x), np.linalg.cond(np.outer(x[:3], x[1:4]) + np.eye(3))


PROGRAMS = [ignore_divide, raise_all, raise_divide_only, nested, nested_raising,
            all_with_an_exception, as_ignored_as_numpy_after]
INPUTS = [X, np.array([1.0, 2.0, 3.0]), np.array([-1.0, 0.5]), np.array([1e-300, 2.0])]


@pytest.mark.parametrize("fn", PROGRAMS)
@pytest.mark.parametrize("x", INPUTS, ids=range(len(INPUTS)))
def test_blocks_act_as_in_numpy(fn, x):
    assert_behaves_as_numpy(fn, x)


@pytest.mark.parametrize("caller", [{"all": "ignore"}, {"all": "raise"}, {"divide": "warn"},
                                    {"invalid": "raise", "divide": "ignore"}])
@pytest.mark.parametrize("fn", PROGRAMS)
def test_blocks_over_the_callers_errstate(fn, caller):
    assert_behaves_as_numpy(fn, X, context=lambda: np.errstate(**caller))


@pytest.mark.parametrize("fn", PROGRAMS)
def test_blocks_are_one_graph(fn):
    compiled = ember.compile(fn, fullgraph=True)
    with np.errstate(all="ignore"):
        compiled(INPUTS[1])


@pytest.mark.parametrize("fn", [in_a_loop, around_a_loop])
def test_blocks_in_and_around_loops(fn):
    assert_behaves_as_numpy(fn, X)
    assert_behaves_as_numpy(fn, np.array([1.0, 2.0]))


def test_numpy_functions_that_open_blocks():
    for x in (np.array([1.0, np.nan, 3.0, 4.0, 2.0]), np.array([np.nan] * 5)):
        assert_behaves_as_numpy(numpy_functions_with_blocks, x, compiled_code=False)


def seterr_between_calls(wrap):
    f = wrap(raise_divide_only)
    seen = []
    for modes in ({"all": "ignore"}, {"all": "raise"}, {"all": "warn"}, {"divide": "ignore"}):
        old = np.seterr(**modes)
        try:
            seen.append(record(f, (X,)))
        finally:
            np.seterr(**old)
    return seen


def test_seterr_between_calls():
    assert_scenario_as_numpy(seterr_between_calls, falls_back=True)


def logged(a):
    with np.errstate(divide="ignore"):
        r = np.log(a)
    return np.sum(r * a)


def test_a_block_in_a_differentiated_function():
    a = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(ember.grad(logged)(a), np.log(a) + 1)


def test_modes_that_are_not_constants_or_strings_break_the_graph():
    def given_call(x, mode):
        with np.errstate(divide=mode):
            return x / 0.0

    assert_behaves_as_numpy(given_call, X, "ignore")
    with pytest.raises(GraphBreakError):
        ember.compile(lambda x: _with_call(x), fullgraph=True)(X)


def _with_call(x):
    with np.errstate(call=print):
        return x + 1


def printed_inside(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.log(x)
        print("inside", r[1])  # a graph break inside the block
        q = 1 / x
    return r + q, np.log(x)


def test_a_graph_break_inside_a_block():
    def scenario(wrap):
        f = wrap(printed_inside)
        return [record(f, (X,)) for _ in range(2)]

    assert_scenario_as_numpy(scenario, compiled_code=False)
