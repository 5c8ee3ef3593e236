"""Reductions as functions and methods against NumPy: dtypes, axes, keepdims, empty arrays."""

from __future__ import annotations

import numpy as np
import pytest
from ember.errors import Unsupported
from ember.graph import Graph
from ember.numpy_api import reductions
from test_ops_elementwise import DTYPES, sample
from test_ops_harness import check

AXES = [None, 0, -1, 1, (0, 2), (), (2, 0, 1), 3, (0, 0)]
REDUCTIONS = ["sum", "prod", "max", "amax", "min", "amin", "mean", "any", "all"]


@pytest.mark.parametrize("name", REDUCTIONS)
def test_reduction_functions_over_dtypes_axes_keepdims(name: str) -> None:
    for dt in DTYPES:
        x = sample(dt, (2, 3, 4))
        for axis in AXES:
            for keepdims in (False, True):
                check(lambda xp, x, a=axis, k=keepdims: getattr(xp, name)(x, axis=a, keepdims=k), x)


@pytest.mark.parametrize("name", ["sum", "prod", "max", "min", "mean", "any", "all", "argmax",
                                  "argmin", "var", "std"])
def test_reduction_methods(name: str) -> None:
    for dt in (np.bool_, np.int32, np.uint8, np.float32, np.float64):
        x = sample(dt, (3, 5), 1)
        check(lambda xp, x: getattr(x, name)(), x)
        check(lambda xp, x: getattr(x, name)(0), x)
        check(lambda xp, x: getattr(x, name)(axis=-1, keepdims=True), x)


@pytest.mark.parametrize("shape", [(), (0,), (0, 3), (3, 0), (1,), (5,)])
def test_reductions_of_0d_and_empty_arrays(shape: tuple[int, ...]) -> None:
    for dt in (np.int64, np.float32):
        x = sample(dt, shape)
        for name in REDUCTIONS + ["argmax", "argmin", "var", "std"]:
            # NumPy warns from Python for means of empty slices: those run as NumPy itself.
            warns = name in ("mean", "var", "std") and x.size == 0
            check(lambda xp, x, n=name: getattr(xp, n)(x), x, allow_unsupported=warns)
            if x.ndim:
                check(lambda xp, x, n=name: getattr(xp, n)(x, axis=0), x,
                      allow_unsupported=warns)
                check(lambda xp, x, n=name: getattr(xp, n)(x, axis=-1, keepdims=True), x,
                      allow_unsupported=warns)


@pytest.mark.parametrize("name", ["mean", "var", "std"])
def test_means_of_empty_slices_are_left_to_numpy(name: str) -> None:
    """NumPy's 'Mean of empty slice' and 'Degrees of freedom <= 0' warnings come from Python,
    not from the floating-point flags: the call is a graph break, so NumPy gives them."""
    graph = Graph("f")
    with pytest.raises(Unsupported):
        getattr(reductions, name)(graph, graph.add_input(np.float64, (0, 3)), axis=0)
    # Along the non-empty axis every slice has 3 elements: no warning, so it is captured.
    getattr(reductions, name)(graph, graph.add_input(np.float64, (0, 3)), axis=1)


@pytest.mark.parametrize("name", ["var", "std"])
def test_no_degrees_of_freedom_is_left_to_numpy(name: str) -> None:
    graph = Graph("f")
    with pytest.raises(Unsupported):
        getattr(reductions, name)(graph, graph.add_input(np.float64, (2, 3)), axis=1, ddof=3)
    getattr(reductions, name)(graph, graph.add_input(np.float64, (2, 3)), axis=1, ddof=2)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_arg_reductions(name: str) -> None:
    for dt in DTYPES:
        x = sample(dt, (3, 4, 2), 3)
        for axis in (None, 0, 1, -1, 3):
            for keepdims in (False, True):
                check(lambda xp, x, a=axis, k=keepdims: getattr(xp, name)(x, axis=a, keepdims=k), x)
    check(lambda xp, x: xp.argmax(x, axis=(0, 1)), sample(np.float64, (2, 2)))


