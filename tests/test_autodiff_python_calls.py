"""Differentiated functions whose Python code runs between graphs (`print`, `float(x)`
branches, loops over lists of arrays, dict updates, functions marked with `ember.disable`):
gradients equal autograd's, or the call whose result would be computed unseen from the
differentiated arrays is refused by name, never a gradient that leaves it out."""

from __future__ import annotations

import autograd
import autograd.numpy as anp
import ember
import numpy as np
import pytest

RNG = np.random.default_rng(4242)
W = RNG.standard_normal((4, 5))
X = RNG.standard_normal(5)


def _value(b):
    """A float of an array or of an autograd box, as the user's `float(x)` reads it."""
    return float(getattr(b, "_value", b))


def _programs(np, disable):
    """The same programs over NumPy (`np`, `ember.disable`) and autograd (`anp`, identity)."""

    @disable
    def log_only(msg, a):
        print(msg, a.shape)

    @disable
    def config_scale():
        return 2.0

    def printed(w):
        y = np.tanh(w @ X)
        log_only("y", y)
        print("loss of", y.shape)
        return np.sum(y ** 2) * config_scale()

    def float_branch(w):
        y = w @ X
        if _value(np.sum(y)) > 0:
            return np.sum(np.sin(y))
        return np.sum(np.cos(y)) + 1.0

    def list_of_rows(w):
        parts = [w[i] * X for i in range(w.shape[0])]
        total = 0.0
        for p in parts:
            total = total + np.sum(p ** 2)
            if _value(total) > 1e9:
                print("large")
        return total

    def dict_updates(w):
        d = {}
        d["a"] = w @ X
        d.update(b=np.exp(d["a"]))
        print(sorted(d))
        d["a"] = d["a"] * 3
        return np.sum(d["a"] * d["b"])

    def sorted_items(w):
        d = {"z": np.tanh(w), "a": w * 2}
        total = 0.0
        for key, v in sorted(d.items()):
            total = total * 0.5 + np.sum(v ** 2)
        return total

    return {f.__name__: f for f in (printed, float_branch, list_of_rows, dict_updates,
                                    sorted_items)}


PROGRAMS = _programs(np, ember.disable)
REFERENCES = _programs(anp, lambda f: f)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
@pytest.mark.parametrize("w", [W, -W], ids=["w", "minus_w"])
def test_python_between_graphs_keeps_the_gradient(name, w, capsys):
    got = ember.grad(PROGRAMS[name])(w)
    want = autograd.grad(REFERENCES[name])(w)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)
    value, _ = ember.value_and_grad(PROGRAMS[name])(w)
    np.testing.assert_allclose(value, REFERENCES[name](w), rtol=1e-12)


@ember.disable
def _disabled_tanh(a):
    return np.tanh(a) * 3


class _Model:
    def __init__(self, w):
        self.w = w

    @ember.disable
    def score(self):
        return np.sum(np.tanh(self.w))


_MODEL = _Model(W)


def _through_argument(w):
    return np.sum(_disabled_tanh(w) ** 2)


def _through_closure(w):
    @ember.disable
    def helper():
        return np.sin(w)

    return np.sum(helper() * w)


def _through_bound_method(w):
    _MODEL.w = w
    return _MODEL.score() ** 2


@pytest.mark.parametrize("fn", [_through_argument, _through_closure, _through_bound_method])
@pytest.mark.parametrize("compiled", [False, True])
def test_a_disabled_function_computing_from_arrays_is_refused(fn, compiled):
    """Its body runs in Python, unseen by the tape: refused, never a zero gradient."""

    def gradient(w):
        return ember.grad(fn)(w)

    # A closure made inside the function is refused where `ember.disable` is applied.
    named = "" if fn is _through_closure else "ember.disable"
    with pytest.raises(ember.GraphBreakError, match=named):
        (ember.compile(gradient) if compiled else gradient)(W)


def _sorted_by_name(a):
    d = {"b": a * 2, "a": np.sin(a), "c": a[::-1]}
    return [name + str(v.shape) for name, v in sorted(d.items())], np.stack(
        [v for _, v in sorted(d.items(), reverse=True)])


def _sorted_with_ties(a):
    # Equal first items: Python compares the (one-element) arrays that follow.
    pairs = [(1, a[:1] * 3), (0, a[1:2]), (1, a[2:3])]
    return np.concatenate([v for _, v in sorted(pairs)])


@pytest.mark.parametrize("fn", [_sorted_by_name, _sorted_with_ties])
def test_sorted_pairs_keyed_by_their_first_items(fn):
    from probe_harness import assert_behaves_as_numpy

    assert_behaves_as_numpy(fn, RNG.standard_normal(6))
    assert_behaves_as_numpy(fn, -RNG.standard_normal(6))


def _copies_then_writes(a):
    import copy

    b = copy.copy(a)
    b[0] = 7.0  # the copy, not `a`
    rows = copy.deepcopy([a, a * 2])
    rows[0][1] = -1.0
    shallow = copy.copy([a, b])
    shallow.append(a)
    return a, b, rows, len(shallow), copy.copy((a, 2))[1]


def _reduced(a):
    import functools

    product = functools.reduce(lambda x, y: x * np.cos(y), [a, a[::-1], a + 1])
    total = functools.reduce(np.add, [a, a], np.ones_like(a))
    return product, total, functools.reduce(max, [3, 1, 4])


