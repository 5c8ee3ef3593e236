//! `loop` statements as rotated Cranelift loops: one test before the first iteration, then
//! the body ends with the test that decides whether it runs again, so an iteration takes one
//! taken branch. With a constant step whose additions cannot overflow, the induction variable
//! itself is compared with the bound; otherwise a separate trip counter (computed without
//! overflow) decides.

use super::forward::{self, Forward};
use super::lower::{Array, Native, Val};
use crate::kernel::{Const, Scalar};
use crate::lower::expr::cl_type;
use crate::lower::Mode;
use crate::Error;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, Value};
use cranelift_frontend::Variable;
use ember_core::ir::Graph;
use std::rc::Rc;

/// A loop's `range()` arguments as `i64` registers, and the step when it is a constant.
#[derive(Clone, Copy)]
pub(crate) struct Bounds {
    pub lo: Value,
    pub hi: Value,
    pub step: Value,
    pub known_step: Option<i64>,
}

/// How a loop decides whether it runs again.
enum Exit {
    /// `i + step` compared with the bound (`<` for a positive step, `>` for a negative one).
    Bound { hi: Value, up: bool },
    /// A counter of iterations compared with the trip count.
    Trips { k: Variable, trips: Value },
    /// Only the body's flag: a `while` loop is `range(0, 2**63 - 1)`, whose bound no run
    /// reaches (a trip a nanosecond, it would take centuries).
    Flag,
}

impl Native<'_, '_> {
    /// A 0-d value as an `i64` register.
    pub(crate) fn int64(&mut self, v: &Val) -> Value {
        self.value_as(v, Scalar::I64)
    }

    pub(crate) fn lower_loop(
        &mut self,
        body: &Graph,
        carried: usize,
        args: &[Val],
    ) -> Result<Vec<Val>, Error> {
        let lo = self.int64(&args[0]);
        let hi = self.int64(&args[1]);
        let step = self.int64(&args[2]);
        let known_step = match args[2] {
            Val::Const(Const::Int(s), _) => Some(s),
            _ => None,
        };
        let b = &mut self.em.b;
        if known_step.is_none_or(|s| s == 0) {
            let zero = b.ins().icmp_imm_s(IntCC::Equal, step, 0);
            let go_on = b.create_block();
            b.ins().brif(zero, self.fail_range, &[], go_on, &[]);
            b.switch_to_block(go_on);
            b.seal_block(go_on);
        }
        let bounds = Bounds {
            lo,
            hi,
            step,
            known_step,
        };
        self.versioned_loop(body, carried, args, &bounds)
    }

