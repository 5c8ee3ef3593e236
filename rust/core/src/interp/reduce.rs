//! Reductions and index reductions of the reference interpreter.

use super::array::{Elem, HostArray};
use super::scalar::{cast, fit};
use crate::error::{Error, Result};
use crate::ir::{ArgReduceKind, DType, ReduceKind};
use crate::views::Layout;

/// The input's elements grouped by output element: kept axes outermost, reduced axes in one
/// inner block of `block` elements per output element.
fn grouped(x: &HostArray, axes: &[usize]) -> (Vec<Elem>, usize) {
    let block = axes.iter().map(|&a| x.shape[a]).product();
    // Reducing trailing axes needs no reordering.
    if axes
        .iter()
        .enumerate()
        .all(|(i, &a)| a == x.shape.len() - axes.len() + i)
    {
        return (x.elems(), block);
    }
    let kept: Vec<usize> = (0..x.shape.len()).filter(|a| !axes.contains(a)).collect();
    let perm: Vec<usize> = kept.iter().chain(axes).copied().collect();
    let base = Layout::contiguous(&x.shape);
    let layout = Layout {
        offset: 0,
        shape: perm.iter().map(|&p| base.shape[p]).collect(),
        strides: perm.iter().map(|&p| base.strides[p]).collect(),
    };
    let elems = layout
        .positions()
        .into_iter()
        .map(|p| x.get(p as usize))
        .collect();
    (elems, block)
}

/// Pairwise summation, so that long float sums stay accurate as NumPy's do; from +0.0 as
/// NumPy (a sum of -0.0 is 0.0).
fn pairwise_sum(xs: &[f64]) -> f64 {
    if xs.len() <= 8 {
        return xs.iter().fold(0.0, |acc, x| acc + x);
    }
    let mid = xs.len() / 2;
    pairwise_sum(&xs[..mid]) + pairwise_sum(&xs[mid..])
}

/// `sum prod max min mean any all` over `axes` (all when `None`); the output shape is given.
/// Float sums are accumulated in f64 and rounded once to the result dtype; float32 products
/// multiply in float32.
pub fn reduce(
    kind: ReduceKind,
    x: &HostArray,
    axes: Option<&[usize]>,
    out: DType,
    out_shape: Vec<usize>,
) -> Result<HostArray> {
    let all: Vec<usize> = (0..x.shape.len()).collect();
    let (elems, block) = grouped(x, axes.unwrap_or(&all));
    let groups = out_shape.iter().product::<usize>();
    if block == 0 && matches!(kind, ReduceKind::Max | ReduceKind::Min) && groups > 0 {
        return Err(Error::new(format!(
            "zero-size array to reduction operation {} which has no identity",
            kind.name()
        )));
    }
    let mut result = Vec::with_capacity(groups);
    for g in 0..groups {
        let group = &elems[g * block..(g + 1) * block];
        let value = match kind {
            ReduceKind::Any => Elem::B(group.iter().any(|e| e.truthy())),
            ReduceKind::All => Elem::B(group.iter().all(|e| e.truthy())),
            ReduceKind::Sum | ReduceKind::Prod | ReduceKind::Mean => arithmetic(kind, group, out),
            ReduceKind::Max | ReduceKind::Min => extreme(kind == ReduceKind::Max, group),
        };
        result.push(fit(value, out));
    }
    Ok(HostArray::from_elems(out, out_shape, &result))
}

fn arithmetic(kind: ReduceKind, group: &[Elem], out: DType) -> Elem {
    let cast_all = || group.iter().map(|&e| cast(e, out));
    if out.is_int() {
        let ints = cast_all().map(|e| if let Elem::I(i) = e { i } else { 0 });
        return Elem::I(if kind == ReduceKind::Prod {
            ints.fold(1, i128::wrapping_mul)
        } else {
            ints.fold(0, i128::wrapping_add)
        });
    }
    let floats: Vec<f64> = group
        .iter()
        .map(|&e| {
            if let Elem::F(x) = cast(e, DType::F64) {
                x
            } else {
                0.0
            }
        })
        .collect();
    Elem::F(match kind {
        // float32 products multiply in float32, overflowing to inf where NumPy's do.
        ReduceKind::Prod if out == DType::F32 => {
            floats.iter().fold(1f32, |acc, &x| acc * x as f32) as f64
        }
        ReduceKind::Prod => floats.iter().product(),
        ReduceKind::Mean => pairwise_sum(&floats) / floats.len() as f64,
        _ => pairwise_sum(&floats),
    })
}

/// Max or min; a NaN anywhere is the result (NumPy propagates NaN).
fn extreme(max: bool, group: &[Elem]) -> Elem {
    let mut best = group[0];
    for &e in &group[1..] {
        best = match (best, e) {
            (Elem::F(b), _) if b.is_nan() => return best,
            (_, Elem::F(x)) if x.is_nan() => return e,
            // On ties (0.0 and -0.0) the later element wins, as in NumPy.
            (Elem::F(b), Elem::F(x)) => Elem::F(if (x > b) == max || x == b { x } else { b }),
            (Elem::I(b), Elem::I(x)) => Elem::I(if max { b.max(x) } else { b.min(x) }),
            (Elem::B(b), Elem::B(x)) => Elem::B(if max { b || x } else { b && x }),
            _ => best,
        };
    }
    best
}

/// `argmax argmin` over one axis or the flattened array: the first occurrence wins, and a NaN
/// is the extreme (its first occurrence).
pub fn arg_reduce(
    kind: ArgReduceKind,
    x: &HostArray,
    axis: Option<usize>,
    out_shape: Vec<usize>,
) -> Result<HostArray> {
    let axes: Vec<usize> = axis.map_or_else(|| (0..x.shape.len()).collect(), |a| vec![a]);
    let (elems, block) = grouped(x, &axes);
    if block == 0 {
        return Err(Error::new(format!(
            "attempt to get {} of an empty sequence",
            kind.name()
        )));
    }
    let max = kind == ArgReduceKind::Argmax;
    let groups = out_shape.iter().product::<usize>();
    let mut result = Vec::with_capacity(groups);
    for g in 0..groups {
        let group = &elems[g * block..(g + 1) * block];
        let mut best = 0;
        for (i, e) in group.iter().enumerate() {
            let better = match (group[best], *e) {
                (Elem::F(b), _) if b.is_nan() => break,
                (_, Elem::F(x)) if x.is_nan() => true,
                (Elem::F(b), Elem::F(x)) => {
                    if max {
                        x > b
                    } else {
                        x < b
                    }
                }
                (Elem::I(b), Elem::I(x)) => {
                    if max {
                        x > b
                    } else {
                        x < b
                    }
                }
                (Elem::B(b), Elem::B(x)) => {
                    if max {
                        x & !b
                    } else {
                        !x & b
                    }
                }
                _ => false,
            };
            if better {
                best = i;
            }
        }
        result.push(Elem::I(best as i128));
    }
    Ok(HostArray::from_elems(DType::I64, out_shape, &result))
}
