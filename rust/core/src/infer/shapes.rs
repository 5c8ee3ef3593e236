//! Result shapes: broadcasting with static and symbolic dims, reductions, views, matmul,
//! concatenate and the `np.linalg` functions.

use crate::error::{Error, Result};
use crate::ir::{Dim, LinalgKind};

/// `(2,s0,3)` as NumPy prints shapes, for error messages.
pub fn show(shape: &[Dim]) -> String {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    if dims.len() == 1 {
        format!("({},)", dims[0])
    } else {
        format!("({})", dims.join(","))
    }
}

/// Broadcast two dims: equal dims and 1 against anything broadcast; a symbol against a
/// different symbol or a static size other than 1 is rejected, since it would need a run-time
/// assumption that the graph cannot record.
fn broadcast_dim(a: &Dim, b: &Dim) -> Option<Dim> {
    match (a, b) {
        _ if a == b => Some(a.clone()),
        (Dim::Static(1), _) => Some(b.clone()),
        (_, Dim::Static(1)) => Some(a.clone()),
        _ => None,
    }
}

/// The broadcast shape of several operand shapes (NumPy's rules, right-aligned).
pub fn broadcast(shapes: &[&[Dim]]) -> Result<Vec<Dim>> {
    let ndim = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = vec![Dim::Static(1); ndim];
    for shape in shapes {
        let offset = ndim - shape.len();
        for (i, d) in shape.iter().enumerate() {
            out[offset + i] = broadcast_dim(&out[offset + i], d).ok_or_else(|| {
                let all: Vec<String> = shapes.iter().map(|s| show(s)).collect();
                let symbolic = out[offset + i].is_symbolic() || d.is_symbolic();
                let why = if symbolic {
                    " (a symbolic dim broadcasts only with itself or 1)"
                } else {
                    ""
                };
                Error::new(format!(
                    "operands could not be broadcast together with shapes {}{why}",
                    all.join(" ")
                ))
            })?;
        }
    }
    Ok(out)
}

/// Check that axes are sorted, distinct and below `ndim`.
pub fn check_axes(what: &str, axes: &[usize], ndim: usize) -> Result<()> {
    for (i, &a) in axes.iter().enumerate() {
        if a >= ndim {
            return Err(Error::new(format!(
                "{what} {a} is out of bounds for {ndim} dimension(s)"
            )));
        }
        if i > 0 && axes[i - 1] >= a {
            return Err(Error::new(format!(
                "{what} list {axes:?} must be sorted and without repeats"
            )));
        }
    }
    Ok(())
}

/// The shape after reducing `axes` (all when `None`).
pub fn reduce(shape: &[Dim], axes: Option<&[usize]>, keepdims: bool) -> Result<Vec<Dim>> {
    let all: Vec<usize> = (0..shape.len()).collect();
    let axes = axes.unwrap_or(&all);
    check_axes("axis", axes, shape.len())?;
    Ok(shape
        .iter()
        .enumerate()
        .filter_map(|(i, d)| match (axes.contains(&i), keepdims) {
            (false, _) => Some(d.clone()),
            (true, true) => Some(Dim::Static(1)),
            (true, false) => None,
        })
        .collect())
}

/// The number of elements of a shape, as a size in normal form (`4*s0` for `[s0, 4]`).
pub fn element_count(shape: &[Dim]) -> Option<Dim> {
    shape.iter().try_fold(Dim::Static(1), |n, d| n.product(d))
}

/// Check a reshape keeps the number of elements (equal as sizes in normal form).
pub fn reshape(from: &[Dim], to: &[Dim]) -> Result<Vec<Dim>> {
    let count = element_count(from);
    if count.is_none() || count != element_count(to) {
        return Err(Error::new(format!(
            "cannot reshape an array of shape {} into shape {}",
            show(from),
            show(to)
        )));
    }
    Ok(to.to_vec())
}

/// The shape after `np.transpose(x, perm)`.
pub fn transpose(shape: &[Dim], perm: &[usize]) -> Result<Vec<Dim>> {
    let mut seen = vec![false; shape.len()];
    if perm.len() != shape.len() {
        return Err(Error::new(format!(
            "perm {perm:?} does not match {} dimension(s)",
            shape.len()
        )));
    }
    for &p in perm {
        if p >= shape.len() || std::mem::replace(&mut seen[p], true) {
            return Err(Error::new(format!(
                "perm {perm:?} is not a permutation of the axes"
            )));
        }
    }
    Ok(perm.iter().map(|&p| shape[p].clone()).collect())
}

