//! Products the BLAS cannot take: any strides (the `gemm` crate, no copies), integers and
//! bools (a plain loop, wrapping as NumPy's integer products do), and the empty sum of k = 0.

use super::Product;
use crate::fpstatus::{self, FpStatus};
use crate::kernel::Scalar;
use crate::kernel::ScalarExt;

/// One product `o = a @ b`.
///
/// # Safety
/// The pointers and strides must address valid matrices of `dtype`; `o` must not overlap.
pub(super) unsafe fn one(dtype: Scalar, p: &Product, threads: usize) {
    let Product {
        m,
        n,
        k,
        a,
        a_strides: (ars, acs),
        b,
        b_strides: (brs, bcs),
        o,
        o_strides: (ors, ocs),
    } = *p;
    if m == 0 || n == 0 {
        return;
    }
    let parallel = !(threads == 1 || m * n * k < 64 * 64 * 64 || !crate::exec::pool_usable());
    // gemm hands each thread a fixed share: by default only the cores idle now take one.
    let threads = match threads {
        _ if !parallel => 1,
        0 => crate::exec::default_threads().min(crate::exec::idle_cores()),
        n => n,
    };
    let par = if threads > 1 {
        gemm::Parallelism::Rayon(threads)
    } else {
        gemm::Parallelism::None
    };
    match dtype {
        // SAFETY: strides in elements describe valid m x k, k x n and m x n matrices.
        Scalar::F64 if k > 0 => unsafe {
            float_gemm::<f64>(
                (m, n, k),
                o,
                (ors, ocs),
                a,
                (ars, acs),
                b,
                (brs, bcs),
                1.0,
                par,
            )
        },
        // SAFETY: as above.
        Scalar::F32 if k > 0 => unsafe {
            float_gemm::<f32>(
                (m, n, k),
                o,
                (ors, ocs),
                a,
                (ars, acs),
                b,
                (brs, bcs),
                1.0,
                par,
            )
        },
        _ => {
            // Integers, bools, and the empty sum of k = 0.
            let size = dtype.size() as isize;
            // SAFETY: every index is inside the m x k, k x n and m x n matrices.
            let rd = |p: *mut u8, i: isize| -> Elem {
                unsafe {
                    let q = p.offset(i * size);
                    match dtype {
                        Scalar::Bool => Elem::I(i64::from(*q != 0)),
                        Scalar::I8 => Elem::I(i64::from(*(q as *const i8))),
                        Scalar::I16 => Elem::I(i64::from(*(q as *const i16))),
                        Scalar::I32 => Elem::I(i64::from(*(q as *const i32))),
                        Scalar::U8 => Elem::I(i64::from(*q)),
                        Scalar::U16 => Elem::I(i64::from(*(q as *const u16))),
                        Scalar::U32 => Elem::I(i64::from(*(q as *const u32))),
                        // Wrapping products and sums agree with u64's in their low bits.
                        Scalar::U64 => Elem::I(*(q as *const u64) as i64),
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
                            Scalar::I8 => *(q as *mut i8) = acc_i as i8,
                            Scalar::I16 => *(q as *mut i16) = acc_i as i16,
                            Scalar::I32 => *(q as *mut i32) = acc_i as i32,
                            Scalar::U8 => *q = acc_i as u8,
                            Scalar::U16 => *(q as *mut u16) = acc_i as u16,
                            Scalar::U32 => *(q as *mut u32) = acc_i as u32,
                            Scalar::U64 => *(q as *mut u64) = acc_i as u64,
                            Scalar::I64 => *(q as *mut i64) = acc_i,
                            Scalar::F32 => *(q as *mut f32) = acc_f as f32,
                            Scalar::F64 => *(q as *mut f64) = acc_f,
                        }
                    }
                }
            }
        }
    }
    if threads > 1 && dtype.is_float() && k > 0 {
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

/// `out = a @ b` by the gemm crate for one float type; strides are (row, column) in elements.
///
/// # Safety
/// The pointers and strides must describe valid m x k, k x n and m x n matrices of `T`.
#[allow(clippy::too_many_arguments)]
unsafe fn float_gemm<T: 'static + Copy + Default>(
    (m, n, k): (usize, usize, usize),
    o: *mut u8,
    (ors, ocs): (isize, isize),
    a: *mut u8,
    (ars, acs): (isize, isize),
    b: *mut u8,
    (brs, bcs): (isize, isize),
    one: T,
    par: gemm::Parallelism,
) {
    // SAFETY: the caller's contract.
    unsafe {
        gemm::gemm::<T>(
            m,
            n,
            k,
            o as *mut T,
            ocs,
            ors,
            false,
            a as *const T,
            acs,
            ars,
            b as *const T,
            bcs,
            brs,
            T::default(),
            one,
            false,
            false,
            false,
            par,
        )
    }
}
