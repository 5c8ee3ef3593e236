"""Results the native fast path builds without a graph output for each of them: entries that
return constants alone (no graph to run), arguments returned as they were passed, tuples
mixing graph outputs, constants and arguments; and NumPy scalar arguments read natively on the
kept layouts (`rust/py/src/hot.rs`). Each against plain NumPy (value, type, identity,
aliasing), with the guards still sending changed globals, types and shapes elsewhere, and the
calls counted in `ember.stats()["native_calls"]`.
"""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import aliasing, assert_same

LIMIT = 3
NAME = "ember"
SCALES = (1.0, 2.5)


def native_calls() -> int:
    return ember.stats()["native_calls"]


def answered_natively(compiled, *args, **kwargs) -> tuple[object, bool]:
    before = native_calls()
    result = compiled(*args, **kwargs)
    return result, native_calls() == before + 1


@pytest.fixture(autouse=True)
def _fresh():
    ember.reset()
    yield
    ember.reset()


def one():
    return 1.0


def pair():
    return 2, "a"


def nothing_at_all():
    pass


def limit_global():
    return LIMIT


def name_and_scales():
    return NAME, SCALES  # a str equal to the global's, and the global tuple itself


def numpy_constant():
    return np.float32(0.5)


def identity(x):
    return x


def argument_and_sum(x, y):
    return x, x + y


def sum_and_constant(x, y):
    return x + y, 3


def mixed(x, y, flag=True):
    return x * y, flag, None, y


def shape_count(x):
    return len(x.shape)


class Holder:
    def constant(self):
        return 7

    def myself(self):
        return self


CONSTANT_CASES = [
    (one, ()), (pair, ()), (nothing_at_all, ()), (limit_global, ()),
    (name_and_scales, ()), (numpy_constant, ()),
    (identity, (np.arange(3.0),)), (identity, (2.5,)),
    (argument_and_sum, (np.arange(3.0), np.ones(3))),
    (sum_and_constant, (np.arange(4), np.arange(4))),
    (mixed, (np.arange(3.0), np.full(3, 2.0))),
    (shape_count, (np.zeros((2, 3)),)),
]


@pytest.mark.parametrize("fn, args", CONSTANT_CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_results_of_constants_and_arguments_are_built_natively(fn, args):
    compiled = ember.compile(fn)
    first = compiled(*args)
    result, native = answered_natively(compiled, *args)
    assert native, f"{fn.__name__}: the fast path did not answer"
    want = fn(*args)
    for got in (first, result):
        assert type(got) is type(want)
        assert_same(got, want, rtol=0, atol=0)
        assert aliasing(got, args) == aliasing(want, args)
    # A constant of the code is the same object on every call.
    if not args and any(want is c for c in fn.__code__.co_consts):
        assert compiled() is compiled()


def test_a_global_tuple_returned_is_the_global_itself():
    compiled = ember.compile(name_and_scales)
    for _ in range(3):
        name, scales = compiled()
        assert name == NAME and scales is SCALES


def test_an_argument_returned_is_the_same_object():
    x = np.arange(5.0)
    compiled = ember.compile(argument_and_sum)
    compiled(x, x)
    (same, total), native = answered_natively(compiled, x, x)
    assert native and same is x
    assert_same(total, x + x, rtol=0, atol=0)


def test_methods_returning_constants_and_themselves():
    holder = Holder()
    constant, myself = ember.compile(Holder.constant), ember.compile(Holder.myself)
    assert constant(holder) == 7 and myself(holder) is holder
    assert answered_natively(constant, holder) == (7, True)
    result, native = answered_natively(myself, holder)
    assert native and result is holder


def test_a_constant_read_from_a_global_follows_the_global(monkeypatch):
    compiled = ember.compile(limit_global)
    assert compiled() == 3
    assert answered_natively(compiled) == (3, True)
    monkeypatch.setitem(globals(), "LIMIT", 4)
    assert compiled() == 4  # the guard on the global fails: captured again
    assert answered_natively(compiled) == (4, True)
    monkeypatch.setitem(globals(), "LIMIT", [1])
    assert compiled() == [1] and compiled() is LIMIT  # a mutable object: the entry's own


def test_a_shape_read_as_a_constant_is_guarded():
    compiled = ember.compile(shape_count)
    assert compiled(np.zeros((2, 3))) == 2
    assert answered_natively(compiled, np.zeros((4, 5))) in ((2, True), (2, False))
    assert compiled(np.zeros(3)) == 1
    assert compiled(np.zeros((1, 1, 1))) == 3
    assert compiled(np.zeros((2, 3))) == 2


def test_default_and_keyword_arguments_returned():
    x, y = np.arange(3.0), np.ones(3)
    compiled = ember.compile(mixed)
    compiled(x, y)
    for kwargs in ({}, {"flag": False}, {"flag": 1}):
        result, native = answered_natively(compiled, x, y=y, **kwargs)
        want = mixed(x, y=y, **kwargs)
        assert type(result) is tuple and len(result) == 4
        assert_same(result[0], want[0], rtol=0, atol=0)
        assert result[1] is want[1] and result[2] is None and result[3] is y
        assert native or kwargs  # a new flag's type misses once, then hits


def test_mutable_constants_are_not_handed_out_twice():
    def fresh_list():
        return [1, 2]

    compiled = ember.compile(fresh_list)
    a, b = compiled(), compiled()
    assert a == [1, 2] and a is not b
    a.append(3)
    assert compiled() == [1, 2]


def scaled_by(x, s, n):
    return x * s + n


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int32, np.int8,
                                   np.uint16, np.bool_, np.float16])
