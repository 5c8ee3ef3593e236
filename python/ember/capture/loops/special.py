"""`math.erf` and `math.erfc` of float64 graph values: the core's `erf`/`erfc` ops, the C
library's functions Python's `math` calls (or fdlibm's rational approximations composed of
elementwise ops, `numpy_api/scipy_erf.py: USE_OP`), with no NumPy warning
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
        return _weak(graph, scipy_erf.erf_value(graph, x))


def erfc(graph: Graph, x: Value) -> Value:
    with _ignoring(graph, *_ALL):
        return _weak(graph, scipy_erf.erfc_value(graph, x))
