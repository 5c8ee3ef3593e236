//! Elementwise kernels on one element at a time, with NumPy's exact semantics. Operands arrive
//! already cast to the ufunc's loop dtype; results are wrapped or rounded to the result dtype
//! when stored.

use super::array::Elem;
use crate::error::{Error, Result};
use crate::ir::{BinaryOp, DType, Kind, UnaryOp};

unsafe extern "C" {
    #[link_name = "erf"]
    fn libm_erf(x: f64) -> f64;
    #[link_name = "erfc"]
    fn libm_erfc(x: f64) -> f64;
}

/// `x.astype(to)` (C casting). Float to integer truncates; NaN, infinities and values outside
/// the range follow NumPy on x86-64: signed targets and `u8`/`u16` convert through `i32` (`i64`
/// for `i64`), where a value that does not fit becomes the minimum of that type, then wrap;
/// `u32`/`u64` convert values from 2**31 (2**63) up as `x - 2**31` (`2**63`) and add it back.
/// So NaN gives 0 for `i8`/`u8`/`i16`/`u16`, `i32::MIN` for `i32`, `i64::MIN` for `i64`, and
/// 2**31 for `u32`, 2**63 for `u64`.
pub fn cast(e: Elem, to: DType) -> Elem {
    match (e, to.kind()) {
        (_, Kind::Bool) => Elem::B(e.truthy()),
        (Elem::B(b), Kind::Float) => Elem::F(f64::from(u8::from(b))),
        (Elem::B(b), _) => Elem::I(i128::from(b)),
        (Elem::I(i), Kind::Float) => Elem::F(round_to(to, i as f64, i as f32)),
        (Elem::I(i), _) => Elem::I(wrap(i, to)),
        (Elem::F(x), Kind::Float) => Elem::F(if to == DType::F32 {
            f64::from(x as f32)
        } else {
            x
        }),
        (Elem::F(x), _) => Elem::I(wrap(float_to_int(x, to), to)),
    }
}

/// `i128 -> f32` must round once, directly, not through f64.
fn round_to(to: DType, wide: f64, narrow: f32) -> f64 {
    if to == DType::F32 {
        f64::from(narrow)
    } else {
        wide
    }
}

fn float_to_int(x: f64, to: DType) -> i128 {
    let t = x.trunc();
    // cvttsd2si: out of range (NaN included) gives the type's minimum.
    let via = |t: f64, bits: u32| {
        let limit = (1u64 << (bits - 1)) as f64;
        if t.is_nan() || !(-limit..limit).contains(&t) {
            -(1i128 << (bits - 1))
        } else {
            t as i128
        }
    };
    match to {
        DType::I64 => via(t, 64),
        DType::U32 | DType::U64 => {
            let bits = 8 * to.itemsize() as u32;
            let half = (1u64 << (bits - 1)) as f64;
            if t >= half {
                via(t - half, bits) + (1i128 << (bits - 1))
            } else {
                via(t, bits)
            }
        }
        _ => via(t, 32),
    }
}

/// Two's complement wrap of an integer to the width of an integer dtype.
pub fn wrap(i: i128, to: DType) -> i128 {
    let bits = 8 * to.itemsize() as u32;
    let masked = (i as u128) & ((1u128 << bits) - 1);
    match to.kind() {
        Kind::Signed if masked >> (bits - 1) == 1 => masked as i128 - (1i128 << bits),
        Kind::Bool => i128::from(i != 0),
        _ => masked as i128,
    }
}

/// Store a computed element as `dtype`: wrap integers, round floats to f32.
pub fn fit(e: Elem, dtype: DType) -> Elem {
    match e {
        Elem::I(i) if dtype.is_int() => Elem::I(wrap(i, dtype)),
        Elem::F(x) if dtype == DType::F32 => Elem::F(f64::from(x as f32)),
        _ => e,
    }
}

fn float(e: Elem) -> f64 {
    match e {
        Elem::F(x) => x,
        Elem::I(i) => i as f64,
        Elem::B(b) => f64::from(u8::from(b)),
    }
}

fn int(e: Elem) -> i128 {
    match e {
        Elem::I(i) => i,
        Elem::B(b) => i128::from(b),
        Elem::F(x) => x as i128,
    }
}

