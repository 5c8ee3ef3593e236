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

`np.random.default_rng(seed)` with an int seed, made inside the frame, is made by the entry
too (`__ember_rN`), and drawn from as any generator.
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
    block: tuple[int, bool] | None = None  # (trips, whole): a loop op's rows (`block_for`)


@dataclass(frozen=True)
class BlockPlan:
    """The one draw of a loop op's body, learned by a first capture: from which generator,
    with which method and arguments."""

    generator: Any
    source: Source
    method: str
    values: tuple
    named: tuple
    what: str

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, BlockPlan) and other.generator is self.generator
                and (other.source, other.method, other.what) == (self.source, self.method,
                                                                 self.what)
                and repr((other.values, other.named)) == repr((self.values, self.named)))

    def __hash__(self) -> int:
        return hash((self.source, self.method, self.what))


class DrawInLoop(Exception):
    """A draw first made inside the body of the loop op at `key`: capture starts again with
    the loop's draws made as one block where it starts."""

    def __init__(self, key: tuple[Any, int], plan: BlockPlan) -> None:
        super().__init__(f"{plan.what} inside a loop")
        self.key = key
        self.plan = plan


@dataclass
class Block:
    """The rows a loop op's body draws, one a trip: a graph input of the enclosing graph."""

    plan: BlockPlan
    source: DrawSource
    traced: dict[int, int]


def block_for(tx: Interpreter, key: tuple[Any, int], iterator: Any,
              bounds: Any) -> Block | None:
    """Where the capture learned that the loop op at `key` draws (`DrawInLoop`): its block,
    drawn by the entry in program order (here, as the loop starts), one row a trip. None
    where the loop draws nothing; a refusal where it cannot be one block (trips known only at
    run time, a loop inside another loop op, over anything but a range)."""
    from ember.capture.variables.constant import ConstantVariable

    tracer = tx.tracer
    plan = tracer.draw_loops.get(key)
    if plan is None:
        return None
    origin = iterator.origin
    if (bounds is not None or tx.graph.parent is not None
            or not isinstance(origin, ConstantVariable) or type(origin.value) is not range
            or origin.value.step != 1):
        raise graph_break("loop_body", what=f"{plan.what} in a loop that is not a counted "
                                            "range at the frame's level,")
    trips = len(origin.value) - iterator.index
    generator = tracer.wrap(plan.generator, plan.source)
    if not isinstance(generator, GeneratorVariable):
        raise graph_break("loop_body", what=plan.what)
    named = dict(plan.named)
    example, block = _block_example(tracer, generator, plan, trips)
    index = len(tracer.draws)
    tracer.draws.append(Draw(f"__ember_d{index}", generator, plan.method,
                             [ConstantVariable(v) for v in plan.values],
                             {k: ConstantVariable(v) for k, v in named.items()}, block))
    source = DrawSource(index, f"{plan.what} on each of {trips} trips")
    from ember.capture.variables.array import ArrayVariable

    tracer.builder.cache[source] = ArrayVariable(
        tracer.add_view_input(example, example.shape, source), source)
    tracer.loop_trip_starts[key] = origin.value.start + iterator.index
    return Block(plan, source, {})


