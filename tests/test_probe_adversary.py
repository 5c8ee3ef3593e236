"""Programs an adversarial user writes to catch a compiler out: guards on state Python reads
at run time (cells, defaults, class attributes, partials, rebound methods, `global`
statements, the builtins module, patched NumPy functions, `__array_function__`), unusual
arrays (read-only, byte-swapped, Fortran order, zero and negative strides), overlapping
in-place updates and `out=`, NumPy's error handling (`errstate` as decorator and context,
nested, `seterr(all="call")`, warnings filters), numerics corners (wrapping integers, int8,
float16, complex, NaN, -0.0, half-even rounding, floor division and modulo by zero and by
negatives, casts of NaN and inf), exceptions and their side effects, generators and
iterators consumed inside, and recursion. Each scenario runs unwrapped and compiled on both
backends and every call is compared as a `record` (result, printed output, warnings,
exceptions, arguments afterwards, aliasing)."""

from __future__ import annotations

import builtins
import dataclasses
import functools
import types
import warnings

import numpy as np
import pytest
from probe_harness import assert_scenario_as_numpy, called_twice, define, record

X = np.linspace(-1.5, 2.5, 9)
M = np.arange(12.0).reshape(3, 4) - 4.0

SCENARIOS = {}


def scenario(fn):
    SCENARIOS[fn.__name__] = fn
    return fn


def simple(name, source, *args):
    SCENARIOS[name] = lambda wrap: called_twice(define(source), args)(wrap)


# --- guards ---------------------------------------------------------------------------------

@scenario
def cell_rebound_by_a_helper_called_inside(wrap):
    make = define("def make():\n"
                  "    k = 2.0\n"
                  "    def bump():\n"
                  "        nonlocal k\n"
                  "        k = k * 3\n"
                  "    def f(x):\n"
                  "        y = x * k\n"
                  "        bump()\n"
                  "        return y + k\n"
                  "    return f\n", "make")
    f = wrap(make())
    return [record(f, (X,)) for _ in range(3)]


@scenario
def cell_holds_an_array_updated_in_place(wrap):
    make = define("def make(w):\n"
                  "    def f(x):\n"
                  "        return x @ w\n"
                  "    return f\n", "make")
    w = np.ones(4)
    f = wrap(make(w))
    seen = [record(f, (M,))]
    w[2] = -7.0
    seen.append(record(f, (M,)))
    return seen


@scenario
def default_array_mutated_in_place(wrap):
    plain = define("def f(x, w=np.ones(9)):\n    return x * w\n")
    f = wrap(plain)
    seen = [record(f, (X,))]
    plain.__defaults__[0][::2] = 5.0
    seen.append(record(f, (X,)))
    plain.__defaults__ = (np.float32(2),)
    seen.append(record(f, (X,)))
    return seen


@scenario
def keyword_only_defaults_replaced(wrap):
    plain = define("def f(x, *, scale=2.0, shift=0):\n    return x * scale + shift\n")
    f = wrap(plain)
    seen = [record(f, (X,))]
    plain.__kwdefaults__ = {"scale": 3, "shift": np.int8(1)}
    seen.append(record(f, (X,)))
    plain.__kwdefaults__["shift"] = 1j
    seen.append(record(f, (X,)))
    return seen


@scenario
def class_attribute_patched_read_through_type(wrap):
    ns = define("class Model:\n"
                "    scale = 2.0\n"
                "    def run(self, x):\n"
                "        return x * type(self).scale + self.scale\n"
                "def f(m, x):\n"
                "    return m.run(x)\n")
    model = ns.__globals__["Model"]
    f, m = wrap(ns), model()
    seen = [record(f, (m, X))]
    model.scale = np.float32(0.5)
    seen.append(record(f, (m, X)))
    m.scale = 10
    seen.append(record(f, (m, X)))
    del model.scale
    seen.append(record(f, (m, X)))
    return seen


@scenario
def class_method_replaced_on_the_class(wrap):
    ns = define("class Op:\n"
                "    def apply(self, x):\n"
                "        return x + 1\n"
                "def f(o, x):\n"
                "    return o.apply(x) * 2\n")
    op = ns.__globals__["Op"]
    f, o = wrap(ns), op()
    seen = [record(f, (o, X))]
    op.apply = lambda self, x: x - 1
    seen.append(record(f, (o, X)))
    op.apply = staticmethod(lambda x: x * 0)
    seen.append(record(f, (o, X)))
    return seen


