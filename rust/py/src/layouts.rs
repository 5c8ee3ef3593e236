//! The memory order of a compiled graph's outputs: NumPy's results follow their inputs'
//! layout (`x.T + 1` is Fortran-ordered), so every output is allocated with the axis order
//! NumPy would give it. The rule is the graph's own (`python/ember/graph/layouts.py`, a
//! Python callable from input strides to output orders); its answer for all-C-contiguous
//! inputs is kept from the start, so the common call costs one contiguity test per input,
//! and answers for other layouts are kept per input strides.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Mutex;

use ember_core::ir::Type;
use numpy::npyffi::{NpyTypes, PY_ARRAY_API};
use numpy::{PyArrayDescrMethods, PyUntypedArray};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::runtime::{self, Bindings, RawArray};

/// Axes of each output, slowest first.
pub type Orders = Vec<Vec<usize>>;

/// Most input layouts remembered per graph before the memory is cleared.
const KEPT: usize = 64;

/// A graph's output orders.
pub struct OutputLayouts {
    /// `rule(tuple of input strides tuples) -> list of orders`.
    rule: Py<PyAny>,
    /// The orders when every input is C-contiguous.
    c_orders: Orders,
    kept: Mutex<HashMap<Vec<isize>, Orders>>,
}

impl OutputLayouts {
    /// The rule and its answer for C-contiguous inputs.
    pub fn new(rule: Py<PyAny>, c_orders: Orders) -> Self {
        OutputLayouts {
            rule,
            c_orders,
            kept: Mutex::new(HashMap::new()),
        }
    }

    /// The orders for this call's inputs (borrowed, with no allocation, for C inputs).
    pub fn orders(&self, py: Python<'_>, inputs: &[RawArray]) -> PyResult<Cow<'_, Orders>> {
        if inputs.iter().all(is_c_contiguous) {
            return Ok(Cow::Borrowed(&self.c_orders));
        }
        let key: Vec<isize> = inputs
            .iter()
            .flat_map(|a| {
                std::iter::once(-(a.strides.len() as isize) - 1).chain(a.strides.iter().copied())
            })
            .collect();
        if let Some(found) = self.lock().get(&key) {
            return Ok(Cow::Owned(found.clone()));
        }
        let strides = inputs
            .iter()
            .map(|a| PyTuple::new(py, &a.strides))
            .collect::<PyResult<Vec<_>>>()?;
        let found: Orders = self
            .rule
            .bind(py)
            .call1((PyTuple::new(py, strides)?,))?
            .extract()?;
        let mut kept = self.lock();
        if kept.len() >= KEPT {
            kept.clear();
        }
        kept.insert(key, found.clone());
        Ok(Cow::Owned(found))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Vec<isize>, Orders>> {
        self.kept.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn is_c_contiguous(array: &RawArray) -> bool {
    if array.shape.contains(&0) {
        return true;
    }
    let mut step = array.dtype.itemsize() as isize;
    for (&extent, &stride) in array.shape.iter().zip(&array.strides).rev() {
        if extent != 1 {
            if stride != step {
                return false;
            }
            step *= extent as isize;
        }
    }
    true
}

/// Byte strides of a dense array of `shape` whose axes, slowest first, are `order`; None when
/// that is C order (or the order does not fit the shape).
pub fn ordered_strides(shape: &[usize], itemsize: usize, order: &[usize]) -> Option<Vec<isize>> {
    let identity = order.iter().enumerate().all(|(i, &a)| i == a);
    if identity || order.len() != shape.len() || shape.contains(&0) {
        return None;
    }
    let mut seen = vec![false; shape.len()];
    let mut strides = vec![0isize; shape.len()];
    let mut step = itemsize as isize;
    for &axis in order.iter().rev() {
        if axis >= shape.len() || seen[axis] {
            return None;
        }
        seen[axis] = true;
        strides[axis] = step;
        step *= shape[axis].max(1) as isize;
    }
    Some(strides)
}

/// A new uninitialised NumPy array of `ty` with its axes in `order` (slowest first).
pub fn allocate<'py>(
    py: Python<'py>,
    ty: &Type,
    bindings: &Bindings,
    order: Option<&[usize]>,
) -> PyResult<(Bound<'py, PyUntypedArray>, RawArray)> {
    let shape = runtime::concrete_shape(ty, bindings)?;
    let itemsize = ty.dtype.itemsize();
    let Some(mut strides) = order.and_then(|o| ordered_strides(&shape, itemsize, o)) else {
        return runtime::allocate(py, ty, bindings);
    };
    let mut dims: Vec<numpy::npyffi::npy_intp> = shape.iter().map(|&d| d as _).collect();
    let descr = runtime::numpy_dtype(py, ty.dtype);
    // SAFETY: NumPy allocates `prod(shape) * itemsize` bytes (no data given) and takes the
    // strides as they are: a permutation of dense strides over exactly that block. The call
    // steals the descriptor's reference, which `into_dtype_ptr` hands over.
    let array = unsafe {
        let object = PY_ARRAY_API.PyArray_NewFromDescr(
            py,
            PY_ARRAY_API.get_type_object(py, NpyTypes::PyArray_Type),
            descr.into_dtype_ptr(),
            dims.len() as _,
            dims.as_mut_ptr(),
            strides.as_mut_ptr(),
            std::ptr::null_mut(),
            0,
            std::ptr::null_mut(),
        );
        Bound::from_owned_ptr_or_err(py, object)?.cast_into::<PyUntypedArray>()?
    };
    let raw = runtime::raw(&array, ty.dtype);
    Ok((array, raw))
}

#[cfg(test)]
mod tests {
    use super::ordered_strides;

    #[test]
    fn strides_of_orders() {
        assert_eq!(ordered_strides(&[4, 6], 8, &[0, 1]), None);
        assert_eq!(ordered_strides(&[4, 6], 8, &[1, 0]), Some(vec![8, 32]));
        assert_eq!(
            ordered_strides(&[2, 3, 4], 4, &[1, 2, 0]),
            Some(vec![4, 32, 8])
        );
        assert_eq!(ordered_strides(&[4, 1], 8, &[1, 0]), Some(vec![8, 32]));
        assert_eq!(ordered_strides(&[0, 3], 8, &[1, 0]), None);
        assert_eq!(ordered_strides(&[4, 6], 8, &[1, 1]), None);
    }
}
