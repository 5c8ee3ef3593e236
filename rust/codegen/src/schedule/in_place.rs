//! Assignments into a region of an array written into the array's buffer. Capture writes
//! NumPy's `a[i] = v` as `concatenate(slice(a), v, slice(a))` (`numpy_api/assignment.py`),
//! and a block `a[r0:r1, c0:c1] = v` as two of them, one inside the other: the rows
//! `s = a[r0:r1]` rebuilt along the columns, `x = concatenate(slice(s), v, slice(s))`, then
//! `concatenate(a[:r0], x, a[r1:])`. Where `a` is a buffer of this plan that nothing else
//! reads, `v` is written into it and the result is the buffer: filling a matrix row by row,
//! or assembling one from blocks, copied the whole matrix per assignment.

use super::lazy::{self, LOp, Refuse, L};
use super::{Scheduler, Slot, ValueRef};
use crate::kernel::Scalar;
use crate::Error;
use ember_core::ir::{Node, Op, ValueId};

impl Scheduler<'_> {
    /// `concatenate` node `node` (value `v`, along `axis`, of shape `shape`) as an update of
    /// the array its other operands are regions of, or None where it cannot be one.
    pub(crate) fn update_in_place(
        &mut self,
        node: &Node,
        v: ValueId,
        axis: usize,
        dtype: Scalar,
        shape: &[usize],
    ) -> Result<Option<L>, Error> {
        if let Some(rows) = self.update_block(node, v, axis, dtype, shape)? {
            return Ok(Some(rows));
        }
        // Per operand: the array it is the region of, when it is the region of that array at
        // the very place the concatenation puts it (a slice, or rows updated in place).
        let mut bases = Vec::with_capacity(node.inputs.len());
        let mut offset = 0;
        for &input in &node.inputs {
            let len = self.ty(input).static_shape().expect("checked static")[axis];
            let rows = self
                .in_place_rows
                .get(&input)
                .filter(|&&(_, a, at)| a == axis && at == offset)
                .map(|&(base, _, _)| base);
            bases.push(rows.or_else(|| self.region_of(input, axis, offset, len, shape)));
            offset += len;
        }
        let Some(base) = bases.iter().flatten().next().copied() else {
            return Ok(None);
        };
        let fresh: Vec<usize> = (0..bases.len())
            .filter(|&k| bases[k] != Some(base))
            .collect();
        if fresh.len() > 1 || self.readers[base.index()] as usize != bases.len() - fresh.len() {
            return Ok(None);
        }
        // Rows updated in place leave the buffer written by an open group: the result, the
        // buffer itself, is read after it as any value is.
        let Some(vr) = self.own_buffer(base, dtype, shape, fresh.is_empty())? else {
            return Ok(None);
        };
        if let [k] = fresh[..] {
            let at: usize = node.inputs[..k]
                .iter()
                .map(|&v| self.ty(v).static_shape().expect("checked static")[axis])
                .sum();
            self.write_into(node.inputs[k], &vr, &[(axis, at)], dtype)?;
        }
        Ok(Some(self.leaf(vr, dtype)))
    }

    /// The inner concatenation of a block assignment, `x = concatenate(slice(s), v,
    /// slice(s))` with `s = a[r0:r1]` (rows along another axis), read only by
    /// `concatenate(a[:r0], x, a[r1:])`: `v` is written into `a`'s buffer and `x` becomes a
    /// view of it, recorded so that the outer concatenation takes `x` as `a`'s own rows.
    fn update_block(
        &mut self,
        node: &Node,
        v: ValueId,
        axis: usize,
        dtype: Scalar,
        shape: &[usize],
    ) -> Result<Option<L>, Error> {
        if self.readers[v.index()] != 1 {
            return Ok(None);
        }
        let mut bases = Vec::with_capacity(node.inputs.len());
        let mut offset = 0;
        for &input in &node.inputs {
            let len = self.ty(input).static_shape().expect("checked static")[axis];
            bases.push(self.region_of(input, axis, offset, len, shape));
            offset += len;
        }
        let Some(rows) = bases.iter().flatten().next().copied() else {
            return Ok(None);
        };
        let fresh: Vec<usize> = (0..bases.len())
            .filter(|&k| bases[k] != Some(rows))
            .collect();
        let [k] = fresh[..] else {
            return Ok(None);
        };
        if self.readers[rows.index()] as usize != bases.len() - 1 {
            return Ok(None);
        }
        let Some((base, row_axis, r0)) = self.rows_of(rows, axis) else {
            return Ok(None);
        };
        // The one reader: the outer concatenation along the rows' axis, every other operand
        // a region of `base` at its place, `x` at the rows' place.
        let Some(outer) = self.g.nodes.iter().position(|n| n.inputs.contains(&v)) else {
            return Ok(None);
        };
        let outer_node = &self.g.nodes[outer];
        let outer_v = self.g.node_value(outer);
        let full = self.ty(base).static_shape();
        if !matches!(outer_node.op, Op::Concatenate { axis: a } if a == row_axis)
            || self.g.results.contains(&outer_v)
            || full.as_deref() != self.ty(outer_v).static_shape().as_deref()
            || self.readers[base.index()] as usize != outer_node.inputs.len()
        {
            return Ok(None);
        }
        let full = full.expect("checked static");
        let mut offset = 0;
        for &input in &outer_node.inputs {
            let len = self.ty(input).static_shape().expect("checked static")[row_axis];
            let placed = if input == v {
                offset == r0
            } else {
                self.region_of(input, row_axis, offset, len, &full) == Some(base)
            };
            if !placed {
                return Ok(None);
            }
            offset += len;
        }
        let Some(vr) = self.own_buffer(base, dtype, &full, false)? else {
            return Ok(None);
        };
        let at: usize = node.inputs[..k]
            .iter()
            .map(|&v| self.ty(v).static_shape().expect("checked static")[axis])
            .sum();
        self.write_into(node.inputs[k], &vr, &[(axis, at), (row_axis, r0)], dtype)?;
        self.in_place_rows.insert(v, (base, row_axis, r0));
        let (mut start, mut stop) = (vec![0; full.len()], full.clone());
        start[row_axis] = r0;
        stop[row_axis] = r0 + shape[row_axis];
        let rows_view = Op::Slice {
            start: start.iter().map(|&s| s as i64).collect(),
            stop: stop.iter().map(|&s| s as i64).collect(),
            step: vec![1; full.len()],
        };
        let mut view = vr;
        view.views.push((rows_view, shape.to_vec()));
        Ok(Some(self.leaf(view, dtype)))
    }

    /// `rows = a[r0:r1]` along one axis other than `axis` (step 1, whole along the others):
    /// `(a, that axis, r0)`.
    fn rows_of(&self, rows: ValueId, axis: usize) -> Option<(ValueId, usize, usize)> {
        let i = rows.index().checked_sub(self.g.params.len())?;
        let node = &self.g.nodes[i];
        let Op::Slice { start, stop, step } = &node.op else {
            return None;
        };
        let full = self.ty(node.inputs[0]).static_shape()?;
        let cut: Vec<usize> = (0..full.len())
            .filter(|&d| start[d] != 0 || stop[d] != full[d] as i64)
            .collect();
        match cut[..] {
            [d] if d != axis && step.iter().all(|&s| s == 1) => {
                Some((node.inputs[0], d, start[d] as usize))
            }
            _ => None,
        }
    }

    /// The buffer holding `base`, when it is a temporary of this plan of the given dtype and
    /// shape, read through no view and written by no open group (unless `pending`).
    fn own_buffer(
        &self,
        base: ValueId,
        dtype: Scalar,
        shape: &[usize],
        pending: bool,
    ) -> Result<Option<ValueRef>, Error> {
        if self.ty(base).static_shape().as_deref() != Some(shape) || self.ty(base).dtype != dtype {
            return Ok(None);
        }
        Ok(match &self.lazy.nodes[self.defs[base.index()]].op {
            LOp::Leaf(vr)
                if vr.views.is_empty()
                    && matches!(vr.slot, Slot::Temp(_))
                    && (pending || !self.pending.contains_key(&vr.slot)) =>
            {
                Some(vr.clone())
            }
            _ => None,
        })
    }

    /// Stores `value` into `vr` with its origin moved along each `(axis, offset)`.
    fn write_into(
        &mut self,
        value: ValueId,
        vr: &ValueRef,
        moves: &[(usize, usize)],
        dtype: Scalar,
    ) -> Result<(), Error> {
        let x = self.defs[value.index()];
        let x = self.cast_to(x, dtype);
        let xs = self.lazy.nodes[x].shape.clone();
        if xs.contains(&0) {
            return Ok(());
        }
        let mut map = lazy::identity(&xs);
        for &(axis, offset) in moves {
            map[axis].start = offset as isize;
        }
        loop {
            match self.store_mapped(x, vr, map.clone()) {
                Ok(()) => return Ok(()),
                Err(Refuse::NeedClose(h)) => self.close(h)?,
                Err(Refuse::Fail(e)) => return Err(e),
            }
        }
    }

    /// The array `v` slices, when `v` is read once and is the whole of that array but for
    /// `offset..offset + len` along `axis` (an array of shape `shape`).
    pub(crate) fn region_of(
        &self,
        v: ValueId,
        axis: usize,
        offset: usize,
        len: usize,
        shape: &[usize],
    ) -> Option<ValueId> {
        let i = v.index().checked_sub(self.g.params.len())?;
        let node = &self.g.nodes[i];
        let Op::Slice { start, stop, step } = &node.op else {
            return None;
        };
        let whole = (0..shape.len()).all(|d| {
            let (lo, hi) = if d == axis {
                (offset, offset + len)
            } else {
                (0, shape[d])
            };
            step[d] == 1 && start[d] == lo as i64 && stop[d] == hi as i64
        });
        (whole && self.readers[v.index()] == 1).then(|| node.inputs[0])
    }
}
