"""Guard trees built by capture: their wire format, evaluated by the native module and by
the Python explainer of failures, for every kind of source."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pytest
from ember import _core
from ember.capture.convert import convert
from ember.capture.guards import GuardBuilder, check_passes, first_failure
from ember.capture.sources import AttrSource, GlobalSource, ItemSource, LocalSource

W = np.ones((3, 2))
SCALE = 2.0


def uses_global(x):
    return x @ W * SCALE


class Holder:
    def __init__(self):
        self.items = [np.ones(2), 3]


def uses_object(h, x):
    return x * h.items[0] + h.items[1]


def make_closure(a):
    def inner(x):
        return x + a

    return inner


def both(func, good, bad):
    cap = convert(func, good)
    assert _core.check_guards(cap.guards, func, good)
    assert first_failure(cap.guards, func, good) is None
    assert not _core.check_guards(cap.guards, func, bad)
    reason = first_failure(cap.guards, func, bad)
    assert reason is not None
    return cap, reason


def test_global_array_and_scalar_guards():
    global SCALE
    x = np.ones((4, 3))
    cap, _ = both(uses_global, (x,), (np.ones((4, 4)),))
    assert "G['W']: ARRAY_MATCH float64 (3, 2)" in cap.guard_lines
    assert "G['SCALE']: EQUALS_MATCH 2.0" in cap.guard_lines
    np.testing.assert_array_equal(cap.entry(uses_global, x), x @ W * 2.0)
    SCALE = 3.0
    try:
        assert not _core.check_guards(cap.guards, uses_global, (x,))
        assert first_failure(cap.guards, uses_global, (x,)) == (
            "G['SCALE'] failed EQUALS_MATCH 2.0: got 3.0")
    finally:
        SCALE = 2.0


def test_object_and_container_guards():
    h = Holder()
    x = np.ones(2)
    other = Holder()
    other.items = [np.ones(2), 4]
    cap, reason = both(uses_object, (h, x), (other, x))
    assert reason == "L['h'].items[1] failed EQUALS_MATCH 3: got 4"
    short = Holder()
    short.items = [np.ones(2)]
    assert "LEN_MATCH" in first_failure(cap.guards, uses_object, (short, x))
    assert not _core.check_guards(cap.guards, uses_object, (short, x))


def test_closure_arrays_are_reloaded_through_the_frames_function():
    # Entries serve every function of a code: one taking the frame's function reads each
    # call's own cells, so another closure of the same code reuses the entry.
    a = np.ones(3)
    inner = make_closure(a)
    x = np.zeros(3)
    cap = convert(inner, (x,))
    assert "C['a']: ARRAY_MATCH float64 (3,)" in cap.guard_lines
    assert not any("ID_MATCH" in line for line in cap.guard_lines if line.startswith("C["))
    assert _core.check_guards(cap.guards, inner, (x,))
    other = make_closure(np.full(3, 2.0))  # same code, another cell
    assert _core.check_guards(cap.guards, other, (x,))
    np.testing.assert_array_equal(cap.entry(other, x), np.full(3, 2.0))
    a[:] = 5  # contents change in place
    np.testing.assert_array_equal(cap.entry(inner, x), np.full(3, 5.0))
    assert not _core.check_guards(cap.guards, make_closure(np.ones(4)), (x,))


def test_strides_are_free_by_default():
    def f(x):
        return x * 2

    base = np.ones((4, 6))
    cap = convert(f, (base[:, :3],))
    assert _core.check_guards(cap.guards, f, (np.ones((4, 3)),))
    assert _core.check_guards(cap.guards, f, (base[:, ::2],))
    np.testing.assert_array_equal(cap.entry(f, base[:, ::2]), base[:, ::2] * 2)


def test_array_subclasses_and_wrong_types_fail():
    def f(x):
        return x + 1

    cap = convert(f, (np.ones(2),))
    assert not _core.check_guards(cap.guards, f, (np.ma.masked_array(np.ones(2)),))
    assert not _core.check_guards(cap.guards, f, ([1.0, 1.0],))


def test_builder_merges_paths_and_deduplicates_checks():
    b = GuardBuilder()
    m = LocalSource("m", 0)
    b.add(m, ("TYPE_MATCH", Holder))
    b.add(AttrSource(m, "w"), ("ARRAY_MATCH", np.dtype("f8"), (2,), None))
    b.add(ItemSource(AttrSource(m, "items"), 0), ("EQUALS_MATCH", 1))
    b.add(m, ("TYPE_MATCH", Holder))
    b.add(GlobalSource("np"), ("ID_MATCH", np))
    tree = b.build()
    assert len(tree) == 2 and b.count() == 4
    # Cheapest first: the global's identity before the node that reads attributes.
    (first, _, _), (acc, checks, children) = tree
    assert first == ("global", "np")
    assert acc == ("local", 0) and checks == [("TYPE_MATCH", Holder)]
    assert [c[0] for c in children] == [("attr", "w"), ("attr", "items")]
    assert children[1][1] == [] and children[1][2][0][0] == ("item", 0)


@pytest.mark.parametrize(
    "check, good, bad",
    [
        (("EQUALS_MATCH", 1), 1, True),
        (("EQUALS_MATCH", float("nan")), float("nan"), 0.0),
        (("EQUALS_MATCH", 0.0), 0.0, -0.0),
        (("LEN_MATCH", 2), (1, 2), [1]),
        (("DICT_KEYS_MATCH", ("a", "b")), {"a": 1, "b": 2}, {"b": 1, "a": 2}),
        (("ARRAY_MATCH", np.dtype("f4"), (None, 3), None), np.ones((7, 3), "f4"),
         np.ones((7, 3))),
    ],
)
def test_python_check_semantics_match_native(check, good, bad):
    def f(v):
        return v

    tree = [(("local", 0), [check], [])]
    assert check_passes(check, good) and _core.check_guards(tree, f, (good,))
    assert not check_passes(check, bad) and not _core.check_guards(tree, f, (bad,))


def test_globals_of_an_inlined_function_from_another_module(tmp_path, monkeypatch):
    (tmp_path / "ember_test_helpers.py").write_text(
        "import numpy as np\nBIAS = np.full(3, 2.0)\nK = 4.0\n"
        "def shift(v):\n    return v * K + BIAS\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    import ember_test_helpers as helpers

    def f(x):
        return helpers.shift(x) - 1

    x = np.ones(3)
    cap = convert(f, (x,))
    assert "C['helpers'].shift.__globals__['BIAS']: ARRAY_MATCH float64 (3,)" in cap.guard_lines
    assert "C['helpers'].shift.__globals__['K']: EQUALS_MATCH 4.0" in cap.guard_lines
    np.testing.assert_array_equal(cap.entry(f, x), np.full(3, 5.0))
    assert _core.check_guards(cap.guards, f, (x,))
    helpers.K = 5.0
    assert not _core.check_guards(cap.guards, f, (x,))
    helpers.K = 4.0
    helpers.BIAS = np.zeros(3)  # same guard, new object: the entry reloads it
    np.testing.assert_array_equal(cap.entry(f, x), np.full(3, 3.0))


class Params(NamedTuple):
    w: np.ndarray
    scale: float = 2.0


def uses_params(p, x):
    return x @ p.w * p.scale, p


def test_namedtuples_are_guarded_by_type_and_items():
    p, x = Params(np.ones((3, 2))), np.ones((4, 3))
    cap, reason = both(uses_params, (p, x), (Params(np.ones((3, 2)), 3.0), x))
    assert cap.guard_lines[2:5] == ["L['p']: TYPE_MATCH Params",
                                   "L['p'][0]: ARRAY_MATCH float64 (3, 2)",
                                   "L['p'][1]: EQUALS_MATCH 2.0"]
    assert reason == "L['p'][1] failed EQUALS_MATCH 2.0: got 3.0"
    out, same = cap.entry(uses_params, p, x)
    assert same is p
    np.testing.assert_array_equal(out, x @ p.w * 2.0)
    assert not _core.check_guards(cap.guards, uses_params, ((np.ones((3, 2)), 2.0), x))


class Bounds(NamedTuple):
    lo: float
    hi: float
    steps: int = 2


def clip_steps(x, b):
    for _ in range(b.steps):
        x = np.clip(x * b[1], b.lo, b.hi)
    return x


def clip_each(x, bounds):
    for b in bounds:
        x = np.minimum(np.maximum(x, b.lo), b.hi)
    return x


@pytest.mark.parametrize("fn,args", [
    (clip_steps, (Bounds(-1.0, 1.5),)),
    (clip_steps, (Bounds(0.0, 0.5, 3),)),
    (clip_each, ((Bounds(-1.0, 1.0), Bounds(-0.5, 2.0)),)),
])
def test_namedtuples_of_numbers_alone_compile_like_numpy(fn, args):
    """A NamedTuple holding only numbers (parameters of a model) is guarded by its type and
    each item, as one holding arrays is, never as one constant of the plain-tuple kind."""
    from probe_harness import assert_behaves_as_numpy

    assert_behaves_as_numpy(fn, np.linspace(-2.0, 2.0, 9), *args)


def test_namedtuple_of_numbers_guards_type_and_values():
    cap, reason = both(clip_steps, (np.ones(3), Bounds(-1.0, 1.5)),
                       (np.ones(3), Bounds(-1.0, 2.5)))
    assert "L['b']: TYPE_MATCH Bounds" in cap.guard_lines
    assert reason == "L['b'][1] failed EQUALS_MATCH 1.5: got 2.5"
    assert not _core.check_guards(cap.guards, clip_steps, (np.ones(3), (-1.0, 1.5, 2)))
