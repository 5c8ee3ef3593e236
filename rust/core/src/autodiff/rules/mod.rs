//! The vector-Jacobian product of every op, written as IR ops appended to the graph. Rules only
//! emit ops that have rules themselves, so a joint graph can be differentiated again.
//!
//! A rule receives the node, its result `y` and the result's cotangent `g`, and returns one
//! cotangent per operand (`None`: no gradient flows there). Cotangents of elementwise ops may
//! keep the broadcast shape; the caller sums them back to each operand's shape and casts them
//! to its dtype.

mod elementwise;
mod indexed;
mod linalg;
mod scans;
mod spectral;
mod structure;

use crate::error::{Error, Result};
use crate::ir::{Node, Op, ScanKind, ValueId};

use super::emit::Emitter;

/// Cotangents of a node's operands given the cotangent `g` of its result `y`; `wanted[i]` says
/// whether operand `i` needs one (a rule may skip work for the others).
pub fn vjp(
    e: &mut Emitter,
    node: &Node,
    y: ValueId,
    g: ValueId,
    wanted: &[bool],
) -> Result<Vec<Option<ValueId>>> {
    let x = &node.inputs;
    match &node.op {
        Op::Unary(u) => Ok(vec![elementwise::unary(e, *u, x[0], y, g)?]),
        Op::Binary(b) => elementwise::binary(e, *b, x[0], x[1], y, g, wanted),
        Op::Where => elementwise::select(e, x[0], g, wanted),
        Op::Astype { .. } | Op::Copy => Ok(vec![Some(g)]),
        Op::Const { .. } | Op::Full { .. } | Op::Arange { .. } | Op::Eye { .. } => Ok(vec![]),
        Op::Reduce {
            kind,
            axes,
            keepdims,
        } => Ok(vec![structure::reduce(
            e,
            *kind,
            x[0],
            y,
            g,
            axes.as_deref(),
            *keepdims,
        )?]),
        Op::ArgReduce { .. } => Ok(vec![None]),
        Op::Reshape { .. }
        | Op::Transpose { .. }
        | Op::BroadcastTo { .. }
        | Op::ExpandDims { .. }
        | Op::Squeeze { .. }
        | Op::Flip { .. } => Ok(vec![Some(structure::view(e, &node.op, x[0], g)?)]),
        Op::Slice { start, stop, step } => {
            Ok(vec![Some(structure::slice(e, x[0], g, start, stop, step)?)])
        }
        Op::Concatenate { axis } => structure::concatenate(e, x, g, *axis),
        Op::Matmul => structure::matmul(e, x[0], x[1], g, wanted),
        Op::Linalg { kind } => linalg::linalg(e, *kind, x, y, g, wanted),
        Op::Scan {
            kind: ScanKind::Cumsum,
            axis,
        } => Ok(vec![Some(scans::cumsum(e, g, *axis)?)]),
        Op::Scan {
            kind: ScanKind::Cumprod,
            axis,
        } => Ok(vec![Some(scans::cumprod(e, x[0], y, g, *axis)?)]),
        // Either kind: tied values are equal, so any order of them routes the cotangent.
        Op::Scan {
            kind: ScanKind::Sort | ScanKind::SortDefault,
            axis,
        } => Ok(vec![indexed::sort(e, x[0], g, *axis)?]),
        Op::Gather { axis } => indexed::gather(e, x, g, *axis),
        Op::ScatterAdd { axis, .. } => indexed::scatter(e, x, g, *axis),
        // An integer permutation: no gradient flows through it.
        Op::Scan {
            kind: ScanKind::Argsort | ScanKind::ArgsortDefault,
            ..
        } => Ok(vec![None]),
        Op::Loop { .. } | Op::If { .. } | Op::Load | Op::Store | Op::Result { .. } => {
            Err(no_rule(node.op.name()))
        }
    }
}

/// The error of an op whose result would need a gradient it has no rule for.
pub fn no_rule(op: &str) -> Error {
    Error::new(format!("no gradient rule for op `{op}`"))
}
