"""The eager backend: run a graph node by node with NumPy. The reference every test compares
against, so each op calls the NumPy function it means, with NumPy's own evaluation order."""

from __future__ import annotations

import functools
import types
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ember.backends import fp_warnings
from ember.backends.eager_regions import run_func
from ember.backends.scalar_overflow import SCALAR_OPERATORS, checks_overflow
from ember.errors import BackendError
from ember.graph import OPS, Graph, Node, Value, layouts
from ember.graph.dtypes import weak_python_type
from ember.graph.shapes import dim_terms, is_symbol, python_slice
from ember.quiet import no_warnings

Array = Any  # an ndarray, a NumPy scalar, or a Python scalar for weak values


def _slice(x: Array, start: list[int], stop: list[int], step: list[int]) -> Array:
    index = tuple(map(python_slice, start, stop, step))
    return np.asarray(x)[index]


def _arange(dtype: np.dtype, shape: tuple[int, ...], start: float, step: float) -> Array:
    # np.arange fills `start + i*delta` in the result dtype; a stop half a step past the last
    # element gives exactly the recorded length.
    (n,) = shape
    stop = start + n * step if isinstance(start + step, int) else start + (n - 0.5) * step
    out = np.arange(start, stop, step, dtype=dtype)
    if out.shape != shape:
        raise BackendError(f"arange({start}, step={step}) gave {out.shape[0]} elements, not {n}")
    return out


def _packed_lstsq(a: Array, b: Array, rcond: Array) -> Array:
    """The `lstsq` op: solution, residuals (NaN where NumPy gives none) and singular values,
    flattened, for a matrix of full rank; another rank fails, as the native step does."""
    x, residuals, rank, s = np.linalg.lstsq(a, b, rcond=float(rcond))
    if rank != min(a.shape):
        raise np.linalg.LinAlgError("lstsq of a matrix below full rank")
    if not residuals.size:
        residuals = np.full(b.shape[1], np.nan)
    return np.concatenate([x.ravel(), residuals, s])


def _packed_svd(x: Array, full: bool) -> Array:
    u, s, vh = np.linalg.svd(x, full_matrices=full)
    batch = x.shape[:-2]
    return np.concatenate([u.reshape(*batch, -1), s, vh.reshape(*batch, -1)], axis=-1)


def _packed_eigh(x: Array, uplo: str) -> Array:
    values, vectors = np.linalg.eigh(x, UPLO=uplo)
    return np.concatenate([values[..., None, :], vectors], axis=-2)


