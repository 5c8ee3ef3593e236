//! The `np.linalg` ops as an extern step calling the LAPACK of the host process (NumPy's own
//! OpenBLAS, found by the Python package at import, as for [`crate::matmul::blas`]), exactly
//! as NumPy's `_umath_linalg` calls it: each matrix of the batch is copied into a
//! column-major scratch buffer (LAPACK overwrites its operands, and NumPy's arguments must
//! stay untouched), factored or solved there (`dgesv`, `dgetrf`, `dpotrf` here; `dsyevd`,
//! `dgelsd`, `dgesdd` in [`spectral`]) and copied out, so results are bit for bit NumPy's.
//! Until a LAPACK is registered the scheduler refuses these ops, and the graph runs on the
//! eager backend.

use std::ffi::c_char;
use std::sync::RwLock;

mod spectral;

use spectral::{lstsq, svd, Eigen};

use crate::fpstatus;
use crate::Error;
use ember_core::interp::linalg::{NOT_POSITIVE_DEFINITE, SINGULAR};
use ember_core::ir::LinalgKind;
use ember_core::views::Layout;

/// Addresses of the Fortran LAPACK routines the ops call (`dgesv_`, `dgetrf_`, `dpotrf_`,
/// `dsyevd_`, `dgelsd_`, `dgesdd_` or their renamed equivalents) and the width of their
/// integer arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lapack {
    /// `dgesv_`: LU factorisation and solve.
    pub dgesv: usize,
    /// `dgetrf_`: LU factorisation.
    pub dgetrf: usize,
    /// `dpotrf_`: Cholesky factorisation.
    pub dpotrf: usize,
    /// `dsyevd_`: eigenvalues and eigenvectors of a symmetric matrix.
    pub dsyevd: usize,
    /// `dgelsd_`: least squares by the singular value decomposition.
    pub dgelsd: usize,
    /// `dgesdd_`: the singular value decomposition.
    pub dgesdd: usize,
    /// Integer arguments are 64-bit (an ILP64 build such as `scipy-openblas64`), else 32-bit.
    pub ilp64: bool,
}

static REGISTERED: RwLock<Option<Lapack>> = RwLock::new(None);

/// Makes the linalg ops call `lapack` from now on (`None`: graphs with them are refused).
///
/// # Safety
/// Each address must be the named LAPACK routine of a library that stays loaded for the rest
/// of the process, with the integer width `ilp64` says.
pub unsafe fn register(lapack: Option<Lapack>) {
    *REGISTERED.write().unwrap_or_else(|e| e.into_inner()) = lapack;
}

/// The registered LAPACK, if any.
pub fn registered() -> Option<Lapack> {
    *REGISTERED.read().unwrap_or_else(|e| e.into_inner())
}

/// LAPACK's integer type: `i32` or `i64`.
trait Int: Copy + Default + TryFrom<usize> + Into<i64> + From<i8> {}
impl Int for i32 {}
impl Int for i64 {}

fn int<I: Int>(x: usize) -> Result<I, Error> {
    I::try_from(x).map_err(|_| Error::Unsupported("a matrix too large for LAPACK".into()))
}

type Gesv<I> = unsafe extern "C" fn(
    *const I,
    *const I,
    *mut f64,
    *const I,
    *mut I,
    *mut f64,
    *const I,
    *mut I,
);
type Getrf<I> = unsafe extern "C" fn(*const I, *const I, *mut f64, *const I, *mut I, *mut I);
/// The trailing argument is the hidden length of the Fortran string `uplo`.
type Potrf<I> = unsafe extern "C" fn(*const c_char, *const I, *mut f64, *const I, *mut I, usize);
/// One square matrix (or a right-hand side) of an operand: its element offset and the
/// strides of its last two axes, in elements.
#[derive(Clone, Copy)]
struct Matrix {
    at: isize,
    rows: isize,
    cols: isize,
}

