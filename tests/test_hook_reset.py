"""`ember.reset()` gives code objects back as it found them: the per-code cache is detached,
except where a frame of the code is still being handled or the code was marked skip."""

from __future__ import annotations

import ember
import numpy as np
from conftest import assert_same
from ember import _core as core


def doubled_plus_one(x):
    return x * 2.0 + 1.0


def test_reset_detaches_the_cache(recorder):
    f = ember.compile(doubled_plus_one, backend=recorder)
    x = np.arange(3.0)
    assert_same(f(x), doubled_plus_one(x))
    assert core._cache_attached(doubled_plus_one.__code__)
    ember.reset()
    assert not core._cache_attached(doubled_plus_one.__code__)
    assert_same(f(x), doubled_plus_one(x))
    assert core.cache_size(doubled_plus_one.__code__) == 1
    assert len(recorder.graphs) == 2


def marked(x):
    return x - 1.0


def test_reset_keeps_a_skip_mark():
    core.mark_skip(marked.__code__)
    ember.reset()
    assert core._cache_attached(marked.__code__)
    x = np.ones(2)
    assert_same(ember.compile(marked)(x), marked(x))
    assert core.cache_size(marked.__code__) == 0
    assert ember.stats()["captures"] == 0


def resets_midway(x):
    y = x * 3.0
    ember.reset()
    return y + 1.0


def test_reset_from_inside_a_running_conversion_keeps_that_cache(recorder):
    # The frame of `resets_midway` is still being handled while its body calls reset: its cache
    # is emptied but stays attached; a later reset detaches it.
    f = ember.compile(resets_midway, backend=recorder)
    x = np.arange(4.0)
    want = x * 3.0 + 1.0
    for _ in range(3):
        assert_same(f(x), want)
    assert core._cache_attached(resets_midway.__code__)
    ember.reset()
    assert not core._cache_attached(resets_midway.__code__)
