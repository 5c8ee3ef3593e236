//! The optimiser: a straight list of named passes. The pass manager verifies the graph between
//! passes (when asked, and always in debug builds) and can return the IR text after each pass.

mod cleanup;
mod fold;
mod rewrite;
mod scalarize;
mod short_loops;
mod simplify;

pub use scalarize::is_scalar_region;

use crate::error::{Error, Result};
use std::sync::Arc;

use crate::ir::{print, Graph, Region};
use crate::verify;

/// A named graph-to-graph transformation.
#[derive(Clone, Copy)]
pub struct Pass {
    /// The name shown in stage dumps (`pipeline_stages`).
    pub name: &'static str,
    /// The transformation.
    pub run: fn(&Graph) -> Result<Graph>,
    /// Whether it may replace a value by another (simplify, cse). Inside a region such a
    /// rewrite could make a consumed array be read again, breaking linear use: a region it
    /// leaves so is kept as it was (the other rewrites it made there are given up with it).
    pub replaces_values: bool,
}

/// The IR text after one pass.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stage {
    /// The pass's name.
    pub pass: &'static str,
    /// The graph after it, printed.
    pub text: String,
}

/// The pipeline, in order.
pub const PIPELINE: [Pass; 5] = [
    Pass {
        name: "fold",
        run: fold::fold_constants,
        replaces_values: false,
    },
    Pass {
        name: "simplify",
        run: simplify::simplify,
        replaces_values: true,
    },
    Pass {
        name: "cse",
        run: cleanup::cse,
        replaces_values: true,
    },
    Pass {
        name: "scalarize",
        run: scalarize::scalarize,
        replaces_values: false,
    },
    Pass {
        name: "dce",
        run: cleanup::dce,
        replaces_values: false,
    },
];

/// How to run passes.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Verify the input and the graph after each pass (on in debug builds by default).
    pub verify: bool,
    /// Collect each pass's output text.
    pub stages: bool,
}

// Derivable only in release builds, where `cfg!(debug_assertions)` is false.
#[allow(clippy::derivable_impls)]
impl Default for Options {
    fn default() -> Self {
        Options {
            verify: cfg!(debug_assertions),
            stages: false,
        }
    }
}

/// Run the whole pipeline: the optimised graph and, when `stages` is set, each pass's output.
/// The input and every intermediate graph are verified.
pub fn run_pipeline(graph: &Graph, stages: bool) -> Result<(Graph, Vec<Stage>)> {
    run_passes(
        graph,
        &PIPELINE,
        Options {
            verify: true,
            stages,
        },
    )
}

/// One pass on a graph, then on its regions. Loop bodies need it as much as
/// the top level does: a masked mean in a loop body is `where(m, where(m, x, 1), -0)`,
/// which simplify folds to one select; left alone, the body ran 2.5x slower than the
/// same statements outside the loop.
fn run_pass(pass: &Pass, graph: &Graph) -> Result<Graph> {
    let mut graph = (pass.run)(graph)?;
    for node in &mut graph.nodes {
        if node.op.regions().is_empty() {
            continue;
        }
        let regions: Vec<Region> = node
            .op
            .regions()
            .into_iter()
            .map(|r| run_region_pass(pass, r).map(Arc::new))
            .collect::<Result<_>>()?;
        node.op = node.op.with_regions(regions.into_iter());
    }
    Ok(graph)
}

/// One pass on a region; the region as it was where a value-replacing pass broke its linear
/// use of arrays.
fn run_region_pass(pass: &Pass, region: &Region) -> Result<Graph> {
    let rewritten = run_pass(pass, region)?;
    if pass.replaces_values && crate::verifier::check_linear(&rewritten).is_err() {
        return Ok((**region).clone());
    }
    Ok(rewritten)
}

/// Run some passes in order.
pub fn run_passes(graph: &Graph, passes: &[Pass], options: Options) -> Result<(Graph, Vec<Stage>)> {
    if options.verify {
        verify(graph)?;
    }
    let mut current = graph.clone();
    let mut stages = Vec::new();
    for pass in passes {
        current = run_pass(pass, &current)?;
        if options.verify {
            verify(&current)
                .map_err(|e| Error::new(format!("pass {} produced invalid IR: {e}", pass.name)))?;
        }
        if options.stages {
            stages.push(Stage {
                pass: pass.name,
                text: print(&current),
            });
        }
    }
    Ok((current, stages))
}
