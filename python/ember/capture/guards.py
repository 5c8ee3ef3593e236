"""Guards: the conditions under which a captured entry is valid, as the guard tree of
`ember._core` (evaluated in Rust by the frame hook on every call).

Checks are recorded per source while capture reads values (see builder.py): arrays by
ARRAY_MATCH (dtype and shape; strides are left free because compiled graphs take any
strides), Python scalars by EQUALS_MATCH (they are specialised as constants; an int a loop
op's `range` takes at run time by INT_AT_LEAST, the value that gives one trip), containers by
TYPE_MATCH + LEN_MATCH (dicts by DICT_KEYS_MATCH), modules and functions by ID_MATCH, objects
by TYPE_MATCH with their attributes as children. The globals and builtins dicts are checked
by identity (ADDRESS_MATCH), names resolved in builtins by their absence from the globals
(DICT_LACKS), methods by the absence of their name from the instance `__dict__`, and
attributes of NumPy and `math` by MODULE_ATTR_IS. This module also evaluates a tree in Python
to say *which* check failed, for recompile reasons and `explain`, on a copy that holds
functions, classes and modules weakly (`weaken`), so that what ember remembers about a code
never keeps the code's own function alive.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from types import FunctionType, ModuleType
from typing import Any

import numpy as np

from ember.capture.sources import Source

Accessor = tuple[str, Any]
Check = tuple[Any, ...]


@dataclass
class _Node:
    accessor: Accessor
    name: str
    checks: list[Check] = field(default_factory=list)
    children: dict[Any, _Node] = field(default_factory=dict)


def _key(accessor: Accessor) -> tuple:
    """Accessors as dict keys: keep the key's type (1 and True are different items)."""
    return (accessor[0], type(accessor[1]), accessor[1])


class GuardBuilder:
    """Collects checks by source and builds the tree; a path with no check of its own is kept
    only as the way to its children."""

    def __init__(self) -> None:
        self.roots: dict[tuple, _Node] = {}

    def add(self, source: Source, check: Check) -> None:
        node = self._node(source)
        if not any(_same_check(check, c) for c in node.checks):
            node.checks.append(check)

    def replace(self, source: Source, old: Check, new: Check) -> None:
        """`new` in place of `old`, a check added on `source`."""
        checks = self._node(source).checks
        checks[next(i for i, c in enumerate(checks) if _same_check(old, c))] = new

    def _node(self, source: Source) -> _Node:
        accessors = source.accessors()
        level = self.roots
        node = None
        names = _path_names(source)
        for accessor, name in zip(accessors, names):
            key = _key(accessor)
            node = level.get(key)
            if node is None:
                node = level[key] = _Node(accessor, name)
            level = node.children
        assert node is not None
        return node

    def build(self) -> list:
        """The wire format: a list of `(accessor, checks, children)`, cheapest first (see
        `_root_cost`), so that a call that misses is told so by the first checks it runs."""
        roots = sorted(self.roots.values(), key=_root_cost)
        return [_emit(node) for node in roots]

    def count(self) -> int:
        """Number of checks in the tree."""
        return sum(_count(n) for n in self.roots.values())

    def describe(self) -> list[str]:
        """One line per check: `L['x']: ARRAY_MATCH float32 (8, 4)`."""
        lines: list[str] = []
        for node in self.roots.values():
            _describe(node, lines)
        return lines


def _same_check(a: Check, b: Check) -> bool:
    return a[0] == b[0] and all(x is y or (type(x) is type(y) and x == y)
                                for x, y in zip(a[1:], b[1:]))


def _path_names(source: Source) -> list[str]:
    """The readable name of each prefix of the source's path (`L['self']`, `L['self'].w`)."""
    chain = []
    s: Source | None = source
    while s is not None:
        chain.append(s.name())
        s = getattr(s, "base", None)
    return list(reversed(chain))


# Roots by what reading their value costs: an argument slot, the frame's dicts themselves, a
# closure cell or a lookup by interned name; nodes with children read attributes or items,
# which may run Python code, so they come last.
_ROOT_COST = {"local": 0, "globals_dict": 1, "builtins_dict": 1, "closure": 2, "global": 2,
              "builtin": 2}
# Checks by cost; a type is checked before anything that relies on it (a length, dict keys).
_CHECK_COST = {"TYPE_MATCH": 0, "ID_MATCH": 0, "ADDRESS_MATCH": 0, "EQUALS_MATCH": 1,
               "ARRAY_MATCH": 1, "INT_AT_LEAST": 1, "LEN_MATCH": 2, "DICT_LACKS": 2, "MODULE_ATTR_IS": 2,
               "DICT_KEYS_MATCH": 3}


def _root_cost(node: _Node) -> tuple[int, int]:
    return (1 if node.children else 0, _ROOT_COST.get(node.accessor[0], 3))


