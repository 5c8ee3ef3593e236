//! Type inference: the result type of an op from its operands' types, as NumPy 2 computes it
//! (promotion, NEP 50 weak scalars, broadcasting with symbolic dims). See docs/IR.md.

pub mod dtypes;
pub mod indexed;
pub mod regions;
pub mod shapes;

pub use regions::infer_results;

use crate::error::{Error, Result};
use crate::ir::{Arity, DType, Dim, Kind, LinalgKind, Op, ReduceKind, Scalar, ScanKind, Type};

/// The result type of `op` applied to operands of these types (arity included), or an error
/// that names what is wrong (the caller adds the op and value).
pub fn infer(op: &Op, inputs: &[&Type]) -> Result<Type> {
    if !op.arity().allows(inputs.len()) {
        let want = match op.arity() {
            Arity::Exactly(n) => format!("{n}"),
            Arity::AtLeast(n) => format!("at least {n}"),
        };
        return Err(Error::new(format!(
            "{} takes {want} operand(s), found {}",
            op.name(),
            inputs.len()
        )));
    }
    match op {
        Op::Unary(u) => {
            let x = inputs[0];
            // `np.sqrt(2)` is a NumPy scalar: unary ops never give weak results.
            let dtype = dtypes::unary_result(*u, x.dtype)?;
            Ok(Type::new(dtype, x.shape.clone()))
        }
        Op::Binary(b) => {
            let (resolved, all_weak) = dtypes::resolve_operands(inputs);
            let dtype = dtypes::binary_result(*b, resolved[0], resolved[1])?;
            let shape = shapes::broadcast(&[&inputs[0].shape, &inputs[1].shape])?;
            Ok(elementwise(dtype, shape, all_weak))
        }
        Op::Where => {
            let (resolved, all_weak) = dtypes::resolve_operands(&inputs[1..]);
            let mut dtype = DType::promote(resolved[0], resolved[1]);
            if all_weak {
                dtype = dtypes::weak_of_kind(dtype);
            }
            let shape = shapes::broadcast(&[&inputs[0].shape, &inputs[1].shape, &inputs[2].shape])?;
            Ok(Type::new(dtype, shape))
        }
        Op::Astype { dtype } => Ok(Type::new(*dtype, inputs[0].shape.clone())),
        Op::Copy => Ok(Type::new(inputs[0].dtype, inputs[0].shape.clone())),
        Op::Const { value, dtype, weak } => {
            check_scalar(*value, *dtype)?;
            if *weak && !matches!(dtype, DType::Bool | DType::I64 | DType::F64) {
                return Err(Error::new(format!(
                    "a weak constant must be bool, i64 or f64, not {dtype}"
                )));
            }
            Ok(Type {
                dtype: *dtype,
                shape: Vec::new(),
                weak: *weak,
            })
        }
        Op::Full {
            value,
            dtype,
            shape,
        } => {
            check_scalar(*value, *dtype)?;
            Ok(Type::new(*dtype, shape.clone()))
        }
        Op::Arange {
            start,
            step,
            dtype,
            len,
        } => {
            if *dtype == DType::Bool {
                return Err(Error::new("arange of bool is not supported"));
            }
            check_scalar(*start, *dtype)?;
            check_scalar(*step, *dtype)?;
            Ok(Type::new(*dtype, vec![len.clone()]))
        }
        Op::Eye { dtype, n, m, .. } => Ok(Type::new(*dtype, vec![n.clone(), m.clone()])),
        Op::Reduce {
            kind,
            axes,
            keepdims,
        } => {
            let x = inputs[0];
            let shape = shapes::reduce(&x.shape, axes.as_deref(), *keepdims)?;
            if matches!(
                kind,
                crate::ir::ReduceKind::Max | crate::ir::ReduceKind::Min
            ) {
                check_nonempty(op.name(), &x.shape, axes.as_deref())?;
            }
            Ok(Type::new(dtypes::reduce_result(*kind, x.dtype), shape))
        }
        Op::ArgReduce { axis, keepdims, .. } => {
            let x = inputs[0];
            let axes = axis.map(|a| vec![a]);
            check_nonempty(op.name(), &x.shape, axes.as_deref())?;
            let shape = match axis {
                Some(_) => shapes::reduce(&x.shape, axes.as_deref(), *keepdims)?,
                None if *keepdims => vec![Dim::Static(1); x.ndim()],
                None => Vec::new(),
            };
            Ok(Type::new(DType::I64, shape))
        }
        Op::Scan { kind, axis } => {
            let x = inputs[0];
            shapes::check_axes("axis", &[*axis], x.ndim())?;
            let dtype = match kind {
                ScanKind::Cumsum => dtypes::reduce_result(ReduceKind::Sum, x.dtype),
                ScanKind::Cumprod => dtypes::reduce_result(ReduceKind::Prod, x.dtype),
                ScanKind::Sort | ScanKind::SortDefault => x.dtype,
                ScanKind::Argsort | ScanKind::ArgsortDefault => DType::I64,
            };
            Ok(Type::new(dtype, x.shape.clone()))
        }
        Op::Reshape { shape } => view(inputs[0], shapes::reshape(&inputs[0].shape, shape)?),
        Op::Transpose { perm } => view(inputs[0], shapes::transpose(&inputs[0].shape, perm)?),
        Op::BroadcastTo { shape } => {
            view(inputs[0], shapes::broadcast_to(&inputs[0].shape, shape)?)
        }
        Op::ExpandDims { axes } => view(inputs[0], shapes::expand_dims(&inputs[0].shape, axes)?),
        Op::Squeeze { axes } => view(inputs[0], shapes::squeeze(&inputs[0].shape, axes)?),
        Op::Slice { start, stop, step } => view(
            inputs[0],
            shapes::slice(&inputs[0].shape, start, stop, step)?,
        ),
        Op::Flip { axes } => {
            let ndim = inputs[0].ndim();
            shapes::check_axes("axis", axes, ndim)?;
            view(inputs[0], inputs[0].shape.clone())
        }
        Op::Concatenate { axis } => {
            let shape_refs: Vec<&[Dim]> = inputs.iter().map(|t| t.shape.as_slice()).collect();
            let shape = shapes::concatenate(&shape_refs, *axis)?;
            let dtype = inputs
                .iter()
                .map(|t| t.dtype)
                .reduce(DType::promote)
                .unwrap_or(DType::Bool);
            Ok(Type::new(dtype, shape))
        }
        Op::Matmul => {
            let (a, b) = (inputs[0], inputs[1]);
            let shape = shapes::matmul(&a.shape, &b.shape)?;
            Ok(Type::new(DType::promote(a.dtype, b.dtype), shape))
        }
        Op::Linalg { kind } => {
            // NumPy computes every real `np.linalg` function in double (`signature='dd->d'`);
            // capture casts the operands and the result.
            if let Some(t) = inputs.iter().find(|t| t.dtype != DType::F64) {
                return Err(Error::new(format!(
                    "{} takes f64 operands, found {}",
                    kind.name(),
                    t.dtype
                )));
            }
            if *kind == LinalgKind::Lstsq && !inputs[2].shape.is_empty() {
                return Err(Error::new("lstsq takes a 0-d rcond"));
            }
            let b = inputs.get(1).map(|t| t.shape.as_slice());
            let shape = shapes::linalg(*kind, &inputs[0].shape, b)?;
            Ok(Type::new(DType::F64, shape))
        }
        Op::Loop { .. } | Op::If { .. } => Ok(infer_results(op, inputs)?.remove(0)),
        Op::Gather { axis } => indexed::gather(inputs, *axis),
        Op::ScatterAdd { axis, shape } => indexed::scatter_add(inputs, *axis, shape),
        Op::Load => regions::load(inputs),
        Op::Store => regions::store(inputs),
        Op::Result { ty, .. } => Ok(ty.clone()),
    }
}

