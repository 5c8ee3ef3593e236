//! Float products through a CBLAS library loaded by the host process (NumPy's own OpenBLAS,
//! found by the Python package at import), called through function pointers so the crate
//! links no BLAS of its own. Until one is registered, every product takes the `gemm` path.

use super::Product;
use crate::kernel::Scalar;
use std::ffi::c_int;
use std::sync::RwLock;

/// Addresses of CBLAS entry points (`cblas_sgemm`, `cblas_dgemm`, `cblas_sgemv`,
/// `cblas_dgemv` or their renamed equivalents) and the width of their integer arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Blas {
    /// `cblas_sgemm`.
    pub sgemm: usize,
    /// `cblas_dgemm`.
    pub dgemm: usize,
    /// `cblas_sgemv`.
    pub sgemv: usize,
    /// `cblas_dgemv`.
    pub dgemv: usize,
    /// Integer arguments are 64-bit (an ILP64 build such as `scipy-openblas64`), else 32-bit.
    pub ilp64: bool,
}

static REGISTERED: RwLock<Option<Blas>> = RwLock::new(None);

/// Makes products call `blas` from now on (`None`: the `gemm` crate for every product).
///
/// # Safety
/// Each address must be the named CBLAS function of a library that stays loaded for the rest
/// of the process, with the integer width `ilp64` says.
pub unsafe fn register(blas: Option<Blas>) {
    *REGISTERED.write().unwrap_or_else(|e| e.into_inner()) = blas;
}

/// The registered BLAS, if any.
pub fn registered() -> Option<Blas> {
    *REGISTERED.read().unwrap_or_else(|e| e.into_inner())
}

const ROW_MAJOR: c_int = 101;
const COL_MAJOR: c_int = 102;
const NO_TRANS: c_int = 111;
const TRANS: c_int = 112;

type Gemm<T, I> =
    unsafe extern "C" fn(c_int, c_int, c_int, I, I, I, T, *const T, I, *const T, I, T, *mut T, I);
type Gemv<T, I> =
    unsafe extern "C" fn(c_int, c_int, I, I, T, *const T, I, *const T, I, T, *mut T, I);

/// An r x c matrix with (row, column) strides as BLAS sees it in row-major order: whether it
/// is stored transposed, and its leading dimension. None where no unit stride exists or a
/// leading dimension would be too small (broadcast or reversed axes).
fn row_major(r: usize, c: usize, (rs, cs): (isize, isize)) -> Option<(bool, usize)> {
    // A unit-length axis has no meaningful stride: any leading dimension that BLAS accepts.
    if cs == 1 || c <= 1 {
        let ld = if r <= 1 { c.max(1) as isize } else { rs };
        if ld >= c.max(1) as isize {
            return Some((false, ld as usize));
        }
    }
    if rs == 1 || r <= 1 {
        let ld = if c <= 1 { r.max(1) as isize } else { cs };
        if ld >= r.max(1) as isize {
            return Some((true, ld as usize));
        }
    }
    None
}

/// A vector increment BLAS accepts (positive), for `len` elements `stride` apart.
fn increment(len: usize, stride: isize) -> Option<usize> {
    match (len, stride) {
        (0 | 1, _) => Some(1),
        (_, s) if s > 0 => Some(s as usize),
        _ => None,
    }
}

/// Generic over the element and integer types of one library's entry points.
trait Int: Copy + TryFrom<usize> {}
impl Int for i32 {}
impl Int for i64 {}

fn int<I: Int>(x: usize) -> Option<I> {
    I::try_from(x).ok()
}

impl Blas {
    /// Runs `p` through BLAS if its dtype and layouts allow; false leaves `p` untouched.
    /// With `update = Some(alpha)` the output is updated, `o += alpha * a @ b` (BLAS's own
    /// `beta = 1`), instead of written.
    ///
    /// # Safety
    /// `p` must describe valid, non-overlapping matrices of `dtype` (see `matmul`).
    pub(crate) unsafe fn product(&self, dtype: Scalar, p: &Product, update: Option<f64>) -> bool {
        // k = 0 is the empty sum, which BLAS may leave unwritten with beta = 0.
        if p.m == 0 || p.n == 0 || p.k == 0 {
            return false;
        }
        let (alpha, beta) = update.map_or((1.0, 0.0), |alpha| (alpha, 1.0));
        // SAFETY: the addresses were registered as these functions (`register`'s contract).
        unsafe {
            match (dtype, self.ilp64) {
                (Scalar::F32, true) => {
                    call::<f32, i64>(self.sgemm, self.sgemv, p, beta as f32, alpha as f32).is_some()
                }
                (Scalar::F32, false) => {
                    call::<f32, i32>(self.sgemm, self.sgemv, p, beta as f32, alpha as f32).is_some()
                }
                (Scalar::F64, true) => {
                    call::<f64, i64>(self.dgemm, self.dgemv, p, beta, alpha).is_some()
                }
                (Scalar::F64, false) => {
                    call::<f64, i32>(self.dgemm, self.dgemv, p, beta, alpha).is_some()
                }
                _ => false,
            }
        }
    }
}

