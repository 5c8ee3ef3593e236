//! Float sums in NumPy's own order: pairwise summation in the array's dtype.
//!
//! NumPy sums a run of `n` elements (`pairwise_sum` in `loops_utils.h.src`) by splitting it
//! at `n / 2` rounded down to a multiple of 8 until a part holds at most [`LEAF`] elements; a
//! part of fewer than 8 elements is added in order onto `-0.0`, a larger one into 8 running
//! sums (element `i` into sum `i % 8`) combined as `((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7))`, with
//! the last `n % 8` elements added in order. Reproducing that tree, in `f32` for `f32`, gives
//! NumPy's result bit for bit along a reduced run, overflow to inf included, and its rounding
//! error (O(log n) ulps) on every other path. The tree's recursion becomes a loop over an
//! explicit stack of pending right halves (one per level, at most [`DEPTH`]).

use super::expr::cl_type;
use super::staged::Refill;
use super::{Emitter, Mode};
use crate::kernel::{Const, Scalar};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    types, InstBuilder, MemFlagsData, StackSlotData, StackSlotKind, Value,
};
use cranelift_frontend::Variable;
use std::collections::HashMap;

/// The longest part NumPy adds without splitting it.
const LEAF: i64 = 128;

/// Levels of the split tree: each halves the part, and parts above [`LEAF`] split.
const DEPTH: u32 = 64;

/// Bytes per stack entry: the right half's start and length, then the left half's sum.
const ENTRY: i64 = 24;

