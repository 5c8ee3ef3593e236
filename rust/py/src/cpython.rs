//! CPython 3.11's private frame-evaluation API and the internal structs the frame hook reads.
//!
//! pyo3-ffi does not declare these (they are private and change in 3.12), so they live here, in
//! one place, mirrored from `Include/internal/pycore_frame.h`, `Include/cpython/code.h`,
//! `Include/cpython/ceval.h` and `Include/cpython/pystate.h` of CPython 3.11. The offsets are
//! checked against the installed headers by `tests/test_native_hook.py::test_struct_layout`.

use std::ffi::{c_char, c_int, c_short, c_void};
use std::mem::offset_of;

use pyo3::ffi::{PyFunctionObject, PyInterpreterState, PyObject, PyThreadState, PyVarObject};

/// `_Py_CODEUNIT`: one 16-bit instruction word.
pub type CodeUnit = u16;

/// `_PyFrameEvalFunction`: the PEP 523 eval-frame function type.
pub type EvalFrameFn =
    unsafe extern "C" fn(*mut PyThreadState, *mut InterpreterFrame, c_int) -> *mut PyObject;

/// `freefunc`: releases a code object's extra slot.
pub type FreeFunc = unsafe extern "C" fn(*mut c_void);

/// `FRAME_OWNED_BY_THREAD`: a frame of an ordinary call on the thread's frame stack.
pub const FRAME_OWNED_BY_THREAD: c_char = 0;

/// Code flags whose frames are resumable (generators, coroutines): the hook never touches them.
pub const CO_RESUMABLE: c_int = pyo3::ffi::CO_GENERATOR
    | pyo3::ffi::CO_COROUTINE
    | pyo3::ffi::CO_ASYNC_GENERATOR
    | pyo3::ffi::CO_ITERABLE_COROUTINE;

/// `struct _PyInterpreterFrame` of CPython 3.11 (`Include/internal/pycore_frame.h`).
#[repr(C)]
pub struct InterpreterFrame {
    /// The function being called (strong reference).
    pub f_func: *mut PyFunctionObject,
    /// The function's globals (borrowed).
    pub f_globals: *mut PyObject,
    /// The function's builtins (borrowed).
    pub f_builtins: *mut PyObject,
    /// The locals mapping, NULL for optimised function frames.
    pub f_locals: *mut PyObject,
    /// The code object (strong reference).
    pub f_code: *mut CodeObject,
    /// The frame object, created lazily.
    pub frame_obj: *mut PyObject,
    /// The calling frame.
    pub previous: *mut InterpreterFrame,
    /// The code unit before the next instruction; `_PyCode_CODE(code) - 1` at a frame's start.
    pub prev_instr: *mut CodeUnit,
    /// Offset of the top of the value stack from `localsplus`.
    pub stacktop: c_int,
    /// Whether this frame is the first of a C-level call into the interpreter.
    pub is_entry: bool,
    /// `enum _frameowner`.
    pub owner: c_char,
    /// Fast locals, cells, free variables, then the value stack (a flexible array).
    pub localsplus: [*mut PyObject; 1],
}

/// `struct PyCodeObject` of CPython 3.11 (`Include/cpython/code.h`), up to the bytecode.
#[repr(C)]
pub struct CodeObject {
    /// `PyObject_VAR_HEAD`.
    pub ob_base: PyVarObject,
    /// Constants.
    pub co_consts: *mut PyObject,
    /// Names used.
    pub co_names: *mut PyObject,
    /// The exception table.
    pub co_exceptiontable: *mut PyObject,
    /// `CO_*` flags.
    pub co_flags: c_int,
    /// Warm-up counter for quickening.
    pub co_warmup: c_short,
    /// Size of each entry in `_co_linearray`.
    pub co_linearray_entry_size: c_short,
    /// Positional parameters (without `*args`).
    pub co_argcount: c_int,
    /// Positional-only parameters.
    pub co_posonlyargcount: c_int,
    /// Keyword-only parameters.
    pub co_kwonlyargcount: c_int,
    /// Value stack depth.
    pub co_stacksize: c_int,
    /// First source line.
    pub co_firstlineno: c_int,
    /// Locals + cells + free variables.
    pub co_nlocalsplus: c_int,
    /// Plain locals.
    pub co_nlocals: c_int,
    /// Cell variables that are not arguments.
    pub co_nplaincellvars: c_int,
    /// All cell variables.
    pub co_ncellvars: c_int,
    /// Free variables.
    pub co_nfreevars: c_int,
    /// Names of `localsplus` slots.
    pub co_localsplusnames: *mut PyObject,
    /// Kinds of `localsplus` slots.
    pub co_localspluskinds: *mut PyObject,
    /// Source file name (str).
    pub co_filename: *mut PyObject,
    /// Function name.
    pub co_name: *mut PyObject,
    /// Qualified name.
    pub co_qualname: *mut PyObject,
    /// Location table.
    pub co_linetable: *mut PyObject,
    /// Weak references.
    pub co_weakreflist: *mut PyObject,
    /// Cached `co_code`.
    pub co_code: *mut PyObject,
    /// Line offsets.
    pub co_linearray: *mut c_char,
    /// First traceable instruction.
    pub co_firsttraceable: c_int,
    /// Extra slots (`_PyCode_GetExtra`).
    pub co_extra: *mut c_void,
    /// The (adaptive) bytecode, a flexible array.
    pub co_code_adaptive: [c_char; 1],
}

