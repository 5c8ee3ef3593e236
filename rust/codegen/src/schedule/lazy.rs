//! Values not yet in memory: elementwise expression DAGs over stored leaves, with views and
//! broadcasting as index maps, instantiated into a kernel's expression DAG on demand.
//!
//! An index map says, for each axis of a value, which iteration dim of the kernel drives it and
//! how (`index = start + step * i`), or that it is fixed (`dim = None`, index `start`). Views of
//! a lazy value pull the map of the view back to a map of its operand, so a transposed, sliced,
//! flipped or broadcast elementwise chain is computed in place, never copied.

use super::{Slot, ValueRef};
use crate::kernel::{self, Const, ExprId, InnerAccess, Kernel, Scalar};
use crate::Error;
use ember_core::ir::Op;
use std::collections::HashMap;

/// Index of a node in [`Lazy::nodes`].
pub(crate) type L = usize;

/// How one axis of a value is indexed by a kernel's iteration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct AxisMap {
    /// The iteration dim, or `None` for a fixed index.
    pub dim: Option<usize>,
    /// Index at iteration 0.
    pub start: isize,
    /// Index step per iteration of `dim`.
    pub step: isize,
}

/// One [`AxisMap`] per axis of a value.
pub(crate) type IndexMap = Vec<AxisMap>;

/// The identity map of a value iterated over its own shape.
pub(crate) fn identity(shape: &[usize]) -> IndexMap {
    shape
        .iter()
        .enumerate()
        .map(|(i, &n)| {
            fixed_if_unit(
                n,
                AxisMap {
                    dim: Some(i),
                    start: 0,
                    step: 1,
                },
            )
        })
        .collect()
}

/// Size-1 axes always read index 0: normalising them makes equal accesses compare equal.
fn fixed_if_unit(n: usize, m: AxisMap) -> AxisMap {
    if n == 1 {
        AxisMap {
            dim: None,
            start: 0,
            step: 0,
        }
    } else {
        m
    }
}

/// What a lazy node computes.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum LOp {
    /// A stored value.
    Leaf(ValueRef),
    /// A scalar (0-d).
    Const(Const),
    /// Elementwise op of one operand of the same shape.
    Unary(kernel::UnaryOp, L),
    /// Elementwise op of two operands of the same shape, already in the loop dtype.
    Binary(kernel::BinaryOp, L, L),
    /// `where` of three operands of the same shape.
    Where(L, L, L),
    /// `astype` to the node's dtype.
    Cast(L),
    /// A view (transpose, broadcast_to, expand_dims, squeeze, slice, flip, or a reshape that
    /// only adds or removes size-1 axes) of the operand.
    View(Op, L),
    /// The per-row result of reduction stage `stage` of group `group` (keepdims shape).
    Stage { group: usize, stage: usize },
}

/// One lazy node: op, dtype and shape.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct LNode {
    pub op: LOp,
    pub dtype: Scalar,
    pub shape: Vec<usize>,
}

/// Why an instantiation could not proceed.
#[derive(Debug)]
pub(crate) enum Refuse {
    /// Group `g` must run (be closed) first.
    NeedClose(usize),
    /// A real error.
    Fail(Error),
}

impl From<Error> for Refuse {
    fn from(e: Error) -> Self {
        Refuse::Fail(e)
    }
}

/// The arena of lazy nodes.
#[derive(Default)]
pub(crate) struct Lazy {
    pub nodes: Vec<LNode>,
}

impl Lazy {
    /// Adds a node.
    pub fn push(&mut self, op: LOp, dtype: Scalar, shape: Vec<usize>) -> L {
        self.nodes.push(LNode { op, dtype, shape });
        self.nodes.len() - 1
    }

    /// `x` broadcast to `shape` (no node when the shape already matches).
    pub fn broadcast(&mut self, x: L, shape: &[usize]) -> L {
        if self.nodes[x].shape == shape {
            return x;
        }
        let dtype = self.nodes[x].dtype;
        let op = Op::BroadcastTo {
            shape: shape.iter().map(|&n| n.into()).collect(),
        };
        self.push(LOp::View(op, x), dtype, shape.to_vec())
    }

