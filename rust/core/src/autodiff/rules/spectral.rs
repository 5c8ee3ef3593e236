//! Gradients of the spectral factorisations, `eigh`, `eigvalsh` and `svd`, as autograd writes
//! them, over the last two axes (leading axes are a batch). The vectors' signs are LAPACK's, as
//! in the forward pass, so a loss that depends on them gets autograd's gradient too.

use super::linalg::{below_diagonal, identity, square_size};
use crate::autodiff::emit::{static_dims, Emitter};
use crate::error::Result;
use crate::infer::shapes::svd_parts;
use crate::ir::{BinaryOp, Dim, LinalgKind, Op, ReduceKind, ValueId};

/// `eigh` packed as `(..., n + 1, n)`: `a = v diag(w) vᵀ` gives `t = v (diag(gw) + f ∘ vᵀ gv) vᵀ`
/// with `f[i, j] = 1 / (w[j] - w[i])` off the diagonal, folded onto the triangle LAPACK read.
pub fn eigh(e: &mut Emitter, kind: LinalgKind, y: ValueId, g: ValueId) -> Result<ValueId> {
    let n = square_size(e, y, "eigh")?;
    let rows = e.ty(y).ndim() - 2;
    let w = e.slice_axis(y, rows, 0, 1)?;
    let v = e.slice_axis(y, rows, 1, n + 1)?;
    let gw = e.slice_axis(g, rows, 0, 1)?;
    let gv = e.slice_axis(g, rows, 1, n + 1)?;
    let mut t = through_values(e, v, gw)?;
    let vt = e.swap_last(v)?;
    let w_col = e.swap_last(w)?;
    let gaps = e.sub(w, w_col)?;
    let eye = identity(e, n)?;
    let f = off_diagonal_reciprocal(e, gaps, eye)?;
    let inner = e.matmul(vt, gv)?;
    let weighted = e.mul(f, inner)?;
    let left = e.matmul(v, weighted)?;
    let vectors = e.matmul(left, vt)?;
    // Without a cotangent on the vectors the term is left out, as autograd does: equal
    // eigenvalues make `f` infinite, which would turn the zero term into NaN.
    let zero = e.float(0.0)?;
    let moved = e.binary(BinaryOp::Ne, gv, zero)?;
    let moved = e.op(
        Op::Reduce {
            kind: ReduceKind::Any,
            axes: Some(vec![rows, rows + 1]),
            keepdims: true,
        },
        vec![moved],
    )?;
    let vectors = e.op(Op::Where, vec![moved, vectors, zero])?;
    t = e.add(t, vectors)?;
    fold_onto_triangle(e, kind, t, n)
}

/// `eigvalsh`: the values' term of `eigh`, with the vectors of an `eigh` of the same triangle.
pub fn eigvalsh(e: &mut Emitter, kind: LinalgKind, a: ValueId, g: ValueId) -> Result<ValueId> {
    let n = square_size(e, a, "eigvalsh")?;
    let eigh = if kind == LinalgKind::EigvalshUpper {
        LinalgKind::EighUpper
    } else {
        LinalgKind::Eigh
    };
    let both = e.op(Op::Linalg { kind: eigh }, vec![a])?;
    let rows = e.ty(both).ndim() - 2;
    let v = e.slice_axis(both, rows, 1, n + 1)?;
    let gw = e.op(Op::ExpandDims { axes: vec![rows] }, vec![g])?;
    let t = through_values(e, v, gw)?;
    fold_onto_triangle(e, kind, t, n)
}

/// `v diag(gw) vᵀ` for eigenvalue cotangents `gw` of shape `(..., 1, n)`.
fn through_values(e: &mut Emitter, v: ValueId, gw: ValueId) -> Result<ValueId> {
    let scaled = e.mul(v, gw)?;
    let vt = e.swap_last(v)?;
    e.matmul(scaled, vt)
}

/// `1 / d` off the diagonal, 0 on it (`d + eye` keeps the diagonal's division finite).
fn off_diagonal_reciprocal(e: &mut Emitter, d: ValueId, eye: ValueId) -> Result<ValueId> {
    let denominator = e.add(d, eye)?;
    let one = e.float(1.0)?;
    let off = e.sub(one, eye)?;
    e.div(off, denominator)
}

