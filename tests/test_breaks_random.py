"""Hypothesis programs that mix array statements with graph breaks at random points.

A program is a list of statements over array locals (elementwise ops, reductions, Python
scalars) among which breaks are dropped: a print of an array or of a Python value, a
`float()` of a reduction, a branch on an array's value, an unsupported NumPy call, an append
to a list argument, a global write, a `try` whose body breaks and may raise, a loop whose body
breaks. Compiled with the eager and the native backend, run twice (captured, then cached), it
must give plain Python's results, printed output and mutations exactly.

The budget and the search are fixed for CI; `EMBER_FUZZ_BREAK_EXAMPLES=2000
EMBER_FUZZ_SEED=7` runs a longer search with another seed.
"""

from __future__ import annotations

import os

import ember
import numpy as np
from breaks_harness import run_once, same
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

ARRAY_EXPR = [
    "np.tanh({a})", "({a} * {b})", "({a} + 0.5)", "np.maximum({a}, {b})", "({a} - {b}.mean())",
    "np.exp(-np.abs({a}))", "({a} * {s})", "np.sqrt(np.abs({a}) + 1)", "np.where({a} > 0, {a}, {b})",
]
BREAKS = [
    "print('{v}', {v}.shape)",
    "print(f'{v} sum {{float({v}.sum()):.6f}}')",
    "{v} = {v} * (1.0 + float({v}.mean() > 0))",
    "if {v}.sum() > 0:\n    {v} = {v} - 1\nelse:\n    {v} = {v} + 1",
    "{v} = np.partition({v}, 0)",
    "log.append(float({v}.max()))",
    "COUNT[0] += 1",
    ("try:\n    {v} = {v} + np.ones(len(log) % 2 + {v}.shape[0])\nexcept ValueError:\n"
     "    print('mismatch')"),
    "for k in range(2):\n    print('trip', k)\n    {v} = {v} * 0.5",
    "s = {v}.sum().item()",
]


@st.composite
def programs(draw):
    names = ["x", "y"]
    lines = []
    scalars = ["2.0", "s"]
    for _ in range(draw(st.integers(1, 6))):
        if draw(st.integers(0, 2)) == 0:
            lines += draw(st.sampled_from(BREAKS)).format(v=draw(st.sampled_from(names))).split(
                "\n")
        else:
            target = f"t{len(names)}"
            expr = draw(st.sampled_from(ARRAY_EXPR)).format(
                a=draw(st.sampled_from(names)), b=draw(st.sampled_from(names)),
                s=draw(st.sampled_from(scalars)))
            lines.append(f"{target} = {expr}")
            names.append(target)
    results = draw(st.lists(st.sampled_from(names), min_size=1, max_size=2))
    body = "\n".join(f"    {line}" for line in ["s = 1.5", *lines])
    source = (f"def program(x, y, log):\n{body}\n"
              f"    return ({', '.join(results)},), s, len(log)\n")
    return source


def _make_args():
    rng = np.random.default_rng(5)
    return rng.standard_normal(4), rng.standard_normal(4), [0.5]


EXAMPLES = int(os.environ.get("EMBER_FUZZ_BREAK_EXAMPLES", "60"))
# Unset, the search is derandomized (a seed given by `@seed` takes precedence over it).
SEED = os.environ.get("EMBER_FUZZ_SEED")


@seed(int(SEED) if SEED else None)
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(source=programs(), backend=st.sampled_from(["eager", "cranelift"]))
def test_random_programs_with_breaks_match_python(source, backend):
    namespace = {"np": np, "COUNT": [0]}
    exec(compile(source, "<random program>", "exec"), namespace)  # noqa: S102 - generated
    program = namespace["program"]
    namespace["COUNT"][0] = 0
    want = run_once(program, _make_args)
    want_count = namespace["COUNT"][0]
    ember.reset()
    compiled = ember.compile(program, backend=backend)
    for call in range(2):
        namespace["COUNT"][0] = 0
        got = run_once(compiled, _make_args)
        where = f"call {call + 1} of\n{source}"
        if want[1] is not None:
            assert type(got[1]) is type(want[1]) and str(got[1]) == str(want[1]), where
        else:
            assert got[1] is None, f"{where}: raised {got[1]!r}"
            assert not same(got[0], want[0], 1e-12), where
        assert got[2] == want[2], where
        assert not same(got[3], want[3], 1e-12), where
        assert namespace["COUNT"][0] == want_count, where
    assert ember.stats()["failed_frames"] == 0, ember.stats()["break_reasons"]
