"""Array manipulation built from slices, broadcasts and joins: repeat, tile, split, pad, take,
diff, insert. Each follows NumPy's own definition, so results are copies of the same elements."""

from __future__ import annotations

import itertools
import operator
from typing import Any

import numpy as np

from ember.errors import Unsupported
from ember.graph import Graph, Value
from ember.graph.shapes import dim_product, normalize_axis
from ember.numpy_api import take as take_module
from ember.numpy_api.convert import NO_VALUE, known_ints, static_int, static_number, to_value
from ember.numpy_api.indexing import getitem
from ember.numpy_api.shape_ops import array_arg, concatenate, reshape_value
from ember.quiet import quiet


def repeat(graph: Graph, a: object, repeats: object, axis: object = None) -> Value:
    """Each element `repeats` times along `axis`: a new axis after it, broadcast, merged."""
    x = array_arg(graph, a, "np.repeat")
    if isinstance(repeats, (list, tuple)):
        raise Unsupported("np.repeat with a sequence of repeat counts")
    r = static_int(repeats, "np.repeat")
    if axis is None:
        x = reshape_value(graph, x, (-1,))
        ax = 0
    else:
        ax = normalize_axis(static_int(axis, "np.repeat"), x.ndim)
    if r < 0:
        raise ValueError("negative dimensions are not allowed")
    shape = x.shape
    spread = graph.op("expand_dims", [x], axis=[ax + 1])
    wide = graph.op("broadcast_to", [spread], shape=[*shape[:ax + 1], r, *shape[ax + 1:]])
    return graph.op("reshape", [wide],
                    shape=[*shape[:ax], dim_product((shape[ax], r)), *shape[ax + 1:]])


def tile(graph: Graph, A: object, reps: object) -> Value:
    """np.tile: A (with leading 1s up to len(reps) dims) repeated whole along each axis, as
    one broadcast of the shape (t0, s0, t1, s1, ...) merged pairwise."""
    reps_tuple = tuple(reps) if isinstance(reps, (list, tuple)) else (reps,)
    tup = tuple(static_int(t, "np.tile") for t in reps_tuple)
    x = array_arg(graph, A, "np.tile")
    if len(tup) > x.ndim:
        x = reshape_value(graph, x, (1,) * (len(tup) - x.ndim) + x.shape)
    tup = (1,) * (x.ndim - len(tup)) + tup
    shape = x.shape
    if any(t < 0 for t in tup):
        raise ValueError("negative dimensions are not allowed")
    if all(t == 1 for t in tup):
        return graph.op("copy", [x])
    pairs = [d for s in shape for d in (1, s)]
    wide = graph.op("broadcast_to", [reshape_value(graph, x, tuple(pairs))],
                    shape=[d for s, t in zip(shape, tup, strict=True) for d in (t, s)])
    return graph.op("reshape", [wide],
                    shape=[dim_product((s, t)) for s, t in zip(shape, tup, strict=True)])


def _split(graph: Graph, what: str, ary: object, indices_or_sections: object, axis: object,
           equal: bool) -> list[Value]:
    x = array_arg(graph, ary, what)
    ax = normalize_axis(static_int(axis, what), x.ndim)
    total = x.shape[ax]
    if isinstance(total, str):
        raise Unsupported(f"{what} along symbolic dimension {total!r}")
    if isinstance(indices_or_sections, Value) and indices_or_sections.ndim == 1:
        # Split points the graph computes from constants (`np.cumsum(sizes)[:-1]`).
        indices_or_sections = known_ints(indices_or_sections, what).tolist()
    if isinstance(indices_or_sections, (list, tuple)):
        points = [0, *(static_int(i, what) for i in indices_or_sections), total]
    else:
        sections = static_int(indices_or_sections, what)
        if equal and total % sections:  # ZeroDivisionError for 0 sections, as NumPy's `%`
            raise ValueError("array split does not result in an equal division")
        if sections <= 0:
            raise ValueError("number sections must be larger than 0.")
        each, extras = divmod(total, sections)
        sizes = [0] + extras * [each + 1] + (sections - extras) * [each]
        points = [sum(sizes[:i + 1]) for i in range(len(sizes))]
    lead = (slice(None),) * ax
    return [getitem(graph, x, (*lead, slice(start, stop)))
            for start, stop in itertools.pairwise(points)]


def split(graph: Graph, ary: object, indices_or_sections: object, axis: object = 0
          ) -> list[Value]:
    return _split(graph, "np.split", ary, indices_or_sections, axis, equal=True)


def array_split(graph: Graph, ary: object, indices_or_sections: object, axis: object = 0
                ) -> list[Value]:
    return _split(graph, "np.array_split", ary, indices_or_sections, axis, equal=False)


