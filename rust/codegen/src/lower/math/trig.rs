//! `sin` and `cos`: `x = n pi/2 + r` with `n` even for `sin` and odd for `cos`, so that both
//! are `+-sin(r)` with `|r| <= pi/2`: one odd polynomial, its sign flipped by the parity of
//! `n / 2` (an integer xor, no per-lane choice between two series).

use super::{Group, Math};
use cranelift_codegen::ir::Value;

/// `Q(z)` with `sin(r) = r + r z Q(z)`, `z = r^2 <= (pi/2)^2` (`tools/minimax.py sin_f64`:
/// 0.27 half-ulp in sin once `Q`'s error is scaled by `z Q / (1 + z Q)`).
const SIN_F64: [f64; 8] = [
    -0.16666666666666666,
    0.008333333333333314,
    -0.0001984126984125427,
    2.755731921898823e-06,
    -2.5052107596264525e-08,
    1.6058976051830266e-10,
    -7.643932293207709e-13,
    2.730994805783041e-15,
];

/// As [`SIN_F64`], coefficients exact in f32 (`sin_f32`).
const SIN_F32: [f64; 5] = [
    -0.1666666716337204,
    0.00833339523524046,
    -0.00019853442790918052,
    2.8323331662249984e-06,
    -3.97946848806896e-08,
];

impl Math<'_, '_> {
    /// `sin(x)` (`cos = false`) or `cos(x)` (`cos = true`): max error 2 ulp for
    /// |x| <= 1e4 (f64) / 1e3 (f32); inf and NaN give NaN. Beyond those magnitudes the Cody-Waite
    /// reduction loses accuracy gradually, so the caller hands such lanes to libm.
    // The split constants are fdlibm's, written as published.
    #[allow(clippy::excessive_precision)]
    pub fn sincos(&mut self, x: &[Value], cos: bool) -> Group {
        let f64ty = self.is_f64();
        let (mant, _) = self.mant_bias();
        let magic = self.c(1.5 * 2f64.powi(mant as i32));
        let inv_pi = self.c(std::f64::consts::FRAC_1_PI);
        // k = nearest(x/pi) for sin, nearest(x/pi - 1/2) for cos; t = k + magic holds k's
        // integer value in its low bits.
        let t = if cos {
            let mhalf = self.c(-0.5);
            let u = self.mul_add(x, &inv_pi, &mhalf);
            self.fadd(&u, &magic)
        } else {
            self.mul_add(x, &inv_pi, &magic)
        };
        let k = self.fsub(&t, &magic);
        let n = if cos {
            let two = self.c(2.0);
            let one = self.c(1.0);
            self.mul_add(&k, &two, &one)
        } else {
            self.fadd(&k, &k)
        };
        // pi/2 in pieces of few enough bits that n * piece is exact (fdlibm's pio2_1..3t).
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
        let mut r = x.to_vec();
        for &p in parts {
            let pc = self.c(-p);
            r = self.mul_add(&n, &pc, &r);
        }
        let z = self.fmul(&r, &r);
        let q = self.poly(&z, if f64ty { &SIN_F64 } else { &SIN_F32 });
        // r + (r z) Q: near |r| = pi/2 (where cos(0) lands) rounding r z costs less than
        // rounding z Q, which r would then scale up.
        let rz = self.fmul(&r, &z);
        let mut s = self.mul_add(&rz, &q, &r);
        if !cos {
            // sin(r) has r's sign on [-pi/2, pi/2]; or-ing it in makes sin(-0) = -0 (the sum
            // above is -0 + +0 there). cos's r is never zero.
            let signbit = self.ic(if f64ty { i64::MIN } else { i32::MIN as i64 });
            let rb = self.bits(&r);
            let rs = self.band(&rb, &signbit);
            let sb = self.bits(&s);
            let sb = self.bor(&sb, &rs);
            s = self.float_of_bits(&sb);
        }
        // sin(x) = (-1)^k sin(r); cos(x) = (-1)^(k+1) sin(r). k's parity is t's lowest bit.
        let mut tb = self.bits(&t);
        if cos {
            let one = self.ic(1);
            tb = self.iadd(&tb, &one);
        }
        let sign = self.ishl_imm(&tb, if f64ty { 63 } else { 31 });
        let sb = self.bits(&s);
        let sb = self.bxor(&sb, &sign);
        let v = self.float_of_bits(&sb);
        if !cos {
            return v;
        }
        // cos(+-0) lands on r = -pi/2, the end of the polynomial's interval, where its error
        // peaks (f32 gave 1 - ulp): the exact 1 is one compare and select.
        let zero = self.c(0.0);
        let one = self.c(1.0);
        let at_zero = self.fcmp(cranelift_codegen::ir::condcodes::FloatCC::Equal, x, &zero);
        self.pick(&at_zero, &one, &v)
    }
}