/// LAPACK reads one triangle of the symmetric matrix: the diagonal keeps `t`'s, the triangle
/// read gets `t + tᵀ` and the other nothing, as autograd gives it.
fn fold_onto_triangle(e: &mut Emitter, kind: LinalgKind, t: ValueId, n: usize) -> Result<ValueId> {
    let lower = below_diagonal(e, n)?;
    let read = match kind {
        LinalgKind::EighUpper | LinalgKind::EigvalshUpper => e.swap_last(lower)?,
        _ => lower,
    };
    let tt = e.swap_last(t)?;
    let both = e.add(t, tt)?;
    let zero = e.float(0.0)?;
    let off = e.op(Op::Where, vec![read, both, zero])?;
    let eye = identity(e, n)?;
    let diagonal = e.mul(t, eye)?;
    e.add(off, diagonal)
}

/// The `u`, `s` and `vh` of a packed `svd` (or its cotangent) of `(m, n)` matrices.
struct Parts {
    u: ValueId,
    s: ValueId,
    vh: ValueId,
}

fn unpack(e: &mut Emitter, kind: LinalgKind, packed: ValueId, m: usize, n: usize) -> Result<Parts> {
    let [su, k, sv] = svd_parts(kind, m, n);
    let ty = e.ty(packed);
    let last = ty.ndim() - 1;
    let batch = &ty.shape[..last];
    let matrix = |e: &mut Emitter, start: usize, len: usize, rows: usize, cols: usize| {
        let flat = e.slice_axis(packed, last, start, start + len)?;
        let shape = [batch, &[Dim::Static(rows), Dim::Static(cols)]].concat();
        e.reshape(flat, &shape)
    };
    let u = matrix(e, 0, su, m, su / m)?;
    let vh = matrix(e, su + k, sv, sv / n, n)?;
    let s = e.slice_axis(packed, last, su, su + k)?;
    Ok(Parts { u, s, vh })
}

/// `svd` and `svd_reduced` of `a`, packed in `y`, for the packed cotangent `g`. Full matrices
/// hold bases of the complements besides the `k = min(m, n)` singular vectors; a loss that
/// does not depend on which basis LAPACK chose reaches them through `u uᵀ` alone, which moves
/// their cotangent onto `u` (`gu - u⊥ gu⊥ᵀ u`, and alike for `v`).
pub fn svd(
    e: &mut Emitter,
    kind: LinalgKind,
    a: ValueId,
    y: ValueId,
    g: ValueId,
) -> Result<ValueId> {
    let dims = static_dims(&e.ty(a).shape, "svd")?;
    let (m, n) = (dims[dims.len() - 2], dims[dims.len() - 1]);
    let k = m.min(n);
    let (x, gx) = (unpack(e, kind, y, m, n)?, unpack(e, kind, g, m, n)?);
    let last = e.ty(x.u).ndim() - 1;
    let full = kind == LinalgKind::Svd;
    let (mut u, mut gu) = (x.u, gx.u);
    if full && m > k {
        u = e.slice_axis(x.u, last, 0, k)?;
        gu = e.slice_axis(gx.u, last, 0, k)?;
        let u_rest = e.slice_axis(x.u, last, k, m)?;
        let gu_rest = e.slice_axis(gx.u, last, k, m)?;
        gu = minus_through_complement(e, gu, u_rest, gu_rest, u)?;
    }
    let (mut vh, mut gvh) = (x.vh, gx.vh);
    let mut rest = None;
    if full && n > k {
        vh = e.slice_axis(x.vh, last - 1, 0, k)?;
        gvh = e.slice_axis(gx.vh, last - 1, 0, k)?;
        let vh_rest = e.slice_axis(x.vh, last - 1, k, n)?;
        let gvh_rest = e.slice_axis(gx.vh, last - 1, k, n)?;
        rest = Some((e.swap_last(vh_rest)?, e.swap_last(gvh_rest)?));
    }
    let (v, mut gv) = (e.swap_last(vh)?, e.swap_last(gvh)?);
    if let Some((v_rest, gv_rest)) = rest {
        gv = minus_through_complement(e, gv, v_rest, gv_rest, v)?;
    }
    let vectors = Vectors { u, gu, v, gv };
    reduced(e, &vectors, x.s, gx.s, m, n)
}

/// `g - rest grestᵀ basis`.
fn minus_through_complement(
    e: &mut Emitter,
    g: ValueId,
    rest: ValueId,
    g_rest: ValueId,
    basis: ValueId,
) -> Result<ValueId> {
    let g_rest_t = e.swap_last(g_rest)?;
    let inner = e.matmul(g_rest_t, basis)?;
    let moved = e.matmul(rest, inner)?;
    e.sub(g, moved)
}

