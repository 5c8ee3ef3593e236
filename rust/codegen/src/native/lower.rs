//! The native function of a statement: parameters in, the statement (its regions inlined as
//! loops and branches), results out, and the cold error exits.

use super::{NativeStatement, INDEX_ERROR, NEGATIVE_POWER, OK, RANGE_STEP_ZERO};
use crate::kernel::{Const, Kernel, Scalar};
use crate::lower::expr::cl_type;
use crate::lower::{mem, Emitter, Mode};
use crate::schedule::scalar_of;
use crate::Error;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, AbiParam, Block, BlockArg, InstBuilder, Value};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::JITModule;
use cranelift_module::Module;
use ember_core::ir::{Graph, Op, Type};
use std::collections::HashMap;
use std::rc::Rc;

/// An array seen by native code: which parameter's buffer it is, its address and layout.
pub(crate) struct Array {
    pub buffer: usize,
    pub base: Value,
    pub strides: Vec<Value>,
    pub shape: Vec<usize>,
    pub dtype: Scalar,
    /// Whether stores may go to it: a donated buffer, or an array carried by the loop being
    /// lowered. A loop-invariant array is read-only in the body (every iteration must see it
    /// unchanged), and a caller's array is never written.
    pub writable: bool,
}

/// A value while lowering: a compile-time constant (folded as the scheduler folds them), a
/// scalar in a register, or an array.
#[derive(Clone)]
pub(crate) enum Val {
    Const(Const, Scalar),
    Scalar(Value, Scalar),
    Array(Rc<Array>),
}

/// Lowering state: the shared emitter of scalar ops and the error exits.
pub(crate) struct Native<'a, 'b> {
    pub em: Emitter<'a, 'b>,
    /// Block params: index as given, axis, axis size.
    pub fail_index: Block,
    pub fail_range: Block,
    pub fail_power: Block,
    /// Bounds known at compile time of `i64` registers (induction variables, constants and
    /// sums of them), which let element accesses skip their checks.
    pub ranges: HashMap<Value, (i128, i128)>,
}

