"""A branch on a loop value inside a loop body (`if a[i] > m:`, `c = 0 if x == y else 1`)
becomes one `if` op: both paths are traced, each as a region, from the jump to where they
meet again, and what either changed (locals rebound, arrays updated in place, a value left
on the stack) is merged into the op's results.

The paths meet going forward inside the loop body, or end the trip (`continue`, `break`,
`return`: see `body.run_span`). In a function called from a loop body, a path may end with
the function's return, whose values merge (`returns.merge_results`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ember.capture.breaks import graph_break
from ember.capture.bytecode import TRUTH_JUMPS
from ember.capture.loops.body import (
    GO,
    RERUN,
    RETURNED,
    RETVAL,
    enclosing_body,
    loop_head,
    run_span,
)
from ember.capture.loops import branch_entries, followers, inputs, mixed_picks, runs, tuples
from ember.capture.loops.runs import RunVariable
from ember.capture.loops.region import BodyArray, _graph_swapped, bind_cells
from ember.capture.loops.vectors import VectorVariable
from ember.capture.loops.window_exprs import LazyWindowVariable
from ember.capture.variables.appended import AppendedListVariable
from ember.capture.variables.masked import MaskedVariable
from ember.capture.variables.nonzero import NonzeroIndexVariable, Positions
from ember.capture.variables.array import ArrayVariable
from ember.capture.variables import choice
from ember.capture.variables.base import VariableTracker
from ember.capture.variables.choice import ChoiceVariable
from ember.capture.variables.constant import ConstantVariable
from ember.capture.variables.containers import (
    IteratorVariable,
    LazyItems,
    TupleVariable,
    lazy_items,
)
from ember.capture.variables.scalar import PythonScalarVariable
from ember.graph import Graph, Value
from ember.graph.regions import unused_flag_raisers

if TYPE_CHECKING:
    from ember.capture.bytecode import Instruction
    from ember.capture.interpreter import Interpreter


def is_loop_condition(tx: Interpreter, vt: VariableTracker) -> bool:
    """A 0-d value tested in a loop body, or in a frame-level branch's test (`and`/`or`)."""
    return (tx.graph.parent is not None or tx.tracer.frame_branch) and is_zero_d_number(vt)


def is_zero_d_number(vt: VariableTracker) -> bool:
    return (isinstance(vt, ArrayVariable) and not vt.value.shape
            and vt.value.dtype.kind in "biuf")


# A tracker made of graph values held when a branch starts (a short row, a boolean-mask
# selection), and one entry per value.
HeldVector = tuple[VectorVariable | MaskedVariable | ChoiceVariable | PythonScalarVariable
                   | RunVariable | NonzeroIndexVariable | TupleVariable | AppendedListVariable,
                   list[ArrayVariable]]


# How many paths running on through a written-out inner loop's trips may nest.
THROUGH_DEPTH = 12


@dataclass
class Path:
    """One traced path: its region, and the locals and stack it ended with."""

    region: Graph
    inner: dict[int, BodyArray]  # id(outer tracker) -> its stand-in
    locals: dict[str, VariableTracker]
    stack: list[VariableTracker]
    end: int


def _truth(tx: Interpreter, value: Value) -> Value:
    """Python's truth of a 0-d value, as the strong `bool[]` an `if` op takes."""
    if value.dtype != np.bool_:
        value = tx.graph.op("ne", [value, tx.graph.const(0)])
    if value.weak:
        value = tx.graph.op("astype", [value], dtype=np.bool_)
    return value


