//! The verifier: every statement's operands are defined earlier, its arity and attributes are
//! valid and its declared type equals the inferred one; results are defined.

use crate::error::{Error, Result};
use crate::infer::dtypes;
use crate::infer::infer;
use crate::ir::{DType, Graph, Node, Op, Scalar, Type};

/// Check a graph; the error names the op and value and what is wrong.
pub fn verify(graph: &Graph) -> Result<()> {
    for (i, ty) in graph.params.iter().enumerate() {
        check_type(ty).map_err(|e| Error::new(format!("parameter %{i}: {}", e.message)))?;
    }
    for (i, node) in graph.nodes.iter().enumerate() {
        let value = graph.node_value(i);
        let name = node.op.name();
        let mut types = Vec::with_capacity(node.inputs.len());
        for &input in &node.inputs {
            if input >= value {
                return Err(
                    Error::new(format!("operand {input} is used before it is defined"))
                        .with_value(name, value),
                );
            }
            types.push(
                graph
                    .value_type(input)
                    .ok_or_else(|| Error::new(format!("operand {input} is not defined")))?,
            );
        }
        check_type(&node.ty).map_err(|e| e.with_value(name, value))?;
        let inferred = infer(&node.op, &types).map_err(|e| e.with_value(name, value))?;
        check_weak_constants(graph, node).map_err(|e| e.with_value(name, value))?;
        if inferred != node.ty {
            let operands: Vec<String> = types.iter().map(|t: &&Type| t.to_string()).collect();
            return Err(Error::new(format!(
                "declared type {} differs from the inferred type {} (operands: {})",
                node.ty,
                inferred,
                operands.join(", ")
            ))
            .with_value(name, value));
        }
    }
    for &v in &graph.results {
        if v.index() >= graph.num_values() {
            return Err(Error::new(format!("result {v} is not defined")));
        }
    }
    Ok(())
}

/// A Python int constant must fit the integer dtype it adopts in arithmetic (NumPy raises
/// `OverflowError` for `uint8_array + 300`).
fn check_weak_constants(graph: &Graph, node: &Node) -> Result<()> {
    let Op::Binary(op) = node.op else {
        return Ok(());
    };
    let types: Vec<&Type> = node
        .inputs
        .iter()
        .filter_map(|&v| graph.value_type(v))
        .collect();
    let (resolved, _) = dtypes::resolve_operands(&types);
    let Ok(loop_dtype) = dtypes::binary_loop(op, resolved[0], resolved[1]) else {
        return Ok(());
    };
    for &v in &node.inputs {
        if let Some(Node {
            op:
                Op::Const {
                    value: Scalar::Int(i),
                    weak: true,
                    ..
                },
            ..
        }) = graph.node(v)
        {
            dtypes::weak_int_fits(op, loop_dtype, *i)?;
        }
    }
    Ok(())
}

/// Weak types are 0-d Python scalars: bool, i64 or f64.
fn check_type(ty: &Type) -> Result<()> {
    if ty.weak
        && (!ty.shape.is_empty() || !matches!(ty.dtype, DType::Bool | DType::I64 | DType::F64))
    {
        return Err(Error::new(format!(
            "{ty}: a weak type must be 0-d bool, i64 or f64"
        )));
    }
    Ok(())
}
