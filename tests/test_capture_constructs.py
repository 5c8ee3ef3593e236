"""Python constructs inside captured functions: each either captures and matches NumPy, or
breaks with a catalogued reason that names what is unsupported."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import assert_same
from ember.capture.convert import convert
from ember.errors import Unsupported

CAPTURED = {
    "numpy_scalar_constant": lambda x: x * np.float32(1e-5),
    "astype": lambda x: x.astype(np.float32) + 1,
    "transpose_matmul": lambda x: x.T @ x,
    "newaxis": lambda x: x[:, None, :] * x[None, :, :],
    "concatenate_stack": lambda x: (np.concatenate([x, x * 2], axis=0), np.stack([x, x])),
    "finfo": lambda x: x + np.finfo(x.dtype).eps,
    "dtype_compare": lambda x: x * 2 if x.dtype == np.float64 else x,
    "isinstance": lambda x: x if isinstance(x, np.ndarray) else None,
    "shape_arithmetic": lambda x: (np.zeros(x.shape + (2,)), np.ones(x.shape[:-1])),
    "negative_index": lambda x: x[-1] + x[..., -1:].sum(),
    "python_min_max": lambda x: max(x.shape) + min(3, 4),
    "builtin_abs": lambda x: abs(x - 0.5),
    "builtin_sum": lambda x: sum([x, x, x]),
    "fstring": lambda x: (f"{x.shape[0]}-{x.dtype}", x + 1),
    "powers": lambda x: x**2 + 2**x,
    "not": lambda x: x if not x.shape[0] == 3 else -x,  # noqa: SIM201 - UNARY_NOT
    "chained_comparison": lambda x: x * (1 < x.shape[0] < 10),
    "dict_get": lambda x: {"a": x}.get("a") + {"b": 1}.get("c", 2),
    "lambda": lambda x: (lambda v: v * 2)(x),  # noqa: PLC3002 - MAKE_FUNCTION + CALL
    "map": lambda x: list(map(lambda v: v + 1, [x, x])),  # noqa: C417 - the map builtin
    "sorted": lambda x: sorted([3, 1, 2])[0] * x,  # noqa: FURB192 - the sorted builtin
    "argmax": lambda x: x.argmax(),
    "ravel_flatten": lambda x: x.ravel() + x.flatten(),
    "mean_dtype": lambda x: x.mean(dtype=np.float32),
    "empty_tuple": lambda x: (),
    "slice_object": lambda x: x[slice(1, 3)],
    "math_module": lambda x: x * math.sqrt(2) + math.floor(2.5) + math.pi,
    "iterate_rows": lambda x: [x[i] for i in range(len(x))],
    "zip_enumerate_reversed": lambda x: ([a + b for a, b in zip(x, x)],
                                         [a * i for i, a in enumerate(reversed(x))]),
    "star_args": lambda x: (lambda a, *b: a + sum(b))(*x),  # noqa: PLC3002 - *args
    "star_kwargs": lambda x: np.sum(x, **{"axis": 0}),  # noqa: PIE804 - CALL_FUNCTION_EX
    "logical_ops": lambda x: (x > 0.2) & (x < 0.8) | ~(x > 0.5),
    "static_attributes": lambda x: x.ndim + x.size + x.itemsize,
    "creation": lambda x: np.full((2, 2), 7.0) + np.eye(2) + np.arange(2),
    "var_ddof": lambda x: np.var(x, axis=0, ddof=1),
    "conditional_expression": lambda x: x if x.shape[0] > 2 else x * 2,
    "contains": lambda x: x * (3 in x.shape),
}


@pytest.mark.parametrize("name", list(CAPTURED))
def test_construct_captures_and_matches_numpy(name):
    fn = CAPTURED[name]
    x = np.random.default_rng(1).random((4, 3))
    cap = convert(fn, (x,))
    assert_same(cap.entry(fn, x), fn(x), rtol=1e-6)


async def _coroutine(x):
    return x


BREAKS = [
    (lambda x: _coroutine(x), "generator", "coroutine"),
    (lambda x: np.linalg.qr(x), "call", "numpy.linalg.qr"),
    (lambda x: np.stack(np.where(x > 0.5)), "type", "an index array of np.nonzero"),
    (lambda x: x.tobytes(), "numpy", "tobytes"),
    (lambda x: x * 1j, "complex", "complex"),
    (lambda x: x.__iadd__(1), "numpy", "__iadd__"),
    (lambda x: np.cumsum(x) if x.sum() > 0 else x, "data_dependent_branch", "branch"),
    (lambda x: {1, 2}, "bytecode", "BUILD_SET"),
]


@pytest.mark.parametrize("fn, kind, fragment", BREAKS)
def test_unsupported_construct_names_itself(fn, kind, fragment):
    x = np.ones((4, 3))
    with pytest.raises(Unsupported) as info:
        convert(fn, (x,))
    assert info.value.kind == kind
    assert fragment in info.value.reason


def test_sequence_concatenation_and_repetition():
    def f(x):
        a = [x] + [x * 2]
        t = (1,) + x.shape
        u = [x] * 2 + 3 * [x]
        return len(a), t, len(u), (x,) * 2

    x = np.ones(2)
    assert_same(convert(f, (x,)).entry(f, x), f(x))
    with pytest.raises(Unsupported, match="concatenate"):
        convert(lambda x: [x] + (x,), (x,))
