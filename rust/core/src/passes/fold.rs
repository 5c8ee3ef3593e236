//! Constant folding: an elementwise op whose operands are all 0-d constants becomes a
//! constant, computed by the reference interpreter so that dtype rounding (f32 results round
//! to f32), integer wrapping and NEP 50 weakness are exactly NumPy's.

use std::collections::HashMap;

use super::rewrite::rewrite;
use crate::error::Result;
use crate::interp::{self, Elem, HostArray};
use crate::ir::{Graph, Op, OpClass, Scalar, Type};

/// Fold elementwise statements of constant operands.
pub fn fold_constants(graph: &Graph) -> Result<Graph> {
    rewrite(graph, |rw, node| {
        if !matches!(
            node.op.class(),
            OpClass::Unary | OpClass::Binary | OpClass::Ternary
        ) || !node.ty.shape.is_empty()
        {
            return Ok(None);
        }
        let mut args = Vec::new();
        let mut types: Vec<Type> = Vec::new();
        for &v in &node.inputs {
            match rw.producer(v).map(|n| &n.op) {
                Some(Op::Const { value, dtype, .. }) => {
                    args.push(HostArray::scalar(*dtype, const_elem(*value, *dtype)))
                }
                _ => return Ok(None),
            }
            types.extend(rw.type_of(v).cloned());
        }
        let type_refs: Vec<&Type> = types.iter().collect();
        let arg_refs: Vec<&HostArray> = args.iter().collect();
        let at = crate::ir::ValueId(rw.graph.num_values() as u32);
        let result = interp::eval(node, &type_refs, &arg_refs, &HashMap::new())
            .map_err(|e| e.with_value(node.op.name(), at))?;
        let value = match result.get(0) {
            Elem::B(b) => Scalar::Bool(b),
            Elem::I(i) => Scalar::Int(i),
            // The text has one NaN, the positive one: a NaN with its sign bit set is left to be
            // computed, so that signbit and copysign of it stay exact.
            Elem::F(x) if x.is_nan() && x.is_sign_negative() => return Ok(None),
            Elem::F(x) => Scalar::Float(x),
        };
        let op = Op::Const {
            value,
            dtype: node.ty.dtype,
            weak: node.ty.weak,
        };
        Ok(Some(rw.emit_typed(op, vec![], node.ty.clone())))
    })
}

fn const_elem(value: Scalar, dtype: crate::ir::DType) -> Elem {
    let e = match value {
        Scalar::Bool(b) => Elem::B(b),
        Scalar::Int(i) => Elem::I(i),
        Scalar::Float(x) => Elem::F(x),
    };
    interp::scalar::cast(e, dtype)
}
