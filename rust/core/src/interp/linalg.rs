//! The `np.linalg` ops by textbook algorithms (LU with partial pivoting, Cholesky by columns,
//! cyclic Jacobi rotations for symmetric eigenproblems, which also give the singular values
//! and vectors through `a.T @ a`, normal equations for least squares): the reference for the LAPACK calls of
//! native code, equal to them within rounding (eigen- and singular vectors up to their signs). Errors carry
//! NumPy's `LinAlgError` messages.

use super::{broadcast, Elem, HostArray};
use crate::error::{Error, Result};
use crate::ir::LinalgKind;

/// `solve`'s and `inv`'s error for a matrix LU finds singular.
pub const SINGULAR: &str = "Singular matrix";
/// `cholesky`'s error for a matrix that is not positive definite.
pub const NOT_POSITIVE_DEFINITE: &str = "Matrix is not positive definite";
/// `lstsq`'s error for a matrix below full rank, whose residuals NumPy leaves out (a shape
/// only the data decides): the caller computes that case some other way.
pub const RANK_DEFICIENT: &str = "lstsq of a matrix below full rank";

/// Evaluates `kind` on its operands (`f64`), for a result of `shape`.
pub(super) fn eval(kind: LinalgKind, args: &[&HostArray], shape: &[usize]) -> Result<Vec<Elem>> {
    let general = match kind {
        LinalgKind::Lstsq => Some(lstsq(args)?),
        LinalgKind::Svd | LinalgKind::SvdReduced | LinalgKind::Svdvals => Some(svd(kind, args[0])),
        _ => None,
    };
    if let Some(values) = general {
        return Ok(values.into_iter().map(Elem::F).collect());
    }
    let a = args[0];
    let m = a.shape[a.shape.len() - 1];
    let batch = &shape[..shape.len() - kind.result_axes()];
    let count: usize = batch.iter().product();
    let matrices = floats(&broadcast(a, &[batch, &[m, m]].concat()));
    let rhs = match (kind, args.get(1)) {
        (LinalgKind::Solve, Some(b)) => floats(&broadcast(b, shape)),
        _ => Vec::new(),
    };
    let k = shape.last().copied().unwrap_or(0);
    let mut out = Vec::with_capacity(shape.iter().product());
    for t in 0..count {
        let a = &matrices[t * m * m..(t + 1) * m * m];
        match kind {
            LinalgKind::Solve => out.extend(solve(a, m, &rhs[t * m * k..(t + 1) * m * k], k)?),
            LinalgKind::Inv => out.extend(solve(a, m, &identity(m), m)?),
            LinalgKind::Det => {
                let (sign, log) = slogdet(a, m);
                out.push(sign * log.exp());
            }
            LinalgKind::Slogdet => out.extend(<[f64; 2]>::from(slogdet(a, m))),
            LinalgKind::Cholesky => out.extend(cholesky(a, m)?),
            LinalgKind::CholeskyUpper => out.extend(transpose(&cholesky(a, m)?, m)),
            LinalgKind::Eigh | LinalgKind::EighUpper => {
                let (values, vectors) = eigh(a, m, kind == LinalgKind::Eigh);
                out.extend(values);
                out.extend(vectors);
            }
            LinalgKind::Eigvalsh | LinalgKind::EigvalshUpper => {
                out.extend(eigh(a, m, kind == LinalgKind::Eigvalsh).0)
            }
            LinalgKind::Lstsq | LinalgKind::Svd | LinalgKind::SvdReduced | LinalgKind::Svdvals => {
                unreachable!("handled above")
            }
        }
    }
    Ok(out.into_iter().map(Elem::F).collect())
}

fn floats(elems: &[Elem]) -> Vec<f64> {
    elems
        .iter()
        .map(|e| match *e {
            Elem::F(x) => x,
            Elem::I(i) => i as f64,
            Elem::B(b) => f64::from(u8::from(b)),
        })
        .collect()
}

