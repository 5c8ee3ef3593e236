//! Result dtypes of elementwise ops and reductions: NumPy 2's ufunc loops, with NEP 50 weak
//! Python scalars taking part by kind only.

use crate::error::{Error, Result};
use crate::ir::{BinaryOp, DType, Kind, ReduceKind, Type, UnaryOp};

/// The dtype a float ufunc computes in for an input dtype (`np.sqrt(i16) -> f32`). NumPy gives
/// `f16` for `bool`, `i8` and `u8`, which ember does not support.
fn float_loop(op: &str, d: DType) -> Result<DType> {
    match d {
        DType::F32 | DType::F64 => Ok(d),
        DType::I16 | DType::U16 => Ok(DType::F32),
        DType::I32 | DType::U32 | DType::I64 | DType::U64 => Ok(DType::F64),
        DType::Bool | DType::I8 | DType::U8 => Err(Error::new(format!(
            "{op} of {d} gives float16 in NumPy, which ember does not support; cast the operand with astype first"
        ))),
    }
}

/// The width of the smallest float that holds a dtype exactly (16 for bool, i8 and u8).
fn float_bits(d: DType) -> u32 {
    match d {
        DType::Bool | DType::I8 | DType::U8 => 16,
        DType::I16 | DType::U16 | DType::F32 => 32,
        _ => 64,
    }
}

fn unsupported(op: &str, d: DType) -> Error {
    Error::new(format!(
        "{op} is not supported for {d} (NumPy has no loop for it)"
    ))
}

/// The dtype a unary op computes in, for a strong input dtype.
pub fn unary_loop(op: UnaryOp, x: DType) -> Result<DType> {
    use UnaryOp::*;
    match op {
        Neg | Positive | Sign if x == DType::Bool => Err(unsupported(op.name(), x)),
        Neg | Positive | Sign | Abs | Floor | Ceil | Trunc => Ok(x),
        Square | Reciprocal if x == DType::Bool => Ok(DType::I8),
        Square | Reciprocal => Ok(x),
        // scipy.special's loops: `f->f` for float32, `d->d` for every other number.
        Erf | Erfc if x == DType::F32 => Ok(x),
        Erf | Erfc => Ok(DType::F64),
        Sqrt | Cbrt | Exp | Exp2 | Expm1 | Log | Log2 | Log10 | Log1p | Sin | Cos | Tan
        | Arcsin | Arccos | Arctan | Sinh | Cosh | Tanh | Arcsinh | Arccosh | Arctanh | Rint => {
            float_loop(op.name(), x)
        }
        BitwiseNot if x.is_float() => Err(unsupported(op.name(), x)),
        BitwiseNot | LogicalNot | Isnan | Isinf | Isfinite | Signbit => Ok(x),
    }
}

/// The result dtype of a unary op for a strong input dtype.
pub fn unary_result(op: UnaryOp, x: DType) -> Result<DType> {
    let loop_dtype = unary_loop(op, x)?;
    Ok(if op.gives_bool() {
        DType::Bool
    } else {
        loop_dtype
    })
}

/// The dtype both operands of a binary op are cast to (the ufunc loop), for strong dtypes.
pub fn binary_loop(op: BinaryOp, a: DType, b: DType) -> Result<DType> {
    use BinaryOp::*;
    let p = DType::promote(a, b);
    match op {
        Sub if p == DType::Bool => Err(Error::new(
            "sub of two bools is not supported (NumPy: use logical_xor or bitwise_xor instead)",
        )),
        Add | Sub | Mul | Maximum | Minimum | Fmax | Fmin => Ok(p),
        Floordiv | Mod | Fmod | Pow if p == DType::Bool => Ok(DType::I8),
        Floordiv | Mod | Fmod | Pow => Ok(p),
        Div if p.is_float() => Ok(p),
        Div => Ok(DType::F64),
        // NumPy picks the smallest float loop both operands cast to safely, which is not always
        // the float loop of their promotion (`arctan2(i8, u8)` is f16, not f32 as for i16).
        Arctan2 | Hypot | Copysign | Logaddexp => {
            let bits = float_bits(a).max(float_bits(b));
            match bits {
                64 => Ok(DType::F64),
                32 => Ok(DType::F32),
                _ => Err(Error::new(format!(
                    "{} of {a} and {b} gives float16 in NumPy, which ember does not support; cast an operand with astype first",
                    op.name()
                ))),
            }
        }
        Eq | Ne | Lt | Le | Gt | Ge | LogicalAnd | LogicalOr | LogicalXor => Ok(p),
        BitwiseAnd | BitwiseOr | BitwiseXor if p.is_float() => Err(unsupported(op.name(), p)),
        BitwiseAnd | BitwiseOr | BitwiseXor => Ok(p),
        LeftShift | RightShift if p.is_float() => Err(unsupported(op.name(), p)),
        LeftShift | RightShift if p == DType::Bool => Ok(DType::I8),
        LeftShift | RightShift => Ok(p),
    }
}

