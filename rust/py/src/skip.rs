//! Which source files the frame hook never hands to the converter: the standard library,
//! numpy, ember's own package, ember's generated code (`<ember...>`) and frozen modules, plus
//! prefixes that Python adds with `set_skip_files`. The standard library and numpy are also
//! *libraries*, and so is ember's generated code: a frame they call (a logging handler, a
//! `copy` hook, an `np.vectorize` function) runs untouched too, since it is not on the
//! compiled function's own path.
//!
//! The prefixes are computed once, before the hook is installed, because computing them runs
//! Python code (`sysconfig`) that the hook would otherwise intercept. A code object caches its
//! answer together with [`generation`], so `set_skip_files` invalidates every cached answer.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;

use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Filename prefixes of code the hook must not capture, whatever directory it comes from.
const PSEUDO_FILES: [&str; 2] = ["<ember", "<frozen "];

#[derive(Default)]
struct SkipFiles {
    /// The standard library directories (with a trailing separator).
    stdlib: Vec<String>,
    /// site-packages, which lies under the standard library but holds user code too.
    site_packages: Vec<String>,
    /// numpy's package directories.
    libraries: Vec<String>,
    /// ember's own package directories.
    own: Vec<String>,
    /// Prefixes added by `set_skip_files`.
    extra: Vec<String>,
    /// Whether the defaults have been computed.
    computed: bool,
}

static SKIP_FILES: Mutex<Option<SkipFiles>> = Mutex::new(None);
static GENERATION: AtomicU32 = AtomicU32::new(1);

/// Bumped whenever the skip list changes; 0 is never a valid generation.
pub fn generation() -> u32 {
    GENERATION.load(Ordering::Relaxed)
}

fn as_dir(path: &str) -> String {
    let trimmed = path.trim_end_matches(std::path::MAIN_SEPARATOR);
    format!("{trimmed}{}", std::path::MAIN_SEPARATOR)
}

/// The directory of a loaded module's file, as imported and with symlinks resolved (code
/// objects carry the path the file was imported by).
fn package_dirs(py: Python<'_>, module: &str) -> PyResult<Vec<String>> {
    let modules = py.import("sys")?.getattr("modules")?;
    let Some(module) = modules.cast::<PyDict>()?.get_item(module)? else {
        return Ok(Vec::new());
    };
    let file = match module.getattr("__file__") {
        Ok(file) if !file.is_none() => file,
        _ => return Ok(Vec::new()),
    };
    let os_path = py.import("os.path")?;
    let dirname = |path: Bound<'_, PyAny>| -> PyResult<String> {
        os_path.call_method1("dirname", (path,))?.extract()
    };
    Ok(vec![
        dirname(os_path.call_method1("abspath", (&file,))?)?,
        dirname(os_path.call_method1("realpath", (&file,))?)?,
    ])
}

fn push_dir(prefixes: &mut Vec<String>, dir: &str) {
    let dir = as_dir(dir);
    if !prefixes.contains(&dir) {
        prefixes.push(dir);
    }
}

/// Computes the default prefixes if that has not happened yet. Runs Python code: call it only
/// where the hook cannot intercept (before installing it, or with this thread disabled).
pub fn ensure_defaults(py: Python<'_>) -> PyResult<()> {
    if lock().as_ref().is_some_and(|f| f.computed) {
        return Ok(());
    }
    let paths = py.import("sysconfig")?.call_method0("get_paths")?;
    let get = |key: &str| -> PyResult<Option<String>> { paths.get_item(key)?.extract() };
    let os_path = py.import("os.path")?;
    let real =
        |p: String| -> PyResult<String> { os_path.call_method1("realpath", (p,))?.extract() };
    let mut files = SkipFiles::default();
    for key in ["stdlib", "platstdlib"] {
        if let Some(dir) = get(key)? {
            push_dir(&mut files.stdlib, &dir);
            push_dir(&mut files.stdlib, &real(dir)?);
        }
    }
    for key in ["purelib", "platlib"] {
        if let Some(dir) = get(key)? {
            push_dir(&mut files.site_packages, &dir);
            push_dir(&mut files.site_packages, &real(dir)?);
        }
    }
    py.import("numpy")?;
    for dir in package_dirs(py, "numpy")? {
        push_dir(&mut files.libraries, &dir);
    }
    for module in ["ember._core", "ember"] {
        for dir in package_dirs(py, module)? {
            push_dir(&mut files.own, &dir);
        }
    }
    let mut guard = lock();
    let slot = guard.get_or_insert_with(SkipFiles::default);
    if !slot.computed {
        files.extra = std::mem::take(&mut slot.extra);
        files.computed = true;
        *slot = files;
        GENERATION.fetch_add(1, Ordering::Relaxed);
    }
    Ok(())
}

/// Replaces the prefixes added from Python (the defaults always stay).
pub fn set_extra(prefixes: Vec<String>) {
    let mut guard = lock();
    guard.get_or_insert_with(SkipFiles::default).extra = prefixes;
    GENERATION.fetch_add(1, Ordering::Relaxed);
}

/// The current skip prefixes, for `skip_files()`: standard library, its site-packages
/// exception, packages, and those added from Python.
pub fn current() -> [Vec<String>; 4] {
    let guard = lock();
    match guard.as_ref() {
        Some(f) => [
            f.stdlib.clone(),
            f.site_packages.clone(),
            [f.libraries.clone(), f.own.clone()].concat(),
            f.extra.clone(),
        ],
        None => Default::default(),
    }
}

/// Whether frames of code from `filename` are skipped, and whether the file is a library's
/// (the standard library or numpy), whose calls into other code are skipped too.
pub fn classify(filename: &str) -> (bool, bool) {
    if PSEUDO_FILES.iter().any(|p| filename.starts_with(p)) {
        // Entries call only the graph, step functions (skipped themselves) and what rebuilds
        // values (a namedtuple's `__new__`); resume functions are called by the trampoline.
        return (true, true);
    }
    let guard = lock();
    let Some(files) = guard.as_ref() else {
        return (false, false);
    };
    let under = |prefixes: &[String]| prefixes.iter().any(|p| filename.starts_with(p.as_str()));
    let library = under(&files.libraries) || (under(&files.stdlib) && !under(&files.site_packages));
    (library || under(&files.extra) || under(&files.own), library)
}

fn lock() -> std::sync::MutexGuard<'static, Option<SkipFiles>> {
    SKIP_FILES
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::{as_dir, classify};

    fn is_skipped(filename: &str) -> bool {
        classify(filename).0
    }

    #[test]
    fn generated_and_frozen_code_is_always_skipped() {
        assert!(is_skipped("<ember-entry-3>"));
        assert!(is_skipped("<frozen importlib._bootstrap>"));
        assert!(!is_skipped("<string>"));
    }

    #[test]
    fn directories_end_with_one_separator() {
        assert_eq!(as_dir("/a/b"), "/a/b/");
        assert_eq!(as_dir("/a/b//"), "/a/b/");
    }
}
