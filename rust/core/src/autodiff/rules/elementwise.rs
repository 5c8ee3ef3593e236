//! Rules of the elementwise ops: the derivative as an expression of the operands and the
//! result, times the cotangent. Piecewise-constant ops (`floor`, `sign`, …) pass no gradient.

use std::f64::consts::{FRAC_2_SQRT_PI, LN_10, LN_2};

use crate::error::Result;
use crate::ir::{BinaryOp, UnaryOp, ValueId};

use super::super::emit::Emitter;

/// `d/dx u(x)` applied to `g`, with `y = u(x)`.
pub fn unary(
    e: &mut Emitter,
    u: UnaryOp,
    x: ValueId,
    y: ValueId,
    g: ValueId,
) -> Result<Option<ValueId>> {
    use UnaryOp::*;
    let grad = match u {
        Neg => e.neg(g)?,
        Positive => g,
        // sign(0) = 0: the subgradient JAX picks at the kink.
        Abs => {
            let s = e.unary(Sign, x)?;
            e.mul(g, s)?
        }
        Square => {
            let two_x = e.scale(x, 2.0)?;
            e.mul(g, two_x)?
        }
        Reciprocal => {
            let yy = e.mul(y, y)?;
            let t = e.mul(g, yy)?;
            e.neg(t)?
        }
        Sqrt => {
            let half = e.scale(g, 0.5)?;
            e.div(half, y)?
        }
        Cbrt => {
            let yy = e.mul(y, y)?;
            let three_yy = e.scale(yy, 3.0)?;
            e.div(g, three_yy)?
        }
        Exp => e.mul(g, y)?,
        Exp2 => {
            let t = e.mul(g, y)?;
            e.scale(t, LN_2)?
        }
        Expm1 => {
            let y1 = e.offset(y, 1.0)?;
            e.mul(g, y1)?
        }
        // d erf(x) = 2/sqrt(pi) exp(-x^2), and erfc's its negation.
        Erf | Erfc => {
            let xx = e.mul(x, x)?;
            let m = e.neg(xx)?;
            let ex = e.unary(Exp, m)?;
            let scale = if u == Erf {
                FRAC_2_SQRT_PI
            } else {
                -FRAC_2_SQRT_PI
            };
            let d = e.scale(ex, scale)?;
            e.mul(g, d)?
        }
        Log => e.div(g, x)?,
        Log2 => {
            let d = e.scale(x, LN_2)?;
            e.div(g, d)?
        }
        Log10 => {
            let d = e.scale(x, LN_10)?;
            e.div(g, d)?
        }
        Log1p => {
            let d = e.offset(x, 1.0)?;
            e.div(g, d)?
        }
        Sin => {
            let c = e.unary(Cos, x)?;
            e.mul(g, c)?
        }
        Cos => {
            let s = e.unary(Sin, x)?;
            let t = e.mul(g, s)?;
            e.neg(t)?
        }
        Tan => {
            let yy = e.mul(y, y)?;
            let d = e.offset(yy, 1.0)?;
            e.mul(g, d)?
        }
        Arcsin | Arccos => {
            let xx = e.mul(x, x)?;
            let neg = e.neg(xx)?;
            let one_minus = e.offset(neg, 1.0)?;
            let root = e.unary(Sqrt, one_minus)?;
            let q = e.div(g, root)?;
            if u == Arccos {
                e.neg(q)?
            } else {
                q
            }
        }
        Arctan => {
            let xx = e.mul(x, x)?;
            let d = e.offset(xx, 1.0)?;
            e.div(g, d)?
        }
        Sinh => {
            let c = e.unary(Cosh, x)?;
            e.mul(g, c)?
        }
        Cosh => {
            let s = e.unary(Sinh, x)?;
            e.mul(g, s)?
        }
        Tanh => {
            let yy = e.mul(y, y)?;
            let neg = e.neg(yy)?;
            let d = e.offset(neg, 1.0)?;
            e.mul(g, d)?
        }
        Arcsinh | Arccosh => {
            let xx = e.mul(x, x)?;
            let d = e.offset(xx, if u == Arcsinh { 1.0 } else { -1.0 })?;
            let root = e.unary(Sqrt, d)?;
            e.div(g, root)?
        }
        Arctanh => {
            let xx = e.mul(x, x)?;
            let neg = e.neg(xx)?;
            let d = e.offset(neg, 1.0)?;
            e.div(g, d)?
        }
        Sign | Floor | Ceil | Trunc | Rint => return Ok(None),
        LogicalNot | BitwiseNot | Isnan | Isinf | Isfinite | Signbit => return Ok(None),
    };
    Ok(Some(grad))
}

