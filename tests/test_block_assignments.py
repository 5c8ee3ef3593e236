"""Several block assignments into one array (`out[:h, :w] = a`, `b[0, 1:-1] = x`): the
code generator writes each block into the array's buffer where nothing else reads the
array. Differential against NumPy on both backends: odd sizes, strided and transposed
inputs, casts, blocks that read the array they update, 3-d blocks, empty blocks."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import assert_same


def quadrants(img):
    h, w = img.shape[0] // 2, img.shape[1] // 2
    out = np.empty_like(img)
    out[:h, :w] = img[::2, ::2][:h, :w]
    out[:h, w:] = img[1::2, ::2][:h, :img.shape[1] - w]
    out[h:, :w] = img[::2, 1::2][:img.shape[0] - h, :w]
    out[h:, w:] = img[1::2, 1::2][:img.shape[0] - h, :img.shape[1] - w] * 2
    return out


def padded(a):
    b = np.zeros((a.shape[0] + 2, a.shape[1] + 2), dtype=a.dtype)
    b[1:-1, 1:-1] = a
    b[0, 1:-1] = a[0]
    b[-1, 1:-1] = a[-1]
    b[:, 0] = b[:, 1]
    return b * 2


def reads_itself(a):
    out = np.zeros((a.shape[0], 2 * a.shape[1]))
    out[:, :a.shape[1]] = a
    out[1:3, a.shape[1]:] = out[1:3, :a.shape[1]] * 3
    out[2:, 1:4] = out[:-2, 2:5] + 1
    return out.sum(axis=0), out


def cast_blocks(a):
    out = np.zeros((a.shape[0] + 1, a.shape[1] + 1), dtype=np.float32)
    out[1:, 1:] = a
    out[:1, 2:4] = a[:1, :2] // 2
    out[3:5, :1] = 7
    return out + 1


def cube_blocks(c):
    out = np.zeros_like(c)
    out[1:3, 2:4, :] = c[1:3, 2:4, :] * 2
    out[0, 1:, 1:3] = c[0, :-1, 1:3]
    out[2:, :2, 4:] = -1.0
    return out.sum(), out


def assemble(k):
    n = k.shape[0]
    big = np.zeros((2 * n, 2 * n))
    big[:n, :n] = k
    big[n:, n:] = k.T
    big[:n, n:] = np.eye(n)
    big[n:, :n] = -np.eye(n)
    return big @ np.ones(2 * n), big


def empty_block(a):
    out = np.ones((a.shape[0], a.shape[1] + 2))
    out[2:2, 1:3] = 5.0
    out[:, 1:1] = 3.0
    out[1:2, 1:-1] = a[:1]
    return out


CASES = [
    (quadrants, lambda r: (r.random((38, 50)),)),
    (quadrants, lambda r: (r.random((50, 38)).T,)),
    (quadrants, lambda r: (r.integers(0, 200, (20, 16)).astype(np.uint8),)),
    (padded, lambda r: (r.random((23, 17)),)),
    (padded, lambda r: (r.integers(-9, 9, (23, 34))[:, ::2].astype(np.int32),)),
    (reads_itself, lambda r: (r.random((9, 7)),)),
    (cast_blocks, lambda r: (r.integers(0, 50, (9, 11)),)),
    (cube_blocks, lambda r: (r.random((5, 6, 7)),)),
    (assemble, lambda r: (r.random((13, 13)),)),
    (empty_block, lambda r: (r.random((6, 5)),)),
]


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
@pytest.mark.parametrize("fn,make", CASES, ids=[f"{c[0].__name__}{k}"
                                                for k, c in enumerate(CASES)])
def test_block_assignments_match_numpy(fn, make, backend) -> None:
    for seed in (0, 1):
        args = make(np.random.default_rng(seed))
        want = fn(*[a.copy() for a in args])
        compiled = ember.compile(fn, backend=backend)
        for _ in range(2):
            inputs = [a.copy() for a in args]
            assert_same(compiled(*inputs), want)
            for got, given in zip(inputs, args, strict=True):
                np.testing.assert_array_equal(got, given)
    assert ember.stats()["graph_breaks"] == 0
