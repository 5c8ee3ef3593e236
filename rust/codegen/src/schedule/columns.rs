//! Reductions over an outer axis of row-major data, as NumPy runs them: the result row starts
//! at the identity and every input row is combined into it elementwise, so the inner loop
//! walks contiguous memory (with SIMD) instead of striding down columns.

use super::lazy::{inst, AxisMap, IndexMap, KernelBuilder, LOp, Refuse, L};
use super::{Scheduler, Step, ValueRef};
use crate::kernel::ScalarExt;
use crate::kernel::{BinaryOp, Const, ReduceOp, Stage};
use crate::Error;

impl Scheduler<'_> {
    /// Reduces `x` over `axis` (not the last) into a fresh buffer of the keepdims shape.
    pub(crate) fn reduce_columns(&mut self, x: L, axis: usize, op: ReduceOp) -> Result<L, Error> {
        let shape = self.lazy.nodes[x].shape.clone();
        let dtype = self.lazy.nodes[x].dtype;
        let nd = shape.len();
        let mut keep = shape.clone();
        keep[axis] = 1;
        let slot = self.new_temp(dtype, &keep);
        let out = ValueRef::of(slot, &keep);
        let identity = match (op, dtype.is_float()) {
            (ReduceOp::Sum | ReduceOp::Any, _) => Const::Int(0),
            (ReduceOp::Prod | ReduceOp::All, _) => Const::Int(1),
            (ReduceOp::Max, true) => Const::Float(f64::NEG_INFINITY),
            (ReduceOp::Min, true) => Const::Float(f64::INFINITY),
            (ReduceOp::Max, false) => Const::Int(dtype.int_bounds().0 as i64),
            (ReduceOp::Min, false) => Const::Int(dtype.int_bounds().1 as i64),
            (ReduceOp::Argmax | ReduceOp::Argmin, _) => {
                unreachable!("arg reductions track indices")
            }
        };
        let init = self.lazy.push(LOp::Const(identity), dtype, vec![]);
        let init = self.lazy.broadcast(init, &keep);
        self.store_standalone(init, &out).map_err(|r| match r {
            Refuse::Fail(e) => e,
            Refuse::NeedClose(_) => unreachable!("a constant reads no group"),
        })?;
        let combine = match op {
            ReduceOp::Sum => BinaryOp::Add,
            ReduceOp::Prod => BinaryOp::Mul,
            ReduceOp::Max => BinaryOp::Maximum,
            ReduceOp::Min => BinaryOp::Minimum,
            ReduceOp::Any => BinaryOp::LogicalOr,
            _ => BinaryOp::LogicalAnd,
        };
        // Iteration: the other axes in order, then `axis` as the row loop, the last as inner.
        let order: Vec<usize> = (0..nd - 1)
            .filter(|&a| a != axis)
            .chain([axis, nd - 1])
            .collect();
        let dims: Vec<usize> = order.iter().map(|&a| shape[a]).collect();
        let map_of = |sh: &[usize]| -> IndexMap {
            (0..nd)
                .map(|a| {
                    let d = order.iter().position(|&o| o == a).unwrap();
                    if sh[a] == 1 {
                        AxisMap {
                            dim: None,
                            start: 0,
                            step: 0,
                        }
                    } else {
                        AxisMap {
                            dim: Some(d),
                            start: 0,
                            step: 1,
                        }
                    }
                })
                .collect()
        };
        loop {
            let mut kb = KernelBuilder::new(dims.len(), None);
            let e = match inst(self, &mut kb, x, &map_of(&shape)) {
                Ok(e) => e,
                Err(Refuse::NeedClose(g)) => {
                    self.close(g)?;
                    continue;
                }
                Err(Refuse::Fail(e)) => return Err(e),
            };
            let acc_map = map_of(&keep);
            let b = kb.operand(out.clone(), acc_map, dtype);
            let acc = kb.kernel.load(b);
            let v = kb.kernel.binary(combine, acc, e);
            kb.kernel.stages.push(Stage::Map {
                buffer: b,
                value: v,
            });
            self.kernel_nodes.push(kb.computed());
            self.kernels.push(kb.kernel);
            self.steps.push(Step::Kernel {
                kernel: self.kernels.len() - 1,
                dims,
                operands: kb.operands,
                collapse: false,
                serial: true,
            });
            return Ok(self.leaf(out, dtype));
        }
    }
}
