//! The executable graph: compiled kernels, the step list, buffer planning, and the runtime
//! entry that takes caller arrays as raw strided views.

pub use crate::arrays::{ArrayView, ArrayViewMut};

mod run;
use crate::buffers;
use crate::dynamic::{is_symbolic, Dynamic, KernelCache};
use crate::fpstatus::{self, FpStatus};
use crate::jit::{Jit, KernelFn};
use crate::kernel::Scalar;
use crate::kernel::ScalarExt;
use crate::matmul;
use crate::schedule::{self, Plan, Slot};
use crate::Error;
use ember_core::ir::{DType, Graph, Type};
use run::Runtime;
use smallvec::SmallVec;
use std::sync::{Arc, Mutex};

/// Compilation options.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Threads for large kernels; 0 means all cores, 1 keeps everything on the caller thread.
    pub num_threads: usize,
}

/// A graph compiled to native code. Its JIT memory is freed when it drops.
pub struct CompiledGraph {
    input_types: Vec<Type>,
    output_types: Vec<Type>,
    shapes: Shapes,
}

/// Static shapes: one plan; symbolic dims: a plan per binding of the symbols.
enum Shapes {
    Static(Box<StaticGraph>),
    Dynamic(Dynamic),
}

/// A graph of static shapes: its plan, kernels and buffers.
pub(crate) struct StaticGraph {
    plan: Plan,
    fns: Vec<KernelFn>,
    natives: Vec<crate::native::NativeFn>,
    /// The compiled bodies of loops that compute with arrays.
    bodies: Vec<CompiledGraph>,
    /// Per temp slot: the physical buffer holding it.
    temp_buffer: Vec<usize>,
    /// Byte size of each physical buffer.
    buffer_sizes: Vec<usize>,
    /// Constant arrays, copied to 16-byte aligned storage (gemm reads them as typed slices).
    consts: Vec<Vec<u128>>,
    /// Per kernel of the plan: whether it only moves data (`Kernel::memory_bound`).
    memory_bound: Vec<bool>,
    /// Recycled buffer sets: first touch of fresh memory costs more than the kernels.
    pool: Mutex<Vec<Vec<Vec<u128>>>>,
    options: Options,
    /// Owns the code of `fns` (shared with the other bindings of a symbolic graph).
    kernels: Arc<KernelCache>,
    /// Whether a run is too short to be worth releasing the GIL for ([`is_light`]).
    light: bool,
}

/// A plan whose kernels together iterate at most this many elements runs in about a
/// microsecond: less than releasing the GIL and taking it back costs, and too short to keep
/// other threads waiting.
pub const LIGHT_WORK: usize = 2048;

/// Whether `plan` only launches kernels, over [`LIGHT_WORK`] elements at most in all (a
/// product, a loop or a native statement may run for long whatever its arrays' sizes).
fn is_light(plan: &Plan) -> bool {
    let work = plan.steps.iter().try_fold(0usize, |work, step| match step {
        schedule::Step::Kernel { dims, .. } => Some(work + dims.iter().product::<usize>()),
        _ => None,
    });
    work.is_some_and(|w| w <= LIGHT_WORK)
}

/// Compiles a verified, optimised graph. Static shapes are planned now; a graph with
/// symbolic dims is planned per binding of its symbols at run time, with its kernels
/// generated once (`dynamic.rs`).
pub fn compile(graph: &Graph, options: &Options) -> Result<CompiledGraph, Error> {
    let shapes = if is_symbolic(graph) {
        Shapes::Dynamic(Dynamic::new(graph, options)?)
    } else {
        Shapes::Static(Box::new(compile_static(
            graph,
            options,
            &Arc::default(),
            false,
        )?))
    };
    Ok(CompiledGraph {
        input_types: graph.params.clone(),
        output_types: graph.result_types(),
        shapes,
    })
}

