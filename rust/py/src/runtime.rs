//! NumPy arrays in and out of compiled graphs: checking inputs against the graph's parameter
//! types (binding symbolic dims), allocating outputs of exactly the result types, and running
//! native code with the GIL released and panics caught.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

use ember_core::ir::{DType, Type};
use numpy::npyffi::{PyArrayObject, NPY_ARRAY_ALIGNED};
use numpy::{
    dtype, IxDyn, PyArray, PyArrayDescr, PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};

use crate::errors;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt};

/// An array as native code sees it: data pointer, dtype, shape and byte strides.
#[derive(Clone, Debug)]
pub struct RawArray {
    /// Address of element `[0, 0, ...]`.
    pub data: *mut u8,
    /// Element type.
    pub dtype: DType,
    /// Extent of each dimension.
    pub shape: Vec<usize>,
    /// Byte stride of each dimension (any sign, zero for broadcast dimensions).
    pub strides: Vec<isize>,
}

// SAFETY: a `RawArray` only carries addresses; the NumPy arrays they point into are kept
// alive by the caller for the whole run, which is what makes sending them across threads sound.
unsafe impl Send for RawArray {}

/// Sizes bound to symbolic dims (`s0`) by the inputs of one call.
pub type Bindings = HashMap<String, usize>;

/// Calls `$body` with `$t` bound to the Rust element type of `$dtype`.
macro_rules! with_element {
    ($dtype:expr, $t:ident => $body:expr) => {
        match $dtype {
            DType::Bool => {
                type $t = bool;
                $body
            }
            DType::I8 => {
                type $t = i8;
                $body
            }
            DType::I16 => {
                type $t = i16;
                $body
            }
            DType::I32 => {
                type $t = i32;
                $body
            }
            DType::I64 => {
                type $t = i64;
                $body
            }
            DType::U8 => {
                type $t = u8;
                $body
            }
            DType::U16 => {
                type $t = u16;
                $body
            }
            DType::U32 => {
                type $t = u32;
                $body
            }
            DType::U64 => {
                type $t = u64;
                $body
            }
            DType::F32 => {
                type $t = f32;
                $body
            }
            DType::F64 => {
                type $t = f64;
                $body
            }
        }
    };
}

