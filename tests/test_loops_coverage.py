"""Loop bodies captured as one loop op: NumPy scalars carried with their dtype, arrays
private to the frame swapped from trip to trip, bodies long enough that the jump back lands
on an EXTENDED_ARG."""

from __future__ import annotations

import dis

import ember
import numpy as np
import pytest
import user_kernels as K
from conftest import assert_same
from hypothesis import given, settings
from hypothesis import strategies as st
from test_loops_capture import loop_ops, run_both

BACKENDS = ["eager", "cranelift"]


def logistic_map(r, x0, n):
    xs = np.empty(n, dtype=np.float32)
    x = np.float32(x0)
    for i in range(n):
        x = r * x * (1 - x)
        xs[i] = x
    return xs, x


def test_a_numpy_scalar_carried_is_one_loop_op(recorder) -> None:
    got = ember.compile(logistic_map, backend=recorder)(np.float32(3.7), 0.3, 100)
    assert_same(got, logistic_map(np.float32(3.7), 0.3, 100))
    assert len(recorder.graphs) == 1 and loop_ops(recorder) == 1
    assert ember.stats()["graph_breaks"] == 0


@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=15, deadline=None, derandomize=True)
@given(n=st.integers(20, 80), x0=st.floats(0.05, 0.95), r=st.floats(2.5, 4.0),
       dtype=st.sampled_from([np.float32, np.float64]))
def test_a_numpy_scalar_carried_keeps_its_dtype(backend, n, x0, r, dtype) -> None:
    ember.reset()
    run_both(logistic_map, dtype(r), x0, n, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_numpy_scalar_widened_on_the_first_trip_computes_that_trip_narrow(backend) -> None:
    """`r` float64: the first trip's `1 - x` is float32, later ones float64; r = 4 is chaotic,
    so a first trip computed in float64 shows within 20 trips."""
    args = (np.float64(4.0), 0.15372442412816945, 20)
    assert_same(ember.compile(logistic_map, backend=backend)(*args), logistic_map(*args))


def wave(u0, u1, c, steps):
    u_prev = u0.copy()
    u = u1.copy()
    for _ in range(steps):
        u_next = np.empty_like(u)
        u_next[1:-1] = 2 * u[1:-1] - u_prev[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])
        u_next[0] = 0.0
        u_next[-1] = 0.0
        u_prev, u = u, u_next
    return u, u_prev


def swap_updated_in_place(a0, b0, steps):
    a = a0.copy()
    b = b0.copy()
    for i in range(steps):
        a[i % a.shape[0]] += 1.0
        a, b = b, a
    return a, b


def test_swapped_private_arrays_are_one_loop_op(recorder) -> None:
    rng = np.random.default_rng(0)
    u0, u1 = rng.random(50), rng.random(50)
    assert_same(ember.compile(wave, backend=recorder)(u0, u1, 0.1, 40), wave(u0, u1, 0.1, 40))
    assert len(recorder.graphs) == 1 and loop_ops(recorder) == 1
    assert ember.stats()["graph_breaks"] == 0


@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=15, deadline=None, derandomize=True)
@given(n=st.integers(3, 40), steps=st.integers(0, 30), seed=st.integers(0, 2**16))
def test_swapped_private_arrays_match_numpy(backend, n, steps, seed) -> None:
    ember.reset()
    rng = np.random.default_rng(seed)
    run_both(wave, rng.random(n), rng.random(n), 0.1, steps, backend=backend)
    run_both(swap_updated_in_place, rng.random(n), rng.random(n), steps, backend=backend)


def swap_inputs(a, b, steps):
    for _ in range(steps):
        a, b = b, a
        a[0] += 1.0
    return a, b


@pytest.mark.parametrize("backend", BACKENDS)
def test_swapped_inputs_keep_their_identity(backend) -> None:
    """Inputs are seen by the caller: swapping them is not a loop op, and which object each
    name ends bound to, and each mutation, is NumPy's."""
    a, b = np.zeros(3), np.ones(3)
    got = ember.compile(swap_inputs, backend=backend)(a, b, 41)
    wa, wb = np.zeros(3), np.ones(3)
    want = swap_inputs(wa, wb, 41)
    assert_same(got, want)
    assert got[0] is b and got[1] is a
    np.testing.assert_array_equal(a, wa)
    np.testing.assert_array_equal(b, wb)


def test_a_loop_whose_jump_back_needs_an_extended_arg_is_one_loop_op(recorder) -> None:
    ops = [i.opname for i in dis.get_instructions(K.heat_3d)]
    assert ops[ops.index("FOR_ITER") - 1] == "EXTENDED_ARG"
    rng = np.random.default_rng(1)
    a, b = rng.random((8, 8, 8)), rng.random((8, 8, 8))
    got_a, got_b = a.copy(), b.copy()
    ember.compile(K.heat_3d, backend=recorder)(9, got_a, got_b)
    K.heat_3d(9, a, b)
    assert len(recorder.graphs) == 1 and loop_ops(recorder) == 1
    np.testing.assert_allclose(got_a, a, rtol=1e-12)
    np.testing.assert_allclose(got_b, b, rtol=1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("steps", [1, 2, 5, 12])
def test_a_long_body_loop_matches_numpy(backend, steps) -> None:
    rng = np.random.default_rng(steps)
    run_both(K.heat_3d, steps, rng.random((6, 7, 8)), rng.random((6, 7, 8)), backend=backend)


def running_max(x):
    best = -np.inf
    for v in x:
        best = max(best, v)
    return best


def running_min_abs(x):
    m = abs(x[0])
    for i in range(1, x.shape[0]):
        m = min(m, abs(x[i]), m + 1.0)
    return m


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [running_max, running_min_abs])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_builtin_min_max_of_numpy_scalars_give_numpy_scalars(fn, dtype, backend) -> None:
    """`best = max(best, v)` returns one of its operands, a NumPy scalar here: the carried
    value comes out as that scalar type, not a 0-d array."""
    x = (np.random.default_rng(3).standard_normal(300) * 50).astype(dtype)
    got = ember.compile(fn, backend=backend)(x)
    assert_same(got, fn(x), rtol=0)