/// Compiles a graph of static shapes, taking kernels `kernels` already holds from there
/// (`sizes_vary`: a binding of a symbolic graph, see [`schedule::schedule_sizes`]).
pub(crate) fn compile_static(
    graph: &Graph,
    options: &Options,
    kernels: &Arc<KernelCache>,
    sizes_vary: bool,
) -> Result<StaticGraph, Error> {
    let plan = schedule::schedule_sizes(graph, sizes_vary)?;
    let mut store = kernels.lock();
    let (keys, missing) = store.missing(&plan.kernels);
    let mut natives = Vec::new();
    // A binding whose kernels were all generated before makes no module at all.
    if !missing.is_empty() || !plan.natives.is_empty() {
        let mut jit = Jit::new()?;
        let ids = missing
            .iter()
            .map(|&k| jit.add(&plan.kernels[k]))
            .collect::<Result<Vec<_>, _>>()?;
        let native_ids = plan
            .natives
            .iter()
            .map(|st| jit.add_native(st))
            .collect::<Result<Vec<_>, _>>()?;
        jit.finalize()?;
        for (&k, &id) in missing.iter().zip(&ids) {
            store.insert(keys[k].clone(), jit.get(id));
        }
        natives = native_ids.iter().map(|&id| jit.get_native(id)).collect();
        store.keep(jit);
    }
    let fns = keys.iter().map(|k| store.get(k)).collect();
    drop(store);
    let bodies = plan
        .bodies
        .iter()
        .map(|body| compile(body, options))
        .collect::<Result<Vec<_>, _>>()?;
    let (temp_buffer, buffer_sizes) = buffers::plan_buffers(&plan);
    let consts = plan
        .consts
        .iter()
        .map(|(_, _, bytes)| {
            let mut v = vec![0u128; bytes.len().div_ceil(16)];
            // SAFETY: `v` has at least `bytes.len()` bytes; the regions do not overlap.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    bytes.as_ptr(),
                    v.as_mut_ptr() as *mut u8,
                    bytes.len(),
                )
            };
            v
        })
        .collect();
    let memory_bound = plan.kernels.iter().map(|k| k.memory_bound()).collect();
    Ok(StaticGraph {
        light: is_light(&plan),
        memory_bound,
        consts,
        plan,
        fns,
        natives,
        bodies,
        temp_buffer,
        buffer_sizes,
        pool: Mutex::new(Vec::new()),
        options: options.clone(),
        kernels: kernels.clone(),
    })
}

/// The Cranelift IR and machine code of every kernel `graph` compiles to, for reading what
/// the lowering emits (the SIMD form, with the scalar fallback's listing after it when the
/// SIMD form failed).
pub fn disassemble(graph: &Graph) -> Result<Vec<String>, Error> {
    let plan = schedule::schedule(graph)?;
    let mut jit = Jit::new()?;
    jit.keep_listings();
    for k in &plan.kernels {
        jit.add(k)?;
    }
    for st in &plan.natives {
        jit.add_native(st)?;
    }
    Ok(jit.listings().to_vec())
}

fn check(
    what: &str,
    i: usize,
    want: &(Scalar, Vec<usize>),
    data: *const u8,
    dtype: DType,
    shape: &[usize],
    strides: &[isize],
) -> Result<(), Error> {
    if dtype != want.0 || shape != want.1.as_slice() {
        return Err(Error::Mismatch(format!(
            "{what} {i}: expected {}{:?}, got {dtype}{shape:?}",
            want.0, want.1
        )));
    }
    if strides.len() != shape.len() || strides.iter().any(|s| s % want.0.size() as isize != 0) {
        return Err(Error::Mismatch(format!(
            "{what} {i}: strides {strides:?} are not whole elements of {}",
            want.0
        )));
    }
    // Extern kernels (gemm) read typed slices, which must be aligned; an empty array is
    // never read (its pointer may dangle).
    let empty = shape.contains(&0);
    if !empty && !(data as usize).is_multiple_of(want.0.size()) {
        return Err(Error::Mismatch(format!(
            "{what} {i}: data is not aligned to its {}-byte elements (pass an aligned copy)",
            want.0.size()
        )));
    }
    Ok(())
}

impl CompiledGraph {
    /// The parameter types, in order (symbolic dims are bound by each call's inputs).
    pub fn input_types(&self) -> &[Type] {
        &self.input_types
    }

    /// The result types, in order (what the caller allocates for `run`).
    pub fn output_types(&self) -> &[Type] {
        &self.output_types
    }

    /// Number of native kernels and of steps (kernels plus extern calls), for tests and logs;
    /// a symbolic graph counts those of the binding of `shapes` (one shape per input).
    pub fn kernel_count_for(&self, shapes: &[&[usize]]) -> Result<(usize, usize), Error> {
        match &self.shapes {
            Shapes::Static(g) => Ok((g.fns.len(), g.plan.steps.len())),
            Shapes::Dynamic(d) => {
                let g = d.plan_for(&d.bind(shapes)?)?;
                Ok((g.fns.len(), g.plan.steps.len()))
            }
        }
    }

    /// Number of native kernels and of steps of a graph of static shapes ((0, 0) for a
    /// symbolic one, which is planned per call: see [`CompiledGraph::kernel_count_for`]).
    pub fn kernel_count(&self) -> (usize, usize) {
        match &self.shapes {
            Shapes::Static(g) => (g.fns.len(), g.plan.steps.len()),
            Shapes::Dynamic(_) => (0, 0),
        }
    }

