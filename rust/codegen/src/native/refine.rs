//! What a branch's test proves about an `i64` register on each side: in `if 0 <= k < n:
//! counts[k] += 1`, or a `while j >= 0 and a[j] > key:` test, the index is known to lie in
//! bounds (or not to be negative) inside the region, so its access skips the check (or the
//! wrap of a negative index). Only branches narrow: a region computed without branching
//! (`branch.rs`'s selects) runs whatever the test says.

use super::lower::{Native, Val};
use crate::kernel::{Const, Scalar};
use cranelift_codegen::ir::Value;
use ember_core::ir::{BinaryOp, DType, Graph, Op, UnaryOp, ValueId};

/// The values a register takes on the `then` and on the `else` side of a test.
#[derive(Clone, Copy)]
pub(crate) struct Fact {
    pub reg: Value,
    pub then: (i128, i128),
    pub otherwise: (i128, i128),
}

pub(crate) const FULL: (i128, i128) = (i64::MIN as i128, i64::MAX as i128);

/// `r op y` for `r` in `have` and `y` in `[y0, y1]`: the values of `r` where the test holds
/// and where it does not.
pub(crate) fn split(
    op: BinaryOp,
    have: (i128, i128),
    (y0, y1): (i128, i128),
) -> Option<[(i128, i128); 2]> {
    let below = |hi: i128| (have.0, have.1.min(hi));
    let above = |lo: i128| (have.0.max(lo), have.1);
    Some(match op {
        BinaryOp::Lt => [below(y1 - 1), above(y0)],
        BinaryOp::Le => [below(y1), above(y0 + 1)],
        BinaryOp::Gt => [above(y0 + 1), below(y1)],
        BinaryOp::Ge => [above(y0), below(y1 - 1)],
        _ => return None,
    })
}

/// The comparison seen from its right operand (`a < b` is `b > a`).
pub(crate) fn mirrored(op: BinaryOp) -> BinaryOp {
    match op {
        BinaryOp::Lt => BinaryOp::Gt,
        BinaryOp::Le => BinaryOp::Ge,
        BinaryOp::Gt => BinaryOp::Lt,
        BinaryOp::Ge => BinaryOp::Le,
        other => other,
    }
}

impl Native<'_, '_> {
    /// The range of an `i64` operand: a constant's value, a register's known range.
    pub(crate) fn known(&self, v: &Val) -> Option<(i128, i128)> {
        match v {
            Val::Const(Const::Int(c), Scalar::I64) => Some((i128::from(*c), i128::from(*c))),
            Val::Scalar(r, Scalar::I64) => self.ranges.get(r).copied(),
            _ => None,
        }
    }

    /// What the test `cond` of an `if` in `graph` (computed from `vals`) proves about the
    /// `i64` register it compares with a value of known range.
    pub(crate) fn facts(&self, graph: &Graph, cond: ValueId, vals: &[Val]) -> Vec<Fact> {
        // Through conversions of a bool to bool and negations to the comparison.
        let mut negated = false;
        let mut node = graph.node(cond);
        let op = loop {
            let Some(n) = node else {
                return Vec::new();
            };
            let input_is_bool = || {
                graph
                    .value_type(n.inputs[0])
                    .is_some_and(|t| t.dtype == DType::Bool)
            };
            match n.op {
                Op::Astype {
                    dtype: DType::Bool, ..
                } if input_is_bool() => {}
                Op::Unary(UnaryOp::LogicalNot) if input_is_bool() => negated = !negated,
                Op::Binary(op) => break op,
                _ => return Vec::new(),
            }
            node = graph.node(n.inputs[0]);
        };
        let node = node.expect("the comparison found above");
        let (a, b) = (&vals[node.inputs[0].index()], &vals[node.inputs[1].index()]);
        let mut facts = Vec::new();
        for (reg, other, op) in [(a, b, op), (b, a, mirrored(op))] {
            let (Val::Scalar(r, Scalar::I64), Some(bound)) = (reg, self.known(other)) else {
                continue;
            };
            let have = self.ranges.get(r).copied().unwrap_or(FULL);
            if let Some([holds, fails]) = split(op, have, bound) {
                let (then, otherwise) = if negated {
                    (fails, holds)
                } else {
                    (holds, fails)
                };
                facts.push(Fact {
                    reg: *r,
                    then,
                    otherwise,
                });
            }
        }
        facts
    }

    /// `f` with each fact's range (`then` side or not) holding, the ranges known before
    /// restored afterwards. An empty range (a side that cannot run) is not recorded.
    pub(crate) fn assuming<T>(
        &mut self,
        facts: &[Fact],
        then: bool,
        f: impl FnOnce(&mut Self) -> T,
    ) -> T {
        let before: Vec<(Value, Option<(i128, i128)>)> = facts
            .iter()
            .map(|k| (k.reg, self.ranges.get(&k.reg).copied()))
            .collect();
        for k in facts {
            let range = if then { k.then } else { k.otherwise };
            if range.0 <= range.1 {
                self.ranges.insert(k.reg, range);
            }
        }
        let out = f(self);
        for (reg, range) in before {
            match range {
                Some(r) => self.ranges.insert(reg, r),
                None => self.ranges.remove(&reg),
            };
        }
        out
    }
}
