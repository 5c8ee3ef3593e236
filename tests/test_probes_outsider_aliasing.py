"""Aliasing as an outsider probes it: views of views written through, `out=` arguments that
overlap the inputs (shifted, reversed, the input itself), in-place operators on broadcast and
read-only views, `np.asarray`/`np.array(copy=False)`/`astype(copy=False)`/`ascontiguousarray`
identity, `reshape`/`ravel` copies against views, arguments returned inside tuples, lists
and dicts beside views of them, overlapping slice assignments, repeated fancy indices and
one array passed as two arguments. Each program runs unwrapped and compiled on both backends
and is compared as a `record`: results, arguments afterwards, and which results share memory
with (or are) which arguments and each other."""

from __future__ import annotations

import numpy as np
import pytest
from probe_harness import assert_scenario_as_numpy, define, record

X = np.arange(12.0)
M = np.arange(12.0).reshape(3, 4)

PROGRAMS = {
    "view_of_a_view_written_through":
        ("def f(x):\n    v = x[1:][::2]\n    v += 1\n    return v, x\n", X),
    "view_of_a_transposed_view":
        ("def f(m):\n    v = m.T[::-1]\n    v[0] = -1\n    return v.T, v\n", M),
    "out_overlapping_shifted_forward":
        ("def f(x):\n    np.add(x[:-1], x[1:], out=x[1:])\n    return x\n", X),
    "out_overlapping_shifted_back":
        ("def f(x):\n    r = np.multiply(x[1:], 2, out=x[:-1])\n    return r, x\n", X),
    "out_reversed_over_its_input":
        ("def f(x):\n    r = np.negative(x, out=x[::-1])\n    return r is x, r, x\n", X),
    "out_is_the_input_and_returned":
        ("def f(x):\n    r = np.subtract(x, x[::-1], out=x)\n    return r is x, r\n", X),
    "out_a_temporary_then_returned_with_it":
        ("def f(x):\n    t = x * 2\n    r = np.add(t, x, out=t)\n    return r, t, r is t\n", X),
    "out_tuple_form":
        ("def f(x):\n    o = np.empty_like(x)\n    r = np.sqrt(x, out=(o,))\n    return r, o, r is o\n",
         X),
    "inplace_on_a_broadcast_view_raises":
        ("def f(x):\n    b = np.broadcast_to(x, (2, 12))\n    b += 1\n    return b\n", X),
    "inplace_into_a_smaller_view_raises":
        ("def f(x):\n    v = x[:1]\n    v += x\n    return v\n", X),
    "inplace_broadcasting_a_row_over_a_matrix":
        ("def f(m):\n    m += m[0]\n    m[1:] -= m[:1]\n    return m\n", M),
    "write_to_a_read_only_argument_raises":
        ("def f(x):\n    x[0] = 5\n    return x\n", np.arange(4.0)),
    "asarray_returns_the_argument":
        ("def f(x):\n    a = np.asarray(x)\n    b = np.asarray(x, dtype=x.dtype)\n"
         "    c = np.asarray(x, dtype=np.float32)\n    return a is x, b is x, a, c\n", X),
    "array_copy_false_and_astype_copy_false":
        ("def f(x):\n    a = np.array(x, copy=False)\n    b = x.astype(x.dtype, copy=False)\n"
         "    c = x.astype(np.int64, copy=False)\n    return a is x, b is x, a, b, c\n", X),
    "array_copy_false_needing_a_copy_raises":
        ("def f(x):\n    return np.array(x, dtype=np.int32, copy=False)\n", X),
    "ascontiguousarray_of_contiguous_and_not":
        ("def f(m):\n    a = np.ascontiguousarray(m)\n    b = np.ascontiguousarray(m.T)\n"
         "    return a is m, a, b\n", M),
    "reshape_of_a_transposed_copies":
        ("def f(m):\n    a = m.reshape(-1)\n    b = m.T.reshape(-1)\n    b[0] = 99\n    a[1] = 77\n"
         "    return a, b, m\n", M),
    "ravel_and_flatten":
        ("def f(m):\n    a = m.ravel()\n    b = m.flatten()\n    c = m[:, ::2].ravel()\n"
         "    a[0] = -5\n    return a, b, c, m\n", M),
    "argument_returned_inside_a_tuple_with_its_view":
        ("def f(x):\n    x *= 2\n    return (x, x[::2], (x[1:],))\n", X),
    "argument_returned_inside_a_dict":
        ("def f(x):\n    y = x + 1\n    return {'x': x, 'view': x.T, 'y': y, 'again': y}\n", M),
    "argument_returned_inside_a_list":
        ("def f(x):\n    return [x, x[:0], x[...], x[()]]\n", X),
    "the_same_temporary_twice":
        ("def f(x):\n    t = np.sqrt(x)\n    return t, t, t[::-1]\n", X),
    "view_dtype_reinterpretation":
        ("def f(x):\n    v = x.view(np.int64)\n    v[0] = 1\n    return v, x\n", X),
    "double_transpose_is_a_new_view":
        ("def f(m):\n    t = m.T.T\n    return t is m, t, m[:, :]\n", M),
    "overlapping_slice_assignment_reversed":
        ("def f(x):\n    x[::-1] = x\n    return x\n", X),
    "overlapping_slice_assignment_shifted":
        ("def f(x):\n    x[2:] = x[:-2]\n    x[:-3] = x[3:] + 1\n    return x\n", X),
    "copyto_overlapping":
        ("def f(x):\n    np.copyto(x[1:], x[:-1])\n    np.copyto(x[:-2], x[2:], where=x[2:] > 4)\n"
         "    return x\n", X),
    "fancy_index_assignment_with_repeats":
        ("def f(x):\n    x[[1, 1, 2]] = x[[5, 6, 7]]\n    x[[0, 0]] *= 3\n    return x\n", X),
    "boolean_mask_read_is_a_copy":
        ("def f(x):\n    c = x[x > 3]\n    c[0] = -1\n    return c, x\n", X),
    "where_returns_new_arrays":
        ("def f(x):\n    return np.where(x > 2, x, x), np.where(True, x, 0)\n", X),
    "positive_and_copy_are_new_arrays":
        ("def f(x):\n    return +x, np.positive(x), x.copy(), x[:]\n", X),
    "squeeze_and_expand_dims_views":
        ("def f(m):\n    a = m[None]\n    b = a.squeeze()\n    c = np.expand_dims(m, -1)\n"
         "    b[0, 0] = 42\n    return a, b, c, m\n", M),
    "diagonal_view_is_read_only":
        ("def f(m):\n    d = m.diagonal()\n    d[0] = 1\n    return d\n", M),
    "swapaxes_and_moveaxis_views_written":
        ("def f(m):\n    s = np.swapaxes(m, 0, 1)\n    s[0] += 10\n    return np.moveaxis(s, 0, 1), m\n",
         M),
}


