//! Splitting a joint graph into a forward graph that returns residuals and a backward graph
//! that takes them, choosing the residuals by a minimum cut (AOTAutograd's rematerialising
//! partitioner).
//!
//! Every value computed from primals alone is a node split in two, `in -> out`, whose edge
//! costs the value's bytes: cutting it means saving the value. The source feeds the primal
//! inputs and the values that must not be recomputed (matmuls, reductions that shrink their
//! input more than 4x, when the forward computes them anyway); values the backward half uses
//! lead to the sink. Creation ops cost nothing to recompute and are never saved. The minimum
//! cut closest to the source is the cheapest set of residuals, earlier values winning ties;
//! the backward graph recomputes whatever lies between the residuals and its uses.

use std::collections::HashMap;

use crate::error::{Error, Result};
use crate::ir::{Dim, Graph, Op, OpClass, ValueId};

use super::joint::Joint;
use super::maxflow::{Network, INFINITE};

/// Where the backward graph gets a residual from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Residual {
    /// Forward input `i`, passed along unchanged.
    Input(usize),
    /// Forward result `j` (an output of the function or an extra residual result).
    Output(usize),
}

/// How residuals are chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// The minimum cut: recompute cheap chains in the backward graph.
    MinCut,
    /// Save every value the backward ops read (no recomputation), for comparison.
    SaveAll,
}

/// A joint graph split in two.
#[derive(Clone, Debug)]
pub struct Partition {
    /// Primals in; the function's results, then the extra residuals, out.
    pub forward: Graph,
    /// Residuals, then cotangents, in; gradients out.
    pub backward: Graph,
    /// The saved values (ids of the joint graph), in the order the backward graph takes them.
    pub saved: Vec<ValueId>,
    /// Where each saved value comes from.
    pub residuals: Vec<Residual>,
    /// Bytes of the saved values.
    pub residual_bytes: u64,
}

/// The size of a value in bytes (a symbolic dim counts as 2**20 elements).
pub fn value_bytes(graph: &Graph, v: ValueId) -> u64 {
    let ty = graph.value_type(v).expect("value of the graph");
    let elements: u64 = ty
        .shape
        .iter()
        .map(|d| match d {
            Dim::Static(n) => *n as u64,
            Dim::Sym(_) => 1 << 20,
        })
        .product();
    elements * ty.dtype.itemsize() as u64
}

/// Split `joint` into forward and backward graphs.
pub fn partition(joint: &Joint, strategy: Strategy) -> Result<Partition> {
    let g = &joint.graph;
    let tangent = tangent_values(joint);
    let users = primal_uses_by_backward(joint, &tangent);
    let saved: Vec<ValueId> = match strategy {
        Strategy::SaveAll => read_by_backward(g, &users),
        Strategy::MinCut => min_cut(joint, &tangent, &users),
    };
    let mut forward = Graph::new(g.name.clone(), g.params[..joint.num_primals].to_vec());
    let mut results: Vec<ValueId> = g.results[..joint.num_outputs].to_vec();
    let mut residuals = Vec::new();
    for &v in &saved {
        if v.index() < joint.num_primals {
            residuals.push(Residual::Input(v.index()));
        } else if let Some(j) = results.iter().position(|&r| r == v) {
            residuals.push(Residual::Output(j));
        } else {
            results.push(v);
            residuals.push(Residual::Output(results.len() - 1));
        }
    }
    let inputs: HashMap<ValueId, ValueId> = (0..joint.num_primals)
        .map(|i| (ValueId(i as u32), ValueId(i as u32)))
        .collect();
    forward.results = extract(g, &mut forward, inputs, &results, "forward")?;
    let mut backward_params: Vec<_> = saved
        .iter()
        .map(|&v| g.value_type(v).cloned().unwrap())
        .collect();
    backward_params.extend(g.params[joint.num_primals..].iter().cloned());
    let mut backward = Graph::new(format!("{}_backward", g.name), backward_params);
    let mut inputs: HashMap<ValueId, ValueId> = HashMap::new();
    for (i, &v) in saved.iter().enumerate() {
        inputs.insert(v, ValueId(i as u32));
    }
    for (k, v) in (joint.num_primals..g.params.len()).enumerate() {
        inputs.insert(ValueId(v as u32), ValueId((saved.len() + k) as u32));
    }
    let grads = &g.results[joint.num_outputs..];
    backward.results = extract(g, &mut backward, inputs, grads, "backward")?;
    let residual_bytes = saved.iter().map(|&v| value_bytes(g, v)).sum();
    Ok(Partition {
        forward,
        backward,
        saved,
        residuals,
        residual_bytes,
    })
}

/// Bytes of the residuals [`Strategy::SaveAll`] would save, without splitting the graph.
pub fn save_all_bytes(joint: &Joint) -> u64 {
    let g = &joint.graph;
    let users = primal_uses_by_backward(joint, &tangent_values(joint));
    read_by_backward(g, &users)
        .into_iter()
        .map(|v| value_bytes(g, v))
        .sum()
}

/// The primal values the backward ops read, creation ops excepted (free to recompute).
fn read_by_backward(g: &Graph, users: &[bool]) -> Vec<ValueId> {
    (0..g.num_values())
        .map(|v| ValueId(v as u32))
        .filter(|&v| users[v.index()] && !is_creation(g, v))
        .collect()
}

