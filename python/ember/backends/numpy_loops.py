"""NumPy's own inner loops for the transcendental functions of compiled kernels, and its
own sort functions for compiled sorts.

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

`np.sort`/`np.argsort` of numeric dtypes run the `sort`/`argsort` entries of the dtype's
`PyArray_ArrFuncs` (the x86-simd-sort AVX-512/AVX2 quicksorts, timsort, radix sort).
`register_sorts()` reads them through `PyDataType_GetArrFuncs` (entry 365 of NumPy's C-API
table, numpy/__multiarray_api.h) and registers each with `_core.set_sort_loop` only after
calling it from here on lines with ties, NaNs and zeros of both signs and finding NumPy's own
result, bit for bit; a dtype or kind that does not check out keeps ember's own (stable) sort
(rust/codegen/src/sort.rs).
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
# Predicates of floats, as (IR name, NumPy name): their loops write bools, so a kernel runs
# them only as the value a map stores to a bool array, straight into it; NumPy's AVX-512
# compares are quiet on NaN, where 128-bit `cmpps` orderings need the operands' NaN lanes
# zeroed first (x > 0 ran at 0.4x with the masks packed to bytes).
_PREDICATES = (("eq", "equal"), ("ne", "not_equal"), ("lt", "less"), ("le", "less_equal"),
               ("gt", "greater"), ("ge", "greater_equal"), ("isnan", "isnan"),
               ("isinf", "isinf"), ("isfinite", "isfinite"), ("signbit", "signbit"))
# Arg reductions over long rows: each dtype's own `argmax`/`argmin` function (SIMD in NumPy 2),
# where the kernels' own loop, one element at a time, ran at 0.02-0.1x. Their positions among
# the pointer-sized fields of `PyArray_ArrFuncs` (numpy/ndarraytypes.h: `cast[21]`, then
# `getitem` ...), which NumPy 2 hands out through `_PyDataType_GetArrFuncs`, entry 365 of its
# C API table.
_ARG_FIELDS = {"argmax": 26, "argmin": 46}
_GET_ARR_FUNCS = 365
_ARG_DTYPES = {**_DTYPES, "i32": np.int32, "i64": np.int64}
_ARG_FUNC = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_ssize_t,
                             ctypes.POINTER(ctypes.c_ssize_t), ctypes.c_void_p)


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


def loop_of(ufunc: np.ufunc, dtype: type, out: str | None = None) -> tuple[int, int] | None:
    """The address of `ufunc`'s loop over `dtype` operands giving `dtype` (or the type code
    `out`) and its data entry, or None where the struct does not read back as the ufunc
    describes itself."""
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
        index = ufunc.types.index(f"{char * nin}->{out or char}")
    except ValueError:
        return None
    func = head.functions[index]
    data = head.data[index] if head.data else None
    return (func, data or 0) if func else None


def _arr_funcs(dtype: type) -> int | None:
    """The address of `dtype`'s `PyArray_ArrFuncs` (NumPy 2's `_PyDataType_GetArrFuncs`,
    entry 365 of its C API table), or None where NumPy has no such table."""
    capsule = getattr(getattr(np, "_core", None), "_multiarray_umath", None)
    capsule = getattr(capsule, "_ARRAY_API", None)
    if capsule is None or int(np.__version__.split(".")[0]) < 2:
        return None
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype, get_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    try:
        table = get_pointer(capsule, None)
    except ValueError:
        return None
    getter = ctypes.c_void_p.from_address(table + _GET_ARR_FUNCS * ctypes.sizeof(ctypes.c_void_p))
    if not getter.value:
        return None
    funcs = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p)(getter.value)(id(np.dtype(dtype)))
    return funcs or None


def arg_function(name: str, dtype: type) -> int | None:
    """The address of `dtype`'s `argmax` or `argmin` function (`PyArray_ArgFunc`), or None
    where NumPy has no such table or the function does not answer probes as `np.argmax` /
    `np.argmin` do (first extreme, first NaN)."""
    funcs = _arr_funcs(dtype)
    if funcs is None:
        return None
    field = funcs + _ARG_FIELDS[name] * ctypes.sizeof(ctypes.c_void_p)
    address = ctypes.c_void_p.from_address(field).value
    return address if address and _answers_probes(address, name, dtype) else None


def _answers_probes(address: int, name: str, dtype: type) -> bool:
    """Whether the function at `address` gives `np.argmax`'s (`np.argmin`'s) answer on a few
    arrays: ties, both ends, NaNs (the first wins), long enough for its vector loops."""
    rng = np.random.default_rng(0)
    probes = [np.array([3, 7, 7, 1, 1, 7, 0]), np.arange(300)[::-1], rng.integers(-9, 9, 1000)]
    if np.dtype(dtype).kind == "f":
        spiked = rng.standard_normal(500)
        spiked[[40, 300]] = np.nan
        probes += [np.array([1.0, np.nan, 5.0, np.nan]), spiked, -np.zeros(70)]
    fn, want = _ARG_FUNC(address), getattr(np, name)
    for probe in probes:
        x = np.ascontiguousarray(probe, dtype=dtype)
        index = ctypes.c_ssize_t(-1)
        fn(x.ctypes.data, x.size, ctypes.byref(index), None)
        if index.value != want(x):
            return False
    return True


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
    for op, numpy_name in _PREDICATES:
        for name, dtype in _DTYPES.items():
            found = loop_of(getattr(np, numpy_name), dtype, out="?")
            if found is not None and _core.set_ufunc_loop(op, name, *found):
                done.append((op, name))
    for op in _ARG_FIELDS:
        for name, dtype in _ARG_DTYPES.items():
            address = arg_function(op, dtype)
            if address is not None and _core.set_ufunc_loop(op, name, address, 0):
                done.append((op, name))
    return done


def unregister() -> None:
    """Every op back to the kernels' own code (for comparing the two paths)."""
    for op in _OPS + tuple(op for op, _ in _BINARY + _REDUCTIONS + _PREDICATES):
        for name in _DTYPES:
            _core.set_ufunc_loop(op, name, 0, 0)
    for op in _ARG_FIELDS:
        for name in _ARG_DTYPES:
            _core.set_ufunc_loop(op, name, 0, 0)


