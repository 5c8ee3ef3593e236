//! Lowering of two-operand elementwise ops (casts: `cast.rs`), with NumPy's semantics for the
//! corner cases (integer division by zero gives 0, floor division and modulo take the divisor's
//! sign, shifts past the width give 0 or -1, NaN propagation of `maximum`/`minimum`).

use super::expr::cl_type;
use super::{Emitter, Mode};
use crate::kernel::ScalarExt;
use crate::kernel::{BinaryOp, Const, Scalar};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, ConstantData, InstBuilder, Value};

/// The float operation [`Emitter::raising_flag`] runs to raise a flag.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum FlagOp {
    /// Divide-by-zero (`1 / 0`).
    Divide,
    /// Overflow (`MAX * MAX`).
    Overflow,
    /// Invalid (`0 / 0`).
    Invalid,
}

impl Emitter<'_, '_> {
    /// `op(x, y)` with both operands of type `ty`.
    pub(crate) fn binary(
        &mut self,
        op: BinaryOp,
        x: Value,
        y: Value,
        ty: Scalar,
        mode: Mode,
    ) -> Value {
        use BinaryOp::*;
        if ty.is_float() {
            let cc = |op| match op {
                Eq => FloatCC::Equal,
                Ne => FloatCC::NotEqual,
                Lt => FloatCC::LessThan,
                Le => FloatCC::LessThanOrEqual,
                Gt => FloatCC::GreaterThan,
                _ => FloatCC::GreaterThanOrEqual,
            };
            return match op {
                Add => self.b.ins().fadd(x, y),
                Sub => self.b.ins().fsub(x, y),
                Mul => self.b.ins().fmul(x, y),
                Div => self.b.ins().fdiv(x, y),
                Maximum | Minimum | Fmax | Fmin => self.float_extreme(op, x, y, ty, mode),
                Copysign => {
                    let mut m = super::math::Math {
                        b: &mut self.b,
                        ty: cl_type(ty, mode),
                        fma: self.fma,
                    };
                    m.copysign(&[x], &[y])[0]
                }
                Eq | Ne | Lt | Le | Gt | Ge => self.b.ins().fcmp(cc(op), x, y),
                Pow => {
                    self.raise_numpys_pow_flags(x, y, ty);
                    self.libm("pow", &[x, y], ty)
                }
                Arctan2 if mode == Mode::Scalar => self.libm("atan2", &[x, y], ty),
                Arctan2 => self.math(ty, mode).atan2(&[x], &[y])[0],
                Hypot => self.libm("hypot", &[x, y], ty),
                Logaddexp => self.logaddexp(x, y, ty, mode),
                Floordiv => self.float_divmod(x, y, ty, true),
                Mod => self.float_divmod(x, y, ty, false),
                // C's fmod (exact; NaN and the invalid flag for a zero divisor or inf dividend).
                Fmod => self.libm("fmod", &[x, y], ty),
                LogicalAnd | LogicalOr | LogicalXor | BitwiseAnd | BitwiseOr | BitwiseXor
                | LeftShift | RightShift => panic!("{op:?} of {ty} reached codegen"),
            };
        }
        let unsigned = ty.is_unsigned();
        let icc = |op| match (op, unsigned) {
            (Eq, _) => IntCC::Equal,
            (Ne, _) => IntCC::NotEqual,
            (Lt, false) => IntCC::SignedLessThan,
            (Le, false) => IntCC::SignedLessThanOrEqual,
            (Gt, false) => IntCC::SignedGreaterThan,
            (_, false) => IntCC::SignedGreaterThanOrEqual,
            (Lt, true) => IntCC::UnsignedLessThan,
            (Le, true) => IntCC::UnsignedLessThanOrEqual,
            (Gt, true) => IntCC::UnsignedGreaterThan,
            (_, true) => IntCC::UnsignedGreaterThanOrEqual,
        };
        if ty == Scalar::Bool {
            return match op {
                LogicalAnd | BitwiseAnd | Mul | Minimum | Fmin => self.b.ins().band(x, y),
                LogicalOr | BitwiseOr | Add | Maximum | Fmax => self.b.ins().bor(x, y),
                LogicalXor | BitwiseXor | Ne => self.b.ins().bxor(x, y),
                Eq => match mode {
                    Mode::Scalar => self.b.ins().icmp(IntCC::Equal, x, y),
                    Mode::Vector(_) => {
                        let d = self.b.ins().bxor(x, y);
                        self.b.ins().bnot(d)
                    }
                },
                // As masks, `x > y` is `x & !y` (no unsigned byte compare on x86).
                Gt if mode != Mode::Scalar => self.b.ins().band_not(x, y),
                Lt if mode != Mode::Scalar => self.b.ins().band_not(y, x),
                Ge if mode != Mode::Scalar => self.b.ins().bor_not(x, y),
                Le if mode != Mode::Scalar => self.b.ins().bor_not(y, x),
                // Bools as 0/1 compare as unsigned integers.
                Lt | Le | Gt | Ge => {
                    let c = match op {
                        Lt => IntCC::UnsignedLessThan,
                        Le => IntCC::UnsignedLessThanOrEqual,
                        Gt => IntCC::UnsignedGreaterThan,
                        _ => IntCC::UnsignedGreaterThanOrEqual,
                    };
                    self.b.ins().icmp(c, x, y)
                }
                _ => panic!("{op:?} of bool reached codegen"),
            };
        }
        match op {
            Add => self.b.ins().iadd(x, y),
            Sub => self.b.ins().isub(x, y),
            Mul => self.b.ins().imul(x, y),
            // x86 has no 64-bit lane min/max below AVX-512, where Cranelift takes the lanes
            // apart; a compare (`pcmpgtq`) and a blend keep them together.
            Maximum | Fmax | Minimum | Fmin if matches!(mode, Mode::Vector(8)) && !unsigned => {
                let (a, b) = if matches!(op, Maximum | Fmax) {
                    (y, x)
                } else {
                    (x, y)
                };
                let lt = self.b.ins().icmp(IntCC::SignedLessThan, a, b);
                self.pick(lt, x, y, ty, mode)
            }
            Maximum | Fmax if unsigned => self.b.ins().umax(x, y),
            Minimum | Fmin if unsigned => self.b.ins().umin(x, y),
            Maximum | Fmax => self.b.ins().smax(x, y),
            Minimum | Fmin => self.b.ins().smin(x, y),
            BitwiseAnd | LogicalAnd => self.b.ins().band(x, y),
            BitwiseOr | LogicalOr => self.b.ins().bor(x, y),
            BitwiseXor | LogicalXor => self.b.ins().bxor(x, y),
            Eq | Ne | Lt | Le | Gt | Ge => self.b.ins().icmp(icc(op), x, y),
            Floordiv | Mod if mode != Mode::Scalar => self.i32_divmod_vector(x, y, op == Floordiv),
            Floordiv | Mod => self.int_divmod(x, y, ty, op == Floordiv),
            Fmod => self.int_fmod(x, y, ty),
            LeftShift | RightShift => {
                let bits = (ty.size() * 8) as i64;
                let t = cl_type(ty, Mode::Scalar);
                let zero = self.b.ins().iconst(t, 0);
                let width = self.b.ins().iconst(t, bits);
                let out = self
                    .b
                    .ins()
                    .icmp(IntCC::UnsignedGreaterThanOrEqual, y, width);
                if op == LeftShift {
                    let s = self.b.ins().ishl(x, y);
                    self.b.ins().select(out, zero, s)
                } else if unsigned {
                    let s = self.b.ins().ushr(x, y);
                    self.b.ins().select(out, zero, s)
                } else {
                    let s = self.b.ins().sshr(x, y);
                    let top = self.b.ins().iconst(t, bits - 1);
                    let fill = self.b.ins().sshr(x, top);
                    self.b.ins().select(out, fill, s)
                }
            }
            Pow => self.int_pow(x, y, ty),
            Div | Arctan2 | Hypot | Copysign | Logaddexp => {
                panic!("{op:?} of {ty} reached codegen (the scheduler casts to float)")
            }
        }
    }

