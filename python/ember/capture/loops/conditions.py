"""Short-circuit tests in loop bodies (`while zr*zr + zi*zi <= 4.0 and n < it:`, `if x[j] <
x[i] and dp[j] + 1 > dp[i]:`, `v = x[i] or last`).

CPython 3.11 compiles `and`/`or`/`not` in a test as a chain of conditional jumps over short
pieces of test code, every jump landing on the next piece or on one of the test's two
outcomes. Traced as separate branches, a piece that jumps back to a loop's top would leave
its branch; so the whole chain is evaluated first, as one `bool[]` value (whether the last
jump is taken), each piece in an `if` op on the tests before it, so that it runs only where
Python runs it (`j >= 0 and a[j] > key` never reads `a[-1]`). The branch then takes that one
value (`branches.capture_if`). `and`/`or` used as values (JUMP_IF_*_OR_POP) are a branch
whose paths meet at the jump's target, one path keeping the tested value."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ember.capture.breaks import graph_break
from ember.capture.bytecode import TRUTH_JUMPS
from ember.capture.loops.body import execute
from ember.capture.variables.array import ArrayVariable
from ember.capture.variables.constant import ConstantVariable

if TYPE_CHECKING:
    from ember.capture.bytecode import Instruction
    from ember.capture.interpreter import Interpreter
    from ember.capture.variables.base import VariableTracker

# What a piece of test code may hold: loads, arithmetic, comparisons and calls, which leave
# one value for its jump and touch no local.
_TEST_CODE = frozenset({
    "LOAD_FAST", "LOAD_CONST", "LOAD_GLOBAL", "LOAD_DEREF", "LOAD_ATTR", "LOAD_METHOD",
    "BINARY_OP", "COMPARE_OP", "IS_OP", "CONTAINS_OP", "BINARY_SUBSCR", "UNARY_NOT",
    "UNARY_NEGATIVE", "UNARY_POSITIVE", "UNARY_INVERT", "PRECALL", "CALL", "PUSH_NULL",
    "KW_NAMES", "BUILD_TUPLE", "CACHE", "NOP", "EXTENDED_ARG",
})
_POP_JUMPS = frozenset(name for name, (_, pops) in TRUTH_JUMPS.items() if pops)


@dataclass(frozen=True)
class Chain:
    """The conditional jumps of one test, in order; the last one's target and fall-through
    are the test's two outcomes."""

    jumps: tuple[Instruction, ...]

    @property
    def last(self) -> Instruction:
        return self.jumps[-1]

    @property
    def ends(self) -> dict[int, Instruction]:
        return {j.index: j for j in self.jumps}


def chain_from(tx: Interpreter, first: Instruction) -> Chain:
    """The longest chain of jumps starting at `first` whose pieces are test code and whose
    jumps all land on a later piece or on one of two outcomes (one jump: an ordinary test)."""
    jumps = (first,)
    while True:
        end = _piece_end(tx, jumps[-1].index + 1)
        if end is None:
            return Chain(jumps)
        longer = (*jumps, tx.instructions[end])
        if not _two_outcomes(longer):
            return Chain(jumps)
        jumps = longer


def _piece_end(tx: Interpreter, start: int) -> int | None:
    """The conditional jump that ends the test code from `start`, or None."""
    for inst in tx.instructions[start:]:
        if inst.opname in _POP_JUMPS:
            return inst.index
        if inst.opname not in _TEST_CODE:
            return None
    return None


def _two_outcomes(jumps: tuple[Instruction, ...]) -> bool:
    pieces = {j.index + 1 for j in jumps[:-1]}
    first, last = jumps[0].index, jumps[-1].index
    landings = {t for j in jumps for t in (j.target, j.index + 1)}
    if any(t is None or (first < t <= last and t not in pieces) for t in landings):
        return False
    return landings - pieces == {jumps[-1].target, last + 1} and jumps[-1].target != last + 1