extern "C" {
    /// Installs an eval-frame function; `_PyEval_EvalFrameDefault` restores the default.
    pub fn _PyInterpreterState_SetEvalFrameFunc(interp: *mut PyInterpreterState, f: EvalFrameFn);
    /// The interpreter's eval-frame function (the default when none is installed).
    pub fn _PyInterpreterState_GetEvalFrameFunc(interp: *mut PyInterpreterState) -> EvalFrameFn;
    /// CPython's bytecode interpreter.
    pub fn _PyEval_EvalFrameDefault(
        tstate: *mut PyThreadState,
        frame: *mut InterpreterFrame,
        throwflag: c_int,
    ) -> *mut PyObject;
    /// Reserves a per-code extra slot whose contents `free` releases with the code.
    pub fn _PyEval_RequestCodeExtraIndex(free: FreeFunc) -> isize;
    /// Reads a code object's extra slot (NULL when unset).
    pub fn _PyCode_GetExtra(code: *mut PyObject, index: isize, extra: *mut *mut c_void) -> c_int;
    /// Sets a code object's extra slot, freeing a previous value.
    pub fn _PyCode_SetExtra(code: *mut PyObject, index: isize, extra: *mut c_void) -> c_int;
    /// A cell's contents as a new reference, NULL (no error) when the cell is empty.
    pub fn PyCell_Get(cell: *mut PyObject) -> *mut PyObject;
    /// The type of cells (`PyCell_Check` is an exact test of it).
    pub static mut PyCell_Type: pyo3::ffi::PyTypeObject;
    /// The attribute `name` found on `ty` or its bases (borrowed, NULL when absent; sets no
    /// error).
    pub fn _PyType_Lookup(ty: *mut pyo3::ffi::PyTypeObject, name: *mut PyObject) -> *mut PyObject;
}

/// Whether `frame` is about to run its first instruction (`prev_instr == _PyCode_CODE(code) - 1`).
///
/// # Safety
/// `frame` must point to a live frame whose `f_code` is a live code object.
pub unsafe fn at_first_instruction(frame: *const InterpreterFrame) -> bool {
    // SAFETY: the caller guarantees both pointers are live; `co_code_adaptive` is the start of
    // the bytecode and the `- 1` mirrors `_PyFrame_InitializeSpecials`, computed with
    // wrapping arithmetic because it points one unit before the array.
    unsafe {
        let code = (*frame).f_code;
        let start =
            (code as *const u8).add(offset_of!(CodeObject, co_code_adaptive)) as *const CodeUnit;
        std::ptr::eq((*frame).prev_instr, start.wrapping_sub(1))
    }
}
/// The head of `struct _ts` (`PyThreadState`) of CPython 3.11, up to `cframe`.
#[repr(C)]
pub struct ThreadStateHead {
    prev: *mut PyThreadState,
    next: *mut PyThreadState,
    interp: *mut PyInterpreterState,
    _initialized: c_int,
    _static: c_int,
    recursion_remaining: c_int,
    recursion_limit: c_int,
    recursion_headroom: c_int,
    /// Non-zero while a `sys.settrace` / `sys.setprofile` function runs on this thread.
    tracing: c_int,
    tracing_what: c_int,
    /// The C frame of the innermost running `_PyEval_EvalFrameDefault`.
    pub cframe: *mut CFrame,
}

/// `_PyCFrame` of CPython 3.11 (`Include/cpython/pystate.h`).
#[repr(C)]
pub struct CFrame {
    use_tracing: u8,
    /// The frame being executed: while the eval-frame function runs for a new frame, its
    /// caller (the new frame becomes current only once it is evaluated).
    pub current_frame: *mut InterpreterFrame,
    previous: *mut CFrame,
}

/// The Python frame that is calling the frame about to be evaluated (NULL at the bottom).
/// A frame's own `previous` is only set once it is evaluated, so it cannot tell.
///
/// # Safety
/// `tstate` must be the current thread state, with the GIL held.
pub unsafe fn calling_frame(tstate: *mut PyThreadState) -> *mut InterpreterFrame {
    // SAFETY: the caller guarantees a live thread state; `cframe` points into the C stack of
    // the running evaluation loop, or is the thread state's root C frame.
    unsafe {
        let cframe = (*tstate.cast::<ThreadStateHead>()).cframe;
        if cframe.is_null() {
            std::ptr::null_mut()
        } else {
            (*cframe).current_frame
        }
    }
}

