//! Which statements native code handles: regions made only of 0-d values, element access and
//! further loops and branches. A loop whose body computes with whole arrays runs its body as a
//! compiled graph per iteration instead (`crate::body_loop`).

use ember_core::ir::{Graph, Op, OpClass};

/// Whether every region of `op` can be compiled into one native function.
pub(crate) fn supports(op: &Op) -> bool {
    op.regions().into_iter().all(|r| region_supported(r))
}

fn region_supported(g: &Graph) -> bool {
    g.nodes.iter().all(|n| match n.op.class() {
        OpClass::Region => supports(&n.op),
        OpClass::Access | OpClass::Projection => true,
        _ => {
            n.ty.shape.is_empty()
                && n.inputs
                    .iter()
                    .all(|&v| g.value_type(v).is_some_and(|t| t.shape.is_empty()))
        }
    })
}
