"""Random draws: calls on a `np.random.Generator` and the legacy `np.random.*` functions.

A draw is made by the entry itself, ahead of the graph and in program order, from the very
generator the frame would have used, with the same method and arguments; its result enters
the graph as an input (`DrawSource`). So the values, their dtype and Python type, and the
generator's state afterwards are NumPy's by construction. Capture learns the result's type
and shape by making the same draws from a copy of the generator (`Tracer.draw_shadows`),
never from the frame's own. The arguments must be known before the graph runs: constants, and Python numbers
read from the frame; a draw whose arguments the graph computes, or one inside a loop op's
body (made once per trip), is a graph break. The entry saves the state of every generator of
the frame it draws from before the first draw, and restores it before the frame runs as
plain Python instead (an error, a rerun), so that the stream is drawn once.

`np.random.default_rng(seed)` with a constant seed, made inside the frame, is made by the
entry too (`__ember_rN`), and drawn from as any generator.
"""

from __future__ import annotations

import copy
import types
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ember.capture.breaks import graph_break
from ember.capture.sources import AttrSource, Source
from ember.capture.variables.base import VariableTracker

if TYPE_CHECKING:
    from ember.capture.interpreter import Interpreter

# Methods whose result depends only on the generator's state and the arguments, and
# which leave their arguments alone (not `shuffle`, which permutes its argument in place,
# nor `choice`/`permutation` of an array, which the graph may have changed).
GENERATOR_DRAWS = frozenset((
    "random", "standard_normal", "normal", "uniform", "integers", "exponential",
    "standard_exponential", "binomial", "poisson", "choice", "permutation", "gamma",
    "standard_gamma", "beta", "lognormal", "laplace", "logistic", "gumbel", "geometric",
    "standard_t", "chisquare", "triangular", "rayleigh", "weibull", "pareto", "power",
    "negative_binomial", "standard_cauchy", "vonmises", "wald", "f", "hypergeometric",
    "logseries", "zipf", "noncentral_chisquare", "noncentral_f", "bytes"))
_GLOBAL_STATE = "<np.random's global RandomState>"
LEGACY_DRAWS = GENERATOR_DRAWS - {"integers"} | {
    "rand", "randn", "randint", "random_sample", "random_integers", "ranf", "sample"}


class DrawSource(Source):
    """The result of draw `index` of the entry, which made it before the graph call."""

    def __init__(self, index: int, what: str) -> None:
        self.index = index
        self.what = what

    def name(self) -> str:
        return self.what

    def accessors(self) -> tuple[tuple, ...]:
        raise graph_break("data_dependent_value", what=f"{self.what} as a constant")

    def reload(self, emb: Any) -> str:
        return f"__ember_d{self.index}"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DrawSource) and other.index == self.index

    def __hash__(self) -> int:
        return hash((DrawSource, self.index))


@dataclass
class Draw:
    """One statement of the entry ahead of the graph: `target = owner.method(*args)`
    (`owner` a generator tracker; `method` None: `target` makes a fresh generator)."""

    target: str
    owner: GeneratorVariable
    method: str | None
    args: list[VariableTracker]
    kwargs: dict[str, VariableTracker]


