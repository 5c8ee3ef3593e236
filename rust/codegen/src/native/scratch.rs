//! Scratch arrays: a `full` of static shape inside a region (`np.zeros(n)` in a loop body,
//! the copy NumPy makes of a run-time slice read by an overlapping update `T[i, v:] |=
//! T[i - 1, :k]`) lives in a stack slot of the native function, filled where the statement
//! stands (on every trip of the loop holding it) with 8-byte stores of the value's bytes;
//! those past the stack's room live at their offset in the call's heap block instead.
//! `support.rs` admits one only where no region returns it, so the slot never outlives the
//! values that hold it.

use super::lower::{Array, Native, Val};
use crate::kernel::ScalarExt;
use crate::kernel::{Const, Scalar};
use crate::lower::mem;
use crate::schedule::nodes::const_of;
use crate::Error;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, AbiParam, InstBuilder, StackSlotData, StackSlotKind, Value};
use cranelift_module::{Linkage, Module};
use ember_core::ir::{Node, Op};
use std::rc::Rc;

/// Scratch arrays of at most this many 8-byte words are filled by straight-line stores.
const UNROLLED_WORDS: usize = 16;

/// Bytes a fill loop stores per trip.
const BLOCK_BYTES: usize = 64;

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
    /// Stores `word` in the `words` 8-byte words at `base`, whose storage holds `room` bytes
    /// (a multiple of [`BLOCK_BYTES`] when `words` is over [`UNROLLED_WORDS`]): a few words
    /// by straight-line stores, more by `memset` when all the word's bytes are one byte (0,
    /// the common case), else by a loop of 16-byte stores, a block at a time.
    fn fill(&mut self, base: Value, word: i64, words: usize, room: usize) {
        let b = &mut self.em.b;
        if words <= UNROLLED_WORDS {
            let fill = b.ins().iconst(types::I64, word);
            for k in 0..words {
                b.ins().store(mem(), fill, base, (8 * k) as i32);
            }
            return;
        }
        let byte = word as u8;
        if word.to_le_bytes().iter().all(|&x| x == byte) {
            let mut sig = self.em.module.make_signature();
            sig.params.push(AbiParam::new(types::I64));
            sig.params.push(AbiParam::new(types::I32));
            sig.params.push(AbiParam::new(types::I64));
            sig.returns.push(AbiParam::new(types::I64));
            let id = self
                .em
                .module
                .declare_function("memset", Linkage::Import, &sig)
                .expect("memset declaration");
            let b = &mut self.em.b;
            let f = self.em.module.declare_func_in_func(id, b.func);
            let value = b.ins().iconst(types::I32, i64::from(byte));
            let count = b.ins().iconst(types::I64, (8 * words) as i64);
            b.ins().call(f, &[base, value, count]);
            return;
        }
        let scalar = b.ins().iconst(types::I64, word);
        let fill = b.ins().splat(types::I64X2, scalar);
        let (body, done) = (b.create_block(), b.create_block());
        let at = b.append_block_param(body, types::I64);
        let zero = b.ins().iconst(types::I64, 0);
        b.ins().jump(body, &[zero.into()]);
        b.switch_to_block(body);
        let addr = b.ins().iadd(base, at);
        for k in 0..BLOCK_BYTES / 16 {
            b.ins().store(mem(), fill, addr, (16 * k) as i32);
        }
        let next = b.ins().iadd_imm_s(at, BLOCK_BYTES as i64);
        let more = b.ins().icmp_imm_s(IntCC::SignedLessThan, next, room as i64);
        b.ins().brif(more, body, &[next.into()], done, &[]);
        b.seal_block(body);
        b.switch_to_block(done);
        b.seal_block(done);
    }

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
        let dtype = node.ty.dtype;
        let shape = node.ty.static_shape().expect("checked static");
        let words = bytes.div_ceil(8).max(1);
        let word = pattern(const_of(*value), dtype);
        let heap = self.heap_scratch.get(&(node as *const Node)).copied();
        // Longer fills run in blocks of `BLOCK_BYTES`, so the storage is rounded up to them
        // (a heap array's offset and room already are).
        let room = if words <= UNROLLED_WORDS {
            8 * words
        } else {
            (8 * words).div_ceil(BLOCK_BYTES) * BLOCK_BYTES
        };
        let b = &mut self.em.b;
        let base = match (heap, self.heap_base) {
            (Some(offset), Some(block)) => b.ins().iadd_imm_s(block, offset as i64),
            (Some(_), None) => unreachable!("a heap scratch array without a heap block"),
            (None, _) => {
                let slot = b.create_sized_stack_slot(StackSlotData::new(
                    StackSlotKind::ExplicitSlot,
                    room as u32,
                    3,
                ));
                b.ins().stack_addr(types::I64, slot, 0)
            }
        };
        self.fill(base, word, words, room);
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
