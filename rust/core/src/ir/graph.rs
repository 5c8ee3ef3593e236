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
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
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

    /// The parameter whose contents `v` is a new version of, through `store` and the carried
    /// values of `loop` and `if`: the buffer a back end may update in place for `v` (linear
    /// use makes that valid). `None` for values computed any other way.
    pub fn version_root(&self, v: ValueId) -> Option<usize> {
        let mut v = v;
        loop {
            if v.index() < self.params.len() {
                return Some(v.index());
            }
            let node = self.node(v)?;
            let (statement, index) = match node.op {
                Op::Result { index, .. } => (*node.inputs.first()?, index),
                _ => (v, 0),
            };
            let node = self.node(statement)?;
            v = match &node.op {
                Op::Store => node.inputs[0],
                Op::Loop { .. } => *node.inputs.get(3 + index)?,
                Op::If { then, otherwise } => {
                    let p = then.version_root(*then.results.get(index)?)?;
                    let q = otherwise.version_root(*otherwise.results.get(index)?)?;
                    if p != q {
                        return None;
                    }
                    *node.inputs.get(1 + p)?
                }
                _ => return None,
            };
        }
    }

    /// The operands a statement consumes (positions in its operand list): the array a `store`
    /// writes, the carried arrays of a `loop`, and the operands whose region parameter the
    /// region consumes. A consumed version is never read again (linear use), so a back end may
    /// update its buffer in place.
    pub fn consumed_operands(&self, node: &Node) -> Vec<usize> {
        let array = |pos: &usize| {
            node.inputs
                .get(*pos)
                .and_then(|&v| self.value_type(v))
                .is_some_and(|t| !t.shape.is_empty())
        };
        let mut consumed: Vec<usize> = match &node.op {
            Op::Store => vec![0],
            Op::Loop { body, carried } => (3..3 + carried)
                .filter(array)
                .chain(
                    body.consumed_params()
                        .into_iter()
                        .filter(|&p| p > 0)
                        .map(|p| p + 2),
                )
                .collect(),
            Op::If { then, otherwise } => then
                .consumed_params()
                .into_iter()
                .chain(otherwise.consumed_params())
                .map(|p| p + 1)
                .collect(),
            _ => Vec::new(),
        };
        consumed.sort_unstable();
        consumed.dedup();
        consumed
    }

    /// The parameters some statement of this graph consumes a version of.
    pub fn consumed_params(&self) -> Vec<usize> {
        let mut params: Vec<usize> = self
            .nodes
            .iter()
            .flat_map(|n| {
                self.consumed_operands(n)
                    .into_iter()
                    .filter_map(|pos| self.version_root(n.inputs[pos]))
            })
            .collect();
        params.sort_unstable();
        params.dedup();
        params
    }
}