    /// The loop itself; `window`, when given, holds every value the induction variable takes
    /// (the caller checked it at run time).
    pub(crate) fn emit_loop(
        &mut self,
        body: &Graph,
        carried: usize,
        args: &[Val],
        bounds: &Bounds,
        window: Option<(i128, i128)>,
    ) -> Result<Vec<Val>, Error> {
        let Bounds {
            lo,
            hi,
            step,
            known_step,
        } = *bounds;
        let mut forwarded = Vec::new();
        for f in known_step.map_or_else(Vec::new, |s| forward::plan(body, carried, s)) {
            if let Some(var) = self.first_element(&f, args, lo, window)? {
                for &key in &f.loads {
                    self.forward_loads.insert(key, var);
                }
                for &key in &f.stores {
                    self.forward_stores.insert(key, var);
                }
                forwarded.push(f);
            }
        }
        let endless = known_step == Some(1)
            && self.ranges.get(&lo) == Some(&(0, 0))
            && self.ranges.get(&hi) == Some(&(i128::from(i64::MAX), i128::from(i64::MAX)));
        let (entered, exit_test) = match known_step.filter(|&s| self.steps_stay_in_range(hi, s)) {
            Some(_) if endless => (self.em.b.ins().iconst(types::I8, 1), Exit::Flag),
            Some(s) => {
                let b = &mut self.em.b;
                let cc = if s > 0 {
                    IntCC::SignedLessThan
                } else {
                    IntCC::SignedGreaterThan
                };
                let entered = b.ins().icmp(cc, lo, hi);
                (entered, Exit::Bound { hi, up: s > 0 })
            }
            None => {
                let trips = self.trip_count(lo, hi, step);
                let b = &mut self.em.b;
                let entered = b.ins().icmp_imm_s(IntCC::NotEqual, trips, 0);
                let k = b.declare_var(types::I64);
                let zero = b.ins().iconst(types::I64, 0);
                b.def_var(k, zero);
                (entered, Exit::Trips { k, trips })
            }
        };
        let i = self.em.b.declare_var(types::I64);
        self.em.b.def_var(i, lo);
        let mut vars = Vec::new();
        for c in &args[3..3 + carried] {
            vars.push(match c {
                Val::Array(_) => None,
                scalar => {
                    let dtype = self.dtype_of(scalar);
                    let v = self.value_as(scalar, dtype);
                    let var = self.em.b.declare_var(cl_type(dtype, Mode::Scalar));
                    self.em.b.def_var(var, v);
                    Some((var, dtype))
                }
            });
        }
        let hoisted = self.hoist_invariants(body, carried, args);
        let b = &mut self.em.b;
        let body_block = b.create_block();
        let exit = b.create_block();
        b.ins().brif(entered, body_block, &[], exit, &[]);
        b.switch_to_block(body_block);
        let iv = b.use_var(i);
        let induction = window.or_else(|| self.induction_range(lo, hi, known_step));
        if let Some(range) = induction {
            self.ranges.insert(iv, range);
        }
        // At most this many trips (a constant step through a known range of values).
        let trips = induction.zip(known_step).and_then(|((first, last), s)| {
            let s = i128::from(s).abs();
            (s > 0).then(|| (last - first).max(-s) / s + 1)
        });
        let mut params = vec![Val::Scalar(iv, Scalar::I64)];
        // Through every trip and after the last (`carried.rs`).
        let mut carried_ranges = Vec::new();
        for (j, (c, var)) in args[3..3 + carried].iter().zip(&vars).enumerate() {
            let ranges = self.carried_range(body, carried, j, args, c, induction, trips);
            carried_ranges.push(ranges.map(|[_, after]| after));
            // Both ranges hold inside the body: their intersection does.
            let inside = match (
                ranges.map(|[inside, _]| inside),
                self.entry_range(body, carried, j, args, c),
            ) {
                (Some(a), Some(b)) => Some((a.0.max(b.0), a.1.min(b.1))),
                (a, b) => a.or(b),
            };
            params.push(match var {
                Some((var, dtype)) => {
                    let v = self.em.b.use_var(*var);
                    if let Some(range) = inside {
                        self.ranges.insert(v, range);
                    }
                    Val::Scalar(v, *dtype)
                }
                None => c.clone(),
            });
        }
        params.extend(args[3 + carried..].iter().map(|k| match k {
            Val::Array(a) if a.writable => Val::Array(Rc::new(Array {
                writable: false,
                strides: a.strides.clone(),
                shape: a.shape.clone(),
                ..**a
            })),
            other => other.clone(),
        }));
        // Every iteration after the first sees the stores of the one before.
        self.loaded.clear();
        let results = self.lower_body(body, carried, params)?;
        for (j, (c, var)) in args[3..3 + carried].iter().zip(&vars).enumerate() {
            let next = &results[1 + j];
            match (var, c, next) {
                (Some((var, dtype)), _, _) => {
                    let v = self.value_as(next, *dtype);
                    self.em.b.def_var(*var, v);
                }
                (None, Val::Array(a), Val::Array(n)) if a.buffer == n.buffer => {}
                _ => {
                    return Err(Error::Unsupported(format!(
                        "carried array {j} is not updated in place by @{}",
                        body.name
                    )))
                }
            }
        }
        let always = matches!(results[0], Val::Const(Const::Int(c), _) if c != 0);
        let go = self.value_as(&results[0], Scalar::Bool);
        let b = &mut self.em.b;
        let inext = b.ins().iadd(iv, step);
        b.def_var(i, inext);
        let more = match exit_test {
            Exit::Bound { hi, up: true } => Some(b.ins().icmp(IntCC::SignedLessThan, inext, hi)),
            Exit::Bound { hi, up: false } => {
                Some(b.ins().icmp(IntCC::SignedGreaterThan, inext, hi))
            }
            Exit::Trips { k, trips } => {
                let kv = b.use_var(k);
                let knext = b.ins().iadd_imm_s(kv, 1);
                b.def_var(k, knext);
                Some(b.ins().icmp(IntCC::UnsignedLessThan, knext, trips))
            }
            Exit::Flag => None,
        };
        let again = match more {
            Some(more) if always => more,
            Some(more) => b.ins().band(go, more),
            None => go,
        };
        b.ins().brif(again, body_block, &[], exit, &[]);
        b.seal_block(body_block);
        b.switch_to_block(exit);
        b.seal_block(exit);
        self.drop_hoisted(hoisted);
        for f in &forwarded {
            for key in &f.loads {
                self.forward_loads.remove(key);
            }
            for key in &f.stores {
                self.forward_stores.remove(key);
            }
        }
        let mut results = Vec::new();
        for ((c, var), range) in args[3..3 + carried].iter().zip(&vars).zip(carried_ranges) {
            results.push(match var {
                Some((var, dtype)) => {
                    let v = self.em.b.use_var(*var);
                    if let Some(range) = range {
                        self.ranges.insert(v, range);
                    }
                    Val::Scalar(v, *dtype)
                }
                None => c.clone(),
            });
        }
        Ok(results)
    }

