"""Run-time ints as symbolic sizes (`graph/shapes.py`): `len(x) - 2` is the dim `s0-2`, an
int argument a symbol of its own (`Tracer.int_symbol`), sums, differences and multiples of
them and constants; what shapes, slices and loop bodies give as sizes is read here."""

from __future__ import annotations

from typing import Any

from ember.capture.variables.base import VariableTracker
from ember.capture.variables.constant import ConstantVariable


def symbolic_dim(vt: VariableTracker) -> str | None:
    """The symbolic dim a run-time int equals (`len(x)` is `s0`, `len(x) - 2` is `s0-2`,
    `len(x) * 4` is `4*s0`, `len(x) + len(y)` is `s0+s1`), or None."""
    from ember.capture.variables.array import ArrayVariable
    from ember.graph.shapes import is_symbol, make_dim

    if isinstance(vt, ArrayVariable):  # a size a loop body computes (`loops/sizes.py`)
        from ember.capture.loops.sizes import dim_of

        dim = dim_of(vt.value)
        if dim is not None and not is_symbol(dim):
            vt.value.graph.require_size(dim, 2)  # 2 or more
        return dim
    found = int_terms(vt, fixed=True)
    dim = None if found is None else make_dim(*found)
    if not isinstance(dim, str):
        return None
    if not is_symbol(dim):
        vt.tracer.graph.require_size(dim, 2)  # type: ignore[attr-defined]  # 2 or more
    return dim


def int_terms(vt: Any, fixed: bool = False, new_symbols: bool = True, guard: bool = True
               ) -> tuple[dict[tuple[str, ...], int], int] | None:
    """A run-time int as the terms and constant of a dim (`graph/shapes.py: dim_terms`):
    sizes of symbolic dims, int arguments (`Tracer.int_symbol`), constants, and their sums,
    differences and multiples; None for anything else. With `fixed`, an int read from the
    frame that is no symbol (an argument that never changed: the window of `x.shape[0] - w
    + 1`) is its value, guarded, as a shape would take it anyway. Without `new_symbols`,
    an int argument that is no symbol yet is not made one; without `guard`, a fixed int is
    not guarded yet (the caller guards it if it keeps the terms)."""
    from ember.capture.variables.scalar import PythonScalarVariable

    if type(vt) is int:
        return {}, vt
    if isinstance(vt, ConstantVariable) and type(vt.constant()) is int:
        return {}, vt.constant()
    if not isinstance(vt, PythonScalarVariable) or vt.python_class is not int:
        return None
    if vt.op is None:
        symbol = vt.symbol if vt.symbol is not None or not new_symbols else (
            vt.tracer.int_symbol(vt))
        if symbol is None and fixed and vt.source is not None and type(vt.example) is int:
            if guard:
                vt.specialise()
            return {}, vt.example
        return None if symbol is None else ({(symbol,): 1}, 0)
    if vt.op not in ("+", "-", "*") or len(vt.operands) != 2:
        return None
    parts = [int_terms(x, fixed, new_symbols, guard) for x in vt.operands]
    if parts[0] is None or parts[1] is None:
        return None
    (ta, ca), (tb, cb) = parts
    if vt.op == "*":
        if ta and tb:
            return None  # a product of two run-time sizes: left to the static capture
        (terms, c), k = ((ta, ca), cb) if tb == {} else ((tb, cb), ca)
        return {p: v * k for p, v in terms.items()}, c * k
    sign = 1 if vt.op == "+" else -1
    terms = dict(ta)
    for p, v in tb.items():
        terms[p] = terms.get(p, 0) + sign * v
    return terms, ca + sign * cb
