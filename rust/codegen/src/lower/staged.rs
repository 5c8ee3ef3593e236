//! Map stages whose transcendental functions run in NumPy's own loops ([`crate::ufunc`]).
//!
//! For a row of at least [`MIN_ROW`] elements, the stage runs block by block: for each node
//! with a registered loop (in definition order), one sweep over the block computes each of
//! the node's operands into a scratch buffer on the stack (an operand loaded from a buffer is
//! read where it is, one that is the same for the whole row is passed once, with a step of
//! 0), then one call applies NumPy's loop to them, writing into the first; a last sweep computes the stage's value, reading those nodes from their scratch
//! buffers, and stores it. Everything else in the expression stays fused in the sweeps, which
//! are ordinary vector loops (the nodes are leaves there, so an op without a vector form of
//! its own, `arcsin` say, no longer makes the whole stage scalar). Shorter rows keep the
//! kernel's own code for these functions.

use super::expr::cl_type;
use super::{little, mem, Emitter, Mode, UNROLL};
use crate::kernel::ScalarExt;
use crate::kernel::{ExprOp, InnerAccess, ReduceOp, Scalar};
use crate::ufunc::{self, LoopOp, BLOCK, MIN_ROW};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    types, AbiParam, InstBuilder, MemFlagsData, StackSlotData, StackSlotKind, Value,
};
use cranelift_frontend::Variable;
use cranelift_module::{Linkage, Module};
use std::collections::HashMap;

/// A reduction's staged nodes: their scratch buffers and the block of the row they hold,
/// `lo..hi` (see [`Emitter::ensure`]).
pub(crate) struct Refill {
    nodes: Vec<usize>,
    scratch: Vec<Scratch>,
    lo: Variable,
    hi: Variable,
}

/// A staged node's stack storage: its block of results (`ptr`, elements of `size` bytes,
/// also its first operand's block), its second operand's block (binary ops), and room for an
/// operand that is one value for the row.
#[derive(Clone, Copy)]
struct Scratch {
    ptr: Value,
    size: i64,
    second: Option<Value>,
    one: Value,
}

/// Where a sweep's values go.
#[derive(Clone, Copy)]
pub(crate) enum Sink {
    /// Element `j` of scratch storage whose element 0 of the row would be at `origin`.
    Scratch { origin: Value, size: i64 },
    /// The stage's output buffer.
    Buffer(usize),
}

impl Emitter<'_, '_> {
    /// The nodes of `root` that run as NumPy loops on long rows: float ops that vary along
    /// the row, whose operands have their dtype and that have a registered loop, in definition
    /// order.
    pub(crate) fn ufunc_nodes(&self, root: usize) -> Vec<usize> {
        self.needed(root)
            .into_iter()
            .filter(|&i| !self.invariant[i] && !self.predicate(i) && self.loop_of(i).is_some())
            .collect()
    }

    /// Whether node `i` is a predicate of floats (`x > y`, `isnan(x)`): NumPy's loops for
    /// them write bytes, so they run as loops only as the value a map stores to bools,
    /// straight into its output ([`Self::map`]); inside an expression they stay the kernel's
    /// masks.
    pub(crate) fn predicate(&self, i: usize) -> bool {
        let e = &self.k.exprs[i];
        match e.op {
            ExprOp::Unary(_, x) | ExprOp::Binary(_, x, _) => {
                e.ty == Scalar::Bool && self.k.exprs[x].ty.is_float()
            }
            _ => false,
        }
    }

    /// The dtype of node `i`'s loop operands: the node's own, or its first operand's for a
    /// predicate.
    fn loop_type(&self, i: usize) -> Scalar {
        let e = &self.k.exprs[i];
        match e.op {
            ExprOp::Unary(_, x) | ExprOp::Binary(_, x, _) if self.predicate(i) => {
                self.k.exprs[x].ty
            }
            _ => e.ty,
        }
    }

