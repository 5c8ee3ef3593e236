//! The printer: the canonical text form of docs/IR.md.

use std::fmt::{self, Write};

use super::{Graph, VERSION};

/// The IR text of a graph, with its `ember-ir` header.
pub fn print(graph: &Graph) -> String {
    graph.to_string()
}

fn values(f: &mut fmt::Formatter<'_>, ids: impl Iterator<Item = super::ValueId>) -> fmt::Result {
    for (i, v) in ids.enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{v}")?;
    }
    Ok(())
}

impl fmt::Display for Graph {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "ember-ir {VERSION}")?;
        write!(f, "func @{}(", self.name)?;
        for (i, ty) in self.params.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "%{i}: {ty}")?;
        }
        f.write_str(") -> (")?;
        let mut types = String::new();
        for (i, &v) in self.results.iter().enumerate() {
            if i > 0 {
                types.push_str(", ");
            }
            match self.value_type(v) {
                Some(ty) => write!(types, "{ty}")?,
                None => write!(types, "?{v}")?,
            }
        }
        writeln!(f, "{types}) {{")?;
        for (i, node) in self.nodes.iter().enumerate() {
            write!(f, "  {} = {}(", self.node_value(i), node.op.name())?;
            values(f, node.inputs.iter().copied())?;
            f.write_str(")")?;
            for (name, value) in node.op.attrs() {
                write!(f, " {name}={value}")?;
            }
            writeln!(f, " : {}", node.ty)?;
        }
        f.write_str("  return")?;
        if !self.results.is_empty() {
            f.write_str(" ")?;
            values(f, self.results.iter().copied())?;
        }
        f.write_str("\n}\n")
    }
}
