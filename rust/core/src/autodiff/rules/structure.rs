//! Rules of the ops that move or combine elements: reductions, views, slices, concatenation
//! and matmul. Each sends the cotangent back to where its elements came from.

use crate::error::{Error, Result};
use crate::infer::shapes;
use crate::ir::{BinaryOp, Dim, Op, ReduceKind, Scalar, Type, ValueId};

use super::super::emit::{reduced_count, static_dims, Emitter};

/// `sum mean prod max min` over `axes`; `any`/`all` give bools and pass nothing.
pub fn reduce(
    e: &mut Emitter,
    kind: ReduceKind,
    x: ValueId,
    y: ValueId,
    g: ValueId,
    axes: Option<&[usize]>,
    keepdims: bool,
) -> Result<Option<ValueId>> {
    let shape = e.ty(x).shape;
    let spread = |e: &mut Emitter, v: ValueId| e.unreduce(v, &shape, axes, keepdims);
    let grad = match kind {
        ReduceKind::Sum => spread(e, g)?,
        ReduceKind::Mean => {
            let gb = spread(e, g)?;
            match reduced_count(&shape, axes, kind.name()) {
                Ok(n) => e.scale(gb, 1.0 / n as f64)?,
                // Over a symbolic dim the count is known only at run time: the sum of ones
                // over the reduced axes (exact in the cotangent's dtype up to its mantissa).
                Err(_) => {
                    let dtype = e.ty(gb).dtype;
                    let ones = e.op(
                        Op::Full {
                            value: Scalar::Int(1),
                            dtype,
                            shape: shape.clone(),
                        },
                        vec![],
                    )?;
                    let count = e.sum(ones, axes.map(<[usize]>::to_vec), true)?;
                    let count = e.broadcast(count, &shape)?;
                    e.div(gb, count)?
                }
            }
        }
        ReduceKind::Prod => prod_grad(e, x, g, &shape, axes, keepdims)?,
        // The cotangent is shared equally by the elements equal to the extremum, as JAX does.
        ReduceKind::Max | ReduceKind::Min => {
            let dtype = e.ty(g).dtype;
            let yb = spread(e, y)?;
            let hit = e.binary(BinaryOp::Eq, x, yb)?;
            let hit = e.cast(hit, dtype)?;
            let count = e.sum(hit, axes.map(<[usize]>::to_vec), true)?;
            let count = e.broadcast(count, &shape)?;
            let gb = spread(e, g)?;
            let share = e.div(gb, count)?;
            e.mul(share, hit)?
        }
        ReduceKind::Any | ReduceKind::All => return Ok(None),
    };
    Ok(Some(grad))
}

/// d(prod)/dx_i is the product of the other elements: `prod / x_i` without zeros; with one
/// zero, the product of the nonzero elements at the zero and 0 elsewhere; with more, 0.
fn prod_grad(
    e: &mut Emitter,
    x: ValueId,
    g: ValueId,
    shape: &[Dim],
    axes: Option<&[usize]>,
    keepdims: bool,
) -> Result<ValueId> {
    let dtype = e.ty(x).dtype;
    let zero = e.float(0.0)?;
    let one = e.float(1.0)?;
    let is_zero = e.binary(BinaryOp::Eq, x, zero)?;
    let nonzero = e.op(Op::Where, vec![is_zero, one, x])?;
    let reduce = |kind| Op::Reduce {
        kind,
        axes: axes.map(<[usize]>::to_vec),
        keepdims: true,
    };
    let others = e.op(reduce(ReduceKind::Prod), vec![nonzero])?;
    let zeros = e.cast(is_zero, dtype)?;
    let zeros = e.op(reduce(ReduceKind::Sum), vec![zeros])?;
    let others = e.broadcast(others, shape)?;
    let zeros = e.broadcast(zeros, shape)?;
    let no_zero = e.binary(BinaryOp::Eq, zeros, zero)?;
    let one_zero = e.binary(BinaryOp::Eq, zeros, one)?;
    let lone_zero = e.binary(BinaryOp::LogicalAnd, one_zero, is_zero)?;
    let at_lone_zero = e.op(Op::Where, vec![lone_zero, others, zero])?;
    let without_x = e.div(others, nonzero)?;
    let slope = e.op(Op::Where, vec![no_zero, without_x, at_lone_zero])?;
    let gb = e.unreduce(g, shape, axes, keepdims)?;
    e.mul(gb, slope)
}