fn identity(m: usize) -> Vec<f64> {
    (0..m * m)
        .map(|p| f64::from(u8::from(p / m == p % m)))
        .collect()
}

fn transpose(a: &[f64], m: usize) -> Vec<f64> {
    rectangular_transpose(a, m, m)
}

/// The transpose of row-major `r x c` `a`.
fn rectangular_transpose(a: &[f64], r: usize, c: usize) -> Vec<f64> {
    (0..r * c).map(|p| a[(p % r) * c + p / r]).collect()
}

/// Row-major `x (r x c) @ y (c x k)`.
fn product(x: &[f64], r: usize, c: usize, y: &[f64], k: usize) -> Vec<f64> {
    (0..r * k)
        .map(|p| (0..c).map(|j| x[(p / k) * c + j] * y[j * k + p % k]).sum())
        .collect()
}

/// `lstsq(a, b, rcond)` of full rank: the minimum-norm least-squares solution by the normal
/// equations, each column's squared residual (NaN unless `m > n`), and the singular values
/// from the eigenvalues of the smaller Gram matrix, flattened.
fn lstsq(args: &[&HostArray]) -> Result<Vec<f64>> {
    let (a, b) = (args[0], args[1]);
    let (m, n, k) = (a.shape[0], a.shape[1], b.shape[1]);
    let (av, bv) = (floats(&a.elems()), floats(&b.elems()));
    let rcond = floats(&args[2].elems())[0];
    // LAPACK's `dgelsd`: a negative rcond means the machine precision.
    let rcond = if rcond < 0.0 {
        f64::EPSILON / 2.0
    } else {
        rcond
    };
    let at = rectangular_transpose(&av, m, n);
    let p = m.min(n);
    let gram = if m >= n {
        product(&at, n, m, &av, n)
    } else {
        product(&av, m, n, &at, m)
    };
    let singular: Vec<f64> = eigh(&gram, p, true)
        .0
        .iter()
        .rev()
        .map(|v| v.max(0.0).sqrt())
        .collect();
    let largest = singular.first().copied().unwrap_or(0.0);
    if singular.iter().filter(|&&s| s > rcond * largest).count() != p {
        return Err(Error::new(RANK_DEFICIENT));
    }
    let x = if m >= n {
        solve(&gram, n, &product(&at, n, m, &bv, k), k)?
    } else {
        product(&at, n, m, &solve(&gram, m, &bv, k)?, k)
    };
    let fitted = product(&av, m, n, &x, k);
    let residuals = (0..k).map(|c| {
        if m > n {
            (0..m)
                .map(|i| (bv[i * k + c] - fitted[i * k + c]).powi(2))
                .sum()
        } else {
            f64::NAN
        }
    });
    Ok(x.iter().copied().chain(residuals).chain(singular).collect())
}

/// The LU factors of row-major `a` in place (`L` below the diagonal, unit diagonal implied),
/// pivoting on the first largest magnitude in each column as LAPACK's `getrf` does; returns
/// the number of row swaps, or None when a pivot is zero.
fn lu(a: &mut [f64], m: usize, rows: &mut [usize]) -> Option<usize> {
    let mut swaps = 0;
    let mut singular = false;
    for j in 0..m {
        let mut p = j;
        for i in j + 1..m {
            if a[i * m + j].abs() > a[p * m + j].abs() {
                p = i;
            }
        }
        if a[p * m + j] == 0.0 {
            singular = true;
            continue;
        }
        if p != j {
            swaps += 1;
            rows.swap(p, j);
            for c in 0..m {
                a.swap(p * m + c, j * m + c);
            }
        }
        for i in j + 1..m {
            let l = a[i * m + j] / a[j * m + j];
            a[i * m + j] = l;
            for c in j + 1..m {
                a[i * m + c] -= l * a[j * m + c];
            }
        }
    }
    (!singular).then_some(swaps)
}

