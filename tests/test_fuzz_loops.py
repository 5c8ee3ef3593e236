"""The loop-program fuzzer: random functions of loops (`fuzz_loops.py`) compiled by ember
against plain Python on copies of the arguments: results (values, Python int vs float vs
NumPy scalar types, dtypes, shapes), aliasing, the arguments afterwards, warnings and
exceptions (type and message). Each program is called with one to three argument sets (a
new `n`, a new length) and the first again, so cache hits, guards and recompiles are
checked too.

The example budget is fixed and the seed too, so CI runs the same programs every time;
`EMBER_FUZZ_LOOP_EXAMPLES=5000 EMBER_FUZZ_SEED=7` runs a longer search with another seed.
"""

from __future__ import annotations

import math
import os
import pathlib

import ember
import numpy as np
from fuzz_loops import LoopProgram, loop_programs, make_args
from fuzz_programs import assert_same_outcome, run
from hypothesis import HealthCheck, Phase, given, seed, settings

EXAMPLES = int(os.environ.get("EMBER_FUZZ_LOOP_EXAMPLES", "150"))
SEED = int(os.environ.get("EMBER_FUZZ_SEED", "20261206"))


def _compile(source: str):
    namespace = {"np": np, "math": math}
    exec(compile(source, "<fuzzed loop program>", "exec"), namespace)  # noqa: S102
    return namespace["program"]


# No `explain` phase: its line tracer would run inside compiled frames.
@seed(SEED)
@settings(max_examples=EXAMPLES, deadline=None, database=None,
          suppress_health_check=list(HealthCheck),
          phases=[Phase.explicit, Phase.generate, Phase.shrink])
@given(program=loop_programs())
def test_fuzzed_loop_programs_behave_as_python(program: LoopProgram) -> None:
    _check(program)


