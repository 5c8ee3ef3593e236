"""Random whole programs for the fuzzer: Python source text over a few array arguments,
compiled by ember through the frame hook and run by plain NumPy, then compared.

A program is a straight list of statements over its arguments `a`, `b`, `c` and the temporaries
it defines: elementwise operators and ufuncs, reductions (keepdims, so results broadcast
back), casts, `np.where`, views (transpose, slices with negative steps), NumPy's read-only
broadcast views, in-place updates of arguments and of temporaries, ufuncs writing `out=` an
array or a view of one, prints (graph breaks) and a returned tuple that may hold arguments,
views of them and temporaries. Arguments come in every dtype and layout: strided, transposed,
reversed, zero-size, broadcast (read-only), read-only, Fortran-ordered, and views of one base
passed twice.
Values include zeros, negative numbers, NaN, infinities and integer extremes, so warnings,
`FloatingPointError` and integer corner cases occur often. Programs also update overlapping
slices of one array in place (`a[1:] += a[:-1]`, `a[::-1] *= a`), write through boolean masks
and `np.copyto`, add Python ints and floats a narrow dtype cannot hold, and run short loops
over rows that accumulate and leave early through `break` (at a fixed row or where the data
says). Programs also open `np.errstate` blocks of their own, clip (NaN, signed-zero and
out-of-range bounds), gather and update rows by repeated index lists and compare with Python
scalars.
"""

from __future__ import annotations

import contextlib
import io
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from conftest import aliasing, assert_same
from hypothesis import strategies as st

DTYPES = ["bool", "int32", "int64", "float32", "float64", "int8", "uint8"]
BINARY = ["+", "-", "*", "/", "//", "%", "**", "&", "|", "^", "<", "<=", "==", "!=", ">",
          "np.maximum", "np.minimum", "np.fmax", "np.arctan2", "np.hypot", "np.logical_and",
          "np.logical_or", "np.left_shift", "np.right_shift", "np.copysign"]
UNARY = ["-", "abs", "~", "np.sqrt", "np.exp", "np.log", "np.log1p", "np.expm1", "np.sin",
         "np.cos", "np.tanh", "np.square", "np.floor", "np.isnan", "np.isfinite", "np.sign",
         "np.logical_not", "np.reciprocal", "np.negative", "np.arcsin", "np.cbrt", "np.exp2",
         "np.log2", "np.rint", "np.signbit"]
REDUCTIONS = ["sum", "mean", "max", "min", "prod", "any", "all", "argmax", "argmin", "std"]
VIEWS = [".T", "[::2]", "[::-1]", "[1:]", "[:, ::-1]", "[None]", "[..., 0]", ".reshape(-1)",
         "[-1:]"]
INPLACE = ["+=", "-=", "*=", "/=", "//=", "%=", "**=", "&=", "|="]
# Overlapping in-place updates of one array: `{x}` is the array, `{op}` an in-place operator.
OVERLAPS = ["{x}[1:] {op} {x}[:-1]", "{x}[:-1] {op} {x}[1:]", "{x}[:, 1:] {op} {x}[:, :-1]",
            "{x}[::-1] {op} {x}", "{x}.T[::-1] {op} {x}.T", "{x}[1:] = {x}[:-1] * 2",
            "np.copyto({x}[1:], {x}[:-1])", "np.copyto({x}, {y})", "{x}[{y} > 0] = {x}[{y} > 0] * 2"]
SCALARS = ["2", "0.5", "-1", "3.0", "True", "300", "-129", "2**40", "1e40"]
LAYOUTS = ["contiguous", "transposed", "strided", "reversed", "zero", "broadcast", "shared",
           "fortran", "readonly"]
# `np.errstate` blocks inside a program, `np.clip` bounds and first-axis index lists.
BLOCK_ERRSTATES = ["all='ignore'", "divide='raise'", "invalid='raise', divide='ignore'",
                   "over='warn'", "all='raise'", "under='warn', invalid='ignore'"]
