//! ember's back end: fused kernels compiled to native code with Cranelift.
//!
//! [`kernel`] is the loop-level IR (iteration space, buffers, expression DAG, stages),
//! `lower` turns a kernel into a Cranelift function with SIMD paths, [`jit`] owns the
//! executable memory and [`exec`] runs a compiled kernel over array views.
#![deny(missing_docs)]

pub mod exec;
mod graph;
pub mod jit;
pub mod kernel;
mod lower;
mod matmul;
mod reuse;
mod schedule;

pub use graph::{compile, ArrayView, ArrayViewMut, CompiledGraph, Options};

use std::fmt;

/// Everything that can go wrong while compiling or running a graph.
#[derive(Clone, Debug, PartialEq)]
pub enum Error {
    /// The graph uses something codegen does not handle; the message names it.
    Unsupported(String),
    /// Cranelift rejected generated code (a bug in ember).
    Codegen(String),
    /// A caller-provided array does not match the compiled signature.
    Mismatch(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Unsupported(m) => write!(f, "not supported by the cranelift backend: {m}"),
            Error::Codegen(m) => write!(f, "code generation failed: {m}"),
            Error::Mismatch(m) => write!(f, "argument mismatch: {m}"),
        }
    }
}

impl std::error::Error for Error {}