@pytest.mark.parametrize("name", ["var", "std"])
def test_var_and_std_follow_numpys_formula_bit_for_bit(name: str) -> None:
    rng = np.random.default_rng(7)
    for dt in (np.float32, np.float64, np.int16, np.int64, np.uint8, np.bool_):
        x = (rng.standard_normal((4, 6, 5)) * 10).astype(dt)
        for axis in (None, 0, 1, (0, 2), -1):
            for ddof in (0, 1, 2.5, 7):
                for keepdims in (False, True):
                    # ddof=7 leaves some slices no degrees of freedom: NumPy warns from
                    # Python, and the call is left to it (a graph break).
                    check(lambda xp, x, a=axis, d=ddof, k=keepdims: getattr(xp, name)(
                        x, axis=a, ddof=d, keepdims=k), x, allow_unsupported=ddof == 7)
    check(lambda xp, x: getattr(xp, name)(x, correction=1), sample(np.float64, (4,)))


def test_sum_with_dtype_and_weak_or_scalar_input() -> None:
    x = sample(np.int8, (4, 3))
    for dt in (np.int8, np.int32, np.float32, np.uint64):
        check(lambda xp, x, d=dt: xp.sum(x, axis=0, dtype=d), x)
        check(lambda xp, x, d=dt: x.prod(dtype=d), x)
    check(lambda xp, x: xp.mean(x, dtype=np.float32), sample(np.int32, (5,)))
    check(lambda xp, x: xp.sum(x), np.float32(3.5))
    check(lambda xp, x: xp.sum(x), 2.5, weak_inputs=True)
    check(lambda xp: xp.sum(3))


def test_layernorm_style_program() -> None:
    x = np.random.default_rng(1).standard_normal((8, 16)).astype(np.float32)
    g = np.ones(16, np.float32)
    b = np.zeros(16, np.float32)

    def layernorm(xp, x, g, b):  # type: ignore[no-untyped-def]
        mu = x.mean(axis=-1, keepdims=True)
        var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
        return (x - mu) / xp.sqrt(var + 1e-5) * g + b

    check(layernorm, x, g, b)


def test_ptp_and_nansum() -> None:
    for dt in DTYPES:
        x = sample(dt, (3, 4))
        for axis in (None, 0, -1):
            check(lambda xp, x, a=axis: xp.ptp(x, axis=a), x)
            check(lambda xp, x, a=axis: xp.nansum(x, axis=a, keepdims=True), x)
    check(lambda xp, x: xp.nansum(x, dtype=np.float32), sample(np.float64, (5,)))


@pytest.mark.parametrize("name", ["sum", "prod", "max", "min", "mean"])
def test_where_masks_and_initial_values(name: str) -> None:
    """`where=` as NumPy's identity (sum, prod) or `initial=` (max, min, which need one) in
    the masked-out places; mean over the mask's count; `initial=` folded into the result."""
    for dt in (np.int32, np.float32, np.float64, np.bool_):
        x = sample(dt, (3, 4), 2)
        mask = sample(np.float64, (3, 4), 3) > 0
        if name == "mean":
            # No slice left empty: there NumPy warns 'Mean of empty slice', and the graph
            # reruns the frame with NumPy (`tests/test_probes_layouts_flags.py`).
            mask[0, :] = mask[:, 0] = True
        fn = lambda xp, x, m, **kw: getattr(xp, name)(x, **kw)  # noqa: E731
        extra = {} if name == "mean" else {"initial": 3}
        for axis in (None, 0, 1, (0, 1)):
            check(lambda xp, x, m, a=axis: fn(xp, x, m, axis=a, where=m, **extra), x, mask)
            check(lambda xp, x, m, a=axis: fn(xp, x, m, axis=a, where=m[0], keepdims=True,
                                              **extra), x, mask)
            if name != "mean":
                check(lambda xp, x, m, a=axis: fn(xp, x, m, axis=a, initial=-2), x, mask)
        check(lambda xp, x, m: getattr(x, name)(where=m[:, :1], **extra), x, mask)
        check(lambda xp, x, m: fn(xp, x, m, where=m), x, mask)  # max, min: NumPy's ValueError


def test_numpys_no_value_defaults_passed_on() -> None:
    """NumPy's Python functions pass their `np._NoValue` defaults to the reductions they call
    (np.nanmean: `keepdims=np._NoValue`, `where=np._NoValue`): the defaults they stand for."""
    x = sample(np.float64, (3, 4), 4)
    for name in ("sum", "prod", "max", "min", "mean"):
        check(lambda xp, x, n=name: getattr(xp, n)(x, axis=0, keepdims=np._NoValue,
                                                   where=np._NoValue), x)