# How each non-ufunc op runs; elementwise and reduction ops call the OpDef's NumPy function.
_RUNNERS: dict[str, Callable[..., Array]] = {
    "where": lambda node, c, x, y: np.where(c, x, y),
    "astype": lambda node, x: np.asarray(x).astype(node.attrs["dtype"]),
    "const": lambda node: node.attrs["value"],
    "full": lambda node, shape: np.full(shape, node.attrs["value"], node.out.dtype),
    "arange": lambda node, shape: _arange(node.out.dtype, shape, node.attrs["start"],
                                          node.attrs["step"]),
    "eye": lambda node, shape: np.eye(*shape, k=node.attrs["k"], dtype=node.out.dtype),
    "argmax": lambda node, x: np.argmax(x, axis=node.attrs["axis"],
                                        keepdims=node.attrs["keepdims"]),
    "argmin": lambda node, x: np.argmin(x, axis=node.attrs["axis"],
                                        keepdims=node.attrs["keepdims"]),
    "reshape": lambda node, shape, x: np.reshape(x, shape),
    "transpose": lambda node, x: np.transpose(x, node.attrs["perm"]),
    "broadcast_to": lambda node, shape, x: np.broadcast_to(x, shape),
    "expand_dims": lambda node, x: np.expand_dims(x, tuple(node.attrs["axis"])),
    "squeeze": lambda node, x: np.squeeze(x, tuple(node.attrs["axis"])),
    "slice": lambda node, x: _slice(x, node.attrs["start"], node.attrs["stop"],
                                    node.attrs["step"]),
    "flip": lambda node, x: np.flip(x, tuple(node.attrs["axis"])),
    "concatenate": lambda node, *xs: np.concatenate(xs, axis=node.attrs["axis"]),
    "matmul": lambda node, x, y: np.matmul(x, y),
    "copy": lambda node, x: np.array(x, copy=True),
    "cumsum": lambda node, x: np.cumsum(x, axis=node.attrs["axis"]),
    "cumprod": lambda node, x: np.cumprod(x, axis=node.attrs["axis"]),
    "sort": lambda node, x: np.sort(x, axis=node.attrs["axis"], kind="stable"),
    "argsort": lambda node, x: np.argsort(x, axis=node.attrs["axis"], kind="stable"),
    "sort_default": lambda node, x: np.sort(x, axis=node.attrs["axis"]),
    "argsort_default": lambda node, x: np.argsort(x, axis=node.attrs["axis"]),
    "gather": lambda node, x, *idx: x[(slice(None),) * node.attrs["axis"] + idx],
    "scatter_add": lambda node, shape, u, *idx: _scatter_add(node, shape, u, idx),
    "solve": lambda node, a, b: np.linalg.solve(a, b),
    "inv": lambda node, x: np.linalg.inv(x),
    "det": lambda node, x: np.linalg.det(x),
    "slogdet": lambda node, x: np.stack(np.linalg.slogdet(x), axis=-1),
    "cholesky": lambda node, x: np.linalg.cholesky(x),
    "cholesky_upper": lambda node, x: np.linalg.cholesky(x, upper=True),
    "lstsq": lambda node, a, b, rcond: _packed_lstsq(a, b, rcond),
    "svd": lambda node, x: _packed_svd(x, True),
    "svd_reduced": lambda node, x: _packed_svd(x, False),
    "svdvals": lambda node, x: np.linalg.svd(x, compute_uv=False),
    "eigh": lambda node, x: _packed_eigh(x, "L"),
    "eigh_upper": lambda node, x: _packed_eigh(x, "U"),
    "eigvalsh": lambda node, x: np.linalg.eigvalsh(x),
    "eigvalsh_upper": lambda node, x: np.linalg.eigvalsh(x, UPLO="U"),
}


def _scatter_add(node: Node, shape: tuple[int, ...], updates: Array,
                 indices: tuple[Array, ...]) -> Array:
    out = np.zeros(shape, node.out.dtype)
    np.add.at(out, (slice(None),) * node.attrs["axis"] + indices, updates)
    return out


def _reduce(node: Node, x: Array) -> Array:
    axis = node.attrs["axis"]
    fn = OPS[node.op].numpy
    assert fn is not None
    return fn(x, axis=None if axis is None else tuple(axis), keepdims=node.attrs["keepdims"])


# Ops whose target shape may hold symbols: the runner gets it with the symbols' sizes.
_SHAPED = {"full": None, "arange": None, "eye": None, "reshape": "shape",
           "broadcast_to": "shape", "scatter_add": "shape"}


def run_node(node: Node, args: Sequence[Array], sizes: dict[str, int] | None = None, *,
             defer: bool = False, out: np.ndarray | None = None) -> Array:
    """One node's result: a Python scalar for weak values, else an array or NumPy scalar.
    `sizes` gives the symbolic dims' sizes (bound from the inputs by `run`). With `defer`
    (the ufunc part of a ufunc whose output NumPy casts in its loop, `a *= b`) the warnings
    it raised wait for the cast's node, which gives them with its own, as NumPy's one loop
    does. `out`: the array a ufunc's node writes its result into (see `ufunc_out`)."""
    rec = fp_warnings.recorder()
    try:
        if node.errstate:
            with fp_warnings.node_errstate(node.errstate):
                result = _run_in_errstate(node, args, sizes, out, rec)
        else:  # no block of its own: the caller's modes (a loop body runs this per trip)
            result = _run_in_errstate(node, args, sizes, out, rec)
    except FloatingPointError as exc:
        if node.warns_as is None:
            raise
        text = str(exc).rpartition(" in ")[0]
        if rec is not None and rec.pending:
            rec.drop_after(exc)
            rec.give(node.where, lambda: _compute(node, args, sizes, out), _ufunc_name(node),
                     node.warns_as)
        if node.warns_as.startswith("scalar "):
            raise FloatingPointError(fp_warnings.named_for_scalar_math(str(exc), node.warns_as)
                                     ) from None
        raise FloatingPointError(f"{text} in {node.warns_as}") from None
    if rec is not None and rec.pending and not defer:
        rec.give(node.where, lambda: _compute(node, args, sizes, out), _ufunc_name(node),
                 node.warns_as, node.call, node)
    return result