/// A unary op on an element of the loop dtype `dt`; the result is of the op's result dtype.
pub fn unary(op: UnaryOp, dt: DType, x: Elem) -> Elem {
    use UnaryOp::*;
    let kind = dt.kind();
    match (op, x) {
        (LogicalNot, _) => Elem::B(!x.truthy()),
        (Isnan, Elem::F(v)) => Elem::B(v.is_nan()),
        (Isinf, Elem::F(v)) => Elem::B(v.is_infinite()),
        (Isfinite, Elem::F(v)) => Elem::B(v.is_finite()),
        (Signbit, Elem::F(v)) => Elem::B(v.is_sign_negative()),
        (Isnan | Isinf, _) => Elem::B(false),
        (Isfinite, _) => Elem::B(true),
        (Signbit, _) => Elem::B(int(x) < 0),
        (Abs | Floor | Ceil | Trunc, Elem::B(_)) => x,
        (BitwiseNot, Elem::B(b)) => Elem::B(!b),
        (BitwiseNot, _) => Elem::I(!int(x)),
        (Neg, Elem::I(i)) => Elem::I(i.wrapping_neg()),
        (Positive, _) => x,
        (Abs, Elem::I(i)) => Elem::I(i.wrapping_abs()),
        (Sign, Elem::I(i)) => Elem::I(i.signum()),
        (Square, Elem::I(i)) => Elem::I(i.wrapping_mul(i)),
        // NumPy computes `1.0 / x` and converts back (so 1/0 is the conversion of inf).
        (Reciprocal, Elem::I(i)) => Elem::I(float_to_int(1.0 / i as f64, dt)),
        (Floor | Ceil | Trunc, Elem::I(_)) => x,
        (_, Elem::F(v)) if kind == Kind::Float => Elem::F(float_unary(op, v)),
        // Remaining cases cannot be reached for loop dtypes chosen by inference.
        _ => x,
    }
}

fn float_unary(op: UnaryOp, v: f64) -> f64 {
    use UnaryOp::*;
    match op {
        Neg => -v,
        Positive => v,
        Abs => v.abs(),
        Sign if v.is_nan() => v,
        Sign if v > 0.0 => 1.0,
        Sign if v < 0.0 => -1.0,
        Sign => 0.0,
        Square => v * v,
        Reciprocal => 1.0 / v,
        Sqrt => v.sqrt(),
        Cbrt => v.cbrt(),
        Exp => v.exp(),
        Exp2 => v.exp2(),
        Expm1 => v.exp_m1(),
        // SAFETY: the C library's `erf`/`erfc` of a double, defined on every value.
        Erf => unsafe { libm_erf(v) },
        Erfc => unsafe { libm_erfc(v) },
        Log => v.ln(),
        Log2 => v.log2(),
        Log10 => v.log10(),
        Log1p => v.ln_1p(),
        Sin => v.sin(),
        Cos => v.cos(),
        Tan => v.tan(),
        Arcsin => v.asin(),
        Arccos => v.acos(),
        Arctan => v.atan(),
        Sinh => v.sinh(),
        Cosh => v.cosh(),
        Tanh => v.tanh(),
        Arcsinh => v.asinh(),
        Arccosh => v.acosh(),
        Arctanh => v.atanh(),
        Floor => v.floor(),
        Ceil => v.ceil(),
        Trunc => v.trunc(),
        Rint => v.round_ties_even(),
        LogicalNot | BitwiseNot | Isnan | Isinf | Isfinite | Signbit => v,
    }
}

macro_rules! divmod_float {
    ($name:ident, $t:ty) => {
        /// NumPy's `npy_divmod`: Python's floor division and modulo, computed in this width.
        fn $name(a: $t, b: $t) -> ($t, $t) {
            let m = a % b;
            if b == 0.0 {
                return (a / b, m);
            }
            let mut div = (a - m) / b;
            let mut m = m;
            if m != 0.0 {
                if (b < 0.0) != (m < 0.0) {
                    m += b;
                    div -= 1.0;
                }
            } else {
                m = (0.0 as $t).copysign(b);
            }
            let floordiv = if div != 0.0 {
                let f = div.floor();
                if div - f > 0.5 {
                    f + 1.0
                } else {
                    f
                }
            } else {
                (0.0 as $t).copysign(a / b)
            };
            (floordiv, m)
        }
    };
}

macro_rules! logaddexp_float {
    ($name:ident, $t:ty) => {
        /// NumPy's `npy_logaddexp` in this width: equal operands (equal infinities among them,
        /// whose difference is NaN) give `x + ln 2`.
        fn $name(x: $t, y: $t) -> $t {
            if x == y {
                return x + std::f64::consts::LN_2 as $t;
            }
            let d = x - y;
            if d > 0.0 {
                x + (-d).exp().ln_1p()
            } else if d <= 0.0 {
                y + d.exp().ln_1p()
            } else {
                d
            }
        }
    };
}

logaddexp_float!(logaddexp_f64, f64);
logaddexp_float!(logaddexp_f32, f32);

divmod_float!(divmod_f64, f64);
divmod_float!(divmod_f32, f32);

fn float_divmod(dt: DType, a: f64, b: f64) -> (f64, f64) {
    if dt == DType::F32 {
        let (d, m) = divmod_f32(a as f32, b as f32);
        (f64::from(d), f64::from(m))
    } else {
        divmod_f64(a, b)
    }
}

/// Integer floor division and modulo as NumPy: by zero gives 0 (and 0), `MIN // -1` wraps.
fn int_divmod(a: i128, b: i128) -> (i128, i128) {
    if b == 0 {
        return (0, 0);
    }
    let (mut d, mut m) = (a / b, a % b);
    if m != 0 && ((m < 0) != (b < 0)) {
        d -= 1;
        m += b;
    }
    (d, m)
}

