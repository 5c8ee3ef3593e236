//! Transcendental functions as Cranelift IR, for scalars and 128-bit vectors alike.
//!
//! Cranelift has no instructions for them and a libcall per lane would stop vectorisation, so
//! each function is a range reduction plus a polynomial written with ordinary instructions
//! (`fma`, `nearest`, integer bit tricks) that work on `f32`, `f64`, `f32x4` and `f64x2`
//! unchanged. Error bounds are measured by the tests in `tests/math.rs` against the platform
//! libm over wide ranges (including infinities, NaN, denormals and negative inputs).
//!
//! Every function works on a *group*: one value per unrolled copy of a loop body, or a single
//! value (a constant) shared by the whole group. A function can then share work across the
//! copies, such as one range check and one branch to its full-range form for all of them.
//! (The order of the emitted instructions does not matter: Cranelift's e-graph pass
//! re-places pure instructions next to their first use.)

mod atan;
mod exp;
mod log;
mod trig;

use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{types, Endianness, InstBuilder, MemFlagsData, Type, Value};
use cranelift_frontend::FunctionBuilder;

/// One value per copy, or a single value shared by every copy.
pub(crate) type Group = Vec<Value>;

/// Emits math on values of one float type (scalar or vector).
pub(crate) struct Math<'a, 'b> {
    /// The function being built.
    pub b: &'a mut FunctionBuilder<'b>,
    /// `f32`, `f64`, `f32x4` or `f64x2`.
    pub ty: Type,
    /// Whether the ISA has fused multiply-add (without it `fma` would be a libcall per lane).
    pub fma: bool,
}

fn little() -> MemFlagsData {
    MemFlagsData::new().with_endianness(Endianness::Little)
}

/// `f(builder, x, y, ...)` copy by copy; a group of length 1 stands for every copy.
macro_rules! zip_groups {
    ($b:expr, [$($v:ident),+], $f:expr) => {{
        let n = [$($v.len()),+].into_iter().max().unwrap();
        let f = $f;
        (0..n)
            .map(|i| {
                $(let $v = $v[i.min($v.len() - 1)];)+
                f(&mut *$b, $($v),+)
            })
            .collect::<Group>()
    }};
}

macro_rules! binary_ops {
    ($($name:ident),*) => {$(
        pub fn $name(&mut self, x: &[Value], y: &[Value]) -> Group {
            zip_groups!(self.b, [x, y], |b: &mut FunctionBuilder, x, y| b.ins().$name(x, y))
        }
    )*};
}

impl Math<'_, '_> {
    binary_ops!(fadd, fsub, fmul, fdiv, iadd, isub, band, bor, bxor, band_not);

    fn is_f64(&self) -> bool {
        self.ty.lane_type() == types::F64
    }

    /// Mantissa bits and exponent bias of the lane type.
    fn mant_bias(&self) -> (i64, i64) {
        if self.is_f64() {
            (52, 1023)
        } else {
            (23, 127)
        }
    }

    /// The integer type with the same lane layout.
    fn ity(&self) -> Type {
        let lane = if self.is_f64() {
            types::I64
        } else {
            types::I32
        };
        if self.ty.is_vector() {
            lane.by(self.ty.lane_count()).unwrap()
        } else {
            lane
        }
    }

    /// A float constant of the working type (splatted for vectors), as a shared group.
    pub fn c(&mut self, v: f64) -> Group {
        let s = if self.is_f64() {
            self.b.ins().f64const(v)
        } else {
            self.b.ins().f32const(v as f32)
        };
        vec![if self.ty.is_vector() {
            self.b.ins().splat(self.ty, s)
        } else {
            s
        }]
    }

    /// An integer constant of the matching integer type, as a shared group.
    fn ic(&mut self, v: i64) -> Group {
        let lane = self.ity().lane_type();
        let v = if lane == types::I32 {
            v as i32 as i64
        } else {
            v
        };
        let s = self.b.ins().iconst(lane, v);
        vec![if self.ty.is_vector() {
            let ity = self.ity();
            self.b.ins().splat(ity, s)
        } else {
            s
        }]
    }

