//! Dead code elimination and structural common subexpression elimination.

use std::collections::HashMap;

use super::rewrite::rewrite;
use crate::error::Result;
use crate::ir::{Graph, Node, Op, OpClass, Scalar, ValueId};

/// Drop statements whose values no result depends on. Statements that may raise (element
/// access, loops, branches) stay, so that their errors do too, save an element access whose
/// indices are constants inside a static shape; a multi-result statement stays with all its
/// projections.
pub fn dce(graph: &Graph) -> Result<Graph> {
    let mut live = vec![false; graph.num_values()];
    for &v in &graph.results {
        live[v.index()] = true;
    }
    for (i, node) in graph.nodes.iter().enumerate() {
        if may_raise(graph, node) {
            let count = node.op.result_count();
            for k in 0..count {
                live[graph.node_value(i + k).index()] = true;
            }
        }
    }
    for (i, node) in graph.nodes.iter().enumerate().rev() {
        if live[graph.node_value(i).index()] {
            for &input in &node.inputs {
                live[input.index()] = true;
            }
        }
    }
    let mut dead = (0..graph.nodes.len()).map(|i| !live[graph.node_value(i).index()]);
    // A dead statement maps to a placeholder that only other dead statements refer to.
    rewrite(graph, |_, _| {
        Ok(dead.next().unwrap_or(false).then_some(ValueId(u32::MAX)))
    })
}

/// Whether statement `node` of `graph` may raise: an element access only when one of its
/// indices is not a constant integer inside its axis of a static shape (negative ones wrap
/// once).
fn may_raise(graph: &Graph, node: &Node) -> bool {
    let first = match node.op {
        Op::Load => 1,
        Op::Store => 2,
        _ => return node.op.may_raise(),
    };
    let shape = node
        .inputs
        .first()
        .and_then(|&a| graph.value_type(a))
        .and_then(|t| t.static_shape());
    let Some(shape) = shape else { return true };
    let indices = node.inputs.get(first..).unwrap_or_default();
    let inside = |(&i, &n): (&ValueId, &usize)| {
        matches!(
            graph.node(i).map(|d| &d.op),
            Some(Op::Const { value: Scalar::Int(k), .. }) if -(n as i128) <= *k && *k < n as i128
        )
    };
    indices.len() != shape.len() || !indices.iter().zip(&shape).all(inside)
}

/// Replace a statement by an earlier identical one (same op, attributes, operands and type).
/// Statements with regions, stores and projections are never merged: each consumes or
/// belongs to a version of an array.
pub fn cse(graph: &Graph) -> Result<Graph> {
    let mut seen: HashMap<Node, ValueId> = HashMap::new();
    rewrite(graph, |rw, node| {
        if matches!(node.op.class(), OpClass::Region | OpClass::Projection) || node.op == Op::Store
        {
            return Ok(None);
        }
        if let Some(&earlier) = seen.get(node) {
            return Ok(Some(earlier));
        }
        let v = rw.emit_typed(node.op.clone(), node.inputs.clone(), node.ty.clone());
        seen.insert(node.clone(), v);
        Ok(Some(v))
    })
}
