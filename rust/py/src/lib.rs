//! The `ember._core` extension module: the PEP 523 frame hook, guard evaluation and compiled
//! graphs. This is the only crate that knows Python; CPython 3.11 only (private frame API).
#![deny(missing_docs)]

mod cache;
mod compiled;
mod cpython;
mod errors;
mod frame_api;
mod graph;
mod guards;
mod hook;
mod runtime;
mod skip;

use pyo3::prelude::*;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    frame_api::register(m)?;
    graph::register(m)
}
