//! Rebuilding a graph statement by statement, mapping old values to new ones, so that passes
//! can drop, replace or add statements while keeping the numbering dense.

use crate::error::Result;
use crate::infer::infer;
use crate::ir::{Graph, Node, Op, Type, ValueId};

/// Builds a new graph from an old one: parameters are kept; each old value maps to a new one.
pub struct Rewriter {
    /// The graph being built.
    pub graph: Graph,
    map: Vec<ValueId>,
}

impl Rewriter {
    /// Start from `old`'s name and parameters.
    pub fn new(old: &Graph) -> Self {
        let graph = Graph::new(old.name.clone(), old.params.clone());
        let map = (0..old.params.len()).map(|i| ValueId(i as u32)).collect();
        Rewriter { graph, map }
    }

    /// The new value of an old one already visited.
    pub fn map(&self, old: ValueId) -> ValueId {
        self.map[old.index()]
    }

    /// Record the new value of the next old statement.
    pub fn set_next(&mut self, new: ValueId) {
        self.map.push(new);
    }

    /// Add a statement with a known type.
    pub fn emit_typed(&mut self, op: Op, inputs: Vec<ValueId>, ty: Type) -> ValueId {
        self.graph.push(op, inputs, ty)
    }

    /// An old statement with its operands mapped to new values.
    pub fn mapped(&self, node: &Node) -> Node {
        Node {
            op: node.op.clone(),
            inputs: node.inputs.iter().map(|&v| self.map(v)).collect(),
            ty: node.ty.clone(),
        }
    }

    /// The statement defining a new value, if it is one.
    pub fn producer(&self, v: ValueId) -> Option<&Node> {
        self.graph.node(v)
    }

    /// The type of a new value.
    pub fn type_of(&self, v: ValueId) -> Option<&Type> {
        self.graph.value_type(v)
    }

    /// Finish with `old`'s results mapped.
    pub fn finish(mut self, old: &Graph) -> Graph {
        self.graph.results = old.results.iter().map(|&v| self.map(v)).collect();
        self.graph
    }
}

/// Rebuild `old`, letting `visit` replace each (operand-mapped) statement by returning the new
/// value it becomes; `None` keeps the statement as it is.
pub fn rewrite(
    old: &Graph,
    mut visit: impl FnMut(&mut Rewriter, &Node) -> Result<Option<ValueId>>,
) -> Result<Graph> {
    let mut rw = Rewriter::new(old);
    for node in &old.nodes {
        let node = rw.mapped(node);
        let new = match visit(&mut rw, &node)? {
            Some(v) => v,
            None => rw.emit_typed(node.op, node.inputs, node.ty),
        };
        rw.set_next(new);
    }
    Ok(rw.finish(old))
}

/// Whether inference gives `ty` for `op` on these new values (a rule's safety check).
pub fn infers_to(rw: &Rewriter, op: &Op, inputs: &[ValueId], ty: &Type) -> bool {
    let types: Option<Vec<&Type>> = inputs.iter().map(|&v| rw.type_of(v)).collect();
    types.is_some_and(|t| infer(op, &t).is_ok_and(|inferred| inferred == *ty))
}