def _emit(node: _Node) -> tuple:
    checks = sorted(node.checks, key=lambda c: _CHECK_COST.get(c[0], 4))
    return (node.accessor, checks, [_emit(c) for c in node.children.values()])


def _count(node: _Node) -> int:
    return len(node.checks) + sum(_count(c) for c in node.children.values())


def format_check(check: Check) -> str:
    kind = check[0]
    if kind == "ARRAY_MATCH":
        dtype, shape, strides = check[1:]
        dims = tuple("*" if d is None else f">={symbolic_minimum(d)}" if d <= SYMBOLIC_DIM
                     else d for d in shape)
        text = f"ARRAY_MATCH {np.dtype(dtype)} {dims}"
        return text + (f" strides={strides}" if strides is not None else "")
    if kind == "ADDRESS_MATCH":
        target = check[1]
        return f"{kind} {target.type_name if isinstance(target, _Held) else type(target).__name__}"
    if kind == "MODULE_ATTR_IS":
        target = _unheld(check[2])
        shown = _label(target) if callable(target) else repr(target)
        return f"{kind} {check[1]} is {shown}"
    if kind in ("TYPE_MATCH", "ID_MATCH"):
        return f"{kind} {_label(_unheld(check[1]))}"
    return f"{kind} {check[1]!r}"


def _label(target: Any) -> str:
    label = getattr(target, "__qualname__", None) or getattr(target, "__name__", None)
    return label if isinstance(label, str) else type(target).__name__


class _Held:
    """An object of a remembered guard tree: weakly where it can be (functions, classes,
    modules may reach the code the tree is about), by id alone for dicts (ADDRESS_MATCH)."""

    __slots__ = ("address", "ref", "strong", "type_name")

    def __init__(self, obj: Any, *, address_only: bool = False) -> None:
        self.address = id(obj)
        self.type_name = type(obj).__name__
        self.ref = self.strong = None
        if address_only:
            return
        try:
            self.ref = weakref.ref(obj)
        except TypeError:
            self.strong = obj

    def get(self) -> Any:
        if self.ref is not None:
            return self.ref()
        return self.strong

    def is_(self, value: Any) -> bool:
        if id(value) != self.address:
            return False
        return self.ref is None or self.ref() is value


def _unheld(obj: Any) -> Any:
    return obj.get() if isinstance(obj, _Held) else obj


def _is(value: Any, target: Any) -> bool:
    return target.is_(value) if isinstance(target, _Held) else value is target


_HELD_AT = {"TYPE_MATCH": 1, "ID_MATCH": 1, "MODULE_ATTR_IS": 2}


def _weaken_check(check: Check) -> Check:
    if check[0] == "ADDRESS_MATCH":
        return (check[0], _Held(check[1], address_only=True))
    at = _HELD_AT.get(check[0])
    if at is None:
        return check
    return (*check[:at], _Held(check[at]), *check[at + 1:])


def weaken(tree: list) -> list:
    """A copy of a wire-format tree for remembering: see `_Held`."""
    return [(accessor, [_weaken_check(c) for c in checks], weaken(children))
            for accessor, checks, children in tree]


def _describe(node: _Node, lines: list[str]) -> None:
    for check in node.checks:
        lines.append(f"{node.name}: {format_check(check)}")
    for child in node.children.values():
        _describe(child, lines)


# ---- evaluation in Python (which check failed) ----------------------------------------------

_MISSING = object()


def _read_root(accessor: Accessor, func: FunctionType, args: tuple) -> Any:
    kind, arg = accessor
    try:
        if kind == "local":
            return args[arg]
        if kind == "global":
            return func.__globals__[arg]
        if kind == "builtin":
            b = func.__builtins__
            return (b if isinstance(b, dict) else vars(b))[arg]
        if kind == "closure":
            return func.__closure__[arg].cell_contents
        if kind == "globals_dict":
            return func.__globals__
        if kind == "builtins_dict":
            return func.__builtins__
    except (IndexError, KeyError, ValueError, TypeError):
        return _MISSING
    raise ValueError(f"unknown root accessor {kind!r}")


def _read_child(accessor: Accessor, value: Any) -> Any:
    kind, arg = accessor
    try:
        return getattr(value, arg) if kind == "attr" else value[arg]
    except (AttributeError, IndexError, KeyError, TypeError):
        return _MISSING


def _equals_exact(value: Any, expected: Any) -> bool:
    if type(value) is not type(expected):
        return False
    if isinstance(expected, tuple):
        return len(value) == len(expected) and all(map(_equals_exact, value, expected))
    if isinstance(expected, float):
        return np.float64(value).tobytes() == np.float64(expected).tobytes()
    return value == expected