/// `x` with `a @ x = b` for the `m x k` row-major `b`.
fn solve(a: &[f64], m: usize, b: &[f64], k: usize) -> Result<Vec<f64>> {
    let mut lu_ = a.to_vec();
    let mut rows: Vec<usize> = (0..m).collect();
    lu(&mut lu_, m, &mut rows).ok_or_else(|| Error::new(SINGULAR))?;
    let mut x: Vec<f64> = rows
        .iter()
        .flat_map(|&r| b[r * k..(r + 1) * k].to_vec())
        .collect();
    for c in 0..k {
        for i in 0..m {
            let s: f64 = (0..i).map(|j| lu_[i * m + j] * x[j * k + c]).sum();
            x[i * k + c] -= s;
        }
        for i in (0..m).rev() {
            let s: f64 = (i + 1..m).map(|j| lu_[i * m + j] * x[j * k + c]).sum();
            x[i * k + c] = (x[i * k + c] - s) / lu_[i * m + i];
        }
    }
    Ok(x)
}

/// The sign and log of the magnitude of the determinant: `(0, -inf)` for a singular matrix.
fn slogdet(a: &[f64], m: usize) -> (f64, f64) {
    let mut lu_ = a.to_vec();
    let mut rows: Vec<usize> = (0..m).collect();
    let Some(swaps) = lu(&mut lu_, m, &mut rows) else {
        return (0.0, f64::NEG_INFINITY);
    };
    let mut sign = if swaps % 2 == 1 { -1.0 } else { 1.0 };
    let mut log = 0.0;
    for i in 0..m {
        let d = lu_[i * m + i];
        if d < 0.0 {
            sign = -sign;
        }
        log += d.abs().ln();
    }
    (sign, log)
}

/// The lower Cholesky factor of row-major `a` (read from its lower triangle).
fn cholesky(a: &[f64], m: usize) -> Result<Vec<f64>> {
    let mut l = vec![0.0; m * m];
    for j in 0..m {
        let d = a[j * m + j] - (0..j).map(|p| l[j * m + p] * l[j * m + p]).sum::<f64>();
        // OpenBLAS's test (NumPy's LAPACK): a NaN passes, and the factor is NaN from there.
        if d <= 0.0 {
            return Err(Error::new(NOT_POSITIVE_DEFINITE));
        }
        let d = d.sqrt();
        l[j * m + j] = d;
        for i in j + 1..m {
            let s: f64 = (0..j).map(|p| l[i * m + p] * l[j * m + p]).sum();
            l[i * m + j] = (a[i * m + j] - s) / d;
        }
    }
    Ok(l)
}

/// The eigenvalues (ascending) and eigenvectors (as columns, row-major) of the symmetric
/// matrix whose lower (or upper) triangle `a` holds, by cyclic Jacobi rotations.
fn eigh(a: &[f64], m: usize, lower: bool) -> (Vec<f64>, Vec<f64>) {
    let mut s: Vec<f64> = (0..m * m)
        .map(|p| {
            let (i, j) = (p / m, p % m);
            if (i >= j) == lower {
                a[p]
            } else {
                a[j * m + i]
            }
        })
        .collect();
    let mut v = identity(m);
    let scale: f64 = s.iter().map(|x| x * x).sum();
    for _ in 0..64 {
        let off: f64 = (0..m * m)
            .filter(|p| p / m != p % m)
            .map(|p| s[p] * s[p])
            .sum();
        // Converged (or NaN, which no rotation improves).
        if off.is_nan() || off <= 1e-30 * scale {
            break;
        }
        for p in 0..m {
            for q in p + 1..m {
                rotate(&mut s, &mut v, m, p, q);
            }
        }
    }
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&i, &j| s[i * m + i].total_cmp(&s[j * m + j]));
    let values = order.iter().map(|&i| s[i * m + i]).collect();
    let vectors = (0..m * m).map(|p| v[(p / m) * m + order[p % m]]).collect();
    (values, vectors)
}

