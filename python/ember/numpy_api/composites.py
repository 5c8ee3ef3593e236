"""NumPy functions computed from ops ember has, each written as NumPy defines it: `np.divmod`
(floor division and remainder, warning as divmod), `np.modf`, `np.ldexp` (exact, in three steps
where the power of two alone would overflow or underflow), `np.logaddexp2`, `np.i0` (NumPy's
two Chebyshev series, chosen per element), `np.isin` (comparisons with each test element, or
a search in them sorted) and `np.corrcoef` (np.cov's products, scaled as NumPy scales them)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ember.errors import Unsupported
from ember.graph import Graph, Value
from ember.graph.dtypes import check_supported
from ember.numpy_api.convert import any_value, rerun_unless, to_value
from ember.numpy_api.elementwise import BINARY_OPERATORS, apply
from ember.numpy_api.indexing import getitem
from ember.numpy_api.shape_ops import array_arg, reshape_value
from ember.quiet import quiet


def _no_keywords(what: str, kwargs: dict[str, object]) -> None:
    if any(v is not None for v in kwargs.values()):
        raise Unsupported(f"{what} with out= or ufunc keywords")


def _loop_dtypes(fn: np.ufunc, args: list[object]) -> list[np.dtype]:
    """The dtypes of `fn`'s results for these operands, from a dry run on empty stand-ins,
    so that NumPy itself raises for operands it has no loop for."""
    stand_ins = [np.empty(0, a.dtype) if isinstance(a, Value) and not a.weak else
                 (a.dtype.type(0).item() if isinstance(a, Value) else a) for a in args]
    with quiet():
        results = fn(*stand_ins)
    results = results if isinstance(results, tuple) else (results,)
    return [check_supported(np.asarray(r).dtype, f"np.{fn.__name__}") for r in results]


def _cast(graph: Graph, v: Value, dtype: np.dtype) -> Value:
    return v if v.dtype == dtype else graph.op("astype", [v], dtype=dtype, weak=False)


def divmod_(graph: Graph, x1: object, x2: object, /, out: object = None,
            **kwargs: object) -> Any:
    """np.divmod: `(x1 // x2, x1 % x2)`, its floating-point warnings naming divmod."""
    _no_keywords("np.divmod", {"out": out, **kwargs})
    if not any_value([x1, x2]):
        return np.divmod(x1, x2)
    results = []
    with graph.one_call():  # NumPy's one loop warns once per category
        for op in ("floordiv", "mod"):
            result = apply(graph, op, [x1, x2], operator=False)
            graph.warns_as(result, "divmod")
            results.append(result)
    return tuple(results)


def modf(graph: Graph, x: object, /, out: object = None, **kwargs: object) -> Any:
    """np.modf: the fractional part with the sign of `x` (zero for infinities) and the
    integral part, `trunc(x)`, in the float dtype of NumPy's loop."""
    _no_keywords("np.modf", {"out": out, **kwargs})
    if not any_value([x]):
        return np.modf(x)
    v = to_value(graph, x, "np.modf")
    dtype = _loop_dtypes(np.modf, [v])[0]
    v = _cast(graph, v, dtype)
    integral = graph.op("trunc", [v])
    # An infinity's fraction is the zero of its sign: computed from a zero in its place, as
    # `inf - inf` would set the invalid flag NumPy's modf does not.
    finite = graph.op("where", [graph.op("isinf", [v]), graph.const(0.0), v])
    fraction = graph.op("copysign", [graph.op("sub", [finite, graph.op("trunc", [finite])]), v])
    return fraction, integral