/// The views that keep every element once: the inverse view of the cotangent.
pub fn view(e: &mut Emitter, op: &Op, x: ValueId, g: ValueId) -> Result<ValueId> {
    let shape = e.ty(x).shape;
    match op {
        Op::Reshape { .. } => e.reshape(g, &shape),
        Op::Transpose { perm } => {
            let mut inverse = vec![0; perm.len()];
            for (i, &p) in perm.iter().enumerate() {
                inverse[p] = i;
            }
            e.op(Op::Transpose { perm: inverse }, vec![g])
        }
        Op::BroadcastTo { .. } => e.unbroadcast(g, &shape),
        Op::ExpandDims { axes } => e.op(Op::Squeeze { axes: axes.clone() }, vec![g]),
        Op::Squeeze { axes } => e.op(Op::ExpandDims { axes: axes.clone() }, vec![g]),
        Op::Flip { axes } => e.op(Op::Flip { axes: axes.clone() }, vec![g]),
        other => Err(super::no_rule(other.name())),
    }
}

/// `x[start:stop:step, ...]`: the cotangent placed back among zeros, axis by axis (spread out
/// by interleaving zeros for steps other than 1, then padded with zeros on both sides).
pub fn slice(
    e: &mut Emitter,
    x: ValueId,
    g: ValueId,
    start: &[i64],
    stop: &[i64],
    step: &[i64],
) -> Result<ValueId> {
    let xty = e.ty(x);
    let gty = e.ty(g);
    let is_static = |a: &usize| !xty.shape[*a].is_symbolic();
    let sliced: Vec<usize> = (0..xty.ndim()).filter(is_static).collect();
    let static_of = |ty: &Type| -> Result<Vec<usize>> {
        let kept: Vec<Dim> = sliced.iter().map(|&a| ty.shape[a].clone()).collect();
        static_dims(&kept, "slice")
    };
    let (dims, gdims) = (static_of(&xty)?, static_of(&gty)?);
    if gdims.contains(&0) || gty.shape.contains(&Dim::Static(0)) {
        return e.zeros(&xty.with_dtype(gty.dtype));
    }
    let mut g = g;
    for (k, &axis) in sliced.iter().enumerate() {
        let (n, m) = (dims[k], gdims[k]);
        let stride = step[axis].unsigned_abs() as usize;
        let lo = if step[axis] < 0 {
            g = e.op(Op::Flip { axes: vec![axis] }, vec![g])?;
            start[axis] as usize - (m - 1) * stride
        } else {
            start[axis] as usize
        };
        if stride > 1 {
            g = interleave_zeros(e, g, axis, stride)?;
        }
        let span = (m - 1) * stride + 1;
        let after = n.saturating_sub(lo + span);
        g = pad_along(e, g, axis, Dim::Static(lo), Dim::Static(after))?;
    }
    // A symbolic axis (step 1) is padded by what lies before and after its bounds, each
    // static or the dim less a constant (`shapes.rs: resolve_bound`); taken whole, by nothing.
    for axis in (0..xty.ndim()).filter(|a| !is_static(a)) {
        let n = &xty.shape[axis];
        let side = |bound: i64, front: bool| -> Result<Dim> {
            let from_end = bound < 0;
            let dim = match (front, from_end) {
                (true, false) => Some(Dim::Static(bound as usize)),
                (true, true) => n.plus(1 + bound),
                (false, true) => Some(Dim::Static((-1 - bound) as usize)),
                (false, false) => n.plus(-bound),
            };
            dim.ok_or_else(|| Error::new(format!("slice of the symbolic dim {n} past its size")))
        };
        let (lo, hi) = (side(start[axis], true)?, side(stop[axis], false)?);
        g = pad_along(e, g, axis, lo, hi)?;
    }
    Ok(g)
}

/// `g` with zeros of `before` and `after` elements on either side along `axis`.
fn pad_along(e: &mut Emitter, g: ValueId, axis: usize, before: Dim, after: Dim) -> Result<ValueId> {
    let mut parts = Vec::new();
    if before != Dim::Static(0) {
        parts.push(zeros_dim(e, g, axis, before)?);
    }
    parts.push(g);
    if after != Dim::Static(0) {
        parts.push(zeros_dim(e, g, axis, after)?);
    }
    if parts.len() == 1 {
        return Ok(g);
    }
    e.op(Op::Concatenate { axis }, parts)
}

