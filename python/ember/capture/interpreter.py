"""The symbolic bytecode interpreter: runs a frame's 3.11 bytecode on variable trackers.

One `Interpreter` per frame (the captured one, and one per inlined call); handlers carry the
CPython opname. An operation no tracker supports raises `Unsupported` (a graph break) with the
user's file:line attached. Between instructions the state is only the instruction index,
the stack and the locals/cells, each tracker reloadable from its source or built by the graph,
which is what stopping at an instruction (for a resume function) needs.
"""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass
from types import CodeType, GeneratorType
from typing import Any

from ember.capture import operators
from ember.capture.breaks import INPUT_DEPENDENT_KINDS, WHOLE_FRAME_KINDS, graph_break
from ember.capture.building import BuildingOpcodes
from ember.capture.bytecode import (
    CO_GENERATOR,
    CO_GENERATOR_LIKE,
    Instruction,
    decode,
)
from ember.capture.flow import FlowOpcodes
from ember.capture.loops import (
    in_cheap_while,
    lazy_reads,
    refuse_in_loop_body,
    retry_as_loop_op,
    sizes,
    tuples,
)
from ember.capture.sources import (
    STABLE_GLOBALS,
    BuiltinSource,
    Source,
    globals_dict,
    globals_item,
)
from ember.capture.tracer import Tracer
from ember.capture.variables.base import (
    NULL,
    CellVariable,
    DeferredAttributeVariable,
    VariableTracker,
)
from ember.capture.variables.constant import ConstantVariable
from ember.capture.loops.appends import BodyList, generated
from ember.capture.loops.whiles import while_true
from ember.capture.variables.containers import (
    DictVariable,
    ListVariable,
)
from ember.capture.variables.functions import (
    FunctionVariable,
    NestedFunctionVariable,
    bind_arguments,
)
from ember.capture.variables.errstate import ErrstateVariable
from ember.capture.variables.objects import UserObjectVariable
from ember.capture.variables.new_objects import NewObjectVariable
from ember.config import config
from ember.errors import Unsupported
from ember.numpy_api.scalars import numbers_in_graph


@dataclass(frozen=True)
class FrameState:
    """A frame's symbolic state just before the instruction capture stopped at: what a graph
    break needs to run that instruction as Python and resume after it."""

    code: CodeType
    index: int  # of the instruction in `decode(code)`
    offset: int
    stack: list[VariableTracker]  # bottom first; NULL where the 3.11 call protocol has NULL
    locals: dict[str, VariableTracker]
    cells: dict[str, CellVariable]
    visits: int = 0  # how many times the frame had started this instruction, this one included

    @property
    def null_slots(self) -> list[int]:
        return [i for i, vt in enumerate(self.stack) if vt is NULL]

_MISSING = object()
# Refusals inside an inlined NumPy function reported as a refused call of it (others, such as
# a symbolic size read, keep their kind: capture reacts to them).
_RENAMED_INSIDE_NUMPY = frozenset({
    "", "call", "numpy", "type", "attribute", "side_effect", "bytecode", "name",
    "user_error", "data_dependent_branch", "data_dependent_value",
})


class StopCapture(Exception):
    """Capture reached the instruction it was asked to stop before (`Interpreter.stop_at`)."""

    def __init__(self, state: FrameState) -> None:
        super().__init__(f"stopped at offset {state.offset}")
        self.state = state


def annotate(exc: Unsupported, filename: str, lineno: int | None) -> None:
    """Attach the innermost user location to a break (outer frames keep it)."""
    if getattr(exc, "location", None) is None:
        exc.location = (filename, lineno)  # type: ignore[attr-defined]


