//! Lowering of one expression node to Cranelift instructions, scalar or 128-bit vector.
//!
//! Scalar `bool` is an `i8` holding 0 or 1. In vector mode every value of a stage has the same
//! lane width, and `bool` is a lane mask of that width (all ones or zero), the form `fcmp` and
//! `icmp` produce and `bitselect` consumes.

use super::math::Math;
use super::{little, Emitter, Mode};
use crate::kernel::ScalarExt;
use crate::kernel::{BinaryOp, Const, Scalar, UnaryOp};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    types, AbiParam, InstBuilder, StackSlotData, StackSlotKind, Type, Value,
};
use cranelift_module::{Linkage, Module};

/// Below which `|x|` (nonzero) NumPy's loop for `op` raises the underflow flag where ours
/// would not ([`Math::raise_underflow_if_tiny`]): subnormals for `expm1`, `log1p` and
/// float32 `exp`; for float32 `cos`, about 2.6557e-19, where a power of `x` in NumPy's
/// polynomial underflows, in every layout and length (a scalar or a tail element included,
/// which the kernels compute with libm's `cosf`; a spare flag only costs a rerun).
fn tiny_underflow_limit(op: UnaryOp, ty: Scalar) -> Option<f64> {
    let f32 = ty == Scalar::F32;
    let min_normal = if f32 {
        f32::MIN_POSITIVE as f64
    } else {
        f64::MIN_POSITIVE
    };
    match op {
        UnaryOp::Expm1 | UnaryOp::Log1p => Some(min_normal),
        UnaryOp::Exp if f32 => Some(min_normal),
        UnaryOp::Cos if f32 => Some(2.6558e-19),
        _ => None,
    }
}

/// The Cranelift type of a value of type `s` in `mode`.
pub(crate) fn cl_type(s: Scalar, mode: Mode) -> Type {
    match mode {
        Mode::Scalar => match s {
            Scalar::Bool | Scalar::I8 | Scalar::U8 => types::I8,
            Scalar::I16 | Scalar::U16 => types::I16,
            Scalar::I32 | Scalar::U32 => types::I32,
            Scalar::I64 | Scalar::U64 => types::I64,
            Scalar::F32 => types::F32,
            Scalar::F64 => types::F64,
        },
        Mode::Vector(width) => {
            let lane = match (s, width) {
                (Scalar::F32, _) => types::F32,
                (Scalar::F64, _) => types::F64,
                (Scalar::I32, _) | (Scalar::Bool, 4) => types::I32,
                (Scalar::Bool, 1) => types::I8,
                _ => types::I64,
            };
            // 4-byte values in a stage of 8-byte lanes are half vectors (`crossing_cast`).
            lane.by(16 / lane.bytes()).unwrap()
        }
    }
}

/// Whether a cast between 4-byte and 8-byte lanes has a vector form (`cvtdq2pd`, `cvtps2pd`,
/// `pmovsxdq`, `cvtpd2ps`, `cvttpd2dq`, a shuffle): the 4-byte side is then a half vector, its
/// two elements in the low lanes, in a stage of 8-byte lanes. It may only be a load read by
/// such casts alone, or the value a map stores (`Emitter::map_mode`), since arithmetic on
/// the upper lanes could raise floating-point flags.
pub(crate) fn crossing_cast(from: Scalar, to: Scalar) -> bool {
    use Scalar::*;
    matches!(
        (from, to),
        (I32, F64) | (F32, F64) | (I32, I64) | (F64, F32) | (F64, I32) | (I64, I32)
    )
}

/// Whether a cast between `i64` and `f64` lanes has a vector form: x86 has no conversion
/// of 64-bit lanes below AVX-512, so `binary.rs` builds them from 32-bit halves and the
/// `2^52` bias (`i64_to_f64_lanes`, `f64_to_i64_lanes`).
pub(crate) fn wide_int_float_cast(from: Scalar, to: Scalar) -> bool {
    matches!(
        (from, to),
        (Scalar::I64, Scalar::F64) | (Scalar::F64, Scalar::I64)
    )
}

/// Whether `op` is a polynomial function (see [`super::math`]), emitted for all unrolled
/// copies at once by [`Emitter::unary_group`].
pub(crate) fn is_polynomial(op: UnaryOp) -> bool {
    use UnaryOp::*;
    matches!(op, Exp | Expm1 | Log | Log1p | Tanh | Sin | Cos)
}

