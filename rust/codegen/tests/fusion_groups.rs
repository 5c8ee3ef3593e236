//! `fusion_groups` reports the schedule: which statements one kernel computes, and which run
//! as extern steps.

use ember_codegen::fusion_groups;
use ember_core::ir::parse;

#[test]
fn softmax_after_a_matmul_is_one_kernel_and_the_matmul_its_own_step() {
    let g = parse(
        "ember-ir 1
func @f(%0: f64[8,5], %1: f64[5,4]) -> (f64[8,4]) {
  %2 = matmul(%0, %1) : f64[8,4]
  %3 = max(%2) axis=[1] keepdims=true : f64[8,1]
  %4 = sub(%2, %3) : f64[8,4]
  %5 = exp(%4) : f64[8,4]
  %6 = sum(%5) axis=[1] keepdims=true : f64[8,1]
  %7 = div(%5, %6) : f64[8,4]
  return %7
}
",
    )
    .unwrap();
    let (kinds, steps) = fusion_groups(&g).unwrap();
    let matmul = steps[0].unwrap();
    assert_eq!(kinds[matmul], "matmul");
    let softmax = steps[1].unwrap();
    assert_eq!(kinds[softmax], "kernel");
    assert!(steps[1..].iter().all(|&s| s == Some(softmax)), "{steps:?}");
}

#[test]
fn a_stored_matmul_operand_is_computed_by_the_kernel_before_the_matmul() {
    let g = parse(
        "ember-ir 1
func @f(%0: f32[4,3], %1: f32[3,2]) -> (f32[4,2]) {
  %2 = tanh(%0) : f32[4,3]
  %3 = matmul(%2, %1) : f32[4,2]
  %4 = neg(%3) : f32[4,2]
  return %4
}
",
    )
    .unwrap();
    let (kinds, steps) = fusion_groups(&g).unwrap();
    let (tanh, matmul, neg) = (steps[0].unwrap(), steps[1].unwrap(), steps[2].unwrap());
    assert_eq!(
        (kinds[tanh], kinds[matmul], kinds[neg]),
        ("kernel", "matmul", "kernel")
    );
    assert!(tanh < matmul && matmul < neg);
}
