//! Direct entries: an entry that only calls one compiled graph on the function's arguments,
//! run by the fast path without any Python code (the guards are checked before; see `super`).

use crate::compiled::CompiledGraph;
use crate::overlap;
use numpy::npyffi::{
    PyArrayObject, PyArray_Descr, NPY_ARRAY_ALIGNED, NPY_ARRAY_C_CONTIGUOUS, NPY_ARRAY_WRITEABLE,
    NPY_TYPES, PY_ARRAY_API,
};
use numpy::{PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyException, PyTypeError, PyValueError};
use pyo3::ffi::{self, PyObject};
use pyo3::prelude::*;
use pyo3::types::{PySlice, PyString, PyTuple};
use smallvec::SmallVec;
use std::ffi::{c_char, c_int, c_long};

/// What an entry amounts to when it only calls one compiled graph on its arguments.
pub struct DirectCall {
    /// None for an entry that returns constants and arguments alone (no graph to run).
    graph: Option<Py<CompiledGraph>>,
    /// The argument slot of each graph input, and what it reads of that argument.
    inputs: Vec<(usize, Read)>,
    /// What the function returns: graph outputs, each in its form, constants, arguments.
    outputs: Vec<Returned>,
    /// Whether they are returned as a tuple (otherwise `outputs` holds one index, or none
    /// for a function that returns None).
    returns_tuple: bool,
    /// `fallback(func, *args)`: the function run as plain Python, when the graph raises.
    fallback: Py<PyAny>,
    /// `(input position, output index)`: the arrays updated in place, each written back
    /// into the graph input it was read from (`np.copyto(input, output)`).
    writebacks: Vec<(usize, usize)>,
    /// Outputs (0-d bools) of which any true sends the call to `fallback`: a check Python
    /// would fail (`math.sqrt` of a negative value), so that Python raises its own error.
    reruns: Vec<usize>,
    /// One more than the highest argument slot an input reads or the result returns (0 for
    /// none): a call with fewer arguments is refused before any is read.
    slots_read: usize,
}

/// What a graph input reads of its argument.
enum Read {
    /// The argument itself.
    Argument,
    /// An attribute of it (`self.w`).
    Attribute(Py<PyString>),
    /// The size of one dim of it, an ndarray (`x.shape[0]`), as a Python int.
    Size(usize),
    /// A view of it by basic indexing (`x[:n]`, `x[:, a:b]`), each part an int or a slice
    /// whose bounds are constants or other arguments (`capture/variables/slices.py`).
    Index(Vec<IndexPart>),
    /// What a callable makes of it: the array of `n` elements that binds an int argument's
    /// symbol (`capture/tracer.py: IntSizeSource`).
    Call(Py<PyAny>),
}

/// One part of a [`Read::Index`]: an int, or a slice of three bounds.
enum IndexPart {
    Int(IndexBound),
    Slice([IndexBound; 3]),
}

/// A bound of an index part: None, a constant int, or the argument in a slot (an int, by the
/// guards).
#[derive(Clone, Copy)]
enum IndexBound {
    None,
    Const(isize),
    Argument(usize),
}

impl IndexBound {
    fn of((tag, value): (u8, isize)) -> PyResult<Self> {
        match tag {
            0 => Ok(IndexBound::None),
            1 => Ok(IndexBound::Const(value)),
            2 => usize::try_from(value)
                .map(IndexBound::Argument)
                .map_err(|_| PyValueError::new_err("a direct entry reads a negative slot")),
            _ => Err(PyValueError::new_err(format!("unknown index bound {tag}"))),
        }
    }

    fn value<'py>(self, py: Python<'py>, args: &[*mut PyObject]) -> PyResult<Bound<'py, PyAny>> {
        match self {
            IndexBound::None => Ok(py.None().into_bound(py)),
            IndexBound::Const(k) => Ok(k.into_pyobject(py)?.into_any()),
            IndexBound::Argument(slot) => match args.get(slot) {
                // SAFETY: the argument slots are live references borrowed from the caller.
                Some(&arg) => Ok(unsafe { Bound::from_borrowed_ptr(py, arg) }),
                None => Err(PyValueError::new_err(
                    "a direct entry reads a missing argument",
                )),
            },
        }
    }
}

