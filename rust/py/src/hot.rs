//! The repeated call of a compiled graph on arrays of one layout. Most programs call a compiled
//! function again and again with arrays of the same dtypes, shapes and strides; what a call
//! works out from those alone (the inputs' checks, the outputs' memory order, each kernel
//! launch's strides, the views handed to native code) is kept from the last call as a [`Hot`]
//! state, and a call whose inputs match it only sets data pointers: no allocation, no Python
//! call, no view arithmetic (`compiled.rs` falls back to the full path on any difference).

use std::sync::atomic::{AtomicPtr, Ordering};

use ember_codegen::{ArrayView, ArrayViewMut, Prepared};
use ember_core::ir::{DType, Type};
use numpy::npyffi::{PyArrayObject, NPY_ARRAY_ALIGNED, NPY_ARRAY_WRITEABLE};
use numpy::{PyUntypedArray, PyUntypedArrayMethods};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt};
use smallvec::SmallVec;

use crate::runtime::{is_numpy_scalar_of, is_scalar_for, Bindings};

/// What one input must be for a call to repeat the kept layouts.
enum InputKey {
    /// An exact ndarray of this dtype descriptor, held so that its address stays its own (its
    /// shape and byte strides are those of its view in [`Hot::inputs`]).
    Array(Py<PyAny>),
    /// A scalar for a 0-d parameter of this dtype (a Python bool, int or float for a weak one,
    /// the NumPy scalar of the dtype for a strong one: the bool says which), its value written
    /// into the input's slot of [`Hot::scalars`], which its view addresses.
    Scalar(DType, bool),
    /// The NumPy scalar of a strong 0-d parameter's dtype, read natively: the address of its
    /// exact type object (a NumPy scalar type lives as long as NumPy) and its element's size,
    /// the element lying right after the object's header.
    NumpyScalar(usize, usize),
}

/// What the last call on one layout worked out.
pub struct Hot {
    keys: SmallVec<[InputKey; 4]>,
    /// The views of the inputs and outputs, re-pointed at each call's arrays.
    pub inputs: Vec<ArrayView>,
    pub outputs: Vec<ArrayViewMut>,
    /// The symbolic dims' sizes and the outputs' orders (for a fresh output).
    pub bindings: Bindings,
    pub orders: Option<Vec<Vec<usize>>>,
    /// The outputs' bytes, for the recycling pool's budget.
    pub output_bytes: usize,
    pub prepared: Prepared,
    /// One 8-byte slot per input: the value of a Python scalar input (a heap block, so its
    /// address stays put while the state moves).
    scalars: Box<[u64]>,
    /// Whether the last run on these layouts, of a graph that is not light by its plan (a
    /// loop, a product), took less than [`QUICK_RUN`]: the next one keeps the GIL.
    pub quick: bool,
    /// The last call's outputs, for reuse by the next, where they are small
    /// (`recycle::SMALL_OUTPUTS`); larger ones go to the recycling pool.
    pub recycled: crate::recycle::Outputs,
}

/// A run shorter than this many [`ticks`] (about 20 us) is short enough that handing the GIL
/// over and taking it back (about 0.1 us, and a thread switch it may cause) matters against
/// it, and holds other threads up for no longer than a call of NumPy's own does.
pub const QUICK_RUN: u64 = 50_000;

/// A cheap clock for telling quick runs from long ones: the time-stamp counter on x86-64 (a
/// few ns, where `clock_gettime` costs tens on a virtual machine), nanoseconds elsewhere.
pub fn ticks() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: `rdtsc` is available on every x86-64 CPU and has no side effect.
        unsafe { std::arch::x86_64::_rdtsc() }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
        START
            .get_or_init(std::time::Instant::now)
            .elapsed()
            .as_nanos() as u64
    }
}

// SAFETY: between calls the views' data pointers are never dereferenced: every call points
// them at its own arrays first (`bind_inputs`, `reuse_output`, `point_output`), and a state
// is used by one call at a time (taken out of its `HotSlot`).
unsafe impl Send for Hot {}

