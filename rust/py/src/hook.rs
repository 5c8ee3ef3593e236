//! The PEP 523 eval-frame function. It is installed once per process (chained to the function
//! found), but acts only on threads whose enable flag is set; every other frame goes straight
//! to the previous function. On a cache hit it returns `entry(*args)` without evaluating the
//! frame: CPython's caller (`_PyEval_Vector`) clears and pops the frame afterwards.

use std::cell::Cell;
use std::ffi::c_int;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::ffi::{self, PyObject, PyThreadState};
use pyo3::prelude::*;
use pyo3::types::{PyCode, PyString, PyTuple};

use crate::cache::{self, Entry, Mode};
use crate::cpython::{self, EvalFrameFn, InterpreterFrame, CO_RESUMABLE, FRAME_OWNED_BY_THREAD};
use crate::dispatch::DirectCall;
use crate::errors;
use crate::guards::{compile_tree, FrameView};
use crate::skip;

/// What the converter returns to never look at a code again.
pub const SKIP: &str = "skip";
/// What the converter returns to use existing entries only.
pub const CACHE_ONLY: &str = "cache_only";

thread_local! {
    /// 0: the hook is off on this thread; otherwise the token of the compile options in force
    /// (entries are used only under the token they were compiled with).
    static ENABLED: Cell<u32> = const { Cell::new(0) };
    /// The code of a frame to evaluate as it is, once: the native slot's call of a function
    /// whose guards it already found failing past the recompile limit.
    static EVALUATE_ONCE: Cell<*mut cpython::CodeObject> = const { Cell::new(std::ptr::null_mut()) };
    /// The code of the resume function the trampoline is calling: its frame is looked at
    /// whatever frame called the trampoline (an entry, whose calls are otherwise left alone).
    static RESUMING: Cell<*mut cpython::CodeObject> = const { Cell::new(std::ptr::null_mut()) };
}

/// The eval-frame function found when ours was installed (0: not installed).
static PREVIOUS: AtomicUsize = AtomicUsize::new(0);
static INSTALLED: AtomicBool = AtomicBool::new(false);
static CALLBACK: Mutex<Option<Py<PyAny>>> = Mutex::new(None);

/// The counters of `hook_stats`.
pub struct Stats {
    frames_seen: AtomicU64,
    frames_skipped: AtomicU64,
    cache_hits: AtomicU64,
    cache_misses: AtomicU64,
    guard_failures: AtomicU64,
    native_calls: AtomicU64,
    hook_direct_calls: AtomicU64,
}

static STATS: Stats = Stats {
    frames_seen: AtomicU64::new(0),
    frames_skipped: AtomicU64::new(0),
    cache_hits: AtomicU64::new(0),
    cache_misses: AtomicU64::new(0),
    guard_failures: AtomicU64::new(0),
    native_calls: AtomicU64::new(0),
    hook_direct_calls: AtomicU64::new(0),
};

/// Counts with a plain load and store rather than a locked read-modify-write: every caller
/// holds the GIL, which already serialises the increments.
fn bump(counter: &AtomicU64, n: u64) {
    counter.store(counter.load(Ordering::Relaxed) + n, Ordering::Relaxed);
}

/// `func(*args)` (a plain function, its parameters bound in `args`) with its own frame
/// evaluated as it is: the native slot has done the hook's lookup (a miss of a code past its
/// recompile limit), counted here as the hook counts it. Frames it calls pass the hook.
///
/// # Safety
/// `func` is a live function; `args` are live borrowed references.
pub unsafe fn evaluate_missed(
    py: Python<'_>,
    func: *mut PyObject,
    args: &[*mut PyObject],
    failures: u64,
) -> PyResult<*mut PyObject> {
    bump(&STATS.frames_seen, 1);
    bump(&STATS.guard_failures, failures);
    bump(&STATS.cache_misses, 1);
    // SAFETY: a live function's code; the arguments are bound, so the call evaluates the
    // function's frame first, which takes the mark off.
    let result = unsafe {
        EVALUATE_ONCE.with(|c| {
            c.set((*(func as *mut ffi::PyFunctionObject)).func_code as *mut cpython::CodeObject)
        });
        let result =
            ffi::PyObject_Vectorcall(func, args.as_ptr(), args.len(), std::ptr::null_mut());
        EVALUATE_ONCE.with(|c| c.set(std::ptr::null_mut()));
        result
    };
    if result.is_null() {
        Err(PyErr::fetch(py))
    } else {
        Ok(result)
    }
}

