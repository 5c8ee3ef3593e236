//! `fusion_groups`: which statements the code generator fuses into one kernel, for drawing.

use pyo3::prelude::*;

use crate::errors::{codegen_error, ir_error};

/// Schedules the IR `text` as it stands (no passes) and returns (the kind of each step,
/// for each statement the index of the step computing it or None).
#[pyfunction]
fn fusion_groups(text: &str) -> PyResult<(Vec<&'static str>, Vec<Option<usize>>)> {
    let graph = ember_core::ir::parse(text).map_err(ir_error)?;
    ember_core::verify(&graph).map_err(ir_error)?;
    ember_codegen::fusion_groups(&graph).map_err(codegen_error)
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(fusion_groups, m)?)
}
