//! The verifier: every statement's operands are defined earlier, its arity and attributes are
//! valid and its declared type equals the inferred one; results are defined. Regions are
//! checked the same way, and inside them arrays are used linearly (see [`linear`]).

mod linear;

pub(crate) use linear::check as check_linear;

use crate::error::{Error, Result};
use crate::infer::dtypes;
use crate::infer::{infer, infer_results};
use crate::ir::{DType, Graph, Node, Op, Scalar, Type};

/// Check a graph and its regions; the error names the op and value (and the region) and what
/// is wrong.
pub fn verify(graph: &Graph) -> Result<()> {
    verify_func(graph)
}

fn verify_func(graph: &Graph) -> Result<()> {
    // The projections still expected after a multi-result statement: (statement, types).
    let mut projections: Option<(crate::ir::ValueId, Vec<Type>)> = None;
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
        if let Op::Result { index, .. } = node.op {
            let expected = projections.as_mut().and_then(|(stmt, types)| {
                (node.inputs == [*stmt] && value.index() == stmt.index() + index)
                    .then(|| types.get(index).cloned())
                    .flatten()
            });
            match expected {
                Some(ty) if ty == node.ty => continue,
                _ => return Err(Error::new(
                    "a further result must directly follow its statement, in order, with its type",
                )
                .with_value(name, value)),
            }
        }
        if let Some((stmt, types)) = &projections {
            if value.index() < stmt.index() + types.len() {
                return Err(Error::new(format!(
                    "{stmt} defines {} values but this statement comes first",
                    types.len()
                ))
                .with_value(name, value));
            }
        }
        for region in node.op.regions() {
            verify_func(region).map_err(|e| {
                Error::new(format!("in region @{}: {e}", region.name)).with_value(name, value)
            })?;
        }
        if !node.op.regions().is_empty() {
            let all = infer_results(&node.op, &types).map_err(|e| e.with_value(name, value))?;
            projections = Some((value, all));
        }
        let inferred = infer(&node.op, &types).map_err(|e| e.with_value(name, value))?;
        check_weak_constants(graph, node).map_err(|e| e.with_value(name, value))?;
        if inferred != node.ty && !declared_python_scalar(&inferred, &node.ty) {
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
    if let Some((stmt, types)) = &projections {
        if graph.num_values() < stmt.index() + types.len() {
            return Err(Error::new(format!("{stmt} defines {} values", types.len())));
        }
    }
    for &v in &graph.results {
        if v.index() >= graph.num_values() {
            return Err(Error::new(format!("result {v} is not defined")));
        }
    }
    for region in graph.nodes.iter().flat_map(|n| n.op.regions()) {
        linear::check(region)
            .map_err(|e| Error::new(format!("in region @{}: {e}", region.name)))?;
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

/// Whether `declared` is `inferred` marked weak: a 0-d `bool`, `i64` or `f64` that capture
/// knows to be a Python scalar (`int(x)` of a NumPy scalar, `~crc` of a Python int carried
/// round a loop). Weakness changes only how later ops promote, and each of those is checked
/// against its own declaration, so the value computed is the same.
fn declared_python_scalar(inferred: &Type, declared: &Type) -> bool {
    declared.weak
        && !inferred.weak
        && declared.shape.is_empty()
        && inferred.shape.is_empty()
        && declared.dtype == inferred.dtype
        && matches!(declared.dtype, DType::Bool | DType::I64 | DType::F64)
}