@pytest.mark.parametrize("fn", [_copies_then_writes, _reduced])
def test_copies_and_reductions_of_python_calls(fn):
    from probe_harness import assert_behaves_as_numpy

    assert_behaves_as_numpy(fn, RNG.standard_normal(5))


def _programs_of_calls(np):
    import copy
    import functools

    def copied(w):
        v = copy.copy(w)
        layers = copy.deepcopy([w[0], w[1]])
        return np.sum(v ** 2) + np.sum(np.tanh(layers[0]) * layers[1])

    def reduced(w):
        h = functools.reduce(lambda acc, row: np.tanh(acc * row + 0.5), list(w))
        return np.sum(h ** 2)

    def reduced_from(w):
        return functools.reduce(lambda acc, row: acc + np.sum(np.sin(row) * X),
                                list(w), 1.0)

    return {"copied": copied, "reduced": reduced, "reduced_from": reduced_from}


CALLS = _programs_of_calls(np)
CALL_REFERENCES = _programs_of_calls(anp)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_copy_and_reduce_differentiate(name):
    from test_autodiff_rules import numeric_grad

    got = ember.grad(CALLS[name])(W)
    np.testing.assert_allclose(got, numeric_grad(CALLS[name], [W], 0), rtol=1e-6, atol=1e-7)
    if name != "copied":  # autograd's deepcopy of its boxes drops their gradient
        want = autograd.grad(CALL_REFERENCES[name])(W)
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


def _rows_printed(a):
    for r in a:
        print("row")
        yield np.tanh(r)


GENERATOR_USES = {
    "for": lambda w: sum(np.sum(r) for r in _rows_printed(w)),
    "list": lambda w: np.sum(np.stack(list(_rows_printed(w)))),
    "next": lambda w: np.sum(next(_rows_printed(w))),
    "zip": lambda w: sum(np.sum(a * b) for a, b in zip(_rows_printed(w), w)),
}


@pytest.mark.parametrize("name", sorted(GENERATOR_USES))
def test_a_generator_breaking_in_its_body_is_refused_by_name(name, capsys):
    with pytest.raises(ember.GraphBreakError, match=r"the generator _rows_printed\(\) breaks"):
        ember.grad(GENERATOR_USES[name])(W)


def _generators(np):
    def layers(w):
        def gen():
            for i in range(3):
                yield np.tanh(w * (i + 1))
        return np.sum(sum(gen()))

    def listed(w):
        def gen(a):
            for row in a:
                yield np.sin(row) * 2
        return np.sum(np.stack(list(gen(w))) ** 2)

    def advanced(w):
        g = (np.exp(r) for r in w)
        a = next(g)
        b = next(g)
        return np.sum(a * b)

    return {"layers": layers, "listed": listed, "advanced": advanced}


@pytest.mark.parametrize("name", ["layers", "listed", "advanced"])
def test_generators_captured_whole_differentiate(name):
    got = ember.grad(_generators(np)[name])(W)
    np.testing.assert_allclose(got, autograd.grad(_generators(anp)[name])(W), rtol=1e-10,
                               atol=1e-13)


def _i0_loss(w):
    return np.sum(np.i0(w) * w)


def _i0_step(w):
    return w - 0.1 * ember.grad(_i0_loss)(w)


@pytest.mark.parametrize("error", [TypeError, ValueError, IndexError])
@pytest.mark.parametrize("how", ["grad", "compiled grad", "compiled step"])
def test_a_rule_raising_wrongly_never_gives_a_silent_gradient(monkeypatch, error, how):
    """A rule that raises one of NumPy's error types for inputs NumPy takes makes capture
    expect the line to raise; Python then runs it without an error: refused on every call,
    never a gradient missing that call's part."""
    from ember import numpy_api

    def wrong(graph, *args, **kwargs):
        raise error("a mistake in the rule")

    monkeypatch.setitem(numpy_api._FUNCTIONS, np.i0, wrong)
    ember.reset()
    run = {"grad": ember.grad(_i0_loss), "compiled grad": ember.compile(ember.grad(_i0_loss)),
           "compiled step": ember.compile(_i0_step)}[how]
    for _ in range(3):
        with pytest.raises(ember.GraphBreakError, match="expected this line to raise"):
            run(W)
    monkeypatch.undo()
    ember.reset()


def _reshaped(w, shape):
    return np.sum(np.tanh(np.reshape(w, shape)) ** 2)


def _product(w, v):
    return np.sum(np.tanh(w @ v) ** 2)


def test_numpy_errors_keep_their_type_and_later_calls_their_gradient(capsys):
    for _ in range(6):
        with pytest.raises(ValueError, match="cannot reshape"):
            ember.grad(_reshaped)(W, (5, 5))
        with pytest.raises(ValueError, match="matmul"):
            ember.grad(_product)(W, X[:3])
    np.testing.assert_allclose(ember.grad(_reshaped)(W, (5, 4)),
                               autograd.grad(lambda w: anp.sum(anp.tanh(w) ** 2))(W),
                               rtol=1e-12)
    v = np.resize(X, 5)
    np.testing.assert_allclose(ember.grad(_product)(W, v),
                               autograd.grad(lambda w: anp.sum(anp.tanh(anp.dot(w, v)) ** 2))(W),
                               rtol=1e-12)
