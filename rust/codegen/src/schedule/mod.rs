//! From an `ember-core` graph to a list of steps: fused kernels, matmuls, and the buffers
//! between them.
//!
//! Every graph value becomes a lazy node. Elementwise ops and views stay lazy and are computed
//! inside whatever kernel reads them; reductions join a group kernel per (shape, axis), which
//! also takes the elementwise work that reads their per-row results (softmax: max, sum of exp
//! and the normalised write in one pass over memory). A value is stored only where it must be:
//! graph outputs (straight into the caller's arrays), matmul operands, reshapes that merge
//! axes of computed data, and the per-row results of a group once it has run.

mod chains;
mod columns;
mod group;
mod in_place;
mod lazy;
pub(crate) mod nodes;
mod runs;
mod statements;

pub(crate) use lazy::IndexMap;

use crate::kernel::{Kernel, Scalar, Stage};
use crate::Error;
use ember_core::infer::dtypes;
use ember_core::ir::{BinaryOp, Graph, LinalgKind, Op, ScanKind, Type};
use group::Group;
use lazy::{inst, KernelBuilder, LOp, Lazy, Refuse, L};
use std::collections::HashMap;

/// Where a stored value lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Slot {
    /// Caller's input array `i`.
    Input(usize),
    /// Caller's output array `i`.
    Output(usize),
    /// Intermediate buffer `i` (C-contiguous).
    Temp(usize),
    /// Compile-time constant `i` (C-contiguous).
    Const(usize),
}

/// A stored value seen through a chain of views (resolved on the runtime strides).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct ValueRef {
    pub slot: Slot,
    /// The slot's own shape.
    pub base_shape: Vec<usize>,
    /// View ops applied in order, each with its result shape.
    pub views: Vec<(Op, Vec<usize>)>,
}

impl ValueRef {
    /// The whole slot, no views.
    pub fn of(slot: Slot, shape: &[usize]) -> Self {
        ValueRef {
            slot,
            base_shape: shape.to_vec(),
            views: Vec::new(),
        }
    }

    /// The shape seen through the views.
    pub fn shape(&self) -> &[usize] {
        self.views.last().map(|v| &v.1).unwrap_or(&self.base_shape)
    }
}

/// One executable step.
#[derive(Clone, Debug)]
pub(crate) enum Step {
    /// Run kernel `kernel` over `dims` (last = inner extent).
    Kernel {
        kernel: usize,
        dims: Vec<usize>,
        operands: Vec<(ValueRef, IndexMap)>,
        /// Whether adjacent dims may be merged (elementwise kernels only).
        collapse: bool,
        /// Whether rows must run in order on one thread (they accumulate into one output row).
        serial: bool,
    },
    /// Native statement `native` (a loop, branch or element access): `operands` are read,
    /// each donated operand is first copied into its result, then the function runs.
    Native {
        native: usize,
        operands: Vec<ValueRef>,
        results: Vec<ValueRef>,
    },
    /// A loop whose body computes with arrays: body graph `body` runs once per iteration.
    BodyLoop {
        body: usize,
        carried: usize,
        operands: Vec<ValueRef>,
        results: Vec<ValueRef>,
    },
    /// An `if` whose regions compute with arrays: body graph `then` or `otherwise` runs once,
    /// on `operands[1..]`, as the 0-d bool `operands[0]` says.
    BodyIf {
        then: usize,
        otherwise: usize,
        operands: Vec<ValueRef>,
        results: Vec<ValueRef>,
    },
    /// `out = a @ b` (NumPy semantics, batch broadcasting); with `update = Some(alpha)`,
    /// `out += alpha * (a @ b)` on what `out` already holds.
    Matmul {
        a: ValueRef,
        b: ValueRef,
        out: ValueRef,
        dtype: Scalar,
        update: Option<f64>,
    },
    /// `out = cumsum(input, axis)` (or `cumprod`, `sort`, `argsort`): `out` of `dtype`,
    /// `input` of `in_dtype` (the same but for `argsort`, whose output is `i64`).
    Scan {
        kind: ScanKind,
        axis: usize,
        input: ValueRef,
        out: ValueRef,
        dtype: Scalar,
        in_dtype: Scalar,
    },
    /// `out = gather(inputs...)` (or `scatter_add` when `scatter`): the data (or updates)
    /// first, then the index arrays for the axes from `axis` on.
    Indexed {
        scatter: bool,
        axis: usize,
        inputs: Vec<ValueRef>,
        out: ValueRef,
    },
    /// `out = kind(inputs...)`, all `f64`, through the registered LAPACK.
    Linalg {
        kind: LinalgKind,
        inputs: Vec<ValueRef>,
        out: ValueRef,
    },
}

