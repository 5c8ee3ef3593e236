//! One handler per IR op: what lazy node (or stored value) each statement becomes.

use super::lazy::{pull, AxisMap, LOp, Refuse, L};
use super::{binary_loop_scalar, Scheduler, Slot, Step, ValueRef};
use crate::kernel::ScalarExt;
use crate::kernel::{Const, ReduceOp, Scalar};
use crate::Error;
use ember_core::infer::dtypes;
use ember_core::ir::{
    ArgReduceKind, BinaryOp, Graph, Node, Op, ReduceKind, Type, UnaryOp, ValueId,
};

/// Per-element cost (in adds) from which a computed value read through a view is stored.
const DEEP_CHAIN: usize = 32;
/// The same for a value other statements read too, which a view cannot share work with.
const SHARED_CHAIN: usize = 8;
/// Recomputation (elements times cost) a broadcast may cause before its operand is stored.
const RECOMPUTE_LIMIT: usize = 4096;

pub(crate) fn const_of(v: ember_core::ir::Scalar) -> Const {
    match v {
        ember_core::ir::Scalar::Bool(b) => Const::Int(b as i64),
        ember_core::ir::Scalar::Int(i) => Const::Int(i as i64),
        ember_core::ir::Scalar::Float(x) => Const::Float(x),
    }
}

/// A product's update of another value (see `Scheduler::update_of`).
#[derive(Clone, Copy)]
struct Update {
    /// The statement computing the update.
    target: ValueId,
    /// The value updated.
    start: ValueId,
    /// The product's factor.
    alpha: f64,
}

