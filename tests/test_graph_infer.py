"""Graph.op's type inference against NumPy's actual results, op by op, dtype pair by pair."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from ember.errors import Unsupported
from ember.graph import OPS, Graph
from ember.graph.dtypes import SUPPORTED

WEAK_SAMPLES = {bool: True, int: 3, float: 2.5}
ELEMENTWISE = sorted(n for n, op in OPS.items() if op.kind == "elementwise" and op.numpy
                     is not None and n != "where")


def operand(g: Graph, kind: object, shape: tuple[int, ...]) -> tuple[object, object]:
    """A graph value and the NumPy object it stands for: an array, or a Python scalar."""
    if isinstance(kind, np.dtype):
        return g.add_input(kind, shape), np.ones(shape, kind)
    sample = WEAK_SAMPLES[kind]  # type: ignore[index]
    return g.const(sample), sample


KINDS: list[object] = [*SUPPORTED, bool, int, float]


def numpy_result(fn: object, args: list[object]) -> np.ndarray | Exception:
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.asarray(fn(*args))  # type: ignore[operator]
    except Exception as exc:  # noqa: BLE001 -- the graph must raise the same
        return exc


@pytest.mark.parametrize("name", ELEMENTWISE)
def test_elementwise_dtype_and_shape_match_numpy(name: str) -> None:
    opdef = OPS[name]
    for kinds in itertools.product(KINDS, repeat=opdef.arity or 1):
        g = Graph()
        shapes = [(2, 3), (3,), (1, 3)]
        pairs = [operand(g, k, shapes[i]) for i, k in enumerate(kinds)]
        expected = numpy_result(opdef.numpy, [p[1] for p in pairs])
        if isinstance(expected, Exception):
            with pytest.raises(type(expected)):
                g.op(name, [p[0] for p in pairs])  # type: ignore[misc]
            continue
        if expected.dtype not in SUPPORTED:
            with pytest.raises(Unsupported, match=f"gives dtype {expected.dtype}"):
                g.op(name, [p[0] for p in pairs])  # type: ignore[misc]
            continue
        out = g.op(name, [p[0] for p in pairs])  # type: ignore[misc]
        assert (out.dtype, out.shape) == (expected.dtype, expected.shape), (name, kinds)
        all_weak = all(not isinstance(k, np.dtype) for k in kinds) and out.dtype in (
            np.bool_, np.int64, np.float64)
        assert out.weak == all_weak
        assert out.scalar == (not out.shape and not all_weak)


@pytest.mark.parametrize("name", ["sum", "prod", "max", "min", "mean", "any", "all", "argmax",
                                  "argmin"])
def test_reduction_dtypes_match_numpy(name: str) -> None:
    fn = OPS[name].numpy
    for dt in SUPPORTED:
        x = np.ones((2, 3, 4), dt)
        g = Graph()
        v = g.add_input(dt, x.shape)
        if OPS[name].attrs[0][1] == "axis":
            cases = [(None, False), (1, True), (-1, False)]
        else:
            cases = [(None, False), ([0, 2], True), ([1], False), ([], False)]
        for axis, keepdims in cases:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ax = tuple(axis) if isinstance(axis, list) else axis
                expected = np.asarray(fn(x, axis=ax, keepdims=keepdims))  # type: ignore[misc]
            out = g.op(name, [v], axis=axis, keepdims=keepdims)
            assert (out.dtype, out.shape) == (expected.dtype, expected.shape), (name, dt, axis)


def test_where_dtypes_match_numpy() -> None:
    for x, y in itertools.product(KINDS, repeat=2):
        g = Graph()
        c = g.add_input(np.bool_, (3,))
        (vx, nx), (vy, ny) = operand(g, x, (2, 3)), operand(g, y, (1,))
        expected = np.where(np.ones(3, bool), nx, ny)
        out = g.op("where", [c, vx, vy])  # type: ignore[list-item]
        assert (out.dtype, out.shape, out.weak, out.scalar) == (
            expected.dtype, expected.shape, False, False)


def test_matmul_and_concatenate_dtypes_match_numpy() -> None:
    for a, b in itertools.product(SUPPORTED, repeat=2):
        g = Graph()
        x, y = g.add_input(a, (2, 3)), g.add_input(b, (3,))
        assert g.op("matmul", [x, y]).dtype == np.matmul(np.ones((2, 3), a), np.ones(3, b)).dtype
        z = g.add_input(b, (2, 3))
        assert g.op("concatenate", [x, z], axis=-1).dtype == np.concatenate(
            [np.ones((2, 3), a), np.ones((2, 3), b)], axis=-1).dtype


def test_weak_results_only_from_weak_operands() -> None:
    g = Graph()
    a, b = g.const(2), g.const(0.5)
    s = g.op("mul", [a, b])
    assert (s.dtype, s.weak, s.scalar, s.type_str) == (np.float64, True, False, "f64[] weak")
    t = g.op("mul", [a, b], weak=False, scalar=True)  # np.multiply(2, 0.5): a NumPy scalar
    assert (t.weak, t.scalar) == (False, True)
    with pytest.raises(ValueError, match="weak result"):
        g.op("add", [g.add_input(np.float32, (2,)), a], weak=True)
