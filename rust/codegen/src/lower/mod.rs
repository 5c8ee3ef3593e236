//! Lowering of a [`Kernel`] to a Cranelift function.
//!
//! The function has the signature
//! `fn(bases: *const *mut u8, row_strides: *const i64, inner_strides: *const i64, rows: i64, n: i64)`
//! (strides in bytes, one per buffer) and runs every stage for rows `0..rows`. Each stage loop
//! has a SIMD path, taken when every strided buffer of the kernel has a unit inner stride
//! (checked once per call), that processes 128-bit vectors unrolled [`UNROLL`] times, and a
//! scalar loop that serves both as the SIMD path's tail and as the strided fallback.

pub(crate) mod binary;
mod build;
mod cast;
mod const_divide;
pub(crate) mod expr;
mod masks;
pub(crate) mod math;
mod pairwise;
mod stage;
mod staged;
mod touch;

pub(crate) use build::build;

use crate::kernel::ScalarExt;
use crate::kernel::{ExprOp, InnerAccess, Kernel};
use cranelift_codegen::ir::{
    types, Endianness, FuncRef, InstBuilder, MemFlagsData, StackSlot, Value,
};
use cranelift_frontend::FunctionBuilder;
use cranelift_jit::JITModule;
use std::collections::{HashMap, HashSet};

/// Vector bodies are unrolled this many times (Cranelift does not unroll).
pub(crate) const UNROLL: usize = 8;

/// Whether values are scalars or 128-bit vectors of lanes `width` bytes wide.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// One element.
    Scalar,
    /// `16 / width` elements of `width` bytes (1 only for stages of bools alone).
    Vector(usize),
}

impl Mode {
    /// Elements per value.
    pub(crate) fn lanes(self) -> usize {
        match self {
            Mode::Scalar => 1,
            Mode::Vector(w) => 16 / w,
        }
    }
}

/// Memory flags for bitcasts between vector types (Cranelift asks for an explicit byte order).
pub(crate) fn little() -> MemFlagsData {
    MemFlagsData::new().with_endianness(Endianness::Little)
}

/// Flags for kernel loads and stores: the runtime checks every extent, so they cannot trap.
pub(crate) fn mem() -> MemFlagsData {
    MemFlagsData::new().with_notrap()
}

/// Flags for loads of a buffer the kernel never writes. Read-only and movable, they are pure
/// to Cranelift, which then places each load next to its first use instead of keeping every
/// load where it was emitted (which keeps all unrolled copies' inputs live at once). They
/// stay inside their loop: every address depends on the loop's index.
pub(crate) fn mem_input() -> MemFlagsData {
    mem().with_readonly().with_can_move()
}

/// Per-function lowering state.
pub(crate) struct Emitter<'a, 'b> {
    pub(crate) b: FunctionBuilder<'b>,
    pub(crate) k: &'a Kernel,
    pub(crate) module: &'a mut JITModule,
    pub(crate) libm_refs: HashMap<(String, usize), FuncRef>,
    /// Row base pointer of each buffer for the current row.
    pub(crate) row_ptr: Vec<Value>,
    /// Per buffer to touch ahead: its next row's base pointer (the current row's in the
    /// last row, so that every touched address stays inside the buffer).
    pub(crate) next_row_ptr: Vec<(usize, Value)>,
    /// The stage whose vector loop touches the next row of `next_row_ptr`'s buffers.
    pub(crate) touch_stage: Option<usize>,
    pub(crate) stage_index: usize,
    /// While set, the reduction being emitted also stores each reduced value here.
    pub(crate) reduce_store: Option<usize>,
    /// Inner stride in bytes of each buffer.
    pub(crate) inner_stride: Vec<Value>,
    /// Row-invariant values of the current row, as scalars.
    pub(crate) row_values: HashMap<usize, Value>,
    /// Which expression nodes are row-invariant.
    pub(crate) invariant: Vec<bool>,
    /// Which buffers the kernel writes (the others are loaded as movable, read-only memory).
    pub(crate) written: Vec<bool>,
    /// Whether the SIMD paths may be emitted at all.
    pub(crate) vectorize: bool,
    /// Whether the ISA has fused multiply-add.
    pub(crate) fma: bool,
    /// The runtime flag "every strided buffer has a unit inner stride".
    pub(crate) contiguous: Option<Value>,
    pub(crate) n: Option<Value>,
    /// Nodes that [`Emitter::needed`] treats as leaves: computed by NumPy's loops into
    /// scratch storage (`staged`).
    pub(crate) leaves: HashSet<usize>,
    /// Per staged node, the scratch address element 0 of the row would have, and the
    /// element size (see `staged`).
    pub(crate) staged: HashMap<usize, (Value, i64)>,
    /// Stack slots for scratch blocks (bytes, slot, taken by the stage being emitted): a
    /// stage's blocks are free again once the next stage begins, so a kernel of many stages
    /// that each stage through NumPy's loops keeps a few blocks, not one per stage (hundreds
    /// of 8 KiB blocks would overflow the thread's stack).
    pub(crate) scratch_slots: Vec<(u32, StackSlot, bool)>,
}

