//! The caller's arrays as the runtime sees them: raw strided views.

use ember_core::ir::DType;

/// A read-only strided array owned by the caller.
#[derive(Clone, Debug)]
pub struct ArrayView {
    pub(crate) data: *const u8,
    pub(crate) dtype: DType,
    pub(crate) shape: Vec<usize>,
    pub(crate) strides: Vec<isize>,
}

/// A writable strided array owned by the caller.
#[derive(Clone, Debug)]
pub struct ArrayViewMut {
    pub(crate) data: *mut u8,
    pub(crate) dtype: DType,
    pub(crate) shape: Vec<usize>,
    pub(crate) strides: Vec<isize>,
}

impl ArrayView {
    /// A view of `shape` elements of `dtype` at `data`, with byte `strides`.
    ///
    /// # Safety
    /// Every element addressed by `data + sum(i_k * strides[k])` for indices inside `shape` must
    /// be readable memory holding a `dtype` value for as long as the view is used.
    pub unsafe fn new(
        data: *const u8,
        dtype: DType,
        shape: Vec<usize>,
        strides: Vec<isize>,
    ) -> Self {
        ArrayView {
            data,
            dtype,
            shape,
            strides,
        }
    }

    /// The same view of another array of the same dtype, shape and strides.
    ///
    /// # Safety
    /// As for [`ArrayView::new`], for `data` with this view's dtype, shape and strides.
    pub unsafe fn set_data(&mut self, data: *const u8) {
        self.data = data;
    }

    /// Byte strides of each dimension.
    pub fn strides(&self) -> &[isize] {
        &self.strides
    }

    /// Extent of each dimension.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }
}

impl ArrayViewMut {
    /// A writable view; see [`ArrayView::new`].
    ///
    /// # Safety
    /// As for [`ArrayView::new`], and the memory must be writable and not read or written by
    /// anyone else (including the inputs of the same call) while `run` uses it.
    pub unsafe fn new(data: *mut u8, dtype: DType, shape: Vec<usize>, strides: Vec<isize>) -> Self {
        ArrayViewMut {
            data,
            dtype,
            shape,
            strides,
        }
    }

    /// The same view of another array of the same dtype, shape and strides.
    ///
    /// # Safety
    /// As for [`ArrayViewMut::new`], for `data` with this view's dtype, shape and strides.
    pub unsafe fn set_data(&mut self, data: *mut u8) {
        self.data = data;
    }

    /// Byte strides of each dimension.
    pub fn strides(&self) -> &[isize] {
        &self.strides
    }

    /// Extent of each dimension.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }
}