/// Builds the native function of `st` into `func`.
pub(crate) fn build(
    module: &mut JITModule,
    func: &mut cranelift_codegen::ir::Function,
    fctx: &mut FunctionBuilderContext,
    st: &NativeStatement,
) -> Result<(), Error> {
    for _ in 0..3 {
        func.signature.params.push(AbiParam::new(types::I64));
    }
    func.signature.returns.push(AbiParam::new(types::I64));
    let empty = Kernel::default();
    let fma = module.isa().has_native_fma();
    let em = Emitter {
        b: FunctionBuilder::new(func, fctx),
        k: &empty,
        module,
        libm_refs: HashMap::new(),
        row_ptr: Vec::new(),
        next_row_ptr: Vec::new(),
        touch_stage: None,
        stage_index: 0,
        reduce_store: None,
        inner_stride: Vec::new(),
        row_values: HashMap::new(),
        invariant: Vec::new(),
        written: Vec::new(),
        vectorize: false,
        fma,
        contiguous: None,
        n: None,
    };
    let mut nt = Native {
        fail_index: Block::from_u32(0),
        fail_range: Block::from_u32(0),
        fail_power: Block::from_u32(0),
        ranges: HashMap::new(),
        em,
    };
    let b = &mut nt.em.b;
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    nt.fail_index = b.create_block();
    nt.fail_range = b.create_block();
    nt.fail_power = b.create_block();
    b.set_cold_block(nt.fail_power);
    for _ in 0..3 {
        b.append_block_param(nt.fail_index, types::I64);
    }
    b.set_cold_block(nt.fail_index);
    b.set_cold_block(nt.fail_range);
    b.switch_to_block(entry);
    b.seal_block(entry);
    let params = b.block_params(entry).to_vec();
    let (ptrs, strides, err) = (params[0], params[1], params[2]);

    let g = &st.graph;
    let mut stride_at = 0;
    let mut inputs = Vec::new();
    for (p, ty) in g.params.iter().enumerate() {
        if let Some(c) = st.consts[p] {
            inputs.push(Val::Const(c, scalar_of(ty.dtype)?));
            continue;
        }
        let (mut val, used) = nt.bind(ty, p, ptrs, strides, stride_at)?;
        stride_at += used;
        if let Val::Array(a) = &mut val {
            Rc::get_mut(a).expect("a fresh handle").writable = st.donated.contains(&Some(p));
        }
        inputs.push(val);
    }
    // Two versions of the body: one for the layouts seen most (every array C-contiguous),
    // with strides compiled in so index arithmetic folds into shifts and addressing modes,
    // and one reading the strides given.
    match nt.contiguous_inputs(&inputs) {
        Some((all_contiguous, fast)) => {
            let b = &mut nt.em.b;
            let (fast_block, general_block) = (b.create_block(), b.create_block());
            b.ins()
                .brif(all_contiguous, fast_block, &[], general_block, &[]);
            b.switch_to_block(fast_block);
            b.seal_block(fast_block);
            nt.body(st, fast, ptrs)?;
            nt.em.b.switch_to_block(general_block);
            nt.em.b.seal_block(general_block);
            nt.body(st, inputs, ptrs)?;
        }
        None => nt.body(st, inputs, ptrs)?,
    }
    let b = &mut nt.em.b;
    b.switch_to_block(nt.fail_index);
    let record = b.block_params(nt.fail_index).to_vec();
    for (k, &v) in record.iter().enumerate() {
        b.ins().store(mem(), v, err, (8 * k) as i32);
    }
    let code = b.ins().iconst(types::I64, INDEX_ERROR);
    b.ins().return_(&[code]);
    b.switch_to_block(nt.fail_range);
    let code = b.ins().iconst(types::I64, RANGE_STEP_ZERO);
    b.ins().return_(&[code]);
    b.switch_to_block(nt.fail_power);
    let code = b.ins().iconst(types::I64, NEGATIVE_POWER);
    b.ins().return_(&[code]);
    b.seal_all_blocks();
    let config = nt.em.module.isa().frontend_config();
    nt.em.b.finalize(config);
    Ok(())
}

impl Native<'_, '_> {
    /// The statement on `inputs`, its scalar results stored, then a return of [`OK`].
    fn body(&mut self, st: &NativeStatement, inputs: Vec<Val>, ptrs: Value) -> Result<(), Error> {
        let g = &st.graph;
        let results = self.lower_graph(g, inputs)?;
        for (j, (val, ty)) in results.iter().zip(g.result_types()).enumerate() {
            match (val, st.donated[j]) {
                (Val::Array(a), Some(p)) if a.buffer == p => {}
                (Val::Array(_), _) => {
                    return Err(Error::Unsupported(format!(
                        "result {j} is not updated in the buffer of its operand"
                    )))
                }
                (scalar, _) => {
                    let dtype = scalar_of(ty.dtype)?;
                    let v = self.value_as(scalar, dtype);
                    let at = ((g.params.len() + j) * 8) as i32;
                    let dst = self.em.b.ins().load(types::I64, mem(), ptrs, at);
                    self.em.b.ins().store(mem(), v, dst, 0);
                }
            }
        }
        let ok = self.em.b.ins().iconst(types::I64, OK);
        self.em.b.ins().return_(&[ok]);
        Ok(())
    }

    /// Parameter `p`: a 0-d one is loaded into a register, an array keeps its address and
    /// strides. Returns the value and how many strides it took.
    fn bind(
        &mut self,
        ty: &Type,
        p: usize,
        ptrs: Value,
        strides: Value,
        stride_at: usize,
    ) -> Result<(Val, usize), Error> {
        let dtype = scalar_of(ty.dtype)?;
        let shape = ty.static_shape().ok_or_else(|| {
            Error::Unsupported(format!("symbolic shape {ty} (compile with static shapes)"))
        })?;
        let b = &mut self.em.b;
        let base = b.ins().load(types::I64, mem(), ptrs, (8 * p) as i32);
        if shape.is_empty() {
            let v = self.load_scalar(base, dtype);
            return Ok((Val::Scalar(v, dtype), 0));
        }
        let strides: Vec<Value> = (0..shape.len())
            .map(|k| {
                b.ins()
                    .load(types::I64, mem(), strides, (8 * (stride_at + k)) as i32)
            })
            .collect();
        let used = strides.len();
        let array = Array {
            buffer: p,
            base,
            strides,
            shape,
            dtype,
            writable: false,
        };
        Ok((Val::Array(Rc::new(array)), used))
    }