def holds_run_time_values(trackers: list[VariableTracker]) -> bool:
    """Whether any of the trackers, or anything they hold, is an array of the graph or a
    float known only at run time (what a gradient can flow through), or a generator made in
    Python (its body runs there, unseen, on whatever it reads)."""
    from ember.capture.variables.array import ArrayVariable
    from ember.capture.variables.objects import OpaqueVariable
    from ember.capture.variables.scalar import PythonScalarVariable

    seen: set[int] = set()
    todo = list(trackers)
    while todo:
        vt = todo.pop()
        if id(vt) in seen:
            continue
        seen.add(id(vt))
        if isinstance(vt, ArrayVariable) or (isinstance(vt, PythonScalarVariable)
                                             and vt.python_class is float):
            return True
        if isinstance(vt, OpaqueVariable) and isinstance(vt.value, GeneratorType):
            return True
        if getattr(vt, "reads_run_time_values", False):  # an ember.disable'd closure
            return True
        todo.extend(c for c in vt.children() if isinstance(c, VariableTracker))
    return False


class Interpreter(BuildingOpcodes, FlowOpcodes):
    """Runs one code object symbolically until RETURN_VALUE."""

    def __init__(
        self, tracer: Tracer, code: CodeType, f_locals: dict[str, VariableTracker],
        cells: dict[str, CellVariable], fn_globals: dict[str, Any],
        globals_source: Source | None, depth: int = 0,
    ) -> None:
        self.tracer = tracer
        self.graph = tracer.graph
        self.code = code
        self.instructions: tuple[Instruction, ...] = decode(code)
        self.locals = f_locals
        self.cells = cells
        self.fn_globals = fn_globals
        self.globals_source = globals_source
        self.depth = depth
        self.stack: list[VariableTracker] = []
        self.ip = 0
        self.kw_names: tuple[str, ...] = ()
        self.result: VariableTracker | None = None
        # A generator's values so far (`loops/appends.py` stands in for it in a loop op).
        self.yielded: ListVariable | VariableTracker | None = None
        self.lineno: int | None = code.co_firstlineno
        # Times each instruction was started (the captured frame only: a graph break there is
        # found again by index and visit on a second capture), and where to stop.
        self.visits: list[int] | None = [0] * len(self.instructions) if depth == 0 else None
        self.stop_at: tuple[int, int] | None = None

    @property
    def root_globals(self) -> dict[str, Any]:
        return self.tracer.root_globals

    def wrap(self, value: Any, source: Source | None) -> VariableTracker:
        return self.tracer.wrap(value, source)

    # ---- the loop ----------------------------------------------------------------------------

    def run(self) -> VariableTracker:
        inst = self.instructions[self.ip]
        stack_before: list[VariableTracker] = []
        visits = self.visits
        self.tracer.frames.append(self)
        filename = self.code.co_filename
        module = self.fn_globals.get("__name__", "<string>")
        here = self.graph.at
        try:
            while self.result is None:
                inst = self.instructions[self.ip]
                self.lineno = inst.lineno
                here(None if inst.lineno is None else (filename, inst.lineno, module))
                if visits is not None:
                    visits[self.ip] += 1
                    if self.stop_at is not None and self.stop_at == (self.ip, visits[self.ip]):
                        raise StopCapture(self.state(inst, self.stack[:]))
                self.ip += 1
                # Handlers pop before they may refuse: keep the stack as it was.
                stack_before = self.stack[:]
                self.tracer.tick()
                handler = getattr(self, inst.opname, None)
                if handler is None:
                    raise graph_break("bytecode", opname=inst.opname)
                handler(inst)
        except Unsupported as exc:
            if self.globals_source is not STABLE_GLOBALS:  # NumPy's own lines: the caller's
                annotate(exc, self.code.co_filename, self.lineno)
            if self.depth > 0 and exc.kind in ("data_dependent_branch", "data_dependent_value") \
                    and numbers_in_graph.get():
                # A short loop of an inlined function or comprehension (`[v for v in x if v
                # > t]`) unrolled around a branch on data: tried as a loop op too.
                retry_as_loop_op(self, inst.index, exc.reason, own_loops_only=True)
            if self.depth > 0:
                # The inlined calls the break lies in, innermost first (`plain_callees`).
                inlined = getattr(exc, "inlined_codes", None)
                if inlined is None:
                    inlined = exc.inlined_codes = []  # type: ignore[attr-defined]
                inlined.append(self.code)
            cheap = [a for a in self.tracer.long_unrolls if a.cheap_trips()]
            # A differentiated graph cannot leave a loop to plain Python, where its gradient
            # would be lost: it steps over the break trip by trip instead.
            if self.depth == 0 and exc.kind not in WHOLE_FRAME_KINDS | INPUT_DEPENDENT_KINDS \
                    and numbers_in_graph.get():
                # A `while` whose trips branch on or read array values: each trip would
                # break, and recompile for the Python ints it specialises on.
                data_dependent = exc.kind in ("data_dependent_branch", "data_dependent_value")
                if data_dependent:
                    # A `while` would else run the whole frame as plain Python (below); a
                    # short `for` loop would break on every trip.
                    retry_as_loop_op(self, inst.index, exc.reason)
                trips = cheap[-1].trips if cheap else (
                    "an unknown number of" if data_dependent and in_cheap_while(
                        self, inst.index) else None)
                if trips is not None:
                    whole = graph_break("loop_break", reason=exc.reason, trips=trips)
                    whole.location = exc.location  # type: ignore[attr-defined]
                    # A break in a function the loop calls: compiled on its own, that
                    # function would cost a graph call per trip; it runs as plain Python
                    # when this frame calls it (`policy._on_break`).
                    whole.plain_callees = tuple(  # type: ignore[attr-defined]
                        getattr(exc, "inlined_codes", ())[-1:])
                    raise whole from exc
            states = getattr(exc, "frame_states", None)
            if states is None:  # the instruction that refused is this frame's
                states = exc.frame_states = []  # type: ignore[attr-defined]
                exc.returns_from_arrays = self._returns_from_arrays(  # type: ignore[attr-defined]
                    inst, stack_before)
                exc.call_on_constants = self._call_on_constants(  # type: ignore[attr-defined]
                    inst, stack_before)
                exc.generator = self._generator_iterated(  # type: ignore[attr-defined]
                    inst, stack_before)
            states.append(self.state(inst, stack_before))
            raise
        finally:
            self.tracer.frames.pop()
        return self.result

    @staticmethod
    def _operands(inst: Instruction, stack: list[VariableTracker]
                  ) -> list[VariableTracker] | None:
        """What a call (the callable and its arguments), subscript or binary operator takes
        from the stack; None for other instructions."""
        if inst.opname == "CALL":
            return stack[len(stack) - inst.arg - 2:]
        if inst.opname == "CALL_FUNCTION_EX":
            return stack[len(stack) - 2 - (inst.arg & 1):]
        if inst.opname in ("BINARY_SUBSCR", "BINARY_OP", "COMPARE_OP"):
            return stack[-2:]
        return None

    def _call_on_constants(self, inst: Instruction, stack: list[VariableTracker]) -> bool:
        """Whether a call refused here takes no arrays and no run-time numbers: run in
        Python, its result is a constant of the function (`np.triu_indices(n, 1)`)."""
        operands = self._operands(inst, stack)
        return inst.opname.startswith("CALL") and operands is not None and \
            not holds_run_time_values(operands)

    def _generator_iterated(self, inst: Instruction, stack: list[VariableTracker]
                            ) -> str | None:
        """The name of the generator a loop or call refused here takes (one made in Python,
        whose body broke the graph: `for x in gen()`, `list(gen())`), else None."""
        from ember.capture.variables.objects import OpaqueVariable

        operands = self._operands(inst, stack) or []
        if inst.opname in ("GET_ITER", "FOR_ITER") and stack:
            operands = [stack[-1]]
        for vt in operands:
            if isinstance(vt, OpaqueVariable) and isinstance(vt.value, GeneratorType):
                return vt.value.__qualname__
        return None

    def _returns_from_arrays(self, inst: Instruction, stack: list[VariableTracker]) -> bool:
        """Whether a call, subscript or operator refused here takes arrays (or run-time
        numbers) and its result is used: run in Python, that result would be computed from
        them unseen by the graph (a result dropped at once, as of `print(x)`, cannot be)."""
        operands = self._operands(inst, stack)
        if operands is None and inst.opname in ("GET_ITER", "FOR_ITER") and stack:
            # A loop over a generator made in Python: each item comes from its body, run there.
            operands = [stack[-1]]
        if operands is None:
            return False
        following = self.instructions[inst.index + 1] if inst.index + 1 < len(
            self.instructions) else None
        if following is not None and following.opname == "POP_TOP":
            return False
        return holds_run_time_values(operands)

    def state(self, inst: Instruction, stack: list[VariableTracker]) -> FrameState:
        """The frame's state before `inst`, with `stack` as its value stack."""
        visits = self.visits[inst.index] if self.visits is not None else 0
        return FrameState(self.code, inst.index, inst.offset, stack, dict(self.locals),
                          dict(self.cells), visits)

    def push(self, vt: VariableTracker) -> None:
        self.stack.append(vt)

    def pop(self) -> VariableTracker:
        return self.stack.pop()

    def popn(self, n: int) -> list[VariableTracker]:
        if n == 0:
            return []
        items = self.stack[-n:]
        del self.stack[-n:]
        return items

    def jump(self, inst: Instruction) -> None:
        assert inst.target is not None
        self.ip = inst.target

    # ---- calls -------------------------------------------------------------------------------

    def call_function(self, fn: VariableTracker, args: list[VariableTracker],
                      kwargs: dict[str, VariableTracker]) -> VariableTracker:
        return fn.call(self, args, kwargs)

    def inline_call(self, fn: FunctionVariable, args: list[VariableTracker],
                    kwargs: dict[str, VariableTracker]) -> VariableTracker:
        """Run a Python function's bytecode in a nested interpreter (inlining)."""
        code = fn.code
        if code.co_flags & (CO_GENERATOR_LIKE & ~CO_GENERATOR):
            raise graph_break("generator", name=fn.name)
        if self.depth + 1 > config.inline_depth_limit:
            raise graph_break("recursion", limit=config.inline_depth_limit, name=fn.name)
        fn.bind_globals(self)
        f_locals = bind_arguments(self, fn, args, kwargs)
        sizes.inherit(self.locals, f_locals)
        cells = dict(zip(code.co_freevars, fn.closure_cells(self)))
        child = Interpreter(self.tracer, code, f_locals, cells, fn.fn_globals,
                            fn.globals_source, self.depth + 1)
        if code.co_flags & CO_GENERATOR:
            # A generator (or generator expression) runs to completion at capture time and
            # its values are iterated. Whatever would stop it (a raise, an endless loop)
            # breaks instead of running ahead; one that changes anything outside its values
            # (`log.append(v)`) runs as Python, where a consumer that stops early (`any`,
            # `next`, a loop's `break`) stops its changes too.
            child.yielded = ListVariable([])
            effects = self.tracer.effects
            self._run_callee(child)
            if self.tracer.effects != effects:
                raise graph_break("generator", name=f"{fn.name} (it changes state as it runs)")
            return generated(child.yielded)
        if fn.globals_source is not STABLE_GLOBALS or self.globals_source is STABLE_GLOBALS:
            return self._run_callee(child)
        try:
            return self._run_callee(child)
        except Unsupported as exc:
            # A NumPy function inlined from user code, refused inside: named as the user
            # called it (`numpy.linalg.inv`), not by the NumPy internals that refused.
            if exc.kind not in _RENAMED_INSIDE_NUMPY:
                raise
            name = getattr(fn, "numpy_name", None) or f"numpy.{fn.name}"
            raise graph_break("call", name=f"{name} ({exc.reason})") from exc

    def _run_callee(self, child: Interpreter) -> VariableTracker:
        """Run an inlined function; the run-time checks it made in a loop body (its
        `.rerun`: a Python division by a zero divisor, a pick that tells) become this
        frame's, which the body carries out of its loop op."""
        from ember.capture.loops.body import RERUN
        from ember.capture.loops.frame_branches import add_check
        from ember.capture.variables.array import ArrayVariable

        result = child.run()
        checks = child.locals.get(RERUN)
        if isinstance(checks, ArrayVariable) and not getattr(checks, "unset_check", False):
            add_check(self, checks.value)
        return result

    def source_cell(self, cell: Any, source: Source | None, name: str) -> CellVariable:
        """A cell of a function read from the frame: its contents load on first use."""
        return self.tracer.cell_for(cell, source, name)

    def binary_op(self, op: str, a: VariableTracker, b: VariableTracker) -> VariableTracker:
        return operators.binary_op(self, op, a, b)

    def unary_op(self, op: str, a: VariableTracker) -> VariableTracker:
        return operators.unary_op(self, op, a)

    # ---- opcode handlers: stack and constants -----------------------------------------------

    def NOP(self, inst: Instruction) -> None:
        if inst.opname == "NOP":  # one that starts a `while True:` may be a loop op
            while_true(self, inst)

    RESUME = NOP
    EXTENDED_ARG = NOP  # `dis` already folded it into the next instruction's arg
    PRECALL = NOP
    COPY_FREE_VARS = NOP  # closure cells are installed when the interpreter is created

    def POP_TOP(self, inst: Instruction) -> None:
        lazy_reads.name(self.pop())

    def PUSH_NULL(self, inst: Instruction) -> None:
        self.push(NULL)

    def COPY(self, inst: Instruction) -> None:
        self.push(self.stack[-inst.arg])

    def SWAP(self, inst: Instruction) -> None:
        i = inst.arg
        self.stack[-1], self.stack[-i] = self.stack[-i], self.stack[-1]

    def LOAD_CONST(self, inst: Instruction) -> None:
        self.push(ConstantVariable(inst.argval))

    # ---- names -------------------------------------------------------------------------------

    def LOAD_FAST(self, inst: Instruction) -> None:
        name = inst.argval
        if name not in self.locals:
            raise graph_break("user_error", type="UnboundLocalError",
                              message=f"local variable {name!r} referenced before assignment")
        vt = self.locals[name]
        if isinstance(vt, tuples.OptionalVariable):
            vt = tuples.loaded(self, vt)
        self.push(vt)

    def STORE_FAST(self, inst: Instruction) -> None:
        self.locals[inst.argval] = value = self.pop()
        lazy_reads.name(value)

    def DELETE_FAST(self, inst: Instruction) -> None:
        self.locals.pop(inst.argval, None)

    def LOAD_GLOBAL(self, inst: Instruction) -> None:
        name = inst.argval
        if inst.push_null:
            self.push(NULL)
        stored = self.tracer.global_stores
        if self.globals_source is None and name in stored:
            self.push(stored[name])
        elif self.globals_source is STABLE_GLOBALS:  # a NumPy function's: constants
            found = self.fn_globals.get(name, self.tracer.root_builtins.get(name, _MISSING))
            if found is _MISSING:
                raise graph_break("name", name=repr(name))
            self.push(self.wrap(found, None))
        elif name in self.fn_globals:
            self.push(self.wrap(self.fn_globals[name], globals_item(self.globals_source, name)))
        elif name in self.tracer.root_builtins:
            # A global of that name defined later would shadow the builtin.
            self.tracer.guards.add(globals_dict(self.globals_source), ("DICT_LACKS", name))
            self.push(self.wrap(self.tracer.root_builtins[name], BuiltinSource(name)))
        else:
            raise graph_break("name", name=repr(name))

    def STORE_GLOBAL(self, inst: Instruction) -> None:
        refuse_in_loop_body(self, f"assignment to global {inst.argval!r}")
        if self.globals_source is not None:  # an inlined function of another module
            raise graph_break("side_effect", what=f"assignment to global {inst.argval!r}")
        # Replayed by the entry after the graph; reads in this capture see the new value.
        self.tracer.effects += 1
        stored = self.tracer.global_stores
        stored.pop(inst.argval, None)  # keep the order of the last assignments
        stored[inst.argval] = self.pop()

    def MAKE_CELL(self, inst: Instruction) -> None:
        name = inst.argval
        self.cells[name] = CellVariable(self.locals.pop(name, None), None, name)

    def LOAD_CLOSURE(self, inst: Instruction) -> None:
        self.push(self.cells[inst.argval])

    def load_cell(self, cell: Any) -> None:
        """Wrap the value of a closure's cell on its first read."""
        if cell.contents is None and hasattr(cell, "raw"):
            try:
                value = cell.raw.cell_contents
            except ValueError:
                return
            cell.contents = self.wrap(value, cell.cell_source)

    def LOAD_DEREF(self, inst: Instruction) -> None:
        cell = self.cells[inst.argval]
        self.load_cell(cell)
        if cell.contents is None:
            if inst.argval in self.code.co_cellvars:
                raise graph_break("user_error", type="UnboundLocalError",
                                  message=f"cannot access local variable {inst.argval!r} "
                                          "where it is not associated with a value")
            raise graph_break("user_error", type="NameError",
                              message=f"free variable {inst.argval!r} referenced before "
                                      "assignment in enclosing scope")
        self.push(cell.contents)

    def STORE_DEREF(self, inst: Instruction) -> None:
        from ember.capture.loops.region import CELL

        cell = self.cells[inst.argval]
        if CELL + inst.argval in self.locals and not hasattr(cell, "raw"):
            # A cell of the frame that a loop body reads (`region.outside_as_locals`):
            # rebinding it rebinds its pseudo-local, which the loop op carries.
            cell.contents = self.locals[CELL + inst.argval] = value = self.pop()
            lazy_reads.name(value)
            return
        refuse_in_loop_body(self, f"assignment to cell {inst.argval!r}")
        if hasattr(cell, "raw"):
            # A cell that lives on (the frame function's, or an inlined function's): the
            # entry writes its new contents back after the graph.
            self.tracer.mark_cell_store(cell)
        cell.contents = self.pop()

    def LOAD_ATTR(self, inst: Instruction) -> None:
        self.push(self.pop().getattr(self, inst.argval))

    def LOAD_METHOD(self, inst: Instruction) -> None:
        obj = self.pop()
        self.push(NULL)
        try:
            method = obj.getattr(self, inst.argval)
        except Unsupported as exc:
            # LOAD_METHOD pushes NULL or not depending on the value, so a graph cannot break
            # here: the method is read in Python when its call breaks.
            method = DeferredAttributeVariable(obj, inst.argval, exc)
        self.push(method)

    def STORE_ATTR(self, inst: Instruction) -> None:
        obj = self.stack[-1]
        if not isinstance(obj, (UserObjectVariable, NewObjectVariable)):
            raise graph_break("side_effect", what=f"assignment to {obj.describe()}.{inst.argval}")
        obj, value = self.pop(), self.pop()
        obj.setattr(self, inst.argval, value)

    def IMPORT_NAME(self, inst: Instruction) -> None:
        level, fromlist = self.popn(2)  # TOS is the fromlist, TOS1 the level
        name = inst.argval
        if level.constant() != 0:  # relative, inside a package (NumPy's own functions)
            package = self.fn_globals.get("__package__")
            try:
                name = importlib.util.resolve_name("." * level.constant() + name, package)
            except (ImportError, ValueError):
                raise graph_break("side_effect", what=f"import of {name}") from None
        if name not in sys.modules:
            raise graph_break("side_effect", what=f"import of {name}")
        module = sys.modules[name if fromlist.constant() else name.partition(".")[0]]
        self.push(self.wrap(module, None))

    def IMPORT_FROM(self, inst: Instruction) -> None:
        self.push(self.stack[-1].getattr(self, inst.argval))

    # ---- calls -------------------------------------------------------------------------------

    def KW_NAMES(self, inst: Instruction) -> None:
        self.kw_names = self.code.co_consts[inst.arg]

    def CALL(self, inst: Instruction) -> None:
        args = self.popn(inst.arg)
        second, first = self.pop(), self.pop()
        # 3.11: [NULL, callable, args...] or [method, self, args...]
        if first is NULL:
            fn = second
        else:
            fn, args = first, [second, *args]
        kwargs = {}
        if self.kw_names:
            n = len(self.kw_names)
            kwargs = dict(zip(self.kw_names, args[-n:]))
            args = args[:-n]
            self.kw_names = ()
        self.push(self.call_function(fn, args, kwargs))

    def CALL_FUNCTION_EX(self, inst: Instruction) -> None:
        kwargs_vt = self.pop() if inst.arg & 1 else DictVariable({})
        args_vt = self.pop()
        fn = self.pop()
        if self.stack and self.stack[-1] is NULL:
            self.pop()
        if not isinstance(kwargs_vt, DictVariable):
            raise graph_break("type", what=f"**{kwargs_vt.describe()}", type=kwargs_vt.type_name())
        self.push(self.call_function(fn, args_vt.unpack(self), dict(kwargs_vt.items)))

    def MAKE_FUNCTION(self, inst: Instruction) -> None:
        code = self.pop().constant()
        flags = inst.arg
        closure = self.pop().unpack(self) if flags & 0x08 else []
        if flags & 0x04:
            self.pop()  # annotations
        kwdefaults = self.pop() if flags & 0x02 else DictVariable({})
        defaults = self.pop().unpack(self) if flags & 0x01 else []
        if not isinstance(kwdefaults, DictVariable):
            raise graph_break("type", what="keyword defaults", type=kwdefaults.type_name())
        self.push(NestedFunctionVariable(code, self.fn_globals, self.globals_source, defaults,
                                         dict(kwdefaults.items), closure))

    def BEFORE_WITH(self, inst: Instruction) -> None:
        manager = self.stack[-1]
        if isinstance(manager, ErrstateVariable):
            self.pop()
            self.stack.extend(manager.enter(self))
            return
        if not isinstance(manager, UserObjectVariable):
            raise graph_break("call", name=f"{manager.describe()}.__enter__")
        # An exception in the block is a graph break: __exit__ then runs in Python, from the
        # step's copy of the exception table.
        exit_method = manager.getattr(self, "__exit__")
        entered = manager.getattr(self, "__enter__").call(self, [], {})
        self.pop()
        self.push(exit_method)
        self.push(entered)

    def RETURN_VALUE(self, inst: Instruction) -> None:
        self.result = self.pop()

    def RETURN_GENERATOR(self, inst: Instruction) -> None:
        # The generator's first resumption pushes the value sent in: None for iteration.
        self.push(ConstantVariable(None))

    def YIELD_VALUE(self, inst: Instruction) -> None:
        if isinstance(self.yielded, BodyList):  # a generator's loop captured as a loop op
            self.yielded.append(self, self.pop())
        elif isinstance(self.yielded, ListVariable):
            if any(body.frame is self for body in self.tracer.loop_bodies):
                # One trace stands for every trip of a loop op of this generator.
                raise graph_break("loop_body", what="a yield after earlier yields")
            self.yielded.append_item(self.pop())
        else:
            raise graph_break("bytecode", opname=inst.opname)
        self.push(ConstantVariable(None))
