//! Which statements native code handles: regions made only of 0-d values, element access,
//! further loops and branches, and scratch arrays of a static shape (`np.zeros`, `np.full`
//! in a body, the temporary copy of a run-time slice: `scratch.rs`) that never leave the
//! region computing them. A loop whose body computes with whole arrays runs its body as a
//! compiled graph per iteration instead (`crate::body_loop`).

use crate::schedule::scalar_of;
use ember_core::ir::{Graph, Op, OpClass};
use ember_core::passes::is_scalar_region;

/// Bytes of scratch arrays one native function may hold on the stack (each version of its
/// body has its own).
pub(crate) const MAX_SCRATCH_BYTES: usize = 32 << 10;

/// Whether every region of `op` can be compiled into one native function.
pub(crate) fn supports(op: &Op) -> bool {
    let mut scratch = 0;
    op.regions()
        .into_iter()
        .all(|r| native_region(r, &mut scratch))
        && scratch <= MAX_SCRATCH_BYTES
}

/// The bytes of a scratch array `full` of static shape, when native code can hold it.
pub(crate) fn scratch_bytes(node: &ember_core::ir::Node) -> Option<usize> {
    if !matches!(node.op, Op::Full { .. }) || node.ty.shape.is_empty() {
        return None;
    }
    let shape = node.ty.static_shape()?;
    let dtype = scalar_of(node.ty.dtype).ok()?;
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
