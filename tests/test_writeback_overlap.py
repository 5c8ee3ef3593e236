"""The entry's test before writing updated arguments back (`_core.writeback_may_differ`): a
read-only target, or a target whose memory bounds overlap another array argument's, as
NumPy's `may_share_memory` decides, makes the function run as Python."""

from __future__ import annotations

import ember
import numpy as np
from ember import _core
from hypothesis import given, settings
from hypothesis import strategies as st

_BASE = np.arange(240, dtype=np.float64).reshape(12, 20)


@st.composite
def views(draw):
    """A view of `_BASE` (any slice of each axis, possibly empty or transposed), a
    fresh array or a non-array."""
    kind = draw(st.sampled_from(["view", "view", "view", "fresh", "scalar", "int8"]))
    if kind == "fresh":
        return np.zeros(draw(st.integers(0, 5)))
    if kind == "scalar":
        return draw(st.floats(-2, 2))
    base = _BASE.view(np.int8) if kind == "int8" else _BASE
    index = []
    for n in base.shape:
        a, b = sorted(draw(st.lists(st.integers(-n, n), min_size=2, max_size=2)))
        step = draw(st.sampled_from([1, 2, 3, -1, -2]))
        index.append(slice(a, b, step) if step > 0 else slice(b, a, step))
    v = base[tuple(index)]
    return v.T if draw(st.booleans()) else v


def reference(inputs, targets):
    for k in targets:
        target = inputs[k]
        if not target.flags.writeable:
            return True
        for j, other in enumerate(inputs):
            if j != k and isinstance(other, np.ndarray) and np.may_share_memory(target, other):
                return True
    return False


@settings(max_examples=400, deadline=None, derandomize=True)
@given(inputs=st.lists(views(), min_size=1, max_size=4), data=st.data())
def test_agrees_with_numpys_may_share_memory(inputs, data):
    arrays = [k for k, x in enumerate(inputs) if isinstance(x, np.ndarray)]
    if not arrays:
        return
    targets = tuple(data.draw(st.lists(st.sampled_from(arrays), min_size=1, max_size=2,
                                       unique=True)))
    if data.draw(st.booleans()):
        inputs[targets[0]] = inputs[targets[0]].copy()
        inputs[targets[0]].flags.writeable = False
    assert _core.writeback_may_differ(tuple(inputs), targets) == reference(inputs, targets)


def add_row(x, y):
    for i in range(x.shape[0]):
        x[i] += y[i]


def test_an_argument_aliasing_the_written_one_runs_as_python():
    a = np.arange(30.0)
    want = a.copy()
    add_row(want[:20], want[10:])
    ember.compile(add_row)(a[:20], a[10:])
    np.testing.assert_array_equal(a, want)
    b = np.arange(30.0)
    want = b.copy()
    add_row(want[:15], want[15:])
    ember.compile(add_row)(b[:15], b[15:])
    np.testing.assert_array_equal(b, want)
