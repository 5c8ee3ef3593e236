//! Whole graphs compiled by the JIT and compared with the reference interpreter.

mod common;
use common::check_all_layouts;

#[test]
fn layernorm_from_the_ir_docs() {
    let ir = "ember-ir 1
func @layernorm(%0: f32[8,1024], %1: f32[1024], %2: f32[1024]) -> (f32[8,1024]) {
  %3 = mean(%0) axis=[1] keepdims=true : f32[8,1]
  %4 = sub(%0, %3) : f32[8,1024]
  %5 = mul(%4, %4) : f32[8,1024]
  %6 = mean(%5) axis=[1] keepdims=true : f32[8,1]
  %7 = const() value=1e-05 : f64[] weak
  %8 = add(%6, %7) : f32[8,1]
  %9 = sqrt(%8) : f32[8,1]
  %10 = div(%4, %9) : f32[8,1024]
  %11 = mul(%10, %1) : f32[8,1024]
  %12 = add(%11, %2) : f32[8,1024]
  return %12
}
";
    check_all_layouts(ir, 1, 1e-4);
}

#[test]
fn softmax_rows() {
    let ir = "ember-ir 1
func @softmax(%0: f64[33,257]) -> (f64[33,257]) {
  %1 = max(%0) axis=[1] keepdims=true : f64[33,1]
  %2 = sub(%0, %1) : f64[33,257]
  %3 = exp(%2) : f64[33,257]
  %4 = sum(%3) axis=[1] keepdims=true : f64[33,1]
  %5 = div(%3, %4) : f64[33,257]
  return %5
}
";
    check_all_layouts(ir, 2, 1e-12);
}

/// Softmax and layernorm each run as one kernel: one read and one write of memory per row.
#[test]
fn row_normalisations_fuse_into_one_kernel() {
    for ir in [
        "ember-ir 1
func @softmax(%0: f32[64,512]) -> (f32[64,512]) {
  %1 = max(%0) axis=[1] keepdims=true : f32[64,1]
  %2 = sub(%0, %1) : f32[64,512]
  %3 = exp(%2) : f32[64,512]
  %4 = sum(%3) axis=[1] keepdims=true : f32[64,1]
  %5 = div(%3, %4) : f32[64,512]
  return %5
}
",
        "ember-ir 1
func @layernorm(%0: f32[8,1024], %1: f32[1024], %2: f32[1024]) -> (f32[8,1024]) {
  %3 = mean(%0) axis=[1] keepdims=true : f32[8,1]
  %4 = sub(%0, %3) : f32[8,1024]
  %5 = mul(%4, %4) : f32[8,1024]
  %6 = mean(%5) axis=[1] keepdims=true : f32[8,1]
  %7 = const() value=1e-05 : f64[] weak
  %8 = add(%6, %7) : f32[8,1]
  %9 = sqrt(%8) : f32[8,1]
  %10 = div(%4, %9) : f32[8,1024]
  %11 = mul(%10, %1) : f32[8,1024]
  %12 = add(%11, %2) : f32[8,1024]
  return %12
}
",
    ] {
        let g = ember_core::ir::parse(ir).unwrap();
        let cg = ember_codegen::compile(&g, &ember_codegen::Options::default()).unwrap();
        assert_eq!(cg.kernel_count(), (1, 1), "{ir}");
    }
}
