"""IR version 2 through `ember._core.compile_ir`: loops, branches and element access compiled
to native code, checked against the same loops written with NumPy (values, dtypes, errors,
inputs left untouched)."""

import re

import ember._core as core
import numpy as np
import pytest

RECURRENCE = """ember-ir 2
func @rec(%0: f64[N]) -> (f64[N]) {
  %1 = const() value=0 : i64[] weak
  %2 = load(%0, %1) : f64[]
  %3 = full() value=0.0 : f64[N]
  %4 = store(%3, %2, %1) : f64[N]
  %5 = const() value=1 : i64[] weak
  %6 = const() value=N : i64[] weak
  %7 = loop(%5, %6, %5, %4, %0) body=@rec_loop0 carried=1 : f64[N]
  return %7
}
func @rec_loop0(%0: i64[] weak, %1: f64[N], %2: f64[N]) -> (bool[], f64[N]) {
  %3 = const() value=1 : i64[] weak
  %4 = sub(%0, %3) : i64[] weak
  %5 = load(%1, %4) : f64[]
  %6 = const() value=0.9 : f64[] weak
  %7 = mul(%6, %5) : f64[]
  %8 = load(%2, %0) : f64[]
  %9 = add(%7, %8) : f64[]
  %10 = store(%1, %9, %0) : f64[N]
  %11 = const() value=true : bool[]
  return %11, %10
}
"""


def recurrence(x):
    y = np.zeros_like(x)
    y[0] = x[0]
    for i in range(1, x.shape[0]):
        y[i] = 0.9 * y[i - 1] + x[i]
    return y


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("layout", ["contiguous", "reversed", "strided"])
def test_recurrence_matches_numpy_in_every_layout(seed, layout):
    n = 257
    base = np.random.default_rng(seed).standard_normal(2 * n)
    x = {"contiguous": base[:n], "reversed": base[n:][::-1], "strided": base[::2]}[layout]
    before = x.copy()
    graph = core.compile_ir(RECURRENCE.replace("N", str(n)))
    (y,) = graph(x)
    expected = recurrence(x)
    assert y.dtype == expected.dtype and y.shape == expected.shape
    np.testing.assert_allclose(y, expected, rtol=1e-12)
    np.testing.assert_array_equal(x, before)


TRIANGLE = """ember-ir 2
func @tri(%0: f32[M,M]) -> (f32[], i64[]) {
  %1 = const() value=0.0 : f32[]
  %2 = const() value=0 : i64[]
  %3 = const() value=0 : i64[] weak
  %4 = const() value=M : i64[] weak
  %5 = const() value=1 : i64[] weak
  %6, %7 = loop(%3, %4, %5, %1, %2, %0) body=@outer carried=2 : f32[], i64[]
  return %6, %7
}
func @outer(%0: i64[] weak, %1: f32[], %2: i64[], %3: f32[M,M]) -> (bool[], f32[], i64[]) {
  %4 = const() value=0 : i64[] weak
  %5 = const() value=1 : i64[] weak
  %6 = add(%0, %5) : i64[] weak
  %7, %8 = loop(%4, %6, %5, %1, %2, %0, %3) body=@inner carried=2 : f32[], i64[]
  %9 = const() value=true : bool[]
  return %9, %7, %8
}
func @inner(%0: i64[] weak, %1: f32[], %2: i64[], %3: i64[] weak, %4: f32[M,M]) -> (bool[], f32[], i64[]) {
  %5 = load(%4, %3, %0) : f32[]
  %6 = const() value=0 : i64[] weak
  %7 = lt(%5, %6) : bool[]
  %8, %9 = if(%7, %1, %2, %5) then=@neg else=@pos : f32[], i64[]
  %10 = const() value=true : bool[]
  return %10, %8, %9
}
func @neg(%0: f32[], %1: i64[], %2: f32[]) -> (f32[], i64[]) {
  %3 = sub(%0, %2) : f32[]
  %4 = const() value=1 : i64[] weak
  %5 = add(%1, %4) : i64[]
  return %3, %5
}
func @pos(%0: f32[], %1: i64[], %2: f32[]) -> (f32[], i64[]) {
  %3 = add(%0, %2) : f32[]
  return %3, %1
}
"""


