//! The parser of the text form. Spaces between tokens are not significant (the printer's
//! spacing is canonical); `#` starts a comment to the end of the line; blank lines are skipped.
//! Every malformed input is an [`Error`] with line and column, never a panic.

use super::lexer::{Lexer, Tok};
use super::{AttrValue, DType, Dim, Graph, Node, Op, Type, ValueId};
use crate::error::{Error, Result};

/// The IR version this crate reads and writes.
pub const VERSION: u32 = 1;

struct Parser<'a> {
    lexer: Lexer<'a>,
    tok: Tok,
    line: usize,
    col: usize,
}

/// Parse IR text into a graph. Checks the syntax, the version, the dense numbering and that
/// operands are defined before use, and builds typed ops from the attributes; the types are
/// checked by [`crate::verify`].
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
        match self.tok {
            Tok::Int(v) if v == i128::from(VERSION) => {}
            Tok::Int(v) => {
                return self.error(format!(
                    "unsupported ember IR version {v}: this parser reads version {VERSION}"
                ));
            }
            _ => return self.expected("the IR version"),
        }
        self.advance()?;
        self.newline()?;
        let graph = self.func()?;
        self.skip_blank_lines()?;
        if self.tok != Tok::Eof {
            return self.expected("end of input after the function");
        }
        Ok(graph)
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
            let node = self.stmt(&graph)?;
            graph.nodes.push(node);
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

    fn stmt(&mut self, graph: &Graph) -> Result<Node> {
        let value = graph.num_values();
        self.define(value)?;
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
        let ty = self.ty()?;
        self.newline()?;
        let op = Op::from_text(&name, &values, &ty).map_err(|(at, message)| {
            let (line, col) = at
                .and_then(|i| positions.get(i).copied())
                .unwrap_or((op_line, op_col));
            Error::at(line, col, message)
        })?;
        Ok(Node { op, inputs, ty })
    }

    fn avalue(&mut self) -> Result<AttrValue> {
        let (line, col) = (self.line, self.col);
        let value = match self.advance()? {
            Tok::Int(i) => AttrValue::Int(i),
            Tok::Float(x) => AttrValue::Float(x),
            Tok::Ident(word) => match word.as_str() {
                "true" => AttrValue::Bool(true),
                "false" => AttrValue::Bool(false),
                "none" => AttrValue::None,
                _ => match DType::from_name(&word) {
                    Some(d) => AttrValue::DType(d),
                    None => AttrValue::Sym(symbol(word, line, col)?),
                },
            },
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
                Tok::Int(n) if (0..=i128::from(u32::MAX)).contains(&n) => Dim::Static(n as usize),
                Tok::Ident(s) => Dim::Sym(symbol(s, line, col)?),
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
