"""Probes of a sceptic: more of the same classes: a generator left by `break`, an iterator
raising mid-`enumerate`, globals changed between calls, out-of-bounds and zero-division
mid-loop after writes, `finally` after a `return` in a loop, user context managers, errstate
per trip, properties with side effects, `__slots__` arrays, NumPy's legacy global random
state, and `try`/`except`/`continue`/`finally` in a loop whose `except` runs on. Each scenario is compiled on both backends; every call must give
plain NumPy's `record`, and the state left behind must be plain NumPy's."""

from __future__ import annotations

import numpy as np
import pytest
from probe_harness import assert_scenario_as_numpy, define, record


def arr():
    return np.array([1.0, -2.0, 3.0, 0.5, -0.25, 4.0])


def s_gen_break(wrap):
    g = (i * 0.5 for i in range(20))
    f = wrap(define("def f(a):\n    s = 0.0\n    for x in g:\n        s += a[int(x) % 6] * x\n        if x > 2:\n            break\n    return s\n", g=g))
    return [record(f, (arr(),)) for _ in range(3)] + [list(g)]


def s_enum_gen_exc(wrap):
    g = iter([0, 1, 2, 7, 3, 4])
    f = wrap(define("def f(a):\n    for k, i in enumerate(g):\n        a[i] = k\n    return a\n", g=g))
    return [record(f, (arr(),)) for _ in range(2)] + [list(g)]


def s_map_gen(wrap):
    g = map(float, range(100))
    f = wrap(define("def f(a):\n    return a * next(g) + next(g)\n", g=g))
    return [record(f, (arr(),)) for _ in range(3)] + [next(g)]


def s_closure_rebind(wrap):
    src = ("def make():\n    acc = np.zeros(6)\n    def f(a):\n        nonlocal acc\n        for i in range(2):\n            acc = acc + a * i\n        return acc\n    return f\n")
    f = wrap(define(src, "make")())
    return [record(f, (arr(),)) for _ in range(3)]


def s_global_changed(wrap):
    ff = define("SCALE = 2.0\ndef f(a):\n    s = 0.0\n    for i in range(a.shape[0]):\n        s += a[i] * SCALE\n    return s\n")
    f = wrap(ff)
    r = [record(f, (arr(),))]
    ff.__globals__["SCALE"] = 3
    r.append(record(f, (arr(),)))
    ff.__globals__["SCALE"] = np.float32(1.5)
    r.append(record(f, (arr(),)))
    return r


def s_bad_index_loop(wrap):
    f = wrap(define("def f(a, idx):\n    for i in range(idx.shape[0]):\n        a[idx[i]] = a[idx[i]] + 100\n    return a\n"))
    return [record(f, (arr(), np.array([0, 2, 6, 1]))) for _ in range(2)] + [record(f, (arr(), np.array([0, -7, 1])))]


def s_int_div0_loop(wrap):
    f = wrap(define("def f(a, b):\n    for i in range(a.shape[0]):\n        a[i] = 12 // b[i]\n    return a\n"))
    return [record(f, (np.arange(5), np.array([3, 2, 0, 4, 1]))) for _ in range(2)]


def s_py_zerodiv(wrap):
    f = wrap(define("def f(a):\n    t = 0.0\n    for i in range(a.shape[0]):\n        a[i] = 2.0\n        t += 1.0 / float(a[i] - a[i])\n    return t\n"))
    return [record(f, (arr(),)) for _ in range(2)]


def s_finally_writes(wrap):
    f = wrap(define("def f(a):\n    try:\n        for i in range(a.shape[0]):\n            a[i] = a[i] * 2\n            if a[i] > 5:\n                return i\n    finally:\n        a[0] = -1.0\n    return -1\n"))
    return [record(f, (arr(),)) for _ in range(2)]


def s_except_continue(wrap):
    f = wrap(define("def f(a, keys):\n    d = {'x': 1.0, 'y': 2.0}\n    out = []\n    for k in keys:\n        try:\n            out.append(a * d[k])\n        except KeyError:\n            continue\n        finally:\n            out.append(k)\n    return out\n"))
    return [record(f, (arr(), ['x', 'q', 'y'])) for _ in range(2)]


