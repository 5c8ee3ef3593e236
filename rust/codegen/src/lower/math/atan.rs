//! `arctan2` and `arctan`: the smaller of `|y|`, `|x|` over the larger is a ratio in `[0, 1]`,
//! taken nearer zero by `atan(t) = pi/4 + atan((t - 1) / (t + 1))` past a threshold, where a
//! rational (f64) or odd polynomial (f32) approximation holds; the octant is then restored by
//! `pi/2 - r` (when `|y| > |x|`), `pi - r` (when `x` has its sign bit set) and `y`'s sign.
//! Written so that no lane raises a flag NumPy's loop would not: the divisions never see
//! `0/0` or `inf/inf`.

use super::{Group, Math};
use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::Value;

/// Cephes `atan.c`: `atan(t) = t + t z P(z) / Q(z)`, `z = t^2`, `|t| <= 0.66`; lowest degree
/// first, `Q` monic.
// The coefficients are Cephes', written as published.
#[allow(clippy::excessive_precision)]
const P_F64: [f64; 5] = [
    -6.485021904942025371773E1,
    -1.228866684490136173410E2,
    -7.500855792314704667340E1,
    -1.615753718733365076637E1,
    -8.750608600031904122785E-1,
];
#[allow(clippy::excessive_precision)]
const Q_F64: [f64; 6] = [
    1.945506571482613964425E2,
    4.853903996359136964868E2,
    4.328810604912902668951E2,
    1.650270098316988542046E2,
    2.485846490142306297962E1,
    1.0,
];

/// Cephes `atanf.c`: `atan(t) = t + t z S(z)`, `|t| <= tan(pi/8)`.
#[allow(clippy::excessive_precision)]
const S_F32: [f64; 4] = [
    -3.33329491539E-1,
    1.99777106478E-1,
    -1.38776856032E-1,
    8.05374449538E-2,
];

/// `pi/4`, `pi/2`, `pi` as a rounded part and the rest.
fn parts(f64ty: bool) -> [(f64, f64); 3] {
    if f64ty {
        [
            (std::f64::consts::FRAC_PI_4, 3.061616997868383e-17),
            (std::f64::consts::FRAC_PI_2, 6.123233995736766e-17),
            (std::f64::consts::PI, 1.2246467991473532e-16),
        ]
    } else {
        [
            (std::f32::consts::FRAC_PI_4 as f64, -2.185569414336e-8),
            (std::f32::consts::FRAC_PI_2 as f64, -4.371138828674e-8),
            (std::f32::consts::PI as f64, -8.742277657348e-8),
        ]
    }
}

impl Math<'_, '_> {
    /// `hi + (r + lo)` (or `hi - r + lo` when `minus`): a constant of more than the working
    /// precision plus `r`.
    fn offset(&mut self, (hi, lo): (f64, f64), r: &[Value], minus: bool) -> Group {
        let (hi, lo) = (self.c(hi), self.c(lo));
        if minus {
            let d = self.fsub(&hi, r);
            self.fadd(&d, &lo)
        } else {
            let s = self.fadd(r, &lo);
            self.fadd(&hi, &s)
        }
    }

    /// `arctan2(y, x)`, NumPy's `np.arctan2(y, x)`: max error 1 ulp (f64) / 3 ulp (f32) on
    /// the samples of `tests/math.rs`; signed zeros, infinities and NaN as C's `atan2`.
    pub fn atan2(&mut self, y: &[Value], x: &[Value]) -> Group {
        let f64ty = self.is_f64();
        let [pio4, pio2, pi] = parts(f64ty);
        let (ax, ay) = (self.fabs(x), self.fabs(y));
        let swap = self.fcmp(FloatCC::GreaterThan, &ay, &ax);
        let num = self.pick(&swap, &ax, &ay);
        let den = self.pick(&swap, &ay, &ax);
        // Both infinite: the ratio is 1 (the octant's diagonal); both zero: 0 (`0 / 1`).
        let inf = self.c(f64::INFINITY);
        let (zero, one) = (self.c(0.0), self.c(1.0));
        let both_inf = self.fcmp(FloatCC::Equal, &num, &inf);
        let num = self.pick(&both_inf, &one, &num);
        let den_zero = self.fcmp(FloatCC::Equal, &den, &zero);
        let den_one = self.bor(&both_inf, &den_zero);
        let den = self.pick(&den_one, &one, &den);
        // Past the threshold t' = (num - den) / (num + den), one division either way. Both
        // are scaled (exactly) first: down where their sum could overflow, up from denormals,
        // where `den * limit` would round too coarsely to place the threshold.
        let huge = self.c(2f64.powi(if f64ty { 1000 } else { 120 }));
        let tiny = self.c(2f64.powi(if f64ty { -960 } else { -100 }));
        let is_huge = self.fcmp(FloatCC::GreaterThan, &den, &huge);
        let is_tiny = self.fcmp(FloatCC::LessThan, &den, &tiny);
        let down = self.c(2f64.powi(-8));
        let up = self.c(2f64.powi(if f64ty { 600 } else { 60 }));
        let scale = self.pick(&is_huge, &down, &one);
        let scale = self.pick(&is_tiny, &up, &scale);
        let num = self.fmul(&num, &scale);
        let den = self.fmul(&den, &scale);
        let limit = self.c(if f64ty { 0.66 } else { 0.414_213_562_373_095 });
        let at_limit = self.fmul(&den, &limit);
        let big = self.fcmp(FloatCC::GreaterThan, &num, &at_limit);
        let diff = self.fsub(&num, &den);
        let sum = self.fadd(&num, &den);
        let top = self.pick(&big, &diff, &num);
        let bottom = self.pick(&big, &sum, &den);
        let t = self.fdiv(&top, &bottom);
        let z = self.fmul(&t, &t);
        let tz = self.fmul(&t, &z);
        let r = if f64ty {
            let p = self.poly(&z, &P_F64);
            let q = self.poly(&z, &Q_F64);
            let pq = self.fdiv(&p, &q);
            self.mul_add(&tz, &pq, &t)
        } else {
            let s = self.poly(&z, &S_F32);
            self.mul_add(&tz, &s, &t)
        };
        let shifted = self.offset(pio4, &r, false);
        let r = self.pick(&big, &shifted, &r);
        let flipped = self.offset(pio2, &r, true);
        let r = self.pick(&swap, &flipped, &r);
        // x's sign bit, -0 included: copysign(1, x) < 0.
        let sx = self.copysign(&one, x);
        let left = self.fcmp(FloatCC::LessThan, &sx, &zero);
        let mirrored = self.offset(pi, &r, true);
        let r = self.pick(&left, &mirrored, &r);
        let r = self.copysign(&r, y);
        let nan = self.fcmp(FloatCC::Unordered, x, y);
        let either = self.fadd(x, y);
        self.pick(&nan, &either, &r)
    }

    /// `arctan(x)` as `arctan2(x, 1)`.
    pub fn atan(&mut self, x: &[Value]) -> Group {
        let one = self.c(1.0);
        self.atan2(x, &one)
    }
}
