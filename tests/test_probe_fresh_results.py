"""Results NumPy returns as new arrays are new arrays, and results NumPy returns as the very
argument are that argument: `np.repeat(a, 1)` and `np.roll(a, 0)` (whose handlers reduce to
view ops of the argument), `np.round` of integers, and any result written into afterwards
must leave the argument alone; `np.diff(a, n=0)`, `np.astype(a, a.dtype, copy=False)` and
`a.conj()` of a real array are `a` itself. Each program is compiled and called twice and must
give plain NumPy's `record` (result, aliasing with the arguments, arguments afterwards)."""

from __future__ import annotations

import numpy as np
import pytest
from probe_harness import assert_scenario_as_numpy, called_twice, define

ARGS = {
    "int": np.array([15, 25, -35, 44]),
    "float": np.array([1.5, -2.0, 3.25, 0.0]),
    "bool": np.array([True, False, True, True]),
    "matrix": np.arange(6.0).reshape(2, 3),
    "zero_d": np.array(3),
}

NEW_ARRAYS = [
    "np.repeat(a, 1)", "a.repeat(1)", "np.repeat(a.reshape(1, -1), 1, axis=0)",
    "np.roll(a, 0)", "np.roll(a, 4)", "np.roll(a, -8)", "np.roll(a[:0], 3)",
    "np.round(a, 2)", "a.round(1)", "np.around(a, 0)", "np.tile(a, 1)", "np.pad(a, 0)",
    "np.conj(a)", "np.conjugate(a)", "np.clip(a, None, None)", "np.copy(a)",
    "np.concatenate([a.ravel()])", "np.where(True, a, a)", "np.sort(a.ravel()[:1])",
]
THE_ARGUMENT = ["np.diff(a, n=0)", "np.astype(a, a.dtype, copy=False)",
                "a.astype(a.dtype, copy=False)", "a.conj()", "a.conjugate()", "np.asarray(a)"]


@pytest.mark.parametrize("kind", sorted(ARGS))
@pytest.mark.parametrize("expr", NEW_ARRAYS + THE_ARGUMENT)
def test_result_aliases_as_numpy(expr, kind):
    f = define(f"def f(a):\n    r = {expr}\n    return r\n")
    assert_scenario_as_numpy(called_twice(f, (ARGS[kind],)), compiled_code=False)


WRITES = {
    "repeat_then_write": "def f(a):\n    r = np.repeat(a, 1)\n    r[0] = -7\n    return a, r\n",
    "roll_then_scale": "def f(a):\n    r = np.roll(a, 0)\n    r *= 2\n    return a.sum(), r\n",
    "roll_full_turn_in_loop": ("def f(a):\n    r = np.roll(a, a.shape[0])\n    for i in range(3):\n"
                               "        r[i] = i\n    return a, r\n"),
    "round_int_then_write": ("def f(a):\n    r = np.round(a.astype(np.int64), 1)\n    r += 1\n"
                             "    return a, r\n"),
    "repeat_2d_rows": ("def f(a):\n    m = a.reshape(2, 2)\n    r = m.repeat(1, axis=1)\n"
                       "    r[:, 0] = 0\n    return a, r\n"),
}


@pytest.mark.parametrize("name", sorted(WRITES))
def test_writes_into_a_new_result_leave_the_argument(name):
    f = define(WRITES[name])
    assert_scenario_as_numpy(called_twice(f, (np.array([1.0, 2.0, 3.0, 4.0]),)))


EINSUM_VIEWS = {
    "diagonal": ("ii->i", (3, 3)),
    "diagonal_of_leading_axes": ("iij->ij", (3, 3, 2)),
    "diagonal_moved_first": ("jii->ij", (2, 3, 3)),
    "batched_diagonal": ("...ii->...i", (2, 3, 3)),
    "trace_is_a_number": ("ii", (3, 3)),
    "column_sums_are_new": ("ij->j", (3, 4)),
}


@pytest.mark.parametrize("name", sorted(EINSUM_VIEWS))
def test_einsum_of_one_operand_shares_memory_as_numpy(name):
    """`np.einsum('ii->i', a)` of a contiguous `a` is a writeable view of its diagonal in
    NumPy: written into, it changes `a`."""
    subscripts, shape = EINSUM_VIEWS[name]
    f = define(f"def f(a):\n    r = np.einsum({subscripts!r}, a)\n    r2 = r * 1\n"
               f"    if np.ndim(r):\n        r[...] = -1\n    return a, r, r2\n")
    a = np.arange(float(np.prod(shape))).reshape(shape)
    assert_scenario_as_numpy(called_twice(f, (a,)))
