//! The one error type of the core: where it happened (text position or op and value) and what.

use std::fmt;

use crate::ir::ValueId;

/// Where an [`Error`] happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// A position in IR text, 1-based line and column (in bytes).
    Text {
        /// 1-based line number.
        line: usize,
        /// 1-based column, counted in bytes.
        col: usize,
    },
    /// A statement of a graph: the op's text name and the value it defines.
    Value {
        /// The op's text name, e.g. `add`.
        op: &'static str,
        /// The value the statement defines.
        value: ValueId,
    },
    /// A whole graph or a standalone computation (inference of a single op, the interpreter).
    None,
}

/// An error of the core: malformed text, an ill-typed graph, an unsupported operation or a
/// run-time failure of the reference interpreter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// Where it happened.
    pub location: Location,
    /// What happened, as one readable sentence.
    pub message: String,
}

/// The result type of the core.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// An error without a location yet.
    pub fn new(message: impl Into<String>) -> Self {
        Error {
            location: Location::None,
            message: message.into(),
        }
    }

    /// An error at a text position.
    pub fn at(line: usize, col: usize, message: impl Into<String>) -> Self {
        Error {
            location: Location::Text { line, col },
            message: message.into(),
        }
    }

    /// Attach a statement location unless the error already has one.
    pub fn with_value(mut self, op: &'static str, value: ValueId) -> Self {
        if self.location == Location::None {
            self.location = Location::Value { op, value };
        }
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.location {
            Location::Text { line, col } => write!(f, "{line}:{col}: {}", self.message),
            Location::Value { op, value } => write!(f, "{value} = {op}: {}", self.message),
            Location::None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for Error {}