class Ctx:
    def __init__(self): self.log = []
    def __enter__(self): self.log.append('in'); return self
    def __exit__(self, *exc): self.log.append('out' if exc[0] is None else exc[0].__name__); return False

def s_user_ctx(wrap):
    c = Ctx()
    f = wrap(define("def f(a):\n    s = a * 0\n    for i in range(3):\n        with c:\n            s = s + a / (i - 1.5)\n    return s\n", c=c))
    return [record(f, (arr(),)) for _ in range(2)] + [c.log]


def s_ctx_exc(wrap):
    c = Ctx()
    f = wrap(define("def f(a):\n    with c:\n        for i in range(a.shape[0]):\n            a[i] = a[i] + 1\n            if a[i] > 3:\n                raise ValueError(i)\n    return a\n", c=c))
    return [record(f, (arr(),)) for _ in range(2)] + [c.log]


def s_errstate_loop_raise(wrap):
    f = wrap(define("def f(a):\n    out = np.zeros_like(a)\n    for i in range(a.shape[0]):\n        with np.errstate(invalid='raise'):\n            out[i] = np.sqrt(a[i])\n    return out\n"))
    return [record(f, (arr(),)) for _ in range(2)]


def s_errstate_mixed(wrap):
    f = wrap(define("def f(a):\n    s = 0.0\n    for i in range(a.shape[0]):\n        with np.errstate(all='ignore'):\n            t = np.log(a[i])\n        s += np.sqrt(a[i]) + (t if t == t else 0.0)\n    return s\n"))
    return [record(f, (arr(),)) for _ in range(2)]


def s_rec_list(wrap):
    f = wrap(define("def f(a, depth=0, acc=None):\n    if acc is None:\n        acc = []\n    acc.append(a.sum())\n    if depth < 3:\n        f(a[1:], depth + 1, acc)\n    return acc\n"))
    return [record(f, (arr(),)) for _ in range(2)]


def s_lru_array(wrap):
    src = "import functools\n@functools.lru_cache\ndef h(x):\n    return x * 2\ndef f(a):\n    return h(a)\n"
    f = wrap(define(src))
    return [record(f, (arr(),)) for _ in range(2)]


def s_lru_shape(wrap):
    src = "import functools\nCALLS = []\n@functools.lru_cache\ndef w(n):\n    CALLS.append(n)\n    return np.linspace(0, 1, n)\ndef f(a):\n    return a * w(a.shape[0]) + w(a.shape[0]).sum()\n"
    ff = define(src)
    f = wrap(ff)
    r = [record(f, (arr(),)) for _ in range(2)]
    return r + [list(ff.__globals__["CALLS"])]


def s_cls_array_attr(wrap):
    src = "class M:\n    w = np.ones(6)\ndef f(a):\n    return a * M.w\n"
    ff = define(src)
    M = ff.__globals__["M"]
    f = wrap(ff)
    r = [record(f, (arr(),))]
    M.w[2] = 7.0
    r.append(record(f, (arr(),)))
    M.w = np.full(6, 0.5)
    r.append(record(f, (arr(),)))
    return r


def s_property(wrap):
    src = "class Q:\n    def __init__(self):\n        self.n = 0\n    @property\n    def k(self):\n        self.n += 1\n        return self.n\ndef f(a, q):\n    return a * q.k + q.k\n"
    ff = define(src)
    Q = ff.__globals__["Q"]
    f = wrap(ff)
    q = Q()
    r = [record(f, (arr(), q)) for _ in range(3)]
    return r + [q.n]


def s_slots_arr(wrap):
    src = ("class S:\n    __slots__ = ('buf',)\n    def __init__(self):\n        self.buf = np.zeros(6)\n"
           "def f(a, s):\n    for i in range(a.shape[0]):\n        s.buf[i] += a[i]\n    s.buf = s.buf * 2\n    return s.buf.sum()\n")
    ff = define(src)
    S = ff.__globals__["S"]
    f = wrap(ff)
    s = S()
    r = [record(f, (arr(), s)) for _ in range(3)]
    return r + [repr(s.buf)]


def s_legacy_random(wrap):
    f = wrap(define("def f(a):\n    b = a * 2\n    c = b + np.random.rand(6)\n    return c, np.random.randint(0, 10)\n"))
    np.random.seed(1)
    r = [record(f, (arr(),)) for _ in range(2)]
    return r + [np.random.rand()]