/// One Jacobi rotation zeroing `s[p][q]`: `s = J^T s J`, `v = v J`.
fn rotate(s: &mut [f64], v: &mut [f64], m: usize, p: usize, q: usize) {
    let apq = s[p * m + q];
    if apq == 0.0 {
        return;
    }
    let theta = (s[q * m + q] - s[p * m + p]) / (2.0 * apq);
    let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
    let c = 1.0 / (t * t + 1.0).sqrt();
    let sn = t * c;
    let columns = |x: &mut [f64]| {
        for k in 0..m {
            let (xp, xq) = (x[k * m + p], x[k * m + q]);
            x[k * m + p] = c * xp - sn * xq;
            x[k * m + q] = sn * xp + c * xq;
        }
    };
    columns(s);
    columns(v);
    for k in 0..m {
        let (sp, sq) = (s[p * m + k], s[q * m + k]);
        s[p * m + k] = c * sp - sn * sq;
        s[q * m + k] = sn * sp + c * sq;
    }
}

/// `svd` of each `(m, n)` matrix of the stack `a`, its parts flattened as the op gives them.
fn svd(kind: LinalgKind, a: &HostArray) -> Vec<f64> {
    let d = a.shape.len();
    let (m, n) = (a.shape[d - 2], a.shape[d - 1]);
    let values = floats(&a.elems());
    let count: usize = a.shape[..d - 2].iter().product();
    (0..count)
        .flat_map(|t| svd_one(kind, &values[t * m * n..(t + 1) * m * n], m, n))
        .collect()
}

/// The singular values of `x` (`m x n`) from the eigenvalues of `x.T @ x` (descending), `v`
/// its eigenvectors, `u`'s columns `x @ v / s` completed to an orthonormal set where a value
/// is zero or more columns are asked for.
fn svd_one(kind: LinalgKind, x: &[f64], m: usize, n: usize) -> Vec<f64> {
    let k = m.min(n);
    let gram = product(&rectangular_transpose(x, m, n), n, m, x, n);
    let (values, vectors) = eigh(&gram, n, true);
    let s: Vec<f64> = (0..k).map(|i| values[n - 1 - i].max(0.0).sqrt()).collect();
    if kind == LinalgKind::Svdvals {
        return s;
    }
    let v = |j: usize, c: usize| vectors[c * n + (n - 1 - j)];
    let mut u: Vec<Vec<f64>> = Vec::new();
    for j in (0..k).take_while(|&j| s[j] > 1e-12 * s[0]) {
        u.push(
            (0..m)
                .map(|r| (0..n).map(|c| x[r * n + c] * v(j, c)).sum::<f64>() / s[j])
                .collect(),
        );
    }
    let full = kind == LinalgKind::Svd;
    complete(&mut u, m, if full { m } else { k });
    let rows = if full { n } else { k };
    let mut out: Vec<f64> = (0..m * u.len())
        .map(|p| u[p % u.len()][p / u.len()])
        .collect();
    out.extend(&s);
    out.extend((0..rows * n).map(|p| v(p / n, p % n)));
    out
}

/// Extends the orthonormal columns `cols` of length `m` to `count` by Gram-Schmidt on the
/// unit vectors.
fn complete(cols: &mut Vec<Vec<f64>>, m: usize, count: usize) {
    for e in 0..m {
        if cols.len() >= count {
            return;
        }
        let mut c: Vec<f64> = (0..m).map(|i| f64::from(u8::from(i == e))).collect();
        for q in cols.iter() {
            let dot: f64 = q.iter().zip(&c).map(|(a, b)| a * b).sum();
            c.iter_mut().zip(q).for_each(|(x, q)| *x -= dot * q);
        }
        let norm = c.iter().map(|x| x * x).sum::<f64>().sqrt();
        if norm > 1e-8 {
            cols.push(c.into_iter().map(|x| x / norm).collect());
        }
    }
}