/// The scheduled graph.
pub(crate) struct Plan {
    pub steps: Vec<Step>,
    pub kernels: Vec<Kernel>,
    pub natives: Vec<crate::native::NativeStatement>,
    /// The bodies of `BodyLoop` and `BodyIf` steps.
    pub bodies: Vec<Graph>,
    /// Per temp slot: dtype and shape.
    pub temps: Vec<(Scalar, Vec<usize>)>,
    /// Per const slot: dtype, shape, bytes.
    pub consts: Vec<(Scalar, Vec<usize>, Vec<u8>)>,
    /// Per input and output: dtype and shape.
    pub inputs: Vec<(Scalar, Vec<usize>)>,
    pub outputs: Vec<(Scalar, Vec<usize>)>,
}

/// The dtype a binary op computes in for operands of these types: NumPy's loop for them
/// (the logical ops compute in bool).
pub(crate) fn binary_loop_scalar(op: BinaryOp, a: &Type, b: &Type) -> Result<Scalar, Error> {
    let (ds, _) = dtypes::resolve_operands(&[a, b]);
    let lp = dtypes::binary_loop(op, ds[0], ds[1]).map_err(|e| Error::Unsupported(e.message))?;
    if matches!(
        op,
        BinaryOp::LogicalAnd | BinaryOp::LogicalOr | BinaryOp::LogicalXor
    ) {
        Ok(Scalar::Bool)
    } else {
        Ok(lp)
    }
}

pub(crate) struct Scheduler<'g> {
    pub g: &'g Graph,
    pub lazy: Lazy,
    pub defs: Vec<L>,
    pub groups: Vec<Group>,
    pub steps: Vec<Step>,
    pub kernels: Vec<Kernel>,
    /// Per kernel: the lazy nodes it computes.
    pub kernel_nodes: Vec<Vec<L>>,
    pub natives: Vec<crate::native::NativeStatement>,
    pub bodies: Vec<Graph>,
    /// The further results of the last multi-result statement, for its projections.
    pub further: Vec<L>,
    pub temps: Vec<(Scalar, Vec<usize>)>,
    pub consts: Vec<(Scalar, Vec<usize>, Vec<u8>)>,
    /// Slots an open group will write when it runs.
    pub pending: HashMap<Slot, usize>,
    /// The lazy node an open group writes into a slot (its own later stages recompute it).
    pub slot_lazy: HashMap<Slot, L>,
    /// Computed values stored whole for an extern step (a matmul operand), each with a leaf
    /// reading its store: later kernels load them rather than compute them again.
    pub stored: HashMap<L, L>,
    /// Updates a product computes itself (`Step::Matmul`'s `update`): the leaf reading each.
    pub updated: HashMap<ember_core::ir::ValueId, L>,
    /// Whether other bindings of the same symbolic graph share these kernels: sizes must then
    /// reach kernels as data, never as compiled-in constants.
    pub sizes_vary: bool,
    /// Per value (indexed like `defs`): how many operands and results read it.
    pub readers: Vec<u32>,
    /// Rows of a block assignment updated in place (`in_place.rs`): per rebuilt value, the
    /// array whose buffer holds it, the rows' axis and their first index.
    pub in_place_rows: HashMap<ember_core::ir::ValueId, (ember_core::ir::ValueId, usize, usize)>,
}

