//! Guard evaluation. Root values come straight from the frame's slots and dicts; checks read
//! object structs (type pointers, ndarray fields) instead of Python attributes wherever they can.
//! A value that cannot be read (missing name, AttributeError, LookupError, TypeError) fails the
//! guard; any other exception (e.g. KeyboardInterrupt inside a property) propagates.

use std::sync::atomic::{AtomicPtr, Ordering};

use numpy::npyffi::{NpyTypes, PyArrayObject, PY_ARRAY_API};
use numpy::{PyArrayDescr, PyArrayDescrMethods};
use pyo3::exceptions::{PyAttributeError, PyLookupError, PyTypeError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use super::{
    symbolic_minimum, Accessor, ArrayMatch, Check, DictLacks, DictRead, FrameView, GuardNode,
    GuardTree, ModuleAttrIs, SYMBOLIC_DIM,
};

impl GuardTree {
    /// Whether every root node passes against `frame`.
    pub fn check(&self, py: Python<'_>, frame: &FrameView<'_>) -> PyResult<bool> {
        Ok(self.walk(py, frame, false)? == Some(true))
    }

    /// [`GuardTree::check`] without running any Python code: None where a value could only
    /// be read, or a check made, by running some (an attribute a class defines or a
    /// `__getattr__` gives, the length or keys of a container that is not a built-in one).
    pub fn check_pure(&self, py: Python<'_>, frame: &FrameView<'_>) -> PyResult<Option<bool>> {
        self.walk(py, frame, true)
    }

    fn walk(&self, py: Python<'_>, frame: &FrameView<'_>, pure: bool) -> PyResult<Option<bool>> {
        for node in &self.roots {
            let Some(value) = read_root(py, &node.accessor, frame)? else {
                return Ok(Some(false));
            };
            match node.walk(&value, pure)? {
                Some(true) => {}
                other => return Ok(other),
            }
        }
        Ok(Some(true))
    }
}

impl GuardNode {
    fn walk(&self, value: &Bound<'_, PyAny>, pure: bool) -> PyResult<Option<bool>> {
        for check in &self.checks {
            if pure && !check.is_pure_on(value) {
                return Ok(None);
            }
            if !check.check(value)? {
                return Ok(Some(false));
            }
        }
        for child in &self.children {
            let read = if pure {
                match read_child_pure(&child.accessor, value)? {
                    Some(read) => read,
                    None => return Ok(None),
                }
            } else {
                read_child(&child.accessor, value)?
            };
            let Some(child_value) = read else {
                return Ok(Some(false));
            };
            match child.walk(&child_value, pure)? {
                Some(true) => {}
                other => return Ok(other),
            }
        }
        Ok(Some(true))
    }
}

/// Whether `obj.name` is read from the instance's own dict by CPython's generic lookup alone:
/// the type neither customises attribute access nor defines `name` (no descriptor, method or
/// class attribute), so no Python code can run for it.
///
/// # Safety
/// `obj` and `name` are live; `name` is a str.
pub unsafe fn plain_instance_attr(obj: *mut ffi::PyObject, name: *mut ffi::PyObject) -> bool {
    // SAFETY: as the caller promises; `_PyType_Lookup` returns a borrowed reference or NULL
    // and sets no error.
    unsafe {
        let ty = ffi::Py_TYPE(obj);
        let generic: ffi::getattrofunc = ffi::PyObject_GenericGetAttr;
        (*ty)
            .tp_getattro
            .is_some_and(|f| std::ptr::fn_addr_eq(f, generic))
            && crate::cpython::_PyType_Lookup(ty, name).is_null()
    }
}

/// [`read_child`] where it runs no Python code: Some(the value, or None for a failed read),
/// None where it would run some.
fn read_child_pure<'py>(
    accessor: &Accessor,
    value: &Bound<'py, PyAny>,
) -> PyResult<Option<Option<Bound<'py, PyAny>>>> {
    let pure = match accessor {
        // SAFETY: live objects; an attribute name is a str.
        Accessor::Attr(name) => unsafe { plain_instance_attr(value.as_ptr(), name.as_ptr()) },
        Accessor::Item { key, index } => {
            let key = key.bind(value.py());
            (index.is_some()
                && (value.is_exact_instance_of::<PyTuple>()
                    || value.is_exact_instance_of::<PyList>()))
                || (value.is_exact_instance_of::<PyDict>()
                    && (key.is_exact_instance_of::<PyString>()
                        || key.is_exact_instance_of::<PyInt>()))
        }
        _ => false,
    };
    if !pure {
        return Ok(None);
    }
    read_child(accessor, value).map(Some)
}