/// Check `np.broadcast_to(x, to)` is valid.
pub fn broadcast_to(from: &[Dim], to: &[Dim]) -> Result<Vec<Dim>> {
    let ok = from.len() <= to.len()
        && from
            .iter()
            .zip(&to[to.len() - from.len()..])
            .all(|(f, t)| f == t || *f == Dim::Static(1));
    if !ok {
        return Err(Error::new(format!(
            "cannot broadcast a shape {} to {}",
            show(from),
            show(to)
        )));
    }
    Ok(to.to_vec())
}

/// The shape after inserting size-1 axes at `axes` of the result.
pub fn expand_dims(shape: &[Dim], axes: &[usize]) -> Result<Vec<Dim>> {
    let ndim = shape.len() + axes.len();
    check_axes("axis", axes, ndim)?;
    let mut rest = shape.iter();
    Ok((0..ndim)
        .map(|i| {
            if axes.contains(&i) {
                Dim::Static(1)
            } else {
                rest.next().cloned().unwrap_or(Dim::Static(1))
            }
        })
        .collect())
}

/// The shape after removing the size-1 axes `axes`.
pub fn squeeze(shape: &[Dim], axes: &[usize]) -> Result<Vec<Dim>> {
    check_axes("axis", axes, shape.len())?;
    for &a in axes {
        if shape[a] != Dim::Static(1) {
            return Err(Error::new(format!("cannot select an axis to squeeze out which has size not equal to one (axis {a} has size {})", shape[a])));
        }
    }
    Ok(shape
        .iter()
        .enumerate()
        .filter(|(i, _)| !axes.contains(i))
        .map(|(_, d)| d.clone())
        .collect())
}

/// The length of `range(start, stop, step)`, for values normalised by `slice.indices(n)`.
pub fn slice_len(n: usize, start: i64, stop: i64, step: i64) -> Result<usize> {
    let n = i64::try_from(n).map_err(|_| Error::new("dimension too large"))?;
    let valid = match step {
        0 => false,
        s if s > 0 => (0..=n).contains(&start) && (0..=n).contains(&stop),
        _ => (-1..n).contains(&start) && (-1..n).contains(&stop),
    };
    if !valid {
        return Err(Error::new(format!(
            "slice {start}:{stop}:{step} is not normalised for a dimension of size {n} (as slice.indices gives)"
        )));
    }
    let len = if step > 0 && stop > start {
        (stop - start - 1) / step + 1
    } else if step < 0 && start > stop {
        (start - stop - 1) / (-step) + 1
    } else {
        0
    };
    Ok(len as usize)
}

/// Whether `start:stop:step` is the whole of a symbolic dim, written `0:-1:1` (see
/// [`resolve_bound`]).
pub fn whole_symbolic(start: i64, stop: i64, step: i64) -> bool {
    (start, stop, step) == (0, -1, 1)
}

/// Where a slice bound along an axis of `size` lies. Bounds along static axes are normalised
/// (as `slice.indices` gives), so only a negative step's stop is negative there (-1: before the
/// front). Along a symbolic axis, whose size is not known, a negative bound with a positive
/// step counts from the end: `-1` is the end itself, `-2` one before it (`size + 1 + bound`).
pub fn resolve_bound(bound: i64, size: usize, step: i64) -> i64 {
    if step > 0 && bound < 0 {
        size as i64 + 1 + bound
    } else {
        bound
    }
}

/// A slice's bounds with those counted from the end ([`resolve_bound`]) resolved for the
/// operand's sizes.
pub fn resolve_slice(
    shape: &[usize],
    start: &[i64],
    stop: &[i64],
    step: &[i64],
) -> (Vec<i64>, Vec<i64>) {
    let resolve = |bounds: &[i64]| -> Vec<i64> {
        bounds
            .iter()
            .zip(shape.iter().zip(step))
            .map(|(&b, (&n, &s))| resolve_bound(b, n, s))
            .collect()
    };
    (resolve(start), resolve(stop))
}

/// The length of a slice of a symbolic dim `d` (step 1 only): between two bounds counted from
/// the same side a static length, from the front to one counted from the end `d` less a
/// constant. The guards keep `d` large enough for the bounds (`capture`'s size minimums).
fn symbolic_slice(d: &Dim, start: i64, stop: i64, step: i64) -> Option<Dim> {
    if step != 1 {
        return None;
    }
    match (start >= 0, stop >= 0) {
        (true, true) | (false, false) => Some(Dim::Static((stop - start).max(0) as usize)),
        (true, false) => d.plus(1 + stop - start),
        (false, true) => None,
    }
}

