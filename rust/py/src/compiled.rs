//! `CompiledGraph`: an `ember_codegen` executable called with NumPy arrays. Inputs are checked
//! here (so that a bad call raises a clear TypeError/ValueError before native code runs),
//! outputs are NumPy arrays of exactly the result types, and the kernels run with the GIL
//! released so that other Python threads (and other calls of the same graph) proceed, except
//! for a light run on kept layouts (`ember_codegen::LIGHT_WORK`), shorter than the handover.
//!
//! Outputs are new arrays, except that an output array of the previous call that nobody holds
//! any more is written again (`runtime::reuse`): fresh memory costs a page fault per 4 KiB on
//! first touch, as much as a pass of compute for large outputs. The last outputs are kept for
//! that in the process-wide pool of `recycle.rs`, under its budget, until the graph is dropped.
//!
//! NumPy's floating-point error handling: a run that raised an exception flag (divide by
//! zero, overflow, invalid, underflow) whose `np.errstate` category is not `ignore` is run
//! again by the graph's `fp_rerun` callable (the graph op by op with NumPy, set by the
//! Cranelift backend), whose results are returned instead: NumPy itself then warns, raises
//! `FloatingPointError` or calls the handler, under the caller's errstate. Nothing the caller
//! sees was written before that decision.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, OnceLock};

use pyo3::prelude::*;
use pyo3::types::PyTuple;

use ember_codegen::fpstatus::FpStatus;
use ember_codegen::{ArrayView, ArrayViewMut};
use numpy::PyUntypedArray;
use smallvec::SmallVec;

use crate::hot::{Hot, HotRun, HotSlot};

use crate::layouts::OutputLayouts;
use crate::recycle;
use crate::runtime::{self, RawArray};

/// A graph compiled to native code.
#[pyclass(module = "ember._core", frozen)]
pub struct CompiledGraph {
    /// The optimised IR the code was generated from.
    #[pyo3(get)]
    ir: String,
    graph: ember_codegen::CompiledGraph,
    /// Its key in the pool of recycled outputs.
    pool_id: u64,
    /// Runs the graph with NumPy (same inputs, a tuple of new arrays) when a run raised a
    /// floating-point flag the caller's errstate does not ignore.
    fp_rerun: Mutex<Option<Py<PyAny>>>,
    /// The flags an `np.errstate` block inside the graph acts on, whatever the caller's
    /// errstate: those rerun too, and the rerun gives each node its block's modes.
    block_flags: AtomicU32,
    /// The flags some node may raise that no `np.errstate` block around it sets a mode for:
    /// the caller's errstate acts on those.
    caller_flags: AtomicU32,
    /// The memory order of each output for the inputs' layouts (C order when unset).
    layouts: OnceLock<OutputLayouts>,
    /// What the last call worked out from its arrays' layouts.
    hot: HotSlot,
}

/// The views of one call, moved to the thread-free section together.
struct CallViews {
    inputs: Vec<ArrayView>,
    outputs: Vec<ArrayViewMut>,
}

// SAFETY: the views address NumPy arrays that the calling frame keeps alive (the inputs and
// the outputs) until `run_detached` returns; nothing else writes to the outputs meanwhile:
// they are fresh, or recycled arrays that nothing else references. The run borrows them
// (kept afterwards for the next call's `Hot`), and only it reads them meanwhile.
unsafe impl Send for CallViews {}
unsafe impl Sync for CallViews {}

impl CompiledGraph {
    /// Wraps a compiled graph and the IR it came from.
    pub fn new(ir: String, graph: ember_codegen::CompiledGraph) -> Self {
        CompiledGraph {
            ir,
            graph,
            pool_id: recycle::new_id(),
            fp_rerun: Mutex::new(None),
            block_flags: AtomicU32::new(0),
            caller_flags: AtomicU32::new(FpStatus::ALL),
            layouts: OnceLock::new(),
            hot: HotSlot::default(),
        }
    }

    /// Whether NumPy would do anything about `status` under the caller's errstate: one of its
    /// flags has a category that is not `ignore` (read only when a flag is set).
    fn errstate_acts_on(&self, py: Python<'_>, status: FpStatus) -> PyResult<bool> {
        let blocks = self.block_flags.load(Ordering::Relaxed);
        if status.0 & blocks != 0 {
            return Ok(true);
        }
        let callers = status.0 & self.caller_flags.load(Ordering::Relaxed);
        Ok(callers != 0 && callers & acted_on(py)? != 0)
    }
}

