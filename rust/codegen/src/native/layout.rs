//! The contiguous version of a native body: when every array the statement is given is
//! C-contiguous (checked once at entry), strides are compile-time constants, so an element's
//! offset folds into shifts and addressing modes instead of a multiply by a loaded stride per
//! axis and access.

use super::lower::{Array, Native, Val};
use crate::kernel::ScalarExt;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, Value};
use std::rc::Rc;

impl Native<'_, '_> {
    /// When `inputs` hold arrays: a flag, true when every one is C-contiguous, and the inputs
    /// with those strides as constants. An axis of size 0 or 1 never multiplies a nonzero
    /// index by its stride, so its stride is not checked.
    pub(crate) fn contiguous_inputs(&mut self, inputs: &[Val]) -> Option<(Value, Vec<Val>)> {
        if !inputs.iter().any(|v| matches!(v, Val::Array(_))) {
            return None;
        }
        let b = &mut self.em.b;
        let mut all = b.ins().iconst(types::I8, 1);
        let mut fast = Vec::with_capacity(inputs.len());
        for val in inputs {
            let Val::Array(a) = val else {
                fast.push(val.clone());
                continue;
            };
            let mut expected = a.dtype.size() as i64;
            let mut strides = vec![a.strides[0]; a.shape.len()];
            for k in (0..a.shape.len()).rev() {
                if a.shape[k] > 1 {
                    let same = b.ins().icmp_imm_s(IntCC::Equal, a.strides[k], expected);
                    all = b.ins().band(all, same);
                }
                strides[k] = b.ins().iconst(types::I64, expected);
                expected *= a.shape[k].max(1) as i64;
            }
            fast.push(Val::Array(Rc::new(Array {
                buffer: a.buffer,
                base: a.base,
                strides,
                shape: a.shape.clone(),
                dtype: a.dtype,
                writable: a.writable,
            })));
        }
        Some((all, fast))
    }
}
