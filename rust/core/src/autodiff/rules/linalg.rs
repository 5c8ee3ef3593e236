//! Gradients of `np.linalg` functions, as autograd and JAX write them, over the last two axes
//! (leading axes are a batch). Each is written with the linalg ops themselves, so a joint graph
//! runs them through the same LAPACK routines as the forward pass.

use super::no_rule;
use crate::autodiff::emit::{static_dims, Emitter};
use crate::error::Result;
use crate::ir::{LinalgKind, Op, ValueId};

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
                let product = e.op(Op::Matmul, vec![gb, xt])?;
                Some(e.neg(product)?)
            } else {
                None
            };
            Ok(vec![ga, wanted[1].then_some(gb)])
        }
        // y = a⁻¹: ga = -yᵀ g yᵀ.
        LinalgKind::Inv => {
            let yt = e.swap_last(y)?;
            let left = e.op(Op::Matmul, vec![yt, g])?;
            let product = e.op(Op::Matmul, vec![left, yt])?;
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
            let shape = static_dims(&e.ty(g).shape, "slogdet")?;
            let n = shape.len();
            let mut start = vec![0i64; n];
            let stop: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
            start[n - 1] = 1;
            let log_part = e.op(
                Op::Slice {
                    start,
                    stop,
                    step: vec![1; n],
                },
                vec![g],
            )?;
            let scale = e.op(Op::Squeeze { axes: vec![n - 1] }, vec![log_part])?;
            Ok(vec![Some(times_inverse_transposed(e, x[0], scale)?)])
        }
        _ => Err(no_rule(kind.name())),
    }
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
