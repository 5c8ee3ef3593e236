//! The native fast path of a compiled function. `Dispatch` is the native base class of
//! `ember.api.CompiledFunction`; its instances are called through a vectorcall slot. A call
//! with positional arguments only, no trace or profile function set, and a cache hit on an
//! entry that is one compiled graph and nothing more (its inputs are the function's arguments,
//! its outputs returned as they are or as a tuple: [`DirectCall`]) runs here without running
//! any Python bytecode: the guards in Rust against the argument array, the graph (with the GIL
//! released unless it is light), the result built from the graph's outputs. A hit on an entry
//! with Python around its graph, and a miss past the recompile limit, are handled here too as
//! the frame hook would handle them ([`Scope`]); every other call goes to the Python class's
//! `__call__`, the path through the frame hook.
//!
//! The fast path keeps the entry's behaviour: the graph's own output recycling and
//! floating-point reruns (`CompiledGraph::call`), the updated arrays written back into the
//! arguments the function updates in place (after the same check of their memory as the
//! entry's `_unsafe_writeback`), and, when the graph raises, the entry's fallback (the
//! function run as plain Python, for NumPy's own error).

mod direct;

pub use direct::DirectCall;

use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::exceptions::PyTypeError;
use pyo3::ffi::{self, PyObject};
use pyo3::gc::PyVisit;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use pyo3::PyTraverseError;
use smallvec::SmallVec;

use crate::cache;
use crate::cpython::{self, CodeObject, CO_RESUMABLE};
use crate::errors;
use crate::guards::FrameView;
use crate::hook;

/// The native base of `CompiledFunction`: the function it compiles and its options token,
/// and the vectorcall slot every call of an instance goes through.
#[pyclass(module = "ember._core", subclass)]
pub struct Dispatch {
    /// Read by CPython at `tp_vectorcall_offset` (set by `_bind` on the instance's type).
    vectorcall: ffi::vectorcallfunc,
    func: Option<Py<PyAny>>,
    token: u32,
    /// What `CompiledFunction.__call__` sets around the function, for entries with Python
    /// around their graph called from the slot (None: those go to `__call__`).
    scope: Option<Scope>,
}

/// The state `CompiledFunction.__call__` sets up around its function besides the token:
/// this thread's current options (`policy.active.current`, read by a capture an entry's
/// Python may start: [`current_options`]), and the garbage collector's pause, which must be
/// installed (`gc_pause.state.installed`).
struct Scope {
    opts: Py<PyAny>,
    gc_state: Py<PyAny>,
}

thread_local! {
    /// The options of the innermost compiled function running on this thread (None outside
    /// any). Kept here rather than in a `threading.local`: its attribute lookups cost a
    /// quarter of a microsecond per call of an entry with Python around its graph.
    static CURRENT: std::cell::RefCell<Option<Py<PyAny>>> = const { std::cell::RefCell::new(None) };
}

/// `current_options()`: this thread's current options, or None.
#[pyfunction]
fn current_options(py: Python<'_>) -> Option<Py<PyAny>> {
    CURRENT.with(|c| c.borrow().as_ref().map(|o| o.clone_ref(py)))
}

/// `swap_options(opts)`: makes `opts` (or None) this thread's current options, returning the
/// previous ones.
#[pyfunction]
#[pyo3(signature = (opts))]
fn swap_options(opts: Option<Py<PyAny>>) -> Option<Py<PyAny>> {
    CURRENT.with(|c| c.replace(opts))
}

/// Puts the previous options back when dropped, on a panic too.
struct Restore(Option<Py<PyAny>>);

impl Drop for Restore {
    fn drop(&mut self) {
        let previous = self.0.take();
        // The slot's value comes back to the caller's scope; the one it held is released
        // here (the GIL is held: this runs inside a vectorcall).
        drop(CURRENT.with(|c| c.replace(previous)));
    }
}

