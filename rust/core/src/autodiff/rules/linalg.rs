//! Gradients of `np.linalg` functions, as autograd and JAX write them, over the last two axes
//! (leading axes are a batch). Each is written with the linalg ops themselves, so a joint graph
//! runs them through the same LAPACK routines as the forward pass.

use super::spectral;
use crate::autodiff::emit::{static_dims, Emitter};
use crate::error::Result;
use crate::ir::{BinaryOp, DType, Dim, LinalgKind, Op, Scalar, ValueId};

/// The cotangents of `kind(x...)` = `y` for cotangent `g`.
pub fn linalg(
    e: &mut Emitter,
    kind: LinalgKind,
    x: &[ValueId],
    y: ValueId,
    g: ValueId,
    wanted: &[bool],
) -> Result<Vec<Option<ValueId>>> {
    match kind {
        // x = a⁻¹ b: gb = a⁻ᵀ g, ga = -gb xᵀ.
        LinalgKind::Solve => {
            let at = e.swap_last(x[0])?;
            let gb = e.op(Op::Linalg { kind }, vec![at, g])?;
            let ga = if wanted[0] {
                let xt = e.swap_last(y)?;
                let product = e.matmul(gb, xt)?;
                Some(e.neg(product)?)
            } else {
                None
            };
            Ok(vec![ga, wanted[1].then_some(gb)])
        }
        // y = a⁻¹: ga = -yᵀ g yᵀ.
        LinalgKind::Inv => {
            let yt = e.swap_last(y)?;
            let left = e.matmul(yt, g)?;
            let product = e.matmul(left, yt)?;
            Ok(vec![Some(e.neg(product)?)])
        }
        // d(det a) = det a · tr(a⁻¹ da): ga = g det(a) a⁻ᵀ.
        LinalgKind::Det => {
            let scale = e.mul(g, y)?;
            Ok(vec![Some(times_inverse_transposed(e, x[0], scale)?)])
        }
        // Only the log of the determinant's magnitude (element 1 of the last axis) carries a
        // gradient: ga = g[..., 1] a⁻ᵀ.
        LinalgKind::Slogdet => {
            let n = e.ty(g).ndim();
            let log_part = e.slice_axis(g, n - 1, 1, 2)?;
            let scale = e.op(Op::Squeeze { axes: vec![n - 1] }, vec![log_part])?;
            Ok(vec![Some(times_inverse_transposed(e, x[0], scale)?)])
        }
        LinalgKind::Cholesky => Ok(vec![Some(cholesky(e, y, g)?)]),
        // u = lᵀ: the rule of the lower factor with its cotangent transposed.
        LinalgKind::CholeskyUpper => {
            let l = e.swap_last(y)?;
            let gl = e.swap_last(g)?;
            Ok(vec![Some(cholesky(e, l, gl)?)])
        }
        LinalgKind::Eigh | LinalgKind::EighUpper => Ok(vec![Some(spectral::eigh(e, kind, y, g)?)]),
        LinalgKind::Eigvalsh | LinalgKind::EigvalshUpper => {
            Ok(vec![Some(spectral::eigvalsh(e, kind, x[0], g)?)])
        }
        LinalgKind::Svd | LinalgKind::SvdReduced => {
            Ok(vec![Some(spectral::svd(e, kind, x[0], y, g)?)])
        }
        LinalgKind::Svdvals => Ok(vec![Some(spectral::svdvals(e, x[0], g)?)]),
        LinalgKind::Lstsq => lstsq(e, x, y, g),
    }
}

/// `a = l lᵀ` (Murray, arXiv:1602.07527, as autograd writes it): `s = l⁻ᵀ Φ(lᵀ g) l⁻¹` with
/// `Φ` the lower triangle, its diagonal halved, and the gradient `(s + sᵀ) / 2`. Symmetric, as
/// autograd and JAX give it, although NumPy reads only the lower triangle.
fn cholesky(e: &mut Emitter, l: ValueId, g: ValueId) -> Result<ValueId> {
    let n = square_size(e, l, "cholesky")?;
    let lt = e.swap_last(l)?;
    let p = e.matmul(lt, g)?;
    let below = below_diagonal(e, n)?;
    let zero = e.float(0.0)?;
    let strict = e.op(Op::Where, vec![below, p, zero])?;
    let eye = identity(e, n)?;
    let diagonal = e.mul(p, eye)?;
    let half = e.scale(diagonal, 0.5)?;
    let phi = e.add(strict, half)?;
    // l⁻ᵀ Φ l⁻¹ as two solves with lᵀ: q = l⁻ᵀ Φᵀ, s = l⁻ᵀ qᵀ.
    let phi_t = e.swap_last(phi)?;
    let q = e.op(
        Op::Linalg {
            kind: LinalgKind::Solve,
        },
        vec![lt, phi_t],
    )?;
    let q_t = e.swap_last(q)?;
    let s = e.op(
        Op::Linalg {
            kind: LinalgKind::Solve,
        },
        vec![lt, q_t],
    )?;
    symmetric_part(e, s)
}

/// `(s + sᵀ) / 2`.
fn symmetric_part(e: &mut Emitter, s: ValueId) -> Result<ValueId> {
    let st = e.swap_last(s)?;
    let both = e.add(s, st)?;
    e.scale(both, 0.5)
}

