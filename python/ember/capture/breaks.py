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
        "this Python construct is not captured; move it out of the compiled function",
    ),
    "data_dependent_branch": (
        "branch on the value of an array ({name})",
        ("ember captures straight-line array code: branch on shapes, dtypes or Python values, "
        "or select elementwise with np.where"),
    ),
    "data_dependent_value": (
        "an array's values are read in Python ({what})",
        "keep the value as an array (0-d arrays work in arithmetic) instead of converting it",
    ),
    "call": (
        "call to {name} is not supported",
        ("only NumPy functions known to ember, Python functions (inlined) and simple builtins "
        "are captured"),
    ),
    "numpy": ("{reason}", "see docs/IR.md for the NumPy operations ember supports"),
    "side_effect": (
        "{what} has a side effect outside the captured function",
        "ember does not replay side effects yet; move the mutation or I/O out of the function",
    ),
    "type": (
        "{what} of type {type} is not supported",
        "pass arrays, Python scalars, tuples/lists/dicts or plain objects holding them",
    ),
    "attribute": (
        "attribute {name} of {what} is not supported",
        "only plain instance and class attributes are captured (no properties or __getattr__)",
    ),
    "generator": (
        "{name} is a generator or coroutine function",
        "generators suspend and cannot be inlined; build a list instead",
    ),
    "recursion": (
        "call depth over {limit} while inlining {name}",
        "recursion must end after a few levels on static values to be inlined",
    ),
    "unroll": (
        "more than {limit} instructions executed while unrolling loops",
        "loops are unrolled over static ranges; very long Python loops are not captured",
    ),
    "raise": (
        "the function raises {what}",
        "the frame runs as plain Python so that the exception surfaces unchanged",
    ),
    "user_error": (
        "{type}: {message}",
        "NumPy raises this for these inputs; the frame runs as plain Python and raises it",
    ),
    "disabled": (
        "call to {name}, marked with ember.disable",
        "remove ember.disable to let it be inlined",
    ),
    "inplace": (
        "in-place update of {name}, which is a graph input or may alias other arrays",
        "write `x = x + y` instead of `x += y` on inputs and views",
    ),
    "name": ("name {name} is not defined", "the frame runs as plain Python and raises NameError"),
    "dynamic_shape": (
        "{what} is a symbolic size used as a Python value",
        "captured again with static shapes; pass dynamic=False to skip the symbolic attempt",
    ),
    "mutation": (
        "mutation of {what}, which comes from outside the function",
        "build a new list or dict instead of mutating an argument",
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
