"""Matrix products compiled by ember against NumPy's own `@`, in one process.

    python benches/matmul.py [--quick]

For each shape class (matrix-vector, vector-matrix, small squares, tall-skinny, batched,
broadcast batch, transposed operands, products with bias, activation, scaling and residual
epilogues at sizes 64 to 1024, a two-layer block; a call with no product and eight chained
small products, which separate the fixed cost of a compiled call from the products) and each of
float32 and float64, the median seconds per call (samples interleaved) of `np` (plain NumPy) and of the same function
compiled by ember (cranelift backend, a cached call), and their ratio (NumPy time / ember time:
above 1 means ember is faster). NumPy's BLAS thread count is printed; ember's products run on
the same BLAS with the same threads where NumPy ships one. Two last sections time small
products through BLAS and through the tiled loop, and the epilogues alone on a stored product.
"""

from __future__ import annotations

import statistics
import sys
import time

import ember
import numpy as np


def product(a, b):
    return a @ b


def transposed_left(a, b):
    return a.T @ b


def dense_layer(x, w, bias):
    return np.maximum(x @ w + bias, 0.0)


def chained_products(a, b):
    """Eight products in one compiled call: the fixed cost of a call is paid once."""
    for _ in range(8):
        a = a @ b
    return a


def call_cost(a, b):
    """No product at all: what a compiled call costs on 4x4 operands."""
    return a + b


def scaled_tanh_layer(x, w, bias):
    return np.tanh(x @ w + bias) * 0.5


def mlp_block(x, w1, b1, w2, b2):
    """Two layers with a residual add: the product epilogues of a training step's forward."""
    h = np.maximum(x @ w1 + b1, 0.0)
    return x + (h @ w2 + b2) * 0.1


def shapes(dtype):
    rng = np.random.default_rng(0)

    def r(*shape):
        return rng.standard_normal(shape).astype(dtype)

    return [
        ("mat-vec 1024x1024 @ 1024", product, (r(1024, 1024), r(1024))),
        ("mat-vec 256x256 @ 256", product, (r(256, 256), r(256))),
        ("vec-mat 1024 @ 1024x1024", product, (r(1024), r(1024, 1024))),
        ("small 4x4", product, (r(4, 4), r(4, 4))),
        ("small 16x16", product, (r(16, 16), r(16, 16))),
        ("small 64x64", product, (r(64, 64), r(64, 64))),
        ("call cost only: 4x4 a + b", call_cost, (r(4, 4), r(4, 4))),
        ("8 chained products 16x16", chained_products, (r(16, 16), r(16, 16) * 0.25)),
        ("square 256x256", product, (r(256, 256), r(256, 256))),
        ("square 512x512", product, (r(512, 512), r(512, 512))),
        ("tall-skinny 10000x16 @ 16x16", product, (r(10000, 16), r(16, 16))),
        ("tall-skinny 16x10000 @ 10000x16", product, (r(16, 10000), r(10000, 16))),
        ("batched 64x32x32 @ 64x32x32", product, (r(64, 32, 32), r(64, 32, 32))),
        ("batched 8x128x128 @ 8x128x128", product, (r(8, 128, 128), r(8, 128, 128))),
        ("broadcast 64x32x32 @ 32x32", product, (r(64, 32, 32), r(32, 32))),
        ("transposed A.T @ B 256", transposed_left, (r(256, 256), r(256, 256))),
        ("dense relu(x@w+b) 256x512x256", dense_layer, (r(256, 512), r(512, 256), r(256))),
        *[(f"relu(x@w+b) {n}", dense_layer, (r(n, n), r(n, n), r(n))) for n in (64, 256, 1024)],
        *[(f"tanh(x@w+b)*s {n}", scaled_tanh_layer, (r(n, n), r(n, n), r(n)))
          for n in (64, 256, 1024)],
        *[(f"mlp block {b}x{n}", mlp_block, (r(b, n), r(n, 2 * n), r(2 * n), r(2 * n, n), r(n)))
          for b, n in ((32, 64), (128, 256), (256, 1024))],
    ]


