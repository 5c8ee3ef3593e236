//! Stabilising extrema: a `max`/`min` reduction whose value the results do not depend on.
//!
//! `z = a - a.max(axis, keepdims=True)` before a softmax, or `m + log(sum(exp(a - m)))` in a
//! logsumexp, subtracts the extremum only to keep `exp` finite: the results are the same
//! function of `a` whatever `m` is. The cotangent reaching `m` is then zero in exact arithmetic
//! (in floating point, rounding noise of the size autograd's own chain rule leaves), so the
//! joint graph skips the extremum's rule and the backward pass computes neither the cotangent
//! of `m` nor the mask of the elements equal to it.
//!
//! The proof is an abstract interpretation of the statements after `m`, each value tagged by
//! how it depends on `m` (broadcast, aligned on the right as NumPy does):
//!
//! ```text
//! free        no dependence on m
//! shift(s)    f(a) + s*m          m itself is shift(+1); a - m is shift(-1)
//! scale(s)    g(a) * exp(s*m)     exp(shift(s)) = scale(s); log(scale(s)) = shift(s)
//! shift(s) + shift(-s) = free     scale(s) * scale(-s) = free     scale(s) / scale(s) = free
//! max/min/mean of shift(s), sum/max/min/mean of scale(s) over axes along which m is constant
//!                                 keep the tag
//! ```
//!
//! Any other use of a tagged value, or a tagged result, gives up: the extremum keeps its rule.

use crate::ir::{BinaryOp, Dim, Graph, Node, Op, ReduceKind, UnaryOp, ValueId};

/// How a value depends on the extremum `m`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tag {
    Free,
    Shift(i8),
    Scale(i8),
}

/// For each statement of `graph`, whether it is a `max`/`min` reduction whose value the
/// results do not depend on (its cotangent is zero in exact arithmetic).
pub fn stabilising_extrema(graph: &Graph) -> Vec<bool> {
    (0..graph.nodes.len())
        .map(|n| {
            matches!(
                graph.nodes[n].op,
                Op::Reduce {
                    kind: ReduceKind::Max | ReduceKind::Min,
                    ..
                }
            ) && graph.nodes[n].ty.dtype.is_float()
                && results_free_of(graph, n)
        })
        .collect()
}

/// Whether the results of `graph` are the same function of its parameters whatever the value
/// of statement `n` is.
fn results_free_of(graph: &Graph, n: usize) -> bool {
    let m_shape = &graph.nodes[n].ty.shape;
    let mut tags = vec![Tag::Free; graph.num_values()];
    tags[graph.node_value(n).index()] = Tag::Shift(1);
    for k in n + 1..graph.nodes.len() {
        let node = &graph.nodes[k];
        let ins: Vec<Tag> = node.inputs.iter().map(|v| tags[v.index()]).collect();
        if ins.iter().all(|&t| t == Tag::Free) {
            continue;
        }
        match transfer(graph, node, &ins, m_shape) {
            Some(tag) => tags[graph.node_value(k).index()] = tag,
            None => return false,
        }
    }
    graph
        .results
        .iter()
        .all(|v: &ValueId| tags[v.index()] == Tag::Free)
}

/// The tag of a statement's value from its operands' tags, `None` where it is not one of the
/// forms above.
fn transfer(graph: &Graph, node: &Node, ins: &[Tag], m_shape: &[Dim]) -> Option<Tag> {
    use Tag::{Free, Scale, Shift};
    if node.ty.shape.len() < m_shape.len() {
        return None;
    }
    match (&node.op, ins) {
        (Op::Unary(UnaryOp::Neg), [Shift(s)]) => Some(Shift(-s)),
        (Op::Unary(UnaryOp::Exp), [Shift(s)]) => Some(Scale(*s)),
        (Op::Unary(UnaryOp::Log), [Scale(s)]) => Some(Shift(*s)),
        (Op::Binary(BinaryOp::Add), [x, y]) => add(*x, *y),
        (Op::Binary(BinaryOp::Sub), [x, y]) => add(*x, negate(*y)?),
        (Op::Binary(BinaryOp::Mul), [x, y]) => multiply(*x, *y),
        (Op::Binary(BinaryOp::Div), [x, y]) => multiply(*x, invert(*y)?),
        (Op::Where, [Free, x, y]) if x == y => Some(*x),
        (Op::BroadcastTo { .. } | Op::Copy, [x]) => Some(*x),
        (
            Op::Reduce {
                kind,
                axes,
                keepdims,
            },
            [x],
        ) => {
            // The reduced axes must be ones along which the broadcast `m` is constant: its
            // size-1 axes (kept in the result) or axes in front of it (dropped or kept).
            let rank = graph.value_type(node.inputs[0])?.shape.len();
            let lead = rank.checked_sub(m_shape.len())?;
            let axes: Vec<usize> = axes.clone().unwrap_or_else(|| (0..rank).collect());
            let constant = axes
                .iter()
                .all(|&a| a < lead || (*keepdims && m_shape[a - lead] == Dim::Static(1)));
            if !constant || node.ty.shape.len() < m_shape.len() {
                return None;
            }
            match (kind, x) {
                (ReduceKind::Max | ReduceKind::Min | ReduceKind::Mean, _) => Some(*x),
                (ReduceKind::Sum, Scale(_)) => Some(*x),
                _ => None,
            }
        }
        _ => None,
    }
}