    fn bits(&mut self, x: &[Value]) -> Group {
        let ity = self.ity();
        zip_groups!(self.b, [x], |b: &mut FunctionBuilder, x| b.ins().bitcast(
            ity,
            little(),
            x
        ))
    }

    fn float_of_bits(&mut self, x: &[Value]) -> Group {
        let ty = self.ty;
        zip_groups!(self.b, [x], |b: &mut FunctionBuilder, x| b.ins().bitcast(
            ty,
            little(),
            x
        ))
    }

    fn ishl_imm(&mut self, x: &[Value], k: i64) -> Group {
        zip_groups!(self.b, [x], |b: &mut FunctionBuilder, x| b
            .ins()
            .ishl_imm_s(x, k))
    }

    fn ushr_imm(&mut self, x: &[Value], k: i64) -> Group {
        zip_groups!(self.b, [x], |b: &mut FunctionBuilder, x| b
            .ins()
            .ushr_imm_s(x, k))
    }

    fn sshr_imm(&mut self, x: &[Value], k: i64) -> Group {
        zip_groups!(self.b, [x], |b: &mut FunctionBuilder, x| b
            .ins()
            .sshr_imm_s(x, k))
    }

    fn fcmp(&mut self, cc: FloatCC, x: &[Value], y: &[Value]) -> Group {
        zip_groups!(self.b, [x, y], |b: &mut FunctionBuilder, x, y| b
            .ins()
            .fcmp(cc, x, y))
    }

    /// `cond ? x : y` for a comparison result of the working type's lane layout.
    fn pick(&mut self, cond: &[Value], x: &[Value], y: &[Value]) -> Group {
        let (vector, ty) = (self.ty.is_vector(), self.ty);
        zip_groups!(
            self.b,
            [cond, x, y],
            |b: &mut FunctionBuilder, cond, x, y| if vector {
                let m = b.ins().bitcast(ty, little(), cond);
                b.ins().bitselect(m, x, y)
            } else {
                b.ins().select(cond, x, y)
            }
        )
    }

    /// `x < y ? y : x`: `x` limited from below, NaN kept (quiet: `quiet.rs` keeps this from
    /// becoming a `maxps`/`maxsd`, which flags a NaN).
    fn at_least(&mut self, x: &[Value], lo: &[Value]) -> Group {
        let c = self.fcmp(FloatCC::LessThan, x, lo);
        self.pick(&c, lo, x)
    }

    /// `y < x ? y : x`: `x` limited from above, NaN kept.
    fn at_most(&mut self, x: &[Value], hi: &[Value]) -> Group {
        let c = self.fcmp(FloatCC::LessThan, hi, x);
        self.pick(&c, hi, x)
    }

    /// `f(x)` where `x` is not +inf, +inf where it is: for functions NumPy takes from +inf
    /// to +inf quietly, whose arithmetic would meet `inf - inf` or overflow a scale there.
    fn inf_stays_inf(
        &mut self,
        x: &[Value],
        f: impl FnOnce(&mut Self, &[Value]) -> Group,
    ) -> Group {
        let inf = self.c(f64::INFINITY);
        let is_inf = self.fcmp(FloatCC::Equal, x, &inf);
        let zero = self.c(0.0);
        let finite = self.pick(&is_inf, &zero, x);
        let r = f(self, &finite);
        self.pick(&is_inf, &inf, &r)
    }

    /// `x` limited to `[lo, hi]`; NaN stays NaN.
    fn clamp(&mut self, x: &[Value], lo: &[Value], hi: &[Value]) -> Group {
        let x = self.at_least(x, lo);
        self.at_most(&x, hi)
    }

    /// `a * b + c`, fused where the ISA allows.
    fn mul_add(&mut self, a: &[Value], b: &[Value], c: &[Value]) -> Group {
        if self.fma {
            zip_groups!(self.b, [a, b, c], |bl: &mut FunctionBuilder, a, b, c| bl
                .ins()
                .fma(a, b, c))
        } else {
            let t = self.fmul(a, b);
            self.fadd(&t, c)
        }
    }

