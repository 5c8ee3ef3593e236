"""Warning filters as an outsider meets them, not the "always" the other probes set: under
Python's default action (once per location), "once", "module", "error", "default" and
"ignore", a function that warns is called three times, unwrapped and compiled on both
backends, and each call's result or exception and the warnings shown (text, line and file)
must be the same, so a compiled graph's warnings meet the same registry and filters as
NumPy's."""

from __future__ import annotations

import contextlib
import io
import warnings

import ember
import numpy as np
import pytest
from probe_harness import define

X = np.array([0.0, -1.0, 2.0])
SOURCES = {
    "one_line": "def f(x):\n    return np.log(x)\n",
    "two_lines": "def f(x):\n    a = np.log(x)\n    b = np.log(x + 1)\n    return a + b\n",
    "in_a_loop": ("def f(x):\n    t = x * 0\n    for i in range(3):\n"
                  "        t = t + np.log(x - i)\n    return t\n"),
    "across_a_break": "def f(x):\n    a = np.log(x)\n    print('mid')\n    return np.sqrt(a)\n",
}


def _three_calls(fn, action):
    with warnings.catch_warnings(record=True) as caught, \
            contextlib.redirect_stdout(io.StringIO()):
        warnings.resetwarnings()
        if action is not None:
            warnings.simplefilter(action)
        seen = []
        for _ in range(3):
            try:
                seen.append(repr(fn(X.copy())))
            except Exception as exc:  # noqa: BLE001 -- compared with NumPy's
                seen.append(f"{type(exc).__name__}: {exc}")
    return seen, [(str(w.message), w.category.__name__, w.lineno, w.filename) for w in caught]


@pytest.mark.parametrize("action", [None, "once", "module", "error", "default", "ignore"])
@pytest.mark.parametrize("name", sorted(SOURCES))
def test_warnings_meet_the_callers_filters_as_numpys(name, action):
    want = _three_calls(define(SOURCES[name]), action)
    for backend in ("cranelift", "eager"):
        ember.reset()
        got = _three_calls(ember.compile(define(SOURCES[name]), backend=backend), action)
        assert got == want, (backend, got, want)
        assert ember.stats()["compiles"] >= 1, (backend, ember.stats())
