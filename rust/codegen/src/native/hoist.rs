//! Bounds checks hoisted out of loops whose bounds are known only at run time (read from an
//! array, carried by an outer loop): each access whose index is `±i + c` (plus an invariant
//! of known range) is in bounds for every `i` in a window computed at compile time; one test
//! at loop entry (the first and the last value `i` can take lie in the window) picks a
//! version of the loop compiled with that window as the induction variable's range, where
//! those accesses carry no check. When the test fails the loop runs as compiled before, with
//! every check, so an out-of-range index raises at the same iteration, after the same
//! stores, as NumPy's.

use super::forward;
use super::loops::Bounds;
use super::lower::{Native, Val};
use crate::lower::expr::cl_type;
use crate::lower::Mode;
use crate::Error;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{BlockArg, InstBuilder};
use ember_core::ir::Graph;

/// Loops nested in a versioned loop that are versioned in turn, at most.
const MAX_NESTED_VERSIONS: usize = 2;

impl Native<'_, '_> {
    /// The loop, in two versions when a window of the induction variable proves some
    /// accesses in bounds.
    pub(crate) fn versioned_loop(
        &mut self,
        body: &Graph,
        carried: usize,
        args: &[Val],
        bounds: &Bounds,
    ) -> Result<Vec<Val>, Error> {
        // Known bounds may still be too wide to prove an access (`for k in range(i, j)` with
        // `j = i + length - 1`: interval arithmetic cannot see `j <= n`): the window, narrowed
        // to them, versions the loop unless they already lie inside it. Nested versioning
        // stops at two levels (each doubles the code inside).
        let known = self.induction_range(bounds.lo, bounds.hi, bounds.known_step);
        let window = match bounds.known_step {
            Some(s) if self.versions < MAX_NESTED_VERSIONS => self
                .window(body, carried, args)
                .and_then(|w| match known {
                    None => Some(w),
                    Some(r) if w.0 <= r.0 && r.1 <= w.1 => None,
                    Some(r) => {
                        let narrowed = (w.0.max(r.0), w.1.min(r.1));
                        (narrowed.0 <= narrowed.1).then_some(narrowed)
                    }
                })
                .map(|w| (w, s)),
            _ => None,
        };
        let Some(((l, h), s)) = window else {
            return self.emit_loop(body, carried, args, bounds, None);
        };
        let b = &mut self.em.b;
        let (lo, hi) = (bounds.lo, bounds.hi);
        let above = b
            .ins()
            .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, lo, l as i64);
        let below = b
            .ins()
            .icmp_imm_s(IntCC::SignedLessThanOrEqual, lo, h as i64);
        // The last value is at most `hi - 1` (at least `hi + 1` going down); a bound at the
        // edge of `i64` wraps here and fails the test, which only costs the checks.
        let last_fits = if s > 0 {
            let last = b.ins().iadd_imm_s(hi, -1);
            b.ins()
                .icmp_imm_s(IntCC::SignedLessThanOrEqual, last, h as i64)
        } else {
            let last = b.ins().iadd_imm_s(hi, 1);
            b.ins()
                .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, last, l as i64)
        };
        let first_fits = b.ins().band(above, below);
        let fits = b.ins().band(first_fits, last_fits);
        let (unchecked, checked, merge) = (b.create_block(), b.create_block(), b.create_block());
        b.ins().brif(fits, unchecked, &[], checked, &[]);
        let mut versions = Vec::new();
        for (block, window) in [(unchecked, Some((l, h))), (checked, None)] {
            self.em.b.switch_to_block(block);
            self.em.b.seal_block(block);
            self.versions += 1;
            let results = self.scoped(|nt| nt.emit_loop(body, carried, args, bounds, window));
            self.versions -= 1;
            let results = results?;
            let jump_args: Vec<BlockArg> = results
                .iter()
                .filter_map(|r| match r {
                    Val::Scalar(v, _) => Some(BlockArg::Value(*v)),
                    _ => None,
                })
                .collect();
            self.em.b.ins().jump(merge, &jump_args);
            versions.push(results);
        }
        self.em.b.switch_to_block(merge);
        self.em.b.seal_block(merge);
        let mut merged = Vec::new();
        for r in versions.swap_remove(0) {
            merged.push(match r {
                Val::Scalar(_, dtype) => {
                    let ty = cl_type(dtype, Mode::Scalar);
                    Val::Scalar(self.em.b.append_block_param(merge, ty), dtype)
                }
                other => other,
            });
        }
        Ok(merged)
    }

    /// The values of the induction variable for which every access of `body` with an index
    /// `±i + invariant` is in bounds (accesses of other forms keep their checks), when there
    /// are such accesses.
    fn window(&mut self, body: &Graph, carried: usize, args: &[Val]) -> Option<(i128, i128)> {
        let mut window = (i128::from(i64::MIN), i128::from(i64::MAX));
        let mut any = false;
        for (p, axes) in forward::accesses(body, carried) {
            let Val::Array(a) = &args[2 + p] else {
                continue;
            };
            let shape = a.shape.clone();
            for (axis, form) in axes.iter().enumerate() {
                let Some(f) = form.filter(|f| f.ind == 1 || f.ind == -1) else {
                    continue;
                };
                let (a0, a1) = match f.atom {
                    None => (0, 0),
                    Some(q) => {
                        let v = self.int64(&args[2 + q]);
                        match self.ranges.get(&v) {
                            Some(&r) => r,
                            None => continue,
                        }
                    }
                };
                let (size, c) = (shape[axis] as i128, i128::from(f.c));
                let (lo, hi) = if f.ind == 1 {
                    (-c - a0, size - 1 - c - a1)
                } else {
                    (a1 + c - size + 1, a0 + c)
                };
                window = (window.0.max(lo), window.1.min(hi));
                any = true;
            }
        }
        (any && window.0 <= window.1).then_some(window)
    }
}