/// Counts a call the native fast path answered: a frame the hook would have seen, a cache
/// hit, and the entries whose guards failed before it; `native`: a graph run without the
/// entry (`native_calls`), not an entry called from the slot.
pub fn count_fast_hit(failures: u64, native: bool) {
    if native {
        bump(&STATS.native_calls, 1);
    }
    bump(&STATS.frames_seen, 1);
    bump(&STATS.cache_hits, 1);
    bump(&STATS.guard_failures, failures);
}

/// The counters as (name, value) pairs.
pub fn stats() -> [(&'static str, u64); 7] {
    let s = &STATS;
    [
        ("frames_seen", s.frames_seen.load(Ordering::Relaxed)),
        ("frames_skipped", s.frames_skipped.load(Ordering::Relaxed)),
        ("cache_hits", s.cache_hits.load(Ordering::Relaxed)),
        ("cache_misses", s.cache_misses.load(Ordering::Relaxed)),
        ("guard_failures", s.guard_failures.load(Ordering::Relaxed)),
        ("native_calls", s.native_calls.load(Ordering::Relaxed)),
        (
            "hook_direct_calls",
            s.hook_direct_calls.load(Ordering::Relaxed),
        ),
    ]
}

/// Zeroes the counters.
pub fn reset_stats() {
    for counter in [
        &STATS.frames_seen,
        &STATS.frames_skipped,
        &STATS.cache_hits,
        &STATS.cache_misses,
        &STATS.guard_failures,
        &STATS.native_calls,
        &STATS.hook_direct_calls,
    ] {
        counter.store(0, Ordering::Relaxed);
    }
}

/// Installs the converter called on a cache miss, returning the previous one.
pub fn set_callback(callback: Option<Py<PyAny>>) -> Option<Py<PyAny>> {
    // Returned (and so dropped) after the lock is released: dropping may run Python code.
    let mut slot = CALLBACK.lock().unwrap_or_else(|p| p.into_inner());
    std::mem::replace(&mut *slot, callback)
}

fn callback(py: Python<'_>) -> Option<Py<PyAny>> {
    CALLBACK
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .as_ref()
        .map(|c| c.clone_ref(py))
}

/// Sets this thread's token (0: off), returning the previous one.
pub fn set_enabled(token: u32) -> u32 {
    ENABLED.with(|flag| flag.replace(token))
}

/// `enable(token)`: sets the token and installs the eval-frame function if needed.
pub fn enable(py: Python<'_>, token: u32) -> PyResult<u32> {
    let on = token != 0;
    if on && !INSTALLED.load(Ordering::Relaxed) {
        // Computed now, while nothing intercepts the Python code this runs.
        skip::ensure_defaults(py)?;
        install();
    }
    Ok(set_enabled(token))
}

fn install() {
    // SAFETY: called with the GIL held; the interpreter state is the current one and the
    // function pointers are valid for the life of the process.
    unsafe {
        let interp = ffi::PyInterpreterState_Get();
        let current = cpython::_PyInterpreterState_GetEvalFrameFunc(interp);
        if current as usize != eval_frame as EvalFrameFn as usize {
            PREVIOUS.store(current as usize, Ordering::Relaxed);
            cpython::_PyInterpreterState_SetEvalFrameFunc(interp, eval_frame);
        }
    }
    INSTALLED.store(true, Ordering::Relaxed);
}

/// Whether the eval-frame function is installed (by `enable`, until `uninstall`).
pub fn installed() -> bool {
    INSTALLED.load(Ordering::Relaxed)
}

/// Restores the eval-frame function found at installation.
pub fn uninstall() -> PyResult<()> {
    if !INSTALLED.load(Ordering::Relaxed) {
        return Ok(());
    }
    // SAFETY: as in `install`; `PREVIOUS` holds the function read there.
    unsafe {
        let interp = ffi::PyInterpreterState_Get();
        let current = cpython::_PyInterpreterState_GetEvalFrameFunc(interp);
        if current as usize != eval_frame as EvalFrameFn as usize {
            return Err(PyRuntimeError::new_err(
                "another eval-frame function was installed over ember's; uninstall it first",
            ));
        }
        cpython::_PyInterpreterState_SetEvalFrameFunc(interp, previous());
    }
    INSTALLED.store(false, Ordering::Relaxed);
    Ok(())
}

fn previous() -> EvalFrameFn {
    match PREVIOUS.load(Ordering::Relaxed) {
        0 => cpython::_PyEval_EvalFrameDefault,
        // SAFETY: a non-zero value was stored from an `EvalFrameFn` in `install`.
        ptr => unsafe { std::mem::transmute::<usize, EvalFrameFn>(ptr) },
    }
}

/// The eval-frame function installed into the interpreter.
unsafe extern "C" fn eval_frame(
    tstate: *mut PyThreadState,
    frame: *mut InterpreterFrame,
    throwflag: c_int,
) -> *mut PyObject {
    let token = ENABLED.with(Cell::get);
    if token == 0 {
        // SAFETY: forwarding the interpreter's own arguments to the previous function.
        return unsafe { previous()(tstate, frame, throwflag) };
    }
    // SAFETY: `frame` is the live frame CPython is about to evaluate.
    if unsafe { (*frame).f_code } == EVALUATE_ONCE.with(Cell::get) {
        EVALUATE_ONCE.with(|c| c.set(std::ptr::null_mut()));
        // SAFETY: as above.
        return unsafe { previous()(tstate, frame, throwflag) };
    }
    bump(&STATS.frames_seen, 1);
    // SAFETY: CPython calls the eval-frame function with the GIL held.
    let py = unsafe { Python::assume_attached() };
    // SAFETY: `frame` is the live frame CPython is about to evaluate.
    let outcome = catch_unwind(AssertUnwindSafe(|| unsafe {
        intercept(py, tstate, frame, throwflag, token)
    }));
    errors::into_c_result(py, outcome, "ember's frame hook")
}

/// Whether the hook must leave this frame alone whatever its code's cache says: frames not
/// started afresh, generators and coroutines, and frames that are not function calls (module
/// and class bodies, `exec` code: not `CO_OPTIMIZED`, or given a locals dict).
///
/// # Safety
/// `frame` must be a live frame with a live code object.
unsafe fn untouchable(frame: *const InterpreterFrame, throwflag: c_int) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        throwflag != 0
            || (*(*frame).f_code).co_flags & (CO_RESUMABLE | ffi::CO_OPTIMIZED) != ffi::CO_OPTIMIZED
            || (*frame).owner != FRAME_OWNED_BY_THREAD
            || (*frame).f_func.is_null()
            || !(*frame).f_locals.is_null()
            || !cpython::at_first_instruction(frame)
    }
}