# The ARRAY_MATCH shape entry of a symbolic dim: any size of 2 or more (sizes 0 and 1 change
# broadcasting and emptiness, so they are never symbolic). An entry -k below it takes sizes of
# k + 1 or more: a symbol the graph slices (`x[2:]` needs 4 to leave 2).
SYMBOLIC_DIM = -1


def symbolic_entry(minimum: int) -> int:
    """The ARRAY_MATCH entry of a symbolic dim taking sizes of `minimum` (2 or more) or more."""
    return 1 - max(minimum, 2)


def symbolic_minimum(entry: int) -> int:
    """The least size a symbolic ARRAY_MATCH entry takes."""
    return 1 - entry


def dim_passes(expected: int | None, size: int) -> bool:
    """Whether one dim of an array passes its ARRAY_MATCH entry."""
    if expected is None:
        return True
    return size >= symbolic_minimum(expected) if expected <= SYMBOLIC_DIM else size == expected


def changed_dims(tree: list, func: FunctionType, args: tuple) -> dict[str, set[int]]:
    """Per array source (by name), the dims whose size fails its ARRAY_MATCH for this call
    while dtype and rank still match: what automatic dynamic shapes makes symbolic."""
    changed: dict[str, set[int]] = {}

    def visit(value: Any, checks: list, children: list, name: str) -> None:
        if value is _MISSING:
            return
        for check in checks:
            if check[0] != "ARRAY_MATCH" or type(value) is not np.ndarray:
                continue
            dtype, shape, _ = check[1:]
            if value.dtype != dtype or value.ndim != len(shape):
                continue
            dims = {i for i, (d, n) in enumerate(zip(shape, value.shape))
                    if not dim_passes(d, n)}
            if dims:
                changed.setdefault(name, set()).update(dims)
        for child_accessor, child_checks, grandchildren in children:
            kind, arg = child_accessor
            child_name = f"{name}.{arg}" if kind == "attr" else f"{name}[{arg!r}]"
            visit(_read_child(child_accessor, value), child_checks, grandchildren, child_name)

    for accessor, checks, children in tree:
        visit(_read_root(accessor, func, args), checks, children, _root_name(accessor, func))
    return changed


def changed_ints(tree: list, func: FunctionType, args: tuple) -> set[str]:
    """The int arguments (by source name) whose EQUALS_MATCH fails for this call with
    another int: those automatic dynamic shapes may take as sizes (`Tracer.int_symbol`)."""
    changed: set[str] = set()
    for accessor, checks, _ in tree:
        value = _read_root(accessor, func, args)
        if type(value) is not int:
            continue
        if any(c[0] == "EQUALS_MATCH" and type(c[1]) is int and c[1] != value for c in checks):
            changed.add(_root_name(accessor, func))
    return changed


def check_passes(check: Check, value: Any) -> bool:
    kind = check[0]
    if kind == "TYPE_MATCH":
        return _is(type(value), check[1])
    if kind in ("ID_MATCH", "ADDRESS_MATCH"):
        return _is(value, check[1])
    if kind == "DICT_LACKS":
        return type(value) is dict and check[1] not in value
    if kind == "MODULE_ATTR_IS":
        return (isinstance(value, ModuleType)
                and _is(value.__dict__.get(check[1], _MISSING), check[2]))
    if kind == "EQUALS_MATCH":
        return _equals_exact(value, check[1])
    if kind == "LEN_MATCH":
        return len(value) == check[1]
    if kind == "INT_AT_LEAST":
        return type(value) is int and value >= check[1]
    if kind == "DICT_KEYS_MATCH":
        return tuple(value.keys()) == check[1]
    if kind == "ARRAY_MATCH":
        dtype, shape, strides = check[1:]
        if type(value) is not np.ndarray or value.dtype != dtype or value.ndim != len(shape):
            return False
        if any(not dim_passes(d, s) for d, s in zip(shape, value.shape)):
            return False
        return strides is None or all(
            d is None or d == s for d, s in zip(strides, value.strides)
        )
    raise ValueError(f"unknown guard check {kind!r}")


@dataclass(frozen=True)
class Failure:
    """The first check of a tree that fails, on which value (`_MISSING`: unreadable)."""

    name: str
    check: Check | None
    value: Any

    def __str__(self) -> str:
        if self.check is None:
            return f"{self.name} cannot be read"
        if self.check[0] == "ADDRESS_MATCH":
            return f"{self.name} failed ADDRESS_MATCH: another {type(self.value).__name__}"
        why = _why(self.check, self.value)
        return (f"{self.name} failed {format_check(self.check)}: got {_summary(self.value)}"
                + (f" ({why})" if why else ""))

    def is_shape_change(self) -> bool:
        """An array of the same dtype and rank with other sizes: what makes automatic
        dynamic shapes capture symbolically."""
        if self.check is None or self.check[0] != "ARRAY_MATCH":
            return False
        dtype, shape, _ = self.check[1:]
        v = self.value
        return type(v) is np.ndarray and v.dtype == dtype and v.ndim == len(shape)

    def is_scalar_change(self) -> bool:
        """A Python float or int with another value (a learning rate, a step counter, a loop
        position handed to a resume function): what makes automatic dynamic capture pass
        them as inputs instead of specialising on them."""
        return (self.check is not None and self.check[0] == "EQUALS_MATCH"
                and type(self.check[1]) in (float, int) and type(self.value) is type(self.check[1]))