def capture_if(tx: Interpreter, inst: Instruction, to_return: bool = False) -> None:
    """`to_return`: both paths run on to the frame's return (`frame_branches`)."""
    from ember.capture.loops import (conditions, frame_branches, retry_as_loop_op, whiles,
                                     windows)

    jump_if, always_pop = TRUTH_JUMPS[inst.opname]
    if not always_pop:
        conditions.value_branch(tx, inst)
        return
    chained = conditions.chained_comparison(tx, inst)
    if chained is not None:
        # `lo <= y < hi`: both comparisons as one value, the test of its second jump.
        inst, jump_if = chained, TRUTH_JUMPS[chained.opname][0]
    chain = conditions.chain_from(tx, inst)
    if len(chain.jumps) > 1:
        # `and`/`or`: the whole test as one value, whether its last jump is taken.
        tx.push(conditions.evaluate(tx, chain))
        inst, jump_if = chain.last, True
    if whiles.is_bottom_test(tx, inst):
        whiles.bottom_test(tx, inst, jump_if)
        return
    if whiles.is_first_test_again(tx, inst):
        whiles.first_test_again(tx, inst, jump_if)
        return
    body = enclosing_body(tx)
    continues = body is not None and inst.target is not None and (
        loop_head(tx, inst.target) == body.for_index)
    if inst.target is not None and inst.target < tx.ip and not continues:
        if tx.instructions[loop_head(tx, inst.target)].opname == "FOR_ITER":
            # A comprehension's filter (`[v for v in row if v > t]`) jumping back to the
            # FOR_ITER of its loop, unrolled in the body: a branch on data, which an inlined
            # frame retries with that loop as a loop op of its own (`Interpreter.run`).
            raise graph_break("data_dependent_branch", name="a loop value")
        _rest_of_while(tx, inst, jump_if)
        return
    if inst.target is None:
        raise graph_break("loop_body", what=f"{inst.opname} on a loop value")
    cond = _truth(tx, tx.pop().value)  # type: ignore[attr-defined]
    # Where a path that leaves ends: the trip's end, or the function's return.
    for_index = body.for_index if body is not None else RETURNED
    fall, target = tx.ip, inst.target
    entries, vectors = branch_entries.entries(tx, windows.dead_at(tx, (fall, target)))
    frame_level = frame_branches.at_frame_level(tx)
    if to_return:
        fall_path, jump_path = (_trace(tx, entries, vectors, start, RETURNED, kind)
                                for start, kind in ((fall, "else" if jump_if else "then"),
                                                    (target, "then" if jump_if else "else")))
        frame_branches.check_paths(tx, fall_path, jump_path)
        then, orelse = (fall_path, jump_path) if not jump_if else (jump_path, fall_path)
        _merge(tx, cond, entries, then, orelse, RETURNED)
        bind_cells(tx)
        return
    loop_exit = whiles.while_exit(tx, inst)
    # A jump back to the loop's FOR_ITER is a `continue` (a comprehension's `if`): the other
    # path runs to the end of the trip.
    fall_path = _trace(tx, entries, vectors, fall, None if continues else target,
                       "then" if not jump_if else "else", loop_exit)
    meet = fall_path.end
    # A meeting point before the jump's target is an unrolled inner loop's FOR_ITER, which
    # the jumping path reaches by its own jump back.
    jump_path = _trace(tx, entries, vectors, target, None if meet == for_index or meet < target
                       else meet, "else" if not jump_if else "then",
                       through=meet == for_index)
    if jump_path.end == for_index and meet != for_index:
        # The jumping path ended the trip (`continue`, `break`, `return`): the other one runs
        # to the end of the trip (or the return) as well, so that the rest of the body
        # happens on its path only.
        fall_path = _trace(tx, entries, vectors, fall, None, "then" if not jump_if else "else",
                           loop_exit, through=True)
        meet = for_index
    if jump_path.end != meet or fall_path.end != meet:
        # The other path, traced again to the trip's end or the return, may have ended at
        # the head of a loop unrolled around the branch instead.
        # A `break` out of a short loop unrolled inside the body, on data (`if M[i, j] >
        # t: found = True; break`): that loop is tried again as a loop op of its own.
        if not _returns_inside_unrolled(tx):
            retry_as_loop_op(tx, inst.index, "a break on data out of a loop unrolled in a "
                                             "body")
        raise graph_break("loop_body", what="branches that do not meet")
    if frame_level:
        frame_branches.check_paths(tx, fall_path, jump_path)
    then, orelse = (fall_path, jump_path) if not jump_if else (jump_path, fall_path)
    _merge(tx, cond, entries, then, orelse, meet)
    bind_cells(tx)  # a path may have rebound a cell's pseudo-local


def _returns_inside_unrolled(tx: Interpreter) -> bool:
    """Whether a loop being unrolled in this frame holds a `return` (its own loop op would
    refuse one of another type than the frame's others, and the enclosing loop, unrolled
    in turn, would find it refused too)."""
    for vt in tx.stack:
        account = getattr(vt, "unroll", None)
        if account is None or account.key[0] is not tx.code:
            continue
        head = next((i for i in tx.instructions if i.offset == account.key[1]), None)
        if head is not None and head.target is not None and any(
                i.opname == "RETURN_VALUE" for i in tx.instructions[head.index:head.target]):
            return True
    return False


def _rest_of_while(tx: Interpreter, inst: Instruction, jump_if: bool) -> None:
    """The test at the bottom of a `while` loop whose earlier tests were Python values (its
    first trip ran as ordinary code): the rest of the loop is an `if` on this test holding
    the loop op a `while` on a loop value becomes (`whiles.capture_while`)."""
    cond = _truth(tx, tx.pop().value)  # type: ignore[attr-defined]
    top, exit_index = inst.target, tx.ip
    assert top is not None
    entries, vectors = branch_entries.entries(tx)
    looping = _trace(tx, entries, vectors, top, exit_index, "then" if jump_if else "else",
                     exit_index)
    # In a called function, a loop op that may return leaves the looping path at the
    # function's return (`returns.after_loop`): the other path runs to it too.
    meet = RETURNED if looping.end == RETURNED and enclosing_body(tx) is None else exit_index
    done = _trace(tx, entries, vectors, exit_index, meet, "else" if jump_if else "then")
    if looping.end != meet or done.end != meet:
        raise graph_break("loop_body", what="a while loop left other than at its exit")
    then, orelse = (looping, done) if jump_if else (done, looping)
    _merge(tx, cond, entries, then, orelse, meet)


