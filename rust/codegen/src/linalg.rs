//! The `np.linalg` ops as an extern step calling the LAPACK of the host process (NumPy's own
//! OpenBLAS, found by the Python package at import, as for [`crate::matmul::blas`]), exactly
//! as NumPy's `_umath_linalg` calls it: each matrix of the batch is copied into a
//! column-major scratch buffer (LAPACK overwrites its operands, and NumPy's arguments must
//! stay untouched), factored or solved there (`dgesv`, `dgetrf`, `dpotrf`, `dsyevd`,
//! `dgelsd`, `dgesdd`) and
//! copied out, so
//! results are bit for bit NumPy's. Until a LAPACK is registered the scheduler refuses these
//! ops, and the graph runs on the eager backend.

use std::ffi::c_char;
use std::sync::RwLock;

use crate::fpstatus;
use crate::Error;
use ember_core::interp::linalg::{NOT_POSITIVE_DEFINITE, RANK_DEFICIENT, SINGULAR};
use ember_core::ir::LinalgKind;
use ember_core::views::Layout;

/// Addresses of the Fortran LAPACK routines the ops call (`dgesv_`, `dgetrf_`, `dpotrf_`,
/// `dsyevd_` or their renamed equivalents) and the width of their integer arguments.
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
/// `jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, iwork, info`, then `jobz`'s length.
type Gesdd<I> = unsafe extern "C" fn(
    *const c_char,
    *const I,
    *const I,
    *mut f64,
    *const I,
    *mut f64,
    *mut f64,
    *const I,
    *mut f64,
    *const I,
    *mut f64,
    *const I,
    *mut I,
    *mut I,
    usize,
);
/// `m, n, nrhs, a, lda, b, ldb, s, rcond, rank, work, lwork, iwork, info`.
type Gelsd<I> = unsafe extern "C" fn(
    *const I,
    *const I,
    *const I,
    *mut f64,
    *const I,
    *mut f64,
    *const I,
    *mut f64,
    *const f64,
    *mut I,
    *mut f64,
    *const I,
    *mut I,
    *mut I,
);
/// `jobz, uplo, n, a, lda, w, work, lwork, iwork, liwork, info`, then the two strings' lengths.
type Syevd<I> = unsafe extern "C" fn(
    *const c_char,
    *const c_char,
    *const I,
    *mut f64,
    *const I,
    *mut f64,
    *mut f64,
    *const I,
    *mut I,
    *const I,
    *mut I,
    usize,
    usize,
);

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

/// `dsyevd`'s settings and buffers, its workspace sized by LAPACK's own query once per run
/// (as NumPy's `init_evd` does).
struct Eigen<I> {
    jobz: c_char,
    uplo: c_char,
    vectors: bool,
    values: Vec<f64>,
    work: Vec<f64>,
    iwork: Vec<I>,
}

impl<I: Int> Eigen<I> {
    /// # Safety
    /// `dsyevd` must be LAPACK's `dsyevd_` for integers `I`.
    unsafe fn new(
        dsyevd: usize,
        w: &mut Work<I>,
        vectors: bool,
        lower: bool,
    ) -> Result<Self, Error> {
        let mut eigen = Eigen {
            jobz: if vectors { b'V' } else { b'N' } as c_char,
            uplo: if lower { b'L' } else { b'U' } as c_char,
            vectors,
            values: vec![0.0; w.size.max(1)],
            work: vec![0.0; 1],
            iwork: vec![I::default(); 1],
        };
        // SAFETY: the caller's contract; a query (sizes -1) writes one element of each.
        unsafe { eigen.call(dsyevd, w, true)? };
        let size = |x: i64| usize::try_from(x).unwrap_or(0).max(1);
        eigen.work = vec![0.0; size(eigen.work[0] as i64)];
        eigen.iwork = vec![I::default(); size(eigen.iwork[0].into())];
        Ok(eigen)
    }

    /// # Safety
    /// As for `new`.
    unsafe fn run(&mut self, dsyevd: usize, w: &mut Work<I>) -> Result<(), Error> {
        // SAFETY: the caller's contract; the workspace has the sizes the query gave.
        unsafe { self.call(dsyevd, w, false) }
    }

    /// # Safety
    /// As for `new`.
    unsafe fn call(&mut self, dsyevd: usize, w: &mut Work<I>, query: bool) -> Result<(), Error> {
        // SAFETY: the caller's contract.
        let syevd: Syevd<I> = unsafe { std::mem::transmute::<usize, Syevd<I>>(dsyevd) };
        let (lwork, liwork) = if query {
            (I::from(-1), I::from(-1))
        } else {
            (int(self.work.len())?, int(self.iwork.len())?)
        };
        let mut info = I::default();
        // SAFETY: `a` holds `lda x m` elements, `values` `m`, the workspaces their lengths.
        unsafe {
            syevd(
                &self.jobz,
                &self.uplo,
                &w.m,
                w.a.as_mut_ptr(),
                &w.lda,
                self.values.as_mut_ptr(),
                self.work.as_mut_ptr(),
                &lwork,
                self.iwork.as_mut_ptr(),
                &liwork,
                &mut info,
                1,
                1,
            )
        };
        check(info, "Eigenvalues did not converge")
    }
}

