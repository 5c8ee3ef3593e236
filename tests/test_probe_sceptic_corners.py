"""Corners probed by a sceptic, in classes the other probes leave alone: ufuncs writing
`out=` over their own operands, `where=` masks, byte-swapped and unaligned inputs, object and
structured dtypes, `np.matrix` and masked arrays, NEP 50 promotion of Python scalars with
small integer and float16 arrays, integer division by zero and `MIN // -1` on every integer
dtype, shifts past the bit width, the global and Generator random streams, functions
redefined between calls, generators, exceptions caught inside, and the order of printed
output. Each program is compiled and called twice; every call must give plain NumPy's
`record` (result repr with scalar types, printed output, warnings, exceptions, arguments
afterwards, aliasing between results and arguments)."""

from __future__ import annotations

import numpy as np
import pytest
from probe_harness import assert_scenario_as_numpy, define, record


def _same(fn, make, calls=2):
    """`fn(make())` compiled (both backends) does what it does under NumPy, on every call
    (each on a new argument: a subclass is not copied by `record`)."""

    def scenario(wrap):
        f = wrap(fn)
        return [record(f, (make(),)) for _ in range(calls)]

    assert_scenario_as_numpy(scenario, compiled_code=False)


A = np.arange(1.0, 9.0)
A.flags.writeable = False  # every program gets a copy
I8 = np.array([-128, -1, 0, 1, 127], np.int8)
U8 = np.array([0, 1, 200, 255], np.uint8)
F16 = np.array([0.1, 1.5, 65504.0, -2.0, 1e-7], np.float16)

# ---- overlapping in-place updates, out= and where= -------------------------------------

OVERLAPS = {
    "shift_add": "def f(a):\n    a[1:] += a[:-1]\n    return a\n",
    "shift_add_back": "def f(a):\n    a[:-1] += a[1:]\n    return a\n",
    "reversed_add": "def f(a):\n    a[::-1] += a\n    return a\n",
    "reversed_mul": "def f(a):\n    a *= a[::-1]\n    return a\n",
    "ufunc_out_left": "def f(a):\n    np.add(a[1:], a[:-1], out=a[:-1])\n    return a\n",
    "ufunc_out_right": "def f(a):\n    np.add(a[1:], a[:-1], out=a[1:])\n    return a\n",
    "ufunc_out_strided": "def f(a):\n    np.multiply(a[::2], 2.0, out=a[1::2])\n    return a\n",
    "ufunc_out_returned": "def f(a):\n    r = np.subtract(a, 1.0, out=a)\n    return r is a, r\n",
    "out_tuple": "def f(a):\n    o = np.empty_like(a)\n    r = np.sqrt(a, out=(o,))\n    return r is o, o\n",
    "where_mask": "def f(a):\n    o = np.zeros_like(a)\n    np.add(a, 1.0, out=o, where=a > 4)\n    return o\n",
    "where_in_place": "def f(a):\n    np.negative(a, out=a, where=a < 3)\n    return a\n",
    "where_without_out": "def f(a):\n    r = np.exp(a, where=a > 100)\n    return r.shape\n",
    "slice_assign_self": "def f(a):\n    a[2:] = a[:-2]\n    return a\n",
    "slice_assign_reversed": "def f(a):\n    a[:] = a[::-1]\n    return a\n",
    "cumsum_out_self": "def f(a):\n    np.cumsum(a, out=a)\n    return a\n",
    "matmul_out_overlap": ("def f(a):\n    m = a.reshape(2, 4)\n    o = np.zeros((2, 2))\n"
                           "    np.matmul(m, m.T, out=o)\n    return o\n"),
    "add_reduce_out": ("def f(a):\n    o = np.zeros(())\n    np.add.reduce(a, out=o)\n"
                       "    return o\n"),
    "iadd_int_into_float_view": "def f(a):\n    v = a[::3]\n    v += 1\n    return a\n",
}


@pytest.mark.parametrize("name", sorted(OVERLAPS))
def test_overlapping_updates_out_and_where(name):
    _same(define(OVERLAPS[name]), A.copy)


# ---- read-only, byte order, alignment, object and structured dtypes, subclasses ---------

def _read_only():
    a = A.copy()
    a.flags.writeable = False
    return a


def _unaligned():
    raw = np.zeros(8 * 8 + 1, np.uint8)
    a = raw[1:].view(np.float64)
    a[:] = A
    return a


SWAPPED = A.astype(">f8")
STRUCTURED = np.array([(1, 2.0), (3, 4.5)], dtype=[("i", "i4"), ("x", "f8")])
OBJECTS = np.array([1, 2.5, 3], dtype=object)

