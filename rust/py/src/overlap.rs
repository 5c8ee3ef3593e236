//! The entry's test before writing updated arguments back (`capture/codegen.py`): NumPy's
//! `may_share_memory` (a comparison of memory bounds) between each target and every other
//! array argument, without a Python call per pair.

use numpy::npyffi::{PyArrayObject, NPY_ARRAY_WRITEABLE};
use numpy::{PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use smallvec::SmallVec;

/// The bytes `[start, end)` an array's elements span, as NumPy's memory extents; `None` for
/// an array of no elements, which shares memory with nothing.
fn extent(array: &Bound<'_, PyUntypedArray>) -> Option<(isize, isize)> {
    if array.len() == 0 {
        return None;
    }
    // SAFETY: a live ndarray: `data`, and `nd` dims and strides.
    unsafe {
        let obj = array.as_array_ptr() as *const PyArrayObject;
        let nd = (*obj).nd as usize;
        let (mut start, mut end) = ((*obj).data as isize, (*obj).data as isize);
        if nd > 0 {
            let dims = std::slice::from_raw_parts((*obj).dimensions, nd);
            let strides = std::slice::from_raw_parts((*obj).strides, nd);
            for (&n, &s) in dims.iter().zip(strides) {
                let reach = s * (n - 1);
                if reach > 0 {
                    end += reach;
                } else {
                    start += reach;
                }
            }
        }
        Some((start, end + array.dtype().itemsize() as isize))
    }
}

/// Whether writing the updated arguments `targets` (positions in `inputs`) back could
/// differ from NumPy: a target that is not a writable ndarray, or one whose memory bounds
/// overlap another array argument's (the graph saw that argument's old contents). Shared by
/// the entry (`writeback_may_differ`) and the native fast path (`dispatch/`).
pub fn may_differ<'py>(
    inputs: &[Bound<'py, PyAny>],
    targets: impl IntoIterator<Item = usize>,
) -> bool {
    let mut targets = targets.into_iter().peekable();
    if targets.peek().is_none() {
        return false; // nothing written back: no memory bounds to read (the fast path's case)
    }
    let arrays: SmallVec<[Option<&Bound<'py, PyUntypedArray>>; 8]> = inputs
        .iter()
        .map(|x| x.cast::<PyUntypedArray>().ok())
        .collect();
    let extents: SmallVec<[Option<(isize, isize)>; 8]> =
        arrays.iter().map(|a| a.and_then(extent)).collect();
    targets.any(|k| {
        let Some(target) = arrays.get(k).copied().flatten() else {
            return true;
        };
        // SAFETY: a live ndarray's flags.
        let flags = unsafe { (*(target.as_array_ptr() as *const PyArrayObject)).flags };
        if flags & NPY_ARRAY_WRITEABLE == 0 {
            return true;
        }
        let Some((start, end)) = extents[k] else {
            return false;
        };
        extents
            .iter()
            .enumerate()
            .any(|(j, other)| j != k && other.is_some_and(|(s, e)| s < end && start < e))
    })
}

/// [`may_differ`] for the entry, which passes its input tuple; a target that is not an
/// ndarray is an error there.
#[pyfunction]
fn writeback_may_differ(inputs: &Bound<'_, PyTuple>, targets: Vec<usize>) -> PyResult<bool> {
    if let Some(&k) = targets.iter().find(|&&k| {
        inputs
            .get_item(k)
            .map_or(true, |x| x.cast::<PyUntypedArray>().is_err())
    }) {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "argument {k} written back is not an ndarray"
        )));
    }
    Ok(may_differ(inputs.as_slice(), targets))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(writeback_may_differ, m)?)
}