    /// Work per element of computing `x` where it is read, in rough units of one add (a libm
    /// call counts as [`LIBM_COST`]); `None` when `x` reads a reduction's per-row result,
    /// whose group decides where it is computed. Nodes read at the same indices are shared
    /// (counted once), but a view reads its operand at other indices, so the operand's work
    /// is counted again for every view of it: a chain of slices of slices grows as fast as
    /// the kernel that would compute it. Saturates at `limit`.
    pub fn recompute_cost(&self, x: L, limit: usize) -> Option<usize> {
        let mut views = HashMap::new();
        self.region_cost(x, limit, &mut views)
    }

    fn region_cost(&self, x: L, limit: usize, views: &mut HashMap<L, usize>) -> Option<usize> {
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![x];
        let mut cost = 0usize;
        while let Some(l) = stack.pop() {
            if !seen.insert(l) {
                continue;
            }
            cost = cost.saturating_add(match &self.nodes[l].op {
                LOp::Leaf(_) | LOp::Const(_) => 0,
                LOp::Stage { .. } => return None,
                LOp::View(_, a) => match views.get(a) {
                    Some(&c) => c,
                    None => {
                        let c = self.region_cost(*a, limit, views)?;
                        views.insert(*a, c);
                        c
                    }
                },
                LOp::Cast(a) => {
                    stack.push(*a);
                    1
                }
                LOp::Unary(op, a) => {
                    stack.push(*a);
                    unary_cost(*op)
                }
                LOp::Binary(op, a, b) => {
                    stack.extend([*a, *b]);
                    binary_cost(*op)
                }
                LOp::Where(c, a, b) => {
                    stack.extend([*c, *a, *b]);
                    1
                }
            });
            if cost >= limit {
                return Some(limit);
            }
        }
        Some(cost)
    }

    /// The lazy nodes `l` computes from, and what computing it costs per element beyond
    /// them (in adds, as [`Self::recompute_cost`] counts): none for a stored value, a
    /// constant or a reduction stage's result, whose work is done elsewhere.
    pub fn operands_and_cost(&self, l: L) -> (Vec<L>, usize) {
        match &self.nodes[l].op {
            LOp::Leaf(_) | LOp::Const(_) | LOp::Stage { .. } => (vec![], 0),
            LOp::View(_, a) => (vec![*a], 0),
            LOp::Cast(a) => (vec![*a], 1),
            LOp::Unary(op, a) => (vec![*a], unary_cost(*op)),
            LOp::Binary(op, a, b) => (vec![*a, *b], binary_cost(*op)),
            LOp::Where(c, a, b) => (vec![*c, *a, *b], 1),
        }
    }

    /// `x` cast to `dtype` (no node when it already has it).
    pub fn cast(&mut self, x: L, dtype: Scalar) -> L {
        if self.nodes[x].dtype == dtype {
            return x;
        }
        let shape = self.nodes[x].shape.clone();
        self.push(LOp::Cast(x), dtype, shape)
    }
}

/// What one libm call costs against an add in [`Lazy::recompute_cost`].
pub(crate) const LIBM_COST: usize = 8;

fn unary_cost(op: kernel::UnaryOp) -> usize {
    use kernel::UnaryOp::*;
    match op {
        Cbrt | Exp | Exp2 | Expm1 | Log | Log2 | Log10 | Log1p | Sin | Cos | Tan | Arcsin
        | Arccos | Arctan | Sinh | Cosh | Tanh | Arcsinh | Arccosh | Arctanh | Erf | Erfc => {
            LIBM_COST
        }
        _ => 1,
    }
}

fn binary_cost(op: kernel::BinaryOp) -> usize {
    use kernel::BinaryOp::*;
    match op {
        Pow | Arctan2 | Hypot | Logaddexp | Mod | Fmod | Floordiv => LIBM_COST,
        _ => 1,
    }
}

