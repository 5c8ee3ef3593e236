//! The one place where Rust failures become Python exceptions.

use std::any::Any;
use std::thread::Result as Caught;

use pyo3::exceptions::{
    PyIndexError, PyMemoryError, PyNotImplementedError, PyRuntimeError, PyValueError,
};
use pyo3::panic::PanicException;
use pyo3::prelude::*;

use crate::graph::IRError;

pyo3::import_exception!(numpy.linalg, LinAlgError);

/// Malformed or ill-typed IR (parse, verification, a pass) → `IRError`, naming line:column or
/// op and value.
pub fn ir_error(err: ember_core::Error) -> PyErr {
    IRError::new_err(err.to_string())
}

/// Code generation and runtime failures: an op the back end lacks → `NotImplementedError` (the
/// caller can fall back to another backend), arrays that do not fit → `ValueError`, a code
/// generator failure → `RuntimeError`; errors the running code raises as Python would
/// (an index out of bounds → `IndexError`, `range()` with step 0 → `ValueError`, a singular
/// matrix → NumPy's `LinAlgError`, memory for arrays made in a loop → `MemoryError`) keep
/// their type and message.
pub fn codegen_error(err: ember_codegen::Error) -> PyErr {
    match err {
        ember_codegen::Error::Unsupported(_) => PyNotImplementedError::new_err(err.to_string()),
        ember_codegen::Error::Mismatch(_) => PyValueError::new_err(err.to_string()),
        ember_codegen::Error::Codegen(_) => PyRuntimeError::new_err(err.to_string()),
        ember_codegen::Error::Index(m) => PyIndexError::new_err(m),
        ember_codegen::Error::Value(m) => PyValueError::new_err(m),
        ember_codegen::Error::LinAlg(m) => LinAlgError::new_err(m),
        ember_codegen::Error::Memory(m) => PyMemoryError::new_err(m),
    }
}

/// A caught panic → `PanicException` with the panic's message.
pub fn panic_error(payload: Box<dyn Any + Send>, context: &str) -> PyErr {
    let message = payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    PanicException::new_err(format!("panic in {context}: {message}"))
}

/// The object pointer a C entry point (an eval-frame function, a vectorcall slot) returns for
/// what a call under `catch_unwind` gave: the result, or NULL with the error (or the panic,
/// as `PanicException` naming `context`) set as the pending Python exception.
pub fn into_c_result(
    py: Python<'_>,
    outcome: Caught<PyResult<*mut pyo3::ffi::PyObject>>,
    context: &str,
) -> *mut pyo3::ffi::PyObject {
    match outcome {
        Ok(Ok(result)) => result,
        Ok(Err(err)) => {
            err.restore(py);
            std::ptr::null_mut()
        }
        Err(payload) => {
            panic_error(payload, context).restore(py);
            std::ptr::null_mut()
        }
    }
}