BOUNDS = ["0", "-1.5", "2", "None", "float('nan')", "1e40", "-0.0"]
COMPARED = [*SCALARS, "float('nan')", "-0.0"]
GATHERS = ["[0, 0]", "[-1, 0, -1]", "[0]", "[0, -1, 0, -1]"]
# Ufuncs called with `out=` (an argument, a temporary or a view of one).
OUT_UFUNCS = ["np.add", "np.multiply", "np.subtract", "np.maximum", "np.sqrt", "np.exp",
              "np.negative", "np.true_divide"]
ERRSTATES = [{}, {}, {"all": "raise"}, {"all": "ignore"}, {"divide": "raise", "invalid": "warn"},
             {"over": "raise", "under": "raise"}]

# Values arrays are drawn from: ordinary ones and every class that makes NumPy warn.
FLOATS = [0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -3.0, 7.0, 100.0, 1e30, -1e30, 1e300, np.nan, np.inf,
          -np.inf, 1e-40, 89.5]
INTS = [0, 1, -1, 2, 3, -7, 31, 64, 100, "min", "max"]


@dataclass
class Program:
    source: str
    args: list[tuple[str, str, tuple[int, ...], int]]  # dtype, layout, shape, seed
    errstate: dict[str, str]


def _values(dtype: np.dtype, shape: tuple[int, ...], seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind == "f":
        return rng.choice(np.array(FLOATS), shape).astype(dtype)
    info = np.iinfo(dtype)
    # Through int64, so the small negative values wrap for unsigned dtypes.
    pool = np.array([info.min if v == "min" else info.max if v == "max" else v for v in INTS],
                    dtype=np.int64).astype(dtype)
    return rng.choice(pool, shape)


def make_args(spec: list[tuple[str, str, tuple[int, ...], int]]) -> list[np.ndarray]:
    """Fresh arguments for one run; `shared` arguments are views of the previous argument's
    base (one buffer passed twice), so they must come after another argument of their dtype."""
    out: list[np.ndarray] = []
    base = None  # the buffer of the last contiguous argument
    for dtype_name, layout, shape, seed in spec:
        dtype = np.dtype(dtype_name)
        rows, cols = shape
        if layout == "shared" and base is not None and base.dtype == dtype:
            # Overlaps the previous argument's second half, rows reversed.
            start = rows * cols // 2
            out.append(base[start : start + rows * cols].reshape(rows, cols)[::-1])
            continue
        if layout == "transposed":
            out.append(_values(dtype, (cols, rows), seed).T)
        elif layout == "strided":
            out.append(_values(dtype, (rows, cols * 2), seed)[:, ::2])
        elif layout == "reversed":
            out.append(_values(dtype, (rows, cols), seed)[::-1, ::-1])
        elif layout == "zero":
            out.append(_values(dtype, (0, cols), seed))
        elif layout == "broadcast":
            out.append(np.broadcast_to(_values(dtype, (1, cols), seed), (rows, cols)))
        elif layout == "fortran":
            out.append(np.asfortranarray(_values(dtype, (rows, cols), seed)))
        elif layout == "readonly":
            value = _values(dtype, (rows, cols), seed)
            value.flags.writeable = False
            out.append(value)
        else:
            base = _values(dtype, (rows * cols * 2,), seed)
            out.append(base[: rows * cols].reshape(rows, cols))
            continue
        base = None
    return out


@st.composite
def programs(draw: st.DrawFn) -> Program:
    rows, cols = draw(st.integers(1, 5)), draw(st.integers(1, 9))
    n_args = draw(st.integers(1, 3))
    spec = []
    for i in range(n_args):
        dtype = draw(st.sampled_from(DTYPES))
        layout = draw(st.sampled_from(LAYOUTS))
        if layout == "shared" and i > 0:
            dtype = spec[-1][0]
        spec.append((dtype, layout, (rows, cols), draw(st.integers(0, 2**16))))
    names = ["a", "b", "c"][:n_args]
    values = list(names)
    scalars: set[str] = set()  # temporaries reduced to 0-d (no rows to loop over)
    lines = []
    for k in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["binary", "binary", "unary", "unary", "reduce", "cast",
                                     "where", "view", "inplace", "setitem", "print", "scalar",
                                     "out", "broadcast", "overlap", "loop", "errstate",
                                     "clip", "gather", "scatter", "compare"]))
        pick = st.sampled_from(values)
        target = f"t{k}"
        if kind == "binary":
            op, x, y = draw(st.sampled_from(BINARY)), draw(pick), draw(pick)
            expr = f"{op}({x}, {y})" if op.startswith("np.") else f"{x} {op} {y}"
        elif kind == "unary":
            op, x = draw(st.sampled_from(UNARY)), draw(pick)
            expr = f"{op}({x})" if op != "-" and op != "~" else f"{op}{x}"
        elif kind == "reduce":
            name, x = draw(st.sampled_from(REDUCTIONS)), draw(pick)
            axis = draw(st.sampled_from(["0", "-1", "None"]))
            keep = ", keepdims=True" if axis != "None" else ""
            expr = f"np.{name}({x}, axis={axis}{keep})"
            if axis == "None":
                scalars.add(target)
        elif kind == "cast":
            expr = f"{draw(pick)}.astype(np.{draw(st.sampled_from(DTYPES))})"
        elif kind == "where":
            # Distinct branches: with equal ones the generated code needs no condition, and
            # the flags of computing it are lost (a known gap).
            x, y = draw(pick), draw(pick)
            expr = f"np.where({draw(pick)} > 0, {x}, {y if y != x else '-' + x})"
        elif kind == "view":
            expr = f"{draw(pick)}{draw(st.sampled_from(VIEWS))}"
        elif kind == "scalar":
            expr = f"{draw(pick)} {draw(st.sampled_from(['+', '*', '-', '/']))} " \
                   f"{draw(st.sampled_from(SCALARS))}"
        elif kind == "broadcast":
            # NumPy's read-only broadcast view of a temporary's first column.
            x = draw(pick)
            expr = f"np.broadcast_to({x}[..., :1], np.shape({x}))"
        elif kind == "inplace":
            lines.append(f"{draw(pick)} {draw(st.sampled_from(INPLACE))} {draw(pick)}")
            continue
        elif kind == "out":
            op, x, y, out = (draw(st.sampled_from(OUT_UFUNCS)), draw(pick), draw(pick),
                             draw(pick))
            operands = x if op in ("np.sqrt", "np.exp", "np.negative") else f"{x}, {y}"
            view = draw(st.sampled_from(["", "", "[::-1]", ".T", "[:, ::-1]"]))
            lines.append(f"{op}({operands}, out={out}{view})")
            continue
        elif kind == "overlap":
            lines.append(draw(st.sampled_from(OVERLAPS)).format(
                x=draw(pick), y=draw(pick), op=draw(st.sampled_from(INPLACE))))
            continue
        elif kind == "loop":
            rows_of = [v for v in values if v not in scalars]
            x = draw(st.sampled_from(rows_of))
            stop = draw(st.sampled_from([f"i == {draw(st.integers(0, 3))}",
                                         f"{x}[i].sum() > 0", "False"]))
            step = draw(st.sampled_from(["+ {x}[i]", "* 2 - {x}[i]", "+ {x}[i] * {x}[i]"]))
            lines += [f"{target} = {x}[:1] * 0",
                      f"for i in range(len({x})):",
                      f"    {target} = {target} {step.format(x=x)}",
                      f"    if {stop}:",
                      "        break"]
            values.append(target)
            continue
        elif kind == "errstate":
            # An `np.errstate` block of the program's own around one operation.
            op, x, y = draw(st.sampled_from(BINARY + UNARY)), draw(pick), draw(pick)
            expr = (f"{op}({x}, {y})" if op in BINARY and op.startswith("np.") else
                    f"{x} {op} {y}" if op in BINARY else
                    f"{op}({x})" if op not in ("-", "~") else f"{op}{x}")
            lines += [f"with np.errstate({draw(st.sampled_from(BLOCK_ERRSTATES))}):",
                      f"    {target} = {expr}"]
            values.append(target)
            continue
        elif kind == "clip":
            lo, hi = draw(st.sampled_from(BOUNDS)), draw(st.sampled_from(BOUNDS))
            expr = f"np.clip({draw(pick)}, {lo}, {hi})"
        elif kind == "gather":
            # Repeated and negative indices along the first axis (a copy, not a view).
            expr = f"{draw(pick)}[{draw(st.sampled_from(GATHERS))}]"
        elif kind == "scatter":
            # A fancy-index update with repeated indices (each updated once, as NumPy does).
            lines.append(f"{draw(pick)}[{draw(st.sampled_from(GATHERS))}] "
                         f"{draw(st.sampled_from(INPLACE))} {draw(st.sampled_from(SCALARS))}")
            continue
        elif kind == "compare":
            expr = f"{draw(pick)} {draw(st.sampled_from(['<', '==', '>=', '!=']))} " \
                   f"{draw(st.sampled_from(COMPARED))}"
        elif kind == "setitem":
            lines.append(f"{draw(pick)}[{draw(st.sampled_from(['0', '-1', '::2', '...']))}] = "
                         f"{draw(st.sampled_from(['1', '0.5', '-2', 'True']))}")
            continue
        else:
            lines.append(f"print('at', {k}, np.shape({draw(pick)}))")
            continue
        lines.append(f"{target} = {expr}")
        values.append(target)
    returned = draw(st.lists(st.sampled_from(values + [f"{v}[::-1]" for v in values]),
                             min_size=1, max_size=3))
    lines.append(f"return ({', '.join(returned)},)")
    source = f"def program({', '.join(names)}):\n" + "".join(f"    {line}\n" for line in lines)
    return Program(source, spec, draw(st.sampled_from(ERRSTATES)))


