"""scipy.special's `erf` and `erfc`: the core's `erf`/`erfc` ops (the C library's functions,
`USE_OP`), or composed of elementwise ops, within an ulp or two of the C library's and
scipy's, and differentiable through them.

The pieces are fdlibm's (Sun Microsystems' freely distributable `s_erf.c`), its rational
approximations on four ranges of `a = |x|`:

    a < 0.84375          erf  = x + x R(x^2)                 (erfc from it: 0.5 - (x - 0.5 + x R))
    0.84375 <= a < 1.25  erf  = sign(x) (erx + P(a - 1) / Q(a - 1))
    1.25 <= a < 28       erfc = exp(-z^2 - 0.5625) exp((z - a)(z + a) + R(1/a^2) / S(1/a^2)) / a
    a >= 28              erf  = sign(x), erfc = 0 or 2

with `z` the float32 rounding of `a` (so `z^2` is exact in float64). All pieces are computed
and one is selected, each on an argument clamped into its own range, so that none overflows
or warns. Both functions compute in float64: float32 arguments get float32 results (scipy's
`f->f` loops round the float64 result), other dtypes float64."""

from __future__ import annotations

from typing import Any

import numpy as np

from ember.errors import Unsupported
from ember.graph import Graph, Value
from ember.numpy_api.convert import as_array, as_numpy_scalar, to_value
from ember.numpy_api.scipy_special import _ALL, _ignoring

# Coefficients, the highest power first (the last is the constant term).
_ERX = 8.45062911510467529297e-01
_PP = [-2.37630166566501626084e-05, -5.77027029648944159157e-03, -2.84817495755985104766e-02,
       -3.25042107247001499370e-01, 1.28379167095512558561e-01]
_QQ = [-3.96022827877536812320e-06, 1.32494738004321644526e-04, 5.08130628187576562776e-03,
       6.50222499887672944485e-02, 3.97917223959155352819e-01, 1.0]
_PA = [-2.16637559486879084300e-03, 3.54783043256182359371e-02, -1.10894694282396677476e-01,
       3.18346619901161753674e-01, -3.72207876035701323847e-01, 4.14856118683748331666e-01,
       -2.36211856075265944077e-03]
_QA = [1.19844998467991074170e-02, 1.36370839120290507362e-02, 1.26171219808761642112e-01,
       7.18286544141962662868e-02, 5.40397917702171048937e-01, 1.06420880400844228286e-01,
       1.0]
_RA = [-9.81432934416914548592e+00, -8.12874355063065934246e+01, -1.84605092906711035994e+02,
       -1.62396669462573470355e+02, -6.23753324503260060396e+01, -1.05586262253232909814e+01,
       -6.93858572707181764372e-01, -9.86494403484714822705e-03]
_SA = [-6.04244152148580987438e-02, 6.57024977031928170135e+00, 1.08635005541779435134e+02,
       4.29008140027567833386e+02, 6.45387271733267880336e+02, 4.34565877475229228821e+02,
       1.37657754143519042600e+02, 1.96512716674392571292e+01, 1.0]
_RB = [-4.83519191608651397019e+02, -1.02509513161107724954e+03, -6.37566443368389627722e+02,
       -1.60636384855821916062e+02, -1.77579549177547519889e+01, -7.99283237680523006574e-01,
       -9.86494292470009928597e-03]
_SB = [-2.24409524465858183362e+01, 4.74528541206955367215e+02, 2.55305040643316442583e+03,
       3.19985821950859553908e+03, 1.53672958608443695994e+03, 3.25792512996573918826e+02,
       3.03380607434824582924e+01, 1.0]

_F64 = np.dtype(np.float64)