@scenario
def partial_keywords_mutated(wrap):
    def inner(x, k=1.0):
        return x * k
    p = functools.partial(inner, k=2.0)
    plain = define("def f(x):\n    return P(x) + 1\n", P=p)
    f = wrap(plain)
    seen = [record(f, (X,))]
    p.keywords["k"] = -3
    seen.append(record(f, (X,)))
    plain.__globals__["P"] = functools.partial(inner, k=np.float32(0.5))
    seen.append(record(f, (X,)))
    return seen


@scenario
def method_rebound_on_an_instance(wrap):
    ns = define("class Box:\n"
                "    def get(self, x):\n"
                "        return x.sum()\n"
                "def f(b, x):\n"
                "    return b.get(x) + 1\n")
    box = ns.__globals__["Box"]()
    f = wrap(ns)
    seen = [record(f, (box, X))]
    box.get = types.MethodType(lambda self, x: x.max(), box)
    seen.append(record(f, (box, X)))
    del box.get
    seen.append(record(f, (box, X)))
    return seen


@scenario
def global_statement_rebinds_an_array(wrap):
    plain = define("def f(x):\n"
                   "    global ACC, CALLS\n"
                   "    ACC = ACC + x\n"
                   "    CALLS += 1\n"
                   "    return ACC * CALLS\n", ACC=np.zeros(9), CALLS=0)
    f = wrap(plain)
    g = plain.__globals__
    seen = [record(f, (X,)) for _ in range(3)]
    seen.append((repr(g["ACC"]), g["CALLS"]))
    return seen


@scenario
def global_statement_deletes(wrap):
    plain = define("def f(x):\n"
                   "    global TMP\n"
                   "    TMP = x * 2\n"
                   "    y = TMP + 1\n"
                   "    del TMP\n"
                   "    return y\n")
    f = wrap(plain)
    seen = [record(f, (X,)), record(f, (X,))]
    seen.append("TMP" in plain.__globals__)
    return seen


@scenario
def builtins_module_patched(wrap):
    plain = define("def f(x):\n    return abs(x).sum() + max(len(x), 3)\n")
    f = wrap(plain)
    seen = [record(f, (X,))]
    saved = builtins.abs, builtins.max
    try:
        builtins.abs = lambda v: v * -1
        seen.append(record(f, (X,)))
        builtins.max = min
        seen.append(record(f, (X,)))
    finally:
        builtins.abs, builtins.max = saved
    seen.append(record(f, (X,)))
    return seen


@scenario
def numpy_function_monkeypatched(wrap):
    plain = define("def f(x):\n    return np.sqrt(np.abs(x)) + np.sum(x)\n")
    f = wrap(plain)
    seen = [record(f, (X,))]
    saved = np.sqrt, np.sum
    try:
        np.sqrt = np.square
        seen.append(record(f, (X,)))
        np.sum = lambda v: np.float32(1)
        seen.append(record(f, (X,)))
    finally:
        np.sqrt, np.sum = saved
    seen.append(record(f, (X,)))
    return seen


@scenario
def numpy_alias_module_replaced(wrap):
    plain = define("def f(x):\n    return np.exp(x) - 1\n")
    f = wrap(plain)
    seen = [record(f, (X,))]
    fake = types.SimpleNamespace(exp=lambda v: v * 0 + 7)
    plain.__globals__["np"] = fake
    seen.append(record(f, (X,)))
    plain.__globals__["np"] = np
    seen.append(record(f, (X,)))
    return seen


class Logged:
    """A duck array: NumPy functions called on it go through `__array_function__`."""

    def __init__(self, data):
        self.data = np.asarray(data)

    def __array_function__(self, func, types_, args, kwargs):
        def plain(a):
            if isinstance(a, (list, tuple)):
                return type(a)(plain(v) for v in a)
            return a.data if isinstance(a, Logged) else a
        args = plain(args)
        return ("via", func.__name__, func(*args, **kwargs))

    def __repr__(self):
        return f"Logged({self.data!r})"


