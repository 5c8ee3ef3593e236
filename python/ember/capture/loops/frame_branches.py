"""Branches on 0-d array values at the frame's level, outside any loop (`return dp[n] if
dp[n] != INF else -1`, `if err < tol: return x`, `s = 1.0 if t > 0 else -1.0`): one `if` op,
as in loop bodies (`branches.capture_if`), where that is exactly NumPy's behaviour and costs
less than the graph break it replaces (a graph call, a Python step, a resume function).

Each such branch is tried in up to three ways, one capture attempt each; a way that refuses
raises `BranchRefused`, and `convert.capture_frame` starts the capture again with the next:

1. *meet*: both paths traced to where they meet, their bindings merged as in loop bodies.
   Refuses where the merged value would differ from Python's: one name or stack slot of two
   Python types (a Python int on one path, a NumPy scalar on the other), or one of the
   frame's arrays on the stack (a copy would stand for the object).
2. *return*: both paths traced to the frame's return, the code after the branch on each;
   the frame returns `a if flag else b` (`ChoiceVariable`), each side of its own type.
3. *break*: today's graph break at the branch.

The cost rule (`_check_work`): an `if` op holds 0-d work, element reads and writes
(`load`/`store`), nested region ops, and elementwise ops, reductions, views, products and
creations of arrays of static shapes, at most `config.branch_op_budget` ops per path. Short
arrays are written element by element in native code (`passes/scalarize.rs`), longer ones run
as the path's own graph (`Step::BodyIf`), either way cheaper than a graph break (a graph call,
a Python step, a resume function: `cosine` with `if na == 0 or nb == 0: return 0.0` went from
two breaks to none). Other array work (sorts, gathers, solvers, symbolic shapes) breaks. A
path that cannot be traced (a print, a raise, a call that breaks) breaks too, so only the path
taken runs in Python, with its own effects and errors.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

import numpy as np

from ember.capture.bytecode import TRUTH_JUMPS
from ember.capture.loops.body import RERUN
from ember.capture.loops.region import LoopRefused
from ember.errors import Unsupported

if TYPE_CHECKING:
    from ember.capture.bytecode import Instruction
    from ember.capture.interpreter import Interpreter
    from ember.capture.loops.branches import Path
    from ember.capture.variables.base import VariableTracker
    from ember.graph import Graph, Value

MEET, RETURN, BREAK = "meet", "return", "break"
# Ops a path may hold besides 0-d ones: element access, and regions of their own.
_ELEMENT_OPS = frozenset({"load", "store", "if", "loop"})
# Ops that make a new array from their attributes alone (`hoist_allocations`).
_ALLOCATIONS = frozenset({"full", "eye", "arange"})


class BranchRefused(LoopRefused):
    """The branch at `key` (code, jump offset) refused to be captured `mode`'s previous way:
    capture starts again with it captured as `mode`."""

    def __init__(self, key: tuple[Any, int], reason: str, mode: str) -> None:
        super().__init__(key, reason)
        self.mode = mode


class CostRefused(Unsupported):
    """A path past the cost rule: the branch breaks without trying the next way."""


def is_frame_branch(tx: Interpreter, inst: Instruction, vt: VariableTracker) -> bool:
    """Whether the jump `inst` on `vt` is tried as an `if` op of the frame's level (at that
    level, or nested in a path of such a branch)."""
    from ember.capture.loops.branches import is_zero_d_number

    return ((tx.graph.parent is None or at_frame_level(tx)) and tx.tracer.loop_ops
            and is_zero_d_number(vt)
            and tx.tracer.branch_modes.get((tx.code, inst.offset)) != BREAK
            and not _inside_loop(tx, inst.index))


def capture_frame_if(tx: Interpreter, inst: Instruction) -> None:
    """The branch as an `if` op, the way its earlier attempts left it to (see the module's
    doc); a refusal names the next way to try."""
    from ember.capture.loops import inputs
    from ember.capture.loops.branches import capture_if

    key = (tx.code, inst.offset)
    mode = tx.tracer.branch_modes.get(key, MEET)
    was, tx.tracer.frame_branch = tx.tracer.frame_branch, True
    first = len(tx.graph.nodes)
    try:
        # The arrays read from attributes and globals enter the paths as pseudo-locals, as
        # they enter loop bodies (`self.w` read, updated or rebound on one path).
        with inputs.inputs_as_locals(tx, rebinding=False):
            capture_if(tx, inst, to_return=mode == RETURN)
        for node in tx.graph.nodes[first:]:
            if node.op == "if":  # the branch's and its test's (`and`/`or`)
                _check_work(node.attrs["then"])
                _check_work(node.attrs["else"])
        settle_checks(tx)
    except Unsupported as exc:
        # A value test (`a or b` as a value) meets at once: tracing on to the return would
        # refuse alike.
        last = mode == RETURN or isinstance(exc, CostRefused) or not TRUTH_JUMPS[
            inst.opname][1]
        raise BranchRefused(key, exc.reason, BREAK if last else RETURN) from exc
    finally:
        tx.tracer.frame_branch = was


def settle_checks(tx: Interpreter) -> None:
    """At the frame's level, the run-time checks an `if` op's paths made (`.rerun`, merged out
    of it) become the graph's own (`add_check`)."""
    failed = tx.locals.pop(RERUN, None) if tx.graph.parent is None else None
    if failed is not None:
        tx.tracer.rerun_checks.append(failed.value)  # type: ignore[attr-defined]


