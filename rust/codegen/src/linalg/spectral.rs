//! The decompositions among the linalg ops, each with the workspace its LAPACK routine's
//! own query sizes, as NumPy's `init_*` functions do: symmetric eigenproblems (`dsyevd`),
//! least squares (`dgelsd`) and the singular value decomposition (`dgesdd`).

use std::ffi::c_char;

use super::{check, gather, int, matrices, Int, Work};
use crate::Error;
use ember_core::interp::linalg::RANK_DEFICIENT;
use ember_core::ir::LinalgKind;
use ember_core::views::Layout;

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

/// `dsyevd`'s settings and buffers, its workspace sized by LAPACK's own query once per run
/// (as NumPy's `init_evd` does).
pub(super) struct Eigen<I> {
    jobz: c_char,
    uplo: c_char,
    pub(super) vectors: bool,
    pub(super) values: Vec<f64>,
    work: Vec<f64>,
    iwork: Vec<I>,
}

impl<I: Int> Eigen<I> {
    /// # Safety
    /// `dsyevd` must be LAPACK's `dsyevd_` for integers `I`.
    pub(super) unsafe fn new(
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
    pub(super) unsafe fn run(&mut self, dsyevd: usize, w: &mut Work<I>) -> Result<(), Error> {
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
pub(super) unsafe fn lstsq<I: Int>(
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
pub(super) unsafe fn svd<I: Int>(
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