def per_call(fns, args, budget: float) -> list[float]:
    """Median seconds per call of each function, their samples interleaved (9 rounds of about
    `budget / 9` seconds each), so that a change in machine load affects all of them alike."""
    inner = []
    for fn in fns:
        fn(*args)
        start = time.perf_counter()
        calls = 0
        while time.perf_counter() - start < budget / 20 or calls < 3:
            fn(*args)
            calls += 1
        inner.append(max(1, int(budget / 9 / ((time.perf_counter() - start) / calls))))
    samples: list[list[float]] = [[] for _ in fns]
    for _ in range(9):
        for fn, n, out in zip(fns, inner, samples, strict=True):
            start = time.perf_counter()
            for _ in range(n):
                fn(*args)
            out.append((time.perf_counter() - start) / n)
    return [statistics.median(out) for out in samples]


def blas_threads() -> str:
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return "unknown (threadpoolctl not installed)"
    return ", ".join(f"{i['internal_api']}={i['num_threads']}" for i in threadpool_info())


def main() -> None:
    budget = 0.2 if "--quick" in sys.argv else 0.6
    # One function per shape class would exceed the recompile limit of a single code object.
    ember.config.recompile_limit = 64
    print(f"numpy {np.__version__}; BLAS threads: {blas_threads()}; "
          f"ember threads: {ember.config.num_threads or 'all cores'}")
    ratios = []
    for dtype in (np.float32, np.float64):
        print(f"\n{np.dtype(dtype).name:<34} {'numpy':>10} {'ember':>10} {'ratio':>7}")
        for name, fn, args in shapes(dtype):
            compiled = ember.compile(fn)
            np.testing.assert_allclose(compiled(*args), fn(*args), rtol=1e-3, atol=1e-3)
            t_np, t_em = per_call([fn, compiled], args, budget)
            ratios.append(t_np / t_em)
            print(f"{name:<34} {t_np * 1e6:>8.1f}us {t_em * 1e6:>8.1f}us {t_np / t_em:>6.2f}x")
    print(f"\ngeomean ratio {statistics.geometric_mean(ratios):.2f}x, min {min(ratios):.2f}x")
    product_paths(budget)
    epilogues_alone(budget)


def epilogues_alone(budget: float) -> None:
    """The elementwise epilogues of the rows above on a product already stored (256x256):
    what the epilogue itself costs against NumPy's ufuncs, apart from any pass over memory
    (the operands fit in L2, so a fused pass would save little here)."""
    print(f"\n{'epilogue on a stored product 256²':<34} {'numpy':>10} {'ember':>10} {'ratio':>7}")
    rng = np.random.default_rng(2)
    epilogues = [
        ("tanh(z)", lambda z, b: np.tanh(z)),
        ("tanh(z + b) * s", lambda z, b: np.tanh(z + b) * 0.5),
        ("relu(z + b)", lambda z, b: np.maximum(z + b, 0.0)),
    ]
    for dtype in (np.float32, np.float64):
        z = rng.standard_normal((256, 256)).astype(dtype)
        b = rng.standard_normal(256).astype(dtype)
        for name, fn in epilogues:
            compiled = ember.compile(fn)
            np.testing.assert_allclose(compiled(z, b), fn(z, b), rtol=1e-5, atol=1e-6)
            t_np, t_em = per_call([fn, compiled], (z, b), budget)
            label = f"{np.dtype(dtype).name} {name}"
            print(f"{label:<34} {t_np * 1e6:>8.1f}us {t_em * 1e6:>8.1f}us {t_np / t_em:>6.2f}x")


def product_paths(budget: float) -> None:
    """Small products through NumPy's BLAS and through the tiled loop that takes them where
    no BLAS is registered, both compiled: which path should own small products."""
    from ember.backends import blas

    print(f"\n{'small products, compiled':<34} {'blas':>10} {'tiled':>10} {'tiled/blas':>11}")
    rng = np.random.default_rng(1)
    for dtype in (np.float32, np.float64):
        for s in (4, 8, 16):
            for batch in ((), (64,)):
                a, b = (rng.standard_normal((*batch, s, s)).astype(dtype) for _ in range(2))
                compiled = ember.compile(product)
                blas.register()
                t_blas = per_call([compiled], (a, b), budget)[0]
                blas.unregister()
                try:
                    t_tiled = per_call([compiled], (a, b), budget)[0]
                finally:
                    blas.register()
                name = f"{np.dtype(dtype).name} {'x'.join(map(str, (*batch, s, s)))}"
                print(f"{name:<34} {t_blas * 1e6:>8.1f}us {t_tiled * 1e6:>8.1f}us "
                      f"{t_tiled / t_blas:>10.2f}x")


if __name__ == "__main__":
    main()