    /// `c[0] + c[1] x + c[2] x^2 + ...` by Horner's rule. Its chain of dependent
    /// multiply-adds is long, but the unrolled copies run side by side and hide it; Estrin's
    /// shorter chain measured no faster, as it needs register copies (x86's multiply-add
    /// overwrites an operand) and a few more instructions.
    fn poly(&mut self, x: &[Value], c: &[f64]) -> Group {
        let mut acc = self.c(c[c.len() - 1]);
        for &k in c[..c.len() - 1].iter().rev() {
            let k = self.c(k);
            acc = self.mul_add(&acc, x, &k);
        }
        acc
    }

    /// `-x` (folded into a multiply-add that consumes it).
    fn fneg(&mut self, x: &[Value]) -> Group {
        zip_groups!(self.b, [x], |b: &mut FunctionBuilder, x| b.ins().fneg(x))
    }

    /// `|x|`: one `and` with a constant mask (Cranelift rebuilds the mask at every vector
    /// `fabs`).
    fn fabs(&mut self, x: &[Value]) -> Group {
        let mask = self.ic(if self.is_f64() {
            i64::MAX
        } else {
            i32::MAX as i64
        });
        let xb = self.bits(x);
        let r = self.band(&xb, &mask);
        self.float_of_bits(&r)
    }

    /// `r`, having raised the underflow flag in the lanes where `0 < |x| < below`: NumPy's own
    /// loops raise it for a subnormal `x` in the ops that return it (nearly) unchanged
    /// (`expm1`, `log1p`) and in float32 `exp`, and in float32 `cos` wherever a power of
    /// `x` in its polynomial underflows. The flag is only read after the
    /// kernel (`fpstatus.rs`), where a set flag reruns the graph with NumPy under the
    /// caller's errstate, so a flag raised here never changes a result; a missing one would
    /// hide NumPy's `FloatingPointError`.
    pub fn raise_underflow_if_tiny(&mut self, r: &[Value], x: &[Value], below: f64) -> Group {
        let ax = self.fabs(x);
        let limit = self.c(below);
        let zero = self.c(0.0);
        let below = self.fcmp(FloatCC::LessThan, &ax, &limit);
        let nonzero = self.fcmp(FloatCC::GreaterThan, &ax, &zero);
        let tiny = self.band(&below, &nonzero);
        let t = self.pick(&tiny, &ax, &zero);
        // Below every subnormal: the product rounds to +0, inexact exactly where `t` is not 0
        // (`t` is below 2^-61 in float32, 2^-1022 in float64).
        let scale = self.c(2f64.powi(-100));
        let u = self.fmul(&t, &scale);
        let rb = self.bits(r);
        let ub = self.bits(&u);
        let rb = self.bor(&rb, &ub);
        self.float_of_bits(&rb)
    }

    /// `r`, having raised the underflow flag where `cond` holds in any lane of the group: one
    /// product that rounds to +0 (inexact) then, OR-ed into the first value's bits. Each
    /// tiny product costs the processor's slow path, so the group makes one, not one a lane.
    pub fn raise_underflow_where(&mut self, r: &[Value], cond: &[Value]) -> Group {
        let mut any = cond[0];
        for &c in &cond[1..] {
            any = self.b.ins().bor(any, c);
        }
        let zero = self.c(0.0);
        let tiny = self.c(2f64.powi(if self.is_f64() { -600 } else { -80 }));
        let t = self.pick(&[any], &tiny[..1], &zero[..1]);
        let u = self.fmul(&t, &tiny[..1]);
        let mut out = r.to_vec();
        let rb = self.bits(&out[..1]);
        let ub = self.bits(&u);
        let rb = self.bor(&rb, &ub);
        out[0] = self.float_of_bits(&rb)[0];
        out
    }