impl IndexPart {
    /// From `(kind, bounds)`: kind 0 an int (its first bound), 1 a slice.
    fn of((kind, bounds): (u8, [(u8, isize); 3])) -> PyResult<Self> {
        let [a, b, c] = bounds;
        match kind {
            0 => Ok(IndexPart::Int(IndexBound::of(a)?)),
            1 => Ok(IndexPart::Slice([
                IndexBound::of(a)?,
                IndexBound::of(b)?,
                IndexBound::of(c)?,
            ])),
            _ => Err(PyValueError::new_err(format!("unknown index part {kind}"))),
        }
    }

    fn value<'py>(&self, py: Python<'py>, args: &[*mut PyObject]) -> PyResult<Bound<'py, PyAny>> {
        match self {
            IndexPart::Int(k) => k.value(py, args),
            IndexPart::Slice(bounds) => {
                let [a, b, c] = bounds.map(|bound| bound.value(py, args));
                py.get_type::<PySlice>().call1((a?, b?, c?))
            }
        }
    }
}

impl Read {
    fn of(spec: Option<Bound<'_, PyAny>>) -> PyResult<Self> {
        Ok(match spec {
            None => Read::Argument,
            Some(s) if s.is_callable() => Read::Call(s.unbind()),
            Some(s) if s.is_instance_of::<PyString>() => Read::Attribute(s.cast_into()?.unbind()),
            Some(s) if s.is_instance_of::<PyTuple>() => {
                let parts: Vec<(u8, [(u8, isize); 3])> = s.extract()?;
                Read::Index(
                    parts
                        .into_iter()
                        .map(IndexPart::of)
                        .collect::<PyResult<_>>()?,
                )
            }
            Some(s) => Read::Size(s.extract()?),
        })
    }

    /// The input read from `arg`, one of the call's arguments `args`.
    fn apply<'py>(
        &self,
        arg: Bound<'py, PyAny>,
        args: &[*mut PyObject],
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = arg.py();
        match self {
            Read::Argument => Ok(arg),
            Read::Index(parts) => {
                let parts = parts
                    .iter()
                    .map(|part| part.value(py, args))
                    .collect::<PyResult<Vec<_>>>()?;
                arg.get_item(PyTuple::new(py, parts)?)
            }
            Read::Attribute(name) => arg.getattr(name.bind(py)),
            Read::Call(make) => make.bind(py).call1((arg,)),
            Read::Size(axis) => {
                let array = arg.cast::<PyUntypedArray>().map_err(|_| {
                    PyTypeError::new_err("a direct entry reads the size of a non-array")
                })?;
                match array.shape().get(*axis) {
                    Some(&n) => Ok(n.into_pyobject(py)?.into_any()),
                    None => Err(PyValueError::new_err("a direct entry reads a missing dim")),
                }
            }
        }
    }
}

/// One returned value.
enum Returned {
    /// A graph output, in its form.
    Output(usize, OutputForm),
    /// An immutable constant (a Python or NumPy scalar, a str, a tuple of those), the same
    /// object on every call as a code's constant is.
    Constant(Py<PyAny>),
    /// The argument in a slot, returned as it was passed.
    Argument(usize),
    /// The function's global of this name, as it is (the guards hold its dict and its type).
    Global(Py<PyString>),
    /// `then if out[k][()] else otherwise`: the truth of graph output `k` picks one.
    Pick(usize, Box<[Returned; 2]>),
}

