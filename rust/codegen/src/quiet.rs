//! Floating-point compares and extremes that stay quiet on quiet NaNs, as NumPy's loops do.
//!
//! Cranelift lowers vector `fcmp` orderings (`<`, `<=`, `>`, `>=` and their unordered forms) to
//! `cmpps`/`cmppd` with the signalling predicates of the SSE encoding (LT_OS, LE_OS, NLT_US,
//! NLE_US), vector `fmin`/`fmax` to `minps`/`maxpd`, and a scalar `select(x < y, x, y)` to
//! `minsd`/`maxsd`: all of them raise *invalid* on a quiet NaN operand, where NumPy raises
//! nothing, so data holding NaN would send every run to the NumPy rerun. Only `==`, `!=`,
//! ordered and unordered (EQ_OQ, NEQ_UQ, ORD_Q, UNORD_Q) and scalar `ucomiss`/`ucomisd` are
//! quiet. [`quiet_nans`] rewrites each function before it is compiled, so no lowering site
//! has to remember this:
//!
//! * a vector ordering compares operands whose unordered lanes are zeroed (`x & ord(x, y)`),
//!   then sets those lanes to what the condition gives for NaN;
//! * a vector `fmin`/`fmax` works on the same zeroed operands and puts a NaN back in the
//!   unordered lanes (the bitwise or of the operands: a NaN whenever either is one);
//! * a scalar `x < y` is written `y > x`, which lowers to the same `ucomisd` but is not the
//!   pattern Cranelift selects `minsd`/`maxsd` for.
//!
//! A signalling NaN is zeroed too and so raises nothing here; NumPy would flag it.

use cranelift_codegen::cursor::{Cursor, FuncCursor};
use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{Function, Inst, InstBuilder, InstructionData, Opcode, Type, Value};

/// Rewrites every NaN-signalling compare and extreme of `func` into a quiet equivalent.
pub(crate) fn quiet_nans(func: &mut Function) {
    let mut pos = FuncCursor::new(func);
    while pos.next_block().is_some() {
        while let Some(inst) = pos.next_inst() {
            match pos.func.dfg.insts[inst] {
                InstructionData::FloatCompare {
                    opcode: Opcode::Fcmp,
                    cond,
                    args: [x, y],
                } => quiet_compare(&mut pos, inst, cond, x, y),
                InstructionData::Binary {
                    opcode: op @ (Opcode::Fmin | Opcode::Fmax),
                    args: [x, y],
                } if pos.func.dfg.value_type(x).is_vector() => {
                    quiet_extreme(&mut pos, inst, op, x, y)
                }
                _ => {}
            }
        }
    }
}

/// `inst`, `fcmp cond x y`, made quiet (the cursor stands at `inst`; new instructions go
/// before it and `inst` keeps its result value).
fn quiet_compare(pos: &mut FuncCursor, inst: Inst, cond: FloatCC, x: Value, y: Value) {
    if !pos.func.dfg.value_type(x).is_vector() {
        if cond == FloatCC::LessThan {
            pos.func.replace(inst).fcmp(FloatCC::GreaterThan, y, x);
        }
        return;
    }
    use FloatCC::*;
    // The condition on the ordered lanes, and whether it holds on the unordered ones.
    let (ordered, on_nan) = match cond {
        LessThan | LessThanOrEqual | GreaterThan | GreaterThanOrEqual => (cond, false),
        UnorderedOrLessThan => (LessThan, true),
        UnorderedOrLessThanOrEqual => (LessThanOrEqual, true),
        UnorderedOrGreaterThan => (GreaterThan, true),
        UnorderedOrGreaterThanOrEqual => (GreaterThanOrEqual, true),
        // EQ_OQ, NEQ_UQ, ORD_Q, UNORD_Q are quiet already.
        _ => return,
    };
    let (ord, xq, yq) = zero_unordered(pos, x, y);
    // The zeroed lanes compare 0 with 0: true for `<=` and `>=`, false for `<` and `>`.
    let zero_holds = matches!(ordered, LessThanOrEqual | GreaterThanOrEqual);
    if on_nan == zero_holds {
        pos.func.replace(inst).fcmp(ordered, xq, yq);
        return;
    }
    let t = pos.ins().fcmp(ordered, xq, yq);
    if on_nan {
        let unord = pos.ins().fcmp(Unordered, x, y);
        pos.func.replace(inst).bor(t, unord);
    } else {
        pos.func.replace(inst).band(t, ord);
    }
}

/// `inst`, a vector `fmin`/`fmax` of `x` and `y`, made quiet: the extreme of the zeroed
/// operands where both are ordered, a NaN elsewhere.
fn quiet_extreme(pos: &mut FuncCursor, inst: Inst, op: Opcode, x: Value, y: Value) {
    let (ord, xq, yq) = zero_unordered(pos, x, y);
    let m = if op == Opcode::Fmin {
        pos.ins().fmin(xq, yq)
    } else {
        pos.ins().fmax(xq, yq)
    };
    let nan = pos.ins().bor(x, y);
    let ty = pos.func.dfg.value_type(x);
    let ord = as_type(pos, ord, ty);
    pos.func.replace(inst).bitselect(ord, m, nan);
}

/// The lanes where neither `x` nor `y` is NaN (a compare mask, `ord(x, y)`, which is quiet),
/// and `x` and `y` with every other lane set to +0.0.
fn zero_unordered(pos: &mut FuncCursor, x: Value, y: Value) -> (Value, Value, Value) {
    let ord = pos.ins().fcmp(FloatCC::Ordered, x, y);
    let ty = pos.func.dfg.value_type(x);
    let keep = as_type(pos, ord, ty);
    let xq = pos.ins().band(x, keep);
    let yq = pos.ins().band(y, keep);
    (ord, xq, yq)
}

/// `v`'s bits as a `ty` of the same lane count.
fn as_type(pos: &mut FuncCursor, v: Value, ty: Type) -> Value {
    pos.ins().bitcast(ty, crate::lower::little(), v)
}
