"""The resume corpus (loops, try/except/finally, with, early exits, closures, generators,
calls; and resume functions themselves) compiled with ember: same value or exception,
printed output and arguments as plain Python, on the capturing call and the cached one."""

from __future__ import annotations

import ember
import pytest
from breaks_harness import run_once
from test_resume import CASES, same


@pytest.mark.parametrize("case", CASES, ids=[f"{c.name}-{i}" for i, c in enumerate(CASES)])
def test_compiled_like_python(case):
    want = run_once(case.func, case.make_args)
    compiled = ember.compile(case.func)
    for call in ("capturing", "cached"):
        got = run_once(compiled, case.make_args)
        parts = ("value", "exception", "output", "arguments")
        wrong = [p for p, a, b in zip(parts, got, want) if not same(a, b)]
        assert not wrong, f"{call} call: {wrong}: got {got[:3]}, want {want[:3]}"
    stats = ember.stats()
    # A comprehension's own frame given a live iterator runs as plain Python by design
    # (`flow.FOR_ITER`: a break per item would cost more): no other frame may.
    by_design = sum(n for reason, n in stats["break_reasons"].items()
                    if reason.startswith("iteration over an argument")
                    and reason.endswith("inside a loop of an unknown number of trips"))
    assert stats["failed_frames"] <= by_design, stats["break_reasons"]