/// Whether `op` on operands of type `ty` has a vector lowering.
pub(crate) fn vector_unary(op: UnaryOp, ty: Scalar) -> bool {
    use UnaryOp::*;
    match ty {
        Scalar::F32 | Scalar::F64 => matches!(
            op,
            Neg | Abs
                | Sign
                | Square
                | Reciprocal
                | Sqrt
                | Exp
                | Expm1
                | Log
                | Log1p
                | Sin
                | Cos
                | Tanh
                | Arctan
                | Floor
                | Ceil
                | Trunc
                | Rint
                | Isnan
                | Isinf
                | Isfinite
        ),
        Scalar::I32 | Scalar::I64 => matches!(
            op,
            Neg | Abs
                | Sign
                | Square
                | BitwiseNot
                | Floor
                | Ceil
                | Trunc
                | Rint
                | Isnan
                | Isinf
                | Isfinite
                | Signbit
                | LogicalNot
        ),
        // A bool lane is a mask: these are the identity, a constant or a `bnot` of it.
        Scalar::Bool => matches!(
            op,
            LogicalNot
                | BitwiseNot
                | Abs
                | Floor
                | Ceil
                | Trunc
                | Rint
                | Square
                | Sign
                | Isnan
                | Isinf
                | Isfinite
                | Signbit
        ),
        _ => false,
    }
}

/// Whether `op` on operands of type `ty` has a vector lowering.
pub(crate) fn vector_binary(op: BinaryOp, ty: Scalar) -> bool {
    use BinaryOp::*;
    match ty {
        Scalar::F32 | Scalar::F64 => matches!(
            op,
            Add | Sub
                | Mul
                | Div
                | Maximum
                | Minimum
                | Fmax
                | Fmin
                | Copysign
                | Arctan2
                | Eq
                | Ne
                | Lt
                | Le
                | Gt
                | Ge
        ),
        Scalar::I32 | Scalar::I64 => {
            matches!(
                op,
                Add | Sub
                    | Mul
                    | Maximum
                    | Minimum
                    | Fmax
                    | Fmin
                    | BitwiseAnd
                    | BitwiseOr
                    | BitwiseXor
                    | Eq
                    | Ne
                    | Lt
                    | Le
                    | Gt
                    | Ge
            ) || (ty == Scalar::I32 && matches!(op, Floordiv | Mod))
        }
        Scalar::Bool => matches!(
            op,
            LogicalAnd
                | LogicalOr
                | LogicalXor
                | BitwiseAnd
                | BitwiseOr
                | BitwiseXor
                | Mul
                | Add
                | Maximum
                | Minimum
                | Fmax
                | Fmin
                | Eq
                | Ne
                | Lt
                | Le
                | Gt
                | Ge
        ),
        _ => false,
    }
}

/// Whether narrowing the finite `v` to float32 overflows, or underflows to a subnormal or
/// zero with a loss: the floating-point flags the conversion raises.
fn narrowing_flags(v: f64) -> bool {
    let narrow = v as f32;
    v.is_finite()
        && (narrow.is_infinite() || (narrow.abs() < f32::MIN_POSITIVE && narrow as f64 != v))
}

