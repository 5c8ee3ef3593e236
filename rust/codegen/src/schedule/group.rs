//! Reduction groups: one kernel per (iteration shape, reduced axis) that collects every
//! reduction over that axis and the elementwise work that reads their per-row results.

use super::lazy::{inst, AxisMap, IndexMap, KernelBuilder, LOp, Refuse, L};
use super::{Scheduler, Slot, Step, ValueRef};
use crate::kernel::{ReduceOp, Scalar, Stage};
use crate::Error;

/// An open or closed reduction group.
pub(crate) struct Group {
    /// Shape of the reduced operands.
    pub in_shape: Vec<usize>,
    /// The reduced axis.
    pub axis: usize,
    /// Iteration dims: the kept axes in order, then the reduced one.
    pub dims: Vec<usize>,
    pub kb: KernelBuilder,
    pub open: bool,
    /// Per reduction: kernel stage index, result dtype.
    pub reduces: Vec<(usize, Scalar)>,
    /// After closing: where each reduction's per-row results were stored.
    pub stores: Vec<ValueRef>,
}

impl Group {
    /// The shape of a per-row result with the reduced axis kept as size 1.
    pub fn keep_shape(&self) -> Vec<usize> {
        let mut s = self.in_shape.clone();
        s[self.axis] = 1;
        s
    }

    /// The map of an operand of `in_shape` onto the iteration dims.
    pub fn full_map(&self) -> IndexMap {
        let nd = self.dims.len();
        (0..self.in_shape.len())
            .map(|i| {
                let dim = if i == self.axis {
                    nd - 1
                } else if i < self.axis {
                    i
                } else {
                    i - 1
                };
                if self.in_shape[i] == 1 {
                    AxisMap {
                        dim: None,
                        start: 0,
                        step: 0,
                    }
                } else {
                    AxisMap {
                        dim: Some(dim),
                        start: 0,
                        step: 1,
                    }
                }
            })
            .collect()
    }

    /// The map of a per-row value (`keep_shape`) onto the iteration dims.
    pub fn row_map(&self) -> IndexMap {
        let mut m = self.full_map();
        m[self.axis] = AxisMap {
            dim: None,
            start: 0,
            step: 0,
        };
        m
    }
}

