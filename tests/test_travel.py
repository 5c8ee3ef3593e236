"""Compiled functions travel: pickle and cloudpickle, multiprocessing (fork and spawn),
concurrent.futures, Dask arrays and a Dask cluster of worker processes. On the other side they
compile again and run compiled code (counted by `ember.stats()` there)."""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import pickle

import cloudpickle
import dask.array as da
import distributed
import ember
import numpy as np
import pytest
import travel_module as tm


def test_module_level_function_pickles_by_reference():
    assert pickle.loads(pickle.dumps(tm.affine)) is tm.affine
    assert cloudpickle.loads(cloudpickle.dumps(tm.affine)) is tm.affine


def test_compiled_module_function_pickles_with_its_options():
    compiled = ember.compile(tm.plain_scale, backend="eager", options=None)
    copy = pickle.loads(pickle.dumps(compiled))
    assert copy is not compiled and copy.__wrapped__ is tm.plain_scale
    assert copy._arguments == ("eager", False, None, None)
    x = np.linspace(-1, 1, 7)
    np.testing.assert_allclose(copy(x), tm.plain_scale(x))


def test_closures_and_lambdas_travel_by_value_with_cloudpickle():
    offset = np.float64(0.5)

    def shifted(x):
        return np.exp(x) - offset

    for fn in (ember.compile(shifted), ember.compile(lambda x: x * x - 1.0)):
        with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
            pickle.dumps(fn)  # as for the plain closure: pickle cannot send it
        copy = cloudpickle.loads(cloudpickle.dumps(fn))
        assert copy is not fn
        x = np.arange(5.0)
        out, compiles, hits = tm.run_and_count(copy, x)
        np.testing.assert_allclose(out, fn.__wrapped__(x))
        assert compiles == 1 and hits == 1


def test_bound_method_of_compiled_function():
    class Model:
        def __init__(self, w):
            self.w = w

        @ember.compile
        def __call__(self, x):
            return x @ self.w

    m = Model(np.eye(3) * 2.0)
    np.testing.assert_allclose(m(np.ones(3)), np.full(3, 2.0))


def _in_pool(method: str, fn, x):
    with multiprocessing.get_context(method).Pool(2) as pool:
        return pool.starmap(tm.run_and_count, [(fn, x), (fn, x + 1.0)])


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_multiprocessing_pools_run_compiled_code(method):
    x = np.linspace(0.0, 1.0, 11)
    for out, compiles, hits in _in_pool(method, tm.affine, x):
        assert compiles <= 1 and compiles + hits == 2  # a forked child may inherit the entry
    results = _in_pool(method, tm.affine, x)
    np.testing.assert_allclose(results[0][0], x * 2.0 + 1.0)
    np.testing.assert_allclose(results[1][0], (x + 1.0) * 2.0 + 1.0)


def test_fork_after_parallel_kernels_does_not_hang():
    big = np.random.default_rng(0).standard_normal(1 << 20)
    f = tm.root_plus_one  # all cores: the parent's thread pool runs it
    np.testing.assert_allclose(f(big), np.sqrt(np.abs(big)) + 1.0)
    ctx = multiprocessing.get_context("fork")
    results = ctx.Queue()
    child = ctx.Process(target=tm.put_checked, args=(f, big, results))
    child.start()
    child.join(timeout=60)
    if child.is_alive():  # a child waiting on the parent's pool threads, which it has not got
        child.kill()
        child.join()
        pytest.fail("the forked child hung running a parallel kernel")
    assert child.exitcode == 0 and results.get(timeout=5) is True


def test_process_pool_executor_with_spawn():
    ctx = multiprocessing.get_context("spawn")
    x = np.arange(6.0)
    with concurrent.futures.ProcessPoolExecutor(2, mp_context=ctx) as pool:
        out, compiles, hits = pool.submit(tm.run_and_count, tm.scale, x).result(timeout=120)
    np.testing.assert_allclose(out, np.tanh(x) * 3.0)
    assert compiles == 1 and hits == 1


def test_dask_array_map_blocks():
    f = ember.compile(lambda b: np.sqrt(b * b + 1.0))
    x = np.random.default_rng(1).standard_normal((40, 30))
    before = ember.stats()["compiles"]
    out = da.from_array(x, chunks=(10, 30)).map_blocks(f, dtype=x.dtype).compute(
        scheduler="threads")
    np.testing.assert_allclose(out, np.sqrt(x * x + 1.0))
    assert ember.stats()["compiles"] - before >= 1


def test_dask_local_cluster_workers_run_compiled_code():
    scale = np.float64(3.0)
    f = ember.compile(lambda b: np.tanh(b) * scale + b.sum(axis=1, keepdims=True))
    x = np.random.default_rng(2).standard_normal((64, 16))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        out = da.from_array(x, chunks=(8, 16)).map_blocks(f, dtype=x.dtype).compute()
        compiles = client.run(lambda: ember.stats()["compiles"])
        hits = client.run(lambda: ember.stats()["cache_hits"])
    np.testing.assert_allclose(out, np.tanh(x) * 3.0 + x.sum(axis=1, keepdims=True))
    assert len(compiles) == 2
    # One compile per worker that ran blocks; every later block (a new copy of the function
    # unpickled per task) is a cache hit.
    assert 1 <= sum(compiles.values()) <= 2
    assert sum(hits.values()) + sum(compiles.values()) == 8


def test_copies_arriving_by_value_share_compiled_entries():
    scale = np.float64(2.0)
    payload = cloudpickle.dumps(ember.compile(lambda b: b * scale - 1.0))
    x = np.arange(4.0)
    first = cloudpickle.loads(payload)
    out, compiles, _ = tm.run_and_count(first, x)
    assert compiles == 1
    second = cloudpickle.loads(payload)
    assert second.__wrapped__.__code__ is first.__wrapped__.__code__
    out, compiles, hits = tm.run_and_count(second, x)
    np.testing.assert_allclose(out, x * 2.0 - 1.0)
    assert compiles == 0 and hits == 2
    other = cloudpickle.loads(cloudpickle.dumps(ember.compile(lambda b: b * scale + 5.0)))
    out, compiles, _ = tm.run_and_count(other, x)  # another function: its own entries
    np.testing.assert_allclose(out, x * 2.0 + 5.0)
    assert compiles == 1