    /// NumPy's loops, operand order included: `maximum` is `x > y || isnan(x) ? x : y`
    /// (NaN propagates), `fmax` is `x >= y || isnan(y) ? x : y` (NaN ignored); `minimum` and
    /// `fmin` likewise with `<` and `<=`.
    pub(crate) fn float_extreme(
        &mut self,
        op: BinaryOp,
        x: Value,
        y: Value,
        ty: Scalar,
        mode: Mode,
    ) -> Value {
        // On ties (0.0 and -0.0) `maximum` and `minimum` return the second operand, as
        // NumPy's loops do in every layout; `fmax` and `fmin` the first, as its scalar loop,
        // but its vector loops choose by length and alignment: such a tie raises invalid, so
        // that the caller reruns the graph with NumPy, whose own loop decides.
        let cc = match op {
            BinaryOp::Maximum => FloatCC::GreaterThan,
            BinaryOp::Minimum => FloatCC::LessThan,
            BinaryOp::Fmax => FloatCC::GreaterThanOrEqual,
            _ => FloatCC::LessThanOrEqual,
        };
        let keep = self.b.ins().fcmp(cc, x, y);
        let nan_of = match op {
            BinaryOp::Maximum | BinaryOp::Minimum => x,
            _ => y,
        };
        let nan = self.b.ins().fcmp(FloatCC::Unordered, nan_of, nan_of);
        let take_x = self.b.ins().bor(keep, nan);
        let take_x = match op {
            BinaryOp::Fmax | BinaryOp::Fmin => {
                // A tie is part of `keep` already: or-ing it in keeps the flag's operation.
                let tie = self.signed_zero_tie(x, y, ty, mode);
                let tie = self.raising_flag(tie, FlagOp::Invalid, ty, mode);
                self.b.ins().bor(take_x, tie)
            }
            _ => take_x,
        };
        self.pick(take_x, x, y, ty, mode)
    }