impl lazy::Context for Scheduler<'_> {
    fn lazy(&self) -> &Lazy {
        &self.lazy
    }
    fn pending(&self, slot: Slot) -> Option<usize> {
        self.pending.get(&slot).copied()
    }
    fn slot_lazy(&self, slot: Slot) -> Option<L> {
        self.slot_lazy.get(&slot).copied()
    }
    fn row_map(&self, group: usize) -> Option<IndexMap> {
        let g = &self.groups[group];
        g.open.then(|| g.row_map())
    }
    fn stage_store(&self, group: usize, stage: usize) -> ValueRef {
        self.groups[group].stores[stage].clone()
    }
    fn stage_index(&self, group: usize, stage: usize) -> usize {
        self.groups[group].reduces[stage].0
    }
    fn stored(&self, l: L) -> Option<L> {
        let leaf = *self.stored.get(&l)?;
        match &self.lazy.nodes[leaf].op {
            LOp::Leaf(vr) if !self.pending.contains_key(&vr.slot) => Some(leaf),
            _ => None,
        }
    }
}

impl Scheduler<'_> {
    pub(crate) fn new_temp(&mut self, dtype: Scalar, shape: &[usize]) -> Slot {
        self.temps.push((dtype, shape.to_vec()));
        Slot::Temp(self.temps.len() - 1)
    }

    /// A lazy leaf reading a stored value.
    pub(crate) fn leaf(&mut self, vr: ValueRef, dtype: Scalar) -> L {
        let shape = vr.shape().to_vec();
        self.lazy.push(LOp::Leaf(vr), dtype, shape)
    }

    /// Stores `l` into `dest` (a fresh temp when `None`); a stored value without a destination
    /// is returned as it is.
    pub(crate) fn materialise(&mut self, l: L, dest: Option<Slot>) -> Result<ValueRef, Error> {
        let l = match dest {
            None => lazy::Context::stored(self, l).unwrap_or(l),
            Some(_) => l,
        };
        if let (LOp::Leaf(vr), None) = (&self.lazy.nodes[l].op, dest) {
            return Ok(vr.clone());
        }
        let shape = self.lazy.nodes[l].shape.clone();
        let dtype = self.lazy.nodes[l].dtype;
        let slot = match dest {
            Some(s) => s,
            None => self.new_temp(dtype, &shape),
        };
        let out = ValueRef::of(slot, &shape);
        loop {
            let deps = self.open_deps(l);
            let result = match deps.last() {
                Some(&g) if self.fits_group(g, &shape) => self.store_in_group(g, l, &out),
                Some(&g) => Err(Refuse::NeedClose(g)),
                None => self.store_standalone(l, &out),
            };
            match result {
                Ok(()) => return Ok(out),
                Err(Refuse::NeedClose(h)) => self.close(h)?,
                Err(Refuse::Fail(e)) => return Err(e),
            }
        }
    }

    fn fits_group(&self, g: usize, shape: &[usize]) -> bool {
        let gr = &self.groups[g];
        gr.in_shape == shape || gr.keep_shape() == shape
    }

    fn store_in_group(&mut self, g: usize, l: L, out: &ValueRef) -> Result<(), Refuse> {
        let shape = out.base_shape.clone();
        let row = self.groups[g].in_shape != shape;
        let map = if row {
            self.groups[g].row_map()
        } else {
            self.groups[g].full_map()
        };
        let e = self.inst_in_group(g, l, &map)?;
        let dtype = self.lazy.nodes[l].dtype;
        let gr = &mut self.groups[g];
        let e = gr.kb.kernel.cast(e, dtype);
        let b = gr.kb.operand(out.clone(), map, dtype);
        gr.kb.kernel.stages.push(if row {
            Stage::RowStore {
                buffer: b,
                value: e,
            }
        } else {
            Stage::Map {
                buffer: b,
                value: e,
            }
        });
        self.pending.insert(out.slot, g);
        self.slot_lazy.insert(out.slot, l);
        Ok(())
    }

    /// An elementwise kernel computing `l` into `out` (through `out_map` when given).
    pub(crate) fn store_standalone(&mut self, l: L, out: &ValueRef) -> Result<(), Refuse> {
        let shape = self.lazy.nodes[l].shape.clone();
        let map = lazy::identity(&shape);
        self.store_mapped(l, out, map)
    }

    /// An elementwise kernel over `l`'s shape writing `out` through `out_map`.
    pub(crate) fn store_mapped(
        &mut self,
        l: L,
        out: &ValueRef,
        out_map: IndexMap,
    ) -> Result<(), Refuse> {
        let shape = self.lazy.nodes[l].shape.clone();
        // Unit dims leave the iteration space, so that the inner loop is a real extent and
        // row-invariant operands are exactly those that do not move along it.
        let kept: Vec<usize> = (0..shape.len()).filter(|&d| shape[d] != 1).collect();
        let renumber = |m: IndexMap| -> IndexMap {
            m.into_iter()
                .map(|a| lazy::AxisMap {
                    dim: a.dim.map(|d| {
                        kept.iter()
                            .position(|&k| k == d)
                            .expect("unit dims are fixed")
                    }),
                    ..a
                })
                .collect()
        };
        let dims: Vec<usize> = kept.iter().map(|&d| shape[d]).collect();
        let out_map = renumber(out_map);
        let mut kb = KernelBuilder::new(dims.len(), None);
        let e = inst(self, &mut kb, l, &renumber(lazy::identity(&shape)))?;
        if let Some(&g) = self.pending.get(&out.slot) {
            return Err(Refuse::NeedClose(g));
        }
        let out_dtype = self.slot_dtype(out.slot);
        let e = kb.kernel.cast(e, out_dtype);
        let b = kb.operand(out.clone(), out_map, out_dtype);
        kb.kernel.stages.push(Stage::Map {
            buffer: b,
            value: e,
        });
        self.kernel_nodes.push(kb.computed());
        self.kernels.push(kb.kernel);
        self.steps.push(Step::Kernel {
            kernel: self.kernels.len() - 1,
            dims,
            operands: kb.operands,
            collapse: true,
            serial: false,
        });
        Ok(())
    }

    pub(crate) fn slot_dtype(&self, slot: Slot) -> Scalar {
        match slot {
            Slot::Temp(i) => self.temps[i].0,
            Slot::Const(i) => self.consts[i].0,
            Slot::Input(i) => self.g.params[i].dtype,
            Slot::Output(i) => {
                let v = self.g.results[i];
                self.g.value_type(v).expect("defined").dtype
            }
        }
    }
}

