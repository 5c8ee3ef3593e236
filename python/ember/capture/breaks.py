"""The catalogue of graph-break reasons: every refusal in capture comes from here.

A break is an `Unsupported(reason, hint, kind)`; `kind` names the catalogue entry so that
stats and `explain` can count reasons, and the hint says what the user can do.
"""

from __future__ import annotations

from ember.errors import Unsupported

# kind -> (reason template, hint)
CATALOGUE: dict[str, tuple[str, str]] = {
    "bytecode": (
        "unsupported bytecode {opname}",
        "the instruction runs in Python between two graphs",
    ),
    "data_dependent_branch": (
        "branch on the value of an array ({name})",
        ("the branch is taken in Python between two graphs; branch on shapes, dtypes or "
         "Python values, or select elementwise with np.where, to keep one graph"),
    ),
    "data_dependent_value": (
        "an array's values are read in Python ({what})",
        ("it is read in Python between two graphs; keep it an array (0-d arrays work in "
         "arithmetic) to keep one graph"),
    ),
    "call": (
        "call to {name} is not supported",
        ("the call runs in Python between two graphs; only NumPy functions known to ember, "
         "Python functions (inlined) and simple builtins are captured"),
    ),
    "numpy": ("{reason}", "see docs/IR.md for the NumPy operations ember supports"),
    "side_effect": (
        "{what} has a side effect outside the captured function",
        ("it runs in Python between two graphs, in program order; move it out of hot code "
         "to keep one graph"),
    ),
    "type": (
        "{what} of type {type} is not supported",
        "pass arrays, Python scalars, tuples/lists/dicts or plain objects holding them",
    ),
    "attribute": (
        "attribute {name} of {what} is not supported",
        ("it is read in Python between two graphs; only plain instance and class attributes "
         "are captured (no __getattr__)"),
    ),
    "generator": (
        "{name} is a generator or coroutine function",
        "generators suspend and cannot be inlined; build a list instead",
    ),
    "recursion": (
        "call depth over {limit} while inlining {name}",
        ("the call runs in Python and is compiled on its own; recursion must end after a few "
         "levels on static values to be inlined"),
    ),
    "unroll": (
        "more than {limit} instructions executed while unrolling loops",
        ("loops over static ranges are unrolled; the rest of a very long loop continues in "
         "further graphs"),
    ),
    "loop_budget": (
        "a loop of {trips} trips would add about {ops} ops unrolled (budget {budget})",
        ("the frame runs as plain Python with NumPy; a loop whose body ember captures "
         "becomes one loop op instead (see docs/ARCHITECTURE.md, loops)"),
    ),
    "loop_break": (
        "{reason}, inside a loop of {trips} trips",
        ("the frame runs as plain Python: a graph break on every trip costs more than NumPy; "
         "a loop whose body ember captures becomes one loop op instead"),
    ),
    "complex": (
        "{what}",
        ("ember has no complex dtype: the frame runs as plain Python with NumPy (its arrays "
         "and numbers would cross into Python at every break)"),
    ),
    "big_int": (
        "{what}: a Python int past int64",
        ("the frame runs as plain Python: ember's integers are 64-bit, and a Python int past "
         "them would reach Python at every use"),
    ),
    "carried_shape": (
        "a carried value whose shape changes ({before} -> {after}) inside a loop body "
        "captured as one loop op",
        "the loop is unrolled up to config.unroll_op_limit ops, else the frame runs as "
        "plain Python",
    ),
    "loop_body": (
        "{what} inside a loop body captured as one loop op",
        "the loop is unrolled if it is short, else the frame runs as plain Python",
    ),
    "raise": (
        "the function raises {what}",
        "the exception is raised in Python, from the user's line",
    ),
    "user_error": (
        "{type}: {message}",
        "NumPy raises this for these inputs; it is raised in Python, from the user's line",
    ),
    "disabled": (
        "call to {name}, marked with ember.disable",
        "the call runs in Python between two graphs; remove ember.disable to inline it",
    ),
    "inplace": (
        "in-place update of {name}, which is a graph input or may alias other arrays",
        "the update runs in Python between two graphs; write `x = x + y` to keep one graph",
    ),
    "name": ("name {name} is not defined", "Python raises NameError from the user's line"),
    "dynamic_shape": (
        "{what} is a symbolic size used as a Python value",
        "captured again with static shapes; pass dynamic=False to skip the symbolic attempt",
    ),
    "mutation": (
        "mutation of {what}, which comes from outside the function",
        ("the mutation runs in Python between two graphs; build a new list or dict to keep "
         "one graph"),
    ),
}


def graph_break(kind: str, **details: object) -> Unsupported:
    """The `Unsupported` for catalogue entry `kind`, its reason filled with `details`."""
    template, hint = CATALOGUE[kind]
    return Unsupported(template.format(**details), hint, kind)


def from_numpy_api(exc: Unsupported) -> Unsupported:
    """Give an `Unsupported` raised by the NumPy mapping its catalogue kind and a hint."""
    if exc.kind:
        return exc
    return Unsupported(exc.reason, exc.hint or CATALOGUE["numpy"][1], "numpy")


# Kinds whose failure depends on these particular inputs (a shape mismatch, a static assert):
# the frame runs as plain Python this time, but the code is not given up on.
INPUT_DEPENDENT_KINDS = frozenset({"user_error", "raise", "name"})

# Kinds that are never stepped over: the whole frame runs as plain Python (a loop too costly to
# unroll would otherwise run one graph call per trip; complex numbers, once they appear, flow
# through the rest of the frame, each use a break).
WHOLE_FRAME_KINDS = frozenset({"loop_budget", "loop_break", "complex", "big_int"})