    /// The sign bit of `sign` on the magnitude of `mag`.
    pub fn copysign(&mut self, mag: &[Value], sign: &[Value]) -> Group {
        let signbit = if self.is_f64() {
            i64::MIN
        } else {
            i32::MIN as i64
        };
        let m = self.bits(mag);
        let s = self.bits(sign);
        let sb = self.ic(signbit);
        let s = self.band(&s, &sb);
        let m = self.band_not(&m, &sb);
        let r = self.bor(&m, &s);
        self.float_of_bits(&r)
    }

    /// `2^i` for integers `i` (from [`Math::int_of_magic`]) inside the exponent range of normal
    /// numbers.
    fn pow2i(&mut self, i: &[Value]) -> Group {
        let (mant, bias) = self.mant_bias();
        let bias = self.ic(bias);
        let t = self.iadd(i, &bias);
        let t = self.ishl_imm(&t, mant);
        self.float_of_bits(&t)
    }

    /// `x * 2^i` for integers `i` in `[-2 * bias - mant, 2 * bias]` and `x` within a factor
    /// of 2 of 1: two half-size scalings keep each factor a normal number, so results in the
    /// denormal range round once, at the last multiply.
    fn scale(&mut self, x: &[Value], i: &[Value]) -> Group {
        let i1 = self.sshr_imm(i, 1);
        let i2 = self.isub(i, &i1);
        let s1 = self.pow2i(&i1);
        let s2 = self.pow2i(&i2);
        let x = self.fmul(x, &s1);
        self.fmul(&x, &s2)
    }

    /// `ln2` as a part with few bits (so that `k * hi` is exact for the `k` of any finite
    /// result) and the rest (fdlibm's split for f64).
    // The split constants are fdlibm's, written as published.
    #[allow(clippy::excessive_precision)]
    fn ln2_parts(&self) -> (f64, f64) {
        if self.is_f64() {
            (6.93147180369123816490e-01, 1.90821492927058770002e-10)
        } else {
            (0.693145751953125, 1.428606765330187045e-06)
        }
    }

    /// The integer `k` (two's complement lanes) from `t = k + 1.5 * 2^mant`.
    fn int_of_magic(&mut self, t: &[Value]) -> Group {
        let (mant, _) = self.mant_bias();
        let magic = self.c(1.5 * 2f64.powi(mant as i32));
        let tb = self.bits(t);
        let mb = self.bits(&magic);
        self.isub(&tb, &mb)
    }

    /// What `fast` computes, unless a lane of any copy has its `out` mask set: then the whole
    /// group is what `slow` computes. Each runs in a block of its own, and the common case
    /// jumps over the other.
    fn unless_any(
        &mut self,
        out: &[Value],
        fast: impl FnOnce(&mut Self) -> Group,
        slow: impl FnOnce(&mut Self) -> Group,
    ) -> Group {
        use cranelift_codegen::ir::BlockArg;
        let mut any = out[0];
        for &o in &out[1..] {
            any = self.b.ins().bor(any, o);
        }
        if self.ty.is_vector() {
            any = self.b.ins().vany_true(any);
        }
        let slow_block = self.b.create_block();
        let fast_block = self.b.create_block();
        let join = self.b.create_block();
        self.b.ins().brif(any, slow_block, &[], fast_block, &[]);
        let mut n = 0;
        for (block, f) in [
            (
                fast_block,
                Box::new(fast) as Box<dyn FnOnce(&mut Self) -> Group>,
            ),
            (slow_block, Box::new(slow)),
        ] {
            self.b.switch_to_block(block);
            self.b.seal_block(block);
            let vals = f(self);
            if n == 0 {
                n = vals.len().max(out.len());
                for _ in 0..n {
                    self.b.append_block_param(join, self.ty);
                }
            }
            let args: Vec<BlockArg> = (0..n)
                .map(|i| BlockArg::Value(vals[i.min(vals.len() - 1)]))
                .collect();
            self.b.ins().jump(join, &args);
        }
        self.b.switch_to_block(join);
        self.b.seal_block(join);
        self.b.block_params(join).to_vec()
    }
}