/// `lstsq` as NumPy's `_umath_linalg.lstsq` computes it: `dgelsd` on column-major copies
/// (`b` with `max(m, n)` rows), the workspace sized by its own query; the solution is `b`'s
/// first `n` rows, each column's residual the sum of squares of the rest. A rank below
/// `min(m, n)` is an error: NumPy's residuals then have another shape.
///
/// # Safety
/// `dgelsd` must be LAPACK's `dgelsd_` for integers `I`; `inputs` an `(m, n)` matrix, `(m, k)`
/// right-hand sides and a 0-d rcond, `out` a vector of `n * k + k + min(m, n)`.
unsafe fn lstsq<I: Int>(
    dgelsd: usize,
    inputs: &[(*const f64, Layout)],
    (out, lo): (*mut f64, &Layout),
) -> Result<(), Error> {
    // SAFETY: the caller's contract.
    let gelsd: Gelsd<I> = unsafe { std::mem::transmute::<usize, Gelsd<I>>(dgelsd) };
    let [(a, la), (b, lb), (rcond, lr)] = inputs else {
        return Err(Error::Codegen("lstsq takes three operands".into()));
    };
    let (m, n, k) = (la.shape[0], la.shape[1], lb.shape[1]);
    let (p, ld) = (m.min(n), m.max(n).max(1));
    let mut aw = vec![0.0; m.max(1) * n.max(1)];
    let mut bw = vec![0.0; ld * k.max(1)];
    let mut s = vec![0.0; p.max(1)];
    // SAFETY: the operands' layouts address these elements (the caller's contract).
    let rcond = unsafe {
        let one = |l| matrices(l, &[], 2).next().expect("one matrix");
        gather(*a, one(la), m, n, &mut aw, m.max(1));
        gather(*b, one(lb), m, k, &mut bw, ld);
        *rcond.offset(lr.offset)
    };
    let (mi, ni, ki, lda, ldb) = (
        int::<I>(m)?,
        int::<I>(n)?,
        int::<I>(k)?,
        int(m.max(1))?,
        int(ld)?,
    );
    let (mut rank, mut info) = (I::default(), I::default());
    let (mut size, mut isize) = (0.0, I::default());
    let query = I::from(-1);
    // SAFETY: a workspace query writes one element of `work` and `iwork`.
    unsafe {
        gelsd(
            &mi,
            &ni,
            &ki,
            aw.as_mut_ptr(),
            &lda,
            bw.as_mut_ptr(),
            &ldb,
            s.as_mut_ptr(),
            &rcond,
            &mut rank,
            &mut size,
            &query,
            &mut isize,
            &mut info,
        )
    };
    check(info, "SVD did not converge in Linear Least Squares")?;
    let mut work = vec![0.0; (size as usize).max(1)];
    let mut iwork = vec![I::default(); usize::try_from(isize.into()).unwrap_or(0).max(1)];
    let lwork = int::<I>(work.len())?;
    // SAFETY: the buffers have the sizes LAPACK asked for.
    unsafe {
        gelsd(
            &mi,
            &ni,
            &ki,
            aw.as_mut_ptr(),
            &lda,
            bw.as_mut_ptr(),
            &ldb,
            s.as_mut_ptr(),
            &rcond,
            &mut rank,
            work.as_mut_ptr(),
            &lwork,
            iwork.as_mut_ptr(),
            &mut info,
        )
    };
    check(info, "SVD did not converge in Linear Least Squares")?;
    if rank.into() != p as i64 {
        return Err(Error::Unsupported(RANK_DEFICIENT.into()));
    }
    let residual = |c: usize| {
        let column = &bw[c * ld + n..c * ld + m.max(n)];
        column.iter().fold(0.0, |sum, x| sum + x * x)
    };
    let values = (0..n * k)
        .map(|q| bw[(q % k) * ld + q / k])
        .chain((0..k).map(|c| if m > n { residual(c) } else { f64::NAN }))
        .chain(s[..p].iter().copied());
    let step = lo.strides[0];
    for (i, x) in values.enumerate() {
        // SAFETY: `out` holds `n * k + k + p` elements `step` apart.
        unsafe { *out.offset(lo.offset + i as isize * step) = x };
    }
    Ok(())
}