impl Returned {
    /// From the converter's `(index, form)`, `(slot, 4)`, `(0, 3, value)`, `(0, 5, name)` or
    /// `(index, 6, then, otherwise)`.
    fn of(spec: &Bound<'_, PyAny>) -> PyResult<Self> {
        let k: usize = spec.get_item(0)?.extract()?;
        let form: u8 = spec.get_item(1)?.extract()?;
        Ok(match form {
            3 => Returned::Constant(spec.get_item(2)?.unbind()),
            4 => Returned::Argument(k),
            5 => Returned::Global(spec.get_item(2)?.cast_into::<PyString>()?.unbind()),
            6 => Returned::Pick(
                k,
                Box::new([
                    Returned::of(&spec.get_item(2)?)?,
                    Returned::of(&spec.get_item(3)?)?,
                ]),
            ),
            _ => Returned::Output(k, OutputForm::of(form)?),
        })
    }

    /// The argument slots it may return.
    fn argument_slots(&self, slots: &mut SmallVec<[usize; 4]>) {
        match self {
            Returned::Argument(slot) => slots.push(*slot),
            Returned::Pick(_, picks) => picks.iter().for_each(|r| r.argument_slots(slots)),
            _ => {}
        }
    }
}

/// How a returned graph output is given to the caller (`codegen.py: _OUTPUT_FORMS`).
#[derive(Clone, Copy, Debug)]
enum OutputForm {
    /// The array itself.
    Array,
    /// `out[()]`: a NumPy scalar from a 0-d array.
    NumpyScalar,
    /// `out.item()`: a Python scalar from a 0-d array.
    PythonScalar,
}

impl OutputForm {
    fn of(code: u8) -> PyResult<Self> {
        match code {
            0 => Ok(OutputForm::Array),
            1 => Ok(OutputForm::NumpyScalar),
            2 => Ok(OutputForm::PythonScalar),
            _ => Err(PyValueError::new_err(format!("unknown output form {code}"))),
        }
    }

    fn apply<'py>(self, array: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let py = array.py();
        if let (false, Some(object)) = (matches!(self, OutputForm::Array), zero_d(&array)) {
            // SAFETY: an aligned 0-d ndarray's data holds one element of its dtype.
            let scalar = unsafe {
                let (data, descr) = ((*object).data, (*object).descr);
                match self {
                    OutputForm::PythonScalar => python_scalar(data, descr),
                    _ => match numpy_scalar(data, descr) {
                        made if made.is_null() => {
                            PY_ARRAY_API.PyArray_Scalar(py, data.cast(), descr, array.as_ptr())
                        }
                        made => made,
                    },
                }
            };
            if !scalar.is_null() {
                // SAFETY: a new reference.
                return Ok(unsafe { Bound::from_owned_ptr(py, scalar) });
            }
            if let Some(err) = PyErr::take(py) {
                return Err(err);
            }
        }
        match self {
            OutputForm::Array => Ok(array),
            OutputForm::NumpyScalar => array.get_item(PyTuple::empty(py)),
            OutputForm::PythonScalar => array.call_method0(pyo3::intern!(py, "item")),
        }
    }
}

/// The object struct of an aligned 0-d ndarray (a graph's output), None for anything else.
fn zero_d(array: &Bound<'_, PyAny>) -> Option<*mut PyArrayObject> {
    let array = array.cast::<PyUntypedArray>().ok()?;
    let object = array.as_array_ptr();
    // SAFETY: a live ndarray's fields.
    let plain = unsafe { (*object).nd == 0 && (*object).flags & NPY_ARRAY_ALIGNED != 0 };
    plain.then_some(object)
}

/// `.item()` of a 0-d array of a native float64, int64 or bool dtype as CPython builds it, or
/// NULL (no error) for another dtype, which `.item()` itself converts.
///
/// # Safety
/// `data` holds an aligned element of `descr`.
unsafe fn python_scalar(data: *mut c_char, descr: *mut PyArray_Descr) -> *mut PyObject {
    // SAFETY: as the caller promises.
    unsafe {
        let native = matches!((*descr).byteorder as u8, b'=' | b'|')
            || (cfg!(target_endian = "little") && (*descr).byteorder as u8 == b'<');
        if !native {
            return std::ptr::null_mut();
        }
        match (*descr).type_num {
            t if t == NPY_TYPES::NPY_DOUBLE as c_int => {
                ffi::PyFloat_FromDouble(*data.cast::<f64>())
            }
            t if t == NPY_TYPES::NPY_BOOL as c_int => ffi::PyBool_FromLong((*data != 0) as c_long),
            t if t == NPY_TYPES::NPY_LONGLONG as c_int
                || (t == NPY_TYPES::NPY_LONG as c_int && std::mem::size_of::<c_long>() == 8) =>
            {
                ffi::PyLong_FromLongLong(*data.cast::<i64>())
            }
            _ => std::ptr::null_mut(),
        }
    }
}

