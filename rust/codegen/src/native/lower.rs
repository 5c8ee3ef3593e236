//! The native function of a statement: parameters in, the statement (its regions inlined as
//! loops and branches), results out, and the cold error exits.

use super::branch::{self, IndexKey};
use super::forward::{node_key, NodeKey};
use super::overflow;
use super::{NativeStatement, INDEX_ERROR, NEGATIVE_POWER, OK, RANGE_STEP_ZERO};
use crate::kernel::{Const, Kernel, Scalar};
use crate::lower::expr::cl_type;
use crate::lower::{mem, Emitter, Mode};
use crate::Error;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, AbiParam, Block, InstBuilder, Value};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use cranelift_jit::JITModule;
use cranelift_module::Module;
use ember_core::ir::{BinaryOp, Graph, Op, Type};
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
    /// While a region of an `if` is computed without branching: its stores, deferred.
    pub spec: Option<Vec<super::branch::Deferred>>,
    /// Loads served from, and stores also kept in, a variable holding the element the
    /// previous iteration stored (`forward.rs`).
    pub forward_loads: HashMap<NodeKey, Variable>,
    pub forward_stores: HashMap<NodeKey, Variable>,
    /// Whether a checked integer scalar operation overflowed (`overflow.rs`).
    pub overflow: cranelift_codegen::ir::StackSlot,
    /// Element addresses computed (and checked) in blocks that dominate the one being
    /// filled, by array and index (`access.rs`).
    pub addresses: HashMap<AddressKey, Value>,
    /// Indices wrapped and checked against an axis length in blocks that dominate the one
    /// being filled, by the index and the length: `cols[row]`, `d1[row]` and `d2[row]` of
    /// one length check `row` once (`access.rs`).
    pub checked: HashMap<(Value, i64), Value>,
    /// Elements loaded or stored in blocks that dominate the one being filled, by address:
    /// the array's buffer and the value as a load would give it, while no other store into
    /// that array may have changed them.
    pub loaded: HashMap<Value, (usize, Value)>,
    /// Stores lowered so far (deferred ones included), to tell whether a construct stored.
    pub stores: usize,
    /// `i64` index arithmetic computed in blocks that dominate the one being filled
    /// (`j + 1` in a loop body and again in its branch's region is one value).
    pub arithmetic: HashMap<(BinaryOp, IndexKey, IndexKey), Val>,
    /// Scratch arrays made so far (`scratch.rs`), which number their buffers.
    pub scratch_arrays: usize,
    /// The scratch arrays that live in the heap block, at these byte offsets, and the
    /// block's address (`support::ScratchPlan`).
    pub heap_scratch: HashMap<*const ember_core::ir::Node, usize>,
    pub heap_base: Option<Value>,
    /// Versioned loops (`hoist.rs`) enclosing the code being lowered.
    pub versions: usize,
    /// Body nodes computed before their loop (`invariant.rs`): the value, or for a load the
    /// element, which the access still checks where it stands.
    pub hoisted: HashMap<NodeKey, Val>,
}

