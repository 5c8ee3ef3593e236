"""`math.erf` and `math.erfc` of float64 graph values, composed of elementwise ops (the IR
has no error-function op), within a few ulps of the C library's:

    erf(x)  = 2/sqrt(pi) exp(-x^2) x sum_k (2x^2)^k / (2k+1)!!     |x| < 2.5 (positive terms)
    erfc(x) = exp(-x^2) / (sqrt(pi) (x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))))   x >= 2.5

the series in Horner form (35 terms reach 1e-16 at 2.5), the continued fraction evaluated
from its 30th term up. Both branches are computed and one is selected, each on an argument
clamped into its own range, so that neither overflows or divides by zero (no NumPy warning
where Python's `math` gives none)."""

from __future__ import annotations

import math

import numpy as np

from ember.graph import Graph, Value

_SPLIT = 2.5
_SERIES_TERMS = 35
_FRACTION_TERMS = 30
_SERIES = [1.0 / math.prod(range(1, 2 * k + 2, 2)) for k in range(_SERIES_TERMS + 1)]


def _series(graph: Graph, x: Value) -> Value:
    """erf(x) for |x| < _SPLIT."""
    c = graph.const
    x2 = graph.op("mul", [x, x])
    y = graph.op("mul", [c(2.0), x2])
    acc = c(_SERIES[-1])
    for coeff in reversed(_SERIES[:-1]):
        acc = graph.op("add", [graph.op("mul", [acc, y]), c(coeff)])
    scale = graph.op("mul", [c(2.0 / math.sqrt(math.pi)), graph.op("exp", [graph.op("neg", [x2])])])
    return graph.op("mul", [graph.op("mul", [scale, x]), acc])


def _fraction(graph: Graph, x: Value) -> Value:
    """erfc(x) for x >= _SPLIT."""
    c = graph.const
    t = x
    for k in range(_FRACTION_TERMS, 0, -1):
        t = graph.op("add", [x, graph.op("div", [c(k / 2.0), t])])
    tail = graph.op("exp", [graph.op("neg", [graph.op("mul", [x, x])])])
    return graph.op("div", [tail, graph.op("mul", [c(math.sqrt(math.pi)), t])])


def _parts(graph: Graph, x: Value) -> tuple[Value, Value, Value]:
    """(|x| < _SPLIT, erf of x clamped into the series' range, erfc of |x| clamped into the
    fraction's range)."""
    c = graph.const
    ax = graph.op("abs", [x])
    small = graph.op("lt", [ax, c(_SPLIT)])
    near = graph.op("where", [small, x, c(0.0)], scalar=True)
    far = graph.op("where", [small, c(_SPLIT), ax], scalar=True)
    return small, _series(graph, near), _fraction(graph, far)


def _weak(graph: Graph, x: Value) -> Value:
    return graph.op("astype", [x], dtype=np.float64, weak=True)


def erf(graph: Graph, x: Value) -> Value:
    small, series, tail = _parts(graph, x)
    large = graph.op("copysign", [graph.op("sub", [graph.const(1.0), tail]), x])
    return _weak(graph, graph.op("where", [small, series, large], scalar=True))


def erfc(graph: Graph, x: Value) -> Value:
    small, series, tail = _parts(graph, x)
    negative = graph.op("lt", [x, graph.const(0.0)])
    large = graph.op("where", [negative, graph.op("sub", [graph.const(2.0), tail]), tail],
                     scalar=True)
    return _weak(graph, graph.op("where", [small, graph.op("sub", [graph.const(1.0), series]),
                                           large], scalar=True))