LAYOUTS = {
    "read_only_add": ("def f(a):\n    return a + 1\n", _read_only),
    "read_only_iadd": ("def f(a):\n    a += 1\n    return a\n", _read_only),
    "read_only_setitem": ("def f(a):\n    a[0] = 5\n    return a\n", _read_only),
    "read_only_out": ("def f(a):\n    np.sqrt(a, out=a)\n    return a\n", _read_only),
    "read_only_view_write": ("def f(a):\n    v = a[1:]\n    v[0] = 1\n    return a\n",
                             _read_only),
    "swapped_sum": ("def f(a):\n    return a.sum(), (a * 2).dtype\n", lambda: SWAPPED.copy()),
    "swapped_elementwise": ("def f(a):\n    return np.sqrt(a) + a\n", lambda: SWAPPED.copy()),
    "swapped_in_place": ("def f(a):\n    a *= 2\n    return a, a.dtype\n",
                         lambda: SWAPPED.copy()),
    "swapped_loop": ("def f(a):\n    t = 0.0\n    for i in range(len(a)):\n"
                     "        t += a[i]\n    return t\n", lambda: SWAPPED.copy()),
    "unaligned_sum": ("def f(a):\n    return a.sum(), a * a\n", _unaligned),
    "unaligned_in_place": ("def f(a):\n    a += 1.5\n    return a\n", _unaligned),
    "structured_field": ("def f(s):\n    return s['x'] * 2, s['i'].sum()\n",
                         lambda: STRUCTURED.copy()),
    "structured_field_write": ("def f(s):\n    s['x'] += 1\n    return s\n",
                               lambda: STRUCTURED.copy()),
    "object_sum": ("def f(o):\n    return o.sum(), o * 2\n", lambda: OBJECTS.copy()),
    "object_in_place": ("def f(o):\n    o += 1\n    return o\n", lambda: OBJECTS.copy()),
    "matrix_product": ("def f(m):\n    return m * m, (m * m).shape, type(m.sum(axis=0))\n",
                       lambda: np.matrix([[1.0, 2.0], [3.0, 4.0]])),
    "matrix_row": ("def f(m):\n    return m[0], m[0].shape\n",
                   lambda: np.matrix([[1.0, 2.0], [3.0, 4.0]])),
    "masked_mean": ("def f(m):\n    return m.mean(), m + 1, (m * 2).mask\n",
                    lambda: np.ma.masked_array(A.copy(), mask=A > 5)),
    "masked_in_place": ("def f(m):\n    m += 1\n    return m\n",
                        lambda: np.ma.masked_array(A.copy(), mask=A > 5)),
    "recarray_field": ("def f(r):\n    return r.x * 2\n",
                       lambda: STRUCTURED.copy().view(np.recarray)),
}


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_flags_layouts_dtypes_and_subclasses(name):
    source, make = LAYOUTS[name]
    _same(define(source), make)


# ---- 0-d arrays versus scalars, NEP 50 promotion, integer corners, float16 --------------