/// The singular vectors `u (m, k)`, `v (n, k)` and their cotangents.
struct Vectors {
    u: ValueId,
    gu: ValueId,
    v: ValueId,
    gv: ValueId,
}

/// The reduced svd's gradient (Townsend, "Differentiating the singular value decomposition"):
/// `u [f ∘ (uᵀgu - guᵀu) s + diag(gs) + s f ∘ (vᵀgv - gvᵀv)] vᵀ` with
/// `f[i, j] = 1 / (s[j]² - s[i]²)`, plus the part of `gu` outside `u`'s span (`m > n`), or of
/// `gv` outside `v`'s (`m < n`).
fn reduced(
    e: &mut Emitter,
    x: &Vectors,
    s: ValueId,
    gs: ValueId,
    m: usize,
    n: usize,
) -> Result<ValueId> {
    let k = m.min(n);
    let row = e.ty(s).ndim() - 1;
    let s_row = e.op(Op::ExpandDims { axes: vec![row] }, vec![s])?;
    let s_col = e.op(
        Op::ExpandDims {
            axes: vec![row + 1],
        },
        vec![s],
    )?;
    let gs_col = e.op(
        Op::ExpandDims {
            axes: vec![row + 1],
        },
        vec![gs],
    )?;
    let eye = identity(e, k)?;
    let squares = e.mul(s_row, s_row)?;
    let squares_col = e.swap_last(squares)?;
    let gaps = e.sub(squares, squares_col)?;
    let f = off_diagonal_reciprocal(e, gaps, eye)?;
    let left = skew_weighted(e, f, x.u, x.gu)?;
    let left = e.mul(left, s_row)?;
    let right = skew_weighted(e, f, x.v, x.gv)?;
    let right = e.mul(s_col, right)?;
    let diagonal = e.mul(eye, gs_col)?;
    let core = e.add(left, diagonal)?;
    let core = e.add(core, right)?;
    let vt = e.swap_last(x.v)?;
    let uc = e.matmul(x.u, core)?;
    let mut grad = e.matmul(uc, vt)?;
    if m < n {
        // u s⁻¹ gvᵀ (I - v vᵀ).
        let us = e.div(x.u, s_row)?;
        let gvt = e.swap_last(x.gv)?;
        let p = e.matmul(us, gvt)?;
        let pv = e.matmul(p, x.v)?;
        let inside = e.matmul(pv, vt)?;
        let outside = e.sub(p, inside)?;
        grad = e.add(grad, outside)?;
    } else if m > n {
        // (I - u uᵀ) gu s⁻¹ vᵀ.
        let gus = e.div(x.gu, s_row)?;
        let p = e.matmul(gus, vt)?;
        let ut = e.swap_last(x.u)?;
        let up = e.matmul(ut, p)?;
        let inside = e.matmul(x.u, up)?;
        let outside = e.sub(p, inside)?;
        grad = e.add(grad, outside)?;
    }
    Ok(grad)
}

/// `f ∘ (qᵀ gq - gqᵀ q)`.
fn skew_weighted(e: &mut Emitter, f: ValueId, q: ValueId, gq: ValueId) -> Result<ValueId> {
    let qt = e.swap_last(q)?;
    let inner = e.matmul(qt, gq)?;
    let inner_t = e.swap_last(inner)?;
    let skew = e.sub(inner, inner_t)?;
    e.mul(f, skew)
}

/// The singular values alone: `u diag(gs) vh`, with `u` and `vh` of a reduced svd of `a`.
pub fn svdvals(e: &mut Emitter, a: ValueId, gs: ValueId) -> Result<ValueId> {
    let dims = static_dims(&e.ty(a).shape, "svdvals")?;
    let (m, n) = (dims[dims.len() - 2], dims[dims.len() - 1]);
    let kind = LinalgKind::SvdReduced;
    let packed = e.op(Op::Linalg { kind }, vec![a])?;
    let parts = unpack(e, kind, packed, m, n)?;
    let row = e.ty(gs).ndim() - 1;
    let gs_row = e.op(Op::ExpandDims { axes: vec![row] }, vec![gs])?;
    let scaled = e.mul(parts.u, gs_row)?;
    e.matmul(scaled, parts.vh)
}
