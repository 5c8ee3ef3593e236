//! Rules of the running scans along one axis: `cumsum` and `cumprod`.

use crate::error::Result;
use crate::ir::{BinaryOp, Op, ScanKind, ValueId};

use super::super::emit::Emitter;

/// `kind` running along `axis` of `x`.
fn scan(e: &mut Emitter, kind: ScanKind, axis: usize, x: ValueId) -> Result<ValueId> {
    e.op(Op::Scan { kind, axis }, vec![x])
}

/// `g` summed from the end of `axis`: `out[i] = sum(g[i:])`.
fn reverse_cumsum(e: &mut Emitter, g: ValueId, axis: usize) -> Result<ValueId> {
    let flip = Op::Flip { axes: vec![axis] };
    let reversed = e.op(flip.clone(), vec![g])?;
    let summed = scan(e, ScanKind::Cumsum, axis, reversed)?;
    e.op(flip, vec![summed])
}

/// d(cumsum x)[j] / dx[i] = [i <= j]: the cotangent summed from the end.
pub fn cumsum(e: &mut Emitter, g: ValueId, axis: usize) -> Result<ValueId> {
    reverse_cumsum(e, g, axis)
}

/// d(cumprod x)[j] / dx[i] is the product of `x[..=j]` but `x[i]` (for `i <= j`). Before the
/// line's first zero that is `y[j] / x[i]`, so the gradient is the reversed sum of `g y` over
/// `x[i]`; at the first zero it is the reversed sum of `g y'`, `y'` the scan with that zero
/// taken as 1; after it every product holds the zero, and the gradient is 0.
pub fn cumprod(
    e: &mut Emitter,
    x: ValueId,
    y: ValueId,
    g: ValueId,
    axis: usize,
) -> Result<ValueId> {
    let dtype = e.ty(x).dtype;
    let (zero, one) = (e.float(0.0)?, e.float(1.0)?);
    let is_zero = e.binary(BinaryOp::Eq, x, zero)?;
    let zeros = e.cast(is_zero, dtype)?;
    let zeros_so_far = scan(e, ScanKind::Cumsum, axis, zeros)?;
    let before = e.binary(BinaryOp::Eq, zeros_so_far, zero)?;
    let first_so_far = e.binary(BinaryOp::Eq, zeros_so_far, one)?;
    let first = e.binary(BinaryOp::LogicalAnd, first_so_far, is_zero)?;
    let safe = e.op(Op::Where, vec![is_zero, one, x])?;
    let gy = e.mul(g, y)?;
    let after_i = reverse_cumsum(e, gy, axis)?;
    let before_zero = e.div(after_i, safe)?;
    let skipped = e.op(Op::Where, vec![first, one, x])?;
    let y_skipped = scan(e, ScanKind::Cumprod, axis, skipped)?;
    let gy_skipped = e.mul(g, y_skipped)?;
    let at_zero = reverse_cumsum(e, gy_skipped, axis)?;
    let at_or_after = e.op(Op::Where, vec![first, at_zero, zero])?;
    e.op(Op::Where, vec![before, before_zero, at_or_after])
}
