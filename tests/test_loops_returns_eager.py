"""The programs of `test_loops_returns`, `test_loops_helper_returns`, `test_loops_flips` and
`test_loops_swaps` on the eager backend, which runs loop and `if` ops node by node
(`backends/eager_regions.py`): NumPy's values, types and argument states, no graph break."""

from __future__ import annotations

import ember
import numpy as np
import pytest
import test_loops_flips as F
import test_loops_helper_returns as H
import test_loops_returns as R
import test_loops_swaps as S
from conftest import assert_same

_RNG = np.random.default_rng(3)
_X = _RNG.random(20)
_A = _RNG.random((10, 12))

PROGRAMS = [
    (R.first_above, (_X, 0.9)), (R.first_above, (_X, 5.0)),
    (R.first_value_above, (_X, 0.95)), (R.position_in_matrix, (_A, 0.99)),
    (R.counted_then_returned, (_X, np.zeros(20), 1.5)),
    (R.bounded_steps, (_X.astype(np.float32), np.float32(3.0))),
    (R.calls_a_returning_loop, (_X, 0.9)), (R.row_sums_until, (_A, 6.5)),
    (R.fill_until_negative, (_X, np.zeros(20))), (R.halving_until, (_X * 3, 0.05)),
    (R.return_in_else_last, (_X, 0.95)),
    (R.return_in_a_nested_branch, (_X, 0.6)), (R.continue_break_and_return, (_A, 0.9)),
    (R.return_of_a_tuple, (_X, 0.9)), (R.tuple_from_inner_loop, (_A, np.zeros(10), 0.97)),
    (H.pair_table, (_RNG.integers(0, 4, 14).astype(np.int32),)),
    (H.sign_counts, (_RNG.integers(-3, 4, 30),)), (H.gaps, (_RNG.random(20), _RNG.random(20))),
    (H.clipped, (_RNG.random(24) * 1.5, 0.25, 0.6)),
    (F.durbin_like, (_RNG.random(24) / 24,)),
    (F.prefix_convolution, (_RNG.random(18), _RNG.random(18))),
    (F.pancake_prefixes, (_RNG.random(16), _RNG.integers(0, 17, 30))),
    (F.reversed_rows, (_RNG.random((9, 9)),)), (F.middle_reversals, (_RNG.random(15),)),
    (S.rolling_rows, (_RNG.random(12), 9)), (S.swapped_2d, (_RNG.random((9, 4)),)),
    (S.held_by_a_list, (np.arange(9.0),)), (S.argmin_by_index, (_RNG.random(20),)),
]


@pytest.mark.parametrize("fn,args", PROGRAMS, ids=[f"{p[0].__name__}-{i}"
                                                    for i, p in enumerate(PROGRAMS)])
def test_program_on_the_eager_backend(fn, args) -> None:
    args = [np.float64(a) if type(a) is float else a for a in args]
    want_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    got_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    want = fn(*want_args)
    got = ember.compile(fn, backend="eager")(*got_args)
    assert_same(got, want)
    for g, w in zip(got_args, want_args, strict=True):
        if isinstance(w, np.ndarray):
            np.testing.assert_array_equal(g, w)
    assert ember.stats()["graph_breaks"] == 0, ember.stats()["break_reasons"]
