"""Whether the lazy expressions a loop body makes are read: elementwise ops on slices with
run-time bounds (`run_exprs.RunExprVariable`) and on rows at a run-time index
(`window_exprs.WindowExprVariable`) build their elements only where they are read, so one the
body never reads (`t = np.log(a[i:j])`, `t` unused) would drop its ops, and with them the
warnings NumPy gives: the loop op is refused instead (`unread_since`). Elements built only
in probes (regions made to learn a dtype, or whether an element reads a store's target, then
dropped) do not count as read: only those built in the body or a region it holds."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ember.graph import Graph
from ember.graph.regions import region_funcs

# For each lazy expression made so far, the graphs its elements were built in (by `id`).
_BUILT: list[set[int]] = []


def mark() -> int:
    return len(_BUILT)


def unread_since(start: int, body: Graph | None = None) -> bool:
    """Whether a lazy expression made since `mark()` was `start` was never read in `body`
    (or a region it holds); forgets them."""
    made = _BUILT[start:]
    del _BUILT[start:]
    if body is None or not made:
        return False
    held = {id(body), *(id(g) for g in region_funcs(body))}
    return any(not (graphs & held) for graphs in made)


def tracked(build: Callable[..., Any]) -> Callable[..., Any]:
    """`build` (a lazy expression's element builder, called with a `_Body` first), noting
    the graphs it builds in."""
    graphs: set[int] = set()
    _BUILT.append(graphs)

    def run(body: Any, *args: Any) -> Any:
        graphs.add(id(body.graph))
        return build(body, *args)

    return run
