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

/// The products of one `matmul`, worked out from its operands' layouts alone: their
/// sizes and strides in elements, and each batch index's byte offsets from the three
/// operands' data. A loop body running the same product on every trip plans it once.
pub(crate) struct Planned {
    m: usize,
    n: usize,
    k: usize,
    strides: [(isize, isize); 3],
    offsets: Vec<[isize; 3]>,
}

/// Plans `out = a @ b` for arrays of these layouts (offsets included).
pub(crate) fn plan(dtype: Scalar, a: &Layout, b: &Layout, out: &Layout) -> Planned {
    let (mut al, mut bl, mut ol) = (a.clone(), b.clone(), out.clone());
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
        pos * size
    };
    let last_two = |l: &Layout| {
        let r = l.shape.len();
        (l.strides[r - 2], l.strides[r - 1])
    };
    let mut offsets = Vec::with_capacity(count);
    let mut idx = vec![0usize; batch.len()];
    for _ in 0..count {
        offsets.push([
            batch_offset(&al, &idx),
            batch_offset(&bl, &idx),
            batch_offset(&ol, &idx),
        ]);
        for d in (0..batch.len()).rev() {
            idx[d] += 1;
            if idx[d] < batch[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    Planned {
        m,
        n,
        k,
        strides: [last_two(&al), last_two(&bl), last_two(&ol)],
        offsets,
    }
}

/// Runs planned products on operands whose data start at `a`, `b`, `out`.
///
/// # Safety
/// The data must hold arrays of `dtype` of the layouts `planned` was made for (checked by
/// the caller); `out` must not overlap `a` or `b`.
pub(crate) unsafe fn run(
    dtype: Scalar,
    planned: &Planned,
    a: *mut u8,
    b: *mut u8,
    out: *mut u8,
    threads: usize,
) {
    let blas = blas::registered();
    for &[oa, ob, oo] in &planned.offsets {
        let p = Product {
            m: planned.m,
            n: planned.n,
            k: planned.k,
            a: a.wrapping_offset(oa),
            a_strides: planned.strides[0],
            b: b.wrapping_offset(ob),
            b_strides: planned.strides[1],
            o: out.wrapping_offset(oo),
            o_strides: planned.strides[2],
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
    }
}
