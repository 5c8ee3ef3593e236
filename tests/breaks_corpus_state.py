"""Side effects and model code: arrays updated in place, objects whose attributes change,
lists and dicts appended to, globals and closure cells assigned, optimiser state. Inputs
and state must end exactly as plain Python leaves them."""

from __future__ import annotations

import numpy as np
from breaks_harness import Program


def normal(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape)


def inplace_scale(x, k):
    x *= k
    x += 1
    return x.sum()


def setitem_row(x):
    x[0] = -1.0
    x[:, -1] = x[:, 0] * 2
    return x


def out_argument(x, out):
    np.multiply(x, 2, out=out)
    return out + 1


def clip_in_place(x):
    np.clip(x, -0.5, 0.5, out=x)
    return x


def view_updated_after_break(x):
    row = x[0]
    print("before")
    x += 1
    return row


class SGD:
    def __init__(self, lr):
        self.lr = lr
        self.steps = 0

    def step(self, w, g):
        self.steps += 1
        return w - self.lr * g


def optimiser_step(opt, w, g):
    w = opt.step(w, g)
    return w, opt.steps


class Momentum:
    def __init__(self, shape):
        self.v = np.zeros(shape)
        self.history = []

    def update(self, w, g):
        self.v = 0.9 * self.v + g
        self.history.append(float((self.v * self.v).sum()))
        return w - 0.1 * self.v


def momentum_update(opt, w, g):
    return opt.update(w, g)


class RunningStats:
    def __init__(self, n):
        self.mean = np.zeros(n)
        self.count = 0

    def __call__(self, x):
        self.count += 1
        self.mean = self.mean + (x - self.mean) / self.count
        return self.mean


def running_stats(stats, x):
    return stats(x), stats.count


def append_to_list(x, log):
    log.append(x.sum())
    log.append(x.max())
    return x * 2


def dict_cache(x, cache):
    cache["last"] = x * 2
    cache["calls"] = cache.get("calls", 0) + 1
    return cache["last"] + 1


def extend_and_pop(xs):
    xs.extend([xs[0] * 2])
    last = xs.pop()
    return last, len(xs)


COUNTER = {"value": 0}
TOTAL = 0.0


def global_counter(x):
    global TOTAL
    TOTAL = TOTAL + 1.0
    return x * TOTAL


def global_dict_mutation(x):
    COUNTER["value"] += 1
    return x + COUNTER["value"]


def closure_accumulator(x):
    total = 0.0

    def add(v):
        nonlocal total
        total = total + v

    add(1.0)
    add(2.0)
    return x * total


def make_counter():
    count = 0

    def bump(x):
        nonlocal count
        count += 1
        return x + count

    return bump


BUMP = make_counter()


def outer_cell_write(x):
    return BUMP(x)


class Layer:
    def __init__(self, n_in, n_out, seed):
        self.w = normal(n_in, n_out, seed=seed)
        self.b = np.zeros(n_out)
        self.last = None

    def forward(self, x):
        self.last = x
        return np.tanh(x @ self.w + self.b)


def cache_activations(layer, x):
    y = layer.forward(x)
    return y, layer.last is x


def two_layer_train_step(l1, l2, x, target, lr):
    h = l1.forward(x)
    out = h @ l2.w + l2.b
    err = out - target
    grad_w2 = h.T @ err / x.shape[0]
    l2.w = l2.w - lr * grad_w2
    l2.b = l2.b - lr * err.mean(axis=0)
    return (err * err).mean()


def print_and_mutate(x, log):
    y = x * 3
    print("logging", len(log))
    log.append(y)
    x[...] = 0
    return y


def state_objects():
    return [SGD(0.1), Momentum(2), RunningStats(2)]


_OBJECTS: dict = {}


def reset_globals():
    global TOTAL
    TOTAL = 0.0
    COUNTER["value"] = 0
    globals()["BUMP"] = make_counter()


def globals_state():
    return (TOTAL, dict(COUNTER), BUMP(np.zeros(1)))