fn negate(t: Tag) -> Option<Tag> {
    match t {
        Tag::Free => Some(Tag::Free),
        Tag::Shift(s) => Some(Tag::Shift(-s)),
        Tag::Scale(_) => None,
    }
}

fn invert(t: Tag) -> Option<Tag> {
    match t {
        Tag::Free => Some(Tag::Free),
        Tag::Scale(s) => Some(Tag::Scale(-s)),
        Tag::Shift(_) => None,
    }
}

fn add(x: Tag, y: Tag) -> Option<Tag> {
    match (x, y) {
        (Tag::Shift(s), Tag::Free) | (Tag::Free, Tag::Shift(s)) => Some(Tag::Shift(s)),
        (Tag::Shift(s), Tag::Shift(t)) if s + t == 0 => Some(Tag::Free),
        _ => None,
    }
}

fn multiply(x: Tag, y: Tag) -> Option<Tag> {
    match (x, y) {
        (Tag::Scale(s), Tag::Free) | (Tag::Free, Tag::Scale(s)) => Some(Tag::Scale(s)),
        (Tag::Scale(s), Tag::Scale(t)) if s + t == 0 => Some(Tag::Free),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::stabilising_extrema;
    use crate::ir::parse;

    fn marked(text: &str) -> Vec<usize> {
        let graph = parse(text).unwrap();
        let flags = stabilising_extrema(&graph);
        (0..flags.len()).filter(|&n| flags[n]).collect()
    }

    #[test]
    fn the_max_of_a_log_softmax_is_stabilising() {
        let text = "ember-ir 1
func @f(%0: f64[4,3]) -> (f64[4,3], f64[4,3]) {
  %1 = max(%0) axis=[1] keepdims=true : f64[4,1]
  %2 = sub(%0, %1) : f64[4,3]
  %3 = exp(%2) : f64[4,3]
  %4 = sum(%3) axis=[1] keepdims=true : f64[4,1]
  %5 = log(%4) : f64[4,1]
  %6 = sub(%2, %5) : f64[4,3]
  %7 = div(%3, %4) : f64[4,3]
  return %6, %7
}
";
        assert_eq!(marked(text), vec![0]);
    }

    #[test]
    fn the_max_of_a_logsumexp_is_stabilising() {
        let text = "ember-ir 1
func @f(%0: f64[4,3]) -> (f64[]) {
  %1 = max(%0) axis=none keepdims=false : f64[]
  %2 = sub(%0, %1) : f64[4,3]
  %3 = exp(%2) : f64[4,3]
  %4 = sum(%3) axis=none keepdims=false : f64[]
  %5 = log(%4) : f64[]
  %6 = add(%5, %1) : f64[]
  return %6
}
";
        assert_eq!(marked(text), vec![0]);
    }

    #[test]
    fn a_max_the_results_depend_on_keeps_its_rule() {
        // The shifted values themselves are returned; a sum over the shifted row counts m
        // three times; a max over axis 0 is not along the axes where m is constant.
        for tail in [
            "  %3 = exp(%2) : f64[4,3]\n  return %3\n",
            "  %3 = sum(%2) axis=[1] keepdims=true : f64[4,1]\n  return %3\n",
            "  %3 = exp(%2) : f64[4,3]\n  %4 = sum(%3) axis=[0] keepdims=true : f64[1,3]\n  \
             %5 = log(%4) : f64[1,3]\n  %6 = sub(%2, %5) : f64[4,3]\n  return %6\n",
            "  %3 = exp(%2) : f64[4,3]\n  %4 = sum(%3) axis=[1] keepdims=true : f64[4,1]\n  \
             %5 = log(%4) : f64[4,1]\n  %6 = mul(%2, %5) : f64[4,3]\n  return %6\n",
        ] {
            let ty = if tail.contains("%6") {
                "f64[4,3]"
            } else if tail.contains("sum") {
                "f64[4,1]"
            } else {
                "f64[4,3]"
            };
            let text = format!(
                "ember-ir 1\nfunc @f(%0: f64[4,3]) -> ({ty}) {{\n  \
                 %1 = max(%0) axis=[1] keepdims=true : f64[4,1]\n  \
                 %2 = sub(%0, %1) : f64[4,3]\n{tail}}}\n"
            );
            assert_eq!(marked(&text), Vec::<usize>::new(), "{text}");
        }
    }
}
