"""Native loops on every array layout: each statement has a version for C-contiguous arrays
(strides compiled in) and one reading the strides given, chosen at entry. The same kernels run
on contiguous, transposed, strided, reversed and single-row views, against plain NumPy
(values, dtype, inputs untouched, NumPy's `IndexError`)."""

import re

import ember
import numpy as np
import pytest


def matmul_loops(A, B):
    n, k = A.shape
    m = B.shape[1]
    C = np.zeros((n, m))
    for i in range(n):
        for j in range(m):
            s = 0.0
            for p in range(k):
                s += A[i, p] * B[p, j]
            C[i, j] = s
    return C


def shifted_rows(A):
    n, m = A.shape
    out = np.zeros((n, m))
    for i in range(n):
        for j in range(1, m):
            out[i, j] = A[i, j] - A[i, j - 1]
    return out


def reads_one_past(A):
    n, m = A.shape
    s = 0.0
    for i in range(n):
        for j in range(m):
            s += A[i, j + 1]
    return s


def _views(rng, rows, cols):
    """The layouts, each a view of shape (rows, cols) of a larger buffer."""
    big = rng.standard_normal((2 * rows + 1, 2 * cols + 1))
    return {
        "contiguous": np.ascontiguousarray(big[:rows, :cols]),
        "transposed": np.ascontiguousarray(big[:cols, :rows]).T,
        "strided": big[: 2 * rows : 2, : 2 * cols : 2],
        "reversed": np.ascontiguousarray(big[:rows, :cols])[::-1, ::-1],
        "row_slice": big[:rows, :cols],
    }


LAYOUTS = ["contiguous", "transposed", "strided", "reversed", "row_slice"]


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("left", LAYOUTS)
@pytest.mark.parametrize("right", LAYOUTS)
def test_matmul_loops_in_every_layout(seed, left, right):
    rng = np.random.default_rng(seed)
    A = _views(rng, 5, 7)[left]
    B = _views(rng, 7, 3)[right]
    before = (A.copy(), B.copy())
    got = ember.compile(matmul_loops, backend="cranelift")(A, B)
    want = matmul_loops(A, B)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(A, before[0])
    np.testing.assert_array_equal(B, before[1])


@pytest.mark.parametrize("layout", LAYOUTS)
def test_one_compiled_kernel_serves_every_layout(layout):
    # The same compiled code first sees a contiguous array, then the layout under test, so
    # both versions of the body run from one compilation.
    compiled = ember.compile(shifted_rows, backend="cranelift")
    rng = np.random.default_rng(3)
    for A in (_views(rng, 6, 9)["contiguous"], _views(rng, 6, 9)[layout]):
        np.testing.assert_array_equal(compiled(A), shifted_rows(A))


def test_single_row_with_an_unusual_row_stride():
    # An axis of size 1 never scales a nonzero index, so its stride does not matter.
    big = np.random.default_rng(4).standard_normal((5, 16))
    A = big[3:4, :8]
    assert A.strides[0] != 8 * A.shape[1]
    got = ember.compile(shifted_rows, backend="cranelift")(A)
    np.testing.assert_array_equal(got, shifted_rows(A))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_out_of_bounds_read_raises_numpys_error_in_every_layout(layout):
    A = _views(np.random.default_rng(5), 4, 6)[layout]
    with pytest.raises(IndexError) as plain:
        reads_one_past(A)
    compiled = ember.compile(reads_one_past, backend="cranelift")
    with pytest.raises(IndexError, match=f"^{re.escape(str(plain.value))}$"):
        compiled(A)