    /// The element of `dtype` at `addr`; a bool byte is normalised to 0 or 1.
    pub(crate) fn load_scalar(&mut self, addr: Value, dtype: Scalar) -> Value {
        let b = &mut self.em.b;
        let v = b.ins().load(cl_type(dtype, Mode::Scalar), mem(), addr, 0);
        if dtype == Scalar::Bool {
            b.ins().icmp_imm_s(IntCC::NotEqual, v, 0)
        } else {
            v
        }
    }

    /// Runs the statements of `graph` on `params`, returning its results.
    pub(crate) fn lower_graph(
        &mut self,
        graph: &Graph,
        params: Vec<Val>,
    ) -> Result<Vec<Val>, Error> {
        let mut vals = params;
        let mut further: Vec<Val> = Vec::new();
        for (i, node) in graph.nodes.iter().enumerate() {
            let args: Vec<Val> = node
                .inputs
                .iter()
                .map(|v| vals[v.index()].clone())
                .collect();
            let types: Vec<&Type> = node
                .inputs
                .iter()
                .map(|&v| graph.value_type(v).expect("verified graph"))
                .collect();
            let located = |e: Error| match e {
                Error::Unsupported(m) => Error::Unsupported(format!(
                    "{} = {} in @{}: {m}",
                    graph.node_value(i),
                    node.op.name(),
                    graph.name
                )),
                other => other,
            };
            let val = match &node.op {
                Op::Loop { body, carried } => {
                    let mut results = self.lower_loop(body, *carried, &args).map_err(located)?;
                    further = results.split_off(1);
                    further.reverse();
                    results.remove(0)
                }
                Op::If { then, otherwise } => {
                    let mut results = self.lower_if(then, otherwise, &args).map_err(located)?;
                    further = results.split_off(1);
                    further.reverse();
                    results.remove(0)
                }
                Op::Result { .. } => further.pop().expect("verified projections"),
                Op::Load => self.load(&args).map_err(located)?,
                Op::Store => self.store(&args, &node.ty).map_err(located)?,
                _ => self.scalar_node(node, &types, &args).map_err(located)?,
            };
            vals.push(val);
        }
        Ok(graph
            .results
            .iter()
            .map(|v| vals[v.index()].clone())
            .collect())
    }

    /// A 0-d value as an `i64` register.
    fn int64(&mut self, v: &Val) -> Value {
        self.value_as(v, Scalar::I64)
    }