class Tagged(np.ndarray):
    def __array_finalize__(self, obj):
        self.tag = getattr(obj, "tag", "none")


@scenario
def array_function_protocol_and_subclass(wrap):
    plain = define("def f(a):\n    return np.sum(a), np.concatenate([a, a])\n")
    f = wrap(plain)
    t = np.arange(4.0).view(Tagged)
    t.tag = "t"
    return [record(f, (Logged([1.0, 2.0]),)), record(f, (t,)), record(f, (np.arange(3.0),)),
            record(f, (Logged([3.0]),))]


@scenario
def subclass_then_plain_array(wrap):
    plain = define("def f(a):\n    b = a * 2\n    return b, type(b).__name__, b.sum()\n")
    f = wrap(plain)
    t = np.arange(4.0).view(Tagged)
    return [record(f, (np.arange(4.0),)), record(f, (t,)), record(f, (np.matrix([[1.0, 2.0]]),)),
            record(f, (np.arange(4.0),))]


@scenario
def type_name_of_objects_capture_does_not_understand(wrap):
    plain = define("def f(o):\n    return type(o).__name__, isinstance(o, np.ndarray)\n")
    f = wrap(plain)
    return [record(f, (o,)) for o in (np.matrix([[1.0]]), np.ones(2), 1.5, "s", {(1, 2): 3},
                                       [1], {(1, 2): 3}, Logged([1.0]), np.matrix([[2.0]]))]


class Noisy:
    """A value whose repr prints and warns: explaining a cache miss must not call it."""

    def __init__(self, k):
        self.k = k

    def __repr__(self):
        print("repr called")
        warnings.warn("repr called", UserWarning)
        return f"Noisy({self.k})"


@scenario
def cache_misses_on_values_with_noisy_reprs(wrap):
    plain = define("def f(x, o, m):\n    return x * 2 + len(m.__name__)\n")
    f = wrap(plain)
    return [record(f, (X, o, m)) for o, m in ((Noisy(1), np), (Noisy(2), builtins),
                                                ((Noisy(3),), warnings), (1, builtins))]


@scenario
def attributes_added_deleted_and_class_swapped(wrap):
    ns = define("class A:\n"
                "    k = 1.0\n"
                "class B(A):\n"
                "    k = 5.0\n"
                "def f(o, x):\n"
                "    extra = getattr(o, 'extra', 0.5)\n"
                "    return (x * o.k + extra, hasattr(o, 'flag'), isinstance(o, B),\n"
                "            getattr(x, 'base', 1) is None, hasattr(A, 'patched'))\n")
    g = ns.__globals__
    f, o = wrap(ns), g["A"]()
    seen = [record(f, (o, X))]
    o.extra = np.float32(2)
    seen.append(record(f, (o, X)))
    o.flag = True
    o.k = 3
    seen.append(record(f, (o, X)))
    g["A"].patched = 1
    seen.append(record(f, (o, X)))
    del o.k, o.extra
    seen.append(record(f, (o, X)))
    o.__class__ = g["B"]
    seen.append(record(f, (o, X)))
    return seen


class Slotted:
    __slots__ = ("w",)


@dataclasses.dataclass(frozen=True)
class Frozen:
    scale: float


@scenario
def slots_and_frozen_dataclass_fields(wrap):
    plain = define("def f(s, p, x):\n    return x * s.w + p.scale\n")
    f, s = wrap(plain), Slotted()
    s.w = 2.0
    seen = [record(f, (s, Frozen(1.0), X))]
    s.w = np.float32(3)
    seen.append(record(f, (s, Frozen(-1), X)))
    object.__setattr__(p := Frozen(2.0), "scale", 7.5)
    seen.append(record(f, (s, p, X)))
    del s.w
    seen.append(record(f, (s, p, X)))
    return seen


@scenario
def late_binding_closures_over_a_loop_variable(wrap):
    make = define("def make():\n"
                  "    fs = [lambda x: x * i for i in range(3)]\n"
                  "    gs = [lambda x, i=i: x * i for i in range(3)]\n"
                  "    return fs, gs\n", "make")
    fs, gs = make()
    seen = []
    for fn in (fs[0], fs[2], gs[0], gs[2]):
        compiled = wrap(fn)
        seen += [record(compiled, (X,)), record(compiled, (X,))]
    return seen


