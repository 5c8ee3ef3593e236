"""Check the golden files' `run:` results against NumPy itself.

The Rust reference interpreter wrote the expected results; this script evaluates each IR
function op by op with NumPy (weak parameters and constants as Python scalars, so NEP 50
applies) and compares dtype, shape and values: exact for bools and integers, a few ulps for
floats, with NaN and the sign of zero compared exactly. Run from anywhere:

    python3 rust/core/tests/golden/check_numpy.py
"""

import pathlib
import re
import sys
import warnings

import numpy as np

NP = {
    "bool": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
    "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
    "f32": np.float32, "f64": np.float64,
}  # fmt: skip
UNARY = {
    "neg": np.negative, "positive": np.positive, "abs": np.abs, "sign": np.sign,
    "square": np.square, "reciprocal": np.reciprocal, "sqrt": np.sqrt, "cbrt": np.cbrt,
    "exp": np.exp, "exp2": np.exp2, "expm1": np.expm1, "log": np.log, "log2": np.log2,
    "log10": np.log10, "log1p": np.log1p, "sin": np.sin, "cos": np.cos, "tan": np.tan,
    "arcsin": np.arcsin, "arccos": np.arccos, "arctan": np.arctan, "sinh": np.sinh,
    "cosh": np.cosh, "tanh": np.tanh, "arcsinh": np.arcsinh, "arccosh": np.arccosh,
    "arctanh": np.arctanh, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc,
    "rint": np.rint, "logical_not": np.logical_not, "bitwise_not": np.bitwise_not,
    "isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite, "signbit": np.signbit,
    "copy": np.copy,
}  # fmt: skip
BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide,
    "floordiv": np.floor_divide, "mod": np.remainder, "pow": np.power,
    "maximum": np.maximum, "minimum": np.minimum, "fmax": np.fmax, "fmin": np.fmin,
    "arctan2": np.arctan2, "hypot": np.hypot, "copysign": np.copysign,
    "logaddexp": np.logaddexp, "eq": np.equal,
    "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
    "ge": np.greater_equal, "logical_and": np.logical_and, "logical_or": np.logical_or,
    "logical_xor": np.logical_xor, "bitwise_and": np.bitwise_and,
    "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor,
    "left_shift": np.left_shift, "right_shift": np.right_shift, "matmul": np.matmul,
}  # fmt: skip
REDUCE = {
    "sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min, "mean": np.mean,
    "any": np.any, "all": np.all,
}  # fmt: skip
STMT = re.compile(r"%(\d+) = (\w+)\(([^)]*)\)(.*) : (\S+)( weak)?$")
TYPE = re.compile(r"(\w+)\[([^\]]*)\]( weak)?")


def literal(text):
    text = text.strip()
    if text in ("true", "false"):
        return text == "true"
    if text.startswith("["):
        return [literal(t) for t in text[1:-1].split(",") if t]
    if text == "none":
        return None
    if text in NP or re.fullmatch(r"[a-z_][a-z0-9_]*", text) and text not in ("inf", "nan"):
        return text
    try:
        return int(text)
    except ValueError:
        return float(text)


def parse_array(text):
    m = re.fullmatch(r"(\w+)\[([^\]]*)\]\{(.*)\}", text.strip())
    dtype, dims, body = m.groups()
    shape = tuple(int(d) for d in dims.split(",") if d)
    values = [literal(v) for v in body.split(",") if v.strip()]
    return np.array(values, dtype=NP[dtype]).reshape(shape)


def scalar_of(value, dtype, weak):
    if weak:
        return {"bool": bool, "i64": int, "f64": float}[dtype](value)
    return np.asarray(value).astype(NP[dtype])