def _twice(source, *args):
    fn = define(source)
    return lambda wrap: [record(wrap(fn), args), record(wrap(fn), args)]


def _one_array_as_two(wrap):
    """One base array passed as two overlapping arguments, updated through each."""
    f = wrap(define("def f(a, b):\n    a += b\n    b *= 2\n    return a, b\n"))
    seen = []
    for _ in range(2):
        base = np.arange(10.0)
        seen.append(record(lambda: f(base[:-2], base[2:]), ()))
        seen.append(repr(base))
    return seen


def _read_only_argument(wrap):
    f = wrap(define(PROGRAMS["write_to_a_read_only_argument_raises"][0]))
    seen = []
    for _ in range(2):
        x = np.arange(4.0)
        x.flags.writeable = False
        seen += [record(lambda x=x: f(x), ()), repr(x)]  # `record` would copy it, writable
    return seen


RAISES = {"inplace_on_a_broadcast_view_raises", "inplace_into_a_smaller_view_raises",
          "write_to_a_read_only_argument_raises", "array_copy_false_needing_a_copy_raises",
          "diagonal_view_is_read_only"}


# Programs that break the graph by design, compared all the same: nothing to compute, an
# identity test of arrays, a write through a view of an argument that another view keeps,
# `ndarray.view` with a dtype, errors NumPy raises.
BREAKS = {
    "argument_returned_inside_a_list": "views only: nothing to compile",
    "ascontiguousarray_of_contiguous_and_not": "`is` of arrays",
    "double_transpose_is_a_new_view": "`is` of arrays",
    "view_of_a_transposed_view": "write through a view of a viewed argument",
    "reshape_of_a_transposed_copies": "write through a view of a viewed argument",
    "squeeze_and_expand_dims_views": "write through a view of a viewed argument",
    "view_dtype_reinterpretation": "ndarray.view(dtype)",
    # `s[0] += 10` breaks at the operator (the view of `m` cannot be updated in the graph);
    # the rest writes into `s`, which shares memory with `m`, so it runs as Python.
    "swapaxes_and_moveaxis_views_written": "write through a view of a viewed argument",
    **dict.fromkeys(RAISES, "NumPy raises"),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_outsider_aliasing_as_numpy(name):
    assert_scenario_as_numpy(_twice(*PROGRAMS[name]), falls_back=name in BREAKS,
                             compiled_code=name not in BREAKS)


def test_one_array_passed_as_two_overlapping_arguments():
    assert_scenario_as_numpy(_one_array_as_two, falls_back=True)


def test_a_read_only_argument_written():
    assert_scenario_as_numpy(_read_only_argument, falls_back=True)
