"""Exceptions, iterators and recursion as an outsider probes them: the types and messages of
IndexError, ValueError and TypeError raised by NumPy inside compiled code, exceptions in the
middle of a loop that leave earlier writes to arrays, lists and dicts visible, `assert` and
exceptions of the program's own, `try`/`except`/`else`/`finally` around NumPy calls,
generators and iterators consumed partly (inside, and across the call: an iterator passed in
and read again afterwards), `itertools.islice`, a generator that writes to an array between
yields, recursion over halves of an array and mutual recursion, and a compiled function that
calls itself through its global name. Each program runs unwrapped and compiled on both
backends, compared as a `record`; the programs in `COMPILES` must run as compiled graphs."""

from __future__ import annotations

import numpy as np
import pytest
from probe_harness import assert_scenario_as_numpy, define, record

X = np.array([3.0, -1.0, 4.0, 1.5, -5.0, 9.0])

PROGRAMS = {
    "index_error_message_and_type":
        ("def f(x):\n    y = x * 2\n    return y[len(x) + 1]\n", X),
    "index_error_of_a_2d_axis":
        ("def f(x):\n    m = x.reshape(2, 3)\n    return m[0, 3]\n", X),
    "too_many_indices":
        ("def f(x):\n    return (x + 1)[0, 0]\n", X),
    "broadcast_value_error_message":
        ("def f(x):\n    return x + x[:4]\n", X),
    "setitem_shape_mismatch_message":
        ("def f(x):\n    x[:3] = x[:2] * 2\n    return x\n", X),
    "type_error_of_a_ufunc_on_strings":
        ("def f(x):\n    return np.add(x, 'a')\n", X),
    "type_error_of_float_index":
        ("def f(x):\n    return x[1.0]\n", X),
    "value_error_of_truth_of_an_array":
        ("def f(x):\n    if x > 0:\n        return x\n    return -x\n", X),
    "axis_error_message":
        ("def f(x):\n    return (x * 2).sum(axis=1)\n", X),
    "exception_mid_loop_keeps_array_writes":
        ("def f(x, y):\n    for i in range(len(x)):\n        x[i] = x[i] * 10\n"
         "        y[i] = x[i] + 1\n    return x\n", X, X[:3].copy()),
    "exception_mid_loop_keeps_list_appends":
        ("def f(x, out):\n    for v in x:\n        out.append(float(v) * 2)\n"
         "        if v > 3.5:\n            raise ValueError(f'too big: {v}')\n    return out\n",
         X, []),
    "exception_mid_loop_keeps_dict_stores":
        ("def f(x, d):\n    for i, v in enumerate(x):\n        d[i] = v * 2\n"
         "        d['last'] = 1.0 / int(v + 1)\n    return d\n", X, {}),
    "zero_division_of_python_ints_after_writes":
        ("def f(x):\n    x[0] = 100\n    k = int(x[1] + 1)\n    return x / (10 // k)\n", X),
    "assert_with_message":
        ("def f(x):\n    y = x - 1\n    assert (y > -10).all(), f'bad {y.min()}'\n"
         "    assert y.max() < 5, 'max too big'\n    return y\n", X),
    "custom_exception_carries_an_array":
        ("class Bad(Exception):\n    pass\n"
         "def f(x):\n    y = x * 2\n    if y.sum() > 0:\n        raise Bad(y)\n    return y\n", X),
    "try_except_else_finally_around_numpy":
        ("def f(x, log):\n    try:\n        r = x[[0, 10]]\n    except IndexError as e:\n"
         "        log.append(str(e))\n        r = x[:2]\n    else:\n        log.append('else')\n"
         "    finally:\n        log.append('finally')\n    return r * 2, log\n", X, []),
    "exception_swallowed_then_arrays_used":
        ("def f(x):\n    t = x + 1\n    try:\n        t = t.reshape(4, 4)\n    except ValueError:\n"
         "        pass\n    return t * 2\n", X),
    "generator_consumed_partly_inside":
        ("def f(x):\n    g = (v * 2 for v in x)\n    first = next(g)\n    second = next(g)\n"
         "    return first, second, sum(g)\n", X),
    "generator_function_yields_views":
        ("def rows(m):\n    for r in m:\n        yield r\n"
         "def f(x):\n    m = x.reshape(3, 2)\n    g = rows(m)\n    a = next(g)\n    a += 1\n"
         "    return a, next(g), x\n", X),
    "generator_writes_between_yields":
        ("def f(x):\n    def bump():\n        for i in range(len(x)):\n            x[i] += 1\n"
         "            yield x.sum()\n    g = bump()\n    return next(g), next(g), x\n", X),
    "islice_and_zip_of_generators":
        ("import itertools\n"
         "def f(x):\n    g = (v + 1 for v in x)\n    head = list(itertools.islice(g, 2))\n"
         "    pairs = list(zip(g, x))\n    return head, pairs\n", X),
    "enumerate_break_then_resume_the_iterator":
        ("def f(x):\n    it = iter(x)\n    t = 0.0\n    for v in it:\n        if v < 0:\n"
         "            break\n        t += v\n    return t, list(it)\n", X),
    "recursion_over_halves":
        ("def total(x):\n    if len(x) <= 2:\n        return x.sum()\n    h = len(x) // 2\n"
         "    return total(x[:h]) + total(x[h:])\n"
         "def f(x):\n    return total(x * 2), total(x[::-1])\n", X),
    "mutual_recursion":
        ("def even(x, n):\n    return x if n == 0 else odd(x * 2, n - 1)\n"
         "def odd(x, n):\n    return -x if n == 0 else even(x + 1, n - 1)\n"
         "def f(x):\n    return even(x, 3), odd(x, 4)\n", X),
    "recursion_that_writes_in_place":
        ("def fill(x, i):\n    if i == len(x):\n        return x\n"
         "    x[i] = x[i - 1] * 2 if i else 1.0\n    return fill(x, i + 1)\n"
         "def f(x):\n    return fill(x, 0)\n", X),
}

COMPILES = {"generator_consumed_partly_inside", "recursion_over_halves", "mutual_recursion",
            "islice_and_zip_of_generators", "enumerate_break_then_resume_the_iterator",
            "exception_swallowed_then_arrays_used"}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_outsider_flow_as_numpy(name):
    source, *args = PROGRAMS[name]
    fn = define(source)
    assert_scenario_as_numpy(lambda wrap: [record(wrap(fn), tuple(args)),
                                           record(wrap(fn), tuple(args))],
                             compiled_code=name in COMPILES, falls_back=True)


def _iterator_passed_in(wrap):
    f = wrap(define("def f(it, x):\n    a = next(it)\n    b = next(it)\n    return x * a + b\n"))
    it = iter([1.0, 2.0, 3.0, 4.0, 5.0])
    seen = [record(f, (it, X)), record(f, (it, X)), repr(list(it))]
    return seen


def test_an_iterator_passed_in_is_left_where_python_leaves_it():
    assert_scenario_as_numpy(_iterator_passed_in, compiled_code=False)


def _calls_itself_by_name(wrap):
    plain = define("def f(x, n):\n    if n == 0:\n        return x\n    return f(x + 1, n - 1) * 2\n")
    f = wrap(plain)
    plain.__globals__["f"] = f
    return [record(f, (X, 3)), record(f, (X, 2))]


def test_a_compiled_function_calling_itself_through_its_global_name():
    assert_scenario_as_numpy(_calls_itself_by_name, compiled_code=False)