/// The shape of a slice; a symbolic dim takes step 1 with bounds from the front or counted
/// from its end ([`resolve_bound`]).
pub fn slice(shape: &[Dim], start: &[i64], stop: &[i64], step: &[i64]) -> Result<Vec<Dim>> {
    if start.len() != shape.len() || stop.len() != shape.len() || step.len() != shape.len() {
        return Err(Error::new(format!(
            "slice needs one start, stop and step per axis ({} axes)",
            shape.len()
        )));
    }
    shape
        .iter()
        .enumerate()
        .map(|(i, d)| match d {
            Dim::Static(n) => slice_len(*n, start[i], stop[i], step[i]).map(Dim::Static),
            symbolic => symbolic_slice(symbolic, start[i], stop[i], step[i]).ok_or_else(|| {
                Error::new(format!(
                    "slice {}:{}:{} of the symbolic dim {symbolic} (axis {i}): a symbolic dim takes step 1, bounds from the front or from the end (a negative bound, -1 the end), and none from the end before one from the front",
                    start[i], stop[i], step[i]
                ))
            }),
        })
        .collect()
}

/// The shape of `np.matmul(a, b)`, 1-D operands promoted and squeezed as NumPy does.
pub fn matmul(a: &[Dim], b: &[Dim]) -> Result<Vec<Dim>> {
    if a.is_empty() || b.is_empty() {
        return Err(Error::new(
            "matmul: input operand does not have enough dimensions (0-d operands are not allowed)",
        ));
    }
    let (a_vec, b_vec) = (a.len() == 1, b.len() == 1);
    let a2: Vec<Dim> = if a_vec {
        vec![Dim::Static(1), a[0].clone()]
    } else {
        a.to_vec()
    };
    let b2: Vec<Dim> = if b_vec {
        vec![b[0].clone(), Dim::Static(1)]
    } else {
        b.to_vec()
    };
    let (m, k) = (&a2[a2.len() - 2], &a2[a2.len() - 1]);
    let (k2, n) = (&b2[b2.len() - 2], &b2[b2.len() - 1]);
    if k != k2 {
        return Err(Error::new(format!(
            "matmul: core dimension mismatch between shapes {} and {} ({k} != {k2})",
            show(a),
            show(b)
        )));
    }
    let mut out = broadcast(&[&a2[..a2.len() - 2], &b2[..b2.len() - 2]])?;
    if !a_vec {
        out.push(m.clone());
    }
    if !b_vec {
        out.push(n.clone());
    }
    Ok(out)
}

/// The shape of an `np.linalg` function of stacks of square matrices `a` (and, for `solve`,
/// right-hand sides `b` of shape `(..., m, k)`, the batch broadcast with `a`'s).
pub fn linalg(kind: LinalgKind, a: &[Dim], b: Option<&[Dim]>) -> Result<Vec<Dim>> {
    let name = kind.name();
    match kind {
        LinalgKind::Lstsq => return lstsq(a, b.unwrap_or_default()),
        LinalgKind::Svd | LinalgKind::SvdReduced | LinalgKind::Svdvals => return svd(kind, a),
        _ => {}
    }
    let n = a.len();
    if n < 2 || a[n - 2] != a[n - 1] {
        return Err(Error::new(format!(
            "{name}: the last 2 dimensions of {} must be square",
            show(a)
        )));
    }
    let (batch, m) = (&a[..n - 2], &a[n - 1]);
    let core = match (kind, b) {
        (LinalgKind::Solve, Some(b)) => {
            let nb = b.len();
            if nb < 2 || &b[nb - 2] != m {
                return Err(Error::new(format!(
                    "solve: right-hand sides {} do not match the matrices {}",
                    show(b),
                    show(a)
                )));
            }
            let mut out = broadcast(&[batch, &b[..nb - 2]])?;
            out.extend_from_slice(&b[nb - 2..]);
            return Ok(out);
        }
        (LinalgKind::Solve, None) => return Err(Error::new("solve takes 2 operands")),
        (LinalgKind::Inv | LinalgKind::Cholesky | LinalgKind::CholeskyUpper, _) => {
            vec![m.clone(), m.clone()]
        }
        (LinalgKind::Det, _) => vec![],
        (LinalgKind::Slogdet, _) => vec![Dim::Static(2)],
        (LinalgKind::Eigh | LinalgKind::EighUpper, _) => {
            let rows = match m {
                Dim::Static(n) => Dim::Static(n + 1),
                _ => return Err(Error::new(format!("{name} of symbolic size {m}"))),
            };
            vec![rows, m.clone()]
        }
        (LinalgKind::Eigvalsh | LinalgKind::EigvalshUpper, _) => vec![m.clone()],
        (LinalgKind::Lstsq, _) => return lstsq(a, b.unwrap_or_default()),
        (LinalgKind::Svd | LinalgKind::SvdReduced | LinalgKind::Svdvals, _) => return svd(kind, a),
    };
    Ok([batch, &core].concat())
}

