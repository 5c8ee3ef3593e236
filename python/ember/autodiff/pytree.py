"""Pytrees: nested dicts, lists, tuples and namedtuples whose leaves are arrays, NumPy scalars
and Python numbers. `flatten` lists the leaves in a fixed order with a tree definition that
`unflatten` rebuilds from new leaves."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class TreeDef:
    """The structure of a pytree: a node kind, how to rebuild it, and its children."""

    kind: str  # "leaf", "dict", "list", "tuple", "namedtuple", "none"
    meta: Any
    children: tuple[TreeDef, ...]

    @property
    def num_leaves(self) -> int:
        if self.kind == "leaf":
            return 1
        return sum(child.num_leaves for child in self.children)


def flatten(tree: Any) -> tuple[list[Any], TreeDef]:
    """The leaves of `tree` (dicts in key order) and its structure."""
    leaves: list[Any] = []
    return leaves, _flatten(tree, leaves)


def _flatten(tree: Any, leaves: list[Any]) -> TreeDef:
    if tree is None:
        return TreeDef("none", None, ())
    if isinstance(tree, dict):
        keys = tuple(tree)
        return TreeDef("dict", (type(tree), keys),
                       tuple(_flatten(tree[k], leaves) for k in keys))
    if isinstance(tree, tuple) and hasattr(tree, "_fields"):
        return TreeDef("namedtuple", type(tree), tuple(_flatten(x, leaves) for x in tree))
    if isinstance(tree, (list, tuple)):
        return TreeDef(type(tree).__name__ if type(tree) in (list, tuple) else "tuple",
                       type(tree), tuple(_flatten(x, leaves) for x in tree))
    leaves.append(tree)
    return TreeDef("leaf", None, ())


def unflatten(treedef: TreeDef, leaves: Sequence[Any]) -> Any:
    """The pytree of structure `treedef` with these leaves."""
    it = iter(leaves)
    tree = _unflatten(treedef, it)
    if next(it, _END) is not _END:
        raise ValueError("more leaves than the tree structure holds")
    return tree


_END = object()


def _unflatten(treedef: TreeDef, it: Any) -> Any:
    kind = treedef.kind
    if kind == "leaf":
        return next(it)
    if kind == "none":
        return None
    children = [_unflatten(c, it) for c in treedef.children]
    if kind == "dict":
        cls, keys = treedef.meta
        return cls(zip(keys, children, strict=True))
    if kind == "namedtuple":
        return treedef.meta(*children)
    return treedef.meta(children)


def map_leaves(fn: Callable[[Any], Any], tree: Any) -> Any:
    leaves, treedef = flatten(tree)
    return unflatten(treedef, [fn(x) for x in leaves])
