"""The options of the compiled function running on a thread (`policy.active.current`), held
per thread by the native module: None outside any call, set around a call (the Python
`__call__` path and the vectorcall slot's entries alike) and put back after it, also when the
call raises, and never seen by another thread."""

from __future__ import annotations

import threading

import ember
import numpy as np
import pytest
from ember import _core
from ember.capture import policy


def test_the_slot_is_empty_outside_calls_and_swaps_per_thread():
    assert policy.active.current is None
    opts = policy.Options()
    seen = []
    previous = _core.swap_options(opts)
    try:
        assert previous is None
        assert policy.active.current is opts
        worker = threading.Thread(target=lambda: seen.append(policy.active.current))
        worker.start()
        worker.join()
    finally:
        assert _core.swap_options(previous) is opts
    assert seen == [None]
    assert policy.active.current is None


def test_setting_through_the_slot_object():
    opts = policy.Options()
    policy.active.current = opts
    try:
        assert policy.current_options() is opts
    finally:
        policy.active.current = None
    assert policy.current_options() == policy.Options()


def with_python_around(x, n):
    s = 0.0
    for i in range(n):
        s += x[i]
    return float(s), [s]


def raises_past_the_end(x, n):
    s = 0.0
    for i in range(n):
        s += x[i]
    return s


@pytest.mark.parametrize("calls", [1, 5])
def test_compiled_calls_leave_the_slot_as_they_found_it(calls):
    ember.reset()
    f = ember.compile(with_python_around)
    x = np.arange(6.0)
    for _ in range(calls):
        assert f(x, 4) == with_python_around(x, 4)
        assert policy.active.current is None
    g = ember.compile(raises_past_the_end)
    for _ in range(calls):
        with pytest.raises(IndexError):
            g(x, 7)
        assert policy.active.current is None