fn read_root<'py>(
    py: Python<'py>,
    accessor: &Accessor,
    frame: &FrameView<'_>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    match accessor {
        Accessor::Local(i) => Ok(frame.locals.get(*i).and_then(|&ptr| {
            // SAFETY: argument slots hold live (borrowed) objects or NULL; NULL is skipped.
            (!ptr.is_null()).then(|| unsafe { Bound::from_borrowed_ptr(py, ptr) })
        })),
        Accessor::Global(read) => dict_read(py, frame.globals, read),
        Accessor::Builtin(read) => dict_read(py, frame.builtins, read),
        Accessor::Closure(i) => {
            if frame.closure.is_null() {
                return Ok(None);
            }
            // SAFETY: a function's `__closure__` is NULL (handled above) or a tuple of cells;
            // the index is bounds-checked and `PyCell_Get` returns a new reference or NULL
            // (an empty cell, no error set).
            unsafe {
                if *i >= ffi::PyTuple_GET_SIZE(frame.closure) as usize {
                    return Ok(None);
                }
                let cell = ffi::PyTuple_GET_ITEM(frame.closure, *i as ffi::Py_ssize_t);
                Ok(Bound::from_owned_ptr_or_opt(
                    py,
                    crate::cpython::PyCell_Get(cell),
                ))
            }
        }
        // SAFETY: a frame's globals and builtins are live dicts for the whole call.
        Accessor::GlobalsDict => Ok(Some(unsafe { Bound::from_borrowed_ptr(py, frame.globals) })),
        Accessor::BuiltinsDict => Ok(Some(unsafe {
            Bound::from_borrowed_ptr(py, frame.builtins)
        })),
        Accessor::Attr(_) | Accessor::Item { .. } => Ok(None),
    }
}

fn read_child<'py>(
    accessor: &Accessor,
    value: &Bound<'py, PyAny>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let py = value.py();
    let read = match accessor {
        Accessor::Attr(name) => value.getattr(name.bind(py)),
        Accessor::Item { key, index } => {
            if let (Some(index), Ok(tuple)) = (index, value.cast_exact::<PyTuple>()) {
                return normalise(*index, tuple.len())
                    .map(|i| tuple.get_item(i))
                    .transpose();
            }
            if let (Some(index), Ok(list)) = (index, value.cast_exact::<PyList>()) {
                return normalise(*index, list.len())
                    .map(|i| list.get_item(i))
                    .transpose();
            }
            if value.is_exact_instance_of::<PyDict>() {
                return dict_get(py, value.as_ptr(), key.as_ptr());
            }
            value.get_item(key.bind(py))
        }
        _ => return Ok(None),
    };
    match read {
        Ok(v) => Ok(Some(v)),
        Err(err) if is_read_failure(py, &err) => Ok(None),
        Err(err) => Err(err),
    }
}

fn normalise(index: isize, len: usize) -> Option<usize> {
    let index = if index < 0 {
        index + len as isize
    } else {
        index
    };
    (0..len as isize).contains(&index).then_some(index as usize)
}

/// `dict[key]`, or None when the key is absent.
fn dict_get<'py>(
    py: Python<'py>,
    dict: *mut ffi::PyObject,
    key: *mut ffi::PyObject,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    // SAFETY: `dict` is a live dict (frame globals/builtins or an exact dict checked by the
    // caller) and `key` a live object; the result is borrowed and turned into an owned Bound.
    unsafe {
        let item = ffi::PyDict_GetItemWithError(dict, key);
        if !item.is_null() {
            return Ok(Some(Bound::from_borrowed_ptr(py, item)));
        }
    }
    match PyErr::take(py) {
        None => Ok(None),
        Some(err) if is_read_failure(py, &err) => Ok(None),
        Some(err) => Err(err),
    }
}