/// Whether a Python int `value` can take the integer loop dtype of a binary op (NEP 50). An
/// out-of-range value is NumPy's `OverflowError`, except in comparisons and logical ops, which
/// NumPy evaluates exactly: then `Ok(false)` says to compare the value as it is.
pub fn weak_int_fits(op: BinaryOp, loop_dtype: DType, value: i128) -> Result<bool> {
    match loop_dtype.int_range() {
        Some((lo, hi)) if loop_dtype.is_int() && !(lo..=hi).contains(&value) => {
            if op.gives_bool() {
                Ok(false)
            } else {
                Err(Error::new(format!(
                    "Python integer {value} out of bounds for {}",
                    loop_dtype.numpy_name()
                )))
            }
        }
        _ => Ok(true),
    }
}

/// The result dtype of a binary op for strong dtypes.
pub fn binary_result(op: BinaryOp, a: DType, b: DType) -> Result<DType> {
    let loop_dtype = binary_loop(op, a, b)?;
    Ok(if op.gives_bool() {
        DType::Bool
    } else {
        loop_dtype
    })
}

/// The dtype a weak Python scalar of dtype `weak` (bool, i64 or f64) takes next to a strong
/// operand of dtype `strong` (NEP 50): it adopts the strong dtype unless its kind is higher.
pub fn resolve_weak(weak: DType, strong: DType) -> DType {
    match (weak.kind(), strong.kind()) {
        (Kind::Bool, _) => strong,
        (Kind::Signed | Kind::Unsigned, Kind::Bool) => DType::I64,
        (Kind::Signed | Kind::Unsigned, _) => strong,
        (Kind::Float, Kind::Float) => strong,
        (Kind::Float, _) => DType::F64,
    }
}

/// The weak type of a result computed from weak operands only: Python's bool, int or float.
pub fn weak_of_kind(d: DType) -> DType {
    match d.kind() {
        Kind::Bool => DType::Bool,
        Kind::Signed | Kind::Unsigned => DType::I64,
        Kind::Float => DType::F64,
    }
}

/// The operand dtypes seen by the loop after NEP 50 resolution: weak operands take their dtype
/// from the strong ones. Returns the resolved dtypes and whether every operand was weak.
pub fn resolve_operands(types: &[&Type]) -> (Vec<DType>, bool) {
    let strong: Vec<DType> = types.iter().filter(|t| !t.weak).map(|t| t.dtype).collect();
    if strong.is_empty() {
        return (types.iter().map(|t| t.dtype).collect(), true);
    }
    let joined = strong
        .iter()
        .copied()
        .reduce(DType::promote)
        .unwrap_or(DType::Bool);
    let dtypes = types
        .iter()
        .map(|t| {
            if t.weak {
                resolve_weak(t.dtype, joined)
            } else {
                t.dtype
            }
        })
        .collect();
    (dtypes, false)
}

/// The result dtype of a reduction.
pub fn reduce_result(kind: ReduceKind, x: DType) -> DType {
    match kind {
        ReduceKind::Sum | ReduceKind::Prod => match x.kind() {
            Kind::Bool | Kind::Signed => DType::I64,
            Kind::Unsigned => DType::U64,
            Kind::Float => x,
        },
        ReduceKind::Mean if x.is_float() => x,
        ReduceKind::Mean => DType::F64,
        ReduceKind::Max | ReduceKind::Min => x,
        ReduceKind::Any | ReduceKind::All => DType::Bool,
    }
}
