//! The Python functions of the frame hook and guard half of `ember._core`.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyCode, PyDict, PyFunction, PyTuple};

use crate::guards::{compile_tree, FrameView};
use crate::{cache, cpython, hook, skip};

/// Installs the converter called on a cache miss as `callback(func, args)` (None removes it);
/// returns the previous one.
#[pyfunction]
#[pyo3(signature = (callback))]
fn set_callback(callback: Option<Py<PyAny>>) -> Option<Py<PyAny>> {
    hook::set_callback(callback)
}

/// Sets this thread's enable token (False/0: off, True: 1, or an options token), returning
/// the previous one; installs the hook on first use.
#[pyfunction]
fn enable(py: Python<'_>, token: u32) -> PyResult<u32> {
    // A bool is an int: True is token 1.
    hook::enable(py, token)
}

/// Restores the eval-frame function found when the hook was installed.
#[pyfunction]
fn uninstall() -> PyResult<()> {
    hook::uninstall()
}

/// Whether ember's eval-frame function is installed in the interpreter.
#[pyfunction]
fn hook_installed() -> bool {
    hook::installed()
}

/// Never hand frames of `code` to the converter (kept across `reset`).
#[pyfunction]
fn mark_skip(code: &Bound<'_, PyCode>) -> PyResult<()> {
    cache::for_code(code)?.mark_skip();
    Ok(())
}

/// Number of guarded entries stored on `code`.
#[pyfunction]
fn cache_size(code: &Bound<'_, PyCode>) -> usize {
    cache::size(code)
}

/// Whether ember's cache is attached to `code` (`reset` detaches idle ones).
#[pyfunction]
fn _cache_attached(code: &Bound<'_, PyCode>) -> bool {
    cache::attached(code)
}

/// Drops the entries of `code` and the converter's SKIP/CACHE_ONLY verdict on it.
#[pyfunction]
fn clear_cache(code: &Bound<'_, PyCode>) {
    cache::clear(code);
}

/// Drops every entry and verdict of every code seen, and zeroes `hook_stats`.
#[pyfunction]
fn reset() {
    cache::clear_all();
    hook::reset_stats();
}

/// The hook's counters.
#[pyfunction]
fn hook_stats(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let stats = PyDict::new(py);
    for (name, value) in hook::stats() {
        stats.set_item(name, value)?;
    }
    Ok(stats)
}

/// Sets the filename prefixes skipped in addition to the defaults.
#[pyfunction]
fn set_skip_files(py: Python<'_>, prefixes: Vec<String>) -> PyResult<()> {
    skip::ensure_defaults(py)?;
    skip::set_extra(prefixes);
    Ok(())
}

/// The skipped prefixes, by reason (`stdlib`, `site_packages` (exempt), `packages`, `extra`).
#[pyfunction]
fn skip_files(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    skip::ensure_defaults(py)?;
    let files = PyDict::new(py);
    let [stdlib, site_packages, packages, extra] = skip::current();
    files.set_item("stdlib", stdlib)?;
    files.set_item("site_packages", site_packages)?;
    files.set_item("packages", packages)?;
    files.set_item("extra", extra)?;
    Ok(files)
}

/// Evaluates a guard tree against `func`'s globals, builtins and closure, with `args` as locals.
#[pyfunction]
fn check_guards(
    guards: &Bound<'_, PyAny>,
    func: &Bound<'_, PyAny>,
    args: &Bound<'_, PyTuple>,
) -> PyResult<bool> {
    let py = guards.py();
    let tree = compile_tree(guards)?;
    let func = func
        .cast::<PyFunction>()
        .map_err(|_| PyTypeError::new_err("check_guards needs a Python function"))?;
    let locals: Vec<_> = args.iter().map(|a| a.as_ptr()).collect();
    let f = func.as_ptr() as *mut pyo3::ffi::PyFunctionObject;
    // SAFETY: `func` is a live function object; its globals and builtins are dicts and its
    // closure a tuple or NULL; `args` keeps the local pointers alive during the check.
    let view = unsafe {
        FrameView {
            locals: &locals,
            globals: (*f).func_globals,
            builtins: (*f).func_builtins,
            closure: (*f).func_closure,
        }
    };
    tree.check(py, &view)
}

/// Field offsets of the CPython structs mirrored in Rust, checked against the C headers.
#[pyfunction]
fn _layout(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let layout = PyDict::new(py);
    for (name, offset) in cpython::layout() {
        layout.set_item(name, offset)?;
    }
    Ok(layout)
}

/// Adds the frame-hook and guard functions to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    cache::init_extra_index()?;
    m.add("SKIP", hook::SKIP)?;
    m.add("CACHE_ONLY", hook::CACHE_ONLY)?;
    m.add_function(wrap_pyfunction!(set_callback, m)?)?;
    m.add_function(wrap_pyfunction!(enable, m)?)?;
    m.add_function(wrap_pyfunction!(uninstall, m)?)?;
    m.add_function(wrap_pyfunction!(hook_installed, m)?)?;
    m.add_function(wrap_pyfunction!(mark_skip, m)?)?;
    m.add_function(wrap_pyfunction!(cache_size, m)?)?;
    m.add_function(wrap_pyfunction!(clear_cache, m)?)?;
    m.add_function(wrap_pyfunction!(_cache_attached, m)?)?;
    m.add_function(wrap_pyfunction!(reset, m)?)?;
    m.add_function(wrap_pyfunction!(hook_stats, m)?)?;
    m.add_function(wrap_pyfunction!(set_skip_files, m)?)?;
    m.add_function(wrap_pyfunction!(skip_files, m)?)?;
    m.add_function(wrap_pyfunction!(check_guards, m)?)?;
    m.add_function(wrap_pyfunction!(_layout, m)?)?;
    Ok(())
}
