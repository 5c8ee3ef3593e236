//! The parser of the text form. Spaces between tokens are not significant (the printer's
//! spacing is canonical); `#` starts a comment to the end of the line; blank lines are skipped.
//! Every malformed input is an [`Error`] with line and column, never a panic.

use std::collections::HashMap;
use std::sync::Arc;

use super::lexer::{Lexer, Tok};
use super::{AttrValue, DType, Dim, Graph, Node, Op, Type, ValueId};
use crate::error::{Error, Result};

/// The newest IR version this crate reads and writes (it reads version 1 too).
pub const VERSION: u32 = 2;

struct Parser<'a> {
    lexer: Lexer<'a>,
    tok: Tok,
    line: usize,
    col: usize,
}

/// Parse IR text into a graph: the module's entry function, with the regions its `loop` and
/// `if` statements name resolved into their ops. Checks the syntax, the version, the dense
/// numbering, that operands are defined before use and that every function but the entry is
/// a region named exactly where it is used (no recursion), and builds typed ops from the
/// attributes; the types are checked by [`crate::verify`].
pub fn parse(text: &str) -> Result<Graph> {
    let mut lexer = Lexer::new(text.as_bytes());
    let (tok, line, col) = lexer.next()?;
    let mut p = Parser {
        lexer,
        tok,
        line,
        col,
    };
    p.module()
}