def _why(check: Check, value: Any) -> str:
    """What differs, where the check and the value alone do not make it plain."""
    kind = check[0]
    if kind == "ARRAY_MATCH":
        dtype, shape, strides = check[1:]
        if type(value) is not np.ndarray:
            return f"not an ndarray but {type(value).__name__}"
        if value.dtype != dtype:
            return f"dtype {value.dtype}, expected {np.dtype(dtype)}"
        if value.ndim != len(shape):
            return f"{value.ndim} dimensions, expected {len(shape)}"
        for axis, (want, got) in enumerate(zip(shape, value.shape)):
            if want is not None and want != got:
                return f"dimension {axis} is {got}, expected {want}"
        return f"strides {value.strides}, expected {tuple(strides)}"
    if kind == "TYPE_MATCH":
        return f"type {type(value).__qualname__}"
    if kind == "INT_AT_LEAST" and type(value) is int:
        return f"below {check[1]}"
    if kind == "LEN_MATCH" and hasattr(value, "__len__"):
        return f"length {len(value)}"
    if kind == "DICT_LACKS":
        return f"{check[1]!r} was added" if isinstance(value, dict) else "not a dict"
    if kind == "MODULE_ATTR_IS" and isinstance(value, ModuleType):
        now = value.__dict__.get(check[1], _MISSING)
        return f"{check[1]} was deleted" if now is _MISSING else f"{check[1]} is now {_summary(now)}"
    return ""


def entry_failures(trees: list[list], func: FunctionType, args: tuple) -> list[str]:
    """Why each of a code's entries (their remembered trees, oldest first) does not serve
    this call, newest first as the frame hook tries them; entries whose guards pass (compiled
    under other options) are left out."""
    found = (find_failure(tree, func, args) for tree in reversed(trees))
    return [str(f) for f in found if f is not None]


def find_failure(tree: list, func: FunctionType, args: tuple) -> Failure | None:
    """The first failing check of `tree` for this call (None when all pass)."""
    for accessor, checks, children in tree:
        value = _read_root(accessor, func, args)
        failure = _first_failure_at(value, checks, children, _root_name(accessor, func))
        if failure:
            return failure
    return None


def first_failure(tree: list, func: FunctionType, args: tuple) -> str | None:
    """A sentence naming the first failing check of `tree` (None when all pass)."""
    failure = find_failure(tree, func, args)
    return None if failure is None else str(failure)


def _root_name(accessor: Accessor, func: FunctionType) -> str:
    kind, arg = accessor
    if kind == "local":
        return f"L[{func.__code__.co_varnames[arg]!r}]"
    if kind == "closure":
        return f"C[{func.__code__.co_freevars[arg]!r}]"
    if kind in ("globals_dict", "builtins_dict"):
        return kind[0].upper()
    return f"{kind[0].upper()}[{arg!r}]"


def _first_failure_at(value, checks, children, name) -> Failure | None:
    if value is _MISSING:
        return Failure(name, None, value)
    for check in checks:
        if not check_passes(check, value):
            return Failure(name, check, value)
    for child_accessor, child_checks, grandchildren in children:
        child = _read_child(child_accessor, value)
        kind, arg = child_accessor
        child_name = f"{name}.{arg}" if kind == "attr" else f"{name}[{arg!r}]"
        failure = _first_failure_at(child, child_checks, grandchildren, child_name)
        if failure:
            return failure
    return None


# Types whose repr runs no user code and gives no warning; any other value is named by its
# type, so that explaining a cache miss never calls a `__repr__` of the program (which may
# print, count or warn: the repr of a built-in module gives a DeprecationWarning).
_PLAIN_REPR = (type(None), bool, int, float, complex, str, bytes, np.generic, np.dtype)


def _summary(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"ndarray {value.dtype} {value.shape}"
    if isinstance(value, ModuleType):
        return f"module {value.__dict__.get('__name__', '?')!r}"
    if type(value) not in _PLAIN_REPR and not (
            isinstance(value, np.generic) and type(value).__module__ == "numpy"):
        return f"{type(value).__qualname__} object"
    text = repr(value)
    return text if len(text) <= 60 else f"{type(value).__name__} object"