def _pad_pairs(pad_width: object, ndim: int) -> list[tuple[int, int]]:
    """NumPy's _as_pairs for pad widths: n, (n,), (before, after) or one pair per axis."""
    width = np.asarray(pad_width)
    if width.dtype.kind not in "iu":
        raise TypeError("`pad_width` must be of integral type.")
    if width.size and width.min() < 0:
        raise ValueError("index can't contain negative values")
    pairs = np.broadcast_to(width, (ndim, 2))
    return [(int(a), int(b)) for a, b in pairs.tolist()]


def pad(graph: Graph, array: object, pad_width: object, mode: object = "constant",
        **kwargs: object) -> Value:
    """np.pad with mode="constant" (blocks of the fill value joined on each side), "edge",
    "wrap", "reflect" or "symmetric" (slices of the array, flipped for the last two), axis by
    axis as NumPy pads. Pads wider than the array in the last three are left to NumPy, which
    repeats them."""
    options = {"constant": {"constant_values"}, "edge": set(), "wrap": set(),
               "reflect": set(), "symmetric": set()}
    if mode not in options or set(kwargs) - options[mode]:  # type: ignore[index]
        raise Unsupported(f"np.pad with mode={mode!r} and {sorted(kwargs)}")
    x = padded = array_arg(graph, array, "np.pad")
    fill = None
    if mode == "constant":
        fill = static_number(kwargs.get("constant_values", 0), "np.pad")
        # NumPy stores the value through np.asarray and an unsafe cast (300 -> 44 in uint8).
        with quiet():
            fill = np.asarray(fill).astype(x.dtype).item()
    for axis, (before, after) in enumerate(_pad_pairs(pad_width, x.ndim)):
        if not before and not after:
            continue
        sides = [_pad_block(graph, x, axis, width, mode, fill, side)  # type: ignore[arg-type]
                 for side, width in (("before", before), ("after", after))]
        joined = [p for p in (sides[0], x, sides[1]) if p is not None]
        x = graph.op("concatenate", joined, axis=axis)
    if x is padded:
        return graph.op("copy", [x])  # no padding: still a new array, as NumPy's
    return x


def _pad_block(graph: Graph, x: Value, axis: int, width: int, mode: str, fill: object,
               side: str) -> Value | None:
    """The `width` elements np.pad puts on one side of `x` along `axis`."""
    if not width:
        return None
    shape = list(x.shape)
    shape[axis] = width
    if mode == "constant":
        return graph.full(shape, fill, x.dtype)  # type: ignore[arg-type]
    if isinstance(x.shape[axis], str):
        return _symbolic_pad_block(graph, x, axis, width, mode, side, tuple(shape))
    n = int(x.shape[axis])
    if n == 0:
        raise Unsupported(f"np.pad with mode={mode!r} of an empty axis")
    before = side == "before"
    # The range taken, and whether it is flipped: `edge` repeats one element.
    start, stop, flip = {
        "edge": (0, 1, False) if before else (n - 1, n, False),
        "wrap": (n - width, n, False) if before else (0, width, False),
        "reflect": (1, width + 1, True) if before else (n - 1 - width, n - 1, True),
        "symmetric": (0, width, True) if before else (n - width, n, True),
    }[mode]
    if start < 0 or stop > n or (mode == "reflect" and n == 1):
        raise Unsupported(f"np.pad with mode={mode!r} wider than the array")
    block = getitem(graph, x, (slice(None),) * axis + (slice(start, stop),))
    if flip:
        block = graph.op("flip", [block], axis=[axis])
    if mode == "edge":
        block = graph.op("broadcast_to", [block], shape=tuple(shape))
    return block


def _symbolic_pad_block(graph: Graph, x: Value, axis: int, width: int, mode: str, side: str,
                        shape: tuple[int | str, ...]) -> Value:
    """`_pad_block` along an axis of symbolic size: the same slices with the bounds after the
    axis's end counted from it (`x[-1:]`, `x[-width - 1:-1]`), each of which records the
    least size its symbol must have (a smaller size compiles static, where NumPy's
    repetition of pads wider than the array is left to NumPy)."""
    before = side == "before"
    start, stop, flip = {
        "edge": (0, 1, False) if before else (-1, None, False),
        "wrap": (-width, None, False) if before else (0, width, False),
        "reflect": (1, width + 1, True) if before else (-width - 1, -1, True),
        "symmetric": (0, width, True) if before else (-width, None, True),
    }[mode]
    block = getitem(graph, x, (slice(None),) * axis + (slice(start, stop),))
    # `x[-1:]` of a size below its bound would be shorter: each bound must lie inside the axis
    graph.require_size(x.shape[axis], max(abs(start), abs(stop or 0)))
    if flip:
        block = graph.op("flip", [block], axis=[axis])
    if mode == "edge":
        block = graph.op("broadcast_to", [block], shape=shape)
    return block


