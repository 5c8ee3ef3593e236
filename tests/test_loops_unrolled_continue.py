"""A branch in a loop op's body inside an inner loop short enough to be written out
(`for c in range(cols)` of a few columns, `for dr, dc in directions`), where one path ends
the inner trip (`continue`, or the end of the inner body) and the other ends the outer trip
(`return`, `break`): each path runs the inner trips left from where they stood, so the
`continue` path still reads the columns after it. Checked against NumPy over boards whose
data take each path, and that the frame compiled to native graphs without a break."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import assert_same


def run_boards(fn, boards, native=True):
    compiled = ember.compile(fn)
    for board in boards:
        want_board, got_board = board.copy(), board.copy()
        assert_same(compiled(got_board), fn(want_board))
        np.testing.assert_array_equal(got_board, want_board)
    stats = ember.stats()
    if not native:
        return
    assert stats["graph_breaks"] == 0, stats["break_reasons"]
    assert stats["region_recaptures"] == 0 and not stats["backend_fallbacks"]


def first_two_position(board):
    rows, cols = board.shape
    for r in range(rows):
        for c in range(cols):
            if board[r, c] == 0:
                continue
            if board[r, c] == 2:
                return r * 100 + c
    return -1


def first_pair_in_row(board):
    rows, cols = board.shape
    for r in range(rows):
        for c in range(cols - 1):
            p = board[r, c]
            if p == 0:
                continue
            if board[r, c + 1] == p:
                return int(p)
    return 0


def first_line_of_three(board):
    rows, cols = board.shape
    for r in range(rows):
        for c in range(cols):
            p = board[r, c]
            if p == 0:
                continue
            for dr, dc in ((0, 1), (1, 0), (1, 1)):
                rr, cc = r + 2 * dr, c + 2 * dc
                if rr < rows and cc < cols:
                    if board[r + dr, c + dc] == p and board[rr, cc] == p:
                        return int(p)
    return 0


def weight_before_wall(grid):
    """A `break` out of the written-out inner loop on one path, a `return` on another."""
    total = 0.0
    for r in range(grid.shape[0]):
        for c in range(grid.shape[1]):
            if grid[r, c] < 0.1:
                continue
            if grid[r, c] > 0.95:
                return -total
            if grid[r, c] > 0.9:
                break
            total += grid[r, c]
    return total


@pytest.mark.parametrize("shape", [(1, 6), (2, 3), (5, 6), (40, 4)])
@pytest.mark.parametrize("fn", [first_two_position, first_pair_in_row, first_line_of_three])
def test_continue_in_written_out_inner_loop_with_return(fn, shape):
    rng = np.random.default_rng(7)
    boards = [rng.integers(0, 3, shape) for _ in range(12)]
    boards.append(np.zeros(shape, dtype=np.int64))  # no return taken
    run_boards(fn, boards)


@pytest.mark.parametrize("shape,native", [((1, 5), True), ((3, 4), True), ((30, 3), False)])
def test_continue_break_and_return_in_written_out_inner_loop(shape, native):
    # Over 30 rows the outer loop is a loop op whose trips may `break` the inner loop or
    # return: not yet native (a break before the loop), still NumPy's results.
    rng = np.random.default_rng(3)
    run_boards(weight_before_wall, [rng.random(shape) for _ in range(12)], native)