# `PyArray_ArrFuncs` (numpy/ndarraytypes.h), in pointers: `cast[NPY_NTYPES_ABI_COMPATIBLE]`
# (21), then getitem, setitem, copyswapn, copyswap, compare, argmax, dotfunc, scanfunc,
# fromstr, nonzero, fill, fillwithscalar, `sort[NPY_NSORTS]`, `argsort[NPY_NSORTS]`.
_SORT_AT = 21 + 12
_NSORTS = 3
# The `sort[]` entry of each kind ember compiles: NPY_QUICKSORT (the default; NumPy 2.4 runs
# "heapsort" as it too) and NPY_STABLESORT.
_KIND_ENTRY = {False: 0, True: 2}
_SORT_DTYPES = {"bool": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32,
                "i64": np.int64, "u8": np.uint8, "u16": np.uint16, "u32": np.uint32,
                "u64": np.uint64, "f32": np.float32, "f64": np.float64}
_SortFunc = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_ssize_t, ctypes.c_void_p)
_ArgSortFunc = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p,
                                ctypes.c_ssize_t, ctypes.c_void_p)


def _arrfuncs_sorts(dtype: np.dtype) -> list[int] | None:
    """The addresses in the dtype's `sort[]` then `argsort[]` tables, or None where NumPy's
    C-API table cannot be read."""
    funcs = _arr_funcs(dtype)
    if funcs is None:
        return None
    entries = (ctypes.c_void_p * (2 * _NSORTS)).from_address(funcs + 8 * _SORT_AT)
    return [e or 0 for e in entries]


def _probes(dtype: np.dtype) -> list[np.ndarray]:
    """Lines that tell sorts apart: few distinct values (ties), and for floats NaNs of both
    signs and zeros of both signs, short (sorting networks) and long (SIMD partitions)."""
    rng = np.random.default_rng(0)
    lines = []
    for n in (0, 2, 16, 33, 300, 1100):
        line = rng.integers(0, 5, n).astype(dtype)
        if dtype.kind == "f":
            line[rng.random(n) < 0.1] = np.nan
            line[rng.random(n) < 0.1] = -np.nan
            line[rng.random(n) < 0.2] = -0.0
        lines.append(line)
    return lines


def _sorts_like_numpy(func: int, dtype: np.dtype, positions: bool, stable: bool) -> bool:
    """Whether `func` gives `np.sort`'s (`np.argsort`'s) result on every probe, bit for bit."""
    kind = "stable" if stable else "quicksort"
    bits = np.dtype(f"u{dtype.itemsize}")
    for line in _probes(dtype):
        if positions:
            order = np.arange(line.size, dtype=np.intp)
            status = _ArgSortFunc(func)(line.ctypes.data, order.ctypes.data, line.size, None)
            ok = np.array_equal(order, np.argsort(line, kind=kind))
        else:
            got = line.copy()
            status = _SortFunc(func)(got.ctypes.data, got.size, None)
            ok = np.array_equal(got.view(bits), np.sort(line, kind=kind).view(bits))
        if status != 0 or not ok:
            return False
    return True


def register_sorts() -> list[tuple[str, bool, bool]]:
    """Registers NumPy's sort functions that check out; returns the (dtype, positions, stable)
    triples registered."""
    done = []
    for name, scalar in _SORT_DTYPES.items():
        dtype = np.dtype(scalar)
        entries = _arrfuncs_sorts(dtype)
        if entries is None:
            return done
        for positions in (False, True):
            for stable, entry in _KIND_ENTRY.items():
                func = entries[_NSORTS * positions + entry]
                if func and _sorts_like_numpy(func, dtype, positions, stable) and \
                        _core.set_sort_loop(name, positions, stable, func):
                    done.append((name, positions, stable))
    return done


def unregister_sorts() -> None:
    """Every compiled sort back to ember's own (for comparing the two paths)."""
    for name in _SORT_DTYPES:
        for positions in (False, True):
            for stable in _KIND_ENTRY:
                _core.set_sort_loop(name, positions, stable, 0)