@scenario
def class_attribute_array_mutated_then_replaced(wrap):
    ns = define("class Cfg:\n"
                "    w = np.arange(9.0)\n"
                "def f(x):\n"
                "    return x @ Cfg.w, Cfg.w[::-1]\n")
    cfg = ns.__globals__["Cfg"]
    f = wrap(ns)
    seen = [record(f, (X,))]
    cfg.w[0] = 100.0
    seen.append(record(f, (X,)))
    cfg.w = np.ones(9, dtype=np.float32)
    seen.append(record(f, (X,)))
    cfg.w = np.ones(3)
    seen.append(record(f, (X,)))
    return seen


# --- unusual arrays -------------------------------------------------------------------------

def _read_only(a):
    a = a.copy()
    a.flags.writeable = False
    return a


simple("read_only_written_after_a_pure_part",
       "def f(x, y):\n    z = x * 2\n    y[0] = z.sum()\n    x[0] = 1.0\n    return z\n",
       _read_only(X), np.zeros(3))
simple("byte_swapped_arithmetic_and_in_place",
       "def f(x):\n    y = x * 2 + 1\n    x += 1\n    return y, y.dtype, x.sum(), x.dtype\n",
       X.astype(">f8"))
simple("byte_swapped_ints_mixed_with_native",
       "def f(a, b):\n    return a + b, (a * b).dtype, np.maximum(a, b)\n",
       np.arange(6, dtype=">i4") - 3, np.arange(6, dtype="<i8"))
simple("fortran_order_ravel_reshape_and_transpose_views",
       "def f(m):\n    r = m.ravel()\n    t = m.T.ravel()\n    m[0, 0] = 100.0\n"
       "    return r, t, m.reshape(-1), m.T.reshape(-1)\n",
       np.asfortranarray(M))
simple("fortran_order_in_place_and_column_sum",
       "def f(m):\n    m *= 2\n    m[:, 1] += m[:, 0]\n    return m.sum(axis=0), m.sum(axis=1), m[1]\n",
       np.asfortranarray(M))
simple("broadcast_to_zero_strides_read_and_copied",
       "def f(v):\n    b = np.broadcast_to(v, (4, 3))\n    c = b.copy()\n    c[0] = 9\n"
       "    return b.sum(axis=0), c, b.strides, c.strides, b.flags.writeable\n",
       np.array([1.0, 2.0, 3.0]))
simple("broadcast_to_written_raises",
       "def f(v):\n    v[0] = 5.0\n    b = np.broadcast_to(v, (2, 3))\n    b[0, 0] = 1.0\n    return b\n",
       np.array([1.0, 2.0, 3.0]))
simple("zero_stride_argument",
       "def f(b):\n    return b * 2, (b + 1).strides, b.T @ b\n",
       np.broadcast_to(np.arange(3.0), (5, 3)))
simple("negative_strides_in_place_and_views",
       "def f(x):\n    r = x[::-1]\n    r += np.arange(9)\n    return r[::2], x, r.strides\n",
       X.copy())
simple("negative_strides_argument",
       "def f(x):\n    x[1:] -= x[:-1]\n    return x, x.cumsum()\n",
       X[::-1])

# --- overlapping updates and out= -----------------------------------------------------------

simple("overlapping_add_forward",
       "def f(a):\n    a[1:] += a[:-1]\n    return a\n", np.arange(8.0))
simple("overlapping_add_backward",
       "def f(a):\n    a[:-1] += a[1:]\n    return a\n", np.arange(8.0))
simple("overlapping_assign_of_an_expression",
       "def f(a):\n    a[2:] = a[:-2] * 2 + a[1:-1]\n    return a\n", np.arange(8.0))
simple("overlapping_reversed_out",
       "def f(a):\n    np.add(a, a[::-1], out=a)\n    return a\n", np.arange(7.0))
simple("out_aliases_an_input_and_is_returned",
       "def f(x, y):\n    r = np.multiply(x, y, out=x)\n    s = np.subtract(r, 1, out=y)\n"
       "    return r is x, s is y, x, y\n", X.copy(), X[::-1].copy())
