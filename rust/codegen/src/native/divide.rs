//! `i64` floor division and modulo in native code. NumPy's and Python's `//` and `%` floor
//! towards minus infinity, give 0 (with a flag) for a zero divisor and wrap `MIN // -1`
//! (`lower/binary.rs: int_divmod`): a signed division with a sign fix-up and two checks on
//! the divisor. Loops mostly divide non-negative numbers (a gcd, trial division, digits),
//! where flooring is truncation and none of those cases arise, so:
//!
//! - operands whose ranges prove `x >= 0` and `y >= 1` take one unsigned division (by a
//!   constant, Cranelift makes it a multiplication);
//! - a divisor not constant is tested at run time: both operands below 2^32 and `y != 0`
//!   run a 32-bit unsigned division (what a 64-bit one costs several times over), anything
//!   else the unsigned 64-bit division where the ranges allow it, else the complete
//!   lowering.
//!
//! `y >= 1` also bounds `x % y` to `[0, y - 1]`, which is recorded for the bounds checks
//! of `a[k % n]`.

use super::lower::Native;
use crate::kernel::Scalar;
use crate::lower::Mode;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, Value};
use ember_core::ir::BinaryOp;

/// Operands below this take the 32-bit division.
const NARROW: i64 = 1 << 32;

impl Native<'_, '_> {
    /// `x // y` (`want_div`) or `x % y` on `i64` registers.
    pub(crate) fn divmod_i64(&mut self, x: Value, y: Value, want_div: bool) -> Value {
        let (rx, ry) = (self.ranges.get(&x).copied(), self.ranges.get(&y).copied());
        let natural = rx.is_some_and(|r| r.0 >= 0) && ry.is_some_and(|r| r.0 >= 1);
        let narrow = natural
            && rx.is_some_and(|r| r.1 < i128::from(NARROW))
            && ry.is_some_and(|r| r.1 < i128::from(NARROW));
        let constant = ry.is_some_and(|r| r.0 == r.1);
        let v = match (narrow, natural, constant) {
            (true, _, _) => self.narrow_divmod(x, y, want_div),
            (false, true, true) => self.unsigned_divmod(x, y, want_div),
            (false, false, true) => {
                self.em
                    .binary(op_of(want_div), x, y, Scalar::I64, Mode::Scalar)
            }
            (false, _, false) => self.tested_divmod(x, y, want_div, natural),
        };
        if let (Some(rx), Some(ry)) = (rx, ry) {
            if let Some(range) = quotient_range(rx, ry, want_div) {
                self.ranges.insert(v, range);
            }
        }
        v
    }

    /// The 32-bit unsigned division of operands known to fit (and a divisor not 0).
    fn narrow_divmod(&mut self, x: Value, y: Value, want_div: bool) -> Value {
        let b = &mut self.em.b;
        let x32 = b.ins().ireduce(types::I32, x);
        let y32 = b.ins().ireduce(types::I32, y);
        let r = self.unsigned_divmod(x32, y32, want_div);
        self.em.b.ins().uextend(types::I64, r)
    }

    /// The unsigned division (a divisor not 0).
    fn unsigned_divmod(&mut self, x: Value, y: Value, want_div: bool) -> Value {
        let b = &mut self.em.b;
        if want_div {
            b.ins().udiv(x, y)
        } else {
            b.ins().urem(x, y)
        }
    }

    /// The 32-bit division where a run-time test finds the operands small and the divisor
    /// nonzero, else the unsigned 64-bit one (`natural`: operands known non-negative and
    /// divisor positive) or the complete lowering.
    fn tested_divmod(&mut self, x: Value, y: Value, want_div: bool, natural: bool) -> Value {
        let b = &mut self.em.b;
        let either = b.ins().bor(x, y);
        let small = b.ins().icmp_imm_u(IntCC::UnsignedLessThan, either, NARROW);
        let fast = if natural {
            small
        } else {
            let nonzero = b.ins().icmp_imm_s(IntCC::NotEqual, y, 0);
            b.ins().band(small, nonzero)
        };
        let (fast_block, slow_block, join) = (b.create_block(), b.create_block(), b.create_block());
        let out = b.append_block_param(join, types::I64);
        b.ins().brif(fast, fast_block, &[], slow_block, &[]);
        b.switch_to_block(fast_block);
        b.seal_block(fast_block);
        let quick = self.narrow_divmod(x, y, want_div);
        self.em.b.ins().jump(join, &[quick.into()]);
        self.em.b.switch_to_block(slow_block);
        self.em.b.seal_block(slow_block);
        let slow = if natural {
            self.unsigned_divmod(x, y, want_div)
        } else {
            self.em
                .binary(op_of(want_div), x, y, Scalar::I64, Mode::Scalar)
        };
        self.em.b.ins().jump(join, &[slow.into()]);
        self.em.b.switch_to_block(join);
        self.em.b.seal_block(join);
        out
    }
}

fn op_of(want_div: bool) -> BinaryOp {
    if want_div {
        BinaryOp::Floordiv
    } else {
        BinaryOp::Mod
    }
}

/// The values of `x // y` or `x % y` for `x` in `rx` and `y` in `ry`, where they follow
/// simply: a positive divisor bounds the remainder, and non-negative operands the quotient.
fn quotient_range(rx: (i128, i128), ry: (i128, i128), want_div: bool) -> Option<(i128, i128)> {
    if ry.0 < 1 {
        return None;
    }
    match want_div {
        false if rx.0 >= 0 => Some((0, (ry.1 - 1).min(rx.1))),
        false => Some((0, ry.1 - 1)),
        true if rx.0 >= 0 => Some((rx.0 / ry.1, rx.1 / ry.0)),
        true => None,
    }
}