/// Pulls the index map of a view's result back to its operand's axes; `None` when the view is
/// not an index map (a reshape that merges or splits axes).
pub(crate) fn pull(
    op: &Op,
    in_shape: &[usize],
    out_shape: &[usize],
    out: &IndexMap,
) -> Option<IndexMap> {
    let fixed = AxisMap {
        dim: None,
        start: 0,
        step: 0,
    };
    let m: IndexMap = match op {
        Op::Transpose { perm } => {
            let mut m = vec![fixed; in_shape.len()];
            for (i, &p) in perm.iter().enumerate() {
                m[p] = out[i];
            }
            m
        }
        Op::BroadcastTo { .. } => {
            let off = out_shape.len() - in_shape.len();
            (0..in_shape.len())
                .map(|j| {
                    if in_shape[j] == 1 {
                        fixed
                    } else {
                        out[j + off]
                    }
                })
                .collect()
        }
        Op::ExpandDims { axes } => (0..out_shape.len())
            .filter(|i| !axes.contains(i))
            .map(|i| out[i])
            .collect(),
        Op::Squeeze { axes } => {
            let mut it = out.iter();
            (0..in_shape.len())
                .map(|i| {
                    if axes.contains(&i) {
                        fixed
                    } else {
                        *it.next().unwrap()
                    }
                })
                .collect()
        }
        Op::Slice { start, step, .. } => (0..in_shape.len())
            .map(|a| AxisMap {
                dim: out[a].dim,
                start: start[a] as isize + step[a] as isize * out[a].start,
                step: step[a] as isize * out[a].step,
            })
            .collect(),
        Op::Flip { axes } => (0..in_shape.len())
            .map(|a| {
                if axes.contains(&a) {
                    AxisMap {
                        dim: out[a].dim,
                        start: in_shape[a] as isize - 1 - out[a].start,
                        step: -out[a].step,
                    }
                } else {
                    out[a]
                }
            })
            .collect(),
        Op::Reshape { .. } => {
            // Only size-1 axes may appear or vanish: the other axes keep their order.
            let a: Vec<usize> = (0..in_shape.len()).filter(|&i| in_shape[i] != 1).collect();
            let b: Vec<usize> = (0..out_shape.len())
                .filter(|&i| out_shape[i] != 1)
                .collect();
            if a.len() != b.len() || a.iter().zip(&b).any(|(&i, &j)| in_shape[i] != out_shape[j]) {
                return None;
            }
            let mut m = vec![fixed; in_shape.len()];
            for (&i, &j) in a.iter().zip(&b) {
                m[i] = out[j];
            }
            m
        }
        _ => return None,
    };
    Some(
        m.into_iter()
            .zip(in_shape)
            .map(|(x, &n)| fixed_if_unit(n, x))
            .collect(),
    )
}

/// A kernel under construction: its expression DAG and the operand of each of its buffers.
pub(crate) struct KernelBuilder {
    pub kernel: Kernel,
    /// Per buffer: the stored value and how the iteration indexes it.
    pub operands: Vec<(ValueRef, IndexMap)>,
    /// Number of iteration dims; the last is the inner extent.
    pub ndims: usize,
    /// The group this kernel belongs to, if it is a reduction group's kernel.
    pub group: Option<usize>,
    memo: HashMap<(L, IndexMap), ExprId>,
}

impl KernelBuilder {
    /// The lazy nodes this kernel computes (for drawing fusion groups).
    pub fn computed(&self) -> Vec<L> {
        let mut nodes: Vec<L> = self.memo.keys().map(|k| k.0).collect();
        nodes.sort_unstable();
        nodes.dedup();
        nodes
    }

    /// An empty kernel over `ndims` iteration dims.
    pub fn new(ndims: usize, group: Option<usize>) -> Self {
        KernelBuilder {
            kernel: Kernel::default(),
            operands: Vec::new(),
            ndims,
            group,
            memo: HashMap::new(),
        }
    }

    /// A buffer for `(value, map)`, shared when the same access recurs.
    pub fn operand(&mut self, vr: ValueRef, map: IndexMap, dtype: Scalar) -> usize {
        if let Some(i) = self
            .operands
            .iter()
            .position(|(v, m)| *v == vr && *m == map)
        {
            if self.kernel.buffers[i].dtype == dtype {
                return i;
            }
        }
        let inner = self.ndims.checked_sub(1);
        let row = self.ndims == 0 || !map.iter().any(|a| a.dim == inner && a.step != 0);
        let access = if row {
            InnerAccess::Row
        } else {
            InnerAccess::Strided
        };
        self.operands.push((vr, map));
        self.kernel.buffer(dtype, access)
    }
}