class GeneratorVariable(VariableTracker):
    """A `np.random.Generator` (or the legacy `RandomState` behind `np.random.*`): read from
    the frame (`source`), or made in it by `np.random.default_rng(seed)` (`made`)."""

    def __init__(self, tracer: Any, value: Any, source: Source | None,
                 made: str | None = None) -> None:
        self.tracer = tracer
        self.value = value
        self.source = source
        self.made = made  # the entry's name for a generator it makes

    def type_name(self) -> str:
        return type(self.value).__name__

    def python_type(self) -> type:
        return type(self.value)

    def legacy(self) -> bool:
        return isinstance(self.value, np.random.RandomState)

    def getattr(self, tx: Interpreter, name: str) -> VariableTracker:
        methods = LEGACY_DRAWS if self.legacy() else GENERATOR_DRAWS
        if name in methods:
            return DrawMethodVariable(self, name)
        return super().getattr(tx, name)

    def draw(self, method: str, args: list[VariableTracker],
             kwargs: dict[str, VariableTracker], what: str) -> VariableTracker:
        """`self.method(*args, **kwargs)`, made by the entry ahead of the graph."""
        tracer = self.tracer
        tracer._refuse_in_loop_body(what)
        values = [_known(a, what) for a in args]
        named = {k: _known(v, what) for k, v in kwargs.items()}
        if "out" in named:
            raise graph_break("side_effect", what=f"{what} with out=")
        if method in ("choice", "permutation") and values and not np.ndim(values[0]) == 0:
            raise graph_break("data_dependent_value", what=f"{what} of an array")
        shadow = tracer.draw_shadows.get(id(self.value))
        if shadow is None:
            shadow = tracer.draw_shadows[id(self.value)] = copy.deepcopy(self.value)
        try:
            example = getattr(shadow, method)(*values, **named)
        except Exception as exc:  # NumPy's own error, raised by the frame as Python
            raise graph_break("user_error", type=type(exc).__name__, message=str(exc)) from exc
        index = len(tracer.draws)
        tracer.draws.append(Draw(f"__ember_d{index}", self, method, list(args), dict(kwargs)))
        return _result(tracer, example, DrawSource(index, what))

    def reload(self, emb: Any) -> str:
        if self.made == _GLOBAL_STATE:
            return f"{emb.embed(np.random.mtrand, 'mtrand')}._rand"
        return self.made if self.made is not None else emb.reload(self.source)

    def fresh(self) -> bool:
        """Made by the entry (no state of the frame's to restore)."""
        return self.made is not None and self.made != _GLOBAL_STATE

    def children(self) -> Iterable[Any]:
        return ()


class DrawMethodVariable(VariableTracker):
    """`rng.normal` (bound, not yet called)."""

    def __init__(self, generator: GeneratorVariable, method: str) -> None:
        self.generator = generator
        self.method = method

    def describe(self) -> str:
        return f"{self.generator.describe()}.{self.method}"

    def call(self, tx: Interpreter, args: list[VariableTracker],
             kwargs: dict[str, VariableTracker]) -> VariableTracker:
        return self.generator.draw(self.method, args, kwargs, f"{self.describe()}(...)")

    def children(self) -> Iterable[Any]:
        return (self.generator,)


class DefaultRngVariable(VariableTracker):
    """`np.random.default_rng`: called with a constant seed, a fresh generator."""

    def __init__(self, source: Source | None) -> None:
        self.source = source

    def describe(self) -> str:
        return "np.random.default_rng"

    def call(self, tx: Interpreter, args: list[VariableTracker],
             kwargs: dict[str, VariableTracker]) -> VariableTracker:
        what = "np.random.default_rng(...)"
        tracer = tx.tracer
        tracer._refuse_in_loop_body(what)
        if not all(a.is_constant() for a in [*args, *kwargs.values()]):
            raise graph_break("data_dependent_value", what=f"{what} of a value known at run time")
        values = [a.constant() for a in args]
        named = {k: v.constant() for k, v in kwargs.items()}
        if any(v is None or isinstance(v, (np.random.SeedSequence, np.random.BitGenerator,
                                           np.random.Generator))
               for v in [*values, *named.values()]) or not (values or named):
            raise graph_break("data_dependent_value", what=f"{what} without a seed")
        value = np.random.default_rng(*values, **named)
        name = f"__ember_r{len(tracer.draws)}"
        made = GeneratorVariable(tracer, value, None, made=name)
        tracer.draws.append(Draw(name, made, None, list(args), dict(kwargs)))
        return made


def wrap_random(builder: Any, value: Any, source: Source | None) -> VariableTracker | None:
    """The tracker of `value` where it is a generator, a legacy `np.random.*` function or
    `np.random.default_rng` (read from `np.random`, a stable module: `source` None, guarded
    through the module); None otherwise."""
    guard = builder._guard
    tracer = builder.tracer
    if value is np.random.default_rng:
        guard(source, "ID_MATCH", value)
        return DefaultRngVariable(source)
    if source is None:
        if _bound_draw(value) is np.random.mtrand._rand:
            owner = GeneratorVariable(tracer, value.__self__, None, made=_GLOBAL_STATE)
            return owner.getattr(None, value.__name__)
        return None
    if type(value) is np.random.Generator:
        guard(source, "TYPE_MATCH", np.random.Generator)
        return GeneratorVariable(tracer, value, source)
    if _bound_draw(value) is not None:  # `draw = rng.normal` handed in
        guard(source, "TYPE_MATCH", type(value))
        guard(AttrSource(source, "__name__"), "EQUALS_MATCH", value.__name__)
        owner = builder.wrap(value.__self__, AttrSource(source, "__self__"))
        if isinstance(owner, GeneratorVariable):
            return owner.getattr(None, value.__name__)
        return None
    if type(value) is np.random.RandomState:
        guard(source, "TYPE_MATCH", np.random.RandomState)
        return GeneratorVariable(tracer, value, source)
    return None