SCALARS = {
    "zero_d_plus_scalar": ("def f(a):\n    z = np.array(2.0)\n    return z + a[0], type(z + 1)\n",
                           A),
    "zero_d_result_of_reduction": ("def f(a):\n    return a.sum(keepdims=True)[0], "
                                   "np.add.reduce(a)\n", A),
    "zero_d_index": ("def f(a):\n    z = a[..., 0] if a.ndim == 0 else a[0, ...]\n"
                     "    return z, type(z)\n", A),
    "zero_d_in_place": ("def f(a):\n    z = np.array(1.0)\n    z += a[1]\n    return z\n", A),
    "int8_plus_python_int": ("def f(a):\n    return a + 1, a * 2, a - 3\n", I8),
    "int8_plus_out_of_range": ("def f(a):\n    return a + 300\n", I8),
    "int8_plus_big_negative": ("def f(a):\n    return a - 1000\n", I8),
    "uint8_minus_python_int": ("def f(a):\n    return a - 1, a + 255\n", U8),
    "uint8_plus_negative": ("def f(a):\n    return a + (-1)\n", U8),
    "uint8_compare_negative": ("def f(a):\n    return a > -1, a == 256\n", U8),
    "int8_compare_beyond": ("def f(a):\n    return a < 1000, -1000 <= a, a != 2**70, "
                            "np.greater(a, -129)\n", I8),
    "int8_scalar_compare_beyond": ("def f(a):\n    return a[0] > -200, a[4] == 383\n", I8),
    "compare_beyond_in_loop": ("def f(a):\n    n = 0\n    for i in range(len(a)):\n"
                               "        if a[i] < 300:\n            n += 1\n    return n\n", U8),
    "zero_d_out_ufunc": ("def f(a):\n    z = np.zeros(())\n    r = np.add(z, a[1], out=z)\n"
                         "    return r is z, z\n", A),
    "zero_d_setitem": ("def f(a):\n    z = np.zeros(())\n    z[()] = a[2]\n    z *= 2\n"
                       "    return z, z[()]\n", A),
    "int8_scalar_overflow": ("def f(a):\n    return a[0] - np.int8(1), a[4] + 1\n", I8),
    "uint8_times_float": ("def f(a):\n    return a * 0.5, (a * 1.5).dtype\n", U8),
    "int8_true_divide": ("def f(a):\n    return a / 2, a / a\n", I8),
    "float16_plus_python_float": ("def f(a):\n    return a + 0.1, (a + 1e5)\n", F16),
    "float16_sum_and_mean": ("def f(a):\n    return a.sum(), a.mean(), a.astype(np.float32)"
                             ".sum()\n", F16),
    "float16_scalar_math": ("def f(a):\n    s = a[0]\n    return s * s, s + 1.0, s / 0.0\n",
                            F16),
    "float16_loop": ("def f(a):\n    t = np.float16(0)\n    for i in range(len(a)):\n"
                     "        t = t + a[i]\n    return t\n", F16),
    "float16_comparisons": ("def f(a):\n    return a > 0.1, a == np.float16(0.1)\n", F16),
}


@pytest.mark.parametrize("name", sorted(SCALARS))
def test_scalars_and_promotion(name):
    source, arg = SCALARS[name]
    _same(define(source), arg.copy)


INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
              np.uint64]


def _int_corners(dtype):
    info = np.iinfo(dtype)
    return np.array([info.min, -1 if info.min else 1, 0, 7, info.max], dtype)


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("source", [
    "def f(a):\n    return a // a[1], a % a[1]\n",
    "def f(a):\n    return a // a[2], a % a[2]\n",
    "def f(a):\n    return a[0] // a[1], a[0] % a[1]\n",
    "def f(a):\n    return np.divmod(a, a[::-1])\n",
    "def f(a):\n    return a << a.dtype.itemsize * 8, a >> (a.dtype.itemsize * 8 + 1)\n",
    "def f(a):\n    return a[3] << np.array(70, a.dtype) if a.dtype.kind == 'u' else a[3] << 70\n",
], ids=["div_minus_one", "div_zero", "scalar_div", "divmod_reversed", "shift_array",
        "shift_scalar"])
def test_integer_division_and_shifts_on_every_dtype(source, dtype):
    _same(define(source), lambda: _int_corners(dtype))


# ---- random streams, redefinitions, generators, exceptions, printing --------------------

def _random_scenario(source):
    """Two calls, each after seeding both streams, and a draw from each after the call:
    `rng` is a global of the program (an argument's repr would show its address)."""

    def scenario(wrap):
        plain = define(source)
        f = wrap(plain)
        seen = []
        for seed in (0, 1):
            np.random.seed(seed)
            rng = plain.__globals__["rng"] = np.random.default_rng(seed)
            seen.append(record(f, (A.copy(),)))
            seen.append((repr(np.random.random()), repr(rng.random())))
        return seen

    return scenario


RANDOM = {
    "global_normal": "def f(a):\n    return a + np.random.normal(size=a.shape)\n",
    "global_shuffle": "def f(a):\n    np.random.shuffle(a)\n    return a\n",
    "global_choice": "def f(a):\n    return np.random.choice(a, 3)\n",
    "global_in_loop": ("def f(a):\n    t = 0.0\n    for i in range(3):\n"
                       "        t += np.random.random()\n    return t * a\n"),
    "generator_normal": "def f(a):\n    return a * rng.normal(size=a.shape)\n",
    "generator_integers": "def f(a):\n    return rng.integers(0, 10, size=4), a[0]\n",
    "generator_permutation": "def f(a):\n    return rng.permutation(a)\n",
    "generator_in_loop": ("def f(a):\n    out = np.zeros(3)\n    for i in range(3):\n"
                          "        out[i] = rng.random() + a[i]\n    return out\n"),
    "both_streams": "def f(a):\n    return np.random.rand(2) + rng.random(2)\n",
}


@pytest.mark.parametrize("name", sorted(RANDOM))
def test_random_streams_advance_as_numpys(name):
    assert_scenario_as_numpy(_random_scenario(RANDOM[name]), compiled_code=False)