/// Computes `kind` over `f64` arrays: `inputs` the operands (the matrices, then `solve`'s
/// right-hand sides or `lstsq`'s and its rcond), `out` the result; layouts in elements.
///
/// # Safety
/// Each pointer and layout must describe a valid `f64` array of the shapes the op's type rule
/// gives (`b`'s and `a`'s batch broadcast to `out`'s); `out` must be writable.
pub(crate) unsafe fn run(
    kind: LinalgKind,
    inputs: &[(*const f64, Layout)],
    (out, lo): (*mut f64, &Layout),
) -> Result<(), Error> {
    let lapack = registered()
        .ok_or_else(|| Error::Unsupported("np.linalg without NumPy's LAPACK".into()))?;
    // NumPy runs `solve`, `inv` and `cholesky` with every floating-point error ignored:
    // flags they raise are no warning. `det` and `slogdet` run under the caller's errstate
    // (NaN operands and overflowing determinants warn), so their flags stay raised.
    let quiet = !matches!(kind, LinalgKind::Det | LinalgKind::Slogdet);
    let saved = quiet.then(fpstatus::take);
    // SAFETY: the caller's contract; the addresses were registered as these routines.
    let result = unsafe {
        match (kind, lapack.ilp64) {
            (LinalgKind::Lstsq, true) => lstsq::<i64>(lapack.dgelsd, inputs, (out, lo)),
            (LinalgKind::Lstsq, false) => lstsq::<i32>(lapack.dgelsd, inputs, (out, lo)),
            (LinalgKind::Svd | LinalgKind::SvdReduced | LinalgKind::Svdvals, true) => {
                svd::<i64>(lapack.dgesdd, kind, &inputs[0], (out, lo))
            }
            (LinalgKind::Svd | LinalgKind::SvdReduced | LinalgKind::Svdvals, false) => {
                svd::<i32>(lapack.dgesdd, kind, &inputs[0], (out, lo))
            }
            (_, true) => typed::<i64>(&lapack, kind, inputs, (out, lo)),
            (_, false) => typed::<i32>(&lapack, kind, inputs, (out, lo)),
        }
    };
    if let Some(saved) = saved {
        fpstatus::take();
        fpstatus::raise(saved);
    }
    result
}

/// # Safety
/// As for [`run`], with `I` the registered routines' integer type.
unsafe fn typed<I: Int>(
    lapack: &Lapack,
    kind: LinalgKind,
    inputs: &[(*const f64, Layout)],
    (out, lo): (*mut f64, &Layout),
) -> Result<(), Error> {
    let (a, la) = (inputs[0].0, &inputs[0].1);
    let b = inputs.get(1).map(|(p, l)| (*p, l));
    let m = la.shape[la.shape.len() - 1];
    let core = kind.result_axes();
    let batch = &lo.shape[..lo.shape.len() - core];
    let k = match b {
        Some((_, lb)) => lb.shape[lb.shape.len() - 1],
        None => m,
    };
    let mut work = Work::<I>::new(m, k)?;
    let mut eigen = match kind {
        LinalgKind::Eigh
        | LinalgKind::EighUpper
        | LinalgKind::Eigvalsh
        | LinalgKind::EigvalshUpper => {
            let vectors = matches!(kind, LinalgKind::Eigh | LinalgKind::EighUpper);
            let lower = matches!(kind, LinalgKind::Eigh | LinalgKind::Eigvalsh);
            // SAFETY: the address was registered as `dsyevd_`.
            Some(unsafe { Eigen::<I>::new(lapack.dsyevd, &mut work, vectors, lower)? })
        }
        _ => None,
    };
    let mut rhs = b.map(|(pb, lb)| (pb, matrices(lb, batch, 2)));
    for (ma, mo) in matrices(la, batch, 2).zip(matrices(lo, batch, core)) {
        let mb = rhs.as_mut().and_then(|(pb, it)| Some((*pb, it.next()?)));
        // SAFETY: every index is inside its array by the caller's shapes; the work buffers
        // hold `m x m` and `m x k` elements.
        unsafe {
            gather(a, ma, m, m, &mut work.a, m);
            match kind {
                LinalgKind::Solve | LinalgKind::Inv => {
                    match mb {
                        Some((pb, mb)) => gather(pb, mb, m, k, &mut work.b, m),
                        None => work.identity(),
                    }
                    work.gesv(lapack.dgesv)?;
                    scatter(&work.b, m, k, out, mo);
                }
                LinalgKind::Det | LinalgKind::Slogdet => {
                    let (sign, log) = work.slogdet(lapack.dgetrf);
                    if kind == LinalgKind::Det {
                        *out.offset(mo.at) = sign * log.exp();
                    } else {
                        let step = lo.strides[lo.strides.len() - 1];
                        *out.offset(mo.at) = sign;
                        *out.offset(mo.at + step) = log;
                    }
                }
                LinalgKind::Cholesky | LinalgKind::CholeskyUpper => {
                    work.potrf(lapack.dpotrf, kind == LinalgKind::Cholesky)?;
                    scatter(&work.a, m, m, out, mo);
                }
                LinalgKind::Lstsq
                | LinalgKind::Svd
                | LinalgKind::SvdReduced
                | LinalgKind::Svdvals => unreachable!("run by `lstsq` and `svd`"),
                LinalgKind::Eigh
                | LinalgKind::EighUpper
                | LinalgKind::Eigvalsh
                | LinalgKind::EigvalshUpper => {
                    let eigen = eigen.as_mut().expect("made for these kinds");
                    eigen.run(lapack.dsyevd, &mut work)?;
                    // The values are row 0 of the packed result (or all of it), the vectors
                    // the rows after it.
                    let values = Matrix { rows: 0, ..mo };
                    scatter(&eigen.values, 1, m, out, values);
                    if eigen.vectors {
                        let vectors = Matrix {
                            at: mo.at + mo.rows,
                            ..mo
                        };
                        scatter(&work.a, m, m, out, vectors);
                    }
                }
            }
        }
    }
    Ok(())
}