/// The sizes of `u`, `s` and `vh` in an `svd` of `(m, n)` matrices (none for `svdvals`).
pub fn svd_parts(kind: LinalgKind, m: usize, n: usize) -> [usize; 3] {
    let k = m.min(n);
    match kind {
        LinalgKind::Svd => [m * m, k, n * n],
        LinalgKind::SvdReduced => [m * k, k, k * n],
        _ => [0, k, 0],
    }
}

/// An `svd` of stacks of `(m, n)` matrices of static sizes: its parts flattened into a last
/// axis.
fn svd(kind: LinalgKind, a: &[Dim]) -> Result<Vec<Dim>> {
    let d = a.len();
    let sizes = (d >= 2).then(|| (a[d - 2].as_static(), a[d - 1].as_static()));
    let Some((Some(m), Some(n))) = sizes else {
        return Err(Error::new(format!(
            "{} takes (..., m, n) matrices of static sizes, found {}",
            kind.name(),
            show(a)
        )));
    };
    let mut shape = a[..d - 2].to_vec();
    shape.push(Dim::Static(svd_parts(kind, m, n).iter().sum()));
    Ok(shape)
}

/// `lstsq` of an `(m, n)` matrix and `(m, k)` right-hand sides, static sizes: the solution,
/// residuals and singular values flattened, `n * k + k + min(m, n)` elements.
fn lstsq(a: &[Dim], b: &[Dim]) -> Result<Vec<Dim>> {
    let sizes: Option<Vec<usize>> = a.iter().chain(b).map(Dim::as_static).collect();
    match (sizes.as_deref(), a.len(), b.len()) {
        (Some(&[m, n, m2, k]), 2, 2) if m == m2 => Ok(vec![Dim::Static(n * k + k + m.min(n))]),
        _ => Err(Error::new(format!(
            "lstsq takes an (m, n) matrix and (m, k) right-hand sides of static sizes, found {} and {}",
            show(a),
            show(b)
        ))),
    }
}

/// The shape of `np.concatenate(xs, axis)`: the joined axis is the sum of the operands'
/// (`[x[1:], zeros(1)]` joins to `s0`, `[x, x]` to `2*s0`).
pub fn concatenate(shapes: &[&[Dim]], axis: usize) -> Result<Vec<Dim>> {
    let first = shapes
        .first()
        .ok_or_else(|| Error::new("concatenate needs at least one operand"))?;
    if first.is_empty() {
        return Err(Error::new("zero-dimensional arrays cannot be concatenated"));
    }
    if axis >= first.len() {
        return Err(Error::new(format!(
            "axis {axis} is out of bounds for {} dimension(s)",
            first.len()
        )));
    }
    let mut joined = Dim::Static(0);
    for (i, shape) in shapes.iter().enumerate() {
        if shape.len() != first.len() {
            return Err(Error::new(format!(
                "all the input arrays must have same number of dimensions, but operand 0 has {} and operand {i} has {}",
                first.len(),
                shape.len()
            )));
        }
        for (j, (d, f)) in shape.iter().zip(first.iter()).enumerate() {
            if j != axis && d != f {
                return Err(Error::new(format!(
                    "all the input array dimensions except for the concatenation axis must match exactly, but along dimension {j}, operand 0 has size {f} and operand {i} has size {d}"
                )));
            }
        }
        joined = joined.sum(&shape[axis]).ok_or_else(|| {
            Error::new(format!(
                "concatenate: {joined} + {} is a negative size",
                shape[axis]
            ))
        })?;
    }
    let mut out = first.to_vec();
    out[axis] = joined;
    Ok(out)
}
