//! `sin` and `cos`: `x = k pi/2 + r` with `|r| <= pi/4`, the sine or cosine series of `r`
//! chosen per lane by the quadrant `k mod 4`.

use super::{Group, Math};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::Value;

/// Coefficients of `sin(r) / r` (`cos = false`) or `cos(r)` as series in `r^2`.
fn series(n: usize, cos: bool) -> Vec<f64> {
    (0..n)
        .map(|i| {
            let top = if cos { 2 * i } else { 2 * i + 1 };
            let d: f64 = (1..=top).map(|j| j as f64).product();
            if i % 2 == 0 {
                1.0 / d
            } else {
                -1.0 / d
            }
        })
        .collect()
}

impl Math<'_, '_> {
    /// `sin(x)` (`cos = false`) or `cos(x)` (`cos = true`): max error 2 ulp for
    /// |x| <= 1e4 (f64) / 1e3 (f32); inf and NaN give NaN. Beyond those magnitudes the Cody-Waite
    /// reduction loses accuracy gradually, so the caller hands such lanes to libm.
    // The split constants are fdlibm's, written as published.
    #[allow(clippy::excessive_precision)]
    pub fn sincos(&mut self, x: &[Value], cos: bool) -> Group {
        let f64ty = self.is_f64();
        let two_over_pi = self.c(std::f64::consts::FRAC_2_PI);
        let t = self.fmul(x, &two_over_pi);
        let k = self.nearest(&t);
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
        let mut r = x.to_vec();
        for &p in parts {
            let pc = self.c(-p);
            r = self.mul_add(&k, &pc, &r);
        }
        let z = self.fmul(&r, &r);
        let n = if f64ty { 9 } else { 6 };
        let ps = self.poly(&z, &series(n, false));
        let s = self.fmul(&ps, &r);
        let c = self.poly(&z, &series(n + 1, true));
        // Quadrant q = k mod 4 from k's low integer bits; cos(x) = sin(x + pi/2).
        let mut q = self.int_of(&k);
        if cos {
            let one = self.ic(1);
            q = self.iadd(&q, &one);
        }
        let one = self.ic(1);
        let two = self.ic(2);
        let zero = self.ic(0);
        let q1 = self.band(&q, &one);
        let swap = self.icmp(IntCC::NotEqual, &q1, &zero);
        let v = self.pick(&swap, &c, &s);
        let q2 = self.band(&q, &two);
        let q2 = self.ishl_imm(&q2, if f64ty { 62 } else { 30 });
        let vb = self.bits(&v);
        let vb = self.bxor(&vb, &q2);
        self.float_of_bits(&vb)
    }
}
