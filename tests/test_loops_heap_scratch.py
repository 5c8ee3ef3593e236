"""Loop bodies that make arrays too big for the native stack (over 32 KiB together): the
first arrays stay in stack slots, the rest live in one heap block the runtime allocates per
call and frees on every return, an `IndexError`'s included. Each kernel is checked against
NumPy (values, dtypes, mutations, `IndexError` at the same trip after the same stores) at
trip counts 0, 1 and odd ones, and must compile to native code rather than a graph per trip."""

from __future__ import annotations

import numpy as np
import pytest
from probe_harness import assert_behaves_as_numpy
from test_loops_scratch_arrays import _native_functions


def reversed_rows(x):
    out = np.empty_like(x)
    m = x.shape[1]
    for i in range(x.shape[0]):
        tmp = np.zeros(m)
        for j in range(m):
            tmp[j] = x[i, j] * 2.0
        for j in range(m):
            out[i, j] = tmp[m - 1 - j]
    return out


def last_positions(x, limit):
    total = 0
    for i in range(x.shape[0]):
        seen = np.full(9001, -3, dtype=np.int32)
        for j in range(x.shape[1]):
            seen[x[i, j]] = j
        for j in range(limit):
            total += seen[j]
    return total


def two_tables_and_a_small_one(x):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        small = np.zeros(3)
        counts = np.zeros(5003, dtype=np.int64)
        weights = np.ones(4099)
        for j in range(x.shape[1]):
            k = x[i, j]
            counts[k] += 1
            weights[k % 4099] += 0.5
            small[k % 3] += 1.0
        best = 0
        for k in range(5003):
            if counts[k] > best:
                best = counts[k]
        out[i] = best + weights[x[i, 0] % 4099] + small[1]
    return out


def components_by_queue(grid):
    rows, cols = grid.shape
    label = np.zeros((rows, cols), dtype=np.int64)
    sizes = np.zeros(rows * cols + 1, dtype=np.int64)
    count = 0
    for i in range(rows):
        for j in range(cols):
            if grid[i, j] and label[i, j] == 0:
                count += 1
                queue = np.empty((rows * cols, 2), dtype=np.int64)
                head = 0
                tail = 1
                queue[0, 0] = i
                queue[0, 1] = j
                label[i, j] = count
                while head < tail:
                    r = queue[head, 0]
                    c = queue[head, 1]
                    head += 1
                    sizes[count] += 1
                    for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                        nr = r + dr
                        nc = c + dc
                        if 0 <= nr < rows and 0 <= nc < cols and grid[nr, nc] \
                                and label[nr, nc] == 0:
                            label[nr, nc] = count
                            queue[tail, 0] = nr
                            queue[tail, 1] = nc
                            tail += 1
    return count, label, sizes[:count + 1]


def flood_fill_stack(img, seeds, new):
    img = img.copy()
    h, w = img.shape
    for s in range(seeds.shape[0]):
        stack = np.zeros(20000, dtype=np.int64)
        top = 0
        y0 = seeds[s, 0]
        x0 = seeds[s, 1]
        old = img[y0, x0]
        if old == new:
            continue
        stack[top] = y0 * w + x0
        top += 1
        while top > 0:
            top -= 1
            p = stack[top]
            y = p // w
            x = p % w
            if img[y, x] != old:
                continue
            img[y, x] = new
            if y > 0:
                stack[top] = p - w
                top += 1
            if y < h - 1:
                stack[top] = p + w
                top += 1
            if x > 0:
                stack[top] = p - 1
                top += 1
            if x < w - 1:
                stack[top] = p + 1
                top += 1
    return img


RNG = np.random.default_rng(23)


@pytest.mark.parametrize("rows,m", [(0, 4500), (1, 4500), (3, 4501), (2, 4097), (11, 4099)])
def test_a_big_zeroed_row_per_trip_matches_numpy(rows, m):
    assert_behaves_as_numpy(reversed_rows, RNG.standard_normal((rows, m)))


@pytest.mark.parametrize("limit", [0, 1, 9001, 9002])
def test_a_big_filled_table_and_its_index_error_match_numpy(limit):
    x = RNG.integers(0, 9001, (12, 11))
    assert_behaves_as_numpy(last_positions, x, limit)
    bad = x.copy()
    bad[3, 4] = 9001  # past the table on the fourth trip, after three trips' stores
    assert_behaves_as_numpy(last_positions, bad, limit)
    bad[3, 4] = -9002
    assert_behaves_as_numpy(last_positions, bad, limit)
    bad[3, 4] = -9001  # wraps to the first element, as NumPy does
    assert_behaves_as_numpy(last_positions, bad, limit)


@pytest.mark.parametrize("rows", [0, 1, 4, 13])
def test_stack_and_heap_tables_in_one_body_match_numpy(rows):
    x = RNG.integers(0, 5003, (rows, 11))
    assert_behaves_as_numpy(two_tables_and_a_small_one, x)
    bad = RNG.integers(0, 5003, (12, 11))
    bad[9, 5] = -5004
    assert_behaves_as_numpy(two_tables_and_a_small_one, bad)


@pytest.mark.parametrize("shape,p", [((0, 0), 0.5), ((1, 1), 1.0), ((47, 53), 0.45),
                                     ((60, 60), 0.6), ((3, 2000), 0.5)])
def test_a_queue_per_component_matches_numpy(shape, p):
    assert_behaves_as_numpy(components_by_queue, RNG.random(shape) < p)


@pytest.mark.parametrize("shape", [(1, 1), (31, 37), (70, 70)])
def test_a_stack_per_flood_fill_matches_numpy(shape):
    img = RNG.integers(0, 3, shape).astype(np.int64)
    seeds = np.stack([RNG.integers(0, shape[0], 5), RNG.integers(0, shape[1], 5)], axis=1)
    assert_behaves_as_numpy(flood_fill_stack, img, seeds, 7)
    assert_behaves_as_numpy(flood_fill_stack, img, seeds[:0], 7)
    bad = seeds.copy()
    bad[2, 0] = shape[0]  # an IndexError on the third seed, after two fills
    assert_behaves_as_numpy(flood_fill_stack, img, bad, 7)


@pytest.mark.parametrize("fn,args", [
    (reversed_rows, (RNG.standard_normal((12, 4500)),)),
    (last_positions, (RNG.integers(0, 9001, (12, 11)), 9001)),
    (two_tables_and_a_small_one, (RNG.integers(0, 5003, (12, 11)),)),
    (components_by_queue, (RNG.random((60, 60)) < 0.5,)),
    (flood_fill_stack, (RNG.integers(0, 3, (70, 70)), np.array([[0, 0], [5, 9]]), 7)),
])
def test_the_loop_nest_is_one_native_function(fn, args):
    assert _native_functions(fn, *args) == 1
