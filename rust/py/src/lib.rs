//! The `ember._core` extension module: the PEP 523 frame hook, guard evaluation and compiled
//! graphs. This is the only crate that knows Python; CPython 3.11 only (private frame API).
//! `python/ember/_core.pyi` is its contract.
//!
//! Crate map:
//! - `cpython`: the private 3.11 API (eval-frame function, code extras) and struct mirrors.
//! - `hook`: the eval-frame function: skip policy, cache lookup, converter call, entry call.
//! - `dispatch`: the native base class of compiled functions: the fast path of a cache hit
//!   on an entry that is one compiled graph, run without Python bytecode.
//! - `continuation`: graph breaks' continuations and the trampoline that follows them.
//! - `cache`: the per-code cache in a code object's extra slot; `reset`.
//! - `skip`: which source files are never converted.
//! - `guards`: guard trees compiled from their wire format and evaluated against a frame.
//! - `frame_api`: the Python functions of the hook and guard half.
//! - `graph`, `compiled`, `runtime`: IR round trip, pass stages, `CompiledGraph` over
//!   `ember_codegen` with NumPy inputs and outputs.
//! - `autodiff`: `joint_partition`, the core's joint graph and partitioner on IR text.
//! - `explain`: `fusion_groups`, which step of the code generator's schedule computes what.
//! - `diskcache`: settings and counters of the persistent compile cache.
//! - `recycle`: the process-wide, budgeted pool of output arrays kept for reuse.
//! - `errors`: the one place where Rust errors and panics become Python exceptions.
#![deny(missing_docs)]

mod autodiff;
mod cache;
mod compiled;
mod continuation;
mod cpython;
mod diskcache;
mod dispatch;
mod errors;
mod explain;
mod frame_api;
mod graph;
mod guards;
mod hook;
mod hot;
mod layouts;
mod overlap;
mod recycle;
mod runtime;
mod skip;

use pyo3::prelude::*;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    frame_api::register(m)?;
    dispatch::register(m)?;
    continuation::register(m)?;
    autodiff::register(m)?;
    explain::register(m)?;
    diskcache::register(m)?;
    overlap::register(m)?;
    graph::register(m)
}
