"""Training loops as users write them (tests/test_autodiff_training_loops.py): one epoch of
each loop with its step compiled by ember (`ember.value_and_grad` inside `ember.compile`)
against the same loop with the backward pass written by hand in NumPy, medians of 7 epochs in
one process after a warm-up epoch; the ratio is NumPy's time over ember's. Loops: logistic
regression on slices of 96 digits, a 64-32-10 ReLU MLP with Adam over a dict on batches of
100 digits (float64 and float32), a 64-12-64 autoencoder with momentum on batches of 50.

    OPENBLAS_NUM_THREADS=1 EMBER_STORED_ENTRIES=0 python benches/train_loops.py
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import ember
import test_autodiff_training_loops as loops


def _median(run, repeats=7):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _autoencoder_epoch(step, x):
    rng = np.random.default_rng(1)
    params = {"enc": rng.standard_normal((64, 12)) * 0.1, "enc_b": np.zeros(12),
              "dec": rng.standard_normal((12, 64)) * 0.1, "dec_b": np.zeros(64)}
    velocity = {k: np.zeros_like(p) for k, p in params.items()}
    for batch in x.reshape(-1, 50, 64):
        _, params, velocity = step(params, velocity, batch, 0.05, 0.9)


def main() -> None:
    x, y, _, _ = loops._digits()
    halves = (y < 5) * 1.0
    contenders = [
        ("logistic regression", lambda s: loops._train_logistic(s, 1, x, halves),
         loops.logistic_step, loops.logistic_step_by_hand),
        ("mlp, adam, float64", lambda s: loops._train_mlp(s, 1, x, y, np.float64),
         loops.adam_step, loops.adam_step_by_hand),
        ("mlp, adam, float32", lambda s: loops._train_mlp(s, 1, x, y, np.float32),
         loops.adam_step, loops.adam_step_by_hand),
        ("autoencoder, momentum", lambda s: _autoencoder_epoch(s, x),
         loops.momentum_step, loops.momentum_step_by_hand),
    ]
    for name, epoch, compiled, by_hand in contenders:
        epoch(compiled)
        before = ember.stats()["recompiles"]
        ember_time = _median(lambda: epoch(compiled))
        numpy_time = _median(lambda: epoch(by_hand))
        late = ember.stats()["recompiles"] - before
        print(f"{name:24s} ember {ember_time * 1e3:7.2f} ms/epoch   numpy by hand "
              f"{numpy_time * 1e3:7.2f} ms/epoch   {numpy_time / ember_time:5.2f}x   "
              f"recompiles after the first epoch: {late}")
    print(f"graph breaks: {ember.stats()['graph_breaks']}")


if __name__ == "__main__":
    main()
