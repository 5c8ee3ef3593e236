//! The compiled-graph half of `ember._core`: IR round trips, the pass pipeline and executable
//! graphs. Rust errors become Python exceptions here and nowhere else.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

create_exception!(
    _core,
    IRError,
    PyValueError,
    "Malformed or ill-typed ember IR: the message names line:column, or op and value."
);

/// Converts a core error (parse, verification, inference) into an `IRError`.
pub fn ir_error(err: ember_core::Error) -> PyErr {
    IRError::new_err(err.to_string())
}

/// Parses and verifies IR text, returning a graph.
fn parse(text: &str) -> PyResult<ember_core::ir::Graph> {
    let graph = ember_core::ir::parse(text).map_err(ir_error)?;
    ember_core::verify(&graph).map_err(ir_error)?;
    Ok(graph)
}

/// Parse, verify and print back (the round trip, for tests).
#[pyfunction]
fn parse_ir(text: &str) -> PyResult<String> {
    Ok(ember_core::ir::print(&parse(text)?))
}

/// Adds the compiled-graph functions and types to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("IRError", m.py().get_type::<IRError>())?;
    m.add_function(wrap_pyfunction!(parse_ir, m)?)?;
    Ok(())
}