/// `dict[read.name]` as [`dict_get`] reads it, without a lookup where `dict` is the exact
/// dict of the version tag the last read saw (equal tags: the same dict, unchanged since, so
/// it still holds the item found then). Guards run with the GIL held, so the tag and the item
/// are written together.
fn dict_read<'py>(
    py: Python<'py>,
    dict: *mut ffi::PyObject,
    read: &DictRead,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    // SAFETY: `dict` is a live dict (a frame's globals or builtins).
    let exact = unsafe { ffi::PyDict_CheckExact(dict) != 0 };
    if !exact {
        return dict_get(py, dict, read.name.as_ptr());
    }
    // SAFETY: an exact dict is a `PyDictObject`.
    let version = unsafe { (*(dict as *const ffi::PyDictObject)).ma_version_tag };
    if version == read.version.load(Ordering::Relaxed) {
        let item = read.item.load(Ordering::Relaxed);
        // SAFETY: the dict of this tag is unchanged since `item` was read from it, so it
        // still holds a reference to it.
        return Ok(Some(unsafe { Bound::from_borrowed_ptr(py, item) }));
    }
    let found = dict_get(py, dict, read.name.as_ptr())?;
    if let Some(item) = &found {
        read.item.store(item.as_ptr(), Ordering::Relaxed);
        read.version.store(version, Ordering::Relaxed);
    }
    Ok(found)
}

fn is_read_failure(py: Python<'_>, err: &PyErr) -> bool {
    err.is_instance_of::<PyAttributeError>(py)
        || err.is_instance_of::<PyLookupError>(py)
        || err.is_instance_of::<PyTypeError>(py)
}

impl Check {
    /// Whether checking `value` runs no Python code.
    fn is_pure_on(&self, value: &Bound<'_, PyAny>) -> bool {
        match self {
            Check::LenMatch(_) => {
                value.is_exact_instance_of::<PyTuple>()
                    || value.is_exact_instance_of::<PyList>()
                    || value.is_exact_instance_of::<PyDict>()
            }
            Check::DictKeysMatch(_) => value.is_exact_instance_of::<PyDict>(),
            _ => true,
        }
    }

    fn check(&self, value: &Bound<'_, PyAny>) -> PyResult<bool> {
        let py = value.py();
        match self {
            Check::TypeMatch(ty) => Ok(ty.is(value.get_type_ptr().cast())),
            Check::IdMatch(obj) => Ok(obj.is(value.as_ptr())),
            Check::AddressMatch(address) => Ok(value.as_ptr() as usize == *address),
            Check::DictLacks(lacks) => dict_lacks(value, lacks),
            Check::ModuleAttrIs(attr) => module_attr_is(value, attr),
            Check::EqualsMatch(expected) => equals_exact(value, expected.bind(py)),
            Check::LenMatch(n) => Ok(length(value)? == Some(*n)),
            Check::IntAtLeast(n) => Ok(value.is_exact_instance_of::<PyInt>() && value.ge(*n)?),
            Check::DictKeysMatch(keys) => dict_keys_match(value, keys.bind(py)),
            Check::ArrayMatch(array) => Ok(array_match(value, array)),
        }
    }
}

/// Same exact type and equal, through tuples; floats by bit pattern (see [`Check::EqualsMatch`]).
fn equals_exact(value: &Bound<'_, PyAny>, expected: &Bound<'_, PyAny>) -> PyResult<bool> {
    if !std::ptr::eq(value.get_type_ptr(), expected.get_type_ptr()) {
        return Ok(false);
    }
    if value.is(expected) {
        return Ok(true);
    }
    if let (Ok(a), Ok(b)) = (
        value.cast_exact::<PyFloat>(),
        expected.cast_exact::<PyFloat>(),
    ) {
        let (a, b) = (a.value(), b.value());
        return Ok(a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()));
    }
    if let (Ok(a), Ok(b)) = (
        value.cast_exact::<PyTuple>(),
        expected.cast_exact::<PyTuple>(),
    ) {
        if a.len() != b.len() {
            return Ok(false);
        }
        for (x, y) in a.iter().zip(b.iter()) {
            if !equals_exact(&x, &y)? {
                return Ok(false);
            }
        }
        return Ok(true);
    }
    // Exact int or str (None and bool are singletons, matched by identity above): the built-in
    // comparison runs no Python code.
    value.eq(expected)
}