def _redefined(wrap):
    module = {"np": np}
    exec("def helper(x):\n    return x * 2\n"  # noqa: S102
         "def f(x):\n    return helper(x) + 1\n", module)
    f = wrap(module["f"])
    seen = [record(f, (A.copy(),))]
    exec("def helper(x):\n    return x - 100\n", module)  # noqa: S102
    seen.append(record(f, (A.copy(),)))
    exec("def f(x):\n    return helper(x) * 0\n", module)  # noqa: S102
    seen.append(record(f, (A.copy(),)))  # the wrapper keeps the first `f`
    seen.append(record(wrap(module["f"]), (A.copy(),)))
    return seen


def _class_attribute(wrap):
    module = {"np": np}
    exec("class K:\n    scale = 2.0\n"  # noqa: S102
         "def f(x):\n    return x * K.scale\n", module)
    f = wrap(module["f"])
    seen = [record(f, (A.copy(),))]
    module["K"].scale = np.float32(3)
    seen.append(record(f, (A.copy(),)))
    del module["K"].scale
    seen.append(record(f, (A.copy(),)))
    return seen


def _closure_rebound(wrap):
    def make():
        k = 2

        def f(x):
            return x + k

        def set_k(v):
            nonlocal k
            k = v

        return f, set_k

    plain, set_k = make()
    f = wrap(plain)
    seen = [record(f, (A.copy(),))]
    for v in (2.5, np.int8(3), np.arange(8)):
        set_k(v)
        seen.append(record(f, (A.copy(),)))
    return seen


def _default_mutated(wrap):
    plain = define("def f(x, w=[1.0]):\n    return x * w[0]\n")
    f = wrap(plain)
    seen = [record(f, (A.copy(),))]
    plain.__defaults__[0][0] = 5.0
    seen.append(record(f, (A.copy(),)))
    plain.__defaults__ = ([np.float32(2)],)
    seen.append(record(f, (A.copy(),)))
    return seen


SCENARIOS = [_redefined, _class_attribute, _closure_rebound, _default_mutated]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.__name__.strip("_"))
def test_what_changes_between_calls(scenario):
    assert_scenario_as_numpy(scenario, compiled_code=False)


CONTROL = {
    "yield_inside": ("def f(a):\n    def g():\n        for v in a[:3]:\n"
                     "            yield v * 2\n    return sum(g()), list(g())\n"),
    "generator_function_compiled": ("def f(a):\n    for v in a[:2]:\n        yield v + 1\n"),
    "generator_expression_sum": "def f(a):\n    return sum(x * x for x in a)\n",
    "caught_zero_division": ("def f(a):\n    try:\n        r = 1 / int(a[0] - 1)\n"
                             "    except ZeroDivisionError:\n        r = -1.0\n"
                             "    return r, a * 2\n"),
    "caught_index_error": ("def f(a):\n    try:\n        v = a[100]\n    except IndexError"
                           " as e:\n        v = str(e)\n    return v\n"),
    "caught_floating_point_error": ("def f(a):\n    try:\n        with np.errstate(all="
                                    "'raise'):\n            r = np.log(a - 1)\n"
                                    "    except FloatingPointError as e:\n"
                                    "        r = str(e)\n    return r\n"),
    "raised_after_update": ("def f(a):\n    a += 1\n    if a[0] > 0:\n"
                            "        raise ValueError('after the update')\n    return a\n"),
    "finally_block": ("def f(a):\n    try:\n        a *= 2\n        return a.sum()\n"
                      "    finally:\n        a -= 1\n"),
    "print_order": ("def f(a):\n    print('before', a[0])\n    a += 1\n"
                    "    print('after', a[0])\n    b = a * 2\n    print('result', b.sum())\n"
                    "    return b\n"),
    "print_in_loop": ("def f(a):\n    t = 0.0\n    for i in range(3):\n        t += a[i]\n"
                      "        print(i, t)\n    return t\n"),
    "print_then_raise": ("def f(a):\n    print('start')\n    a[0] = 10\n"
                         "    return a[100]\n"),
    "warning_then_print": ("def f(a):\n    r = np.log(a - 1)\n    print('logged', r[0])\n"
                           "    return r\n"),
}


@pytest.mark.parametrize("name", sorted(CONTROL))
def test_generators_exceptions_and_printing(name):
    fn = define(CONTROL[name])
    if name == "generator_function_compiled":
        def fn(a, gen=fn):  # noqa: E731 -- the generator's items compared
            return list(gen(a))
    _same(fn, A.copy)