def at_frame_level(tx: Interpreter) -> bool:
    """Whether `tx` is capturing a frame-level branch right now (its test or paths; not a
    loop body in one)."""
    return tx.tracer.frame_branch and not tx.tracer.loop_bodies


def check_paths(tx: Interpreter, then: Path, orelse: Path) -> None:
    """The cost rule's size, for the two paths of a frame-level branch, checked before they
    merge (their work: `_check_work`, once the `if` ops exist)."""
    from ember import config

    for path in (then, orelse):
        nodes = path.region.nodes
        if len(nodes) > config.branch_op_budget:
            raise CostRefused(f"a branch of {len(nodes)} ops (more than "
                              f"config.branch_op_budget, {config.branch_op_budget})")


def _check_work(region: Graph) -> None:
    """A path's work, nested branches included: 0-d values, element reads and writes, loop
    ops (whose bodies follow the loop rules), work on arrays of static shapes; and no
    temporary that may warn left unread (`t = np.sqrt(a)`, `t = np.log(a[0])` on a path),
    which the `if` op would drop with its warnings: the break runs the path in Python."""
    from ember.graph.regions import live_values, may_raise, unused_flag_raisers

    kept = live_values(region)
    dead = [node.op for node in region.nodes if node.out.shape and may_raise(node)
            and not any(id(v) in kept for v in node.results)]
    # 0-d NumPy temporaries the program names or drops and never reads (`t = np.log(x[0])`,
    # `x[0] / x[1]` as a statement), and conditions that decide nothing, as in loop bodies;
    # not Python numbers (`r = math.sqrt(t)` on a path traced to the return).
    dead += unused_flag_raisers(region, python_numbers=False)
    if dead:
        raise CostRefused(f"a path's {dead[0]} is never read (its warnings would be lost)")
    for node in region.nodes:
        if node.op in _ELEMENT_OPS:
            if node.op == "if":
                _check_work(node.attrs["then"])
                _check_work(node.attrs["else"])
            continue
        if (node.out.shape or any(v.shape for v in node.inputs)) and not _array_work(node):
            raise CostRefused(f"whole-array work ({node.op}) in a branch")


# Array ops a path may hold besides elementwise ones, reductions and views.
_ARRAY_OPS = frozenset({"full", "eye", "arange", "matmul", "copy"})


