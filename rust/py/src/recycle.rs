//! The pool of output arrays kept for reuse (`compiled.rs`): the last outputs of each compiled
//! graph, under one process-wide budget in bytes (`ember.config.recycle_bytes`). Adding a
//! graph's outputs evicts the least recently used graphs' outputs until the total fits;
//! outputs larger than the whole budget are not kept; a graph's outputs leave the pool when
//! the graph is dropped. A budget of 0 keeps nothing.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

use numpy::{PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::prelude::*;

/// The default budget: 256 MiB.
pub const DEFAULT_BUDGET: usize = 256 << 20;

/// One graph's last outputs (one slot per output).
pub type Outputs = Vec<Option<Py<PyUntypedArray>>>;

struct Held {
    outputs: Outputs,
    bytes: usize,
    last_use: u64,
}

struct Pool {
    budget: usize,
    total: usize,
    clock: u64,
    held: BTreeMap<u64, Held>,
}

static POOL: Mutex<Pool> = Mutex::new(Pool {
    budget: DEFAULT_BUDGET,
    total: 0,
    clock: 0,
    held: BTreeMap::new(),
});
static NEXT_ID: AtomicU64 = AtomicU64::new(1);
/// The budget, readable without the pool's lock (see [`keeps_any`]).
static BUDGET: AtomicUsize = AtomicUsize::new(DEFAULT_BUDGET);

/// Outputs of at most this many bytes in all are kept by the graph's own repeated-layout
/// state (`hot.rs`) rather than in the pool: no lock, no map lookup per call. They are not
/// counted against the budget (a few hundred bytes per graph), but a budget of 0 keeps them
/// neither.
pub const SMALL_OUTPUTS: usize = 512;

/// Whether outputs may be kept at all (a budget above 0).
pub fn keeps_any() -> bool {
    BUDGET.load(Ordering::Relaxed) > 0
}

fn pool() -> std::sync::MutexGuard<'static, Pool> {
    POOL.lock().unwrap_or_else(|p| p.into_inner())
}

/// A fresh key for one compiled graph.
pub fn new_id() -> u64 {
    NEXT_ID.fetch_add(1, Ordering::Relaxed)
}

impl Pool {
    fn remove(&mut self, id: u64) -> Option<Outputs> {
        let held = self.held.remove(&id)?;
        self.total -= held.bytes;
        Some(held.outputs)
    }

    /// Evicts least recently used outputs (other than `keep`'s) until `room` more bytes fit.
    fn make_room(&mut self, room: usize, keep: u64, evicted: &mut Vec<Outputs>) {
        while self.total + room > self.budget {
            let oldest = self
                .held
                .iter()
                .filter(|(k, h)| **k != keep && h.bytes > 0)
                .min_by_key(|(_, h)| h.last_use)
                .map(|(k, _)| *k);
            let Some(oldest) = oldest else {
                return;
            };
            evicted.extend(self.remove(oldest));
        }
    }
}

/// Takes graph `id`'s outputs out of the pool for a call. The graph's slot stays (empty, not
/// counted) and the vector comes back with `put`, so a call allocates nothing here.
pub fn take(id: u64) -> Outputs {
    let mut pool = pool();
    let Some(held) = pool.held.get_mut(&id) else {
        return Vec::new();
    };
    let (outputs, bytes) = (std::mem::take(&mut held.outputs), held.bytes);
    held.bytes = 0;
    pool.total -= bytes;
    outputs
}

/// Keeps graph `id`'s outputs for its next call, if they fit in the budget. Python objects
/// leave the pool (and may be freed) only after the lock is released.
pub fn put(py: Python<'_>, id: u64, outputs: Outputs) {
    let bytes = outputs
        .iter()
        .flatten()
        .map(|a| {
            let a = a.bind(py);
            a.len() * a.dtype().itemsize()
        })
        .sum();
    put_sized(id, outputs, bytes);
}

/// [`put`] of outputs whose sizes add up to `bytes`.
pub fn put_sized(id: u64, mut outputs: Outputs, bytes: usize) {
    let mut dropped = Vec::new();
    {
        let mut pool = pool();
        let stored = if bytes > pool.budget {
            dropped.push(std::mem::take(&mut outputs));
            0
        } else {
            pool.make_room(bytes, id, &mut dropped);
            bytes
        };
        pool.clock += 1;
        let last_use = pool.clock;
        pool.total += stored;
        let held = Held {
            outputs,
            bytes: stored,
            last_use,
        };
        if let Some(previous) = pool.held.insert(id, held) {
            pool.total -= previous.bytes;
            // Usually the vector `take` emptied: nothing to drop, nothing to allocate for.
            if !previous.outputs.is_empty() {
                dropped.push(previous.outputs);
            }
        }
    }
    drop(dropped);
}

/// Drops graph `id`'s outputs (the graph is gone).
pub fn forget(id: u64) {
    let removed = pool().remove(id);
    drop(removed);
}

/// Sets the budget in bytes, evicting what no longer fits.
pub fn set_budget(bytes: usize) {
    let mut evicted = Vec::new();
    {
        let mut pool = pool();
        pool.budget = bytes;
        BUDGET.store(bytes, Ordering::Relaxed);
        pool.make_room(0, 0, &mut evicted);
    }
    drop(evicted);
}

/// The budget and the bytes held now.
pub fn usage() -> (usize, usize) {
    let pool = pool();
    (pool.budget, pool.total)
}
