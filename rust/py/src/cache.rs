//! The per-code cache, stored in a code object's extra slot (`_PyCode_SetExtra`) and freed with
//! the code. Every access happens with the GIL held; no `RefCell` borrow is ever held across a
//! call into Python (guards, entries and `Drop` of Python objects can re-enter the hook and touch
//! the same cache), which is why entries are `Arc`s cloned out one at a time.

use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::ffi::c_void;
use std::sync::atomic::{AtomicIsize, Ordering};
use std::sync::{Arc, Mutex};

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyCode;

use crate::cpython::{self, CodeObject};
use crate::dispatch::DirectCall;
use crate::guards::{FrameView, GuardTree};
use crate::skip;

/// A converted frame: run `entry(*args)` when `guards` pass.
pub struct Entry {
    /// The compiled guard tree.
    pub guards: GuardTree,
    /// The callable that replaces the frame.
    pub entry: Py<PyAny>,
    /// Whether `entry` takes the frame's function object before the argument slots (entries
    /// that rebuild closures or call resume functions need its `__closure__`).
    pub takes_function: bool,
    /// The compile options' token it was made under (`hook::enable`).
    pub token: u32,
    /// The graph call that `entry` amounts to, when it is nothing more and its guards run no
    /// Python code: what the native fast path (`dispatch/`) runs instead of `entry`.
    pub direct: Option<DirectCall>,
}

/// What the converter said about a code object as a whole, under one options token.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Mode {
    /// Look up entries; call the converter on a miss.
    Convert,
    /// `SKIP`: run frames normally.
    Skip,
    /// `CACHE_ONLY`: look up entries; run the frame normally on a miss.
    CacheOnly,
}

/// Everything ember keeps on one code object.
pub struct CodeCache {
    entries: RefCell<Vec<Arc<Entry>>>,
    /// The converter's verdicts other than `Convert`, per options token: a function refused
    /// under one backend may still compile under another.
    modes: RefCell<Vec<(u32, Mode)>>,
    /// Codes whose frames, when this code's frame calls them, run with the hook off (they
    /// and everything they call), per options token: the callees that a frame run as plain
    /// Python by the loop cost rule broke in (`set_plain_callees`). Addresses only, compared
    /// and never read: a stale one (its code freed and the address reused) costs no more
    /// than a frame run untouched.
    plain_callees: RefCell<Vec<(u32, usize)>>,
    /// `mark_skip`: survives `reset`, unlike `mode`, because it is a user declaration.
    marked_skip: Cell<bool>,
    /// (skip-list generation, whether the code's file is skipped, whether it is a library's).
    file_skip: Cell<(u32, bool, bool)>,
    filename: String,
    /// The code object that owns this cache (borrowed: the code frees the cache when it dies).
    code: *mut CodeObject,
    /// Frames of this code between the hook's lookup and the end of their conversion: `reset`
    /// must not free the cache under them.
    pins: Cell<u32>,
}

/// Keeps a cache attached to its code object while a frame of it is being handled.
pub struct Pin<'a>(&'a CodeCache);

impl Drop for Pin<'_> {
    fn drop(&mut self) {
        self.0.pins.set(self.0.pins.get() - 1);
    }
}

impl CodeCache {
    /// Whether frames of this code are run untouched under `token`.
    pub fn skips(&self, token: u32) -> bool {
        if self.marked_skip.get() || self.mode(token) == Mode::Skip {
            return true;
        }
        self.file_class().0
    }

    /// Whether the code is a library's (standard library, numpy): frames it calls are run
    /// untouched (see `skip`).
    pub fn is_library(&self) -> bool {
        self.file_class().1
    }

    fn file_class(&self) -> (bool, bool) {
        let generation = skip::generation();
        let (seen, skipped, library) = self.file_skip.get();
        if seen == generation {
            return (skipped, library);
        }
        let (skipped, library) = skip::classify(&self.filename);
        self.file_skip.set((generation, skipped, library));
        (skipped, library)
    }

    /// The converter's verdict on this code under `token`.
    pub fn mode(&self, token: u32) -> Mode {
        self.modes
            .borrow()
            .iter()
            .find(|(t, _)| *t == token)
            .map_or(Mode::Convert, |(_, mode)| *mode)
    }

    /// Records the converter's verdict under `token`.
    pub fn set_mode(&self, token: u32, mode: Mode) {
        let mut modes = self.modes.borrow_mut();
        modes.retain(|(t, _)| *t != token);
        if mode != Mode::Convert {
            modes.push((token, mode));
        }
    }

    /// Records that frames of `callees` called by this code's frames run with the hook off
    /// under `token`.
    pub fn set_plain_callees(&self, token: u32, callees: &[usize]) {
        let mut plain = self.plain_callees.borrow_mut();
        plain.retain(|(t, _)| *t != token);
        plain.extend(callees.iter().map(|&c| (token, c)));
    }

