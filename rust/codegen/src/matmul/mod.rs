//! `matmul` as an extern kernel. NumPy's rules: 1-D operands are promoted to a row / column
//! and the added axis removed from the result; batch dims broadcast, one product per batch
//! index (as NumPy loops over them).
//!
//! Each float product goes to the CBLAS the host process registered ([`blas`]: the one NumPy
//! ships, so products run exactly as fast as NumPy's own, with its thread setting) when its
//! operands fit BLAS layouts (one unit stride per matrix, positive leading dimensions);
//! anything else, and integers, go to [`strided`]. Small float products that no BLAS takes
//! (none registered, or layouts it refuses) run in place ([`small`]: a register-tiled loop,
//! no library call).

pub mod blas;
mod small;
mod strided;

use crate::kernel::Scalar;
use ember_core::views::Layout;

/// A matrix operand: base pointer and layout in elements.
pub(crate) struct Mat {
    pub ptr: *mut u8,
    pub layout: Layout,
}

/// One m x k by k x n product: pointers and (row, column) strides in elements.
#[derive(Clone, Copy)]
pub(crate) struct Product {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub a: *mut u8,
    pub a_strides: (isize, isize),
    pub b: *mut u8,
    pub b_strides: (isize, isize),
    pub o: *mut u8,
    pub o_strides: (isize, isize),
}

/// `out = a @ b`.
///
/// # Safety
/// The pointers and layouts must describe valid arrays of `dtype` with the shapes the graph
/// declared (checked by the caller); `out` must not overlap `a` or `b`.
pub(crate) unsafe fn matmul(dtype: Scalar, a: Mat, b: Mat, out: Mat, threads: usize) {
    let (mut al, mut bl, mut ol) = (a.layout, b.layout, out.layout);
    let a1 = al.shape.len() == 1;
    let b1 = bl.shape.len() == 1;
    if a1 {
        al.shape.insert(0, 1);
        al.strides.insert(0, 0);
    }
    if b1 {
        bl.shape.push(1);
        bl.strides.push(0);
    }
    if a1 {
        let at = ol.shape.len() - usize::from(!b1);
        ol.shape.insert(at, 1);
        ol.strides.insert(at, 0);
    }
    if b1 {
        ol.shape.push(1);
        ol.strides.push(0);
    }
    let nd = ol.shape.len();
    let (m, n) = (ol.shape[nd - 2], ol.shape[nd - 1]);
    let k = al.shape[al.shape.len() - 1];
    let batch = &ol.shape[..nd - 2];
    let count: usize = batch.iter().product();
    let size = dtype.size() as isize;
    let batch_offset = |l: &Layout, idx: &[usize]| -> isize {
        let lb = l.shape.len() - 2;
        let off = idx.len() - lb;
        let mut pos = l.offset;
        for d in 0..lb {
            if l.shape[d] != 1 {
                pos += idx[d + off] as isize * l.strides[d];
            }
        }
        pos
    };
    let last_two = |l: &Layout| {
        let r = l.shape.len();
        (l.strides[r - 2], l.strides[r - 1])
    };
    let blas = blas::registered();
    let mut idx = vec![0usize; batch.len()];
    for _ in 0..count {
        let p = Product {
            m,
            n,
            k,
            a: a.ptr.wrapping_offset(batch_offset(&al, &idx) * size),
            a_strides: last_two(&al),
            b: b.ptr.wrapping_offset(batch_offset(&bl, &idx) * size),
            b_strides: last_two(&bl),
            o: out.ptr.wrapping_offset(batch_offset(&ol, &idx) * size),
            o_strides: last_two(&ol),
        };
        // SAFETY: the offsets stay inside each operand by the caller's contract.
        let done = match blas {
            Some(blas) => unsafe { blas.product(dtype, &p) || small::product(dtype, &p) },
            None => unsafe { small::product(dtype, &p) },
        };
        if !done {
            // SAFETY: as above.
            unsafe { strided::one(dtype, &p, threads) };
        }
        for d in (0..batch.len()).rev() {
            idx[d] += 1;
            if idx[d] < batch[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}