def evaluate(tx: Interpreter, chain: Chain) -> ArrayVariable:
    """Whether the chain ends by its last jump, the first piece's value on the stack; leaves
    `tx.ip` after the last jump."""
    value = tx.pop()
    result = _at_jump(tx, chain, chain.jumps[0], value)
    tx.ip = chain.last.index + 1
    return _as_bool(tx, result)


def _at_jump(tx: Interpreter, chain: Chain, jump: Instruction,
             value: VariableTracker) -> VariableTracker:
    from ember.capture.loops.branches import is_loop_condition

    from ember.capture.variables import choice

    jump_if = TRUTH_JUMPS[jump.opname][0]
    taken, fall = jump.target, jump.index + 1
    value = choice.truth(tx.graph, value)
    if not is_loop_condition(tx, value):
        return _at(tx, chain, taken if value.truth(tx) == jump_if else fall)
    return _choose(tx, value, *((taken, fall) if jump_if else (fall, taken)),
                   meet=chain.last.index, follow=lambda t, pos: _at(t, chain, pos))


def _at(tx: Interpreter, chain: Chain, pos: int) -> VariableTracker:
    """The outcome from the piece at `pos`: True, False, or a loop value."""
    assert chain.last.target is not None
    if pos == chain.last.target:
        return ConstantVariable(True)
    if pos == chain.last.index + 1:
        return ConstantVariable(False)
    depth, ends = len(tx.stack), chain.ends
    tx.ip = pos
    while tx.ip not in ends:
        execute(tx)
    jump = ends[tx.ip]
    value = tx.pop()
    if len(tx.stack) != depth:
        raise graph_break("loop_body", what="a test that leaves values on the stack")
    return _at_jump(tx, chain, jump, value)


def _choose(tx: Interpreter, value: VariableTracker, then_pos: int, else_pos: int, *,
            meet: int, follow: Callable[[Interpreter, int], VariableTracker]
            ) -> VariableTracker:
    """An `if` op on the truth of `value`, each path's outcome `follow(tx, pos)`."""
    from ember.capture.loops import branch_entries, branches

    cond = branches._truth(tx, value.value)  # type: ignore[attr-defined]
    entries, vectors = branch_entries.entries(tx)

    def path(pos: int, kind: str) -> branches.Path:
        return branches._trace(tx, entries, vectors, pos, None, kind,
                               action=lambda t: t.push(_as_bool(t, follow(t, pos))))

    then, orelse = path(then_pos, "then"), path(else_pos, "else")
    ip = tx.ip
    branches._merge(tx, cond, entries, then, orelse, meet)
    tx.ip = ip
    return tx.pop()


# What the second comparison of `lo <= y < hi` may be computed from where Python would not
# compute it (the first comparison false): loads, and `+`, `*`, `-` of them (NB_ADD,
# NB_MULTIPLY, NB_SUBTRACT), which raise nothing NumPy's rules or the run-time checks miss.
_PURE_LOADS = frozenset({"LOAD_FAST", "LOAD_CONST", "LOAD_DEREF", "CACHE", "NOP",
                         "EXTENDED_ARG"})
_PURE_ARITHMETIC = frozenset({0, 5, 10})
_JUMPS = frozenset({"JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT"})