/// Schedules `g` (static shapes only).
pub(crate) fn schedule(g: &Graph) -> Result<Plan, Error> {
    schedule_sizes(g, false)
}

/// [`schedule`]; with `sizes_vary` (one binding of a symbolic graph) no size is compiled into
/// a kernel: a `mean`'s element count is read from a constant buffer of the plan, so every
/// binding schedules the same kernels.
pub(crate) fn schedule_sizes(g: &Graph, sizes_vary: bool) -> Result<Plan, Error> {
    let (s, _) = run(g, sizes_vary)?;
    Ok(Plan {
        steps: s.steps,
        kernels: s.kernels,
        natives: s.natives,
        bodies: s.bodies,
        temps: s.temps,
        consts: s.consts,
        inputs: s
            .g
            .params
            .iter()
            .map(|t| static_type(t).expect("checked"))
            .collect(),
        outputs: s
            .g
            .result_types()
            .iter()
            .map(|t| static_type(t).expect("checked"))
            .collect(),
    })
}

/// What each step of `g`'s schedule is (`kernel`, `matmul`, `scan`, `native`, `loop`), and
/// for each statement of `g` the step that computes it: the step that stores it at once (a
/// matmul, a scan, a column reduction), else the first fused kernel that computes it (several
/// may recompute it). `None`: computed by no step of its own (a view of a stored value).
pub fn fusion_groups(g: &Graph) -> Result<(Vec<&'static str>, Vec<Option<usize>>), Error> {
    let (s, trace) = run(g, false)?;
    let kinds = s
        .steps
        .iter()
        .map(|step| match step {
            Step::Kernel { .. } => "kernel",
            Step::Matmul { .. } => "matmul",
            Step::Scan { .. } => "scan",
            Step::Linalg { .. } => "linalg",
            Step::Indexed { scatter: false, .. } => "gather",
            Step::Indexed { scatter: true, .. } => "scatter_add",
            Step::Native { .. } => "native",
            Step::BodyLoop { .. } => "loop",
            Step::BodyIf { .. } => "if",
        })
        .collect();
    let kernel_step: HashMap<usize, usize> = s
        .steps
        .iter()
        .enumerate()
        .filter_map(|(i, step)| match step {
            Step::Kernel { kernel, .. } => Some((*kernel, i)),
            _ => None,
        })
        .collect();
    let groups = trace
        .iter()
        .map(|&(l, own)| {
            own.or_else(|| {
                (0..s.kernels.len())
                    .find(|&k| s.kernel_nodes[k].binary_search(&l).is_ok())
                    .map(|k| kernel_step[&k])
            })
        })
        .collect();
    Ok((kinds, groups))
}