@pytest.mark.parametrize("seed", [0, 5])
def test_nested_loops_with_a_branch(seed):
    m = 17
    a = np.random.default_rng(seed).standard_normal((m, m)).astype(np.float32).T
    total, negatives = np.float32(0.0), np.int64(0)
    for i in range(m):
        for j in range(i + 1):
            if a[i, j] < 0:
                total, negatives = total - a[i, j], negatives + 1
            else:
                total = total + a[i, j]
    s, c = core.compile_ir(TRIANGLE.replace("M", str(m)))(a)
    assert s.dtype == np.float32 and s.shape == () and c.dtype == np.int64
    assert s == total and c == negatives


ACCESS = """ember-ir 2
func @f(%0: i32[2,3], %1: i64[], %2: f64[]) -> (i32[2,3], i32[]) {
  %3 = const() value=-1 : i64[] weak
  %4 = store(%0, %2, %3, %1) : i32[2,3]
  %5 = load(%4, %1, %1) : i32[]
  return %4, %5
}
"""


@pytest.mark.parametrize("index", [-3, -2, -1, 0, 1, 2, 3, 4])
def test_element_access_raises_numpys_index_error(index):
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    graph = core.compile_ir(ACCESS)
    expected = a.copy()
    try:
        expected[-1, index] = np.float64(-7.9)
        value = expected[index, index]
    except IndexError as e:
        with pytest.raises(IndexError, match=f"^{re.escape(str(e))}$"):
            graph(a, np.asarray(index), np.asarray(-7.9))
        return
    b, v = graph(a, np.asarray(index), np.asarray(-7.9))
    np.testing.assert_array_equal(b, expected)
    assert v == value and v.dtype == np.int32
    np.testing.assert_array_equal(a, np.arange(6, dtype=np.int32).reshape(2, 3))


STEP = """ember-ir 2
func @f(%0: f64[], %1: i64[], %2: i64[], %3: i64[]) -> (f64[]) {
  %4 = loop(%1, %2, %3, %0) body=@body carried=1 : f64[]
  return %4
}
func @body(%0: i64[] weak, %1: f64[]) -> (bool[], f64[]) {
  %2 = const() value=0.5 : f64[] weak
  %3 = mul(%1, %2) : f64[]
  %4 = add(%3, %0) : f64[]
  %5 = const() value=true : bool[]
  return %5, %4
}
"""


@pytest.mark.parametrize(
    ("lo", "hi", "step"),
    [
        (0, 10, 1),
        (10, 0, -3),
        (5, 5, 1),
        (7, 2, 1),
        (-4, 9, 4),
        (0, 3, 0),
        (2**62, 2**63 - 1, 2**61),
    ],
)
def test_range_semantics_and_step_zero(lo, hi, step):
    graph = core.compile_ir(STEP)
    args = (np.asarray(1.0), np.asarray(lo), np.asarray(hi), np.asarray(step))
    try:
        steps = list(range(lo, hi, step))
    except ValueError as e:
        with pytest.raises(ValueError, match=f"^{re.escape(str(e))}$"):
            graph(*args)
        return
    acc = np.float64(1.0)
    for i in steps:
        acc = acc * 0.5 + i
    (out,) = graph(*args)
    assert out == acc


DP = """ember-ir 2
func @lcs(%0: i64[N], %1: i64[N]) -> (i64[P,P]) {
  %2 = full() value=0 : i64[P,P]
  %3 = const() value=1 : i64[] weak
  %4 = const() value=P : i64[] weak
  %5 = loop(%3, %4, %3, %2, %0, %1) body=@rows carried=1 : i64[P,P]
  return %5
}
func @rows(%0: i64[] weak, %1: i64[P,P], %2: i64[N], %3: i64[N]) -> (bool[], i64[P,P]) {
  %4 = const() value=1 : i64[] weak
  %5 = const() value=P : i64[] weak
  %6 = loop(%4, %5, %4, %1, %0, %2, %3) body=@cols carried=1 : i64[P,P]
  %7 = const() value=true : bool[]
  return %7, %6
}
func @cols(%0: i64[] weak, %1: i64[P,P], %2: i64[] weak, %3: i64[N], %4: i64[N]) -> (bool[], i64[P,P]) {
  %5 = const() value=1 : i64[] weak
  %6 = sub(%2, %5) : i64[] weak
  %7 = sub(%0, %5) : i64[] weak
  %8 = load(%3, %6) : i64[]
  %9 = load(%4, %7) : i64[]
  %10 = eq(%8, %9) : bool[]
  %11 = load(%1, %6, %7) : i64[]
  %12 = add(%11, %5) : i64[]
  %13 = load(%1, %6, %0) : i64[]
  %14 = load(%1, %2, %7) : i64[]
  %15 = maximum(%13, %14) : i64[]
  %16 = where(%10, %12, %15) : i64[]
  %17 = store(%1, %16, %2, %0) : i64[P,P]
  %18 = const() value=true : bool[]
  return %18, %17
}
"""