def _run_in_errstate(node: Node, args: Sequence[Array], sizes: dict[str, int] | None,
                     out: np.ndarray | None, rec: fp_warnings.Recorder | None) -> Array:
    if node.out.weak:
        # Python numbers' arithmetic never warns (an overflow is inf, `inf - inf` NaN);
        # where Python raises instead, capture added a check that reruns the frame.
        with np.errstate(all="ignore"):
            return _compute(node, args, sizes, out)
    if rec is not None and node.op in _numpy_python_ops():
        with rec.as_caller():
            return _compute(node, args, sizes, out)
    return _compute(node, args, sizes, out)


@functools.cache
def _numpy_python_ops() -> frozenset[str]:
    """Ops whose NumPy function is written in Python (reductions, `cumsum`): their warnings
    come from NumPy's own frames."""
    python_level = set()
    for name, opdef in OPS.items():
        impl = getattr(opdef.numpy, "_implementation", opdef.numpy)
        if isinstance(impl, types.FunctionType):
            python_level.add(name)
    return frozenset(python_level)


def _ufunc_name(node: Node) -> str:
    fn = OPS[node.op].numpy
    return "cast" if node.op == "astype" else getattr(fn, "__name__", node.op)


def ufunc_out(node: Node) -> bool:
    """Whether `node` is a plain ufunc call that can take an `out=` array."""
    return (isinstance(OPS[node.op].numpy, np.ufunc) and node.op not in _SHAPED
            and node.op not in _RUNNERS and OPS[node.op].kind != "reduction"
            and not checks_overflow(node) and not node.out.weak)


def _compute(node: Node, args: Sequence[Array], sizes: dict[str, int] | None,
             out_array: np.ndarray | None = None) -> Array:
    opdef = OPS[node.op]
    if node.op in _SHAPED:
        attr = _SHAPED[node.op]
        dims = node.out.shape if attr is None else node.attrs[attr]
        shape = tuple(_bound(d, sizes) if sizes else d for d in dims)
        result = _RUNNERS[node.op](node, shape, *args)
    elif node.op in _RUNNERS:
        result = _RUNNERS[node.op](node, *args)
    elif opdef.kind == "reduction":
        result = _reduce(node, *args)
    elif checks_overflow(node):
        # NumPy's scalar math, which warns where an integer result wraps
        result = SCALAR_OPERATORS[node.op](*(a if isinstance(a, (bool, int)) else
                                             np.asarray(a)[()] for a in args))
    else:
        assert opdef.numpy is not None, node.op
        result = opdef.numpy(*args) if out_array is None else opdef.numpy(*args, out=out_array)
    out = node.out
    if out.weak:
        return weak_python_type(out.dtype)(np.asarray(result).item())
    if node.op == "const":
        return out.dtype.type(result)
    got = np.asarray(result)
    if got.dtype == out.dtype and got.shape == out.shape:
        return result  # static dims, as the graph says (the common case: no symbol to bind)
    expected = tuple(d if type(d) is int else _bound(d, sizes or {}) for d in out.shape)
    if got.dtype != out.dtype or got.shape != expected:
        raise BackendError(
            f"eager: {node.op} gave {got.dtype}{list(got.shape)}, the graph says {out.type_str}"
        )
    return result


def _bound(dim: int | str, sizes: dict[str, int]) -> int:
    """A dim's size in this call (`2*s0-1` given `s0`'s size); -1 where a symbol of it is
    unbound."""
    terms, constant = dim_terms(dim)
    if any(s not in sizes for product in terms for s in product):
        return -1
    return constant + sum(c * int(np.prod([sizes[s] for s in p])) for p, c in terms.items())


