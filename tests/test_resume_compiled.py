"""The resume corpus (loops, try/except/finally, with, early exits, closures, generators,
calls; and resume functions themselves) compiled with ember: same value or exception,
printed output and arguments as plain Python, on the capturing call and the cached one."""

from __future__ import annotations

import contextlib
import io

import ember
import pytest
from test_resume import CASES, same


def _run(fn, make_args):
    args = make_args()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            value, error = fn(*args), None
        except Exception as exc:  # noqa: BLE001 - raising is an outcome to compare
            value, error = None, exc
    return value, error, out.getvalue(), args


@pytest.mark.parametrize("case", CASES, ids=[f"{c.name}-{i}" for i, c in enumerate(CASES)])
def test_compiled_like_python(case):
    want = _run(case.func, case.make_args)
    compiled = ember.compile(case.func)
    for call in ("capturing", "cached"):
        got = _run(compiled, case.make_args)
        parts = ("value", "exception", "output", "arguments")
        wrong = [p for p, a, b in zip(parts, got, want) if not same(a, b)]
        assert not wrong, f"{call} call: {wrong}: got {got[:3]}, want {want[:3]}"
    assert ember.stats()["failed_frames"] == 0, ember.stats()["break_reasons"]