impl Parser<'_> {
    fn advance(&mut self) -> Result<Tok> {
        let (tok, line, col) = self.lexer.next()?;
        self.line = line;
        self.col = col;
        Ok(std::mem::replace(&mut self.tok, tok))
    }

    fn error<T>(&self, message: impl Into<String>) -> Result<T> {
        Err(Error::at(self.line, self.col, message))
    }

    fn expected<T>(&self, what: &str) -> Result<T> {
        self.error(format!("expected {what}, found {}", self.tok.describe()))
    }

    fn punct(&mut self, c: char) -> Result<()> {
        if self.tok == Tok::Punct(c) {
            self.advance()?;
            Ok(())
        } else {
            self.expected(&format!("`{c}`"))
        }
    }

    fn keyword(&mut self, word: &str) -> Result<()> {
        if self.tok == Tok::Ident(word.into()) {
            self.advance()?;
            Ok(())
        } else {
            self.expected(&format!("`{word}`"))
        }
    }

    fn ident(&mut self, what: &str) -> Result<String> {
        match &self.tok {
            Tok::Ident(s) => {
                let s = s.clone();
                self.advance()?;
                Ok(s)
            }
            _ => self.expected(what),
        }
    }

    fn newline(&mut self) -> Result<()> {
        if !matches!(self.tok, Tok::Newline | Tok::Eof) {
            return self.expected("end of line");
        }
        self.skip_blank_lines()
    }

    fn skip_blank_lines(&mut self) -> Result<()> {
        while self.tok == Tok::Newline {
            self.advance()?;
        }
        Ok(())
    }

    fn module(&mut self) -> Result<Graph> {
        self.skip_blank_lines()?;
        self.keyword("ember")?;
        self.punct('-')?;
        self.keyword("ir")?;
        let version = match self.tok {
            Tok::Int(v) if v == 1 || v == i128::from(VERSION) => v,
            Tok::Int(v) => {
                return self.error(format!(
                    "unsupported ember IR version {v}: this parser reads versions 1 and {VERSION}"
                ));
            }
            _ => return self.expected("the IR version"),
        };
        self.advance()?;
        self.newline()?;
        let mut funcs = vec![self.func()?];
        self.skip_blank_lines()?;
        while self.tok != Tok::Eof {
            if version == 1 {
                return self.expected("end of input after the function (version 1 has one)");
            }
            funcs.push(self.func()?);
            self.skip_blank_lines()?;
        }
        if version == 1 {
            if let Some(node) = funcs[0].nodes.iter().find(|n| n.op.is_v2()) {
                return Err(Error::new(format!(
                    "`{}` needs ember IR version 2 (the header says 1)",
                    node.op.name()
                )));
            }
        }
        resolve_module(funcs)
    }

    fn func(&mut self) -> Result<Graph> {
        self.keyword("func")?;
        self.punct('@')?;
        let name = self.ident("a function name")?;
        self.punct('(')?;
        let mut graph = Graph::new(name, Vec::new());
        while self.tok != Tok::Punct(')') {
            if !graph.params.is_empty() {
                self.punct(',')?;
            }
            self.define(graph.num_values())?;
            self.punct(':')?;
            let ty = self.ty()?;
            graph.params.push(ty);
        }
        self.punct(')')?;
        if self.tok != Tok::Arrow {
            return self.expected("`->`");
        }
        self.advance()?;
        self.punct('(')?;
        let mut result_types = Vec::new();
        while self.tok != Tok::Punct(')') {
            if !result_types.is_empty() {
                self.punct(',')?;
            }
            result_types.push((self.line, self.col, self.ty()?));
        }
        self.punct(')')?;
        self.punct('{')?;
        self.newline()?;
        while self.tok != Tok::Ident("return".into()) {
            let nodes = self.stmt(&graph)?;
            graph.nodes.extend(nodes);
        }
        self.advance()?;
        while !matches!(self.tok, Tok::Newline | Tok::Eof) {
            if !graph.results.is_empty() {
                self.punct(',')?;
            }
            let v = self.operand(&graph)?;
            graph.results.push(v);
        }
        self.newline()?;
        self.punct('}')?;
        if result_types.len() != graph.results.len() {
            return self.error(format!(
                "the signature declares {} result(s) but `return` lists {}",
                result_types.len(),
                graph.results.len()
            ));
        }
        for ((line, col, ty), &v) in result_types.iter().zip(&graph.results) {
            if graph.value_type(v) != Some(ty) {
                let actual = graph.value_type(v).map_or(String::new(), |t| t.to_string());
                return Err(Error::at(
                    *line,
                    *col,
                    format!("result type {ty} differs from the type {actual} of {v}"),
                ));
            }
        }
        Ok(graph)
    }

    /// A value definition, which must be the next dense number.
    fn define(&mut self, next: usize) -> Result<()> {
        match self.tok {
            Tok::Value(v) if v as usize == next => {
                self.advance()?;
                Ok(())
            }
            Tok::Value(v) => self.error(format!(
                "values are numbered densely: expected %{next}, found %{v}"
            )),
            _ => self.expected(&format!("%{next}")),
        }
    }

    fn operand(&mut self, graph: &Graph) -> Result<ValueId> {
        match self.tok {
            Tok::Value(v) if (v as usize) < graph.num_values() => {
                self.advance()?;
                Ok(ValueId(v))
            }
            Tok::Value(v) => self.error(format!("%{v} is used before it is defined")),
            _ => self.expected("an operand"),
        }
    }

    /// One statement: its node, then a [`Op::Result`] node per further result.
    fn stmt(&mut self, graph: &Graph) -> Result<Vec<Node>> {
        let value = graph.num_values();
        self.define(value)?;
        let mut count = 1;
        while self.tok == Tok::Punct(',') {
            self.advance()?;
            self.define(value + count)?;
            count += 1;
        }
        self.punct('=')?;
        let (op_line, op_col) = (self.line, self.col);
        let name = self.ident("an op name")?;
        let Some(attr_names) = Op::attr_names(&name) else {
            return Err(Error::at(op_line, op_col, format!("unknown op `{name}`")));
        };
        self.punct('(')?;
        let mut inputs = Vec::new();
        while self.tok != Tok::Punct(')') {
            if !inputs.is_empty() {
                self.punct(',')?;
            }
            inputs.push(self.operand(graph)?);
        }
        self.punct(')')?;
        let mut values = Vec::new();
        let mut positions = Vec::new();
        while self.tok != Tok::Punct(':') {
            let (line, col) = (self.line, self.col);
            let attr = self.ident("an attribute or `:`")?;
            match attr_names.get(values.len()) {
                Some(&want) if want == attr => {}
                Some(&want) => {
                    return Err(Error::at(
                        line,
                        col,
                        format!("{name}: expected attribute `{want}`, found `{attr}`"),
                    ))
                }
                None => {
                    return Err(Error::at(
                        line,
                        col,
                        format!("{name}: unexpected attribute `{attr}`"),
                    ))
                }
            }
            self.punct('=')?;
            positions.push((self.line, self.col));
            values.push(self.avalue()?);
        }
        if let Some(missing) = attr_names.get(values.len()) {
            return self.error(format!("{name}: missing attribute `{missing}`"));
        }
        self.punct(':')?;
        let mut types = vec![self.ty()?];
        while self.tok == Tok::Punct(',') {
            self.advance()?;
            types.push(self.ty()?);
        }
        if types.len() != count {
            return self.error(format!(
                "the statement defines {count} value(s) but lists {} type(s)",
                types.len()
            ));
        }
        self.newline()?;
        let ty = types[0].clone();
        let op = Op::from_text(&name, &values, &ty).map_err(|(at, message)| {
            let (line, col) = at
                .and_then(|i| positions.get(i).copied())
                .unwrap_or((op_line, op_col));
            Error::at(line, col, message)
        })?;
        if count > 1 && op.regions().is_empty() {
            return Err(Error::at(
                op_line,
                op_col,
                format!("{name} defines one value, not {count}"),
            ));
        }
        let first = ValueId(value as u32);
        let mut nodes = vec![Node { op, inputs, ty }];
        for (index, ty) in types.into_iter().enumerate().skip(1) {
            nodes.push(Node {
                op: Op::Result {
                    index,
                    ty: ty.clone(),
                },
                inputs: vec![first],
                ty,
            });
        }
        Ok(nodes)
    }

    fn avalue(&mut self) -> Result<AttrValue> {
        let (line, col) = (self.line, self.col);
        let value = match self.advance()? {
            Tok::Int(i) if self.tok == Tok::Punct('*') => {
                AttrValue::from_dim(&self.symbolic_dim(Tok::Int(i), line, col)?)
            }
            Tok::Int(i) => AttrValue::Int(i),
            Tok::Float(x) => AttrValue::Float(x),
            Tok::Ident(word) => match word.as_str() {
                "true" => AttrValue::Bool(true),
                "false" => AttrValue::Bool(false),
                "none" => AttrValue::None,
                _ => match DType::from_name(&word) {
                    Some(d) => AttrValue::DType(d),
                    None => AttrValue::Sym(self.symbolic_dim(Tok::Ident(word), line, col)?),
                },
            },
            Tok::Punct('@') => AttrValue::Func(self.ident("a function name")?),
            Tok::Punct('[') => {
                let mut items = Vec::new();
                while self.tok != Tok::Punct(']') {
                    if !items.is_empty() {
                        self.punct(',')?;
                    }
                    items.push(self.avalue()?);
                }
                self.advance()?;
                AttrValue::List(items)
            }
            other => {
                return Err(Error::at(
                    line,
                    col,
                    format!("expected an attribute value, found {}", other.describe()),
                ))
            }
        };
        Ok(value)
    }

    /// A symbolic dim whose first factor (`first`, a symbol or an integer) was just read: a
    /// sum of terms, each an integer or symbol times more of them (`s0`, `s0-1`, `2*s0+s1`,
    /// `s0*s1`), brought to normal form.
    fn symbolic_dim(&mut self, first: Tok, line: usize, col: usize) -> Result<Dim> {
        let mut terms = Vec::new();
        let mut constant = 0i64;
        let (mut sign, mut factor) = (1i64, first);
        loop {
            let (mut coefficient, mut product) = (sign, Vec::new());
            loop {
                match factor {
                    Tok::Int(n) => {
                        let n = i64::try_from(n)
                            .ok()
                            .filter(|n| n.abs() <= i64::from(u32::MAX));
                        let n =
                            n.ok_or_else(|| Error::at(line, col, "a size in a dim is too large"))?;
                        coefficient *= n;
                    }
                    Tok::Ident(word) => product.push(symbol(word, line, col)?),
                    other => {
                        return Err(Error::at(
                            line,
                            col,
                            format!(
                                "expected a size or symbol in a dim, found {}",
                                other.describe()
                            ),
                        ))
                    }
                }
                if self.tok != Tok::Punct('*') {
                    break;
                }
                self.advance()?;
                factor = self.advance()?;
            }
            if product.is_empty() {
                constant += coefficient;
            } else {
                terms.push((product, coefficient));
            }
            match self.tok {
                Tok::Punct('+') | Tok::Punct('-') => {
                    sign = if self.tok == Tok::Punct('-') { -1 } else { 1 };
                    self.advance()?;
                    factor = self.advance()?;
                }
                Tok::Int(n) if n < 0 => {
                    sign = 1;
                    factor = self.advance()?;
                }
                _ => break,
            }
        }
        Dim::from_terms(terms, constant)
            .ok_or_else(|| Error::at(line, col, "a dim must not be a negative size"))
    }

    fn ty(&mut self) -> Result<Type> {
        let (line, col) = (self.line, self.col);
        let name = self.ident("a dtype")?;
        let Some(dtype) = DType::from_name(&name) else {
            return Err(Error::at(line, col, format!("unknown dtype `{name}`")));
        };
        self.punct('[')?;
        let mut shape = Vec::new();
        while self.tok != Tok::Punct(']') {
            if !shape.is_empty() {
                self.punct(',')?;
            }
            let (line, col) = (self.line, self.col);
            let dim = match self.advance()? {
                Tok::Int(n) if self.tok == Tok::Punct('*') => {
                    self.symbolic_dim(Tok::Int(n), line, col)?
                }
                Tok::Int(n) if (0..=i128::from(u32::MAX)).contains(&n) => Dim::Static(n as usize),
                Tok::Ident(s) => self.symbolic_dim(Tok::Ident(s), line, col)?,
                other => {
                    return Err(Error::at(
                        line,
                        col,
                        format!("expected a dimension, found {}", other.describe()),
                    ))
                }
            };
            shape.push(dim);
        }
        self.advance()?;
        let weak = self.tok == Tok::Ident("weak".into());
        if weak {
            self.advance()?;
        }
        Ok(Type { dtype, shape, weak })
    }
}