def frexp(graph: Graph, x: object, /, out: object = None, **kwargs: object) -> Any:
    """np.frexp: `x = m * 2**e` with `0.5 <= |m| < 1`, `e` int32 (`m` is `x` and `e` 0 for
    zeros, infinities and NaN). `e` is `floor(log2|x|) + 1`, worked out in float64 and put
    right where `log2` rounded across a power of two; `m` is `x` scaled by `ldexp`, exact."""
    _no_keywords("np.frexp", {"out": out, **kwargs})
    if not any_value([x]):
        return np.frexp(x)
    v = to_value(graph, x, "np.frexp")
    dtype = _loop_dtypes(np.frexp, [v])[0]
    v = _cast(graph, v, dtype)
    wide = _cast(graph, v, np.dtype(np.float64))
    regular = graph.op("logical_and", [graph.op("isfinite", [wide]),
                                       graph.op("ne", [wide, graph.const(0.0)])])
    one = graph.const(1.0)
    safe = graph.op("where", [regular, wide, one])  # no flag from log2 of 0, inf or NaN
    exponent = graph.op("add", [graph.op("floor", [graph.op("log2", [graph.op("abs", [safe])])]),
                                one])
    exponent = graph.op("astype", [exponent], dtype=np.dtype(np.int64), weak=False)
    mantissa = ldexp(graph, safe, graph.op("neg", [exponent]))
    size = graph.op("abs", [mantissa])
    for beyond, scale, step in ((graph.op("ge", [size, one]), 0.5, 1),
                                (graph.op("lt", [size, graph.const(0.5)]), 2.0, -1)):
        mantissa = graph.op("where", [beyond, graph.op("mul", [mantissa, graph.const(scale)]),
                                      mantissa])
        exponent = graph.op("where", [beyond, graph.op("add", [exponent, graph.const(step)]),
                                      exponent])
    mantissa = graph.op("where", [regular, _cast(graph, mantissa, dtype), v])
    exponent = graph.op("where", [regular, exponent, graph.const(0)])
    return mantissa, graph.op("astype", [exponent], dtype=np.dtype(np.int32), weak=False)


# Exponents beyond these make any float overflow, or underflow to zero, so clamping to them
# changes no result; a third of one is a power of two the dtype represents exactly.
_LDEXP_LIMITS = {np.dtype(np.float64): (1022, 2 * 1023 + 54),
                 np.dtype(np.float32): (126, 2 * 127 + 25)}


def ldexp(graph: Graph, x1: object, x2: object, /, out: object = None,
          **kwargs: object) -> Any:
    """np.ldexp: `x1 * 2**x2`, correctly rounded. A power of two within the normal range is
    one exact product. Beyond it the exponent is split in three parts of at least a third
    of the normal range each: a product before the last can only round once it is
    subnormal, and then the exact result is below half the smallest subnormal, zero as
    NumPy's."""
    _no_keywords("np.ldexp", {"out": out, **kwargs})
    if not any_value([x1, x2]):
        return np.ldexp(x1, x2)
    x, e = (to_value(graph, a, "np.ldexp") for a in (x1, x2))
    dtype = _loop_dtypes(np.ldexp, [x, e])[0]
    x = _cast(graph, x, dtype)
    normal, limit = _LDEXP_LIMITS[dtype]
    e = graph.op("astype", [e], dtype=np.dtype(np.int64), weak=e.weak)
    e = graph.op("minimum", [graph.op("maximum", [e, graph.const(-limit)]),
                             graph.const(limit)])
    within = graph.op("le", [graph.op("abs", [e]), graph.const(normal)])
    first = graph.op("where", [within, e, graph.op("floordiv", [e, graph.const(3)])])
    rest = graph.op("sub", [e, first])
    second = graph.op("floordiv", [rest, graph.const(2)])
    result = x
    with graph.one_call():  # NumPy's one loop warns once per category
        for part in (first, second, graph.op("sub", [rest, second])):
            power = graph.op("exp2", [graph.op("astype", [part], dtype=dtype, weak=False)])
            result = graph.op("mul", [result, power])
            graph.warns_as(result, "ldexp")
    return result


_LOG2E = 1.442695040888963407359924681001892137  # NumPy's NPY_LOG2E