/// Cotangents of both operands of `z = b(x, y)` (in the broadcast shape).
pub fn binary(
    e: &mut Emitter,
    b: BinaryOp,
    x: ValueId,
    y: ValueId,
    z: ValueId,
    g: ValueId,
    wanted: &[bool],
) -> Result<Vec<Option<ValueId>>> {
    use BinaryOp::*;
    let (wx, wy) = (wanted[0], wanted[1]);
    let (gx, gy) = match b {
        Add => (Some(g), Some(g)),
        Sub => (Some(g), if wy { Some(e.neg(g)?) } else { None }),
        Mul => (
            if wx { Some(e.mul(g, y)?) } else { None },
            if wy { Some(e.mul(g, x)?) } else { None },
        ),
        Div => {
            let gx = e.div(g, y)?;
            let gy = if wy {
                let t = e.mul(gx, z)?;
                Some(e.neg(t)?)
            } else {
                None
            };
            (Some(gx), gy)
        }
        Pow => (
            if wx {
                Some(pow_base(e, x, y, g)?)
            } else {
                None
            },
            if wy {
                Some(pow_exponent(e, x, z, g)?)
            } else {
                None
            },
        ),
        Maximum | Fmax => tie_split(e, x, y, g, Gt, wanted)?,
        Minimum | Fmin => tie_split(e, x, y, g, Lt, wanted)?,
        Arctan2 => {
            let xx = e.mul(x, x)?;
            let yy = e.mul(y, y)?;
            let r2 = e.add(xx, yy)?;
            let q = e.div(g, r2)?;
            let gx = e.mul(q, y)?;
            let t = e.mul(q, x)?;
            (Some(gx), Some(e.neg(t)?))
        }
        Hypot => {
            let q = e.div(g, z)?;
            (Some(e.mul(q, x)?), Some(e.mul(q, y)?))
        }
        // z = log(e^x + e^y): dz/dx = e^x / (e^x + e^y) = e^(x - z).
        Logaddexp => {
            let share = |e: &mut Emitter, a: ValueId| -> Result<ValueId> {
                let d = e.binary(Sub, a, z)?;
                let w = e.unary(UnaryOp::Exp, d)?;
                e.mul(g, w)
            };
            (
                if wx { Some(share(e, x)?) } else { None },
                if wy { Some(share(e, y)?) } else { None },
            )
        }
        // |copysign(x, y)| = |x|: the slope is sign(x) * sign(z); `y` only chooses the sign.
        Copysign => {
            let sx = e.unary(UnaryOp::Sign, x)?;
            let sz = e.unary(UnaryOp::Sign, z)?;
            let s = e.mul(sx, sz)?;
            (Some(e.mul(g, s)?), None)
        }
        // x mod y = x - floor(x / y) * y.
        Mod => {
            let gy = if wy {
                let q = e.binary(Floordiv, x, y)?;
                let t = e.mul(g, q)?;
                Some(e.neg(t)?)
            } else {
                None
            };
            (Some(g), gy)
        }
        // fmod(x, y) = x - trunc(x / y) * y.
        Fmod => {
            let gy = if wy {
                let d = e.binary(Div, x, y)?;
                let q = e.unary(UnaryOp::Trunc, d)?;
                let t = e.mul(g, q)?;
                Some(e.neg(t)?)
            } else {
                None
            };
            (Some(g), gy)
        }
        Floordiv => (None, None),
        Eq | Ne | Lt | Le | Gt | Ge | LogicalAnd | LogicalOr | LogicalXor | BitwiseAnd
        | BitwiseOr | BitwiseXor | LeftShift | RightShift => (None, None),
    };
    Ok(vec![gx, gy])
}

/// `g * y * x**(y-1)`, zero where `y == 0` (where `x**(y-1)` may be infinite).
fn pow_base(e: &mut Emitter, x: ValueId, y: ValueId, g: ValueId) -> Result<ValueId> {
    let ym1 = e.offset(y, -1.0)?;
    let p = e.binary(BinaryOp::Pow, x, ym1)?;
    let d = e.mul(y, p)?;
    let zero = e.float(0.0)?;
    let is_zero = e.binary(BinaryOp::Eq, y, zero)?;
    let d = e.op(crate::ir::Op::Where, vec![is_zero, zero, d])?;
    e.mul(g, d)
}

/// `g * z * log(x)`, zero where `x == 0` (the limit of `x**y * log(x)` for `y > 0`).
fn pow_exponent(e: &mut Emitter, x: ValueId, z: ValueId, g: ValueId) -> Result<ValueId> {
    let zero = e.float(0.0)?;
    let is_zero = e.binary(BinaryOp::Eq, x, zero)?;
    let one = e.float(1.0)?;
    let safe = e.op(crate::ir::Op::Where, vec![is_zero, one, x])?;
    let log = e.unary(UnaryOp::Log, safe)?;
    let gz = e.mul(g, z)?;
    e.mul(gz, log)
}

/// `maximum`/`minimum`: the cotangent goes to the winning operand, split equally on ties (as
/// JAX does). `win` is `Gt` for maximum, `Lt` for minimum.
fn tie_split(
    e: &mut Emitter,
    x: ValueId,
    y: ValueId,
    g: ValueId,
    win: BinaryOp,
    wanted: &[bool],
) -> Result<(Option<ValueId>, Option<ValueId>)> {
    let dtype = e.ty(g).dtype;
    let tie = e.binary(BinaryOp::Eq, x, y)?;
    let tie = e.cast(tie, dtype)?;
    let half_tie = e.scale(tie, 0.5)?;
    let share = |e: &mut Emitter, a: ValueId, b: ValueId| -> Result<ValueId> {
        let wins = e.binary(win, a, b)?;
        let wins = e.cast(wins, dtype)?;
        let w = e.add(wins, half_tie)?;
        e.mul(g, w)
    };
    let gx = if wanted[0] {
        Some(share(e, x, y)?)
    } else {
        None
    };
    let gy = if wanted[1] {
        Some(share(e, y, x)?)
    } else {
        None
    };
    Ok((gx, gy))
}

/// `where(c, x, y)`: the cotangent goes to `x` where `c` holds, to `y` elsewhere.
pub fn select(
    e: &mut Emitter,
    c: ValueId,
    g: ValueId,
    wanted: &[bool],
) -> Result<Vec<Option<ValueId>>> {
    let zero = e.float(0.0)?;
    let gx = if wanted[1] {
        Some(e.op(crate::ir::Op::Where, vec![c, g, zero])?)
    } else {
        None
    };
    let gy = if wanted[2] {
        Some(e.op(crate::ir::Op::Where, vec![c, zero, g])?)
    } else {
        None
    };
    Ok(vec![None, gx, gy])
}
