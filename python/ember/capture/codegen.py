"""Generated entries: the Python function the frame hook runs instead of a captured frame.

The entry takes the frame's argument slots (after the frame's function, when it reloads
closure cells), reloads each graph input by its source, calls the backend's compiled graph
once and rebuilds the function's return value (`rebuild.py`). At a graph break it rebuilds
the frame's live state instead and calls the step function that runs the refused instruction
as plain Python (`resume/step.py`), following the continuations that come back. Its filename
starts with `<ember` so the hook never captures it. If the graph or a rebuild raises (an error
NumPy raises only at run time), the entry runs the frame as plain Python so the user sees the
exception from their own line.
"""

from __future__ import annotations

import ast
import keyword
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from types import CodeType, FunctionType
from typing import Any

import numpy as np

from ember import _core, stats
from ember.capture.bytecode import CO_VARARGS, CO_VARKEYWORDS, argument_names
from ember.capture.rebuild import FUNCTION, Rebuilder
from ember.capture.resume import trampoline
from ember.capture.tracer import IntSizeSource, Tracer
from ember.capture.variables.containers import DictVariable, IteratorVariable, ListVariable
from ember.capture.variables.draws import draw_lines
from ember.capture.variables.slices import ViewSource

# A graph output as an entry returns it: the array, `[()]` (a NumPy scalar from a 0-d array)
# or `.item()` (a Python scalar); the forms' numbers are `dispatch/direct.rs`'s `OutputForm`.
_DIRECT_OUTPUT = re.compile(r"__ember_out\[(\d+)\](|\[\(\)\]|\.item\(\))")
_OUTPUT_FORMS = {"": 0, "[()]": 1, ".item()": 2}
# A prelude statement taking a scalar from a graph output (`Rebuilder._array`).
_SCALAR_ONCE = re.compile(r"(__ember_v\d+) = (__ember_out\[\d+\](?:\[\(\)\]|\.item\(\)))")
_SCALAR_NAME = re.compile(r"\b__ember_v\d+\b")


_CONSTANT, _ARGUMENT, _GLOBAL = 3, 4, 5  # a constant, an argument, a global: as they are
_PICK = 6  # `a if __ember_out[k][()] else b`: (k, _PICK, a's form, b's form)
_GLOBAL_READ = re.compile(r"__ember_g\[('[A-Za-z_][A-Za-z0-9_]*')\]")
_EMBEDDED = re.compile(r"__ember_c\d+")
_NOT_CONSTANT = object()


def _immutable(value: Any) -> bool:
    """Whether `value` is a constant the entry may hand out on every call: a Python or NumPy
    scalar, a str or bytes, or a tuple of such."""
    if isinstance(value, tuple):
        return all(_immutable(v) for v in value)
    return value is None or type(value) in (bool, int, float, complex, str, bytes) or (
        isinstance(value, (np.number, np.bool_)))


@dataclass(frozen=True)
class StepTail:
    """How an entry ends at a graph break: call `step` (a step code of the frame's code) on
    `args` (expressions, in the step's parameter order) with `closure` (an expression, or
    None), and either follow the continuations (`trampoline`: the frame is the user's) or
    return the first one (the frame is a resume function's)."""

    step: CodeType
    args: list[str]
    closure: str | None
    trampoline: bool