/// The version tag of an exact dict (`ma_version_tag`: a fresh number from one process-wide
/// counter on every creation and mutation, so equal tags mean the same dict, unchanged).
fn dict_version(dict: &Bound<'_, PyDict>) -> u64 {
    // SAFETY: an exact dict is a `PyDictObject`.
    unsafe { (*(dict.as_ptr() as *const ffi::PyDictObject)).ma_version_tag }
}

fn dict_lacks(value: &Bound<'_, PyAny>, lacks: &DictLacks) -> PyResult<bool> {
    let Ok(dict) = value.cast_exact::<PyDict>() else {
        return Ok(false);
    };
    let version = dict_version(dict);
    if version == lacks.passed_version.load(Ordering::Relaxed) {
        return Ok(true);
    }
    let absent = dict_get(value.py(), dict.as_ptr(), lacks.name.as_ptr())?.is_none();
    if absent {
        lacks.passed_version.store(version, Ordering::Relaxed);
    }
    Ok(absent)
}

fn module_attr_is(value: &Bound<'_, PyAny>, attr: &ModuleAttrIs) -> PyResult<bool> {
    // SAFETY: `value` is live; `PyModule_GetDict` returns the module's dict, borrowed.
    let dict = unsafe {
        if ffi::PyModule_Check(value.as_ptr()) == 0 {
            return Ok(false);
        }
        Bound::from_borrowed_ptr(value.py(), ffi::PyModule_GetDict(value.as_ptr()))
    };
    let Ok(dict) = dict.cast_exact::<PyDict>() else {
        return Ok(false);
    };
    let version = dict_version(dict);
    if version == attr.passed_version.load(Ordering::Relaxed) {
        return Ok(true);
    }
    let same = dict_get(value.py(), dict.as_ptr(), attr.name.as_ptr())?
        .is_some_and(|item| attr.target.is(item.as_ptr()));
    if same {
        attr.passed_version.store(version, Ordering::Relaxed);
    }
    Ok(same)
}

fn length(value: &Bound<'_, PyAny>) -> PyResult<Option<isize>> {
    if let Ok(t) = value.cast_exact::<PyTuple>() {
        return Ok(Some(t.len() as isize));
    }
    if let Ok(l) = value.cast_exact::<PyList>() {
        return Ok(Some(l.len() as isize));
    }
    if let Ok(d) = value.cast_exact::<PyDict>() {
        return Ok(Some(d.len() as isize));
    }
    match value.len() {
        Ok(n) => Ok(Some(n as isize)),
        Err(err) if is_read_failure(value.py(), &err) => Ok(None),
        Err(err) => Err(err),
    }
}

fn dict_keys_match(value: &Bound<'_, PyAny>, keys: &Bound<'_, PyTuple>) -> PyResult<bool> {
    if let Ok(dict) = value.cast_exact::<PyDict>() {
        if dict.len() != keys.len() {
            return Ok(false);
        }
        for (key, expected) in dict.keys().iter().zip(keys.iter()) {
            if !key.eq(&expected)? {
                return Ok(false);
            }
        }
        return Ok(true);
    }
    // Other mappings (OrderedDict, ...) keep their own order: ask them.
    let actual = match value.call_method0("keys") {
        Ok(k) => PyTuple::new(value.py(), k.try_iter()?.collect::<PyResult<Vec<_>>>()?)?,
        Err(err) if is_read_failure(value.py(), &err) => return Ok(false),
        Err(err) => return Err(err),
    };
    actual.eq(keys)
}

static NDARRAY_TYPE: AtomicPtr<ffi::PyTypeObject> = AtomicPtr::new(std::ptr::null_mut());