/// What instantiation needs to know about the plan around it.
pub(crate) trait Context {
    /// The lazy arena.
    fn lazy(&self) -> &Lazy;
    /// The open group whose pending output is `slot`, if any.
    fn pending(&self, slot: Slot) -> Option<usize>;
    /// The lazy node that an open group is writing into `slot`.
    fn slot_lazy(&self, slot: Slot) -> Option<L>;
    /// For an open group: its canonical index map of a stage result (keepdims shape).
    fn row_map(&self, group: usize) -> Option<IndexMap>;
    /// For a closed group: where stage `stage`'s per-row results were stored.
    fn stage_store(&self, group: usize, stage: usize) -> ValueRef;
    /// The kernel stage index of reduction `stage` of `group`.
    fn stage_index(&self, group: usize, stage: usize) -> usize;
    /// A leaf reading where `l` was already stored whole, when reading it there costs no
    /// more than computing it again.
    fn stored(&self, l: L) -> Option<L>;
}

/// Instantiates lazy node `l` read through `map` into the kernel under construction.
pub(crate) fn inst(
    cx: &dyn Context,
    kb: &mut KernelBuilder,
    l: L,
    map: &IndexMap,
) -> Result<ExprId, Refuse> {
    let key = (l, map.clone());
    if let Some(&e) = kb.memo.get(&key) {
        return Ok(e);
    }
    if let Some(leaf) = cx.stored(l) {
        let e = inst(cx, kb, leaf, map)?;
        kb.memo.insert(key, e);
        return Ok(e);
    }
    let node = cx.lazy().nodes[l].clone();
    let e = match &node.op {
        LOp::Leaf(vr) => {
            if let Some(g) = cx.pending(vr.slot) {
                match (
                    kb.group == Some(g),
                    vr.views.is_empty(),
                    cx.slot_lazy(vr.slot),
                ) {
                    (true, true, Some(src)) => return inst(cx, kb, src, map),
                    _ => return Err(Refuse::NeedClose(g)),
                }
            }
            let b = kb.operand(vr.clone(), map.clone(), node.dtype);
            kb.kernel.load(b)
        }
        LOp::Const(c) => kb.kernel.constant(*c, node.dtype),
        LOp::Unary(op, x) => {
            let xe = inst(cx, kb, *x, map)?;
            kb.kernel.unary(*op, xe)
        }
        LOp::Binary(op, x, y) => {
            let xe = inst(cx, kb, *x, map)?;
            let ye = inst(cx, kb, *y, map)?;
            kb.kernel.binary(*op, xe, ye)
        }
        LOp::Where(c, x, y) => {
            let ce = inst(cx, kb, *c, map)?;
            let xe = inst(cx, kb, *x, map)?;
            let ye = inst(cx, kb, *y, map)?;
            kb.kernel.select(ce, xe, ye)
        }
        LOp::Cast(x) => {
            let xe = inst(cx, kb, *x, map)?;
            kb.kernel.cast(xe, node.dtype)
        }
        LOp::View(op, x) => {
            let xs = cx.lazy().nodes[*x].shape.clone();
            let inner = pull(op, &xs, &node.shape, map).ok_or_else(|| {
                Refuse::Fail(Error::Unsupported(format!(
                    "{} of a computed value reaching codegen unmaterialised",
                    op.name()
                )))
            })?;
            inst(cx, kb, *x, &inner)?
        }
        LOp::Stage { group, stage } => match cx.row_map(*group) {
            Some(rm) if kb.group == Some(*group) => {
                if rm != *map {
                    return Err(Refuse::NeedClose(*group));
                }
                let s = cx.stage_index(*group, *stage);
                kb.kernel.stage_result(s)
            }
            Some(_) => return Err(Refuse::NeedClose(*group)),
            None => {
                let vr = cx.stage_store(*group, *stage);
                let b = kb.operand(vr, map.clone(), node.dtype);
                kb.kernel.load(b)
            }
        },
    };
    kb.memo.insert(key, e);
    Ok(e)
}
