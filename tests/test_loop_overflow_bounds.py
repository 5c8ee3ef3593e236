"""Overflow checks of NumPy integer scalar math with a constant operand (`d[i - 1] + 1`,
`k - x[i]`), which native loops test with one compare against a bound: the warnings
(message, line, order), the results and the flags raised are NumPy's, on the values at and
around every bound, under each errstate, in loops long enough to stay loops."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from fp_harness import observe

ERRSTATES = [{}, {"over": "raise"}, {"all": "ignore"}]
EXPRESSIONS = ["x[i] + {k}", "{k} + x[i]", "x[i] - {k}", "{k} - x[i]"]


def _constants(dtype) -> list[int]:
    info = np.iinfo(dtype)
    return [0, 1, 5, -1, -7, int(info.max), int(info.min), int(info.max) // 2]


def _edges(dtype) -> np.ndarray:
    info = np.iinfo(dtype)
    near = [int(info.min) + d for d in range(4)] + [int(info.max) - d for d in range(4)]
    middle = [int(info.max) // 2 + d for d in (-6, 0, 6)] + [int(info.min) // 2 + d
                                                            for d in (-6, 0, 6)]
    values = sorted(set(near + middle + list(range(-8, 9))))
    return np.array(values, dtype=dtype)


def _loop(expression: str):
    source = (
        "def f(x, rows):\n"
        "    out = np.zeros(rows.shape[0], dtype=x.dtype)\n"
        "    for j in range(rows.shape[0]):\n"
        "        i = rows[j]\n"
        f"        out[j] = {expression}\n"
        "    return out\n")
    namespace = {"np": np}
    exec(compile(source, "<constant_overflow>", "exec"), namespace)  # noqa: S102 -- the loop under test
    return namespace["f"]


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64])
@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_constant_operand_overflow_as_numpy(dtype, expression):
    edges = _edges(dtype)
    for k in _constants(dtype):
        fn = _loop(expression.format(k=k))
        ember.reset()
        compiled = ember.compile(fn)
        # each edge alone (a warning names its first overflowing row), then all of them
        rows = [np.full(200, e, dtype=np.int64) for e in range(len(edges))]
        rows.append(np.arange(200, dtype=np.int64) % len(edges))
        for errstate in ERRSTATES:
            for r in rows:
                want, want_warnings = observe(fn, (edges, r), **errstate)
                before = ember.stats()["fp_reruns"]
                got, got_warnings = observe(compiled, (edges, r), **errstate)
                assert got_warnings == want_warnings, (k, errstate, got_warnings)
                assert type(got) is type(want) and repr(got) == repr(want), (k, errstate)
                if not want_warnings and errstate == {}:
                    assert ember.stats()["fp_reruns"] == before, (k, "a flag raised")
        assert ember.stats()["compiles"] >= 1 and not ember.stats()["graph_breaks"]