fn static_type(t: &ember_core::ir::Type) -> Result<(Scalar, Vec<usize>), Error> {
    let shape = t.static_shape().ok_or_else(|| {
        Error::Unsupported(format!("symbolic shape {t} (compile with static shapes)"))
    })?;
    Ok((t.dtype, shape))
}

/// How many operands and results read each value (params first, then statements).
fn readers(g: &Graph) -> Vec<u32> {
    let mut n = vec![0u32; g.params.len() + g.nodes.len()];
    for v in g
        .nodes
        .iter()
        .flat_map(|node| &node.inputs)
        .chain(&g.results)
    {
        n[v.index()] += 1;
    }
    n
}

/// Per statement: the lazy node it defined and the extern step (matmul, scan, native
/// statement, loop) that computes it, if any.
type Trace = Vec<(L, Option<usize>)>;

/// Runs the scheduler over `g`, tracing what computes each statement.
fn run(g: &Graph, sizes_vary: bool) -> Result<(Scheduler<'_>, Trace), Error> {
    let inputs = g
        .params
        .iter()
        .map(static_type)
        .collect::<Result<Vec<_>, _>>()?;
    g.result_types()
        .iter()
        .map(static_type)
        .collect::<Result<Vec<_>, _>>()?;
    for n in &g.nodes {
        static_type(&n.ty)?;
    }
    let mut s = Scheduler {
        g,
        lazy: Lazy::default(),
        defs: Vec::new(),
        groups: Vec::new(),
        steps: Vec::new(),
        kernels: Vec::new(),
        kernel_nodes: Vec::new(),
        natives: Vec::new(),
        bodies: Vec::new(),
        further: Vec::new(),
        temps: Vec::new(),
        consts: Vec::new(),
        pending: HashMap::new(),
        slot_lazy: HashMap::new(),
        stored: HashMap::new(),
        updated: HashMap::new(),
        sizes_vary,
        readers: readers(g),
        in_place_rows: HashMap::new(),
    };
    let mut done = vec![false; g.results.len()];
    for (i, (dtype, shape)) in inputs.iter().enumerate() {
        let l = s.leaf(ValueRef::of(Slot::Input(i), shape), *dtype);
        s.defs.push(l);
        s.emit_results(g.param(i), &mut done)?;
    }
    let mut trace = Vec::with_capacity(g.nodes.len());
    for (i, node) in g.nodes.iter().enumerate() {
        let v = g.node_value(i);
        let before = s.steps.len();
        let l = s.node(node, v, &mut done).map_err(|e| match e {
            Error::Unsupported(m) => Error::Unsupported(format!("{v} = {}: {m}", node.op.name())),
            other => other,
        })?;
        // A statement computed and stored at once (a matmul, a column reduction) comes back
        // as a leaf reading what the last step it pushed wrote.
        let stored = matches!(s.lazy.nodes[l].op, LOp::Leaf(_));
        let own = stored.then(|| (before..s.steps.len()).last()).flatten();
        trace.push((l, own));
        s.defs.push(l);
        s.emit_results(v, &mut done)?;
    }
    for gi in 0..s.groups.len() {
        s.close(gi)?;
    }
    Ok((s, trace))
}

