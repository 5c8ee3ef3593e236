//! `gather` and `scatter_add` on host arrays: each position of the indexed result maps to one
//! element of the data (NumPy's advanced indexing on adjacent axes), in row-major order.

use super::{broadcast, control::index_error, scalar, Elem, HostArray};
use crate::error::{Error, Result};
use crate::infer::shapes;
use crate::ir::{BinaryOp, DType, Dim};

/// For each position of `data.shape[:axis] + B + data.shape[axis+k:]` (row-major), the flat
/// position in `data` it reads, the index arrays wrapped and bounds-checked.
fn positions(data: &[usize], indices: &[&HostArray], axis: usize) -> Result<Vec<usize>> {
    let k = indices.len();
    let index_shapes: Vec<Vec<Dim>> = indices
        .iter()
        .map(|x| x.shape.iter().map(|&n| Dim::Static(n)).collect())
        .collect();
    let refs: Vec<&[Dim]> = index_shapes.iter().map(Vec::as_slice).collect();
    let b: Vec<usize> = shapes::broadcast(&refs)?
        .iter()
        .map(|d| d.as_static().unwrap_or(0))
        .collect();
    let columns: Vec<Vec<Elem>> = indices.iter().map(|x| broadcast(x, &b)).collect();
    let outer: usize = data[..axis].iter().product();
    let inner: usize = data[axis + k..].iter().product();
    let count: usize = b.iter().product();
    // The flat offset within one outer block of each position of B.
    let mut offsets = Vec::with_capacity(count);
    for p in 0..count {
        let mut at = 0usize;
        for (j, column) in columns.iter().enumerate() {
            let size = data[axis + j];
            let Elem::I(i) = column[p] else {
                return Err(Error::new("index arrays must be of integer type"));
            };
            let wrapped = if i < 0 { i + size as i128 } else { i };
            if !(0..size as i128).contains(&wrapped) {
                return Err(Error::new(index_error(i, axis + j, size)));
            }
            at = at * size + wrapped as usize;
        }
        offsets.push(at);
    }
    let block: usize = data[axis..axis + k].iter().product::<usize>() * inner;
    let mut out = Vec::with_capacity(outer * count * inner);
    for o in 0..outer {
        for &at in &offsets {
            for r in 0..inner {
                out.push(o * block + at * inner + r);
            }
        }
    }
    Ok(out)
}

/// `data[..., i_0, ..., i_{k-1}, ...]` from `axis` on.
pub fn gather(data: &HostArray, indices: &[&HostArray], axis: usize) -> Result<Vec<Elem>> {
    let at = positions(&data.shape, indices, axis)?;
    Ok(at.into_iter().map(|p| data.get(p)).collect())
}

/// Zeros of `shape` with `updates` added at the gathered positions, in row-major order.
pub fn scatter_add(
    updates: &HostArray,
    indices: &[&HostArray],
    axis: usize,
    shape: &[usize],
    out: DType,
) -> Result<Vec<Elem>> {
    let at = positions(shape, indices, axis)?;
    let mut elems = vec![scalar::cast(Elem::I(0), out); shape.iter().product()];
    for (u, p) in at.into_iter().enumerate() {
        let sum = scalar::binary(BinaryOp::Add, out, elems[p], updates.get(u))?;
        elems[p] = scalar::fit(sum, out);
    }
    Ok(elems)
}
