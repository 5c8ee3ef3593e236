//! Lowering of `astype`: C casts between the kernel's element types, lane by lane or as
//! vectors, with NumPy's x86-64 values for float to narrow int.

use super::expr::cl_type;
use super::{Emitter, Mode};
use crate::kernel::ScalarExt;
use crate::kernel::{Const, Scalar};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, ConstantData, InstBuilder, Value};

impl Emitter<'_, '_> {
    /// `x.astype(to)` from type `from`, C casting (float to int saturates, NaN gives 0).
    pub(crate) fn cast(&mut self, x: Value, from: Scalar, to: Scalar, mode: Mode) -> Value {
        let tt = cl_type(to, mode);
        if from == to {
            return x;
        }
        match (from, to, mode) {
            (_, Scalar::Bool, _) => {
                if from.is_float() {
                    let z = self.constant(Const::Float(0.0), from, mode);
                    self.b.ins().fcmp(FloatCC::NotEqual, x, z)
                } else {
                    let z = self.constant(Const::Int(0), from, mode);
                    self.b.ins().icmp(IntCC::NotEqual, x, z)
                }
            }
            (Scalar::Bool, _, Mode::Vector(_)) => {
                // Mask & bits(1): 1 where set, 0 elsewhere.
                let one = self.constant(Const::Int(1), to, mode);
                let it = cl_type(from, mode);
                let one_bits = self.b.ins().bitcast(it, super::little(), one);
                let r = self.b.ins().band(x, one_bits);
                self.b.ins().bitcast(tt, super::little(), r)
            }
            (Scalar::Bool, _, Mode::Scalar) => {
                if to.is_float() {
                    let w = self.b.ins().uextend(types::I32, x);
                    self.b.ins().fcvt_from_sint(tt, w)
                } else if tt == types::I8 {
                    x // already 0 or 1 in a byte
                } else {
                    self.b.ins().uextend(tt, x)
                }
            }
            (f, t, Mode::Scalar) if f.is_int() && t.is_float() => {
                if f == Scalar::U64 {
                    self.b.ins().fcvt_from_uint(tt, x)
                } else if f.size() < 8 {
                    // Every narrower integer is exact in i64.
                    let wide = if f.is_unsigned() {
                        self.b.ins().uextend(types::I64, x)
                    } else {
                        self.b.ins().sextend(types::I64, x)
                    };
                    self.b.ins().fcvt_from_sint(tt, wide)
                } else {
                    self.b.ins().fcvt_from_sint(tt, x)
                }
            }
            (f, t, Mode::Vector(8)) if super::expr::crossing_cast(f, t) && f.size() == 4 => {
                self.widen_low(x, f, t)
            }
            (Scalar::F64, Scalar::F32, Mode::Vector(8)) => self.b.ins().fvdemote(x),
            (Scalar::I64, Scalar::F64, Mode::Vector(8)) => self.i64_to_f64_lanes(x),
            (Scalar::F64, Scalar::I64, Mode::Vector(8)) => self.f64_to_i64_lanes(x),
            (Scalar::I64, Scalar::I32, Mode::Vector(8)) => self.low_halves(x, x),
            (f, t, _) if f.is_int() && t.is_float() => self.b.ins().fcvt_from_sint(tt, x),
            (f, t, Mode::Scalar)
                if f.is_float() && t.is_int() && !matches!(t, Scalar::I32 | Scalar::I64) =>
            {
                self.float_to_narrow_int(x, f, t)
            }
            (f, t, Mode::Scalar) if f.is_int() && t.is_int() => {
                let ft = cl_type(f, mode);
                if t.size() > f.size() {
                    if f.is_unsigned() {
                        self.b.ins().uextend(tt, x)
                    } else {
                        self.b.ins().sextend(tt, x)
                    }
                } else if t.size() < f.size() {
                    self.b.ins().ireduce(tt, x)
                } else {
                    debug_assert_eq!(ft, tt);
                    x
                }
            }
            (f, Scalar::I32, _) if f.is_float() => self.truncate_to_i32(x, f, mode),
            (f, t, _) if f.is_float() && t.is_int() => {
                // x86's cvttsd2si, which NumPy's casts compile to: NaN and out-of-range values
                // give the integer minimum.
                let r = self.b.ins().fcvt_to_sint_sat(tt, x);
                let limit = if t == Scalar::I32 {
                    2f64.powi(31)
                } else {
                    2f64.powi(63)
                };
                let tr = self.b.ins().trunc(x);
                let lo = self.constant(Const::Float(-limit), f, mode);
                let hi = self.constant(Const::Float(limit), f, mode);
                let above_lo = self.b.ins().fcmp(FloatCC::GreaterThanOrEqual, tr, lo);
                let below_hi = self.b.ins().fcmp(FloatCC::LessThan, tr, hi);
                let ok = self.b.ins().band(above_lo, below_hi);
                let min = if t == Scalar::I32 {
                    i32::MIN as i64
                } else {
                    i64::MIN
                };
                let min = self.constant(Const::Int(min), t, mode);
                self.pick(ok, r, min, t, mode)
            }
            (Scalar::F32, Scalar::F64, Mode::Scalar) => self.b.ins().fpromote(tt, x),
            (Scalar::F64, Scalar::F32, Mode::Scalar) => self.b.ins().fdemote(tt, x),
            _ => panic!("cast {from} -> {to} has no {mode:?} lowering"),
        }
    }