/// A binary elementwise result. Computed from weak operands only, the dtype is NumPy's for Python
/// scalars (the loop of `bool`, `i64`, `f64`) and the result is weak when a Python scalar has
/// that dtype (`floordiv(True, True)` is a strong `i8`, as NumPy returns).
fn elementwise(dtype: DType, shape: Vec<Dim>, all_weak: bool) -> Type {
    let weak = all_weak && matches!(dtype, DType::Bool | DType::I64 | DType::F64);
    Type { dtype, shape, weak }
}

/// A view keeps the dtype; its result is always a strong array.
fn view(x: &Type, shape: Vec<Dim>) -> Result<Type> {
    Ok(Type::new(x.dtype, shape))
}

/// Reductions without identity (max, min, argmax, argmin) reject reducing a static size 0.
fn check_nonempty(op: &str, shape: &[Dim], axes: Option<&[usize]>) -> Result<()> {
    let empty = shape
        .iter()
        .enumerate()
        .any(|(i, d)| *d == Dim::Static(0) && axes.is_none_or(|a| a.contains(&i)));
    if empty {
        return Err(Error::new(format!(
            "zero-size array to reduction operation {op} which has no identity"
        )));
    }
    Ok(())
}

/// A literal must be representable in its dtype: bools for bool, in-range integers for
/// integer dtypes, integers or floats for float dtypes.
pub fn check_scalar(value: Scalar, dtype: DType) -> Result<()> {
    let ok = match (value, dtype.kind()) {
        (Scalar::Bool(_), Kind::Bool) => true,
        (Scalar::Int(i), Kind::Signed | Kind::Unsigned) => dtype
            .int_range()
            .is_some_and(|(lo, hi)| (lo..=hi).contains(&i)),
        (Scalar::Int(_) | Scalar::Float(_), Kind::Float) => true,
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(Error::new(format!(
            "value {value} is not a valid {dtype} literal"
        )))
    }
}
