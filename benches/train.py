"""Training-step throughput: a 784-256-10 tanh MLP with softmax cross-entropy on integer
labels (`log_probs[np.arange(n), y]`; `--onehot`: one-hot label rows multiplied in), batch
128, float32, plain SGD, side by side in one process, at 1 and 2 threads.

    python benches/train.py [--quick] [--onehot]

Contenders: the step compiled by ember (`ember.value_and_grad` inside `ember.compile`), the
same step written by hand in NumPy (forward and backward), and autograd / JAX where
installed. Also: the graphs per step, the step's cold compile time (capture, gradient and code
generation of every graph, measured on the first call after `ember.reset()`), and the
residual bytes with the min-cut partitioner against saving every value the backward reads.
Times are medians of repeated runs, the contenders taking turns; ratios are the NumPy step's time over the contender's.
NumPy's BLAS picks its own thread count: run with `OPENBLAS_NUM_THREADS=1` to compare
single-threaded steps on a busy machine, where a threaded BLAS loses most of its time waiting.
"""

from __future__ import annotations

import argparse
import importlib
import itertools
import statistics
import time

import ember
import numpy as np

BATCH, SIZES, LR = 128, (784, 256, 10), 0.01


def loss_fn(p, x, y):
    h = np.tanh(x @ p["w0"] + p["b0"])
    logits = h @ p["w1"] + p["b1"]
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    if y.ndim == 2:  # one-hot rows
        return -(log_probs * y).sum() / x.shape[0]
    return -log_probs[np.arange(x.shape[0]), y].sum() / x.shape[0]


def ember_step(p, x, y):
    loss, g = ember.value_and_grad(loss_fn)(p, x, y)
    return loss, {k: p[k] - LR * g[k] for k in p}


def numpy_step(p, x, y):
    h = np.tanh(x @ p["w0"] + p["b0"])
    logits = h @ p["w1"] + p["b1"]
    shifted = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(shifted)
    s = e.sum(axis=1, keepdims=True)
    if y.ndim == 2:
        loss = -((shifted - np.log(s)) * y).sum() / x.shape[0]
        d_logits = (e / s - y) / x.shape[0]
    else:
        rows = np.arange(x.shape[0])
        loss = -(shifted - np.log(s))[rows, y].sum() / x.shape[0]
        d_logits = e / s
        d_logits[rows, y] -= 1
        d_logits /= x.shape[0]
    d_pre = (d_logits @ p["w1"].T) * (1 - h * h)
    g = {"w1": h.T @ d_logits, "b1": d_logits.sum(axis=0), "w0": x.T @ d_pre,
         "b0": d_pre.sum(axis=0)}
    return loss, {k: p[k] - LR * g[k] for k in p}


def autograd_step():
    try:
        ag = importlib.import_module("autograd")
        anp = importlib.import_module("autograd.numpy")
    except ImportError:
        return None

    def loss(p, x, y):
        h = anp.tanh(anp.dot(x, p["w0"]) + p["b0"])
        logits = anp.dot(h, p["w1"]) + p["b1"]
        shifted = logits - anp.max(logits, axis=1, keepdims=True)
        log_probs = shifted - anp.log(anp.sum(anp.exp(shifted), axis=1, keepdims=True))
        if y.ndim == 2:
            return -anp.sum(log_probs * y) / x.shape[0]
        return -anp.sum(log_probs[np.arange(x.shape[0]), y]) / x.shape[0]

    vg = ag.value_and_grad(loss)

    def step(p, x, y):
        value, g = vg(p, x, y)
        return value, {k: p[k] - LR * g[k] for k in p}

    return step


