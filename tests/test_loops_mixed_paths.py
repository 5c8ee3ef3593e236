"""Branches in loop bodies whose paths give a Python number and a NumPy scalar of another
dtype (`L[i + 1, j - 1] + 2 if length > 2 else 2`: an int32 or a Python int; `0.0 if last
else (width - line) ** 3`: a Python float or an int64), which NumPy keeps apart: the `if` op
gives both and the uses that cannot tell them apart settle them (`variables/choice.py`:
stores, arithmetic with a NumPy operand that promotes both alike); any other use keeps the
loop from being a loop op, and the frame still runs as NumPy does."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from test_loops_returns import run_calls


def palindromes(s):
    n = len(s)
    L = np.zeros((n, n), dtype=np.int32)
    for i in range(n):
        L[i, i] = 1
    for length in range(2, n + 1):
        for i in range(n - length + 1):
            j = i + length - 1
            if s[i] == s[j]:
                L[i, j] = L[i + 1, j - 1] + 2 if length > 2 else 2
            else:
                L[i, j] = max(L[i + 1, j], L[i, j - 1])
    return L[0, n - 1], L


def bumped(x):
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        out[i] = x[i] + 2 if x[i] > 3 else 7
    return out


def wrap_costs(lengths, width):
    n = len(lengths)
    cost = np.full(n + 1, np.inf)
    cost[n] = 0.0
    for i in range(n - 1, -1, -1):
        line = -1
        for j in range(i, n):
            line += lengths[j] + 1
            if line > width:
                break
            c = 0.0 if j == n - 1 else (width - line) ** 3
            if c + cost[j + 1] < cost[i]:
                cost[i] = c + cost[j + 1]
    return cost


def scaled_or_zero(x, w):
    total = np.zeros(1)
    for i in range(x.shape[0]):
        c = 0.0 if x[i] < 0 else x[i] * 3
        total[0] += w[i] * c
    return total


def python_sum_of_choices(x):
    acc = 0.5
    for i in range(x.shape[0]):
        c = 1 if x[i] < 2 else x[i]
        acc = acc + c
    return acc


def float32_products(x, y):
    out = np.zeros(x.shape[0], dtype=np.float32)
    for i in range(x.shape[0]):
        v = x[i] if x[i] > 0 else 0
        out[i] = v * y[i]
    return out, v * y[0]


def last_choice(x):
    last = 0
    for i in range(x.shape[0]):
        last = x[i] if x[i] > 2 else 1
    return last


def stored_out_of_range(x, big):
    out = np.zeros(x.shape[0], dtype=np.int32)
    for i in range(x.shape[0]):
        out[i] = x[i] if x[i] < 5 else big
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_palindromic_subsequence_table(seed) -> None:
    ember.reset()
    rng = np.random.default_rng(seed)
    run_calls(palindromes, [(rng.integers(0, 3, 20).astype(np.int32),),
                            (rng.integers(0, 2, 20).astype(np.int32),)])


@pytest.mark.parametrize("dtype", [np.int32, np.int8, np.int64, np.uint16, np.float32])
def test_store_of_an_element_or_a_python_number(dtype) -> None:
    ember.reset()
    x = np.random.default_rng(3).integers(0, 7, 30).astype(dtype)
    run_calls(bumped, [(x,), (x[::-1].copy(),)])


@pytest.mark.parametrize("width", [6, 10, 40])
def test_word_wrap_costs(width) -> None:
    ember.reset()
    rng = np.random.default_rng(4)
    run_calls(wrap_costs, [(rng.integers(1, 6, 25), width), (rng.integers(1, 6, 25), width)])


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.float64])
def test_product_with_a_float64_element(dtype) -> None:
    ember.reset()
    rng = np.random.default_rng(5)
    x = (rng.random(30) * 10 - 5).astype(dtype)
    run_calls(scaled_or_zero, [(x, rng.random(30))])


@pytest.mark.parametrize("run", [
    # A Python float plus either: a Python float or a NumPy float64 sum, whose types differ.
    lambda: (python_sum_of_choices, (np.arange(6, dtype=np.int32),)),
    lambda: (python_sum_of_choices, (np.zeros(6, dtype=np.int32),)),
    # A Python int times float32 stays float32; an int32 times float32 is float64.
    lambda: (float32_products, (np.arange(-3, 9, dtype=np.int32),
                                np.linspace(0.1, 2, 12, dtype=np.float32))),
    # The local after the loop is the Python int or the int16 the last trip picked.
    lambda: (last_choice, (np.array([5, 1, 3, 0], dtype=np.int16),)),
    lambda: (last_choice, (np.array([5, 1, 3, 7], dtype=np.int16),)),
])
def test_uses_that_tell_them_apart_run_as_numpy(run) -> None:
    ember.reset()
    fn, args = run()
    run_calls(fn, [args], native=False)


def test_a_python_int_out_of_the_arrays_range_raises() -> None:
    ember.reset()
    x = np.arange(10, dtype=np.int32)
    run_calls(stored_out_of_range, [(x, 2**20)])
    ember.reset()
    with pytest.raises(OverflowError):
        stored_out_of_range(x, 2**40)
    with pytest.raises(OverflowError):
        ember.compile(stored_out_of_range)(x, 2**40)