impl Emitter<'_, '_> {
    /// Makes the per-row result of reduction stage `s` available to later stages.
    fn set_stage_result(&mut self, s: usize, res: Value) {
        if let Some(id) = self
            .k
            .exprs
            .iter()
            .position(|e| e.op == ExprOp::StageResult(s))
        {
            self.row_values.insert(id, res);
        }
    }

    /// Nodes that `root` depends on (itself included), in definition order.
    pub(crate) fn needed(&self, root: usize) -> Vec<usize> {
        let mut mark = vec![false; root + 1];
        mark[root] = true;
        for i in (0..=root).rev() {
            if !mark[i] || self.leaves.contains(&i) {
                continue;
            }
            for x in self.k.exprs[i].op.operands() {
                mark[x] = true;
            }
        }
        (0..=root).filter(|&i| mark[i]).collect()
    }

    /// The vector mode a stage can use, if any: one lane width for every node and buffer.
    pub(crate) fn stage_mode(&self, root: usize, extra: Option<crate::kernel::Scalar>) -> Mode {
        self.mode_of(root, extra, false)
    }

    /// [`Self::stage_mode`] for a map storing `root` to a buffer of type `store`: a root that
    /// narrows 8-byte lanes to 4-byte ones ([`expr::crossing_cast`]) is stored from the low
    /// half of its vector.
    pub(crate) fn map_mode(&self, root: usize, store: crate::kernel::Scalar) -> Mode {
        self.mode_of(root, Some(store), true)
    }

    /// 4-byte loads among `nodes` read only by casts to 8-byte lanes: in a stage of 8-byte
    /// lanes they fill the low half of a vector (see [`expr::crossing_cast`]).
    fn half_loads(&self, nodes: &[usize]) -> HashSet<usize> {
        let mut only_widened: HashMap<usize, bool> = HashMap::new();
        for &i in nodes {
            let e = &self.k.exprs[i];
            for x in e.op.operands() {
                let widens = matches!(e.op, ExprOp::Cast(_))
                    && expr::crossing_cast(self.k.exprs[x].ty, e.ty)
                    && e.ty.size() == 8;
                *only_widened.entry(x).or_insert(true) &= widens;
            }
        }
        only_widened
            .into_iter()
            .filter(|&(x, ok)| ok && matches!(self.k.exprs[x].op, ExprOp::Load(_)))
            .map(|(x, _)| x)
            .collect()
    }

