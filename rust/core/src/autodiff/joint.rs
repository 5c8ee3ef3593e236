//! The joint graph: the forward graph followed by its backward pass, as one ordinary graph.
//!
//! Parameters are the forward parameters (the primals) and then one cotangent per
//! differentiated output; results are the forward results and then one gradient per
//! differentiated input. Cotangents flow backward through the forward statements in reverse,
//! each statement's rule appending the ops of its vector-Jacobian product.

use std::collections::HashMap;

use crate::error::{Error, Result};
use crate::ir::{Graph, Node, Type, ValueId};

use super::emit::Emitter;
use super::rules;
use super::shift::stabilising_extrema;

/// A joint forward+backward graph and how its parameters and results are laid out.
#[derive(Clone, Debug)]
pub struct Joint {
    /// The graph: primals and cotangents in, forward results and gradients out.
    pub graph: Graph,
    /// How many parameters are primals (the rest are cotangents).
    pub num_primals: usize,
    /// How many results are forward results (the rest are gradients).
    pub num_outputs: usize,
    /// How many statements belong to the forward graph (they come first).
    pub num_forward_nodes: usize,
}

/// Build the joint graph of `forward` differentiated with respect to the parameters `wrt`
/// (float parameters), seeding a cotangent for each result `i` with `differentiate[i]`.
pub fn build(forward: &Graph, wrt: &[usize], differentiate: &[bool]) -> Result<Joint> {
    if differentiate.len() != forward.results.len() {
        return Err(Error::new(format!(
            "{} output flags given for {} results",
            differentiate.len(),
            forward.results.len()
        )));
    }
    for &i in wrt {
        let ty = forward
            .params
            .get(i)
            .ok_or_else(|| Error::new(format!("no input %{i} to differentiate")))?;
        if !ty.dtype.is_float() {
            return Err(Error::new(format!(
                "cannot differentiate with respect to input %{i} of type {ty}: only float \
                 values carry gradients"
            )));
        }
    }
    let seeded: Vec<usize> = (0..forward.results.len())
        .filter(|&i| differentiate[i])
        .collect();
    let mut params = forward.params.clone();
    for &i in &seeded {
        let ty = forward.value_type(forward.results[i]).cloned().unwrap();
        if !ty.dtype.is_float() {
            return Err(Error::new(format!(
                "output {i} of type {ty} cannot be differentiated: only float values carry \
                 gradients"
            )));
        }
        params.push(Type::new(ty.dtype, ty.shape));
    }
    let num_primals = forward.params.len();
    let shift = (params.len() - num_primals) as u32;
    let moved = |v: ValueId| {
        if v.index() < num_primals {
            v
        } else {
            ValueId(v.0 + shift)
        }
    };
    let mut graph = Graph::new(forward.name.clone(), params);
    for node in &forward.nodes {
        let inputs = node.inputs.iter().map(|&v| moved(v)).collect();
        graph.push(node.op.clone(), inputs, node.ty.clone());
    }
    let num_forward_nodes = graph.nodes.len();
    let active = active_values(&graph, wrt);
    // Extrema subtracted only for stability pass no cotangent (see `shift`).
    let stabilising = stabilising_extrema(forward);
    let mut cotangents: HashMap<ValueId, ValueId> = HashMap::new();
    let mut e = Emitter { graph: &mut graph };
    for (k, &i) in seeded.iter().enumerate() {
        let seed = ValueId((num_primals + k) as u32);
        accumulate(&mut e, &mut cotangents, moved(forward.results[i]), seed)?;
    }
    for n in (0..num_forward_nodes).rev() {
        let y = e.graph.node_value(n);
        let Some(&g) = cotangents.get(&y) else {
            continue;
        };
        if stabilising[n] {
            continue;
        }
        let node: Node = e.graph.nodes[n].clone();
        let wanted: Vec<bool> = node.inputs.iter().map(|v| active[v.index()]).collect();
        if !wanted.iter().any(|&w| w) {
            continue;
        }
        let grads = rules::vjp(&mut e, &node, y, g, &wanted)
            .map_err(|err| err.with_value(node.op.name(), ValueId(y.0 - shift)))?;
        for ((&x, grad), want) in node.inputs.iter().zip(grads).zip(wanted) {
            if let (Some(grad), true) = (grad, want) {
                accumulate(&mut e, &mut cotangents, x, grad)?;
            }
        }
    }
    let mut results: Vec<ValueId> = forward.results.iter().map(|&v| moved(v)).collect();
    for &i in wrt {
        let v = ValueId(i as u32);
        let grad = match cotangents.get(&v) {
            Some(&g) => g,
            None => {
                let ty = e.ty(v);
                e.zeros(&Type::new(ty.dtype, ty.shape))?
            }
        };
        results.push(grad);
    }
    graph.results = results;
    Ok(Joint {
        graph,
        num_primals,
        num_outputs: forward.results.len(),
        num_forward_nodes,
    })
}

/// Values that depend on a differentiated input through float values.
fn active_values(graph: &Graph, wrt: &[usize]) -> Vec<bool> {
    let mut active = vec![false; graph.num_values()];
    for &i in wrt {
        active[i] = true;
    }
    for (n, node) in graph.nodes.iter().enumerate() {
        let v = graph.node_value(n);
        active[v.index()] =
            node.ty.dtype.is_float() && node.inputs.iter().any(|x| active[x.index()]);
    }
    active
}

/// Add `grad` (summed back to `x`'s shape, cast to its dtype) to `x`'s cotangent.
fn accumulate(
    e: &mut Emitter,
    cotangents: &mut HashMap<ValueId, ValueId>,
    x: ValueId,
    grad: ValueId,
) -> Result<()> {
    let ty = e.ty(x);
    let grad = e.unbroadcast(grad, &ty.shape)?;
    let grad = e.cast(grad, ty.dtype)?;
    let total = match cotangents.get(&x) {
        Some(&previous) => e.add(previous, grad)?,
        None => grad,
    };
    cotangents.insert(x, total);
    Ok(())
}
