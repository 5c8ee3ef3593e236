//! Types of `gather` and `scatter_add`: the indexed axes replaced by the broadcast shape of
//! the integer index arrays, as NumPy's advanced indexing on adjacent axes gives.

use crate::error::{Error, Result};
use crate::ir::{Dim, Kind, Type};

use super::shapes;

/// `data.shape[:axis] + B + data.shape[axis+k:]` for `k` index arrays broadcasting to `B`.
pub fn gathered_shape(data: &[Dim], indices: &[&Type], axis: usize) -> Result<Vec<Dim>> {
    if axis + indices.len() > data.len() {
        return Err(Error::new(format!(
            "{} index array(s) from axis {axis} of a {}-d array",
            indices.len(),
            data.len()
        )));
    }
    for t in indices {
        if !matches!(t.dtype.kind(), Kind::Signed | Kind::Unsigned) {
            return Err(Error::new(format!(
                "index arrays must be of integer type, found {}",
                t.dtype
            )));
        }
    }
    let shapes: Vec<&[Dim]> = indices.iter().map(|t| t.shape.as_slice()).collect();
    let b = shapes::broadcast(&shapes)?;
    Ok([&data[..axis], &b, &data[axis + indices.len()..]].concat())
}

/// `gather(data, i_0..)`: `data`'s dtype.
pub fn gather(inputs: &[&Type], axis: usize) -> Result<Type> {
    let data = inputs[0];
    let shape = gathered_shape(&data.shape, &inputs[1..], axis)?;
    Ok(Type::new(data.dtype, shape))
}

/// `scatter_add(updates, i_0..)` into zeros of `shape`: `updates` must have the shape
/// `gather` of the result with the same index arrays has.
pub fn scatter_add(inputs: &[&Type], axis: usize, shape: &[Dim]) -> Result<Type> {
    let updates = inputs[0];
    let want = gathered_shape(shape, &inputs[1..], axis)?;
    if updates.shape != want {
        return Err(Error::new(format!(
            "scatter_add: updates of shape {} where the indexed positions have shape {}",
            shapes::show(&updates.shape),
            shapes::show(&want)
        )));
    }
    Ok(Type::new(updates.dtype, shape.to_vec()))
}
