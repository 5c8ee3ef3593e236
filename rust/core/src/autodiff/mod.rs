//! Reverse-mode automatic differentiation on the IR: per-op vector-Jacobian rules
//! ([`rules`]), the joint forward+backward graph ([`joint`]) and the min-cut partitioner that
//! splits it into a forward graph returning residuals and a backward graph taking them
//! ([`partition`]).
//!
//! ```
//! use ember_core::{autodiff, ir};
//!
//! let f = ir::parse("ember-ir 1
//! func @f(%0: f64[3]) -> (f64[]) {
//!   %1 = sin(%0) : f64[3]
//!   %2 = sum(%1) axis=none keepdims=false : f64[]
//!   return %2
//! }
//! ")?;
//! let split = autodiff::differentiate(&f, &[0], &[true], autodiff::Strategy::MinCut)?;
//! // The backward graph recomputes cos(x) from x instead of receiving it.
//! assert_eq!(split.partition.residuals, vec![autodiff::Residual::Input(0)]);
//! assert!(ir::print(&split.partition.backward).contains("cos(%0)"));
//! # Ok::<(), ember_core::Error>(())
//! ```

mod emit;
pub mod joint;
mod maxflow;
pub mod partition;
mod rules;
mod shift;

pub use joint::Joint;
pub use partition::{value_bytes, Partition, Residual, Strategy};

use crate::error::Result;
use crate::ir::print;
use crate::verify;

/// A differentiated graph: the joint graph, its split, and what saving every value the
/// backward half reads would cost instead.
#[derive(Clone, Debug)]
pub struct Differentiated {
    /// The joint forward+backward graph.
    pub joint: Joint,
    /// The forward and backward graphs.
    pub partition: Partition,
    /// Residual bytes when every value the backward ops read is saved (no recomputation).
    pub save_all_bytes: u64,
}

/// Differentiate `forward` with respect to the parameters `wrt`, seeding a cotangent for each
/// result flagged in `differentiate`, and split the joint graph with `strategy`.
pub fn differentiate(
    forward: &crate::ir::Graph,
    wrt: &[usize],
    differentiate: &[bool],
    strategy: Strategy,
) -> Result<Differentiated> {
    verify(forward)?;
    let joint = joint::build(forward, wrt, differentiate)?;
    verify(&joint.graph)?;
    let split = partition::partition(&joint, strategy)?;
    verify(&split.forward)?;
    verify(&split.backward)?;
    let save_all_bytes = partition::save_all_bytes(&joint);
    Ok(Differentiated {
        joint,
        partition: split,
        save_all_bytes,
    })
}

impl Differentiated {
    /// A readable account: the joint graph, the saved values and their bytes against saving
    /// everything the backward ops read, and both graphs.
    pub fn report(&self) -> String {
        let g = &self.joint.graph;
        let mut out = String::from("joint graph:\n");
        out += &print(g);
        out += "saved:";
        for &v in &self.partition.saved {
            let ty = g.value_type(v).unwrap();
            out += &format!(" {v}: {ty} ({} B)", value_bytes(g, v));
        }
        out += &format!(
            "\nresidual bytes: {} with the min-cut partitioner, {} saving every value the \
             backward reads\nforward graph:\n{}backward graph:\n{}",
            self.partition.residual_bytes,
            self.save_all_bytes,
            print(&self.partition.forward),
            print(&self.partition.backward)
        );
        out
    }
}