def logaddexp2(graph: Graph, x1: object, x2: object, /, out: object = None,
               **kwargs: object) -> Any:
    """np.logaddexp2 as NumPy's `npy_logaddexp2`: equal operands give `x + 1`, otherwise the
    larger plus `log2(1 + 2**-|x1 - x2|)`. NumPy warns of an invalid value for every NaN
    operand: the graph then raises and NumPy runs the frame with its warning."""
    _no_keywords("np.logaddexp2", {"out": out, **kwargs})
    if not any_value([x1, x2]):
        return np.logaddexp2(x1, x2)
    a, b = (to_value(graph, v, "np.logaddexp2") for v in (x1, x2))
    dtype = _loop_dtypes(np.logaddexp2, [a, b])[0]
    a, b = (_cast(graph, v, dtype) for v in (a, b))
    either = graph.op("logical_or", [graph.op("isnan", [a]), graph.op("isnan", [b])])
    rerun_unless(graph, graph.op("logical_not", [graph.op("any", [either], axis=None,
                                                          keepdims=False)]))
    equal = graph.op("eq", [a, b])
    # Equal infinities take the `x + 1` path; their difference would set the invalid flag.
    tmp = graph.op("sub", [graph.op("where", [equal, graph.const(0.0), v]) for v in (a, b)])
    larger = graph.op("where", [graph.op("gt", [tmp, graph.const(0.0)]), a, b])
    log2_1p = graph.op("mul", [graph.op("log1p", [graph.op("exp2", [graph.op(
        "neg", [graph.op("abs", [tmp])])])]), graph.const(_LOG2E)])
    spread = graph.op("add", [larger, log2_1p])
    same = graph.op("add", [a, graph.const(1.0)])
    return graph.op("where", [equal, same, spread])


def _arith(graph: Graph, op: str, a: object, b: object) -> Any:
    """`a <op> b` as NumPy's Python code computes it on arrays (a 0-d one included: its
    warnings name the ufunc, not scalar math)."""
    return apply(graph, BINARY_OPERATORS[op], [a, b], operator=False)


def _chebyshev(graph: Graph, x: Value, coefficients: list[float]) -> Value:
    """NumPy's `_chbevl`: Clenshaw's recurrence over the coefficients."""
    b0: Any = coefficients[0]
    b1: Any = 0.0
    b2: Any = 0.0
    for c in coefficients[1:]:
        b2, b1 = b1, b0
        b0 = _arith(graph, "+", _arith(graph, "-", _arith(graph, "*", x, b1), b2), c)
    return _arith(graph, "*", _arith(graph, "-", b0, b2), 0.5)


def i0(graph: Graph, x: object) -> Any:
    """np.i0: NumPy's series for |x| <= 8 and its series in 32/|x| above, each computed on
    stand-ins where the other applies, so neither sets a flag NumPy's does not."""
    from numpy.lib import _function_base_impl as impl

    v = array_arg(graph, x, "np.i0")
    if v.dtype.kind != "f":
        v = graph.op("astype", [v], dtype=np.dtype(np.float64), weak=False)
    v = graph.op("abs", [v], scalar=False)
    small = graph.op("le", [v, graph.const(8.0)])
    near = graph.op("where", [small, v, graph.const(0.0)])
    far = graph.op("where", [small, graph.const(16.0), v])
    near_value = _arith(graph, "*", graph.op("exp", [near]), _chebyshev(
        graph, _arith(graph, "-", _arith(graph, "/", near, 2.0), 2), impl._i0A))
    far_series = _chebyshev(graph, _arith(graph, "-", _arith(graph, "/", 32.0, far), 2.0),
                            impl._i0B)
    far_value = _arith(graph, "/", _arith(graph, "*", graph.op("exp", [far]), far_series),
                          graph.op("sqrt", [far]))
    return graph.op("where", [small, near_value, far_value], scalar=False)


# Up to this many test elements, `np.isin` compares each element with every one of them
# (NumPy's own choice for few test elements: one fused pass); beyond, up to `_SEARCHED`
# elements search the test elements sorted. More elements are NumPy's: its sort of both, or
# its table of an integer range, is faster than a search per element.
_COMPARED_TESTS = 16
_SEARCHED = 1024