/// The views and the kernel launches of one call, moved to the thread-free section.
pub struct HotRun<'a> {
    pub inputs: &'a [ArrayView],
    pub outputs: &'a [ArrayViewMut],
    pub prepared: &'a mut Prepared,
}

// SAFETY: the views address arrays the calling frame keeps alive (its inputs, and outputs it
// owns) until the run returns; the outputs are fresh or recycled arrays nothing else holds.
unsafe impl Send for HotRun<'_> {}

/// The bits of the element a scalar gives a 0-d parameter of `dtype` (as `np.asarray(value,
/// dtype)` would hold it), in a slot's low bytes: a Python scalar for a weak parameter, the
/// NumPy scalar of `dtype` for a strong one; None for any other object or an int outside int64
/// (the full path gives NumPy's error for it).
fn scalar_bits(object: &Bound<'_, PyAny>, dtype: DType, weak: bool) -> Option<u64> {
    if !weak {
        if !is_numpy_scalar_of(object, dtype) {
            return None;
        }
        let mut bits = 0u64;
        // SAFETY: a NumPy scalar of `dtype`, whose element (at most 8 bytes) is written into
        // the low bytes of `bits`.
        unsafe {
            numpy::npyffi::PY_ARRAY_API.PyArray_ScalarAsCtype(
                object.py(),
                object.as_ptr(),
                (&mut bits as *mut u64).cast(),
            )
        };
        return Some(bits);
    }
    match dtype {
        DType::F64 if object.is_exact_instance_of::<PyFloat>() => {
            // SAFETY: an exact float.
            Some(unsafe { ffi::PyFloat_AS_DOUBLE(object.as_ptr()) }.to_bits())
        }
        DType::I64 if object.is_exact_instance_of::<PyInt>() => {
            let mut overflow = 0;
            // SAFETY: an exact int; with an overflow flag the call raises nothing.
            let v = unsafe { ffi::PyLong_AsLongLongAndOverflow(object.as_ptr(), &mut overflow) };
            (overflow == 0).then_some(v as u64)
        }
        DType::Bool if object.is_exact_instance_of::<PyBool>() => {
            Some(u64::from(object.is_truthy().ok()?))
        }
        _ => None,
    }
}

/// The bytes of the `size`-byte element right after the header of a NumPy scalar object, in
/// a slot's low bytes.
///
/// # Safety
/// `object` is a live NumPy scalar of a fixed-size dtype of `size` bytes, at most 8.
unsafe fn element_after_header(object: *mut ffi::PyObject, size: usize) -> u64 {
    let mut bits = 0u64;
    // SAFETY: as the caller promises; the element follows `PyObject_HEAD`.
    unsafe {
        let data = object
            .cast::<u8>()
            .add(std::mem::size_of::<ffi::PyObject>());
        std::ptr::copy_nonoverlapping(data, (&mut bits as *mut u64).cast(), size);
    }
    bits
}

/// The native key of `object`, the NumPy scalar of `dtype` whose element NumPy reads as
/// `bits`, where reading it after the object's header gives the same bits.
fn numpy_scalar_key(object: &Bound<'_, PyAny>, dtype: DType, bits: u64) -> Option<InputKey> {
    let size = dtype.itemsize();
    let ty = unsafe { ffi::Py_TYPE(object.as_ptr()) };
    // SAFETY: `object` is the NumPy scalar of `dtype` (`scalar_bits` read it); an object is at
    // least its type's basic size, which must hold the header and the element.
    let fits = size <= 8
        && unsafe { (*ty).tp_basicsize } as usize >= std::mem::size_of::<ffi::PyObject>() + size;
    (fits && unsafe { element_after_header(object.as_ptr(), size) } == bits)
        .then_some(InputKey::NumpyScalar(ty as usize, size))
}