    /// Where `x` and `y` are zeros of different signs: equal, with different bits.
    pub(crate) fn signed_zero_tie(&mut self, x: Value, y: Value, ty: Scalar, mode: Mode) -> Value {
        let it = if ty == Scalar::F32 {
            Scalar::I32
        } else {
            Scalar::I64
        };
        let equal = self.b.ins().fcmp(FloatCC::Equal, x, y);
        let xb = self.b.ins().bitcast(cl_type(it, mode), super::little(), x);
        let yb = self.b.ins().bitcast(cl_type(it, mode), super::little(), y);
        let differ = self.b.ins().icmp(IntCC::NotEqual, xb, yb);
        self.b.ins().band(equal, differ)
    }

    /// NumPy's integer `//` and `%`: floor semantics, 0 for a zero divisor, `MIN // -1`
    /// wraps to MIN (no trap); the flags NumPy warns with are raised: divide-by-zero for a
    /// zero divisor, overflow for `MIN // -1`.
    fn int_divmod(&mut self, x: Value, y: Value, ty: Scalar, want_div: bool) -> Value {
        let t = cl_type(ty, Mode::Scalar);
        if let Some(d) = self
            .iconst_of(y)
            .filter(|&d| d != 0 && (ty.is_unsigned() || d != -1))
        {
            return self.const_divmod(x, y, d, ty, want_div);
        }
        let zero = self.b.ins().iconst(t, 0);
        let one = self.b.ins().iconst(t, 1);
        if ty.is_unsigned() {
            // Truncation is flooring for unsigned operands; by zero both give 0.
            let y0 = self.b.ins().icmp(IntCC::Equal, y, zero);
            let y0 = self.raising_flag(y0, FlagOp::Divide, ty, Mode::Scalar);
            let ys = self.b.ins().select(y0, one, y);
            let r = if want_div {
                self.b.ins().udiv(x, ys)
            } else {
                self.b.ins().urem(x, ys)
            };
            return self.b.ins().select(y0, zero, r);
        }
        let m1 = self.b.ins().iconst(t, -1);
        let y0 = self.b.ins().icmp(IntCC::Equal, y, zero);
        let y0 = self.raising_flag(y0, FlagOp::Divide, ty, Mode::Scalar);
        let ym1 = self.b.ins().icmp(IntCC::Equal, y, m1);
        let unsafe_y = self.b.ins().bor(y0, ym1);
        let ys = self.b.ins().select(unsafe_y, one, y);
        // One division: Cranelift does not merge an `sdiv` and an `srem` of the same
        // operands, and a 64-bit division costs tens of cycles (`%` in a gcd loop).
        let (q, r) = if want_div {
            let q = self.b.ins().sdiv(x, ys);
            let qy = self.b.ins().imul(q, ys);
            (q, self.b.ins().isub(x, qy))
        } else {
            (zero, self.b.ins().srem(x, ys))
        };
        // Truncated to floored: adjust when the remainder is non-zero and signs differ.
        let rnz = self.b.ins().icmp(IntCC::NotEqual, r, zero);
        let sx = self.b.ins().bxor(r, ys);
        let neg = self.b.ins().icmp(IntCC::SignedLessThan, sx, zero);
        let adj = self.b.ins().band(rnz, neg);
        if want_div {
            let q1 = self.b.ins().isub(q, one);
            let q = self.b.ins().select(adj, q1, q);
            let min = self.b.ins().iconst(t, ty.int_bounds().0 as i64);
            let xmin = self.b.ins().icmp(IntCC::Equal, x, min);
            let wraps = self.b.ins().band(xmin, ym1);
            let wraps = self.raising_flag(wraps, FlagOp::Overflow, ty, Mode::Scalar);
            let negx = self.b.ins().ineg(x);
            let q = self.b.ins().select(ym1, negx, q);
            let q = self.b.ins().select(wraps, min, q);
            self.b.ins().select(y0, zero, q)
        } else {
            let r1 = self.b.ins().iadd(r, ys);
            let r = self.b.ins().select(adj, r1, r);
            self.b.ins().select(unsafe_y, zero, r)
        }
    }

