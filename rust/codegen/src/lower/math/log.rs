//! `log` and `log1p`: `x = 2^e m` with `m` in `[sqrt(1/2), sqrt(2))` and `f = m - 1`, then
//! `log(1 + f) = 2 atanh(s) = 2s + s z P(z)` for `s = f / (2 + f)`, `z = s^2`.
//!
//! The sum is arranged as `f - (f^2/2 - s (f^2/2 + z P(z)))`, so that the leading term `f`
//! (exact, since `m` is near 1) is added last and the rounding of the small corrections
//! hardly shows. Positive normal numbers take the short path; a group with any zero,
//! negative, denormal, infinite or NaN lane takes the full one.

use super::{Group, Math};
use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::Value;

/// `P(z)` on `[0, 0.0295]` (`tools/minimax.py log_f64`: relative error 5e-16, which enters
/// the result scaled by less than 0.01).
const LOG_F64: [f64; 7] = [
    0.666666666666667,
    0.39999999999897856,
    0.2857142862670261,
    0.22222211018639648,
    0.18182897438527051,
    0.15331449386587456,
    0.1461977143024057,
];

/// As [`LOG_F64`], coefficients exact in f32 (`log_f32`: relative error 3e-7).
const LOG_F32: [f64; 3] = [0.6666668653488159, 0.39988183975219727, 0.29606497287750244];

impl Math<'_, '_> {
    /// Natural logarithm: max error 1 ulp (f64 and f32); log(0) = -inf, log(x<0) = NaN,
    /// log(inf) = inf, denormals handled by prescaling.
    pub fn log(&mut self, x: &[Value]) -> Group {
        let tiny = self.c(if self.is_f64() {
            f64::MIN_POSITIVE
        } else {
            f32::MIN_POSITIVE as f64
        });
        let inf = self.c(f64::INFINITY);
        let low = self.fcmp(FloatCC::UnorderedOrLessThan, x, &tiny);
        let top = self.fcmp(FloatCC::Equal, x, &inf);
        let out = self.bor(&low, &top);
        self.unless_any(&out, |m| m.log_normal(x, None), |m| m.log_full_range(x))
    }

    /// `log(x) + adj` for positive, normal, finite `x` (`adj` an integral float).
    fn log_normal(&mut self, x: &[Value], adj: Option<&[Value]>) -> Group {
        let (mant, bias) = self.mant_bias();
        let sqrt_half = if self.is_f64() {
            std::f64::consts::FRAC_1_SQRT_2.to_bits() as i64
        } else {
            std::f32::consts::FRAC_1_SQRT_2.to_bits() as i64
        };
        // Adding bits(1) - bits(sqrt(1/2)) moves [sqrt(1/2), sqrt(2)) onto one binade: the
        // exponent field is then e + bias and the mantissa field that of m over sqrt(1/2).
        let d = self.ic((bias << mant) - sqrt_half);
        let xb = self.bits(x);
        let v = self.iadd(&xb, &d);
        let eb = self.ushr_imm(&v, mant);
        let mask = self.ic((1i64 << mant) - 1);
        let mm = self.band(&v, &mask);
        let sh = self.ic(sqrt_half);
        let mb = self.iadd(&mm, &sh);
        let m = self.float_of_bits(&mb);
        // Or-ing an integer below 2^mant into 2^mant's mantissa makes the float 2^mant + eb.
        let magic_bits = self.ic((bias + mant) << mant);
        let ef = self.bor(&eb, &magic_bits);
        let ef = self.float_of_bits(&ef);
        let magic = self.c(2f64.powi(mant as i32) + bias as f64);
        let mut e = self.fsub(&ef, &magic);
        if let Some(adj) = adj {
            e = self.fadd(&e, adj);
        }
        let one = self.c(1.0);
        let two = self.c(2.0);
        let f = self.fsub(&m, &one);
        let den = self.fadd(&f, &two);
        let s = self.fdiv(&f, &den);
        let z = self.fmul(&s, &s);
        let p = self.poly(&z, if self.is_f64() { &LOG_F64 } else { &LOG_F32 });
        let half = self.c(0.5);
        let hf = self.fmul(&f, &half);
        let hfsq = self.fmul(&hf, &f);
        let t = self.mul_add(&z, &p, &hfsq);
        let t = self.fmul(&s, &t);
        let (hi, lo) = self.ln2_parts();
        let lo = self.c(lo);
        let t = self.mul_add(&e, &lo, &t);
        let t = self.fsub(&hfsq, &t);
        let t = self.fsub(&f, &t);
        // e * hi is exact: hi has few bits.
        let hi = self.c(hi);
        self.mul_add(&e, &hi, &t)
    }