def _block_example(tracer: Any, generator: GeneratorVariable, plan: BlockPlan,
                   trips: int) -> tuple[np.ndarray, tuple[int, bool]]:
    """The block, drawn from the generator's shadow as the entry will draw it, and how:
    `(trips, whole)`, `whole` where one draw of all the rows is NumPy's stream row after
    row (`BLOCK_DRAWS`), else a draw per row."""
    shadow = tracer.draw_shadows.get(id(generator.value))
    if shadow is None:
        shadow = tracer.draw_shadows[id(generator.value)] = copy.deepcopy(generator.value)
    named = dict(plan.named)
    whole = _whole(plan)
    try:
        # Each trip's draw as Python makes it: a row of the block only where it is an array
        # or a NumPy scalar of the block's dtype (a Python float is a weak scalar).
        single = getattr(copy.deepcopy(shadow), plan.method)(*plan.values, **named)
        if whole:
            size = named.get("size")
            size = () if size is None else (size,) if np.ndim(size) == 0 else tuple(size)
            named["size"] = (trips, *size)
            example = getattr(shadow, plan.method)(*plan.values, **named)
        else:
            example = draw_rows(trips, lambda: getattr(shadow, plan.method)(*plan.values,
                                                                            **named))
    except Exception as exc:  # NumPy's own error, raised by the frame as Python
        raise graph_break("user_error", type=type(exc).__name__, message=str(exc)) from exc
    if type(example) is not np.ndarray or not (
            type(single) is np.ndarray or isinstance(single, np.generic)) or (
            np.asarray(single).dtype != example.dtype):
        raise graph_break("loop_body", what=f"{plan.what} (a Python number on each trip)")
    return example, (trips, whole)


def _whole(plan: BlockPlan) -> bool:
    """Whether `trips` draws of `plan` are one draw of `trips` rows, value for value and to
    the generator's state after (`tests/test_random_draws.py` checks each method): methods
    that draw element after element from the bit generator, their size given by keyword;
    not bounded integers of 8 or 16 bits (buffered within a call), nor `choice` and
    `permutation`."""
    named = dict(plan.named)
    if plan.method not in BLOCK_DRAWS or len(plan.values) > _POSITIONAL[plan.method]:
        return False
    if plan.method == "integers":
        dtype = np.dtype(named.get("dtype", np.int64))
        return dtype.kind in "iu" and dtype.itemsize >= 4 and not named.get("endpoint", False)
    return True


# Methods whose draws are element after element, with the most arguments they take before
# `size` (so that a call with more positional arguments passes its size by position).
_POSITIONAL = {"random": 0, "standard_normal": 0, "normal": 2, "uniform": 2,
               "exponential": 1, "standard_exponential": 0, "integers": 2, "poisson": 1,
               "binomial": 2, "gamma": 2, "beta": 2, "lognormal": 2, "laplace": 2,
               "logistic": 2, "gumbel": 2, "geometric": 1, "chisquare": 1, "standard_t": 1,
               "rayleigh": 1, "weibull": 1, "pareto": 1, "power": 1, "standard_cauchy": 0,
               "standard_gamma": 1}
BLOCK_DRAWS = frozenset(_POSITIONAL)


