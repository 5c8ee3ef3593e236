"""Array constants made inside a compiled function: `np.array`/`np.asarray` of literals,
NumPy functions of Python sequences, and lists given where an array goes (`x * [1, 2, 3]`).

Each is built in the graph, so the function stays one graph, and every call returns a fresh
array as NumPy does (writing into one result never reaches the next).
"""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import RecordingBackend, assert_same, assert_same_aliasing

X = np.linspace(-1.5, 2.0, 12).reshape(3, 4)
V = np.arange(6, dtype=np.int64)


def weights(x):
    w = np.array([0.25, 0.5, 0.25])
    return x[:, :3] * w


def int_literal(x):
    return x + np.array([[1, 0, 0, 2], [0, 1, 0, 0], [3, 0, 1, 0]])


def bool_literal(x):
    return np.where(np.array([True, False, True, False]), x, -x)


def dtype_given(x):
    return x * np.array([1, 2, 3, 4], dtype=np.float32)


def asarray_literal(x):
    return np.asarray([2.0, -0.5, 1.0, 4.0]) + x


def fill_literal(x):
    return x + np.array([-0.0, -0.0, -0.0, -0.0])


def nan_literal(x):
    return np.maximum(x, np.array([np.nan, 0.0, 1.0, np.inf]))


def zero_size(x):
    return np.concatenate([x[0], np.array([], dtype=np.float64)])


def scalar_literal(x):
    return x * np.array(3.0)


def list_operand(x):
    return x * [1.0, 2.0, 3.0, 4.0] + (0.5, 0.5, 0.5, 0.5)


def list_in_functions(x):
    return np.clip(x, [0.0, -1.0, 0.0, -1.0], 1.0), np.where(x > 0, x, [9, 8, 7, 6])


def ufunc_of_list(x):
    return x[0] + np.sqrt([1.0, 4.0, 9.0, 16.0])


def mutated_constant(x):
    w = np.array([1.0, 2.0, 3.0, 4.0])
    w[1] = x[0, 0]
    w *= 2
    return w


def returned_constant(x):
    return np.array([1, 2, 3]), x.sum()


def index_literal(x):
    return x[np.array([2, 0, 2]), :] + x[:, np.array([3, 1])].sum()


def add_at_literal(x):
    z = np.zeros(4)
    np.add.at(z, np.array([0, 1, 1, 3]), x[0])
    return z


def nested_literal(x):
    k = np.array([[1.0, 2.0], [3.0, 4.0]])
    return x[:2, :2] @ k


PROGRAMS = [weights, int_literal, bool_literal, dtype_given, asarray_literal, fill_literal,
            nan_literal, zero_size, scalar_literal, list_operand, list_in_functions,
            ufunc_of_list, mutated_constant, returned_constant, index_literal, add_at_literal,
            nested_literal]


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
@pytest.mark.parametrize("fn", PROGRAMS, ids=lambda f: f.__name__)
def test_constant_like_numpy_in_one_graph(fn, backend: str) -> None:
    rec = RecordingBackend(backend)
    compiled = ember.compile(fn, backend=rec)
    for call in range(3):
        x = X + call
        want = fn(x.copy())
        got = compiled(x)
        assert_same(got, want)
        assert_same_aliasing(got, (x,), want, (x,))
    assert len(rec.graphs) == 1, "the constant broke the graph or recompiled"


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
def test_every_call_gets_a_fresh_constant(backend: str) -> None:
    compiled = ember.compile(returned_constant, backend=backend)
    first, _ = compiled(X)
    first[0] = 100
    second, _ = compiled(X)
    assert second is not first and not np.shares_memory(first, second)
    np.testing.assert_array_equal(second, [1, 2, 3])


def test_large_distinct_constant_still_like_numpy() -> None:
    def big(x):
        return x[0, 0] * np.array([float(i) for i in range(100)])

    def big_fill(x):
        return x[0, 0] + np.array([1.5] * 1000)

    for fn in (big, big_fill):
        compiled = ember.compile(fn)
        assert_same(compiled(X), fn(X))


def test_ragged_literal_raises_numpys_error() -> None:
    def ragged(x):
        return x[0] + np.array([[1.0, 2.0], [3.0]])

    with pytest.raises(ValueError) as want:
        ragged(X)
    with pytest.raises(ValueError) as got:
        ember.compile(ragged)(X)
    assert str(got.value) == str(want.value)


def test_unsupported_dtype_constant_is_left_to_numpy() -> None:
    def complex_literal(x):
        return x * np.array([1j, 2.0, 1.0, 0.0])

    assert_same(ember.compile(complex_literal)(X), complex_literal(X))


def dft(x):
    n = np.arange(x.shape[0])
    m = np.exp(-2j * np.pi * n.reshape(-1, 1) * n / x.shape[0])
    return m @ x, np.abs(m).sum()


def real_then_complex(x):
    y = np.sqrt(x) + 1
    return np.abs(np.exp(1j * y)).sum() + y.sum(), (x * 1j).real


@pytest.mark.parametrize("fn, args", [
    (dft, (np.linspace(0.0, 1.0, 8),)),
    (real_then_complex, (np.linspace(0.0, 1.0, 5),)),
    (lambda z: (z * 2 + 1, np.abs(z)), (np.array([1 + 2j, -3j]),)),
    (lambda x, c: x * c, (np.ones(3), 2 - 1j)),
])
def test_frames_with_complex_numbers_run_whole_as_numpy(fn, args) -> None:
    """A complex number or array (ember has no complex dtype) sends the whole frame to NumPy:
    no graph before it that would hand complex values across a break."""
    ember.reset()
    compiled = ember.compile(fn)
    for _ in range(2):
        assert_same(compiled(*args), fn(*args))
    stats = ember.stats()
    assert stats["compiles"] == 0 and stats["failed_frames"] == 1, stats["break_reasons"]
    assert "complex" in next(iter(stats["break_reasons"]))


@pytest.mark.parametrize("values", [[1, 2, 3], [True, False], [0.5, 2.0], [[1, 2], [3, 4]],
                                    [2**40, -1]])
def test_constant_dtype_discovery(values) -> None:
    def make(x):
        return np.array(values) + x[0, 0].astype(np.int8) * 0

    assert_same(ember.compile(make)(V.reshape(2, 3)), make(V.reshape(2, 3)))
