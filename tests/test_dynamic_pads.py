"""`np.pad` with mode 'edge', 'wrap', 'reflect' or 'symmetric' along an axis of symbolic size
(`manipulation._symbolic_pad_block`): the pads are slices with bounds counted from the axis's
end, each recording the least size its symbol needs, so one graph serves every size large
enough and a smaller one (where NumPy repeats a pad wider than the array) compiles static.
Every call equals NumPy."""

from __future__ import annotations

import numpy as np
import pytest

from test_dynamic_rows import check_sizes

MODES = ("edge", "wrap", "reflect", "symmetric")


def _pad_1d(mode, width):
    def f(x):
        return np.pad(x, width, mode=mode) * 2.0
    f.__name__ = f"pad_{mode}_{width}"
    return f


def _pad_2d(mode):
    def f(x):
        return np.pad(x, ((1, 2), (0, 3)), mode=mode) - x.sum()
    f.__name__ = f"pad_rows_{mode}"
    return f


def _pad_twice(mode):
    def f(x):  # the second pad is of `s0+2` elements
        return np.pad(np.pad(x, 1, mode=mode), (2, 1), mode=mode).cumsum()
    f.__name__ = f"pad_twice_{mode}"
    return f


def _smooth(mode):
    def f(img):  # a 3x3 box blur over the padded image, as filters write it
        p = np.pad(img, 1, mode=mode)
        return (p[:-2, :-2] + p[1:-1, :-2] + p[2:, :-2] + p[:-2, 1:-1] + p[1:-1, 1:-1]
                + p[2:, 1:-1] + p[:-2, 2:] + p[1:-1, 2:] + p[2:, 2:]) / 9.0
    f.__name__ = f"smooth_{mode}"
    return f


FNS = ([(_pad_1d(m, w), lambda n, r: (r.random(n),)) for m in MODES for w in (1, 3)]
       + [(_pad_2d(m), lambda n, r: (r.random((n, 4)),)) for m in MODES]
       + [(_pad_twice(m), lambda n, r: (r.integers(-9, 9, n),)) for m in MODES]
       + [(_smooth(m), lambda n, r: (r.random((n, n + 2)),)) for m in MODES])


@pytest.mark.parametrize("fn, make", FNS, ids=[f.__name__ for f, _ in FNS])
def test_pads_of_symbolic_axes_compile_twice(fn, make):
    stats = check_sizes(fn, make, (5, 6, 7, 9, 30, 17, 64), rtol=1e-12)
    assert stats["captures"] <= 2, stats["recompile_reasons"]
    assert stats["graph_breaks"] == 0 and stats["entry_fallbacks"] == 0, stats["break_reasons"]


@pytest.mark.parametrize("fn, make", FNS, ids=[f.__name__ for f, _ in FNS])
def test_pads_of_symbolic_axes_at_small_sizes(fn, make):
    """Sizes below what a pad's slices need (NumPy repeats such pads), 0 and 1."""
    check_sizes(fn, make, (6, 7, 3, 2, 1, 0, 4, 2, 8), rtol=1e-12)


@pytest.mark.parametrize("fn, make", FNS[:8], ids=[f.__name__ for f, _ in FNS[:8]])
def test_pads_of_symbolic_axes_on_the_eager_backend(fn, make):
    check_sizes(fn, make, (6, 7, 2, 9), backend="eager", rtol=1e-12)