def _rows_iterated(tx: Interpreter, vt: VariableTracker) -> ArrayVariable | None:
    """The array of this graph whose rows `vt`, an iterator a loop unrolls, has yet to read
    (a path reads them from its own stand-in); zip or enumerate of such rows refuse."""
    if not isinstance(vt, IteratorVariable) or not isinstance(vt.items, LazyItems):
        return None
    parts = getattr(vt.origin, "parts", [vt.origin])
    if not any(isinstance(p, ArrayVariable) and p.value.graph is tx.graph for p in parts):
        return None
    if parts != [vt.origin]:
        raise graph_break("loop_body", what="zip or enumerate of rows continued on a path of "
                                            "a branch")
    return vt.origin  # type: ignore[return-value]


def _iterators_back(tx: Interpreter, then: Path, orelse: Path
                    ) -> dict[tuple[int, int], IteratorVariable]:
    """The frame's row iterators (`_rows_iterated`) by their two paths' stand-ins, where
    neither path advanced them (`for c in coins: if ...:`): after the branch the frame's
    own iterator reads on. One a path advanced cannot be merged."""
    from ember.capture.loops import returns

    out: dict[tuple[int, int], IteratorVariable] = {}
    for vt in [*tx.locals.values(), *tx.stack]:
        x, y = then.inner.get(id(vt)), orelse.inner.get(id(vt))
        if not isinstance(vt, IteratorVariable) or x is None or y is None:
            continue
        for path, stand_in in ((then, x), (orelse, y)):
            # A path that returned leaves the frame: where its rows stood does not matter.
            moved = stand_in.index != vt.index  # type: ignore[attr-defined]
            if moved and not returns.returned(path):
                raise graph_break("loop_body", what="rows iterated on inside a branch")
        out[(id(x), id(y))] = vt
    return out


def _rows_from(tx: Interpreter, iterator: IteratorVariable,
               array: VariableTracker) -> IteratorVariable:
    """`iterator` where it stands, its rows to come read from `array`."""
    rows = IteratorVariable(lazy_items(tx, array), iterator.source, iterator.index)
    rows.start, rows.unroll, rows.origin = iterator.start, iterator.unroll, array
    return rows