/// An element address: the array's base and strides, and the indices.
pub(crate) type AddressKey = (Value, Vec<Value>, Vec<IndexKey>);

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
        leaves: Default::default(),
        staged: Default::default(),
        scratch_slots: Vec::new(),
    };
    let mut nt = Native {
        fail_index: Block::from_u32(0),
        fail_range: Block::from_u32(0),
        fail_power: Block::from_u32(0),
        ranges: HashMap::new(),
        spec: None,
        forward_loads: HashMap::new(),
        forward_stores: HashMap::new(),
        overflow: cranelift_codegen::ir::StackSlot::from_u32(0),
        addresses: HashMap::new(),
        checked: HashMap::new(),
        loaded: HashMap::new(),
        stores: 0,
        arithmetic: HashMap::new(),
        scratch_arrays: 0,
        heap_scratch: HashMap::new(),
        heap_base: None,
        versions: 0,
        hoisted: HashMap::new(),
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
    nt.clear_overflow();

    let g = &st.graph;
    let plan = super::support::ScratchPlan::of_graph(g);
    if plan.heap_bytes != st.heap_scratch {
        return Err(Error::Codegen(
            "the scratch arrays' heap block changed size".into(),
        ));
    }
    if plan.heap_bytes > 0 {
        let at = (8 * (g.params.len() + g.results.len())) as i32;
        nt.heap_base = Some(nt.em.b.ins().load(types::I64, mem(), ptrs, at));
    }
    nt.heap_scratch = plan.heap;
    let mut stride_at = 0;
    let mut inputs = Vec::new();
    for (p, ty) in g.params.iter().enumerate() {
        if let Some(c) = st.consts[p] {
            inputs.push(Val::Const(c, ty.dtype));
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
                    let dtype = ty.dtype;
                    let v = self.value_as(scalar, dtype);
                    let at = ((g.params.len() + j) * 8) as i32;
                    let dst = self.em.b.ins().load(types::I64, mem(), ptrs, at);
                    self.em.b.ins().store(mem(), v, dst, 0);
                }
            }
        }
        self.raise_deferred_overflow();
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
        let dtype = ty.dtype;
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

    /// `f` with the element addresses and loads it makes forgotten afterwards: its blocks
    /// need not dominate the code that follows (a branch's region, a loop's body, a
    /// version). When it stored, no load made before is trusted either.
    pub(crate) fn scoped<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let known = self.addresses.clone();
        let checked = self.checked.clone();
        let loaded = self.loaded.clone();
        let arithmetic = self.arithmetic.clone();
        let stores = self.stores;
        let out = f(self);
        self.addresses = known;
        self.checked = checked;
        self.loaded = loaded;
        self.arithmetic = arithmetic;
        if self.stores != stores {
            self.loaded.clear();
        }
        out
    }

    /// Runs the statements of `graph` on `params`, returning its results.
    pub(crate) fn lower_graph(
        &mut self,
        graph: &Graph,
        params: Vec<Val>,
    ) -> Result<Vec<Val>, Error> {
        self.scoped(|nt| nt.lower_statements(graph, params, &[]))
    }

    /// A loop's body: as [`Self::lower_graph`], its exit test and the tests on a recurrence
    /// through its `carried` values always branches.
    pub(crate) fn lower_body(
        &mut self,
        body: &Graph,
        carried: usize,
        params: Vec<Val>,
    ) -> Result<Vec<Val>, Error> {
        let mut branching = branch::recurrent_tests(body, carried);
        branching.extend(branch::exit_test(body));
        self.scoped(|nt| nt.lower_statements(body, params, &branching))
    }

    /// `branching`: the statements that are `if`s lowered as branches whatever their size
    /// (a loop body's exit test and recurrent tests).
    fn lower_statements(
        &mut self,
        graph: &Graph,
        params: Vec<Val>,
        branching: &[usize],
    ) -> Result<Vec<Val>, Error> {
        let mut vals = params;
        let mut further: Vec<Val> = Vec::new();
        for (i, node) in graph.nodes.iter().enumerate() {
            let args: Vec<Val> = node
                .inputs
                .iter()
                .map(|v| vals[v.index()].clone())
                .collect();
            if let Some(v) = self.hoisted.get(&node_key(graph, i)).cloned() {
                if let (Op::Load, Some(Val::Array(a))) = (&node.op, args.first()) {
                    // The bounds check, where the access stands; the element was loaded
                    // before the loop.
                    let a = a.clone();
                    self.element(&a, &args[1..]).map_err(|e| match e {
                        Error::Unsupported(m) => Error::Unsupported(format!(
                            "{} = load in @{}: {m}",
                            graph.node_value(i),
                            graph.name
                        )),
                        other => other,
                    })?;
                }
                vals.push(v);
                continue;
            }
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
                    let facts = self.facts(graph, node.inputs[0], &vals);
                    let mut results = self
                        .lower_if(then, otherwise, &args, &facts, branching.contains(&i))
                        .map_err(located)?;
                    further = results.split_off(1);
                    further.reverse();
                    results.remove(0)
                }
                Op::Result { .. } => further.pop().expect("verified projections"),
                Op::Full { .. } if !node.ty.shape.is_empty() => {
                    self.scratch(node).map_err(located)?
                }
                Op::Load => match self.forward_loads.get(&node_key(graph, i)) {
                    Some(&var) => Val::Scalar(self.em.b.use_var(var), node.ty.dtype),
                    None => self.load(&args).map_err(located)?,
                },
                Op::Store => {
                    let forward = self.forward_stores.get(&node_key(graph, i)).copied();
                    self.store(&args, &node.ty, forward).map_err(located)?
                }
                _ => match overflow::condition(graph, i).filter(|_| self.spec.is_none()) {
                    Some(c) => self.defer_overflow(&vals[c.index()].clone()),
                    None => self.scalar_node(node, &types, &args).map_err(located)?,
                },
            };
            vals.push(val);
        }
        Ok(graph
            .results
            .iter()
            .map(|v| vals[v.index()].clone())
            .collect())
    }
}
