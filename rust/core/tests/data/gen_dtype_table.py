"""Write dtype_table.txt: NumPy's result dtype for every op of the IR and every dtype pair.

Run with python3 and NumPy 2 from this directory; the Rust test `dtype_table` checks the
inference rules against the file.
"""

import warnings

import numpy as np
from scipy import special

DTYPES = ["bool", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f32", "f64"]
NP_NAMES = dict(
    zip(
        DTYPES,
        ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
        + ["float32", "float64"],
    )
)
IR_NAMES = {v: k for k, v in NP_NAMES.items()} | {"float16": "f16"}
WEAK = {"weak_bool": True, "weak_int": 1, "weak_float": 1.0}

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
    "erf": special.erf, "erfc": special.erfc,
}  # fmt: skip
BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide,
    "floordiv": np.floor_divide, "mod": np.remainder, "fmod": np.fmod, "pow": np.power,
    "maximum": np.maximum, "minimum": np.minimum, "fmax": np.fmax, "fmin": np.fmin,
    "arctan2": np.arctan2, "hypot": np.hypot, "copysign": np.copysign,
    "logaddexp": np.logaddexp, "eq": np.equal,
    "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
    "ge": np.greater_equal, "logical_and": np.logical_and, "logical_or": np.logical_or,
    "logical_xor": np.logical_xor, "bitwise_and": np.bitwise_and,
    "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor,
    "left_shift": np.left_shift, "right_shift": np.right_shift,
}  # fmt: skip
REDUCE = {
    "sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min, "mean": np.mean,
    "any": np.any, "all": np.all, "argmax": np.argmax, "argmin": np.argmin,
}  # fmt: skip


def operand(name):
    if name in WEAK:
        return WEAK[name]
    return np.ones(2, NP_NAMES[name])


def result(fn, *names):
    try:
        out = fn(*(operand(n) for n in names))
    except (TypeError, ValueError):
        return "error"
    return IR_NAMES[np.asarray(out).dtype.name]


def where(x, y):
    return np.where(np.ones(2, bool), x, y)


def concatenate(x, y):
    return np.concatenate([x, y])


def main():
    warnings.simplefilter("ignore")
    lines = []
    for op, fn in UNARY.items():
        lines += [f"unary {op} {d} {result(fn, d)}" for d in DTYPES]
    operands = DTYPES + list(WEAK)
    for op, fn in BINARY.items():
        for a in operands:
            for b in operands:
                if a in WEAK and b in WEAK:
                    continue  # two Python scalars follow Python's arithmetic
                lines.append(f"binary {op} {a} {b} {result(fn, a, b)}")
    for op, fn in REDUCE.items():
        lines += [f"reduce {op} {d} {result(fn, d)}" for d in DTYPES]
    for a in DTYPES:
        lines += [f"matmul {a} {b} {result(np.matmul, a, b)}" for b in DTYPES]
    for a in operands:
        for b in operands:
            if not (a in WEAK and b in WEAK):
                lines.append(f"where {a} {b} {result(where, a, b)}")
    for a in DTYPES:
        lines += [f"concatenate {a} {b} {result(concatenate, a, b)}" for b in DTYPES]
    with open("dtype_table.txt", "w") as f:
        f.write(
            f"# NumPy {np.__version__}: op operands... result (written by gen_dtype_table.py)\n"
        )
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
