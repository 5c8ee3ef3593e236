//! Linear use of arrays inside regions: once a statement consumes a version of an array
//! (`store` into it, a `loop` carrying it, an `if` whose region consumes it), nothing after it
//! reads that version, and the statement itself reads it only where it consumes it. This is
//! what lets a back end update arrays in place inside loops.

use crate::error::{Error, Result};
use crate::ir::Graph;

/// Check one region (its own statements; nested regions are checked by their own call).
pub fn check(graph: &Graph) -> Result<()> {
    // Per value: the statement that consumed it and at which operand.
    let mut consumed: Vec<Option<(usize, usize)>> = vec![None; graph.num_values()];
    for (s, node) in graph.nodes.iter().enumerate() {
        let value = graph.node_value(s);
        let eaten = graph.consumed_operands(node);
        for (pos, &v) in node.inputs.iter().enumerate() {
            if let Some((by, _)) = consumed[v.index()] {
                return Err(Error::new(format!(
                    "{v} is read after {} consumed it (arrays stored into must be used linearly)",
                    graph.node_value(by)
                ))
                .with_value(node.op.name(), value));
            }
            let again = node
                .inputs
                .iter()
                .enumerate()
                .any(|(other, &w)| w == v && other != pos);
            if eaten.contains(&pos) && again {
                return Err(Error::new(format!(
                    "{v} is consumed and read by the same statement (arrays stored into must be used linearly)"
                ))
                .with_value(node.op.name(), value));
            }
        }
        for &pos in &eaten {
            consumed[node.inputs[pos].index()] = Some((s, pos));
        }
    }
    for &v in &graph.results {
        if let Some((by, _)) = consumed[v.index()] {
            return Err(Error::new(format!(
                "{v} is returned after {} consumed it (arrays stored into must be used linearly)",
                graph.node_value(by)
            )));
        }
    }
    Ok(())
}