simple("out_a_view_of_an_input",
       "def f(m):\n    np.add(m[:, :2], m[:, 2:], out=m[:, 1:3])\n    return m\n", M.copy())
simple("copyto_overlapping",
       "def f(a):\n    np.copyto(a[1:], a[:-1])\n    return a\n", np.arange(6.0))
simple("copyto_where_and_casting",
       "def f(a, b):\n    np.copyto(a, b, where=b > 0)\n    np.copyto(a, 3)\n    np.copyto(b, a[::-1])\n"
       "    return a, b\n", np.zeros(9), X.copy())
simple("copyto_refused_cast",
       "def f(a, b):\n    a[0] = 1\n    np.copyto(a, b)\n    return a\n",
       np.zeros(9, dtype=np.int64), X.copy())
simple("in_place_cast_refused_after_a_write",
       "def f(a, b):\n    b[0] = -1\n    a += b\n    return a\n",
       np.zeros(9, dtype=np.int32), X.copy())
simple("cumsum_out_itself",
       "def f(a):\n    np.cumsum(a, out=a)\n    return a, a.sum()\n", np.arange(6.0))
simple("sequential_loop_recurrence",
       "def f(a):\n    for i in range(1, a.shape[0]):\n        a[i] += a[i - 1] * 0.5\n    return a\n",
       np.arange(8.0))

# --- warnings and error handling ------------------------------------------------------------


@scenario
def errstate_as_decorator(wrap):
    plain = define("@np.errstate(divide='raise', invalid='ignore')\n"
                   "def f(x):\n    return np.sqrt(x) + 1 / x\n")
    f = wrap(plain)
    return [record(f, (X,)), record(f, (np.array([-1.0, 4.0]),)), record(f, (X,))]


@scenario
def errstate_nested_inside(wrap):
    plain = define("def f(x):\n"
                   "    with np.errstate(all='ignore'):\n"
                   "        a = np.log(x)\n"
                   "        with np.errstate(divide='raise'):\n"
                   "            try:\n"
                   "                b = 1.0 / x\n"
                   "            except FloatingPointError as e:\n"
                   "                b = str(e)\n"
                   "        c = np.sqrt(x)\n"
                   "    d = np.log(x)\n"
                   "    return a, b, c, d\n")
    f = wrap(plain)
    return [record(f, (X,)), record(f, (np.array([0.0, 2.0]),))]


@scenario
def seterr_call_collects_the_errors(wrap):
    plain = define("def f(x):\n    y = np.log(x)\n    z = x / 0.0\n    return y, z\n")
    f = wrap(plain)
    seen = []
    calls = []
    old = np.seterr(all="call")
    oldcall = np.seterrcall(lambda kind, flag: calls.append((kind, flag)))
    try:
        seen.append(record(f, (X,)))
        seen.append(list(calls))
        seen.append(record(f, (np.array([1.0, 2.0]),)))
        seen.append(list(calls))
    finally:
        np.seterr(**old)
        np.seterrcall(oldcall)
    return seen


@scenario
def warnings_filter_error_inside(wrap):
    plain = define("import warnings\n"
                   "def f(x):\n"
                   "    y = x * 2\n"
                   "    with warnings.catch_warnings():\n"
                   "        warnings.simplefilter('error', RuntimeWarning)\n"
                   "        try:\n"
                   "            z = np.log(x)\n"
                   "        except RuntimeWarning as w:\n"
                   "            z = str(w)\n"
                   "    return y, z, np.log(x)\n")
    f = wrap(plain)
    return [record(f, (X,)), record(f, (np.array([1.0]),)), record(f, (X,))]


@scenario
def warnings_as_errors_outside_after_in_place(wrap):
    plain = define("def f(x):\n    x *= 2\n    x /= 0.0\n    return x\n")
    f = wrap(plain)

    def context():
        cm = warnings.catch_warnings()

        class Both:
            def __enter__(self):
                cm.__enter__()
                warnings.simplefilter("error")

            def __exit__(self, *exc):
                return cm.__exit__(*exc)
        return Both()
    return [record(f, (X,), context), record(f, (np.ones(2),), context)]


@scenario
def under_raise_for_float32_underflow(wrap):
    plain = define("def f(x):\n    with np.errstate(under='raise'):\n        return np.exp(x * 200)\n")
    f = wrap(plain)
    return [record(f, (np.array([0.0, -1.0], dtype=np.float32),)),
            record(f, (np.array([0.0, -0.0], dtype=np.float32),))]