def test_dp_table_with_integer_dtype():
    n = 40
    rng = np.random.default_rng(3)
    a, b = rng.integers(0, 4, n), rng.integers(0, 4, n)
    table = np.zeros((n + 1, n + 1), dtype=np.int64)
    for i in range(1, n + 1):
        for j in range(1, n + 1):
            if a[i - 1] == b[j - 1]:
                table[i, j] = table[i - 1, j - 1] + 1
            else:
                table[i, j] = max(table[i - 1, j], table[i, j - 1])
    graph = core.compile_ir(DP.replace("N", str(n)).replace("P", str(n + 1)))
    (out,) = graph(a, b)
    np.testing.assert_array_equal(out, table)


def jacobi_ir(n, iters):
    m = n - 2

    def sl(r0, r1, c0, c1):
        return f"start=[{r0},{c0}] stop=[{r1},{c1}] step=[1,1]"

    return f"""ember-ir 2
func @f(%0: f64[{n},{n}]) -> (f64[{n},{n}]) {{
  %1 = const() value=0 : i64[] weak
  %2 = const() value={iters} : i64[] weak
  %3 = const() value=1 : i64[] weak
  %4 = loop(%1, %2, %3, %0) body=@sweep carried=1 : f64[{n},{n}]
  return %4
}}
func @sweep(%0: i64[] weak, %1: f64[{n},{n}]) -> (bool[], f64[{n},{n}]) {{
  %2 = slice(%1) {sl(0, n - 2, 1, n - 1)} : f64[{m},{m}]
  %3 = slice(%1) {sl(2, n, 1, n - 1)} : f64[{m},{m}]
  %4 = slice(%1) {sl(1, n - 1, 0, n - 2)} : f64[{m},{m}]
  %5 = slice(%1) {sl(1, n - 1, 2, n)} : f64[{m},{m}]
  %6 = add(%2, %3) : f64[{m},{m}]
  %7 = add(%6, %4) : f64[{m},{m}]
  %8 = add(%7, %5) : f64[{m},{m}]
  %9 = const() value=0.25 : f64[] weak
  %10 = mul(%9, %8) : f64[{m},{m}]
  %11 = slice(%1) {sl(1, n - 1, 0, 1)} : f64[{m},1]
  %12 = slice(%1) {sl(1, n - 1, n - 1, n)} : f64[{m},1]
  %13 = concatenate(%11, %10, %12) axis=1 : f64[{m},{n}]
  %14 = slice(%1) {sl(0, 1, 0, n)} : f64[1,{n}]
  %15 = slice(%1) {sl(n - 1, n, 0, n)} : f64[1,{n}]
  %16 = concatenate(%14, %13, %15) axis=0 : f64[{n},{n}]
  %17 = const() value=true : bool[]
  return %17, %16
}}
"""


def jacobi(u, iters):
    u = u.copy()
    for _ in range(iters):
        u[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    return u


@pytest.mark.parametrize(("n", "iters"), [(12, 50), (5, 0), (7, 1), (8, 2), (6, 3)])
def test_loop_with_array_body_matches_numpy(n, iters):
    u = np.random.default_rng(n).standard_normal((n, 2 * n))[:, ::2]
    before = u.copy()
    (out,) = core.compile_ir(jacobi_ir(n, iters))(u)
    np.testing.assert_allclose(out, jacobi(u, iters), rtol=1e-13)
    np.testing.assert_array_equal(u, before)
