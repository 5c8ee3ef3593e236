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
use crate::kernel::ScalarExt;
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

/// Runs planned products on operands whose data start at `a`, `b`, `out`: `out = a @ b`, or
/// with `update = Some(alpha)` (float dtypes), `out += alpha * (a @ b)` (a training step's
/// `w - lr * (x.T @ d)` as one BLAS call on a copy of `w`, without a pass of its own over the
/// product).
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
    update: Option<f64>,
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
        let done = blas.is_some_and(|blas| unsafe { blas.product(dtype, &p, update) });
        if !done {
            // SAFETY: as above.
            unsafe {
                match update {
                    Some(alpha) => update_through_scratch(dtype, &p, alpha, threads),
                    None => product(dtype, &p, threads),
                }
            };
        }
    }
}

/// `p` without BLAS: the register-tiled loop for small products, else [`strided`].
///
/// # Safety
/// As for [`run`].
unsafe fn product(dtype: Scalar, p: &Product, threads: usize) {
    // SAFETY: the caller's contract.
    unsafe {
        if !small::product(dtype, p) {
            strided::one(dtype, p, threads);
        }
    }
}

/// `o += alpha * a @ b` where BLAS does not take `p`: the product into a scratch matrix, then
/// added in, each element rounded as `o + alpha * x`.
///
/// # Safety
/// As for [`run`]; `dtype` is a float dtype.
unsafe fn update_through_scratch(dtype: Scalar, p: &Product, alpha: f64, threads: usize) {
    let (m, n) = (p.m, p.n);
    let mut scratch = vec![0f64; m * n];
    let q = Product {
        o: scratch.as_mut_ptr() as *mut u8,
        o_strides: (n as isize, 1),
        ..*p
    };
    // SAFETY: `scratch` holds m x n elements of `dtype` (at most 8 bytes each) in C order.
    unsafe { product(dtype, &q, threads) };
    let at = |i: usize, j: usize| i as isize * p.o_strides.0 + j as isize * p.o_strides.1;
    for i in 0..m {
        for j in 0..n {
            // SAFETY: (i, j) lies in both the output and the scratch matrix.
            unsafe {
                match dtype {
                    Scalar::F32 => {
                        let o = (p.o as *mut f32).offset(at(i, j));
                        let x = *(scratch.as_ptr() as *const f32).add(i * n + j);
                        *o += alpha as f32 * x;
                    }
                    Scalar::F64 => {
                        let o = (p.o as *mut f64).offset(at(i, j));
                        *o += alpha * scratch[i * n + j];
                    }
                    _ => unreachable!("only float products are updated in place"),
                }
            }
        }
    }
}
