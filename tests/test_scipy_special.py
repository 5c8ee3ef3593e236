"""scipy.special's `logsumexp`, `softmax`, `log_softmax` and `expit` in compiled functions:
NumPy's (scipy's) values, dtypes and warnings, special values included, and gradients equal
to central differences (a mixture's likelihood, attention weights, a logistic loss)."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from probe_harness import assert_behaves_as_numpy
from scipy import special
from scipy.special import expit, log_softmax, logsumexp, softmax
from test_autodiff_rules import numeric_grad

RNG = np.random.default_rng(5)

CALLS = {
    "logsumexp of everything": lambda x: logsumexp(x),
    "logsumexp of rows": lambda x: logsumexp(x, axis=1),
    "logsumexp of columns, kept": lambda x: special.logsumexp(3 * x, axis=0, keepdims=True),
    "logsumexp over an axis tuple": lambda x: logsumexp(x, axis=(0, 1)),
    "softmax of rows": lambda x: softmax(x, axis=1),
    "softmax of everything": lambda x: special.softmax(x),
    "log_softmax of rows": lambda x: log_softmax(x, axis=-1),
    "expit of large values": lambda x: expit(40 * x),
    "expit of one element": lambda x: expit(x[0, 0]),
}
_SPECIAL = np.array([[-np.inf, -np.inf, 1.0, 2.0], [-np.inf] * 4, [np.inf, 0.0, 1.0, np.nan]])


@pytest.mark.parametrize("name", sorted(CALLS))
def test_scipy_special_calls_behave_as_scipy(name):
    fn = CALLS[name]
    rng = np.random.default_rng(6)  # the same data whichever tests run before
    for x in (rng.standard_normal((3, 4)), _SPECIAL, np.array([[1.0, 1.0, 0.5, 1.0]]),
              np.arange(12).reshape(3, 4) % 5):
        assert_behaves_as_numpy(fn, x)
    x = rng.standard_normal((3, 4)).astype(np.float32)
    got = ember.compile(fn)(x)
    assert np.asarray(got).dtype == np.asarray(fn(x)).dtype
    np.testing.assert_allclose(got, fn(x), rtol=2e-6, atol=1e-7)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_scipy_special_gradients_equal_differences(name):
    fn = CALLS[name]

    def loss(x):
        return np.sum(np.sin(fn(x)))

    x = RNG.standard_normal((3, 4))
    value, got = ember.value_and_grad(loss)(x)
    np.testing.assert_allclose(value, loss(x), rtol=1e-12)
    want = numeric_grad(loss, (x,), 0)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ember.grad(loss, backend="eager")(x), got, rtol=1e-10,
                               atol=1e-12)


def _mixture_nll(params, x):
    log_w = log_softmax(params["logits"])
    comp = -0.5 * ((x[:, None] - params["means"]) / np.exp(params["log_sd"])) ** 2 \
        - params["log_sd"]
    return -np.mean(logsumexp(log_w + comp, axis=1))


def _attention(w, x):
    scores = (x @ w) @ x.T / np.sqrt(x.shape[1])
    return np.sum(softmax(scores, axis=-1) @ x)


def _logistic(w, x, y):
    p = expit(x @ w)
    return -np.mean(y * np.log(p) + (1 - y) * np.log1p(-p))


PROGRAMS = {
    "gaussian mixture": (_mixture_nll, {"logits": RNG.standard_normal(3),
                                        "means": RNG.standard_normal(3),
                                        "log_sd": 0.1 * RNG.standard_normal(3)},
                         (RNG.standard_normal(12),)),
    "attention weights": (_attention, RNG.standard_normal((3, 3)),
                          (RNG.standard_normal((5, 3)),)),
    "logistic regression": (_logistic, RNG.standard_normal(3),
                            (RNG.standard_normal((10, 3)), (RNG.uniform(size=10) < 0.5) * 1.0)),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_programs_calling_scipy_special_differentiate(name):
    """Standalone and inside a compiled step, equal to central differences."""
    from test_autodiff_stranger import assert_compiled_step_as_standalone
    from test_autodiff_corpus import reference

    fn, params, rest = PROGRAMS[name]
    want = reference((fn, (params, *rest), 0, "differences"))
    got = ember.grad(fn)(params, *rest)
    leaves = got.values() if isinstance(got, dict) else [got]
    wanted = want.values() if isinstance(want, dict) else [want]
    for g, w in zip(leaves, wanted, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    assert_compiled_step_as_standalone(fn, (params, *rest), 0)
