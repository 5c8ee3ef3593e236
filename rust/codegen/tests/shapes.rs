//! Reductions, views, matmul, concatenate, creation ops, empty and 0-d arrays against the
//! reference interpreter.

mod common;
use common::check_all_layouts;
use ember_core::ir::{
    print, ArgReduceKind, DType, Graph, Op, ReduceKind, ScanKind, Type, UnaryOp, ValueId,
};

const DTYPES: [DType; 5] = [DType::Bool, DType::I32, DType::I64, DType::F32, DType::F64];

fn build(
    params: &[Type],
    f: impl FnOnce(&mut Graph) -> ember_core::Result<Vec<ValueId>>,
) -> Option<String> {
    let mut g = Graph::new("f", params.to_vec());
    g.results = f(&mut g).ok()?;
    if g.nodes.iter().any(|n| !DTYPES.contains(&n.ty.dtype)) {
        return None;
    }
    Some(print(&g))
}

#[test]
fn reductions_every_kind_axis_and_dtype() {
    let mut count = 0;
    for &kind in ReduceKind::ALL {
        for d in DTYPES {
            for shape in [vec![6usize, 37], vec![3, 4, 5], vec![300]] {
                let nd = shape.len();
                let mut axes_list: Vec<Option<Vec<usize>>> = vec![None];
                axes_list.extend((0..nd).map(|a| Some(vec![a])));
                if nd == 3 {
                    axes_list.push(Some(vec![0, 2]));
                    axes_list.push(Some(vec![1, 2]));
                }
                for axes in axes_list {
                    for keepdims in [false, true] {
                        let op = Op::Reduce {
                            kind,
                            axes: axes.clone(),
                            keepdims,
                        };
                        let Some(ir) = build(&[Type::of(d, &shape)], |g| {
                            Ok(vec![g.add(op, vec![g.param(0)])?])
                        }) else {
                            continue;
                        };
                        check_all_layouts(&ir, 13, if d == DType::F32 { 1e-5 } else { 1e-12 });
                        count += 1;
                    }
                }
            }
        }
    }
    assert!(count > 200, "{count}");
}

#[test]
fn arg_reductions() {
    for &kind in ArgReduceKind::ALL {
        for d in DTYPES {
            for (shape, axis) in [
                (vec![6usize, 37], None),
                (vec![6, 37], Some(0)),
                (vec![6, 37], Some(1)),
                (vec![50], None),
            ] {
                for keepdims in [false, true] {
                    let op = Op::ArgReduce {
                        kind,
                        axis,
                        keepdims,
                    };
                    let ir = build(&[Type::of(d, &shape)], |g| {
                        Ok(vec![g.add(op, vec![g.param(0)])?])
                    })
                    .unwrap();
                    check_all_layouts(&ir, 17, 0.0);
                }
            }
        }
    }
}

#[test]
fn views_of_inputs_and_of_computed_values() {
    let ir = "ember-ir 1
func @f(%0: f64[4,6], %1: f32[6]) -> (f64[6,4], f64[2,6], f64[4,6], f64[24], f64[3,4,6], f64[4,1,6], f64[6,4]) {
  %2 = transpose(%0) perm=[1,0] : f64[6,4]
  %3 = slice(%0) start=[3,0] stop=[-1,6] step=[-2,1] : f64[2,6]
  %4 = exp(%0) : f64[4,6]
  %5 = flip(%4) axis=[0,1] : f64[4,6]
  %6 = reshape(%4) shape=[24] : f64[24]
  %7 = broadcast_to(%1) shape=[3,4,6] : f32[3,4,6]
  %8 = astype(%7) dtype=f64 : f64[3,4,6]
  %9 = expand_dims(%4) axis=[1] : f64[4,1,6]
  %10 = squeeze(%9) axis=[1] : f64[4,6]
  %11 = transpose(%10) perm=[1,0] : f64[6,4]
  %12 = add(%11, %2) : f64[6,4]
  return %2, %3, %5, %6, %8, %9, %12
}
";
    check_all_layouts(ir, 19, 1e-13);
}

#[test]
fn reshape_of_a_strided_input_copies() {
    let ir = "ember-ir 1
func @f(%0: f32[4,6]) -> (f32[3,8], f32[8,3]) {
  %1 = reshape(%0) shape=[3,8] : f32[3,8]
  %2 = transpose(%1) perm=[1,0] : f32[8,3]
  %3 = sin(%2) : f32[8,3]
  return %1, %3
}
";
    check_all_layouts(ir, 23, 1e-6);
}