/// The matrices of `l` (its last `core` axes) at every index of `batch`, row-major: `l`'s
/// leading axes aligned with the end of `batch`, broadcast where of size 1.
fn matrices<'a>(l: &Layout, batch: &'a [usize], core: usize) -> impl Iterator<Item = Matrix> + 'a {
    let skip = batch.len() + core - l.shape.len();
    // Each batch axis's step through `l` (0 where `l` lacks or broadcasts it).
    let steps: Vec<isize> = (0..batch.len())
        .map(|d| match d.checked_sub(skip) {
            Some(e) if l.shape[e] != 1 => l.strides[e],
            _ => 0,
        })
        .collect();
    let stride = |back: usize| {
        if core >= back {
            l.strides[l.strides.len() - back]
        } else {
            0
        }
    };
    let (rows, cols) = (stride(2), stride(1));
    let mut idx = vec![0usize; batch.len()];
    let mut at = l.offset;
    (0..batch.iter().product::<usize>()).map(move |_| {
        let current = Matrix { at, rows, cols };
        for d in (0..batch.len()).rev() {
            idx[d] += 1;
            at += steps[d];
            if idx[d] < batch[d] {
                break;
            }
            at -= steps[d] * batch[d] as isize;
            idx[d] = 0;
        }
        current
    })
}

/// Copies the `r x c` matrix `x` into `dst` in column-major order, columns `ld` apart.
///
/// # Safety
/// `src` and `x` must address `r x c` valid elements.
unsafe fn gather(src: *const f64, x: Matrix, r: usize, c: usize, dst: &mut [f64], ld: usize) {
    for j in 0..c {
        for i in 0..r {
            // SAFETY: the caller's contract.
            dst[i + j * ld] =
                unsafe { *src.offset(x.at + i as isize * x.rows + j as isize * x.cols) };
        }
    }
}

/// Copies column-major `src` into the `r x c` matrix `x` of `dst`.
///
/// # Safety
/// `dst` and `x` must address `r x c` writable elements.
unsafe fn scatter(src: &[f64], r: usize, c: usize, dst: *mut f64, x: Matrix) {
    for j in 0..c {
        for i in 0..r {
            // SAFETY: the caller's contract.
            unsafe {
                *dst.offset(x.at + i as isize * x.rows + j as isize * x.cols) = src[i + j * r]
            };
        }
    }
}

/// Column-major scratch for one matrix at a time: `a` (`m x m`), `b` (`m x k`), the pivots.
struct Work<I> {
    m: I,
    k: I,
    lda: I,
    a: Vec<f64>,
    b: Vec<f64>,
    pivots: Vec<I>,
    size: usize,
}

