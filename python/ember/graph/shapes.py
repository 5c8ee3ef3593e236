"""Shapes with symbolic dimensions: broadcasting, axes and sizes as NumPy computes them."""

from __future__ import annotations

from collections import Counter
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


def parse_dim(d: str) -> tuple[str, int]:
    """A symbolic dim as its symbol and the constant it is less: `s0` is `("s0", 0)`, `s0-1`
    (what `x[1:]` leaves of `s0`) is `("s0", 1)`."""
    name, _, less = d.partition("-")
    return name, int(less) if less else 0


def dim_plus(d: Dim, by: int) -> Dim | None:
    """The dim `d + by`; None where that is no dim (below 0, or more than its symbol)."""
    if isinstance(d, int):
        return d + by if d + by >= 0 else None
    name, less = parse_dim(d)
    less -= by
    if less < 0:
        return None
    return name if less == 0 else f"{name}-{less}"


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
                raise Unsupported(f"broadcasting symbolic dimension {out!r} against {d!r}")
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
    """A product of integers and symbols (a monomial), so that `-1` in a reshape can be
    resolved and sizes compared when dims are symbolic."""

    def __init__(self, dims: Iterable[Dim] = ()) -> None:
        self.coeff = 1
        self.symbols: Counter[str] = Counter()
        for d in dims:
            if isinstance(d, str):
                self.symbols[d] += 1
            else:
                self.coeff *= d

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Size)
            and self.coeff == other.coeff
            and (self.coeff == 0 or +self.symbols == +other.symbols)
        )

    def divide(self, other: Size) -> Dim | None:
        """self / other as one dim when it is an integer or a single symbol, else None."""
        if other.coeff == 0 or self.coeff % other.coeff:
            return None
        rest = self.symbols.copy()
        rest.subtract(other.symbols)
        if any(n < 0 for n in rest.values()):
            return None
        coeff = self.coeff // other.coeff
        syms = [s for s, n in rest.items() for _ in range(n)]
        if not syms:
            return coeff
        if len(syms) == 1 and coeff == 1:
            return syms[0]
        return None

    @property
    def static(self) -> int | None:
        return self.coeff if not +self.symbols or self.coeff == 0 else None


def static_size(shape: Sequence[Dim]) -> int | None:
    return Size(shape).static
