//! NumPy's overflow warning of integer scalar math, deferred. Capture follows each checked
//! scalar `add`/`sub`/`mul`/... with its overflow condition `c` raising the overflow flag
//! through `never = (where(c, 1e300, 1.0) * 1e300 == 0.0)`, and the result is
//! `where(never, 0, raw)` so that the product stays computed
//! (`python/ember/backends/scalar_overflow.py`). In a loop that puts a float multiply, a
//! compare and two selects on every checked operation's data path. Native code knows what
//! the pattern means instead: `never` is false, and where `c` holds a cold block sets one
//! flag in a stack slot, which the function raises once on its way out (`exp(1000)`, as
//! `raising_flag` does), before the runtime reads the floating-point status. A run that
//! fails with an error returns without reading the status, as before. The flag lives in
//! memory, written only when an operation overflowed, so a loop's checks cost a compare and
//! a branch each that is never taken, and no register (an or-ed flag carried in a register
//! through a loop made the register allocator spill the loop's pointers in tight DP loops).

use super::lower::{Native, Val};
use crate::kernel::{Const, Scalar};
use crate::lower::binary::FlagOp;
use crate::lower::Mode;
use cranelift_codegen::ir::{types, InstBuilder, StackSlotData, StackSlotKind};
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
    /// The pattern's `never` for overflow condition `c`: where `c` holds, the deferred flag
    /// is set (in a cold block).
    pub(crate) fn defer_overflow(&mut self, c: &Val) -> Val {
        if let Val::Const(Const::Int(0), _) = c {
            return Val::Const(Const::Int(0), Scalar::Bool);
        }
        let c = self.value_as(c, Scalar::Bool);
        let b = &mut self.em.b;
        let set = b.create_block();
        let go_on = b.create_block();
        b.set_cold_block(set);
        b.ins().brif(c, set, &[], go_on, &[]);
        b.switch_to_block(set);
        b.seal_block(set);
        let one = b.ins().iconst(types::I8, 1);
        b.ins().stack_store(types::I64, one, self.overflow, 0);
        b.ins().jump(go_on, &[]);
        b.switch_to_block(go_on);
        b.seal_block(go_on);
        Val::Const(Const::Int(0), Scalar::Bool)
    }

    /// A fresh deferred flag, cleared (at the function's entry).
    pub(crate) fn clear_overflow(&mut self) {
        let b = &mut self.em.b;
        self.overflow =
            b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 1, 0));
        let none = b.ins().iconst(types::I8, 0);
        b.ins().stack_store(types::I64, none, self.overflow, 0);
    }

    /// Raises the overflow flag when a deferred condition held (at the function's exit).
    pub(crate) fn raise_deferred_overflow(&mut self) {
        let seen = self
            .em
            .b
            .ins()
            .stack_load(types::I64, types::I8, self.overflow, 0);
        self.em
            .raising_flag(seen, FlagOp::Overflow, Scalar::I64, Mode::Scalar);
    }
}