    /// Whether a frame of `callee` called by this code's frame runs with the hook off.
    pub fn runs_plain(&self, token: u32, callee: *mut CodeObject) -> bool {
        let plain = self.plain_callees.borrow();
        !plain.is_empty()
            && plain
                .iter()
                .any(|&(t, c)| t == token && c == callee as usize)
    }

    /// Marks the code as never to be converted.
    pub fn mark_skip(&self) {
        self.marked_skip.set(true);
    }

    /// Number of stored entries.
    pub fn len(&self) -> usize {
        self.entries.borrow().len()
    }

    /// Stores a new entry ahead of the older ones (the newest specialisation is likeliest).
    pub fn push(&self, entry: Arc<Entry>) {
        self.entries.borrow_mut().insert(0, entry);
    }

    /// The first entry made under `token` whose guards pass, and the number of entries whose
    /// guards failed.
    pub fn lookup(
        &self,
        py: Python<'_>,
        frame: &FrameView<'_>,
        token: u32,
    ) -> PyResult<(Option<Arc<Entry>>, u64)> {
        let mut failures = 0;
        let mut i = 0;
        loop {
            // Clone one entry out and release the borrow: guard evaluation may run Python code
            // (properties, __eq__) that stores or clears entries of this very code.
            let Some(entry) = self.entries.borrow().get(i).cloned() else {
                return Ok((None, failures));
            };
            i += 1;
            if entry.token != token {
                continue;
            }
            if entry.guards.check(py, frame)? {
                return Ok((Some(entry), failures));
            }
            failures += 1;
        }
    }

    /// For the native fast path: [`CodeCache::lookup`], when the guards of every entry tried
    /// could be evaluated without running Python code ([`GuardTree::check_pure`]); None when
    /// the frame hook must decide.
    pub fn lookup_pure(
        &self,
        py: Python<'_>,
        frame: &FrameView<'_>,
        token: u32,
    ) -> PyResult<Option<(Option<Arc<Entry>>, u64)>> {
        let mut failures = 0;
        let mut i = 0;
        loop {
            let Some(entry) = self.entries.borrow().get(i).cloned() else {
                return Ok(Some((None, failures)));
            };
            i += 1;
            if entry.token != token {
                continue;
            }
            match entry.guards.check_pure(py, frame)? {
                Some(true) => return Ok(Some((Some(entry), failures))),
                Some(false) => failures += 1,
                None => return Ok(None),
            }
        }
    }

    /// Marks the cache as in use until the returned pin is dropped.
    pub fn pin(&self) -> Pin<'_> {
        self.pins.set(self.pins.get() + 1);
        Pin(self)
    }

    /// Removes every entry and the converter's verdict, returning the entries so that the
    /// caller drops them (which may run Python code) after all borrows are gone.
    fn take(&self) -> Vec<Arc<Entry>> {
        self.modes.borrow_mut().clear();
        self.plain_callees.borrow_mut().clear();
        self.entries.take()
    }
}

/// Addresses of every live `CodeCache`, for `reset`.
static REGISTRY: Mutex<Option<HashSet<usize>>> = Mutex::new(None);
static EXTRA_INDEX: AtomicIsize = AtomicIsize::new(-1);

fn registry() -> std::sync::MutexGuard<'static, Option<HashSet<usize>>> {
    REGISTRY
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

unsafe extern "C" fn free_cache(ptr: *mut c_void) {
    if ptr.is_null() {
        return;
    }
    registry()
        .get_or_insert_with(HashSet::new)
        .remove(&(ptr as usize));
    // SAFETY: the slot only ever holds pointers made by `Box::into_raw` in `get_or_create`,
    // and CPython calls this once, when the code object dies (with the GIL held, so dropping
    // the Python references inside is allowed).
    drop(unsafe { Box::from_raw(ptr as *mut CodeCache) });
}

/// Reserves the extra slot; called once at module import.
pub fn init_extra_index() -> PyResult<()> {
    if EXTRA_INDEX.load(Ordering::Relaxed) >= 0 {
        return Ok(());
    }
    // SAFETY: plain call into CPython with the GIL held (module import).
    let index = unsafe { cpython::_PyEval_RequestCodeExtraIndex(free_cache) };
    if index < 0 {
        return Err(PyRuntimeError::new_err(
            "no free code-extra slot in this interpreter",
        ));
    }
    EXTRA_INDEX.store(index, Ordering::Relaxed);
    Ok(())
}

/// The cache of `code`, if it has one.
///
/// # Safety
/// `code` must be a live code object, the GIL held, and the returned reference must not be used
/// after the code object can have died.
pub unsafe fn get<'a>(code: *mut CodeObject) -> Option<&'a CodeCache> {
    let mut extra: *mut c_void = std::ptr::null_mut();
    // SAFETY: `code` is a live code object (caller); the index was reserved at import.
    let rc = unsafe {
        cpython::_PyCode_GetExtra(code.cast(), EXTRA_INDEX.load(Ordering::Relaxed), &mut extra)
    };
    // SAFETY: a non-null slot holds a `CodeCache` that lives as long as the code object.
    (rc == 0 && !extra.is_null()).then(|| unsafe { &*(extra as *const CodeCache) })
}