/// # Safety
/// Called from `eval_frame` with its arguments.
unsafe fn intercept(
    py: Python<'_>,
    tstate: *mut PyThreadState,
    frame: *mut InterpreterFrame,
    throwflag: c_int,
    token: u32,
) -> PyResult<*mut PyObject> {
    // SAFETY: forwarding the interpreter's own arguments.
    let evaluate = move || unsafe { previous()(tstate, frame, throwflag) };
    // SAFETY: `frame` is live for this call (contract of `eval_frame`).
    let code = unsafe {
        // A trace or profile function (a debugger, a coverage tracer) is not the compiled
        // program: its frames, and whatever they call, run as the interpreter would run them.
        if untouchable(frame, throwflag) || cpython::in_trace_function(tstate) {
            bump(&STATS.frames_skipped, 1);
            return Ok(evaluate());
        }
        (*frame).f_code
    };
    // SAFETY: the frame holds a strong reference to its code for the whole call.
    let cache = unsafe { cache::get_or_create(py, code)? };
    // Guards, the converter and entries run Python code, which may call `ember.reset()`.
    let _pin = cache.pin();
    // Tested before the caller, whose cache is a second lookup: most frames skipped are
    // ember's own (generated entries, step functions, the trampoline).
    if cache.skips(token) {
        bump(&STATS.frames_skipped, 1);
        return Ok(evaluate());
    }
    // SAFETY: the calling frame is null or live (it is running), and holds a strong reference
    // to its code.
    let resuming = RESUMING.with(|c| {
        let marked = c.get() == code;
        if marked {
            c.set(std::ptr::null_mut());
        }
        marked
    });
    // SAFETY: the calling frame is null or live (it is running), and holds a strong reference
    // to its code.
    let caller = match resuming {
        true => None,
        false => unsafe {
            let caller = cpython::calling_frame(tstate);
            match caller.is_null() {
                true => None,
                false => Some(cache::get_or_create(py, (*caller).f_code)?),
            }
        },
    };
    if let Some(caller) = caller {
        if caller.is_library() {
            bump(&STATS.frames_skipped, 1);
            return Ok(evaluate());
        }
        if caller.runs_plain(token, code) {
            // A callee of a frame run as plain Python by the loop cost rule, on the path its
            // capture broke in: it runs as plain Python too, and so does all it calls (a graph
            // call of its own per trip would cost more than the few NumPy ops it compiles).
            bump(&STATS.frames_skipped, 1);
            set_enabled(0);
            let result = evaluate();
            set_enabled(token);
            return Ok(result);
        }
    }
    // SAFETY: a frame at its first instruction holds exactly its arguments in
    // `localsplus[0..n]` (filled by CPython before evaluation), followed by other slots.
    let (args, func) = unsafe {
        let n = cpython::argument_count(code);
        let base = std::ptr::addr_of_mut!((*frame).localsplus) as *mut *mut PyObject;
        (std::slice::from_raw_parts(base, n), (*frame).f_func)
    };
    if args.iter().any(|a| a.is_null()) {
        bump(&STATS.frames_skipped, 1);
        return Ok(evaluate());
    }
    // SAFETY: `func` is the frame's live function object.
    let view = unsafe {
        FrameView {
            locals: args,
            globals: (*frame).f_globals,
            builtins: (*frame).f_builtins,
            closure: (*func).func_closure,
        }
    };
    // Guards run with the hook disabled: Python code they reach (properties, `__eq__`) is
    // plain evaluation, never a conversion.
    set_enabled(0);
    let looked_up = cache.lookup(py, &view, token);
    set_enabled(token);
    let (hit, failures) = looked_up?;
    bump(&STATS.guard_failures, failures);
    if let Some(entry) = hit {
        bump(&STATS.cache_hits, 1);
        // A direct entry is its graph call: run natively, as the fast path runs it, unless a
        // trace or profile function would see the entry's frame.
        // SAFETY: `tstate` is the current thread state (contract of `eval_frame`).
        if let (Some(direct), false) = (&entry.direct, unsafe { cpython::tracing_active(tstate) }) {
            bump(&STATS.hook_direct_calls, 1);
            return run_direct(py, direct, func, args);
        }
        return call_entry(py, &entry, func, args);
    }
    bump(&STATS.cache_misses, 1);
    if cache.mode(token) == Mode::CacheOnly {
        return Ok(evaluate());
    }
    let Some(callback) = callback(py) else {
        return Ok(evaluate());
    };
    // SAFETY: `func` and the argument slots are live, borrowed from the frame.
    let (func_obj, arg_tuple) = unsafe {
        let func_obj = Bound::from_borrowed_ptr(py, func.cast());
        let items = args.iter().map(|&a| Bound::from_borrowed_ptr(py, a));
        (func_obj, PyTuple::new(py, items)?)
    };
    set_enabled(0);
    let stored = store_verdict(callback.bind(py), func_obj, arg_tuple, cache, token);
    set_enabled(token);
    match stored? {
        Some(entry) => call_entry(py, &entry, func, args),
        None => Ok(evaluate()),
    }
}