    /// `I64X2` lanes to `F64X2`, rounded once as `cvtsi2sd` rounds: the high 32 bits
    /// (signed, through `cvtdq2pd`) times 2^32 and the low 32 bits (unsigned, as the
    /// mantissa of `2^52 + low`) are both exact, so only their sum rounds.
    fn i64_to_f64_lanes(&mut self, x: Value) -> Value {
        const HIGHS: [u8; 16] = [4, 5, 6, 7, 12, 13, 14, 15, 4, 5, 6, 7, 12, 13, 14, 15];
        let (i64s, f64s) = (Mode::Vector(8), Scalar::F64);
        let words = self.b.ins().bitcast(types::I32X4, super::little(), x);
        let high = self.shuffle_i32(words, words, HIGHS);
        let high = self.widen_low(high, Scalar::I32, f64s);
        let scale = self.constant(Const::Float(2f64.powi(32)), f64s, i64s);
        let high = self.b.ins().fmul(high, scale);
        let mask = self.constant(Const::Int(0xFFFF_FFFF), Scalar::I64, i64s);
        let low = self.b.ins().band(x, mask);
        let bias = self.constant(Const::Int(0x4330_0000_0000_0000), Scalar::I64, i64s);
        let low = self.b.ins().bor(low, bias);
        let low = self.b.ins().bitcast(types::F64X2, super::little(), low);
        let two52 = self.constant(Const::Float(2f64.powi(52)), f64s, i64s);
        let low = self.b.ins().fsub(low, two52);
        self.b.ins().fadd(high, low)
    }

    /// `F64X2` lanes to `I64X2` as `cvttsd2si` converts them: truncated lanes below 2^51 in
    /// magnitude read from the mantissa of `1.5 * 2^52 + t`; a group holding any other lane
    /// (NaN, infinite, large) converts lane by lane, raising NumPy's invalid flag.
    fn f64_to_i64_lanes(&mut self, x: Value) -> Value {
        use cranelift_codegen::ir::BlockArg;
        let mode = Mode::Vector(8);
        let t = self.b.ins().trunc(x);
        let magnitude = self.b.ins().fabs(t);
        let limit = self.constant(Const::Float(2f64.powi(51)), Scalar::F64, mode);
        let small = self.b.ins().fcmp(FloatCC::LessThan, magnitude, limit);
        let magic = self.constant(Const::Float(1.5 * 2f64.powi(52)), Scalar::F64, mode);
        let biased = self.b.ins().fadd(t, magic);
        let biased = self.b.ins().bitcast(types::I64X2, super::little(), biased);
        let magic = self.b.ins().bitcast(types::I64X2, super::little(), magic);
        let fast = self.b.ins().isub(biased, magic);
        let all_small = self.b.ins().vall_true(small);
        let slow = self.b.create_block();
        let join = self.b.create_block();
        self.b.append_block_param(join, types::I64X2);
        self.b
            .ins()
            .brif(all_small, join, &[BlockArg::Value(fast)], slow, &[]);
        self.b.switch_to_block(slow);
        self.b.seal_block(slow);
        let mut v = fast;
        for lane in 0..2u8 {
            let xl = self.b.ins().extractlane(x, lane);
            let r = self.cast(xl, Scalar::F64, Scalar::I64, Mode::Scalar);
            v = self.b.ins().insertlane(v, r, lane);
        }
        self.b.ins().jump(join, &[BlockArg::Value(v)]);
        self.b.switch_to_block(join);
        self.b.seal_block(join);
        self.b.block_params(join)[0]
    }