# Programs the fuzzer found wrong once, run every time.
_FOUND_DIR = pathlib.Path(__file__).parent / "fuzz_found"
_FOUND = {
    # A path of a frame-level branch in an unrolled loop that ends the trip, the other
    # path returning from a loop op: they do not meet (was an internal KeyError).
    "paths_that_do_not_meet": LoopProgram(
        (_FOUND_DIR / "paths_that_do_not_meet.py").read_text(),
        ("bool", "bool", "bool"),
        [(16, 2, 9, 2, 513), (16, 2, 9, 2, 18336), (1, 2, 9, 1, 4503)]),
    # The run-time checks of the rest of a frame traced after a loop op that may return
    # (`h // c` with `c` 0 in a loop op there): the graph's own, so the frame reruns and
    # raises (they were dropped).
    "checks_after_a_loop_that_may_return": LoopProgram(
        (_FOUND_DIR / "checks_after_a_loop_that_may_return.py").read_text(),
        ("bool", "bool", "bool"), [(24, 2, 1, 14, 2485)]),
    # A Python float that overflows to inf in a loop op: Python gives no warning, nor does
    # the NumPy rerun its flags ask for (it warned "overflow encountered in add").
    "python_floats_that_overflow": LoopProgram(
        (_FOUND_DIR / "python_floats_that_overflow.py").read_text(),
        ("bool", "int64", "int32"), [(24, 10, 5, 11, 30)]),
    # A frame-level `for row in M` unrolled around a loop op that may return: the rest of
    # the frame, traced as paths of an `if`, reads the rows to come from the path's own M
    # (it read the frame's M there: an internal TypeError).
    "rows_read_after_a_loop_that_may_return": LoopProgram(
        (_FOUND_DIR / "rows_read_after_a_loop_that_may_return.py").read_text(),
        ("bool", "int64", "int32"), [(20, 8, 5, 11, 12641)]),
    # np.float32 + a Python float out of float32's range: NumPy's scalar math casts the
    # float first and warns "overflow encountered in cast" (it said "in scalar add").
    "numpy_scalar_plus_a_python_float_it_cannot_hold": LoopProgram(
        (_FOUND_DIR / "numpy_scalar_plus_a_python_float_it_cannot_hold.py").read_text(),
        ("bool", "bool", "bool"), [(3, 1, 1, 0, 0)]),
    # `s = max(s, 0)` of a carried np.int64 that the first trip made from the int 0: the
    # Python int 0 where it is picked, which the loop op carried as an np.int64 (seed 515).
    "max_of_a_carried_numpy_int_and_zero": LoopProgram(
        (_FOUND_DIR / "max_of_a_carried_numpy_int_and_zero.py").read_text(),
        ("bool", "bool", "bool"), [(3, 1, 1, 0, 0), (3, 1, 1, 0, 7)]),
    # `s = max(s, out[0])` of a carried Python float made from an int, both 0.0: Python keeps
    # the float, which the loop op carried as the np.float64 its first trip was taken to
    # make (seed 601, shrunk).
    "max_of_a_carried_python_float_that_ties": LoopProgram(
        (_FOUND_DIR / "max_of_a_carried_python_float_that_ties.py").read_text(),
        ("bool", "bool", "bool"), [(3, 3, 2, 0, 375), (16, 3, 2, 15, 33992)]),
    # `sum(lst)` of a list appended in a loop, read in a path of the branch after a `while`
    # that may return: the list's buffer was the frame graph's (an internal TypeError; seed
    # 601).
    "list_summed_after_a_loop_that_may_return": LoopProgram(
        (_FOUND_DIR / "list_summed_after_a_loop_that_may_return.py").read_text(),
        ("bool", "bool", "bool"), [(12, 1, 1, 0, 0)]),
    # A list appended in a loop op in the rest of a frame traced after a loop op that may
    # return, returned: its buffer was a value of the path's graph, output by the frame's
    # (an internal TypeError on the second call, when `n` became a run-time int; seed 9101).
    "list_returned_from_the_rest_after_a_loop_that_may_return": LoopProgram(
        (_FOUND_DIR / "list_returned_from_the_rest_after_a_loop_that_may_return.py"
         ).read_text(),
        ("bool", "bool", "bool"), [(16, 10, 12, 4, 18126), (16, 10, 12, 2, 27263)]),
    # A Python float stored into a float32 array in a loop, out of float32's range: NumPy
    # warns "overflow encountered in cast" on every call (the store's cast was done once,
    # at capture, quietly; seed 60618, shrunk).
    "python_float_stored_into_float32": LoopProgram(
        (_FOUND_DIR / "python_float_stored_into_float32.py").read_text(),
        ("bool", "float32", "bool"), [(3, 10, 1, 1, 11437)]),
    # `return (s,)` inside nested loops while `s` is still the Python float 0.0, a path the
    # first trips do not take making it a NumPy scalar: the inner loop op carried it as
    # np.float64 (seed 7708).
    "python_float_returned_before_a_loop_made_it_numpy": LoopProgram(
        (_FOUND_DIR / "python_float_returned_before_a_loop_made_it_numpy.py").read_text(),
        ("float32", "int32", "bool"),
        [(3, 3, 2, 1, 286), (20, 3, 2, 12, 3699), (20, 3, 2, 10, 562)]),
    # `if np.sqrt(a[i]) < a[i] and 0 % 3 == 1: break`: both paths of the `if` continue the
    # same way, so the loop op dropped the condition and NumPy's warnings about the square
    # root of a negative element with it (seed 80818).
    "sqrt_in_a_condition_that_is_never_true": LoopProgram(
        (_FOUND_DIR / "sqrt_in_a_condition_that_is_never_true.py").read_text(),
        ("int32", "bool", "bool"), [(3, 1, 1, 0, 0)]),
    # `a[i:i + 1] += s` of a bool `a` and `s = np.float32(1)`: NumPy's `out=` casting rule
    # raises UFuncTypeError; the width-1 slice, a short row, was updated with a cast (seed 11).
    "slice_of_one_updated_in_place_with_a_numpy_float": LoopProgram(
        (_FOUND_DIR / "slice_of_one_updated_in_place_with_a_numpy_float.py").read_text(),
        ("bool", "bool", "bool"), [(12, 1, 1, 0, 0)]),
}


def test_programs_found_by_the_fuzzer() -> None:
    for program in _FOUND.values():
        _check(program)


def _check(program: LoopProgram) -> None:
    plain = _compile(program.source)
    ember.reset()
    compiled = ember.compile(_compile(program.source))
    for k, call in enumerate([*program.calls, program.calls[0]]):
        want = run(plain, make_args(program.dtypes, call, program.order), {})
        got = run(compiled, make_args(program.dtypes, call, program.order), {})
        assert_same_outcome(got, want, f"\ncall {k}\n{program.source}dtypes {program.dtypes} "
                                       f"calls {program.calls} order {program.order}")
