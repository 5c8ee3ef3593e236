//! The printer: the canonical text form of docs/IR.md. The entry function comes first, then
//! every region in the order a depth-first walk from the entry first meets it.

use std::fmt::{self, Write};
use std::sync::Arc;

use super::{Graph, Op};

/// The IR text of a graph and its regions, with the `ember-ir` header: version 1 when nothing
/// needs version 2 (so version-1 text prints back unchanged), else 2.
pub fn print(graph: &Graph) -> String {
    graph.to_string()
}

/// The functions of a module in print order, each with the name it is printed under (a
/// region whose name another, different region already took gets a `_N` suffix).
struct Names {
    funcs: Vec<(Arc<Graph>, String)>,
}

impl Names {
    fn of(entry: &Graph) -> Names {
        let mut names = Names { funcs: Vec::new() };
        names.walk(entry);
        names
    }

    fn walk(&mut self, graph: &Graph) {
        for node in &graph.nodes {
            for region in node.op.regions() {
                if self.name(region).is_some() {
                    continue;
                }
                let mut name = region.name.clone();
                let mut n = 1;
                while self.funcs.iter().any(|(_, used)| *used == name) {
                    n += 1;
                    name = format!("{}_{n}", region.name);
                }
                self.funcs.push((region.clone(), name));
                self.walk(region);
            }
        }
    }

    fn name(&self, region: &Arc<Graph>) -> Option<&str> {
        self.funcs
            .iter()
            .find(|(g, _)| Arc::ptr_eq(g, region) || **g == **region)
            .map(|(_, name)| name.as_str())
    }
}

fn values(f: &mut impl Write, ids: impl Iterator<Item = super::ValueId>) -> fmt::Result {
    for (i, v) in ids.enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{v}")?;
    }
    Ok(())
}

fn func(f: &mut impl Write, graph: &Graph, name: &str, names: &Names) -> fmt::Result {
    write!(f, "func @{name}(")?;
    for (i, ty) in graph.params.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "%{i}: {ty}")?;
    }
    f.write_str(") -> (")?;
    for (i, &v) in graph.results.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        match graph.value_type(v) {
            Some(ty) => write!(f, "{ty}")?,
            None => write!(f, "?{v}")?,
        }
    }
    writeln!(f, ") {{")?;
    let mut i = 0;
    while i < graph.nodes.len() {
        let node = &graph.nodes[i];
        let first = graph.node_value(i);
        // The further results of a multi-result statement are the projections after it.
        let mut types = vec![&node.ty];
        while let Some(next) = graph.nodes.get(i + types.len()) {
            match next.op {
                Op::Result { index, .. } if index == types.len() && next.inputs == [first] => {
                    types.push(&next.ty)
                }
                _ => break,
            }
        }
        f.write_str("  ")?;
        values(f, (0..types.len()).map(|k| graph.node_value(i + k)))?;
        write!(f, " = {}(", node.op.name())?;
        values(f, node.inputs.iter().copied())?;
        f.write_str(")")?;
        let mut regions = node.op.regions().into_iter();
        for (attr, value) in node.op.attrs() {
            match value {
                super::AttrValue::Func(own) => {
                    let printed = regions.next().and_then(|r| names.name(r)).unwrap_or(&own);
                    write!(f, " {attr}=@{printed}")?;
                }
                value => write!(f, " {attr}={value}")?,
            }
        }
        f.write_str(" : ")?;
        for (k, ty) in types.iter().enumerate() {
            if k > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{ty}")?;
        }
        f.write_str("\n")?;
        i += types.len();
    }
    f.write_str("  return")?;
    if !graph.results.is_empty() {
        f.write_str(" ")?;
        values(f, graph.results.iter().copied())?;
    }
    f.write_str("\n}\n")
}

impl fmt::Display for Graph {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names = Names::of(self);
        let version = if self.nodes.iter().any(|n| n.op.is_v2()) {
            2
        } else {
            1
        };
        writeln!(f, "ember-ir {version}")?;
        func(f, self, &self.name, &names)?;
        for (region, name) in &names.funcs {
            func(f, region, name, &names)?;
        }
        Ok(())
    }
}