simple("two_different_warnings_in_one_function",
       "def f(x):\n    a = np.log(x)\n    b = np.sqrt(x)\n    c = x / 0\n    return a, b, c\n", X)
simple("integer_division_by_zero_warns",
       "def f(a, b):\n    return a // b, a % b, np.divmod(a, b)\n",
       np.array([7, -7, 0, 5], dtype=np.int32), np.array([0, 2, 0, -3], dtype=np.int32))

# --- numerics -------------------------------------------------------------------------------

simple("int32_overflow_wraps",
       "def f(a):\n    return a * 65536, a + np.int32(2**31 - 1), (a * a).sum(), a.sum(dtype=np.int32)\n",
       np.array([1, 40000, -40000, 70000], dtype=np.int32))
simple("numpy_int_scalar_overflow_warns",
       "def f(a):\n    s = a[0] + np.int32(2**31 - 1)\n    t = np.int8(100) * np.int8(3)\n    return s, t\n",
       np.array([5, 6], dtype=np.int32))
simple("int8_arithmetic_and_sums",
       "def f(a):\n    b = a * 3\n    return b, b.dtype, b.sum(), b.sum().dtype, np.abs(a), -a, a // -1\n",
       np.array([-128, -1, 0, 100, 127], dtype=np.int8))
simple("python_int_out_of_int8_range",
       "def f(a):\n    b = a + 1\n    return b + 300\n", np.arange(4, dtype=np.int8))
simple("uint8_wraps",
       "def f(a, b):\n    return a - b, b - a, a * b, (a - b).mean()\n",
       np.array([0, 10, 250], dtype=np.uint8), np.array([1, 20, 10], dtype=np.uint8))
simple("float16_arithmetic_and_reductions",
       "def f(h):\n    return h + h, h * np.float16(1000), h.sum(), h.mean(), np.cumsum(h), h.astype(np.float32)\n",
       np.array([0.1, 1000.0, 60000.0, -2.5], dtype=np.float16))
simple("complex_arithmetic",
       "def f(z):\n    return z * 1j + 1, np.abs(z), z.real, z.imag, np.conj(z), z.sum(), z / 0\n",
       np.array([1 + 2j, -3j, 0j]))
simple("nan_in_extrema",
       "def f(x):\n    return x.max(), x.min(), x.argmax(), x.argmin(), np.fmax(x, 0), np.nanmax(x), "
       "np.maximum.reduce(x), max(x[:3])\n",
       np.array([1.0, np.nan, 3.0, -np.inf, np.nan]))
simple("negative_zero",
       "def f(x):\n    return 1 / x, np.sign(x), np.minimum(x, 0.0), np.maximum(0.0, x), x * 0, "
       "np.copysign(1, x), -x + 0.0, x.sum()\n",
       np.array([-0.0, 0.0, -1.0, 2.0]))
simple("rounding_half_even",
       "def f(x):\n    return np.round(x), np.round(x, 1), np.round(x * 10, -1), np.rint(x), "
       "round(float(x[0])), round(x[1])\n",
       np.array([0.5, 1.5, 2.5, -0.5, -2.5, 0.25, 0.35]))
simple("floor_division_and_modulo_of_floats",
       "def f(a, b):\n    return a // b, a % b, np.fmod(a, b), np.remainder(a, b)\n",
       np.array([7.0, -7.0, 7.0, -0.0, np.inf, 1.0]), np.array([-2.0, 2.0, 0.0, 3.0, 2.0, np.inf]))
simple("floor_division_of_int64_extremes",
       "def f(a, b):\n    return a // b, a % b\n",
       np.array([np.iinfo(np.int64).min, -9, 9, 0]), np.array([-1, 4, -4, -5]))
simple("casts_of_nan_and_inf",
       "def f(x):\n    return x.astype(np.int64), x.astype(np.int8), x.astype(np.uint8), x.astype(bool)\n",
       np.array([np.nan, np.inf, -np.inf, 1e20, -3.7]))
simple("python_int_of_nan_raises",
       "def f(x):\n    y = x * 2\n    return int(y[1])\n", np.array([1.0, np.nan]))