@dataclass
class Outcome:
    value: Any = None
    error: BaseException | None = None
    warnings: frozenset = frozenset()
    printed: str = ""
    args: list[np.ndarray] | None = None


def run(fn: Any, args: list[np.ndarray], errstate: dict[str, str]) -> Outcome:
    outcome = Outcome(args=args)
    printed = io.StringIO()
    with warnings.catch_warnings(record=True) as caught, np.errstate(**errstate), \
            contextlib.redirect_stdout(printed):
        warnings.simplefilter("always")
        try:
            outcome.value = fn(*args)
        except Exception as exc:  # noqa: BLE001 - raising is an outcome to compare
            outcome.error = exc
    outcome.printed = printed.getvalue()
    outcome.warnings = frozenset((w.category.__name__, str(w.message)) for w in caught)
    return outcome


def _tolerance(outcome: Outcome) -> float:
    """Float rounding: float32 results or arguments (NumPy's float32 `pow` and friends are
    not always correctly rounded, ember's may differ by an ulp) get float32's tolerance."""
    values = outcome.value if isinstance(outcome.value, tuple) else (outcome.value,)
    f32 = any(getattr(v, "dtype", None) == np.float32 for v in (*values, *(outcome.args or ())))
    return 1e-5 if f32 else 1e-10


