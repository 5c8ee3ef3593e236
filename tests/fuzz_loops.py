"""Random loop programs for the fuzzer: Python source text of a function `program(a, b, M, n)`
over two 1-d arrays of one length, a 2-d array and a Python int `n` (at most that length),
compiled by ember and run as plain Python, then compared.

A program sets up carried values (Python ints `h`, `c`, a Python float `t`, a number `s`
that starts as the int 0 and may become a float or a NumPy scalar, an array `out`), runs a
few loops and returns some of them. Loops are `for` over `range` (constant and run-time
bounds, steps, negative steps, bounds from an outer index), over arrays, `enumerate`, `zip`
and the rows of `M`, nested, and `while` loops whose tests read the data. Bodies read and
write elements (`a[i]`, `M[r, k]`, `a[i - 1]`, an index computed from the data), append to
a list `lst` (returned, or its `len`, `sum` or `np.array`), reduce
windows (`a[i:i + 2].sum()`, `a[:i].max()`), update arrays in place, branch on element values
(`if`/`elif`/`else`), `break`, `continue`, `return` early, and compute with Python ints
(`//`, `%`, `<<`, `>>`, `&`, `^`: Python ints never overflow), Python floats and `math`.

Every loop terminates: `for` loops over finite ranges, and each `while` moves its own counter
first thing in its body, toward its bound, where nothing else assigns it. Products of carried
ints have one factor that is not carried, so a program's numbers stay of modest size.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from hypothesis import strategies as st

DTYPES = ["bool", "int32", "int64", "float32", "float64", "int8", "uint8", "float32", "int32"]
# Values arrays are drawn from: mostly small ones (so loops compute something readable), and
# the classes that make Python and NumPy raise or warn.
FLOATS = [0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -3.0, 7.0, 100.0, 0.25, -0.75, 3.0, 1e30, np.nan,
          np.inf, 1e-40, 700.0]
INTS = [0, 1, -1, 2, 3, -7, 31, 5, 4, -2, 100, "min", "max"]

INT_LITERALS = ["0", "1", "2", "3", "-1", "7", "31", "-5", "1000", "2**31", "2**62", "-2**63"]
FLOAT_LITERALS = ["0.0", "0.5", "-1.5", "2.0", "1e-3", "1e10", "1e300", "3.0"]
MATH_UNARY = ["math.sqrt", "math.exp", "math.log", "math.sin", "math.tanh", "math.fabs",
              "math.log1p", "math.cos", "math.atan", "math.expm1", "math.erf", "math.erfc"]
MATH_BINARY = ["math.hypot", "math.pow", "math.atan2", "math.copysign"]


@dataclass
class LoopProgram:
    source: str
    dtypes: tuple[str, str, str]  # of a, b, M
    calls: list[tuple[int, int, int, int, int]]  # per call: length, rows, cols, n, seed
    order: str = "C"  # of M: "C" or "F" (Fortran-ordered)


def _values(dtype: np.dtype, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    common = rng.random(shape) < 0.85  # most values small, the rest from the whole pool
    if dtype.kind == "f":
        small = rng.integers(-4, 9, shape).astype(dtype) * dtype.type(0.5)
        return np.where(common, small, rng.choice(np.array(FLOATS), shape).astype(dtype))
    info = np.iinfo(dtype)
    # Through int64, so the small negative values wrap for unsigned dtypes.
    pool = np.array([info.min if v == "min" else info.max if v == "max" else v for v in INTS],
                    dtype=np.int64).astype(dtype)
    return np.where(common, rng.integers(-3, 10, shape).astype(dtype), rng.choice(pool, shape))


def make_args(dtypes: tuple[str, str, str], call: tuple[int, int, int, int, int],
              order: str = "C") -> list:
    """Fresh arguments `a, b, M, n` for one call (`M` in the memory `order` given)."""
    length, rows, cols, n, seed = call
    rng = np.random.default_rng(seed)
    a = _values(np.dtype(dtypes[0]), (length,), rng)
    b = _values(np.dtype(dtypes[1]), (length,), rng)
    m = _values(np.dtype(dtypes[2]), (rows, cols), rng)
    return [a, b, np.asfortranarray(m) if order == "F" else m, n]


@dataclass
class Index:
    """A loop index that is a valid position on an axis of `extent` ("L": `len(a)`, "R", "C":
    `M`'s rows and columns): at least `before`, at most the extent less 1 less `after`."""
    name: str
    extent: str
    before: int
    after: int


@dataclass
class Scope:
    indices: list[Index] = field(default_factory=list)
    ints: list[str] = field(default_factory=list)  # Python ints only read here
    elements: list[str] = field(default_factory=list)  # NumPy scalars (`for v in a`)
    rows: list[str] = field(default_factory=list)  # rows of `M` (`for row in M`)
    loops: int = 0  # loops enclosing this point
    whiles: int = 0  # of which `while` loops

    def inner(self, **changes) -> Scope:
        copy = Scope(list(self.indices), list(self.ints), list(self.elements), list(self.rows),
                     self.loops, self.whiles)
        for name, value in changes.items():
            setattr(copy, name, value)
        return copy


_EXTENT = {"L": "len(a)", "R": "M.shape[0]", "C": "M.shape[1]"}
_ARRAYS = {"L": ["a", "b", "out"], "R": [], "C": []}
CARRIED_INTS = ["h", "c"]


class _Writer:
    """Draws one program's statements, indented, with fresh names for loop variables."""

    def __init__(self, draw: st.DrawFn) -> None:
        self.draw = draw
        self.lines: list[str] = []
        self.fresh = 0

    def pick(self, options):
        return self.draw(st.sampled_from(options))

    def chance(self, p: float) -> bool:
        return self.draw(st.integers(0, 999)) < p * 1000

    def name(self, stem: str) -> str:
        self.fresh += 1
        return f"{stem}{self.fresh}"

    def emit(self, depth: int, line: str) -> None:
        self.lines.append("    " * depth + line)

    # Expressions -------------------------------------------------------------------------

    def small_int(self, scope: Scope) -> str:
        """A Python int not computed from a carried value."""
        options = ["lit", "lit", "len"] + ["index"] * 3 * bool(scope.indices) \
            + ["int_of"] * 2 + ["read"] * bool(scope.ints)
        kind = self.pick(options)
        if kind == "lit":
            return self.pick(INT_LITERALS[:8])
        if kind == "len":
            return self.pick(["len(a)", "n", "M.shape[1]"])
        if kind == "index":
            return self.pick(scope.indices).name
        if kind == "read":
            return self.pick(scope.ints)
        element = self.element(scope, 1)
        return f"int({element})"

    def int_expr(self, scope: Scope, depth: int = 2) -> str:
        """A Python int."""
        if depth <= 0 or self.chance(0.3):
            return self.pick([self.small_int(scope), self.pick(CARRIED_INTS)])
        kind = self.pick(["arith", "arith", "mul", "div", "bits", "shift", "unary", "minmax",
                          "floor", "pow", "data"])
        if kind == "data":
            return self.data_int(scope)
        x = self.int_expr(scope, depth - 1)
        if kind == "arith":
            return f"({x} {self.pick(['+', '-'])} {self.int_expr(scope, depth - 1)})"
        if kind == "mul":
            return f"({x} * {self.small_int(scope)})"
        if kind == "div":
            return f"({x} {self.pick(['//', '%'])} {self.int_expr(scope, depth - 1)})"
        if kind == "bits":
            return f"({x} {self.pick(['&', '|', '^'])} {self.int_expr(scope, depth - 1)})"
        if kind == "shift":
            amount = self.pick(["1", "3", "5", f"({self.small_int(scope)} & 7)"])
            return f"({x} {self.pick(['<<', '>>'])} {amount})"
        if kind == "unary":
            return self.pick([f"(-{x})", f"abs({x})", f"(~{x})"])
        if kind == "minmax":
            return f"{self.pick(['min', 'max'])}({x}, {self.int_expr(scope, depth - 1)})"
        if kind == "floor":
            return f"{self.pick(['math.floor', 'math.ceil', 'round', 'int'])}" \
                   f"({self.float_expr(scope, depth - 1)})"
        return f"({self.small_int(scope)} ** {self.pick(['2', '3'])})"

    def float_expr(self, scope: Scope, depth: int = 2) -> str:
        """A Python float."""
        if depth <= 0 or self.chance(0.25):
            return self.pick([self.pick(FLOAT_LITERALS), "t", f"float({self.element(scope, 1)})"])
        kind = self.pick(["arith", "arith", "div", "math", "math", "math2", "pow", "mixed"])
        x = self.float_expr(scope, depth - 1)
        if kind == "arith":
            return f"({x} {self.pick(['+', '-', '*'])} {self.float_expr(scope, depth - 1)})"
        if kind == "div":
            divisor = self.pick([self.float_expr(scope, depth - 1), self.int_expr(scope, 1)])
            return f"({x} {self.pick(['/', '/', '//', '%'])} {divisor})"
        if kind == "math":
            return f"{self.pick(MATH_UNARY)}({x})"
        if kind == "math2":
            return f"{self.pick(MATH_BINARY)}({x}, {self.float_expr(scope, depth - 1)})"
        if kind == "pow":
            return f"({x} ** {self.pick(['2', '2.0', '0.5', '3', '-1'])})"
        return f"({self.int_expr(scope, depth - 1)} {self.pick(['*', '+', '/'])} {x})"

    def position(self, scope: Scope, extent: str) -> str:
        """An index on an axis of `extent`: from a loop index over it (in bounds, wrapping
        to the end as Python does, or rarely out of bounds), or computed from data."""
        over = [i for i in scope.indices if i.extent == extent]
        length = _EXTENT[extent]
        if not over or self.chance(0.15):
            return self.pick([f"{self.int_expr(scope, 1)} % {length}", "0", "-1"])
        index = self.pick(over)
        offsets = ["", "", f" - {index.before}" if index.before else "", " - 1"]
        offsets += [f" + {index.after}"] if index.after else []
        if self.chance(0.03):
            offsets.append(" + 1")  # out of bounds on the last trip: IndexError
        if self.chance(0.02):
            offsets.append(f" - {length} - 1")  # out of bounds on the first trip only
        form = self.pick(["plain", "plain", "plain", "mirror", "negative"])
        if form == "mirror":
            return f"{length} - 1 - {index.name}"
        if form == "negative":  # counts from the end, as Python does
            return self.pick([f"-1 - {index.name}", f"-{index.name}"])
        return f"{index.name}{self.pick(offsets)}"

    def window(self, scope: Scope) -> str:
        """A 1-d slice of `a`/`b`/`out` or a row of `M`, at a loop index."""
        rows_at = [i for i in scope.indices if i.extent == "R"]
        if scope.rows and self.chance(0.3):
            return self.pick(scope.rows)
        if rows_at and self.chance(0.3):
            return f"M[{self.pick(rows_at).name}]"
        array = self.pick(["a", "b"])
        over = [i for i in scope.indices if i.extent == "L"]
        if not over:
            return f"{array}[1:]"
        index = self.pick(over)
        width = self.draw(st.integers(1, 3))
        return self.pick([f"{array}[{index.name}:{index.name} + {width}]",
                          f"{array}[:{index.name}]", f"{array}[{index.name}:]",
                          f"{array}[{index.name} + 1:]"])

    def element(self, scope: Scope, depth: int = 2) -> str:
        """A NumPy scalar."""
        kind = self.pick(["read", "read", "read", "read2", "window", "var", "arith", "arith",
                          "ufunc", "data"])
        if kind == "data" and depth > 0:
            return self.data_element(scope)
        if kind == "var" and scope.elements:
            return self.pick(scope.elements)
        if kind == "read2" or (kind == "var" and scope.rows):
            if scope.rows and self.chance(0.5):
                return f"{self.pick(scope.rows)}[{self.position(scope, 'C')}]"
            return f"M[{self.position(scope, 'R')}, {self.position(scope, 'C')}]"
        if kind == "window":
            reduce = self.pick(["sum", "max", "min", "prod"])
            return f"{self.window(scope)}.{reduce}()" if self.chance(0.7) else \
                f"np.{reduce}({self.window(scope)})"
        if depth > 0 and kind == "arith":
            other = self.pick([self.element(scope, depth - 1), self.pick(["2", "0.5", "-1"])])
            return f"({self.element(scope, depth - 1)} {self.pick(['+', '-', '*'])} {other})"
        if depth > 0 and kind == "ufunc":
            return f"{self.pick(['np.sqrt', 'abs', 'np.exp', 'np.abs'])}" \
                   f"({self.element(scope, depth - 1)})"
        return f"{self.pick(['a', 'b', 'a', 'out'])}[{self.position(scope, 'L')}]"

    def data_int(self, scope: Scope) -> str:
        """A Python int computed from the data: an arg-reduction, a position picked by `key=`,
        a count of a comprehension or a generator, an integer `arange`'s sum (empty windows
        make some raise ValueError, as Python and NumPy do)."""
        w = self.window(scope)
        kind = self.pick(["arg", "arg", "key", "count", "gen", "arange"])
        if kind == "arg":
            form = self.pick([f"np.argmax({w})", f"{w}.argmin()", f"np.argmin({w})",
                              f"{w}.argmax()"])
            return f"int({form})"
        if kind == "key":
            fn = self.pick(["max", "min"])
            key = self.pick(["a[j]", "-b[j]", "abs(a[j] - t)", "(a[j], -j)"])
            bound = self.pick(["len(a)", "n"])
            default = self.pick(["", ", default=-1"]) if bound == "n" else ""
            return f"{fn}(range({bound}), key=lambda j: {key}{default})"
        if kind == "count":
            return f"len([x for x in {w} if x {self.pick(['>', '<=', '!='])} " \
                   f"{self.pick(['0', 't', '1'])}])"
        if kind == "gen":
            return f"sum(1 for x in {w} if x {self.pick(['<', '>='])} {self.pick(['0', '2'])})"
        return f"int(np.arange({self.pick(['n', 'len(a)', self.small_int(scope)])}).sum())"

    def data_element(self, scope: Scope) -> str:
        """A number computed from a window or a row by Python's builtins with `key=`, a
        comprehension, a row times a matrix, or an integer `arange`."""
        w = self.window(scope)
        kind = self.pick(["key", "sorted", "comp", "comp", "matmul", "arange"])
        if kind == "key":
            key = self.pick(["abs", "lambda x: -x", "lambda x: abs(x - t)", "float"])
            return f"{self.pick(['max', 'min'])}({w}, key={key})"
        if kind == "sorted":
            key = self.pick(["", ", key=abs", ", key=lambda x: -x", ", reverse=True"])
            return f"sorted({w}{key})[{self.pick(['0', '-1', '1'])}]"
        if kind == "comp":
            body = self.pick(["x * x", "x - t", "abs(x)", "float(x)", "x * 2"])
            cond = self.pick(["", " if x > 0", f" if x != {self.element(scope, 0)}"])
            return f"{self.pick(['sum', 'sum', 'max', 'min'])}([{body} for x in {w}{cond}])"
        if kind == "matmul":
            rows_at = [i for i in scope.indices if i.extent == "R"]
            row = self.pick(scope.rows) if scope.rows else \
                f"M[{self.pick(rows_at).name}]" if rows_at else "M[0]"
            form = self.pick([f"({row} @ M.T)[{self.position(scope, 'R')}]",
                              f"(M[:3] @ {row}).sum()", f"({row}[:2] @ M[:2, :2])[-1]",
                              f"np.dot({row}, {row})", f"({row} @ M.T).max()"])
            return form
        return f"np.arange({self.pick(['len(a)', 'n', '5'])})[{self.position(scope, 'L')}]"

    def condition(self, scope: Scope) -> str:
        kind = self.pick(["elements", "element", "int", "float", "int", "both", "any"])
        if kind == "any":
            w = self.pick([self.window(scope), *scope.rows])
            test = self.pick(["x > 0", "x < t", "x != x", "x == 0", "abs(x) > 2"])
            return f"{self.pick(['any', 'all', 'not any'])}({test} for x in {w})"
        if kind == "elements":
            return f"{self.element(scope, 1)} {self.pick(['<', '>', '<=', '==', '!='])} " \
                   f"{self.element(scope, 1)}"
        if kind == "element":
            return f"{self.element(scope, 1)} {self.pick(['>', '<', '!='])} " \
                   f"{self.pick(['0', '1', '2.5', 't'])}"
        if kind == "int":
            return self.pick([f"{self.int_expr(scope, 1)} % 3 == {self.pick(['0', '1'])}",
                              f"{self.int_expr(scope, 1)} > {self.pick(INT_LITERALS[:8])}",
                              f"{self.small_int(scope)} & 1"])
        if kind == "float":
            return f"{self.float_expr(scope, 1)} < {self.pick(FLOAT_LITERALS[:5])}"
        return f"{self.condition(scope)} {self.pick(['and', 'or'])} {self.condition(scope)}"

    # Statements --------------------------------------------------------------------------

    def statement(self, scope: Scope, depth: int, nesting: int) -> None:
        options = ["int", "int", "float", "number", "store", "store", "if", "array"]
        if scope.loops:
            options += ["break", "continue", "return", "swap", "append", "counter"]
        if nesting < 3:
            options += ["for", "for", "while"]
        kind = self.pick(options)
        getattr(self, f"_{kind}")(scope, depth, nesting)

    def block(self, scope: Scope, depth: int, nesting: int) -> None:
        for _ in range(self.draw(st.integers(1, 3))):
            self.statement(scope, depth, nesting)

    def _int(self, scope: Scope, depth: int, nesting: int) -> None:
        target = self.pick(CARRIED_INTS)
        form = self.pick(["hash", "hash", "update", "set", "aug"])
        if form == "hash":
            mask = self.pick(["", "", " & 0xFFFFFFFF", " % 1000003"])
            value = f"({target} * {self.pick(['31', '33', '1000003', '2**20'])} + " \
                    f"{self.int_expr(scope, 1)}){mask}"
        elif form == "update":
            value = f"{target} {self.pick(['+', '-', '^', '|'])} {self.int_expr(scope)}"
        elif form == "aug":
            self.emit(depth, f"{target} {self.pick(['+=', '-=', '^=', '//=', '%=', '<<=', '>>='])} "
                             f"{self.pick([self.small_int(scope), '1', '2'])}")
            return
        else:
            value = self.int_expr(scope)
        self.emit(depth, f"{target} = {value}")

    def _float(self, scope: Scope, depth: int, nesting: int) -> None:
        form = self.pick(["acc", "decay", "set"])
        if form == "acc":
            self.emit(depth, f"t += {self.float_expr(scope)}")
        elif form == "decay":
            self.emit(depth, f"t = t * {self.pick(['0.5', '0.9', '1.5'])} + "
                             f"{self.float_expr(scope, 1)}")
        else:
            self.emit(depth, f"t = {self.float_expr(scope)}")

    def _number(self, scope: Scope, depth: int, nesting: int) -> None:
        value = self.pick([self.element(scope), self.int_expr(scope, 1), self.float_expr(scope, 1)])
        form = self.pick(["+=", "+=", "=", "max", "*="])
        if form == "max":
            self.emit(depth, f"s = {self.pick(['max', 'min'])}(s, {value})")
        else:
            self.emit(depth, f"s {form} {value}")

    def _store(self, scope: Scope, depth: int, nesting: int) -> None:
        value = self.pick([self.element(scope), self.element(scope), self.int_expr(scope, 1),
                           self.float_expr(scope, 1), "s"])
        op = self.pick(["=", "=", "+=", "-=", "*="])
        target = self.pick(["out", "out", "a", "b", "M"])
        if target == "M":
            where = f"{self.position(scope, 'R')}, {self.position(scope, 'C')}"
        elif self.chance(0.15) and any(i.extent == "L" for i in scope.indices):
            index = self.pick([i for i in scope.indices if i.extent == "L"])
            where = f"{index.name}:{index.name} + {self.draw(st.integers(1, 2))}"
        else:
            where = self.position(scope, "L")
        self.emit(depth, f"{target}[{where}] {op} {value}")

    def _array(self, scope: Scope, depth: int, nesting: int) -> None:
        """Array work on `out` (a new array of its length, or in place), at frame level or in
        a loop body; in place, a float into an integer `out` raises as NumPy does."""
        other = self.pick(["a", "b", "out[::-1]", "M[0, 0]", self.element(scope, 1)])
        self.emit(depth, self.pick([
            f"out = out {self.pick(['+', '-', '*'])} {other}",
            f"out = np.where({self.pick(['a', 'b'])} > 0, out, {other})",
            f"out = np.maximum(out, {other})",
            f"out = np.sqrt(np.abs(out)) * {self.pick(['0.5', '2', '-1'])}",
            f"out = np.cumsum(out)",
            f"out {self.pick(['+=', '*=', '-='])} {other}",
            f"out[:] = {other}",
            f"out = (out * 2).astype({self.pick(['np.float32', 'np.int64', 'np.int8'])})",
        ]))

    def _counter(self, scope: Scope, depth: int, nesting: int) -> None:
        """A compacting store at a counter `m` that only grows: past the end it raises
        IndexError, as Python does."""
        self.emit(depth, f"if {self.condition(scope)}:")
        self.emit(depth + 1, f"out[m] = {self.element(scope)}")
        self.emit(depth + 1, "m += 1")
        if self.chance(0.3):
            self.emit(depth, f"s = s + {self.pick(['a', 'b', 'out'])}[m - 1]")

    def _append(self, scope: Scope, depth: int, nesting: int) -> None:
        value = self.pick([self.float_expr(scope, 1), self.element(scope), "t"])
        self.emit(depth, f"lst.append({value})")

    def _swap(self, scope: Scope, depth: int, nesting: int) -> None:
        x, y = self.position(scope, "L"), self.position(scope, "L")
        array = self.pick(["a", "out"])
        self.emit(depth, f"{array}[{x}], {array}[{y}] = {array}[{y}], {array}[{x}]")

    def _if(self, scope: Scope, depth: int, nesting: int) -> None:
        self.emit(depth, f"if {self.condition(scope)}:")
        self.block(scope, depth + 1, nesting + 1)
        while self.chance(0.3):
            self.emit(depth, f"elif {self.condition(scope)}:")
            self.block(scope, depth + 1, nesting + 1)
        if self.chance(0.4):
            self.emit(depth, "else:")
            self.block(scope, depth + 1, nesting + 1)

    def _exit(self, scope: Scope, depth: int, word: str) -> None:
        self.emit(depth, f"if {self.condition(scope)}:")
        self.emit(depth + 1, word)

    def _break(self, scope: Scope, depth: int, nesting: int) -> None:
        self._exit(scope, depth, "break")

    def _continue(self, scope: Scope, depth: int, nesting: int) -> None:
        self._exit(scope, depth, "continue")

    def _return(self, scope: Scope, depth: int, nesting: int) -> None:
        self._exit(scope, depth, f"return {self.returned()}")

    def _for(self, scope: Scope, depth: int, nesting: int) -> None:
        header, inner = self.for_header(scope)
        self.emit(depth, header)
        self.block(inner.inner(loops=scope.loops + 1), depth + 1, nesting + 1)
        name = header.split()[1].rstrip(",")
        if self.chance(0.2):
            # The loop variable read after the loop (after a `break`, or its last value; a
            # loop that never ran leaves it unbound: UnboundLocalError).
            if self.chance(0.5):
                self.emit(depth + 1, f"if {self.condition(inner.inner(loops=1))}:")
                self.emit(depth + 2, "break")
            if name.startswith("i"):
                self.emit(depth, self.pick([f"h = h + {name}", f"c = {name}",
                                            f"s = s + a[{name}]"]))
            else:
                self.emit(depth, self.pick([f"s = s + {name}", f"t = t + float({name})",
                                            f"lst.append({name})"]))

    def for_header(self, scope: Scope) -> tuple[str, Scope]:
        i = self.name("i")
        outer = [x for x in scope.indices if x.extent == "L"]
        kinds = ["range", "range", "range_n", "range1", "back", "step", "back_step", "const",
                 "array", "enumerate", "zip", "rows", "matrix_rows", "matrix_cols", "arange"]
        kinds += ["triangle", "upper"] * bool(outer)
        kind = self.pick(kinds)
        index = {
            "range": ("range(len(a))", Index(i, "L", 0, 0)),
            "range_n": ("range(n)", Index(i, "L", 0, 0)),
            "range1": ("range(1, len(a))", Index(i, "L", 1, 0)),
            "back": ("range(len(a) - 1, -1, -1)", Index(i, "L", 0, 0)),
            "step": (f"range(0, len(a) - 1, {self.pick(['2', '3'])})", Index(i, "L", 0, 1)),
            "back_step": ("range(len(a) - 1, 0, -2)", Index(i, "L", 1, 0)),
            "matrix_rows": ("range(M.shape[0])", Index(i, "R", 0, 0)),
            "matrix_cols": ("range(1, M.shape[1])", Index(i, "C", 1, 0)),
            "arange": (f"np.arange({self.pick(['len(a)', 'n'])})", Index(i, "L", 0, 0)),
        }
        if kind in index:
            bounds, idx = index[kind]
            return f"for {i} in {bounds}:", scope.inner(indices=scope.indices + [idx])
        if kind == "triangle":
            o = self.pick(outer)
            return (f"for {i} in range({o.name}):",
                    scope.inner(indices=scope.indices + [Index(i, "L", 0, o.after + 1)]))
        if kind == "upper":
            o = self.pick(outer)
            return (f"for {i} in range({o.name} + 1, len(a)):",
                    scope.inner(indices=scope.indices + [Index(i, "L", o.before + 1, 0)]))
        if kind == "const":
            trips = self.pick(["3", "12", "0", "20"])
            return f"for {i} in range({trips}):", scope.inner(ints=scope.ints + [i])
        v = self.name("v")
        if kind == "array":
            return f"for {v} in {self.pick(['a', 'b'])}:", scope.inner(
                elements=scope.elements + [v])
        if kind == "enumerate":
            return f"for {i}, {v} in enumerate({self.pick(['a', 'b'])}):", scope.inner(
                indices=scope.indices + [Index(i, "L", 0, 0)], elements=scope.elements + [v])
        if kind == "zip":
            u = self.name("u")
            return f"for {u}, {v} in zip(a, b):", scope.inner(
                elements=scope.elements + [u, v])
        row = self.name("row")
        return f"for {row} in M:", scope.inner(rows=scope.rows + [row])

    def _while(self, scope: Scope, depth: int, nesting: int) -> None:
        k = self.name("k")
        inner = scope.inner(loops=scope.loops + 1, whiles=scope.whiles + 1,
                            ints=scope.ints + [k])
        form = self.pick(["halve", "scan", "count", "sort"])
        over = [x for x in scope.indices if x.extent == "L"]
        if form == "sort" and over:
            o = self.pick(over)
            self.emit(depth, f"{k} = {o.name}")
            self.emit(depth, f"while {k} > 0 and {self.pick(['a', 'out'])}[{k} - 1] > "
                             f"{self.pick(['a', 'out'])}[{k}]:")
            self.emit(depth + 1, f"a[{k} - 1], a[{k}] = a[{k}], a[{k} - 1]")
            self.emit(depth + 1, f"{k} -= 1")
            return
        if form == "scan":
            self.emit(depth, f"{k} = 0")
            self.emit(depth, f"while {k} < len(a) and {self.pick(['a', 'b'])}[{k}] "
                             f"{self.pick(['>', '!=', '<='])} {self.pick(['0', '1', 't'])}:")
            self.emit(depth + 1, f"{k} += 1")
            inner.indices = inner.indices + [Index(k, "L", 0, 0)]
            inner.ints = scope.ints
            if self.chance(0.3):
                self.block(inner, depth + 1, nesting + 1)
                self.emit(depth, f"s = s + {self.pick(['a', 'b'])}[{k}]")  # IndexError at the end
                return
        elif form == "count":
            start = self.pick(["len(a)", "n", "abs(h) % 20"])
            self.emit(depth, f"{k} = {start}")
            self.emit(depth, f"while {k} > 0:")
            self.emit(depth + 1, f"{k} -= 1")
            if start != "abs(h) % 20":  # then k counts down over positions of `a`
                inner.indices = inner.indices + [Index(k, "L", 0, 0)]
        else:
            self.emit(depth, f"{k} = abs({self.int_expr(scope, 1)})")
            self.emit(depth, f"while {k} > {self.pick(['0', '1'])}:")
            self.emit(depth + 1, f"{k} {self.pick(['//=', '>>='])} {self.pick(['2', '3'])}")
        if self.chance(0.8):
            self.block(inner, depth + 1, nesting + 1)

    def returned(self) -> str:
        names = self.draw(st.lists(st.sampled_from(["h", "c", "t", "s", "out", "a", "M", "m",
                                                    "out[-1:]", "lst", "len(lst)",
                                                    "np.array(lst)", "sum(lst)"]),
                                   min_size=1, max_size=4, unique=True))
        return f"({', '.join(names)},)"


@st.composite
def loop_programs(draw: st.DrawFn) -> LoopProgram:
    w = _Writer(draw)
    dtypes = (draw(st.sampled_from(DTYPES)), draw(st.sampled_from(DTYPES)),
              draw(st.sampled_from(DTYPES)))
    w.emit(1, "h = 0")
    w.emit(1, "c = 0")
    w.emit(1, "t = 0.0")
    w.emit(1, "lst = []")
    w.emit(1, "m = 0")
    w.emit(1, f"s = {draw(st.sampled_from(['0', '0', '0.0', 'a[0]', 'np.float32(1)']))}")
    w.emit(1, draw(st.sampled_from(["out = np.zeros(len(a))", "out = a.copy()",
                                    "out = np.zeros_like(b)", "out = np.ones(len(a), np.int64)",
                                    "out = b"])))
    scope = Scope()
    for _ in range(draw(st.integers(1, 3))):
        w._for(scope, 1, 0) if draw(st.integers(0, 3)) else w.statement(scope, 1, 0)
    w.emit(1, f"return {w.returned()}")
    source = "def program(a, b, M, n):\n" + "\n".join(w.lines) + "\n"
    # Mostly longer than `config.unroll_max_trips`, so loops become loop ops.
    length = draw(st.sampled_from([0, 1, 3, 12, 16, 20, 20, 24]))
    rows, cols = draw(st.integers(1, 12)), draw(st.integers(1, 12))
    calls = []
    for _ in range(draw(st.integers(1, 3))):
        seed = draw(st.integers(0, 2**16))
        if calls and draw(st.booleans()):
            length = draw(st.sampled_from([1, 9, 16, 20]))
        calls.append((length, rows, cols, draw(st.integers(0, length)), seed))
    return LoopProgram(source, dtypes, calls, draw(st.sampled_from(["C", "C", "F"])))