/// `lstsq(a, b, rcond)` of a full-rank `(m, n)` matrix: cotangents of the solution, of the
/// residuals (`m > n`) and of the singular values, summed. The solution is `pinv(a) b`,
/// differentiated through the normal equations of whichever side is square and invertible.
fn lstsq(e: &mut Emitter, x: &[ValueId], y: ValueId, g: ValueId) -> Result<Vec<Option<ValueId>>> {
    let (a, b) = (x[0], x[1]);
    let [m, n] = static_dims(&e.ty(a).shape, "lstsq")?[..] else {
        unreachable!("lstsq takes a matrix")
    };
    let k = static_dims(&e.ty(b).shape, "lstsq")?[1];
    let part = |e: &mut Emitter, v: ValueId, start: usize, len: usize| {
        e.slice_axis(v, 0, start, start + len)
    };
    let solution = part(e, y, 0, n * k)?;
    let solution = e.reshape(solution, &[Dim::Static(n), Dim::Static(k)])?;
    let gx = part(e, g, 0, n * k)?;
    let gx = e.reshape(gx, &[Dim::Static(n), Dim::Static(k)])?;
    let solve = |e: &mut Emitter, lhs: ValueId, rhs: ValueId| {
        e.op(
            Op::Linalg {
                kind: LinalgKind::Solve,
            },
            vec![lhs, rhs],
        )
    };
    let at = e.swap_last(a)?;
    let xt = e.swap_last(solution)?;
    let (mut ga, mut gb) = if m >= n {
        // x = (aᵀa)⁻¹ aᵀ b: with z = (aᵀa)⁻¹ gx, gb = a z and ga = r zᵀ - gb xᵀ (r = b - a x).
        let normal = e.matmul(at, a)?;
        let z = solve(e, normal, gx)?;
        let gb = e.matmul(a, z)?;
        let r = residual(e, a, b, solution)?;
        let zt = e.swap_last(z)?;
        let rz = e.matmul(r, zt)?;
        let gbx = e.matmul(gb, xt)?;
        (e.sub(rz, gbx)?, gb)
    } else {
        // x = aᵀ w, w = (a aᵀ)⁻¹ b: with q = (a aᵀ)⁻¹ a gx, gb = q and
        // ga = w (gx - aᵀ q)ᵀ - q xᵀ.
        let normal = e.matmul(a, at)?;
        let w = solve(e, normal, b)?;
        let agx = e.matmul(a, gx)?;
        let q = solve(e, normal, agx)?;
        let atq = e.matmul(at, q)?;
        let rest = e.sub(gx, atq)?;
        let rest_t = e.swap_last(rest)?;
        let wr = e.matmul(w, rest_t)?;
        let qx = e.matmul(q, xt)?;
        (e.sub(wr, qx)?, q)
    };
    if m > n {
        // Each residual is |b - a x|² at the minimum: the gradient through x vanishes.
        let gr = part(e, g, n * k, k)?;
        let r = residual(e, a, b, solution)?;
        let twice = e.scale(r, 2.0)?;
        let weighted = e.mul(twice, gr)?;
        gb = e.add(gb, weighted)?;
        let product = e.matmul(weighted, xt)?;
        ga = e.sub(ga, product)?;
    }
    let gs = part(e, g, n * k + k, m.min(n))?;
    let through_s = spectral::svdvals(e, a, gs)?;
    ga = e.add(ga, through_s)?;
    Ok(vec![Some(ga), Some(gb), None])
}

/// `b - a x`.
fn residual(e: &mut Emitter, a: ValueId, b: ValueId, x: ValueId) -> Result<ValueId> {
    let ax = e.matmul(a, x)?;
    e.sub(b, ax)
}

/// The size of the square matrices of `x` (static).
pub(super) fn square_size(e: &Emitter, x: ValueId, op: &str) -> Result<usize> {
    let dims = static_dims(&e.ty(x).shape, op)?;
    Ok(dims[dims.len() - 1])
}

/// The `(n, n)` identity in `f64`.
pub(super) fn identity(e: &mut Emitter, n: usize) -> Result<ValueId> {
    e.op(
        Op::Eye {
            k: 0,
            dtype: DType::F64,
            n: Dim::Static(n),
            m: Dim::Static(n),
        },
        vec![],
    )
}

/// The `(n, n)` bool mask of the elements strictly below the diagonal (row > column).
pub(super) fn below_diagonal(e: &mut Emitter, n: usize) -> Result<ValueId> {
    let index = e.op(
        Op::Arange {
            start: Scalar::Int(0),
            step: Scalar::Int(1),
            dtype: DType::I64,
            len: Dim::Static(n),
        },
        vec![],
    )?;
    let rows = e.op(Op::ExpandDims { axes: vec![1] }, vec![index])?;
    e.binary(BinaryOp::Gt, rows, index)
}

/// `scale[..., None, None] * inv(a)ᵀ` for a batch of scales.
fn times_inverse_transposed(e: &mut Emitter, a: ValueId, scale: ValueId) -> Result<ValueId> {
    let inverse = e.op(
        Op::Linalg {
            kind: LinalgKind::Inv,
        },
        vec![a],
    )?;
    let transposed = e.swap_last(inverse)?;
    let n = e.ty(scale).ndim();
    let scale = e.op(
        Op::ExpandDims {
            axes: vec![n, n + 1],
        },
        vec![scale],
    )?;
    e.mul(transposed, scale)
}