    /// [`Self::int_divmod`] of `i32` lanes, `x` and `y` `I32X4` vectors: the quotient is
    /// the floor of the `f64` quotient, which is exact: for a non-integral `x / y` its
    /// rounding error (below `|x / y| * 2^-53 <= 2^-22 / |y|`) cannot reach an integer, at
    /// least `1 / |y|` away. Divisors 0 and -1 take the scalar form's answers and flags.
    fn i32_divmod_vector(&mut self, x: Value, y: Value, want_div: bool) -> Value {
        let (ty, mode) = (Scalar::I32, Mode::Vector(4));
        let zero = self.constant(Const::Int(0), ty, mode);
        let one = self.constant(Const::Int(1), ty, mode);
        let m1 = self.constant(Const::Int(-1), ty, mode);
        let y0 = self.b.ins().icmp(IntCC::Equal, y, zero);
        let y0 = self.raising_flag(y0, FlagOp::Divide, ty, mode);
        let ym1 = self.b.ins().icmp(IntCC::Equal, y, m1);
        let unsafe_y = self.b.ins().bor(y0, ym1);
        let ys = self.pick(unsafe_y, one, y, ty, mode);
        let q = self.floor_quotient_i32(x, ys);
        if want_div {
            let min = self.constant(Const::Int(i32::MIN as i64), ty, mode);
            let xmin = self.b.ins().icmp(IntCC::Equal, x, min);
            let wraps = self.b.ins().band(xmin, ym1);
            let wraps = self.raising_flag(wraps, FlagOp::Overflow, ty, mode);
            // `-MIN` wraps to MIN, NumPy's result.
            let negx = self.b.ins().ineg(x);
            let q = self.pick(ym1, negx, q, ty, mode);
            let q = self.pick(wraps, min, q, ty, mode);
            self.pick(y0, zero, q, ty, mode)
        } else {
            let qy = self.b.ins().imul(q, ys);
            let r = self.b.ins().isub(x, qy);
            self.pick(unsafe_y, zero, r, ty, mode)
        }
    }