def _trace(tx: Interpreter, entries: list[ArrayVariable], vectors: list[HeldVector],
           start: int, stop: int | None, kind: str, loop_exit: int | None = None,
           action: Callable[[Interpreter], None] | None = None, through: bool = False
           ) -> Path:
    """One path as a region from `start`; `action`: what the path does instead of running
    instructions (`returns.after_loop`); `through`: as `run_span`'s."""
    if through and tx.tracer.paths_through >= THROUGH_DEPTH:
        # Both paths of each such branch run the trips left, so each branch nested in them
        # may double the tracing: refused past a dozen (7 columns by 4 directions of tests
        # and returns took a minute unrefused, 3 s refused).
        raise graph_break("loop_body", what="branches that end the trip nested too deep "
                                            "inside a written-out inner loop")
    region = tx.graph.region(kind)
    inner: dict[int, BodyArray] = {}
    for vt in entries:
        v = vt.value
        param = region.add_input(v.dtype, v.shape, weak=v.weak, scalar=v.scalar)
        mixed_picks.note_source(region, param, v)
        mutable = bool(v.shape) and (vt.is_fresh(tx) or vt.is_mutable_input(tx))
        inner[id(vt)] = BodyArray(param, mutable)
    followers.stand_ins(tx, followers.derived([*tx.locals.values(), *tx.stack], tx.graph),
                        inner)
    run_parts = {id(e) for vector, elements in vectors
                 if isinstance(vector, (RunVariable, LazyWindowVariable)) for e in elements}
    known = {id(vt.value): inner[id(vt)].value for vt in entries if id(vt) not in run_parts}
    for vector, elements in vectors:
        if isinstance(vector, PythonScalarVariable):
            inner[id(vector)] = inner[id(elements[0])]
            continue
        if isinstance(vector, RunVariable):
            # Its bounds computed again in the path where they can be (alike with the
            # path's own `k + 1`), else the entries.
            parts = [runs.replayed(e.value, known, region) or inner[id(e)].value
                     for e in elements]
            held = runs.run_in(vector, inner[id(vector.array)], parts)
            inner[id(vector)] = held  # type: ignore[assignment]
            continue
        if isinstance(vector, LazyWindowVariable):
            # Its positions computed again in the path where they can be, else the entries;
            # its array the path's stand-in, so that a read after the path updated the
            # array refuses as outside branches.
            parts = iter([runs.replayed(e.value, known, region) or inner[id(e)].value
                          for e in elements])
            axes = [dataclasses.replace(
                axis, at=axis.at if axis.at is None else next(parts),
                offset=axis.offset if axis.offset is None or axis.at is not None
                else next(parts)) for axis in vector.axes]
            inner[id(vector)] = LazyWindowVariable(  # type: ignore[assignment]
                region, inner[id(vector.base)], axes, vector.new_axes)
            continue
        if isinstance(vector, ChoiceVariable):
            inner[id(vector)] = ChoiceVariable(*(inner[id(e)] for e in elements))  # type: ignore[assignment]
            continue
        if tuples.held(vector):
            inner[id(vector)] = tuples.rebuilt(vector, [  # type: ignore[assignment]
                inner.get(id(e), e) for e in vector.items])  # type: ignore[attr-defined]
            continue
        if type(vector) is TupleVariable:  # of np.nonzero's index arrays (`nonzero.held`)
            inner[id(vector)] = TupleVariable([  # type: ignore[assignment]
                inner.get(id(e), e) for e in vector.items])  # type: ignore[misc]
            continue
        if isinstance(vector, NonzeroIndexVariable):
            count, x, *ends = (inner[id(e)].value for e in elements)
            inner[id(vector)] = NonzeroIndexVariable(  # type: ignore[assignment]
                count, Positions(x), vector.axis,
                {0: (ends[0], ends[1]), -1: (ends[2], ends[3])} if ends else None)
            continue
        if isinstance(vector, AppendedListVariable):
            inner[id(vector)] = vector.in_path(  # type: ignore[assignment]
                [inner[id(e)].value for e in elements])
            continue
        if isinstance(vector, MaskedVariable):
            values, mask = (inner[id(e)].value for e in elements)
            inner[id(vector)] = MaskedVariable(values, mask)  # type: ignore[assignment]
            continue
        # Its base, when a path can reach it, is that path's stand-in, so that a read after
        # the path updated the array refuses as outside branches.
        base = inner.get(id(vector.base)) if vector.base is not None else None
        inner[id(vector)] = VectorVariable([inner[id(e)].value for e in elements],
                                           base)  # type: ignore[assignment]
    for vt in [*tx.locals.values(), *tx.stack]:
        rows = _rows_iterated(tx, vt)
        if rows is not None and id(rows) in inner:
            inner[id(vt)] = _rows_from(tx, vt, inner[id(rows)])  # type: ignore[arg-type]
    saved_locals, saved_stack, saved_ip = dict(tx.locals), list(tx.stack), tx.ip
    # Each path runs the trips left of a loop unrolled around the branch from where they
    # stood (`through`): one path's trips must not use up the other's.
    positions = [(vt, vt.index) for vt in {id(vt): vt for vt in [*saved_stack,
                 *saved_locals.values()] if isinstance(vt, IteratorVariable)}.values()]
    tx.locals.update({n: inner.get(id(vt), vt) for n, vt in tx.locals.items()})
    tx.stack[:] = [inner.get(id(vt), vt) for vt in tx.stack]
    # A loop body's cells hold its stand-ins (`region.bind_cells`), which are locals too:
    # the path's own while it runs. A path that rebinds one rebinds its pseudo-local,
    # which the merge binds back into the cell (`bind_cells`).
    saved_cells = {name: cell.contents for name, cell in tx.cells.items()}
    for cell in tx.cells.values():
        cell.contents = inner.get(id(cell.contents), cell.contents)
    bound = inputs.bind(tx)
    tx.ip = start
    tx.tracer.paths_through += through
    try:
        with _graph_swapped(tx, region):
            if loop_exit is not None:
                from ember.capture.loops.whiles import capture_while

                capture_while(tx, start, loop_exit)
            if action is not None:
                action(tx)
            else:
                run_span(tx, start, stop, through)
        inputs.sync(tx)
        return Path(region, inner, dict(tx.locals), list(tx.stack), tx.ip)
    finally:
        tx.tracer.paths_through -= through
        for iterator, index in positions:
            iterator.index = index
        inputs.restore(tx, bound)
        for name, contents in saved_cells.items():
            tx.cells[name].contents = contents
        tx.locals.clear()
        tx.locals.update(saved_locals)
        tx.stack[:] = saved_stack
        tx.ip = saved_ip


def _broke(path: Path) -> bool:
    """Whether the path ended the loop op's trip by a `break` (its `go` false)."""
    flag = path.locals.get(GO)
    return isinstance(flag, ConstantVariable) and flag.constant() is False