    fn mode_of(&self, root: usize, extra: Option<crate::kernel::Scalar>, half_root: bool) -> Mode {
        use crate::kernel::Scalar;
        if !self.vectorize {
            return Mode::Scalar;
        }
        if extra.is_some_and(|s| !s.vectorizes()) {
            return Mode::Scalar;
        }
        let nodes = self.needed(root);
        let half = self.half_loads(&nodes);
        let narrows_root = |i: usize| {
            let e = &self.k.exprs[i];
            half_root
                && i == root
                && matches!(e.op, ExprOp::Cast(x) if expr::crossing_cast(self.k.exprs[x].ty, e.ty))
                && e.ty.size() == 4
        };
        let mut width = extra.map(|s| if narrows_root(root) { 8 } else { s.size() });
        let mut loads_bools = false;
        for &i in &nodes {
            // Half loads take the width of the casts reading them.
            if self.invariant[i] || half.contains(&i) {
                continue;
            }
            let e = &self.k.exprs[i];
            if !e.ty.vectorizes() {
                return Mode::Scalar;
            }
            let w = match e.op {
                _ if self.leaves.contains(&i) => Some(e.ty.size()),
                ExprOp::Load(b) => {
                    let d = self.k.buffers[b].dtype;
                    if !d.vectorizes() {
                        return Mode::Scalar;
                    }
                    loads_bools |= d == Scalar::Bool;
                    (d != Scalar::Bool).then(|| d.size())
                }
                ExprOp::Unary(op, x) => {
                    let xt = self.k.exprs[x].ty;
                    if !expr::vector_unary(op, xt) {
                        return Mode::Scalar;
                    }
                    (xt != Scalar::Bool).then(|| xt.size())
                }
                ExprOp::Binary(op, x, _) => {
                    let xt = self.k.exprs[x].ty;
                    if !expr::vector_binary(op, xt) {
                        return Mode::Scalar;
                    }
                    (xt != Scalar::Bool).then(|| xt.size())
                }
                ExprOp::Cast(x) => {
                    let xt = self.k.exprs[x].ty;
                    let numeric = xt != Scalar::Bool && e.ty != Scalar::Bool;
                    if numeric && xt.size() != e.ty.size() {
                        let half_side = if xt.size() == 4 {
                            half.contains(&x)
                        } else {
                            narrows_root(i)
                        };
                        if !(expr::crossing_cast(xt, e.ty) && half_side) {
                            return Mode::Scalar;
                        }
                        Some(8)
                    } else if numeric && xt.size() == 8 && !expr::wide_int_float_cast(xt, e.ty) {
                        return Mode::Scalar;
                    } else {
                        (xt != Scalar::Bool).then(|| xt.size())
                    }
                }
                _ => None,
            };
            let w = w.or((e.ty != Scalar::Bool).then(|| e.ty.size()));
            if let Some(w) = w {
                match width {
                    None => width = Some(w),
                    Some(v) if v != w => return Mode::Scalar,
                    _ => {}
                }
            }
        }
        match width {
            Some(w) if w == 4 || w == 8 => Mode::Vector(w),
            // Bools alone (`a & b` of bool arrays) have no width of their own: byte masks,
            // 16 to a vector, loaded and stored as they lie.
            None if loads_bools => Mode::Vector(1),
            _ => Mode::Scalar,
        }
    }

    /// Computes the row-invariant nodes `root` needs that are not yet known for this row.
    pub(crate) fn compute_invariants(&mut self, root: usize) {
        for i in self.needed(root) {
            if !self.invariant[i] || self.row_values.contains_key(&i) {
                continue;
            }
            let zero = self.b.ins().iconst(types::I64, 0);
            let v = self.node(i, Mode::Scalar, zero, &HashMap::new());
            self.row_values.insert(i, v);
        }
    }

    /// Evaluates `root` at inner index `j` in `mode`; `splats` holds the row-invariant nodes
    /// already broadcast for this mode.
    pub(crate) fn eval(
        &mut self,
        root: usize,
        mode: Mode,
        j: Value,
        splats: &HashMap<usize, Value>,
    ) -> Value {
        self.eval_many(root, mode, &[j], splats)[0]
    }

    /// Whether computing `root` involves a polynomial function (see [`math`]).
    pub(crate) fn has_polynomial(&self, root: usize) -> bool {
        self.needed(root).into_iter().any(|i| {
            !self.invariant[i]
                && matches!(self.k.exprs[i].op, ExprOp::Unary(op, x)
                    if self.k.exprs[x].ty.is_float() && expr::is_polynomial(op))
        })
    }

    /// Evaluates `root` at each inner index of `js` (one per unrolled copy); polynomial
    /// functions get the whole group at once (see [`math`]). Every copy's loads come first,
    /// so for expressions without such functions callers do better to evaluate (and store or
    /// accumulate) copy by copy, keeping fewer values live.
    pub(crate) fn eval_many(
        &mut self,
        root: usize,
        mode: Mode,
        js: &[Value],
        splats: &HashMap<usize, Value>,
    ) -> Vec<Value> {
        let mut memo: Vec<HashMap<usize, Value>> = vec![HashMap::new(); js.len()];
        for i in self.needed(root) {
            if let Some(&(origin, size)) = self.staged.get(&i) {
                let t = expr::cl_type(self.k.exprs[i].ty, mode);
                for (m, &j) in memo.iter_mut().zip(js) {
                    let a = self.scratch_addr(origin, size, j);
                    let v = self.b.ins().load(t, MemFlagsData::trusted(), a, 0);
                    m.insert(i, v);
                }
                continue;
            }
            if let ExprOp::Unary(op, x) = self.k.exprs[i].op {
                let xt = self.k.exprs[x].ty;
                if !self.invariant[i] && xt.is_float() && expr::is_polynomial(op) {
                    let xs: Vec<Value> = memo
                        .iter()
                        .map(|m| m.get(&x).copied().unwrap_or_else(|| self.row_values[&x]))
                        .collect();
                    let vs = self.unary_group(op, &xs, xt, mode);
                    for (m, v) in memo.iter_mut().zip(vs) {
                        m.insert(i, v);
                    }
                    continue;
                }
            }
            for (u, &j) in js.iter().enumerate() {
                let v = if self.invariant[i] {
                    match mode {
                        Mode::Scalar => self.row_values[&i],
                        Mode::Vector(_) => splats[&i],
                    }
                } else {
                    self.node(i, mode, j, &memo[u])
                };
                memo[u].insert(i, v);
            }
        }
        memo.iter().map(|m| m[&root]).collect()
    }

