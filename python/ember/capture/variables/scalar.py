"""Python ints and floats known only at run time.

Under dynamic capture a Python scalar read from the frame (a learning rate, a step counter,
a loop's index handed to a resume function) is not specialised on: it becomes a
`PythonScalarVariable`, and so does arithmetic on it with constants and other such scalars.
That arithmetic is Python's own, evaluated by the entry (ints stay exact however large,
`1 / 0` raises ZeroDivisionError), never int64 or float64 ops in the graph. Where such a
scalar meets an array it enters the graph as a weak scalar input whose value the entry
computes before the call, as NumPy would take the Python number (NEP 50). Branching on one
needs its value: a graph break.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ember.capture.breaks import graph_break
from ember.capture.sources import Source
from ember.capture.variables.base import VariableTracker

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter

_NUMBER = (int, float)
# Result type of `a op b` for ints (floats give floats, except the comparisons).
_INT_RESULT = {"+": int, "-": int, "*": int, "//": int, "%": int, "/": float,
               "&": int, "|": int, "^": int, "<<": int, ">>": int}
_COMPARE = ("<", "<=", "==", "!=", ">", ">=")


class PythonScalarVariable(VariableTracker):
    """A Python int, float or bool computed at run time: a value read from the frame
    (`op` None, `source` set) or `op` applied to `operands` (trackers or constants)."""

    def __init__(self, tracer: Any, python_class: type, example: Any, *,
                 source: Source | None = None, op: str | None = None,
                 operands: tuple[Any, ...] = (), symbol: str | None = None) -> None:
        self.tracer = tracer
        self.symbol = symbol  # the symbolic dim a size read from an array stands for
        self.python_class = python_class
        self.example = example  # the value at capture (for the backend's example inputs)
        self.source = source
        self.op = op
        self.operands = operands

    def graph_value(self) -> Any:
        """The weak scalar input that brings this value into the graph."""
        return self.tracer.scalar_input(self)

    def specialise(self) -> VariableTracker:
        """The value as a constant, guarded on every value it was computed from: where an
        int is structure (an axis, a size, an index, a `range` bound), not data."""
        from ember.capture.variables.constant import ConstantVariable

        for leaf in self.leaves():
            self.tracer.guards.add(leaf.source, ("EQUALS_MATCH", leaf.example))
        return ConstantVariable(self.example)

    def leaves(self) -> list[PythonScalarVariable]:
        if self.op is None:
            return [self]
        return [leaf for x in self.operands if isinstance(x, PythonScalarVariable)
                for leaf in x.leaves()]

    def describe(self) -> str:
        if self.source is not None:
            return self.source.name()
        return f"a {self.python_class.__name__} computed at run time"

    def type_name(self) -> str:
        return self.python_class.__name__

    def python_type(self) -> type:
        return self.python_class

    def truth(self, tx: Interpreter) -> bool:
        raise graph_break("data_dependent_branch", name=self.describe())


def structural(vt: VariableTracker) -> VariableTracker:
    """`vt`, or a run-time Python int as the constant it is now (see `specialise`)."""
    if isinstance(vt, PythonScalarVariable) and vt.python_class is int:
        return vt.specialise()
    return vt


def is_python_number(vt: VariableTracker) -> bool:
    """A Python int/float/bool: a constant, or one known at run time."""
    if isinstance(vt, PythonScalarVariable):
        return True
    return vt.is_constant() and type(vt.constant()) in (int, float, bool)


def _kind(vt: VariableTracker) -> type:
    if isinstance(vt, PythonScalarVariable):
        return vt.python_class
    return type(vt.constant())


def _operand(vt: VariableTracker) -> Any:
    return vt if isinstance(vt, PythonScalarVariable) else vt.constant()


def _example(vt: VariableTracker) -> Any:
    return vt.example if isinstance(vt, PythonScalarVariable) else vt.constant()


def _tracer(*operands: VariableTracker) -> Any:
    return next(v.tracer for v in operands if isinstance(v, PythonScalarVariable))


def binary(op: str, a: VariableTracker, b: VariableTracker) -> PythonScalarVariable:
    """`a op b` on Python numbers, one of them known only at run time."""
    from ember.capture.variables.constant import BINARY_OPERATORS, COMPARE_OPERATORS, fold

    kinds = {_kind(a), _kind(b)}
    if op in _COMPARE:
        result: type = bool
    elif op == "**":
        # The type of `int ** int` depends on the exponent's sign, and a negative float to a
        # fractional power is complex: only a constant exponent is followed.
        exponent = b.constant() if b.is_constant() else None
        if _kind(a) is float and _kind(b) in (int, bool):
            # A float to an integer power is a float whatever the exponent (Adam's bias
            # correction `0.9 ** t`, `b1 ** t` with `b1` an argument); `0.0 ** -1` and an
            # overflow raise in Python, where the expression runs.
            exponent = 1
        if type(exponent) is not int:
            raise graph_break("data_dependent_value", what=f"{a.describe()} ** {b.describe()}")
        result = float if float in kinds or exponent < 0 else int
    elif float in kinds:
        if op not in ("+", "-", "*", "/", "//", "%"):
            raise graph_break("type", what=f"operator {op} on {a.describe()}", type="float")
        result = float
    elif op in _INT_RESULT:
        result = _INT_RESULT[op]
    else:
        raise graph_break("type", what=f"operator {op} on {a.describe()}", type="int")
    fn = COMPARE_OPERATORS.get(op) or BINARY_OPERATORS[op]
    # Python's own error for these values (1 / 0) is the program's: a break raises it.
    example = fold(f"operator {op}", fn, _example(a), _example(b))
    return PythonScalarVariable(_tracer(a, b), type(example) if op in _COMPARE else result,
                                example, op=op, operands=(_operand(a), _operand(b)))


def unary(op: str, a: PythonScalarVariable) -> PythonScalarVariable:
    from ember.capture.variables.constant import UNARY_OPERATORS

    if op in ("-", "+", "abs") or (op == "~" and a.python_class in (int, bool)):
        fn = abs if op == "abs" else UNARY_OPERATORS[op]
        kind = int if op == "~" or a.python_class is bool else a.python_class
        return PythonScalarVariable(a.tracer, kind, fn(a.example), op=op, operands=(a,))
    raise graph_break("type", what=f"operator {op} on {a.describe()}", type=a.type_name())


def convert(kind: type, a: PythonScalarVariable) -> PythonScalarVariable:
    """`int(a)` / `float(a)`."""
    from ember.capture.variables.constant import fold

    return PythonScalarVariable(a.tracer, kind, fold(f"{kind.__name__}()", kind, a.example),
                                op=kind.__name__, operands=(a,))


def render(vt: PythonScalarVariable, leaf: Any) -> str:
    """The Python expression computing `vt`; `leaf(tracker)` gives a source's reload."""
    def part(x: Any) -> str:
        if isinstance(x, PythonScalarVariable):
            return render(x, leaf)
        return repr(x)

    if vt.op is None:
        return leaf(vt)
    if vt.op in ("int", "float", "abs"):
        return f"{vt.op}({part(vt.operands[0])})"
    if len(vt.operands) == 1:
        return f"({vt.op}{part(vt.operands[0])})"
    a, b = vt.operands
    return f"({part(a)} {vt.op} {part(b)})"


class ComputedSource(Source):
    """What a graph input holds when it is a Python scalar computed at run time: the entry
    evaluates the expression (no guard: its leaves are guarded where they are read)."""

    def __init__(self, scalar: PythonScalarVariable) -> None:
        self.scalar = scalar

    def name(self) -> str:
        return self.scalar.describe()

    def accessors(self) -> tuple[tuple, ...]:
        return ()

    def reload(self, emb: Any) -> str:
        return emb.expr(self.scalar)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ComputedSource) and other.scalar is self.scalar

    def __hash__(self) -> int:
        return id(self.scalar)
