//! Touching the next row ahead of time.
//!
//! A kernel that starts by reducing rows (softmax's max, layernorm's mean) reads each row from
//! memory in that first pass, which then waits for memory, while its later passes find the row
//! in cache and are busy computing. Loading one word per cache line of the *next* row during
//! the heaviest later pass brings that row in while the CPU computes. Cranelift has no
//! prefetch instruction; the touches are plain loads whose results are unused, kept because
//! they have Cranelift's default (may trap) flags.
//!
//! Every touched address is an element of the next row inside the vector loop's extent (the
//! loop runs while `j + step <= n`), or in the last row of a launch an element of the current
//! row, so touches never leave the buffers.

use super::Emitter;
use crate::kernel::ScalarExt;
use crate::kernel::{ExprOp, InnerAccess, Stage};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Value};

impl Emitter<'_, '_> {
    /// Picks the stage that touches ahead and the buffers it touches, for row `r` of `rows`
    /// (`row_strides` in bytes, per buffer).
    pub(crate) fn plan_touches(&mut self, r: Value, rows: Value, row_strides: &[Value]) {
        let k = self.k;
        let Some(Stage::Reduce { value, .. }) = k.stages.first() else {
            return;
        };
        // The heaviest later loop: a map computing a polynomial function, else the last map.
        let heavy = (1..k.stages.len())
            .filter(|&s| matches!(k.stages[s], Stage::Map { .. }))
            .max_by_key(|&s| match k.stages[s] {
                Stage::Map { value, .. } => self.has_polynomial(value),
                _ => false,
            });
        let Some(h) = heavy else {
            return;
        };
        let next = self.b.ins().iadd_imm_s(r, 1);
        let last = self
            .b
            .ins()
            .icmp(IntCC::SignedGreaterThanOrEqual, next, rows);
        for i in self.needed(*value) {
            if let ExprOp::Load(b) = k.exprs[i].op {
                if k.buffers[b].inner == InnerAccess::Strided && !self.written[b] {
                    let cur = self.row_ptr[b];
                    let ahead = self.b.ins().iadd(cur, row_strides[b]);
                    let ahead = self.b.ins().select(last, cur, ahead);
                    self.next_row_ptr.push((b, ahead));
                }
            }
        }
        self.touch_stage = Some(h);
    }

    /// Loads one word per cache line of elements `[j, j + count)` of the rows to touch.
    pub(crate) fn touch_next_rows(&mut self, j: Value, count: i64) {
        for (b, ahead) in self.next_row_ptr.clone() {
            let size = self.k.buffers[b].dtype.size() as i64;
            let off = self.b.ins().imul_imm_s(j, size);
            let base = self.b.ins().iadd(ahead, off);
            for line in 0..(count * size + 63) / 64 {
                self.b
                    .ins()
                    .load(types::I32, MemFlagsData::new(), base, (line * 64) as i32);
            }
        }
    }
}