impl Emitter<'_, '_> {
    /// The pairwise sum of `value` (of float type `ty`) over the inner extent; with `refill`,
    /// its staged nodes are read from blocks NumPy's loops fill (`staged`).
    pub(crate) fn pairwise_sum(
        &mut self,
        value: usize,
        ty: Scalar,
        mode: Mode,
        refill: Option<&Refill>,
    ) -> Value {
        let n = self.n.unwrap();
        let ft = cl_type(ty, Mode::Scalar);
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            DEPTH * ENTRY as u32,
            3,
        ));
        let flags = MemFlagsData::trusted();
        let sp = self.b.declare_var(types::I64);
        let start = self.b.declare_var(types::I64);
        let len = self.b.declare_var(types::I64);
        let sum = self.b.declare_var(ft);
        let zero = self.b.ins().iconst(types::I64, 0);
        self.b.def_var(sp, zero);
        self.b.def_var(start, zero);
        self.b.def_var(len, n);
        let init = self.constant(Const::Float(0.0), ty, Mode::Scalar);
        self.b.def_var(sum, init);

        let descend = self.b.create_block();
        let split = self.b.create_block();
        let leaf = self.b.create_block();
        let ascend = self.b.create_block();
        let pop = self.b.create_block();
        let right = self.b.create_block();
        let combine = self.b.create_block();
        let done = self.b.create_block();

        self.b.ins().jump(descend, &[]);
        self.b.switch_to_block(descend);
        let l = self.b.use_var(len);
        let big = self.b.ins().icmp_imm_s(IntCC::SignedGreaterThan, l, LEAF);
        self.b.ins().brif(big, split, &[], leaf, &[]);

        // Push the right half, go on with the left one.
        self.b.switch_to_block(split);
        self.b.seal_block(split);
        let l = self.b.use_var(len);
        let s = self.b.use_var(start);
        let half = self.b.ins().sshr_imm_s(l, 1);
        let n2 = self.b.ins().band_imm_s(half, !7);
        let entry = self.entry_addr(slot, sp);
        let rs = self.b.ins().iadd(s, n2);
        let rl = self.b.ins().isub(l, n2);
        self.b.ins().store(flags, rs, entry, 0);
        self.b.ins().store(flags, rl, entry, 8);
        let spv = self.b.use_var(sp);
        let up = self.b.ins().iadd_imm_s(spv, 1);
        self.b.def_var(sp, up);
        self.b.def_var(len, n2);
        self.b.ins().jump(descend, &[]);

        self.b.switch_to_block(leaf);
        self.b.seal_block(leaf);
        let s = self.b.use_var(start);
        let l = self.b.use_var(len);
        if let Some(refill) = refill {
            self.ensure(refill, s, l);
        }
        let r = self.leaf_sum(value, ty, mode, s, l);
        self.unstage();
        self.b.def_var(sum, r);
        self.b.ins().jump(ascend, &[]);

        self.b.switch_to_block(ascend);
        let spv = self.b.use_var(sp);
        let empty = self.b.ins().icmp_imm_s(IntCC::Equal, spv, 0);
        self.b.ins().brif(empty, done, &[], pop, &[]);

        // The top entry's right half is still to do (its length is positive) or done (-1).
        self.b.switch_to_block(pop);
        self.b.seal_block(pop);
        let spv = self.b.use_var(sp);
        let top = self.b.ins().iadd_imm_s(spv, -1);
        let entry = self.entry_addr_of(slot, top);
        let rl = self.b.ins().load(types::I64, flags, entry, 8);
        let pending = self.b.ins().icmp_imm_s(IntCC::SignedGreaterThan, rl, 0);
        self.b.ins().brif(pending, right, &[], combine, &[]);

        self.b.switch_to_block(right);
        self.b.seal_block(right);
        let r = self.b.use_var(sum);
        self.b.ins().store(flags, r, entry, 16);
        let rs = self.b.ins().load(types::I64, flags, entry, 0);
        let taken = self.b.ins().iconst(types::I64, -1);
        self.b.ins().store(flags, taken, entry, 8);
        self.b.def_var(start, rs);
        self.b.def_var(len, rl);
        self.b.ins().jump(descend, &[]);
        self.b.seal_block(descend);

        self.b.switch_to_block(combine);
        self.b.seal_block(combine);
        let left = self.b.ins().load(ft, flags, entry, 16);
        let r = self.b.use_var(sum);
        let r = self.b.ins().fadd(left, r);
        self.b.def_var(sum, r);
        self.b.def_var(sp, top);
        self.b.ins().jump(ascend, &[]);
        self.b.seal_block(ascend);

        self.b.switch_to_block(done);
        self.b.seal_block(done);
        // NumPy adds the run's sum onto the reduction's identity, +0.0 (so -0.0 sums to 0.0).
        let r = self.b.use_var(sum);
        let z = self.constant(Const::Float(0.0), ty, Mode::Scalar);
        self.b.ins().fadd(z, r)
    }

    fn entry_addr(&mut self, slot: cranelift_codegen::ir::StackSlot, sp: Variable) -> Value {
        let spv = self.b.use_var(sp);
        self.entry_addr_of(slot, spv)
    }

    fn entry_addr_of(&mut self, slot: cranelift_codegen::ir::StackSlot, i: Value) -> Value {
        let base = self.b.ins().stack_addr(types::I64, slot, 0);
        let off = self.b.ins().imul_imm_s(i, ENTRY);
        self.b.ins().iadd(base, off)
    }

    /// NumPy's sum of a part of at most [`LEAF`] elements, `[s, s + l)`.
    fn leaf_sum(&mut self, value: usize, ty: Scalar, mode: Mode, s: Value, l: Value) -> Value {
        let ft = cl_type(ty, Mode::Scalar);
        let res = self.b.declare_var(ft);
        let j = self.b.declare_var(types::I64);
        let neg_zero = self.constant(Const::Float(-0.0), ty, Mode::Scalar);
        self.b.def_var(res, neg_zero);
        self.b.def_var(j, s);
        let end = self.b.ins().iadd(s, l);
        let rest = self.b.ins().band_imm_s(l, 7);
        let end8 = self.b.ins().isub(end, rest);
        let blocks = self.b.create_block();
        let tail = self.b.create_block();
        let eight = self
            .b
            .ins()
            .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, l, 8);
        self.b.ins().brif(eight, blocks, &[], tail, &[]);

        self.b.switch_to_block(blocks);
        self.b.seal_block(blocks);
        if mode == Mode::Scalar {
            let r = self.eight_sums(value, ty, Mode::Scalar, j, end8);
            self.b.def_var(res, r);
            self.b.ins().jump(tail, &[]);
        } else {
            let vec = self.b.create_block();
            let scalar = self.b.create_block();
            let contiguous = self.contiguous.unwrap();
            self.b.ins().brif(contiguous, vec, &[], scalar, &[]);
            self.b.switch_to_block(vec);
            self.b.seal_block(vec);
            let r = self.eight_sums(value, ty, mode, j, end8);
            self.b.def_var(res, r);
            self.b.ins().jump(tail, &[]);
            self.b.switch_to_block(scalar);
            self.b.seal_block(scalar);
            let r = self.eight_sums(value, ty, Mode::Scalar, j, end8);
            self.b.def_var(res, r);
            self.b.ins().jump(tail, &[]);
        }

        self.b.switch_to_block(tail);
        self.b.seal_block(tail);
        let splats = HashMap::new();
        self.loop_while(j, 1, end, |em, jv| {
            let v = em.eval(value, Mode::Scalar, jv, &splats);
            em.store_reduced(v, jv, Mode::Scalar);
            let a = em.b.use_var(res);
            let r = em.b.ins().fadd(a, v);
            em.b.def_var(res, r);
        });
        self.b.use_var(res)
    }

    /// The 8 running sums over `[j, end8)` (a multiple of 8 elements, at least 8), combined
    /// in NumPy's order; leaves `j` at `end8`.
    fn eight_sums(
        &mut self,
        value: usize,
        ty: Scalar,
        mode: Mode,
        j: Variable,
        end8: Value,
    ) -> Value {
        let lanes = mode.lanes() as i64;
        let copies = (8 / lanes) as usize;
        let splats = self.splat_invariants(value, mode);
        let vt = cl_type(ty, mode);
        let accs: Vec<Variable> = (0..copies).map(|_| self.b.declare_var(vt)).collect();
        let j0 = self.b.use_var(j);
        for (u, a) in accs.iter().enumerate() {
            let ju = self.b.ins().iadd_imm_s(j0, u as i64 * lanes);
            let v = self.eval(value, mode, ju, &splats);
            self.store_reduced(v, ju, mode);
            self.b.def_var(*a, v);
        }
        let next = self.b.ins().iadd_imm_s(j0, 8);
        self.b.def_var(j, next);
        let grouped = self.has_polynomial(value);
        self.loop_while(j, 8, end8, |em, jv| {
            let js: Vec<Value> = (0..copies as i64)
                .map(|u| em.b.ins().iadd_imm_s(jv, u * lanes))
                .collect();
            let group = if grouped { js.len() } else { 1 };
            for (c, chunk) in js.chunks(group).enumerate() {
                let vs = em.eval_many(value, mode, chunk, &splats);
                for (u, (v, &ju)) in vs.into_iter().zip(chunk).enumerate() {
                    em.store_reduced(v, ju, mode);
                    let a = accs[c * group + u];
                    let av = em.b.use_var(a);
                    let r = em.b.ins().fadd(av, v);
                    em.b.def_var(a, r);
                }
            }
        });
        let mut r: Vec<Value> = Vec::with_capacity(8);
        for a in &accs {
            let v = self.b.use_var(*a);
            for l in 0..lanes as u8 {
                let x = if mode == Mode::Scalar {
                    v
                } else {
                    self.b.ins().extractlane(v, l)
                };
                r.push(x);
            }
        }
        let add = |em: &mut Self, x: Value, y: Value| em.b.ins().fadd(x, y);
        let a = add(self, r[0], r[1]);
        let b = add(self, r[2], r[3]);
        let c = add(self, r[4], r[5]);
        let d = add(self, r[6], r[7]);
        let ab = add(self, a, b);
        let cd = add(self, c, d);
        add(self, ab, cd)
    }
}
