//! Loops of one stage: maps store every inner element, reductions fold them.
//!
//! Float sums add in NumPy's pairwise order ([`super::pairwise`]) and float products in
//! order, both in the array's dtype, so they round and overflow to inf as NumPy's do.

use super::expr::cl_type;
use super::staged::Sink;
use super::{mem, Emitter, Mode, UNROLL};
use crate::kernel::ScalarExt;
use crate::kernel::{BinaryOp, Const, ReduceOp, Scalar};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, Block, InstBuilder, Value};
use cranelift_frontend::Variable;

/// Elements per block of a vector reduction (a multiple of every unrolled step).
const BLOCK: i64 = 256;

impl Emitter<'_, '_> {
    /// Converts a value to its in-memory form for a store (bool stays a 0/1 byte).
    pub(crate) fn store_form(&mut self, v: Value, _dtype: Scalar) -> Value {
        v
    }

    /// Emits `if cond { then } else { other }` starting blocks; returns (then, other).
    fn split(&mut self, cond: Value) -> (Block, Block) {
        let t = self.b.create_block();
        let f = self.b.create_block();
        self.b.ins().brif(cond, t, &[], f, &[]);
        (t, f)
    }

    /// A counted loop `while j + step <= limit { body(j); j += step }`; returns with the
    /// builder in the exit block.
    pub(crate) fn loop_while(
        &mut self,
        j: Variable,
        step: i64,
        limit: Value,
        mut body: impl FnMut(&mut Self, Value),
    ) {
        let head = self.b.create_block();
        let inner = self.b.create_block();
        let exit = self.b.create_block();
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(head);
        let jv = self.b.use_var(j);
        let end = self.b.ins().iadd_imm_s(jv, step);
        let ok = self.b.ins().icmp(IntCC::SignedLessThanOrEqual, end, limit);
        self.b.ins().brif(ok, inner, &[], exit, &[]);
        self.b.switch_to_block(inner);
        self.b.seal_block(inner);
        body(self, jv);
        let jv2 = self.b.use_var(j);
        let next = self.b.ins().iadd_imm_s(jv2, step);
        self.b.def_var(j, next);
        self.b.ins().jump(head, &[]);
        self.b.seal_block(head);
        self.b.switch_to_block(exit);
        self.b.seal_block(exit);
    }

    /// Writes `value` at every inner index of `buffer`.
    pub(crate) fn map(&mut self, buffer: usize, value: usize) {
        self.compute_invariants(value);
        let mut nodes = self.ufunc_nodes(value);
        if self.predicate_loop(buffer, value) {
            nodes.push(value);
        }
        if nodes.is_empty() {
            self.map_plain(buffer, value);
        } else {
            self.map_staged(buffer, value, &nodes, |em| em.map_plain(buffer, value));
        }
    }

    /// [`Self::map`] with the kernel's own code for every op.
    fn map_plain(&mut self, buffer: usize, value: usize) {
        let zero = self.b.ins().iconst(types::I64, 0);
        let n = self.n.unwrap();
        self.sweep(value, zero, n, Sink::Buffer(buffer));
    }

    /// Stores a reduced value at inner index `j` of [`Emitter::reduce_store`]'s buffer, if any:
    /// a map whose output the next stage reduces runs in the reduction's loop.
    pub(crate) fn store_reduced(&mut self, v: Value, j: Value, mode: Mode) {
        if let Some(b) = self.reduce_store {
            let v = self.store_form(v, self.k.buffers[b].dtype);
            let a = self.addr(b, j, mode);
            self.b.ins().store(mem(), v, a, 0);
        }
    }