CASES = [
    Program(inplace_scale, lambda: (np.arange(3.0), 2.0), graphs=1, breaks=0),
    # `x[:, 0]` is a view used and dropped: the assignment into `x` is still traced.
    Program(setitem_row, lambda: (normal(2, 3),), graphs=1, breaks=0),
    Program(out_argument, lambda: (np.arange(3.0), np.zeros(3)), graphs=1, breaks=0),
    Program(clip_in_place, lambda: (normal(4),), graphs=1, breaks=0),
    # `row` is handed on as a real view of `x`, so it sees the update made after the break.
    Program(view_updated_after_break, lambda: (np.ones((2, 2)),), graphs=1, breaks=1),
    Program(optimiser_step, lambda: (SGD(0.5), np.ones(2), np.arange(2.0)), graphs=1,
            breaks=0),
    # float() of a 0-d value is a graph value: `update` inlines whole.
    Program(momentum_update, lambda: (Momentum(2), np.ones(2), np.arange(2.0)), graphs=1,
            breaks=0),
    Program(running_stats, lambda: (RunningStats(2), np.arange(2.0)), graphs=1, breaks=0),
    Program(append_to_list, lambda: (np.arange(3.0), []), graphs=1, breaks=0),
    Program(dict_cache, lambda: (np.ones(2), {}), graphs=1, breaks=0),
    Program(extend_and_pop, lambda: ([np.ones(2), np.arange(2.0)],), graphs=1, breaks=0),
    Program(global_counter, lambda: (np.ones(2),), graphs=1, breaks=0, reset=reset_globals,
            state=globals_state),
    Program(global_dict_mutation, lambda: (np.ones(2),), graphs=1, breaks=0,
            reset=reset_globals, state=globals_state),
    Program(closure_accumulator, lambda: (np.ones(2),), graphs=1, breaks=0),
    Program(outer_cell_write, lambda: (np.ones(2),), graphs=1, breaks=0, reset=reset_globals,
            state=globals_state),
    Program(cache_activations, lambda: (Layer(3, 2, 1), normal(2, 3)), graphs=1, breaks=0),
    Program(two_layer_train_step, lambda: (Layer(3, 4, 1), Layer(4, 2, 2), normal(5, 3),
                                           normal(5, 2, seed=3), 0.1), graphs=1, breaks=0),
    Program(print_and_mutate, lambda: (np.ones(2), [1]), graphs=2, breaks=1),
]


class TinyMLP:
    def __init__(self, seed):
        rng = np.random.default_rng(seed)
        self.w1 = rng.standard_normal((4, 8)) * 0.3
        self.w2 = rng.standard_normal((8, 1)) * 0.3
        self.history = []

    def step(self, x, y, lr):
        h = np.tanh(x @ self.w1)
        err = h @ self.w2 - y
        loss = float((err**2).mean())
        gh = err @ self.w2.T * (1 - h**2)
        self.w2 -= lr * (h.T @ err) / len(x)
        self.w1 -= lr * (x.T @ gh) / len(x)
        self.history.append(loss)
        return loss


def training_loop(model, x, y):
    for epoch in range(12):
        loss = model.step(x, y, 0.1 / (1 + 0.1 * epoch))
        if epoch % 5 == 0:
            print(f"epoch {epoch} loss {loss:.6f}")
    return model.history[-1], len(model.history)


def kmeans(points, k):
    centers = points[:k].copy()
    for it in range(10):
        d = ((points[:, None, :] - centers[None, :, :]) ** 2).sum(-1)
        labels = d.argmin(axis=1)
        new = np.stack([points[labels == j].mean(axis=0) for j in range(k)])
        if np.allclose(new, centers):
            break
        centers = new
    return centers, it


def jacobi(a, b):
    x = np.zeros_like(b)
    d = np.diag(a)
    rest = a - np.diagflat(d)
    for n in range(200):
        new = (b - rest @ x) / d
        if np.abs(new - x).max() < 1e-12:
            return new, n
        x = new
    return x, -1


def _clusters():
    rng = np.random.default_rng(4)
    return np.concatenate([rng.standard_normal((10, 2)) + c for c in ([0, 0], [6, 6])])


CASES += [
    Program(training_loop, lambda: (TinyMLP(1), normal(16, 4), normal(16, 1, seed=2)),
            graphs=2, breaks=5, rtol=1e-7),
    Program(kmeans, lambda: (_clusters(), 2), graphs=2, breaks=3),
    # The convergence loop (200 trips of a few ops, a `return` on a data-dependent test) is
    # one loop op whose trips may return (docs/ARCHITECTURE.md, section 12), in one graph
    # with np.diag and np.diagflat.
    Program(jacobi, lambda: (np.array([[4.0, 1, 0], [1, 5, 2], [0, 2, 6]]),
                             np.array([1.0, 2, 3])), graphs=1, breaks=0),
]