    /// How many distinct kernels Cranelift generated for this graph, all bindings of its
    /// symbols together.
    pub fn generated_kernels(&self) -> usize {
        match &self.shapes {
            Shapes::Static(g) => g.kernels.lock().len(),
            Shapes::Dynamic(d) => d.kernels().lock().len(),
        }
    }

    /// Whether the graph has symbolic dims (planned per binding at run time).
    pub fn is_dynamic(&self) -> bool {
        matches!(self.shapes, Shapes::Dynamic(_))
    }

    /// Plans the graph now for inputs of these shapes (one per input), so that the first call
    /// with them does not, and so that a binding code generation rejects is reported at
    /// compile time. Nothing to do for static shapes.
    pub fn prepare(&self, shapes: &[&[usize]]) -> Result<(), Error> {
        if let Shapes::Dynamic(d) = &self.shapes {
            d.plan_for(&d.bind(shapes)?)?;
        }
        Ok(())
    }

    /// Runs the graph: reads `inputs`, writes every element of `outputs`, and returns the
    /// floating-point exception flags the kernels raised (on any thread); the calling thread's
    /// own flags are as they were before the call.
    pub fn run(&self, inputs: &[ArrayView], outputs: &[ArrayViewMut]) -> Result<FpStatus, Error> {
        match &self.shapes {
            Shapes::Static(g) => g.run(inputs, outputs),
            Shapes::Dynamic(d) => d.run(inputs, outputs),
        }
    }

    /// [`CompiledGraph::run`] again on arrays of the dtypes, shapes and strides of the first
    /// run given `prepared` (a loop's trips, repeated calls on one layout); the caller
    /// guarantees those layouts are the same. [`CompiledGraph::release`] ends its use.
    pub fn run_prepared(
        &self,
        inputs: &[ArrayView],
        outputs: &[ArrayViewMut],
        prepared: &mut Prepared,
    ) -> Result<FpStatus, Error> {
        match &self.shapes {
            Shapes::Static(g) => g.run_with(inputs, outputs, Some(prepared), true),
            Shapes::Dynamic(d) => d.run_prepared(inputs, outputs, prepared, true),
        }
    }

    /// [`CompiledGraph::run_prepared`] as one trip of a loop inside a run: the flags the
    /// trip raises are left set on the calling thread, for the enclosing run to read with
    /// its own, instead of being read and cleared around every trip (`stmxcsr`/`ldmxcsr`
    /// stall the pipeline, a cost a short trip notices).
    pub fn run_trip(
        &self,
        inputs: &[ArrayView],
        outputs: &[ArrayViewMut],
        prepared: &mut Prepared,
    ) -> Result<(), Error> {
        match &self.shapes {
            Shapes::Static(g) => g.run_with(inputs, outputs, Some(prepared), false).map(drop),
            Shapes::Dynamic(d) => d.run_prepared(inputs, outputs, prepared, false).map(drop),
        }
    }

    /// Whether a run on the layouts `prepared` was made for is light: it only launches
    /// kernels over [`LIGHT_WORK`] elements at most, so that the caller may keep the GIL
    /// through it (false before a run has prepared it, for a symbolic graph).
    pub fn is_light(&self, prepared: &Prepared) -> bool {
        match &self.shapes {
            Shapes::Static(g) => g.light,
            Shapes::Dynamic(_) => prepared.plan.as_ref().is_some_and(|plan| plan.light),
        }
    }

    /// Hands back the buffers a [`Prepared`] held.
    pub fn release(&self, mut prepared: Prepared) {
        match &self.shapes {
            Shapes::Static(g) => g.release(prepared),
            Shapes::Dynamic(_) => {
                if let Some(plan) = prepared.plan.take() {
                    plan.release(prepared);
                }
            }
        }
    }
}

/// What a run of a static plan works out from its arrays' layouts alone: each kernel step's
/// iteration dims and operands as (slot, byte offset from the slot's data, byte strides).
/// A loop that runs one body plan per trip on arrays whose dtypes, shapes and strides never
/// change (`body_loop.rs`) keeps one across its trips, with the plan's buffers: later trips
/// skip the checks, the view arithmetic and every allocation of a kernel launch. For a graph
/// with symbols it also holds the plan of the binding those layouts give, so that repeated
/// calls neither bind nor look the plan up again.
#[derive(Default)]
pub struct Prepared {
    checked: bool,
    steps: Vec<Option<PreparedStep>>,
    buffers: Option<Vec<Vec<u128>>>,
    pub(crate) plan: Option<Arc<StaticGraph>>,
}

/// A step as an earlier run worked it out.
enum PreparedStep {
    Kernel(PreparedKernel),
    /// A product's plan, and its operands' slots and byte offsets from their data.
    Matmul(matmul::Planned, [(Slot, isize); 3]),
    /// A loop's buffers, views and body plan.
    BodyLoop(Box<crate::body_loop::State>),
    /// What each region's body plan kept, `then` first.
    BodyIf(Box<[Prepared; 2]>),
    /// A native statement's call, and each operand's and result's slot and byte offset
    /// from its data (None: a constant compiled in).
    Native(crate::native::run::Call, Vec<Option<(Slot, isize)>>),
}