/// The flags the caller's errstate does not ignore, from `np.geterr()`. NumPy keeps the
/// errstate in a context variable whose value is replaced whenever it changes, so the answer
/// is kept with that value and `np.geterr()` (a dict per call) runs only after a change: a
/// flag NumPy ignores by default (underflow in a BLAS product) then costs no Python call.
fn acted_on(py: Python<'_>) -> PyResult<u32> {
    static KEPT: Mutex<Option<(Py<PyAny>, u32)>> = Mutex::new(None);
    static CONTEXT: OnceLock<Option<Py<PyAny>>> = OnceLock::new();
    let numpy = py.import(pyo3::intern!(py, "numpy"))?;
    let context = CONTEXT.get_or_init(|| {
        numpy
            .getattr("_core")
            .and_then(|core| core.getattr("_ufunc_config"))
            .and_then(|config| config.getattr("_extobj_contextvar"))
            .ok()
            .map(Bound::unbind)
    });
    let current = match context {
        Some(var) => Some(var.bind(py).call_method0(pyo3::intern!(py, "get"))?),
        None => None,
    };
    if let (Some(current), Some((kept, mask))) =
        (&current, &*KEPT.lock().unwrap_or_else(|p| p.into_inner()))
    {
        if current.is(kept.bind(py)) {
            return Ok(*mask);
        }
    }
    let modes = numpy.call_method0("geterr")?;
    let mut mask = 0;
    for (flag, category) in [
        (FpStatus::DIVIDE, "divide"),
        (FpStatus::OVERFLOW, "over"),
        (FpStatus::UNDERFLOW, "under"),
        (FpStatus::INVALID, "invalid"),
    ] {
        if modes.get_item(category)?.extract::<String>()? != "ignore" {
            mask |= flag;
        }
    }
    if let Some(current) = current {
        *KEPT.lock().unwrap_or_else(|p| p.into_inner()) = Some((current.unbind(), mask));
    }
    Ok(mask)
}

/// The flags of errstate categories ("divide", "over", "under", "invalid").
fn flags_of(categories: &[String]) -> PyResult<u32> {
    let mut mask = 0;
    for category in categories {
        mask |= match category.as_str() {
            "divide" => FpStatus::DIVIDE,
            "over" => FpStatus::OVERFLOW,
            "under" => FpStatus::UNDERFLOW,
            "invalid" => FpStatus::INVALID,
            other => {
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "no errstate category {other:?}"
                )))
            }
        };
    }
    Ok(mask)
}

impl Drop for CompiledGraph {
    fn drop(&mut self) {
        recycle::forget(self.pool_id);
    }
}

/// A call's results, one per graph output.
pub type Results<'py> = SmallVec<[Bound<'py, PyAny>; 4]>;