/// `out[()]` of a 0-d array of a native-order integer or float dtype (int8 to uint64,
/// float32, float64), as `PyArray_Scalar` builds it: a new instance of the dtype's scalar type
/// from its own allocator, the element copied after the object's header (NumPy's
/// `Py<Type>ScalarObject`: `PyObject_HEAD` then `obval`). NULL (no error) for any other dtype,
/// or where the allocation failed with an error set, which the caller tells apart.
///
/// # Safety
/// `data` holds an aligned element of `descr`.
unsafe fn numpy_scalar(data: *mut c_char, descr: *mut PyArray_Descr) -> *mut PyObject {
    // SAFETY: as the caller promises; a builtin descriptor's scalar type is a live type
    // object whose instances hold `obval` right after the header.
    unsafe {
        let native = matches!((*descr).byteorder as u8, b'=' | b'|')
            || (cfg!(target_endian = "little") && (*descr).byteorder as u8 == b'<');
        let size = match (*descr).type_num {
            t if t == NPY_TYPES::NPY_BYTE as c_int || t == NPY_TYPES::NPY_UBYTE as c_int => 1,
            t if t == NPY_TYPES::NPY_SHORT as c_int || t == NPY_TYPES::NPY_USHORT as c_int => 2,
            t if t == NPY_TYPES::NPY_INT as c_int
                || t == NPY_TYPES::NPY_UINT as c_int
                || t == NPY_TYPES::NPY_FLOAT as c_int =>
            {
                4
            }
            t if t == NPY_TYPES::NPY_LONGLONG as c_int
                || t == NPY_TYPES::NPY_ULONGLONG as c_int
                || t == NPY_TYPES::NPY_DOUBLE as c_int
                || ((t == NPY_TYPES::NPY_LONG as c_int || t == NPY_TYPES::NPY_ULONG as c_int)
                    && std::mem::size_of::<c_long>() == 8) =>
            {
                8
            }
            _ => return std::ptr::null_mut(),
        };
        let ty = (*descr).typeobj;
        if !native
            || ty.is_null()
            || (*ty).tp_basicsize as usize != (HEADER + size).next_multiple_of(8)
        {
            return std::ptr::null_mut();
        }
        let Some(alloc) = (*ty).tp_alloc else {
            return std::ptr::null_mut();
        };
        let made = alloc(ty, 0);
        if !made.is_null() {
            std::ptr::copy_nonoverlapping(data.cast::<u8>(), made.cast::<u8>().add(HEADER), size);
        }
        made
    }
}

/// The bytes of `PyObject_HEAD`, after which a NumPy scalar object holds its element.
const HEADER: usize = std::mem::size_of::<PyObject>();

/// The converter's description of a direct entry, as extracted from Python.
type DirectSpec<'py> = (
    Option<Bound<'py, PyAny>>,
    Vec<(usize, Option<Bound<'py, PyAny>>)>,
    Vec<Bound<'py, PyAny>>,
    bool,
    Py<PyAny>,
    Vec<(usize, usize)>,
    Vec<usize>,
);

