//! ember's back end: fused kernels compiled to native code with Cranelift.
//!
//! Pipeline, one module each:
//! - `schedule`: the `ember-core` graph becomes steps. Elementwise ops and views stay lazy
//!   and are computed inside the kernels that read them; reductions over one axis form a group
//!   kernel per (shape, axis) that also takes the elementwise work reading their per-row
//!   results (softmax and layernorm are one kernel: one read and one write of memory);
//!   reductions over an outer axis accumulate whole rows; matmul is an extern call (the host's
//!   CBLAS where registered, else the `gemm` crate);
//!   concatenate is strided copies into the output; `cumsum`/`cumprod` are an extern scan.
//! - [`kernel`]: the loop-level IR those kernels are written in.
//! - `lower`: a kernel as a Cranelift function, with 128-bit SIMD paths (unrolled, several
//!   accumulators), a strided scalar fallback, and vectorised `exp`, `expm1`, `log`, `log1p`,
//!   `tanh`, `sin`, `cos` (error bounds in ulps on each function).
//! - [`jit`]: one JIT module per compiled graph, freed with it; its Cranelift compiles go
//!   through the persistent cache of [`diskcache`] when one is configured.
//! - [`exec`]: runs a kernel over an iteration space, on threads when it is large.
//! - `graph`: [`compile`] and [`CompiledGraph::run`], with buffer reuse for intermediates.
//! - `dynamic`: graphs with symbolic dims: kernels by structure, a plan per binding.
//! - [`fpstatus`]: the floating-point exception flags a run raised, on every thread it used.
//!
//! Runtime contract: [`CompiledGraph::run`] takes the caller's arrays as raw strided views
//! ([`ArrayView`], [`ArrayViewMut`]), checks dtype, shape, whole-element strides and alignment
//! against [`CompiledGraph::input_types`] / [`CompiledGraph::output_types`], and writes every
//! element of the outputs, returning the floating-point exception flags the run raised. Graphs use
//! bool, i32, i64, f32 or f64; anything else is [`Error::Unsupported`], for the caller to run
//! another way. A graph with symbolic dims (`f32[s0,3]`) is planned per binding of its symbols
//! at run time, with its kernels generated once (`dynamic`).
#![deny(missing_docs)]

mod arrays;
mod body_loop;
mod buffers;
pub mod diskcache;
mod dynamic;
pub mod exec;
pub mod fpstatus;
mod gather;
mod graph;
pub mod jit;
pub mod kernel;
mod linalg;
mod lower;
mod matmul;
mod native;
mod quiet;
mod reuse;
mod scan;
mod schedule;
pub mod sort;
mod strided;
pub mod ufunc;

pub use dynamic::counters;
pub use graph::{
    compile, disassemble, ArrayView, ArrayViewMut, CompiledGraph, Options, Prepared, LIGHT_WORK,
};
pub use linalg::{register as register_lapack, registered as registered_lapack, Lapack};
pub use matmul::blas::{register as register_blas, registered as registered_blas, Blas};
pub use schedule::fusion_groups;

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
    /// Python's `IndexError`, raised by running code (an element index out of bounds).
    Index(String),
    /// Python's `ValueError`, raised by running code (`range()` with a zero step).
    Value(String),
    /// NumPy's `LinAlgError`, raised by running code (a singular matrix to `solve`).
    LinAlg(String),
    /// Python's `MemoryError`: memory the running code needs could not be allocated.
    Memory(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Unsupported(m) => write!(f, "not supported by the cranelift backend: {m}"),
            Error::Codegen(m) => write!(f, "code generation failed: {m}"),
            Error::Mismatch(m) => write!(f, "argument mismatch: {m}"),
            Error::Index(m) | Error::Value(m) | Error::LinAlg(m) | Error::Memory(m) => {
                f.write_str(m)
            }
        }
    }
}

impl std::error::Error for Error {}
