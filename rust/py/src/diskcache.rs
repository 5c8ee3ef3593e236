//! The persistent compile cache's settings and counters, for `ember.config` and
//! `ember.stats()`.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;

/// Turns the persistent compile cache on in `dir`, bounded by `max_bytes`, keyed also by
/// `salt`; `dir=None` turns it off.
#[pyfunction]
#[pyo3(signature = (dir, max_bytes, salt))]
fn set_disk_cache(dir: Option<PathBuf>, max_bytes: u64, salt: &str) {
    ember_codegen::diskcache::configure(dir, max_bytes, salt);
}

/// Counts `written` bytes of a stored entry (`<dir>/entries/`) against the directory's bound,
/// evicting the least recently used cache files of every kind when it passes it.
#[pyfunction]
fn disk_cache_account(written: u64) {
    ember_codegen::diskcache::account(written);
}

/// Counters of the persistent compile cache since the process started, one per compiled
/// function: `disk_hits`, `disk_misses`, `disk_writes`, `disk_rejected`, `disk_evictions`.
#[pyfunction]
fn disk_cache_stats(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let s = ember_codegen::diskcache::stats();
    let d = PyDict::new(py);
    d.set_item("disk_hits", s.hits)?;
    d.set_item("disk_misses", s.misses)?;
    d.set_item("disk_writes", s.writes)?;
    d.set_item("disk_rejected", s.rejected)?;
    d.set_item("disk_evictions", s.evictions)?;
    Ok(d)
}

/// Adds the persistent-cache functions to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(set_disk_cache, m)?)?;
    m.add_function(wrap_pyfunction!(disk_cache_stats, m)?)?;
    m.add_function(wrap_pyfunction!(disk_cache_account, m)?)?;
    Ok(())
}
