"""Slices of arrays updated in place, in loops and at the frame's level (`u = U[1:-1, 1:-1]`
then `u += ...` while `U` is read, as reaction-diffusion codes write it): the slice follows its
base (`capture/variables/views.py`, `capture/loops/followers.py`). Against NumPy: results,
the arguments afterwards, aliasing of the returned slices with the arguments; and captured
as one graph with its loop ops (no break, nothing run eagerly). Random programs of such
slices and updates (hypothesis, fixed seed) close the file."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import aliasing, assert_same
from fuzz_programs import assert_same_outcome, run
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st
from test_loops_returns import run_calls


def laplacian(Z):
    return Z[:-2, 1:-1] + Z[1:-1, :-2] - 4 * Z[1:-1, 1:-1] + Z[1:-1, 2:] + Z[2:, 1:-1]


def reaction_diffusion(U, V, steps):
    u, v = U[1:-1, 1:-1], V[1:-1, 1:-1]
    for _ in range(steps):
        uvv = u * v * v
        u += 0.16 * laplacian(U) - uvv + 0.035 * (1 - u)
        v += 0.08 * laplacian(V) + uvv - 0.095 * v
    return U, V


def heat_on_a_copy(T, steps):
    A = T.copy()
    inner = A[1:-1, 1:-1]
    for _ in range(steps):
        inner += 0.2 * laplacian(A)
    return A, inner


def row_view_and_its_base(M, steps):
    first = M[0]
    for _ in range(steps):
        first += M[1]
        M[1] *= 0.5
    return M, first


def views_of_views(U, V, steps):
    rows = U[1:, :]
    block = rows[:, 1:]
    every_other = V[::2]
    for _ in range(steps):
        block += 0.1 * every_other[:block.shape[0], :block.shape[1]]
        rows[0] = U[-1]
        every_other -= 0.01
    return U, V, block


def halved_in_a_while(x, n):
    middle = x[1:-1]
    k = 0
    while k < n:
        middle *= 0.5
        x[0] += middle[0]
        k += 1
    return middle


def updated_in_a_branch(x, n):
    middle = x[1:-1]
    for _ in range(n):
        if x[0] > 0:
            middle += 1.0
        else:
            x[0] += 2.0
        x[-1] = middle.sum()
    return x


def reversed_view(x, n):
    back = x[::-1]
    for i in range(n):
        back[1:] += 0.5 * x[:-1]
        x *= 0.9
    return x, back


def int_view(a, n):
    inner = a[1:-1]
    for _ in range(n):
        inner += a[:-2] // 3
    return a


def rebound_in_the_body(x, n):
    tail = x[1:]
    for _ in range(n):
        tail = tail * 0.5
    return x, tail


RNG = np.random.default_rng(3)


@pytest.mark.parametrize("fn,make", [
    (reaction_diffusion, lambda: (RNG.random((12, 10)), RNG.random((12, 10)), 20)),
    (heat_on_a_copy, lambda: (RNG.random((9, 11)), 15)),
    (row_view_and_its_base, lambda: (RNG.standard_normal((3, 5)), 12)),
    (views_of_views, lambda: (RNG.standard_normal((6, 7)), RNG.standard_normal((12, 7)), 20)),
    (halved_in_a_while, lambda: (RNG.standard_normal(8), 20)),
    (updated_in_a_branch, lambda: (RNG.standard_normal(8), 20)),
    (reversed_view, lambda: (RNG.standard_normal(9), 12)),
    (int_view, lambda: (RNG.integers(-50, 50, 10, dtype=np.int32), 12)),
    (rebound_in_the_body, lambda: (RNG.standard_normal(8), 20)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_slices_updated_in_loops(fn, make) -> None:
    ember.reset()
    run_calls(fn, [make() for _ in range(2)])
    assert_aliases_as_numpy(fn, make())


def frame_level(U):
    u = U[1:-1]
    u += 1.0
    U[0] = u[-1]
    return U, u


def base_updated_then_slice_read(U):
    u = U[:, 1:]
    U *= 2.0
    return u.sum(axis=0), u


def test_slices_updated_at_the_frame_level() -> None:
    for fn in (frame_level, base_updated_then_slice_read):
        ember.reset()
        run_calls(fn, [(RNG.standard_normal((4, 5)),) for _ in range(2)])
        assert_aliases_as_numpy(fn, (RNG.standard_normal((4, 5)),))


def assert_aliases_as_numpy(fn, args) -> None:
    """The returned slices share the arguments' memory as NumPy's do."""
    got_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    want_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    got, want = ember.compile(fn)(*got_args), fn(*want_args)
    assert_same(got, want)
    assert aliasing(got, got_args) == aliasing(want, want_args)


def test_reaction_diffusion_is_one_loop_op() -> None:
    ember.reset()
    stats = run_calls(reaction_diffusion, [(RNG.random((8, 8)), RNG.random((8, 8)), 30)])
    assert stats["compiles"] == 1 and stats["graph_breaks"] == 0


# Random programs: slices of two arguments (and of each other), updated in place in a loop
# (a `for` or a `while`) or at the frame's level, next to updates of their bases.
_SLICES = ["[1:-1, 1:-1]", "[1:]", "[:, 1:]", "[::2]", "[2]", "[:, 3]", "[::-1, 1:4]",
           "[1:5:2, ::2]", "[:3]"]
_OPERANDS = ["U.mean()", "V.mean()", "a.mean()", "b.max()", "0.25"]


@st.composite
def _statement(draw) -> str:
    target = draw(st.sampled_from(["a", "b", "U[1:3]", "V[:, :2]", "a[0]", "b[..., -1]"]))
    op = draw(st.sampled_from(["+=", "-=", "*="]))
    operand = draw(st.sampled_from(_OPERANDS))
    scale = "0.9" if op == "*=" else "0.1"
    if op == "*=":
        return f"{target} *= {scale}"
    return f"{target} {op} {scale} * {operand}"


@st.composite
def slice_programs(draw) -> tuple[str, bool]:
    """A program, and whether it is one graph: all but a branch on data at the frame's
    level, which is a graph break for every array (not only slices)."""
    a_base = draw(st.sampled_from(["U", "V"]))
    b_base = draw(st.sampled_from(["U", "V", "a"]))
    a_slice = draw(st.sampled_from(_SLICES))
    # Of `a`, slices of its first axis, which every `a` has.
    b_slice = draw(st.sampled_from(["[1:]", "[::2]", "[:2]", "[::-1]"] if b_base == "a"
                                   else _SLICES))
    body = draw(st.lists(_statement(), min_size=1, max_size=4))
    branch = draw(st.booleans())
    kind = draw(st.sampled_from(["for", "while", "frame"]))
    lines = ["def program(U, V, n):", f"    a = {a_base}{a_slice}", f"    b = {b_base}{b_slice}"]
    inner = ["if U.sum() > V.sum():", f"    {body[0]}", "else:", "    b *= 1.01",
             *body[1:]] if branch else body
    if kind == "for":
        lines += ["    for i in range(n):", *[f"        {s}" for s in inner]]
    elif kind == "while":
        lines += ["    t = 0.0", "    while t < 1.0:", *[f"        {s}" for s in inner],
                  "        t += 0.07"]
    else:
        lines += [f"    {s}" for s in inner]
    returned = draw(st.sampled_from(["U, V", "a, b", "U, b", "a.sum() + b.sum()"]))
    lines.append(f"    return {returned}")
    return "\n".join(lines) + "\n", not (branch and kind == "frame")


def _define(source: str):
    namespace = {"np": np}
    exec(compile(source, "<slice program>", "exec"), namespace)  # noqa: S102
    return namespace["program"]


# No `explain` phase: its line tracer would run inside compiled frames.
@seed(20261206)
@settings(max_examples=60, deadline=None, database=None,
          suppress_health_check=list(HealthCheck),
          phases=[Phase.explicit, Phase.generate, Phase.shrink])
@given(program=slice_programs())
def test_random_slice_programs_behave_as_numpy(program: tuple[str, bool]) -> None:
    source, native = program
    plain, compiled_fn = _define(source), _define(source)
    ember.reset()
    compiled = ember.compile(compiled_fn)
    rng = np.random.default_rng(len(source))
    for n in (12, 12, 15):
        args = (rng.standard_normal((6, 5)), rng.standard_normal((6, 5)), n)
        want = run(plain, [x.copy() if isinstance(x, np.ndarray) else x for x in args], {})
        got = run(compiled, [x.copy() if isinstance(x, np.ndarray) else x for x in args], {})
        assert_same_outcome(got, want, f"\n{source}")
    stats = ember.stats()
    assert not stats["backend_fallbacks"], source
    if native:
        assert stats["graph_breaks"] == 0, (stats["break_reasons"], source)
        assert stats["region_recaptures"] == 0, source