/// The ndarray struct of `object`, when it is an exact `numpy.ndarray`.
fn exact_array(object: &Bound<'_, PyAny>) -> Option<*const PyArrayObject> {
    let py = object.py();
    // SAFETY: comparing type pointers of a live object.
    let exact = unsafe {
        ffi::Py_TYPE(object.as_ptr())
            == numpy::npyffi::PY_ARRAY_API
                .get_type_object(py, numpy::npyffi::NpyTypes::PyArray_Type)
    };
    exact.then(|| object.as_ptr() as *const PyArrayObject)
}

/// Whether `array` has exactly `shape` and `strides` (`any_unit`: any stride along dims of
/// one element, which address nothing but the first).
///
/// # Safety
/// `array` is a live ndarray.
unsafe fn same_layout(
    array: *const PyArrayObject,
    shape: &[usize],
    strides: &[isize],
    any_unit: bool,
) -> bool {
    // SAFETY: a live ndarray has `nd` dims and strides.
    unsafe {
        let nd = (*array).nd as usize;
        if nd != shape.len() {
            return false;
        }
        let dims = std::slice::from_raw_parts((*array).dimensions, nd);
        let have = std::slice::from_raw_parts((*array).strides, nd);
        (0..nd).all(|k| {
            dims[k] as usize == shape[k] && ((any_unit && shape[k] == 1) || have[k] == strides[k])
        })
    }
}

