//! Integer `//` and `%` by a divisor known when the kernel is compiled (`(a * b) % m` with
//! `m` a literal or an int argument guarded by value). A 64-bit `idiv` costs tens of cycles,
//! where NumPy divides by a scalar with libdivide's multiplications; Cranelift has the same
//! rewrite, but its cost model keeps the `sdiv`. So an `i64` quotient is a high multiply by
//! a magic number, a shift and a sign correction (Hacker's Delight, 10-1), and the other
//! types divide by the literal; none needs the checks or flags of a divisor 0 or -1. Both
//! are floored as NumPy floors (`lower/binary.rs: int_divmod`).

use super::expr::cl_type;
use super::{Emitter, Mode};
use crate::kernel::Scalar;
use crate::kernel::ScalarExt;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, InstructionData, Opcode, Value, ValueDef};

impl Emitter<'_, '_> {
    /// The literal value of `v` where it is an `iconst`, sign-extended from its type's width
    /// (Cranelift keeps a narrow constant's bits zero-extended: `iconst.i8 -2` holds 254).
    pub(super) fn iconst_of(&self, v: Value) -> Option<i64> {
        let dfg = &self.b.func.dfg;
        let ValueDef::Result(inst, _) = dfg.value_def(v) else {
            return None;
        };
        match dfg.insts[inst] {
            InstructionData::UnaryImm {
                opcode: Opcode::Iconst,
                imm,
            } => {
                let unused = 64 - dfg.value_type(v).bits();
                Some((imm.bits() << unused) >> unused)
            }
            _ => None,
        }
    }

    /// `x // y` (`want_div`) or `x % y` for the literal divisor `y` of value `d`, neither 0
    /// nor (signed) -1.
    pub(super) fn const_divmod(
        &mut self,
        x: Value,
        y: Value,
        d: i64,
        ty: Scalar,
        want_div: bool,
    ) -> Value {
        if ty.is_unsigned() {
            let b = &mut self.b;
            return if want_div {
                b.ins().udiv(x, y)
            } else {
                b.ins().urem(x, y)
            };
        }
        let t = cl_type(ty, Mode::Scalar);
        let q = if t == types::I64 && d != i64::MIN && d.unsigned_abs() >= 2 {
            truncated_quotient(self, x, d)
        } else {
            self.b.ins().sdiv(x, y)
        };
        let b = &mut self.b;
        let zero = b.ins().iconst(t, 0);
        let qy = b.ins().imul(q, y);
        let r = b.ins().isub(x, qy);
        // Truncated to floored: a remainder (non-zero) of the sign opposite to the divisor's.
        let opposite = if d < 0 {
            IntCC::SignedGreaterThan
        } else {
            IntCC::SignedLessThan
        };
        let adj = b.ins().icmp(opposite, r, zero);
        if want_div {
            let one = b.ins().iconst(t, 1);
            let q1 = b.ins().isub(q, one);
            b.ins().select(adj, q1, q)
        } else {
            let r1 = b.ins().iadd(r, y);
            b.ins().select(adj, r1, r)
        }
    }
}

/// `x / d` truncated, for `i64` `x` and `2 <= |d| < 2^63`: the high half of `x * m`,
/// corrected by `x` where `m`'s sign is not `d`'s, shifted right by `s`, plus one where
/// negative.
fn truncated_quotient(em: &mut Emitter<'_, '_>, x: Value, d: i64) -> Value {
    let (m, s) = magic_s64(d);
    let b = &mut em.b;
    let mv = b.ins().iconst(types::I64, m);
    let mut q = b.ins().smulhi(x, mv);
    if d > 0 && m < 0 {
        q = b.ins().iadd(q, x);
    } else if d < 0 && m > 0 {
        q = b.ins().isub(q, x);
    }
    if s > 0 {
        q = b.ins().sshr_imm_s(q, i64::from(s));
    }
    let sign = b.ins().ushr_imm_s(q, 63);
    b.ins().iadd(q, sign)
}

/// The magic multiplier and shift of a signed 64-bit division by `d`, `2 <= |d| < 2^63`
/// (Hacker's Delight, figure 10-1, at 64 bits).
pub(crate) fn magic_s64(d: i64) -> (i64, u32) {
    let two63: u64 = 1 << 63;
    let ad = d.unsigned_abs();
    let t = two63 + ((d as u64) >> 63);
    let anc = t - 1 - t % ad;
    let mut p = 63u32;
    let (mut q1, mut r1) = (two63 / anc, two63 % anc);
    let (mut q2, mut r2) = (two63 / ad, two63 % ad);
    loop {
        p += 1;
        q1 = q1.wrapping_mul(2);
        r1 = r1.wrapping_mul(2);
        if r1 >= anc {
            q1 = q1.wrapping_add(1);
            r1 -= anc;
        }
        q2 = q2.wrapping_mul(2);
        r2 = r2.wrapping_mul(2);
        if r2 >= ad {
            q2 = q2.wrapping_add(1);
            r2 -= ad;
        }
        let delta = ad - r2;
        if !(q1 < delta || (q1 == delta && r1 == 0)) {
            break;
        }
    }
    let m = q2.wrapping_add(1) as i64;
    (if d < 0 { m.wrapping_neg() } else { m }, p - 64)
}

#[cfg(test)]
mod tests {
    use super::magic_s64;

    /// The quotient the generated code computes, by the same steps.
    fn quotient(x: i64, d: i64) -> i64 {
        let (m, s) = magic_s64(d);
        let mut q = ((i128::from(x) * i128::from(m)) >> 64) as i64;
        if d > 0 && m < 0 {
            q = q.wrapping_add(x);
        } else if d < 0 && m > 0 {
            q = q.wrapping_sub(x);
        }
        q >>= s;
        q + ((q as u64) >> 63) as i64
    }

    #[test]
    fn magic_quotients_truncate_as_division_does() {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as i64
        };
        let mut ds = vec![
            2,
            3,
            7,
            10,
            641,
            1_000_003,
            1 << 62,
            i64::MAX,
            -2,
            -7,
            -(1 << 62),
            -i64::MAX,
        ];
        ds.extend(
            (0..200)
                .map(|_| next())
                .filter(|d| d.unsigned_abs() >= 2 && *d != i64::MIN),
        );
        ds.extend(
            (0..200)
                .map(|_| next() % 100_000)
                .filter(|d| d.unsigned_abs() >= 2),
        );
        for &d in &ds {
            let mut xs = vec![i64::MIN, i64::MIN + 1, i64::MAX, 0, 1, -1, d, -d, d - 1];
            xs.extend((0..50).map(|_| next()));
            for x in xs {
                assert_eq!(quotient(x, d), x.wrapping_div(d), "{x} / {d}");
            }
        }
    }
}