/// Whether a trace or profile function (`sys.settrace`, `sys.setprofile`) is running on this
/// thread: CPython raises `tracing` around each call to one, and frames it calls run inside.
///
/// # Safety
/// `tstate` must be the current thread state, with the GIL held.
pub unsafe fn in_trace_function(tstate: *mut PyThreadState) -> bool {
    // SAFETY: the caller guarantees a live thread state; `tracing` is a plain int field.
    unsafe { (*tstate.cast::<ThreadStateHead>()).tracing != 0 }
}

/// Whether a trace or profile function is set on this thread (`cframe->use_tracing`, which
/// CPython 3.11 raises for both `sys.settrace` and `sys.setprofile`).
///
/// # Safety
/// `tstate` must be the current thread state, with the GIL held.
pub unsafe fn tracing_active(tstate: *mut PyThreadState) -> bool {
    // SAFETY: the caller guarantees a live thread state; `cframe` is never NULL on a thread
    // that runs Python code (it starts as the thread state's root C frame).
    unsafe {
        let cframe = (*tstate.cast::<ThreadStateHead>()).cframe;
        !cframe.is_null() && (*cframe).use_tracing != 0
    }
}

/// Number of argument slots at the start of `localsplus`: positional and keyword-only
/// parameters, then `*args` and `**kwargs` when the code has them.
///
/// # Safety
/// `code` must point to a live code object.
pub unsafe fn argument_count(code: *const CodeObject) -> usize {
    // SAFETY: the caller guarantees `code` is live; these are plain int fields.
    let (argc, kwonly, flags) = unsafe {
        (
            (*code).co_argcount,
            (*code).co_kwonlyargcount,
            (*code).co_flags,
        )
    };
    let star = ((flags & pyo3::ffi::CO_VARARGS) != 0) as c_int
        + ((flags & pyo3::ffi::CO_VARKEYWORDS) != 0) as c_int;
    (argc + kwonly + star) as usize
}

/// Field offsets of the mirrored structs, for the layout test against the C headers.
pub fn layout() -> Vec<(&'static str, usize)> {
    vec![
        (
            "_PyInterpreterFrame.f_func",
            offset_of!(InterpreterFrame, f_func),
        ),
        (
            "_PyInterpreterFrame.f_globals",
            offset_of!(InterpreterFrame, f_globals),
        ),
        (
            "_PyInterpreterFrame.f_builtins",
            offset_of!(InterpreterFrame, f_builtins),
        ),
        (
            "_PyInterpreterFrame.f_code",
            offset_of!(InterpreterFrame, f_code),
        ),
        (
            "_PyInterpreterFrame.prev_instr",
            offset_of!(InterpreterFrame, prev_instr),
        ),
        (
            "_PyInterpreterFrame.stacktop",
            offset_of!(InterpreterFrame, stacktop),
        ),
        (
            "_PyInterpreterFrame.owner",
            offset_of!(InterpreterFrame, owner),
        ),
        (
            "_PyInterpreterFrame.localsplus",
            offset_of!(InterpreterFrame, localsplus),
        ),
        ("PyCodeObject.co_flags", offset_of!(CodeObject, co_flags)),
        (
            "PyCodeObject.co_argcount",
            offset_of!(CodeObject, co_argcount),
        ),
        (
            "PyCodeObject.co_kwonlyargcount",
            offset_of!(CodeObject, co_kwonlyargcount),
        ),
        (
            "PyCodeObject.co_nlocalsplus",
            offset_of!(CodeObject, co_nlocalsplus),
        ),
        (
            "PyCodeObject.co_filename",
            offset_of!(CodeObject, co_filename),
        ),
        ("PyCodeObject.co_extra", offset_of!(CodeObject, co_extra)),
        (
            "PyCodeObject.co_code_adaptive",
            offset_of!(CodeObject, co_code_adaptive),
        ),
        (
            "PyFunctionObject.func_globals",
            offset_of!(PyFunctionObject, func_globals),
        ),
        (
            "PyFunctionObject.func_builtins",
            offset_of!(PyFunctionObject, func_builtins),
        ),
        (
            "PyFunctionObject.func_closure",
            offset_of!(PyFunctionObject, func_closure),
        ),
        (
            "PyThreadState.tracing",
            offset_of!(ThreadStateHead, tracing),
        ),
        ("PyThreadState.cframe", offset_of!(ThreadStateHead, cframe)),
        ("_PyCFrame.current_frame", offset_of!(CFrame, current_frame)),
    ]
}

#[cfg(test)]
mod tests {
    use super::layout;

    /// The offsets NOTES.md records for x86-64 CPython 3.11 (the Python test compares every
    /// field against the installed headers).
    #[test]
    fn frame_layout_matches_cpython_3_11() {
        let offsets: std::collections::HashMap<_, _> = layout().into_iter().collect();
        assert_eq!(offsets["_PyInterpreterFrame.f_code"], 32);
        assert_eq!(offsets["_PyInterpreterFrame.localsplus"], 72);
    }
}
