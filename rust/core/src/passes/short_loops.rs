//! Short inner loops written out trip by trip, for [`super::scalarize`]: a loop body that
//! fills a short array with an inner element loop (a window of more than 8 elements, a row
//! of a lookup table, a 2x2 stamp) and then uses it whole becomes element access at constant
//! positions, which the scalar body then runs in registers.

use std::collections::HashMap;

use super::scalarize::{is_scalar_region, MAX_ELEMENTS, MAX_STATEMENTS};
use crate::ir::{DType, Graph, Node, Op, Scalar, ValueId};

/// `body` with each inner loop of at most [`MAX_ELEMENTS`] trips between constant bounds that
/// carries a short array written out trip by trip (the index a constant on each), inner loops
/// of those too, its constant index arithmetic folded; None when there is none (or the body
/// would grow past [`MAX_STATEMENTS`]).
/// A trip runs the same statements in the same order as the loop did, so values, warnings and
/// the first out-of-bounds access are the loop's.
pub(super) fn unroll_short_loops(body: &Graph) -> Option<Graph> {
    if is_scalar_region(body) {
        return None;
    }
    let mut out = Graph::new(body.name.clone(), body.params.clone());
    let args: Vec<ValueId> = (0..body.params.len()).map(|p| out.param(p)).collect();
    let mut unrolled = false;
    out.results = inline(body, &args, &mut out, &mut unrolled)?;
    // A trip's index arithmetic (`k // 3`, `k % 3` of a flat window index) becomes the
    // constant positions element access needs.
    unrolled
        .then(|| super::fold::fold_constants(&out).ok())
        .flatten()
}

/// Appends the statements of `src` to `out`, its parameters being `args` and the loops
/// [`short_trips`] accepts written out; returns what `src` returns.
fn inline(
    src: &Graph,
    args: &[ValueId],
    out: &mut Graph,
    unrolled: &mut bool,
) -> Option<Vec<ValueId>> {
    let mut map: Vec<ValueId> = args.to_vec();
    // The carried values each written-out loop ends with, by its statement.
    let mut ends: HashMap<ValueId, Vec<ValueId>> = HashMap::new();
    for (i, node) in src.nodes.iter().enumerate() {
        let operand = |v: &ValueId| map[v.index()];
        if let Op::Result { index, .. } = node.op {
            if let Some(end) = ends.get(&node.inputs[0]) {
                map.push(*end.get(index)?);
                continue;
            }
        }
        let (Op::Loop { body, carried }, Some(trips)) = (&node.op, short_trips(src, node)) else {
            let inputs = node.inputs.iter().map(operand).collect();
            map.push(out.push(node.op.clone(), inputs, node.ty.clone()));
            continue;
        };
        let mut current: Vec<ValueId> = node.inputs[3..3 + carried].iter().map(operand).collect();
        let invariant: Vec<ValueId> = node.inputs[3 + carried..].iter().map(operand).collect();
        for trip in trips {
            if out.nodes.len() + body.nodes.len() > MAX_STATEMENTS {
                return None;
            }
            let index = out.push(
                Op::Const {
                    value: Scalar::Int(i128::from(trip)),
                    dtype: DType::I64,
                    weak: true,
                },
                Vec::new(),
                body.params.first()?.clone(),
            );
            let mut trip_args = vec![index];
            trip_args.extend(&current);
            trip_args.extend(&invariant);
            current = inline(body, &trip_args, out, unrolled)?.split_off(1);
        }
        *unrolled = true;
        map.push(*current.first()?);
        ends.insert(src.node_value(i), current);
    }
    Some(src.results.iter().map(|r| map[r.index()]).collect())
}

/// The indices of a loop statement worth writing out: constant bounds of at most
/// [`MAX_ELEMENTS`] trips, a body that never stops early (its `go` the constant true), and a
/// short array carried, or read that the body computed (`h[::-1]` of a short `h`).
fn short_trips(graph: &Graph, node: &Node) -> Option<Vec<i64>> {
    let Op::Loop { body, carried } = &node.op else {
        return None;
    };
    let int = |v: ValueId| match graph.node(v)?.op {
        Op::Const {
            value: Scalar::Int(i),
            ..
        } => i64::try_from(i).ok(),
        _ => None,
    };
    let (start, stop, step) = (
        int(node.inputs[0])?,
        int(node.inputs[1])?,
        int(node.inputs[2])?,
    );
    let go = body.node(*body.results.first()?)?;
    let short_array = |v: &ValueId| {
        graph
            .value_type(*v)
            .and_then(|t| t.static_shape())
            .is_some_and(|s| !s.is_empty() && s.iter().product::<usize>() <= MAX_ELEMENTS)
    };
    if step == 0
        || !matches!(
            go.op,
            Op::Const {
                value: Scalar::Bool(true),
                ..
            }
        )
        || !node.inputs[3..]
            .iter()
            .enumerate()
            .any(|(k, v)| short_array(v) && (k < *carried || graph.node(*v).is_some()))
    {
        return None;
    }
    let mut trips = Vec::new();
    let mut i = start;
    while (step > 0 && i < stop) || (step < 0 && i > stop) {
        if trips.len() == MAX_ELEMENTS {
            return None;
        }
        trips.push(i);
        i = i.checked_add(step)?;
    }
    Some(trips)
}
