"""The random-program fuzzer: whole programs (`fuzz_programs.py`) compiled by ember on the
Cranelift and eager backends against plain NumPy: results (values, dtypes, shapes), aliasing
with the arguments and among results, arguments after the call, printed output, warnings and
exceptions (type and message), under a random `np.errstate`.

The example budget is fixed and the search derandomized, so CI runs the same programs every
time; `EMBER_FUZZ_EXAMPLES=5000` runs a longer search locally.
"""

from __future__ import annotations

import os

import ember
import numpy as np
from conftest import aliasing, assert_same
from fuzz_programs import Outcome, Program, make_args, programs, run
from hypothesis import HealthCheck, Phase, given, settings

EXAMPLES = int(os.environ.get("EMBER_FUZZ_EXAMPLES", "1000"))


def _compile(source: str):
    namespace = {"np": np}
    exec(compile(source, "<fuzzed program>", "exec"), namespace)  # noqa: S102
    return namespace["program"]


def _tolerance(outcome: Outcome) -> float:
    """Float rounding: float32 results or arguments (NumPy's float32 `pow` and friends are
    not always correctly rounded, ember's may differ by an ulp) get float32's tolerance."""
    values = outcome.value if isinstance(outcome.value, tuple) else (outcome.value,)
    f32 = any(getattr(v, "dtype", None) == np.float32 for v in (*values, *(outcome.args or ())))
    return 1e-5 if f32 else 1e-10


def assert_same_outcome(got: Outcome, want: Outcome, program: Program) -> None:
    context = f"\n{program.source}args {program.args}\nerrstate {program.errstate}"
    if want.error is not None:
        assert got.error is not None, f"no exception, NumPy raised {want.error!r}{context}"
        assert type(got.error) is type(want.error), f"{got.error!r} vs {want.error!r}{context}"
        assert str(got.error) == str(want.error), f"{got.error!r} vs {want.error!r}{context}"
    else:
        assert got.error is None, f"raised {got.error!r}{context}"
        rtol = _tolerance(want)
        try:
            assert_same(got.value, want.value, rtol=rtol, atol=1e-30)
        except AssertionError as exc:
            raise AssertionError(f"{exc}{context}") from None
        assert aliasing(got.value, got.args) == aliasing(want.value, want.args), context
    if want.error is not None and "negative integer powers" in str(want.error):
        return  # NumPy leaves the updated argument's contents undefined (they vary per run)
    try:
        assert_same(got.args, want.args, rtol=_tolerance(want), atol=1e-30, path="arguments")
    except AssertionError as exc:
        raise AssertionError(f"{exc}{context}") from None
    assert got.printed == want.printed, context
    assert got.warnings == want.warnings, f"{set(got.warnings)} vs {set(want.warnings)}{context}"


# No `explain` phase: its line tracer would run inside compiled frames.
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck),
          phases=[Phase.explicit, Phase.generate, Phase.shrink])
@given(program=programs())
def test_fuzzed_programs_behave_as_numpy(program: Program) -> None:
    fn = _compile(program.source)
    want = run(fn, make_args(program.args), program.errstate)
    for backend in ("cranelift", "eager"):
        ember.reset()
        compiled = ember.compile(_compile(program.source), backend=backend)
        first = run(compiled, make_args(program.args), program.errstate)
        assert_same_outcome(first, want, program)
        # Again, through the cache: the same behaviour on a hit.
        again = run(compiled, make_args(program.args), program.errstate)
        assert_same_outcome(again, want, program)
