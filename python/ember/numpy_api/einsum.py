"""np.einsum lowered to the ops ember already compiles: transposes, reshapes, broadcast
multiplies, `sum` and `matmul`.

Operands are contracted left to right. Per operand, a label repeated inside it takes the
diagonal (`where(eye, x, 0)` summed over the repeat) and a label no other operand and not the
output uses is summed away. Each pairwise step is a batched `matmul` (labels shared and kept
are the batch, shared and not kept the inner dimension, the rest rows and columns, each group
reshaped to one dimension), a multiply summed over the inner labels where there are no rows
and columns (dot products along a batch), or, with nothing to contract, a broadcast multiply. The result is
cast to the operands' result type, which is einsum's: integer sums wrap in that type, as
NumPy's do. Float sums run in another order than NumPy's einsum loops (within rounding).

Ellipses are spelt out with unused letters. The interleaved operand form,
`out=`/`dtype=`/`casting=`, labels whose sizes differ between operands (broadcasting of size-1
dims) are left to NumPy (a graph break); malformed subscripts raise NumPy's own error.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ember.errors import Unsupported
from ember.graph import Graph, Value
from ember.graph.shapes import dim_product
from ember.numpy_api.convert import any_value, as_array, to_value
from ember.numpy_api.shape_ops import reshape_value

Labelled = tuple[Value, str]


def _numpy_error(subscripts: str, values: list[Value]) -> Exception:
    """NumPy's exception for these subscripts, found on empty stand-ins of the same ranks."""
    try:
        np.einsum(subscripts, *(np.zeros((0,) * v.ndim, v.dtype) for v in values))
    except Exception as exc:  # noqa: BLE001 -- whatever NumPy raises is the answer
        return exc
    return Unsupported(f"np.einsum({subscripts!r}) with these operand shapes")


def _expand_ellipses(subscripts: str, spec: str, values: list[Value]) -> str:
    """`...` spelt out with letters the subscripts do not use, right-aligned across operands
    (an operand with fewer broadcast dimensions takes the last of them), and in the output
    where it stands (or first, without an output)."""
    lhs, arrow, rhs = spec.partition("->")
    inputs = lhs.split(",")
    if len(inputs) != len(values) or any(s.replace("...", "", 1).count(".")
                                         for s in (*inputs, rhs)):
        raise _numpy_error(subscripts, values)
    counts = [v.ndim - (len(s) - 3) if "..." in s else 0 for s, v in zip(inputs, values,
                                                                         strict=True)]
    if min(counts) < 0:
        raise _numpy_error(subscripts, values)
    spare = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" if c not in spec]
    broadcast = "".join(spare[:max(counts)])
    inputs = [s.replace("...", broadcast[len(broadcast) - n:]) for s, n in zip(inputs, counts,
                                                                              strict=True)]
    if not arrow:
        letters = "".join(inputs).translate({ord(c): None for c in broadcast})
        rhs = broadcast + "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    elif "..." in rhs:
        rhs = rhs.replace("...", broadcast)
    elif broadcast:
        raise _numpy_error(subscripts, values)
    return ",".join(inputs) + "->" + rhs


def _parse(subscripts: str, values: list[Value]) -> tuple[list[str], str]:
    spec = subscripts.replace(" ", "")
    if "." in spec:
        spec = _expand_ellipses(subscripts, spec, values)
    lhs, arrow, rhs = spec.partition("->")
    inputs = lhs.split(",")
    letters = "".join(inputs)
    if not arrow:
        rhs = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    valid = (len(inputs) == len(values)
             and all(c.isalpha() and c.isascii() for c in letters + rhs)
             and all(len(s) == v.ndim for s, v in zip(inputs, values, strict=True))
             and len(set(rhs)) == len(rhs) and set(rhs) <= set(letters))
    if not valid:
        raise _numpy_error(subscripts, values)
    sizes: dict[str, int | str] = {}
    for s, v in zip(inputs, values, strict=True):
        for c, n in zip(s, v.shape, strict=True):
            if sizes.setdefault(c, n) != n:
                raise Unsupported("np.einsum with a label of differing sizes")
    return inputs, rhs


def _transpose(graph: Graph, x: Labelled, order: str) -> Value:
    value, labels = x
    perm = [labels.index(c) for c in order]
    if perm == list(range(len(perm))):
        return value
    return graph.op("transpose", [value], perm=perm)


def _sum(graph: Graph, value: Value, axes: list[int]) -> Value:
    return graph.op("sum", [value], axis=axes, keepdims=False) if axes else value


def _diagonal(graph: Graph, x: Labelled) -> Labelled:
    """Each repeated label reduced to one axis: the diagonal, as einsum reads it."""
    value, labels = x
    while len(set(labels)) < len(labels):
        c = next(c for c in labels if labels.count(c) > 1)
        i = labels.index(c)
        j = labels.index(c, i + 1)
        n = value.shape[i]
        rows = graph.op("expand_dims", [graph.arange(0, 1, n, np.int64)], axis=[1])
        cols = graph.op("expand_dims", [graph.arange(0, 1, n, np.int64)], axis=[0])
        eye = graph.op("eq", [rows, cols])
        shape = [1] * value.ndim
        shape[i] = shape[j] = n
        mask = reshape_value(graph, eye, tuple(shape))
        zero = graph.const(0, value.dtype, weak=False)
        value = _sum(graph, graph.op("where", [mask, value, zero]), [j])
        labels = labels[:j] + labels[j + 1:]
    return value, labels