/// `o = alpha * a @ b + beta * o` by gemv when one side of the output is a single row or
/// column (NumPy's choice too: a matrix-vector product streams the matrix once), else by gemm.
///
/// # Safety
/// `gemm` and `gemv` must be CBLAS functions for `T` with integers `I`; `p` as in `product`.
unsafe fn call<T: Copy, I: Int>(
    gemm: usize,
    gemv: usize,
    p: &Product,
    beta: T,
    alpha: T,
) -> Option<()> {
    let (m, n, k) = (p.m, p.n, p.k);
    if n == 1 || m == 1 {
        // SAFETY: the caller's contract for `gemv`.
        let gemv: Gemv<T, I> = unsafe { std::mem::transmute::<usize, Gemv<T, I>>(gemv) };
        // A column of the output is A @ (column of B); a row is B^T @ (row of A).
        let (mat, (trans, ld), rows, cols, x, incx, y, incy) = if n == 1 {
            let incx = increment(k, p.b_strides.0)?;
            let incy = increment(m, p.o_strides.0)?;
            (
                p.a,
                row_major(m, k, p.a_strides)?,
                m,
                k,
                p.b,
                incx,
                p.o,
                incy,
            )
        } else {
            let incx = increment(k, p.a_strides.1)?;
            let incy = increment(n, p.o_strides.1)?;
            let (t, ld) = row_major(k, n, p.b_strides)?;
            (p.b, (!t, ld), n, k, p.a, incx, p.o, incy)
        };
        // Row-major `trans` storage holds the matrix as cols x rows.
        let (flag, sr, sc) = if trans {
            (TRANS, cols, rows)
        } else {
            (NO_TRANS, rows, cols)
        };
        let (sr, sc, ld, incx, incy) = (
            int::<I>(sr)?,
            int::<I>(sc)?,
            int(ld)?,
            int(incx)?,
            int(incy)?,
        );
        // SAFETY: every extent, leading dimension and increment was checked above against
        // the matrices `p` describes.
        unsafe {
            gemv(
                ROW_MAJOR,
                flag,
                sr,
                sc,
                alpha,
                mat as *const T,
                ld,
                x as *const T,
                incx,
                beta,
                y as *mut T,
                incy,
            )
        };
        return Some(());
    }
    let a = row_major(m, k, p.a_strides)?;
    let b = row_major(k, n, p.b_strides)?;
    let (o_trans, ldo) = row_major(m, n, p.o_strides)?;
    // A transposed output is a column-major one: in that order each operand's flag flips.
    let (order, flip) = if o_trans {
        (COL_MAJOR, true)
    } else {
        (ROW_MAJOR, false)
    };
    let flag = |t: bool| if t != flip { TRANS } else { NO_TRANS };
    let (mi, ni, ki) = (int::<I>(m)?, int::<I>(n)?, int::<I>(k)?);
    let (lda, ldb, ldo) = (int::<I>(a.1)?, int::<I>(b.1)?, int::<I>(ldo)?);
    // SAFETY: the caller's contract for `gemm`.
    let gemm: Gemm<T, I> = unsafe { std::mem::transmute::<usize, Gemm<T, I>>(gemm) };
    // SAFETY: extents and leading dimensions were checked against the matrices `p` describes.
    unsafe {
        gemm(
            order,
            flag(a.0),
            flag(b.0),
            mi,
            ni,
            ki,
            alpha,
            p.a as *const T,
            lda,
            p.b as *const T,
            ldb,
            beta,
            p.o as *mut T,
            ldo,
        )
    };
    Some(())
}