def draw_rows(trips: int, draw: Any) -> np.ndarray:
    """`trips` draws stacked as rows, in order (the entry's block where one draw of all the
    rows would not be NumPy's stream)."""
    if trips == 0:  # no row to learn the block's dtype from
        raise graph_break("loop_body", what="a loop of no trips that draws")
    return np.stack([np.asarray(draw()) for _ in range(trips)])


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

    def draw(self, tx: Interpreter, method: str, args: list[VariableTracker],
             kwargs: dict[str, VariableTracker], what: str) -> VariableTracker:
        """`self.method(*args, **kwargs)`, made by the entry ahead of the graph."""
        tracer = self.tracer
        values = [_known(a, what) for a in args]
        named = {k: _known(v, what) for k, v in kwargs.items()}
        if "out" in named:
            raise graph_break("side_effect", what=f"{what} with out=")
        if method in ("choice", "permutation") and values and not np.ndim(values[0]) == 0:
            raise graph_break("data_dependent_value", what=f"{what} of an array")
        if tracer.graph.parent is not None:
            if not all(_constant(a) for a in [*args, *kwargs.values()]):
                # A block is drawn with the values of this capture: only guarded constants.
                tracer._refuse_in_loop_body(what)
            return self._row(tx, method, values, named, what)
        shadow = tracer.draw_shadows.get(id(self.value))
        if shadow is None:
            shadow = tracer.draw_shadows[id(self.value)] = copy.deepcopy(self.value)
        try:
            example = getattr(shadow, method)(*values, **named)
        except Exception as exc:  # NumPy's own error, raised by the frame as Python
            raise graph_break("user_error", type=type(exc).__name__, message=str(exc)) from exc
        index = len(tracer.draws)
        tracer.draws.append(Draw(f"__ember_d{index}", self, method, list(args), dict(kwargs)))
        return _result(tracer, example, DrawSource(index, what),
                       _symbolic_shape(tracer, method, args, kwargs, example))

    def _row(self, tx: Interpreter, method: str, values: list, named: dict,
             what: str) -> VariableTracker:
        """A draw in the body of a loop op: this trip's row of a block the entry draws, one
        row a trip, before the graph (`block_for`). The first such draw restarts the capture
        (`DrawInLoop`) with the loop's draw known, so that the block is drawn where the loop
        starts; a second draw in the trip, one on a path of a branch or in a nested loop, or
        one from a generator made in the frame, refuses the loop op."""
        tracer = self.tracer
        loops = tracer.draw_loop_stack
        region = tracer.graph
        if not loops or self.source is None or region.parent.parent is not None:
            tracer._refuse_in_loop_body(what)
        key, block = loops[-1]
        at = _POSITIONAL.get(method)
        if at is not None and len(values) == at + 1 and "size" not in named:
            named = {**named, "size": values[at]}  # a size given by position, by keyword
            values = values[:at]
        plan = BlockPlan(self.value, self.source, method, tuple(values),
                         tuple(sorted(named.items())), what)
        if block is None:
            raise DrawInLoop(key, plan)
        stand_in = tracer.builder.cache.get(block.source)
        index = tracer.loop_trips.get(id(region))
        if (block.plan != plan or getattr(stand_in, "value", None) is None
                or stand_in.value.graph is not region or index is None
                or block.traced.get(id(region), 0) > 0):
            raise graph_break("loop_body", what=f"{what}, not one draw on every trip,")
        block.traced[id(region)] = 1
        from ember.capture.variables.array import ArrayVariable

        return stand_in.getitem(tx, ArrayVariable(index))

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
        return self.generator.draw(tx, self.method, args, kwargs, f"{self.describe()}(...)")

    def children(self) -> Iterable[Any]:
        return (self.generator,)


class DefaultRngVariable(VariableTracker):
    """`np.random.default_rng`: called with an int seed (a constant, or a Python int read from
    the frame), a fresh generator."""

    def __init__(self, source: Source | None) -> None:
        self.source = source

    def describe(self) -> str:
        return "np.random.default_rng"

    def call(self, tx: Interpreter, args: list[VariableTracker],
             kwargs: dict[str, VariableTracker]) -> VariableTracker:
        what = "np.random.default_rng(...)"
        tracer = tx.tracer
        tracer._refuse_in_loop_body(what)
        values = [_known(a, what) for a in args]  # a constant, or an int read from the frame
        named = {k: _known(v, what) for k, v in kwargs.items()}
        if any(type(v) is not int for v in [*values, *named.values()]) or not (values or named):
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
    saved: dict[str, str] = {}
    for draw in draws:
        owner = draw.owner
        if draw.method is None:
            call = emb.embed(np.random.default_rng, "default_rng")
            body.append(f"{draw.target} = {call}({_arguments(emb, draw)})")
            continue
        generator = owner.reload(emb)
        # One save per path to a generator: two paths may reach one generator in one call
        # and two in the next.
        if not owner.fresh() and generator not in saved:
            name = saved[generator] = f"__ember_s{len(saved)}"
            if owner.legacy():
                saves.append(f"{name} = {generator}.get_state()")
                restores.append(f"{generator}.set_state({name})")
            else:
                saves.append(f"{name} = {generator}.bit_generator.state")
                restores.append(f"{generator}.bit_generator.state = {name}")
        call = f"{generator}.{draw.method}"
        if draw.block is None:
            body.append(f"{draw.target} = {call}({_arguments(emb, draw)})")
        elif draw.block[1]:
            size = draw.kwargs.get("size")
            shape = () if size is None else size.constant()
            shape = (shape,) if np.ndim(shape) == 0 else tuple(shape)
            rest = {k: v for k, v in draw.kwargs.items() if k != "size"}
            args = _arguments(emb, Draw(draw.target, owner, draw.method, draw.args, rest))
            body.append(f"{draw.target} = {call}({args}{', ' if args else ''}"
                        f"size={(draw.block[0], *shape)!r})")
        else:
            rows = emb.embed(draw_rows, "draw_rows")
            body.append(f"{draw.target} = {rows}({draw.block[0]}, lambda: "
                        f"{call}({_arguments(emb, draw)}))")
    # Latest first: where two paths reach one generator, its first state is what remains.
    return saves, body, restores[::-1]