#[test]
fn matmul_shapes_and_dtypes() {
    for d in [DType::F32, DType::F64, DType::I32, DType::I64, DType::Bool] {
        for (a, b) in [
            (vec![5usize, 7], vec![7usize, 3]),
            (vec![7], vec![7, 3]),
            (vec![5, 7], vec![7]),
            (vec![7], vec![7]),
            (vec![2, 5, 7], vec![7, 4]),
            (vec![2, 1, 5, 7], vec![3, 7, 4]),
            (vec![64, 65], vec![65, 66]),
            (vec![3, 0], vec![0, 4]),
        ] {
            let ir = build(&[Type::of(d, &a), Type::of(d, &b)], |g| {
                Ok(vec![g.add(Op::Matmul, vec![g.param(0), g.param(1)])?])
            })
            .unwrap();
            check_all_layouts(&ir, 29, if d == DType::F32 { 1e-5 } else { 1e-12 });
        }
    }
}

#[test]
fn scans_every_kind_axis_and_dtype() {
    for d in [DType::F32, DType::F64, DType::I32, DType::I64, DType::Bool] {
        for &kind in ScanKind::ALL {
            for axis in 0..3 {
                for shape in [vec![3usize, 4, 5], vec![4, 1, 3]] {
                    let ir = build(&[Type::of(d, &shape)], |g| {
                        let x = g.add(Op::Unary(UnaryOp::Abs), vec![g.param(0)])?;
                        Ok(vec![
                            g.add(Op::Scan { kind, axis }, vec![g.param(0)])?,
                            g.add(Op::Scan { kind, axis }, vec![x])?,
                        ])
                    })
                    .unwrap();
                    check_all_layouts(&ir, 31, 0.0);
                }
            }
        }
    }
}

#[test]
fn matmul_of_computed_operands_then_softmax() {
    let ir = "ember-ir 1
func @f(%0: f32[16,32], %1: f32[32,24]) -> (f32[16,24]) {
  %2 = tanh(%0) : f32[16,32]
  %3 = matmul(%2, %1) : f32[16,24]
  %4 = max(%3) axis=[1] keepdims=true : f32[16,1]
  %5 = sub(%3, %4) : f32[16,24]
  %6 = exp(%5) : f32[16,24]
  %7 = sum(%6) axis=[1] keepdims=true : f32[16,1]
  %8 = div(%6, %7) : f32[16,24]
  return %8
}
";
    check_all_layouts(ir, 31, 1e-5);
}

#[test]
fn concatenate_and_creation_ops() {
    let ir = "ember-ir 1
func @f(%0: f64[3,4], %1: i32[2,4]) -> (f64[5,4], f64[3,9], i64[7], f32[3,5], bool[2,3]) {
  %2 = astype(%1) dtype=f64 : f64[2,4]
  %3 = concatenate(%0, %2) axis=0 : f64[5,4]
  %4 = full() value=2.5 : f64[3,5]
  %5 = exp(%0) : f64[3,4]
  %6 = concatenate(%5, %4) axis=1 : f64[3,9]
  %7 = arange() start=3 step=-2 : i64[7]
  %8 = eye() k=1 : f32[3,5]
  %9 = full() value=true : bool[2,3]
  return %3, %6, %7, %8, %9
}
";
    check_all_layouts(ir, 37, 1e-13);
}

#[test]
fn empty_and_zero_d_arrays() {
    let ir = "ember-ir 1
func @f(%0: f64[0,5], %1: f64[], %2: i32[3,0]) -> (f64[0,5], f64[5], f64[], i64[3], bool[3], f64[]) {
  %3 = mul(%0, %1) : f64[0,5]
  %4 = sum(%0) axis=[0] keepdims=false : f64[5]
  %5 = exp(%1) : f64[]
  %6 = sum(%2) axis=[1] keepdims=false : i64[3]
  %7 = all(%2) axis=[1] keepdims=false : bool[3]
  %8 = prod(%0) axis=none keepdims=false : f64[]
  return %3, %4, %5, %6, %7, %8
}
";
    check_all_layouts(ir, 41, 1e-13);
}

#[test]
fn duplicate_results_and_returned_inputs() {
    let ir = "ember-ir 1
func @f(%0: f32[3,4]) -> (f32[3,4], f32[3,4], f32[3,4], f32[4,3]) {
  %1 = neg(%0) : f32[3,4]
  %2 = transpose(%0) perm=[1,0] : f32[4,3]
  return %1, %1, %0, %2
}
";
    check_all_layouts(ir, 43, 0.0);
}

#[test]
fn matmul_with_constant_operands() {
    let ir = "ember-ir 1
func @f(%0: f64[4,5]) -> (f64[4,5], f32[3,3]) {
  %1 = eye() k=0 : f64[5,5]
  %2 = matmul(%0, %1) : f64[4,5]
  %3 = eye() k=-1 : f32[3,3]
  %4 = matmul(%3, %3) : f32[3,3]
  return %2, %4
}
";
    check_all_layouts(ir, 59, 1e-12);
}