/// A binary op on two elements of the loop dtype `dt`.
pub fn binary(op: BinaryOp, dt: DType, a: Elem, b: Elem) -> Result<Elem> {
    use BinaryOp::*;
    let bits = 8 * dt.itemsize() as i128;
    Ok(match op {
        Eq | Ne | Lt | Le | Gt | Ge => Elem::B(compare(op, a, b)),
        LogicalAnd => Elem::B(a.truthy() && b.truthy()),
        LogicalOr => Elem::B(a.truthy() || b.truthy()),
        LogicalXor => Elem::B(a.truthy() != b.truthy()),
        _ => match dt.kind() {
            Kind::Bool => {
                let (x, y) = (a.truthy(), b.truthy());
                Elem::B(match op {
                    Add | Maximum | Fmax | BitwiseOr => x || y,
                    Mul | Minimum | Fmin | BitwiseAnd => x && y,
                    BitwiseXor => x != y,
                    _ => x,
                })
            }
            Kind::Float => Elem::F(float_binary(op, dt, float(a), float(b))),
            Kind::Signed | Kind::Unsigned => {
                let (x, y) = (int(a), int(b));
                Elem::I(match op {
                    Add => x.wrapping_add(y),
                    Sub => x.wrapping_sub(y),
                    Mul => x.wrapping_mul(y),
                    Floordiv => int_divmod(x, y).0,
                    Mod => int_divmod(x, y).1,
                    // C's truncated remainder, the dividend's sign; by 0 (and MIN by -1): 0.
                    Fmod if y == 0 || y == -1 => 0,
                    Fmod => x % y,
                    Pow => int_pow(x, y)?,
                    Maximum | Fmax => x.max(y),
                    Minimum | Fmin => x.min(y),
                    BitwiseAnd => x & y,
                    BitwiseOr => x | y,
                    BitwiseXor => x ^ y,
                    // Shifts by a negative amount or at least the width give 0 (or -1).
                    LeftShift if (0..bits).contains(&y) => x.wrapping_shl(y as u32),
                    LeftShift => 0,
                    RightShift if (0..bits).contains(&y) => x >> y,
                    RightShift => {
                        if x < 0 {
                            -1
                        } else {
                            0
                        }
                    }
                    _ => x,
                })
            }
        },
    })
}

fn int_pow(x: i128, y: i128) -> Result<i128> {
    if y < 0 {
        return Err(Error::new(
            "Integers to negative integer powers are not allowed.",
        ));
    }
    // Wrapping in i128 then at the dtype's width gives the dtype's wrapping power.
    let (mut base, mut exp, mut acc) = (x, y, 1i128);
    while exp > 0 {
        if exp & 1 == 1 {
            acc = acc.wrapping_mul(base);
        }
        base = base.wrapping_mul(base);
        exp >>= 1;
    }
    Ok(acc)
}

fn compare(op: BinaryOp, a: Elem, b: Elem) -> bool {
    use std::cmp::Ordering;
    let ord = match (a, b) {
        (Elem::F(_), _) | (_, Elem::F(_)) => float(a).partial_cmp(&float(b)),
        _ => Some(int(a).cmp(&int(b))),
    };
    match op {
        BinaryOp::Eq => ord == Some(Ordering::Equal),
        BinaryOp::Ne => ord != Some(Ordering::Equal),
        BinaryOp::Lt => ord == Some(Ordering::Less),
        BinaryOp::Le => matches!(ord, Some(Ordering::Less | Ordering::Equal)),
        BinaryOp::Gt => ord == Some(Ordering::Greater),
        _ => matches!(ord, Some(Ordering::Greater | Ordering::Equal)),
    }
}

fn float_binary(op: BinaryOp, dt: DType, x: f64, y: f64) -> f64 {
    use BinaryOp::*;
    match op {
        Add => x + y,
        Sub => x - y,
        Mul => x * y,
        Div => x / y,
        Floordiv => float_divmod(dt, x, y).0,
        Mod => float_divmod(dt, x, y).1,
        // C's fmod: exact, of the dividend's sign (Rust's `%` of floats).
        Fmod => x % y,
        Pow => x.powf(y),
        // NaN propagates; on ties (0.0 and -0.0) NumPy returns the second operand.
        Maximum => {
            if x > y || x.is_nan() {
                x
            } else {
                y
            }
        }
        Minimum => {
            if x < y || x.is_nan() {
                x
            } else {
                y
            }
        }
        // NaN is ignored; on ties the second operand, as NumPy's vectorised loops (its scalar
        // loop, used for short arrays, returns the first).
        Fmax => {
            if x > y || y.is_nan() {
                x
            } else {
                y
            }
        }
        Fmin => {
            if x < y || y.is_nan() {
                x
            } else {
                y
            }
        }
        Arctan2 => x.atan2(y),
        Hypot => x.hypot(y),
        Copysign => x.copysign(y),
        Logaddexp if dt == DType::F32 => f64::from(logaddexp_f32(x as f32, y as f32)),
        Logaddexp => logaddexp_f64(x, y),
        // Comparisons and logical ops never reach here; the bitwise ones have no float loop.
        Eq | Ne | Lt | Le | Gt | Ge | LogicalAnd | LogicalOr | LogicalXor | BitwiseAnd
        | BitwiseOr | BitwiseXor | LeftShift | RightShift => x,
    }
}