    /// The registered loop computing node `i`, and the node's operands: of the node's dtype,
    /// or of one float dtype for a predicate.
    fn loop_of(&self, i: usize) -> Option<(usize, Vec<usize>)> {
        let e = &self.k.exprs[i];
        let loop_ty = self.loop_type(i);
        let same = |x: usize| self.k.exprs[x].ty == loop_ty;
        match e.op {
            ExprOp::Unary(op, x) if same(x) => {
                Some((ufunc::slot(LoopOp::Unary(op), loop_ty)?, vec![x]))
            }
            ExprOp::Binary(op, x, y) if same(x) && same(y) => {
                Some((ufunc::slot(LoopOp::Binary(op), loop_ty)?, vec![x, y]))
            }
            _ => None,
        }
    }

    /// Whether `value`, stored to `buffer`, is a predicate with a registered loop that writes
    /// the buffer's elements itself.
    pub(crate) fn predicate_loop(&self, buffer: usize, value: usize) -> bool {
        self.predicate(value)
            && !self.invariant[value]
            && self.k.buffers[buffer].dtype == Scalar::Bool
            && self.k.buffers[buffer].inner == InnerAccess::Strided
            && self.loop_of(value).is_some()
    }

    /// `map(buffer, value)` with `nodes` (from [`Self::ufunc_nodes`], not empty) run by NumPy's
    /// loops on rows of at least [`MIN_ROW`] elements; `plain` emits the stage's own loops for
    /// shorter rows.
    pub(crate) fn map_staged(
        &mut self,
        buffer: usize,
        value: usize,
        nodes: &[usize],
        plain: impl FnOnce(&mut Self),
    ) {
        self.by_row_length(|em| em.blocks(buffer, value, nodes), plain);
    }

