//! The object an identity check compares against, held so that the guard tree never keeps
//! user code alive: a function, class or module named by a guard may reference (through its
//! globals or methods) the very code object whose cache holds the guard, a cycle the garbage
//! collector cannot see through a code object's extra slot.

use pyo3::ffi;
use pyo3::prelude::*;

/// The expected object of `ID_MATCH`/`TYPE_MATCH`: its address, plus a weak reference where
/// the object supports one (so a dead object is never confused with a new one at the same
/// address), else a strong reference (ints, builtin functions, static types: nothing that
/// can reach user code).
#[derive(Debug)]
pub struct Target {
    address: usize,
    keep: Keep,
}

#[derive(Debug)]
enum Keep {
    // Never read: held so that the object, and so its address, stays alive.
    #[allow(dead_code)]
    Strong(Py<PyAny>),
    Weak(Py<PyAny>),
}

impl Target {
    /// Holds `obj` weakly when it can be, strongly otherwise.
    pub fn new(obj: &Bound<'_, PyAny>) -> PyResult<Self> {
        let py = obj.py();
        let address = obj.as_ptr() as usize;
        // SAFETY: `obj` is live; the type pointer of a live object is a live type.
        // What may reach user code: functions, modules, classes defined in Python and their
        // instances. Builtin functions, ufuncs and static types are kept strongly.
        let may_reach_user_code = unsafe {
            let ptr = obj.as_ptr();
            let heap_type = |ty: *mut ffi::PyTypeObject| {
                ffi::PyType_HasFeature(ty, ffi::Py_TPFLAGS_HEAPTYPE) != 0
            };
            ffi::PyFunction_Check(ptr) != 0
                || ffi::PyModule_Check(ptr) != 0
                || (ffi::PyType_Check(ptr) != 0 && heap_type(ptr.cast()))
                || heap_type(ffi::Py_TYPE(ptr))
        };
        if may_reach_user_code {
            // SAFETY: `obj` is live; NULL callback; the result is a new reference or NULL.
            let weak = unsafe { ffi::PyWeakref_NewRef(obj.as_ptr(), std::ptr::null_mut()) };
            if !weak.is_null() {
                // SAFETY: a new reference, owned from here.
                let weak = unsafe { Bound::from_owned_ptr(py, weak) };
                return Ok(Target {
                    address,
                    keep: Keep::Weak(weak.unbind()),
                });
            }
            // Not weakly referenceable after all (a type without weakref support): keep it.
            PyErr::take(py);
        }
        Ok(Target {
            address,
            keep: Keep::Strong(obj.clone().unbind()),
        })
    }

    /// Whether `ptr` is the expected object (and that object is still alive).
    pub fn is(&self, ptr: *mut ffi::PyObject) -> bool {
        if ptr as usize != self.address {
            return false;
        }
        match &self.keep {
            Keep::Strong(_) => true,
            // SAFETY: a live weakref; `PyWeakref_GetObject` returns a borrowed reference,
            // `None` once the referent died.
            Keep::Weak(weak) => unsafe { ffi::PyWeakref_GetObject(weak.as_ptr()) == ptr },
        }
    }
}
