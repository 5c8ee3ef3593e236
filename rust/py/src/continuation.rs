//! Continuations of graph breaks and the trampoline that follows them
//! (`capture/resume/continuation.py` describes the protocol). Native so that a break costs
//! no Python frame of ember's own per trip: a step stub builds its continuation with one
//! type call, and the trampoline makes and calls each resume function from here.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::ffi::{self, PyObject};
use pyo3::gc::PyVisit;
use pyo3::prelude::*;
use pyo3::types::{PyCode, PyDict, PyTuple};
use pyo3::PyTraverseError;
use smallvec::SmallVec;

/// Call `resume_code` (with `closure`) on `values` to go on with the frame. Step stubs build
/// one directly (`Continuation(code, closure, *values)`: a constant of every step).
#[pyclass(module = "ember._core", frozen)]
pub struct Continuation {
    /// The resume function's code.
    #[pyo3(get)]
    resume_code: Py<PyCode>,
    /// Its closure: a tuple of cells, or None.
    #[pyo3(get)]
    closure: Py<PyAny>,
    /// Its arguments.
    #[pyo3(get)]
    values: Py<PyTuple>,
}

#[pymethods]
impl Continuation {
    #[new]
    #[pyo3(signature = (resume_code, closure, *values))]
    fn new(resume_code: Py<PyCode>, closure: Py<PyAny>, values: Py<PyTuple>) -> Self {
        Continuation {
            resume_code,
            closure,
            values,
        }
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let name = self.resume_code.bind(py).getattr("co_name")?;
        Ok(format!(
            "<Continuation {name} with {} values>",
            self.values.bind(py).len()
        ))
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.resume_code)?;
        visit.call(&self.closure)?;
        visit.call(&self.values)
    }
}

/// `FunctionType(code, fn_globals, code.co_name, None, closure)`, checked as that call checks
/// the closure.
fn resume_function<'py>(
    py: Python<'py>,
    code: &Bound<'py, PyCode>,
    fn_globals: &Bound<'py, PyDict>,
    closure: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let free: usize = code.getattr(pyo3::intern!(py, "co_freevars"))?.len()?;
    let cells = if closure.is_none() {
        0
    } else {
        let cells = closure.cast::<PyTuple>().map_err(|_| {
            PyTypeError::new_err("a continuation's closure must be a tuple or None")
        })?;
        let cell_type = std::ptr::addr_of_mut!(crate::cpython::PyCell_Type);
        if cells
            .iter()
            .any(|cell| !std::ptr::eq(cell.get_type_ptr(), cell_type))
        {
            return Err(PyTypeError::new_err(
                "a continuation's closure must hold cells",
            ));
        }
        cells.len()
    };
    if cells != free {
        return Err(PyValueError::new_err(format!(
            "a continuation's code needs a closure of {free} cells, got {cells}"
        )));
    }
    // SAFETY: a live code object and dict; `PyFunction_New` returns a new reference or NULL
    // with an exception set (its name and builtins as `FunctionType` gives them), and
    // `PyFunction_SetClosure` takes a tuple of the code's free variables' count, or None.
    unsafe {
        let function = Bound::from_owned_ptr_or_err(
            py,
            ffi::PyFunction_New(code.as_ptr(), fn_globals.as_ptr()),
        )?;
        if cells > 0 && ffi::PyFunction_SetClosure(function.as_ptr(), closure.as_ptr()) != 0 {
            return Err(PyErr::fetch(py));
        }
        Ok(function)
    }
}

/// Follow continuations until a frame returns a plain result: each resume function is made
/// (in `fn_globals`, per trip: a cache of them would keep the user's globals alive) and
/// called with its values; the frame hook intercepts it as any call.
#[pyfunction]
fn trampoline<'py>(
    result: Bound<'py, PyAny>,
    fn_globals: &Bound<'py, PyDict>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = result.py();
    let mut result = result;
    loop {
        let next = match result.cast_exact::<Continuation>() {
            Ok(continuation) => {
                let c = continuation.get();
                let code = c.resume_code.bind(py);
                let resume = resume_function(py, code, fn_globals, c.closure.bind(py))?;
                let values = c.values.bind(py);
                let slots: SmallVec<[*mut PyObject; 8]> =
                    values.iter_borrowed().map(|v| v.as_ptr()).collect();
                // SAFETY: `resume` is a function of `code`; the values are borrowed from
                // `values`, held for the call.
                unsafe {
                    let called = crate::hook::call_resume(
                        py,
                        resume.as_ptr(),
                        code.as_ptr().cast(),
                        &slots,
                    )?;
                    Bound::from_owned_ptr(py, called)
                }
            }
            Err(_) => return Ok(result),
        };
        result = next;
    }
}

/// Registers `Continuation` and `trampoline`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Continuation>()?;
    m.add_function(wrap_pyfunction!(trampoline, m)?)
}