/// The cache of `code`, created on first use.
///
/// # Safety
/// As for [`get`].
pub unsafe fn get_or_create<'a>(py: Python<'_>, code: *mut CodeObject) -> PyResult<&'a CodeCache> {
    // SAFETY: forwarded from the caller.
    if let Some(cache) = unsafe { get(code) } {
        return Ok(cache);
    }
    // SAFETY: `co_filename` of a live code object is a live str.
    let filename = unsafe { Bound::from_borrowed_ptr(py, (*code).co_filename) };
    let filename = filename.extract::<String>().unwrap_or_default();
    let cache = Box::new(CodeCache {
        entries: RefCell::new(Vec::new()),
        modes: RefCell::new(Vec::new()),
        plain_callees: RefCell::new(Vec::new()),
        marked_skip: Cell::new(false),
        file_skip: Cell::new((0, false, false)),
        filename,
        code,
        pins: Cell::new(0),
    });
    let ptr = Box::into_raw(cache);
    // SAFETY: the slot is empty (checked above, and nothing ran Python code since), so nothing
    // is freed; from here the code object owns the box and frees it with `free_cache`.
    let rc = unsafe {
        cpython::_PyCode_SetExtra(code.cast(), EXTRA_INDEX.load(Ordering::Relaxed), ptr.cast())
    };
    if rc != 0 {
        // SAFETY: the code did not take the pointer, so it is still ours.
        drop(unsafe { Box::from_raw(ptr) });
        return Err(PyErr::fetch(py));
    }
    registry()
        .get_or_insert_with(HashSet::new)
        .insert(ptr as usize);
    // SAFETY: the box lives until the code object dies.
    Ok(unsafe { &*ptr })
}

fn code_ptr(code: &Bound<'_, PyCode>) -> *mut CodeObject {
    code.as_ptr().cast()
}

/// The cache of a code object passed from Python, created on first use.
pub fn for_code<'a>(code: &'a Bound<'_, PyCode>) -> PyResult<&'a CodeCache> {
    // SAFETY: `code` is a live code object for the lifetime `'a` of the borrow.
    unsafe { get_or_create(code.py(), code_ptr(code)) }
}

/// Number of entries stored on `code`.
pub fn size(code: &Bound<'_, PyCode>) -> usize {
    // SAFETY: as in `for_code`.
    unsafe { get(code_ptr(code)) }.map_or(0, CodeCache::len)
}

/// Whether `code` carries a cache.
pub fn attached(code: &Bound<'_, PyCode>) -> bool {
    // SAFETY: as in `for_code`.
    unsafe { get(code_ptr(code)) }.is_some()
}

/// Drops the entries and verdict of one code object.
pub fn clear(code: &Bound<'_, PyCode>) {
    // SAFETY: as in `for_code`.
    let taken = unsafe { get(code_ptr(code)) }.map(CodeCache::take);
    drop(taken);
}

/// Drops the entries and verdicts of every code object, then detaches the emptied caches from
/// their code objects, so that the code objects are as they were before ember saw them. A
/// cache stays attached (empty) while a frame of its code is being handled (pinned), or when
/// it carries `mark_skip`, which outlives a reset. The extra slot's index stays reserved:
/// CPython has no call to give it back.
pub fn clear_all() {
    let live: Vec<usize> = registry()
        .as_ref()
        .map(|r| r.iter().copied().collect())
        .unwrap_or_default();
    // Take everything first, drop afterwards: dropping an entry can free other code objects
    // (and their caches), which must not happen while we still walk the list.
    let taken: Vec<Vec<Arc<Entry>>> = live
        .into_iter()
        .map(|ptr| {
            // SAFETY: registered pointers are live caches (they leave the registry when freed,
            // and no Python code runs between reading the registry and this point).
            unsafe { &*(ptr as *const CodeCache) }.take()
        })
        .collect();
    drop(taken);
    detach_idle();
}

fn detach_idle() {
    let live: Vec<usize> = registry()
        .as_ref()
        .map(|r| r.iter().copied().collect())
        .unwrap_or_default();
    for ptr in live {
        // Re-checked per cache: detaching one runs no Python code, but stay exact anyway.
        if !registry().as_ref().is_some_and(|r| r.contains(&ptr)) {
            continue;
        }
        // SAFETY: registered pointers are live caches (they leave the registry when freed).
        let cache = unsafe { &*(ptr as *const CodeCache) };
        if cache.pins.get() != 0 || cache.marked_skip.get() || cache.len() != 0 {
            continue;
        }
        // SAFETY: the cache's code object is alive (it owns the cache). Setting the slot to
        // NULL makes CPython call `free_cache` on the old value, which unregisters it and
        // drops the box; the box is empty, so that runs no Python code.
        unsafe {
            cpython::_PyCode_SetExtra(
                cache.code.cast(),
                EXTRA_INDEX.load(Ordering::Relaxed),
                std::ptr::null_mut(),
            );
        }
    }
}
