//! `joint_partition`: the core's autodiff (joint graph and min-cut partition) on IR text.

use pyo3::prelude::*;
use pyo3::types::PyDict;

use ember_core::autodiff::{differentiate, Residual, Strategy};
use ember_core::ir::{parse, print};

use crate::errors::ir_error;

/// Differentiate the IR `text` with respect to the inputs `wrt`, seeding a cotangent for each
/// output flagged in `differentiate`; returns (forward text, backward text, report dict).
#[pyfunction]
#[pyo3(signature = (text, wrt, differentiate_outputs, min_cut = true))]
fn joint_partition<'py>(
    py: Python<'py>,
    text: &str,
    wrt: Vec<usize>,
    differentiate_outputs: Vec<bool>,
    min_cut: bool,
) -> PyResult<(String, String, Bound<'py, PyDict>)> {
    let graph = parse(text).map_err(ir_error)?;
    let strategy = if min_cut {
        Strategy::MinCut
    } else {
        Strategy::SaveAll
    };
    let split = differentiate(&graph, &wrt, &differentiate_outputs, strategy).map_err(ir_error)?;
    let p = &split.partition;
    let report = PyDict::new(py);
    report.set_item("joint", print(&split.joint.graph))?;
    report.set_item(
        "saved",
        p.saved.iter().map(|v| v.to_string()).collect::<Vec<_>>(),
    )?;
    let residuals: Vec<(&str, usize)> = p
        .residuals
        .iter()
        .map(|r| match *r {
            Residual::Input(i) => ("input", i),
            Residual::Output(j) => ("output", j),
        })
        .collect();
    report.set_item("residuals", residuals)?;
    report.set_item("residual_bytes", p.residual_bytes)?;
    report.set_item("save_all_bytes", split.save_all_bytes)?;
    report.set_item("text", split.report())?;
    Ok((print(&p.forward), print(&p.backward), report))
}

/// Adds the autodiff function to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(joint_partition, m)?)
}