def test_numpy_scalar_arguments_on_kept_layouts(dtype):
    x = np.arange(6).astype(dtype)
    compiled = ember.compile(lambda a, s: a * s)
    values = [dtype(v) for v in (1, 2, 3, 0, 1, 5)]
    compiled(x, values[0])
    for v in values:
        got = compiled(x, v)
        want = x * v
        assert got.dtype == want.dtype
        assert_same(got, want, rtol=0, atol=0)


def test_numpy_scalars_of_another_type_take_the_full_path():
    x = np.linspace(0.0, 1.0, 8)
    compiled = ember.compile(scaled_by)
    compiled(x, np.float64(2.0), np.int64(1))
    compiled(x, np.float64(3.0), np.int64(2))
    for s, n in [(np.float64(-1.5), np.int64(-7)), (np.float64(np.nan), np.int64(2**62)),
                 (np.float32(2.0), np.int64(1)), (2.0, 1), (np.float64(2.0), np.int32(3)),
                 (np.float64(0.25), np.int64(4))]:
        got, want = compiled(x, s, n), scaled_by(x, s, n)
        assert got.dtype == want.dtype
        assert_same(got, want, rtol=0, atol=0)
    before = native_calls()
    for k in range(5):
        assert_same(compiled(x, np.float64(k), np.int64(k)), x * k + k, rtol=0, atol=0)
    assert native_calls() == before + 5


def make_closures(k):
    def scaled(x):
        return x * k

    def read_cell():
        return k

    return scaled, read_cell


def test_closures_and_lambdas_returning_cells_and_defaults():
    x = np.arange(4.0)
    scaled, read_cell = make_closures(3.0)
    pair_of = lambda a, b=2.0: (a + b, b)  # noqa: E731
    for fn, args in [(scaled, (x,)), (read_cell, ()), (pair_of, (x,)), (pair_of, (x, 3.0))]:
        compiled = ember.compile(fn)
        compiled(*args)
        result, native = answered_natively(compiled, *args)
        assert native, fn.__name__
        assert_same(result, fn(*args), rtol=0, atol=0)
    # Another closure of the same code, with another cell value: its own guards.
    _, other = make_closures(5.0)
    compiled_other = ember.compile(other)
    assert compiled_other() == 5.0 and compiled_other() == 5.0


def add_one_in_place(x):
    x += 1
    return x


def set_first(x):
    x[0] = 5.0
    return x, x.sum()


def fill_doubled(x, out):
    out[...] = x * 2
    return out, 3


@pytest.mark.parametrize("fn, make", [
    (add_one_in_place, lambda: (np.arange(4.0),)),
    (set_first, lambda: (np.arange(4.0),)),
    (fill_doubled, lambda: (np.arange(3.0), np.zeros(3))),
], ids=lambda c: getattr(c, "__name__", ""))
def test_an_argument_updated_in_place_and_returned(fn, make):
    compiled = ember.compile(fn)
    compiled(*make())
    for _ in range(2):
        args, plain_args = make(), make()
        got, native = answered_natively(compiled, *args)
        want = fn(*plain_args)
        assert native
        assert_same(got, want, rtol=0, atol=0)
        for a, b in zip(args, plain_args):
            assert_same(a, b, rtol=0, atol=0)
        assert aliasing(got, args) == aliasing(want, plain_args)


def test_the_frame_hook_runs_the_same_results_natively():
    x, y = np.arange(3.0), np.ones(3)
    for fn, args in [(limit_global, ()), (argument_and_sum, (x, y)), (mixed, (x, y))]:
        compiled = ember.compile(fn)
        compiled(*args)
        before = ember.stats()["hook_direct_calls"]
        got = type(compiled).__call__(compiled, *args)  # `__call__`: through the frame hook
        assert ember.stats()["hook_direct_calls"] == before + 1
        want = fn(*args)
        assert_same(got, want, rtol=0, atol=0)
        assert aliasing(got, args) == aliasing(want, args)