def _arguments(emb: Any, draw: Draw) -> str:
    return ", ".join([emb.expr(a) for a in draw.args]
                     + [f"{k}={emb.expr(v)}" for k, v in draw.kwargs.items()])


def _constant(vt: VariableTracker) -> bool:
    from ember.capture.variables.containers import TupleVariable

    if isinstance(vt, TupleVariable):
        return all(_constant(i) for i in vt.items)
    return vt.is_constant()


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


def _symbolic_shape(tracer: Any, method: str, args: list[VariableTracker],
                    kwargs: dict[str, VariableTracker], example: Any) -> tuple | None:
    """The draw's shape with the symbols of the sizes it was given (`rng.normal(size=x.shape)`
    with `x` of symbolic shape, `rng.normal(size=(n, m))` with ints that change between
    calls), or None where its size has none. A run-time int that decides the shape and
    stands for no symbol is guarded as the constant it is now: the entry draws with the
    frame's value, which must give the shape the graph was made for."""
    from ember.capture.variables.containers import TupleVariable
    from ember.capture.variables.scalar import PythonScalarVariable

    size = kwargs.get("size")
    at = _POSITIONAL.get(method)
    if size is None and at is not None and len(args) > at:
        size = args[at]
    if method == "permutation" and args and not isinstance(args[0], TupleVariable):
        size = args[0]  # `permutation(n)`: n elements (of an array argument: its own shape)
    if size is None or type(example) is not np.ndarray:
        return None
    dims = size.items if isinstance(size, TupleVariable) else [size]
    if len(dims) != example.ndim:
        structural_ints(size)
        return None
    shape = []
    for d, n in zip(dims, example.shape):
        symbol = None
        if isinstance(d, PythonScalarVariable):
            symbol = tracer.int_symbol(d)
            if symbol is None:
                d.specialise()
        shape.append(n if symbol is None else symbol)
    shape = tuple(shape)
    return shape if shape != example.shape else None


def structural_ints(vt: VariableTracker) -> None:
    """Guard the run-time ints in `vt` (a tuple of them) as the constants they are now."""
    from ember.capture.variables.containers import TupleVariable
    from ember.capture.variables.scalar import structural

    if isinstance(vt, TupleVariable):
        for item in vt.items:
            structural_ints(item)
    else:
        structural(vt)


def _result(tracer: Any, example: Any, source: DrawSource,
            shape: tuple | None = None) -> VariableTracker:
    from ember.capture.variables.array import ArrayVariable
    from ember.capture.variables.scalar import PythonScalarVariable

    if type(example) is np.ndarray:
        shape = example.shape if shape is None else shape
        return ArrayVariable(tracer.add_view_input(example, shape, source), source)
    if isinstance(example, np.generic):
        from ember.capture.tracer import GraphInput

        value = tracer._input(example.dtype, (), True)
        tracer.inputs.append(GraphInput(value, source, True, np.asarray(example)))
        return ArrayVariable(value, source)
    if type(example) in (int, float, bool):
        return PythonScalarVariable(tracer, type(example), example, source=source)
    raise graph_break("type", what=f"{source.what} (a {type(example).__name__})",
                      type=type(example).__name__)
