//! `x ** 3` on an `f64` in native code without calling `pow` where the answer is certain.
//! Python's `**` and NumPy's scalar `power` call libm's `pow`, which glibc documents as
//! within 0.52 ULP: it is the correctly rounded cube except where the exact cube lies
//! within 0.02 ULP of a midpoint between two doubles (and there it does not always round
//! correctly; `x * x * x`, rounded twice, differs from it on a quarter of all inputs). So
//! the cube is computed exactly enough to round it correctly (`x²` split into two doubles
//! with an `fma`, `x³` to about 2^-104 relative), and `pow` is called only where the result
//! lies within 1/32 ULP of a midpoint, for a power of two, or outside `[2^-300, 2^300]`
//! (overflow, underflow, subnormals, zeros, infinities, NaN): a few percent of random
//! inputs, each with `pow`'s own result.

use super::lower::Native;
use crate::kernel::Scalar;
use crate::lower::little;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, InstBuilder, Value};

/// Magnitudes whose cube neither overflows nor leaves the normal range, and whose products'
/// rounding errors are normal numbers too.
const LOW: f64 = f64::from_bits((1023 - 300) << 52);
const HIGH: f64 = f64::from_bits((1023 + 300) << 52);
/// An `f64`'s exponent bits.
const EXPONENT: i64 = 0x7ff0_0000_0000_0000;
/// An `f64`'s mantissa bits.
const MANTISSA: i64 = 0x000f_ffff_ffff_ffff;

impl Native<'_, '_> {
    /// `x ** 3` bit for bit as libm's `pow(x, 3.0)`.
    pub(crate) fn cube_f64(&mut self, x: Value) -> Value {
        let b = &mut self.em.b;
        let ax = b.ins().fabs(x);
        let low = b.ins().f64const(LOW);
        let high = b.ins().f64const(HIGH);
        let above = b.ins().fcmp(FloatCC::GreaterThanOrEqual, ax, low);
        let below = b.ins().fcmp(FloatCC::LessThanOrEqual, ax, high);
        let inside = b.ins().band(above, below);
        // x² = p + e exactly; x³ = p·x + e·x, rounded once by an `fma`.
        let p = b.ins().fmul(x, x);
        let np = b.ins().fneg(p);
        let e = b.ins().fma(x, x, np);
        let c = b.ins().fmul(e, x);
        let r = b.ins().fma(p, x, c);
        // What rounding left out, x³ - r, off the result's own chain of latencies.
        let nr = b.ins().fneg(r);
        let rest = b.ins().fma(p, x, nr);
        let d = b.ins().fadd(rest, c);
        // Half an ULP of r: its power of two scaled by 2^-53.
        let bits = b.ins().bitcast(types::I64, little(), r);
        let power_bits = b.ins().band_imm_s(bits, EXPONENT);
        let power = b.ins().bitcast(types::F64, little(), power_bits);
        let scale = b.ins().f64const(f64::EPSILON / 2.0);
        let half = b.ins().fmul(power, scale);
        let ad = b.ins().fabs(d);
        let off = b.ins().fsub(ad, half);
        let off = b.ins().fabs(off);
        let sixteenth = b.ins().f64const(1.0 / 16.0);
        let margin = b.ins().fmul(half, sixteenth);
        let clear = b.ins().fcmp(FloatCC::GreaterThan, off, margin);
        let fraction = b.ins().band_imm_s(bits, MANTISSA);
        let not_power = b.ins().icmp_imm_s(IntCC::NotEqual, fraction, 0);
        let sure = b.ins().band(inside, clear);
        let sure = b.ins().band(sure, not_power);
        let (slow, join) = (b.create_block(), b.create_block());
        let out = b.append_block_param(join, types::F64);
        b.set_cold_block(slow);
        b.ins().brif(sure, join, &[r.into()], slow, &[]);
        b.switch_to_block(slow);
        b.seal_block(slow);
        let three = self.em.b.ins().f64const(3.0);
        let v = self.em.libm("pow", &[x, three], Scalar::F64);
        self.em.b.ins().jump(join, &[v.into()]);
        self.em.b.switch_to_block(join);
        self.em.b.seal_block(join);
        out
    }
}
