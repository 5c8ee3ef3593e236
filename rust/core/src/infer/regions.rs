//! Result types of the version-2 ops: `loop` and `if` (from their regions' signatures) and
//! element access (`load`, `store`).

use crate::error::{Error, Result};
use crate::ir::{DType, Graph, Kind, Op, Type};

/// Every result type of `op` on operands of these types (one for all but `loop` and `if`).
pub fn infer_results(op: &Op, inputs: &[&Type]) -> Result<Vec<Type>> {
    match op {
        Op::Loop { body, carried } => loop_results(body, *carried, inputs),
        Op::If { then, otherwise } => if_results(then, otherwise, inputs),
        _ => Ok(vec![super::infer(op, inputs)?]),
    }
}

/// The type of `i` in a loop body: a Python int.
pub fn induction_type() -> Type {
    Type {
        dtype: DType::I64,
        shape: Vec::new(),
        weak: true,
    }
}

fn listed(types: &[Type]) -> String {
    let names: Vec<String> = types.iter().map(ToString::to_string).collect();
    format!("({})", names.join(", "))
}

fn loop_results(body: &Graph, carried: usize, inputs: &[&Type]) -> Result<Vec<Type>> {
    if carried == 0 || inputs.len() < 3 + carried {
        return Err(Error::new(format!(
            "loop takes lo, hi, step and {carried} carried value(s) (at least one), found {} operand(s)",
            inputs.len()
        )));
    }
    for (name, ty) in ["lo", "hi", "step"].iter().zip(inputs) {
        if ty.dtype != DType::I64 || !ty.shape.is_empty() {
            return Err(Error::new(format!("loop {name} must be 0-d i64, not {ty}")));
        }
    }
    let mut params = vec![induction_type()];
    params.extend(inputs[3..].iter().map(|&t| t.clone()));
    if body.params != params {
        return Err(Error::new(format!(
            "body @{} takes {} but the loop passes {}",
            body.name,
            listed(&body.params),
            listed(&params)
        )));
    }
    let carried_types: Vec<Type> = inputs[3..3 + carried].iter().map(|&t| t.clone()).collect();
    let results = body.result_types();
    let go_ok = results
        .first()
        .is_some_and(|t| t.dtype == DType::Bool && t.shape.is_empty());
    if !go_ok || results[1..] != carried_types[..] {
        return Err(Error::new(format!(
            "body @{} returns {} but the loop needs (bool[], {})",
            body.name,
            listed(&results),
            listed(&carried_types).trim_matches(|c| c == '(' || c == ')')
        )));
    }
    Ok(carried_types)
}

fn if_results(then: &Graph, otherwise: &Graph, inputs: &[&Type]) -> Result<Vec<Type>> {
    let cond = inputs[0];
    if cond.dtype != DType::Bool || !cond.shape.is_empty() {
        return Err(Error::new(format!(
            "if condition must be 0-d bool, not {cond}"
        )));
    }
    let args: Vec<Type> = inputs[1..].iter().map(|&t| t.clone()).collect();
    for region in [then, otherwise] {
        if region.params != args {
            return Err(Error::new(format!(
                "region @{} takes {} but the if passes {}",
                region.name,
                listed(&region.params),
                listed(&args)
            )));
        }
    }
    let (t, e) = (then.result_types(), otherwise.result_types());
    if t != e || t.is_empty() {
        return Err(Error::new(format!(
            "regions @{} and @{} must return the same types (at least one), found {} and {}",
            then.name,
            otherwise.name,
            listed(&t),
            listed(&e)
        )));
    }
    Ok(t)
}

/// `load(a, i...)`: a strong 0-d value of `a`'s dtype.
pub fn load(inputs: &[&Type]) -> Result<Type> {
    check_indices(inputs[0], &inputs[1..])?;
    Ok(Type::new(inputs[0].dtype, Vec::new()))
}

/// `store(a, v, i...)`: `a`'s type.
pub fn store(inputs: &[&Type]) -> Result<Type> {
    let (a, v) = (inputs[0], inputs[1]);
    if a.weak {
        return Err(Error::new(format!(
            "cannot store into a Python scalar ({a})"
        )));
    }
    if !v.shape.is_empty() {
        return Err(Error::new(format!("the stored value must be 0-d, not {v}")));
    }
    check_indices(a, &inputs[2..])?;
    Ok(a.clone())
}

fn check_indices(a: &Type, indices: &[&Type]) -> Result<()> {
    if indices.len() != a.ndim() {
        return Err(Error::new(format!(
            "{a} takes {} index(es), found {}",
            a.ndim(),
            indices.len()
        )));
    }
    for (k, i) in indices.iter().enumerate() {
        if !i.shape.is_empty() || !matches!(i.dtype.kind(), Kind::Signed | Kind::Unsigned) {
            return Err(Error::new(format!(
                "index {k} must be a 0-d integer, not {i}"
            )));
        }
    }
    Ok(())
}
