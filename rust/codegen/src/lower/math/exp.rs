//! `exp`, `expm1` and `tanh`: `x = k ln2 + r`, a polynomial in `r`, a scaling by `2^k`.
//!
//! The common case takes few instructions: `k + 1.5 * 2^mant` rounds `x / ln2` to an integer
//! in one multiply-add and leaves `k` in the low bits of the sum, and the scaling adds `k` to
//! the polynomial's exponent field as an integer. That is exact only while `e^x` is a normal
//! number, so a group with any lane outside that range (or NaN) branches to the full-range
//! form, which scales in two steps through the denormals and clamps to 0 and inf.

use super::{Group, Math};
use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::Value;

/// `e^r` on `[-ln2/2, ln2/2]`, minimax relative error with `c0 = c1 = 1`
/// (`tools/minimax.py exp_f64`: 0.08 half-ulp before evaluation).
const EXP_F64: [f64; 12] = [
    1.0,
    1.0,
    0.500000000000001,
    0.16666666666666674,
    0.041666666666522106,
    0.008333333333322215,
    0.0013888888947785523,
    0.00019841269886563802,
    2.4801487366025675e-05,
    2.755724236744966e-06,
    2.7632640675430235e-07,
    2.5110038296727242e-08,
];

/// As [`EXP_F64`], coefficients exact in f32 (`exp_f32`: 0.07 half-ulp).
const EXP_F32: [f64; 7] = [
    1.0,
    1.0,
    0.5,
    0.16666488349437714,
    0.04166555032134056,
    0.008372286334633827,
    0.0014036052161827683,
];

/// `(e^r - 1) / r` on `[-ln2/2, ln2/2]`, `c0 = 1` (`expm1_f64`: 0.11 half-ulp).
const EXPM1_F64: [f64; 12] = [
    1.0,
    0.5000000000000001,
    0.1666666666666667,
    0.0416666666666523,
    0.00833333333332616,
    0.001388888889559312,
    0.0001984126987474507,
    2.4801574543170735e-05,
    2.755725548728799e-06,
    2.756792509077144e-07,
    2.510518359661773e-08,
    1.7687713215926264e-09,
];

/// As [`EXPM1_F64`], coefficients exact in f32 (`expm1_f32`: 0.01 half-ulp).
const EXPM1_F32: [f64; 7] = [
    1.0,
    0.5,
    0.1666666716337204,
    0.04166645184159279,
    0.008333079516887665,
    0.0013936556642875075,
    0.00020075931388419122,
];

