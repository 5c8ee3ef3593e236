"""Whether the lazy expressions a loop body names are read: elementwise ops on slices with
run-time bounds (`run_exprs.RunExprVariable`) and on rows at a run-time index
(`window_exprs.WindowExprVariable`) build their elements only where they are read, so one the
program names or drops and the body never reads (`t = np.log(a[i:j])`, `t` unused) would drop
its ops, and with them the warnings NumPy gives: the loop op is refused instead
(`unread_since`). Elements built only in probes (regions made to learn a dtype, or whether an
element reads a store's target, then dropped) do not count as read: only those built in the
body or a region it holds. Lazy expressions capture makes for itself are never named."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ember.graph import Graph
from ember.graph.regions import REGION_OPS, live_values


class _Made:
    """A lazy expression: whether the program named it, and the elements it built, with the
    graphs they were built in."""

    __slots__ = ("built", "named")

    def __init__(self) -> None:
        self.built: list[tuple[Graph, Any]] = []
        self.named = False


# Every lazy expression made so far, oldest first.
_MADE: list[_Made] = []


def mark() -> int:
    return len(_MADE)


def unread_since(start: int, body: Graph | None = None) -> bool:
    """Whether a lazy expression made since `mark()` was `start` was named and none of its
    elements is read in `body` (or a region it holds); forgets them."""
    made = [m for m in _MADE[start:] if m.named]
    del _MADE[start:]
    if body is None or not made:
        return False
    live: dict[int, set[int]] = {}

    def hold(graph: Graph) -> None:  # the regions of live region ops, all the way down
        live[id(graph)] = seen = live_values(graph)
        for node in graph.nodes:
            if node.op in REGION_OPS and any(id(v) in seen for v in node.results):
                for a in ("body", "then", "else"):
                    if a in node.attrs:
                        hold(node.attrs[a])

    hold(body)

    def read(graph: Graph, value: Any) -> bool:
        return id(value) in live.get(id(graph), ())

    return any(not any(read(g, v) for g, v in m.built) for m in made)


def tracked(build: Callable[..., Any]) -> Callable[..., Any]:
    """`build` (a lazy expression's element builder, called with a `_Body` first), noting
    the graphs it builds in."""
    made = _Made()
    _MADE.append(made)

    def run(body: Any, *args: Any) -> Any:
        value = build(body, *args)
        made.built.append((body.graph, value))
        return value

    run.made = made  # type: ignore[attr-defined]
    return run


def name(vt: Any) -> None:
    """Note that the program names `vt` (stores it to a local) or drops it (an expression
    statement): a graph value, or a lazy expression, never read then keeps its warnings."""
    from ember.capture.variables.array import ArrayVariable

    for attr in ("element", "at"):
        made = getattr(vt.__dict__.get(attr), "made", None)
        if made is not None:  # its elements, wherever they are built, are what it reads
            made.named = True
            return
    if isinstance(vt, ArrayVariable):
        value = vt.__dict__.get("value", vt.__dict__.get("_value"))
        if value is not None and hasattr(value, "graph"):
            value.graph.named.add(value.id)

