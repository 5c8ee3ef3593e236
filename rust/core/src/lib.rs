//! ember's compiler core: the IR, its text form, inference, passes and a reference interpreter.
//!
//! Crate map:
//! - [`autodiff`]: VJP rules, the joint forward+backward graph and the min-cut partitioner.
//! - [`ir`]: dtypes, types, ops, graphs; `ir::parse` and `ir::print` for the text form.
//! - [`infer`]: the result type of an op from its operands' types (NumPy 2 / NEP 50).
//! - [`verify`]: checks a graph: definitions before use, arity, attributes, declared types.
//! - [`passes`]: the optimiser (fold, simplify, cse, dce) and its pass manager.
//! - [`views`]: view ops as strided layouts (offset, shape, strides), for the back end.
//! - [`interp`]: the reference interpreter on host arrays, NumPy's semantics; the oracle.
//! - [`error`]: the one error type, located by line:column or by op and value.
//!
//! Tests: `tests/golden/*.ir` (IR in, expectations after `# ----`; `EMBER_BLESS=1` rewrites
//! them; `tests/golden/check_numpy.py` checks their `run:` results against NumPy), and tables
//! written by NumPy under `tests/data/` for dtypes, op results and view strides.
//!
//! ```
//! use ember_core::interp::{self, HostArray};
//! use ember_core::{ir, passes, verify};
//!
//! let text = "ember-ir 1
//! func @f(%0: f32[3]) -> (f32[3]) {
//!   %1 = const() value=2 : i64[] weak
//!   %2 = pow(%0, %1) : f32[3]
//!   return %2
//! }
//! ";
//! let graph = ir::parse(text)?;
//! verify(&graph)?;
//! assert_eq!(ir::print(&graph), text);
//! let (optimised, stages) = passes::run_pipeline(&graph, true)?;
//! assert!(ir::print(&optimised).contains("mul(%0, %0)"));
//! assert_eq!(stages.len(), passes::PIPELINE.len());
//! let x = HostArray::parse("f32[3]{1.5, -2.0, nan}")?;
//! let y = interp::run(&optimised, &[x])?;
//! assert_eq!(y[0].to_string(), "f32[3]{2.25, 4.0, nan}");
//! # Ok::<(), ember_core::Error>(())
//! ```
#![deny(missing_docs)]

pub mod autodiff;
pub mod error;
pub mod infer;
pub mod interp;
pub mod ir;
pub mod passes;
mod verifier;
pub mod views;

pub use error::{Error, Result};
pub use verifier::verify;
