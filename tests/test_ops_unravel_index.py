"""np.unravel_index of flat indices computed at run time (`np.argmin(d)`, an index array):
against NumPy (values, int64 dtype, NumPy scalars for one index, C and F order), natively
compiled as one graph, inside loop ops, and NumPy's ValueError for an index outside the
array (the graph raises, the frame reruns as Python)."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import assert_same
from ops_compiled import BACKENDS, check


def best_cells(d):
    return (np.unravel_index(np.argmin(d), d.shape),
            np.unravel_index(np.argmax(d), d.shape, order="F"))


def cells_of(i):
    return np.unravel_index(i, (3, 4, 5)), np.unravel_index(i * 0 + 7, (2, 6), "F")


def one_cell(i):
    return np.unravel_index(i[0], (3, 4))


def winners(data, grid, steps):
    rows = np.zeros(steps, dtype=np.int64)
    cols = np.zeros(steps, dtype=np.int64)
    for t in range(steps):
        d = np.sum((grid - data[t]) ** 2, axis=2)
        rows[t], cols[t] = np.unravel_index(np.argmin(d), d.shape)
    return rows, cols


@pytest.mark.parametrize("backend", BACKENDS)
def test_unravel_index_of_computed_indices(backend: str) -> None:
    rng = np.random.default_rng(4)
    check(best_cells, rng.random((4, 6)), backend=backend, ops=("argmin",))
    ember.reset()
    for dtype in (np.int64, np.int32, np.uint8):
        check(cells_of, rng.integers(0, 60, (2, 3)).astype(dtype), backend=backend,
              ops=("floordiv",))
        ember.reset()


@pytest.mark.parametrize("bad", [12, -1])
def test_an_index_outside_the_array_raises_numpys_error(bad: int) -> None:
    ember.reset()
    compiled = ember.compile(one_cell)
    assert_same(compiled(np.array([11])), one_cell(np.array([11])))
    with pytest.raises(ValueError, match=f"index {bad} is out of bounds for array with size 12"):
        compiled(np.array([bad]))


def test_unravel_index_in_a_loop_op() -> None:
    from test_loops_returns import run_calls

    rng = np.random.default_rng(6)
    ember.reset()
    run_calls(winners, [(rng.random((12, 3)), rng.random((4, 5, 3)), 12) for _ in range(2)])