impl Scope {
    fn clone_ref(&self, py: Python<'_>) -> Scope {
        Scope {
            opts: self.opts.clone_ref(py),
            gc_state: self.gc_state.clone_ref(py),
        }
    }

    /// Whether the frame hook and the garbage collector's pause are installed, as `__call__`
    /// would leave them (`ember.reset` takes both out).
    fn ready(&self, py: Python<'_>) -> PyResult<bool> {
        let name = pyo3::intern!(py, "installed");
        Ok(hook::installed() && self.gc_state.bind(py).getattr(name)?.is_truthy()?)
    }

    /// `call()` inside this scope, under `token`: an entry called as the frame hook calls
    /// it, or a function evaluated as the hook evaluates a miss.
    fn enter(
        &self,
        py: Python<'_>,
        token: u32,
        call: impl FnOnce() -> PyResult<*mut PyObject>,
    ) -> PyResult<*mut PyObject> {
        let _restore = Restore(swap_options(Some(self.opts.clone_ref(py))));
        let previous = hook::set_enabled(token);
        let result = call();
        hook::set_enabled(previous);
        result
    }
}

#[pymethods]
impl Dispatch {
    #[new]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn new(_args: &Bound<'_, PyTuple>, _kwargs: Option<&Bound<'_, PyAny>>) -> Self {
        Dispatch {
            vectorcall: dispatch_vectorcall,
            func: None,
            token: 0,
            scope: None,
        }
    }

    /// Sets the function and the options token the fast path uses, and makes calls of this
    /// type's instances go through the vectorcall slot. With `scope`, `(opts,
    /// gc_pause.state)`, cache hits of entries with Python around their graph are called from
    /// the slot too, in the scope `__call__` would set up.
    #[pyo3(signature = (func, token, scope=None))]
    fn _bind(
        slf: &Bound<'_, Self>,
        func: Py<PyAny>,
        token: u32,
        scope: Option<(Py<PyAny>, Py<PyAny>)>,
    ) -> PyResult<()> {
        let offset = {
            let mut this = slf.borrow_mut();
            this.func = Some(func);
            this.token = token;
            this.scope = scope.map(|(opts, gc_state)| Scope { opts, gc_state });
            std::ptr::addr_of!(this.vectorcall) as usize - slf.as_ptr() as usize
        };
        // SAFETY: the type of a live object is a live type object. Python classes derived from
        // `Dispatch` keep its layout as their prefix, so the slot lies at the same offset in
        // every instance of the type; CPython 3.11 does not pass the vectorcall flag on to
        // heap subtypes, so it is set here, once per type, before any call through it.
        unsafe {
            let ty = ffi::Py_TYPE(slf.as_ptr());
            if offset >= (*ty).tp_basicsize as usize {
                return Err(PyTypeError::new_err("Dispatch: unexpected object layout"));
            }
            if (*ty).tp_flags & ffi::Py_TPFLAGS_HAVE_VECTORCALL == 0 {
                (*ty).tp_vectorcall_offset = offset as ffi::Py_ssize_t;
                (*ty).tp_flags |= ffi::Py_TPFLAGS_HAVE_VECTORCALL;
            }
        }
        Ok(())
    }

    /// Calls without the fast path (the Python class defines the real `__call__`).
    #[pyo3(signature = (*_args, **_kwargs))]
    fn __call__(
        &self,
        _args: &Bound<'_, PyTuple>,
        _kwargs: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        Err(PyTypeError::new_err(
            "ember._core.Dispatch is a base class: its subclass defines __call__",
        ))
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        if let Some(func) = &self.func {
            visit.call(func)?;
        }
        if let Some(scope) = &self.scope {
            visit.call(&scope.opts)?;
            visit.call(&scope.gc_state)?;
        }
        Ok(())
    }

    fn __clear__(&mut self) {
        self.func = None;
        self.scope = None;
    }
}