    /// `log` of anything: denormals scaled up first, then the special values.
    fn log_full_range(&mut self, x: &[Value]) -> Group {
        let (tiny, scale_exp) = if self.is_f64() {
            (f64::MIN_POSITIVE, 60.0)
        } else {
            (f32::MIN_POSITIVE as f64, 30.0)
        };
        let tiny_c = self.c(tiny);
        let is_tiny = self.fcmp(FloatCC::LessThan, x, &tiny_c);
        let scale = self.c(2f64.powf(scale_exp));
        let xs = self.fmul(x, &scale);
        let xn = self.pick(&is_tiny, &xs, x);
        let zero = self.c(0.0);
        let adj_on = self.c(-scale_exp);
        let adj = self.pick(&is_tiny, &adj_on, &zero);
        let r = self.log_normal(&xn, Some(&adj));
        // Special values, last wins: inf -> inf, 0 -> -inf, negative -> NaN (negative, as
        // NumPy's), NaN -> itself. The -inf and the negative lanes' NaN come from a division
        // by zero and `inf - inf` in just those lanes, raising the flags NumPy warns with.
        let inf = self.c(f64::INFINITY);
        let is_inf = self.fcmp(FloatCC::Equal, x, &inf);
        let r = self.pick(&is_inf, &inf, &r);
        let is_zero = self.fcmp(FloatCC::Equal, x, &zero);
        let one = self.c(1.0);
        let divisor = self.pick(&is_zero, &zero, &one);
        let minus_one = self.c(-1.0);
        let ninf = self.fdiv(&minus_one, &divisor);
        let r = self.pick(&is_zero, &ninf, &r);
        let bad = self.fcmp(FloatCC::UnorderedOrLessThan, x, &zero);
        let is_nan = self.fcmp(FloatCC::Unordered, x, x);
        let negative = self.band_not(&bad, &is_nan);
        let infs = self.pick(&negative, &inf, &zero);
        let nan = self.fsub(&infs, &infs);
        let r = self.pick(&negative, &nan, &r);
        self.pick(&is_nan, x, &r)
    }

    /// `log(1 + x)` without losing small `x`: max error 2 ulp. Uses `u = 1 + x` and the
    /// correction `(x - (u - 1)) / u`.
    pub fn log1p(&mut self, x: &[Value]) -> Group {
        // For inf the correction would be `inf - inf`.
        self.inf_stays_inf(x, |m, x| m.log1p_finite(x))
    }

    fn log1p_finite(&mut self, x: &[Value]) -> Group {
        let one = self.c(1.0);
        let u = self.fadd(x, &one);
        let lu = self.log(&u);
        let um1 = self.fsub(&u, &one);
        let err = self.fsub(x, &um1);
        let corr = self.fdiv(&err, &u);
        let r = self.fadd(&lu, &corr);
        // Where u rounds to 1, log1p(x) = x to within rounding; for inf the correction is NaN.
        let is_one = self.fcmp(FloatCC::Equal, &u, &one);
        let r = self.pick(&is_one, x, &r);
        // log1p(-1) = -inf: the correction would be 0/0 there.
        let zero = self.c(0.0);
        let at_m1 = self.fcmp(FloatCC::Equal, &u, &zero);
        self.pick(&at_m1, &lu, &r)
    }
}