/// The NumPy dtype of an IR dtype.
pub fn numpy_dtype(py: Python<'_>, dt: DType) -> Bound<'_, PyArrayDescr> {
    with_element!(dt, T => dtype::<T>(py))
}

pub fn raw(array: &Bound<'_, PyUntypedArray>, dtype: DType) -> RawArray {
    // SAFETY: `array` is an ndarray, so its struct has `nd` dims and strides.
    unsafe {
        let obj = array.as_array_ptr() as *const PyArrayObject;
        let nd = (*obj).nd as usize;
        let (shape, strides) = if nd == 0 {
            (Vec::new(), Vec::new())
        } else {
            (
                std::slice::from_raw_parts((*obj).dimensions, nd)
                    .iter()
                    .map(|&d| d as usize)
                    .collect(),
                std::slice::from_raw_parts((*obj).strides, nd).to_vec(),
            )
        };
        RawArray {
            data: (*obj).data as *mut u8,
            dtype,
            shape,
            strides,
        }
    }
}

/// Checks the call's inputs against the parameter types, binding symbolic dims.
/// Python scalars it converted into 0-d arrays are pushed onto `owners`, which the caller keeps
/// alive while the views are in use.
pub fn check_inputs<'py>(
    py: Python<'py>,
    inputs: &[Bound<'py, PyAny>],
    params: &[Type],
    owners: &mut Vec<Bound<'py, PyAny>>,
) -> PyResult<(Vec<RawArray>, Bindings)> {
    if inputs.len() != params.len() {
        return Err(PyTypeError::new_err(format!(
            "the compiled graph takes {} input(s), got {}",
            params.len(),
            inputs.len()
        )));
    }
    let mut bindings = Bindings::new();
    let mut arrays = Vec::with_capacity(params.len());
    for (i, (input, ty)) in inputs.iter().zip(params).enumerate() {
        let input = match python_scalar(input, ty)? {
            Some(array) => {
                owners.push(array.clone());
                array
            }
            None => input.clone(),
        };
        let array = input.cast::<PyUntypedArray>().map_err(|_| {
            PyTypeError::new_err(format!(
                "input {i}: expected a numpy.ndarray of type {ty}, got {}",
                input
                    .get_type()
                    .name()
                    .map(|n| n.to_string())
                    .unwrap_or_default()
            ))
        })?;
        let want = numpy_dtype(py, ty.dtype);
        if !array.dtype().is_equiv_to(&want) {
            return Err(PyTypeError::new_err(format!(
                "input {i}: expected dtype {}, got {}",
                want.str()?,
                array.dtype().str()?
            )));
        }
        let raw = raw(array, ty.dtype);
        check_shape(i, &raw.shape, ty, &mut bindings)?;
        // SAFETY: reading the flags of a live ndarray.
        let flags = unsafe { (*(array.as_array_ptr() as *const PyArrayObject)).flags };
        if flags & NPY_ARRAY_ALIGNED == 0 {
            return Err(PyValueError::new_err(format!(
                "input {i}: the array's data is not aligned for {}; pass a copy (np.array(x))",
                want.str()?
            )));
        }
        arrays.push(raw);
    }
    Ok((arrays, bindings))
}

/// Whether `input` is a scalar a 0-d parameter of `ty` takes as it is: for a weak parameter
/// the Python scalar of its kind (bool for `bool`, int for `i64`, float for `f64`), for a strong
/// one the NumPy scalar of exactly its dtype (`np.float32` for `f32`).
pub fn is_scalar_for(input: &Bound<'_, PyAny>, ty: &Type) -> bool {
    if !ty.shape.is_empty() {
        return false;
    }
    if !ty.weak {
        return is_numpy_scalar_of(input, ty.dtype);
    }
    match ty.dtype {
        DType::Bool => input.is_exact_instance_of::<PyBool>(),
        DType::I64 => input.is_exact_instance_of::<PyInt>(),
        DType::F64 => input.is_exact_instance_of::<PyFloat>(),
        _ => false,
    }
}

/// Whether `input`'s type is exactly the NumPy scalar type of `dtype` (a subclass or another
/// type of the same dtype, such as `np.longlong`, takes `np.asarray` on the full path).
pub fn is_numpy_scalar_of(input: &Bound<'_, PyAny>, dtype: DType) -> bool {
    numpy_dtype(input.py(), dtype)
        .typeobj()
        .is(&input.get_type())
}

/// A scalar parameter's argument (`is_scalar_for`) as a 0-d array of its dtype.
fn python_scalar<'py>(input: &Bound<'py, PyAny>, ty: &Type) -> PyResult<Option<Bound<'py, PyAny>>> {
    if !is_scalar_for(input, ty) {
        return Ok(None);
    }
    let py = input.py();
    let asarray = py.import("numpy")?.getattr("asarray")?;
    Ok(Some(asarray.call1((input, numpy_dtype(py, ty.dtype)))?))
}

fn check_shape(i: usize, shape: &[usize], ty: &Type, bindings: &mut Bindings) -> PyResult<()> {
    let mismatch =
        || PyValueError::new_err(format!("input {i}: expected shape {ty}, got {shape:?}"));
    if shape.len() != ty.shape.len() {
        return Err(mismatch());
    }
    for (axis, (&size, dim)) in shape.iter().zip(&ty.shape).enumerate() {
        // A dim that is not one symbol alone (static, `s0-1`, `2*s0`) only checks; the
        // inputs' bare symbols come first in the graphs the capture builds.
        let Some(name) = dim.as_symbol() else {
            if dim.resolve(|s| bindings.get(s).copied()) != Some(size) {
                return Err(mismatch());
            }
            continue;
        };
        match bindings.get(name) {
            Some(&bound) if bound != size => {
                return Err(PyValueError::new_err(format!(
                    "input {i}: dimension {axis} is {size}, but {name} = {bound} from an earlier input"
                )));
            }
            Some(_) => {}
            None => {
                bindings.insert(name.to_string(), size);
            }
        }
    }
    Ok(())
}

/// The concrete shape of `ty` under `bindings`.
pub fn concrete_shape(ty: &Type, bindings: &Bindings) -> PyResult<Vec<usize>> {
    ty.shape
        .iter()
        .map(|d| {
            d.resolve(|s| bindings.get(s).copied()).ok_or_else(|| {
                PyRuntimeError::new_err(format!("output dimension {d} is not given by the inputs"))
            })
        })
        .collect()
}

/// Allocates a C-contiguous NumPy array of `ty` (uninitialised: the graph writes every element).
pub fn allocate<'py>(
    py: Python<'py>,
    ty: &Type,
    bindings: &Bindings,
) -> PyResult<(Bound<'py, PyUntypedArray>, RawArray)> {
    let shape = concrete_shape(ty, bindings)?;
    let array: Bound<'py, PyUntypedArray> = with_element!(ty.dtype, T => {
        // SAFETY: the compiled graph writes every element of its outputs before they are
        // returned; on failure the arrays are dropped unread.
        unsafe { PyArray::<T, IxDyn>::new(py, IxDyn(&shape), false) }.into_any().cast_into()?
    });
    let mut raw = raw(&array, ty.dtype);
    if shape.contains(&0) {
        // NumPy gives empty arrays zero strides, which read as broadcast dimensions; no element
        // is ever addressed, so C-order strides describe the same (empty) array.
        raw.strides = c_strides(&shape, ty.dtype.itemsize());
    }
    Ok((array, raw))
}

