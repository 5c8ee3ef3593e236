"""`ember.grad`, `ember.value_and_grad` and `ember.vjp`: reverse-mode autodiff of NumPy
functions, JAX-style, over pytrees of float arrays and Python floats.

The function is captured by ember (its graphs compiled through the joint graph and the min-cut
partitioner, see `ember.autodiff.tape`), run once forward while a tape records each graph run,
and the tape is run backward. Python floats among the differentiated arguments reach the
function as they are (weak, as NumPy takes them: a float32 loss stays float32), as run-time
values of its graphs, and get float gradients; integer and bool values carry no
gradient and are refused as differentiated arguments.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Sequence
from types import CodeType
from typing import Any

import numpy as np

from ember import _core
from ember import api as ember_api
from ember.autodiff import inline, pytree
from ember.autodiff.tape import Tape, Taped, active_tapes, backward
from ember.capture import policy
from ember.capture.breaks import WHOLE_FRAME_KINDS
from ember.errors import GraphBreakError, RegionsRejected, Unsupported
from ember.graph import Graph
from ember.markers import ember_attribute

# The compile options of differentiated functions and their frame-hook token, per backend.
_options: dict[str, tuple[policy.Options, int]] = {}
_backends: dict[str, Callable[[Graph, Sequence[Any]], Taped]] = {}


def _taped_backend(name: str) -> Callable[[Graph, Sequence[Any]], Taped]:
    """The capture backend of differentiated functions: one callable per plain backend, so
    that their entries are cached apart from ordinary compiled ones."""
    backend = _backends.get(name)
    if backend is None:
        def backend(graph: Graph, example_inputs: Sequence[Any]) -> Taped:
            if any(node.op in ("loop", "if") for node in graph.nodes):
                # Loop and if ops have no gradient rule: capture unrolls the loops instead.
                raise RegionsRejected(f"graph @{graph.name}: differentiated graphs unroll loops")
            return Taped(graph, name)

        backend.__name__ = f"autodiff_{name}"
        backend.differentiates = True  # type: ignore[attr-defined]
        # Loop and if ops have no gradient rules: loops unroll, and NumPy functions lowered
        # to element loops (gathers, sorts) are refused rather than differentiated as zero.
        backend.runs_loop_ops = False  # type: ignore[attr-defined]
        _backends[name] = backend
    return backend


# Graph breaks after which NumPy work on differentiated arrays would run in Python, unseen:
# a differentiated function refuses them with a clear error instead of a wrong gradient.
# (Branches on values and `float(x)` are fine: those values are constants; other Python
# code in between, such as logging, is left alone.)
# A loop too long to unroll makes the whole frame run as plain Python, unseen as well.
_UNDIFFERENTIABLE_BREAKS = frozenset({"numpy", "inplace", *WHOLE_FRAME_KINDS})

# Refusals of a call itself (of the callable, a method read from an object, an argument's
# type, a function marked with `ember.disable`, run in Python unseen), rather than of reading
# an array's values (`float(x)`, whose result is a constant).
_OPAQUE_KINDS = frozenset({"call", "attribute", "type", "disabled"})


# Errors raised in Python from the user's line (NumPy's for these inputs, or the function's
# own `raise`). Uncaught, they reach the caller as they are; a frame with a handler, this one
# or one of the differentiated function's frames that called it, may catch them and go on in
# Python, unseen, so there they are refused.
_RAISING_BREAKS = frozenset({"user_error", "raise"})
_EMBER_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _caller_may_catch() -> bool:
    """Whether a frame between the differentiated function's entry (`_captured`'s wrapper)
    and the frame being captured has an exception handler. The frame being captured is not on
    the stack yet (the frame hook runs before it); ember's own frames, and the entries it
    generates, are passed over."""
    frame = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        if code.co_filename.startswith((_EMBER_DIR, "<ember")):
            if code is _ENTRY_CODE:
                return False
        elif code.co_exceptiontable:
            return True
        frame = frame.f_back
    return False


def _refuse_in_gradient(exc: Unsupported, code: CodeType) -> str | None:
    if exc.kind in _RAISING_BREAKS:
        if not code.co_exceptiontable and not _caller_may_catch():
            # A function inlined there with a handler (`logging`'s cache lookup) may catch it.
            states = getattr(exc, "frame_states", None) or ()
            tapes = active_tapes()
            if tapes and not any(state.code.co_exceptiontable for state in states):
                exc.expected_to_raise = True  # type: ignore[attr-defined]
                filename, lineno = getattr(exc, "location", None) or (code.co_filename, None)
                tapes[-1].expected_errors.append((f"{filename}:{lineno}", exc))
            return None
        return ("a differentiated function that may catch this error would go on in Python, "
                "where its gradient would be lost; test the condition with NumPy operations "
                "(np.where, a bounds check) rather than catching the error")
    if exc.kind == "numpy" and getattr(exc, "call_on_constants", False):
        # A NumPy call on constants alone (`np.triu_indices(n, 1)`): run in Python, its
        # result is a constant of the function, whose gradient it cannot carry.
        return None
    numpy_call = exc.kind == "call" and ("numpy" in exc.reason or "ndarray" in exc.reason)
    # A call ember cannot capture (math.fsum, functools.reduce, np.logaddexp.reduce) whose
    # result is computed in Python from the function's arrays: that result would be a constant.
    opaque_call = exc.kind in _OPAQUE_KINDS and getattr(exc, "returns_from_arrays", False)
    if exc.kind not in _UNDIFFERENTIABLE_BREAKS and not numpy_call and not opaque_call:
        return None
    generator = getattr(exc, "generator", None)
    if generator is not None:
        return (f"the generator {generator}() breaks the graph in its body, so it runs in "
                "Python, where the gradient of what it yields would be lost; build a list "
                "instead, or move the print, float(x) or other break out of the generator")
    if exc.kind == "disabled":
        return ("a differentiated function cannot use what a function marked with "
                "ember.disable computes from its arrays: it runs in Python, where its gradient "
                "would be lost; remove ember.disable to differentiate it")
    return ("a differentiated function cannot run this in Python, where its gradient would be "
            "lost; use NumPy operations ember captures (docs/IR.md)")


def _captured(fn: Callable, backend: str) -> Callable:
    """`fn` compiled for differentiation: its graphs go to the taped backend, shapes are
    static, and breaks that would lose gradients raise GraphBreakError."""
    original = ember_attribute(fn, "__ember_original__", fn)
    found = _options.get(backend)
    if found is None:
        opts = policy.Options(backend=_taped_backend(backend), dynamic=False, weak_floats=True,
                              refuse_break=_refuse_in_gradient)
        found = _options[backend] = (opts, policy.token_for(opts))
    opts, token = found
    ember_api._install()
    swap, enable = _core.swap_options, _core.enable

    def compiled(*args: Any, **kwargs: Any) -> Any:
        outer = swap(opts)
        previous = enable(token)
        try:
            return original(*args, **kwargs)
        finally:
            enable(previous)
            swap(outer)

    return compiled


_ENTRY_CODE = next(c for c in _captured.__code__.co_consts
                   if isinstance(c, CodeType) and c.co_name == "compiled")


def _hook_off(fn: Callable) -> Callable:
    """Run `fn` with the frame hook off: called inside a compiled function, ember's own
    bookkeeping must not be captured (`fn`'s frames are, under their own options)."""

    @functools.wraps(fn)
    def without_hook(*args: Any, **kwargs: Any) -> Any:
        previous = _core.enable(False)
        try:
            return fn(*args, **kwargs)
        finally:
            _core.enable(previous)

    return without_hook


class _Leaf:
    """A differentiated leaf: what the function receives and how its gradient is returned."""

    __slots__ = ("array", "kind", "original")

    def __init__(self, original: Any, where: str, seen: set[int]) -> None:
        self.original = original
        if isinstance(original, float):
            # The function gets a Python float, weak as in NumPy (`float32 * s` stays
            # float32), followed by identity: a new object, so that an equal float passed
            # elsewhere (often the very same constant object) is not taken for it.
            self.kind, self.array = "float", _tracked_float(original)
        elif isinstance(original, np.generic) and original.dtype.kind == "f":
            self.kind, self.array = "scalar", np.asarray(original)
        elif isinstance(original, np.ndarray) and original.dtype.kind == "f":
            # The same array twice gets a copy: leaves are told apart by identity.
            self.kind = "array"
            self.array = original.copy() if id(original) in seen else original
        else:
            raise TypeError(f"cannot differentiate with respect to {where} of type "
                            f"{type(original).__name__}"
                            f"{'' if not hasattr(original, 'dtype') else ' ' + str(original.dtype)}"
                            ": only float arrays and Python floats carry gradients")
        seen.add(id(self.array))

    def gradient(self, cot: Any) -> Any:
        if cot is None:
            cot = np.zeros_like(self.array)
        if self.kind == "float":
            return _tracked_float(cot)
        if self.kind == "scalar":
            return self.original.dtype.type(cot)
        return cot


def _tracked_float(value: Any) -> float:
    """`value` as a new Python float object that an outer tape (grad of grad) still
    follows."""
    result = float(value) * 1.0
    for tape in active_tapes():
        origin = tape.lookup(value)
        if origin is not None:
            tape.watch(result, origin)
    return result


def _argnums(argnums: int | Sequence[int], nargs: int) -> tuple[int, ...]:
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    for i in nums:
        if not isinstance(i, int) or not -nargs <= i < nargs:
            raise ValueError(f"argnums {argnums!r} out of range for {nargs} positional "
                             "argument(s)")
    return tuple(i % nargs for i in nums)


def _forward(fn: Callable, args: tuple[Any, ...], kwargs: dict[str, Any],
             argnums: tuple[int, ...], backend: str):
    """Run `fn` on a tape; returns (tape, output, leaves, treedefs per argnum)."""
    args_list = list(args)
    leaves: list[_Leaf] = []
    treedefs = []
    seen: set[int] = set()
    for i in argnums:
        flat, treedef = pytree.flatten(args_list[i])
        mine = [_Leaf(x, f"argument {i}", seen) for x in flat]
        args_list[i] = pytree.unflatten(treedef, [leaf.array for leaf in mine])
        leaves += mine
        treedefs.append((treedef, len(mine)))
    tape = Tape()
    try:
        for k, leaf in enumerate(leaves):
            tape.watch(leaf.array, (-1, k))
        with tape:
            out = _captured(fn, backend)(*args_list, **kwargs)
        if tape.failure is not None:
            raise tape.failure
        if tape.expected_errors:
            where, exc = tape.expected_errors[0]
            raise GraphBreakError(
                f"{where}: capture expected this line to raise ({exc.reason}), but Python ran "
                "it without an error: the rule that refused it is wrong, and what Python "
                "computed there would carry no gradient") from exc
    except ValueError as exc:
        if "read-only" not in str(exc):
            raise
        raise ValueError(
            f"{getattr(fn, '__qualname__', fn)!s} updates in place an array its gradient "
            "depends on (a differentiated argument, a value computed from one, or an array "
            "the backward pass reads); write `x = x * 2` rather than `x *= 2`") from exc
    finally:
        tape.release()
    return tape, out, leaves, treedefs


def _gradients(tape: Tape, seeds: list[tuple[Any, Any]], leaves: list[_Leaf], treedefs,
               backend: str) -> list[Any]:
    origins = []
    for obj, seed in seeds:
        origin = tape.lookup(obj)
        if origin is not None:
            origins.append((origin, seed))
    cots = backward(tape, origins, backend)
    grads = [leaf.gradient(cots.get((-1, k))) for k, leaf in enumerate(leaves)]
    trees = []
    start = 0
    for treedef, count in treedefs:
        trees.append(pytree.unflatten(treedef, grads[start:start + count]))
        start += count
    return trees


def _scalar_seed(value: Any) -> Any:
    if np.ndim(value) != 0 or np.asarray(value).dtype.kind != "f":
        raise TypeError("grad requires a function returning a float scalar, got "
                        f"{type(value).__name__} of shape {np.shape(value)}")
    return np.ones((), dtype=np.asarray(value).dtype)


def value_and_grad(fn: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False, *,
                   backend: str = "cranelift") -> Callable:
    """`fn`'s value and its gradient with respect to the arguments `argnums` (pytrees of
    float arrays and floats): `(value, grad)`, or `((value, aux), grad)` with `has_aux`."""
    key = ("value_and_grad", _key(argnums), has_aux, backend)
    made = _wrapper(fn, key)
    if made is not None:
        return made

    @functools.wraps(fn)
    @_hook_off
    def value_and_grad_fn(*args: Any, **kwargs: Any) -> Any:
        nums = _argnums(argnums, len(args))
        tape, out, leaves, treedefs = _forward(fn, args, kwargs, nums, backend)
        value, aux = (out if has_aux else (out, None))
        grads = _gradients(tape, [(value, _scalar_seed(value))], leaves, treedefs, backend)
        grad = grads[0] if isinstance(argnums, int) else tuple(grads)
        return ((value, aux) if has_aux else value), grad

    inline.mark_wrapper(value_and_grad_fn, "value_and_grad", fn, argnums, has_aux)
    return _remember(fn, key, value_and_grad_fn)


def grad(fn: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False, *,
         backend: str = "cranelift") -> Callable:
    """The gradient of scalar-valued `fn` with respect to the arguments `argnums`
    (`(grad, aux)` with `has_aux`)."""
    key = ("grad", _key(argnums), has_aux, backend)
    made = _wrapper(fn, key)
    if made is not None:
        return made
    both = value_and_grad(fn, argnums, has_aux, backend=backend)

    @functools.wraps(fn)
    def grad_fn(*args: Any, **kwargs: Any) -> Any:
        value, g = both(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    inline.mark_wrapper(grad_fn, "grad", fn, argnums, has_aux)
    return _remember(fn, key, grad_fn)


# Wrappers are made once per function and settings and kept on the function itself (they
# live as long as it does), so that a training loop calling `value_and_grad(loss)(...)` on
# each step under `ember.compile` meets the same object (its guards hold) rather than a new
# one that forces a recompile.
_WRAPPERS = "__ember_autodiff_wrappers__"


def _key(argnums: int | Sequence[int]) -> Any:
    return argnums if isinstance(argnums, int) else tuple(argnums)


def _wrapper(fn: Callable, key: tuple) -> Callable | None:
    return getattr(fn, "__dict__", {}).get(_WRAPPERS, {}).get(key)


def _remember(fn: Callable, key: tuple, wrapper: Callable) -> Callable:
    # Compiled code calls these as plain Python (a graph break at the call), never inlined.
    wrapper.__ember_disabled__ = True  # type: ignore[attr-defined]
    wrapper.__dict__.pop(_WRAPPERS, None)  # copied from `fn` by functools.wraps
    namespace = getattr(fn, "__dict__", None)
    if isinstance(namespace, dict):
        namespace.setdefault(_WRAPPERS, {})[key] = wrapper
    return wrapper


@_hook_off
def vjp(fn: Callable, *primals: Any, has_aux: bool = False,
        backend: str = "cranelift") -> tuple[Any, ...]:
    """`(out, vjp_fn)` (`(out, vjp_fn, aux)` with `has_aux`): `vjp_fn(cotangent)` takes a
    cotangent shaped like `out` and returns one gradient per primal, as a tuple."""
    nums = tuple(range(len(primals)))
    tape, result, leaves, treedefs = _forward(fn, primals, {}, nums, backend)
    out, aux = (result if has_aux else (result, None))
    out_leaves, out_def = pytree.flatten(out)

    @_hook_off
    def vjp_fn(cotangent: Any) -> tuple[Any, ...]:
        cot_leaves, cot_def = pytree.flatten(cotangent)
        if cot_def != out_def:
            raise ValueError("the cotangent must have the structure of the output")
        seeds = []
        for o, c in zip(out_leaves, cot_leaves, strict=True):
            if np.shape(o) != np.shape(c):
                raise ValueError(f"cotangent of shape {np.shape(c)} for an output of shape "
                                 f"{np.shape(o)}")
            seeds.append((o, np.asarray(c, dtype=np.asarray(o).dtype)))
        return tuple(_gradients(tape, seeds, leaves, treedefs, backend))

    return (out, vjp_fn, aux) if has_aux else (out, vjp_fn)


for _api in (grad, value_and_grad, vjp):
    _api.__ember_disabled__ = True  # type: ignore[attr-defined]
inline.mark_transform(grad, "grad")
inline.mark_transform(value_and_grad, "value_and_grad")
