//! The compiled-graph half of `ember._core`: IR round trips, the pass pipeline and executable
//! graphs. Rust errors become Python exceptions here and nowhere else.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::compiled::CompiledGraph;
use crate::errors::ir_error;
use crate::runtime::run_detached;

create_exception!(
    _core,
    IRError,
    PyValueError,
    "Malformed or ill-typed ember IR: the message names line:column, or op and value."
);

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

/// The IR after each pass of the pipeline, as (pass name, text).
#[pyfunction]
fn pipeline_stages(text: &str) -> PyResult<Vec<(&'static str, String)>> {
    let (_, stages) = ember_core::passes::run_pipeline(&parse(text)?, true).map_err(ir_error)?;
    Ok(stages
        .into_iter()
        .map(|stage| (stage.pass, stage.text))
        .collect())
}

/// Parses, verifies, optimises and compiles IR to native code (`num_threads` 0: all cores).
#[pyfunction]
#[pyo3(signature = (text, num_threads = 0))]
fn compile_ir(py: Python<'_>, text: &str, num_threads: usize) -> PyResult<CompiledGraph> {
    let graph = parse(text)?;
    let (optimised, _) = ember_core::passes::run_pipeline(&graph, false).map_err(ir_error)?;
    let options = ember_codegen::Options { num_threads };
    // Cranelift takes milliseconds: let other Python threads run meanwhile.
    let compiled = run_detached(py, "code generation", || {
        ember_codegen::compile(&optimised, &options)
    })?;
    Ok(CompiledGraph::new(
        ember_core::ir::print(&optimised),
        compiled,
    ))
}

/// Sets the process-wide budget, in bytes, of output arrays kept for reuse (0: none).
#[pyfunction]
fn set_recycle_budget(bytes: usize) {
    crate::recycle::set_budget(bytes);
}

/// `(budget, bytes held now)` of the pool of output arrays kept for reuse.
#[pyfunction]
fn recycle_usage() -> (usize, usize) {
    crate::recycle::usage()
}

/// Makes float products call a CBLAS library already loaded in this process: the addresses
/// of its `sgemm`, `dgemm`, `sgemv`, `dgemv` and whether its integers are 64-bit. `None`
/// returns every product to the `gemm` crate. Returns whether a BLAS was registered before.
///
/// Calling it with addresses that are not those functions crashes the process: the Python
/// package passes only symbols it resolved by name in NumPy's own BLAS.
#[pyfunction]
#[pyo3(signature = (addresses, ilp64 = true))]
fn set_blas(addresses: Option<(usize, usize, usize, usize)>, ilp64: bool) -> bool {
    let before = ember_codegen::registered_blas().is_some();
    let blas = addresses.map(|(sgemm, dgemm, sgemv, dgemv)| ember_codegen::Blas {
        sgemm,
        dgemm,
        sgemv,
        dgemv,
        ilp64,
    });
    // SAFETY: the addresses are resolved by name from a loaded library (see above), which
    // NumPy keeps loaded for the life of the process.
    unsafe { ember_codegen::register_blas(blas) };
    before
}

/// Adds the compiled-graph functions and types to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("IRError", m.py().get_type::<IRError>())?;
    m.add_function(wrap_pyfunction!(parse_ir, m)?)?;
    m.add_function(wrap_pyfunction!(pipeline_stages, m)?)?;
    m.add_function(wrap_pyfunction!(compile_ir, m)?)?;
    m.add_function(wrap_pyfunction!(set_recycle_budget, m)?)?;
    m.add_function(wrap_pyfunction!(recycle_usage, m)?)?;
    m.add_function(wrap_pyfunction!(set_blas, m)?)?;
    m.add_class::<CompiledGraph>()?;
    Ok(())
}