    /// `floor(x / y)` of `I32X4` lanes through `f64`, two lanes at a time (`y` nonzero).
    fn floor_quotient_i32(&mut self, x: Value, y: Value) -> Value {
        const HIGH: [u8; 16] = [8, 9, 10, 11, 12, 13, 14, 15, 8, 9, 10, 11, 12, 13, 14, 15];
        const LOWS: [u8; 16] = [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23];
        let mut halves = Vec::new();
        for part in 0..2 {
            let (xs, ys) = if part == 0 {
                (x, y)
            } else {
                (self.shuffle_i32(x, x, HIGH), self.shuffle_i32(y, y, HIGH))
            };
            let xf = self.widen_low(xs, Scalar::I32, Scalar::F64);
            let yf = self.widen_low(ys, Scalar::I32, Scalar::F64);
            let q = self.b.ins().fdiv(xf, yf);
            let q = self.b.ins().floor(q);
            halves.push(self.truncate_to_i32(q, Scalar::F64, Mode::Vector(8)));
        }
        self.shuffle_i32(halves[0], halves[1], LOWS)
    }

    /// The bytes `picks` of `a` then `b` (`I32X4` vectors), as one `I32X4`.
    pub(super) fn shuffle_i32(&mut self, a: Value, b: Value, picks: [u8; 16]) -> Value {
        let bytes = |em: &mut Self, v| em.b.ins().bitcast(types::I8X16, super::little(), v);
        let (a, b) = (bytes(self, a), bytes(self, b));
        let picks = self
            .b
            .func
            .dfg
            .immediates
            .push(ConstantData::from(picks.as_ref()));
        let v = self.b.ins().shuffle(a, b, picks);
        self.b.ins().bitcast(types::I32X4, super::little(), v)
    }

    /// NumPy's integer `fmod`: C's truncated remainder (the dividend's sign); 0 with the
    /// divide-by-zero flag for a zero divisor, 0 for `MIN % -1` (which would trap).
    fn int_fmod(&mut self, x: Value, y: Value, ty: Scalar) -> Value {
        let t = cl_type(ty, Mode::Scalar);
        let zero = self.b.ins().iconst(t, 0);
        let one = self.b.ins().iconst(t, 1);
        let y0 = self.b.ins().icmp(IntCC::Equal, y, zero);
        let y0 = self.raising_flag(y0, FlagOp::Divide, ty, Mode::Scalar);
        if ty.is_unsigned() {
            let ys = self.b.ins().select(y0, one, y);
            let r = self.b.ins().urem(x, ys);
            return self.b.ins().select(y0, zero, r);
        }
        let m1 = self.b.ins().iconst(t, -1);
        let ym1 = self.b.ins().icmp(IntCC::Equal, y, m1);
        let unsafe_y = self.b.ins().bor(y0, ym1);
        let ys = self.b.ins().select(unsafe_y, one, y);
        let r = self.b.ins().srem(x, ys);
        self.b.ins().select(unsafe_y, zero, r)
    }

