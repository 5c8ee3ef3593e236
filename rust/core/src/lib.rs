//! ember's compiler core: the IR, its text form, inference, passes and a reference interpreter.
//!
//! Crate map:
//! - [`ir`]: dtypes, types, ops, graphs; `ir::parse` and `ir::print` for the text form.
//! - [`infer`]: the result type of an op from its operands' types (NumPy 2 / NEP 50).
//! - [`verify`]: checks a graph: definitions before use, arity, attributes, declared types.
//! - [`passes`]: the optimiser (fold, simplify, cse, dce) and its pass manager.
//! - [`views`]: view ops as strided layouts (offset, shape, strides), for the back end.
//! - [`interp`]: the reference interpreter on host arrays, NumPy's semantics; the oracle.
//! - [`error`]: the one error type, located by line:column or by op and value.
#![deny(missing_docs)]

pub mod error;
pub mod infer;
pub mod interp;
pub mod ir;
pub mod passes;
mod verifier;
pub mod views;

pub use error::{Error, Result};
pub use verifier::verify;
