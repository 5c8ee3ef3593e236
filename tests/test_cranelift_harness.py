"""A differential harness for the Cranelift backend: a program traced into a graph (as in
`test_ops_harness`), compiled by the default backend, run, and compared with NumPy.

Results must have NumPy's type, dtype and shape; values are bit for bit equal except for the
ops that are not correctly rounded in NumPy either: transcendental functions within a few ulps,
float reductions within the error bound of NumPy's pairwise summation. Every graph must compile
natively (no eager fallback), so a rejected op fails the test that uses it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import ember
import numpy as np
import pytest
from ember.backends import eager, lookup_backend
from ember.backends.cranelift import eager_reason
from ember.errors import Unsupported
from ember.graph import Graph
from ember.graph.dtypes import SUPPORTED
from test_ops_harness import Traced, _quiet, trace

DEFAULT_BACKEND = "cranelift"

# ulps allowed per op where NumPy's libm and ember's vectorised code may round differently.
ULPS = 4
APPROXIMATE = {
    "cbrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan",
    "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh",
    "arctan2", "hypot", "logaddexp", "power", "pow",
}
# Float reductions whose summation order may differ from NumPy's pairwise order.
SUMMING = {"sum", "mean", "prod", "var", "std", "matmul", "dot"}


def backend() -> Callable[..., Any]:
    return lookup_backend(DEFAULT_BACKEND)


# The dtypes the code generator handles; a graph with any other dtype (i8, u16, ...) runs
# eagerly by design, and must still give NumPy's results.
NATIVE_DTYPES = {np.dtype(d) for d in (np.bool_, np.int32, np.int64, np.float32, np.float64)}


def natively_compilable(graph: Graph) -> bool:
    values = [*graph.inputs, *(n.out for n in graph.nodes)]
    return all(v.dtype in NATIVE_DTYPES for v in values) and eager_reason(graph) is None


def compile_native(graph: Graph, runtime: list[Any],
                   allow_eager: bool = False) -> Callable[..., tuple[np.ndarray, ...]]:
    """The graph compiled by the default backend, asserting that it did not fall back where
    its dtypes are all native (unless `allow_eager`)."""
    before = dict(ember.stats()["backend_fallbacks"])
    compiled = backend()(graph, runtime)
    after = ember.stats()["backend_fallbacks"]
    if natively_compilable(graph) and not allow_eager:
        assert after == before, f"the backend ran the graph eagerly: {after}\n{graph.to_ir()}"
    return compiled


def as_inputs(runtime: list[Any]) -> list[np.ndarray]:
    """Graph inputs as the generated entry passes them: NumPy and Python scalars as 0-d
    arrays, arrays as they are."""
    return [a if isinstance(a, np.ndarray) else np.asarray(a) for a in runtime]


def run(prog: Callable[..., Any], *args: Any, weak_inputs: bool = False,
        dynamic: bool = False, allow_eager: bool = False) -> tuple[Any, Any, Graph] | None:
    """Trace `prog` and run it natively: (results as the user sees them, NumPy's, graph), or
    None where NumPy raises or gives a dtype ember does not support (such programs never reach
    a backend)."""
    try:
        expected = _quiet(prog, np, *args)
    except Exception:  # noqa: BLE001 -- the eager tests check the exceptions
        return None
    expects = expected if isinstance(expected, tuple) else (expected,)
    if any(isinstance(e, (np.ndarray, np.generic)) and e.dtype not in SUPPORTED
           for e in expects):
        return None
    try:
        g, result, runtime = _quiet(trace, prog, args, weak_inputs, {} if dynamic else None)
    except Unsupported:
        return None
    results = result if isinstance(result, tuple) else (result,)
    values = [r.value for r in results if isinstance(r, Traced)]
    if not values:
        return None
    g.set_outputs(values)
    compiled = compile_native(g, runtime, allow_eager)
    outputs = _quiet(compiled, *as_inputs(runtime))
    assert isinstance(outputs, tuple) and len(outputs) == len(values)
    for out in outputs:
        assert type(out) is np.ndarray, type(out)
    got = iter(eager.as_python_results(values, outputs))
    merged = tuple(next(got) if isinstance(r, Traced) else r for r in results)
    return merged, expects, g


def check(prog: Callable[..., Any], *args: Any, ulps: int = 0, sums: bool = False,
          weak_inputs: bool = False, dynamic: bool = False,
          allow_eager: bool = False) -> Graph | None:
    """Assert that the natively compiled program gives NumPy's results (see the module doc):
    `ulps` for approximate functions, `sums` for float summation order; `allow_eager` accepts
    a graph the backend runs eagerly."""
    out = run(prog, *args, weak_inputs=weak_inputs, dynamic=dynamic, allow_eager=allow_eager)
    if out is None:
        return None
    got, expects, g = out
    reduced = [a for a in args if isinstance(a, np.ndarray)]
    for i, (r, e) in enumerate(zip(got, expects, strict=True)):
        assert_close(r, e, ulps=ulps, sums_of=reduced if sums else None,
                     where=f"result {i} of\n{g.to_ir()}")
    return g


def summation_bound(dtype: np.dtype, arrays: list[np.ndarray]) -> float:
    """An absolute bound on the rounding error of a float sum (of the inputs or of products of
    two of them, as in matmul and var) in any order: (log2(n) + 2) * 4 eps * sum|x| * max|x|.
    NumPy's pairwise order is within log2(n) eps * sum|x|; ember may block differently."""
    eps = float(np.finfo(dtype).eps)
    total, largest, n = 0.0, 1.0, 1
    for a in arrays:
        if a.size:
            finite = np.abs(a[np.isfinite(a)].astype(np.float64))
            total = max(total, float(finite.sum()))
            largest = max(largest, float(finite.max(initial=0.0)))
            n = max(n, a.size)
    return 4 * eps * (math.log2(n) + 2) * max(total, 1.0) * largest


def assert_close(got: Any, want: Any, *, ulps: int = 0, sums_of: list[np.ndarray] | None = None,
                 where: str = "") -> None:
    assert type(got) is type(want), f"{where}: type {type(got)} != {type(want)}"
    if not isinstance(want, (np.ndarray, np.generic)):
        both_nan = isinstance(want, float) and math.isnan(want) and math.isnan(got)
        assert got == want or both_nan, f"{where}: {got!r} != {want!r}"
        return
    assert got.dtype == want.dtype, f"{where}: dtype {got.dtype} != {want.dtype}"
    assert got.shape == want.shape, f"{where}: shape {got.shape} != {want.shape}"
    if want.dtype.kind != "f" or (ulps == 0 and sums_of is None):
        np.testing.assert_array_equal(got, want, err_msg=where, strict=True)
        return
    g, w = np.asarray(got), np.asarray(want)
    np.testing.assert_array_equal(np.isnan(g), np.isnan(w), err_msg=f"{where}: nan positions")
    both = np.isfinite(g) & np.isfinite(w)
    np.testing.assert_array_equal(g[~both & ~np.isnan(w)], w[~both & ~np.isnan(w)],
                                  err_msg=f"{where}: infinities")
    err = np.abs(g[both].astype(np.float64) - w[both].astype(np.float64))
    allowed = ulps * np.spacing(np.abs(w[both])).astype(np.float64)
    if sums_of is not None:
        allowed = allowed + summation_bound(w.dtype, sums_of)
    bad = err > allowed
    assert not bad.any(), (f"{where}: {int(bad.sum())} values off, worst {err[bad].max()} "
                           f"(allowed {allowed[bad].min()}): got {g[both][bad][:5]}, "
                           f"want {w[both][bad][:5]}")


# ---- the harness itself must catch disagreements --------------------------------------------


def test_harness_compiles_natively_and_agrees_with_numpy() -> None:
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    g = check(lambda xp, x: (xp.sum(x * 2, axis=0), x.T + 1, x[1, 2] * 3), x, sums=True)
    assert g is not None and len(g.nodes) >= 4


def test_harness_notices_wrong_values_dtypes_and_ulps() -> None:
    with pytest.raises(AssertionError):
        assert_close(np.float32(1), np.float64(1))
    with pytest.raises(AssertionError):
        assert_close(np.zeros(()), np.float64(0))
    with pytest.raises(AssertionError):
        assert_close(np.array([1.0, np.nan]), np.array([1.0, 2.0]), ulps=4)
    one = np.array([1.0])
    assert_close(one + 4 * np.spacing(one), one, ulps=4)
    with pytest.raises(AssertionError):
        assert_close(one + 5 * np.spacing(one), one, ulps=4)
    with pytest.raises(AssertionError):
        assert_close(np.array([np.inf]), np.array([-np.inf]), ulps=4)


def test_harness_notices_an_eager_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    from ember import _core

    def reject(text: str, num_threads: int = 0) -> Any:
        raise _core.IRError("rejected for this test")

    monkeypatch.setattr(_core, "compile_ir", reject)
    with pytest.raises(AssertionError, match="ran the graph eagerly"):
        check(lambda xp, x: x + 1, np.zeros(3))
