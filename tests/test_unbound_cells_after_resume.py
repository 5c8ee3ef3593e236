"""A local that a comprehension or closure reads is a cell of its frame; read while unbound,
Python raises UnboundLocalError ("cannot access local variable"). A resume function takes
the frame's cells as free variables, where the same read raises NameError ("cannot access
free variable ... in enclosing scope"): the type and message differed (found by the loop
fuzzer, seed 12: the loop variable of a loop that never ran, read after it). Resume codes now
keep the frame's cells in cell slots of their own."""

from __future__ import annotations

import ember
import numpy as np
import pytest


def loop_variable_in_a_comprehension(a):
    h = 0
    for i in range(len(a)):
        h += sum([x for x in a[i:i + 1] if x != a[i]])
    print("after the loop")  # a graph break: the rest runs as a resume function
    return h + i


def _outcome(fn, *args):
    try:
        return fn(*args), None
    except Exception as exc:  # noqa: BLE001 - raising is an outcome to compare
        return None, exc


@pytest.mark.parametrize("length", [3, 0])
def test_unbound_cell_read_after_a_break(length, capsys):
    want = _outcome(loop_variable_in_a_comprehension, np.ones(length))
    ember.reset()
    got = _outcome(ember.compile(loop_variable_in_a_comprehension), np.ones(length))
    assert type(got[1]) is type(want[1]) and str(got[1]) == str(want[1])
    assert got[0] == want[0]


def cells_shared_across_a_break(x, drop):
    k = 2.0
    scale = lambda v: v * k  # a closure made before the break
    print("break")
    k = k + 1  # the closure sees the rebinding: one cell
    y = scale(x)

    def bump():
        nonlocal k
        k = k * 10
    bump()
    if drop:
        del k
    return y, k


def argument_cell_deleted_after_a_break(x):
    get = lambda: x  # noqa: F821 -- deleted below, as the program means
    print("break")
    y = get() + 1
    del x
    return y, get()


@pytest.mark.parametrize("drop", [False, True])
def test_cells_across_a_break_behave_as_python(drop, capsys):
    want = _outcome(cells_shared_across_a_break, np.arange(3.0), drop)
    ember.reset()
    compiled = ember.compile(cells_shared_across_a_break)
    for _ in range(2):
        got = _outcome(compiled, np.arange(3.0), drop)
        assert type(got[1]) is type(want[1]) and str(got[1]) == str(want[1])
        assert repr(got[0]) == repr(want[0])


def test_an_argument_cell_deleted_after_a_break(capsys):
    want = _outcome(argument_cell_deleted_after_a_break, np.arange(3.0))
    assert type(want[1]) is NameError  # a free variable of the closure, as Python says
    ember.reset()
    compiled = ember.compile(argument_cell_deleted_after_a_break)
    for _ in range(2):
        got = _outcome(compiled, np.arange(3.0))
        assert type(got[1]) is type(want[1]) and str(got[1]) == str(want[1])