impl<I: Int> Work<I> {
    fn new(m: usize, k: usize) -> Result<Self, Error> {
        let cells = |n: usize| {
            n.checked_mul(m)
                .ok_or_else(|| Error::Unsupported("a matrix too large for LAPACK".into()))
        };
        Ok(Work {
            m: int(m)?,
            k: int(k)?,
            lda: int(m.max(1))?,
            a: vec![0.0; cells(m)?.max(1)],
            b: vec![0.0; cells(k)?.max(1)],
            pivots: vec![I::default(); m.max(1)],
            size: m,
        })
    }

    fn identity(&mut self) {
        let m = self.size;
        for (p, x) in self.b[..m * m].iter_mut().enumerate() {
            *x = f64::from(u8::from(p % m == p / m));
        }
    }

    /// `b = a^-1 b`, `a` left factored; a singular `a` is `LinAlgError`.
    ///
    /// # Safety
    /// `dgesv` must be LAPACK's `dgesv_` for integers `I`.
    unsafe fn gesv(&mut self, dgesv: usize) -> Result<(), Error> {
        // SAFETY: the caller's contract.
        let gesv: Gesv<I> = unsafe { std::mem::transmute::<usize, Gesv<I>>(dgesv) };
        let mut info = I::default();
        let (a, b, p) = (
            self.a.as_mut_ptr(),
            self.b.as_mut_ptr(),
            self.pivots.as_mut_ptr(),
        );
        // SAFETY: the buffers hold `lda x m`, `lda x k` and `m` elements.
        unsafe { gesv(&self.m, &self.k, a, &self.lda, p, b, &self.lda, &mut info) };
        check(info, SINGULAR)
    }

    /// The sign and log magnitude of `a`'s determinant (`(0, -inf)` when singular), summed
    /// over `getrf`'s diagonal as NumPy's `slogdet_single_element` does.
    ///
    /// # Safety
    /// `dgetrf` must be LAPACK's `dgetrf_` for integers `I`.
    unsafe fn slogdet(&mut self, dgetrf: usize) -> (f64, f64) {
        // SAFETY: the caller's contract.
        let getrf: Getrf<I> = unsafe { std::mem::transmute::<usize, Getrf<I>>(dgetrf) };
        let mut info = I::default();
        let (a, p) = (self.a.as_mut_ptr(), self.pivots.as_mut_ptr());
        // SAFETY: the buffers hold `lda x m` and `m` elements.
        unsafe { getrf(&self.m, &self.m, a, &self.lda, p, &mut info) };
        if info.into() != 0 {
            return (0.0, f64::NEG_INFINITY);
        }
        let m = self.size;
        let swaps = (0..m)
            .filter(|&i| self.pivots[i].into() != i as i64 + 1)
            .count();
        let mut sign = if swaps % 2 == 1 { -1.0 } else { 1.0 };
        let mut log = 0.0;
        for i in 0..m {
            let mut d = self.a[i * (m + 1)];
            if d < 0.0 {
                sign = -sign;
                d = -d;
            }
            log += d.ln();
        }
        (sign, log)
    }

    /// The Cholesky factor of `a` in place, the other triangle zeroed; `LinAlgError` when
    /// `a` is not positive definite.
    ///
    /// # Safety
    /// `dpotrf` must be LAPACK's `dpotrf_` for integers `I`.
    unsafe fn potrf(&mut self, dpotrf: usize, lower: bool) -> Result<(), Error> {
        // SAFETY: the caller's contract.
        let potrf: Potrf<I> = unsafe { std::mem::transmute::<usize, Potrf<I>>(dpotrf) };
        let uplo = if lower { b'L' } else { b'U' } as c_char;
        let mut info = I::default();
        // SAFETY: the buffer holds `lda x m` elements; `uplo` is one character.
        unsafe { potrf(&uplo, &self.m, self.a.as_mut_ptr(), &self.lda, &mut info, 1) };
        check(info, NOT_POSITIVE_DEFINITE)?;
        let m = self.size;
        for j in 0..m {
            for i in 0..m {
                // Column-major: element (i, j) is above the diagonal where i < j.
                if (lower && i < j) || (!lower && i > j) {
                    self.a[i + j * m] = 0.0;
                }
            }
        }
        Ok(())
    }
}

fn check<I: Int>(info: I, message: &str) -> Result<(), Error> {
    match info.into() {
        0 => Ok(()),
        i if i > 0 => Err(Error::LinAlg(message.into())),
        i => Err(Error::Codegen(format!("LAPACK rejected argument {}", -i))),
    }
}