    pub(crate) fn identity(op: ReduceOp, ty: Scalar) -> Const {
        match (op, ty.is_float()) {
            (ReduceOp::Sum | ReduceOp::Any, _) => Const::Int(0),
            (ReduceOp::Prod | ReduceOp::All, _) => Const::Int(1),
            (ReduceOp::Max | ReduceOp::Argmax, true) => Const::Float(f64::NEG_INFINITY),
            (ReduceOp::Min | ReduceOp::Argmin, true) => Const::Float(f64::INFINITY),
            (ReduceOp::Max | ReduceOp::Argmax, false) => Const::Int(ty.int_bounds().0 as i64),
            (ReduceOp::Min | ReduceOp::Argmin, false) => Const::Int(ty.int_bounds().1 as i64),
        }
    }

    /// `acc op v` for accumulators of type `ty` (`bool` is 0/1 in scalar mode).
    fn combine(&mut self, op: ReduceOp, acc: Value, v: Value, ty: Scalar, mode: Mode) -> Value {
        let f = ty.is_float();
        match op {
            ReduceOp::Sum if f => self.b.ins().fadd(acc, v),
            ReduceOp::Sum => self.b.ins().iadd(acc, v),
            ReduceOp::Prod if f => self.b.ins().fmul(acc, v),
            ReduceOp::Prod => self.b.ins().imul(acc, v),
            ReduceOp::Max if f => self.float_extreme(BinaryOp::Maximum, acc, v, ty, mode),
            ReduceOp::Min if f => self.float_extreme(BinaryOp::Minimum, acc, v, ty, mode),
            // `binary` keeps 64-bit lanes together (no `pmaxsq` below AVX-512).
            ReduceOp::Max => self.binary(BinaryOp::Maximum, acc, v, ty, mode),
            ReduceOp::Min => self.binary(BinaryOp::Minimum, acc, v, ty, mode),
            ReduceOp::Any => self.b.ins().bor(acc, v),
            ReduceOp::All => self.b.ins().band(acc, v),
            ReduceOp::Argmax | ReduceOp::Argmin => unreachable!("arg reductions track indices"),
        }
    }

    /// Reduces `value` over the inner extent; returns the per-row result (scalar).
    pub(crate) fn reduce(&mut self, op: ReduceOp, value: usize) -> Value {
        self.compute_invariants(value);
        let ty = self.k.exprs[value].ty;
        if matches!(op, ReduceOp::Argmax | ReduceOp::Argmin) {
            return self.arg_reduce(op, value, ty);
        }
        let extreme = crate::ufunc::slot(crate::ufunc::LoopOp::Reduce(op), ty);
        let r = match extreme {
            Some(slot) if self.reduce_store.is_none() => {
                self.staged_extreme(op, slot, value, ty, |em| em.reduce_own(op, value, ty))
            }
            _ => self.reduce_own(op, value, ty),
        };
        if ty.is_float() && matches!(op, ReduceOp::Max | ReduceOp::Min) {
            self.zero_tie_raises_invalid(r, value, ty);
        }
        r
    }

    /// Raises the invalid flag where the float max/min `r` is a zero and the row holds zeros
    /// of both signs. Which of two equal zeros NumPy keeps follows its order of operations
    /// (the later one in its scalar loop, a lane's in its vector loops, which vary with the
    /// length, the layout and the CPU); the flag makes the caller rerun the graph with NumPy,
    /// whose own order picks the sign. Rows whose extreme is not a zero pay one compare.
    fn zero_tie_raises_invalid(&mut self, r: Value, value: usize, ty: Scalar) {
        let zero = self.constant(Const::Float(0.0), ty, Mode::Scalar);
        let is_zero = self.b.ins().fcmp(FloatCC::Equal, r, zero);
        let check = self.b.create_block();
        let join = self.b.create_block();
        self.b.ins().brif(is_zero, check, &[], join, &[]);
        self.b.switch_to_block(check);
        self.b.seal_block(check);
        let n = self.n.unwrap();
        let j = self.b.declare_var(types::I64);
        let start = self.b.ins().iconst(types::I64, 0);
        self.b.def_var(j, start);
        let other = self.b.declare_var(types::I8);
        let none = self.b.ins().iconst(types::I8, 0);
        self.b.def_var(other, none);
        let splats = std::collections::HashMap::new();
        self.loop_while(j, 1, n, |em, jv| {
            let v = em.eval(value, Mode::Scalar, jv, &splats);
            let tie = em.signed_zero_tie(v, r, ty, Mode::Scalar);
            let seen = em.b.use_var(other);
            let seen = em.b.ins().bor(seen, tie);
            em.b.def_var(other, seen);
        });
        let seen = self.b.use_var(other);
        self.raising_flag(seen, super::binary::FlagOp::Invalid, ty, Mode::Scalar);
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(join);
        self.b.seal_block(join);
    }