def jax_step():
    try:
        jax = importlib.import_module("jax")
        jnp = importlib.import_module("jax.numpy")
    except ImportError:
        return None

    def loss(p, x, y):
        h = jnp.tanh(x @ p["w0"] + p["b0"])
        logits = h @ p["w1"] + p["b1"]
        log_probs = jax.nn.log_softmax(logits)
        if y.ndim == 2:
            return -(log_probs * y).sum() / x.shape[0]
        return -log_probs[jnp.arange(x.shape[0]), y].sum() / x.shape[0]

    @jax.jit
    def step(p, x, y):
        value, g = jax.value_and_grad(loss)(p, x, y)
        return value, {k: p[k] - LR * g[k] for k in p}

    def run(p, x, y):
        value, new = step(p, x, y)
        value.block_until_ready()
        return value, new

    return run


def data(seed=0, onehot=False):
    rng = np.random.default_rng(seed)
    p = {}
    for i, (n_in, n_out) in enumerate(itertools.pairwise(SIZES)):
        p[f"w{i}"] = (rng.normal(size=(n_in, n_out)) / np.sqrt(n_in)).astype(np.float32)
        p[f"b{i}"] = np.zeros(n_out, np.float32)
    x = rng.uniform(size=(BATCH, SIZES[0])).astype(np.float32)
    y = rng.integers(0, SIZES[-1], BATCH)
    return p, x, np.eye(SIZES[-1], dtype=np.float32)[y] if onehot else y


def steps_per_second(contenders, p, x, y, repeats, steps):
    """Steps per second of each contender (None: not installed). The contenders take turns
    within each repeat, so a busy machine slows them alike and the ratios stay fair."""
    live = {name: step for name, step in contenders.items() if step is not None}
    for step in live.values():
        step(p, x, y)
    times: dict[str, list[float]] = {name: [] for name in live}
    for _ in range(repeats):
        for name, step in live.items():
            params = p
            start = time.perf_counter()
            for _ in range(steps):
                _, params = step(params, x, y)
            times[name].append((time.perf_counter() - start) / steps)
    return {name: 1.0 / statistics.median(times[name]) if name in live else None
            for name in contenders}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--onehot", action="store_true", help="one-hot labels")
    args = parser.parse_args()
    repeats, steps = (3, 10) if args.quick else (7, 30)
    p, x, y = data(onehot=args.onehot)

    colds = []
    for _ in range(repeats):
        ember.reset()
        compiled = ember.compile(ember_step)
        start = time.perf_counter()
        compiled(p, x, y)
        colds.append(time.perf_counter() - start)
    loss_e, new_e = compiled(p, x, y)
    loss_n, new_n = numpy_step(p, x, y)
    assert abs(float(loss_e) - float(loss_n)) < 1e-4 * abs(float(loss_n))
    for k in new_n:
        np.testing.assert_allclose(new_e[k], new_n[k], rtol=1e-3, atol=1e-5)
    report = ember.explain(ember.value_and_grad(loss_fn), p, x, y)
    residual = sum(a.residual_bytes for a in report.aot)
    save_all = sum(a.save_all_bytes for a in report.aot)
    step_report = ember.explain(ember_step, p, x, y)
    print(f"graphs per step: {step_report.graph_count}, graph breaks: "
          f"{step_report.graph_break_count}, ops: {step_report.op_count}")
    print(f"cold compile of the step: {statistics.median(colds) * 1e3:.1f} ms (median of "
          f"{len(colds)}; the first in this process {colds[0] * 1e3:.1f} ms)")
    print(f"residual bytes: {residual} with the min-cut partitioner, {save_all} saving every "
          "value the backward reads")

    others = {"numpy by hand": numpy_step, "autograd": autograd_step(), "jax.jit": jax_step()}
    for threads in (1, 2):
        ember.config.num_threads = threads
        ember.reset()
        rows = steps_per_second({"ember": ember.compile(ember_step), **others}, p, x, y,
                                repeats, steps)
        base = rows["numpy by hand"]
        print(f"\n{threads} thread(s) for ember's kernels (NumPy's BLAS uses its own setting)")
        for name, rate in rows.items():
            if rate is None:
                print(f"  {name:14s} not installed")
            else:
                print(f"  {name:14s} {rate:8.1f} steps/s  {rate / base:5.2f}x the NumPy step")


if __name__ == "__main__":
    main()