def _input(value: Value, arg: Any, sizes: dict[str, int]) -> Array:
    """An input as the ops take it, binding its symbolic dims to their sizes."""
    if value.weak:
        return weak_python_type(value.dtype)(np.asarray(arg).item())
    arr = np.asarray(arg)
    ok = arr.dtype == value.dtype and arr.ndim == value.ndim
    for dim, size in zip(value.shape, arr.shape, strict=False):
        if is_symbol(dim):
            # A symbol stands for 2 or more (guards keep 0 and 1 static; a view the entry
            # takes relies on this check: `variables/slices.py`).
            ok = ok and size >= 2 and sizes.setdefault(dim, size) == size
        elif isinstance(dim, str):
            ok = ok and size >= 2 and _bound(dim, sizes) in (-1, size)
        else:
            ok = ok and dim == size
    if not ok:
        raise BackendError(f"eager: input {arr.dtype}{list(arr.shape)} where the graph takes "
                           f"{value.type_str}")
    return arr


def run(graph: Graph, *args: Any) -> tuple[np.ndarray, ...]:
    """Evaluate the graph; every output comes back as an ndarray (0-d ones included)."""
    if len(args) != len(graph.inputs):
        raise TypeError(f"graph {graph.name} takes {len(graph.inputs)} inputs, got {len(args)}")
    from ember import _core

    sizes: dict[str, int] = {}
    inputs = [_input(v, a, sizes) for v, a in zip(graph.inputs, args, strict=True)]
    # The graph's ops are NumPy's, never user code: no frame they run needs the frame hook,
    # which would otherwise see every frame of NumPy's Python functions (a loop op's trips
    # ran several times slower for it).
    previous = _core.enable(0)
    try:
        with fp_warnings.attributed(hold=graph.frame_fallback):
            results, _ = run_func(graph, inputs, sizes, [False] * len(inputs))
    finally:
        _core.enable(previous)
    return tuple(np.asarray(r) for r in results)


def run_checked(graph: Graph, *args: Any) -> tuple[np.ndarray, ...]:
    """`run`, where a failed check (`Graph.checks`) gives no warning of this run's own: the
    frame then runs as Python, which gives its own (or raises instead). A graph with checks
    runs quietly first, and again with its warnings where none failed. So does a graph whose
    frame runs as Python when it raises (`Graph.frame_fallback`) where a floating-point flag
    may raise: the warnings of nodes before the raising one would come twice."""
    if graph.checks:
        with np.errstate(all="ignore"):
            quiet = run(graph, *args)
        if any(bool(quiet[k]) for k in graph.checks):
            return quiet
    if graph.frame_fallback and _may_raise(graph):
        with no_warnings():
            run(graph, *args)
    return run(graph, *args)


def _may_raise(graph: Graph) -> bool:
    """Whether a floating-point flag may raise in a run: the caller's errstate or one of the
    graph's `np.errstate` blocks raises for some category."""
    return bool(graph.errstate_acts) or "raise" in np.geterr().values()


def compile(graph: Graph, example_inputs: Sequence[Any]) -> Callable[..., tuple[np.ndarray, ...]]:
    """The backend entry point: `compile(graph, example_inputs)(*arrays) -> tuple of arrays`."""
    del example_inputs  # eager evaluation needs nothing from them

    def compiled(*args: Any) -> tuple[np.ndarray, ...]:
        return layouts.arrange(graph, args, run_checked(graph, *args))

    return compiled


def as_python_results(values: Sequence[Value], arrays: Sequence[np.ndarray]) -> tuple[Any, ...]:
    """What the user's code sees: outputs flagged `scalar` become NumPy scalars (`out[()]`),
    weak ones Python scalars, the rest stay arrays."""
    results: list[Any] = []
    for value, arr in zip(values, arrays, strict=True):
        if value.weak:
            results.append(weak_python_type(value.dtype)(np.asarray(arr).item()))
        elif value.scalar:
            results.append(np.asarray(arr)[()])
        else:
            results.append(arr)
    return tuple(results)
