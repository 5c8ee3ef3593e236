"""Read-only arguments and in-place updates at graph breaks, as an outsider probes them: a
read-only array updated in place through views, slices, fancy and boolean indices, `...`,
`out=` and a transposed view while another view of it is kept (so the update cannot be traced
and the graph breaks around it), writable integer arrays updated with casts NumPy refuses or
allows, overlapping in-place updates and an update followed by an IndexError, and
`np.errstate` blocks with a graph break or an exception inside. Each is compared with plain
NumPy as a `record` (NumPy's error text first: "output array is read-only" from an in-place
operator, "assignment destination is read-only" from a store) on both backends."""

from __future__ import annotations

import numpy as np
import pytest
from probe_harness import assert_scenario_as_numpy, define, record

X = np.arange(6.0)
M = np.arange(12.0).reshape(3, 4)
PROGRAMS = {
 "ro_view_inplace_print": ("def f(x):\n    v = x[::2]\n    print('v')\n    v += 1\n    return v\n", "ro", X),
 "ro_slice_inplace_viewed": ("def f(x):\n    t = x.T\n    x[1:] *= 2\n    return t\n", "ro", M),
 "ro_setitem_viewed": ("def f(x):\n    t = x[::-1]\n    x[0] = 5\n    return t\n", "ro", X),
 "ro_out_kw": ("def f(x):\n    t = x[::-1]\n    np.add(x, 1, out=x)\n    return t\n", "ro", X),
 "ro_fancy_inplace": ("def f(x):\n    t = x.T\n    x[[0, 1]] += 1\n    return t\n", "ro", X),
 "ro_mask_inplace": ("def f(x):\n    t = x.T\n    x[x > 2] -= 1\n    return t\n", "ro", X),
 "ro_ellipsis_inplace": ("def f(x):\n    t = x.T\n    x[...] += 1\n    return t\n", "ro", M),
 "ro_inplace_attr": ("def f(x):\n    t = x.T\n    x.T[0] += 1\n    return t\n", "ro", M),
 "rw_view_inplace_int_cast": ("def f(x):\n    t = x.T\n    x[1:] += 0.5\n    return t, x\n", "int", np.arange(6)),
 "rw_view_inplace_bad_cast": ("def f(x):\n    t = x.T\n    x[1:] /= 2\n    return t, x\n", "int", np.arange(6)),
 "rw_view_inplace_broadcast_fail": ("def f(x):\n    t = x.T\n    x[1:] += x\n    return t, x\n", "rw", X),
 "rw_view_inplace_overlap": ("def f(x):\n    t = x.T\n    x[1:] += x[:-1]\n    x[::-1][1:] *= x[:-1]\n    return t, x\n", "rw", X),
 "rw_inplace_then_raise": ("def f(x):\n    t = x[::2]\n    x[1:] += 1\n    return x[10]\n", "rw", X),
 "errstate_block_break_inside": ("def f(x):\n    with np.errstate(divide='raise'):\n        a = x / 1\n        print('in')\n        b = 1 / x\n    return a, b\n", "rw", X),
 "errstate_block_break_inside_ignored": ("def f(x):\n    with np.errstate(divide='ignore'):\n        a = np.log(x)\n        print('in')\n        b = 1 / x\n    c = 1 / x\n    return a, b, c\n", "rw", X),
 "errstate_exception_inside_restores": ("def f(x):\n    try:\n        with np.errstate(all='ignore'):\n            a = 1 / x\n            x[10]\n    except IndexError:\n        pass\n    return 1 / x\n", "rw", X),
}


def _read_only(a):
    a = a.copy()
    a.flags.writeable = False
    return a


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_read_only_and_in_place_updates_at_breaks_as_numpy(name):
    source, kind, arg = PROGRAMS[name]
    fn = define(source)

    def scenario(wrap):
        f = wrap(fn)
        seen = []
        for _ in range(2):
            # Passed through a closure: `record` would copy it, writable.
            a = _read_only(arg) if kind == "ro" else arg.copy()
            seen += [record(lambda a=a: f(a), ()), repr(a), a.flags.writeable]
        return seen

    # Each breaks its graph by design (an update of a viewed argument, a print, an error).
    assert_scenario_as_numpy(scenario, compiled_code=False)
