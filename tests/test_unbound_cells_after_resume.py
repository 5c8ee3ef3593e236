"""A local that a comprehension or closure reads is a cell of its frame; read while unbound,
Python raises UnboundLocalError ("cannot access local variable"). A resume function takes
the frame's cells as free variables, where the same read raises NameError ("cannot access
free variable ... in enclosing scope"): the type and message differ (found by the loop
fuzzer, seed 12: the loop variable of a loop that never ran, read after it)."""

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


def _outcome(fn, a):
    try:
        return fn(a), None
    except Exception as exc:  # noqa: BLE001 - raising is an outcome to compare
        return None, exc


@pytest.mark.parametrize("length", [3, pytest.param(0, marks=pytest.mark.xfail(
    strict=True, reason="a resume function reads the frame's cells as free variables"))])
def test_unbound_cell_read_after_a_break(length, capsys):
    want = _outcome(loop_variable_in_a_comprehension, np.ones(length))
    ember.reset()
    got = _outcome(ember.compile(loop_variable_in_a_comprehension), np.ones(length))
    assert type(got[1]) is type(want[1]) and str(got[1]) == str(want[1])
    assert got[0] == want[0]