impl CompiledGraph {
    /// Runs the graph on NumPy arrays (any strides; a Python scalar where the parameter is
    /// weak), returning new arrays, one per result: `__call__`, and the native fast path of
    /// `dispatch/`. A call on the layouts of the last one takes [`hot`]'s path.
    pub fn call<'py>(
        &self,
        py: Python<'py>,
        inputs: &[Bound<'py, PyAny>],
    ) -> PyResult<Results<'py>> {
        if let Some(mut hot) = self.hot.take() {
            if hot.bind_inputs(inputs) {
                if let Some(results) = self.call_hot(py, &mut hot)? {
                    self.hot.put(hot);
                    return self.after_run(py, inputs, results);
                }
            } else if !hot.recycled.is_empty() {
                // Another layout: the full path looks for its outputs in the pool.
                let recycled = std::mem::take(&mut hot.recycled);
                recycle::put_sized(self.pool_id, recycled, hot.output_bytes);
            }
        }
        self.call_full(py, inputs)
    }

    /// The call on the kept layouts, None when a fresh output came out in another layout.
    fn call_hot<'py>(
        &self,
        py: Python<'py>,
        hot: &mut Hot,
    ) -> PyResult<Option<(Results<'py>, FpStatus)>> {
        let types = self.graph.output_types();
        let small = hot.output_bytes <= recycle::SMALL_OUTPUTS;
        let mut recycled = if small && !hot.recycled.is_empty() {
            std::mem::take(&mut hot.recycled)
        } else {
            recycle::take(self.pool_id)
        };
        recycled.resize_with(types.len(), || None);
        let mut outputs: SmallVec<[Bound<'py, PyUntypedArray>; 4]> = SmallVec::new();
        for (i, ty) in types.iter().enumerate() {
            let array = match recycled[i].take().map(|a| a.into_bound(py)) {
                Some(array) if hot.reuse_output(i, &array) => array,
                _ => {
                    let order = hot
                        .orders
                        .as_ref()
                        .and_then(|o| o.get(i))
                        .map(Vec::as_slice);
                    let (array, _) = crate::layouts::allocate(py, ty, &hot.bindings, order)?;
                    if !hot.point_output(i, &array) {
                        recycle::put(py, self.pool_id, recycled);
                        return Ok(None);
                    }
                    array
                }
            };
            outputs.push(array);
        }
        let graph = &self.graph;
        // A graph light by its plan keeps the GIL; one whose run time its plan does not bound
        // (a loop, a product) keeps it where its last run on these layouts was quick, and
        // times this run to decide the next.
        let light = graph.is_light(&hot.prepared);
        let started = (!light).then(crate::hot::ticks);
        let run = HotRun {
            inputs: &hot.inputs,
            outputs: &hot.outputs,
            prepared: &mut hot.prepared,
        };
        let release = !light && !hot.quick;
        let status = runtime::run_native(py, release, "a compiled graph", move || {
            let run = run;
            graph.run_prepared(run.inputs, run.outputs, run.prepared)
        });
        if let Some(started) = started {
            hot.quick = crate::hot::ticks().wrapping_sub(started) < crate::hot::QUICK_RUN;
        }
        let status = status?;
        for (slot, array) in recycled.iter_mut().zip(&outputs) {
            *slot = Some(array.clone().unbind());
        }
        if small && recycle::keeps_any() {
            hot.recycled = recycled;
        } else {
            recycle::put_sized(self.pool_id, recycled, hot.output_bytes);
        }
        let results = outputs.into_iter().map(Bound::into_any).collect();
        Ok(Some((results, status)))
    }

    /// The call with every check, keeping what it worked out for the next call on its layouts.
    fn call_full<'py>(
        &self,
        py: Python<'py>,
        inputs: &[Bound<'py, PyAny>],
    ) -> PyResult<Results<'py>> {
        let mut owners = Vec::new();
        let (raw_inputs, bindings) =
            runtime::check_inputs(py, inputs, self.graph.input_types(), &mut owners)?;
        let count = self.graph.output_types().len();
        let mut outputs: Results<'py> = SmallVec::with_capacity(count);
        let mut raw_outputs: Vec<RawArray> = Vec::with_capacity(count);
        // Taken out of the pool under the GIL: a concurrent call cannot get the same array.
        let mut recycled = recycle::take(self.pool_id);
        recycled.resize_with(count, || None);
        let orders = match self.layouts.get() {
            Some(layouts) => Some(layouts.orders(py, &raw_inputs)?),
            None => None,
        };
        for (i, ty) in self.graph.output_types().iter().enumerate() {
            let slot = recycled[i].take();
            let order = orders.as_ref().and_then(|o| o.get(i)).map(Vec::as_slice);
            let (array, raw) = match runtime::reuse(py, slot, ty, &bindings, order)? {
                Some(found) => found,
                None => crate::layouts::allocate(py, ty, &bindings, order)?,
            };
            outputs.push(array.into_any());
            raw_outputs.push(raw);
        }
        let output_bytes = raw_outputs
            .iter()
            .map(|a| a.shape.iter().product::<usize>() * a.dtype.itemsize())
            .sum();
        // SAFETY: every input was checked to be an aligned ndarray of the declared dtype and
        // shape, so its strides address readable elements; the outputs are dense arrays (in
        // NumPy's order for them) of the result types that this module allocated, writable
        // and unaliased
        // (a recycled one has no other reference, so no input or view shares it).
        let views = unsafe {
            CallViews {
                inputs: raw_inputs
                    .into_iter()
                    .map(|a| ArrayView::new(a.data, a.dtype, a.shape, a.strides))
                    .collect(),
                outputs: raw_outputs
                    .into_iter()
                    .map(|a| ArrayViewMut::new(a.data, a.dtype, a.shape, a.strides))
                    .collect(),
            }
        };
        let graph = &self.graph;
        let shared = &views;
        let status = runtime::run_detached(py, "a compiled graph", move || {
            let views = shared;
            graph.run(&views.inputs, &views.outputs)
        })?;
        let kept = Hot::new(
            inputs,
            self.graph.input_types(),
            (views.inputs, views.outputs),
            bindings,
            orders.map(|o| o.into_owned()),
            output_bytes,
        );
        drop(owners);
        for (slot, array) in recycled.iter_mut().zip(&outputs) {
            *slot = Some(array.clone().cast_into::<PyUntypedArray>()?.unbind());
        }
        match kept {
            Some(mut hot) if output_bytes <= recycle::SMALL_OUTPUTS && recycle::keeps_any() => {
                hot.recycled = recycled;
                self.hot.put(Box::new(hot));
            }
            kept => {
                recycle::put_sized(self.pool_id, recycled, output_bytes);
                if let Some(hot) = kept {
                    self.hot.put(Box::new(hot));
                }
            }
        }
        self.after_run(py, inputs, (outputs, status))
    }

    /// The run's results, or NumPy's when it raised a floating-point flag the caller's
    /// errstate acts on.
    fn after_run<'py>(
        &self,
        py: Python<'py>,
        inputs: &[Bound<'py, PyAny>],
        (results, status): (Results<'py>, FpStatus),
    ) -> PyResult<Results<'py>> {
        if status.is_empty() || !self.errstate_acts_on(py, status)? {
            return Ok(results);
        }
        let rerun = self
            .fp_rerun
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .map(|f| f.clone_ref(py));
        let Some(rerun) = rerun else {
            return Ok(results);
        };
        let rerun = rerun.bind(py).call1(PyTuple::new(py, inputs)?)?;
        rerun.cast_into::<PyTuple>()?.iter().map(Ok).collect()
    }
}