def isin(graph: Graph, element: object, test_elements: object, assume_unique: object = False,
         invert: object = False, *, kind: object = None) -> Value:
    """np.isin: whether each element equals one of the test elements (NaN equals none)."""
    what = "np.isin"
    if kind not in (None, "sort", "table"):
        raise ValueError(f"Invalid kind: '{kind}'. Please use None, 'sort' or 'table'.")
    e = array_arg(graph, element, what)
    tests = reshape_value(graph, array_arg(graph, test_elements, what), (-1,))
    if kind == "table" and (e.dtype.kind not in "biu" or tests.dtype.kind not in "biu"):
        raise Unsupported("np.isin with kind='table' of non-integer arrays")
    n = tests.shape[0]
    if isinstance(n, str) or any(isinstance(d, str) for d in e.shape):
        raise Unsupported(f"{what} of arrays with symbolic dimensions")
    if n == 0:
        found = graph.full(tuple(e.shape), False, np.dtype(np.bool_))
    elif n <= _COMPARED_TESTS:
        found = None
        for i in range(n):
            equal = graph.op("eq", [e, getitem(graph, tests, i)])
            found = equal if found is None else graph.op("logical_or", [found, equal])
    elif int(np.prod(e.shape)) > _SEARCHED:
        raise Unsupported(f"{what} of more than {_SEARCHED} elements in more than "
                          f"{_COMPARED_TESTS} test elements")
    else:
        from ember.numpy_api.sorting import searchsorted

        ordered = graph.op("sort_default", [tests], axis=0)
        at = graph.op("minimum", [searchsorted(graph, ordered, e), graph.const(n - 1)])
        found = graph.op("eq", [getitem(graph, ordered, at), e])
    found = graph.op("logical_not", [found]) if invert else found
    return graph.op("copy", [found], scalar=False) if found.scalar else found


def _rows(graph: Graph, m: object, rowvar: object, dtype: np.dtype, first: bool) -> Value:
    """`np.array(m, ndmin=2, dtype=dtype)`, transposed for `rowvar=False` as np.cov
    transposes its first operand (unless 1-d) and its second (unless of one row)."""
    x = array_arg(graph, m, "np.corrcoef")
    if x.ndim > 2:
        raise ValueError("m has more than 2 dimensions" if first else
                         "y has more than 2 dimensions")
    x = x if x.dtype == dtype else graph.op("astype", [x], dtype=dtype, weak=False)
    if x.ndim < 2:
        return reshape_value(graph, x, (1, -1))
    if rowvar or (not first and x.shape[0] == 1):
        return x
    return graph.op("transpose", [x], perm=[1, 0])


def corrcoef(graph: Graph, x: object, y: object = None, rowvar: object = True, *,
             dtype: object = None) -> Any:
    """np.corrcoef as NumPy computes it: np.cov's centred rows, their products scaled by
    `1 / (n - 1)`, divided by the standard deviations along rows and then columns, and
    clipped to [-1, 1]."""
    from ember.numpy_api.linalg import diagonal, matmul
    from ember.numpy_api.reductions import mean

    operands = [x] if y is None else [x, y]
    kind = np.result_type(*[v.dtype if isinstance(v, Value) else np.asarray(v).dtype
                            for v in operands], np.float64) if dtype is None else dtype
    kind = check_supported(np.dtype(kind), "np.corrcoef")
    rows = [_rows(graph, v, rowvar, kind, i == 0) for i, v in enumerate(operands)]
    data = rows[0] if len(rows) == 1 else graph.op("concatenate", rows, axis=0)
    variables, samples = data.shape
    if isinstance(samples, str) or isinstance(variables, str):
        raise Unsupported("np.corrcoef of arrays with symbolic dimensions")
    if variables == 0 or samples - 1 <= 0:
        raise Unsupported("np.corrcoef of no variables or fewer than two samples")
    centred = graph.op("sub", [data, mean(graph, data, axis=1, keepdims=True)])
    c = matmul(graph, centred, graph.op("transpose", [centred], perm=[1, 0]))
    # `c *= np.true_divide(1, fact)`: a float64 product, cast back into c's dtype
    c = graph.op("mul", [c, graph.const(np.true_divide(1, samples - 1))])
    c = c if c.dtype == kind else graph.op("astype", [c], dtype=kind)
    if variables == 1:  # np.cov's squeeze leaves a 0-d array, which corrcoef divides by itself
        c = reshape_value(graph, c, ())
        return graph.op("div", [c, c], scalar=True)
    stddev = graph.op("sqrt", [diagonal(graph, c)])
    c = graph.op("div", [c, graph.op("expand_dims", [stddev], axis=[1])])
    c = graph.op("div", [c, graph.op("expand_dims", [stddev], axis=[0])])
    return graph.op("minimum", [graph.op("maximum", [c, graph.const(-1)]), graph.const(1)])


def functions() -> dict[Any, Any]:
    return {np.divmod: divmod_, np.modf: modf, np.frexp: frexp, np.ldexp: ldexp, np.logaddexp2: logaddexp2,
            np.i0: i0, np.isin: isin, np.corrcoef: corrcoef}