class EntryCodegen(Rebuilder):
    """Builds the entry's source text and the namespace it runs in."""

    def __init__(self, tracer: Tracer) -> None:
        code = tracer.code
        params = [_param_name(name, i) for i, name in enumerate(argument_names(code))]
        super().__init__(tracer, params)
        # (graph input position, output index) per argument array updated in place.
        self.writebacks = [
            (next(k for k, i in enumerate(tracer.inputs) if i.source == vt.source),
             self.output(vt.value))
            for vt in tracer.mutated
        ]
        # Graph outputs that, when true, send the frame to plain Python (`rerun_checks`).
        self.rerun_outputs = [self.output(v) for v in tracer.rerun_checks]
        self.attribute_lines = [
            f"{self.embed(setattr, 'setattr')}({self.reload(obj.source)}, {name!r}, "
            f"{self.expr(value)})"
            for obj in tracer.attribute_stores
            for name, value in obj.stored.items()
        ] + self.store_lines()

    def alias_check(self) -> str:
        """A condition under which the entry's view of lists, dicts and cells is wrong for this
        call: two paths that met at capture now hold different objects, or a list or dict it
        mutates is also reached by another path it read."""
        builder = self.tracer.builder
        tests = [f"{self.reload(a)} is not {self.reload(b)}" for a, b in builder.alias_pairs]
        tests += [f"{self.cell(a)} is not {self.cell(b)}" for a, b in self.tracer.cell_aliases]
        for mutated in self.tracer.container_stores:
            if mutated.source is None:
                continue
            tests += [f"{self.reload(mutated.source)} is {self.reload(other.source)}"
                      for other in builder.containers.values() if other is not mutated]
        return " or ".join(tests)

    def store_lines(self) -> list[str]:
        """Statements writing back what capture assigned outside the frame: globals, closure
        cells, lists and dicts read from the frame (their whole final contents)."""
        lines = [f"__ember_g[{name!r}] = {self.expr(value)}"
                 for name, value in self.tracer.global_stores.items()]
        for cell in self.tracer.cell_stores:
            lines.append(f"{self.cell(cell)}.cell_contents = {self.expr(cell.contents)}")
        for vt in self.tracer.builder.cache.values():
            if isinstance(vt, IteratorVariable) and vt.index != vt.start:
                lines.append(f"{self.reload(vt.source)}.index = {vt.index}")
        for container in self.tracer.container_stores:
            target = self.reload(container.source)
            if isinstance(container, ListVariable) and container.unread:
                items = "".join(f"{self.expr(v)}, " for v in container.appended)
                lines.append(f"{target}.extend(({items}))")
            elif isinstance(container, DictVariable):
                items = ", ".join(f"{self.constant(k)}: {self.expr(v)}"
                                  for k, v in container.items.items())
                lines.append(f"{self.embed(_refill_dict, 'refill_dict')}({target}, {{{items}}})")
            else:
                items = "".join(f"{self.expr(v)}, " for v in container.items)
                lines.append(f"{target}[:] = [{items}]")
        return lines

    def input_exprs(self) -> list[str]:
        exprs = []
        for graph_input in self.tracer.inputs:
            e = self.reload(graph_input.source)
            exprs.append(f"__ember_asarray({e})" if graph_input.scalar else e)
        return exprs

    def build(self, result: str | StepTail, compiled: Callable | None, fallback: Callable,
              name: str) -> tuple[FunctionType, str]:
        """The entry: run the graph, rebuild what the frame returns (or, at a graph break, its
        live state), replay side effects, then return (or call the step). If the graph or a
        rebuild raises, the frame runs as plain Python instead, for Python's own error."""
        signature = ", ".join([FUNCTION, *self.params])
        self.namespace["__ember_fallback"] = fallback
        fallback_call = f"__ember_fallback({signature})"
        body: list[str] = []  # may raise: inside the try
        # A check that sends the frame to plain Python raises, so that the frame runs once,
        # after the try: an exception of the user's own code must not run it again.
        self.namespace["__ember_rerun"] = _Rerun
        saves, body, restores = draw_lines(self, self.tracer.draws)
        alias_check = self.alias_check()
        if alias_check:
            body += [f"if {alias_check}:", "    raise __ember_rerun"]
        if compiled is not None:
            self.namespace["__ember_graph"] = compiled
            call = ", ".join(self.input_exprs())
            if self.writebacks:
                # Whether writing the updated arguments back could differ from NumPy: a
                # read-only target, or one sharing memory (`np.may_share_memory`) with
                # another argument the graph read (it saw that argument's old contents).
                # The entry then runs the function as Python.
                self.namespace["__ember_unsafe"] = _core.writeback_may_differ
                self.namespace["__ember_copyto"] = np.copyto
                targets = tuple(k for k, _ in self.writebacks)
                body += [f"__ember_in = ({call},)",
                         f"if __ember_unsafe(__ember_in, {targets!r}):",
                         "    raise __ember_rerun"]
                call = "*__ember_in"
            body.append(f"__ember_out = __ember_graph({call})")
            if self.rerun_outputs:
                checks = " or ".join(f"__ember_out[{k}]" for k in self.rerun_outputs)
                body += [f"if {checks}:", "    raise __ember_rerun"]
        if isinstance(result, StepTail):
            tail = self._step_lines(result, body)
        else:
            body.append(f"__ember_result = {result}")
            tail = ["return __ember_result"]
        result = self.inline_single_uses(result, [saves, body, restores])
        body = self.prelude_into(body)
        effects = [f"__ember_copyto(__ember_in[{k}], __ember_out[{o}])"
                   for k, o in self.writebacks] + self.attribute_lines
        lines = [f"def __ember_entry({signature}):"]
        lines += self._namespace_lines(saves + effects + body + tail + restores)
        if (compiled is None and not isinstance(result, StepTail) and not self.prelude
                and not self.tracer.draws):
            lines += [f"    {line}" for line in effects + [f"return {result}"]]
        else:
            # Draws from the frame's generators are undone before it runs as Python.
            lines += [f"    {line}" for line in saves]
            lines += ["    try:", *(f"        {line}" for line in body),
                      "    except Exception:", "        pass", "    else:",
                      *(f"        {line}" for line in effects + tail),
                      "    # the graph or a rebuild raised: rerun as Python for its own error",
                      *(f"    {line}" for line in restores),
                      f"    return {fallback_call}"]
        source = "\n".join(lines) + "\n"
        entry = make_entry(source, self.namespace, name)
        if not (alias_check or self.attribute_lines or self.prelude or self.tracer.draws):
            entry.__ember_direct__ = self.direct_form(result, compiled, fallback)
        return entry, source

    def inline_single_uses(self, result: str | StepTail, blocks: list[list[str]]
                           ) -> str | StepTail:
        """`result` (the prelude, attribute stores and `blocks` in place) with each NumPy or
        Python scalar the prelude takes from the graph's outputs but only one place reads
        taken there instead: an entry returning `a.sum()` keeps no prelude, and so its
        direct form."""
        made = {}
        for line in self.prelude:
            found = _SCALAR_ONCE.fullmatch(line)
            if found is not None:
                made[found.group(1)] = (line, found.group(2))
        if not made:
            return result
        # (`result` is read by a line of the blocks: `__ember_result = ...`)
        texts = [*self.prelude, *self.attribute_lines, *(t for b in blocks for t in b)]
        counts = Counter(name for t in texts for name in _SCALAR_NAME.findall(t))
        # The expressions inlined name no scalar of the prelude, so inlining one leaves the
        # counts of the others as they were.
        once = {name: expr for name, (line, expr) in made.items() if counts[name] == 2}
        if not once:  # each made, and read once
            return result
        dropped = {made[name][0] for name in once}
        self.prelude[:] = [line for line in self.prelude if line not in dropped]

        def inline(text: str) -> str:
            return _SCALAR_NAME.sub(lambda m: once.get(m.group(0), m.group(0)), text)

        for block in (self.prelude, self.attribute_lines, *blocks):
            block[:] = [inline(t) for t in block]
        return inline(result) if isinstance(result, str) else result

    def direct_form(self, result: str | StepTail, compiled: Callable | None,
                    fallback: Callable) -> tuple | None:
        """What the entry amounts to when it calls one native graph on the frame's arguments,
        returns graph outputs (as they are, as a tuple, `[()]` or `.item()` of 0-d ones) and
        writes the arrays it updates back into their inputs: `(graph, inputs, outputs,
        returns_tuple, fallback, writebacks, reruns)` (no outputs and no tuple: it returns
        None; reruns: the outputs that, true, send the call to `fallback`; graph None where
        the entry returns constants and arguments alone), each output `(index, form)`, or
        `(slot, _ARGUMENT)` for an argument returned unchanged, `(0, _CONSTANT, value)`
        for an immutable constant, `(0, _GLOBAL, name)` for a global of the function,
        each input an argument slot and what is read
        of it (None: itself; a str: that attribute; an int: the size of that dim of the
        array; a tuple: a view of it, `ViewSource.direct_read`), each writeback `(input
        position, output index)`, which the native fast path
        runs without the entry (`rust/py/src/dispatch/direct.rs`, with `_unsafe_writeback`'s check);
        None for any other entry."""
        from ember import _core

        if not isinstance(result, str):
            return None
        if compiled is None:  # no graph: the result is constants and arguments alone
            if self.writebacks or self.rerun_outputs:
                return None
        elif not isinstance(compiled, _core.CompiledGraph):
            return None
        slots = []
        for graph_input in self.tracer.inputs if compiled is not None else ():
            if isinstance(graph_input.source, ViewSource):
                read = graph_input.source.direct_read(self)
                if read is None:
                    return None
                slots.append(read)
                continue
            if isinstance(graph_input.source, IntSizeSource):
                name = self.reload(graph_input.source.base)
                if name not in self.params:
                    return None
                slots.append((self.params.index(name), IntSizeSource.CARRIER))
                continue
            name = self.reload(graph_input.source)
            # A scalar argument goes in as it is: the graph takes a weak 0-d parameter from a
            # bool, int or float itself, a strong one from the NumPy scalar of its dtype
            # (`runtime.rs: is_scalar_for`), as the entry's `np.asarray` gives it; the guards
            # hold the argument's type, and any other object takes the full path.
            # An attribute of an argument (`self.w`) and the size of an argument array's dim
            # (`x.shape[0]`, a symbolic size read as an int) are read natively as the entry
            # reads them.
            param, _, attr = name.partition(".")
            size = re.fullmatch(r"shape\[(\d+)\]", attr)
            read = int(size[1]) if size else (attr or None)
            if param not in self.params or (attr and not size and not attr.isidentifier()):
                return None
            slots.append((self.params.index(param), read))
        tail = (fallback, tuple(self.writebacks), tuple(self.rerun_outputs))
        if result == "None":  # a function that only updates its arguments
            return (compiled, tuple(slots), (), False, *tail)
        whole = self._direct_constant(result)
        if whole is not _NOT_CONSTANT:  # `return 1.0`, `return (2, "a")`: one constant
            return (compiled, tuple(slots), ((0, _CONSTANT, whole),), False, *tail)
        pick = self._direct_pick(result)
        if pick is not None:
            return (compiled, tuple(slots), (pick,), False, *tail)
        returns_tuple = result.startswith("(")
        items = result[1:-1].split(",") if returns_tuple else [result]
        outputs = []
        for item in items:
            item = item.strip()
            returned = self._direct_returned(item)
            if returned is not None:
                outputs.append(returned)
            elif item or not returns_tuple:
                return None
        return (compiled, tuple(slots), tuple(outputs), returns_tuple, *tail)

    def _direct_returned(self, item: str) -> tuple | None:
        """The direct form of one returned value `item` (see `direct_form`), else None."""
        found = _DIRECT_OUTPUT.fullmatch(item)
        if found is not None:
            return (int(found[1]), _OUTPUT_FORMS[found[2]])
        if item in self.params:  # an argument returned as it was passed
            return (self.params.index(item), _ARGUMENT)
        if _GLOBAL_READ.fullmatch(item):  # a global returned as it is (guarded)
            return (0, _GLOBAL, ast.literal_eval(item[10:-1]))
        constant = self._direct_constant(item)
        return None if constant is _NOT_CONSTANT else (0, _CONSTANT, constant)

    def _direct_pick(self, result: str) -> tuple | None:
        """`(a if __ember_out[k][()] else b)`, a result a graph's 0-d output picks (`return
        dp[n] if dp[n] != INF else -1`), as `(k, _PICK, a's form, b's form)`; else None."""
        if " if " not in result:
            return None
        try:
            node = ast.parse(result, mode="eval").body
        except SyntaxError:
            return None
        if not isinstance(node, ast.IfExp):
            return None
        test = _DIRECT_OUTPUT.fullmatch(ast.unparse(node.test))
        if test is None or test[2] != "[()]":
            return None
        picks = [self._direct_returned(ast.get_source_segment(result, part) or "")
                 for part in (node.body, node.orelse)]
        if None in picks:
            return None
        return (int(test[1]), _PICK, *picks)

    def _direct_constant(self, expr: str) -> Any:
        """The immutable constant `expr` spells (a literal or an embedded constant), else
        `_NOT_CONSTANT`."""
        expr = expr.strip()
        if _EMBEDDED.fullmatch(expr):
            value = self.namespace.get(expr, _NOT_CONSTANT)
        else:
            try:
                value = ast.literal_eval(expr)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                return _NOT_CONSTANT
        return value if value is not _NOT_CONSTANT and _immutable(value) else _NOT_CONSTANT

    @staticmethod
    def _namespace_lines(lines: list[str]) -> list[str]:
        """The frame's globals and builtins, read from its function where the entry uses
        them (one attribute load each)."""
        text = "\n".join(lines)
        return [f"    {name} = {FUNCTION}.{attr}"
                for name, attr in (("__ember_g", "__globals__"), ("__ember_b", "__builtins__"))
                if re.search(rf"\b{name}\b", text)]

    def prelude_into(self, body: list[str]) -> list[str]:
        """`body` with the prelude's statements after the graph call (they read its outputs)."""
        at = next((i + 1 for i, line in enumerate(body) if line.startswith("__ember_out =")),
                  len(self.tracer.draws))  # or after the draws, which open the body
        return body[:at] + self.prelude + body[at:]

    def _step_lines(self, tail: StepTail, body: list[str]) -> list[str]:
        body.append("__ember_args = (" + "".join(f"{a}, " for a in tail.args) + ")")
        closure = "None"
        if tail.closure is not None:
            body.append(f"__ember_closure = {tail.closure}")
            closure = "__ember_closure"
        # Made per call, in the frame's own globals (an entry keeps no reference to them).
        step = self.embed(tail.step, "step code")
        make = self.embed(FunctionType, "FunctionType")
        call = (f"{make}({step}, __ember_g, {tail.step.co_name!r}, None, {closure})"
                "(*__ember_args)")
        if tail.trampoline:
            return [f"return {self.embed(trampoline, 'trampoline')}({call}, __ember_g)"]
        return [f"return {call}"]


