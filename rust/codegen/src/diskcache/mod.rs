//! The persistent compile cache: machine code of compiled functions kept on disk, so that a
//! fresh process skips Cranelift's optimisation, register allocation and emission for any
//! function an earlier process compiled.
//!
//! It backs Cranelift's incremental cache (`Context::compile_with_cache`). Cranelift's key is
//! a SHA-256 of the whole Cranelift function (every instruction, constant, signature and
//! callee, with callee *names* abstracted), the target triple, the shared and ISA-specific
//! flags (the CPU features detected on this host) and Cranelift's version. Everything that
//! decides a kernel's code (IR text, input dtypes, shapes and strides, options) is therefore
//! part of the key through the function it lowers to. The file name adds a salt: this crate's
//! version, a hash of the sources it and `ember-core` were built from ([`BUILD_ID`]) and what
//! the embedder passes to [`configure`] (the Python version). Callees stay names: the JIT
//! resolves them again in every process, so no address is ever read back from disk.
//!
//! Files are checked before use ([`store`]): a wrong magic, length or SHA-256 of the payload
//! makes the entry a miss, recompiled and rewritten.

mod store;

pub(crate) use store::FileStore;

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

/// A hash of the sources this crate and `ember-core` were built from (see `build.rs`).
pub const BUILD_ID: &str = env!("EMBER_CODEGEN_BUILD_ID");

/// The default bound on the bytes the cache directory holds.
pub const DEFAULT_MAX_BYTES: u64 = 256 << 20;

/// Counters of the persistent cache since the process started, one per compiled function
/// (kernel or native statement).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Functions whose machine code was read from disk.
    pub hits: u64,
    /// Functions compiled because no usable file was there.
    pub misses: u64,
    /// Files written.
    pub writes: u64,
    /// Files found but not used: truncated, corrupted, or from another Cranelift version.
    pub rejected: u64,
    /// Files removed to keep the directory under its bound.
    pub evictions: u64,
}

pub(crate) struct Counters {
    pub hits: AtomicU64,
    pub misses: AtomicU64,
    pub writes: AtomicU64,
    pub rejected: AtomicU64,
    pub evictions: AtomicU64,
}

pub(crate) static COUNTERS: Counters = Counters {
    hits: AtomicU64::new(0),
    misses: AtomicU64::new(0),
    writes: AtomicU64::new(0),
    rejected: AtomicU64::new(0),
    evictions: AtomicU64::new(0),
};

/// The counters so far.
pub fn stats() -> Stats {
    let c = &COUNTERS;
    Stats {
        hits: c.hits.load(Ordering::Relaxed),
        misses: c.misses.load(Ordering::Relaxed),
        writes: c.writes.load(Ordering::Relaxed),
        rejected: c.rejected.load(Ordering::Relaxed),
        evictions: c.evictions.load(Ordering::Relaxed),
    }
}

/// Where the cache lives and how big it may grow; shared by every store handed out.
pub(crate) struct Settings {
    pub dir: PathBuf,
    pub max_bytes: u64,
    pub salt: Vec<u8>,
    /// This process's estimate of the directory's size (`None`: not measured yet). Other
    /// processes' writes are seen at the next measurement, so the bound is approximate.
    pub estimate: Mutex<Option<u64>>,
}

static SETTINGS: RwLock<Option<Arc<Settings>>> = RwLock::new(None);

/// Turns the persistent cache on in `dir` (created when first written), bounded by
/// `max_bytes`, with `salt` added to every key; `None` turns it off. Nothing is read or
/// written until a function is compiled.
pub fn configure(dir: Option<PathBuf>, max_bytes: u64, salt: &str) {
    let settings = dir.map(|dir| {
        let mut full = format!(
            "ember-codegen {} build {BUILD_ID}\n",
            env!("CARGO_PKG_VERSION")
        )
        .into_bytes();
        full.extend_from_slice(salt.as_bytes());
        Arc::new(Settings {
            dir,
            max_bytes,
            salt: full,
            estimate: Mutex::new(None),
        })
    });
    *SETTINGS.write().unwrap_or_else(|e| e.into_inner()) = settings;
}

/// The directory in use and its bound, or `None` when the cache is off.
pub fn configured() -> Option<(PathBuf, u64)> {
    SETTINGS
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .as_ref()
        .map(|s| (s.dir.clone(), s.max_bytes))
}

/// Counts `written` bytes the embedder wrote under the directory's `entries/` folder against
/// the bound, evicting the least recently used files of both kinds when it passes it.
pub fn account(written: u64) {
    let settings = SETTINGS.read().unwrap_or_else(|e| e.into_inner()).clone();
    if let Some(settings) = settings {
        store::account(&settings, written);
    }
}

/// A store over the configured directory, or `None` when the cache is off.
pub(crate) fn store() -> Option<FileStore> {
    SETTINGS
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .clone()
        .map(FileStore::new)
}
