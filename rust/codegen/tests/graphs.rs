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

/// Kernels above the parallel threshold split their rows across threads.
#[test]
fn large_kernels_on_threads() {
    let ir = "ember-ir 1
func @f(%0: f32[300,1000], %1: f64[200000]) -> (f32[300,1000], f64[200000], f64[], f32[1000], f32[1,1000]) {
  %2 = max(%0) axis=[1] keepdims=true : f32[300,1]
  %3 = sub(%0, %2) : f32[300,1000]
  %4 = exp(%3) : f32[300,1000]
  %5 = sum(%4) axis=[1] keepdims=true : f32[300,1]
  %6 = div(%4, %5) : f32[300,1000]
  %7 = mul(%1, %1) : f64[200000]
  %8 = tanh(%7) : f64[200000]
  %9 = sum(%7) axis=none keepdims=false : f64[]
  %10 = mean(%0) axis=[0] keepdims=false : f32[1000]
  %11 = max(%4) axis=[0] keepdims=true : f32[1,1000]
  return %6, %8, %9, %10, %11
}
";
    let g = ember_core::ir::parse(ir).unwrap();
    let mut rng = common::Rng(99);
    let inputs: Vec<_> = g
        .params
        .iter()
        .map(|t| common::random_array(&mut rng, t.dtype, &t.static_shape().unwrap()))
        .collect();
    // 3 twice: the second launch reuses the pool the first one started.
    for threads in [0, 1, 2, 3, 3] {
        common::check_ir(ir, &inputs, common::Layout::C, threads, 1e-5);
    }
    common::check_ir(ir, &inputs, common::Layout::F, 0, 1e-5);
}

#[test]
fn mismatched_arrays_are_errors() {
    use ember_codegen::{ArrayView, ArrayViewMut, Error};
    use ember_core::ir::DType;
    let ir = "ember-ir 1
func @f(%0: f64[2,3]) -> (f64[2,3]) {
  %1 = neg(%0) : f64[2,3]
  return %1
}
";
    let g = ember_core::ir::parse(ir).unwrap();
    let cg = ember_codegen::compile(&g, &ember_codegen::Options::default()).unwrap();
    let a = [0f64; 6];
    let mut o = [0f64; 6];
    let (ip, op) = (a.as_ptr() as *const u8, o.as_mut_ptr() as *mut u8);
    let out = unsafe { ArrayViewMut::new(op, DType::F64, vec![2, 3], vec![24, 8]) };
    for bad in [
        unsafe { ArrayView::new(ip, DType::F32, vec![2, 3], vec![12, 4]) },
        unsafe { ArrayView::new(ip, DType::F64, vec![3, 2], vec![16, 8]) },
        unsafe { ArrayView::new(ip, DType::F64, vec![2, 3], vec![24, 3]) },
        unsafe { ArrayView::new(ip.add(1), DType::F64, vec![2, 2], vec![24, 8]) },
        unsafe { ArrayView::new(ip.add(4), DType::F64, vec![2, 3], vec![24, 8]) },
    ] {
        let r = cg.run(&[bad], std::slice::from_ref(&out));
        assert!(matches!(r, Err(Error::Mismatch(_))), "{r:?}");
    }
    let good = unsafe { ArrayView::new(ip, DType::F64, vec![2, 3], vec![24, 8]) };
    assert!(matches!(
        cg.run(std::slice::from_ref(&good), &[]),
        Err(Error::Mismatch(_))
    ));
    let zero_stride = unsafe { ArrayViewMut::new(op, DType::F64, vec![2, 3], vec![0, 8]) };
    assert!(matches!(
        cg.run(std::slice::from_ref(&good), &[zero_stride]),
        Err(Error::Mismatch(_))
    ));
    cg.run(&[good], &[out]).unwrap();
    assert_eq!(cg.output_types()[0].to_string(), "f64[2,3]");
    assert_eq!(cg.input_types()[0].to_string(), "f64[2,3]");
}

/// Regression: a unit inner dim made every operand look row-invariant.
#[test]
fn unit_inner_dim() {
    let ir = "ember-ir 1
func @f(%0: f32[8,1], %1: f64[1,9,1]) -> (f32[8,1], f64[1,9,1]) {
  %2 = exp(%0) : f32[8,1]
  %3 = neg(%1) : f64[1,9,1]
  return %2, %3
}
";
    common::check_all_layouts(ir, 47, 1e-6);
}

#[test]
fn pow_by_two_and_general_pow() {
    let ir = "ember-ir 1
func @f(%0: f32[5,40], %1: f64[40]) -> (f32[5,40], f64[40], f64[5,40]) {
  %2 = const() value=2 : i64[] weak
  %3 = pow(%0, %2) : f32[5,40]
  %4 = const() value=2.0 : f64[] weak
  %5 = pow(%1, %4) : f64[40]
  %6 = abs(%0) : f32[5,40]
  %7 = pow(%6, %1) : f64[5,40]
  return %3, %5, %7
}
";
    common::check_all_layouts(ir, 53, 1e-6);
}

/// The binding keeps compiled graphs in Python objects used from any thread.
#[test]
fn compiled_graphs_are_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<ember_codegen::CompiledGraph>();
}