/// `g` with `stride - 1` zeros after each element along `axis`, the trailing ones cut off.
fn interleave_zeros(e: &mut Emitter, g: ValueId, axis: usize, stride: usize) -> Result<ValueId> {
    let shape = e.ty(g).shape;
    let m = shape[axis].as_static().unwrap_or(0);
    let column = e.op(
        Op::ExpandDims {
            axes: vec![axis + 1],
        },
        vec![g],
    )?;
    let gap = zeros_along(e, column, axis + 1, stride - 1)?;
    let wide = e.op(Op::Concatenate { axis: axis + 1 }, vec![column, gap])?;
    let mut flat = shape.clone();
    flat[axis] = Dim::Static(m * stride);
    let flat_v = e.reshape(wide, &flat)?;
    let ndim = shape.len();
    let mut lo = vec![0i64; ndim];
    let mut hi: Vec<i64> = flat
        .iter()
        .map(|d| d.as_static().unwrap_or(0) as i64)
        .collect();
    let steps = vec![1i64; ndim];
    lo[axis] = 0;
    hi[axis] = ((m - 1) * stride + 1) as i64;
    e.op(
        Op::Slice {
            start: lo,
            stop: hi,
            step: steps,
        },
        vec![flat_v],
    )
}

/// Zeros shaped like `like` except `len` along `axis`.
fn zeros_along(e: &mut Emitter, like: ValueId, axis: usize, len: usize) -> Result<ValueId> {
    zeros_dim(e, like, axis, Dim::Static(len))
}

/// Zeros shaped like `like` except `dim` along `axis`.
fn zeros_dim(e: &mut Emitter, like: ValueId, axis: usize, dim: Dim) -> Result<ValueId> {
    let mut ty = e.ty(like);
    ty.shape[axis] = dim;
    ty.weak = false;
    e.zeros(&ty)
}

/// `concatenate`: each operand gets its slice of the cotangent.
pub fn concatenate(
    e: &mut Emitter,
    xs: &[ValueId],
    g: ValueId,
    axis: usize,
) -> Result<Vec<Option<ValueId>>> {
    let mut offset = 0usize;
    let mut grads = Vec::with_capacity(xs.len());
    for &x in xs {
        let len = static_dims(&e.ty(x).shape, "concatenate")?[axis];
        grads.push(Some(e.slice_axis(g, axis, offset, offset + len)?));
        offset += len;
    }
    Ok(grads)
}

/// `C = A @ B`: `dA = dC @ B^T`, `dB = A^T @ dC`, with 1-D operands promoted to matrices as
/// NumPy does and broadcast batch dims summed back.
pub fn matmul(
    e: &mut Emitter,
    a: ValueId,
    b: ValueId,
    g: ValueId,
    wanted: &[bool],
) -> Result<Vec<Option<ValueId>>> {
    let (aty, bty) = (e.ty(a), e.ty(b));
    let a2 = if aty.ndim() == 1 {
        e.reshape(a, &[Dim::Static(1), aty.shape[0].clone()])?
    } else {
        a
    };
    let b2 = if bty.ndim() == 1 {
        e.reshape(b, &[bty.shape[0].clone(), Dim::Static(1)])?
    } else {
        b
    };
    let out2 = shapes::matmul(&e.ty(a2).shape, &e.ty(b2).shape)?;
    let g2 = e.reshape(g, &out2)?;
    let ga = if wanted[0] {
        let bt = e.swap_last(b2)?;
        let ga2 = e.op(Op::Matmul, vec![g2, bt])?;
        let ga2 = e.unbroadcast(ga2, &e.ty(a2).shape)?;
        Some(e.reshape(ga2, &aty.shape)?)
    } else {
        None
    };
    let gb = if wanted[1] {
        let at = e.swap_last(a2)?;
        let gb2 = e.op(Op::Matmul, vec![at, g2])?;
        let gb2 = e.unbroadcast(gb2, &e.ty(b2).shape)?;
        Some(e.reshape(gb2, &bty.shape)?)
    } else {
        None
    };
    Ok(vec![ga, gb])
}
