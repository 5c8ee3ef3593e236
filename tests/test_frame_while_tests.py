"""`while` loops at the frame's level whose first test the data decide (`while
np.max(np.abs(delta)) > tol:`, convergence loops of Newton's and golden-section methods):
the test is a frame-level branch whose one path takes no trip. An array the frame computed
and no one else holds may then be merged out of that branch (a copy cannot be told from
it); one that is an argument, a view, viewed, or held by another name, a list or an
attribute keeps its identity, which the compiled function must show exactly as NumPy does
(the branch breaks there instead). Each program runs with tolerances that take no trip and
several, compared with plain NumPy: values, printed output, warnings, arguments afterwards
and which results are or share memory with which arguments and results."""

from __future__ import annotations

import numpy as np
import pytest
from probe_harness import assert_compiles_whole, assert_scenario_as_numpy, called_twice


def newton_fresh(x, tol):
    y = x * 2.0
    d = np.ones_like(x)
    it = 0
    while np.max(np.abs(d)) > tol and it < 50:
        d = y * 0.5 - 0.1
        y = y - d
        it += 1
    return y, d, it


def golden(centers, width, tol):
    invphi = (5 ** 0.5 - 1) / 2
    a = centers - width
    b = centers + width
    c = b - invphi * (b - a)
    d = a + invphi * (b - a)
    while np.max(b - a) > tol:
        left = (c - centers) ** 2 < (d - centers) ** 2
        b = np.where(left, d, b)
        a = np.where(left, a, c)
        c = b - invphi * (b - a)
        d = a + invphi * (b - a)
    return (a + b) / 2


def fixed_point_scalar_test(x, tol):
    y = np.cos(x)
    err = float(np.abs(y - x).max())
    while err > tol:
        z = np.cos(y)
        err = float(np.abs(z - y).max())
        y = z
    return y


# Identity that the branch must keep: each of these breaks (or keeps the object) as NumPy.

def alias_by_name(x, tol):
    y = x + 1.0
    z = y
    while np.max(y) > tol:
        y = y * 0.5
    return y, z


def argument_itself(x, tol):
    y = x
    while np.max(y) > tol:
        y = y * 0.5
    return y


def view_of_argument(x, tol):
    y = x[1:]
    while np.max(y) > tol:
        y = y * 0.5
    return y


def view_kept_by_if(x, tol):
    y = x[::2]
    if np.max(y) > tol:
        y = y * 0.5
    return y


def viewed(x, tol):
    y = x + 1.0
    v = y[:2]
    while np.max(y) > tol:
        y = y * 0.5
    y[0] = -1.0
    return y, v


def held_by_list(x, tol):
    y = x + 1.0
    keep = [y]
    while np.max(y) > tol:
        y = y * 0.5
    y[1] = -2.0
    return y, keep


def mutated_after(x, tol):
    y = x + 1.0
    while np.max(y) > tol:
        y = y * 0.5
    y += 1.0
    return y


X = np.linspace(0.0, 3.0, 9)
TOLS = (100.0, 1.0, 1e-3)  # no trip, a few, many


@pytest.mark.parametrize("tol", TOLS)
@pytest.mark.parametrize("fn", [newton_fresh, fixed_point_scalar_test, alias_by_name,
                                argument_itself, view_of_argument, view_kept_by_if,
                                viewed, held_by_list, mutated_after])
def test_first_test_on_data_like_numpy(fn, tol):
    # `viewed` past its break hands the resume function `y` and its view `v`: arguments that
    # overlap run that frame as Python, by design.
    assert_scenario_as_numpy(called_twice(fn, (X.copy(), tol)), falls_back=fn is viewed)


@pytest.mark.parametrize("tol", TOLS)
def test_golden_section_like_numpy(tol):
    assert_scenario_as_numpy(called_twice(golden, (X.copy(), 1.0, tol)))


@pytest.mark.parametrize("fn,args", [
    (newton_fresh, (X, 1e-3)),
    (golden, (X, 1.0, 1e-6)),
    (mutated_after, (X, 0.5)),
])
def test_fresh_arrays_compile_whole(fn, args):
    # The frame's own arrays, held by one name each: no graph break.
    assert_compiles_whole(fn, args)