def make_entry(source: str, namespace: dict[str, Any], name: str) -> FunctionType:
    """The entry function defined by `source` (as `build` writes it) in `namespace`."""
    code = compile(source, f"<ember entry {name}>", "exec")
    exec(code, namespace)  # noqa: S102 - our own generated source
    # Taken out of its own globals: no cycle, so it dies as soon as its code's cache drops
    # it, with its compiled graph and the outputs that graph keeps for reuse.
    entry = namespace.pop("__ember_entry")
    entry.__qualname__ = entry.__name__ = f"__ember_entry_{name}"
    return entry


def _refill_dict(target: dict, items: dict) -> None:
    target.clear()
    target.update(items)


class _Rerun(Exception):
    """Raised inside an entry's try: run the frame as plain Python after it."""


def _param_name(name: str, index: int) -> str:
    if name.isidentifier() and not keyword.iskeyword(name) and not name.startswith("__ember"):
        return name
    return f"__ember_arg{index}"


def make_fallback(func: FunctionType, disable: Callable[[int], int]) -> Callable:
    """`fallback(fn, *slots)`: call the frame's function `fn` (of `func`'s code, which it
    does not keep) from the frame's argument slots with the frame hook off on this thread."""
    code: CodeType = func.__code__
    nargs, nkw = code.co_argcount, code.co_kwonlyargcount
    kwnames = code.co_varnames[nargs : nargs + nkw]
    has_varargs = bool(code.co_flags & CO_VARARGS)
    has_varkw = bool(code.co_flags & CO_VARKEYWORDS)

    def fallback(fn: Any, *slots: Any) -> Any:
        stats.count_entry_fallback()
        positional = list(slots[:nargs])
        kwargs = dict(zip(kwnames, slots[nargs : nargs + nkw]))
        at = nargs + nkw
        if has_varargs:
            positional.extend(slots[at])
            at += 1
        if has_varkw:
            kwargs.update(slots[at])
        previous = disable(False)
        try:
            return fn(*positional, **kwargs)
        finally:
            disable(previous)

    return fallback
