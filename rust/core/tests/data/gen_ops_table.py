"""Write ops_table.txt: NumPy's results for every elementwise op, cast and reduction of the IR
on edge-case values of every dtype, for the reference interpreter's test (`tests/interp.rs`).

A line is `kind op | operand | operand... | result` with arrays written as `f32[2]{1.0, nan}`
(a `weak ` prefix marks a Python scalar), or `error` where NumPy raises.
"""

import itertools
import warnings

import numpy as np
from gen_dtype_table import BINARY, DTYPES, NP_NAMES, UNARY

IR_NAMES = {v: k for k, v in NP_NAMES.items()}
BASE = {
    "bool": [False, True],
    "f": [0.0, -0.0, 1.5, -2.5, 7.0, -7.0, 0.5, 3.0, 1e-3, np.nan, np.inf, -np.inf],
}


WEAK_PARTNERS = ("bool", "i8", "u8", "i64", "u64", "f32", "f64")


def values(dtype):
    np_dtype = np.dtype(NP_NAMES[dtype])
    if dtype == "bool":
        return BASE["bool"]
    if np_dtype.kind == "f":
        return BASE["f"]
    info = np.iinfo(np_dtype)
    vals = [0, 1, 2, 3, 7, info.max, info.min, info.max - 1]
    if info.min < 0:
        vals += [-1, -3, -7]
    return sorted(set(vals))


def pair_values(dtype):
    """Fewer values for the all-pairs tables: signs, zeros, extremes, NaN."""
    vals = values(dtype)
    if dtype == "bool":
        return vals
    if dtype in ("f32", "f64"):
        return [0.0, -0.0, 7.0, -2.5, 0.5, np.nan, np.inf]
    info = np.iinfo(NP_NAMES[dtype])
    return sorted({0, 1, 3, info.max, info.min, -1 if info.min else 2, -7 if info.min else 7})


def fmt_value(v, dtype):
    if dtype == "bool":
        return "true" if v else "false"
    if np.dtype(NP_NAMES[dtype]).kind == "f":
        if np.isnan(v):
            return "nan"
        if np.isinf(v):
            return "inf" if v > 0 else "-inf"
        # The shortest digits that read back as the same value of the dtype.
        return str(np.float32(v)) if dtype == "f32" else repr(float(v))
    return str(int(v))


def fmt(arr, weak=False):
    arr = np.asarray(arr)
    dtype = IR_NAMES[arr.dtype.name]
    flat = arr.reshape(-1)
    body = ", ".join(fmt_value(v, dtype) for v in flat.tolist())
    shape = ",".join(map(str, arr.shape))
    return f"{'weak ' if weak else ''}{dtype}[{shape}]{{{body}}}"


def run(fn, *args, **kwargs):
    try:
        out = fn(*args, **kwargs)
    except (TypeError, ValueError, OverflowError):
        return "error"
    if np.asarray(out).dtype.name == "float16":
        return None
    return fmt(out)


MATMUL_SHAPES = [
    ((3,), (3,)),
    ((2, 3), (3,)),
    ((3,), (3, 4)),
    ((2, 3), (3, 4)),
    ((2, 1, 3), (4, 3, 2)),
    ((3,), (2, 3, 1)),
    ((2, 2, 3), (3,)),
    ((1, 2, 2, 3), (2, 1, 3, 2)),
    ((0, 3), (3, 2)),
    ((2, 0), (0, 3)),
]


def matmul_cases():
    rng = np.random.default_rng(7)
    lines = []
    for a_dtype, b_dtype in [
        ("f64", "f64"),
        ("f32", "f32"),
        ("i8", "i8"),
        ("u8", "i16"),
        ("bool", "bool"),
        ("f32", "i32"),
    ]:
        for a_shape, b_shape in MATMUL_SHAPES:
            a = operand_of(rng, a_dtype, a_shape)
            b = operand_of(rng, b_dtype, b_shape)
            lines.append(f"matmul | {fmt(a)} | {fmt(b)} | {run(np.matmul, a, b)}")
    return lines


def operand_of(rng, dtype, shape):
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype in ("f32", "f64"):
        return rng.standard_normal(shape).round(2).astype(NP_NAMES[dtype])
    return rng.integers(-100 if dtype[0] == "i" else 0, 100, size=shape).astype(NP_NAMES[dtype])


def main():
    warnings.simplefilter("ignore")
    lines = []
    for op, fn in UNARY.items():
        for d in DTYPES:
            x = np.array(values(d), NP_NAMES[d])
            result = run(fn, x)
            if result:
                lines.append(f"unary {op} | {fmt(x)} | {result}")
    weak = {"bool": True, "i64": 3, "f64": -2.5}
    for op, fn in BINARY.items():
        for d in DTYPES:
            pairs = list(itertools.product(pair_values(d), repeat=2))
            if op == "pow" and d != "bool" and np.dtype(NP_NAMES[d]).kind in "iu":
                pairs = [(a, b) for a, b in pairs if 0 <= b < 70]
            x = np.array([a for a, _ in pairs], NP_NAMES[d])
            y = np.array([b for _, b in pairs], NP_NAMES[d])
            result = run(fn, x, y)
            if result:
                lines.append(f"binary {op} | {fmt(x)} | {fmt(y)} | {result}")
            for wd, wv in weak.items() if d in WEAK_PARTNERS else ():
                result = run(fn, x, wv)
                if result:
                    lines.append(
                        f"binary {op} | {fmt(x)} | {fmt(np.array(wv, NP_NAMES[wd]), True)} | {result}"
                    )
    for a, b in itertools.product(DTYPES, repeat=2):
        x = np.array(values(a), NP_NAMES[a])
        lines.append(f"astype {b} | {fmt(x)} | {fmt(x.astype(NP_NAMES[b]))}")
    for d in DTYPES:
        vals = values(d)
        x = np.resize(np.array(vals, NP_NAMES[d]), (3, 4))
        for op in ["sum", "prod", "max", "min", "mean", "any", "all", "argmax", "argmin"]:
            for axis in [0, 1, None]:
                result = run(getattr(np, op), x, axis=axis)
                tag = "none" if axis is None else axis
                lines.append(f"reduce {op} {tag} | {fmt(x)} | {result}")
    lines += matmul_cases()
    with open("ops_table.txt", "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
