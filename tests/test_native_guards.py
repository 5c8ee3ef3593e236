"""Guard trees of `ember._core`: every check kind and accessor, through `check_guards` and the
frame hook."""

import collections
import importlib
import importlib.machinery
import pathlib

import numpy as np
import pytest


def _load_core():
    """`ember._core`, loaded directly if the `ember` package itself cannot be imported."""
    try:
        return importlib.import_module("ember._core")
    except ImportError:
        root = pathlib.Path(__file__).resolve().parents[1] / "python" / "ember"
        path = next(root.glob("_core.*.so"))
        loader = importlib.machinery.ExtensionFileLoader("ember._core", str(path))
        spec = importlib.util.spec_from_loader("ember._core", loader)
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
        return module


core = _load_core()

SCALE = 2.0


def uses_globals(x):
    return x * SCALE * len([])


def local(i, *checks, children=()):
    return (("local", i), list(checks), list(children))


def child(kind, arg, *checks, children=()):
    return ((kind, arg), list(checks), list(children))


def check_local(value, *checks, children=()):
    return core.check_guards([local(0, *checks, children=children)], uses_globals, (value,))


def test_type_match():
    assert check_local(3, ("TYPE_MATCH", int))
    assert not check_local(True, ("TYPE_MATCH", int))  # exact type, not isinstance
    assert not check_local(3.0, ("TYPE_MATCH", int))
    assert check_local(np.float32(1), ("TYPE_MATCH", np.float32))


def test_id_match():
    marker = object()
    assert check_local(marker, ("ID_MATCH", marker))
    assert not check_local(object(), ("ID_MATCH", marker))


@pytest.mark.parametrize(
    ("value", "expected", "passes"),
    [
        (3, 3, True),
        (3, 3.0, False),
        (True, 1, False),
        (True, True, True),
        (None, None, True),
        ("ab", "ab", True),
        ("ab", "abc", False),
        (2**70, 2**70, True),
        (float("nan"), float("nan"), True),
        (0.0, -0.0, False),
        (1.5, 1.5, True),
        ((1, (2, "x")), (1, (2, "x")), True),
        ((1, 2), (1.0, 2), False),
        ((1, 2), (1, 2, 3), False),
        ([1, 2], (1, 2), False),
    ],
)
def test_equals_match(value, expected, passes):
    assert check_local(value, ("EQUALS_MATCH", expected)) is passes


def test_equals_match_rejects_unsupported_constants():
    with pytest.raises(TypeError, match="EQUALS_MATCH"):
        check_local(1, ("EQUALS_MATCH", [1]))
    with pytest.raises(TypeError, match="EQUALS_MATCH"):
        check_local(1, ("EQUALS_MATCH", (1, object())))


def test_len_match():
    assert check_local((1, 2), ("LEN_MATCH", 2))
    assert check_local([1, 2, 3], ("LEN_MATCH", 3))
    assert check_local({"a": 1}, ("LEN_MATCH", 1))
    assert not check_local([1], ("LEN_MATCH", 2))
    assert not check_local(5, ("LEN_MATCH", 1))  # no len(): fails, does not raise


def test_dict_keys_match_is_ordered():
    assert check_local({"a": 1, "b": 2}, ("DICT_KEYS_MATCH", ("a", "b")))
    assert not check_local({"b": 2, "a": 1}, ("DICT_KEYS_MATCH", ("a", "b")))
    assert not check_local({"a": 1}, ("DICT_KEYS_MATCH", ("a", "b")))
    ordered = collections.OrderedDict(a=1, b=2)
    ordered.move_to_end("a")
    assert check_local(ordered, ("DICT_KEYS_MATCH", ("b", "a")))
    assert not check_local(3, ("DICT_KEYS_MATCH", ()))


class SubArray(np.ndarray):
    pass


