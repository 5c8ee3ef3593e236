"""The per-call cost around native loops, differential against plain Python: a result a
graph's 0-d output picks (`return dp[n] if dp[n] != INF else -1`) built natively on both
branches, reads of globals and builtins that an unchanged dict answers without a lookup (a
rebound or deleted global, a shadowed builtin, a fresh globals dict are still seen), and
loop runs that keep the GIL after a quick run (threads, runs of changing length)."""

from __future__ import annotations

import threading
import types

import ember
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st


def coin_change(coins, amount):
    INF = amount + 1
    dp = np.full(amount + 1, INF, dtype=np.int64)
    dp[0] = 0
    for a in range(1, amount + 1):
        for c in coins:
            if c <= a and dp[a - c] + 1 < dp[a]:
                dp[a] = dp[a - c] + 1
    return dp[amount] if dp[amount] != INF else -1


def first_negative(x):
    k = -1
    for i in range(x.shape[0]):
        if x[i] < 0 and k < 0:
            k = i
    return x[k] if k >= 0 else None


def total_or_argument(x, fallback):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
    return s if s > 0 else fallback


def total_or_array(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
    return s if s > 0 else x


def steps_to_zero(x):
    total = 0
    for i in range(x.shape[0]):
        v = x[i]
        while v > 0:
            v = v // 2
            total += 1
    return total


def native_calls() -> int:
    return ember.stats()["native_calls"]


def same(got, want) -> None:
    assert type(got) is type(want), (got, want)
    if isinstance(want, np.ndarray):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
    else:
        assert got == want or (np.isnan(got) and np.isnan(want))


@pytest.fixture(autouse=True)
def _fresh():
    ember.reset()
    yield
    ember.reset()


@settings(derandomize=True, deadline=None, max_examples=25)
@given(st.lists(st.integers(2, 30), min_size=1, max_size=4, unique=True),
       st.integers(1, 90))
def test_picked_result_on_both_branches(coins, amount):
    coins = np.array(coins, dtype=np.int64)
    compiled = ember.compile(coin_change)
    for _ in range(3):
        same(compiled(coins, amount), coin_change(coins, amount))


def test_picked_result_runs_natively():
    compiled = ember.compile(coin_change)
    reachable, unreachable = np.array([3, 7, 11]), np.array([4, 6])
    for coins, amount in ((reachable, 120), (unreachable, 121)):
        same(compiled(coins, amount), coin_change(coins, amount))
        before = native_calls()
        for _ in range(3):
            same(compiled(coins, amount), coin_change(coins, amount))
        assert native_calls() == before + 3


@settings(derandomize=True, deadline=None, max_examples=25)
@given(st.lists(st.floats(-4, 4, allow_nan=False, width=32), min_size=20, max_size=20))
def test_picked_scalar_or_none(values):
    x = np.array(values)
    compiled = ember.compile(first_negative)
    for _ in range(3):
        same(compiled(x), first_negative(x))


@pytest.mark.parametrize("fallback", ["empty", (1, 2), None])
def test_picked_argument_or_constant(fallback):
    compiled = ember.compile(total_or_argument)
    for x in (np.full(30, -1.0), np.full(30, 2.0), np.zeros(30)):
        for _ in range(3):
            same(compiled(x, fallback), total_or_argument(x, fallback))


def test_picked_array_argument_is_the_object_passed():
    compiled = ember.compile(total_or_array)
    for x in (np.full(30, -1.0), np.full(30, 2.0), np.full(30, -1.0)):
        for _ in range(3):
            got, want = compiled(x), total_or_array(x)
            if isinstance(want, np.ndarray):
                assert got is x
            else:
                same(got, want)
    before = native_calls()
    compiled(x)
    assert native_calls() == before + 1


def _module_function(source: str, name: str, **globals_):
    namespace = {"np": np, **globals_}
    exec(compile(source, f"<{name}>", "exec"), namespace)  # noqa: S102 -- the function under test
    return namespace[name], namespace


SCALED_SUM = """
def scaled_sum(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * SCALE
    return s
"""


def test_rebound_global_is_seen():
    fn, namespace = _module_function(SCALED_SUM, "scaled_sum", SCALE=2.0)
    compiled = ember.compile(fn)
    x = np.arange(40.0)
    for scale in (2.0, 2.0, 3.0, 3.0, -1.5, 2.0):
        namespace["SCALE"] = scale
        for _ in range(2):
            same(compiled(x), fn(x))
    namespace["unrelated"] = 1  # another key: a new version tag, same item
    same(compiled(x), fn(x))
    del namespace["SCALE"]
    with pytest.raises(NameError):
        compiled(x)


def test_shadowed_and_restored_builtin_is_seen():
    fn, namespace = _module_function(SCALED_SUM, "scaled_sum", SCALE=1.0)
    compiled = ember.compile(fn)
    x = np.arange(40.0)
    for _ in range(3):
        same(compiled(x), fn(x))
    namespace["range"] = lambda n: [0, 1]  # a global shadowing the builtin
    for _ in range(2):
        same(compiled(x), fn(x))
    del namespace["range"]
    for _ in range(2):
        same(compiled(x), fn(x))


def test_replaced_builtins_dict_is_seen():
    fn, namespace = _module_function(SCALED_SUM, "scaled_sum", SCALE=1.0)
    compiled = ember.compile(fn)
    x = np.arange(40.0)
    for _ in range(3):
        same(compiled(x), fn(x))
    import builtins
    own = dict(vars(builtins))
    own["range"] = lambda n: [0, 1, 2]
    namespace["__builtins__"] = own
    other = types.FunctionType(fn.__code__, namespace)
    compiled_other = ember.compile(other)
    for _ in range(2):
        same(compiled_other(x), other(x))
        same(compiled(x), fn(x))


def test_two_functions_one_code_other_globals():
    first, _ = _module_function(SCALED_SUM, "scaled_sum", SCALE=1.0)
    second, _ = _module_function(SCALED_SUM, "scaled_sum", SCALE=5.0)
    x = np.arange(40.0)
    a, b = ember.compile(first), ember.compile(second)
    for _ in range(3):
        same(a(x), first(x))
        same(b(x), second(x))


def test_runs_of_changing_length_and_threads():
    compiled = ember.compile(steps_to_zero)
    short = np.ones(50, dtype=np.int64)
    long = np.full(50, 2**62, dtype=np.int64)
    for x in (short, short, long, short, long, long, short):
        same(compiled(x), steps_to_zero(x))
    errors = []

    def worker(seed):
        rng = np.random.default_rng(seed)
        try:
            for _ in range(40):
                x = rng.integers(0, 2**rng.integers(1, 62), 50)
                assert compiled(x) == steps_to_zero(x)
        except Exception as err:  # noqa: BLE001 -- reported below
            errors.append(err)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