/// An array returned by an earlier call that its caller has since dropped (this pool holds
/// the only reference), of the shape `ty` now has and still writable: its memory is written
/// again instead of allocating fresh memory, whose first touch costs a page fault per page.
pub fn reuse<'py>(
    py: Python<'py>,
    previous: Option<Py<PyUntypedArray>>,
    ty: &Type,
    bindings: &Bindings,
    order: Option<&[usize]>,
) -> PyResult<Option<(Bound<'py, PyUntypedArray>, RawArray)>> {
    let Some(previous) = previous else {
        return Ok(None);
    };
    let array = previous.into_bound(py);
    // SAFETY: the GIL is held, so the reference count cannot change under us.
    if unsafe { pyo3::ffi::Py_REFCNT(array.as_ptr()) } != 1 {
        return Ok(None);
    }
    let shape = concrete_shape(ty, bindings)?;
    // SAFETY: `array` is an ndarray this module allocated.
    let (flags, weakrefs) = unsafe {
        let object = &*(array.as_array_ptr() as *const PyArrayObject);
        (object.flags, object.weakreflist)
    };
    let writable = flags & numpy::npyffi::NPY_ARRAY_WRITEABLE != 0;
    // A live weak reference (a `weakref.finalize`, a WeakValueDictionary) must see the array
    // die, not come back with new contents.
    if !weakrefs.is_null() || !writable || array.shape() != shape.as_slice() || shape.contains(&0) {
        return Ok(None);
    }
    let raw = raw(&array, ty.dtype);
    // The memory order this call's inputs give the output must be the old array's too.
    let itemsize = ty.dtype.itemsize();
    let wanted = order
        .and_then(|o| crate::layouts::ordered_strides(&shape, itemsize, o))
        .unwrap_or_else(|| c_strides(&shape, itemsize));
    let dims_match =
        |(&(extent, have), want): (&(usize, isize), &isize)| extent == 1 || have == *want;
    let pairs: Vec<(usize, isize)> = shape
        .iter()
        .copied()
        .zip(raw.strides.iter().copied())
        .collect();
    if !pairs.iter().zip(&wanted).all(dims_match) {
        return Ok(None);
    }
    Ok(Some((array, raw)))
}

fn c_strides(shape: &[usize], itemsize: usize) -> Vec<isize> {
    let mut strides = vec![0isize; shape.len()];
    let mut step = itemsize as isize;
    for (stride, &extent) in strides.iter_mut().zip(shape).rev() {
        *stride = step;
        step *= extent.max(1) as isize;
    }
    strides
}

/// Runs `work` with the GIL released and panics caught; its error and any panic become
/// Python exceptions through [`crate::errors`].
pub fn run_detached<T, F>(py: Python<'_>, context: &str, work: F) -> PyResult<T>
where
    T: Send,
    F: FnOnce() -> Result<T, ember_codegen::Error> + Send,
{
    run_native(py, true, context, work)
}

/// [`run_detached`], keeping the GIL where `release` is false: a run of a microsecond or so
/// (`ember_codegen::LIGHT_WORK`) costs less than handing the GIL over and taking it back.
pub fn run_native<T, F>(py: Python<'_>, release: bool, context: &str, work: F) -> PyResult<T>
where
    T: Send,
    F: FnOnce() -> Result<T, ember_codegen::Error> + Send,
{
    let outcome = if release {
        py.detach(|| catch_unwind(AssertUnwindSafe(work)))
    } else {
        catch_unwind(AssertUnwindSafe(work))
    };
    match outcome {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(err)) => Err(errors::codegen_error(err)),
        Err(payload) => Err(errors::panic_error(payload, context)),
    }
}

#[cfg(test)]
mod tests {
    use super::c_strides;

    #[test]
    fn c_strides_of_empty_and_full_shapes() {
        assert_eq!(c_strides(&[4, 3], 8), vec![24, 8]);
        assert_eq!(c_strides(&[0, 3], 8), vec![24, 8]);
        assert_eq!(c_strides(&[2, 0, 5], 4), vec![20, 20, 4]);
        assert_eq!(c_strides(&[], 8), Vec::<isize>::new());
    }
}