    fn lower_loop(
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
        // Iterations of range(lo, hi, step), computed without overflow: |hi - lo| as unsigned
        // over |step|.
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
        let trips = b.ins().select(nonempty, q1, zero);

        let k = b.declare_var(types::I64);
        b.def_var(k, zero);
        let i = b.declare_var(types::I64);
        b.def_var(i, lo);
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
        let b = &mut self.em.b;
        let header = b.create_block();
        let body_block = b.create_block();
        let exit = b.create_block();
        b.ins().jump(header, &[]);
        b.switch_to_block(header);
        let kv = b.use_var(k);
        let more = b.ins().icmp(IntCC::UnsignedLessThan, kv, trips);
        b.ins().brif(more, body_block, &[], exit, &[]);
        b.switch_to_block(body_block);
        b.seal_block(body_block);
        let iv = b.use_var(i);
        if let Some(range) = self.induction_range(lo, hi, known_step) {
            self.ranges.insert(iv, range);
        }
        let mut params = vec![Val::Scalar(iv, Scalar::I64)];
        for (c, var) in args[3..3 + carried].iter().zip(&vars) {
            params.push(match var {
                Some((var, dtype)) => Val::Scalar(self.em.b.use_var(*var), *dtype),
                None => c.clone(),
            });
        }
        params.extend(args[3 + carried..].iter().map(|k| match k {
            Val::Array(a) if a.writable => Val::Array(Rc::new(Array {
                buffer: a.buffer,
                base: a.base,
                strides: a.strides.clone(),
                shape: a.shape.clone(),
                dtype: a.dtype,
                writable: false,
            })),
            other => other.clone(),
        }));
        let results = self.lower_graph(body, params)?;
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
        let go = self.value_as(&results[0], Scalar::Bool);
        let b = &mut self.em.b;
        let iv = b.use_var(i);
        let inext = b.ins().iadd(iv, step);
        b.def_var(i, inext);
        let kv = b.use_var(k);
        let knext = b.ins().iadd_imm_s(kv, 1);
        b.def_var(k, knext);
        b.ins().brif(go, header, &[], exit, &[]);
        b.seal_block(header);
        b.switch_to_block(exit);
        b.seal_block(exit);
        Ok(args[3..3 + carried]
            .iter()
            .zip(&vars)
            .map(|(c, var)| match var {
                Some((var, dtype)) => Val::Scalar(self.em.b.use_var(*var), *dtype),
                None => c.clone(),
            })
            .collect())
    }

    /// The values the induction variable takes, when the bounds are known and the step is a
    /// constant (an empty range gives no iteration, so any answer is right for it).
    fn induction_range(&self, lo: Value, hi: Value, step: Option<i64>) -> Option<(i128, i128)> {
        let (lo, hi) = (*self.ranges.get(&lo)?, *self.ranges.get(&hi)?);
        match step? {
            s if s > 0 => Some((lo.0, hi.1 - 1)),
            s if s < 0 => Some((hi.0 + 1, lo.1)),
            _ => None,
        }
    }

    fn lower_if(
        &mut self,
        then: &Graph,
        otherwise: &Graph,
        args: &[Val],
    ) -> Result<Vec<Val>, Error> {
        let cond = self.value_as(&args[0], Scalar::Bool);
        let result_types = then.result_types();
        let b = &mut self.em.b;
        let (tb, eb, merge) = (b.create_block(), b.create_block(), b.create_block());
        let mut merged: Vec<Option<Val>> = Vec::new();
        for ty in &result_types {
            if ty.shape.is_empty() {
                let dtype = scalar_of(ty.dtype)?;
                let v = b.append_block_param(merge, cl_type(dtype, Mode::Scalar));
                merged.push(Some(Val::Scalar(v, dtype)));
            } else {
                merged.push(None);
            }
        }
        b.ins().brif(cond, tb, &[], eb, &[]);
        let mut arrays: Vec<Option<Rc<Array>>> = vec![None; result_types.len()];
        for (block, region) in [(tb, then), (eb, otherwise)] {
            self.em.b.switch_to_block(block);
            self.em.b.seal_block(block);
            let results = self.lower_graph(region, args[1..].to_vec())?;
            let mut jump_args = Vec::new();
            for (j, (r, ty)) in results.iter().zip(&result_types).enumerate() {
                match r {
                    Val::Array(a) => match &arrays[j] {
                        Some(seen) if seen.buffer != a.buffer => {
                            return Err(Error::Unsupported(format!(
                                "the branches return different arrays as result {j}"
                            )))
                        }
                        _ => arrays[j] = Some(a.clone()),
                    },
                    scalar => {
                        let dtype = scalar_of(ty.dtype)?;
                        jump_args.push(BlockArg::Value(self.value_as(scalar, dtype)));
                    }
                }
            }
            self.em.b.ins().jump(merge, &jump_args);
        }
        self.em.b.switch_to_block(merge);
        self.em.b.seal_block(merge);
        Ok(merged
            .into_iter()
            .zip(arrays)
            .map(|(m, a)| m.unwrap_or_else(|| Val::Array(a.expect("an array result"))))
            .collect())
    }
}
