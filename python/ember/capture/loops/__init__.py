"""Python `for` loops in capture: the unrolling cost rule, and loops captured as one `loop` op.

A `FOR_ITER` that starts a loop decides once how the loop is captured (`start_loop`):

- a loop of at most `config.unroll_max_trips` trips unrolls (its trips are traced one after
  another, as capture always did) while the ops it adds stay within `config.unroll_op_budget`;
  past that, capture starts again with it as a loop op (`LoopTooLong`), and if it cannot be
  one, it unrolls up to `config.unroll_op_limit` ops;
- a longer loop over `range(...)` or over an array's first axis whose body ember can trace is
  captured as ONE `loop` op (`capture/loops/region.py`): compile time does not grow with the
  trip count;
- otherwise it unrolls only while its first trip, times the trip count, projects within the
  budget (the limit where no loop ops are run: a differentiated function, and a loop whose
  carried array changes shape on every trip, which no loop op carries); a loop over
  budget never unrolls: the whole frame runs as plain Python with NumPy
  (the `loop_budget` break), so ember is never dramatically slower than NumPy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ember.capture.breaks import graph_break
from ember.config import config
from ember.graph import Graph

if TYPE_CHECKING:
    from ember.capture.bytecode import Instruction
    from ember.capture.flow import FlowOpcodes
    from ember.capture.interpreter import Interpreter
    from ember.capture.variables.containers import IteratorVariable
    from ember.graph.value import Node


@dataclass
class UnrollAccount:
    """What an unrolled loop has added so far, in the graph it adds to. `may_loop`: a short
    loop not yet tried as a loop op, which is tried once it goes over budget."""

    graph: Graph
    nodes_at_start: int
    first_index: int
    trips: int
    key: tuple[Any, int]
    may_loop: bool
    reshaping: bool = False  # refused as a loop op: a carried array changes shape
    done: int = 0  # trips traced

    def cheap_trips(self) -> bool:
        """Whether the trips traced so far average few ops (a break on each would cost more
        than the work it compiles)."""
        if self.trips < config.cheap_loop_trips:
            return False
        added = len(self.graph.nodes) - self.nodes_at_start
        return added < config.cheap_trip_ops * max(self.done, 1)

    def check_inside(self, index: int) -> None:
        """Mid-trip, as a nested loop starts or runs its next trip: refuse a short loop that may be a loop op as
        soon as its trips so far, the one under way counted as done, project over the
        budget. The check at the end of the trip would refuse it, having added at least these
        ops (less the one `RERUN` constant a loop op may drop), so capture starts again
        before it traces the rest of the trip (inner loops captured as loop ops, unrolled
        trips) only to throw it away."""
        if not self.may_loop or self.trips > config.unroll_max_trips:
            return
        done = index - self.first_index
        if done < 1:
            return
        added = ops_with_loop_bodies(self.graph.nodes[self.nodes_at_start:]) - 1
        if added * self.trips // done > config.unroll_op_budget:
            from ember.capture.loops.region import LoopTooLong

            raise LoopTooLong(self.key, f"{added} ops unrolled within {done} of {self.trips} "
                                        f"trips")

    def check(self, index: int) -> None:
        """Refuse once the ops added exceed the budget, or once a long loop's trips so far
        project over it. For a short loop that may be a loop op, the bodies of the loop ops
        its trips added count: a trip whose inner loop is a loop op (a window's loop nest)
        is one node of the graph, and all of its body to capture and compile."""
        added = (ops_with_loop_bodies(self.graph.nodes[self.nodes_at_start:]) if self.may_loop
                 else len(self.graph.nodes) - self.nodes_at_start)
        done = self.done = index - self.first_index
        projected = added if done == 0 else added * self.trips // done
        if self.trips > config.unroll_max_trips:
            # Without loop ops (a differentiated function, whose gradient would be lost in
            # Python) unrolling is the only way to capture the loop: up to the limit. So it
            # is for a loop whose carried array changes shape on every trip (`v = f(v[:-1],
            # v[1:])`), which no loop op carries.
            budget = config.unroll_op_budget if self.graph.root.loop_ops and not (
                self.reshaping) else config.unroll_op_limit
            over = projected > budget
        elif self.may_loop:
            # The trips so far project the rest: a short loop whose first trips already
            # project over the budget is tried as a loop op now, rather than after tracing
            # the trips that a second capture throws away.
            budget = config.unroll_op_budget
            over = projected > budget
        else:
            budget = config.unroll_op_limit
            over = added > budget
        if over and self.may_loop:
            from ember.capture.loops.region import LoopTooLong

            raise LoopTooLong(self.key, f"{added} ops unrolled over {done} of {self.trips} "
                                        f"trips")
        if over:
            raise graph_break("loop_budget", trips=self.trips, ops=max(added, projected),
                              budget=budget)


def ops_with_loop_bodies(nodes: list[Node]) -> int:
    """How many nodes, counting those of the loop ops' bodies (nested ones included)."""
    return sum(1 + (ops_with_loop_bodies(node.attrs["body"].nodes) if node.op == "loop" else 0)
               for node in nodes)


def start_loop(tx: Interpreter, inst: Instruction, iterator: IteratorVariable) -> bool:
    """Called at each `FOR_ITER`: True when the whole loop was captured as a loop op (the
    interpreter then continues after the loop); False to trace the next trip."""
    from ember.capture.loops.ranges import DynamicRangeIterator
    from ember.capture.loops.region import capture_loop, loop_key

    if isinstance(iterator, DynamicRangeIterator):
        if capture_loop(tx, inst, iterator, iterator.origin.bounds):
            return True
        raise graph_break("loop_body", what="a loop over a range() with run-time bounds")
    if iterator.source is not None:
        # A loop resumed mid-way: its FOR_ITER already runs in Python, trip by trip.
        return False
    if iterator.unroll is not None:
        iterator.unroll.check(iterator.index)
        _check_enclosing(tx, iterator)
        return False
    _check_enclosing(tx, iterator)
    trips = len(iterator.items) - iterator.index
    key = loop_key(tx, inst)
    tracer = tx.tracer
    long = trips > config.unroll_max_trips or key in tracer.long_loops
    # A loop op's trips see the item at their index of a range or an array (`region._item`):
    # other items (a tuple's, `reversed(...)`'s, `sorted(...)`'s) are unrolled.
    if long and _loopable(iterator) and capture_loop(tx, inst, iterator):
        _check_enclosing(tx, iterator)
        return True
    may_loop = (not long and tracer.loop_ops and key not in tracer.unrolled_loops
                and _loopable(iterator))
    iterator.unroll = UnrollAccount(tracer.graph, len(tracer.graph.nodes), iterator.index,
                                    trips, key, may_loop, tracer.unrolled_loops.get(key, False))
    if trips > 1:
        tracer.graph.root.unrolled_loop = True
    if trips > config.unroll_max_trips:
        tracer.long_unrolls.append(iterator.unroll)
    return False


def _check_enclosing(tx: Interpreter, iterator: IteratorVariable) -> None:
    """`UnrollAccount.check_inside` for each loop being unrolled around the loop of
    `iterator`, which starts or runs its next trip (in this frame or a caller's), into the graph being added to
    (not from a loop body or a branch traced as a region of it)."""
    from ember.capture.variables.containers import IteratorVariable

    for frame in tx.tracer.frames:
        for vt in frame.stack:
            if (vt is not iterator and isinstance(vt, IteratorVariable)
                    and vt.unroll is not None and vt.unroll.graph is tx.graph):
                vt.unroll.check_inside(vt.index)


def end_loop(tx: Interpreter, iterator: IteratorVariable) -> None:
    """FOR_ITER found `iterator` exhausted: a long unrolled loop is over."""
    account = iterator.unroll
    if account is not None and account.trips > config.unroll_max_trips:
        tx.tracer.long_unrolls.remove(account)
        iterator.unroll = None


def _loopable(iterator: IteratorVariable) -> bool:
    from ember.capture.variables.array import ArrayVariable
    from ember.capture.variables.constant import ConstantVariable

    from ember.capture.loops.vectors import VectorVariable
    from ember.capture.loops.zipped import NdEnumerate, Pairs, Product, Zipped

    origin = iterator.origin
    return isinstance(origin, (ArrayVariable, Zipped, Product, Pairs, NdEnumerate,
                               VectorVariable)) or (
        isinstance(origin, ConstantVariable) and isinstance(origin.constant(), range))


def refuse_in_loop_body(tx: FlowOpcodes, what: str) -> None:
    """Refuse a side effect on state outside the graph while a loop body is traced: the body
    is traced once for every trip, so the effect would happen once."""
    if tx.tracer.graph.parent is not None:
        raise graph_break("loop_body", what=what)


def in_cheap_while(tx: Interpreter, index: int) -> bool:
    """Whether instruction `index` lies in a `while` loop (a jump back over it to a head that
    is not a FOR_ITER) of a frame whose graph so far is small: a graph break there would
    recur on every trip, whose count capture cannot know, each costing more than the few
    NumPy ops it compiles (cost rule 4, for loops without a trip count)."""
    return len(tx.tracer.graph.nodes) < config.cheap_trip_ops and inside_while(tx, index)


def inside_while(tx: Interpreter, index: int) -> bool:
    """Whether instruction `index` lies in a `while` loop: a jump back over it to a head
    that is not a FOR_ITER."""
    from ember.capture.loops.body import loop_head

    for inst in tx.instructions[index:]:
        if not inst.opname.startswith(("JUMP_BACKWARD", "POP_JUMP_BACKWARD")):
            continue
        if inst.target is not None and inst.target <= index and (
                tx.instructions[loop_head(tx, inst.target)].opname != "FOR_ITER"):
            return True
    return False


def retry_as_loop_op(tx: Interpreter, index: int, reason: str,
                     own_loops_only: bool = False) -> None:
    """A break on an array value at instruction `index` inside a short loop being unrolled
    that was not yet tried as a loop op: capture starts again with the outermost such loop
    as one (`LoopTooLong`), whose body may hold the branch as an `if` op (or a `while` on
    loop values). Outside any such loop, a `while` of the frame's graph whose tests were
    Python values (`while i * i <= n:`), or a `while True:`, is tried as a loop op the same
    way (`whiles.python_while`, `whiles.while_true`), unless `own_loops_only` (an inlined
    frame's). No-op otherwise."""
    from ember.capture.loops.region import LoopTooLong
    from ember.capture.variables.containers import IteratorVariable

    for vt in tx.stack:
        account = vt.unroll if isinstance(vt, IteratorVariable) else None
        if account is not None and account.may_loop and _loopable(vt):
            raise LoopTooLong(account.key, reason)
    if own_loops_only or tx.graph.parent is not None or not tx.tracer.loop_ops:
        return
    from ember.capture.loops.whiles import retry_while_around

    retry_while_around(tx, index, reason)