def _adopt_dead_after_loop(tx: Interpreter, dead: Path, going: Path) -> None:
    """A path that left the loop by a `break` takes the other path's arrays of the frame for
    the names the code after the loop does not read (`V = V_new` after `if err < tol:
    break`): where they stand on the last trip is never seen, and binding them apart would
    refuse as an aliasing that depends on the branch."""
    from ember.capture.resume import live_locals_at

    body = enclosing_body(tx)
    if body is None or not 0 <= body.stop < len(tx.instructions):
        return
    after = set(live_locals_at(tx.code, tx.instructions[body.stop].offset))
    for name, vt in going.locals.items():
        if name in after or name.startswith(".") or dead.locals.get(name) is None:
            continue
        entry = next((k for k, inner in going.inner.items() if inner is vt), None)
        if entry is not None and entry in dead.inner:
            dead.locals[name] = dead.inner[entry]  # type: ignore[assignment]


def _value_in(path: Path, vt: VariableTracker | None) -> Value:
    if isinstance(vt, ArrayVariable) and vt.value.graph is path.region:
        return vt.value
    if (isinstance(vt, VectorVariable) and vt.base is None
            and all(e.graph is path.region for e in vt.elements)):
        # A computed short vector (`x = x + 0.01 * r` of a row product): the path's array.
        from ember.capture.loops.vectors import materialise

        return materialise(None, vt).value
    if isinstance(vt, ConstantVariable) and type(vt.constant()) in (bool, int, float):
        return path.region.const(vt.constant())
    if isinstance(vt, ConstantVariable) and isinstance(vt.constant(), (np.bool_, np.number)) \
            and not isinstance(vt.constant(), np.complexfloating):
        # A NumPy scalar made in the frame (`att = np.float32(0.9)`): a strong constant.
        return path.region.const(vt.constant())
    raise graph_break("loop_body", what="a branch that leaves a value ember cannot merge")


def _picked_arrays(tx: Interpreter, then: Path, orelse: Path, bound: tuple[Any, Any],
                   own: tuple[Any, Any], entries: list[ArrayVariable], live: set[str]
                   ) -> tuple[ArrayVariable, ArrayVariable] | None:
    """A local bound on each path to an array of the enclosing graph that neither path
    updates, one of them not its own (`y = y_new` on one path only) and handed over
    (`_handed_over`): the two arrays of the enclosing graph, for a `where` after the branch
    (the merged local is then a new array, as no one can tell)."""
    found: list[ArrayVariable] = []
    for v, mine, path in zip(bound, own, (then, orelse), strict=True):
        if not isinstance(v, BodyArray) or not v.value.shape or v.value is not v.param:
            return None
        e = next((e for e in entries if path.inner[id(e)] is v), None)
        if e is None or any(p.inner[id(e)].value is not p.inner[id(e)].param
                            for p in (then, orelse)):
            return None
        if v is not mine and not _handed_over(tx, path, v, entries, live):
            return None
        found.append(e)
    a, b = found
    if a is b or (a.value.dtype, a.value.shape) != (b.value.dtype, b.value.shape):
        return None
    return a, b


def _handed_over(tx: Interpreter, path: Path, v: BodyArray, entries: list[ArrayVariable],
                 live: set[str]) -> bool:
    """Whether `v`, bound on one path to another local's name (`y = y_new` where `err <=
    tol`), is an array the enclosing graph computed (no argument, no view, viewed by nothing),
    unchanged by the path, that no local live after the branch holds and nothing else
    reaches: no one can then tell the merged value from that object, so the name takes a
    new array as the branch's result."""
    from ember.capture.loops import swaps

    if v.value is not v.param:
        return False
    e = next((e for e in entries if path.inner[id(e)] is v), None)
    if e is None or isinstance(e, BodyArray):
        return False
    return swaps.unseen(tx, e, lambda name: name not in live)


def _merge(tx: Interpreter, cond: Value, entries: list[ArrayVariable], then: Path,
           orelse: Path, meet: int) -> None:
    _merge_paths(tx, cond, entries, then, orelse, meet)
    inputs.rebind(tx)  # an attribute a path rebound is read as the merged value