impl DirectCall {
    /// Reads the converter's `(graph, input_slots, outputs, returns_tuple, fallback,
    /// writebacks, reruns)`, where `outputs` holds `(output index, form)` pairs, `(slot, 4)`
    /// for an argument and `(0, 3, value)` for a constant; graph None (no inputs, no
    /// writebacks, no reruns) for an entry of constants and arguments alone.
    pub fn from_spec(spec: &Bound<'_, PyAny>) -> PyResult<Self> {
        let (graph, inputs, outputs, returns_tuple, fallback, writebacks, reruns): DirectSpec<'_> =
            spec.extract()?;
        if writebacks.iter().any(|&(k, _)| k >= inputs.len()) {
            return Err(PyValueError::new_err(
                "a direct entry writes back into a missing input",
            ));
        }
        let outputs = outputs
            .iter()
            .map(Returned::of)
            .collect::<PyResult<Vec<_>>>()?;
        let inputs = inputs
            .into_iter()
            .map(|(slot, read)| Ok((slot, Read::of(read)?)))
            .collect::<PyResult<Vec<_>>>()?;
        let graph = match graph {
            Some(graph) => Some(
                graph
                    .cast_into::<CompiledGraph>()
                    .map_err(|_| {
                        PyTypeError::new_err(
                            "a direct entry's graph must be a native CompiledGraph",
                        )
                    })?
                    .unbind(),
            ),
            None if inputs.is_empty() && writebacks.is_empty() && reruns.is_empty() => None,
            None => {
                return Err(PyValueError::new_err(
                    "a direct entry without a graph takes no inputs",
                ))
            }
        };
        if !returns_tuple && outputs.len() > 1 {
            return Err(PyValueError::new_err(
                "a direct entry returning one value names at most one output (none: None)",
            ));
        }
        let mut returned = SmallVec::new();
        outputs.iter().for_each(|r| r.argument_slots(&mut returned));
        let slots_read = inputs
            .iter()
            .map(|(slot, _)| slot)
            .chain(&returned)
            .map(|&slot| slot + 1)
            .max()
            .unwrap_or(0);
        Ok(DirectCall {
            slots_read,
            graph,
            inputs,
            outputs,
            returns_tuple,
            fallback,
            writebacks,
            reruns,
        })
    }

