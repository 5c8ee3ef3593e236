"""SSA values and the nodes that define them."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from ember.graph.dtypes import ir_name
from ember.graph.shapes import Shape, static_size

if TYPE_CHECKING:
    from ember.graph.graph import Graph


class Value:
    """One SSA value of a graph: immutable after creation.

    `weak` marks a Python scalar under NEP 50 (always 0-d); `scalar` marks a 0-d result NumPy
    returns as a NumPy scalar (`np.float64`) rather than a 0-d array.
    """

    __slots__ = ("dtype", "graph", "id", "scalar", "shape", "weak")

    graph: Graph
    id: int
    dtype: np.dtype
    shape: Shape
    weak: bool
    scalar: bool

    def __init__(
        self, graph: Graph, id: int, dtype: np.dtype, shape: Shape, weak: bool, scalar: bool
    ) -> None:
        init = object.__setattr__  # the one way in: __setattr__ refuses every change
        init(self, "graph", graph)
        init(self, "id", id)
        init(self, "dtype", dtype if isinstance(dtype, np.dtype) else np.dtype(dtype))
        init(self, "shape", tuple(shape))
        init(self, "weak", weak)
        init(self, "scalar", scalar)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"Value is immutable (cannot set {name!r})")

    def __setstate__(self, state: tuple[None, dict[str, Any]]) -> None:
        # Unpickling (a graph kept in the cache directory): the slots as pickled.
        for name, value in state[1].items():
            object.__setattr__(self, name, value)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int | None:
        return static_size(self.shape)

    @property
    def type_str(self) -> str:
        """The IR type: `f32[8,1024]`, `f64[] weak`."""
        return _type_str(self.dtype, self.shape, self.weak)

    def __repr__(self) -> str:
        return f"<Value %{self.id}: {self.type_str}{' scalar' if self.scalar else ''}>"


@lru_cache(maxsize=4096)
def _type_str(dtype: np.dtype, shape: Shape, weak: bool) -> str:
    # A graph has few distinct types and prints each many times (every operand and result).
    dims = ",".join(str(d) for d in shape)
    return f"{ir_name(dtype)}[{dims}]" + (" weak" if weak else "")


@dataclass(frozen=True)
class Node:
    """`out = op(*inputs, **attrs)`; attrs are stored in the op table's print order. A
    `loop` or `if` defines several results: `out` is the first, `extra` the others."""

    op: str
    inputs: tuple[Value, ...]
    attrs: dict[str, Any] = field(hash=False)
    out: Value
    extra: tuple[Value, ...] = ()
    # Where capture was in the user's source when it added the node: (filename, line,
    # module name), so a warning NumPy gives while running it can name that line.
    where: tuple[str, int, str] | None = field(default=None, compare=False, hash=False)
    # The ufunc a floating-point warning of this node names, where it is not the node's own:
    # the cast of `a += b` into a narrower `a` happens inside NumPy's `add`.
    warns_as: str | None = field(default=None, compare=False, hash=False)
    # The NumPy call this node is one element of, where capture computed a call element by
    # element (`Graph.one_call`): NumPy's one ufunc loop warns once per category, so the
    # nodes of one call do too.
    call: int | None = field(default=None, compare=False, hash=False)
    # The `np.errstate` modes ((category, mode) pairs) of the `with` block the node was
    # captured in, over the caller's own at run time; None outside such blocks.
    errstate: tuple[tuple[str, str], ...] | None = field(default=None, compare=False,
                                                        hash=False)

    @property
    def results(self) -> tuple[Value, ...]:
        return (self.out, *self.extra)