    /// [`Self::reduce`] with the kernel's own code, for every op but the arg reductions.
    fn reduce_own(&mut self, op: ReduceOp, value: usize, ty: Scalar) -> Value {
        // The max of bools is their `any`, the min their `all` (vector masks, early exit).
        let op = match (op, ty) {
            (ReduceOp::Max, Scalar::Bool) => ReduceOp::Any,
            (ReduceOp::Min, Scalar::Bool) => ReduceOp::All,
            _ => op,
        };
        let acc_ty = ty;
        // A float product multiplies in order, as NumPy's loop does (no pairwise tree).
        let store_dtype = self.reduce_store.map(|b| self.k.buffers[b].dtype);
        let vector_op = match op {
            ReduceOp::Sum => ty != Scalar::Bool,
            ReduceOp::Max | ReduceOp::Min => {
                ty.is_float() || matches!(ty, Scalar::I32 | Scalar::I64)
            }
            // Masks fold to 0/1 only at the end (`vector_reduce`); a map stored on the way
            // (`store_reduced`) would write them as they are.
            ReduceOp::Any | ReduceOp::All => store_dtype != Some(Scalar::Bool),
            ReduceOp::Prod | ReduceOp::Argmax | ReduceOp::Argmin => false,
        };
        let mode = if vector_op {
            self.stage_mode(value, store_dtype)
        } else {
            Mode::Scalar
        };
        if op == ReduceOp::Sum && ty.is_float() {
            let nodes = self.ufunc_nodes(value);
            let r = if nodes.is_empty() {
                self.pairwise_sum(value, ty, mode, None)
            } else {
                self.staged_sum(value, ty, mode, &nodes)
            };
            let r = self.nan_raises_invalid(r, ty);
            return self.cast(r, ty, op.result_type(ty), Mode::Scalar);
        }
        let n = self.n.unwrap();
        let acc = self.b.declare_var(cl_type(acc_ty, Mode::Scalar));
        let init = self.constant(Self::identity(op, acc_ty), acc_ty, Mode::Scalar);
        self.b.def_var(acc, init);
        let j = self.b.declare_var(types::I64);
        let zero = self.b.ins().iconst(types::I64, 0);
        self.b.def_var(j, zero);
        let tail = self.b.create_block();
        if mode != Mode::Scalar {
            let contiguous = self.contiguous.unwrap();
            let (vec, s) = self.split(contiguous);
            self.b.switch_to_block(s);
            self.b.seal_block(s);
            self.b.ins().jump(tail, &[]);
            self.b.switch_to_block(vec);
            self.b.seal_block(vec);
            self.vector_reduce(op, value, ty, acc_ty, mode, acc, j);
        }
        self.b.ins().jump(tail, &[]);
        self.b.switch_to_block(tail);
        self.b.seal_block(tail);
        let splats = std::collections::HashMap::new();
        self.loop_while(j, 1, n, |em, jv| {
            let v = em.eval(value, Mode::Scalar, jv, &splats);
            em.store_reduced(v, jv, Mode::Scalar);
            let v = em.cast(v, ty, acc_ty, Mode::Scalar);
            let a = em.b.use_var(acc);
            let r = em.combine(op, a, v, acc_ty, Mode::Scalar);
            em.b.def_var(acc, r);
        });
        let a = self.b.use_var(acc);
        let a = if acc_ty.is_float() && matches!(op, ReduceOp::Sum | ReduceOp::Prod) {
            self.nan_raises_invalid(a, acc_ty)
        } else {
            a
        };
        self.cast(a, acc_ty, op.result_type(ty), Mode::Scalar)
    }

