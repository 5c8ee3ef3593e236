//! `CompiledGraph`: an `ember_codegen` executable called with NumPy arrays. Inputs are checked
//! here (so that a bad call raises a clear TypeError/ValueError before native code runs),
//! outputs are fresh NumPy arrays of exactly the result types, and the kernels run with the GIL
//! released so that other Python threads (and other calls of the same graph) proceed.

use pyo3::prelude::*;
use pyo3::types::PyTuple;

use ember_codegen::{ArrayView, ArrayViewMut};

use crate::runtime::{self, RawArray};

/// A graph compiled to native code.
#[pyclass(module = "ember._core", frozen)]
pub struct CompiledGraph {
    /// The optimised IR the code was generated from.
    #[pyo3(get)]
    ir: String,
    graph: ember_codegen::CompiledGraph,
}

/// The views of one call, moved to the thread-free section together.
struct CallViews {
    inputs: Vec<ArrayView>,
    outputs: Vec<ArrayViewMut>,
}

// SAFETY: the views address NumPy arrays that the calling frame keeps alive (the input tuple
// and the freshly allocated outputs) until `run_detached` returns; nothing else writes to the
// outputs meanwhile because nobody else has seen them yet.
unsafe impl Send for CallViews {}

impl CompiledGraph {
    /// Wraps a compiled graph and the IR it came from.
    pub fn new(ir: String, graph: ember_codegen::CompiledGraph) -> Self {
        CompiledGraph { ir, graph }
    }
}

#[pymethods]
impl CompiledGraph {
    /// Runs the graph on NumPy arrays (any strides; a Python scalar where the parameter is
    /// weak), returning new arrays, one per result.
    #[pyo3(signature = (*inputs))]
    fn __call__<'py>(&self, inputs: &Bound<'py, PyTuple>) -> PyResult<Bound<'py, PyTuple>> {
        let py = inputs.py();
        let mut owners = Vec::new();
        let (raw_inputs, bindings) =
            runtime::check_inputs(inputs, self.graph.input_types(), &mut owners)?;
        let mut outputs = Vec::new();
        let mut raw_outputs: Vec<RawArray> = Vec::new();
        for ty in self.graph.output_types() {
            let (array, raw) = runtime::allocate(py, ty, &bindings)?;
            outputs.push(array);
            raw_outputs.push(raw);
        }
        // SAFETY: every input was checked to be an aligned ndarray of the declared dtype and
        // shape, so its strides address readable elements; the outputs are fresh C-contiguous
        // arrays of the result types, writable and unaliased.
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
        runtime::run_detached(py, "a compiled graph", move || {
            let views = views;
            graph.run(&views.inputs, &views.outputs)
        })?;
        drop(owners);
        PyTuple::new(py, outputs)
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
