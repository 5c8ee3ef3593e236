//! Which statements native code handles: regions made only of 0-d values, element access,
//! further loops and branches, and scratch arrays of a static shape (`np.zeros`, `np.full`
//! in a body, the temporary copy of a run-time slice: `scratch.rs`) that never leave the
//! region computing them (the first 32 KiB of them on the native stack, the rest in one heap
//! block the runtime allocates per call: [`ScratchPlan`]). A loop whose body computes with whole arrays runs its body as a
//! compiled graph per iteration instead (`crate::body_loop`).

use crate::kernel::ScalarExt;
use ember_core::ir::{Graph, Node, Op, OpClass};
use ember_core::passes::is_scalar_region;
use std::collections::HashMap;

/// Bytes of scratch arrays one native function may hold on the stack (each version of its
/// body has its own).
pub(crate) const MAX_SCRATCH_BYTES: usize = 32 << 10;

/// Bytes of scratch arrays one native function may hold in its heap block.
const MAX_HEAP_SCRATCH_BYTES: usize = 1 << 30;

/// Heap scratch arrays start at multiples of this many bytes (a cache line).
const HEAP_ALIGN: usize = 64;

/// Whether every region of `op` can be compiled into one native function.
pub(crate) fn supports(op: &Op) -> bool {
    let mut scratch = 0;
    op.regions()
        .into_iter()
        .all(|r| native_region(r, &mut scratch))
        && ScratchPlan::of(op).heap_bytes <= MAX_HEAP_SCRATCH_BYTES
}

/// Where the scratch arrays of one statement live: in the order its regions make them,
/// on the native stack while their bytes together fit in [`MAX_SCRATCH_BYTES`], the rest in
/// one heap block of `heap_bytes` that the runtime allocates for each call (and frees on
/// every return, an error's included), each at its byte offset in `heap`. Both versions of
/// a body share the offsets of a statement: only one of them runs.
#[derive(Default)]
pub(crate) struct ScratchPlan {
    pub heap: HashMap<*const Node, usize>,
    pub heap_bytes: usize,
}

impl ScratchPlan {
    /// The plan of statement `op`'s scratch arrays (keyed by the addresses of its nodes).
    pub(crate) fn of(op: &Op) -> ScratchPlan {
        let mut arrays = Vec::new();
        for r in op.regions() {
            scratch_arrays(r, &mut arrays);
        }
        let mut plan = ScratchPlan::default();
        let mut stack = 0;
        for (node, bytes) in arrays {
            if stack + bytes <= MAX_SCRATCH_BYTES {
                stack += bytes;
            } else {
                plan.heap.insert(node, plan.heap_bytes);
                plan.heap_bytes += bytes.div_ceil(HEAP_ALIGN).max(1) * HEAP_ALIGN;
            }
        }
        plan
    }

    /// The plan of the statements of `g` together.
    pub(crate) fn of_graph(g: &Graph) -> ScratchPlan {
        let mut plan = ScratchPlan::default();
        for n in &g.nodes {
            let part = ScratchPlan::of(&n.op);
            for (node, at) in part.heap {
                plan.heap.insert(node, plan.heap_bytes + at);
            }
            plan.heap_bytes += part.heap_bytes;
        }
        plan
    }
}

/// The scratch arrays of `g` and of the regions of its statements, in order, with bytes.
fn scratch_arrays(g: &Graph, out: &mut Vec<(*const Node, usize)>) {
    for n in &g.nodes {
        match scratch_bytes(n) {
            Some(bytes) => out.push((n as *const Node, bytes)),
            None => {
                for r in n.op.regions() {
                    scratch_arrays(r, out);
                }
            }
        }
    }
}

/// The bytes of a scratch array `full` of static shape, when native code can hold it.
pub(crate) fn scratch_bytes(node: &ember_core::ir::Node) -> Option<usize> {
    if !matches!(node.op, Op::Full { .. }) || node.ty.shape.is_empty() {
        return None;
    }
    let shape = node.ty.static_shape()?;
    let dtype = node.ty.dtype;
    Some(shape.iter().product::<usize>() * dtype.size())
}

/// `g` is a scalar region, or one whose only array statements are scratch arrays, each of
/// whose results that is an array is a version of one of its parameters (a scratch array
/// dies with the region); `scratch` sums their bytes.
fn native_region(g: &Graph, scratch: &mut usize) -> bool {
    if is_scalar_region(g) {
        return true;
    }
    let statements = g.nodes.iter().all(|n| match n.op.class() {
        OpClass::Region => {
            n.op.regions()
                .into_iter()
                .all(|r| native_region(r, scratch))
        }
        OpClass::Access | OpClass::Projection => true,
        _ => match scratch_bytes(n) {
            Some(bytes) => {
                *scratch += bytes;
                true
            }
            None => {
                n.ty.shape.is_empty()
                    && n.inputs
                        .iter()
                        .all(|&v| g.value_type(v).is_some_and(|t| t.shape.is_empty()))
            }
        },
    });
    statements
        && g.results.iter().all(|&v| {
            g.value_type(v).is_some_and(|t| t.shape.is_empty()) || g.version_root(v).is_some()
        })
}