def _merge_paths(tx: Interpreter, cond: Value, entries: list[ArrayVariable], then: Path,
                 orelse: Path, meet: int) -> None:
    from ember.capture.loops import choice_merge, frame_branches, ranges, returns
    from ember.capture.resume import live_locals_at

    # Slots: (value in then, value in else, how to bind the result).
    slots: list[tuple[Value, Value, object]] = []
    for vt in entries:
        a, b = then.inner[id(vt)], orelse.inner[id(vt)]
        if a.value is not a.param or b.value is not b.param:
            slots.append((a.value, b.value, ("inplace", vt)))
    frame_branches.fill_checks(then, orelse)
    if meet == RETURNED:
        # Both paths returned from the function: its locals and stack are gone.
        finish = returns.merge_results(
            tx, cond, then, orelse, lambda vt, path: _outer_of(vt, path, entries), slots)
        if RERUN in then.locals:
            slots.append((_value_in(then, then.locals[RERUN]),
                          _value_in(orelse, orelse.locals[RERUN]), ("names", [RERUN])))
        results, record = _emit_flagged(tx, cond, entries, then, orelse, slots)
        _bind_inplace(tx, slots, results)
        if RERUN in then.locals:
            tx.locals[RERUN] = ArrayVariable(results[-1])
        finish(results)
        record()
        return
    branch = (tx.code, tx.instructions[tx.ip].offset)
    live = set(live_locals_at(tx.code, tx.instructions[meet].offset))
    if len(then.stack) != len(orelse.stack):
        raise graph_break("loop_body", what="branches that leave different stacks")
    for dead, going in ((then, orelse), (orelse, then)):
        if returns.returned(dead) and not returns.returned(going):
            returns.adopt_bindings(dead, going)
        elif _broke(dead) and not _broke(going):
            _adopt_dead_after_loop(tx, dead, going)
    returns.fill_missing(then, orelse)
    split = tuples.merge_names(then, orelse)
    stacked = tuples.merge_stack((then.stack, then.locals), (orelse.stack, orelse.locals))
    names = set(then.locals) | set(orelse.locals)
    pairs: dict[tuple[int, int], tuple[Value, Value, list]] = {}
    rebound: dict[str, VariableTracker] = {}
    selected: dict[str, tuple[ArrayVariable, ArrayVariable]] = {}
    varnames, unmerged = set(tx.code.co_varnames), set()
    for name in sorted(names):
        x, y = then.locals.get(name), orelse.locals.get(name)
        start = tx.locals.get(name)
        if x is None or y is None:
            if name in live:
                raise graph_break("loop_body", what=f"local {name!r} bound on one branch only")
            continue
        inner_x = then.inner.get(id(start)) if start is not None else None
        inner_y = orelse.inner.get(id(start)) if start is not None else None
        if x is start and y is start:
            continue
        if name not in live and name in varnames and all(
                isinstance(getattr(v, "value", None), Value) and v.value.shape == ()  # type: ignore[attr-defined]
                for v in (x, y)):
            unmerged.add(name)  # a number bound again before it is read (`v` after
            continue  # `if ...: v -= 1`): left as it was before the branch
        if x is y:
            rebound[name] = x  # one object bound on both paths (a tuple returned before)
            continue
        if x is inner_x and y is inner_y:
            continue  # the same array on both paths (updated in place or not)
        same = next((e for e in entries if then.inner[id(e)] is x
                     and orelse.inner[id(e)] is y), None)
        if same is not None:
            rebound[name] = same  # another array of the frame, the same on both paths
            continue
        own = (inner_x, inner_y)
        picked = _picked_arrays(tx, then, orelse, (x, y), own, entries, live)
        if picked is not None:
            selected[name] = picked
            continue
        for v, mine in zip((x, y), own, strict=True):
            if isinstance(v, BodyArray) and v.value.shape and (
                    v is not mine or v.value is not v.param):
                # Another array of the frame, or this one updated in place: the name's
                # aliasing would depend on the branch taken.
                raise graph_break("loop_body", what=f"local {name!r} bound to another "
                                                    "array on one branch")
        key = (id(x), id(y))
        if key not in pairs:
            pairs[key] = (*(choice_merge.parts(tx, entries, then, orelse, x, y) or (
                _value_in(then, x), _value_in(orelse, y))), [])
        pairs[key][-1].append(name)
    for *values, bound in pairs.values():
        how = ("names", bound) if len(values) == 2 else ("choice3", ("names", bound))
        slots.extend((vx, vy, how) for vx, vy in (values if len(values) == 3 else [values]))
    # A Python number one path makes a NumPy scalar (`_promoted`): True where `then` does.
    converted = {name: not vx.weak for vx, vy, bound in (p for p in pairs.values() if len(p) == 3)
                 if (vx.dtype, vx.shape) == (vy.dtype, vy.shape) and vx.weak != vy.weak
                 for name in bound}
    iterators = _iterators_back(tx, then, orelse)
    for position, (x, y) in enumerate(zip(then.stack, orelse.stack, strict=True)):
        if x is y or (id(x), id(y)) in iterators:
            continue
        slots.append((_value_in(then, x), _value_in(orelse, y), ("stack", position)))
    if frame_branches.at_frame_level(tx):
        frame_branches.check_merged(tx, then, orelse, slots, entries)
    else:
        slots[:] = [part for slot in slots for part in _choice_parts(then, orelse, slot)]
    results, record = _emit_flagged(tx, cond, entries, then, orelse, slots)
    _bind_inplace(tx, slots, results)
    ranges.note_conversions(tx, branch, converted, lambda: cond)
    merged = {_bound(slot)[1] for slot in slots if _bound(slot)[0] == "stack"}
    base_stack = [vt if k in merged else iterators.get((id(vt), id(orelse.stack[k])))
                  or _outer_of(vt, then, entries) for k, vt in enumerate(then.stack)]
    made: list[Value] = []
    for slot, result in zip(slots, results, strict=True):
        how, what = _bound(slot)
        if how == "inplace":
            continue
        new: VariableTracker = ArrayVariable(result)
        if slot[2][0] == "choice":  # type: ignore[index]
            made.append(result)
            if len(made) == 1:
                continue
            new = ChoiceVariable(ArrayVariable(cond), *(ArrayVariable(v) for v in made))
            made = []
        elif slot[2][0] == "choice3":  # type: ignore[index]
            made.append(result)  # a merged choice's flag and sides (`choice_merge`)
            if len(made) < 3:
                continue
            new = ChoiceVariable(*(ArrayVariable(v) for v in made))
            made = []
        if how == "names":
            for name in what:
                tx.locals[name] = new
        else:
            base_stack[what] = new
    for name in list(tx.locals):
        if name not in then.locals or name not in orelse.locals:
            del tx.locals[name]
    for name in then.locals:
        if name not in tx.locals and name in orelse.locals and name not in unmerged:
            tx.locals[name] = _outer_of(then.locals[name], then, entries)
    tx.locals.update(rebound)
    for name, (a, b) in selected.items():
        # One of two arrays the enclosing graph computed, as the branch picked: a new array.
        tx.locals[name] = ArrayVariable(tx.graph.op("where", [cond, a.value, b.value]))
    returns.join_items(tx)
    tuples.join(tx, split)
    tuples.join_stack(tx, base_stack, stacked)
    tx.stack[:] = base_stack
    tx.ip = meet
    record()  # its checks join the paths' merged `.rerun`