/// `svd` as NumPy's `_umath_linalg.svd_*` computes it: `dgesdd` (`jobz` `A`, `S` or `N`) on
/// a column-major copy of each matrix, the workspace sized by its own query; `u`, `s` and
/// `vh` written one after the other along `out`'s last axis, `u` and `vh` row-major.
///
/// # Safety
/// `dgesdd` must be LAPACK's `dgesdd_` for integers `I`; `a` a stack of `(m, n)` matrices,
/// `out` its batch with a last axis of `svd_parts`' total.
unsafe fn svd<I: Int>(
    dgesdd: usize,
    kind: LinalgKind,
    (a, la): &(*const f64, Layout),
    (out, lo): (*mut f64, &Layout),
) -> Result<(), Error> {
    let d = la.shape.len();
    let (m, n) = (la.shape[d - 2], la.shape[d - 1]);
    let k = m.min(n);
    let (jobz, ucols, vrows) = match kind {
        LinalgKind::Svd => (b'A', m, n),
        LinalgKind::SvdReduced => (b'S', k, k),
        _ => (b'N', 0, 0),
    };
    let mut sdd = Sdd::<I> {
        jobz: jobz as c_char,
        m: int(m)?,
        n: int(n)?,
        lda: int(m.max(1))?,
        ldvt: int(vrows.max(1))?,
        a: vec![0.0; m.max(1) * n.max(1)],
        s: vec![0.0; k.max(1)],
        u: vec![0.0; m.max(1) * ucols.max(1)],
        vt: vec![0.0; vrows.max(1) * n.max(1)],
        iwork: vec![I::default(); 8 * k.max(1)],
        work: vec![0.0; 1],
    };
    // SAFETY: the caller's contract; a query writes one element of `work`.
    unsafe { sdd.call(dgesdd, I::from(-1))? };
    sdd.work = vec![0.0; (sdd.work[0] as usize).max(1)];
    let lwork = int::<I>(sdd.work.len())?;
    let (lda, ldvt) = (m.max(1), vrows.max(1));
    let batch = &lo.shape[..lo.shape.len() - 1];
    let step = lo.strides[lo.strides.len() - 1];
    for (ma, mo) in matrices(la, batch, 2).zip(matrices(lo, batch, 1)) {
        // SAFETY: `ma` addresses `m x n` elements of `a` (the caller's contract); the
        // workspace has the size the query gave.
        unsafe {
            gather(*a, ma, m, n, &mut sdd.a, lda);
            sdd.call(dgesdd, lwork)?;
        }
        let u = (0..m * ucols).map(|p| sdd.u[p / ucols + (p % ucols) * lda]);
        let vh = (0..vrows * n).map(|p| sdd.vt[p / n + (p % n) * ldvt]);
        for (i, x) in u.chain(sdd.s[..k].iter().copied()).chain(vh).enumerate() {
            // SAFETY: `out`'s last axis holds `m * ucols + k + vrows * n` elements.
            unsafe { *out.offset(mo.at + i as isize * step) = x };
        }
    }
    Ok(())
}

/// `dgesdd`'s arguments and column-major buffers for one matrix at a time.
struct Sdd<I> {
    jobz: c_char,
    m: I,
    n: I,
    lda: I,
    ldvt: I,
    a: Vec<f64>,
    s: Vec<f64>,
    u: Vec<f64>,
    vt: Vec<f64>,
    iwork: Vec<I>,
    work: Vec<f64>,
}

impl<I: Int> Sdd<I> {
    /// Runs `dgesdd` (a workspace query for `lwork = -1`); any failure, a NaN operand's
    /// included, is NumPy's `LinAlgError`.
    ///
    /// # Safety
    /// `dgesdd` must be LAPACK's `dgesdd_` for integers `I`, the buffers of the sizes it
    /// reads for these arguments.
    unsafe fn call(&mut self, dgesdd: usize, lwork: I) -> Result<(), Error> {
        // SAFETY: the caller's contract.
        let gesdd: Gesdd<I> = unsafe { std::mem::transmute::<usize, Gesdd<I>>(dgesdd) };
        let mut info = I::default();
        // SAFETY: the caller's contract.
        unsafe {
            gesdd(
                &self.jobz,
                &self.m,
                &self.n,
                self.a.as_mut_ptr(),
                &self.lda,
                self.s.as_mut_ptr(),
                self.u.as_mut_ptr(),
                &self.lda,
                self.vt.as_mut_ptr(),
                &self.ldvt,
                self.work.as_mut_ptr(),
                &lwork,
                self.iwork.as_mut_ptr(),
                &mut info,
                1,
            )
        };
        match info.into() {
            0 => Ok(()),
            _ => Err(Error::LinAlg("SVD did not converge".into())),
        }
    }
}

fn check<I: Int>(info: I, message: &str) -> Result<(), Error> {
    match info.into() {
        0 => Ok(()),
        i if i > 0 => Err(Error::LinAlg(message.into())),
        i => Err(Error::Codegen(format!("LAPACK rejected argument {}", -i))),
    }
}
