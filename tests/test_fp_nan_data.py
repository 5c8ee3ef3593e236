"""Data holding NaN and infinities, as missing values make it: compares, `maximum`/`minimum`,
`fmax`/`fmin`, `max`/`argmax`, `clip`, `where`, sorting and the math built on compares stay
native and quiet where NumPy warns of nothing (`ops_compiled.check` asserts no NumPy rerun
then, and NumPy's warnings where it gives some)."""

from __future__ import annotations

import warnings

import ember
import numpy as np
import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st
from ops_compiled import check

SPECIALS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-310])

PROGRAMS = {
    "maximum": lambda x, y: np.maximum(x, 0.0) + np.minimum(y, x),
    "fmax": lambda x, y: np.fmax(x, y) - np.fmin(y, 0.5),
    "compares": lambda x, y: ((x < y) | (x >= 0.5), (x > y) ^ (y <= x), x == y, x != y),
    "where": lambda x, y: np.where(x > 0, x, y * 2),
    "clip": lambda x, y: np.clip(x, -0.5, 0.5) + np.abs(y),
    "reductions": lambda x, y: (x.max(), y.min(axis=0), np.where(np.isnan(x), -np.inf, x).max(axis=-1)),
    "arg": lambda x, y: (np.argmax(x, axis=-1), np.argmin(y), np.argmax(np.nan_to_num(x), axis=0)),
    "sort": lambda x, y: (np.sort(x, axis=-1), np.argsort(y, axis=0, kind="stable")),
    "sign": lambda x, y: (np.sign(x), np.isfinite(y), np.isinf(x), np.isnan(y)),
    "math": lambda x, y: (np.exp(np.minimum(x, 1.0)), np.log1p(np.abs(y)), np.tanh(x)),
    "logical": lambda x, y: np.logical_and(x > 0, y < 0).sum() + np.count_nonzero(x >= y),
}


def holes(rng: np.random.Generator, shape: tuple[int, ...], dtype: type) -> np.ndarray:
    """Uniform data with about a fifth of the places NaN or another special value."""
    x = rng.uniform(-1, 1, shape)
    mask = rng.random(shape) < 0.2
    x[mask] = rng.choice(SPECIALS, int(mask.sum()))
    with np.errstate(all="ignore"):
        return x.astype(dtype)


@seed(23)
@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(sorted(PROGRAMS)), data_seed=st.integers(0, 2**16),
       shape=st.sampled_from([(5,), (8,), (17,), (6, 9), (3, 4, 5)]),
       dtype=st.sampled_from([np.float64, np.float32]), strided=st.booleans())
def test_nan_data_stays_native_and_quiet(name, data_seed, shape, dtype, strided):
    rng = np.random.default_rng(data_seed)
    x, y = holes(rng, shape, dtype), holes(rng, shape, dtype)
    if strided:
        x, y = x[..., ::-2], y[..., 1::2]
    ember.reset()
    check(PROGRAMS[name], x, y, ops=())


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_every_program_meets_a_nan_in_vector_lanes_and_the_tail(dtype):
    """NaN in every lane position of the vector body and in the scalar tail."""
    for at in range(11):
        x = np.linspace(-2, 2, 11).astype(dtype)
        y = x[::-1].copy()
        x[at] = np.nan
        y[(at + 3) % 11] = -np.inf
        for name, fn in PROGRAMS.items():
            ember.reset()
            check(fn, x, y, ops=())


def test_nan_warnings_numpy_gives_still_come():
    """Where NumPy warns (log of a negative, NaN in `logaddexp`), the compiled call reruns
    with NumPy and gives the same warnings."""
    x = np.array([1.0, np.nan, -1.0, 2.0, 0.5, np.inf, 3.0, -2.0, 4.0])
    check(lambda x: np.log(x) + np.maximum(x, 0), x, ops=())
    check(lambda x: np.logaddexp(x, 1.0), x, ops=())
    before = ember.stats()["fp_reruns"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ember.compile(lambda x: np.sqrt(x) * (x > 0))(x)
    assert ember.stats()["fp_reruns"] == before + 1