/// Values computed from a cotangent.
fn tangent_values(joint: &Joint) -> Vec<bool> {
    let g = &joint.graph;
    let mut tangent = vec![false; g.num_values()];
    for t in tangent
        .iter_mut()
        .take(g.params.len())
        .skip(joint.num_primals)
    {
        *t = true;
    }
    for (i, node) in g.nodes.iter().enumerate() {
        tangent[g.node_value(i).index()] = node.inputs.iter().any(|x| tangent[x.index()]);
    }
    tangent
}

/// Primal values read by the backward half: operands of cotangent-dependent statements, and
/// gradients that do not depend on a cotangent (zeros).
fn primal_uses_by_backward(joint: &Joint, tangent: &[bool]) -> Vec<bool> {
    let g = &joint.graph;
    let mut used = vec![false; g.num_values()];
    for (i, node) in g.nodes.iter().enumerate() {
        if tangent[g.node_value(i).index()] {
            for x in &node.inputs {
                used[x.index()] |= !tangent[x.index()];
            }
        }
    }
    for v in &g.results[joint.num_outputs..] {
        used[v.index()] |= !tangent[v.index()];
    }
    used
}

fn is_creation(g: &Graph, v: ValueId) -> bool {
    g.node(v).is_some_and(|n| n.op.class() == OpClass::Creation)
}

/// Whether the backward graph may compute `v` again rather than receive it.
fn recomputable(g: &Graph, v: ValueId) -> bool {
    let Some(node) = g.node(v) else {
        return false;
    };
    match node.op {
        Op::Matmul => false,
        Op::Reduce { .. } | Op::ArgReduce { .. } => {
            elements(g, node.inputs[0]) <= 4 * elements(g, v)
        }
        _ => true,
    }
}

fn elements(g: &Graph, v: ValueId) -> u64 {
    value_bytes(g, v) / g.value_type(v).unwrap().dtype.itemsize() as u64
}

/// The saved set of the minimum cut (ids in definition order).
fn min_cut(joint: &Joint, tangent: &[bool], used: &[bool]) -> Vec<ValueId> {
    let g = &joint.graph;
    let n = g.num_values();
    let (source, sink) = (2 * n, 2 * n + 1);
    let mut net = Network::new(2 * n + 2);
    let forward_needed = ancestors(g, &g.results[..joint.num_outputs]);
    for v in 0..n {
        if tangent[v] {
            continue;
        }
        let id = ValueId(v as u32);
        let capacity = if is_creation(g, id) {
            INFINITE
        } else {
            value_bytes(g, id)
        };
        net.edge(2 * v, 2 * v + 1, capacity);
        if v < joint.num_primals || (forward_needed[v] && !recomputable(g, id)) {
            net.edge(source, 2 * v, INFINITE);
        }
        if used[v] {
            net.edge(2 * v + 1, sink, INFINITE);
        }
        if let Some(node) = g.node(id) {
            for x in &node.inputs {
                net.edge(2 * x.index() + 1, 2 * v, INFINITE);
            }
        }
    }
    net.max_flow(source, sink);
    let side = net.source_side(source);
    (0..n)
        .filter(|&v| !tangent[v] && side[2 * v] && !side[2 * v + 1])
        .map(|v| ValueId(v as u32))
        .collect()
}

/// Which values `roots` depend on (themselves included).
fn ancestors(g: &Graph, roots: &[ValueId]) -> Vec<bool> {
    let mut seen = vec![false; g.num_values()];
    let mut stack: Vec<ValueId> = roots.to_vec();
    while let Some(v) = stack.pop() {
        if std::mem::replace(&mut seen[v.index()], true) {
            continue;
        }
        if let Some(node) = g.node(v) {
            stack.extend(node.inputs.iter().copied());
        }
    }
    seen
}

/// Copy into `target` the statements of `source` that `roots` need, given the values already
/// available as parameters of `target` (`available`: source id -> target id); returns the
/// roots' ids in `target`.
fn extract(
    source: &Graph,
    target: &mut Graph,
    mut available: HashMap<ValueId, ValueId>,
    roots: &[ValueId],
    half: &str,
) -> Result<Vec<ValueId>> {
    let mut needed = vec![false; source.num_values()];
    let mut stack: Vec<ValueId> = roots.to_vec();
    while let Some(v) = stack.pop() {
        if available.contains_key(&v) || std::mem::replace(&mut needed[v.index()], true) {
            continue;
        }
        match source.node(v) {
            Some(node) => stack.extend(node.inputs.iter().copied()),
            None => {
                return Err(Error::new(format!(
                    "the {half} graph needs input {v}, which is not available to it"
                )))
            }
        }
    }
    for (i, node) in source.nodes.iter().enumerate() {
        let v = source.node_value(i);
        if !needed[v.index()] || available.contains_key(&v) {
            continue;
        }
        let inputs = node.inputs.iter().map(|x| available[x]).collect();
        let new = target.push(node.op.clone(), inputs, node.ty.clone());
        available.insert(v, new);
    }
    Ok(roots.iter().map(|r| available[r]).collect())
}
