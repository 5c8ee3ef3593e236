"""Opcode handlers that build and take apart containers and strings (BUILD_*, LIST_*,
DICT_*, MAP_ADD, UNPACK_*, FORMAT_VALUE): a mixin of the interpreter."""

from __future__ import annotations

from typing import Any

from ember.capture.breaks import graph_break
from ember.capture.bytecode import Instruction
from ember.capture.loops.runs import build_slice
from ember.capture.variables.array import ArrayVariable
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.constant import ConstantVariable, FormattedVariable, fold
from ember.capture.variables.containers import DictVariable, ListVariable, TupleVariable, claim
from ember.capture.variables.datalen import data_slice, known_bounds
from ember.capture.variables.scalar import PythonScalarVariable, structural
from ember.capture.variables.slices import runtime_slice


class BuildingOpcodes:
    """Mixed into `Interpreter`, whose stack (`stack`, `push`, `pop`, `popn`) it uses."""

    stack: list[VariableTracker]

    def BUILD_TUPLE(self, inst: Instruction) -> None:
        self.push(TupleVariable(self.popn(inst.arg)))

    def BUILD_LIST(self, inst: Instruction) -> None:
        built = ListVariable(self.popn(inst.arg))
        built.made_in = self.tracer.graph
        self.push(built)

    def BUILD_MAP(self, inst: Instruction) -> None:
        flat = self.popn(2 * inst.arg)
        items = {}
        for key, value in zip(flat[::2], flat[1::2]):
            items[self._key(key)] = value
        self.push(DictVariable(items))

    def BUILD_CONST_KEY_MAP(self, inst: Instruction) -> None:
        keys = self.pop().constant()
        self.push(DictVariable(dict(zip(keys, self.popn(inst.arg)))))

    def _key(self, key: VariableTracker) -> Any:
        if not key.is_constant():
            raise graph_break("type", what=f"dict key {key.describe()}", type=key.type_name())
        return key.constant()

    def BUILD_SLICE(self, inst: Instruction) -> None:
        parts = known_bounds(self.popn(inst.arg))
        kept = runtime_slice(self, parts)  # type: ignore[arg-type]
        if kept is not None:
            self.push(kept)
            return
        from_data = data_slice(self, parts)  # type: ignore[arg-type]
        if from_data is not None:
            self.push(from_data)
            return
        parts = [structural(p) for p in parts]
        found = build_slice(self, parts)
        if found is not None:
            self.push(found)
            return
        if not all(p.is_constant() for p in parts):
            raise graph_break("type", what="a slice with non-constant bounds", type="slice")
        self.push(ConstantVariable(slice(*[p.constant() for p in parts])))

    def _owned(self, inst: Instruction) -> Any:
        """The container `inst` adds to (a comprehension resumed after a graph break holds a
        real list: see `claim`)."""
        container = self.stack[-inst.arg - 1]
        claim(self, container)
        return container

    def LIST_APPEND(self, inst: Instruction) -> None:
        from ember.capture.loops.appends import BodyList

        container = self.stack[-inst.arg - 1]
        if isinstance(container, BodyList):  # a comprehension captured as a loop op
            container.append(self, self.stack[-1])  # type: ignore[arg-type]
        else:
            self._owned(inst).append_item(self.stack[-1])
        self.pop()

    def LIST_EXTEND(self, inst: Instruction) -> None:
        items = self._owned(inst).items
        items.extend(self.stack[-1].unpack(self))
        self.pop()

    def LIST_TO_TUPLE(self, inst: Instruction) -> None:
        self.push(TupleVariable(self.pop().unpack(self)))

    def MAP_ADD(self, inst: Instruction) -> None:
        # The container sits below the key and the value.
        container = self.stack[-inst.arg - 2]
        claim(self, container)
        value, key = self.pop(), self.pop()
        container.items[self._key(key)] = value

    def DICT_UPDATE(self, inst: Instruction) -> None:
        update = self.stack[-1]
        if not isinstance(update, DictVariable):
            raise graph_break("type", what=f"dict update with {update.describe()}",
                              type=update.type_name())
        self._owned(inst).items.update(update.items)
        self.pop()

    DICT_MERGE = DICT_UPDATE

    def UNPACK_SEQUENCE(self, inst: Instruction) -> None:
        items = self.pop().unpack(self)
        if len(items) != inst.arg:
            raise graph_break("user_error", type="ValueError",
                              message=f"expected {inst.arg} values to unpack, got {len(items)}")
        self.stack.extend(reversed(items))

    def UNPACK_EX(self, inst: Instruction) -> None:
        before, after = inst.arg & 0xFF, inst.arg >> 8
        items = self.pop().unpack(self)
        if len(items) < before + after:
            raise graph_break("user_error", type="ValueError",
                              message=f"not enough values to unpack (expected at least "
                                      f"{before + after}, got {len(items)})")
        middle = ListVariable(items[before : len(items) - after])
        ordered = [*items[:before], middle, *items[len(items) - after :]]
        self.stack.extend(reversed(ordered))

    def FORMAT_VALUE(self, inst: Instruction) -> None:
        has_spec = bool(inst.arg & 0x04)
        spec = self.stack[-1] if has_spec else ConstantVariable("")
        value = self.stack[-1 - has_spec]
        conversion = (None, str, repr, ascii)[inst.arg & 0x03]
        if value.is_constant() and spec.is_constant():
            v = value.constant() if conversion is None else conversion(value.constant())
            result: VariableTracker = ConstantVariable(fold("format()", format, v,
                                                            spec.constant()))
        elif isinstance(value, (ArrayVariable, PythonScalarVariable)) and spec.is_constant():
            # Formatted in Python where the string is used (arrays format as NumPy does).
            result = FormattedVariable([(value, conversion, spec.constant())])
        else:
            raise graph_break("data_dependent_value", what=f"formatting {value.describe()}")
        self.popn(1 + has_spec)
        self.push(result)

    def BUILD_STRING(self, inst: Instruction) -> None:
        parts = self.stack[len(self.stack) - inst.arg:]
        if all(p.is_constant() for p in parts):
            result: VariableTracker = ConstantVariable("".join(p.constant() for p in parts))
        else:
            pieces: list = []
            for p in parts:
                pieces += p.parts if isinstance(p, FormattedVariable) else [p.constant()]
            result = FormattedVariable(pieces)
        self.popn(inst.arg)
        self.push(result)
