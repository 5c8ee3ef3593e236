"""Opcode handlers for operators and control flow (BINARY_OP, COMPARE_OP, subscripts, jumps,
FOR_ITER, raise): a mixin of the interpreter. A jump on a value capture cannot know (an
array's truth) refuses, which is a graph break where the step takes the branch in Python."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

import numpy as np

from ember.capture import operators
from ember.capture.breaks import graph_break
from ember.capture.bytecode import NONE_JUMPS, TRUTH_JUMPS, UNCONDITIONAL_JUMPS, Instruction
from ember.capture.loops import (
    end_loop, runs, small_products, start_loop, tuples, vectors, window_exprs, windows,
)
from ember.capture.loops.appends import BodyList
from ember.capture.loops.branches import capture_if, is_loop_condition
from ember.capture.loops.frame_branches import (
    add_check,
    capture_frame_if,
    is_frame_branch,
    retry_while_on_path,
)
from ember.capture.loops.whiles import count_trip, length_tested, python_while, stack_while
from ember.capture.variables import choice, slices
from ember.capture.variables.choice import ChoiceVariable
from ember.capture.variables.appended import AppendedListVariable, items_range
from ember.capture.variables.array import VIEW_OPS, ArrayVariable
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.constant import ConstantVariable
from ember.capture.variables.containers import IteratorVariable, lazy_items

if TYPE_CHECKING:
    from ember.capture.tracer import Tracer


class FlowOpcodes:
    """Mixed into `Interpreter`, whose stack, instruction pointer and tracer it uses."""

    stack: list[VariableTracker]
    instructions: tuple[Instruction, ...]
    ip: int
    tracer: Tracer

    def BINARY_OP(self, inst: Instruction) -> None:
        b, a = self.pop(), self.pop()
        op, inplace = inst.binary_op()
        found = None
        if self.tracer.graph.parent is not None:
            found = runs.binary(self, op, a, b)
            if found is not None and inplace and not self._subscript_stored():
                found = runs.updated_in_place(self, a, found)
            if found is None:
                found = window_exprs.binary(self, op, a, b, inplace=inplace,
                                            stored_back=inplace and window_exprs.is_lazy(a)
                                            and self._stores_back(a))
            if found is None and op == "@":
                found = vectors.matmul(self, a, b)
            if found is None and op == "@":
                found = small_products.matmul(self, a, b)
            if found is None:
                found = vectors.binary(self, op, a, b, inplace=inplace,
                                       stored_back=inplace and self._stores_back(a))
        if found is not None:
            self.push(found)
        elif inplace and not self._store_would_break(a) and self._stores_back(a):
            self.push(operators.inplace_op(self, op, a, b, stored_back=True))
        elif inplace:
            self.push(operators.inplace_op(self, op, a, b))
        else:
            self.push(operators.binary_op(self, op, a, b))

    def _subscript_stored(self) -> bool:
        """Whether the result of this in-place operator is stored back by subscript
        (`x[i] op= y`: `SWAP 3; SWAP 2; STORE_SUBSCR` follow)."""
        following = [(i.opname, i.arg) for i in self.instructions[self.ip : self.ip + 3]]
        return following == [("SWAP", 3), ("SWAP", 2), ("STORE_SUBSCR", None)]

    def _store_would_break(self, view: VariableTracker) -> bool:
        """Break at `x[i] op= y`'s operator where its store into `x` would break: NumPy's
        in-place operator writes through the view first (and raises "output array is
        read-only" for a read-only `x`), which the store at the break would not repeat."""
        if not self._subscript_stored() or len(self.stack) < 2:
            return False
        base = self.stack[-2]
        if (self.tracer.graph.parent is None and isinstance(base, ArrayVariable)
                and isinstance(view, ArrayVariable)
                and not (base.is_fresh(self) or base.is_mutable_input(self))):
            raise graph_break("side_effect", what=f"item assignment to {base.describe()}")
        return False

    def _stores_back(self, view: VariableTracker) -> bool:
        """Whether `view` is the temporary `x[i]` of `x[i] op= y` (the compiler emits
        `COPY 2; COPY 2; BINARY_SUBSCR ... BINARY_OP; SWAP 3; SWAP 2; STORE_SUBSCR`). If so,
        the views from `x` to it are marked temporary: nothing else can hold them."""
        if not self._subscript_stored():
            return False
        base = self.stack[-2] if len(self.stack) >= 2 else None
        if isinstance(view, vectors.VectorVariable):
            return view.base is not None and view.base is base
        if not (isinstance(view, ArrayVariable) and isinstance(base, ArrayVariable)):
            return False
        if isinstance(view, windows.WindowVariable):
            return view.base is base  # a copy: nothing views `x` through it
        chain, value = [], view.value
        while value is not base.value:
            node = next((n for n in self.tracer.graph.nodes if n.out is value), None)
            if node is None or node.op not in VIEW_OPS:
                return False
            chain.append(value)
            value = node.inputs[0]
        self.tracer.temporary_views.extend(chain)
        return True

    def COMPARE_OP(self, inst: Instruction) -> None:
        b, a = self.pop(), self.pop()
        found = None
        if self.tracer.graph.parent is not None and runs.is_lazy_run(a, b):
            found = runs.binary(self, inst.argval, a, b)
        if found is None:
            found = vectors.binary(self, inst.argval, a, b, inplace=False, stored_back=False,
                                   compare=True)
        self.push(found if found is not None else operators.compare_op(self, inst.argval, a, b))

    def IS_OP(self, inst: Instruction) -> None:
        b, a = self.pop(), self.pop()
        flag = tuples.is_none(self, a, b)
        if flag is not None:
            self.push(flag if not inst.arg else ArrayVariable(
                self.graph.op("logical_not", [flag.value])))  # type: ignore[attr-defined]
            return
        self.push(ConstantVariable(operators.is_op(self, a, b) != bool(inst.arg)))

    def CONTAINS_OP(self, inst: Instruction) -> None:
        b, a = self.pop(), self.pop()
        self.push(operators.contains_op(self, a, b, negated=bool(inst.arg)))

    def UNARY_NEGATIVE(self, inst: Instruction) -> None:
        self.push(operators.unary_op(self, "-", self.pop()))

    def UNARY_POSITIVE(self, inst: Instruction) -> None:
        self.push(operators.unary_op(self, "+", self.pop()))

    def UNARY_INVERT(self, inst: Instruction) -> None:
        self.push(operators.unary_op(self, "~", self.pop()))

    def UNARY_NOT(self, inst: Instruction) -> None:
        self.push(operators.unary_op(self, "not", self.pop()))

    def BINARY_SUBSCR(self, inst: Instruction) -> None:
        index, obj = self.pop(), self.pop()
        if type(obj) is not ArrayVariable:  # only argument arrays take run-time slices
            index = slices.specialised(index)
        self.push(obj.getitem(self, index))

    def STORE_SUBSCR(self, inst: Instruction) -> None:
        index, obj, value = self.pop(), self.pop(), self.pop()
        obj.setitem(self, slices.specialised(index), value)

    def GET_ITER(self, inst: Instruction) -> None:
        from ember.capture.loops.ranges import (DynamicRangeIterator, DynamicRangeVariable,
                                                array_rows, slice_items)

        obj = self.pop()
        if isinstance(obj, IteratorVariable):
            self.push(obj)
        elif isinstance(obj, DynamicRangeVariable):
            self.push(DynamicRangeIterator(obj))
        elif (rows := array_rows(self, [obj], single=True)) is not None:
            self.push(DynamicRangeIterator(rows))
        elif (places := items_range(self, obj, reverse=False)) is not None:
            self.push(DynamicRangeIterator(places))  # type: ignore[arg-type]
        elif (items := slice_items(self, obj)) is not None:
            self.push(DynamicRangeIterator(items))
        elif (isinstance(obj, ArrayVariable) and obj.value.ndim > 0) or (
                obj.is_constant() and isinstance(obj.constant(), range)):
            # Built when read: a loop op never reads its range's ints, and every check of
            # which arrays are still held walks the items an iterator has left.
            iterator = IteratorVariable(lazy_items(self, obj))  # type: ignore[arg-type]
            iterator.origin = obj
            self.push(iterator)
        else:
            iterator = IteratorVariable(obj.unpack(self))
            iterator.origin = obj  # what a loop op over it iterates (capture/loops)
            self.push(iterator)

    def FOR_ITER(self, inst: Instruction) -> None:
        iterator = self.stack[-1]
        if not isinstance(iterator, IteratorVariable):
            # A comprehension's frame captured on its own receives the caller's live
            # iterator as `.0`; reading it here would consume the user's items. In a
            # comprehension every trip would break here again (a resume function per item,
            # a graph call each, recompiled for the items it specialises on): it runs as
            # plain Python. (A resume function resumed at a loop's head keeps its per-trip
            # graphs: the loop's body may do whole-array work each trip.)
            refused = graph_break("type", what="iteration over an argument",
                                  type=iterator.type_name())
            name = self.code.co_name  # type: ignore[attr-defined]
            if name.endswith(("<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>")) or (
                    _yields_elements(iterator)):
                whole = graph_break("loop_break", reason=refused.reason,
                                    trips="an unknown number of")
                whole.location = (self.code.co_filename, self.lineno)  # type: ignore[attr-defined]
                raise whole
            raise refused
        if start_loop(self, inst, iterator):
            return
        item = iterator.next()
        if item is None:
            end_loop(self, iterator)
            self.pop()
            self.jump(inst)
        else:
            self.push(item)

    def _jump_unconditional(self, inst: Instruction) -> None:
        self.jump(inst)

    def _jump_on_truth(self, inst: Instruction) -> None:
        jump_if, always_pop = TRUTH_JUMPS[inst.opname]
        value = self.stack[-1]
        if always_pop and not jump_if and isinstance(value, AppendedListVariable):
            self.pop()
            if stack_while(self, inst, value):  # `while queue:` of a list a loop op built
                return
            self.push(value)
        if isinstance(value, BodyList | AppendedListVariable):
            value = self.stack[-1] = value.truth_value(self)  # type: ignore[union-attr]
        if always_pop and isinstance(value, ChoiceVariable):
            value = self.stack[-1] = choice.truth(self.graph, value)
        if always_pop and self._raise_path_check(inst, value, jump_if):
            return
        if is_frame_branch(self, inst, value):  # type: ignore[arg-type]
            capture_frame_if(self, inst)  # type: ignore[arg-type]
            return
        if is_loop_condition(self, value):
            retry_while_on_path(self, inst)  # type: ignore[arg-type]
            capture_if(self, inst)
            return
        taken = value.truth(self) == jump_if
        if always_pop or not taken:
            self.pop()
        if always_pop and not taken and stack_while(self, inst, value):
            return
        if always_pop and not taken and value.is_constant() and (
                (tested := length_tested(self, inst)) is not None) and stack_while(
                    self, inst, tested):
            return  # `while len(queue) > 0:`
        if always_pop and python_while(self, inst, not taken):
            return
        if taken:
            if inst.opname.startswith("POP_JUMP_BACKWARD"):
                count_trip(self, inst)
            self.jump(inst)

    def _raise_path_check(self, inst: Instruction, value: VariableTracker,
                          jump_if: bool) -> bool:
        """`if np.any(w < 0): raise ValueError(...)` on a 0-d value the data decide, one of
        whose paths only raises: the other path is traced, and the condition becomes a
        run-time check that runs the frame as plain Python where it holds, so Python raises
        (or handles) the exception itself (`frame_branches.add_check`)."""
        if not (isinstance(value, ArrayVariable) and not value.value.shape):
            return False
        to_raise = [taken for taken, at in ((True, inst.target), (False, inst.index + 1))
                    if at is not None and _only_raises(self.instructions, at)]
        if len(to_raise) != 1:
            return False
        truth = self.graph.op("astype", [value.value], dtype=np.bool_, weak=False,
                              scalar=True)
        raises_when = truth if to_raise[0] == jump_if else self.graph.op("logical_not", [truth])
        add_check(self, raises_when)
        self.pop()
        if not to_raise[0]:
            self.jump(inst)
        return True

    def _jump_on_none(self, inst: Instruction) -> None:
        if isinstance(self.stack[-1], tuples.OptionalVariable):
            # `if best is None:` of a number that is None as the data decide: its flag.
            self.stack[-1] = self.stack[-1].flag
            truth = inst.opname.replace("_NOT_NONE", "_FALSE").replace("_NONE", "_TRUE")
            self._jump_on_truth(dataclasses.replace(inst, opname=truth))
            return
        value = self.pop()
        is_none = operators.is_op(self, value, ConstantVariable(None))
        if is_none == NONE_JUMPS[inst.opname]:
            self.jump(inst)

    def LOAD_ASSERTION_ERROR(self, inst: Instruction) -> None:
        self.push(ConstantVariable(AssertionError))

    def RAISE_VARARGS(self, inst: Instruction) -> None:
        exc = self.stack[-1] if inst.arg else None
        raise graph_break("raise", what=exc.describe() if exc is not None else "(re-raise)")


# Instructions a path that only raises may run before its `raise` (building the exception
# and its message); any jump, return or loop ends the scan.
_RAISE_PATH_LIMIT = 48


def _only_raises(instructions: tuple[Instruction, ...], start: int) -> bool:
    """Whether the straight-line code at `start` reaches a `raise` before any jump, return or
    loop."""
    for inst in instructions[start:start + _RAISE_PATH_LIMIT]:
        if inst.opname == "RAISE_VARARGS":
            return True
        if inst.target is not None or inst.opname.startswith(("RETURN", "YIELD", "FOR_ITER",
                                                              "JUMP", "POP_JUMP", "SEND",
                                                              "RERAISE", "SETUP", "PUSH_EXC")):
            return False
    return False


for _name in UNCONDITIONAL_JUMPS:
    setattr(FlowOpcodes, _name, FlowOpcodes._jump_unconditional)
for _name in TRUTH_JUMPS:
    setattr(FlowOpcodes, _name, FlowOpcodes._jump_on_truth)
for _name in NONE_JUMPS:
    setattr(FlowOpcodes, _name, FlowOpcodes._jump_on_none)


def _yields_elements(iterator: Any) -> bool:
    """Whether `iterator` is an `np.nditer` that yields single elements (0-d arrays, or
    tuples of them): a body that runs on one element per trip costs a graph call per trip
    when compiled, more than the trip costs in Python, so the loop runs as plain Python. (An
    `external_loop` iterator yields whole 1-d chunks: those keep their per-trip graphs.)"""
    value = getattr(iterator, "value", None)
    if not isinstance(value, np.nditer):
        return False
    try:
        probe = value.copy()  # a copy iterates on its own: the user's keeps its place
        item = next(probe)
    except (StopIteration, ValueError, TypeError):
        return False
    items = item if isinstance(item, tuple) else (item,)
    return all(isinstance(i, np.ndarray) and i.ndim == 0 for i in items)