#[pymethods]
impl CompiledGraph {
    /// Runs the graph on NumPy arrays (see [`CompiledGraph::call`]).
    #[pyo3(signature = (*inputs))]
    fn __call__<'py>(&self, inputs: &Bound<'py, PyTuple>) -> PyResult<Bound<'py, PyTuple>> {
        let py = inputs.py();
        PyTuple::new(py, self.call(py, inputs.as_slice())?)
    }

    /// Sets the callable that reruns the graph with NumPy when a run raised a floating-point
    /// flag the caller's errstate does not ignore (None: keep the native results).
    fn set_fp_rerun(&self, rerun: Option<Py<PyAny>>) {
        *self.fp_rerun.lock().unwrap_or_else(|p| p.into_inner()) = rerun;
    }

    /// Sets the categories ("divide", "over", "under", "invalid") that an `np.errstate`
    /// block inside the graph does not ignore, whose flags rerun the graph whatever the
    /// caller's errstate, and those that some node leaves to the caller's errstate (`callers`).
    fn set_block_errstate(&self, categories: Vec<String>, callers: Vec<String>) -> PyResult<()> {
        self.block_flags
            .store(flags_of(&categories)?, Ordering::Relaxed);
        self.caller_flags
            .store(flags_of(&callers)?, Ordering::Relaxed);
        Ok(())
    }

    /// Sets the rule giving each output's axis order (slowest first) from the input strides,
    /// with its answer for C-contiguous inputs; once per graph.
    fn set_output_layouts(&self, rule: Py<PyAny>, c_orders: Vec<Vec<usize>>) -> PyResult<()> {
        if c_orders.len() != self.graph.output_types().len() {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "one order per output",
            ));
        }
        self.hot.clear();
        self.layouts
            .set(OutputLayouts::new(rule, c_orders))
            .map_err(|_| pyo3::exceptions::PyRuntimeError::new_err("output layouts already set"))
    }

    fn __repr__(&self) -> String {
        let signature = |types: &[ember_core::ir::Type]| {
            types
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        };
        format!(
            "<CompiledGraph ({}) -> ({})>",
            signature(self.graph.input_types()),
            signature(self.graph.output_types())
        )
    }
}