def assert_same_outcome(got: Outcome, want: Outcome, context: str) -> None:
    """`got` is `want`: the result or the exception, aliasing, the arguments afterwards,
    printed text and warnings; `context` (the program) ends every message."""
    if want.error is not None:
        assert got.error is not None, f"no exception, NumPy raised {want.error!r}{context}"
        assert type(got.error) is type(want.error), f"{got.error!r} vs {want.error!r}{context}"
        assert str(got.error) == str(want.error), f"{got.error!r} vs {want.error!r}{context}"
    else:
        assert got.error is None, f"raised {got.error!r}{context}"
        rtol = _tolerance(want)
        try:
            assert_same(got.value, want.value, rtol=rtol, atol=1e-30)
        except AssertionError as exc:
            raise AssertionError(f"{exc}{context}") from None
        assert aliasing(got.value, got.args) == aliasing(want.value, want.args), context
    if want.error is not None and "negative integer powers" in str(want.error):
        return  # NumPy leaves the updated argument's contents undefined (they vary per run)
    try:
        assert_same(got.args, want.args, rtol=_tolerance(want), atol=1e-30, path="arguments")
    except AssertionError as exc:
        raise AssertionError(f"{exc}{context}") from None
    assert got.printed == want.printed, context
    assert got.warnings == want.warnings, f"{set(got.warnings)} vs {set(want.warnings)}{context}"