/// A kernel launch as an earlier run worked it out: each operand's slot and byte offset from
/// the slot's data, and the operands themselves, strides and all, whose bases a run sets from
/// its own slots before launching (so that a hot call builds no operand list).
struct PreparedKernel {
    dims: Vec<usize>,
    origins: SmallVec<[(Slot, isize); 8]>,
    operands: SmallVec<[crate::exec::Operand; 8]>,
}

// SAFETY: the operands' bases are addresses of the run that last set them; every run sets
// all of them from its own slots before a launch reads them, and nothing else does.
unsafe impl Send for PreparedKernel {}

impl StaticGraph {
    /// [`CompiledGraph::run`] on this plan.
    pub(crate) fn run(
        &self,
        inputs: &[ArrayView],
        outputs: &[ArrayViewMut],
    ) -> Result<FpStatus, Error> {
        self.run_with(inputs, outputs, None, true)
    }

    /// Gives the buffers a [`Prepared`] held back to the plan's pool.
    pub(crate) fn release(&self, prepared: Prepared) {
        if let (Some(b), Ok(mut p)) = (prepared.buffers, self.pool.lock()) {
            p.push(b);
        }
    }

    /// [`StaticGraph::run`], with what earlier runs on arrays of the same layouts prepared;
    /// without `own_flags` the flags raised stay set on the thread and the status returned
    /// is empty ([`CompiledGraph::run_trip`]).
    pub(crate) fn run_with(
        &self,
        inputs: &[ArrayView],
        outputs: &[ArrayViewMut],
        mut prepared: Option<&mut Prepared>,
        own_flags: bool,
    ) -> Result<FpStatus, Error> {
        if !prepared.as_ref().is_some_and(|p| p.checked) {
            self.check_all(inputs, outputs)?;
        }
        let held = prepared.as_mut().and_then(|p| p.buffers.take());
        let mut buffers = held
            .or_else(|| self.pool.lock().map(|mut p| p.pop()).ok().flatten())
            .unwrap_or_else(|| {
                self.buffer_sizes
                    .iter()
                    .map(|&b| vec![0u128; b.div_ceil(16)])
                    .collect()
            });
        let mut rt = Runtime {
            g: self,
            inputs,
            outputs,
            buffers: buffers
                .iter_mut()
                .map(|b| b.as_mut_ptr() as *mut u8)
                .collect::<SmallVec<_>>(),
            scratch: Vec::new(),
            prepared: prepared.as_deref_mut().map(|p| {
                p.steps.resize_with(self.plan.steps.len(), || None);
                &mut p.steps
            }),
        };
        let saved = if own_flags {
            fpstatus::take()
        } else {
            FpStatus::default()
        };
        let mut outcome = Ok(());
        for (k, step) in self.plan.steps.iter().enumerate() {
            outcome = rt.step(k, step);
            if outcome.is_err() {
                break;
            }
        }
        let mut status = FpStatus::default();
        if own_flags {
            status = fpstatus::take();
            fpstatus::raise(saved);
        }
        drop(rt);
        match prepared {
            Some(p) => {
                p.checked = outcome.is_ok();
                p.buffers = Some(buffers);
            }
            None => {
                if let Ok(mut p) = self.pool.lock() {
                    p.push(buffers);
                }
            }
        }
        outcome.map(|()| status)
    }

    fn check_all(&self, inputs: &[ArrayView], outputs: &[ArrayViewMut]) -> Result<(), Error> {
        if inputs.len() != self.plan.inputs.len() || outputs.len() != self.plan.outputs.len() {
            return Err(Error::Mismatch(format!(
                "expected {} inputs and {} outputs, got {} and {}",
                self.plan.inputs.len(),
                self.plan.outputs.len(),
                inputs.len(),
                outputs.len()
            )));
        }
        for (i, x) in inputs.iter().enumerate() {
            check(
                "input",
                i,
                &self.plan.inputs[i],
                x.data,
                x.dtype,
                &x.shape,
                &x.strides,
            )?;
        }
        for (i, x) in outputs.iter().enumerate() {
            check(
                "output",
                i,
                &self.plan.outputs[i],
                x.data,
                x.dtype,
                &x.shape,
                &x.strides,
            )?;
            if x.shape
                .iter()
                .zip(&x.strides)
                .any(|(&n, &s)| n > 1 && s == 0)
            {
                return Err(Error::Mismatch(format!("output {i} has a zero stride")));
            }
        }
        Ok(())
    }
}
