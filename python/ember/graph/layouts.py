"""The memory order NumPy gives each graph output, from the strides of the inputs.

NumPy's results follow their operands' layout (`order='K'`): `x.T + 1` and `np.sin(f)` of a
Fortran-ordered `f` are Fortran-ordered, reductions keep the order of the axes they keep, and
`np.copy`, `astype` and the `*_like` functions keep the prototype's. Compiled graphs allocate
their outputs in the order this module works out, so `.flags` and `.strides` are NumPy's.

Two rules of NumPy decide a fresh array's axis order, and they differ where strides are
ambiguous (a broadcast input):
- ufuncs, their accumulations and reductions (`_iterator_order`) follow the nditer: an insertion sort of the axes
  by each operand's strides, where an operand with a zero stride on either axis has no say and
  C order wins any conflict between operands;
- `np.copy`, `astype`, `np.*_like` and sort (`_like_order`) follow
  `PyArray_NewLikeArray`: C or F order when the prototype is contiguous that way, otherwise
  its axes by decreasing absolute stride, stably.
Views (transpose, slices, broadcasts, expand/squeeze) permute, scale or drop their operand's
strides; `reshape` keeps a view's order when NumPy could reshape it without a copy. Products,
creation, gathers and everything else are C order, as NumPy's are; a loop's or an `if`'s
result has the order each trip or path gives it where that is the order it started with.

Every value is tracked as strides in arbitrary units (only their order and zeros matter); an
output comes out as its axes from slowest to fastest. Outputs NumPy would return with negative
strides (a reversed view of a temporary) are allocated with positive ones: a compiled output
always owns dense memory. The graph records the rule a `copy`/`astype`/`full` node follows in
`Graph.layouts` (value id -> "like" with a prototype id, "map", "c" or "f"; "alias" with the id
of the array an in-place op wrote it into, whose strides it keeps); the default is the op's
NumPy meaning.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ember.graph.graph import Graph

Strides = tuple[int, ...]

_LIKE_OPS = {"sort", "sort_default"}  # a copy (order K), sorted in place
_SCANS = {"cumsum", "cumprod"}  # ufunc accumulations: the nditer's order


def _extents(shape: Sequence[int | str]) -> list[int]:
    # A symbolic dim is at least 2 (0 and 1 are specialised), which is all the order needs.
    return [d if isinstance(d, int) else 2 for d in shape]


class _Dense(tuple):
    """The strides of a fresh array, with its axis order (which size-1 axes make ambiguous
    in the strides alone, and which NumPy's strides for them follow)."""

    order: tuple[int, ...]


def _dense(order: Sequence[int], shape: Sequence[int | str]) -> Strides:
    """Strides of a fresh array whose axes, slowest first, are `order`."""
    extents = _extents(shape)
    strides = [0] * len(extents)
    step = 1
    for axis in reversed(order):
        strides[axis] = step
        step *= max(extents[axis], 1)
    dense = _Dense(strides)
    dense.order = tuple(order)
    return dense


def c_strides(shape: Sequence[int | str], itemsize: int) -> Strides:
    """C-order byte strides (symbolic dims counted as 2)."""
    return tuple(s * itemsize for s in _dense(range(len(shape)), shape))


def _iterator_order(operands: Sequence[Strides], shape: Sequence[int | str],
                    shapes: Sequence[Sequence[int | str]] | None = None) -> list[int]:
    """The nditer's axis order (slowest first) for operands (of `shapes`, default `shape`)
    broadcast to `shape` (`npyiter_find_best_axis_ordering`): an axis an operand has extent
    1 in (broadcast or not) counts as stride 0 for it."""
    ndim = len(shape)
    aligned = []
    for k, strides in enumerate(operands):
        own = shape if shapes is None else shapes[k]
        pad = [0] * (ndim - len(strides)) + list(strides)
        extents = [1] * (ndim - len(own)) + _extents(own)
        aligned.append([0 if extents[a] == 1 else pad[a] for a in range(ndim)])
    # The iterator keeps its axes fastest first: internal axis i is axis ndim - 1 - i.
    perm = list(range(ndim))
    for i0 in range(1, ndim):
        ipos = i0
        j0 = ndim - 1 - perm[i0]
        for i1 in range(i0 - 1, -1, -1):
            j1 = ndim - 1 - perm[i1]
            ambiguous, swap = True, False
            for strides in aligned:
                s0, s1 = strides[j0], strides[j1]
                if s0 != 0 and s1 != 0:
                    if abs(s1) <= abs(s0):
                        swap = False  # C order wins a conflict between operands
                    elif ambiguous:
                        swap = True
                    ambiguous = False
            if not ambiguous:
                if swap:
                    ipos = i1
                else:
                    break
        if ipos != i0:
            moved = perm[i0]
            perm[ipos + 1:i0 + 1] = perm[ipos:i0]
            perm[ipos] = moved
    return [ndim - 1 - p for p in reversed(perm)]


def _contiguous(strides: Strides, shape: Sequence[int | str], order: Sequence[int]) -> bool:
    extents = _extents(shape)
    expected = _dense(order, shape)
    return all(extents[a] <= 1 or strides[a] == expected[a] for a in range(len(shape)))


def _like_order(strides: Strides, shape: Sequence[int | str]) -> list[int]:
    """`PyArray_NewLikeArray`'s order for `order='K'` (slowest first)."""
    ndim = len(shape)
    c_order = list(range(ndim))
    if _contiguous(strides, shape, c_order):
        return c_order
    if ndim > 1 and _contiguous(strides, shape, c_order[::-1]):
        return c_order[::-1]
    return sorted(c_order, key=lambda a: -abs(strides[a]))


def _reshape_view(strides: Strides, old: Sequence[int | str], new: Sequence[int | str]
                  ) -> Strides | None:
    """The strides NumPy's `reshape` gives a view (`_attempt_nocopy_reshape`), or None when
    it must copy (the copy is then C order). Symbolic and empty shapes count as copies: only
    their C order is known to be a view."""
    if not all(isinstance(d, int) and d > 0 for d in (*old, *new)):
        return None
    olddims = [d for d in _extents(old) if d != 1]
    oldstrides = [s for d, s in zip(_extents(old), strides, strict=True) if d != 1]
    newdims = _extents(new)
    newstrides = [0] * len(newdims)
    oi, oj, ni, nj = 0, 1, 0, 1
    while ni < len(newdims) and oi < len(olddims):
        np_, op_ = newdims[ni], olddims[oi]
        while np_ != op_:
            if np_ < op_:
                np_ *= newdims[nj]
                nj += 1
            else:
                op_ *= olddims[oj]
                oj += 1
        for ok in range(oi, oj - 1):
            if oldstrides[ok] != olddims[ok + 1] * oldstrides[ok + 1]:
                return None
        newstrides[nj - 1] = oldstrides[oj - 1]
        for nk in range(nj - 1, ni, -1):
            newstrides[nk - 1] = newstrides[nk] * newdims[nk]
        ni, nj, oi, oj = nj, nj + 1, oj, oj + 1
    return tuple(newstrides)


def _order_of(strides: Strides) -> list[int]:
    """Axes slowest first by decreasing absolute stride (ties keep C order)."""
    return sorted(range(len(strides)), key=lambda a: -abs(strides[a]))


def output_orders(graph: Graph, input_strides: Sequence[Strides]) -> list[list[int]]:
    """For each output of `graph`, its axes from slowest to fastest in the array NumPy would
    return, given the byte strides of the inputs."""
    arg_strides = []
    for value, strides in zip(graph.inputs, input_strides, strict=True):
        size = value.dtype.itemsize  # in elements, as the strides of fresh values are
        arg_strides.append(tuple(s // size if s % size == 0 else s for s in strides))
    orders = []
    for value, strides in zip(graph.outputs, _output_strides(graph, arg_strides), strict=True):
        if value.ndim <= 1:
            orders.append(list(range(value.ndim)))
        else:
            orders.append(_axes(strides))
    return orders


def _axes(strides: Strides) -> list[int]:
    return list(getattr(strides, "order", None) or _order_of(strides))


def _output_strides(graph: Graph, arg_strides: Sequence[Strides]) -> list[Strides]:
    """The strides (in elements) of `graph`'s outputs, given its inputs'."""
    known: dict[int, Strides] = {v.id: s for v, s in zip(graph.inputs, arg_strides)}
    hints = getattr(graph, "layouts", {})
    for node in graph.nodes:
        out = node.out
        rule = hints.get(out.id)
        args = [known.get(v.id, _dense(range(v.ndim), v.shape)) for v in node.inputs]
        known[out.id] = _node_strides(node, args, rule, known)
        if node.op in ("loop", "if"):
            for result, strides in zip(node.results, _region_results(node, args)):
                if result.ndim > 1 and result.id not in hints and strides is not None:
                    known[result.id] = strides
    return [known.get(v.id, _dense(range(v.ndim), v.shape)) for v in graph.outputs]


def _region_results(node, args: list[Strides]) -> list[Strides | None]:
    """The strides of a loop's or an `if`'s results, where NumPy's are known: a carried array
    only stored into is the array it started as; one rebound (`a = a + 1`) or picked by an
    `if` has the layout each trip (each path) gives it, where that is the one it started
    with (every path the same). Elsewhere None (C order)."""
    if node.op == "if":
        then, orelse = (_output_strides(node.attrs[a], args[1:]) for a in ("then", "else"))
        return [x if len(x) > 1 and _axes(x) == _axes(y) else None
                for x, y in zip(then, orelse, strict=True)]
    body, carried = node.attrs["body"], node.attrs["carried"]
    inits = args[3:3 + carried]
    found: list[Strides | None] = []
    trip = _output_strides(body, [(), *inits, *args[3 + carried:]])[1:]
    for k, init in enumerate(inits):
        if len(init) > 1 and _in_place(body, 1 + k, 1 + k):
            found.append(init)
        elif len(init) > 1 and _axes(trip[k]) == _axes(init):
            found.append(trip[k])
        else:
            found.append(None)
    return found


def _in_place(region: Graph, result: int, param: int) -> bool:
    """Whether output `result` of `region` is its input `param` with elements stored into it
    (`store`s, and loops and ifs that do the same), the array NumPy updates in place."""
    producers = {v.id: (n, k) for n in region.nodes for k, v in enumerate((n.out, *n.extra))}
    value = region.outputs[result]
    while value.id != region.inputs[param].id:
        found = producers.get(value.id)
        if found is None:
            return False
        node, k = found
        if node.op == "store":
            value = node.inputs[0]
        elif node.op == "loop" and _in_place(node.attrs["body"], 1 + k, 1 + k):
            value = node.inputs[3 + k]
        elif node.op == "if":
            sources = {next((q for q in range(len(r.inputs)) if _in_place(r, k, q)), None)
                       for r in (node.attrs["then"], node.attrs["else"])}
            if len(sources) != 1 or None in sources:
                return False
            value = node.inputs[1 + sources.pop()]
        else:
            return False
    return True


def _node_strides(node, args: list[Strides], rule, known: dict[int, Strides]) -> Strides:
    op, out, attrs = node.op, node.out, node.attrs
    shape = out.shape
    shapes = [v.shape for v in node.inputs]
    c_order = list(range(out.ndim))
    if out.ndim <= 1:
        return _dense(c_order, shape)
    if rule is not None:
        if rule == "c":
            return _dense(c_order, shape)
        if rule == "f":
            return _dense(c_order[::-1], shape)
        if rule == "map":
            return _dense(_iterator_order(args, shape, shapes), shape)
        if rule[0] == "alias" and len(known.get(rule[1], ())) == out.ndim:
            return known[rule[1]]  # written into that array in place: its own strides
        if rule[0] == "index" and rule[1] in known:
            return _dense(_index_order(known[rule[1]], rule[2]), shape)
        if rule[0] == "like" and rule[1] in known:
            proto = known[rule[1]]
            if len(proto) == out.ndim:
                return _dense(_like_order(proto, shape), shape)
        return _dense(c_order, shape)
    kind = _kind(op)
    if kind == "elementwise" or op in _SCANS:
        return _dense(_iterator_order(args, shape, shapes), shape)
    if op in ("store", "scatter_add") and len(args[0]) == out.ndim:
        return args[0]  # the array stored into, updated in place
    if op == "copy" or op in _LIKE_OPS:
        return _dense(_like_order(args[0], node.inputs[0].shape), shape)
    if kind == "reduction":
        return _reduced(node, args[0])
    if op == "transpose":
        return tuple(args[0][p] for p in attrs["perm"])
    if op == "expand_dims":
        strides = list(args[0])
        for axis in sorted(attrs["axis"]):
            strides.insert(axis, 0)
        return tuple(strides)
    if op == "squeeze":
        return tuple(s for a, s in enumerate(args[0]) if a not in attrs["axis"])
    if op == "broadcast_to":
        pad = [0] * (out.ndim - len(args[0])) + list(args[0])
        src = [1] * (out.ndim - len(args[0])) + _extents(node.inputs[0].shape)
        return tuple(0 if src[a] == 1 else pad[a] for a in range(out.ndim))
    if op == "slice":
        return tuple(s * step for s, step in zip(args[0], attrs["step"], strict=True))
    if op == "flip":
        return tuple(-s if a in attrs["axis"] else s for a, s in enumerate(args[0]))
    if op == "reshape":
        return _reshape_view(args[0], node.inputs[0].shape, shape) or _dense(c_order, shape)
    if op == "concatenate":
        orders = {tuple(_like_order(a, v.shape)) for a, v in zip(args, node.inputs, strict=True)}
        return _dense(list(orders.pop()) if len(orders) == 1 else c_order, shape)
    return _dense(c_order, shape)


def _index_order(strides: Strides, dims: Sequence[tuple[str, int]]) -> list[int]:
    """Advanced indexing's result: the index dims outermost (in their own order), then the
    kept axes in the order of the array's strides."""
    outer = [p for p, (kind, _) in enumerate(dims) if kind == "index"]
    kept = [(p, j) for p, (kind, j) in enumerate(dims) if kind == "axis"]
    kept.sort(key=lambda item: -abs(strides[item[1]]))
    return outer + [p for p, _ in kept]


def _kind(op: str) -> str:
    from ember.graph.ops import OPS

    opdef = OPS.get(op)
    return opdef.kind if opdef is not None else "other"


def _reduced(node, strides: Strides) -> Strides:
    """A reduction's result keeps the nditer order of its input's axes."""
    source = node.inputs[0]
    axis = node.attrs.get("axis")
    if axis is None:
        axes = set(range(source.ndim))
    elif isinstance(axis, int):
        axes = {axis % source.ndim}
    else:
        axes = {a % source.ndim for a in axis}
    order = _iterator_order([strides], source.shape)
    if node.attrs.get("keepdims"):
        kept_shape = [1 if a in axes else d for a, d in enumerate(source.shape)]
        return _dense(order, kept_shape)
    kept = [a for a in range(source.ndim) if a not in axes]
    renumber = {a: i for i, a in enumerate(kept)}
    return _dense([renumber[a] for a in order if a in renumber], node.out.shape)



def input_strides(args: Sequence[object]) -> list[Strides]:
    return [tuple(np.asarray(a).strides) for a in args]


def _in_order(a: np.ndarray, order: Sequence[int]) -> bool:
    """Whether `a` is dense with its axes in `order` (axes of extent 1 aside)."""
    step = a.itemsize
    for axis in reversed(order):
        if a.shape[axis] != 1:
            if a.strides[axis] != step:
                return False
            step *= a.shape[axis]
    return True


def arrange(graph: Graph, args: Sequence[object], outputs: Sequence[np.ndarray]
            ) -> tuple[np.ndarray, ...]:
    """`outputs` of a graph run op by op, each copied into NumPy's order for it where it
    came out in another (a loop op's result, a fresh copy made in C order)."""
    if not any(v.ndim > 1 for v in graph.outputs):
        return tuple(outputs)
    orders = output_orders(graph, input_strides(args))
    arranged = []
    for out, order in zip(outputs, orders, strict=True):
        if isinstance(out, np.ndarray) and out.ndim > 1 and out.size \
                and not _in_order(out, order):
            placed = np.empty([out.shape[a] for a in order], out.dtype)
            placed = placed.transpose(np.argsort(order))
            np.copyto(placed, out)
            out = placed
        arranged.append(out)
    return tuple(arranged)