impl Hot {
    /// The state of a call that ran on `inputs` (exact, non-empty ndarrays, or Python scalars
    /// for weak 0-d parameters of `params`) with these views; None when a call on them cannot
    /// be repeated this way.
    pub fn new(
        inputs: &[Bound<'_, PyAny>],
        params: &[Type],
        views: (Vec<ArrayView>, Vec<ArrayViewMut>),
        bindings: Bindings,
        orders: Option<Vec<Vec<usize>>>,
        output_bytes: usize,
    ) -> Option<Hot> {
        let (mut in_views, out_views) = views;
        let empty = |shape: &[usize]| shape.contains(&0);
        if in_views.iter().any(|v| empty(v.shape())) || out_views.iter().any(|v| empty(v.shape())) {
            return None;
        }
        let mut scalars = vec![0u64; inputs.len()].into_boxed_slice();
        let mut keys = SmallVec::new();
        for (k, (input, ty)) in inputs.iter().zip(params).enumerate() {
            if is_scalar_for(input, ty) {
                let dtype = ty.dtype;
                scalars[k] = scalar_bits(input, dtype, ty.weak)?;
                let key = if ty.weak {
                    InputKey::Scalar(dtype, true)
                } else {
                    numpy_scalar_key(input, dtype, scalars[k])
                        .unwrap_or(InputKey::Scalar(dtype, false))
                };
                // SAFETY: the slot holds an element of `dtype` (0-d: no stride) for as long as
                // the state lives; every call writes its value before the run.
                in_views[k] = unsafe {
                    ArrayView::new(scalars[k..].as_ptr().cast(), dtype, Vec::new(), Vec::new())
                };
                keys.push(key);
                continue;
            }
            let array = exact_array(input)?;
            // SAFETY: a live ndarray's descriptor is a live object.
            let descr = unsafe { Borrowed::from_ptr(input.py(), (*array).descr.cast()) }
                .to_owned()
                .unbind();
            keys.push(InputKey::Array(descr));
        }
        Some(Hot {
            keys,
            inputs: in_views,
            outputs: out_views,
            bindings,
            orders,
            output_bytes,
            prepared: Prepared::default(),
            scalars,
            quick: false,
            recycled: Vec::new(),
        })
    }

    /// Points the input views at `inputs` when they have this state's layouts (exact ndarrays
    /// of the same descriptors, shapes and strides, aligned); false leaves the full path to
    /// check them.
    pub fn bind_inputs(&mut self, inputs: &[Bound<'_, PyAny>]) -> bool {
        if inputs.len() != self.keys.len() {
            return false;
        }
        for (k, ((input, key), view)) in inputs.iter().zip(&self.keys).zip(&self.inputs).enumerate()
        {
            match key {
                InputKey::Scalar(dtype, weak) => match scalar_bits(input, *dtype, *weak) {
                    Some(bits) => self.scalars[k] = bits,
                    None => return false,
                },
                InputKey::NumpyScalar(ty, size) => {
                    // SAFETY: an object of the exact type checked, whose element lies after
                    // its header (checked against NumPy's own reading in `numpy_scalar_key`).
                    if unsafe { ffi::Py_TYPE(input.as_ptr()) } as usize != *ty {
                        return false;
                    }
                    self.scalars[k] = unsafe { element_after_header(input.as_ptr(), *size) };
                }
                InputKey::Array(descr) => {
                    let Some(array) = exact_array(input) else {
                        return false;
                    };
                    // SAFETY: a live ndarray's fields.
                    let matches = unsafe {
                        (*array).descr.cast() == descr.as_ptr()
                            && (*array).flags & NPY_ARRAY_ALIGNED != 0
                            && same_layout(array, view.shape(), view.strides(), false)
                    };
                    if !matches {
                        return false;
                    }
                }
            }
        }
        for ((input, key), view) in inputs.iter().zip(&self.keys).zip(&mut self.inputs) {
            if let InputKey::Array(_) = key {
                // SAFETY: the array has the view's dtype, shape and strides (checked above)
                // and the caller holds it for the run.
                unsafe {
                    view.set_data((*(input.as_ptr() as *const PyArrayObject)).data as *const u8)
                };
            }
        }
        true
    }

    /// Points output `i`'s view at `array` when it has the view's layout and can be written
    /// again: nothing else references it (not even weakly) and it is writable.
    pub fn reuse_output(&mut self, i: usize, array: &Bound<'_, PyUntypedArray>) -> bool {
        let view = &mut self.outputs[i];
        let object = array.as_array_ptr() as *const PyArrayObject;
        // SAFETY: the GIL is held, so the count cannot change; a live ndarray's fields.
        let reusable = unsafe {
            ffi::Py_REFCNT(array.as_ptr()) == 1
                && (*object).weakreflist.is_null()
                && (*object).flags & NPY_ARRAY_WRITEABLE != 0
                && same_layout(object, view.shape(), view.strides(), true)
        };
        if reusable {
            // SAFETY: as checked, an unshared writable array of the view's layout.
            unsafe { view.set_data((*object).data as *mut u8) };
        }
        reusable
    }

    /// Points output `i`'s view at a fresh `array` allocated for it, when its layout is the
    /// view's (it is, for the same bindings and order).
    pub fn point_output(&mut self, i: usize, array: &Bound<'_, PyUntypedArray>) -> bool {
        let view = &mut self.outputs[i];
        let object = array.as_array_ptr() as *const PyArrayObject;
        // SAFETY: a live ndarray this module just allocated.
        unsafe {
            if !same_layout(object, view.shape(), view.strides(), true) {
                return false;
            }
            view.set_data((*object).data as *mut u8);
        }
        true
    }
}

/// A graph's kept state: taken out for a call (so a concurrent call takes the full path) and
/// put back after it. One atomic swap each way: a call on the kept layouts takes no lock.
#[derive(Default)]
pub struct HotSlot(AtomicPtr<Hot>);

impl HotSlot {
    pub fn take(&self) -> Option<Box<Hot>> {
        let held = self.0.swap(std::ptr::null_mut(), Ordering::AcqRel);
        // SAFETY: the slot holds null or a pointer from `Box::into_raw` in `put`, and the
        // swap gave this call sole ownership of it.
        (!held.is_null()).then(|| unsafe { Box::from_raw(held) })
    }

    /// Keeps `hot` for the next call, dropping a state a concurrent call put meanwhile.
    pub fn put(&self, hot: Box<Hot>) {
        let replaced = self.0.swap(Box::into_raw(hot), Ordering::AcqRel);
        if !replaced.is_null() {
            // SAFETY: as in `take`: the swap handed the replaced state to this call.
            drop(unsafe { Box::from_raw(replaced) });
        }
    }

    pub fn clear(&self) {
        let dropped = self.take();
        drop(dropped);
    }
}

impl Drop for HotSlot {
    fn drop(&mut self) {
        self.clear();
    }
}