def take(graph: Graph, a: object, indices: object, axis: object = None, out: object = None,
         mode: str = "raise") -> Value:
    """np.take: indexing with `indices` along `axis` (the flattened array without one);
    index arrays computed at run time are gathers (`take.py`)."""
    if out is not None:
        raise Unsupported("np.take with out=")
    x = array_arg(graph, a, "np.take")
    if isinstance(indices, Value):
        return take_module.take(graph, x, indices, axis, mode)
    if mode != "raise":
        raise Unsupported("np.take of static indices with mode=")
    if axis is None:
        x = reshape_value(graph, x, (-1,))
        ax = 0
    else:
        ax = normalize_axis(static_int(axis, "np.take"), x.ndim)
    index = list(indices) if isinstance(indices, (list, tuple)) else operator.index(indices)
    return getitem(graph, x, (*(slice(None),) * ax, index))


def diff(graph: Graph, a: object, n: object = 1, axis: object = -1, prepend: object = NO_VALUE,
         append: object = NO_VALUE) -> Value:
    """np.diff: `a[1:] - a[:-1]` along `axis`, n times (`!=` for bool), of `a` with `prepend`
    and `append` joined on (a 0-d one broadcast to one slice of the axis)."""
    order = static_int(n, "np.diff")
    x = to_value(graph, a, "np.diff")
    if order == 0:
        return x
    if order < 0:
        raise ValueError(f"order must be non-negative but got {order!r}")
    if x.ndim == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    ax = normalize_axis(static_int(axis, "np.diff"), x.ndim)
    ends = [array_arg(graph, end, "np.diff") if end is not NO_VALUE else None
            for end in (prepend, append)]
    if any(end is not None for end in ends):
        one_slice = (*x.shape[:ax], 1, *x.shape[ax + 1:])
        ends = [graph.op("broadcast_to", [end], shape=one_slice) if end is not None and
                end.ndim == 0 else end for end in ends]
        x = concatenate(graph, [v for v in (ends[0], x, ends[1]) if v is not None], ax)
    lead = (slice(None),) * ax
    op = "ne" if x.dtype == np.bool_ else "sub"
    for _ in range(order):
        x = graph.op(op, [getitem(graph, x, (*lead, slice(1, None))),
                          getitem(graph, x, (*lead, slice(None, -1)))])
    return x


def insert(graph: Graph, arr: object, obj: object, values: object,
           axis: object = None) -> Value:
    """np.insert at one index known while tracing: `values`, cast to the array's dtype and
    broadcast to the slices it fills (NumPy's `ndmin` and moveaxis), joined between the two
    parts. Index lists, slices and run-time indices are left to NumPy."""
    x = array_arg(graph, arr, "np.insert")
    if axis is None:
        x = reshape_value(graph, x, (-1,))
        ax = 0
    else:
        ax = normalize_axis(static_int(axis, "np.insert"), x.ndim)
    if isinstance(obj, (bool, np.bool_)) or not isinstance(obj, (int, np.integer, Value)):
        raise Unsupported("np.insert at a sequence or slice of indices")
    index = static_int(obj, "np.insert")
    n = x.shape[ax]
    if isinstance(n, str) and index != 0:
        raise Unsupported("np.insert into an axis of symbolic length past its start")
    if not isinstance(n, str) and not -n <= index <= n:
        raise IndexError(f"index {index} is out of bounds for axis {ax} with size {n}")
    index += n if index < 0 else 0  # type: ignore[operator]
    v = array_arg(graph, values, "np.insert")
    if v.dtype != x.dtype:
        v = graph.op("astype", [v], dtype=x.dtype)
    if v.ndim < x.ndim:
        v = reshape_value(graph, v, (*[1] * (x.ndim - v.ndim), *v.shape))
    if v.ndim > x.ndim:
        raise Unsupported("np.insert of values with more dimensions than the array")
    if v.ndim and ax:
        order = [*range(1, ax + 1), 0, *range(ax + 1, v.ndim)]
        v = graph.op("transpose", [v], perm=order)
    shape = (*x.shape[:ax], v.shape[ax] if v.ndim else 1, *x.shape[ax + 1:])
    v = graph.op("broadcast_to", [v], shape=shape)
    lead = (slice(None),) * ax
    parts = [getitem(graph, x, (*lead, slice(None, index))), v,
             getitem(graph, x, (*lead, slice(index, None)))]
    return concatenate(graph, [p for p in parts if p.shape[ax] != 0] or [v], ax)


