//! `matmul` as an extern kernel: `gemm` for floats (strided operands, no copies), a plain
//! loop for integers and bools. NumPy's rules: 1-D operands are promoted to a row / column
//! and the added axis removed from the result; batch dims broadcast.

use crate::fpstatus::{self, FpStatus};
use crate::kernel::Scalar;
use ember_core::views::Layout;

/// A matrix operand: base pointer and layout in elements.
pub(crate) struct Mat {
    pub ptr: *mut u8,
    pub layout: Layout,
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
    let mut idx = vec![0usize; batch.len()];
    for _ in 0..count {
        let pa = a.ptr.wrapping_offset(batch_offset(&al, &idx) * size);
        let pb = b.ptr.wrapping_offset(batch_offset(&bl, &idx) * size);
        let po = out.ptr.wrapping_offset(batch_offset(&ol, &idx) * size);
        let (ars, acs) = (
            al.strides[al.shape.len() - 2],
            al.strides[al.shape.len() - 1],
        );
        let (brs, bcs) = (
            bl.strides[bl.shape.len() - 2],
            bl.strides[bl.shape.len() - 1],
        );
        let (ors, ocs) = (ol.strides[nd - 2], ol.strides[nd - 1]);
        // SAFETY: the offsets stay inside each operand by the caller's contract.
        unsafe {
            one(
                dtype,
                m,
                n,
                k,
                pa,
                (ars, acs),
                pb,
                (brs, bcs),
                po,
                (ors, ocs),
                threads,
            )
        };
        for d in (0..batch.len()).rev() {
            idx[d] += 1;
            if idx[d] < batch[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

#[allow(clippy::too_many_arguments)]
unsafe fn one(
    dtype: Scalar,
    m: usize,
    n: usize,
    k: usize,
    a: *mut u8,
    (ars, acs): (isize, isize),
    b: *mut u8,
    (brs, bcs): (isize, isize),
    o: *mut u8,
    (ors, ocs): (isize, isize),
    threads: usize,
) {
    if m == 0 || n == 0 {
        return;
    }
    let parallel = !(threads == 1 || m * n * k < 64 * 64 * 64);
    let par = if parallel {
        gemm::Parallelism::Rayon(threads)
    } else {
        gemm::Parallelism::None
    };
    match dtype {
        Scalar::F64 if k > 0 => {
            // SAFETY: strides in elements describe valid m x k, k x n and m x n matrices.
            unsafe {
                gemm::gemm::<f64>(
                    m,
                    n,
                    k,
                    o as *mut f64,
                    ocs,
                    ors,
                    false,
                    a as *const f64,
                    acs,
                    ars,
                    b as *const f64,
                    bcs,
                    brs,
                    0.0,
                    1.0,
                    false,
                    false,
                    false,
                    par,
                )
            }
        }
        Scalar::F32 if k > 0 => {
            // SAFETY: as above.
            unsafe {
                gemm::gemm::<f32>(
                    m,
                    n,
                    k,
                    o as *mut f32,
                    ocs,
                    ors,
                    false,
                    a as *const f32,
                    acs,
                    ars,
                    b as *const f32,
                    bcs,
                    brs,
                    0.0,
                    1.0,
                    false,
                    false,
                    false,
                    par,
                )
            }
        }
        _ => {
            // Integers, bools, and the empty sum of k = 0.
            let size = dtype.size() as isize;
            // SAFETY: every index is inside the m x k, k x n and m x n matrices.
            let rd = |p: *mut u8, i: isize| -> Elem {
                unsafe {
                    let q = p.offset(i * size);
                    match dtype {
                        Scalar::Bool => Elem::I(i64::from(*q != 0)),
                        Scalar::I32 => Elem::I(i64::from(*(q as *const i32))),
                        Scalar::I64 => Elem::I(*(q as *const i64)),
                        Scalar::F32 => Elem::F(f64::from(*(q as *const f32))),
                        Scalar::F64 => Elem::F(*(q as *const f64)),
                    }
                }
            };
            for i in 0..m as isize {
                for j in 0..n as isize {
                    let mut acc_i: i64 = 0;
                    let mut acc_f: f64 = 0.0;
                    for p in 0..k as isize {
                        match (rd(a, i * ars + p * acs), rd(b, p * brs + j * bcs)) {
                            (Elem::I(x), Elem::I(y)) => {
                                acc_i = acc_i.wrapping_add(x.wrapping_mul(y))
                            }
                            (Elem::F(x), Elem::F(y)) => acc_f += x * y,
                            _ => unreachable!("operands share a dtype"),
                        }
                    }
                    // SAFETY: (i, j) is inside the output matrix.
                    unsafe {
                        let q = o.offset((i * ors + j * ocs) * size);
                        match dtype {
                            Scalar::Bool => *q = u8::from(acc_i != 0),
                            Scalar::I32 => *(q as *mut i32) = acc_i as i32,
                            Scalar::I64 => *(q as *mut i64) = acc_i,
                            Scalar::F32 => *(q as *mut f32) = acc_f as f32,
                            Scalar::F64 => *(q as *mut f64) = acc_f,
                        }
                    }
                }
            }
        }
    }
    if parallel && dtype.is_float() && k > 0 {
        // The exception flags of gemm's worker threads are lost; a non-finite result is
        // where an overflow or invalid operation may have happened, and the flags make the
        // caller rerun the product with NumPy, which then warns exactly as it does.
        // SAFETY: the m x n output was just written.
        if unsafe { any_non_finite(dtype, m, n, o, (ors, ocs)) } {
            fpstatus::raise(FpStatus(FpStatus::OVERFLOW | FpStatus::INVALID));
        }
    }
}

/// An element read by the fallback loop.
enum Elem {
    I(i64),
    F(f64),
}

/// Whether any element of the `m x n` float matrix at `o` is infinite or NaN.
///
/// # Safety
/// `o` and the strides (in elements) must describe a valid `m x n` matrix of `dtype`.
unsafe fn any_non_finite(
    dtype: Scalar,
    m: usize,
    n: usize,
    o: *mut u8,
    (ors, ocs): (isize, isize),
) -> bool {
    let size = dtype.size() as isize;
    (0..m as isize).any(|i| {
        (0..n as isize).any(|j| {
            // SAFETY: (i, j) is inside the matrix.
            let q = unsafe { o.offset((i * ors + j * ocs) * size) };
            match dtype {
                Scalar::F32 => !unsafe { *(q as *const f32) }.is_finite(),
                _ => !unsafe { *(q as *const f64) }.is_finite(),
            }
        })
    })
}