/// Calls the converter (with the hook disabled by the caller) and records what it returns:
/// the new entry to run, or None to evaluate the frame normally.
fn store_verdict(
    callback: &Bound<'_, PyAny>,
    func: Bound<'_, PyAny>,
    args: Bound<'_, PyTuple>,
    cache: &cache::CodeCache,
    token: u32,
) -> PyResult<Option<Arc<Entry>>> {
    let verdict = callback.call1((func, args))?;
    if verdict.is_none() {
        return Ok(None);
    }
    if let Ok(pair) = verdict.cast::<PyTuple>() {
        // `(SKIP, callees)`: skipped, and frames of these codes it calls run with the hook off.
        if pair.len() == 2
            && pair
                .get_item(0)?
                .cast::<PyString>()
                .is_ok_and(|w| w == SKIP)
        {
            let callees = pair.get_item(1)?;
            let mut codes = Vec::new();
            for callee in callees.try_iter()? {
                codes.push(callee?.cast::<PyCode>()?.as_ptr() as usize);
            }
            cache.set_mode(token, Mode::Skip);
            cache.set_plain_callees(token, &codes);
            return Ok(None);
        }
    }
    if let Ok(word) = verdict.cast::<PyString>() {
        match word.to_str()? {
            SKIP => cache.set_mode(token, Mode::Skip),
            CACHE_ONLY => cache.set_mode(token, Mode::CacheOnly),
            other => {
                return Err(PyTypeError::new_err(format!(
                    "the frame converter returned {other:?}; expected (guards, entry), SKIP, CACHE_ONLY or None"
                )))
            }
        }
        return Ok(None);
    }
    let malformed = || {
        PyTypeError::new_err(
            "the frame converter must return (guards, entry), (guards, entry, takes_function), \
             (guards, entry, takes_function, direct), SKIP, CACHE_ONLY or None",
        )
    };
    let (guards, entry, takes_function, direct): (
        Bound<'_, PyAny>,
        Bound<'_, PyAny>,
        bool,
        Option<Bound<'_, PyAny>>,
    ) = match verdict.len().map_err(|_| malformed())? {
        2 => {
            let (guards, entry) = verdict.extract().map_err(|_| malformed())?;
            (guards, entry, false, None)
        }
        3 => {
            let (guards, entry, takes) = verdict.extract().map_err(|_| malformed())?;
            (guards, entry, takes, None)
        }
        4 => verdict.extract().map_err(|_| malformed())?,
        _ => return Err(malformed()),
    };
    let guards = compile_tree(&guards)?;
    let direct = match direct {
        Some(spec) if !spec.is_none() => Some(DirectCall::from_spec(&spec)?),
        _ => None,
    };
    let entry = Arc::new(Entry {
        guards,
        entry: entry.unbind(),
        takes_function,
        token,
        direct,
    });
    cache.push(Arc::clone(&entry));
    Ok(Some(entry))
}