    /// Emits `long` for rows of at least [`MIN_ROW`] elements and `short` for the others.
    fn by_row_length(&mut self, long: impl FnOnce(&mut Self), short: impl FnOnce(&mut Self)) {
        let n = self.n.unwrap();
        let is_long = self
            .b
            .ins()
            .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, n, MIN_ROW);
        let long_block = self.b.create_block();
        let short_block = self.b.create_block();
        let join = self.b.create_block();
        self.b
            .ins()
            .brif(is_long, long_block, &[], short_block, &[]);
        self.b.switch_to_block(short_block);
        self.b.seal_block(short_block);
        short(self);
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(long_block);
        self.b.seal_block(long_block);
        long(self);
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(join);
        self.b.seal_block(join);
    }

    /// [`Self::by_row_length`] of two computations of one value (of Cranelift type `t`): the
    /// value of the one that ran.
    fn value_by_row_length(
        &mut self,
        t: types::Type,
        long: impl FnOnce(&mut Self) -> Value,
        short: impl FnOnce(&mut Self) -> Value,
    ) -> Value {
        let res = self.b.declare_var(t);
        self.by_row_length(
            |em| {
                let r = long(em);
                em.b.def_var(res, r);
            },
            |em| {
                let r = short(em);
                em.b.def_var(res, r);
            },
        );
        self.b.use_var(res)
    }

    /// The float sum of `value` over the row, with `nodes` run by NumPy's loops on rows of at
    /// least [`MIN_ROW`] elements (`mode`: the stage's own vector mode, for shorter rows).
    pub(crate) fn staged_sum(
        &mut self,
        value: usize,
        ty: Scalar,
        mode: Mode,
        nodes: &[usize],
    ) -> Value {
        self.value_by_row_length(
            cl_type(ty, Mode::Scalar),
            |em| {
                let store = em.reduce_store.map(|b| em.k.buffers[b].dtype);
                em.leaves = nodes.iter().copied().collect();
                let staged_mode = em.stage_mode(value, store);
                em.leaves.clear();
                let refill = em.refill_for(nodes);
                em.pairwise_sum(value, ty, staged_mode, Some(&refill))
            },
            |em| em.pairwise_sum(value, ty, mode, None),
        )
    }

    /// A float `max`/`min` of `value` over the row: on rows of at least [`MIN_ROW`] elements,
    /// NumPy's `maximum`/`minimum` loop in `slot` folds each block into an accumulator that
    /// starts as the reduction's identity, as `np.maximum.reduce` runs it (its SIMD path
    /// for a first operand and output of step 0); `own` reduces shorter rows.
    pub(crate) fn staged_extreme(
        &mut self,
        op: ReduceOp,
        slot: usize,
        value: usize,
        ty: Scalar,
        own: impl FnOnce(&mut Self) -> Value,
    ) -> Value {
        self.value_by_row_length(
            cl_type(ty, Mode::Scalar),
            |em| {
                let room = em.scratch(ty.size() as i64, false);
                let acc = em.stack_block(16);
                let init = em.constant(Self::identity(op, ty), ty, Mode::Scalar);
                em.b.ins().store(MemFlagsData::trusted(), init, acc, 0);
                em.over_blocks(|em, s, end, count| {
                    let (ptr, step) = em.operand(value, room.ptr, room, s, end);
                    let zero = em.b.ins().iconst(types::I64, 0);
                    let slot = em.b.ins().iconst(types::I64, slot as i64);
                    let call = em.ufunc_ref(2);
                    em.b.ins()
                        .call(call, &[slot, acc, zero, ptr, step, acc, zero, count]);
                });
                let t = cl_type(ty, Mode::Scalar);
                em.b.ins().load(t, MemFlagsData::trusted(), acc, 0)
            },
            own,
        )
    }

    /// An arg reduction of `value` over rows of at least [`MIN_ROW`] elements by the dtype's
    /// own NumPy function in `slot`, block by block: each block's first extreme against the
    /// running one ([`Self::beats`]), so the first of equal extremes, or the first NaN, wins
    /// as in one call over the row. `own` emits the kernel's loop for shorter rows.
    pub(crate) fn staged_arg(
        &mut self,
        op: ReduceOp,
        slot: usize,
        value: usize,
        ty: Scalar,
        own: impl FnOnce(&mut Self) -> Value,
    ) -> Value {
        self.value_by_row_length(
            types::I64,
            |em| {
                let room = em.scratch(ty.size() as i64, false);
                let res = em.b.declare_var(types::I64);
                let best = em.b.declare_var(cl_type(ty, Mode::Scalar));
                let init = em.constant(Self::identity(op, ty), ty, Mode::Scalar);
                em.b.def_var(best, init);
                let zero = em.b.ins().iconst(types::I64, 0);
                em.b.def_var(res, zero);
                em.over_blocks(|em, s, end, count| {
                    let (ptr, step) = em.operand(value, room.ptr, room, s, end);
                    let slot = em.b.ins().iconst(types::I64, slot as i64);
                    let call = em.ufunc_ref(3);
                    let k = em.b.ins().call(call, &[slot, ptr, step, count]);
                    let k = em.b.inst_results(k)[0];
                    let off = em.b.ins().imul(k, step);
                    let at = em.b.ins().iadd(ptr, off);
                    let t = cl_type(ty, Mode::Scalar);
                    let v = em.b.ins().load(t, MemFlagsData::trusted(), at, 0);
                    let bv = em.b.use_var(best);
                    let better = em.beats(op, v, bv, ty);
                    let nb = em.b.ins().select(better, v, bv);
                    em.b.def_var(best, nb);
                    let index = em.b.ins().iadd(s, k);
                    let iv = em.b.use_var(res);
                    let ni = em.b.ins().select(better, index, iv);
                    em.b.def_var(res, ni);
                });
                em.b.use_var(res)
            },
            own,
        )
    }

    /// Emits `body(s, end, count)` for each block of the row: elements `s..end`, `count` of
    /// them, at most [`BLOCK`].
    fn over_blocks(&mut self, mut body: impl FnMut(&mut Self, Value, Value, Value)) {
        let n = self.n.unwrap();
        let start = self.b.declare_var(types::I64);
        let zero = self.b.ins().iconst(types::I64, 0);
        self.b.def_var(start, zero);
        let head = self.b.create_block();
        let inner = self.b.create_block();
        let exit = self.b.create_block();
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(head);
        let s = self.b.use_var(start);
        let more = self.b.ins().icmp(IntCC::SignedLessThan, s, n);
        self.b.ins().brif(more, inner, &[], exit, &[]);
        self.b.switch_to_block(inner);
        self.b.seal_block(inner);
        let left = self.b.ins().isub(n, s);
        let block = self.b.ins().iconst(types::I64, BLOCK);
        let count = self.b.ins().smin(left, block);
        let end = self.b.ins().iadd(s, count);
        body(self, s, end, count);
        self.b.def_var(start, end);
        self.b.ins().jump(head, &[]);
        self.b.seal_block(head);
        self.b.switch_to_block(exit);
        self.b.seal_block(exit);
    }

    /// The loop over blocks of the row; one call for the whole row where the stage is one
    /// loop reading its operands where they are and writing the output itself (blocks only
    /// keep swept operands in L1, and each call costs tens of nanoseconds).
    fn blocks(&mut self, buffer: usize, value: usize, nodes: &[usize]) {
        let scratch = self.scratch_for(nodes);
        if self.reads_in_place(buffer, value, nodes) {
            let s = self.b.ins().iconst(types::I64, 0);
            let n = self.n.unwrap();
            let stored = self.fill(nodes, &scratch, s, n, n, Some((buffer, value)));
            debug_assert!(stored, "the loop writes the output");
            return;
        }
        self.over_blocks(|em, s, end, count| {
            let stored = em.fill(nodes, &scratch, s, end, count, Some((buffer, value)));
            if !stored {
                em.stage_leaves(nodes, &scratch, s);
                em.sweep(value, s, end, Sink::Buffer(buffer));
            }
            em.leaves.clear();
            em.staged.clear();
        });
    }

    /// Whether `nodes` is `value` alone, written straight into `buffer`, with operands read
    /// from their buffers or given once for the row (see [`Self::operand`]).
    fn reads_in_place(&self, buffer: usize, value: usize, nodes: &[usize]) -> bool {
        let direct = self.k.buffers[buffer].inner == InnerAccess::Strided
            && self.k.buffers[buffer].dtype == self.k.exprs[value].ty;
        let in_place = |x: usize| {
            self.invariant[x]
                || matches!(self.k.exprs[x].op, ExprOp::Load(b)
                    if self.k.buffers[b].inner == InnerAccess::Strided)
        };
        direct
            && nodes == [value]
            && self
                .loop_of(value)
                .is_some_and(|(_, operands)| operands.into_iter().all(in_place))
    }

    /// The stack storage of each of `nodes`.
    fn scratch_for(&mut self, nodes: &[usize]) -> Vec<Scratch> {
        nodes
            .iter()
            .map(|&e| {
                let size = self.loop_type(e).size() as i64;
                let binary = matches!(self.k.exprs[e].op, ExprOp::Binary(..));
                self.scratch(size, binary)
            })
            .collect()
    }

    /// Stack storage for one block of elements of `size` bytes (and a second block for a
    /// binary loop's other operand), and for one step-0 element.
    fn scratch(&mut self, size: i64, binary: bool) -> Scratch {
        let ptr = self.stack_block(size * BLOCK);
        let second = binary.then(|| self.stack_block(size * BLOCK));
        let one = self.stack_block(16);
        Scratch {
            ptr,
            size,
            second,
            one,
        }
    }

    /// The address of `bytes` of 64-byte aligned stack storage no other block of the current
    /// stage uses: a slot of that size an earlier stage used, or a new one.
    fn stack_block(&mut self, bytes: i64) -> Value {
        let bytes = bytes as u32;
        let free = self
            .scratch_slots
            .iter()
            .position(|&(size, _, taken)| size == bytes && !taken);
        let slot = match free {
            Some(i) => {
                self.scratch_slots[i].2 = true;
                self.scratch_slots[i].1
            }
            None => {
                let slot = self.b.create_sized_stack_slot(StackSlotData::new(
                    StackSlotKind::ExplicitSlot,
                    bytes,
                    6,
                ));
                self.scratch_slots.push((bytes, slot, true));
                slot
            }
        };
        self.b.ins().stack_addr(types::I64, slot, 0)
    }

    /// Makes every scratch block free for the stage about to be emitted: the stages of a
    /// row run one after another, and none reads another's scratch storage.
    pub(crate) fn free_scratch(&mut self) {
        for entry in &mut self.scratch_slots {
            entry.2 = false;
        }
    }

    /// The scratch storage of a reduction's staged nodes, filled on demand ([`Self::ensure`]):
    /// a float sum visits its elements in NumPy's pairwise order, left to right in parts of at
    /// most 128, so each part finds its elements in the block or starts the next one.
    pub(crate) fn refill_for(&mut self, nodes: &[usize]) -> Refill {
        let scratch = self.scratch_for(nodes);
        let lo = self.b.declare_var(types::I64);
        let hi = self.b.declare_var(types::I64);
        let zero = self.b.ins().iconst(types::I64, 0);
        self.b.def_var(lo, zero);
        self.b.def_var(hi, zero);
        Refill {
            nodes: nodes.to_vec(),
            scratch,
            lo,
            hi,
        }
    }

    /// Makes elements `s..s + l` (`l` at most [`BLOCK`]) of `r`'s nodes readable: fills the
    /// block from `s` unless it already holds them, then makes the nodes leaves read from it
    /// until [`Self::unstage`].
    pub(crate) fn ensure(&mut self, r: &Refill, s: Value, l: Value) {
        let lo = self.b.use_var(r.lo);
        let hi = self.b.use_var(r.hi);
        let end = self.b.ins().iadd(s, l);
        let before = self.b.ins().icmp(IntCC::SignedLessThan, s, lo);
        let after = self.b.ins().icmp(IntCC::SignedGreaterThan, end, hi);
        let miss = self.b.ins().bor(before, after);
        let fill = self.b.create_block();
        let ready = self.b.create_block();
        self.b.ins().brif(miss, fill, &[], ready, &[]);
        self.b.switch_to_block(fill);
        self.b.seal_block(fill);
        let n = self.n.unwrap();
        let left = self.b.ins().isub(n, s);
        let block = self.b.ins().iconst(types::I64, BLOCK);
        let count = self.b.ins().smin(left, block);
        let block_end = self.b.ins().iadd(s, count);
        let (leaves, staged) = (
            std::mem::take(&mut self.leaves),
            std::mem::take(&mut self.staged),
        );
        self.fill(&r.nodes, &r.scratch, s, block_end, count, None);
        (self.leaves, self.staged) = (leaves, staged);
        self.b.def_var(r.lo, s);
        self.b.def_var(r.hi, block_end);
        self.b.ins().jump(ready, &[]);
        self.b.switch_to_block(ready);
        self.b.seal_block(ready);
        let lo = self.b.use_var(r.lo);
        self.stage_leaves(&r.nodes, &r.scratch, lo);
    }

    /// Ends the reading of staged nodes that [`Self::ensure`] began.
    pub(crate) fn unstage(&mut self) {
        self.leaves.clear();
        self.staged.clear();
    }

    /// Computes `nodes` for elements `s..end` (`count` of them) of the row into their
    /// `scratch` buffers, each from its operands through its loop. With `out`, a last node
    /// that is the stage's value goes straight into that buffer (the return says whether it
    /// did).
    fn fill(
        &mut self,
        nodes: &[usize],
        scratch: &[Scratch],
        s: Value,
        end: Value,
        count: Value,
        out: Option<(usize, usize)>,
    ) -> bool {
        let mut stored = false;
        for (k, &e) in nodes.iter().enumerate() {
            self.stage_leaves(&nodes[..k], &scratch[..k], s);
            let (slot, operands) = self.loop_of(e).expect("a node with a registered loop");
            let room = scratch[k];
            let blocks = [Some(room.ptr), room.second];
            let mut args = vec![self.b.ins().iconst(types::I64, slot as i64)];
            for (&x, block) in operands.iter().zip(blocks) {
                let (ptr, step) =
                    self.operand(x, block.expect("a block per operand"), room, s, end);
                args.extend([ptr, step]);
            }
            let direct = out.filter(|&(buffer, value)| {
                e == value
                    && self.k.buffers[buffer].inner == InnerAccess::Strided
                    && self.k.buffers[buffer].dtype == self.k.exprs[e].ty
            });
            debug_assert!(
                direct.is_some() || !self.predicate(e),
                "a predicate writes bytes"
            );
            match direct {
                Some((buffer, _)) => {
                    stored = true;
                    args.push(self.addr(buffer, s, Mode::Scalar));
                    args.push(self.inner_stride[buffer]);
                }
                None => {
                    args.push(room.ptr);
                    args.push(self.b.ins().iconst(types::I64, room.size));
                }
            }
            args.push(count);
            let call = self.ufunc_ref(operands.len());
            self.b.ins().call(call, &args);
        }
        self.leaves.clear();
        self.staged.clear();
        stored
    }

    /// Where a loop reads operand `x` for elements `s..end`, and its step in bytes: the
    /// buffer it is loaded from, the one value of the row (step 0), or `block`, swept.
    fn operand(
        &mut self,
        x: usize,
        block: Value,
        room: Scratch,
        s: Value,
        end: Value,
    ) -> (Value, Value) {
        if self.invariant[x] {
            let v = self.row_values[&x];
            self.b.ins().store(MemFlagsData::trusted(), v, room.one, 0);
            return (room.one, self.b.ins().iconst(types::I64, 0));
        }
        if let ExprOp::Load(b) = self.k.exprs[x].op {
            if self.k.buffers[b].inner == InnerAccess::Strided {
                return (self.addr(b, s, Mode::Scalar), self.inner_stride[b]);
            }
        }
        let origin = self.origin(block, room.size, s);
        self.sweep(
            x,
            s,
            end,
            Sink::Scratch {
                origin,
                size: room.size,
            },
        );
        (block, self.b.ins().iconst(types::I64, room.size))
    }

    /// Makes `nodes` leaves read from their scratch buffers (`scratch`, for the block at `s`).
    fn stage_leaves(&mut self, nodes: &[usize], scratch: &[Scratch], s: Value) {
        self.leaves = nodes.iter().copied().collect();
        self.staged = HashMap::new();
        for (&e, room) in nodes.iter().zip(scratch) {
            let origin = self.origin(room.ptr, room.size, s);
            self.staged.insert(e, (origin, room.size));
        }
    }

    /// The address element 0 of the row would have in scratch storage at `ptr` that holds the
    /// block starting at element `s`: element `j` of the block is at `origin + j * size`.
    fn origin(&mut self, ptr: Value, size: i64, s: Value) -> Value {
        let off = self.b.ins().imul_imm_s(s, size);
        self.b.ins().isub(ptr, off)
    }

    /// Evaluates `root` at elements `from..to` of the row and sends each value to `sink`: in
    /// vectors where the nodes it computes (the staged ones are leaves) and the sink have a
    /// vector form and the buffers are contiguous, the rest one by one.
    pub(crate) fn sweep(&mut self, root: usize, from: Value, to: Value, sink: Sink) {
        // Bools are stored from masks of the stage's own width (`put_masks`).
        let bools = match sink {
            Sink::Buffer(b) => self.k.buffers[b].dtype == Scalar::Bool,
            Sink::Scratch { .. } => false,
        };
        let mode = match sink {
            Sink::Buffer(b) if self.k.buffers[b].inner == InnerAccess::Row => Mode::Scalar,
            Sink::Buffer(_) if bools => self.stage_mode(root, None),
            Sink::Buffer(b) => self.map_mode(root, self.k.buffers[b].dtype),
            Sink::Scratch { .. } => self.stage_mode(root, None),
        };
        let j = self.b.declare_var(types::I64);
        self.b.def_var(j, from);
        let tail = self.b.create_block();
        if mode != Mode::Scalar {
            let vec = self.b.create_block();
            let contiguous = self.contiguous.unwrap();
            self.b.ins().brif(contiguous, vec, &[], tail, &[]);
            self.b.switch_to_block(vec);
            self.b.seal_block(vec);
            let splats = self.splat_invariants(root, mode);
            let splats = &splats;
            let grouped = self.has_polynomial(root);
            let lanes = mode.lanes() as i64;
            let step = lanes * UNROLL as i64;
            let touches =
                matches!(sink, Sink::Buffer(_)) && self.touch_stage == Some(self.stage_index);
            self.loop_while(j, step, to, |em, jv| {
                let js: Vec<Value> = (0..UNROLL as i64)
                    .map(|u| em.b.ins().iadd_imm_s(jv, u * lanes))
                    .collect();
                if touches {
                    em.touch_next_rows(jv, step);
                }
                let group = if grouped || bools { js.len() } else { 1 };
                for chunk in js.chunks(group) {
                    let vs = em.eval_many(root, mode, chunk, splats);
                    em.put_vectors(sink, &vs, chunk, mode);
                }
            });
            self.loop_while(j, lanes, to, |em, jv| {
                let v = em.eval(root, mode, jv, splats);
                em.put_vectors(sink, &[v], &[jv], mode);
            });
            self.b.ins().jump(tail, &[]);
        } else {
            self.b.ins().jump(tail, &[]);
        }
        self.b.switch_to_block(tail);
        self.b.seal_block(tail);
        let none = HashMap::new();
        self.loop_while(j, 1, to, |em, jv| {
            let v = em.eval(root, Mode::Scalar, jv, &none);
            em.put(sink, v, jv, Mode::Scalar);
        });
    }

    /// Stores vectors `vs`, the values at consecutive elements `js`, where `sink` says: bools
    /// packed together.
    fn put_vectors(&mut self, sink: Sink, vs: &[Value], js: &[Value], mode: Mode) {
        match sink {
            Sink::Buffer(b) if self.k.buffers[b].dtype == Scalar::Bool => {
                self.put_masks(b, vs, js[0], mode)
            }
            _ => {
                for (&v, &j) in vs.iter().zip(js) {
                    self.put(sink, v, j, mode);
                }
            }
        }
    }

    /// Stores `v`, the value at element `j`, where `sink` says.
    fn put(&mut self, sink: Sink, v: Value, j: Value, mode: Mode) {
        match sink {
            Sink::Scratch { origin, size } => {
                let a = self.scratch_addr(origin, size, j);
                self.b.ins().store(MemFlagsData::trusted(), v, a, 0);
            }
            Sink::Buffer(buffer) => {
                let v = self.store_form(v, self.k.buffers[buffer].dtype);
                let a = self.addr(buffer, j, mode);
                let v = if mode == Mode::Vector(8) && self.k.buffers[buffer].dtype.size() == 4 {
                    // A half vector (`map_mode`): its two elements are the low 8 bytes.
                    let pairs = self.b.ins().bitcast(types::I64X2, little(), v);
                    self.b.ins().extractlane(pairs, 0)
                } else {
                    v
                };
                self.b.ins().store(mem(), v, a, 0);
            }
        }
    }

    /// The address of element `j` in scratch storage with `origin` (see [`Self::origin`]).
    pub(crate) fn scratch_addr(&mut self, origin: Value, size: i64, j: Value) -> Value {
        let off = self.b.ins().imul_imm_s(j, size);
        self.b.ins().iadd(origin, off)
    }

    /// The kernel's reference to [`ufunc::ember_ufunc_unary`] (`which` 1),
    /// [`ufunc::ember_ufunc_binary`] (2) or [`ufunc::ember_argfunc`] (3, returning an index).
    fn ufunc_ref(&mut self, which: usize) -> cranelift_codegen::ir::FuncRef {
        let (symbol, params) = (ufunc::SYMBOLS[which - 1], ufunc::ARGS[which - 1]);
        let key = (symbol.to_string(), params);
        if let Some(&f) = self.libm_refs.get(&key) {
            return f;
        }
        let mut sig = self.module.make_signature();
        for _ in 0..params {
            sig.params.push(AbiParam::new(types::I64));
        }
        if which == 3 {
            sig.returns.push(AbiParam::new(types::I64));
        }
        let id = self
            .module
            .declare_function(symbol, Linkage::Import, &sig)
            .expect("ufunc symbol declaration");
        let f = self.module.declare_func_in_func(id, self.b.func);
        self.libm_refs.insert(key, f);
        f
    }
}