/// `dispatch_vectorcall`'s body, as PyO3's own trampolines call a method's: CPython calls
/// vectorcall slots with the GIL held, so the thread is marked attached without
/// `PyGILState_Ensure`/`Release` (what `Python::attach` pays on every call from outside
/// PyO3); references dropped during the call are still released at once, not deferred to a
/// pool (which would keep a recycled output's count above one); a panic becomes
/// `PanicException`.
struct VectorcallBody;

impl pyo3::impl_::trampoline::MethodDef<pyo3::impl_::trampoline::fastcall_cfunction_with_keywords::Func>
    for VectorcallBody
{
    const METH: pyo3::impl_::trampoline::fastcall_cfunction_with_keywords::Func = slot_body;
}

/// # Safety
/// The arguments of a vectorcall of a `Dispatch` instance (`nargsf` as CPython passes it).
unsafe fn slot_body(
    py: Python<'_>,
    callable: *mut PyObject,
    args: *const *mut PyObject,
    nargsf: ffi::Py_ssize_t,
    kwnames: *mut PyObject,
) -> PyResult<*mut PyObject> {
    // SAFETY: the arguments are CPython's own, live for the call.
    let outcome = catch_unwind(AssertUnwindSafe(|| unsafe {
        call(py, callable, args, nargsf as usize, kwnames)
    }));
    match outcome {
        Ok(result) => result,
        Err(payload) => Err(errors::panic_error(payload, "a compiled function's native call")),
    }
}

/// The vectorcall slot of `Dispatch` instances.
unsafe extern "C" fn dispatch_vectorcall(
    callable: *mut PyObject,
    args: *const *mut PyObject,
    nargsf: usize,
    kwnames: *mut PyObject,
) -> *mut PyObject {
    // SAFETY: a vectorcall slot runs with the GIL held (the trampoline's one requirement);
    // `nargsf` keeps its bits as a `Py_ssize_t` and is given back as `usize` to `call`.
    unsafe {
        pyo3::impl_::trampoline::fastcall_cfunction_with_keywords::<VectorcallBody>(
            callable,
            args,
            nargsf as ffi::Py_ssize_t,
            kwnames,
        )
    }
}

/// # Safety
/// The arguments of a vectorcall of a `Dispatch` instance.
unsafe fn call(
    py: Python<'_>,
    callable: *mut PyObject,
    args: *const *mut PyObject,
    nargsf: usize,
    kwnames: *mut PyObject,
) -> PyResult<*mut PyObject> {
    // SAFETY: vectorcall passes `nargs` positional arguments, then one per keyword name.
    let (positional, keywords) = unsafe {
        let nargs = ffi::PyVectorcall_NARGS(nargsf) as usize;
        let keywords = if kwnames.is_null() {
            0
        } else {
            ffi::PyTuple_GET_SIZE(kwnames) as usize
        };
        let positional: &[*mut PyObject] = if nargs == 0 {
            &[]
        } else {
            std::slice::from_raw_parts(args, nargs)
        };
        (positional, keywords)
    };
    {
        // SAFETY: `callable` is a `Dispatch` instance (this slot is only set on its types).
        let this = unsafe { Borrowed::from_ptr(py, callable).cast_unchecked::<Dispatch>() };
        let bound = {
            let this = this.try_borrow()?;
            this.func.as_ref().map(|f| (f.clone_ref(py), this.token))
        };
        if let Some((func, token)) = bound {
            // SAFETY: `func` is held for the call; the slots and keyword values are live.
            let result = unsafe {
                let values = std::slice::from_raw_parts(args.add(positional.len()), keywords);
                fast_call(py, &this, func.as_ptr(), token, positional, kwnames, values)?
            };
            if let Some(result) = result {
                return Ok(result);
            }
        }
    }
    // SAFETY: as above; the keyword values follow the positional arguments.
    unsafe {
        let all = std::slice::from_raw_parts(args, positional.len() + keywords);
        python_call(py, callable, all, positional.len(), kwnames)
    }
}

