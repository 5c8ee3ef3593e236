//! Scratch arrays: a `full` of static shape inside a region (`np.zeros(n)` in a loop body,
//! the copy NumPy makes of a run-time slice read by an overlapping update `T[i, v:] |=
//! T[i - 1, :k]`) lives in a stack slot of the native function, filled where the statement
//! stands (on every trip of the loop holding it) with 8-byte stores of the value's bytes.
//! `support.rs` admits one only where no region returns it, so the slot never outlives the
//! values that hold it.

use super::lower::{Array, Native, Val};
use crate::kernel::{Const, Scalar};
use crate::lower::mem;
use crate::schedule::nodes::const_of;
use crate::schedule::scalar_of;
use crate::Error;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, StackSlotData, StackSlotKind};
use ember_core::ir::{Node, Op};
use std::rc::Rc;

/// Scratch arrays of at most this many 8-byte words are filled by straight-line stores.
const UNROLLED_WORDS: usize = 16;

/// The bytes of `value` as `dtype` stores it, repeated to fill 8 bytes.
fn pattern(value: Const, dtype: Scalar) -> i64 {
    let size = dtype.size();
    let bits = match (value.cast_to(dtype), dtype) {
        (Const::Float(f), Scalar::F32) => u64::from((f as f32).to_bits()),
        (Const::Float(f), _) => f.to_bits(),
        (Const::Int(i), _) => i as u64,
    };
    let bits = if size == 8 {
        bits
    } else {
        bits & ((1u64 << (8 * size)) - 1)
    };
    let mut word = 0u64;
    for k in 0..8 / size {
        word |= bits << (8 * size * k);
    }
    word as i64
}

impl Native<'_, '_> {
    /// The scratch array `node` (a `full`), filled, in a new stack slot.
    pub(crate) fn scratch(&mut self, node: &Node) -> Result<Val, Error> {
        let Op::Full { value, .. } = &node.op else {
            unreachable!("scratch arrays are `full`s")
        };
        if self.spec.is_some() {
            return Err(Error::Unsupported(
                "a scratch array in a speculated region".into(),
            ));
        }
        let bytes = super::support::scratch_bytes(node)
            .ok_or_else(|| Error::Unsupported("a scratch array of this type".into()))?;
        let dtype = scalar_of(node.ty.dtype)?;
        let shape = node.ty.static_shape().expect("checked static");
        let words = bytes.div_ceil(8).max(1);
        let word = pattern(const_of(*value), dtype);
        let b = &mut self.em.b;
        let slot = b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            (8 * words) as u32,
            3,
        ));
        let base = b.ins().stack_addr(types::I64, slot, 0);
        let fill = b.ins().iconst(types::I64, word);
        if words <= UNROLLED_WORDS {
            for k in 0..words {
                b.ins().store(mem(), fill, base, (8 * k) as i32);
            }
        } else {
            let (body, done) = (b.create_block(), b.create_block());
            let at = b.append_block_param(body, types::I64);
            let zero = b.ins().iconst(types::I64, 0);
            b.ins().jump(body, &[zero.into()]);
            b.switch_to_block(body);
            let addr = b.ins().iadd(base, at);
            b.ins().store(mem(), fill, addr, 0);
            let next = b.ins().iadd_imm_s(at, 8);
            let more = b
                .ins()
                .icmp_imm_s(IntCC::SignedLessThan, next, (8 * words) as i64);
            b.ins().brif(more, body, &[next.into()], done, &[]);
            b.seal_block(body);
            b.switch_to_block(done);
            b.seal_block(done);
        }
        let mut strides = vec![0; shape.len()];
        let mut stride = dtype.size() as i64;
        for k in (0..shape.len()).rev() {
            strides[k] = stride;
            stride *= shape[k].max(1) as i64;
        }
        let strides = strides
            .into_iter()
            .map(|s| self.em.b.ins().iconst(types::I64, s))
            .collect();
        self.scratch_arrays += 1;
        // Buffers count down from the top, clear of every parameter's number.
        let buffer = usize::MAX - self.scratch_arrays;
        Ok(Val::Array(Rc::new(Array {
            buffer,
            base,
            strides,
            shape,
            dtype,
            writable: true,
        })))
    }
}
