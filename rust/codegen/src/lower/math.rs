//! Transcendental functions as Cranelift IR, for scalars and 128-bit vectors alike.
//!
//! Cranelift has no instructions for them and a libcall per lane would stop vectorisation, so
//! each function is a range reduction plus a polynomial written with ordinary instructions
//! (`fmul`, `fadd`, `nearest`, integer bit tricks) that work on `f32`, `f64`, `f32x4` and
//! `f64x2` unchanged. Error bounds are measured by the tests in `tests/math.rs` against the
//! platform libm over wide ranges (including infinities, NaN, denormals and negative inputs).

use cranelift_codegen::ir::{condcodes::FloatCC, condcodes::IntCC, Endianness};
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Type, Value};
use cranelift_frontend::FunctionBuilder;

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

// The split constants are fdlibm's, written as published.
#[allow(clippy::excessive_precision)]
impl Math<'_, '_> {
    fn is_f64(&self) -> bool {
        self.ty.lane_type() == types::F64
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

    /// A float constant of the working type (splatted for vectors).
    pub fn c(&mut self, v: f64) -> Value {
        let s = if self.is_f64() {
            self.b.ins().f64const(v)
        } else {
            self.b.ins().f32const(v as f32)
        };
        if self.ty.is_vector() {
            self.b.ins().splat(self.ty, s)
        } else {
            s
        }
    }

    /// An integer constant of the matching integer type.
    fn ic(&mut self, v: i64) -> Value {
        let lane = self.ity().lane_type();
        let s = self.b.ins().iconst(
            lane,
            if lane == types::I32 {
                v as i32 as i64
            } else {
                v
            },
        );
        if self.ty.is_vector() {
            let ity = self.ity();
            self.b.ins().splat(ity, s)
        } else {
            s
        }
    }

    fn bits(&mut self, x: Value) -> Value {
        let ity = self.ity();
        self.b.ins().bitcast(ity, little(), x)
    }

    fn float_of_bits(&mut self, x: Value) -> Value {
        self.b.ins().bitcast(self.ty, little(), x)
    }

    /// `cond ? x : y` for a comparison result of the working type's lane layout.
    fn pick(&mut self, cond: Value, x: Value, y: Value) -> Value {
        if self.ty.is_vector() {
            let m = self.b.ins().bitcast(self.ty, little(), cond);
            self.b.ins().bitselect(m, x, y)
        } else {
            self.b.ins().select(cond, x, y)
        }
    }

    fn fcmp(&mut self, cc: FloatCC, x: Value, y: Value) -> Value {
        self.b.ins().fcmp(cc, x, y)
    }

    /// `x` limited to `[lo, hi]`; NaN stays NaN (compare-and-select is a few instructions,
    /// where `fmin`/`fmax` with their NaN and signed-zero rules take many on x86).
    fn clamp(&mut self, x: Value, lo: Value, hi: Value) -> Value {
        let below = self.fcmp(FloatCC::LessThan, x, lo);
        let x = self.pick(below, lo, x);
        let above = self.fcmp(FloatCC::GreaterThan, x, hi);
        self.pick(above, hi, x)
    }

    /// Horner evaluation of `c[0] + c[1] x + c[2] x^2 + ...`.
    fn poly(&mut self, x: Value, c: &[f64]) -> Value {
        let mut acc = self.c(c[c.len() - 1]);
        for &k in c[..c.len() - 1].iter().rev() {
            let k = self.c(k);
            acc = if self.fma {
                self.b.ins().fma(acc, x, k)
            } else {
                let t = self.b.ins().fmul(acc, x);
                self.b.ins().fadd(t, k)
            };
        }
        acc
    }

    /// The sign bit of `sign` on the magnitude of `mag`.
    pub fn copysign(&mut self, mag: Value, sign: Value) -> Value {
        let signbit = if self.is_f64() {
            i64::MIN
        } else {
            i32::MIN as i64
        };
        let m = self.bits(mag);
        let s = self.bits(sign);
        let sb = self.ic(signbit);
        let s = self.b.ins().band(s, sb);
        let m = self.b.ins().band_not(m, sb);
        let r = self.b.ins().bor(m, s);
        self.float_of_bits(r)
    }

    /// `2^k` for an integral float `k` inside the exponent range of normal numbers.
    fn pow2(&mut self, k: Value) -> Value {
        // Adding 1.5 * 2^mant places k's integer value in the low bits of the sum.
        let (magic, mant, bias) = if self.is_f64() {
            (6755399441055744.0, 52, 1023)
        } else {
            (12582912.0, 23, 127)
        };
        let mc = self.c(magic);
        let t = self.b.ins().fadd(k, mc);
        let t = self.bits(t);
        let mbits = self.bits(mc);
        let t = self.b.ins().isub(t, mbits);
        let bias = self.ic(bias);
        let t = self.b.ins().iadd(t, bias);
        let t = self.b.ins().ishl_imm_s(t, mant);
        self.float_of_bits(t)
    }

    /// Splits `x = k ln2 + r` with `|r| <= ln2/2`; returns `(k, r)`.
    fn reduce_ln2(&mut self, x: Value) -> (Value, Value) {
        let log2e = self.c(std::f64::consts::LOG2_E);
        let t = self.b.ins().fmul(x, log2e);
        let k = self.b.ins().nearest(t);
        let (hi, lo) = if self.is_f64() {
            (6.93147180369123816490e-01, 1.90821492927058770002e-10)
        } else {
            (0.693145751953125, 1.428606765330187045e-06)
        };
        let hi = self.c(hi);
        let lo = self.c(lo);
        let khi = self.b.ins().fmul(k, hi);
        let r = self.b.ins().fsub(x, khi);
        let klo = self.b.ins().fmul(k, lo);
        let r = self.b.ins().fsub(r, klo);
        (k, r)
    }

    fn taylor(&self, n: usize, skip: usize) -> Vec<f64> {
        let mut c = Vec::with_capacity(n);
        let mut f = 1.0f64;
        for i in 0..n + skip {
            if i > 0 {
                f *= i as f64;
            }
            if i >= skip {
                c.push(1.0 / f);
            }
        }
        c
    }

    /// `exp(x)`: max error 1 ulp (f64), 1 ulp (f32); overflow to inf, underflow through the
    /// denormals to 0, NaN propagates.
    pub fn exp(&mut self, x: Value) -> Value {
        let (lo, hi, deg) = if self.is_f64() {
            (-746.0, 710.0, 14)
        } else {
            (-104.0, 89.0, 8)
        };
        let lo = self.c(lo);
        let hi = self.c(hi);
        let x = self.clamp(x, lo, hi);
        let (k, r) = self.reduce_ln2(x);
        let c = self.taylor(deg, 0);
        let p = self.poly(r, &c);
        // Two half-size scalings keep 2^k representable for denormal and near-overflow results.
        let half = self.c(0.5);
        let k1 = self.b.ins().fmul(k, half);
        let k1 = self.b.ins().floor(k1);
        let k2 = self.b.ins().fsub(k, k1);
        let s1 = self.pow2(k1);
        let s2 = self.pow2(k2);
        let p = self.b.ins().fmul(p, s1);
        self.b.ins().fmul(p, s2)
    }

    /// `exp(x) - 1` without cancellation near 0: max error 2 ulp (f64 and f32).
    pub fn expm1(&mut self, x: Value) -> Value {
        let (lo, hi, deg) = if self.is_f64() {
            (-40.0, 700.0, 14)
        } else {
            (-20.0, 80.0, 9)
        };
        let lo_c = self.c(lo);
        let hi_c = self.c(hi);
        let xc = self.clamp(x, lo_c, hi_c);
        let (k, r) = self.reduce_ln2(xc);
        // e^r - 1 = r (1 + r/2 + r^2/6 + ...): no constant term, so no cancellation.
        let c = self.taylor(deg, 1);
        let q = self.poly(r, &c);
        let em1 = self.b.ins().fmul(q, r);
        let s = self.pow2(k);
        let one = self.c(1.0);
        let sm1 = self.b.ins().fsub(s, one);
        let t = self.b.ins().fmul(s, em1);
        let small = self.b.ins().fadd(t, sm1);
        // Beyond the clamp the -1 is lost in rounding: exp(x) (or -1) is the answer.
        let big = self.exp(x);
        let is_big = self.fcmp(FloatCC::GreaterThan, x, hi_c);
        let r1 = self.pick(is_big, big, small);
        let m1 = self.c(-1.0);
        let is_low = self.fcmp(FloatCC::LessThan, x, lo_c);
        self.pick(is_low, m1, r1)
    }

    /// `tanh(x) = expm1(2|x|) / (expm1(2|x|) + 2)` with the sign of `x`: max error 3 ulp.
    pub fn tanh(&mut self, x: Value) -> Value {
        let ax = self.b.ins().fabs(x);
        let cap = self.c(if self.is_f64() { 22.0 } else { 10.0 });
        let big0 = self.fcmp(FloatCC::GreaterThan, ax, cap);
        let axc = self.pick(big0, cap, ax);
        let t = self.b.ins().fadd(axc, axc);
        let e = self.expm1(t);
        let two = self.c(2.0);
        let d = self.b.ins().fadd(e, two);
        let q = self.b.ins().fdiv(e, d);
        let one = self.c(1.0);
        let big = self.fcmp(FloatCC::GreaterThanOrEqual, ax, cap);
        let q = self.pick(big, one, q);
        // NaN fails every ordered comparison above; keep it.
        let nan = self.fcmp(FloatCC::Unordered, x, x);
        let q = self.pick(nan, x, q);
        self.copysign(q, x)
    }

    /// Natural logarithm: max error 1 ulp (f64 and f32); log(0) = -inf, log(x<0) = NaN,
    /// log(inf) = inf, denormals handled by prescaling.
    pub fn log(&mut self, x: Value) -> Value {
        let f64ty = self.is_f64();
        let (mant, bias, tiny, scale_exp) = if f64ty {
            (52, 1023, f64::MIN_POSITIVE, 60.0)
        } else {
            (23, 127, f32::MIN_POSITIVE as f64, 30.0)
        };
        let tiny_c = self.c(tiny);
        let is_tiny = self.fcmp(FloatCC::LessThan, x, tiny_c);
        let scale = self.c(2f64.powf(scale_exp));
        let xs = self.b.ins().fmul(x, scale);
        let xn = self.pick(is_tiny, xs, x);
        let zero = self.c(0.0);
        let adj_on = self.c(-scale_exp);
        let adj = self.pick(is_tiny, adj_on, zero);

        let bits = self.bits(xn);
        let e_int = self.b.ins().ushr_imm_s(bits, mant);
        let mant_mask = self.ic((1i64 << mant) - 1);
        let m_bits = self.b.ins().band(bits, mant_mask);
        let one_bits = self.ic((bias as i64) << mant);
        let m_bits = self.b.ins().bor(m_bits, one_bits);
        let m = self.float_of_bits(m_bits);
        // Biased exponent to float: or-ing an integer into 2^mant's mantissa makes 2^mant + e.
        let magic_bits = self.ic(((bias as i64) + mant) << mant);
        let eb = self.b.ins().bor(e_int, magic_bits);
        let ef = self.float_of_bits(eb);
        let magic = self.c(2f64.powi(mant as i32) + bias as f64);
        let e = self.b.ins().fsub(ef, magic);
        let e = self.b.ins().fadd(e, adj);
        // Centre the mantissa on 1: m in [sqrt(1/2), sqrt(2)).
        let sqrt2 = self.c(std::f64::consts::SQRT_2);
        let big_m = self.fcmp(FloatCC::GreaterThan, m, sqrt2);
        let half = self.c(0.5);
        let one = self.c(1.0);
        let mh = self.b.ins().fmul(m, half);
        let m = self.pick(big_m, mh, m);
        let e1 = self.b.ins().fadd(e, one);
        let e = self.pick(big_m, e1, e);
        // log(m) = 2 atanh(s), s = (m-1)/(m+1), |s| <= 0.1716.
        let f = self.b.ins().fsub(m, one);
        let d = self.b.ins().fadd(m, one);
        let s = self.b.ins().fdiv(f, d);
        let z = self.b.ins().fmul(s, s);
        let terms = if f64ty { 12 } else { 6 };
        let c: Vec<f64> = (0..terms).map(|i| 2.0 / (2 * i + 1) as f64).collect();
        let p = self.poly(z, &c);
        let lm = self.b.ins().fmul(p, s);
        let (hi, lo) = if f64ty {
            (6.93147180369123816490e-01, 1.90821492927058770002e-10)
        } else {
            (0.693145751953125, 1.428606765330187045e-06)
        };
        let hi = self.c(hi);
        let lo = self.c(lo);
        let elo = self.b.ins().fmul(e, lo);
        let lm = self.b.ins().fadd(lm, elo);
        let ehi = self.b.ins().fmul(e, hi);
        let r = self.b.ins().fadd(ehi, lm);
        // Special values, last wins: inf -> inf, 0 -> -inf, negative or NaN -> NaN.
        let inf = self.c(f64::INFINITY);
        let is_inf = self.fcmp(FloatCC::Equal, x, inf);
        let r = self.pick(is_inf, inf, r);
        let ninf = self.c(f64::NEG_INFINITY);
        let is_zero = self.fcmp(FloatCC::Equal, x, zero);
        let r = self.pick(is_zero, ninf, r);
        let nan = self.c(f64::NAN);
        let bad = self.fcmp(FloatCC::UnorderedOrLessThan, x, zero);
        self.pick(bad, nan, r)
    }

    /// `log(1 + x)` without losing small `x`: max error 2 ulp. Uses `u = 1 + x` and the
    /// correction `(x - (u - 1)) / u`.
    pub fn log1p(&mut self, x: Value) -> Value {
        let one = self.c(1.0);
        let u = self.b.ins().fadd(x, one);
        let lu = self.log(u);
        let um1 = self.b.ins().fsub(u, one);
        let err = self.b.ins().fsub(x, um1);
        let corr = self.b.ins().fdiv(err, u);
        let r = self.b.ins().fadd(lu, corr);
        // Where u rounds to 1, log1p(x) = x to within rounding; for inf the correction is NaN.
        let is_one = self.fcmp(FloatCC::Equal, u, one);
        let r = self.pick(is_one, x, r);
        // log1p(-1) = -inf: the correction would be 0/0 there.
        let zero = self.c(0.0);
        let at_m1 = self.fcmp(FloatCC::Equal, u, zero);
        let r = self.pick(at_m1, lu, r);
        let inf = self.c(f64::INFINITY);
        let is_inf = self.fcmp(FloatCC::Equal, x, inf);
        self.pick(is_inf, inf, r)
    }

    /// `sin(x)` (`cos = false`) or `cos(x)` (`cos = true`): max error 2 ulp for
    /// |x| <= 1e4 (f64) / 1e3 (f32); inf and NaN give NaN. Beyond those magnitudes the Cody-Waite
    /// reduction loses accuracy gradually, so the caller hands such lanes to libm.
    pub fn sincos(&mut self, x: Value, cos: bool) -> Value {
        let f64ty = self.is_f64();
        let two_over_pi = self.c(std::f64::consts::FRAC_2_PI);
        let t = self.b.ins().fmul(x, two_over_pi);
        let k = self.b.ins().nearest(t);
        // pi/2 in pieces of few enough bits that k * piece is exact (fdlibm's pio2_1..3t).
        let parts: &[f64] = if f64ty {
            &[
                1.57079632673412561417e+00,
                6.07710050630396597660e-11,
                2.02226624871116645580e-21,
                8.47842766036889956997e-32,
            ]
        } else {
            &[1.5703125, 4.837512969970703125e-4, 7.54978995489188216e-8]
        };
        let mut r = x;
        for &p in parts {
            let pc = self.c(p);
            let kp = self.b.ins().fmul(k, pc);
            r = self.b.ins().fsub(r, kp);
        }
        let z = self.b.ins().fmul(r, r);
        let n = if f64ty { 9 } else { 6 };
        let sin_c: Vec<f64> = (0..n)
            .map(|i| {
                let d: f64 = (1..=2 * i + 1).map(|j| j as f64).product();
                if i % 2 == 0 {
                    1.0 / d
                } else {
                    -1.0 / d
                }
            })
            .collect();
        let cos_c: Vec<f64> = (0..n + 1)
            .map(|i| {
                let d: f64 = (1..=2 * i).map(|j| j as f64).product();
                if i % 2 == 0 {
                    1.0 / d
                } else {
                    -1.0 / d
                }
            })
            .collect();
        let ps = self.poly(z, &sin_c);
        let s = self.b.ins().fmul(ps, r);
        let c = self.poly(z, &cos_c);
        // Quadrant q = k mod 4 from k's low integer bits; cos(x) = sin(x + pi/2).
        let magic = self.c(if f64ty {
            6755399441055744.0
        } else {
            12582912.0
        });
        let kb = self.b.ins().fadd(k, magic);
        let mut q = self.bits(kb);
        if cos {
            let one = self.ic(1);
            q = self.b.ins().iadd(q, one);
        }
        let one = self.ic(1);
        let two = self.ic(2);
        let zero = self.ic(0);
        let q1 = self.b.ins().band(q, one);
        let swap = self.b.ins().icmp(IntCC::NotEqual, q1, zero);
        let v = self.pick(swap, c, s);
        let q2 = self.b.ins().band(q, two);
        let q2 = self.b.ins().ishl_imm_s(q2, if f64ty { 62 } else { 30 });
        let vb = self.bits(v);
        let vb = self.b.ins().bxor(vb, q2);
        self.float_of_bits(vb)
    }
}