/// The Python class's `__call__(self, *args, **kwargs)`: the path through the frame hook.
///
/// # Safety
/// `callable` is a live `Dispatch` instance; `all` holds `nargs` positional arguments and one
/// value per name of `kwnames` (NULL or a tuple of str).
unsafe fn python_call(
    py: Python<'_>,
    callable: *mut PyObject,
    all: &[*mut PyObject],
    nargs: usize,
    kwnames: *mut PyObject,
) -> PyResult<*mut PyObject> {
    let name = pyo3::intern!(py, "__call__");
    // SAFETY: `_PyType_Lookup` returns a borrowed reference (or NULL) and sets no error;
    // the type holds it for the call.
    let method = unsafe { cpython::_PyType_Lookup(ffi::Py_TYPE(callable), name.as_ptr()) };
    if method.is_null() {
        return Err(PyTypeError::new_err("a compiled function without __call__"));
    }
    let method = unsafe { Bound::from_borrowed_ptr(py, method) };
    let mut slots = Vec::with_capacity(all.len() + 1);
    slots.push(callable);
    slots.extend_from_slice(all);
    // SAFETY: live borrowed references; `kwnames` names the trailing values.
    let result =
        unsafe { ffi::PyObject_Vectorcall(method.as_ptr(), slots.as_ptr(), nargs + 1, kwnames) };
    if result.is_null() {
        Err(PyErr::fetch(py))
    } else {
        Ok(result)
    }
}

/// The native call, or None when the frame hook must handle it: a function that is not a
/// plain Python function of positional parameters called with all of them, a trace or
/// profile function set, a code without entries or marked skip, no entry whose guards pass
/// (or guards only Python code can evaluate), or an entry with Python around its graph that
/// `this` has no scope for.
///
/// # Safety
/// `func` is a live object; `args` are live borrowed references.
unsafe fn fast_call(
    py: Python<'_>,
    this: &Borrowed<'_, '_, Dispatch>,
    func: *mut PyObject,
    token: u32,
    positional: &[*mut PyObject],
    kwnames: *mut PyObject,
    keywords: &[*mut PyObject],
) -> PyResult<Option<*mut PyObject>> {
    // SAFETY: `func` is live; an exact function's fields are live while it is.
    let (code, globals, builtins, closure, args) = unsafe {
        // A trace or profile function set, or running (the hook leaves the frames it calls
        // alone): the hook's path decides, as it always did.
        let tstate = ffi::PyThreadState_Get();
        if ffi::PyFunction_Check(func) == 0
            || cpython::tracing_active(tstate)
            || cpython::in_trace_function(tstate)
        {
            return Ok(None);
        }
        let function = func as *mut ffi::PyFunctionObject;
        let code = (*function).func_code as *mut CodeObject;
        let flags = (*code).co_flags;
        let plain = flags & (CO_RESUMABLE | ffi::CO_VARARGS | ffi::CO_VARKEYWORDS) == 0
            && flags & ffi::CO_OPTIMIZED != 0
            && (*code).co_kwonlyargcount == 0;
        if !plain {
            return Ok(None);
        }
        let Some(args) = bind_arguments(function, code, positional, kwnames, keywords) else {
            return Ok(None);
        };
        let function = &*function;
        (
            code,
            function.func_globals,
            function.func_builtins,
            function.func_closure,
            args,
        )
    };
    let view = FrameView {
        locals: &args,
        globals,
        builtins,
        closure,
    };
    let cache_only;
    // SAFETY: the function holds its code alive for the call; the cache reference is not
    // used past the lookup, which runs no Python code (direct entries' guards run none).
    let found = unsafe {
        let Some(cache) = cache::get(code) else {
            return Ok(None);
        };
        if cache.skips(token) {
            return Ok(None);
        }
        cache_only = cache.mode(token) == cache::Mode::CacheOnly;
        cache.lookup_pure(py, &view, token)?
    };
    let Some((entry, failures)) = found else {
        return Ok(None);
    };
    let direct = entry.as_ref().and_then(|e| e.direct.as_ref());
    let Some(direct) = direct else {
        // An entry with Python around its graph, or a miss: what the hook would do, from here
        // when this function has a scope and a miss runs the frame as it is.
        let scope = this.try_borrow()?.scope.as_ref().map(|s| s.clone_ref(py));
        let Some(scope) = scope else {
            return Ok(None);
        };
        return match entry {
            Some(entry) if scope.ready(py)? => {
                hook::count_fast_hit(failures, false);
                scope
                    .enter(py, token, || {
                        hook::call_entry(py, &entry, func.cast(), &args)
                    })
                    .map(Some)
            }
            // SAFETY: `func` is a live function, `args` its bound parameters.
            None if cache_only && scope.ready(py)? => scope
                .enter(py, token, || unsafe {
                    hook::evaluate_missed(py, func, &args, failures)
                })
                .map(Some),
            _ => Ok(None),
        };
    };
    hook::count_fast_hit(failures, true);
    // The entry runs under its options' token, as on the hook's path (a floating-point rerun
    // runs Python code).
    let previous = hook::set_enabled(token);
    let result = direct.run(py, func, &args);
    hook::set_enabled(previous);
    result.map(Some)
}

