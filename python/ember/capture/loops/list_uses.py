"""Which lists of the frame a loop body appends to, pops from or stores into, found in its
bytecode before it is traced (`appends.enter`): `lst.append`, `lst.pop`, `q.popleft` loaded
from a local, `lst[k] = v`, a comprehension's `LIST_APPEND`, a generator's `YIELD_VALUE`."""

from __future__ import annotations

import dis
from typing import TYPE_CHECKING, Any

from ember.capture.variables.base import VariableTracker
from ember.capture.variables.containers import ListVariable

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter


def appended(tx: Interpreter, start: int, stop: int
              ) -> list[tuple[VariableTracker, frozenset[str]]]:
    """What the instructions `[start, stop)` may append to, pop from or store into, each with
    what they do to it (`append`, `pop`, `store`): locals whose `append` or `pop` they load
    or that a STORE_SUBSCR stores into, the stack's lists where they hold LIST_APPEND, a
    generator's values where they yield."""
    code = tx.instructions[start:stop]
    methods: dict[str, set[str]] = {}
    for a, b in zip(code, code[1:], strict=False):
        # `lst.append(v)`: LOAD_METHOD, or LOAD_ATTR after PUSH_NULL where the compiler
        # did not make a method call of it (code whose AST a tool rewrote, as pytest's).
        if a.opname == "LOAD_FAST" and b.opname in ("LOAD_METHOD", "LOAD_ATTR") and (
                b.argval in METHODS):
            methods.setdefault(str(a.argval), set()).add(
                "append" if b.argval == "extend" else str(b.argval))
    for a, b in zip(code, code[1:], strict=False):
        # `heapq.heappush(h, item)`, `heappop(h)`: the heap is the first argument.
        if a.opname in ("LOAD_GLOBAL", "LOAD_ATTR", "LOAD_METHOD") and (
                a.argval in HEAP_USES) and b.opname == "LOAD_FAST":
            methods.setdefault(str(b.argval), set()).add(HEAP_USES[a.argval])
    for k, inst in enumerate(code):
        if inst.opname == "STORE_SUBSCR" and (name := _stored_list(code[:k])) is not None:
            methods.setdefault(name, set()).add("store")
    held = [(vt, frozenset(methods[name])) for name, vt in tx.locals.items()
            if name in methods]
    # A comprehension's list and a generator's values start empty, or were built by an
    # earlier loop op (an inner loop's, on the trip before: `[(i, j) for i in ... for j in
    # ... if ...]`): no other list on the stack is theirs.
    if any(i.opname == "LIST_APPEND" for i in code):
        held += [(vt, APPENDS) for vt in tx.stack if _empty(vt) or _built(vt)]
    if any(i.opname == "YIELD_VALUE" for i in code) and _empty(tx.yielded):
        held.append((tx.yielded, APPENDS))  # type: ignore[arg-type]
    return held


def _empty(vt: VariableTracker | None) -> bool:
    return isinstance(vt, ListVariable) and not vt.unread and not vt.items


def _built(vt: VariableTracker | None) -> bool:
    from ember.capture.variables.appended import AppendedListVariable

    return isinstance(vt, AppendedListVariable) and not vt.iterator and not vt.deque


METHODS = ("append", "pop", "popleft", "appendleft", "extend")
HEAP_USES = {"heappush": "append", "heappop": "pop", "heapreplace": "append",
             "heappushpop": "append"}
APPENDS = frozenset({"append"})
POPS = frozenset({"pop", "popleft", "appendleft"})


def _stored_list(before: list[Any]) -> str | None:
    """The local a STORE_SUBSCR after `before` stores into (`lst[k] = v`, `lst[a[i] + 1] = v`,
    `lst[k] += v`, whose container and index are copied before the item is read): the
    LOAD_FAST whose value is the container, found as the nearest from which the index's
    straight-line code leaves exactly it and the index; None otherwise."""
    names = [i.opname for i in before]
    if names[-2:] == ["SWAP", "SWAP"]:
        reads = [k for k in range(len(names) - 2)
                 if names[k:k + 3] == ["COPY", "COPY", "BINARY_SUBSCR"]]
        if not reads:
            return None
        before = before[:reads[-1]]
    for p in range(len(before) - 2, max(len(before) - 40, -1), -1):
        if before[p].opname == "LOAD_FAST" and _leaves_two(before[p + 1:]):
            return str(before[p].argval)
    return None


def _leaves_two(code: list[Any]) -> bool:
    """Whether `code`, run after a push, leaves exactly two values above what was below it,
    never reaching below the first, without a jump."""
    depth = 1
    for inst in code:
        if "JUMP" in inst.opname or inst.opname in ("FOR_ITER", "RETURN_VALUE"):
            return False
        depth += dis.stack_effect(dis.opmap[inst.opname], inst.arg, jump=False)
        if depth < 1:
            return False
    return depth == 2
