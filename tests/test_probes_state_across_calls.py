"""Probes of a sceptic: generators and iterators consumed partly across calls, `nonlocal`
and `global` writes inside compiled loops, exceptions raised mid-loop after writes, `try`
around loops, `np.errstate` and `np.printoptions` inside loops, recursion, mutable defaults,
class attributes changed between calls, `__slots__`, `functools.partial`/`lru_cache` helpers
and `np.random.Generator` draws between array ops. Each scenario is compiled on both backends; every call must give
plain NumPy's `record`, and the state left behind must be plain NumPy's."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from probe_harness import assert_scenario_as_numpy, define, record


def arr():
    return np.array([1.0, -2.0, 3.0, 0.5, -0.25, 4.0])


# 1. generator consumed partly across calls

def s_gen(wrap):
    src = "def f(a):\n    s = a * 0\n    for k in range(2):\n        s = s + next(g) * a\n    return s\n"
    g = (float(i) for i in range(10))
    f = wrap(define(src, g=g))
    return [record(f, (arr(),)) for _ in range(3)] + [list(g)]


def s_gen2(wrap):
    src = "def f(a, it):\n    out = []\n    for x in it:\n        out.append(a * x)\n        if x > 1:\n            break\n    return out\n"
    f = wrap(define(src))
    it = iter([0.5, 2.0, 3.0, 4.0, 5.0, 0.1])
    return [record(f, (arr(), it)) for _ in range(3)]


def s_gen3(wrap):
    src = ("def gen(a):\n    for i in range(a.shape[0]):\n        yield a[i] * 2\n"
           "def f(a):\n    g = gen(a)\n    first = next(g)\n    rest = sum(g)\n    return first, rest\n")
    f = wrap(define(src))
    return [record(f, (arr(),)) for _ in range(2)]


def s_zip_gen(wrap):
    src = "def f(a, g):\n    t = 0.0\n    for x, y in zip(a, g):\n        t += x * y\n    return t\n"
    f = wrap(define(src))
    g = iter(range(100))
    return [record(f, (arr(), g)) for _ in range(2)] + [next(g)]

# 2. nonlocal/global writes inside compiled loops

def s_nonlocal(wrap):
    src = ("def make():\n    count = 0\n    def f(a):\n        nonlocal count\n        s = 0.0\n"
           "        for i in range(a.shape[0]):\n            if a[i] > 0:\n                count += 1\n            s += a[i]\n"
           "        return s, count\n    return f\n")
    f = wrap(define(src, "make")())
    return [record(f, (arr(),)) for _ in range(3)]


def s_global(wrap):
    src = ("TOTAL = 0.0\ndef f(a):\n    global TOTAL\n    for i in range(a.shape[0]):\n        TOTAL += a[i]\n    return TOTAL\n")
    f = define(src)
    g = wrap(f)
    r = [record(g, (arr(),)) for _ in range(3)]
    return r + [repr(f.__globals__["TOTAL"])]


def s_global_arr(wrap):
    src = ("BUF = np.zeros(6)\ndef f(a):\n    global BUF\n    for i in range(a.shape[0]):\n        BUF = BUF + a\n    return BUF.sum()\n")
    f = define(src)
    g = wrap(f)
    r = [record(g, (arr(),)) for _ in range(2)]
    return r + [repr(f.__globals__["BUF"])]

# 3. exceptions mid-loop after in-place writes

def s_exc(wrap):
    src = ("def f(a, idx):\n    for k in idx:\n        a[k] = a[k] * 10\n    return a\n")
    f = wrap(define(src))
    return [record(f, (arr(), [0, 2, 9, 1])) for _ in range(2)]


def s_exc2(wrap):
    src = ("def f(a):\n    for i in range(a.shape[0]):\n        if a[i] < 0:\n            raise ValueError(f'negative at {i}')\n        a[i] = np.sqrt(a[i])\n    return a\n")
    f = wrap(define(src))
    return [record(f, (arr(),)) for _ in range(2)]


def s_exc3(wrap):
    src = ("def f(a, out):\n    for i in range(a.shape[0]):\n        out.append(a[i] * 2)\n        if a[i] < 0:\n            raise ValueError(i)\n    return out\n")
    f = wrap(define(src))
    res = []
    for _ in range(2):
        out = []
        res.append(record(f, (arr(), out)))
        res.append(repr(out))
    return res


def s_exc4(wrap):
    src = ("def f(a, d):\n    for i in range(a.shape[0]):\n        d[i] = float(a[i])\n        x = 1 / (a[i] - 3.0) if a[i] != 3.0 else {}[i]\n    return d\n")
    f = wrap(define(src))
    res = []
    for _ in range(2):
        d = {}
        res.append(record(f, (arr(), d)))
        res.append(repr(d))
    return res

# 4. try/except/finally around loops

def s_try(wrap):
    src = ("def f(a):\n    log = []\n    try:\n        for i in range(a.shape[0]):\n            a[i] = 1.0 / a[i]\n            if a[i] > 1.5:\n                raise RuntimeError('big')\n    except RuntimeError as e:\n        log.append(str(e))\n    finally:\n        log.append('done')\n    return a, log\n")
    f = wrap(define(src))
    return [record(f, (arr(),)) for _ in range(2)]


def s_try2(wrap):
    src = ("def f(a):\n    s = 0.0\n    for i in range(a.shape[0]):\n        try:\n            s += [1.0, 2.0, 3.0][int(a[i])]\n        except IndexError:\n            s -= 1\n    return s\n")
    f = wrap(define(src))
    return [record(f, (arr(),)) for _ in range(2)]


def s_try3(wrap):
    src = ("def f(a):\n    try:\n        with np.errstate(divide='raise'):\n            for i in range(a.shape[0]):\n                a[i] = 1.0 / (a[i] - 3.0)\n    except FloatingPointError as e:\n        return 'fpe', a\n    return 'ok', a\n")
    f = wrap(define(src))
    return [record(f, (arr(),)) for _ in range(2)]

# 5. with blocks inside loops

def s_with(wrap):
    src = ("def f(a):\n    s = np.zeros_like(a)\n    for i in range(3):\n        with np.errstate(invalid='ignore', divide='ignore'):\n            s = s + np.log(a - i)\n        s = s + np.sqrt(a)\n    return s\n")
    f = wrap(define(src))
    return [record(f, (arr(),)) for _ in range(2)]


def s_with2(wrap):
    src = ("def f(a):\n    out = []\n    for p in (2, 4):\n        with np.printoptions(precision=p):\n            print(a / 3)\n            out.append(str(a / 7))\n    print(a / 3)\n    return out\n")
    f = wrap(define(src))
    return [record(f, (arr(),)) for _ in range(2)]

# 6. recursion

def s_rec(wrap):
    src = ("def f(a, n):\n    if n == 0:\n        return a.sum()\n    return f(a * 0.5, n - 1) + a[0]\n")
    f = wrap(define(src))
    return [record(f, (arr(), 3)) for _ in range(2)] + [record(f, (arr(), 5))]


def s_rec2(wrap):
    src = ("def f(a):\n    if a.shape[0] <= 1:\n        return a.copy()\n    m = a.shape[0] // 2\n    l, r = f(a[:m]), f(a[m:])\n    return np.concatenate([np.maximum(l, r.max()), r])\n")
    f = wrap(define(src))
    return [record(f, (arr(),)) for _ in range(2)]

# 7. default mutable arguments

def s_default(wrap):
    src = ("def f(a, seen=[]):\n    seen.append(a.sum())\n    return len(seen), sum(seen)\n")
    f = wrap(define(src))
    return [record(f, (arr(),)) for _ in range(3)]


def s_default2(wrap):
    src = ("def f(a, cache={}):\n    k = a.shape[0]\n    if k not in cache:\n        cache[k] = a * 2\n    return cache[k] + a\n")
    f = wrap(define(src))
    return [record(f, (arr(),)) for _ in range(2)] + [record(f, (arr() + 1,))]


def s_default3(wrap):
    src = ("def f(a, buf=np.zeros(6)):\n    buf += a\n    return buf.copy()\n")
    f = wrap(define(src))
    return [record(f, (arr(),)) for _ in range(3)]

# 8. class attributes changed between calls

def s_cls(wrap):
    src = ("class K:\n    scale = 2.0\n    def __init__(self):\n        self.b = 1.0\ndef f(a, k):\n    return a * k.scale + k.b\n")
    ns_f = define(src)
    K = ns_f.__globals__["K"]
    f = wrap(ns_f)
    k = K()
    r = [record(f, (arr(), k))]
    K.scale = 3.0
    r.append(record(f, (arr(), k)))
    k.scale = -1.0
    r.append(record(f, (arr(), k)))
    del k.scale
    r.append(record(f, (arr(), k)))
    return r


def s_slots(wrap):
    src = ("class P:\n    __slots__ = ('w', 'n')\n    def __init__(self, w, n):\n        self.w = w\n        self.n = n\n"
           "def f(a, p):\n    for i in range(p.n):\n        a = a * p.w\n    p.w = p.w + 1\n    return a\n")
    ff = define(src)
    P = ff.__globals__["P"]
    f = wrap(ff)
    p = P(0.5, 2)
    r = [record(f, (arr(), p)) for _ in range(3)]
    p.n = 4
    r.append(record(f, (arr(), p)))
    return r + [repr((p.w, p.n))]

# 9. functools.partial / lru_cache

def s_partial(wrap):
    src = "def f(a, h):\n    return h(a) + h(a * 2)\n"
    f = wrap(define(src))
    h = functools.partial(np.clip, a_min=-1.0, a_max=2.0)
    h2 = functools.partial(np.clip, a_min=0.0, a_max=1.0)
    return [record(f, (arr(), h)), record(f, (arr(), h)), record(f, (arr(), h2))]


def s_lru(wrap):
    src = ("import functools\n@functools.lru_cache(maxsize=None)\ndef coef(n):\n    print('coef', n)\n    return 1.0 / (n + 1)\n"
           "def f(a):\n    s = a * 0\n    for i in range(3):\n        s = s + coef(i) * a\n    return s\n")
    f = wrap(define(src))
    return [record(f, (arr(),)) for _ in range(2)]


def s_partial_user(wrap):
    src = ("import functools\ndef lin(a, w, b):\n    return a * w + b\ndef f(a):\n    g = functools.partial(lin, w=2.0)\n    return g(a, b=1.0), g(a, b=-1.0)\n")
    f = wrap(define(src))
    return [record(f, (arr(),)) for _ in range(2)]

# 10. np.random.Generator between array ops

def s_rng(wrap):
    src = ("def f(a):\n    b = a * 2\n    n = rng.normal(size=a.shape)\n    c = b + n\n    u = rng.random()\n    return c * u\n")
    rng = np.random.default_rng(5)
    f = wrap(define(src, rng=rng))
    r = [record(f, (arr(),)) for _ in range(3)]
    return r + [repr(rng.random())]


def s_rng2(wrap):
    src = ("def f(a):\n    s = 0.0\n    for i in range(a.shape[0]):\n        s += a[i] * rng.random()\n        if rng.integers(0, 3) == 0:\n            s -= 1\n    return s\n")
    rng = np.random.default_rng(7)
    f = wrap(define(src, rng=rng))
    r = [record(f, (arr(),)) for _ in range(3)]
    return r + [repr(rng.random())]


def s_rng3(wrap):
    src = ("def f(a):\n    idx = rng.permutation(a.shape[0])\n    b = a[idx]\n    rng.shuffle(b)\n    c = rng.choice(b, size=3, replace=False)\n    return b, c, rng.uniform(-1, 1, size=2)\n")
    rng = np.random.default_rng(11)
    f = wrap(define(src, rng=rng))
    r = [record(f, (arr(),)) for _ in range(3)]
    return r + [repr(rng.random())]


def s_rng4(wrap):
    src = ("def f(a):\n    b = a + rng.standard_normal(a.shape)\n    print('step')\n    return b + rng.standard_normal(a.shape)\n")
    rng = np.random.default_rng(3)
    f = wrap(define(src, rng=rng))
    r = [record(f, (arr(),)) for _ in range(2)]
    return r + [repr(rng.random())]


SCENARIOS = {
    "generator_partly": s_gen,
    "iterator_break_resume": s_gen2,
    "user_generator_inside": s_gen3,
    "zip_with_iterator_consumes": s_zip_gen,
    "nonlocal_counter_in_loop": s_nonlocal,
    "global_accumulator_in_loop": s_global,
    "global_array_rebound_in_loop": s_global_arr,
    "index_error_after_writes": s_exc,
    "raise_after_writes": s_exc2,
    "raise_after_list_appends": s_exc3,
    "keyerror_after_dict_writes": s_exc4,
    "try_except_finally_loop": s_try,
    "try_in_loop_body": s_try2,
    "errstate_raise_in_try_partial": s_try3,
    "errstate_inside_loop": s_with,
    "printoptions_in_loop": s_with2,
    "recursion_numeric": s_rec,
    "recursion_split": s_rec2,
    "default_list_grows": s_default,
    "default_dict_cache": s_default2,
    "default_array_accumulates": s_default3,
    "class_attribute_changed": s_cls,
    "slots_object": s_slots,
    "partial_helper": s_partial,
    "lru_cache_helper": s_lru,
    "partial_of_user_function": s_partial_user,
    "rng_between_ops": s_rng,
    "rng_in_loop": s_rng2,
    "rng_permutation_shuffle_choice": s_rng3,
    "rng_across_break": s_rng4,
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_behaves_as_numpy(name):
    assert_scenario_as_numpy(SCENARIOS[name], compiled_code=False)