impl Math<'_, '_> {
    fn exp_coeffs(&self) -> &'static [f64] {
        if self.is_f64() {
            &EXP_F64
        } else {
            &EXP_F32
        }
    }

    fn expm1_coeffs(&self) -> &'static [f64] {
        if self.is_f64() {
            &EXPM1_F64
        } else {
            &EXPM1_F32
        }
    }

    /// `x = k ln2 + r`: returns `(t, k, r)` with `t = k + 1.5 * 2^mant`, whose bits hold `k`
    /// in their low part, `k` an integral float and `|r| <= ln2/2` (up to rounding of `k`).
    fn split_ln2(&mut self, x: &[Value]) -> (Group, Group, Group) {
        let (mant, _) = self.mant_bias();
        let magic = self.c(1.5 * 2f64.powi(mant as i32));
        let log2e = self.c(std::f64::consts::LOG2_E);
        let t = self.mul_add(x, &log2e, &magic);
        let k = self.fsub(&t, &magic);
        let (hi, lo) = self.ln2_parts();
        let hi = self.c(-hi);
        let lo = self.c(-lo);
        // k * hi is exact (hi has few bits), so the first step loses nothing, fused or not.
        let r = self.mul_add(&k, &hi, x);
        let r = self.mul_add(&k, &lo, &r);
        (t, k, r)
    }

    /// `k << mant` from `t` of [`Math::split_ln2`]: the magic constant's bits shift out.
    fn k_exponent(&mut self, t: &[Value]) -> Group {
        let (mant, _) = self.mant_bias();
        let tb = self.bits(t);
        self.ishl_imm(&tb, mant)
    }

    /// `x * 2^k` for `kexp = k << mant`, exact while the result is a normal number.
    fn add_exponent(&mut self, x: &[Value], kexp: &[Value]) -> Group {
        let xb = self.bits(x);
        let r = self.iadd(&xb, kexp);
        self.float_of_bits(&r)
    }

    /// `exp(x)`: max error 1 ulp (f64), 1 ulp (f32); overflow to inf, underflow through the
    /// denormals to 0, NaN propagates.
    pub fn exp(&mut self, x: &[Value]) -> Group {
        // Inside +-lim, |k| stays below the bias minus 3: 2^k p is normal for p in [0.7, 1.5).
        let lim = self.c(if self.is_f64() { 706.0 } else { 86.0 });
        let ax = self.fabs(x);
        let out = self.fcmp(FloatCC::UnorderedOrGreaterThan, &ax, &lim);
        self.unless_any(
            &out,
            |m| {
                let (t, _, r) = m.split_ln2(x);
                let p = m.poly(&r, m.exp_coeffs());
                let kexp = m.k_exponent(&t);
                m.add_exponent(&p, &kexp)
            },
            |m| m.inf_stays_inf(x, |m, x| m.exp_full_range(x)),
        )
    }

    /// `exp` for any argument: clamped to where it is inf or 0, scaled in two steps so that
    /// denormal results round once.
    fn exp_full_range(&mut self, x: &[Value]) -> Group {
        let (lo, hi) = if self.is_f64() {
            (-746.0, 710.0)
        } else {
            (-104.0, 89.0)
        };
        let lo = self.c(lo);
        let hi = self.c(hi);
        // Below `lo` the result is +0. Scaling down to it would take the processor's slow
        // path for tiny results in every such lane (a masked softmax's `exp(-1e9)` ran 3x
        // slower than NumPy), so those lanes compute `exp(0)`, give 0, and raise the
        // underflow flag with one product per vector instead; `exp(-inf)` is exactly +0
        // and raises nothing (IEEE 754, NumPy), so a softmax masked with `-inf` takes no
        // slow path at all.
        let zero = self.c(0.0);
        let minus_inf = self.c(f64::NEG_INFINITY);
        let gone = self.fcmp(FloatCC::LessThan, x, &lo);
        let finite = self.fcmp(FloatCC::GreaterThan, x, &minus_inf);
        let underflows = self.band(&gone, &finite);
        let x = self.pick(&gone, &zero, x);
        let x = self.clamp(&x, &lo, &hi);
        let (t, _, r) = self.split_ln2(&x);
        let p = self.poly(&r, self.exp_coeffs());
        let i = self.int_of_magic(&t);
        let scaled = self.scale(&p, &i);
        let result = self.pick(&gone, &zero, &scaled);
        self.raise_underflow_where(&result, &underflows)
    }

    /// `(e^r - 1, 2^k)` for `x = k ln2 + r`, `x` small enough that `2^k` is a normal number.
    /// Then `e^x - 1 = 2^k (e^r - 1) + (2^k - 1)` has no cancellation near 0.
    fn expm1_parts(&mut self, x: &[Value]) -> (Group, Group, Group) {
        let (t, _, r) = self.split_ln2(x);
        // e^r - 1 = r (1 + r/2 + r^2/6 + ...): no constant term, so no cancellation.
        let q = self.poly(&r, self.expm1_coeffs());
        let em1 = self.fmul(&q, &r);
        let kexp = self.k_exponent(&t);
        let one = self.c(1.0);
        let s = self.add_exponent(&one, &kexp);
        (em1, s, t)
    }

    /// `2^k (e^r - 1) - (1 - 2^k)`: subtracting the exact `1 - 2^k` rather than adding
    /// `2^k - 1` keeps `expm1(-0) = -0` (at `k = 0` the sum would be `-0 + 0 = +0`).
    fn expm1_join(&mut self, em1: &[Value], s: &[Value]) -> Group {
        let one = self.c(1.0);
        let oms = self.fsub(&one, s);
        let neg = self.fneg(&oms);
        self.mul_add(s, em1, &neg)
    }

    /// `exp(x) - 1` without cancellation near 0: max error 2 ulp (f64 and f32).
    pub fn expm1(&mut self, x: &[Value]) -> Group {
        let lim = self.c(if self.is_f64() { 40.0 } else { 20.0 });
        let ax = self.fabs(x);
        let out = self.fcmp(FloatCC::UnorderedOrGreaterThan, &ax, &lim);
        self.unless_any(
            &out,
            |m| {
                let (em1, s, _) = m.expm1_parts(x);
                m.expm1_join(&em1, &s)
            },
            |m| m.inf_stays_inf(x, |m, x| m.expm1_full_range(x)),
        )
    }

    fn expm1_full_range(&mut self, x: &[Value]) -> Group {
        // Below `lo` the answer rounds to -1; above `hi` the -1 is lost in rounding, and
        // exp(x) (scaled in two steps, as `exp` does) is the answer.
        let (lo, hi, top) = if self.is_f64() {
            (-40.0, 700.0, 710.0)
        } else {
            (-20.0, 80.0, 89.0)
        };
        let lo_c = self.c(lo);
        let hi_c = self.c(hi);
        let top = self.c(top);
        let xc = self.clamp(x, &lo_c, &top);
        let (em1, s, t) = self.expm1_parts(&xc);
        let small = self.expm1_join(&em1, &s);
        let one = self.c(1.0);
        let er = self.fadd(&em1, &one);
        let i = self.int_of_magic(&t);
        let big = self.scale(&er, &i);
        let is_big = self.fcmp(FloatCC::LessThan, &hi_c, x);
        let r = self.pick(&is_big, &big, &small);
        let m1 = self.c(-1.0);
        let is_low = self.fcmp(FloatCC::LessThan, x, &lo_c);
        self.pick(&is_low, &m1, &r)
    }

    /// `tanh(x) = expm1(2|x|) / (expm1(2|x|) + 2)` with the sign of `x`: max error 3 ulp.
    pub fn tanh(&mut self, x: &[Value]) -> Group {
        let ax = self.fabs(x);
        // From here on tanh rounds to 1: e / (e + 2) is exactly 1 once e + 2 rounds to e.
        let cap = self.c(if self.is_f64() { 22.0 } else { 10.0 });
        let axc = self.at_most(&ax, &cap);
        let t = self.fadd(&axc, &axc);
        let (em1, s, _) = self.expm1_parts(&t);
        let e = self.expm1_join(&em1, &s);
        let two = self.c(2.0);
        let d = self.fadd(&e, &two);
        // NaN flows through every step above and keeps its NaN-ness under copysign.
        let q = self.fdiv(&e, &d);
        self.copysign(&q, x)
    }
}
