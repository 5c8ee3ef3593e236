//! NumPy's overflow warning of integer scalar math, deferred. Capture follows each checked
//! scalar `add`/`sub`/`mul`/... with its overflow condition `c` raising the overflow flag
//! through `never = (where(c, 1e300, 1.0) * 1e300 == 0.0)`, and the result is
//! `where(never, 0, raw)` so that the product stays computed
//! (`python/ember/backends/scalar_overflow.py`). In a loop that puts a float multiply, a
//! compare and two selects on every checked operation's data path. Native code knows what
//! the pattern means instead: `never` is false, and `c` is or-ed into one flag that the
//! function raises once on its way out (`exp(1000)`, as `raising_flag` does), before the
//! runtime reads the floating-point status. A run that fails with an error returns without
//! reading the status, as before.

use super::lower::{Native, Val};
use crate::kernel::{Const, Scalar};
use crate::lower::binary::FlagOp;
use crate::lower::Mode;
use cranelift_codegen::ir::{types, InstBuilder};
use ember_core::ir::{BinaryOp, Graph, Op, Scalar as Literal, ValueId};

/// The big factor of the pattern: its square overflows `f64`.
const BIG: f64 = 1e300;

/// Whether `v` is a constant equal to `x` in `g`.
fn is_float_const(g: &Graph, v: ValueId, x: f64) -> bool {
    matches!(
        g.node(v).map(|n| &n.op),
        Some(Op::Const { value: Literal::Float(f), .. }) if *f == x
    )
}

/// The overflow condition of node `index` of `g` when that node is the pattern's
/// `never = (where(c, 1e300, 1.0) * 1e300 == 0.0)`.
pub(crate) fn condition(g: &Graph, index: usize) -> Option<ValueId> {
    let node = &g.nodes[index];
    if node.op != Op::Binary(BinaryOp::Eq) || !is_float_const(g, node.inputs[1], 0.0) {
        return None;
    }
    let product = g.node(node.inputs[0])?;
    if product.op != Op::Binary(BinaryOp::Mul) || !is_float_const(g, product.inputs[1], BIG) {
        return None;
    }
    let pick = g.node(product.inputs[0])?;
    let raises = pick.op == Op::Where
        && is_float_const(g, pick.inputs[1], BIG)
        && is_float_const(g, pick.inputs[2], 1.0);
    raises.then_some(pick.inputs[0])
}

impl Native<'_, '_> {
    /// The pattern's `never` for overflow condition `c`: `c` joins the deferred flag.
    pub(crate) fn defer_overflow(&mut self, c: &Val) -> Val {
        let c = self.value_as(c, Scalar::Bool);
        let b = &mut self.em.b;
        let seen = b.use_var(self.overflow);
        let seen = b.ins().bor(seen, c);
        b.def_var(self.overflow, seen);
        Val::Const(Const::Int(0), Scalar::Bool)
    }

    /// A fresh deferred flag, cleared (at the function's entry).
    pub(crate) fn clear_overflow(&mut self) {
        let b = &mut self.em.b;
        let none = b.ins().iconst(types::I8, 0);
        b.def_var(self.overflow, none);
    }

    /// Raises the overflow flag when a deferred condition held (at the function's exit).
    pub(crate) fn raise_deferred_overflow(&mut self) {
        let seen = self.em.b.use_var(self.overflow);
        self.em
            .raising_flag(seen, FlagOp::Overflow, Scalar::I64, Mode::Scalar);
    }
}
