//! Rules of the ops that move elements by index arrays: a gather sends its cotangent back to
//! the positions it read (repeated positions add up), a scatter-add reads its cotangent at the
//! positions it wrote, and a sort is a gather through its argsort permutation. Index arrays
//! are integers and carry no gradient.

use crate::error::Result;
use crate::ir::{DType, Dim, Op, Scalar, ScanKind, ValueId};

use super::super::emit::Emitter;

/// `y = gather(x, i..)`: `dx = scatter_add(g, i..)` into `x`'s shape.
pub fn gather(
    e: &mut Emitter,
    x: &[ValueId],
    g: ValueId,
    axis: usize,
) -> Result<Vec<Option<ValueId>>> {
    let shape = e.ty(x[0]).shape;
    let dx = scatter_add(e, g, &x[1..], axis, shape)?;
    Ok(no_index_gradients(Some(dx), x.len()))
}

/// `y = scatter_add(u, i..)`: `du = gather(g, i..)`.
pub fn scatter(
    e: &mut Emitter,
    x: &[ValueId],
    g: ValueId,
    axis: usize,
) -> Result<Vec<Option<ValueId>>> {
    let inputs = [&[g], &x[1..]].concat();
    let du = e.op(Op::Gather { axis }, inputs)?;
    Ok(no_index_gradients(Some(du), x.len()))
}

/// `y = sort(x, axis)`: `y` is `x` gathered through `p = argsort(x, axis)` along `axis` (and
/// `arange` on every other axis), so `dx` is the cotangent scattered back through `p`.
pub fn sort(e: &mut Emitter, x: ValueId, g: ValueId, axis: usize) -> Result<Option<ValueId>> {
    let shape = e.ty(x).shape;
    let order = e.op(
        Op::Scan {
            kind: ScanKind::Argsort,
            axis,
        },
        vec![x],
    )?;
    let mut indices = Vec::with_capacity(shape.len());
    for (d, size) in shape.iter().enumerate() {
        if d == axis {
            indices.push(order);
            continue;
        }
        let positions = e.op(
            Op::Arange {
                start: Scalar::Int(0),
                step: Scalar::Int(1),
                dtype: DType::I64,
                len: size.clone(),
            },
            vec![],
        )?;
        let mut along = vec![Dim::Static(1); shape.len()];
        along[d] = size.clone();
        indices.push(e.reshape(positions, &along)?);
    }
    Ok(Some(scatter_add(e, g, &indices, 0, shape)?))
}

fn scatter_add(
    e: &mut Emitter,
    updates: ValueId,
    indices: &[ValueId],
    axis: usize,
    shape: Vec<Dim>,
) -> Result<ValueId> {
    let inputs = [&[updates], indices].concat();
    e.op(Op::ScatterAdd { axis, shape }, inputs)
}

/// The data operand's cotangent, then none for each of the index arrays.
fn no_index_gradients(data: Option<ValueId>, operands: usize) -> Vec<Option<ValueId>> {
    let mut out = vec![None; operands];
    out[0] = data;
    out
}