    /// `cond` (an integer comparison of `ty`'s lanes) recomputed through a float operation
    /// that raises `flag` in exactly the lanes where it holds: `1 / 0` for divide-by-zero,
    /// `MAX * MAX` for overflow, `0 / 0` for invalid. The condition's users keep the
    /// operation alive, so integer kernels raise the flags NumPy warns with (`fpstatus`).
    pub(crate) fn raising_flag(
        &mut self,
        cond: Value,
        flag: FlagOp,
        ty: Scalar,
        mode: Mode,
    ) -> Value {
        if mode == Mode::Scalar {
            // A call Cranelift cannot fold: the flag is raised even where `cond` is known at
            // compile time (a division by a literal 0), where an `fdiv` of constants would
            // fold away. glibc's log(0) raises divide-by-zero, exp(1000) overflow.
            let raise = self.b.create_block();
            let join = self.b.create_block();
            self.b.ins().brif(cond, raise, &[], join, &[]);
            self.b.switch_to_block(raise);
            self.b.seal_block(raise);
            let (name, arg) = match flag {
                FlagOp::Divide => ("log", 0.0),
                FlagOp::Overflow => ("exp", 1000.0),
                FlagOp::Invalid => ("log", -1.0),
            };
            let arg = self.constant(Const::Float(arg), Scalar::F64, mode);
            self.libm(name, &[arg], Scalar::F64);
            self.b.ins().jump(join, &[]);
            self.b.switch_to_block(join);
            self.b.seal_block(join);
            return cond;
        }
        let ft = if ty.size() == 4 {
            Scalar::F32
        } else {
            Scalar::F64
        };
        let one = self.constant(Const::Float(1.0), ft, mode);
        let (hit, res) = match flag {
            FlagOp::Divide => (Const::Float(0.0), Const::Float(f64::INFINITY)),
            FlagOp::Invalid => (Const::Float(0.0), Const::Float(f64::NAN)),
            FlagOp::Overflow => (
                Const::Float(if ft == Scalar::F32 {
                    f32::MAX as f64
                } else {
                    f64::MAX
                }),
                Const::Float(f64::INFINITY),
            ),
        };
        let hit = self.constant(hit, ft, mode);
        let operand = self.pick(cond, hit, one, ft, mode);

        let out = match flag {
            FlagOp::Divide => self.b.ins().fdiv(one, operand),
            FlagOp::Overflow => self.b.ins().fmul(operand, operand),
            FlagOp::Invalid => self.b.ins().fdiv(operand, operand),
        };
        if flag == FlagOp::Invalid {
            return self.b.ins().fcmp(FloatCC::Unordered, out, out);
        }
        let res = self.constant(res, ft, mode);
        self.b.ins().fcmp(FloatCC::Equal, out, res)
    }

    /// The flags NumPy's `power` raises where C's `pow` raises none (its vector loop on
    /// CPUs with AVX-512, used for every length): overflow for `x ** inf` with a finite
    /// `|x|` of at least 2^64 (float32) or 2^512 (float64), divide-by-zero for `0 ** -inf`.
    /// A flag only makes the caller rerun the graph with NumPy under its errstate, so on a
    /// CPU where NumPy raises neither this costs a rerun, never a wrong warning.
    fn raise_numpys_pow_flags(&mut self, x: Value, y: Value, ty: Scalar) {
        let mode = Mode::Scalar;
        let large = if ty == Scalar::F32 {
            2f64.powi(64)
        } else {
            2f64.powi(512)
        };
        let inf = self.constant(Const::Float(f64::INFINITY), ty, mode);
        let neg_inf = self.constant(Const::Float(f64::NEG_INFINITY), ty, mode);
        let large = self.constant(Const::Float(large), ty, mode);
        let zero = self.constant(Const::Float(0.0), ty, mode);
        let ax = self.b.ins().fabs(x);
        let y_inf = self.b.ins().fcmp(FloatCC::Equal, y, inf);
        let at_least = self.b.ins().fcmp(FloatCC::GreaterThanOrEqual, ax, large);
        let finite = self.b.ins().fcmp(FloatCC::LessThan, ax, inf);
        let over = self.b.ins().band(y_inf, at_least);
        let over = self.b.ins().band(over, finite);
        self.raising_flag(over, FlagOp::Overflow, ty, mode);
        let y_neg_inf = self.b.ins().fcmp(FloatCC::Equal, y, neg_inf);
        let x_zero = self.b.ins().fcmp(FloatCC::Equal, x, zero);
        let divide = self.b.ins().band(y_neg_inf, x_zero);
        self.raising_flag(divide, FlagOp::Divide, ty, mode);
    }

