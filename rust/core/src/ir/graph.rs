//! A captured function: parameters, statements in definition order, results.

use std::fmt;

use super::{Op, Type};
use crate::error::Result;

/// A value of a graph: parameters are `%0..%n-1`, then each statement defines the next number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ValueId(pub u32);

impl ValueId {
    /// The dense index (as printed after `%`).
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for ValueId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "%{}", self.0)
    }
}

/// One statement: `%v = op(inputs) attrs : ty`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Node {
    /// The op and its attributes.
    pub op: Op,
    /// Operands, defined earlier.
    pub inputs: Vec<ValueId>,
    /// The declared result type.
    pub ty: Type,
}

/// A function of the IR. Value ids are dense: `params.len()` parameters, then one per node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Graph {
    /// The function name (after `@`).
    pub name: String,
    /// Parameter types, `%0..`.
    pub params: Vec<Type>,
    /// Statements in definition order.
    pub nodes: Vec<Node>,
    /// Returned values, in order.
    pub results: Vec<ValueId>,
}

impl Graph {
    /// An empty graph with these parameters.
    pub fn new(name: impl Into<String>, params: Vec<Type>) -> Self {
        Graph {
            name: name.into(),
            params,
            nodes: Vec::new(),
            results: Vec::new(),
        }
    }

    /// The number of values (parameters and statements).
    pub fn num_values(&self) -> usize {
        self.params.len() + self.nodes.len()
    }

    /// The id of parameter `i`.
    pub fn param(&self, i: usize) -> ValueId {
        ValueId(i as u32)
    }

    /// The statement defining `v`, or `None` for a parameter or an unknown id.
    pub fn node(&self, v: ValueId) -> Option<&Node> {
        v.index()
            .checked_sub(self.params.len())
            .and_then(|i| self.nodes.get(i))
    }

    /// The id defined by statement `i`.
    pub fn node_value(&self, i: usize) -> ValueId {
        ValueId((self.params.len() + i) as u32)
    }

    /// The type of a value, or `None` for an unknown id.
    pub fn value_type(&self, v: ValueId) -> Option<&Type> {
        match v.index().checked_sub(self.params.len()) {
            None => self.params.get(v.index()),
            Some(i) => self.nodes.get(i).map(|n| &n.ty),
        }
    }

    /// The types of the results (the `->` list).
    pub fn result_types(&self) -> Vec<Type> {
        self.results
            .iter()
            .filter_map(|&v| self.value_type(v).cloned())
            .collect()
    }

    /// Append a statement with a given type, returning its value.
    pub fn push(&mut self, op: Op, inputs: Vec<ValueId>, ty: Type) -> ValueId {
        self.nodes.push(Node { op, inputs, ty });
        self.node_value(self.nodes.len() - 1)
    }

    /// Append a statement whose type is inferred from its operands' types.
    pub fn add(&mut self, op: Op, inputs: Vec<ValueId>) -> Result<ValueId> {
        let types: Vec<&Type> = inputs
            .iter()
            .map(|&v| {
                self.value_type(v)
                    .ok_or_else(|| crate::error::Error::new(format!("{v} is not defined")))
            })
            .collect::<Result<_>>()?;
        let ty = crate::infer::infer(&op, &types)?;
        Ok(self.push(op, inputs, ty))
    }
}
