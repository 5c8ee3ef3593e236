//! Every op of the IR over bool, i32, i64, f32 and f64, in every input layout, against the
//! reference interpreter.

mod common;
use common::check_all_layouts;
use ember_core::ir::{print, BinaryOp, DType, Graph, Op, Type, UnaryOp};

const DTYPES: [DType; 5] = [DType::Bool, DType::I32, DType::I64, DType::F32, DType::F64];

fn rtol(d: DType) -> f64 {
    if d == DType::F32 {
        2e-6
    } else {
        1e-13
    }
}

/// The printed graph `ops(x, ...)`, or `None` when NumPy has no loop for these dtypes.
fn graph(
    params: &[Type],
    build: impl FnOnce(&mut Graph) -> ember_core::Result<Vec<ember_core::ir::ValueId>>,
) -> Option<String> {
    let mut g = Graph::new("f", params.to_vec());
    let results = build(&mut g).ok()?;
    g.results = results;
    // Results NumPy gives in other dtypes (i8 for bool arithmetic) are outside codegen's set.
    if g.nodes.iter().any(|n| !DTYPES.contains(&n.ty.dtype)) {
        return None;
    }
    Some(print(&g))
}

#[test]
fn unary_ops_every_dtype() {
    let mut count = 0;
    for &op in UnaryOp::ALL {
        for d in DTYPES {
            let Some(ir) = graph(&[Type::of(d, &[6, 9])], |g| {
                Ok(vec![g.add(Op::Unary(op), vec![g.param(0)])?])
            }) else {
                continue;
            };
            check_all_layouts(&ir, 11, rtol(d) * 4.0);
            count += 1;
        }
    }
    assert!(count > 100, "{count} unary cases");
}

#[test]
fn binary_ops_every_dtype_with_broadcasting() {
    let mut count = 0;
    for &op in BinaryOp::ALL {
        for (da, db) in DTYPES.iter().map(|&d| (d, d)).chain([
            (DType::I32, DType::F32),
            (DType::F32, DType::F64),
            (DType::Bool, DType::I64),
            (DType::I32, DType::I64),
        ]) {
            if op == BinaryOp::Pow && da != DType::F32 && da != DType::F64 {
                continue; // integer powers need non-negative exponents: see integer_pow
            }
            for (sa, sb) in [
                (vec![5, 7], vec![5, 7]),
                (vec![5, 7], vec![7]),
                (vec![5, 1], vec![1, 7]),
                (vec![], vec![4]),
            ] {
                let Some(ir) = graph(&[Type::of(da, &sa), Type::of(db, &sb)], |g| {
                    Ok(vec![g.add(Op::Binary(op), vec![g.param(0), g.param(1)])?])
                }) else {
                    continue;
                };
                check_all_layouts(&ir, 7, rtol(da).max(rtol(db)) * 4.0);
                count += 1;
            }
        }
    }
    assert!(count > 300, "{count} binary cases");
}

#[test]
fn integer_pow() {
    let ir = "ember-ir 1
func @f(%0: i64[4,5], %1: i64[5]) -> (i64[4,5]) {
  %2 = abs(%1) : i64[5]
  %3 = const() value=7 : i64[] weak
  %4 = mod(%2, %3) : i64[5]
  %5 = pow(%0, %4) : i64[4,5]
  return %5
}
";
    check_all_layouts(ir, 3, 0.0);
}

#[test]
fn weak_scalars_keep_the_array_dtype() {
    let ir = "ember-ir 1
func @f(%0: f32[3,50], %1: i32[3,50]) -> (f32[3,50], i32[3,50], f64[3,50]) {
  %2 = const() value=2.5 : f64[] weak
  %3 = mul(%0, %2) : f32[3,50]
  %4 = const() value=3 : i64[] weak
  %5 = add(%1, %4) : i32[3,50]
  %6 = mul(%1, %2) : f64[3,50]
  return %3, %5, %6
}
";
    check_all_layouts(ir, 5, 1e-6);
}

#[test]
fn where_and_astype_every_pair() {
    for a in DTYPES {
        for b in DTYPES {
            let ir = graph(
                &[
                    Type::of(DType::Bool, &[4, 9]),
                    Type::of(a, &[4, 9]),
                    Type::of(b, &[9]),
                ],
                |g| {
                    let w = g.add(Op::Where, vec![g.param(0), g.param(1), g.param(2)])?;
                    let c = g.add(Op::Astype { dtype: b }, vec![g.param(1)])?;
                    Ok(vec![w, c])
                },
            )
            .unwrap();
            check_all_layouts(&ir, 9, 1e-6);
        }
    }
}
