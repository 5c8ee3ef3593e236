"""The dtypes ember supports, their IR names, and NEP 50 weak Python scalars."""

from __future__ import annotations

import numpy as np

from ember.errors import Unsupported, complex_number
from ember.quiet import quiet

# IR name of every supported dtype, in the order docs/IR.md lists them.
IR_NAMES: dict[np.dtype, str] = {
    np.dtype(np.bool_): "bool",
    np.dtype(np.int8): "i8",
    np.dtype(np.int16): "i16",
    np.dtype(np.int32): "i32",
    np.dtype(np.int64): "i64",
    np.dtype(np.uint8): "u8",
    np.dtype(np.uint16): "u16",
    np.dtype(np.uint32): "u32",
    np.dtype(np.uint64): "u64",
    np.dtype(np.float32): "f32",
    np.dtype(np.float64): "f64",
}
FROM_IR_NAME: dict[str, np.dtype] = {name: dt for dt, name in IR_NAMES.items()}

SUPPORTED = tuple(IR_NAMES)

# The dtype a weak Python scalar has when it stands alone (NEP 50: `bool`, `int`, `float`).
WEAK_DTYPES: dict[type, np.dtype] = {
    bool: np.dtype(np.bool_),
    int: np.dtype(np.int64),
    float: np.dtype(np.float64),
}


def ir_name(dtype: np.dtype) -> str:
    return IR_NAMES[np.dtype(dtype)]


def check_supported(dtype: np.dtype, what: str) -> np.dtype:
    """Return `dtype` as an `np.dtype`, or raise Unsupported naming `what` produced it."""
    dt = np.dtype(dtype)
    if dt.kind == "c":
        raise complex_number(f"{what} of dtype {dt}")
    if dt not in IR_NAMES:
        raise Unsupported(f"{what} gives dtype {dt}, which ember does not support")
    return dt


def as_dtype(spec: object, what: str) -> np.dtype:
    """Convert a dtype-like argument (`np.float32`, `"f4"`, `float`, `np.dtype`) as NumPy does."""
    try:
        dt = np.dtype(spec)  # type: ignore[call-overload]
    except TypeError as exc:
        raise Unsupported(f"{what}: dtype {spec!r} is not understood") from exc
    return check_supported(dt, what)


def weak_python_type(dtype: np.dtype) -> type:
    """The Python type a weak value of `dtype` stands for."""
    kind = dtype.kind if isinstance(dtype, np.dtype) else np.dtype(dtype).kind
    return _WEAK_TYPES[kind]


_WEAK_TYPES = {"b": bool, "i": int, "f": float}


# A Python number of the type a dtype's elements come back as holds its value unchanged: a
# float in float64, a bool in bool, an int in int64's range (the common constants, which
# need no cast through NumPy).
_EXACT_TYPES: dict[np.dtype, type] = {WEAK_DTYPES[t]: t for t in (bool, int, float)}
_INT64 = np.iinfo(np.int64)


def python_value(value: object, dtype: np.dtype) -> bool | int | float:
    """`value` converted to `dtype` exactly as NumPy stores it in an array (np.full's unsafe
    cast: 2.7 -> 2, nan -> INT_MIN), as the plain Python number attributes hold; a Python int
    out of the dtype's range is NumPy's OverflowError."""
    kind = _EXACT_TYPES.get(dtype)
    if kind is not None and type(value) is kind and (
            kind is not int or _INT64.min <= value <= _INT64.max):  # type: ignore[operator]
        return value  # type: ignore[return-value]
    with quiet():
        return np.full((), value, dtype).item()  # type: ignore[no-any-return]


def representative(dtype: np.dtype, weak: bool) -> object:
    """A stand-in NumPy evaluates to learn a result dtype: an empty array, or for a weak
    operand a Python scalar of its kind (one, so that no evaluation divides by zero)."""
    if weak:
        return weak_python_type(dtype)(1)
    return np.empty((0,), dtype)
