"""Shapes with symbolic dimensions: broadcasting, axes and sizes as NumPy computes them."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import numpy as np

from ember.errors import Unsupported

Dim = int | str
Shape = tuple[Dim, ...]


def format_shape(shape: Shape, sep: str = ", ") -> str:
    """A shape as NumPy's messages print it: `(2, 3)`, `(4,)`, `()`; some messages use
    `sep=","`: `(2,3)`."""
    if len(shape) == 1:
        return f"({shape[0]},)"
    return "(" + sep.join(str(d) for d in shape) + ")"


Terms = dict[tuple[str, ...], int]


def dim_terms(d: Dim) -> tuple[Terms, int]:
    """A dim as its terms (each sorted product of symbols to its integer) and its constant:
    `2*s0+s1-1` is `({("s0",): 2, ("s1",): 1}, -1)`, `4` is `({}, 4)`. Symbolic dims are
    strings in the core's normal form (`types.rs: SymSize`), so equal sizes are equal
    strings."""
    if not isinstance(d, str):
        return {}, int(d)
    terms: Terms = {}
    constant = 0
    for sign, body in re.findall(r"([+-]?)([^+-]+)", d):
        coefficient, product = -1 if sign == "-" else 1, []
        for factor in body.split("*"):
            if factor.isdigit():
                coefficient *= int(factor)
            else:
                product.append(factor)
        if product:
            key = tuple(sorted(product))
            terms[key] = terms.get(key, 0) + coefficient
        else:
            constant += coefficient
    return terms, constant


def make_dim(terms: Terms, constant: int) -> Dim | None:
    """The dim of `terms` and `constant` in normal form (the core's `Dim::from_terms`):
    products sorted, zero terms dropped, a coefficient of 1 left out, the constant last;
    an int where no symbol is left, None for a negative one."""
    kept = sorted((p, c) for p, c in terms.items() if c)
    if not kept:
        return constant if constant >= 0 else None
    text = ""
    for i, (product, c) in enumerate(kept):
        text += "-" if c < 0 else "+" if i else ""
        text += (f"{abs(c)}*" if abs(c) != 1 else "") + "*".join(product)
    return text + (f"{constant:+d}" if constant else "")


def dim_plus(d: Dim, by: int) -> Dim | None:
    """The dim `d + by`; None where that is a negative size."""
    terms, constant = dim_terms(d)
    return make_dim(terms, constant + by)


def dim_sum(dims: Iterable[Dim]) -> Dim:
    """The sum of sizes (`s0 + s0` is `2*s0`), as `concatenate` joins them."""
    total: Terms = {}
    constant = 0
    for d in dims:
        terms, c = dim_terms(d)
        constant += c
        for p, k in terms.items():
            total[p] = total.get(p, 0) + k
    result = make_dim(total, constant)
    assert result is not None, "a sum of sizes is a size"
    return result


def dim_product(dims: Iterable[Dim]) -> Dim:
    """The product of sizes (`s0 * 4` is `4*s0`): an array's element count."""
    total: Terms = {}
    constant = 1
    for d in dims:
        terms, c = dim_terms(d)
        product: Terms = {}
        for pa, a in [*total.items(), ((), constant)]:
            for pb, b in [*terms.items(), ((), c)]:
                key = tuple(sorted(pa + pb))
                product[key] = product.get(key, 0) + a * b
        constant = product.pop((), 0)
        total = product
    result = make_dim(total, constant)
    assert result is not None, "a product of sizes is a size"
    return result


def dim_divide(d: Dim, by: Dim) -> Dim | None:
    """`d / by` when exact term by term (`4*s0 / 4` is `s0`, `s0*s1 / s0` is `s1`), as the
    core's `Dim::divide`; None otherwise (`-1` in a reshape is then unresolved)."""
    terms, constant = dim_terms(d)
    by_terms, by_constant = dim_terms(by)
    if not by_terms and by_constant > 0:
        divisor, k = (), by_constant
    elif len(by_terms) == 1 and by_constant == 0 and next(iter(by_terms.values())) > 0:
        (divisor, k), = by_terms.items()
    else:
        return None
    if (divisor and constant) or constant % k:
        return None
    out: Terms = {}
    for product, c in terms.items():
        rest = list(product)
        if c % k or any(s not in rest or rest.remove(s) for s in divisor):
            return None
        out[tuple(rest)] = out.get(tuple(rest), 0) + c // k
    return make_dim({p: c for p, c in out.items() if p}, constant // k + out.get((), 0))


def dim_symbols(d: Dim) -> set[str]:
    """The symbols a dim is written in."""
    return {s for product in dim_terms(d)[0] for s in product}


def is_symbol(d: Dim) -> bool:
    """Whether a dim is one symbol alone (`s0`, not `s0-1` or `2*s0`)."""
    return isinstance(d, str) and dim_terms(d) == ({(d,): 1}, 0)


def symbolic_slice(d: str, start: int, stop: int, step: int) -> Dim | None:
    """The length of the slice `start:stop:step` of the symbolic dim `d`, its bounds from the
    front (0 or more) or counted from the end (negative: -1 the end itself, -2 one before it),
    as the core's `infer/shapes.rs: slice` computes it; None where the core takes no such
    slice (a step other than 1, a start from the end before a stop from the front)."""
    if step != 1:
        return None
    if (start >= 0) == (stop >= 0):
        return max(stop - start, 0)
    if start >= 0:
        return dim_plus(d, 1 + stop - start)
    return None


def whole_stops(shape: Shape) -> list[int]:
    """The `slice` op's stops that take every axis of `shape` whole: a symbolic dim's end is
    written `-1` (counted from the end)."""
    return [-1 if isinstance(d, str) else d for d in shape]


def python_slice(start: int, stop: int, step: int) -> slice:
    """The Python slice of one axis of a `slice` op: normalised bounds, where a negative step's
    stop of -1 is "through the front" (None), and bounds counted from the end of a symbolic
    axis (negative, with a positive step: -1 the end, None; -2 one before it, -1...)."""
    if step < 0:
        return slice(start, None if stop < 0 else stop, step)
    return slice(start + 1 if start < 0 else start,
                 (None if stop == -1 else stop + 1) if stop < 0 else stop, step)


def dim_example(d: Dim, examples: dict[str, int]) -> int | None:
    """The size `d` stands for at capture, its symbols at their `examples`; None where one
    has none."""
    terms, constant = dim_terms(d)
    total = constant
    for product, c in terms.items():
        if any(s not in examples for s in product):
            return None
        total += c * int(np.prod([examples[s] for s in product], dtype=object))
    return total


def substitute(d: Dim, dims: dict[str, Dim]) -> Dim | None:
    """`d` with each symbol named in `dims` replaced by its dim; None for a negative size."""
    terms, constant = dim_terms(d)
    total: Terms = {}
    for product, c in terms.items():
        sub_terms, sub_constant = dim_terms(dim_product(dims.get(x, x) for x in product))
        constant += c * sub_constant
        for p, k in sub_terms.items():
            total[p] = total.get(p, 0) + c * k
    return make_dim(total, constant)


def symbolic_mismatch(reason: str, a: Dim, b: Dim) -> Unsupported:
    """The refusal of two dims that must be equal but are not the same dim, one of them
    symbolic: `mismatched` names them, so that capture can tie an int argument's symbol
    to an array's dim of the same size (`Tracer.tied_sizes`) or else capture static."""
    exc = Unsupported(reason)
    exc.mismatched = (a, b)  # type: ignore[attr-defined]
    return exc


def broadcast_shapes(*shapes: Shape) -> Shape:
    """NumPy's broadcasting. Symbolic dims are taken to be at least 2 (sizes 0 and 1 are
    always specialised), so a symbol only broadcasts against 1 or the same symbol."""
    if len(shapes) == 2 and shapes[0] == shapes[1]:
        return tuple(shapes[0])  # the common case, same shapes: nothing to broadcast
    ndim = max((len(s) for s in shapes), default=0)
    result: list[Dim] = []
    for axis in range(ndim):
        dims = [s[axis - ndim + len(s)] for s in shapes if axis - ndim + len(s) >= 0]
        out: Dim = 1
        for d in dims:
            if d == 1 or d == out:
                continue
            if out == 1:
                out = d
            elif isinstance(d, str) or isinstance(out, str):
                raise symbolic_mismatch(
                    f"broadcasting symbolic dimension {out!r} against {d!r}", out, d)
            else:
                raise ValueError(
                    "operands could not be broadcast together with shapes "
                    + " ".join(format_shape(s, ",") for s in shapes) + " "
                )
        result.append(out)
    return tuple(result)


def normalize_axis(axis: int, ndim: int, argname: str | None = None) -> int:
    """A possibly negative axis as a non-negative one, with NumPy's AxisError otherwise."""
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise TypeError(f"'{type(axis).__name__}' object cannot be interpreted as an integer")
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(int(axis), ndim, argname)
    return int(axis) % ndim if ndim else 0


def normalize_axes(axis: int | Iterable[int] | None, ndim: int,
                   argname: str | None = None) -> tuple[int, ...] | None:
    """`axis=` of a reduction: None stays None; an int or tuple becomes sorted, checked axes."""
    if axis is None:
        return None
    items = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    axes = [normalize_axis(a, ndim, argname) for a in items]
    if len(set(axes)) != len(axes):
        raise ValueError(f"repeated axis in `{argname}` argument" if argname else
                         "duplicate value in 'axis'")
    return tuple(sorted(axes))


class Size:
    """The number of elements of a shape, as a dim in normal form (`4*s0` for `(s0, 4)`), so
    that `-1` in a reshape can be resolved and sizes compared when dims are symbolic."""

    def __init__(self, dims: Iterable[Dim] = ()) -> None:
        self.count = dim_product(dims)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Size) and self.count == other.count

    def divide(self, other: Size) -> Dim | None:
        """self / other as one dim when it divides exactly, else None."""
        return dim_divide(self.count, other.count)

    @property
    def static(self) -> int | None:
        return self.count if isinstance(self.count, int) else None


def static_size(shape: Sequence[Dim]) -> int | None:
    return Size(shape).static
