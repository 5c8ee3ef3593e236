//! The IR: dtypes, types, ops, graphs, and the text form (`parse`, `print`).

mod attr;
mod dtype;
mod graph;
mod kinds;
mod lexer;
mod op;
mod parser;
mod printer;
mod region;
mod types;

pub use attr::{AttrError, AttrValue};
pub use dtype::{DType, Kind};
pub use graph::{Graph, Node, ValueId};
pub use kinds::{ArgReduceKind, BinaryOp, LinalgKind, ReduceKind, ScanKind, UnaryOp};
pub use op::{Arity, Op, OpClass, Region};
pub use parser::{parse, VERSION};
pub use printer::print;
pub use types::{format_float, Dim, Scalar, SymSize, Type};
