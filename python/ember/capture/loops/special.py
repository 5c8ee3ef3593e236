"""`math.erf` and `math.erfc` of float64 graph values, composed of elementwise ops (the IR
has no error-function op): fdlibm's rational approximations, as scipy.special's
(`numpy_api/scipy_erf.py`), within an ulp or two of the C library's, with no NumPy warning
where Python's `math` gives none, and a Python float as the result."""

from __future__ import annotations

import numpy as np

from ember.graph import Graph, Value
from ember.numpy_api import scipy_erf
from ember.numpy_api.scipy_special import _ALL, _ignoring


def _weak(graph: Graph, x: Value) -> Value:
    return graph.op("astype", [x], dtype=np.float64, weak=True)


def erf(graph: Graph, x: Value) -> Value:
    with _ignoring(graph, *_ALL):
        return _weak(graph, scipy_erf.erf64(graph, x))


def erfc(graph: Graph, x: Value) -> Value:
    with _ignoring(graph, *_ALL):
        return _weak(graph, scipy_erf.erfc64(graph, x))
