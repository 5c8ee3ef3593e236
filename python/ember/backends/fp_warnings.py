"""NumPy's floating-point warnings from an eager run, given at the user's line.

NumPy warns from C with the innermost Python frame as the location: the line of the user's
function that called the ufunc. A graph run by the eager backend (or rerun after a native
kernel raised a flag) has no such frame, so the warning would name ember's own file, and
the "default" filter would show it once for every program at all. While a graph runs, each
errstate category the caller left at "warn" is switched to "call" with a recorder; after the
node that raised it, the warning is given with `warnings.warn_explicit` at the node's source
line (`Node.where`), with the text NumPy's own warning has (taken from the
`FloatingPointError` of running the node once more with only that category raising), and
with the registry of the user's module, so filters and once-per-location behave as NumPy's.
`np.errstate` is a context variable, so this changes nothing for other threads.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import numpy as np

_KIND = {"divide": "divide by zero", "over": "overflow", "under": "underflow",
         "invalid": "invalid value"}
# NumPy calls the errstate callback once per raised category with the category's name and
# the whole status word (several bits when one ufunc raised several).
_CATEGORY = {kind: category for category, kind in _KIND.items()}
# Registries for code whose module is not in sys.modules (exec'd strings), per file name.
_REGISTRIES: dict[str, dict[Any, Any]] = {}


class Recorder:
    """The errstate callback of one graph run: the categories the running node raised."""

    __slots__ = ("calls_given", "held", "modes", "pending", "texts", "user_call")

    def __init__(self, modes: dict[str, str], user_call: Any) -> None:
        self.modes = modes
        self.user_call = user_call
        self.pending: list[str] = []
        # (`Node.call`, category) given in this run of a func: one warning per NumPy call.
        self.calls_given: set[tuple[int, str]] = set()
        # NumPy's text per (node, category): a loop body's node warns on every trip, and
        # working the text out again (the node run once more) doubled each such trip.
        self.texts: dict[tuple[int, str], str | None] = {}
        # Warnings held until the run ends (`attributed(hold=True)`): none where it raised.
        self.held: list[tuple[str, tuple[str, int, str] | None]] | None = None

    def __call__(self, kind: str, flag: int) -> None:
        category = _CATEGORY.get(kind)
        if category is not None and self.modes[category] == "warn":
            self.pending.append(category)
        elif callable(self.user_call):
            self.user_call(kind, flag)

    @contextmanager
    def as_caller(self) -> Iterator[None]:
        """The caller's own errstate, for a node NumPy computes in Python code of its own
        (`np.sum`, `x.mean()`): NumPy's warnings then name NumPy's line, as they do when the
        user calls it."""
        token = _current.set(None)
        try:
            with np.errstate(call=self.user_call, **self.modes):
                yield
        finally:
            _current.reset(token)

    def give(self, where: tuple[str, int, str] | None, rerun: Callable[[], Any],
             ufunc: str, warns_as: str | None = None, call: int | None = None,
             node: object = None) -> None:
        """Give the warnings `node` just raised, in NumPy's order, at `where`; `warns_as`
        names the ufunc NumPy's text names when it is not the node's own; `call`: the NumPy
        call the node is one element of (`Node.call`), which warns once per category."""
        categories, self.pending = self.pending, []
        for category in sorted(dict.fromkeys(categories), key=list(_KIND).index):
            if call is not None:
                if (call, category) in self.calls_given:
                    continue
                self.calls_given.add((call, category))
            text = None if warns_as is not None else self._text(node, category, rerun)
            if warns_as is not None and warns_as.startswith("scalar "):
                text = named_for_scalar_math(self._text(node, category, rerun), warns_as)
            text = text or f"{_KIND[category]} encountered in {warns_as or ufunc}"
            if self.held is not None:
                self.held.append((text, where))
                continue
            _give(text, where)

    def _text(self, node: object, category: str, rerun: Callable[[], Any]) -> str | None:
        key = (id(node), category)
        if node is None or key not in self.texts:
            self.texts[key] = _numpy_text(category, rerun)
        return self.texts[key]

    def drop_after(self, raised: FloatingPointError) -> None:
        """NumPy checks a ufunc's flags in the order divide, over, under, invalid and stops at
        the first that raises: of the categories a node's operand left pending (the ufunc
        part of a ufunc whose output is cast, `a *= b`), those after the raised one are never
        reported."""
        kinds = [k for k in _KIND if str(raised).startswith(_KIND[k])]
        if kinds:
            order = list(_KIND)
            cut = order.index(kinds[0])
            self.pending = [c for c in self.pending if order.index(c) < cut]


def _give(text: str, where: tuple[str, int, str] | None) -> None:
    if where is None:
        warnings.warn(text, RuntimeWarning, stacklevel=3)
        return
    filename, lineno, module = where
    warnings.warn_explicit(text, RuntimeWarning, filename, lineno, module,
                           _registry(module, filename))


def named_for_scalar_math(text: str | None, warns_as: str) -> str | None:
    """NumPy's text for a flag of its scalar math (`warns_as`, "scalar add"), given the
    ufunc's `text` for it: NumPy casts a Python float operand to the scalar's type first,
    and a flag of that cast names the cast in both ("overflow encountered in cast")."""
    if text is None:
        return None
    kind, _, _ = text.rpartition(" in ")
    return text if text.endswith(" in cast") else f"{kind} in {warns_as}"


_current: ContextVar[Recorder | None] = ContextVar("ember_fp_recorder", default=None)


def recorder() -> Recorder | None:
    return _current.get()


@contextmanager
def attributed(hold: bool = False) -> Iterator[None]:
    """Run a graph with its "warn" categories recorded (nothing changes when the caller warns
    for none, or uses "log", whose object the recorder cannot stand in for). `hold`: the
    warnings are given when the run ends, and dropped where it raised (its frame then runs
    as Python, which gives them again)."""
    if _current.get() is not None:
        yield  # a region run inside a run already recorded
        return
    modes = np.geterr()
    if "log" in modes.values() or "warn" not in modes.values():
        yield
        return
    rec = Recorder(modes, np.geterrcall())
    if hold:
        rec.held = []
    switched = {c: "call" for c, m in modes.items() if m in ("warn", "call")}
    token = _current.set(rec)
    try:
        with np.errstate(call=rec, **switched):
            yield
    finally:
        _current.reset(token)
    held = rec.held or ()
    for text, where in held:
        if _raises(text, where):
            # A filter makes it an error: the frame runs as Python, which gives the
            # warnings before it itself (given here too, they would come twice).
            raise RuntimeWarning(text)
    for text, where in held:
        _give(text, where)


def _raises(text: str, where: tuple[str, int, str] | None) -> bool:
    """Whether a filter makes the RuntimeWarning `text` at `where` an error (the first
    filter that may match decides; where the module is unknown, any module matches)."""
    module, lineno = (where[2], where[1]) if where is not None else (None, 0)
    for action, message, category, mod, line in warnings.filters:
        if ((message is None or message.match(text)) and issubclass(RuntimeWarning, category)
                and (mod is None or module is None or mod.match(module))
                and (line == 0 or where is None or line == lineno)):
            return action == "error"
    return warnings.defaultaction == "error"


# Ops that never raise a floating-point flag (comparisons are made quiet: `quiet.rs`); a
# region op's own nodes are looked at where its region is.
_NO_FLAGS = frozenset({
    "const", "full", "arange", "eye", "load", "store", "reshape", "slice", "transpose",
    "expand_dims", "squeeze", "broadcast_to", "copy", "concatenate", "flip", "where", "gather",
    "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_not",
    "logical_xor", "isnan", "isinf", "isfinite", "signbit", "loop", "if",
})


def block_modes(graph: Any) -> tuple[list[str], list[str]] | None:
    """For a graph with `np.errstate` blocks: the categories some block does not ignore, and
    those a node that may raise a flag leaves to the caller's errstate (outside every block,
    or a category its blocks do not name); None for a graph without blocks."""
    from ember.graph.regions import region_funcs

    nodes = [node for func in (graph, *region_funcs(graph)) for node in func.nodes]
    if not any(node.errstate for node in nodes):
        return None
    left = {category for node in nodes if node.op not in _NO_FLAGS
            for category in _KIND if category not in dict(node.errstate or ())}
    return sorted(graph.errstate_acts), sorted(left)


@contextmanager
def node_errstate(modes: tuple[tuple[str, str], ...] | None) -> Iterator[None]:
    """The modes of the `np.errstate` block a node was captured in (`Node.errstate`), over
    the caller's: a category the block warns for is recorded as the caller's are."""
    if not modes:
        yield
        return
    rec = _current.get()
    if rec is None:
        with np.errstate(**dict(modes)):
            yield
        return
    saved = rec.modes
    rec.modes = {**saved, **dict(modes)}
    try:
        with np.errstate(**{c: "call" if m == "warn" else m for c, m in modes}):
            yield
    finally:
        rec.modes = saved


def _numpy_text(category: str, rerun: Callable[[], Any]) -> str | None:
    """NumPy's message for `category` raised by the node (its FloatingPointError's text)."""
    token = _current.set(None)
    try:
        with np.errstate(all="ignore", **{category: "raise"}):
            rerun()
    except FloatingPointError as exc:
        return str(exc)
    finally:
        _current.reset(token)
    return None


def _registry(module: str, filename: str) -> dict[Any, Any]:
    mod = sys.modules.get(module)
    namespace = getattr(mod, "__dict__", None)
    if isinstance(namespace, dict) and getattr(mod, "__file__", filename) == filename:
        return namespace.setdefault("__warningregistry__", {})
    return _REGISTRIES.setdefault(filename, {})