    /// `v` unchanged, raising the invalid flag when it is NaN. A sum or product that ends in
    /// NaN may have met `inf - inf` or `0 * inf` in NumPy's order of operations even where
    /// ours met a NaN first (which raises nothing): the flag makes the caller rerun it with
    /// NumPy, whose order decides the warning.
    fn nan_raises_invalid(&mut self, v: Value, ty: Scalar) -> Value {
        let nan = self.b.ins().fcmp(FloatCC::Unordered, v, v);
        let inf = self.constant(Const::Float(f64::INFINITY), ty, Mode::Scalar);
        let zero = self.constant(Const::Float(0.0), ty, Mode::Scalar);
        let t = self.b.ins().select(nan, inf, zero);
        let invalid = self.b.ins().fsub(t, t);
        // NaN + NaN keeps the first operand's NaN: `v` itself where it is NaN.
        let kept = self.b.ins().fadd(v, invalid);
        self.b.ins().select(nan, kept, v)
    }

    /// The SIMD part of a reduction: [`UNROLL`] vector accumulators folded into the scalar
    /// accumulator `acc`. Integer sums fold after every block of [`BLOCK`] elements; max and
    /// min are exact in any order and fold once.
    #[allow(clippy::too_many_arguments)]
    fn vector_reduce(
        &mut self,
        op: ReduceOp,
        value: usize,
        ty: Scalar,
        acc_ty: Scalar,
        mode: Mode,
        acc: Variable,
        j: Variable,
    ) {
        let n = self.n.unwrap();
        let splats = self.splat_invariants(value, mode);
        let lanes = mode.lanes() as i64;
        let vt = cl_type(ty, mode);
        let extreme = ty.is_float() && matches!(op, ReduceOp::Max | ReduceOp::Min);
        let grouped = self.has_polynomial(value);
        let block = if extreme { i64::MAX / 4 } else { BLOCK };
        let early_exit = matches!(op, ReduceOp::Any | ReduceOp::All)
            && self.reduce_store.is_none()
            && self.quiet(value);
        let accs: Vec<Variable> = (0..UNROLL).map(|_| self.b.declare_var(vt)).collect();
        // Lanes that have seen a NaN (the float extremes' accumulators skip NaNs); two masks
        // shared by the copies keep registers for the accumulators.
        let mt = cl_type(Scalar::Bool, mode);
        let nans: Vec<Variable> = (0..2).map(|_| self.b.declare_var(mt)).collect();
        let limit = self.b.declare_var(types::I64);
        self.loop_while(j, lanes, n, |em, jv| {
            // One block: [j, min(j + block, n)).
            let id = em.constant(Self::identity(op, ty), ty, mode);
            let none = em.constant(Const::Int(0), Scalar::Bool, mode);
            for a in &accs {
                em.b.def_var(*a, id);
            }
            for m in &nans {
                em.b.def_var(*m, none);
            }
            let end = em.b.ins().iadd_imm_s(jv, block);
            let lim = em.b.ins().smin(end, n);
            em.b.def_var(limit, lim);
            let lim = em.b.use_var(limit);
            let step = |em: &mut Self, u: usize, v: Value, ju: Value| {
                em.store_reduced(v, ju, mode);
                let av = em.b.use_var(accs[u]);
                let r = if extreme {
                    let nan = em.b.ins().fcmp(FloatCC::Unordered, v, v);
                    let seen = em.b.use_var(nans[u % 2]);
                    let seen = em.b.ins().bor(seen, nan);
                    em.b.def_var(nans[u % 2], seen);
                    em.vector_extreme(op, av, v, ty, mode)
                } else {
                    em.combine(op, av, v, ty, mode)
                };
                em.b.def_var(accs[u], r);
            };
            em.loop_while(j, lanes * UNROLL as i64, lim, |em, jv| {
                if em.touch_stage == Some(em.stage_index) {
                    em.touch_next_rows(jv, lanes * UNROLL as i64);
                }
                let js: Vec<Value> = (0..UNROLL as i64)
                    .map(|u| em.b.ins().iadd_imm_s(jv, u * lanes))
                    .collect();
                let group = if grouped { js.len() } else { 1 };
                for (c, chunk) in js.chunks(group).enumerate() {
                    let vs = em.eval_many(value, mode, chunk, &splats);
                    for (u, (v, &ju)) in vs.into_iter().zip(chunk).enumerate() {
                        step(em, c * group + u, v, ju);
                    }
                }
            });
            let lim = em.b.use_var(limit);
            em.loop_while(j, lanes, lim, |em, jv| {
                let v = em.eval(value, mode, jv, &splats);
                step(em, 0, v, jv);
            });
            let mut a: Vec<Value> = accs.iter().map(|v| em.b.use_var(*v)).collect();
            while a.len() > 1 {
                let (x, y) = (a[a.len() - 2], a[a.len() - 1]);
                a.truncate(a.len() - 2);
                let r = if extreme {
                    em.vector_extreme(op, x, y, ty, mode)
                } else {
                    em.combine(op, x, y, ty, mode)
                };
                a.insert(0, r);
            }
            let s = a[0];
            let mut total = match op {
                // Lane masks folded to a 0/1 bool.
                ReduceOp::Any => em.b.ins().vany_true(s),
                ReduceOp::All => em.b.ins().vall_true(s),
                _ => em.b.ins().extractlane(s, 0),
            };
            for l in 1..lanes as u8 {
                if matches!(op, ReduceOp::Any | ReduceOp::All) {
                    break;
                }
                let x = em.b.ins().extractlane(s, l);
                total = em.combine(op, total, x, ty, Mode::Scalar);
            }
            if extreme {
                let mut seen = em.b.use_var(nans[0]);
                for m in &nans[1..] {
                    let other = em.b.use_var(*m);
                    seen = em.b.ins().bor(seen, other);
                }
                let any = em.b.ins().vany_true(seen);
                let nan = em.constant(Const::Float(f64::NAN), ty, Mode::Scalar);
                total = em.b.ins().select(any, nan, total);
            }
            let total = em.cast(total, ty, acc_ty, Mode::Scalar);
            let av = em.b.use_var(acc);
            let r = em.combine(op, av, total, acc_ty, Mode::Scalar);
            em.b.def_var(acc, r);
            // The outer loop steps by `lanes`; undo that so j stays where the block ended.
            let jv = em.b.use_var(j);
            let back = em.b.ins().iadd_imm_s(jv, -lanes);
            // `any` stops at its first true block and `all` at its first false one, as
            // NumPy's loops do, where skipping the rest changes nothing NumPy shows.
            let back = if early_exit {
                let decided = if op == ReduceOp::Any {
                    r
                } else {
                    em.b.ins().bxor_imm_s(r, 1)
                };
                em.b.ins().select(decided, n, back)
            } else {
                back
            };
            em.b.def_var(j, back);
        });
    }

