//! Which statements native code handles: regions made only of 0-d values, element access and
//! further loops and branches. A loop whose body computes with whole arrays runs its body as a
//! compiled graph per iteration instead (`crate::body_loop`).

use ember_core::ir::Op;
use ember_core::passes::is_scalar_region;

/// Whether every region of `op` can be compiled into one native function.
pub(crate) fn supports(op: &Op) -> bool {
    op.regions().into_iter().all(|r| is_scalar_region(r))
}
