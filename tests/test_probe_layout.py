"""Output memory order against NumPy's (`order='K'`): elementwise results, `where`, casts,
copies, reductions with and without keepdims, views of computed values and advanced
indexing, over C, F, transposed, negative-stride, strided and broadcast inputs, on both
backends and on a second call (a recycled output must not keep the old layout)."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from conftest import RecordingBackend, assert_same, layout

BASE = np.arange(24.0).reshape(4, 6) - 7.5
INPUTS = {
    "C": lambda: BASE.copy(),
    "F": lambda: np.asfortranarray(BASE),
    "T": lambda: BASE.copy().T,
    "reversed": lambda: BASE.copy()[::-1, ::-1],
    "rows_reversed": lambda: BASE.copy()[::-1],
    "strided": lambda: np.arange(96.0).reshape(8, 12)[::2, ::2],
    "broadcast": lambda: np.broadcast_to(np.arange(6.0), (4, 6)),
    "column": lambda: np.broadcast_to(np.arange(4.0)[:, None], (4, 6)),
}
FUNCTIONS = {
    "add": lambda x: x + 1,
    "neg": lambda x: -x,
    "sin": lambda x: np.sin(x),
    "square_self": lambda x: x * x,
    "chain": lambda x: np.exp(x / 10) * 2 + x,
    "where": lambda x: np.where(x > 3, x, 0.0),
    "compare": lambda x: x > 0,
    "astype": lambda x: x.astype(np.float32),
    "np_astype_int": lambda x: x.astype(np.int64),
    "np_copy": lambda x: np.copy(x),
    "method_copy": lambda x: x.copy(),
    "sum0_keepdims": lambda x: x.sum(axis=0, keepdims=True),
    "sum1_keepdims": lambda x: x.sum(axis=1, keepdims=True),
    "max_keepdims": lambda x: x.max(axis=1, keepdims=True),
    "mean_keepdims": lambda x: x.mean(axis=0, keepdims=True),
    "transposed_result": lambda x: (x + 1).T,
    "expanded_result": lambda x: (x * 2)[None],
    "zeros_like": lambda x: np.zeros_like(x),
    "full_like": lambda x: np.full_like(x, 3.0),
    "clip": lambda x: np.clip(x, -1.0, 1.0),
    "add_C": lambda x: x + np.ones(x.shape),
    "cumsum": lambda x: np.cumsum(x, axis=0),
    "matmul": lambda x: x @ np.ones((x.shape[1], 3)),
    "two_outputs": lambda x: (x + 1, (x * 2).T),
}


@pytest.mark.parametrize("backend", ["cranelift", "eager"])
@pytest.mark.parametrize("layout_name", list(INPUTS))
@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_outputs_follow_numpys_memory_order(name, layout_name, backend):
    fn = FUNCTIONS[name]
    want = fn(INPUTS[layout_name]())
    recorder = RecordingBackend(backend)
    compiled = ember.compile(fn, backend=recorder)
    for _ in range(2):  # the second call may reuse the first call's output buffer
        assert_same(compiled(INPUTS[layout_name]()), want)
    assert ember.stats()["graph_breaks"] == 0
    assert len(recorder.graphs) == 1


def test_a_recycled_output_takes_the_layout_of_each_call():
    compiled = ember.compile(lambda x: x + 1)
    for layout_name in ["C", "F", "C", "T", "F", "C"]:
        x = INPUTS[layout_name]()
        got = compiled(x)
        assert layout(got) == layout(x + 1), layout_name
        del got  # nothing holds it: the next call may write into it again


GATHERS = {
    "columns": lambda a, i: a[:, i],
    "rows": lambda a, i: a[i],
    "rows_step": lambda a, i: a[i, ::2],
}


@pytest.mark.parametrize("layout_name", ["C", "F", "T", "strided"])
@pytest.mark.parametrize("name", list(GATHERS))
def test_advanced_indexing_puts_index_dims_outermost(name, layout_name):
    x, i = INPUTS[layout_name](), np.array([0, 2, 1])
    fn = GATHERS[name]
    assert_same(ember.compile(fn)(x, i), fn(x, i))


def test_three_dimensional_permuted_input():
    x = np.arange(24.0).reshape(2, 3, 4).transpose(1, 2, 0)
    for fn in (lambda a: a * 2, lambda a: a.sum(axis=1), lambda a: a.sum(axis=2, keepdims=True),
               lambda a: np.copy(a), lambda a: a.astype(np.float32)):
        assert_same(ember.compile(fn)(x), fn(x))
        ember.reset()


def _in_place_then_read(x, y):
    x += y
    return x + x, np.sin(x)


def _ufunc_out_then_read(x, y):
    np.multiply(x, y, out=x)
    return x * 2


def _twice_in_place(x, y):
    x *= 2
    x -= y
    return (x + 1).T, x > 0


def _fresh_in_place(x, y):
    z = x.copy()
    z += y
    return z + 1


def _cast_in_place(x, y):
    x += (y > 0)  # bool into float: a cast into the target
    return x + 1


IN_PLACE = [_in_place_then_read, _ufunc_out_then_read, _twice_in_place, _fresh_in_place,
            _cast_in_place]


@pytest.mark.parametrize("backend", ["cranelift", "eager"])
@pytest.mark.parametrize("layout_name", ["C", "F", "T", "reversed", "rows_reversed", "strided"])
@pytest.mark.parametrize("fn", IN_PLACE, ids=lambda f: f.__name__)
def test_results_computed_from_an_array_updated_in_place_follow_its_layout(fn, layout_name,
                                                                          backend):
    # `x += y` writes into x's own memory, so what is computed from x afterwards follows
    # x's layout, not that of the ufunc's fresh output (C order, where y is C-ordered).
    want_x = INPUTS[layout_name]()
    y = np.arange(want_x.size, dtype=np.float64).reshape(want_x.shape) - 5.0
    want = fn(want_x, y)
    compiled = ember.compile(fn, backend=backend)
    for _ in range(2):
        got_x = INPUTS[layout_name]()
        assert_same(compiled(got_x, y), want)
        assert_same(got_x, want_x)
    assert ember.stats()["graph_breaks"] == 0
