"""An ember-compiled function run by Dask: blocks of a Dask array on a local cluster of worker
processes. The compiled function travels to the workers (by value: it is defined in this
script), compiles there on first use, and every block after the first is a cache hit.

    pip install -e '.[test]' && python examples/dask_cluster.py
"""

import dask.array as da
import distributed
import ember
import numpy as np


@ember.compile
def standardise(block):
    mu = block.mean(axis=1, keepdims=True)
    sd = np.sqrt(((block - mu) ** 2).mean(axis=1, keepdims=True) + 1e-6)
    return np.tanh((block - mu) / sd)


def main() -> None:
    x = np.random.default_rng(0).standard_normal((4096, 512))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        out = da.from_array(x, chunks=(256, 512)).map_blocks(standardise, dtype=x.dtype)
        result = out.compute()
        per_worker = client.run(lambda: {k: ember.stats()[k] for k in ("compiles", "cache_hits")})
    expected = standardise.__wrapped__(x)
    print("max abs difference from NumPy:", float(np.abs(result - expected).max()))
    for worker, counts in sorted(per_worker.items()):
        print(f"worker {worker}: {counts['compiles']} compiles, {counts['cache_hits']} cache hits")


if __name__ == "__main__":
    main()