simple("integer_negative_power_raises",
       "def f(a):\n    b = a + 1\n    return b ** -1\n", np.arange(3))

# --- exceptions, generators, recursion --------------------------------------------------------

simple("shape_mismatch_after_an_update",
       "def f(x):\n    x += 1\n    y = x + np.ones(3)\n    return y\n", X.copy())
simple("index_error_after_writes_in_a_loop",
       "def f(x):\n    for i in range(12):\n        x[i] = i * 2.0\n    return x\n", np.zeros(9))
simple("python_zero_division_after_an_update",
       "def f(x):\n    x -= 1\n    n = len(x) // (len(x) - 9)\n    return x * n\n", X.copy())
simple("key_error_then_caught",
       "def f(x, d):\n    y = x * 2\n    try:\n        y = y + d['missing']\n    except KeyError as e:\n"
       "        d['seen'] = repr(e)\n    return y, d\n", X, {"a": 1})
simple("assert_with_message",
       "def f(x):\n    y = x.sum()\n    assert y < 0, f'sum was {y}'\n    return y\n", X)


class Numbers:
    """An iterator (shown by its type, not its address) of `n` numbers made by `make`."""

    def __init__(self, n, make=np.float32):
        self.i, self.n, self.make = 0, n, make

    def __iter__(self):
        return self

    def __next__(self):
        if self.i >= self.n:
            raise StopIteration
        self.i += 1
        return self.make(self.i - 1)


@scenario
def generator_from_outside_consumed_inside(wrap):
    plain = define("def f(it, x):\n    a = next(it)\n    b = next(it)\n    return x * a + b\n")
    f = wrap(plain)
    gen = Numbers(10)
    seen = [record(f, (gen, X)), record(f, (gen, X))]
    seen.append(list(gen))
    seen.append(record(f, (Numbers(0), X)))
    return seen


@scenario
def iterator_partly_consumed_with_break(wrap):
    plain = define("def f(it, x):\n    t = x.copy()\n    for v in it:\n        if v > 2:\n"
                   "            break\n        t += v\n    return t\n")
    f = wrap(plain)
    it = Numbers(6, lambda i: [1.0, 2.0, 3.0, 4.0, 0.5, 9.0][i])
    seen = [record(f, (it, X)), list(it), record(f, (Numbers(3), X))]
    return seen


simple("zip_enumerate_map_over_arrays",
       "def f(m):\n    t = 0.0\n    for i, (r, s) in enumerate(zip(m, map(np.sum, m))):\n"
       "        t = t + r * s + i\n    return t\n", M)
simple("generator_function_inside",
       "def f(m):\n    def rows():\n        for r in m:\n            yield r * 2\n"
       "    return sum(rows()), list(rows())[-1]\n", M)
simple("recursion_with_arrays",
       "def f(x, n=6):\n    if n == 0:\n        return x\n    return f(x[::-1] * 0.5 + n, n - 1)\n", X)
simple("mutual_recursion_splitting",
       "def f(x):\n    if x.shape[0] <= 2:\n        return x.sum()\n    h = x.shape[0] // 2\n"
       "    return f(x[:h]) - g(x[h:])\n"
       "def g(x):\n    return f(x) * 2\n", X)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_adversarial_programs_behave_as_numpy(name):
    assert_scenario_as_numpy(SCENARIOS[name], compiled_code=False)


class Owned(np.ndarray):
    """An array subclass, so that a weak reference can watch an argument die."""


@pytest.mark.parametrize("backend", ["cranelift", "eager"])
def test_arguments_and_dropped_results_die_after_the_call(backend):
    import gc
    import weakref

    import ember

    def f(x, w):
        y = x * 2 + w
        w += 1
        return y.sum(), y[::2]

    ember.reset()
    compiled = ember.compile(f, backend=backend)
    for _ in range(3):
        x = np.arange(6.0)
        w = np.ones(6).view(Owned)
        watch_w = weakref.ref(w)
        total, view = compiled(x, w.view(np.ndarray))
        watch_view = weakref.ref(view)
        assert total == f(np.arange(6.0), np.ones(6))[0]
        del x, w, view
        gc.collect()
        assert watch_w() is None and watch_view() is None