/// Puts each region into the ops that name it, depth first from the entry (the first
/// function). Every other function must be named somewhere, and never by itself or a caller.
fn resolve_module(funcs: Vec<Graph>) -> Result<Graph> {
    let mut index = HashMap::new();
    for (i, f) in funcs.iter().enumerate() {
        if index.insert(f.name.clone(), i).is_some() {
            return Err(Error::new(format!("function @{} is defined twice", f.name)));
        }
    }
    let mut resolved: Vec<Option<Arc<Graph>>> = vec![None; funcs.len()];
    let mut stack = Vec::new();
    let entry = resolve_func(0, &funcs, &index, &mut resolved, &mut stack)?;
    if let Some(i) = (1..funcs.len()).find(|&i| resolved[i].is_none()) {
        return Err(Error::new(format!(
            "function @{} is never used (only the first function is an entry)",
            funcs[i].name
        )));
    }
    Ok(Arc::unwrap_or_clone(entry))
}

fn resolve_func(
    i: usize,
    funcs: &[Graph],
    index: &HashMap<String, usize>,
    resolved: &mut Vec<Option<Arc<Graph>>>,
    stack: &mut Vec<usize>,
) -> Result<Arc<Graph>> {
    if let Some(done) = &resolved[i] {
        return Ok(done.clone());
    }
    stack.push(i);
    let mut graph = funcs[i].clone();
    for node in &mut graph.nodes {
        let mut regions = Vec::new();
        for region in node.op.regions() {
            let Some(&j) = index.get(&region.name) else {
                return Err(Error::new(format!(
                    "@{}: unknown function @{}",
                    funcs[i].name, region.name
                )));
            };
            if stack.contains(&j) {
                return Err(Error::new(format!(
                    "@{}: region @{} is recursive (it runs itself or a function that runs it)",
                    funcs[i].name, region.name
                )));
            }
            regions.push(resolve_func(j, funcs, index, resolved, stack)?);
        }
        if !regions.is_empty() {
            node.op = node.op.with_regions(regions.into_iter());
        }
    }
    stack.pop();
    let graph = Arc::new(graph);
    resolved[i] = Some(graph.clone());
    Ok(graph)
}

/// A shape symbol: `[a-z_][a-z0-9_]*`.
fn symbol(word: String, line: usize, col: usize) -> Result<String> {
    let ok = word
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_lowercase() || b == b'_')
        && word
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    if ok {
        Ok(word)
    } else {
        Err(Error::at(
            line,
            col,
            format!("`{word}` is not a shape symbol ([a-z_][a-z0-9_]*)"),
        ))
    }
}