def _emit_if(tx: Interpreter, cond: Value, entries: list[ArrayVariable], then: Path,
             orelse: Path, slots: list[tuple[Value, Value, object]]) -> list[Value]:
    from ember.capture.loops import frame_branches

    slots[:] = [_promoted(then, orelse, slot) for slot in slots]
    then.region.set_outputs([s[0] for s in slots])
    orelse.region.set_outputs([s[1] for s in slots])
    # Operands neither path reads are not passed.
    kept = [k for k in range(len(entries))
            if _reads(then.region, k) or _reads(orelse.region, k)]
    for path in (then, orelse):
        path.region.inputs[:] = [path.region.inputs[k] for k in kept]
    args = [entries[k].value for k in kept]
    if frame_branches.at_frame_level(tx):
        frame_branches.hoist_allocations(tx, (then.region, orelse.region), args)
    return tx.graph.if_(cond, args, then.region, orelse.region)[:len(slots)]


def _emit_flagged(tx: Interpreter, cond: Value, entries: list[ArrayVariable], then: Path,
                  orelse: Path, slots: list[tuple[Value, Value, object]]
                  ) -> tuple[list[Value], Callable[[], None]]:
    """The `if` op of `slots`, and what makes its merged values that may be Python numbers
    picks (`_flag_slots`) inside loop bodies, to be called once the merge has bound the
    locals (the paths' `.rerun` among them); at the frame's level they never are
    (`frame_branches.check_merged`)."""
    from ember.capture.loops import frame_branches

    kept = len(slots)
    flagged = [] if frame_branches.at_frame_level(tx) else _flag_slots(then, orelse, slots)
    slots.extend(flag for _, flag in flagged)
    if not slots and any(unused_flag_raisers(p.region) for p in (then, orelse)):
        # An `if` binding nothing read later is dropped, with a temporary of a path.
        raise graph_break("loop_body", what="a temporary a branch never reads (its warnings "
                                            "would be lost)")
    results = _emit_if(tx, cond, entries, then, orelse, slots) if slots else []
    flags, merged = results[kept:], results[:kept]
    del slots[kept:], results[kept:]
    return results, lambda: _record_flagged(tx, [k for k, _ in flagged], flags, merged)


def _bind_inplace(tx: Interpreter, slots: list[tuple[Value, Value, object]],
                  results: list[Value]) -> None:
    """Arrays the paths updated in place take the `if` op's result, so aliases see it."""
    for (_, _, (how, what)), result in zip(slots, results, strict=True):
        if how == "inplace":
            what.update_in_place(result)  # type: ignore[attr-defined]
            if what.source is not None:  # type: ignore[attr-defined]
                tx.tracer.mark_mutated(what)


def _outer_of(vt: VariableTracker, path: Path, entries: list[ArrayVariable]
              ) -> VariableTracker:
    """The enclosing frame's tracker a path's stand-in came from (unchanged trackers)."""
    for outer in entries:
        if path.inner[id(outer)] is vt:
            return outer
    if isinstance(vt, ArrayVariable) and vt.value.graph is path.region:
        raise graph_break("loop_body", what="a value of one branch used after it")
    return vt