def _diagonal_view(graph: Graph, x: Value, labels: str, output: str) -> Value | None:
    """`np.einsum('ii->i', x)`, one label twice and every label kept: NumPy hands out a
    (writeable) view of the diagonal, which is np.diagonal's with its axis where the output
    puts it."""
    from ember.numpy_api.linalg import diagonal

    twice = [c for c in set(labels) if labels.count(c) > 1]
    if len(twice) != 1 or labels.count(twice[0]) != 2 or set(output) != set(labels):
        return None
    c = twice[0]
    i, j = labels.index(c), labels.index(c, labels.index(c) + 1)
    if not all(isinstance(d, int) for d in x.shape):
        return None
    view = diagonal(graph, x, 0, i, j)
    graph.root.read_only.discard(view.id)
    order = "".join(ch for k, ch in enumerate(labels) if k not in (i, j)) + c
    result = _transpose(graph, (view, order), output)
    # Handed out as np.einsum's own (writeable) view of the argument, whatever its layout.
    opaque = graph.root.opaque_views
    opaque[:] = [entry for entry in opaque if entry[1] is not view]
    opaque.append((x, result, functools.partial(np.einsum, f"{labels}->{output}")))
    return result


def _contract(graph: Graph, a: Labelled, b: Labelled, keep: set[str]) -> Labelled:
    la, lb = a[1], b[1]
    batch = "".join(c for c in la if c in lb and c in keep)
    inner = "".join(c for c in la if c in lb and c not in keep)
    rows = "".join(c for c in la if c not in lb)
    cols = "".join(c for c in lb if c not in la)
    size = {c: a[0].shape[la.index(c)] for c in la} | {c: b[0].shape[lb.index(c)] for c in lb}
    nb = len(batch)
    if not inner:
        x = _transpose(graph, a, batch + rows)
        y = _transpose(graph, b, batch + cols)
        x = graph.op("expand_dims", [x], axis=list(range(nb + len(rows),
                                                         nb + len(rows) + len(cols))))
        y = graph.op("expand_dims", [y], axis=list(range(nb, nb + len(rows))))
        return graph.op("mul", [x, y]), batch + rows + cols
    if batch and not rows and not cols:
        # Dot products along the batch (`'ijk,ijk->ij'`): a multiply summed over the inner
        # labels, where a batched matmul would run one tiny product per batch element.
        x = _transpose(graph, a, batch + inner)
        y = _transpose(graph, b, batch + inner)
        return _sum(graph, graph.op("mul", [x, y]), list(range(nb, nb + len(inner)))), batch
    batch_shape = tuple(size[c] for c in batch)
    m, k, n = (_product([size[c] for c in group]) for group in (rows, inner, cols))
    x = reshape_value(graph, _transpose(graph, a, batch + rows + inner), (*batch_shape, m, k))
    y = reshape_value(graph, _transpose(graph, b, batch + inner + cols), (*batch_shape, k, n))
    product = graph.op("matmul", [x, y])
    full = (*batch_shape, *(size[c] for c in rows), *(size[c] for c in cols))
    return reshape_value(graph, product, full), batch + rows + cols


def _product(sizes: list[int | str]) -> int | str:
    """The size of labels grouped into one matmul axis: their product (`4*s0` for a symbolic
    label beside a static one of 4)."""
    return dim_product(sizes)


def einsum(graph: Graph, *operands: object, out: object = None, dtype: object = None,
           order: str = "K", casting: str = "safe", optimize: object = False) -> Any:
    if out is not None or dtype is not None or casting != "safe" or order not in "KCA":
        raise Unsupported("np.einsum with out=, dtype=, casting= or order=")
    if not operands or not isinstance(operands[0], str):
        raise Unsupported("np.einsum with operands and sublists interleaved")
    subscripts, arrays = operands[0], list(operands[1:])
    if not any_value(arrays):
        return np.einsum(subscripts, *arrays)  # type: ignore[arg-type]
    values = [as_array(graph, v if isinstance(v, Value) else graph.const(
        v, np.asarray(v).dtype, weak=False) if isinstance(v, (bool, int, float)) else
        to_value(graph, v, "np.einsum")) for v in arrays]
    inputs, output = _parse(subscripts, values)
    result_dtype = np.result_type(*(v.dtype for v in values))
    if len(values) == 1:
        view = _diagonal_view(graph, values[0], inputs[0], output)
        if view is not None:
            return view
    terms = [_diagonal(graph, (v, s)) for v, s in zip(values, inputs, strict=True)]
    reduced: list[Labelled] = []
    for i, (value, labels) in enumerate(terms):
        elsewhere = set(output).union(*(t[1] for j, t in enumerate(terms) if j != i))
        gone = [axis for axis, c in enumerate(labels) if c not in elsewhere]
        reduced.append((_sum(graph, value, gone),
                        "".join(c for c in labels if c in elsewhere)))
    acc = reduced[0]
    for i in range(1, len(reduced)):
        keep = set(output).union(*(t[1] for t in reduced[i + 1:]))
        acc = _contract(graph, acc, reduced[i], keep)
    result = _transpose(graph, acc, output)
    if result.dtype != result_dtype:
        result = graph.op("astype", [result], dtype=result_dtype)
    if result.ndim == 0 and not result.scalar:  # einsum returns a 0-d result as a scalar
        result = graph.op("squeeze", [result], axis=[], scalar=True)
    return result


def functions() -> dict[Any, Any]:
    return {np.einsum: einsum}
