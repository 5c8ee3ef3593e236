//! Statements with regions (`loop`, `if`) and element access (`load`, `store`), with NumPy's
//! and Python's errors: `IndexError`'s message for an index out of bounds, `range()`'s
//! `ValueError` for a zero step.

use std::collections::HashMap;

use super::{eval, HostArray};
use crate::error::{Error, Result};
use crate::ir::{Graph, Op, Type};

/// The message of NumPy's `IndexError` for `index` on an axis of `size` elements.
pub fn index_error(index: i128, axis: usize, size: usize) -> String {
    format!("index {index} is out of bounds for axis {axis} with size {size}")
}

/// The message of Python's `ValueError` for `range(lo, hi, 0)`.
pub const RANGE_STEP_ZERO: &str = "range() arg 3 must not be zero";

/// Runs the statements of `graph` on `inputs` (already bound to its parameters).
pub(crate) fn run_graph(
    graph: &Graph,
    inputs: Vec<HostArray>,
    symbols: &HashMap<String, usize>,
) -> Result<Vec<HostArray>> {
    let mut values = inputs;
    // The further results of the last multi-result statement, taken by its projections.
    let mut further: Vec<HostArray> = Vec::new();
    for (i, node) in graph.nodes.iter().enumerate() {
        let value = graph.node_value(i);
        let args: Vec<&HostArray> = node.inputs.iter().map(|v| &values[v.index()]).collect();
        let located = |e: Error| e.with_value(node.op.name(), value);
        let result = match &node.op {
            Op::Loop { body, carried } => {
                let mut results = run_loop(body, *carried, &args, symbols).map_err(located)?;
                further = results.split_off(1);
                further.reverse();
                results.remove(0)
            }
            Op::If { then, otherwise } => {
                let region = if args[0].get(0).truthy() {
                    then
                } else {
                    otherwise
                };
                let owned = args[1..].iter().map(|&a| a.clone()).collect();
                let mut results = run_graph(region, owned, symbols).map_err(located)?;
                further = results.split_off(1);
                further.reverse();
                results.remove(0)
            }
            Op::Result { .. } => further
                .pop()
                .ok_or_else(|| located(Error::new("no statement result left to take")))?,
            _ => {
                let types: Vec<&Type> = node
                    .inputs
                    .iter()
                    .filter_map(|&v| graph.value_type(v))
                    .collect();
                eval(node, &types, &args, symbols).map_err(located)?
            }
        };
        values.push(result);
    }
    graph
        .results
        .iter()
        .map(|v| {
            values
                .get(v.index())
                .cloned()
                .ok_or_else(|| Error::new(format!("result {v} is not defined")))
        })
        .collect()
}

fn run_loop(
    body: &Graph,
    carried: usize,
    args: &[&HostArray],
    symbols: &HashMap<String, usize>,
) -> Result<Vec<HostArray>> {
    let int = |a: &HostArray| match a.get(0) {
        super::Elem::I(i) => i,
        other => i128::from(other.truthy()),
    };
    let (lo, hi, step) = (int(args[0]), int(args[1]), int(args[2]));
    if step == 0 {
        return Err(Error::new(RANGE_STEP_ZERO));
    }
    let mut state: Vec<HostArray> = args[3..3 + carried].iter().map(|&a| a.clone()).collect();
    let invariant: Vec<HostArray> = args[3 + carried..].iter().map(|&a| a.clone()).collect();
    let induction = super::induction_type();
    let mut i = lo;
    while (step > 0 && i < hi) || (step < 0 && i > hi) {
        let mut inputs = vec![HostArray::scalar(induction.dtype, super::Elem::I(i))];
        inputs.append(&mut state);
        inputs.extend(invariant.iter().cloned());
        let mut results = run_graph(body, inputs, symbols)?;
        state = results.split_off(1);
        if !results[0].get(0).truthy() {
            break;
        }
        i += step;
    }
    Ok(state)
}

/// The row-major position of `a[indices]`, each index wrapped once if negative.
pub(crate) fn element(a: &HostArray, indices: &[&HostArray]) -> Result<usize> {
    let mut pos = 0usize;
    for (axis, (&size, index)) in a.shape.iter().zip(indices).enumerate() {
        let i = match index.get(0) {
            super::Elem::I(i) => i,
            other => i128::from(other.truthy()),
        };
        let wrapped = if i < 0 { i + size as i128 } else { i };
        if !(0..size as i128).contains(&wrapped) {
            return Err(Error::new(index_error(i, axis, size)));
        }
        pos = pos * size + wrapped as usize;
    }
    Ok(pos)
}