/// The function's parameters as its frame would hold them at its start: the positional
/// arguments, then each keyword argument in its parameter's slot, then the defaults of the
/// parameters left; None where Python would raise (a missing, repeated or unknown argument)
/// or a keyword names a positional-only parameter, which the frame hook's path handles.
///
/// # Safety
/// `function` is a live function of `code`, a plain code of no keyword-only parameters;
/// `keywords` holds one live value per name of `kwnames` (NULL or a tuple of str).
unsafe fn bind_arguments(
    function: *mut ffi::PyFunctionObject,
    code: *mut CodeObject,
    positional: &[*mut PyObject],
    kwnames: *mut PyObject,
    keywords: &[*mut PyObject],
) -> Option<SmallVec<[*mut PyObject; 8]>> {
    // SAFETY: as the caller promises; tuple items are borrowed from live tuples.
    unsafe {
        let count = (*code).co_argcount as usize;
        if positional.len() > count {
            return None;
        }
        if keywords.is_empty() && positional.len() == count {
            return Some(SmallVec::from_slice(positional));
        }
        let mut slots: SmallVec<[*mut PyObject; 8]> =
            SmallVec::from_elem(std::ptr::null_mut(), count);
        slots[..positional.len()].copy_from_slice(positional);
        let names = (*code).co_localsplusnames;
        let posonly = (*code).co_posonlyargcount as usize;
        for (k, &value) in keywords.iter().enumerate() {
            let key = ffi::PyTuple_GET_ITEM(kwnames, k as ffi::Py_ssize_t);
            let slot = (0..count).find(|&p| {
                let name = ffi::PyTuple_GET_ITEM(names, p as ffi::Py_ssize_t);
                name == key || ffi::PyUnicode_Compare(name, key) == 0
            })?;
            if slot < posonly || !slots[slot].is_null() {
                return None;
            }
            slots[slot] = value;
        }
        let defaults = (*function).func_defaults;
        let given = if defaults.is_null() {
            0
        } else {
            ffi::PyTuple_GET_SIZE(defaults) as usize
        };
        for (p, slot) in slots.iter_mut().enumerate() {
            if slot.is_null() {
                let k = (p + given).checked_sub(count)?;
                *slot = ffi::PyTuple_GET_ITEM(defaults, k as ffi::Py_ssize_t);
            }
        }
        Some(slots)
    }
}

/// Registers `Dispatch`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(current_options, m)?)?;
    m.add_function(wrap_pyfunction!(swap_options, m)?)?;
    m.add_class::<Dispatch>()
}
