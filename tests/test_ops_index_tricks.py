"""`np.mgrid`, `np.ogrid`, `np.r_` and `np.c_` compiled against NumPy: values, dtypes, shapes
and errors, as one graph without a break, and inside a loop body."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from ops_compiled import check
from test_ops_gather import data


@pytest.mark.parametrize("key", [
    (slice(0, 4), slice(0, 3)), (slice(-1, 1, 0.25), slice(3)), (slice(0, 1, 5j), slice(0, 3)),
    (slice(2, 9, 3),), slice(0, 10, 0.5), slice(0, 4, 2j), slice(0, 4, 1j), slice(5),
    (slice(0, 2), slice(1, 3), slice(0, 1, 3j)), slice(4, 0), (slice(0, 3), slice(3, 0)),
])
def test_grids_of_constant_slices(key: object) -> None:
    a = data(np.float32, (2,))
    check(lambda a: np.mgrid[key] + a[0], a, ops=())
    ember.reset()
    check(lambda a: [g + a[0] for g in np.ogrid[key]] if isinstance(key, tuple)
          else np.ogrid[key] + a[0], a, ops=())


def test_row_and_column_joins() -> None:
    x, y = data(np.float64, (5,)), data(np.float32, (5,), seed=1)
    m, k = data(np.float64, (5, 2)), data(np.int32, (5,), seed=2)
    for fn in (lambda x, y, m, k: np.r_[x, y], lambda x, y, m, k: np.r_[y, 1.0, k],
               lambda x, y, m, k: np.r_[y, 2], lambda x, y, m, k: np.r_[0:3, k, 7],
               lambda x, y, m, k: np.r_[x[0], y[1]], lambda x, y, m, k: np.r_[m, m],
               lambda x, y, m, k: np.r_[x.sum(), float(y[0])],
               lambda x, y, m, k: np.c_[x, y], lambda x, y, m, k: np.c_[m, k, x],
               lambda x, y, m, k: np.c_[x, m[:4]], lambda x, y, m, k: np.r_[m, x]):
        check(fn, x, y, m, k, ops=())
        ember.reset()


def test_in_a_loop_body() -> None:
    def stencil(u, steps):
        grid = np.mgrid[0:4, 0:5]
        i, j = grid[0], grid[1]
        for _ in range(steps):
            u = 0.5 * (np.r_[u[1:], u[:1]] + np.c_[u[:, 1:], u[:, :1]]) + 0.01 * (i - j)
        return u

    check(stencil, data(np.float64, (4, 5)), 50, rtol=1e-12)
