"""Loop bodies that rebind an object's array attribute (`self.x = self.F @ self.x`), in the
frame or in a method it calls, on every trip, on one path of a branch, in a `while`, in nested
loops (`loops/inputs.py: store_attribute`): one loop op whose carried value the object takes
after the graph, as the last trip left it. Against plain Python on copies of the objects:
results, every attribute afterwards, and the identity of the arrays the object held before
(an array the body rebinds away from is left as it was)."""

from __future__ import annotations

import copy

import ember
import numpy as np
import pytest
from conftest import assert_same


class Tracker:
    def __init__(self, rng, n):
        self.F = np.eye(n) + 0.05 * rng.standard_normal((n, n))
        self.x = rng.standard_normal(n)
        self.P = np.eye(n)
        self.gain = 0.5

    def predict(self):
        self.x = self.F @ self.x
        self.P = self.F @ self.P @ self.F.T + 0.01

    def correct(self, z):
        self.x = self.x + self.gain * (z - self.x)

    def run(self, zs):
        out = np.empty((len(zs), len(self.x)))
        for k, z in enumerate(zs):
            self.predict()
            self.correct(z)
            out[k] = self.x
        return out

    def run_inline(self, zs):
        for t in range(zs.shape[0]):
            self.x = 0.9 * self.x + 0.1 * zs[t]
        return self.x.sum()

    def run_on_a_path(self, zs):
        for t in range(zs.shape[0]):
            if zs[t, 0] > 0:
                self.x = self.x * 0.5 + zs[t]
            else:
                self.P = self.P * 0.9
        return self.x, self.P

    def run_while(self, zs, tol):
        k = 0
        while k < zs.shape[0] and np.abs(self.x).max() > tol:
            self.x = self.x * 0.5 + 0.01 * zs[k]
            k += 1
        return k

    def run_nested(self, zs, sweeps):
        for _ in range(sweeps):
            for t in range(zs.shape[0]):
                self.x = 0.95 * self.x + 0.05 * zs[t]
            self.P = self.P + np.outer(self.x, self.x)
        return self.P.trace()

    def run_then_read(self, zs):
        for t in range(zs.shape[0]):
            self.x = np.tanh(self.x + zs[t])
        return self.x * 2.0, self.x

    def run_stored_first(self, zs):
        self.x = np.zeros_like(self.x)  # assigned before the loop: not an input the body reads
        for t in range(zs.shape[0]):
            self.x = self.x + zs[t]
        return self.x


class Weights:
    def __init__(self, rng, n):
        self.x = rng.standard_normal(n)
        self.w = np.full(n, 1.0 / n)

    def reweight(self, z):
        self.w *= np.exp(-(self.x - z) ** 2)  # in place: the same array, nothing to store
        self.w /= self.w.sum()
        if 1.0 / np.sum(self.w ** 2) < len(self.w) / 2:  # an `if` at the frame's level
            self.w.fill(1.0 / len(self.w))
        return self.x @ self.w

    def pick(self, z):
        self.w *= 0.5
        if self.w[0] < z:  # an `if` at the frame's level whose paths read the attributes
            return self.x[0] + self.w[1]
        return self.x[2] * self.w[0]

    def reweight_all(self, zs):
        total = 0.0
        for z in zs:
            total += self.reweight(z)
        return total


CASES = [  # (method, its arguments, whether it is native, the state's length)
    ("run", lambda rng, n: (rng.standard_normal((40, n)),), True, 3),  # short: vectors
    ("run_inline", lambda rng, n: (rng.standard_normal((30, n)),), True, 3),
    ("run_on_a_path", lambda rng, n: (rng.standard_normal((30, n)),), True, 12),
    ("run_while", lambda rng, n: (rng.standard_normal((30, n)), 1e-3), False, 3),
    ("run_nested", lambda rng, n: (rng.standard_normal((20, n)), 3), True, 12),
    ("run_then_read", lambda rng, n: (rng.standard_normal((25, n)),), True, 12),
    ("run_stored_first", lambda rng, n: (rng.standard_normal((25, n)),), False, 12),
]


def _same_state(got: Tracker, want: Tracker) -> None:
    assert list(vars(got)) == list(vars(want))
    for key, value in vars(want).items():
        assert_same(vars(got)[key], value, path=key)


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
@pytest.mark.parametrize("name,make,native,n", CASES, ids=[c[0] for c in CASES])
def test_attribute_rebound_in_a_loop(name, make, native, n, backend):
    ember.reset()
    compiled = ember.compile(getattr(Tracker, name), backend=backend)
    for seed in range(2):
        rng = np.random.default_rng(seed)
        tracker = Tracker(rng, n)
        args = make(rng, n)
        want_obj, got_obj = copy.deepcopy(tracker), copy.deepcopy(tracker)
        got_x0, want_x0 = got_obj.x, want_obj.x
        want = getattr(Tracker, name)(want_obj, *copy.deepcopy(args))
        got = compiled(got_obj, *copy.deepcopy(args))
        assert_same(got, want)
        _same_state(got_obj, want_obj)
        # The array the attribute held first is untouched, as in Python.
        assert_same(got_x0, want_x0)
        assert (got_obj.x is got_x0) == (want_obj.x is want_x0)
    stats = ember.stats()
    if native and backend == "cranelift":
        assert stats["graph_breaks"] == 0, stats["break_reasons"]
        assert stats["region_recaptures"] == 0 and not stats["backend_fallbacks"]


def test_zero_trips_leave_the_attribute():
    compiled = ember.compile(Tracker.run_inline)
    rng = np.random.default_rng(5)
    a = Tracker(rng, 3)
    b = copy.deepcopy(a)
    x0 = b.x
    assert_same(compiled(b, np.zeros((0, 3))), Tracker.run_inline(a, np.zeros((0, 3))))
    assert b.x is x0


@pytest.mark.parametrize("backend", ["eager", "cranelift"])
@pytest.mark.parametrize("method,args,native", [
    (Weights.pick, [(0.01,), (0.001,), (1.0,)], True),
    (Weights.reweight, [(0.3,), (2.5,), (-4.0,)], False),  # whole-array work on a path
    (Weights.reweight_all, [(np.linspace(-3.0, 3.0, 12),)], False),
], ids=["frame_branch", "frame_branch_refill", "loop_branch"])
def test_attributes_read_and_updated_on_a_path(method, args, native, backend):
    """The paths of a branch on data read the object's arrays as the paths' own stand-ins
    (an array updated in place before the branch included); one path refills `self.w` in
    place."""
    ember.reset()
    compiled = ember.compile(method, backend=backend)
    want_obj = Weights(np.random.default_rng(7), 16)
    got_obj = copy.deepcopy(want_obj)
    for call in args:
        assert_same(compiled(got_obj, *call), method(want_obj, *call))
        _same_state(got_obj, want_obj)
    if native and backend == "cranelift":
        assert ember.stats()["graph_breaks"] == 0, ember.stats()["break_reasons"]