def _array_work(node: Any) -> bool:
    """Work on arrays of static shapes that a branch's `if` op runs as well as a graph past a
    break would, without the break's graph call, Python step and resume: element by element
    in native code where the arrays are short (`a @ b` of 3-vectors, `max()` of a short
    list's buffer: `passes/scalarize.rs`), else as the path's own graph (`Step::BodyIf`).
    Sorts, gathers and solvers still break."""
    from ember.graph.ops import OPS

    kind = OPS[node.op].kind if node.op in OPS else None
    if not (kind in ("elementwise", "reduction", "shape") or node.op in _ARRAY_OPS):
        return False
    return all(all(isinstance(d, int) for d in v.shape) for v in (node.out, *node.inputs))


def check_merged(tx: Interpreter, then: Path, orelse: Path, slots: list,
                 entries: list) -> None:
    """Refuse a frame-level merge where one value cannot stand for both paths' (see the
    module's doc): traced to the return instead, each path keeps its own."""
    for vx, vy, (how, bound) in slots:
        if how == "inplace":
            continue
        if (vx.dtype, vx.weak, vx.scalar) != (vy.dtype, vy.weak, vy.scalar):
            raise Unsupported(f"a value of type {vx.type_str} or {vy.type_str} after a branch")
        names = bound if how == "names" else []
        for side, (v, path) in enumerate(((vx, then), (vy, orelse))):
            if not (v.scalar or v.weak) and _view_of_input(path.region, v):
                # `y = x[1:]` left as it was: a new array would not share x's memory.
                raise Unsupported("a view of one of the frame's arrays chosen by a branch")
            if (not (v.scalar or v.weak) and v in path.region.inputs
                    and not (sum(slot[side] is v for slot in slots) == 1
                             and _private(tx, path, v, entries, names))):
                # An ndarray (0-d ones too) is an object: a copy would stand for it.
                raise Unsupported("one of the frame's arrays chosen by a branch")


def _view_of_input(region: Graph, v: Value) -> bool:
    """Whether `v` is a view (by graph ops) of one of `region`'s array inputs."""
    from ember.capture.variables.array import VIEW_OPS

    made = {id(n.out): n for n in region.nodes}
    root = v
    while id(root) in made and made[id(root)].op in VIEW_OPS:
        root = made[id(root)].inputs[0]
    return root is not v and root in region.inputs and not root.scalar


def _private(tx: Interpreter, path: Path, v: Value, entries: list, names: list[str]) -> bool:
    """Whether the frame's array that `path` leaves unchanged as `v` is one no one can tell
    from a copy: computed by the frame's graph (no argument, no view, viewed by nothing),
    bound to no local but `names` (the merged ones) and reached by nothing else (the caller
    checks it is left in no other slot of the merge). Then the merged value stands for it
    (`E` of `while np.max(np.abs(delta)) > tol:` when the loop takes no trip)."""
    from ember.capture.loops import swaps
    from ember.capture.loops.region import BodyArray

    e = next((e for e in entries if path.inner[id(e)].value is v), None)
    if e is None or isinstance(e, BodyArray) or path.inner[id(e)].param is not v:
        return False
    return swaps.unseen(tx, e, lambda name: name in names)


def add_check(tx: Interpreter, failed: Value) -> None:
    """A 0-d bool that, true after the graph ran, sends the frame to plain Python: at the
    frame's level a graph output the entry tests; on a path of a frame-level branch, the
    path's `.rerun`, merged out of the `if` op like a local."""
    from ember.capture.variables.array import ArrayVariable

    if failed.weak or not failed.scalar:  # every path's check is of one type (`fill_checks`)
        failed = tx.graph.op("astype", [failed], dtype=np.bool_, weak=False, scalar=True)
    if tx.graph.parent is None:
        tx.tracer.rerun_checks.append(failed)
        return
    prior = tx.locals.get(RERUN)
    if prior is not None:
        failed = tx.graph.op("logical_or", [prior.value, failed])  # type: ignore[attr-defined]
    tx.locals[RERUN] = ArrayVariable(failed)


def fill_checks(then: Path, orelse: Path) -> None:
    """A path without `.rerun` of a branch whose other path has one: false there."""
    from ember.capture.variables.array import ArrayVariable

    if (RERUN in then.locals) == (RERUN in orelse.locals):
        return
    lacking = orelse if RERUN in then.locals else then
    lacking.locals[RERUN] = ArrayVariable(lacking.region.const(False, np.bool_, weak=False))