    /// Runs the graph on the argument slots and builds the function's result; if the graph
    /// raises an `Exception`, returns `fallback(func, *args)` instead, as the entry does.
    pub(crate) fn run(
        &self,
        py: Python<'_>,
        func: *mut PyObject,
        args: &[*mut PyObject],
    ) -> PyResult<*mut PyObject> {
        if args.len() < self.slots_read {
            return Err(PyValueError::new_err(
                "a direct entry reads a missing argument",
            ));
        }
        let Some(graph) = &self.graph else {
            return Ok(self.result(py, func, &[], args)?.into_ptr());
        };
        // SAFETY: the argument slots are live references borrowed from the caller.
        let inputs = (|| {
            let mut inputs: SmallVec<[Bound<'_, PyAny>; 8]> = SmallVec::new();
            for (slot, read) in &self.inputs {
                // SAFETY: as above.
                let arg = unsafe { Bound::from_borrowed_ptr(py, args[*slot]) };
                inputs.push(match read {
                    Read::Argument => arg,
                    read => read.apply(arg, args)?,
                });
            }
            Ok::<_, PyErr>(inputs)
        })();
        let inputs = match inputs {
            Ok(inputs) if overlap::may_differ(&inputs, self.writebacks.iter().map(|&(k, _)| k)) => {
                return call_with_first(py, self.fallback.as_ptr(), func, args);
            }
            inputs => inputs,
        };
        let ran = inputs.and_then(|inputs| {
            let outputs = graph.get().call(py, &inputs)?;
            if self.rerun(&outputs)? {
                return Ok(None);
            }
            let result = self.result(py, func, &outputs, args)?;
            Ok(Some((inputs, outputs, result)))
        });
        match ran {
            Ok(None) => call_with_first(py, self.fallback.as_ptr(), func, args),
            // Written back once the result is built, as the entry does (outside its `try`).
            Ok(Some((inputs, outputs, result))) => {
                for &(k, o) in &self.writebacks {
                    let output = outputs.get(o).ok_or_else(|| {
                        PyValueError::new_err("a direct entry writes back a missing output")
                    })?;
                    copy_into(&inputs[k], output)?;
                }
                Ok(result.into_ptr())
            }
            Err(err) if err.is_instance_of::<PyException>(py) => {
                call_with_first(py, self.fallback.as_ptr(), func, args)
            }
            Err(err) => Err(err),
        }
    }

    /// Whether a rerun check output is true.
    fn rerun(&self, outputs: &[Bound<'_, PyAny>]) -> PyResult<bool> {
        for &k in &self.reruns {
            let check = outputs
                .get(k)
                .ok_or_else(|| PyValueError::new_err("a direct entry checks a missing output"))?;
            if check.is_truthy()? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The function's result built from the graph's outputs, constants and the arguments
    /// (slots checked by the caller).
    fn result<'py>(
        &self,
        py: Python<'py>,
        func: *mut PyObject,
        outputs: &[Bound<'py, PyAny>],
        args: &[*mut PyObject],
    ) -> PyResult<Bound<'py, PyAny>> {
        let pick = |returned: &Returned| returned.build(py, func, outputs, args);
        if !self.returns_tuple {
            // At most one output, checked in `from_spec`; none: the function returns None.
            return match self.outputs.first() {
                Some(returned) => pick(returned),
                None => Ok(py.None().into_bound(py)),
            };
        }
        let picked = self
            .outputs
            .iter()
            .map(pick)
            .collect::<PyResult<SmallVec<[_; 4]>>>()?;
        Ok(PyTuple::new(py, picked)?.into_any())
    }
}

impl Returned {
    /// The value returned, from the graph's outputs, constants and the arguments (slots
    /// checked by the caller).
    fn build<'py>(
        &self,
        py: Python<'py>,
        func: *mut PyObject,
        outputs: &[Bound<'py, PyAny>],
        args: &[*mut PyObject],
    ) -> PyResult<Bound<'py, PyAny>> {
        let output = |k: usize| {
            outputs
                .get(k)
                .ok_or_else(|| PyValueError::new_err("a direct entry names a missing output"))
        };
        match self {
            Returned::Output(k, form) => form.apply(output(*k)?.clone()),
            Returned::Constant(value) => Ok(value.bind(py).clone()),
            Returned::Global(name) => global(py, func, name.bind(py)),
            // SAFETY: the argument slots are live references borrowed from the caller.
            Returned::Argument(slot) => Ok(unsafe { Bound::from_borrowed_ptr(py, args[*slot]) }),
            // `bool(out[k][()])` is `bool(out[k])` for an array of one element; any other
            // raises as the entry's test does.
            Returned::Pick(k, picks) => {
                let chosen = if output(*k)?.is_truthy()? { 0 } else { 1 };
                picks[chosen].build(py, func, outputs, args)
            }
        }
    }
}

/// `func.__globals__[name]`, as the entry reads it (a KeyError where it is missing).
fn global<'py>(
    py: Python<'py>,
    func: *mut PyObject,
    name: &Bound<'py, PyString>,
) -> PyResult<Bound<'py, PyAny>> {
    // SAFETY: `func` is a live function (the fast path and the hook call entries of
    // functions only), whose globals are a dict.
    let globals = unsafe {
        if ffi::PyFunction_Check(func) == 0 {
            return Err(PyTypeError::new_err(
                "a direct entry reads a global of a non-function",
            ));
        }
        Bound::from_borrowed_ptr(py, (*func.cast::<ffi::PyFunctionObject>()).func_globals)
    };
    globals.get_item(name)
}