    /// A variable holding the element of forwarded array `f` the first iteration reads,
    /// loaded here when that element is proven in bounds (else `None`: no forwarding).
    fn first_element(
        &mut self,
        f: &Forward,
        args: &[Val],
        lo: Value,
        window: Option<(i128, i128)>,
    ) -> Result<Option<Variable>, Error> {
        let array = args[2 + f.buffer].clone();
        let Val::Array(a) = &array else {
            return Ok(None);
        };
        let mut load_args = vec![array.clone()];
        for (axis, form) in f.first.iter().enumerate() {
            let mut v = self.em.b.ins().iconst(types::I64, form.c);
            let mut range = (i128::from(form.c), i128::from(form.c));
            if form.ind != 0 {
                let Some((l0, l1)) = window.or_else(|| self.ranges.get(&lo).copied()) else {
                    return Ok(None);
                };
                let (x, y) = (l0 * i128::from(form.ind), l1 * i128::from(form.ind));
                range = (range.0 + x.min(y), range.1 + x.max(y));
                let t = self.em.b.ins().imul_imm_s(lo, form.ind);
                v = self.em.b.ins().iadd(v, t);
            }
            if let Some(p) = form.atom {
                let x = self.int64(&args[2 + p]);
                let Some(&(x0, x1)) = self.ranges.get(&x) else {
                    return Ok(None);
                };
                range = (range.0 + x0, range.1 + x1);
                v = self.em.b.ins().iadd(v, x);
            }
            let size = a.shape[axis] as i128;
            let inside = |lo: i128, hi: i128| range.0 >= lo && range.1 <= hi;
            if !inside(0, size - 1) && !inside(-size, -1) {
                return Ok(None);
            }
            self.ranges.insert(v, range);
            load_args.push(Val::Scalar(v, Scalar::I64));
        }
        let Val::Scalar(first, _) = self.load(&load_args)? else {
            return Ok(None);
        };
        let b = &mut self.em.b;
        let var = b.declare_var(b.func.dfg.value_type(first));
        b.def_var(var, first);
        Ok(Some(var))
    }

    /// Whether `i + step` cannot overflow while `i` is inside `range(.., hi, step)`: always for
    /// a step of one, otherwise when the bound is known far enough from the `i64` limits.
    fn steps_stay_in_range(&self, hi: Value, step: i64) -> bool {
        if step == 1 || step == -1 {
            return true;
        }
        let Some(&(hi_lo, hi_hi)) = self.ranges.get(&hi) else {
            return false;
        };
        let last = if step > 0 {
            hi_hi - 1 + i128::from(step)
        } else {
            hi_lo + 1 + i128::from(step)
        };
        last >= i128::from(i64::MIN) && last <= i128::from(i64::MAX)
    }

    /// Iterations of `range(lo, hi, step)` (step nonzero), computed without overflow:
    /// `|hi - lo|` as unsigned over `|step|`.
    fn trip_count(&mut self, lo: Value, hi: Value, step: Value) -> Value {
        let b = &mut self.em.b;
        let up = b.ins().icmp_imm_s(IntCC::SignedGreaterThan, step, 0);
        let hl = b.ins().isub(hi, lo);
        let lh = b.ins().isub(lo, hi);
        let diff = b.ins().select(up, hl, lh);
        let neg_step = b.ins().ineg(step);
        let magnitude = b.ins().select(up, step, neg_step);
        let lt = b.ins().icmp(IntCC::SignedLessThan, lo, hi);
        let gt = b.ins().icmp(IntCC::SignedGreaterThan, lo, hi);
        let nonempty = b.ins().select(up, lt, gt);
        let d1 = b.ins().iadd_imm_s(diff, -1);
        let q = b.ins().udiv(d1, magnitude);
        let q1 = b.ins().iadd_imm_s(q, 1);
        let zero = b.ins().iconst(types::I64, 0);
        b.ins().select(nonempty, q1, zero)
    }

    /// The values the induction variable takes, when the bounds are known and the step is a
    /// constant (an empty range gives no iteration, so any answer is right for it).
    pub(crate) fn induction_range(
        &self,
        lo: Value,
        hi: Value,
        step: Option<i64>,
    ) -> Option<(i128, i128)> {
        let (lo, hi) = (*self.ranges.get(&lo)?, *self.ranges.get(&hi)?);
        match step? {
            s if s > 0 => Some((lo.0, hi.1 - 1)),
            s if s < 0 => Some((hi.0 + 1, lo.1)),
            _ => None,
        }
    }
}