    /// Whether computing `value` can raise no floating-point flag and has no effect beyond its
    /// result (loads, constants, casts to bool, comparisons, logical ops), so that a reduction
    /// may skip elements once its result is known.
    fn quiet(&self, value: usize) -> bool {
        use crate::kernel::{ExprOp, UnaryOp};
        let e = &self.k.exprs[value];
        let own = match e.op {
            ExprOp::Load(_) | ExprOp::Const(_) | ExprOp::StageResult(_) => true,
            ExprOp::Cast(_) => e.ty == Scalar::Bool,
            ExprOp::Unary(op, _) => matches!(
                op,
                UnaryOp::LogicalNot | UnaryOp::Isnan | UnaryOp::Isinf | UnaryOp::Isfinite
            ),
            ExprOp::Binary(op, _, _) => matches!(
                op,
                BinaryOp::Eq
                    | BinaryOp::Ne
                    | BinaryOp::Lt
                    | BinaryOp::Le
                    | BinaryOp::Gt
                    | BinaryOp::Ge
                    | BinaryOp::LogicalAnd
                    | BinaryOp::LogicalOr
                    | BinaryOp::LogicalXor
            ),
            ExprOp::Where(..) => e.ty == Scalar::Bool,
        };
        own && e.op.operands().into_iter().all(|x| self.quiet(x))
    }