def s_rng_loop_size(wrap):
    rng = np.random.default_rng(2)
    f = wrap(define("def f(a):\n    out = []\n    for i in range(1, 4):\n        out.append(a[:i] + rng.normal(size=i))\n    return out, rng.integers(0, 100, size=2)\n", rng=rng))
    return [record(f, (arr(),)) for _ in range(2)] + [repr(rng.random())]


def s_rng_exception(wrap):
    rng = np.random.default_rng(4)
    f = wrap(define("def f(a):\n    for i in range(a.shape[0]):\n        x = rng.random()\n        if a[i] < 0:\n            raise ValueError(x)\n    return x\n", rng=rng))
    return [record(f, (arr(),)) for _ in range(2)] + [repr(rng.random())]


SCENARIOS = {
    "gen_break_then_rest": s_gen_break,
    "enumerate_iterator_index_error": s_enum_gen_exc,
    "map_iterator_two_next": s_map_gen,
    "nonlocal_array_rebound_in_loop": s_closure_rebind,
    "global_changed_between_calls": s_global_changed,
    "out_of_bounds_mid_loop": s_bad_index_loop,
    "int_div_zero_loop": s_int_div0_loop,
    "python_zero_division_after_write": s_py_zerodiv,
    "finally_after_return_in_loop": s_finally_writes,
    "try_except_continue_finally": s_except_continue,
    "user_context_manager_in_loop": s_user_ctx,
    "user_context_manager_exception": s_ctx_exc,
    "errstate_raise_per_trip": s_errstate_loop_raise,
    "errstate_ignore_then_warn": s_errstate_mixed,
    "recursion_shared_list": s_rec_list,
    "lru_cache_unhashable_array": s_lru_array,
    "lru_cache_array_result": s_lru_shape,
    "class_array_attribute_mutated": s_cls_array_attr,
    "property_with_side_effect": s_property,
    "slots_array_attribute": s_slots_arr,
    "legacy_global_random": s_legacy_random,
    "rng_sizes_in_loop": s_rng_loop_size,
    "rng_state_after_exception": s_rng_exception,
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_behaves_as_numpy(name):
    assert_scenario_as_numpy(SCENARIOS[name], compiled_code=False)


# A graph break inside `try` below a pending method call (`out.append(a * d[k])`, a key
# missing): the handler runs on into the same call as plain Python.
TRY_METHOD_CALLS = {
    "list_append": ("def f(a, keys):\n    d = {'x': 1.0, 'y': 2.0}\n    out = []\n"
                    "    for k in keys:\n        try:\n            out.append(a * d[k])\n"
                    "        except KeyError:\n            pass\n    return out\n"),
    "user_method": ("class Acc:\n    def __init__(self):\n        self.items = []\n"
                    "    def add(self, x):\n        self.items.append(x)\n"
                    "def f(a, keys):\n    d = {'x': 1.0, 'y': 2.0}\n    acc = Acc()\n"
                    "    for k in keys:\n        try:\n            acc.add(a * d[k])\n"
                    "        except KeyError:\n            acc.add(None)\n    return acc.items\n"),
    "while_with_finally": ("def f(a, keys):\n    d = {'x': 1.0, 'y': 2.0}\n    out = []\n"
                           "    i = 0\n    while i < len(keys):\n        try:\n"
                           "            out.extend([a * d[keys[i]]])\n        except KeyError:\n"
                           "            out.append(i)\n        finally:\n            i += 1\n"
                           "    return out\n"),
    "index_error": ("def f(a, keys):\n    out = []\n    for j in range(4):\n        try:\n"
                    "            out.append(a[j * 2] * 2)\n        except IndexError:\n"
                    "            out.append(-1)\n    return out\n"),
}


@pytest.mark.parametrize("name", sorted(TRY_METHOD_CALLS))
def test_handlers_running_on_into_a_method_call(name):
    def scenario(wrap):
        f = wrap(define(TRY_METHOD_CALLS[name]))
        return [record(f, (arr(), ["x", "q", "y"])) for _ in range(2)]

    assert_scenario_as_numpy(scenario, compiled_code=False)
