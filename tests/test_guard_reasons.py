"""Guard trees: cheap checks first, and what `EMBER_LOGS=recompiles`, `ember.stats()` and
`ember.explain` say about which guard of which entry failed, and why."""

from __future__ import annotations

import os
import subprocess
import sys
import types
from pathlib import Path

import ember
import numpy as np
import pytest
from ember.capture.convert import convert

ROOT = Path(__file__).resolve().parent.parent
OFFSET = 1.5


@pytest.fixture(autouse=True)
def _fresh():
    ember.reset()
    yield
    ember.reset()


def reasons() -> list[str]:
    return [reason for _, reason in ember.stats()["recompile_reasons"]]


def shifted(x, y):
    return x * y + OFFSET


def test_reasons_name_every_entry_newest_first_and_what_differs():
    compiled = ember.compile(shifted, dynamic=False)
    compiled(np.ones(3), np.ones(3))
    compiled(np.ones(4), np.ones(4))
    compiled(np.ones((2, 2), np.float32), np.ones(2, np.float32))
    last = reasons()[-1]
    assert last.startswith("L['x'] failed ARRAY_MATCH float64 (4,): got ndarray float32 (2, 2) "
                           "(dtype float32, expected float64)")
    assert "(older entries, newest first: entry 2: L['x'] failed ARRAY_MATCH float64 (3,)" in last
    assert reasons()[0].endswith("(dimension 0 is 4, expected 3)")


def test_type_dict_and_module_reasons():
    namespace = {"np": np}
    exec("def f(x):\n    return np.sqrt(abs(x))\n", namespace)  # noqa: S102
    compiled = ember.compile(namespace["f"])
    compiled(np.ones(3))
    namespace["abs"] = np.abs
    compiled(np.ones(3))
    assert any("failed DICT_LACKS 'abs'" in r and "('abs' was added)" in r for r in reasons())
    ember.reset()
    fake = types.ModuleType("fake_numpy")
    fake.__dict__.update(np.__dict__)
    fake.sqrt = np.cbrt
    compiled(np.ones(3))
    namespace["np"] = fake
    try:
        compiled(np.ones(3))
    finally:
        namespace["np"] = np
    assert any("G['np'] failed ID_MATCH numpy" in r for r in reasons()), reasons()


def test_recompiles_log_says_which_guard_failed():
    code = ("import numpy as np, ember\n"
            "def f(x):\n    return x * 2 + 1\n"
            "g = ember.compile(f, dynamic=False)\n"
            "g(np.ones(2))\ng(np.ones(3))\ng(np.ones(3, np.float32))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "EMBER_LOGS": "recompiles"}, cwd=ROOT, timeout=120,
                         check=False)
    lines = [line for line in out.stderr.splitlines() if line.startswith("[ember.recompiles]")]
    assert lines[0] == ("[ember.recompiles] f: L['x'] failed ARRAY_MATCH float64 (2,): got "
                        "ndarray float64 (3,) (dimension 0 is 3, expected 2)"), out.stderr
    assert lines[1].startswith("[ember.recompiles] f: L['x'] failed ARRAY_MATCH float64 (3,): "
                               "got ndarray float32 (3,) (dtype float32, expected float64) "
                               "(older entries, newest first: entry 2: L['x'] failed "
                               "ARRAY_MATCH float64 (2,)")


def test_explain_reports_why_earlier_entries_were_not_used():
    compiled = ember.compile(shifted, dynamic=False)
    compiled(np.ones(3), np.ones(3))
    compiled(np.ones(5), np.ones(5))
    report = ember.explain(compiled, np.ones(4, np.int64), np.ones(4, np.int64))
    assert report.guard_failures == [
        ("L['x'] failed ARRAY_MATCH float64 (5,): got ndarray int64 (4,) "
        "(dtype int64, expected float64)"),
        ("L['x'] failed ARRAY_MATCH float64 (3,): got ndarray int64 (4,) "
        "(dtype int64, expected float64)"),
    ]
    text = str(report)
    assert "entries compiled before, not used for these arguments (newest first):" in text
    assert "  1. L['x'] failed ARRAY_MATCH float64 (5,)" in text
    def never_compiled(x):
        return x + 1.0

    fresh = ember.explain(never_compiled, np.ones(2))
    assert fresh.guard_failures == [] and "entries compiled before" not in str(fresh)


def test_explain_reports_recompiles_of_called_functions():
    def inner(v, scale):
        print("breaks the graph")
        return v * scale

    def outer(x):
        return inner(x, 2) + inner(x, 3)

    report = ember.explain(outer, np.ones(3))
    assert any("failed EQUALS_MATCH" in r for r in report.recompiles), report.recompiles
    assert "recompiles:" in str(report)


def test_cheap_roots_and_checks_come_first():
    class Holder:
        def __init__(self):
            self.w = np.ones(3)

    def method_like(holder, items, x):
        return holder.w * x + items[0] + OFFSET

    capture = convert(method_like, (Holder(), [1.0, 2.0], np.ones(3)))
    kinds = [accessor[0] for accessor, _, _ in capture.guards]
    with_children = [bool(children) for _, _, children in capture.guards]
    assert kinds[0] == "local" and not with_children[0]
    assert with_children == sorted(with_children)  # nodes reading attributes or items last
    for _, checks, _ in capture.guards:
        names = [c[0] for c in checks]
        if "LEN_MATCH" in names:
            assert names.index("TYPE_MATCH") < names.index("LEN_MATCH")
    compiled = ember.compile(method_like)
    holder = Holder()
    compiled(holder, [1.0, 2.0], np.ones(3))
    np.testing.assert_array_equal(compiled(holder, [1.0, 2.0], np.ones(3)), np.full(3, 3.5))
    holder.w = np.ones(4)
    np.testing.assert_array_equal(compiled(holder, [1.0, 2.0], np.ones(4)), np.full(4, 3.5))