    /// NumPy's float `//` and `%` (`npy_divmod`): built on `fmod`, sign of the divisor.
    fn float_divmod(&mut self, x: Value, y: Value, ty: Scalar, want_div: bool) -> Value {
        let mode = Mode::Scalar;
        let m = self.libm("fmod", &[x, y], ty);
        let zero = self.constant(Const::Float(0.0), ty, mode);
        let one = self.constant(Const::Float(1.0), ty, mode);
        let mnz = self.b.ins().fcmp(FloatCC::NotEqual, m, zero);
        let mneg = self.b.ins().fcmp(FloatCC::LessThan, m, zero);
        let yneg = self.b.ins().fcmp(FloatCC::LessThan, y, zero);
        let differ = self.b.ins().bxor(mneg, yneg);
        let adj = self.b.ins().band(mnz, differ);
        let madj = self.b.ins().fadd(m, y);
        let mfix = self.b.ins().select(adj, madj, m);
        if !want_div {
            // A zero remainder takes the divisor's sign; a zero divisor gives fmod's NaN.
            let zs = super::math::Math {
                b: &mut self.b,
                ty: cl_type(ty, mode),
                fma: self.fma,
            }
            .copysign(&[zero], &[y])[0];
            let r = self.b.ins().select(mnz, mfix, zs);
            let ynz = self.b.ins().fcmp(FloatCC::NotEqual, y, zero);
            return self.b.ins().select(ynz, r, m);
        }
        let xm = self.b.ins().fsub(x, m);
        let div = self.b.ins().fdiv(xm, y);
        let div1 = self.b.ins().fsub(div, one);
        let div = self.b.ins().select(adj, div1, div);
        let fl = self.b.ins().floor(div);
        let frac = self.b.ins().fsub(div, fl);
        let half = self.constant(Const::Float(0.5), ty, mode);
        let up = self.b.ins().fcmp(FloatCC::GreaterThan, frac, half);
        let fl1 = self.b.ins().fadd(fl, one);
        let fl = self.b.ins().select(up, fl1, fl);
        // A zero quotient gets the sign of x / y; a zero divisor gives x / y (inf or NaN).
        let q = self.b.ins().fdiv(x, y);
        let zq = super::math::Math {
            b: &mut self.b,
            ty: cl_type(ty, mode),
            fma: self.fma,
        }
        .copysign(&[zero], &[q])[0];
        let dz = self.b.ins().fcmp(FloatCC::Equal, div, zero);
        let r = self.b.ins().select(dz, zq, fl);
        let ynz = self.b.ins().fcmp(FloatCC::NotEqual, y, zero);
        self.b.ins().select(ynz, r, q)
    }

    /// Integer power by square-and-multiply over every exponent bit (straight-line code).
    /// Negative exponents (an error in NumPy, rejected by the scheduler when constant) give 0
    /// except for bases 1 and -1.
    fn int_pow(&mut self, x: Value, y: Value, ty: Scalar) -> Value {
        let t = cl_type(ty, Mode::Scalar);
        let mut acc = self.b.ins().iconst(t, 1);
        let mut base = x;
        let mut e = y;
        for _ in 0..ty.size() * 8 - 1 {
            let bit = self.b.ins().band_imm_s(e, 1);
            let prod = self.b.ins().imul(acc, base);
            acc = self.b.ins().select(bit, prod, acc);
            base = self.b.ins().imul(base, base);
            e = if ty.is_unsigned() {
                self.b.ins().ushr_imm_s(e, 1)
            } else {
                self.b.ins().sshr_imm_s(e, 1)
            };
        }
        if ty.is_unsigned() {
            return acc;
        }
        let zero = self.b.ins().iconst(t, 0);
        let neg = self.b.ins().icmp(IntCC::SignedLessThan, y, zero);
        // 1/x for |x| == 1 is x; every other base truncates to 0. Not NumPy's integer
        // `reciprocal`, which raises divide-by-zero for a zero base: a flag for a power no
        // negative exponent asked for would rerun the graph (`(i - j) ** 2` at i == j).
        let m1 = self.b.ins().iconst(t, -1);
        let one = self.b.ins().iconst(t, 1);
        let is1 = self.b.ins().icmp(IntCC::Equal, x, one);
        let ism1 = self.b.ins().icmp(IntCC::Equal, x, m1);
        let unit = self.b.ins().bor(is1, ism1);
        let recip = self.b.ins().select(unit, x, zero);
        // For negative y the loop saw all-ones bits; only |x| == 1 has a meaningful answer:
        // x^y = (1/x)^|y| = 1/x when |y| is odd.
        let odd = self.b.ins().band_imm_s(y, 1);
        let r1 = self.b.ins().imul(recip, recip);
        let rr = self.b.ins().select(odd, recip, r1);
        self.b.ins().select(neg, rr, acc)
    }
}
