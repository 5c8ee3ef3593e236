"""Functions that the travel tests send to other processes by reference (importable by name)."""

import ember
import numpy as np


@ember.compile
def affine(x):
    return x * 2.0 + 1.0


def plain_scale(x):
    return np.tanh(x) * 3.0


scale = ember.compile(plain_scale)


def run_and_count(fn, x):
    """`fn(x)` twice in this process, with the compile and cache-hit counts it caused."""
    before = ember.stats()
    out = fn(x)
    out = fn(x)
    after = ember.stats()
    return out, after["compiles"] - before["compiles"], after["cache_hits"] - before["cache_hits"]


def _root_plus_one(x):
    return np.sqrt(np.abs(x)) + 1.0


root_plus_one = ember.compile(_root_plus_one, options={"num_threads": 0})


def put_checked(fn, x, queue):
    """Put whether `fn(x)` equals `_root_plus_one(x)` (run in a child process)."""
    queue.put(bool(np.allclose(fn(x), _root_plus_one(x))))
