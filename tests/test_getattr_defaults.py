"""`getattr(x, name, default)` in compiled code: the default where no object of `x`'s type can
have the attribute (an ndarray, a float: immutable types whose objects have no `__dict__`),
captured in the graph; anything else as Python would do it."""

from __future__ import annotations

import ember
import numpy as np
import pytest


def _unboxed(b):
    return np.tanh(getattr(b, "_value", b)) * 2.0


def _dtype_or_none(x, y):
    kind = getattr(y, "dtype", None)
    return x * 2.0 if kind is None else x * 3.0


class _Box:
    pass


def _from_box(box, x):
    return x * getattr(box, "scale", 1.0)


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
def test_the_default_of_an_attribute_no_ndarray_or_float_has_is_captured(backend):
    x = np.linspace(-1.0, 1.0, 7)
    compiled = ember.compile(_unboxed, backend=backend)
    np.testing.assert_allclose(compiled(x), _unboxed(x), rtol=1e-12)
    np.testing.assert_allclose(compiled(x + 1), _unboxed(x + 1), rtol=1e-12)
    compiled_dtype = ember.compile(_dtype_or_none, backend=backend)
    for y in (1.5, 2, np.ones(2)):
        np.testing.assert_allclose(compiled_dtype(x, y), _dtype_or_none(x, y), rtol=1e-12)
    stats = ember.stats()
    assert stats["graph_breaks"] == 0, stats["break_reasons"]


def test_an_attribute_a_plain_object_may_gain_later_is_seen():
    x = np.arange(4.0)
    box = _Box()
    compiled = ember.compile(_from_box)
    np.testing.assert_array_equal(compiled(box, x), x)
    box.scale = 3.0
    np.testing.assert_array_equal(compiled(box, x), x * 3.0)