    /// `acc` moved towards `v` for float `max`/`min` reductions: the compare-select forms that
    /// lower to one `maxps(acc, v)`/`minps(acc, v)` (NaNs the caller tracks apart). Ties take
    /// `v`, the later element, as the scalar loop and NumPy's do.
    fn vector_extreme(
        &mut self,
        op: ReduceOp,
        acc: Value,
        v: Value,
        ty: Scalar,
        mode: Mode,
    ) -> Value {
        let stays = if op == ReduceOp::Max {
            self.b.ins().fcmp(FloatCC::LessThan, v, acc)
        } else {
            self.b.ins().fcmp(FloatCC::LessThan, acc, v)
        };
        self.pick(stays, acc, v, ty, mode)
    }

    /// First index of the maximum (minimum); a NaN counts as the extreme, as in NumPy.
    fn arg_reduce(&mut self, op: ReduceOp, value: usize, ty: Scalar) -> Value {
        match crate::ufunc::slot(crate::ufunc::LoopOp::Reduce(op), ty) {
            Some(slot) => self.staged_arg(op, slot, value, ty, |em| em.arg_own(op, value, ty)),
            None => self.arg_own(op, value, ty),
        }
    }

    /// Whether `v` replaces `best` as the running extreme of an arg reduction: strictly
    /// beyond it (the first of equal values stays), or the first NaN.
    pub(crate) fn beats(&mut self, op: ReduceOp, v: Value, best: Value, ty: Scalar) -> Value {
        if ty.is_float() {
            let cc = if op == ReduceOp::Argmax {
                FloatCC::GreaterThan
            } else {
                FloatCC::LessThan
            };
            let gt = self.b.ins().fcmp(cc, v, best);
            let vnan = self.b.ins().fcmp(FloatCC::Unordered, v, v);
            let bok = self.b.ins().fcmp(FloatCC::Ordered, best, best);
            let first_nan = self.b.ins().band(vnan, bok);
            self.b.ins().bor(gt, first_nan)
        } else {
            let cc = match (op == ReduceOp::Argmax, ty.is_unsigned()) {
                (true, false) => IntCC::SignedGreaterThan,
                (false, false) => IntCC::SignedLessThan,
                (true, true) => IntCC::UnsignedGreaterThan,
                (false, true) => IntCC::UnsignedLessThan,
            };
            self.b.ins().icmp(cc, v, best)
        }
    }

    /// [`Self::arg_reduce`] element by element in the kernel's own code.
    fn arg_own(&mut self, op: ReduceOp, value: usize, ty: Scalar) -> Value {
        let n = self.n.unwrap();
        let best = self.b.declare_var(cl_type(ty, Mode::Scalar));
        let init = self.constant(Self::identity(op, ty), ty, Mode::Scalar);
        self.b.def_var(best, init);
        let idx = self.b.declare_var(types::I64);
        let j = self.b.declare_var(types::I64);
        let zero = self.b.ins().iconst(types::I64, 0);
        self.b.def_var(idx, zero);
        self.b.def_var(j, zero);
        let splats = std::collections::HashMap::new();
        self.loop_while(j, 1, n, |em, jv| {
            let v = em.eval(value, Mode::Scalar, jv, &splats);
            let bv = em.b.use_var(best);
            let better = em.beats(op, v, bv, ty);
            let nb = em.b.ins().select(better, v, bv);
            em.b.def_var(best, nb);
            let iv = em.b.use_var(idx);
            let ni = em.b.ins().select(better, jv, iv);
            em.b.def_var(idx, ni);
        });
        self.b.use_var(idx)
    }
}