class _Ops:
    """Short names for the graph's elementwise ops on float64 values."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph

    def __getattr__(self, name: str) -> Any:
        graph = self.graph
        return lambda *inputs: graph.op(name, [self.value(i) for i in inputs])

    def value(self, v: Value | float) -> Value:
        return v if isinstance(v, Value) else self.graph.const(float(v))

    def poly(self, s: Value, coeffs: list[float]) -> Value:
        acc = self.value(coeffs[0])
        for k in coeffs[1:]:
            acc = self.add(self.mul(acc, s), k)
        return acc


def _pieces(graph: Graph, x: Value) -> dict[str, Value]:
    """The selectors and the values of each range, for float64 `x`."""
    o = _Ops(graph)
    a = o.abs(x)
    small = o.lt(a, 0.84375)
    mid = o.lt(a, 1.25)
    xs = o.where(small, x, 0.0)
    y = o.div(o.poly(o.mul(xs, xs), _PP), o.poly(o.mul(xs, xs), _QQ))
    erf_small = o.add(xs, o.mul(xs, y))
    erfc_small = o.where(o.lt(x, 0.25), o.sub(1.0, erf_small),
                         o.sub(0.5, o.add(o.sub(xs, 0.5), o.mul(xs, y))))
    s = o.sub(o.where(mid, a, 1.0), 1.0)
    pq = o.div(o.poly(s, _PA), o.poly(s, _QA))
    at = o.where(o.logical_and(o.ge(a, 1.25), o.lt(a, 28.0)), a, 2.0)
    t = o.div(1.0, o.mul(at, at))
    rs = o.where(o.lt(at, 1 / 0.35), o.div(o.poly(t, _RA), o.poly(t, _SA)),
                 o.div(o.poly(t, _RB), o.poly(t, _SB)))
    z = graph.op("astype", [graph.op("astype", [at], dtype=np.dtype(np.float32), weak=False)],
                 dtype=_F64, weak=False)
    head = o.exp(o.sub(o.neg(o.mul(z, z)), 0.5625))
    q = o.div(o.mul(head, o.exp(o.add(o.mul(o.sub(z, at), o.add(z, at)), rs))), at)
    return {"a": a, "small": small, "mid": mid, "erf_small": erf_small,
            "erfc_small": erfc_small, "pq": pq, "q": q}


def erf64(graph: Graph, x: Value) -> Value:
    o, p = _Ops(graph), _pieces(graph, x)
    mid = o.copysign(o.add(_ERX, p["pq"]), x)
    # fdlibm stops at 6, past which 1 - q rounds to 1; going on to 28 keeps its slope.
    tail = o.where(o.lt(p["a"], 28.0), o.copysign(o.sub(1.0, p["q"]), x), o.copysign(1.0, x))
    out = o.where(p["small"], p["erf_small"], o.where(p["mid"], mid, tail))
    return o.where(o.isnan(x), x, out)


def erfc64(graph: Graph, x: Value) -> Value:
    o, p = _Ops(graph), _pieces(graph, x)
    positive = o.ge(x, 0.0)
    mid = o.where(positive, o.sub(1.0 - _ERX, p["pq"]), o.add(1.0, o.add(_ERX, p["pq"])))
    far = o.where(positive, 0.0, 2.0)
    tail = o.where(o.lt(p["a"], 28.0), o.where(positive, p["q"], o.sub(2.0, p["q"])), far)
    out = o.where(p["small"], p["erfc_small"], o.where(p["mid"], mid, tail))
    return o.where(o.isnan(x), x, out)


def _op(name: str) -> Any:
    """The core's own op (`erf`, `erfc`: the C library's function of a double), for float64
    `x`."""
    return lambda graph, x: graph.op(name, [x])


# Which form scipy.special's functions and `math.erf`/`erfc` take: the core's op (the C
# library's function, within an ulp, 3-6x faster than the composite over a large array) or
# the composite of elementwise ops above (`benches/transcendental.py --erf` compares them).
USE_OP = True


def erf_value(graph: Graph, x: Value) -> Value:
    return _op("erf")(graph, x) if USE_OP else erf64(graph, x)


def erfc_value(graph: Graph, x: Value) -> Value:
    return _op("erfc")(graph, x) if USE_OP else erfc64(graph, x)


def _ufunc(name: str, compute: Any) -> Any:
    what = f"scipy.special.{name}"

    def handler(graph: Graph, x: object, out: object = None, **kwargs: object) -> Any:
        if out is not None or kwargs:
            raise Unsupported(f"{what} with out= or other ufunc arguments")
        value = to_value(graph, x, what)
        if value.dtype.kind not in "biuf":
            raise Unsupported(f"{what} of {value.dtype}")
        v = as_array(graph, value)
        with _ignoring(graph, *_ALL):
            if USE_OP and v.dtype == np.float32:
                # The op's float32 loop computes in float64 and rounds, as scipy's `f->f`.
                return _result(graph, value, graph.op(name, [v]))
            x64 = v if v.dtype == _F64 else graph.op("astype", [v], dtype=_F64, weak=False)
            result = compute(graph, x64)
        if v.dtype == np.float32:
            result = graph.op("astype", [result], dtype=v.dtype, weak=False)
        return _result(graph, value, result)

    return handler


def _result(graph: Graph, value: Value, result: Value) -> Any:
    return as_numpy_scalar(graph, result) if value.ndim == 0 else result


erf = _ufunc("erf", erf_value)
erfc = _ufunc("erfc", erfc_value)
NAMES = {"erf": erf, "erfc": erfc}