def copyto(graph: Graph, dst: object, src: object, casting: object = "same_kind",
           where: object = True) -> Value:
    """`dst` after np.copyto: `src` broadcast to its shape and cast to its dtype (NumPy's
    casting check, by a dry run on 0-d arrays of the same kinds), kept where `where` is
    false. The capture writes it into `dst` (`IN_PLACE`)."""
    d = to_value(graph, dst, "np.copyto")
    if not isinstance(casting, str):
        raise Unsupported("np.copyto with a non-constant casting=")
    if isinstance(src, Value):
        example: object = np.zeros((), src.dtype)
        s = src
    elif isinstance(src, (bool, int, float, np.generic)):
        example = src
        s = graph.const(src, None if isinstance(src, np.generic) else
                        {bool: np.bool_, int: np.int64, float: np.float64}[type(src)],
                        weak=not isinstance(src, np.generic))
    else:
        raise Unsupported("np.copyto from a non-array source")
    with quiet():
        np.copyto(np.zeros((), d.dtype), example, casting=casting)  # NumPy's TypeError
    if tuple(s.shape) != tuple(d.shape):
        np.broadcast_shapes(tuple(s.shape), tuple(d.shape))  # NumPy's ValueError
        if np.broadcast_shapes(tuple(s.shape), tuple(d.shape)) != tuple(d.shape):
            raise ValueError(f"could not broadcast input array from shape {tuple(s.shape)} "
                             f"into shape {tuple(d.shape)}")
        s = graph.op("broadcast_to", [s], shape=list(d.shape))
    if s.dtype != d.dtype or s.weak:
        s = graph.op("astype", [s], dtype=d.dtype)
    if where is True:
        return s
    mask = to_value(graph, where, "np.copyto")
    if mask.dtype != np.bool_:
        raise TypeError("Cannot cast array data from dtype('{}') to dtype('bool') according "
                        "to the rule 'safe'".format(mask.dtype))
    return graph.op("where", [mask, s, d])


def fill_diagonal(graph: Graph, a: object, val: object, wrap: object = False) -> Value:
    """`a` after np.fill_diagonal with one value: `a[k, k, ...] = val` for every `k` below
    the shortest axis, which are NumPy's flat steps of `a.shape[1] + 1` (up to
    `a.shape[1] ** 2` without `wrap=`). The capture writes it into `a` (`IN_PLACE`)."""
    from ember.numpy_api.assignment import _converted, setitem

    d = to_value(graph, a, "np.fill_diagonal")
    if d.ndim < 2:
        raise ValueError("array must be at least 2-d")
    if any(isinstance(size, str) for size in d.shape):
        # A matrix of symbolic sizes: the diagonal below the shorter side, `eye`'s mask
        # (the same with `wrap=` for a square one, whose diagonal never wraps).
        if d.ndim != 2 or not isinstance(wrap, (bool, np.bool_)) or (
                wrap and d.shape[0] != d.shape[1]):
            raise Unsupported("np.fill_diagonal of an array with symbolic dimensions")
        if isinstance(val, Value) and val.shape or not isinstance(
                val, (Value, bool, int, float, np.bool_, np.integer, np.floating)):
            raise Unsupported("np.fill_diagonal with an array of values")
        mask = graph.eye(d.shape[0], d.shape[1], 0, np.bool_)
        return graph.op("where", [mask, _converted(graph, val, d.dtype), d])
    shape = tuple(int(size) for size in d.shape)
    if d.ndim > 2 and len(set(shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    if not isinstance(wrap, (bool, np.bool_)):
        raise Unsupported("np.fill_diagonal with a non-constant wrap=")
    if wrap and d.ndim == 2 and shape[0] > shape[1] + 1:
        raise Unsupported("np.fill_diagonal with wrap=True of a tall matrix")
    if isinstance(val, Value) and val.shape or not isinstance(
            val, (Value, bool, int, float, np.bool_, np.integer, np.floating)):
        raise Unsupported("np.fill_diagonal with an array of values")
    n = min(shape)
    if n == 0:
        return d
    diagonal = graph.arange(0, 1, n, np.int64)
    return setitem(graph, d, (diagonal,) * d.ndim, val)


def functions() -> dict[Any, Any]:
    return {
        np.repeat: repeat, np.tile: tile, np.split: split, np.array_split: array_split,
        np.pad: pad, np.take: take, np.diff: diff, np.copyto: copyto, np.insert: insert,
        np.fill_diagonal: fill_diagonal,
    }


def methods() -> dict[str, Any]:
    return {"repeat": repeat, "take": take}