impl Scheduler<'_> {
    fn new_group(&mut self, in_shape: &[usize], axis: usize) -> usize {
        let mut dims: Vec<usize> = in_shape
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != axis)
            .map(|(_, &n)| n)
            .collect();
        dims.push(in_shape[axis]);
        let id = self.groups.len();
        self.groups.push(Group {
            in_shape: in_shape.to_vec(),
            axis,
            kb: KernelBuilder::new(dims.len(), Some(id)),
            dims,
            open: true,
            reduces: Vec::new(),
            stores: Vec::new(),
        });
        id
    }

    /// Instantiates `l` through `map` into group `g`'s kernel.
    pub(crate) fn inst_in_group(
        &mut self,
        g: usize,
        l: L,
        map: &IndexMap,
    ) -> Result<usize, Refuse> {
        let mut kb = std::mem::replace(&mut self.groups[g].kb, KernelBuilder::new(0, None));
        let r = inst(self, &mut kb, l, map);
        self.groups[g].kb = kb;
        r
    }

    /// Reduces `x` over `axis` in a group kernel; returns the per-row result (keepdims shape).
    pub(crate) fn reduce_axis(&mut self, x: L, axis: usize, op: ReduceOp) -> Result<L, Error> {
        let shape = self.lazy.nodes[x].shape.clone();
        let dtype = self.lazy.nodes[x].dtype;
        let nd = shape.len();
        let accumulates = !matches!(op, ReduceOp::Argmax | ReduceOp::Argmin);
        // Rows shorter than 4 reduce faster in a group kernel walking down each column; when
        // other sizes share the kernels, every row of 2 or more (any size of a symbolic dim)
        // accumulates whole rows, so that every binding schedules the same kernels.
        // Float sums and products always accumulate whole rows: NumPy adds the rows in turn
        // whatever their length, and another order rounds differently.
        let long_rows = if self.sizes_vary { 2 } else { 4 };
        let ordered = matches!(op, ReduceOp::Sum | ReduceOp::Prod)
            && dtype.is_float()
            && shape[axis + 1..].iter().any(|&n| n > 1);
        if accumulates
            && axis + 1 < nd
            && (ordered || shape[nd - 1] >= long_rows)
            && shape[axis] > 0
        {
            return self.reduce_columns(x, axis, op);
        }
        if shape[axis] == 0
            && !matches!(
                op,
                ReduceOp::Sum | ReduceOp::Prod | ReduceOp::Any | ReduceOp::All
            )
        {
            return Err(Error::Unsupported(format!(
                "zero-size array to reduction operation {op:?} which has no identity"
            )));
        }
        let mut g = self
            .groups
            .iter()
            .position(|gr| gr.open && gr.in_shape == shape && gr.axis == axis)
            .unwrap_or_else(|| self.new_group(&shape, axis));
        let e = loop {
            let map = self.groups[g].full_map();
            match self.inst_in_group(g, x, &map) {
                Ok(e) => break e,
                Err(Refuse::NeedClose(h)) => {
                    self.close(h)?;
                    if h == g {
                        g = self.new_group(&shape, axis);
                    }
                }
                Err(Refuse::Fail(e)) => return Err(e),
            }
        };
        let group = &mut self.groups[g];
        group.kb.kernel.stages.push(Stage::Reduce { op, value: e });
        let s = group.kb.kernel.stages.len() - 1;
        let rt = op.result_type(dtype);
        group.reduces.push((s, rt));
        let stage = group.reduces.len() - 1;
        let keep = group.keep_shape();
        Ok(self.lazy.push(LOp::Stage { group: g, stage }, rt, keep))
    }

    /// Emits group `g`'s kernel: stores every per-row result, then runs as one step.
    pub(crate) fn close(&mut self, g: usize) -> Result<(), Error> {
        if !self.groups[g].open {
            return Ok(());
        }
        let keep = self.groups[g].keep_shape();
        let row_map = self.groups[g].row_map();
        let reduces = self.groups[g].reduces.clone();
        for (s, dtype) in reduces {
            let slot = self.new_temp(dtype, &keep);
            let vr = ValueRef::of(slot, &keep);
            let group = &mut self.groups[g];
            let b = group.kb.operand(vr.clone(), row_map.clone(), dtype);
            let value = group.kb.kernel.stage_result(s);
            group
                .kb
                .kernel
                .stages
                .push(Stage::RowStore { buffer: b, value });
            group.stores.push(vr);
        }
        let group = &mut self.groups[g];
        group.open = false;
        let mut kb = std::mem::replace(&mut group.kb, KernelBuilder::new(0, None));
        crate::reuse::store_reduced_once(&mut kb.kernel);
        let dims = group.dims.clone();
        self.pending.retain(|_, owner| *owner != g);
        self.kernel_nodes.push(kb.computed());
        self.kernels.push(kb.kernel);
        self.steps.push(Step::Kernel {
            kernel: self.kernels.len() - 1,
            dims,
            operands: kb.operands,
            collapse: false,
            serial: false,
        });
        Ok(())
    }

    /// The open groups `l` reads from (per-row results or outputs they have yet to write).
    pub(crate) fn open_deps(&self, l: L) -> Vec<usize> {
        let mut out = Vec::new();
        let mut stack = vec![l];
        let mut seen = std::collections::HashSet::new();
        while let Some(n) = stack.pop() {
            if !seen.insert(n) {
                continue;
            }
            match &self.lazy.nodes[n].op {
                LOp::Leaf(vr) => {
                    if let Some(&g) = self.pending.get(&vr.slot) {
                        out.push(g);
                    }
                }
                LOp::Const(_) => {}
                LOp::Unary(_, x) | LOp::Cast(x) | LOp::View(_, x) => stack.push(*x),
                LOp::Binary(_, x, y) => stack.extend([*x, *y]),
                LOp::Where(c, x, y) => stack.extend([*c, *x, *y]),
                LOp::Stage { group, .. } => {
                    if self.groups[*group].open {
                        out.push(*group);
                    }
                }
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// Closes the group writing `slot`, if one is pending.
    pub(crate) fn settle(&mut self, slot: Slot) -> Result<(), Error> {
        if let Some(&g) = self.pending.get(&slot) {
            self.close(g)?;
        }
        Ok(())
    }
}
