//! Reductions over runs of adjacent axes, in NumPy's order.
//!
//! NumPy's iterator coalesces adjacent axes of a C-contiguous operand into one, so a
//! reduction over a run of adjacent axes visits the run as one flat axis: `x.sum()` of a
//! 2-D array is one pairwise sum over all its elements in memory order, and
//! `x.sum(axis=(0, 1))` of a 3-D array adds its rows in turn, in flat order. Reducing such a
//! run axis by axis (each row pairwise, then the row sums) gives another rounding: the last
//! digit of most whole-array float sums differed. Float sums and products therefore merge
//! each run of adjacent reduced axes into one before reducing, so that they add in NumPy's
//! order, bit for bit, for every operand NumPy holds contiguously (any value computed in
//! the graph, and C-contiguous arguments). Strided arguments are summed in flat order too,
//! which NumPy does not promise (it sums them in buffered chunks).

use super::lazy::{LOp, L};
use super::Scheduler;
use crate::kernel::ReduceOp;
use crate::Error;
use ember_core::ir::Op;

/// The shape of `shape` with each run of adjacent `axes` merged into one axis, and the
/// merged axes' positions in it; `None` when no run holds two axes or more. Axes of size 1
/// join the run they touch, as NumPy's iterator drops them: `(n, 1)` summed over its first
/// axis is one run of `n`.
pub(crate) fn merged_runs(shape: &[usize], axes: &[usize]) -> Option<(Vec<usize>, Vec<usize>)> {
    let joins = |a: usize| axes.contains(&a) || shape[a] == 1;
    let mut merged = Vec::with_capacity(shape.len());
    let mut positions = Vec::new();
    let mut any = false;
    let mut a = 0;
    while a < shape.len() {
        let start = a;
        while a < shape.len() && joins(a) {
            a += 1;
        }
        if (start..a).any(|k| axes.contains(&k)) {
            any |= a - start > 1;
            positions.push(merged.len());
            merged.push(shape[start..a].iter().product());
        } else {
            merged.extend_from_slice(&shape[start..a]);
        }
        if a < shape.len() && a == start {
            merged.push(shape[a]);
            a += 1;
        }
    }
    any.then_some((merged, positions))
}

impl Scheduler<'_> {
    /// `x` (being reduced over `axes` by `op`) with every run of adjacent reduced axes
    /// merged into one, and the axes to reduce then; `x` and `axes` as they are for other
    /// reductions (integer sums and products, extremes and logical reductions do not depend
    /// on the order).
    pub(crate) fn merge_reduced_runs(
        &mut self,
        x: L,
        axes: &[usize],
        op: ReduceOp,
    ) -> Result<(L, Vec<usize>), Error> {
        let dtype = self.lazy.nodes[x].dtype;
        let ordered = matches!(op, ReduceOp::Sum | ReduceOp::Prod) && dtype.is_float();
        let shape = self.lazy.nodes[x].shape.clone();
        let Some((merged, positions)) = ordered.then(|| merged_runs(&shape, axes)).flatten() else {
            return Ok((x, axes.to_vec()));
        };
        if let Some(l) = self.reshaped(x, &merged) {
            return Ok((l, positions));
        }
        // A value whose operands broadcast along the run: stored whole (as NumPy stores its
        // temporary), then seen with the run merged.
        let mut vr = self.materialise(x, None)?;
        vr.views.push((reshape_to(&merged), merged.clone()));
        Ok((self.leaf(vr, dtype), positions))
    }

    /// Elementwise value `l` computed over `shape` (of the same size, axes merged) instead:
    /// the same expression over its stored operands seen through a reshape. `None` when an
    /// operand is broadcast along the merged axes or is a reduction's per-row result.
    fn reshaped(&mut self, l: L, shape: &[usize]) -> Option<L> {
        let l = super::lazy::Context::stored(self, l).unwrap_or(l);
        let node = self.lazy.nodes[l].clone();
        let op = match node.op {
            LOp::Leaf(mut vr) => {
                vr.views.push((reshape_to(shape), shape.to_vec()));
                LOp::Leaf(vr)
            }
            LOp::Unary(op, x) => LOp::Unary(op, self.reshaped(x, shape)?),
            LOp::Binary(op, x, y) => {
                LOp::Binary(op, self.reshaped(x, shape)?, self.reshaped(y, shape)?)
            }
            LOp::Where(c, x, y) => LOp::Where(
                self.reshaped(c, shape)?,
                self.reshaped(x, shape)?,
                self.reshaped(y, shape)?,
            ),
            LOp::Cast(x) => LOp::Cast(self.reshaped(x, shape)?),
            // A scalar broadcast to the whole value stays one.
            LOp::View(Op::BroadcastTo { .. }, x) if self.lazy.nodes[x].shape.is_empty() => {
                return Some(self.lazy.broadcast(x, shape));
            }
            _ => return None,
        };
        Some(self.lazy.push(op, node.dtype, shape.to_vec()))
    }
}

fn reshape_to(shape: &[usize]) -> Op {
    Op::Reshape {
        shape: shape.iter().map(|&n| n.into()).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::merged_runs;

    #[test]
    fn runs_of_adjacent_reduced_axes_merge() {
        assert_eq!(merged_runs(&[6, 5], &[0, 1]), Some((vec![30], vec![0])));
        assert_eq!(
            merged_runs(&[2, 3, 4], &[1, 2]),
            Some((vec![2, 12], vec![1]))
        );
        assert_eq!(
            merged_runs(&[2, 3, 4], &[0, 1]),
            Some((vec![6, 4], vec![0]))
        );
        assert_eq!(
            merged_runs(&[2, 3, 4, 5], &[0, 1, 3]),
            Some((vec![6, 4, 5], vec![0, 2]))
        );
        // One axis per run: nothing to merge.
        assert_eq!(merged_runs(&[2, 3, 4], &[0, 2]), None);
        assert_eq!(merged_runs(&[2, 3], &[1]), None);
    }

    #[test]
    fn axes_of_size_one_join_the_run_they_touch() {
        assert_eq!(merged_runs(&[7, 1], &[0]), Some((vec![7], vec![0])));
        assert_eq!(merged_runs(&[1, 7], &[1]), Some((vec![7], vec![0])));
        assert_eq!(merged_runs(&[4, 1, 5], &[0, 2]), Some((vec![20], vec![0])));
        assert_eq!(merged_runs(&[4, 1, 5], &[2]), Some((vec![4, 5], vec![1])));
        // A size-1 axis with no reduced axis beside it stays.
        assert_eq!(merged_runs(&[1, 3, 4], &[2]), None);
        assert_eq!(
            merged_runs(&[3, 1, 4, 2], &[0]),
            Some((vec![3, 4, 2], vec![0]))
        );
    }
}