impl Scheduler<'_> {
    pub(crate) fn ty(&self, v: ValueId) -> &Type {
        self.g.value_type(v).expect("verified graph")
    }

    /// `x` cast to `dtype`; constants are converted at compile time.
    pub(crate) fn cast_to(&mut self, x: L, dtype: Scalar) -> L {
        if let LOp::Const(c) = self.lazy.nodes[x].op {
            if self.lazy.nodes[x].dtype != dtype {
                let c = c.cast_to(dtype);
                let shape = self.lazy.nodes[x].shape.clone();
                return self.lazy.push(LOp::Const(c), dtype, shape);
            }
        }
        self.lazy.cast(x, dtype)
    }

    /// The lazy node (or stored value) for one statement.
    pub(crate) fn node(&mut self, node: &Node, v: ValueId, done: &mut [bool]) -> Result<L, Error> {
        let shape = node.ty.static_shape().expect("checked static");
        let dtype = node.ty.dtype;
        let arg = |i: usize| node.inputs[i];
        if let Some(&l) = self.updated.get(&v) {
            return Ok(l);
        }
        Ok(match &node.op {
            Op::Unary(op) => {
                let x = self.defs[arg(0).index()];
                if *op == UnaryOp::Positive {
                    return Ok(x);
                }
                let xt = self.ty(arg(0)).dtype;
                let lp = dtypes::unary_loop(*op, xt).map_err(|e| Error::Unsupported(e.message))?;
                let x = self.cast_to(x, lp);
                self.lazy.push(LOp::Unary(*op, x), dtype, shape)
            }
            Op::Binary(op) => {
                let (ta, tb) = (self.ty(arg(0)).clone(), self.ty(arg(1)).clone());
                let lp = binary_loop_scalar(*op, &ta, &tb)?;
                if *op == BinaryOp::Pow && lp.is_int() {
                    if let LOp::Const(Const::Int(e)) = self.lazy.nodes[self.defs[arg(1).index()]].op
                    {
                        if e < 0 {
                            return Err(Error::Unsupported(
                                "Integers to negative integer powers are not allowed.".into(),
                            ));
                        }
                    }
                }
                let a = self.defs[arg(0).index()];
                let b = self.defs[arg(1).index()];
                let a = self.cast_to(a, lp);
                if *op == BinaryOp::Pow && lp.is_float() {
                    // x ** 2 is x * x exactly (pow is correctly rounded there): no libm call.
                    if let LOp::Const(Const::Float(2.0) | Const::Int(2)) = self.lazy.nodes[b].op {
                        let a = self.lazy.broadcast(a, &shape);
                        return Ok(self.lazy.push(LOp::Unary(UnaryOp::Square, a), dtype, shape));
                    }
                }
                let b = self.cast_to(b, lp);
                let a = self.spread(a, &shape)?;
                let b = self.spread(b, &shape)?;
                self.lazy.push(LOp::Binary(*op, a, b), dtype, shape)
            }
            Op::Where => {
                let c = self.defs[arg(0).index()];
                let c = self.cast_to(c, Scalar::Bool);
                let c = self.spread(c, &shape)?;
                let x = self.defs[arg(1).index()];
                let y = self.defs[arg(2).index()];
                let x = self.cast_to(x, dtype);
                let y = self.cast_to(y, dtype);
                let x = self.spread(x, &shape)?;
                let y = self.spread(y, &shape)?;
                self.lazy.push(LOp::Where(c, x, y), dtype, shape)
            }
            Op::Astype { .. } => {
                let x = self.defs[arg(0).index()];
                self.cast_to(x, dtype)
            }
            Op::Copy => self.defs[arg(0).index()],
            Op::Const { value, .. } => self.lazy.push(LOp::Const(const_of(*value)), dtype, vec![]),
            Op::Full { value, .. } => {
                let c = self.lazy.push(LOp::Const(const_of(*value)), dtype, vec![]);
                self.lazy.broadcast(c, &shape)
            }
            Op::Arange { .. } | Op::Eye { .. } => self.constant_array(node, dtype, &shape)?,
            Op::Reduce {
                kind,
                axes,
                keepdims: _,
            } => {
                let x = self.defs[arg(0).index()];
                self.reduce(x, *kind, axes.as_deref(), dtype, &shape)?
            }
            Op::ArgReduce {
                kind,
                axis,
                keepdims: _,
            } => {
                let x = self.defs[arg(0).index()];
                self.arg_reduce(x, *kind, *axis, &shape)?
            }
            Op::Reshape { .. }
            | Op::Transpose { .. }
            | Op::BroadcastTo { .. }
            | Op::ExpandDims { .. }
            | Op::Squeeze { .. }
            | Op::Slice { .. }
            | Op::Flip { .. } => {
                let x = self.defs[arg(0).index()];
                let shared = self.readers[arg(0).index()] > 1;
                self.view(x, node.op.clone(), &shape, shared)?
            }
            Op::Concatenate { axis } => {
                // A result is written once straight into the caller's array instead.
                if !self.g.results.contains(&v) {
                    if let Some(updated) = self.update_in_place(node, v, *axis, dtype, &shape)? {
                        return Ok(updated);
                    }
                }
                let dest = self
                    .result_slot(v, done)
                    .unwrap_or_else(|| self.new_temp(dtype, &shape));
                let out = ValueRef::of(dest, &shape);
                let mut offset = 0isize;
                for &input in &node.inputs {
                    let x = self.defs[input.index()];
                    let x = self.cast_to(x, dtype);
                    let xs = self.lazy.nodes[x].shape.clone();
                    let mut map = super::lazy::identity(&xs);
                    map[*axis] = if xs[*axis] == 1 {
                        AxisMap {
                            dim: None,
                            start: offset,
                            step: 0,
                        }
                    } else {
                        AxisMap {
                            dim: Some(*axis),
                            start: offset,
                            step: 1,
                        }
                    };
                    if xs.contains(&0) {
                        continue;
                    }
                    loop {
                        match self.store_mapped(x, &out, map.clone()) {
                            Ok(()) => break,
                            Err(Refuse::NeedClose(h)) => self.close(h)?,
                            Err(Refuse::Fail(e)) => return Err(e),
                        }
                    }
                    offset += xs[*axis] as isize;
                }
                self.leaf(out, dtype)
            }
            Op::Loop { .. } | Op::If { .. } | Op::Load | Op::Store => self.native(node, v, done)?,
            Op::Result { index, .. } => self.further[*index - 1],
            Op::Matmul => {
                let a = self.defs[arg(0).index()];
                let b = self.defs[arg(1).index()];
                let a = self.cast_to(a, dtype);
                let b = self.cast_to(b, dtype);
                let a = self.matmul_operand(a)?;
                let b = self.matmul_operand(b)?;
                self.settle(a.slot)?;
                self.settle(b.slot)?;
                let update = self.update_of(v, dtype);
                let written = update.map_or(v, |u| u.target);
                let dest = self
                    .result_slot(written, done)
                    .unwrap_or_else(|| self.new_temp(dtype, &shape));
                let out = ValueRef::of(dest, &shape);
                if let Some(u) = update {
                    let start = self.defs[u.start.index()];
                    self.materialise(start, Some(dest))?;
                    self.settle(dest)?;
                }
                self.steps.push(Step::Matmul {
                    a,
                    b,
                    out: out.clone(),
                    dtype,
                    update: update.map(|u| u.alpha),
                });
                let leaf = self.leaf(out, dtype);
                if let Some(u) = update {
                    self.updated.insert(u.target, leaf);
                }
                leaf
            }
            Op::Linalg { kind } => {
                if crate::linalg::registered().is_none() {
                    return Err(Error::Unsupported(
                        "np.linalg without NumPy's LAPACK".into(),
                    ));
                }
                let mut inputs = Vec::with_capacity(node.inputs.len());
                for x in &node.inputs {
                    let x = self.matmul_operand(self.defs[x.index()])?;
                    self.settle(x.slot)?;
                    inputs.push(x);
                }
                let dest = self
                    .result_slot(v, done)
                    .unwrap_or_else(|| self.new_temp(dtype, &shape));
                let out = ValueRef::of(dest, &shape);
                self.steps.push(Step::Linalg {
                    kind: *kind,
                    inputs,
                    out: out.clone(),
                });
                self.leaf(out, dtype)
            }
            Op::Gather { axis } => self.indexed(node, v, done, false, *axis, dtype, &shape)?,
            Op::ScatterAdd { axis, .. } => {
                self.indexed(node, v, done, true, *axis, dtype, &shape)?
            }
            Op::Scan { kind, axis } => {
                // NumPy casts each element to the result dtype, then accumulates in it; an
                // argsort reads the elements as they are.
                let x = self.defs[arg(0).index()];
                let x = if kind.gives_positions() {
                    x
                } else {
                    self.cast_to(x, dtype)
                };
                let in_dtype = self.lazy.nodes[x].dtype;
                let input = self.materialise(x, None)?;
                self.settle(input.slot)?;
                let dest = self
                    .result_slot(v, done)
                    .unwrap_or_else(|| self.new_temp(dtype, &shape));
                let out = ValueRef::of(dest, &shape);
                self.steps.push(Step::Scan {
                    kind: *kind,
                    axis: *axis,
                    input,
                    out: out.clone(),
                    dtype,
                    in_dtype,
                });
                self.leaf(out, dtype)
            }
        })
    }

    /// `gather` or `scatter_add` as an extern step: the data operand as a matmul operand is
    /// (a computed transpose stays a view), the index arrays stored as they are.
    #[allow(clippy::too_many_arguments)]
    fn indexed(
        &mut self,
        node: &Node,
        v: ValueId,
        done: &mut [bool],
        scatter: bool,
        axis: usize,
        dtype: Scalar,
        shape: &[usize],
    ) -> Result<L, Error> {
        let mut inputs = Vec::with_capacity(node.inputs.len());
        for (i, x) in node.inputs.iter().enumerate() {
            let x = self.defs[x.index()];
            let x = if i == 0 {
                self.matmul_operand(x)?
            } else {
                self.materialise(x, None)?
            };
            self.settle(x.slot)?;
            inputs.push(x);
        }
        let dest = self
            .result_slot(v, done)
            .unwrap_or_else(|| self.new_temp(dtype, shape));
        let out = ValueRef::of(dest, shape);
        self.steps.push(Step::Indexed {
            scatter,
            axis,
            inputs,
            out: out.clone(),
        });
        Ok(self.leaf(out, dtype))
    }

    /// A matmul operand stored for BLAS. A transposed computed value is stored in its own
    /// order and handed over as a transposed view: storing it in the transposed order
    /// walks its operands across rows, with strided loads instead of vector ones (five times
    /// slower for the `tanh(z).T` of a backward pass), while BLAS reads either layout alike.
    fn matmul_operand(&mut self, x: L) -> Result<ValueRef, Error> {
        if let LOp::View(op @ Op::Transpose { .. }, inner) = &self.lazy.nodes[x].op {
            let (op, inner) = (op.clone(), *inner);
            let shape = self.lazy.nodes[x].shape.clone();
            let mut vr = self.matmul_operand(inner)?;
            vr.views.push((op, shape));
            return Ok(vr);
        }
        let vr = self.materialise(x, None)?;
        self.remember_store(x, &vr);
        Ok(vr)
    }

    /// Whether product `v` only feeds an update `start - c * v` (or `start + c * v`, `c` a
    /// constant, 1 when absent) of a value of its own type: that update is then computed by
    /// the product itself, onto a copy of `start` (`Step::Matmul`'s `update`), so the product
    /// is never stored on its own nor read again by a pass over it.
    fn update_of(&self, v: ValueId, dtype: Scalar) -> Option<Update> {
        if !dtype.is_float() {
            return None;
        }
        let ty = self.ty(v).clone();
        let (mut alpha, mut term) = (1.0, v);
        let mut reader = self.sole_reader_node(term)?;
        if let Op::Binary(BinaryOp::Mul) = reader.op {
            let other = *reader.inputs.iter().find(|&&x| x != term)?;
            let c = self.constant_value(other)?;
            alpha = if dtype == Scalar::F32 {
                c as f32 as f64
            } else {
                c
            };
            term = self.value_of(reader);
            if *self.ty(term) != ty {
                return None;
            }
            reader = self.sole_reader_node(term)?;
        }
        let (op, x, y) = match (&reader.op, reader.inputs.as_slice()) {
            (Op::Binary(op), &[x, y]) => (*op, x, y),
            _ => return None,
        };
        let (start, alpha) = match op {
            BinaryOp::Sub if y == term && x != term => (x, -alpha),
            BinaryOp::Add if y == term && x != term => (x, alpha),
            BinaryOp::Add if x == term && y != term => (y, alpha),
            _ => return None,
        };
        let target = self.value_of(reader);
        // `start` must be computed already (it is copied before the product runs).
        let ok = *self.ty(target) == ty && *self.ty(start) == ty && start.index() < v.index();
        ok.then_some(Update {
            target,
            start,
            alpha,
        })
    }

    /// The one statement reading `v` (once), when `v` is no graph result.
    fn sole_reader_node(&self, v: ValueId) -> Option<&'_ Node> {
        if self.g.results.contains(&v) {
            return None;
        }
        let mut readers = self.g.nodes.iter().filter(|n| n.inputs.contains(&v));
        let node = readers.next()?;
        let once = readers.next().is_none() && node.inputs.iter().filter(|&&x| x == v).count() == 1;
        once.then_some(node)
    }

    /// The value a (single-result) statement defines.
    fn value_of(&self, node: &Node) -> ValueId {
        let i = self
            .g
            .nodes
            .iter()
            .position(|n| std::ptr::eq(n, node))
            .expect("a statement of this graph");
        self.g.node_value(i)
    }

    /// The number a 0-d constant statement holds.
    fn constant_value(&self, v: ValueId) -> Option<f64> {
        let i = v.index().checked_sub(self.g.params.len())?;
        match &self.g.nodes[i].op {
            Op::Const { value, .. } if self.ty(v).shape.is_empty() => match *value {
                ember_core::ir::Scalar::Float(x) => Some(x),
                ember_core::ir::Scalar::Int(x) => Some(x as f64),
                ember_core::ir::Scalar::Bool(_) => None,
            },
            _ => None,
        }
    }

    /// Records that computed value `x` now lies whole in `vr`, so that kernels built later
    /// read it there (a backward pass reads `tanh(z)` again after storing it for a product):
    /// unless computing it reads less memory than the store would (a broadcast constant).
    fn remember_store(&mut self, x: L, vr: &ValueRef) {
        if matches!(self.lazy.nodes[x].op, LOp::Leaf(_)) || !self.reads_whole(x) {
            return;
        }
        let dtype = self.lazy.nodes[x].dtype;
        let leaf = self.leaf(vr.clone(), dtype);
        self.stored.insert(x, leaf);
    }

    /// Whether computing `x` reads a stored value with as many elements as `x` has.
    fn reads_whole(&self, x: L) -> bool {
        let size = |l: L| self.lazy.nodes[l].shape.iter().product::<usize>();
        let whole = size(x);
        let mut todo = vec![x];
        while let Some(l) = todo.pop() {
            match &self.lazy.nodes[l].op {
                LOp::Leaf(_) | LOp::Stage { .. } => {
                    if size(l) >= whole {
                        return true;
                    }
                }
                LOp::Const(_) => {}
                LOp::Unary(_, a) | LOp::Cast(a) | LOp::View(_, a) => todo.push(*a),
                LOp::Binary(_, a, b) => todo.extend([*a, *b]),
                LOp::Where(a, b, c) => todo.extend([*a, *b, *c]),
            }
        }
        false
    }

    /// The first output slot returning `v`, marked written, for ops that write their result
    /// directly (matmul, scans, concatenate).
    pub(crate) fn result_slot(&self, v: ValueId, done: &mut [bool]) -> Option<Slot> {
        let j = (0..self.g.results.len()).find(|&j| self.g.results[j] == v && !done[j])?;
        done[j] = true;
        Some(Slot::Output(j))
    }

    /// View `op` of `x`; `shared`: other statements read `x` too.
    fn view(&mut self, x: L, op: Op, shape: &[usize], shared: bool) -> Result<L, Error> {
        let dtype = self.lazy.nodes[x].dtype;
        if let LOp::Leaf(vr) = &self.lazy.nodes[x].op {
            let mut vr = vr.clone();
            vr.views.push((op, shape.to_vec()));
            return Ok(self.leaf(vr, dtype));
        }
        let xs = self.lazy.nodes[x].shape.clone();
        let stored = if self.worth_storing(x, shape, shared) {
            self.store_for_views(x)?
        } else if pull(&op, &xs, shape, &super::lazy::identity(shape)).is_some() {
            return Ok(self.lazy.push(LOp::View(op, x), dtype, shape.to_vec()));
        } else {
            self.materialise(x, None)?
        };
        let mut vr = stored;
        vr.views.push((op, shape.to_vec()));
        Ok(self.leaf(vr, dtype))
    }

    /// Stores `x` whole; every later reader of `x` loads the store instead of computing it.
    pub(crate) fn store_for_views(&mut self, x: L) -> Result<ValueRef, Error> {
        let vr = self.materialise(x, None)?;
        let dtype = self.lazy.nodes[x].dtype;
        let leaf = self.leaf(vr.clone(), dtype);
        self.stored.insert(x, leaf);
        Ok(vr)
    }

    /// `x` broadcast to `shape`, stored first where [`Self::worth_storing`] says so.
    fn spread(&mut self, x: L, shape: &[usize]) -> Result<L, Error> {
        if self.lazy.nodes[x].shape == shape || !self.worth_storing(x, shape, false) {
            return Ok(self.lazy.broadcast(x, shape));
        }
        let dtype = self.lazy.nodes[x].dtype;
        let vr = self.store_for_views(x)?;
        let stored = self.leaf(vr, dtype);
        Ok(self.lazy.broadcast(stored, shape))
    }

    /// Whether a computed value read through a view of `shape` (a broadcast, a slice) is
    /// better stored once than computed again wherever it is read. A view reads the value at
    /// other indices than its other readers, so the kernel cannot share the work: a value
    /// broadcast along a new axis is computed once per element of that axis, and chains of
    /// views of views (`d = np.minimum(d, d[:, k:k+1] + d[k:k+1])` unrolled) compound that.
    /// Stored: a value that costs [`DEEP_CHAIN`] per element, one that other statements
    /// read too (`shared`) costing [`SHARED_CHAIN`], or one whose recomputation over the
    /// extra elements of a broadcast costs [`RECOMPUTE_LIMIT`].
    fn worth_storing(&self, x: L, shape: &[usize], shared: bool) -> bool {
        let node = &self.lazy.nodes[x];
        if matches!(node.op, LOp::Leaf(_) | LOp::Const(_)) || node.shape.is_empty() {
            return false;
        }
        let Some(cost) = self.lazy.recompute_cost(x, RECOMPUTE_LIMIT) else {
            return false;
        };
        let (own, read) = (
            node.shape.iter().product::<usize>(),
            shape.iter().product::<usize>(),
        );
        cost >= DEEP_CHAIN
            || (shared && cost >= SHARED_CHAIN)
            || cost.saturating_mul(read.saturating_sub(own)) >= RECOMPUTE_LIMIT
    }

    /// Reshape of the keepdims result to the statement's shape.
    fn finish_reduce(&mut self, l: L, shape: &[usize]) -> L {
        if self.lazy.nodes[l].shape == shape {
            return l;
        }
        let dtype = self.lazy.nodes[l].dtype;
        let op = Op::Reshape {
            shape: shape.iter().map(|&n| n.into()).collect(),
        };
        self.lazy.push(LOp::View(op, l), dtype, shape.to_vec())
    }

    fn reduce(
        &mut self,
        x: L,
        kind: ReduceKind,
        axes: Option<&[usize]>,
        dtype: Scalar,
        shape: &[usize],
    ) -> Result<L, Error> {
        let xs = self.lazy.nodes[x].shape.clone();
        let axes: Vec<usize> = match axes {
            Some(a) => a.to_vec(),
            None => (0..xs.len()).collect(),
        };
        self.store_shared_chains(x)?;
        let (op, input) = match kind {
            ReduceKind::Sum | ReduceKind::Mean => (ReduceOp::Sum, self.cast_to(x, dtype)),
            ReduceKind::Prod => (ReduceOp::Prod, self.cast_to(x, dtype)),
            ReduceKind::Max => (ReduceOp::Max, x),
            ReduceKind::Min => (ReduceOp::Min, x),
            ReduceKind::Any => (ReduceOp::Any, self.cast_to(x, Scalar::Bool)),
            ReduceKind::All => (ReduceOp::All, self.cast_to(x, Scalar::Bool)),
        };
        let (mut cur, reduced) = self.merge_reduced_runs(input, &axes, op)?;
        for (i, &a) in reduced.iter().rev().enumerate() {
            if i > 0 {
                let vr = self.materialise(cur, None)?;
                let d = self.lazy.nodes[cur].dtype;
                cur = self.leaf(vr, d);
            }
            cur = self.reduce_axis(cur, a, op)?;
        }
        if kind == ReduceKind::Mean {
            let count: usize = axes.iter().map(|&a| xs[a]).product();
            let n = self.size_value(count as f64, dtype);
            let cs = self.lazy.nodes[cur].shape.clone();
            let n = self.lazy.broadcast(n, &cs);
            cur = self
                .lazy
                .push(LOp::Binary(BinaryOp::Div, cur, n), dtype, cs);
        }
        Ok(self.finish_reduce(cur, shape))
    }

    fn arg_reduce(
        &mut self,
        x: L,
        kind: ArgReduceKind,
        axis: Option<usize>,
        shape: &[usize],
    ) -> Result<L, Error> {
        let op = match kind {
            ArgReduceKind::Argmax => ReduceOp::Argmax,
            ArgReduceKind::Argmin => ReduceOp::Argmin,
        };
        let xs = self.lazy.nodes[x].shape.clone();
        let (x, axis) = match axis {
            Some(a) => (x, a),
            None if xs.len() == 1 => (x, 0),
            None => {
                // The flattened array: stored contiguously, then seen as 1-D.
                let dtype = self.lazy.nodes[x].dtype;
                let tmp = self.new_temp(dtype, &xs);
                let mut vr = self.materialise(x, Some(tmp))?;
                let n: usize = xs.iter().product();
                vr.views.push((
                    Op::Reshape {
                        shape: vec![n.into()],
                    },
                    vec![n],
                ));
                (self.leaf(vr, dtype), 0)
            }
        };
        if self.lazy.nodes[x].shape.is_empty() {
            return Ok(self
                .lazy
                .push(LOp::Const(Const::Int(0)), Scalar::I64, vec![]));
        }
        let r = self.reduce_axis(x, axis, op)?;
        Ok(self.finish_reduce(r, shape))
    }

    /// A float derived from sizes: a compiled-in constant, or -- when other sizes share the
    /// kernels -- a 0-d constant buffer of this plan, which the kernel loads.
    fn size_value(&mut self, value: f64, dtype: Scalar) -> L {
        let bytes = match dtype {
            Scalar::F32 if self.sizes_vary => (value as f32).to_ne_bytes().to_vec(),
            Scalar::F64 if self.sizes_vary => value.to_ne_bytes().to_vec(),
            _ => {
                return self
                    .lazy
                    .push(LOp::Const(Const::Float(value)), dtype, vec![])
            }
        };
        self.consts.push((dtype, Vec::new(), bytes));
        let slot = Slot::Const(self.consts.len() - 1);
        self.leaf(ValueRef::of(slot, &[]), dtype)
    }

    /// `arange` and `eye`: computed once at compile time by the reference interpreter.
    fn constant_array(&mut self, node: &Node, dtype: Scalar, shape: &[usize]) -> Result<L, Error> {
        let mut g = Graph::new("const", vec![]);
        let v = g.push(node.op.clone(), vec![], node.ty.clone());
        g.results.push(v);
        let out = ember_core::interp::run(&g, &[]).map_err(|e| Error::Unsupported(e.message))?;
        let bytes = host_bytes(&out[0]);
        if bytes.len() != shape.iter().product::<usize>() * dtype.size() {
            return Err(Error::Unsupported(format!(
                "a constant {} array of {} bytes for shape {shape:?}",
                node.op.name(),
                bytes.len()
            )));
        }
        self.consts.push((dtype, shape.to_vec(), bytes));
        let slot = Slot::Const(self.consts.len() - 1);
        Ok(self.leaf(ValueRef::of(slot, shape), dtype))
    }
}

/// The raw bytes of a host array in native byte order (bool as one byte 0/1).
pub(crate) fn host_bytes(a: &ember_core::interp::HostArray) -> Vec<u8> {
    use ember_core::interp::Data;
    // Every dtype, so that a constant buffer always holds all its elements.
    match &a.data {
        Data::Bool(v) => v.iter().map(|&b| b as u8).collect(),
        Data::I8(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
        Data::I16(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
        Data::I32(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
        Data::I64(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
        Data::U8(v) => v.clone(),
        Data::U16(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
        Data::U32(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
        Data::U64(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
        Data::F32(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
        Data::F64(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
    }
}
