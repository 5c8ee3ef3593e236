"""The graph-break corpus: programs in the style of real NumPy code that print, branch on
array values, call what ember cannot capture, loop until convergence, mutate what they are
given and use the rest of Python. Each runs compiled (eager and native backends) and as plain
Python: same results, exceptions, printed output, mutations; and the graphs and breaks it
declares (one break per such point, both sides compiled, the second call cached)."""

from __future__ import annotations

import ember
import pytest
from breaks_corpus_data import CASES as DATA_CASES
from breaks_corpus_flow import CASES as FLOW_CASES
from breaks_corpus_io import CASES as IO_CASES
from breaks_corpus_state import CASES as STATE_CASES
from breaks_harness import check_program

CASES = IO_CASES + FLOW_CASES + DATA_CASES + STATE_CASES


@pytest.mark.parametrize("backend", [None, "cranelift"], ids=["eager", "cranelift"])
@pytest.mark.parametrize("program", CASES, ids=[p.name for p in CASES])
def test_program_like_python(program, backend):
    ember.reset()
    check_program(program, backend)


def test_corpus_size_and_names():
    names = [p.name for p in CASES]
    assert len(names) == len(set(names)) >= 80