fn ndarray_type(py: Python<'_>) -> *mut ffi::PyTypeObject {
    let cached = NDARRAY_TYPE.load(Ordering::Relaxed);
    if !cached.is_null() {
        return cached;
    }
    // SAFETY: the numpy C API table is imported on first use and `PyArray_Type` lives forever.
    let ty = unsafe { PY_ARRAY_API.get_type_object(py, NpyTypes::PyArray_Type) };
    NDARRAY_TYPE.store(ty, Ordering::Relaxed);
    ty
}

fn array_match(value: &Bound<'_, PyAny>, expected: &ArrayMatch) -> bool {
    let py = value.py();
    if !std::ptr::eq(value.get_type_ptr(), ndarray_type(py)) {
        return false;
    }
    // SAFETY: `value` is exactly an ndarray, so it is a `PyArrayObject` whose `dimensions` and
    // `strides` hold `nd` entries and whose `descr` is a live dtype.
    unsafe {
        let array = value.as_ptr() as *const PyArrayObject;
        let nd = (*array).nd as usize;
        if nd != expected.shape.len() {
            return false;
        }
        let descr = (*array).descr;
        let want = expected.dtype.bind(py);
        if !std::ptr::eq(descr, want.as_dtype_ptr()) {
            let actual: Borrowed<'_, '_, PyArrayDescr> =
                Borrowed::from_ptr(py, descr.cast()).cast_unchecked();
            if !actual.is_equiv_to(want) {
                return false;
            }
        }
        if nd == 0 {
            // A 0-d array may have NULL `dimensions`/`strides`: nothing more to compare.
            return true;
        }
        let shape = std::slice::from_raw_parts((*array).dimensions, nd);
        if !shape_matches(shape, &expected.shape) {
            return false;
        }
        match &expected.strides {
            None => true,
            Some(strides) => dims_match(std::slice::from_raw_parts((*array).strides, nd), strides),
        }
    }
}

fn shape_matches(actual: &[isize], expected: &[Option<isize>]) -> bool {
    actual.iter().zip(expected).all(|(a, e)| match *e {
        None => true,
        Some(e) if e <= SYMBOLIC_DIM => *a >= symbolic_minimum(e),
        Some(e) => e == *a,
    })
}

fn dims_match(actual: &[isize], expected: &[Option<isize>]) -> bool {
    actual
        .iter()
        .zip(expected)
        .all(|(a, e)| e.is_none_or(|e| e == *a))
}

#[cfg(test)]
mod tests {
    use super::{dims_match, normalise, shape_matches, SYMBOLIC_DIM};

    #[test]
    fn indices_normalise_like_python() {
        assert_eq!(normalise(0, 3), Some(0));
        assert_eq!(normalise(-1, 3), Some(2));
        assert_eq!(normalise(3, 3), None);
        assert_eq!(normalise(-4, 3), None);
        assert_eq!(normalise(0, 0), None);
    }

    #[test]
    fn none_dims_are_wildcards() {
        assert!(dims_match(&[4, 5], &[None, Some(5)]));
        assert!(!dims_match(&[4, 5], &[Some(3), None]));
        assert!(dims_match(&[], &[]));
    }

    #[test]
    fn symbolic_dims_take_sizes_of_two_or_more() {
        let want = [Some(SYMBOLIC_DIM), Some(3)];
        assert!(shape_matches(&[2, 3], &want));
        assert!(shape_matches(&[1000, 3], &want));
        assert!(!shape_matches(&[1, 3], &want));
        assert!(!shape_matches(&[0, 3], &want));
        assert!(!shape_matches(&[5, 4], &want));
        // A symbol sliced by `x[2:]` keeps sizes of 4 or more (entry -3).
        let sliced = [Some(SYMBOLIC_DIM - 2)];
        assert!(shape_matches(&[4], &sliced));
        assert!(!shape_matches(&[3], &sliced));
        // A stride of -1 (a reversed bool array) is an exact stride, not a symbol.
        assert!(!dims_match(&[1], &[Some(-1)]));
    }
}