/// `np.copyto(target, source)` of two arrays of one shape and dtype.
fn copy_into(target: &Bound<'_, PyAny>, source: &Bound<'_, PyAny>) -> PyResult<()> {
    let py = target.py();
    let (Ok(target), Ok(source)) = (
        target.cast::<PyUntypedArray>(),
        source.cast::<PyUntypedArray>(),
    ) else {
        return Err(PyTypeError::new_err(
            "a direct entry writes back a non-array",
        ));
    };
    if copy_plain(target, source) {
        return Ok(());
    }
    // SAFETY: two live ndarrays; NumPy sets an exception where it returns -1.
    let status =
        unsafe { PY_ARRAY_API.PyArray_CopyInto(py, target.as_array_ptr(), source.as_array_ptr()) };
    if status < 0 {
        Err(PyErr::fetch(py))
    } else {
        Ok(())
    }
}

/// NumPy's flag of a view that warns when written (`np.broadcast_arrays`' results): its
/// writes go through NumPy, which warns.
const NPY_ARRAY_WARN_ON_WRITE: c_int = 1 << 31;

/// `np.copyto(target, source)` done here where it is one copy of bytes: both C-contiguous,
/// of one shape and one numeric dtype (bool to complex, native byte order: no references to
/// count, no cast), the target writable without a warning. Returns false, having written
/// nothing, for anything else, which NumPy copies (and where it must, raises or warns).
fn copy_plain(target: &Bound<'_, PyUntypedArray>, source: &Bound<'_, PyUntypedArray>) -> bool {
    // SAFETY: the fields of two live ndarrays; `count * itemsize` bytes from each data
    // pointer are the elements of a C-contiguous array of that shape and item size.
    unsafe {
        let (t, s) = (&*target.as_array_ptr(), &*source.as_array_ptr());
        let contiguous = NPY_ARRAY_C_CONTIGUOUS;
        if t.flags & (contiguous | NPY_ARRAY_WRITEABLE) != contiguous | NPY_ARRAY_WRITEABLE
            || t.flags & NPY_ARRAY_WARN_ON_WRITE != 0
            || s.flags & contiguous == 0
            || t.nd != s.nd
        {
            return false;
        }
        let nd = t.nd as usize;
        let dims = std::slice::from_raw_parts(t.dimensions, nd);
        if nd > 0 && dims != std::slice::from_raw_parts(s.dimensions, nd) {
            return false;
        }
        let (td, sd) = (&*t.descr, &*s.descr);
        let native = |order: c_char| {
            matches!(order as u8, b'=' | b'|')
                || (cfg!(target_endian = "little") && order as u8 == b'<')
        };
        let numeric = (0..NPY_TYPES::NPY_OBJECT as c_int).contains(&td.type_num);
        if !numeric || td.type_num != sd.type_num || !native(td.byteorder) || !native(sd.byteorder)
        {
            return false;
        }
        // One numeric type number in native order: one item size.
        let itemsize = target.dtype().itemsize();
        let count = dims.iter().product::<isize>() as usize;
        // Distinct arrays may still share memory (an output that is a view of the target):
        // `copy` as memmove.
        std::ptr::copy(s.data.cast::<u8>(), t.data.cast::<u8>(), count * itemsize);
        true
    }
}

/// `callable(first, *args)` by vectorcall, the arguments on the stack when they are few.
fn call_with_first(
    py: Python<'_>,
    callable: *mut PyObject,
    first: *mut PyObject,
    args: &[*mut PyObject],
) -> PyResult<*mut PyObject> {
    let mut on_stack = [std::ptr::null_mut::<PyObject>(); 8];
    let on_heap: Vec<*mut PyObject>;
    let slots = if args.len() < on_stack.len() {
        on_stack[0] = first;
        on_stack[1..=args.len()].copy_from_slice(args);
        &on_stack[..=args.len()]
    } else {
        on_heap = std::iter::once(first).chain(args.iter().copied()).collect();
        &on_heap[..]
    };
    // SAFETY: every pointer is a live reference borrowed for the call; vectorcall returns a
    // new reference or NULL with an exception set.
    let result = unsafe {
        ffi::PyObject_Vectorcall(callable, slots.as_ptr(), slots.len(), std::ptr::null_mut())
    };
    if result.is_null() {
        Err(PyErr::fetch(py))
    } else {
        Ok(result)
    }
}