def test_array_match_dtype_and_rank():
    x = np.zeros((2, 3), dtype=np.float32)
    assert check_local(x, ("ARRAY_MATCH", np.float32, (2, 3), None))
    assert check_local(x, ("ARRAY_MATCH", "float32", (2, 3), None))
    assert check_local(x, ("ARRAY_MATCH", np.dtype("f4"), (2, 3), None))
    assert not check_local(x, ("ARRAY_MATCH", np.float64, (2, 3), None))
    assert not check_local(x, ("ARRAY_MATCH", np.float32, (2, 3, 1), None))
    assert not check_local(x.astype(">f4"), ("ARRAY_MATCH", np.float32, (2, 3), None))
    assert not check_local(x.view(SubArray), ("ARRAY_MATCH", np.float32, (2, 3), None))
    assert not check_local([[0.0] * 3] * 2, ("ARRAY_MATCH", np.float32, (2, 3), None))


def test_array_match_shape_wildcards():
    x = np.ones((4, 5))
    assert check_local(x, ("ARRAY_MATCH", np.float64, (None, 5), None))
    assert check_local(x, ("ARRAY_MATCH", np.float64, (None, None), None))
    assert not check_local(x, ("ARRAY_MATCH", np.float64, (None, 6), None))
    assert check_local(np.ones(()), ("ARRAY_MATCH", np.float64, (), None))
    assert not check_local(np.ones(()), ("ARRAY_MATCH", np.float64, (None,), None))


def test_array_match_strides():
    x = np.ones((4, 6), dtype=np.int64)
    assert check_local(x, ("ARRAY_MATCH", np.int64, (4, 6), (48, 8)))
    assert not check_local(x.T, ("ARRAY_MATCH", np.int64, (6, 4), (48, 8)))
    assert check_local(x.T, ("ARRAY_MATCH", np.int64, (6, 4), (8, 48)))
    assert check_local(x[:, ::2], ("ARRAY_MATCH", np.int64, (4, 3), (None, 16)))
    assert not check_local(x[:, ::2], ("ARRAY_MATCH", np.int64, (4, 3), (None, 8)))
    with pytest.raises(ValueError, match="strides"):
        check_local(x, ("ARRAY_MATCH", np.int64, (4, 6), (8,)))


def test_global_and_builtin_accessors():
    guards = [
        (("global", "SCALE"), [("EQUALS_MATCH", 2.0)], []),
        (("builtin", "len"), [("ID_MATCH", len)], []),
    ]
    assert core.check_guards(guards, uses_globals, (1,))
    missing = [(("global", "NOT_DEFINED_ANYWHERE"), [], [])]
    assert not core.check_guards(missing, uses_globals, (1,))
    assert not core.check_guards([(("builtin", "no_such_builtin"), [], [])], uses_globals, (1,))


def test_global_change_fails_the_guard():
    guards = [(("global", "SCALE"), [("EQUALS_MATCH", 2.0)], [])]
    global SCALE
    try:
        SCALE = 3.0
        assert not core.check_guards(guards, uses_globals, (1,))
    finally:
        SCALE = 2.0
    assert core.check_guards(guards, uses_globals, (1,))


def test_closure_cell_change_fails_the_guard():
    factor = 3

    def f(x):
        return x * factor

    guards = [(("closure", 0), [("EQUALS_MATCH", 3)], [])]
    assert core.check_guards(guards, f, (1,))
    factor = 4
    assert not core.check_guards(guards, f, (1,))
    assert f(1) == 4
    assert not core.check_guards([(("closure", 1), [], [])], f, (1,))
    assert not core.check_guards([(("closure", 0), [], [])], uses_globals, (1,))


def test_empty_closure_cell_fails():
    def outer():
        def f():
            return later

        guards_result = core.check_guards([(("closure", 0), [], [])], f, ())
        later = 1
        return guards_result, core.check_guards([(("closure", 0), [], [])], f, ())

    assert outer() == (False, True)


class Holder:
    def __init__(self):
        self.w = np.ones(3)
        self.items = [1, (2, 3)]
        self.table = {"k": 5}

    @property
    def explodes(self):
        raise ZeroDivisionError("property failed")


