//! The kernel function: signature, per-call setup (buffer pointers, strides, the contiguity
//! check), the loop over rows, and each row's stages in order.

use super::{mem, Emitter};
use crate::kernel::ScalarExt;
use crate::kernel::{ExprOp, InnerAccess, Kernel, Stage};
use cranelift_codegen::ir::{types, AbiParam, InstBuilder};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::JITModule;
use cranelift_module::Module;
use std::collections::HashMap;

/// A map at stage `s` whose output the next stage reduces, element by element as stored:
/// `(buffer, mapped value, reduction)`.
fn map_then_reduce(k: &Kernel, s: usize) -> Option<(usize, usize, crate::kernel::ReduceOp)> {
    use crate::kernel::ReduceOp::{Argmax, Argmin};
    let Stage::Map { buffer, value } = *k.stages.get(s)? else {
        return None;
    };
    let Stage::Reduce { op, value: r } = *k.stages.get(s + 1)? else {
        return None;
    };
    let fits = k.exprs[r].op == ExprOp::Load(buffer)
        && k.buffers[buffer].inner == InnerAccess::Strided
        && k.exprs[value].ty == k.buffers[buffer].dtype
        && !matches!(op, Argmax | Argmin);
    fits.then_some((buffer, value, op))
}

/// Builds the kernel function into `ctx.func`; `vectorize = false` emits only scalar loops.
pub(crate) fn build(
    module: &mut JITModule,
    func: &mut cranelift_codegen::ir::Function,
    fctx: &mut FunctionBuilderContext,
    k: &Kernel,
    vectorize: bool,
) {
    let ptr = types::I64;
    for _ in 0..3 {
        func.signature.params.push(AbiParam::new(ptr));
    }
    func.signature.params.push(AbiParam::new(types::I64));
    func.signature.params.push(AbiParam::new(types::I64));
    let fma = module.isa().has_native_fma();
    let b = FunctionBuilder::new(func, fctx);
    let mut em = Emitter {
        b,
        k,
        module,
        libm_refs: HashMap::new(),
        row_ptr: Vec::new(),
        next_row_ptr: Vec::new(),
        touch_stage: None,
        stage_index: 0,
        reduce_store: None,
        inner_stride: Vec::new(),
        row_values: HashMap::new(),
        invariant: k.row_invariant(),
        written: (0..k.buffers.len())
            .map(|b| {
                k.stages.iter().any(|s| {
                    matches!(*s, Stage::Map { buffer, .. } | Stage::RowStore { buffer, .. }
                        if buffer == b)
                })
            })
            .collect(),
        vectorize,
        fma,
        contiguous: None,
        n: None,
        leaves: Default::default(),
        staged: Default::default(),
        scratch_slots: Vec::new(),
    };
    let entry = em.b.create_block();
    em.b.append_block_params_for_function_params(entry);
    em.b.switch_to_block(entry);
    em.b.seal_block(entry);
    let params = em.b.block_params(entry).to_vec();
    let (bases, row_strides, inner_strides, rows, n) =
        (params[0], params[1], params[2], params[3], params[4]);
    em.n = Some(n);
    let mut base = Vec::new();
    let mut rstride = Vec::new();
    let mut contiguous = em.b.ins().iconst(types::I8, 1);
    for (i, buf) in k.buffers.iter().enumerate() {
        let off = (8 * i) as i32;
        base.push(em.b.ins().load(ptr, mem(), bases, off));
        rstride.push(em.b.ins().load(types::I64, mem(), row_strides, off));
        let s = em.b.ins().load(types::I64, mem(), inner_strides, off);
        em.inner_stride.push(s);
        if buf.inner == InnerAccess::Strided {
            let unit = em.b.ins().icmp_imm_s(
                cranelift_codegen::ir::condcodes::IntCC::Equal,
                s,
                buf.dtype.size() as i64,
            );
            contiguous = em.b.ins().band(contiguous, unit);
        }
    }
    em.contiguous = Some(contiguous);

    let r = em.b.declare_var(types::I64);
    let zero = em.b.ins().iconst(types::I64, 0);
    em.b.def_var(r, zero);
    let head = em.b.create_block();
    let body = em.b.create_block();
    let exit = em.b.create_block();
    em.b.ins().jump(head, &[]);
    em.b.switch_to_block(head);
    let rv = em.b.use_var(r);
    let more = em.b.ins().icmp(
        cranelift_codegen::ir::condcodes::IntCC::SignedLessThan,
        rv,
        rows,
    );
    em.b.ins().brif(more, body, &[], exit, &[]);
    em.b.switch_to_block(body);
    em.b.seal_block(body);
    em.row_ptr = (0..k.buffers.len())
        .map(|i| {
            let off = em.b.ins().imul(rv, rstride[i]);
            em.b.ins().iadd(base[i], off)
        })
        .collect();
    em.plan_touches(rv, rows, &rstride);
    em.row_values.clear();
    let mut s = 0;
    while s < k.stages.len() {
        em.stage_index = s;
        em.free_scratch();
        if let Some((buffer, value, op)) = map_then_reduce(k, s) {
            // One loop writes the map's row and reduces it from registers.
            em.reduce_store = Some(buffer);
            let res = em.reduce(op, value);
            em.reduce_store = None;
            em.set_stage_result(s + 1, res);
            s += 2;
            continue;
        }
        match k.stages[s] {
            Stage::Reduce { op, value } => {
                let res = em.reduce(op, value);
                em.set_stage_result(s, res);
            }
            Stage::Map { buffer, value } => em.map(buffer, value),
            Stage::RowStore { buffer, value } => {
                em.compute_invariants(value);
                let v = em.row_values[&value];
                let v = em.store_form(v, k.buffers[buffer].dtype);
                let a = em.row_ptr[buffer];
                em.b.ins().store(mem(), v, a, 0);
            }
        }
        s += 1;
    }
    let one = em.b.ins().iadd_imm_s(rv, 1);
    em.b.def_var(r, one);
    em.b.ins().jump(head, &[]);
    em.b.seal_block(head);
    em.b.switch_to_block(exit);
    em.b.seal_block(exit);
    em.b.ins().return_(&[]);
    let config = em.module.isa().frontend_config();
    em.b.finalize(config);
}
