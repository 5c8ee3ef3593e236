//! Loop-invariant loads hoisted out of loops: a load in a loop body from an array the loop
//! does not carry (so no iteration stores into it), at indices computed from loop-invariant
//! values only (`values[k]` in a loop over `c`, `s[i - 1]` in a loop over `j`), is made once
//! before the loop is entered, and each iteration uses the register. The load before the loop
//! is speculative: it runs even when the loop makes no trip, or when the body would not reach
//! the access, so each index is clamped into its axis there (the array has no empty axis, so
//! element 0 exists) and never reads outside the array. The access in the body keeps its
//! bounds check where it was (its operands are invariant, so Cranelift moves the compare out
//! of the loop and a predicted branch stays): an index out of bounds raises NumPy's
//! `IndexError` at the same iteration, after the same stores, as before; where the check
//! passes, the clamped index was the index itself, so the register holds the element.

use super::forward::{node_key, NodeKey};
use super::lower::{Array, Native, Val};
use super::overflow;
use crate::kernel::Scalar;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, Value};
use ember_core::ir::{BinaryOp, DType, Graph, Op, Type};

/// What was computed before a loop for its body, by body node: values to reuse and loads
/// whose register stands for the element once the access's check passed.
#[derive(Default)]
pub(crate) struct Hoisted {
    pub keys: Vec<NodeKey>,
}

/// Index arithmetic: `i64`, which wraps without a floating-point status to raise (Python
/// ints' overflow is tested by nodes of its own, left in the body).
fn is_index(dtype: DType) -> bool {
    dtype == DType::I64
}

impl Native<'_, '_> {
    /// Lowers, where the builder stands (before the loop's entry test), the nodes of `body`
    /// computed from loop-invariant values alone that are worth taking out of the loop:
    /// constants, integer `+`/`-` of them (index arithmetic), and loads from arrays the loop
    /// does not carry. `args` are the loop op's operands (`lo, hi, step`, the carried
    /// values, then the invariant ones).
    pub(crate) fn hoist_invariants(
        &mut self,
        body: &Graph,
        carried: usize,
        args: &[Val],
    ) -> Hoisted {
        let mut hoisted = Hoisted::default();
        if self.spec.is_some() {
            return hoisted;
        }
        let carried_buffers: Vec<usize> = args[3..3 + carried]
            .iter()
            .filter_map(|v| match v {
                Val::Array(a) => Some(a.buffer),
                _ => None,
            })
            .collect();
        // Per body value: the value before the loop, where it is invariant.
        let mut inv: Vec<Option<Val>> = (0..body.params.len())
            .map(|p| (p > carried).then(|| args[2 + p].clone()))
            .collect();
        for (i, node) in body.nodes.iter().enumerate() {
            let ins: Option<Vec<Val>> =
                node.inputs.iter().map(|v| inv[v.index()].clone()).collect();
            let val = match ins {
                Some(ins) if node.ty.shape.is_empty() => {
                    self.hoist_node(body, i, &ins, &carried_buffers)
                }
                _ => None,
            };
            if val.is_some() {
                hoisted.keys.push(node_key(body, i));
            }
            if let Some(v) = &val {
                self.hoisted.insert(node_key(body, i), v.clone());
            }
            inv.push(val);
        }
        hoisted
    }

    fn hoist_node(
        &mut self,
        body: &Graph,
        i: usize,
        ins: &[Val],
        carried_buffers: &[usize],
    ) -> Option<Val> {
        let node = &body.nodes[i];
        match &node.op {
            Op::Const { .. } => {
                let types: Vec<&Type> = Vec::new();
                self.scalar_node(node, &types, ins).ok()
            }
            Op::Binary(BinaryOp::Add | BinaryOp::Sub)
                if overflow::condition(body, i).is_none()
                    && is_index(node.ty.dtype)
                    && node
                        .inputs
                        .iter()
                        .all(|&v| body.value_type(v).is_some_and(|t| is_index(t.dtype))) =>
            {
                let types: Vec<&Type> = node
                    .inputs
                    .iter()
                    .map(|&v| body.value_type(v).expect("verified graph"))
                    .collect();
                self.scalar_node(node, &types, ins).ok()
            }
            Op::Load => {
                let Val::Array(a) = &ins[0] else {
                    return None;
                };
                if carried_buffers.contains(&a.buffer)
                    || a.shape.contains(&0)
                    || a.shape.len() != ins.len() - 1
                    || ins[1..].iter().any(|x| matches!(x, Val::Array(_)))
                {
                    return None;
                }
                let v = self.clamped_load(a, &ins[1..]);
                Some(Val::Scalar(v, a.dtype))
            }
            _ => None,
        }
    }

    /// `a[indices]` with each index wrapped as NumPy wraps it and clamped into its axis (0
    /// where out of bounds): a load that cannot leave the array.
    fn clamped_load(&mut self, a: &Array, indices: &[Val]) -> Value {
        let mut addr = a.base;
        for (axis, index) in indices.iter().enumerate() {
            let i = self.value_as(index, Scalar::I64);
            let size = a.shape[axis] as i64;
            let known = self.ranges.get(&i).copied();
            let b = &mut self.em.b;
            let inside_known = known.is_some_and(|(lo, hi)| lo >= 0 && hi < i128::from(size));
            let at = if inside_known {
                i
            } else {
                let negative = b.ins().icmp_imm_s(IntCC::SignedLessThan, i, 0);
                let from_end = b.ins().iadd_imm_s(i, size);
                let wrapped = b.ins().select(negative, from_end, i);
                let inside = b.ins().icmp_imm_s(IntCC::UnsignedLessThan, wrapped, size);
                let zero = b.ins().iconst(types::I64, 0);
                b.ins().select(inside, wrapped, zero)
            };
            let step = b.ins().imul(at, a.strides[axis]);
            addr = b.ins().iadd(addr, step);
        }
        // As the body's load gives it: the array's dtype, a bool normalised.
        self.load_scalar(addr, a.dtype)
    }

    /// Forgets what [`Self::hoist_invariants`] made once the loop is lowered.
    pub(crate) fn drop_hoisted(&mut self, hoisted: Hoisted) {
        for key in hoisted.keys {
            self.hoisted.remove(&key);
        }
    }
}