def test_attr_and_item_accessors():
    h = Holder()
    guards = [
        local(
            0,
            ("TYPE_MATCH", Holder),
            children=[
                child("attr", "w", ("ARRAY_MATCH", np.float64, (3,), (8,))),
                child(
                    "attr",
                    "items",
                    ("LEN_MATCH", 2),
                    children=[
                        child("item", 0, ("EQUALS_MATCH", 1)),
                        child("item", -1, ("EQUALS_MATCH", (2, 3))),
                    ],
                ),
                child("attr", "table", children=[child("item", "k", ("EQUALS_MATCH", 5))]),
            ],
        )
    ]
    assert core.check_guards(guards, uses_globals, (h,))
    h.items[0] = 7
    assert not core.check_guards(guards, uses_globals, (h,))


def test_unreadable_values_fail():
    h = Holder()
    assert not check_local(h, children=[child("attr", "missing")])
    assert not check_local(h, children=[child("attr", "items", children=[child("item", 5)])])
    assert not check_local(h, children=[child("attr", "table", children=[child("item", "x")])])
    assert not check_local(3, children=[child("item", 0)])
    assert not core.check_guards([local(3)], uses_globals, (1,))


def test_other_exceptions_propagate():
    with pytest.raises(ZeroDivisionError, match="property failed"):
        check_local(Holder(), children=[child("attr", "explodes")])


@pytest.mark.parametrize(
    ("tree", "error", "message"),
    [
        ("not a list", TypeError, "list or tuple"),
        ([(("local", 0), [])], ValueError, "accessor, checks, children"),
        ([(("nowhere", 0), [], [])], ValueError, "unknown accessor"),
        ([(("attr", "x"), [], [])], ValueError, "cannot start a root node"),
        ([local(0, children=[(("local", 1), [], [])])], ValueError, "cannot start a child node"),
        ([local(0, ("TYPE_MATCH", 3))], TypeError, "TYPE_MATCH needs a type"),
        ([local(0, ("LEN_MATCH", -1))], ValueError, "length"),
        ([local(0, ("SOMETHING", 1))], ValueError, "unknown check"),
        ([local(0, ("ID_MATCH",))], ValueError, "takes 1 argument"),
        ([(("local", -1), [], [])], ValueError, "negative"),
        ([(("global", 3), [], [])], TypeError, "name"),
    ],
)
def test_invalid_trees_raise(tree, error, message):
    with pytest.raises(error, match=message):
        core.check_guards(tree, uses_globals, (1,))


def test_check_guards_needs_a_function():
    with pytest.raises(TypeError, match="function"):
        core.check_guards([], len, ())


def test_hook_evaluates_guards_against_the_frame():
    """The hook reads arguments, globals and closure cells of the live frame."""
    ns = {}
    source = "def entry(*args):\n    return 'hit'\n"
    exec(compile(source, "<ember-test>", "exec"), ns)  # noqa: S102 - test-made source
    offset = 1

    def f(x, *, y):
        return x + y + offset

    guards = [
        local(0, ("ARRAY_MATCH", np.float64, (None,), None)),
        local(1, ("EQUALS_MATCH", 2)),
        (("closure", 0), [("EQUALS_MATCH", 1)], []),
        (("global", "SCALE"), [("EQUALS_MATCH", 2.0)], []),
    ]
    calls = []

    def converter(func, args):
        if func is not f:
            return None
        calls.append(args)
        return (guards, ns["entry"]) if len(calls) == 1 else None

    core.reset()
    previous_callback = core.set_callback(converter)
    previous = core.enable(True)
    try:
        assert f(np.ones(3), y=2) == "hit"
        assert f(np.ones(7), y=2) == "hit"  # wildcard dimension
        assert len(calls) == 1
        assert isinstance(f(np.ones(3), y=3), np.ndarray)  # y changed: converter, then frame
        offset = 5
        assert isinstance(f(np.ones(3), y=2), np.ndarray)  # closure cell changed
        assert len(calls) == 3
    finally:
        core.enable(previous)
        core.set_callback(previous_callback)
        core.reset()