def chained_comparison(tx: Interpreter, first: Instruction) -> Instruction | None:
    """`lo <= y < hi` on a loop value, at its first jump: CPython jumps from the first
    comparison to a cleanup (`POP_TOP`, a jump on) that drops the copy of `y` the second
    comparison would take. Both comparisons computed here, the second from loads only, and
    anded: the test of the second jump, left on the stack, which then branches as an
    ordinary test (the cleanup's jump lands where the second jump's `False` goes). None (and
    nothing done) for any other code."""
    target = first.target
    if target is None or target + 1 >= len(tx.instructions) or TRUTH_JUMPS[first.opname][0]:
        return None
    cleanup, onward = tx.instructions[target], tx.instructions[target + 1]
    if cleanup.opname != "POP_TOP" or onward.opname not in _JUMPS or onward.target is None:
        return None
    end = first.index + 1
    while end < len(tx.instructions) and tx.instructions[end].opname not in _POP_JUMPS:
        inst = tx.instructions[end]
        if not (inst.opname in _PURE_LOADS or inst.opname == "COMPARE_OP" or (
                inst.opname == "BINARY_OP" and inst.arg in _PURE_ARITHMETIC)
                or _size_read(tx, end)):
            return None
        end += 1
    if end >= len(tx.instructions) or tx.instructions[end - 1].opname != "COMPARE_OP":
        return None
    second = tx.instructions[end]
    false_goes = second.index + 1 if TRUTH_JUMPS[second.opname][0] else second.target
    if false_goes is None or _landing(tx, onward.target) != _landing(tx, false_goes):
        return None
    first_test = _as_bool(tx, tx.pop())
    depth = len(tx.stack)
    tx.ip = first.index + 1
    while tx.ip != second.index:
        execute(tx)
    if len(tx.stack) != depth:
        raise graph_break("loop_body", what="a chained comparison that leaves values on "
                                            "the stack")
    second_test = _as_bool(tx, tx.pop())
    tx.push(ArrayVariable(tx.graph.op("logical_and", [first_test.value, second_test.value])))
    tx.ip = second.index + 1
    return second


def _size_read(tx: Interpreter, at: int) -> bool:
    """Whether instruction `at` is part of `x.shape[k]` (or `x.ndim`, `x.size`) with a
    constant `k`: a size, which raises nothing at run time."""
    code = tx.instructions
    inst = code[at]
    if inst.opname == "LOAD_ATTR":
        return inst.argval in ("shape", "ndim", "size")
    if inst.opname == "BINARY_SUBSCR" and at >= 2:
        return (code[at - 1].opname == "LOAD_CONST" and type(code[at - 1].argval) is int
                and code[at - 2].opname == "LOAD_ATTR" and code[at - 2].argval == "shape")
    return False


def _landing(tx: Interpreter, pos: int) -> int:
    """Where code from `pos` goes, past unconditional jumps."""
    seen = set()
    while tx.instructions[pos].opname in _JUMPS and pos not in seen:
        seen.add(pos)
        pos = tx.instructions[pos].target  # type: ignore[assignment]
    return pos


def _as_bool(tx: Interpreter, vt: VariableTracker) -> ArrayVariable:
    from ember.capture.variables import choice

    vt = choice.truth(tx.graph, vt)
    if isinstance(vt, ConstantVariable):
        return ArrayVariable(tx.graph.const(bool(vt.constant()), np.bool_, weak=False))
    from ember.capture.loops.branches import _truth

    return ArrayVariable(_truth(tx, vt.value))  # type: ignore[attr-defined]


def value_branch(tx: Interpreter, inst: Instruction) -> None:
    """`a and b`, `a or b` as values on a loop value `a`: JUMP_IF_*_OR_POP keeps `a` on the
    path that jumps and computes `b` on the other; both meet at the jump's target."""
    from ember.capture.loops import branch_entries, branches

    jump_if = TRUTH_JUMPS[inst.opname][0]
    target = inst.target
    if target is None or target < tx.ip:
        raise graph_break("loop_body", what=f"{inst.opname} back on a loop value")
    value = tx.stack[-1]
    cond = branches._truth(tx, value.value)  # type: ignore[attr-defined]
    entries, vectors = branch_entries.entries(tx)
    tx.pop()
    computes = branches._trace(tx, entries, vectors, tx.ip, target,
                               "else" if jump_if else "then")
    tx.push(value)
    keeps = branches._trace(tx, entries, vectors, target, target, "then" if jump_if else "else")
    if computes.end != target:
        raise graph_break("loop_body", what=f"{inst.opname} whose paths do not meet")
    then, orelse = (keeps, computes) if jump_if else (computes, keeps)
    branches._merge(tx, cond, entries, then, orelse, target)