def retry_while_on_path(tx: Interpreter, inst: Instruction) -> None:
    """A branch on a loop value inside a `while` whose tests are Python values, run as code
    on a path of a frame-level branch (`if old == new: return img, 0`, then `while top >
    0:` on the other path): capture starts again with that `while` as a loop op inside the
    path, as a `while` of the frame's graph is (`loops.retry_as_loop_op`), rather than the
    branch leaving the trip it is unrolled in."""
    from ember.capture.loops.body import enclosing_body
    from ember.capture.loops.whiles import retry_while_around

    if tx.graph.parent is not None and at_frame_level(tx) and enclosing_body(tx) is None:
        retry_while_around(tx, inst.index, "a branch on a loop value in a while loop on a "
                                           "path of a branch")


def hoist_allocations(tx: Interpreter, paths: tuple[Graph, Graph], args: list[Value]
                      ) -> None:
    """New arrays a path of a frame-level branch makes from nothing (`np.empty((n, 2))`,
    `np.zeros(n)`, `np.eye(n)`: ops without operands, which can neither fail nor warn) are made
    before the `if` op and passed in as operands, so the path holds only the element work the
    native core compiles in a branch (`stack = np.empty(...)` before a `while` filling it, on
    the path past `if old == new: return img, 0`). The other path never reads it. Each
    path also returns its last version (an extra result of the `if` op, after the others),
    so the native core may store into it: the operand's buffer is the result's. One the path
    returns or binds stays path work (a new array out of a branch is not native code)."""
    for region in paths:
        for node in [n for n in region.nodes if n.op in _ALLOCATIONS and not n.inputs]:
            if any(v is latest_version(region, node.out) for v in region.outputs):
                continue
            made = tx.graph.op(node.op, [], shape=node.out.shape, dtype=node.out.dtype,
                               **node.attrs)
            for path in paths:
                param = path.add_input(made.dtype, made.shape)
                if path is region:
                    _replace_uses(region, node, param)
                path.outputs.append(latest_version(path, param))
            args.append(made)


def latest_version(region: Graph, value: Value) -> Value:
    """The version of the array `value` that `region` ends with: stores into it, and loop
    and `if` ops that update it in place, each make the next one."""
    for node in region.nodes:
        if node.op == "store" and node.inputs[0] is value:
            value = node.out
        elif node.op == "loop":
            carried = node.inputs[3:3 + node.attrs["carried"]]
            j = next((j for j, v in enumerate(carried) if v is value), None)
            if j is not None:
                value = node.results[j]
        elif node.op == "if":
            value = _through_if(node, value)
    return value


def _through_if(node: Any, value: Value) -> Value:
    then = node.attrs["then"]
    for k, operand in enumerate(node.inputs[1:]):
        if operand is value:
            last = latest_version(then, then.inputs[k])
            if last is not then.inputs[k] and last in then.outputs:
                return node.results[then.outputs.index(last)]
    return value


def _replace_uses(region: Graph, node: Any, param: Value) -> None:
    """`node`'s result is `param` from now on: the node goes, its uses read the input."""
    def swap(v: Value) -> Value:
        return param if v is node.out else v

    region.nodes[:] = [n if not any(v is node.out for v in n.inputs) else dataclasses.replace(
        n, inputs=tuple(swap(v) for v in n.inputs)) for n in region.nodes if n is not node]
    region.outputs[:] = [swap(v) for v in region.outputs]


def _inside_loop(tx: Interpreter, index: int) -> bool:
    """Whether instruction `index` lies in a loop of its code: a jump back over it. A branch
    there belongs to the loop's rules (section 12): a loop op's body, or a break per trip."""
    return any(inst.target is not None and inst.target <= index
               for inst in tx.instructions[index:]
               if inst.opname.startswith(("JUMP_BACKWARD", "POP_JUMP_BACKWARD")))