impl Scheduler<'_> {
    /// Writes value `v` into every output slot that returns it and has not been written.
    fn emit_results(&mut self, v: ember_core::ir::ValueId, done: &mut [bool]) -> Result<(), Error> {
        let positions: Vec<usize> = (0..self.g.results.len())
            .filter(|&j| self.g.results[j] == v && !done[j])
            .collect();
        for j in positions {
            let l = self.defs[v.index()];
            let vr = self.materialise(l, Some(Slot::Output(j)))?;
            done[j] = true;
            let dtype = self.lazy.nodes[l].dtype;
            self.defs[v.index()] = self.leaf(vr, dtype);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{schedule, Step};
    use crate::kernel::{ExprOp, UnaryOp};
    use ember_core::ir::parse;

    /// How many kernels of `ir`'s schedule compute a `tanh`.
    fn kernels_with_tanh(ir: &str) -> usize {
        let plan = schedule(&parse(ir).unwrap()).unwrap();
        plan.kernels
            .iter()
            .filter(|k| {
                k.exprs
                    .iter()
                    .any(|e| matches!(e.op, ExprOp::Unary(UnaryOp::Tanh, _)))
            })
            .count()
    }

    #[test]
    fn a_value_stored_for_a_matmul_is_read_not_computed_again() {
        // A backward pass's shape: `tanh(z)` feeds a product, its transpose another, and
        // `1 - h*h` a reduction and a third product.
        let ir = "ember-ir 1
func @f(%0: f32[8,6], %1: f32[6,5], %2: f32[5,3], %3: f32[8,3]) -> (f32[8,3], f32[5,3], f32[1,5], f32[6,5]) {
  %4 = matmul(%0, %1) : f32[8,5]
  %5 = tanh(%4) : f32[8,5]
  %6 = matmul(%5, %2) : f32[8,3]
  %7 = transpose(%5) perm=[1,0] : f32[5,8]
  %8 = matmul(%7, %3) : f32[5,3]
  %9 = mul(%5, %5) : f32[8,5]
  %10 = sum(%9) axis=[0] keepdims=true : f32[1,5]
  %11 = transpose(%0) perm=[1,0] : f32[6,8]
  %12 = matmul(%11, %9) : f32[6,5]
  return %6, %8, %10, %12
}
";
        assert_eq!(kernels_with_tanh(ir), 1);
    }

    /// `d = np.minimum(d, d[:, k:k+1] + d[k:k+1, :])` unrolled `levels` times on n x n.
    fn shortest_paths(n: usize, levels: usize) -> String {
        let mut ir = format!("ember-ir 1\nfunc @f(%0: f64[{n},{n}]) -> (f64[{n},{n}]) {{\n");
        let mut d = 0;
        for k in 0..levels {
            let base = 1 + 4 * k;
            ir += &format!(
                "  %{a} = slice(%{d}) start=[0,{k}] stop=[{n},{k1}] step=[1,1] : f64[{n},1]\n\
                 \x20 %{b} = slice(%{d}) start=[{k},0] stop=[{k1},{n}] step=[1,1] : f64[1,{n}]\n\
                 \x20 %{s} = add(%{a}, %{b}) : f64[{n},{n}]\n\
                 \x20 %{m} = minimum(%{d}, %{s}) : f64[{n},{n}]\n",
                a = base,
                b = base + 1,
                s = base + 2,
                m = base + 3,
                k1 = k + 1,
            );
            d = base + 3;
        }
        ir + &format!("  return %{d}\n}}\n")
    }

    #[test]
    fn views_of_views_of_computed_values_are_stored_not_recomputed() {
        // Unrolled, every level reads the last one at three index maps; computed where it is
        // read, the kernel grew with every level (12 levels: thousands of expressions).
        let plan = schedule(&parse(&shortest_paths(12, 12)).unwrap()).unwrap();
        let largest = plan.kernels.iter().map(|k| k.exprs.len()).max().unwrap();
        assert!(largest <= 64, "a kernel of {largest} expressions");
    }

    #[test]
    fn a_slice_read_once_is_computed_in_place() {
        // Storing `exp(x)` whole would compute twice the exponentials the slice needs.
        let ir = "ember-ir 1
func @f(%0: f64[64]) -> (f64[32]) {
  %1 = exp(%0) : f64[64]
  %2 = slice(%1) start=[0] stop=[64] step=[2] : f64[32]
  return %2
}
";
        let plan = schedule(&parse(ir).unwrap()).unwrap();
        assert_eq!(plan.kernels.len(), 1);
        assert_eq!(plan.temps.len(), 0);
    }

    #[test]
    fn an_assigned_row_is_written_into_the_array_it_replaces() {
        // `out = np.zeros((3, 4)); out[0] = x; out[1] = 2 * x; out[2] = 3 * x`, as capture
        // writes it: each assignment a concatenation of the array's other rows around the
        // new one.
        let ir = "ember-ir 1
func @f(%0: f64[4]) -> (f64[3,4]) {
  %1 = full() value=0.0 : f64[3,4]
  %2 = expand_dims(%0) axis=[0] : f64[1,4]
  %3 = slice(%1) start=[1,0] stop=[3,4] step=[1,1] : f64[2,4]
  %4 = concatenate(%2, %3) axis=0 : f64[3,4]
  %5 = const() value=2.0 : f64[] weak
  %6 = mul(%0, %5) : f64[4]
  %7 = expand_dims(%6) axis=[0] : f64[1,4]
  %8 = slice(%4) start=[0,0] stop=[1,4] step=[1,1] : f64[1,4]
  %9 = slice(%4) start=[2,0] stop=[3,4] step=[1,1] : f64[1,4]
  %10 = concatenate(%8, %7, %9) axis=0 : f64[3,4]
  %11 = const() value=3.0 : f64[] weak
  %12 = mul(%0, %11) : f64[4]
  %13 = expand_dims(%12) axis=[0] : f64[1,4]
  %14 = slice(%10) start=[0,0] stop=[2,4] step=[1,1] : f64[2,4]
  %15 = concatenate(%14, %13) axis=0 : f64[3,4]
  return %15
}
";
        let plan = schedule(&parse(ir).unwrap()).unwrap();
        // The first assignment fills a buffer, the second writes its row into that buffer,
        // the last (the result) writes the caller's array once. Rebuilt, the second would
        // write all twelve elements again.
        let written: usize = plan
            .steps
            .iter()
            .map(|s| match s {
                Step::Kernel { dims, .. } => dims.iter().product::<usize>(),
                _ => 0,
            })
            .sum();
        assert_eq!(written, 12 + 4 + 12);
    }

    #[test]
    fn a_value_only_reductions_read_is_computed_where_it_is_read() {
        let ir = "ember-ir 1
func @f(%0: f32[8,5]) -> (f32[1,5], f32[8,1]) {
  %1 = tanh(%0) : f32[8,5]
  %2 = sum(%1) axis=[0] keepdims=true : f32[1,5]
  %3 = sum(%1) axis=[1] keepdims=true : f32[8,1]
  return %2, %3
}
";
        assert_eq!(kernels_with_tanh(ir), 2);
    }

    /// The factor of each product step that updates its output (`None`: writes it).
    fn updates(ir: &str) -> Vec<Option<f64>> {
        let plan = schedule(&parse(ir).unwrap()).unwrap();
        plan.steps
            .iter()
            .filter_map(|s| match s {
                Step::Matmul { update, .. } => Some(*update),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn an_update_by_a_product_is_computed_by_the_product() {
        let ir = "ember-ir 1
func @f(%0: f32[6,4], %1: f32[8,6], %2: f32[8,4], %3: f32[4]) -> (f32[6,4], f32[6,4], f32[4]) {
  %4 = transpose(%1) perm=[1,0] : f32[6,8]
  %5 = matmul(%4, %2) : f32[6,4]
  %6 = const() value=0.5 : f64[] weak
  %7 = mul(%6, %5) : f32[6,4]
  %8 = sub(%0, %7) : f32[6,4]
  %9 = matmul(%4, %2) : f32[6,4]
  %10 = add(%9, %0) : f32[6,4]
  %11 = matmul(%4, %2) : f32[6,4]
  %12 = sum(%11) axis=[0] keepdims=false : f32[4]
  %13 = sub(%3, %12) : f32[4]
  return %8, %10, %13
}
";
        // The third product is reduced before the update: it is stored as it is.
        assert_eq!(updates(ir), [Some(-0.5), Some(1.0), None]);
    }

    #[test]
    fn kernels_that_only_move_data_are_memory_bound() {
        let plan = schedule(
            &parse(
                "ember-ir 1
func @f(%0: f32[6,4], %1: f32[6,4]) -> (f32[6,4], f32[6,4], f32[6,4]) {
  %2 = const() value=0.5 : f64[] weak
  %3 = mul(%2, %1) : f32[6,4]
  %4 = sub(%0, %3) : f32[6,4]
  %5 = tanh(%0) : f32[6,4]
  %6 = div(%0, %1) : f32[6,4]
  return %4, %5, %6
}
",
            )
            .unwrap(),
        )
        .unwrap();
        let bound: Vec<bool> = plan.kernels.iter().map(|k| k.memory_bound()).collect();
        assert_eq!(bound, [true, false, false]);
    }
}