/// `resume(*values)` for the trampoline (`continuation.rs`): the hook looks at the resume
/// function's frame as at one called from the user's code.
///
/// # Safety
/// `resume` is a live function of `code`; `values` are live borrowed references.
pub unsafe fn call_resume(
    py: Python<'_>,
    resume: *mut PyObject,
    code: *mut cpython::CodeObject,
    values: &[*mut PyObject],
) -> PyResult<*mut PyObject> {
    let outer = RESUMING.with(|c| c.replace(code));
    // SAFETY: as the caller promises; vectorcall returns a new reference or NULL with an
    // exception set.
    let result = unsafe {
        ffi::PyObject_Vectorcall(resume, values.as_ptr(), values.len(), std::ptr::null_mut())
    };
    RESUMING.with(|c| c.set(outer));
    if result.is_null() {
        Err(PyErr::fetch(py))
    } else {
        Ok(result)
    }
}

/// `direct`'s graph on the frame's argument slots, in place of its entry (see `call_entry`
/// for the recursion count).
fn run_direct(
    py: Python<'_>,
    direct: &DirectCall,
    func: *mut ffi::PyFunctionObject,
    args: &[*mut PyObject],
) -> PyResult<*mut PyObject> {
    // SAFETY: the message is a NUL-terminated static string; GIL held.
    if unsafe { ffi::Py_EnterRecursiveCall(c" in an ember entry".as_ptr()) } != 0 {
        return Err(PyErr::fetch(py));
    }
    let result = direct.run(py, func.cast(), args);
    // SAFETY: pairs with the successful `Py_EnterRecursiveCall` above.
    unsafe { ffi::Py_LeaveRecursiveCall() };
    result
}

/// `entry(*args)` with the frame's argument slots passed as they are (vectorcall, no tuple),
/// or `entry(func, *args)` for an entry that takes the frame's function.
pub fn call_entry(
    py: Python<'_>,
    entry: &Entry,
    func: *mut ffi::PyFunctionObject,
    args: &[*mut PyObject],
) -> PyResult<*mut PyObject> {
    // The replaced frame never reaches `_PyEval_EvalFrameDefault`, which is where CPython counts
    // recursion depth: count it here, or an entry that calls itself overflows the C stack.
    // SAFETY: the message is a NUL-terminated static string; GIL held.
    if unsafe { ffi::Py_EnterRecursiveCall(c" in an ember entry".as_ptr()) } != 0 {
        return Err(PyErr::fetch(py));
    }
    // Most frames have a few arguments: prepend the function on the stack, not the heap.
    let mut on_stack = [std::ptr::null_mut::<PyObject>(); 8];
    let on_heap: Vec<*mut PyObject>;
    let slots = if !entry.takes_function {
        args
    } else if args.len() < on_stack.len() {
        on_stack[0] = func.cast();
        on_stack[1..=args.len()].copy_from_slice(args);
        &on_stack[..=args.len()]
    } else {
        on_heap = std::iter::once(func.cast())
            .chain(args.iter().copied())
            .collect();
        &on_heap[..]
    };
    // SAFETY: the function and the slots are live borrowed references owned by the frame,
    // which outlives the call; vectorcall borrows its arguments and returns a new reference or
    // NULL with an error.
    let result = unsafe {
        ffi::PyObject_Vectorcall(
            entry.entry.as_ptr(),
            slots.as_ptr(),
            slots.len(),
            std::ptr::null_mut(),
        )
    };
    // SAFETY: pairs with the successful `Py_EnterRecursiveCall` above.
    unsafe { ffi::Py_LeaveRecursiveCall() };
    if result.is_null() {
        Err(PyErr::fetch(py))
    } else {
        Ok(result)
    }
}