def _bound_draw(value: Any) -> Any:
    """The generator `value` is a method of (`rng.normal`, `np.random.normal`), or None."""
    if not isinstance(value, (types.BuiltinMethodType, types.MethodType)):
        return None
    owner = getattr(value, "__self__", None)
    return owner if type(owner) in (np.random.Generator, np.random.RandomState) else None


def draw_lines(emb: Any, draws: list[Draw]) -> tuple[list[str], list[str], list[str]]:
    """The entry's statements for `draws`: saving each frame generator's state (before its
    try), the draws in program order (first in it), and the restores before the frame runs
    as plain Python."""
    saves: list[str] = []
    body: list[str] = []
    restores: list[str] = []
    saved: dict[Any, str] = {}
    for draw in draws:
        owner = draw.owner
        if draw.method is None:
            call = emb.embed(np.random.default_rng, "default_rng")
            body.append(f"{draw.target} = {call}({_arguments(emb, draw)})")
            continue
        generator = owner.reload(emb)
        if not owner.fresh() and id(owner.value) not in saved:
            name = saved[id(owner.value)] = f"__ember_s{len(saved)}"
            if owner.legacy():
                saves.append(f"{name} = {generator}.get_state()")
                restores.append(f"{generator}.set_state({name})")
            else:
                saves.append(f"{name} = {generator}.bit_generator.state")
                restores.append(f"{generator}.bit_generator.state = {name}")
        body.append(f"{draw.target} = {generator}.{draw.method}({_arguments(emb, draw)})")
    # Latest first: where two paths reach one generator, its first state is what remains.
    return saves, body, restores[::-1]


def _arguments(emb: Any, draw: Draw) -> str:
    return ", ".join([emb.expr(a) for a in draw.args]
                     + [f"{k}={emb.expr(v)}" for k, v in draw.kwargs.items()])


def _known(vt: VariableTracker, what: str) -> Any:
    """The value of a draw's argument at capture: a constant, a tuple of them, or a Python
    number read from the frame (its example)."""
    from ember.capture.variables.containers import TupleVariable
    from ember.capture.variables.scalar import PythonScalarVariable

    if isinstance(vt, PythonScalarVariable):
        if any(isinstance(leaf.source, DrawSource) for leaf in vt.leaves()):
            raise graph_break("data_dependent_value", what=f"{what} of an earlier draw")
        return vt.example
    if isinstance(vt, TupleVariable):
        return tuple(_known(i, what) for i in vt.items)
    if vt.is_constant():
        value = vt.constant()
        if value is None or isinstance(value, (bool, int, float, str, tuple, type, np.dtype)):
            return value
    raise graph_break("data_dependent_value", what=f"{what} of {vt.describe()}")


def _result(tracer: Any, example: Any, source: DrawSource) -> VariableTracker:
    from ember.capture.variables.array import ArrayVariable
    from ember.capture.variables.scalar import PythonScalarVariable

    if type(example) is np.ndarray:
        return ArrayVariable(tracer.add_view_input(example, example.shape, source), source)
    if isinstance(example, np.generic):
        from ember.capture.tracer import GraphInput

        value = tracer._input(example.dtype, (), True)
        tracer.inputs.append(GraphInput(value, source, True, np.asarray(example)))
        return ArrayVariable(value, source)
    if type(example) in (int, float, bool):
        return PythonScalarVariable(tracer, type(example), example, source=source)
    raise graph_break("type", what=f"{source.what} (a {type(example).__name__})",
                      type=type(example).__name__)