    /// Broadcasts the row-invariant nodes `root` needs into `mode`.
    pub(crate) fn splat_invariants(&mut self, root: usize, mode: Mode) -> HashMap<usize, Value> {
        let mut out = HashMap::new();
        if mode == Mode::Scalar {
            return out;
        }
        for i in self.needed(root) {
            if self.invariant[i] {
                let v = self.row_values[&i];
                let ty = self.k.exprs[i].ty;
                let s = self.splat(v, ty, mode);
                out.insert(i, s);
            }
        }
        out
    }

    /// Address of element `j` of buffer `b` (contiguous layout in vector mode).
    pub(crate) fn addr(&mut self, b: usize, j: Value, mode: Mode) -> Value {
        let p = self.row_ptr[b];
        if self.k.buffers[b].inner == InnerAccess::Row {
            return p;
        }
        let off = match mode {
            Mode::Scalar => self.b.ins().imul(j, self.inner_stride[b]),
            Mode::Vector(_) => {
                let size = self.k.buffers[b].dtype.size() as i64;
                self.b.ins().imul_imm_s(j, size)
            }
        };
        self.b.ins().iadd(p, off)
    }

    fn node(&mut self, i: usize, mode: Mode, j: Value, memo: &HashMap<usize, Value>) -> Value {
        let e = self.k.exprs[i].clone();
        let inv_get = |this: &Self, x: usize| -> Value {
            memo.get(&x).copied().unwrap_or_else(|| this.row_values[&x])
        };
        match e.op {
            ExprOp::Load(b) => {
                let a = self.addr(b, j, mode);
                let t = expr::cl_type(e.ty, mode);
                let flags = if self.written[b] { mem() } else { mem_input() };
                let bools = e.ty == crate::kernel::Scalar::Bool;
                if bools && mode != Mode::Scalar {
                    return self.load_masks(a, flags, mode);
                }
                if mode == Mode::Vector(8) && e.ty.size() == 4 {
                    // A half load (see `half_loads`): two elements, the upper lanes zero.
                    let pair = self.b.ins().load(types::I64, flags, a, 0);
                    let v = self.b.ins().scalar_to_vector(types::I64X2, pair);
                    return self.b.ins().bitcast(t, little(), v);
                }
                let v = self.b.ins().load(t, flags, a, 0);
                if bools {
                    // Any non-zero byte is true.
                    let z = self.b.ins().iconst(types::I8, 0);
                    self.b
                        .ins()
                        .icmp(cranelift_codegen::ir::condcodes::IntCC::NotEqual, v, z)
                } else {
                    v
                }
            }
            ExprOp::Const(c) => self.constant(c, e.ty, mode),
            ExprOp::StageResult(s) => panic!("stage {s} result read before the stage ran"),
            ExprOp::Unary(op, x) => {
                let xv = inv_get(self, x);
                let xt = self.k.exprs[x].ty;
                self.unary(op, xv, xt, mode)
            }
            ExprOp::Binary(op, x, y) => {
                let (xv, yv) = (inv_get(self, x), inv_get(self, y));
                let xt = self.k.exprs[x].ty;
                self.binary(op, xv, yv, xt, mode)
            }
            ExprOp::Where(c, x, y) => {
                let (cv, xv, yv) = (inv_get(self, c), inv_get(self, x), inv_get(self, y));
                self.pick(cv, xv, yv, e.ty, mode)
            }
            ExprOp::Cast(x) => {
                let xv = inv_get(self, x);
                let xt = self.k.exprs[x].ty;
                self.cast(xv, xt, e.ty, mode)
            }
        }
    }
}
