"""NumPy's own inner loops for the transcendental functions of compiled kernels.

Cranelift's x86-64 vectors are 128 bits wide: a kernel's own `tanh` computes 4 float32 lanes
at a time, and `arcsin`, `sinh`, `log10`... one, through libm. NumPy's loops for these
ufuncs run 8 or 16 lanes (AVX2, AVX-512), 2 to 50 times faster per element. `register()`
reads, from each ufunc object, the address of the loop NumPy runs for float32 and float64
and hands it to `_core.set_ufunc_loop`; kernels then compute such an op on long rows block by
block through that loop (rust/codegen/src/ufunc.rs), with NumPy's values bit for bit.

The loop table is read through the public C struct `PyUFuncObject` (numpy/ufuncobject.h:
`nin, nout, nargs, identity` ints, then the `functions`, `data`, `ntypes`, `name` and `types`
fields). Every
field read is checked against what the ufunc says of itself in Python (`nin`, `nout`,
`ntypes`, `types`) before any address is used; a mismatch registers nothing.
"""

from __future__ import annotations

import ctypes

import numpy as np

from ember import _core

# The ops NumPy's loops run faster than a kernel's own code, as IR names. float64 `sin` and
# `cos` are left out: NumPy computes them with scalar libm (for accuracy), slower than the
# kernels' vectorised polynomials.
_OPS = ("exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "tanh", "sinh", "cosh",
        "arcsinh", "arccosh", "arctanh", "tan", "arcsin", "arccos", "arctan", "cbrt",
        "sin", "cos")
_SCALAR_IN_NUMPY = {("sin", "f64"), ("cos", "f64")}
# Ops of two operands, as (IR name, NumPy name): `x ** y` and `x ** 2.5` go through libm's
# `pow` one element at a time in a kernel's own code (0.1x NumPy), `arctan2` through a
# 128-bit polynomial (0.2x).
_BINARY = (("pow", "power"), ("arctan2", "arctan2"), ("logaddexp", "logaddexp"))
# Float max/min reductions over long rows: NumPy's `maximum`/`minimum` loops reduce 16 lanes
# at a time where the kernels' own code, tracking NaNs in 128-bit vectors, ran at 0.2x.
# Elementwise `maximum`/`minimum` stay the kernels' own (as fast, and fused).
_REDUCTIONS = (("reduce_max", "maximum"), ("reduce_min", "minimum"))
_DTYPES = {"f32": np.float32, "f64": np.float64}


class _UFunc(ctypes.Structure):
    """The head of NumPy's `PyUFuncObject`, up to the type table."""

    _fields_ = [
        ("ob_refcnt", ctypes.c_ssize_t),
        ("ob_type", ctypes.c_void_p),
        ("nin", ctypes.c_int),
        ("nout", ctypes.c_int),
        ("nargs", ctypes.c_int),
        ("identity", ctypes.c_int),
        ("functions", ctypes.POINTER(ctypes.c_void_p)),
        ("data", ctypes.POINTER(ctypes.c_void_p)),
        ("ntypes", ctypes.c_int),
        ("reserved1", ctypes.c_int),
        ("name", ctypes.c_char_p),
        ("types", ctypes.POINTER(ctypes.c_char)),
    ]


def loop_of(ufunc: np.ufunc, dtype: type) -> tuple[int, int] | None:
    """The address of `ufunc`'s loop over `dtype` operands giving `dtype` and its data entry,
    or None where the struct does not read back as the ufunc describes itself."""
    head = _UFunc.from_address(id(ufunc))
    nin, nargs = ufunc.nin, ufunc.nin + 1
    if (head.nin, head.nout, head.nargs, head.ntypes) != (nin, 1, nargs, ufunc.ntypes) or \
            head.name != ufunc.__name__.encode():
        return None
    for i, signature in enumerate(ufunc.types):
        nums = [np.dtype(c).num for c in signature.replace("->", "")]
        if [ord(head.types[nargs * i + k]) for k in range(nargs)] != nums:
            return None
    char = np.dtype(dtype).char
    try:
        index = ufunc.types.index(f"{char * nin}->{char}")
    except ValueError:
        return None
    func = head.functions[index]
    data = head.data[index] if head.data else None
    return (func, data or 0) if func else None


def register() -> list[tuple[str, str]]:
    """Registers NumPy's loops with the native backend; returns the (op, dtype) pairs."""
    done = []
    for op, numpy_name in [(op, op) for op in _OPS] + list(_BINARY) + list(_REDUCTIONS):
        ufunc = getattr(np, numpy_name)
        for name, dtype in _DTYPES.items():
            if (op, name) in _SCALAR_IN_NUMPY:
                continue
            found = loop_of(ufunc, dtype)
            if found is not None and _core.set_ufunc_loop(op, name, *found):
                done.append((op, name))
    return done


def unregister() -> None:
    """Every op back to the kernels' own code (for comparing the two paths)."""
    for op in _OPS + tuple(op for op, _ in _BINARY + _REDUCTIONS):
        for name in _DTYPES:
            _core.set_ufunc_loop(op, name, 0, 0)
