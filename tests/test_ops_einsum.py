"""np.einsum against NumPy: traces, transposes, diagonals, outer products, matrix and batched
products, multi-operand chains, integer wrapping and bool, result types, and NumPy's errors.
Integer and bool results must be identical (eager harness); float results agree within
summation rounding, natively compiled."""

from __future__ import annotations

import numpy as np
import pytest
from test_cranelift_harness import check as check_native
from test_ops_elementwise import sample
from test_ops_harness import check


def ints(shape: tuple[int, ...], dtype: type = np.int64, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(-9, 10, shape).astype(dtype)


def floats(shape: tuple[int, ...], dtype: type = np.float64, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


SINGLE = ["ij->ji", "ij->", "ij->i", "ij->j", "ij", "ii->i", "ii", "ii->", "iji->j", "ijk->kij",
          "ijk->ik", "i->i", "i"]
PAIRS = ["ij,jk->ik", "ij,jk", "ij,kj->ik", "ji,jk->ik", "i,i", "i,i->i", "i,j->ij",
         "i,j", "ij,j->i", "j,ij->i", "bij,bjk->bik", "bij,jk->bik", "bij,bjk->bki",
         "ij,ij->", "ij,ij->ij", "ij,ji->", "ijk,jil->kl", "ab,cd->abcd", "ij,jk->",
         # dot products along a batch: a multiply summed over the inner labels
         "ijk,ijk->ij", "ij,ij->i", "bij,bji->b", "ijk,kji->j"]
SHAPES = {"i": 3, "j": 4, "k": 5, "l": 2, "b": 2, "a": 2, "c": 3, "d": 2}


def operand(labels: str, dtype: type, seed: int) -> np.ndarray:
    square = {"ii": (3, 3), "iji": (3, 4, 3)}.get(labels)
    shape = square or tuple(SHAPES[c] for c in labels)
    return ints(shape, dtype, seed) if np.dtype(dtype).kind in "biu" else floats(
        shape, dtype, seed)


@pytest.mark.parametrize("subscripts", SINGLE + PAIRS)
def test_integer_and_bool_einsum_exact(subscripts: str) -> None:
    inputs = subscripts.split("->")[0].split(",")
    for dt in (np.int64, np.int32, np.bool_):
        arrays = [operand(s, dt, seed) for seed, s in enumerate(inputs)]
        if dt is np.bool_:
            arrays = [a > 0 for a in arrays]
        assert check(lambda xp, *a: xp.einsum(subscripts, *a), *arrays) is not None


@pytest.mark.parametrize("subscripts", SINGLE + PAIRS)
def test_float_einsum_natively(subscripts: str) -> None:
    inputs = subscripts.split("->")[0].split(",")
    for dt in (np.float32, np.float64):
        arrays = [operand(s, dt, seed) for seed, s in enumerate(inputs)]
        assert check_native(lambda xp, *a: xp.einsum(subscripts, *a), *arrays,
                            sums=True) is not None


def test_chains_mixed_types_and_wrapping() -> None:
    a, b, c = ints((3, 4), seed=1), ints((4, 5), seed=2), ints((5, 2), seed=3)
    check(lambda xp, a, b, c: xp.einsum("ij,jk,kl->il", a, b, c), a, b, c)
    check(lambda xp, a, b, c: xp.einsum("ij,jk,kl->", a, b, c), a, b, c)
    check(lambda xp, a, b, c: xp.einsum("ij,jk,kl->li", a, b, c), a, b, c)
    check(lambda xp, a, b: xp.einsum("ij,jk->ik", a, b.astype(np.int32)), a, b)
    big = np.full((4, 4), 2**20, np.int32)
    check(lambda xp, x: xp.einsum("ij,jk->ik", x, x), big)
    check(lambda xp, x: xp.einsum("ij->", x), big)
    x, y = floats((3, 4), np.float32), floats((4,), np.float64)
    assert check_native(lambda xp, x, y: xp.einsum("ij,j->i", x, y), x, y, sums=True)
    assert check_native(lambda xp, x: xp.einsum("ij,ij,ij->i", x, x, x), x, sums=True)


def test_errors_and_refusals() -> None:
    x = sample(np.float64, (3, 4))
    check(lambda xp, x: xp.einsum("ij,jk->ik", x), x)
    check(lambda xp, x: xp.einsum("ijk->ij", x), x)
    check(lambda xp, x: xp.einsum("ij->iz", x), x)
    check(lambda xp, x: xp.einsum("ij->ii", x), x)
    check(lambda xp, x: xp.einsum("i1->i", x), x)
    for prog in (lambda xp, x: xp.einsum("ij,ij->ij", x, x[:1]),
                 lambda xp, x: xp.einsum(x, [0, 1], [1, 0])):
        assert check(prog, x, allow_unsupported=True) is None


ELLIPSES = [("...ij,...jk", (2, 3, 4), (4, 5)), ("...ij,...jk->...ik", (2, 3, 4), (2, 4, 5)),
            ("i...->...", (3, 2, 5)), ("...,...", (3,), (3,)), ("...ii->...i", (2, 3, 3)),
            ("...", (2, 3)), ("ij...,jk...->ik...", (2, 3, 4), (3, 2, 4)),
            ("b...,b...->b", (2, 3, 4), (2, 3, 4)), ("...j->...", (3, 4)),
            ("...ij->ij", (2, 3, 4)), (".i", (3,)), ("...i...", (2, 3)), ("...ij", (3,))]


@pytest.mark.parametrize("case", ELLIPSES, ids=lambda c: c[0])
def test_ellipses(case: tuple) -> None:
    """Broadcast dimensions spelt out; NumPy's errors where the ellipses do not fit."""
    subscripts, *shapes = case
    exact = [ints(shape, seed=seed) for seed, shape in enumerate(shapes)]
    check(lambda xp, *a: xp.einsum(subscripts, *a), *exact)
    arrays = [floats(shape, seed=seed) for seed, shape in enumerate(shapes)]
    try:
        np.einsum(subscripts, *arrays)
    except ValueError:
        return  # NumPy's error, which `check` found on the integers
    assert check_native(lambda xp, *a: xp.einsum(subscripts, *a), *arrays, sums=True)