    /// The two elements in the low lanes of the half vector `x` of type `from`, converted to
    /// the 8-byte type `to`.
    pub(super) fn widen_low(&mut self, x: Value, from: Scalar, to: Scalar) -> Value {
        match (from, to) {
            (Scalar::I32, Scalar::F64) => {
                // The form Cranelift lowers to one `cvtdq2pd`.
                let wide = self.b.ins().swiden_low(x);
                self.b.ins().fcvt_from_sint(types::F64X2, wide)
            }
            (Scalar::F32, Scalar::F64) => self.b.ins().fvpromote_low(x),
            (Scalar::I32, Scalar::I64) => self.b.ins().swiden_low(x),
            _ => panic!("cast {from} -> {to} has no half-vector form"),
        }
    }

    /// A float to `i32` with x86's truncating conversion (`cvttps2dq`, `cvttpd2dq`), as
    /// NumPy's casts do: NaN and values out of range give `i32::MIN` and raise the invalid
    /// flag (NumPy's "invalid value encountered in cast"). A scalar converts in lane 0.
    pub(super) fn truncate_to_i32(&mut self, x: Value, from: Scalar, mode: Mode) -> Value {
        let v = match mode {
            Mode::Vector(_) => x,
            Mode::Scalar => {
                let vt = if from == Scalar::F32 {
                    types::F32X4
                } else {
                    types::F64X2
                };
                self.b.ins().scalar_to_vector(vt, x)
            }
        };
        let r = if from == Scalar::F32 {
            self.b.ins().x86_cvtt2dq(types::I32X4, v)
        } else {
            // The form Cranelift lowers to `cvttpd2dq`: two lanes converted, two zeros.
            let wide = self.b.ins().x86_cvtt2dq(types::I64X2, v);
            let zeros = self
                .b
                .func
                .dfg
                .constants
                .insert(ConstantData::from([0u8; 16].as_ref()));
            let zeros = self.b.ins().vconst(types::I64X2, zeros);
            self.b.ins().snarrow(wide, zeros)
        };
        match mode {
            Mode::Vector(_) => r,
            Mode::Scalar => self.b.ins().extractlane(r, 0),
        }
    }

    /// A float to an integer type other than `i32`/`i64`, as NumPy converts on x86-64: to
    /// `i8`, `i16`, `u8`, `u16` through `i32` (then wrapped), to `u32` through `i64`, to
    /// `u64` through `i64` below 2**63, offset by 2**63 up to 2**64, 0 beyond.
    fn float_to_narrow_int(&mut self, x: Value, from: Scalar, to: Scalar) -> Value {
        let mode = Mode::Scalar;
        let tt = cl_type(to, mode);
        match to {
            Scalar::U64 => {
                let low = self.cast(x, from, Scalar::I64, mode);
                let two63 = self.constant(Const::Float(2f64.powi(63)), from, mode);
                let two64 = self.constant(Const::Float(2f64.powi(64)), from, mode);
                let shifted = self.b.ins().fsub(x, two63);
                let high = self.cast(shifted, from, Scalar::I64, mode);
                let high = self.b.ins().bxor_imm_s(high, i64::MIN);
                let is_high = self.b.ins().fcmp(FloatCC::GreaterThanOrEqual, x, two63);
                let beyond = self.b.ins().fcmp(FloatCC::GreaterThanOrEqual, x, two64);
                let zero = self.b.ins().iconst(types::I64, 0);
                let r = self.b.ins().select(is_high, high, low);
                self.b.ins().select(beyond, zero, r)
            }
            Scalar::U32 => {
                let wide = self.cast(x, from, Scalar::I64, mode);
                self.b.ins().ireduce(tt, wide)
            }
            _ => {
                let wide = self.cast(x, from, Scalar::I32, mode);
                self.b.ins().ireduce(tt, wide)
            }
        }
    }
}
