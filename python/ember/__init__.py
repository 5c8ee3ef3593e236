"""ember: a just-in-time compiler for NumPy code on CPython 3.11.

    import ember

    @ember.compile
    def f(x, y):
        return np.sqrt(x * x + y * y)
"""

from ember.capture.bytecode import check_python_version as _check_python_version

_check_python_version()  # before anything else touches 3.11 internals

from ember.api import compile, disable, explain, reset, stats
from ember.autodiff import grad, value_and_grad, vjp
from ember.backends import list_backends, register_backend
from ember.capture.marks import mark_dynamic, mark_static
from ember.config import config
from ember.errors import BackendError, EmberError, GraphBreakError, Unsupported
from ember.explain import BreakReason, ExplainReport

__all__ = [
    "BackendError",
    "BreakReason",
    "EmberError",
    "ExplainReport",
    "GraphBreakError",
    "Unsupported",
    "compile",
    "config",
    "disable",
    "explain",
    "grad",
    "list_backends",
    "mark_dynamic",
    "mark_static",
    "register_backend",
    "reset",
    "stats",
    "value_and_grad",
    "vjp",
]
