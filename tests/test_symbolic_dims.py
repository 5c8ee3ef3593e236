"""Sizes written in symbols (`s0+s1`, `2*s0`, `4*s0-1`, `s0*s1`): capture's arithmetic on them
(`graph/shapes.py`) and the core's (`types.rs: SymSize`) agree on one normal form, which both
read back from any order of terms and factors, and on the size each stands for."""

from __future__ import annotations

import math

import pytest
from ember import _core
from ember.backends.eager import _bound
from ember.graph.shapes import (
    Size,
    dim_divide,
    dim_plus,
    dim_product,
    dim_sum,
    dim_terms,
    make_dim,
)
from hypothesis import given, settings
from hypothesis import strategies as st

SYMBOLS = ["s0", "s1", "s10", "s2"]

products = st.lists(st.sampled_from(SYMBOLS), min_size=1, max_size=3)
terms = st.lists(st.tuples(st.integers(-4, 4), products), min_size=1, max_size=4)
sizes = st.fixed_dictionaries({s: st.integers(2, 50) for s in SYMBOLS})


def _value(written: list[tuple[int, list[str]]], constant: int, at: dict[str, int]) -> int:
    return constant + sum(c * math.prod(at[s] for s in p) for c, p in written)


def _text(written: list[tuple[int, list[str]]], constant: int) -> str:
    """The terms as written by hand, in the given order, coefficients where they fall."""
    parts = [f"{c}*" + "*".join(p) if c != 1 else "*".join(p) for c, p in written]
    text = "+".join(parts) + (f"+{constant}" if constant else "")
    return text.replace("+-", "-")


def _core_print(dim: str) -> str:
    module = f"ember-ir 1\nfunc @f(%0: f32[{dim}]) -> (f32[{dim}]) {{\n  return %0\n}}\n"
    printed = _core.parse_ir(module)
    return printed.split("f32[", 1)[1].split("]", 1)[0]


@settings(deadline=None, max_examples=200, derandomize=True)
@given(written=terms, constant=st.integers(0, 30), at=sizes)
def test_both_normal_forms_agree_and_size_the_same(written, constant, at):
    # Each term positive at its smallest, so the size is a size whatever the symbols.
    written = [(abs(c) or 1, p) for c, p in written]
    text = _text(written, constant)
    dim = make_dim(*dim_terms(text))
    assert dim == _core_print(text)
    assert _bound(dim, at) == _value(written, constant, at)
    assert dim_terms(dim) == dim_terms(make_dim(*dim_terms(dim)))  # a fixed point


@settings(deadline=None, max_examples=200, derandomize=True)
@given(a=terms, b=terms, k=st.integers(1, 6), at=sizes)
def test_sums_products_and_quotients_size_as_integers_do(a, b, k, at):
    a = [(abs(c) or 1, p) for c, p in a]
    b = [(abs(c) or 1, p) for c, p in b]
    x, y = make_dim(*dim_terms(_text(a, 0))), make_dim(*dim_terms(_text(b, 3)))
    vx, vy = _value(a, 0, at), _value(b, 3, at)
    assert _bound(dim_sum([x, y, k]), at) == vx + vy + k
    assert _bound(dim_product([x, y, k]), at) == vx * vy * k
    assert dim_divide(dim_product([x, k]), k) == x
    assert dim_divide(dim_product([x, "s2"]), "s2") == x
    assert Size((x, y)) == Size((dim_product([x, y]),))
    assert _core_print(dim_sum([x, y])) == dim_sum([x, y])
    assert _core_print(dim_product([x, y])) == dim_product([x, y])


@pytest.mark.parametrize("dim, by, want", [
    ("s0", -1, "s0-1"), ("s0-1", 1, "s0"), ("s0", 2, "s0+2"), (3, -4, None), ("2*s0", 0, "2*s0"),
])
def test_adding_a_constant(dim, by, want):
    assert dim_plus(dim, by) == want


@pytest.mark.parametrize("dim, by", [("4*s0+1", 4), ("s0", 4), ("s0*s1", "s2"), ("2*s0", "s0+1")])
def test_inexact_quotients_are_none(dim, by):
    assert dim_divide(dim, by) is None


@pytest.mark.parametrize("text", ["s0-s0-1", "2*", "s0+", "S0", "s0**s1"])
def test_the_core_refuses_what_is_no_dim(text):
    with pytest.raises(ValueError):
        _core_print(text)