def _choice_parts(then: Path, orelse: Path, slot: tuple[Value, Value, object]
                  ) -> list[tuple[Value, Value, object]]:
    """A Python number on one path and a NumPy scalar of another dtype on the other
    (`L[i + 1, j - 1] + 2 if length > 2 else 2`, an int32 or a Python int) are kept apart,
    as NumPy keeps them: the `if` op gives both (each path a placeholder for the one it did
    not make), bound together as a `ChoiceVariable` that only its uses settle
    (`choice.settled`: `c + cost[j]`; `choice.stored`: `L[i, j] = c`); any other use of it
    refuses the loop op. A slot is then two, `("choice", (how, what))` each."""
    from ember.capture.loops.returns import placeholder

    vx, vy, how = slot
    if how[0] not in ("names", "stack") or not choice.mixed(vx, vy) or (  # type: ignore[index]
            how[0] == "names" and any(n.startswith(".") for n in how[1])):  # type: ignore[index]
        return [slot]
    return [(vx, placeholder(orelse.region, vx), ("choice", how)),
            (placeholder(then.region, vy), vy, ("choice", how))]


def _bound(slot: tuple[Value, Value, object]) -> tuple[str, object]:
    """How a slot's result is bound: `inplace`, `names` or `stack`, and to what."""
    how, what = slot[2]  # type: ignore[misc]
    return what if how in ("choice", "choice3") else (how, what)  # type: ignore[return-value]


def _promoted(then: Path, orelse: Path, slot: tuple[Value, Value, object]
              ) -> tuple[Value, Value, object]:
    """Both branches' values of a slot, of one type. A Python number on one branch and a
    NumPy scalar of the same dtype on the other (`s += limit` / `s += x[i]`) merge as the
    NumPy scalar, which is what the number becomes once the other branch has run."""
    vx, vy, how = slot
    returned = how[0] == "names" and any(  # type: ignore[index]
        n.split("#")[0] == RETVAL for n in how[1])  # type: ignore[index]
    if returned and vx.weak != vy.weak:
        # A Python number returned on one path, a NumPy scalar on the other: the frame's
        # result would change type with the path.
        raise graph_break("loop_body", what=f"returns of {vx.type_str} and {vy.type_str}")
    if (vx.dtype, vx.shape) == (vy.dtype, vy.shape) and vx.weak != vy.weak:
        if vx.weak:
            vx = then.region.op("astype", [vx], dtype=vx.dtype, scalar=True)
        else:
            vy = orelse.region.op("astype", [vy], dtype=vy.dtype, scalar=True)
    if (vx.dtype, vx.shape, vx.weak) != (vy.dtype, vy.shape, vy.weak):
        raise graph_break("loop_body", what=f"branches giving {vx.type_str} and "
                                            f"{vy.type_str}")
    return vx, vy, how


def _flag_slots(then: Path, orelse: Path, slots: list[tuple[Value, Value, object]]
                ) -> list[tuple[int, tuple[Value, Value, object]]]:
    """Per merged value that may be a Python number on the path taken (`x = a[i]` / `x =
    0.0`, or `max(x[i], 0.0)` picked on a path), the slot of its flag: per path true where
    its value is the Python number (the number itself, or the flag of its pick). The merged
    value is the NumPy scalar of that dtype; the flag makes it a pick (`_record_flagged`)."""
    from ember.capture.loops import mixed_picks

    out = []
    for k, (vx, vy, how) in enumerate(slots):
        if how[0] not in ("names", "stack", "result") or vx.shape or vx.dtype != vy.dtype or (  # type: ignore[index]
                vx.weak and vy.weak) or not mixed_picks.exact(vx):
            continue
        sides = [_python_flag(path, v) for path, v in ((then, vx), (orelse, vy))]
        if sides == [None, None]:
            continue
        flags = [f if f is not None else path.region.const(False, np.bool_, weak=False)
                 for f, path in zip(sides, (then, orelse), strict=True)]
        out.append((k, (flags[0], flags[1], ("flag", k))))
    return out


def _python_flag(path: Path, value: Value) -> Value | None:
    """Where `value`, a path's result, is a Python number: always (a weak value), where its
    pick says (passed on to the merged value's pick: `mixed_picks.pass_on`), or never."""
    from ember.capture.loops import mixed_picks

    if value.weak:
        return path.region.const(True, np.bool_, weak=False)
    flag = mixed_picks.flag_of(path.region, value)
    if flag is not None and any(p.value is value for p in mixed_picks.picks(path.region)):
        mixed_picks.pass_on(path.region, value)
        return flag
    return None


def _record_flagged(tx: Interpreter, positions: list[int], flags: list[Value],
                    results: list[Value]) -> None:
    """The merged values of `_flag_slots` are picks of the enclosing body: a use that can
    tell reruns the frame as Python where the flag is set (`mixed_picks`)."""
    from ember.capture.loops import mixed_picks

    for k, flag in zip(positions, flags, strict=True):
        mixed_picks.record(tx, results[k], flag, merged=True)


def _reads(region: Graph, k: int) -> bool:
    param = region.inputs[k]
    return any(v is param for node in region.nodes for v in node.inputs) or any(
        v is param for v in region.outputs)