def evaluate(stmt, env, symbols):
    m = STMT.match(stmt.strip())
    index, op, operands, attrs, ty, weak = m.groups()
    args = [env[int(v.strip()[1:])] for v in operands.split(",") if v.strip()]
    a = dict(kv.split("=", 1) for kv in attrs.split())
    a = {k: literal(v) for k, v in a.items()}
    dtype, dims, _ = TYPE.match(ty).groups()
    shape = tuple(int(d) if d.isdigit() else symbols[d] for d in dims.split(",") if d)
    if op in UNARY:
        out = UNARY[op](args[0])
    elif op in BINARY:
        out = BINARY[op](args[0], args[1])
    elif op == "where":
        out = np.where(*args)
    elif op == "astype":
        out = np.asarray(args[0]).astype(NP[a["dtype"]])
    elif op == "const":
        out = scalar_of(a["value"], dtype, weak)
    elif op == "full":
        out = np.full(shape, a["value"], NP[dtype])
    elif op == "arange":
        n = shape[0]
        out = np.array([a["start"] + i * a["step"] for i in range(n)]).astype(NP[dtype])
    elif op == "eye":
        out = np.eye(shape[0], shape[1], a["k"], dtype=NP[dtype])
    elif op in REDUCE:
        axis = None if a["axis"] is None else tuple(a["axis"])
        out = REDUCE[op](args[0], axis=axis, keepdims=a["keepdims"])
    elif op in ("argmax", "argmin"):
        out = getattr(np, op)(args[0], axis=a["axis"], keepdims=a["keepdims"])
    elif op in ("reshape", "broadcast_to"):
        target = [symbols[d] if isinstance(d, str) else d for d in a["shape"]]
        out = getattr(np, op)(args[0], target)
    elif op == "transpose":
        out = np.transpose(args[0], a["perm"])
    elif op in ("expand_dims", "squeeze", "flip"):
        out = getattr(np, op)(args[0], tuple(a["axis"]))
    elif op == "slice":
        # Normalised bounds: -1 means "before the front", which a Python slice spells None.
        index_ = tuple(
            slice(0, 0) if b < 0 else slice(b, None if e < 0 else e, s)
            for b, e, s in zip(a["start"], a["stop"], a["step"])
        )
        out = args[0][index_]
    elif op == "concatenate":
        out = np.concatenate(args, axis=a["axis"])
    else:
        raise ValueError(f"unknown op {op}")
    return int(index), out


def check_file(path):
    text = path.read_text()
    if "\n# ----\n" not in text:
        return 0, []
    source, expected = text.split("\n# ----\n", 1)
    lines = [ln for ln in source.splitlines() if ln and not ln.startswith("#")]
    params = re.findall(r"%(\d+): (\w+\[[^\]]*\])( weak)?", lines[1])
    stmts = [ln for ln in lines[2:] if "=" in ln]
    returns = [int(v.strip()[1:]) for v in lines[-2].split("return", 1)[1].split(",") if v.strip()]
    failures, runs = [], 0
    for line in expected.splitlines():
        if not line.startswith("# run:"):
            continue
        inputs, outputs = line[len("# run:") :].split(" -> ", 1)
        arrays = [parse_array(t) for t in inputs.split(";") if t.strip()]
        env, symbols = {}, {}
        for (i, ty, weak), arr in zip(params, arrays):
            env[int(i)] = arr.item() if weak else arr
            dims = TYPE.match(ty).group(2).split(",")
            symbols.update((d, n) for d, n in zip(dims, arr.shape) if not d.isdigit())
        runs += 1
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for stmt in stmts:
                    k, v = evaluate(stmt, env, symbols)
                    env[k] = v
        except (ValueError, TypeError, ZeroDivisionError, OverflowError) as e:
            if not outputs.startswith("error"):
                failures.append(f"{path.name}: {inputs}: NumPy raised {e!r}")
            continue
        if outputs.startswith("error"):
            if "symbol" not in outputs:
                failures.append(f"{path.name}: {inputs}: ember errs, NumPy does not")
            continue
        for k, want_text in zip(returns, outputs.split("; ")):
            want, got = parse_array(want_text), np.asarray(env[k])
            problem = compare(want, got)
            if problem:
                failures.append(f"{path.name}: {inputs}: %{k}: {problem}")
    return runs, failures


def compare(want, got):
    if want.dtype != got.dtype or want.shape != got.shape:
        return f"ember {want.dtype}{want.shape}, NumPy {got.dtype}{got.shape}"
    if want.dtype.kind != "f":
        return None if np.array_equal(want, got) else f"ember {want}, NumPy {got}"
    if not np.array_equal(np.isnan(want), np.isnan(got)):
        return f"NaN differs: ember {want}, NumPy {got}"
    zero = (want == 0) & (got == 0)
    if not np.array_equal(np.signbit(want[zero]), np.signbit(got[zero])):
        return f"sign of zero differs: ember {want}, NumPy {got}"
    ulps = 4 if want.dtype == np.float32 else 2
    ok = (
        np.isnan(want)
        | (want == got)
        | np.isclose(want, got, rtol=ulps * np.finfo(want.dtype).eps, atol=0)
    )
    return None if ok.all() else f"ember {want!r}, NumPy {got!r}"


def main():
    total, failures = 0, []
    for path in sorted(pathlib.Path(__file__).parent.glob("*.ir")):
        runs, bad = check_file(path)
        total += runs
        failures += bad
    for f in failures:
        print(f)
    print(f"{total} runs checked, {len(failures)} differ from NumPy")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