impl<'b> Emitter<'_, 'b> {
    /// A constant of type `ty` in `mode`.
    pub(crate) fn constant(&mut self, c: Const, ty: Scalar, mode: Mode) -> Value {
        let s = match (ty, c) {
            (Scalar::F32, Const::Float(v)) if narrowing_flags(v) => {
                // NumPy's cast of a Python float out of float32's range warns ("overflow
                // encountered in cast"): narrowed at run time, the kernel raises the flag.
                let wide = self.b.ins().f64const(v);
                self.b.ins().fdemote(types::F32, wide)
            }
            (Scalar::F32, Const::Float(v)) => self.b.ins().f32const(v as f32),
            (Scalar::F32, Const::Int(v)) => self.b.ins().f32const(v as f32),
            (Scalar::F64, Const::Float(v)) => self.b.ins().f64const(v),
            (Scalar::F64, Const::Int(v)) => self.b.ins().f64const(v as f64),
            (Scalar::Bool, c) => {
                let on = match c {
                    Const::Int(v) => v != 0,
                    Const::Float(v) => v != 0.0,
                };
                self.b.ins().iconst(types::I8, on as i64)
            }
            (_, c) => {
                let v = match c {
                    Const::Int(v) => v,
                    Const::Float(v) => v as i64,
                };
                let t = cl_type(ty, Mode::Scalar);
                let v = match t {
                    types::I8 => v as i8 as i64,
                    types::I16 => v as i16 as i64,
                    types::I32 => v as i32 as i64,
                    _ => v,
                };
                self.b.ins().iconst(t, v)
            }
        };
        self.splat(s, ty, mode)
    }

    /// Broadcasts a scalar of type `ty` to `mode` (bool 0/1 becomes a lane mask).
    pub(crate) fn splat(&mut self, s: Value, ty: Scalar, mode: Mode) -> Value {
        match mode {
            Mode::Scalar => s,
            Mode::Vector(_) => {
                let vt = cl_type(ty, mode);
                let s = if ty == Scalar::Bool {
                    let wide = if vt.lane_type() == types::I8 {
                        s
                    } else {
                        self.b.ins().uextend(vt.lane_type(), s)
                    };
                    self.b.ins().ineg(wide)
                } else {
                    s
                };
                self.b.ins().splat(vt, s)
            }
        }
    }

    pub(crate) fn math(&mut self, ty: Scalar, mode: Mode) -> Math<'_, 'b> {
        let t = cl_type(ty, mode);
        Math {
            b: &mut self.b,
            ty: t,
            fma: self.fma,
        }
    }

    /// Calls the C library function `name` on scalars of type `ty`.
    pub(crate) fn libm(&mut self, name: &str, args: &[Value], ty: Scalar) -> Value {
        let t = cl_type(ty, Mode::Scalar);
        let sym = if ty == Scalar::F32 {
            format!("{name}f")
        } else {
            name.to_string()
        };
        let key = (sym.clone(), args.len());
        let fref = match self.libm_refs.get(&key) {
            Some(f) => *f,
            None => {
                let mut sig = self.module.make_signature();
                for _ in args {
                    sig.params.push(AbiParam::new(t));
                }
                sig.returns.push(AbiParam::new(t));
                let id = self
                    .module
                    .declare_function(&sym, Linkage::Import, &sig)
                    .expect("libm symbol declaration");
                let f = self.module.declare_func_in_func(id, self.b.func);
                self.libm_refs.insert(key, f);
                f
            }
        };
        let call = self.b.ins().call(fref, args);
        self.b.inst_results(call)[0]
    }

    /// `op` applied to one value per unrolled copy, step by step across the copies (see
    /// [`super::math`]); `op` must satisfy [`is_polynomial`].
    pub(crate) fn unary_group(
        &mut self,
        op: UnaryOp,
        xs: &[Value],
        ty: Scalar,
        mode: Mode,
    ) -> Vec<Value> {
        use UnaryOp::*;
        let r = match op {
            Exp => self.math(ty, mode).exp(xs),
            Expm1 => self.math(ty, mode).expm1(xs),
            Log => self.math(ty, mode).log(xs),
            Log1p => self.math(ty, mode).log1p(xs),
            Tanh => self.math(ty, mode).tanh(xs),
            Sin | Cos if mode == Mode::Scalar => {
                let name = if op == Sin { "sin" } else { "cos" };
                xs.iter().map(|&x| self.libm(name, &[x], ty)).collect()
            }
            Sin | Cos => {
                let r = self.math(ty, mode).sincos(xs, op == Cos);
                let name = if op == Sin { "sin" } else { "cos" };
                self.large_args_via_libm(xs, r, name, ty, mode)
            }
            _ => panic!("{op:?} is not a polynomial function"),
        };
        match tiny_underflow_limit(op, ty) {
            Some(limit) => self.math(ty, mode).raise_underflow_if_tiny(&r, xs, limit),
            None => r,
        }
    }

    /// `logaddexp(x, y)` as NumPy's `npy_logaddexp`: the larger operand plus
    /// `log1p(exp(-|x - y|))`, with the vectorised `exp` and `log1p`; `x + ln 2` where the
    /// operands are equal, so that equal infinities (whose difference is NaN) stay infinite.
    pub(crate) fn logaddexp(&mut self, x: Value, y: Value, ty: Scalar, mode: Mode) -> Value {
        // Equal operands subtract as zeros: equal infinities would give `inf - inf`, a flag
        // NumPy's loop (which returns `x + ln 2` before subtracting) does not raise.
        let eq = self.b.ins().fcmp(FloatCC::Equal, x, y);
        let zero = self.constant(Const::Float(0.0), ty, mode);
        let xd = self.pick(eq, zero, x, ty, mode);
        let yd = self.pick(eq, zero, y, ty, mode);
        let d = self.b.ins().fsub(xd, yd);
        let d = self.b.ins().fabs(d);
        let d = self.b.ins().fneg(d);
        let e = self.unary_group(UnaryOp::Exp, &[d], ty, mode)[0];
        let l = self.unary_group(UnaryOp::Log1p, &[e], ty, mode)[0];
        // NaN in either operand gives NaN here and in the sum.
        let m = self.b.ins().fmax(x, y);
        let r = self.b.ins().fadd(m, l);
        let ln2 = self.constant(Const::Float(std::f64::consts::LN_2), ty, mode);
        let tie = self.b.ins().fadd(x, ln2);
        let out = self.pick(eq, tie, r, ty, mode);
        // NumPy's loop compares the difference with `>` (a signalling compare), so a NaN
        // operand raises invalid; our compares are quiet, so raise it here.
        let nan = self.b.ins().fcmp(FloatCC::Unordered, x, y);
        let nan = self.raising_flag(nan, super::binary::FlagOp::Invalid, ty, mode);
        self.pick(nan, r, out, ty, mode)
    }

    /// `op(x)` where `x` has type `ty`.
    /// Stores `x` where nothing reads it, so that the instructions computing it (and the
    /// floating-point flags they raise) stay in the kernel although its value is not used.
    fn keep_computed(&mut self, x: Value) {
        let bytes = self.b.func.dfg.value_type(x).bytes();
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            bytes,
            4,
        ));
        self.b.ins().stack_store(types::I64, x, slot, 0);
    }

    pub(crate) fn unary(&mut self, op: UnaryOp, x: Value, ty: Scalar, mode: Mode) -> Value {
        use UnaryOp::*;
        if ty.is_float() {
            return match op {
                // The scheduler forwards `positive` without a node; native code may still ask.
                Positive => x,
                Neg => self.b.ins().fneg(x),
                Abs => self.b.ins().fabs(x),
                Square => self.b.ins().fmul(x, x),
                Reciprocal => {
                    let one = self.constant(Const::Float(1.0), ty, mode);
                    self.b.ins().fdiv(one, x)
                }
                Sqrt => self.b.ins().sqrt(x),
                Floor => self.b.ins().floor(x),
                Ceil => self.b.ins().ceil(x),
                Trunc => self.b.ins().trunc(x),
                Rint => self.b.ins().nearest(x),
                Exp | Expm1 | Log | Log1p | Tanh | Sin | Cos => {
                    self.unary_group(op, &[x], ty, mode)[0]
                }
                Sign => {
                    let zero = self.constant(Const::Float(0.0), ty, mode);
                    let one = self.constant(Const::Float(1.0), ty, mode);
                    let m1 = self.constant(Const::Float(-1.0), ty, mode);
                    let gt = self.b.ins().fcmp(FloatCC::GreaterThan, x, zero);
                    let lt = self.b.ins().fcmp(FloatCC::LessThan, x, zero);
                    // 0 stays 0 and NaN stays NaN: x + 0 keeps both.
                    let keep = self.b.ins().fadd(x, zero);
                    let r = self.pick(lt, m1, keep, ty, mode);
                    self.pick(gt, one, r, ty, mode)
                }
                Isnan => self.b.ins().fcmp(FloatCC::Unordered, x, x),
                Isinf => {
                    let ax = self.b.ins().fabs(x);
                    let inf = self.constant(Const::Float(f64::INFINITY), ty, mode);
                    self.b.ins().fcmp(FloatCC::Equal, ax, inf)
                }
                Isfinite => {
                    let ax = self.b.ins().fabs(x);
                    let inf = self.constant(Const::Float(f64::INFINITY), ty, mode);
                    self.b.ins().fcmp(FloatCC::LessThan, ax, inf)
                }
                Signbit => {
                    let it = if ty == Scalar::F32 {
                        Scalar::I32
                    } else {
                        Scalar::I64
                    };
                    let bits = self.b.ins().bitcast(cl_type(it, mode), little(), x);
                    let zero = self.constant(Const::Int(0), it, mode);
                    self.b.ins().icmp(IntCC::SignedLessThan, bits, zero)
                }
                Cbrt => self.libm("cbrt", &[x], ty),
                // float32 through the double function, rounded: scipy.special's `f->f` loop.
                Erf | Erfc if ty == Scalar::F32 => {
                    let wide = self.b.ins().fpromote(types::F64, x);
                    let name = if op == Erf { "erf" } else { "erfc" };
                    let r = self.libm(name, &[wide], Scalar::F64);
                    self.b.ins().fdemote(types::F32, r)
                }
                Erf => self.libm("erf", &[x], ty),
                Erfc => self.libm("erfc", &[x], ty),
                Exp2 => self.libm("exp2", &[x], ty),
                Log2 => self.libm("log2", &[x], ty),
                Log10 => self.libm("log10", &[x], ty),
                Tan => self.libm("tan", &[x], ty),
                Arcsin => self.libm("asin", &[x], ty),
                Arccos => self.libm("acos", &[x], ty),
                Arctan if mode == Mode::Scalar => self.libm("atan", &[x], ty),
                Arctan => self.math(ty, mode).atan(&[x])[0],
                Sinh => self.libm("sinh", &[x], ty),
                Cosh => self.libm("cosh", &[x], ty),
                Arcsinh => self.libm("asinh", &[x], ty),
                Arccosh => self.libm("acosh", &[x], ty),
                Arctanh => self.libm("atanh", &[x], ty),
                LogicalNot => {
                    let zero = self.constant(Const::Float(0.0), ty, mode);
                    self.b.ins().fcmp(FloatCC::Equal, x, zero)
                }
                BitwiseNot => panic!("bitwise_not of a float reached codegen"),
            };
        }
        if ty == Scalar::Bool {
            return match op {
                LogicalNot | BitwiseNot => match mode {
                    Mode::Scalar => self.b.ins().bxor_imm_s(x, 1),
                    Mode::Vector(_) => self.b.ins().bnot(x),
                },
                Isnan | Isinf | Signbit => self.constant(Const::Int(0), Scalar::Bool, mode),
                Isfinite => self.constant(Const::Int(1), Scalar::Bool, mode),
                Abs | Floor | Ceil | Trunc | Rint | Square | Sign => x,
                _ => panic!("{op:?} of bool reached codegen"),
            };
        }
        if op == Reciprocal && !matches!(ty, Scalar::I32 | Scalar::I64) {
            // NumPy's loop: 1/x in double, converted back (1/0 raises divide-by-zero, and
            // its infinity converts to 0 in these types).
            let xf = self.cast(x, ty, Scalar::F64, mode);
            let one = self.constant(Const::Float(1.0), Scalar::F64, mode);
            let r = self.b.ins().fdiv(one, xf);
            return self.cast(r, Scalar::F64, ty, mode);
        }
        if matches!(op, Isnan | Isinf | Isfinite) || (op == Signbit && ty.is_unsigned()) {
            // The result does not depend on `x`, but computing `x` may raise a flag NumPy
            // raises (a float cast to an integer: "invalid value encountered in cast").
            self.keep_computed(x);
        }
        if ty.is_unsigned() {
            match op {
                Abs | Floor | Ceil | Trunc | Rint => return x,
                Sign => {
                    let zero = self.constant(Const::Int(0), ty, mode);
                    let one = self.constant(Const::Int(1), ty, mode);
                    let nz = self.b.ins().icmp(IntCC::NotEqual, x, zero);
                    return self.pick(nz, one, zero, ty, mode);
                }
                Signbit => return self.constant(Const::Int(0), Scalar::Bool, mode),
                _ => {}
            }
        }
        match op {
            Neg => self.b.ins().ineg(x),
            Abs => self.b.ins().iabs(x),
            Square => self.b.ins().imul(x, x),
            BitwiseNot => self.b.ins().bnot(x),
            Floor | Ceil | Trunc | Rint => x,
            Sign => {
                let zero = self.constant(Const::Int(0), ty, mode);
                let one = self.constant(Const::Int(1), ty, mode);
                let m1 = self.constant(Const::Int(-1), ty, mode);
                let gt = self.b.ins().icmp(IntCC::SignedGreaterThan, x, zero);
                let lt = self.b.ins().icmp(IntCC::SignedLessThan, x, zero);
                let r = self.pick(lt, m1, zero, ty, mode);
                self.pick(gt, one, r, ty, mode)
            }
            Reciprocal => {
                // Integer 1/x: 1 and -1 are their own reciprocals, everything else truncates to
                // 0, and 1/0 is NumPy's `(int)(1.0 / 0)`: the minimum, with divide-by-zero
                // (the division) and invalid (the conversion of its infinity).
                let one = self.constant(Const::Int(1), ty, mode);
                let m1 = self.constant(Const::Int(-1), ty, mode);
                let zero = self.constant(Const::Int(0), ty, mode);
                // NumPy's loops give 0 for 1/0 below 32 bits and for unsigned types.
                let min = if ty.is_unsigned() || ty.size() < 4 {
                    0
                } else {
                    ty.int_bounds().0 as i64
                };
                let min = self.constant(Const::Int(min), ty, mode);
                let is1 = self.b.ins().icmp(IntCC::Equal, x, one);
                let ism1 = self.b.ins().icmp(IntCC::Equal, x, m1);
                let is0 = self.b.ins().icmp(IntCC::Equal, x, zero);
                let is0 = self.raising_flag(is0, super::binary::FlagOp::Divide, ty, mode);
                let is0 = self.raising_flag(is0, super::binary::FlagOp::Invalid, ty, mode);
                let r = self.pick(is0, min, zero, ty, mode);
                // An unsigned all-ones is not -1: its reciprocal truncates to 0.
                let r = if ty.is_unsigned() {
                    r
                } else {
                    self.pick(ism1, m1, r, ty, mode)
                };
                self.pick(is1, one, r, ty, mode)
            }
            Isnan | Isinf => self.constant(Const::Int(0), Scalar::Bool, mode),
            Isfinite => self.constant(Const::Int(1), Scalar::Bool, mode),
            Signbit => {
                let zero = self.constant(Const::Int(0), ty, mode);
                self.b.ins().icmp(IntCC::SignedLessThan, x, zero)
            }
            LogicalNot => {
                let zero = self.constant(Const::Int(0), ty, mode);
                self.b.ins().icmp(IntCC::Equal, x, zero)
            }
            _ => panic!("{op:?} of {ty} reached codegen (the scheduler casts to float)"),
        }
    }

    /// Recomputes every lane with libm when any lane of `xs` is beyond the range where the
    /// polynomial `sin`/`cos` keep their error bound (a branch that large inputs rarely take).
    fn large_args_via_libm(
        &mut self,
        xs: &[Value],
        fast: Vec<Value>,
        name: &str,
        ty: Scalar,
        mode: Mode,
    ) -> Vec<Value> {
        use cranelift_codegen::ir::BlockArg;
        let vt = cl_type(ty, mode);
        let limit = if ty == Scalar::F64 { 1e4 } else { 1e3 };
        let lim = self.constant(Const::Float(limit), ty, mode);
        // NaN lanes compare unordered: the polynomial already returns NaN for them.
        let mut big = None;
        for &x in xs {
            let ax = self.b.ins().fabs(x);
            let b = self.b.ins().fcmp(FloatCC::GreaterThan, ax, lim);
            big = Some(big.map_or(b, |a| self.b.ins().bor(a, b)));
        }
        let any = self.b.ins().vany_true(big.expect("a non-empty group"));
        let slow = self.b.create_block();
        let join = self.b.create_block();
        for _ in xs {
            self.b.append_block_param(join, vt);
        }
        let args: Vec<BlockArg> = fast.iter().map(|&v| BlockArg::Value(v)).collect();
        self.b.ins().brif(any, slow, &[], join, &args);
        self.b.switch_to_block(slow);
        self.b.seal_block(slow);
        let mut args = Vec::new();
        for (&x, &f) in xs.iter().zip(&fast) {
            let mut v = f;
            for lane in 0..mode.lanes() as u8 {
                let xl = self.b.ins().extractlane(x, lane);
                let r = self.libm(name, &[xl], ty);
                v = self.b.ins().insertlane(v, r, lane);
            }
            args.push(BlockArg::Value(v));
        }
        self.b.ins().jump(join, &args);
        self.b.switch_to_block(join);
        self.b.seal_block(join);
        self.b.block_params(join).to_vec()
    }

    /// `c ? x : y` where `c` is a bool of `mode` and `x`, `y` have type `ty`.
    pub(crate) fn pick(&mut self, c: Value, x: Value, y: Value, ty: Scalar, mode: Mode) -> Value {
        match mode {
            Mode::Scalar => self.b.ins().select(c, x, y),
            Mode::Vector(_) => {
                let t = cl_type(ty, mode);
                let m = if self.b.func.dfg.value_type(c) == t {
                    c
                } else {
                    self.b.ins().bitcast(t, little(), c)
                };
                self.b.ins().bitselect(m, x, y)
            }
        }
    }
}
