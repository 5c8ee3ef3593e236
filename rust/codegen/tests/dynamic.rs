//! Graphs with symbolic dims: compiled once, run with many bindings of their symbols against
//! the reference interpreter on the same graph with the sizes written in, generating no kernel
//! after the first binding.

mod common;
use common::{assert_close, random_array, run_compiled, Layout, Rng};
use ember_codegen::{compile, CompiledGraph, Error, Options};
use ember_core::ir::parse;

/// The IR text of a graph with `s0`, `s1` written as sizes.
fn with_sizes(ir: &str, s0: usize, s1: usize) -> String {
    ir.replace("s0", &s0.to_string())
        .replace("s1", &s1.to_string())
}

fn compile_symbolic(ir: &str) -> CompiledGraph {
    let g = parse(ir).unwrap_or_else(|e| panic!("{e}\n{ir}"));
    let (g, _) = ember_core::passes::run_pipeline(&g, false).unwrap();
    let cg = compile(&g, &Options { num_threads: 1 }).unwrap_or_else(|e| panic!("{e}\n{ir}"));
    assert!(cg.is_dynamic());
    cg
}

/// Runs `ir` (symbols `s0`, `s1`) for every binding against the interpreter, in every layout;
/// returns the kernels generated after the first binding.
fn check_bindings(ir: &str, bindings: &[(usize, usize)], rtol: f64) -> usize {
    let cg = compile_symbolic(ir);
    let mut rng = Rng(0x5eed);
    let mut first = None;
    for &(s0, s1) in bindings {
        let fixed = parse(&with_sizes(ir, s0, s1)).unwrap();
        let inputs: Vec<_> = fixed
            .params
            .iter()
            .map(|t| random_array(&mut rng, t.dtype, &t.static_shape().unwrap()))
            .collect();
        let want = ember_core::interp::run(&fixed, &inputs).unwrap();
        let shapes: Vec<Vec<usize>> = want.iter().map(|a| a.shape.clone()).collect();
        for layout in [Layout::C, Layout::F, Layout::Reversed, Layout::Strided] {
            let got =
                run_compiled(&cg, &inputs, layout, &shapes).unwrap_or_else(|e| panic!("{e}\n{ir}"));
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_close(
                    g,
                    w,
                    rtol,
                    &format!("result {i} at s0={s0} s1={s1} {layout:?}"),
                );
            }
        }
        first.get_or_insert(cg.generated_kernels());
    }
    cg.generated_kernels() - first.unwrap_or(0)
}

const BINDINGS: [(usize, usize); 5] = [(2, 3), (7, 2), (64, 33), (3, 300), (2, 2)];

#[test]
fn elementwise_with_broadcasting_of_symbols() {
    let ir = "ember-ir 1
func @f(%0: f64[s0,s1], %1: f64[s1], %2: f64[s0,1]) -> (f64[s0,s1]) {
  %3 = mul(%0, %1) : f64[s0,s1]
  %4 = add(%3, %2) : f64[s0,s1]
  %5 = tanh(%4) : f64[s0,s1]
  return %5
}
";
    assert_eq!(check_bindings(ir, &BINDINGS, 1e-12), 0);
}

#[test]
fn reductions_over_symbolic_axes_and_mean() {
    let ir = "ember-ir 1
func @f(%0: f32[s0,s1]) -> (f32[s1], f32[s0,1], f32[], i64[s0]) {
  %1 = sum(%0) axis=[0] keepdims=false : f32[s1]
  %2 = mean(%0) axis=[1] keepdims=true : f32[s0,1]
  %3 = max(%0) axis=none keepdims=false : f32[]
  %4 = argmax(%0) axis=1 keepdims=false : i64[s0]
  return %1, %2, %3, %4
}
";
    assert_eq!(check_bindings(ir, &BINDINGS, 1e-5), 0);
}

#[test]
fn matmul_with_symbolic_m_n_k() {
    let ir = "ember-ir 1
func @f(%0: f64[s0,s1], %1: f64[s1,5]) -> (f64[s0,5], f64[5]) {
  %2 = matmul(%0, %1) : f64[s0,5]
  %3 = exp(%2) : f64[s0,5]
  %4 = sum(%3) axis=[0] keepdims=false : f64[5]
  return %2, %4
}
";
    assert_eq!(check_bindings(ir, &BINDINGS, 1e-10), 0);
}

#[test]
fn reshape_and_transpose_of_symbolic_dims() {
    let ir = "ember-ir 1
func @f(%0: f64[s0,s1]) -> (f64[s1,s0], f64[s0,s1,1]) {
  %1 = transpose(%0) perm=[1,0] : f64[s1,s0]
  %2 = neg(%1) : f64[s1,s0]
  %3 = reshape(%0) shape=[s0,s1,1] : f64[s0,s1,1]
  return %2, %3
}
";
    assert_eq!(check_bindings(ir, &BINDINGS, 0.0), 0);
}

#[test]
fn a_symbol_bound_below_two_is_a_mismatch() {
    // Guards keep sizes 0 and 1 static; a view of an argument taken after them (`x[:n]`)
    // relies on the graph refusing them.
    let ir = "ember-ir 1
func @f(%0: f64[s0,3]) -> (f64[3]) {
  %1 = sum(%0) axis=[0] keepdims=false : f64[3]
  return %1
}
";
    let cg = compile_symbolic(ir);
    let mut rng = Rng(11);
    for rows in [0, 1] {
        let a = random_array(&mut rng, ember_core::ir::DType::F64, &[rows, 3]);
        match run_compiled(&cg, &[a], Layout::C, &[vec![3]]).unwrap_err() {
            Error::Mismatch(m) => assert!(m.contains("s0 stands for 2 or more"), "{m}"),
            other => panic!("{other:?}"),
        }
    }
    let a = random_array(&mut rng, ember_core::ir::DType::F64, &[2, 3]);
    assert!(run_compiled(&cg, &[a], Layout::C, &[vec![3]]).is_ok());
}

#[test]
fn inputs_giving_one_symbol_two_sizes_are_a_mismatch() {
    let ir = "ember-ir 1
func @f(%0: f64[s0], %1: f64[s0]) -> (f64[s0]) {
  %2 = add(%0, %1) : f64[s0]
  return %2
}
";
    let cg = compile_symbolic(ir);
    let mut rng = Rng(7);
    let a = random_array(&mut rng, ember_core::ir::DType::F64, &[3]);
    let b = random_array(&mut rng, ember_core::ir::DType::F64, &[4]);
    let err = run_compiled(&cg, &[a, b], Layout::C, &[vec![3]]).unwrap_err();
    match err {
        Error::Mismatch(m) => assert!(m.contains("s0 = 3 from an earlier input"), "{m}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_symbol_no_input_binds_is_refused() {
    let ir = "ember-ir 1
func @f(%0: f64[3]) -> (f64[3]) {
  %1 = neg(%0) : f64[3]
  return %1
}
";
    let mut g = parse(ir).unwrap();
    g.nodes[0].ty.shape[0] = ember_core::ir::Dim::symbol_named("s9");
    match compile(&g, &Options::default()) {
        Err(Error::Unsupported(m)) => assert!(m.contains("s9"), "{m}"),
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("compiled a graph whose symbol no input binds"),
    }
}

/// Slices of a symbolic axis, bounds from the front or counted from the end (`-1` the end):
/// the compiled graph against the interpreter on the same symbolic graph for many sizes, and
/// against `x[1:] - x[:-1]` computed here; a size too small for a bound is refused, never run.
#[test]
fn slices_of_a_symbolic_axis() {
    let ir = "ember-ir 1
func @f(%0: f64[s0,3]) -> (f64[s0-1,3], f64[3], f64[s0], f64[s0-3,3]) {
  %1 = slice(%0) start=[1,0] stop=[-1,3] step=[1,1] : f64[s0-1,3]
  %2 = slice(%0) start=[0,0] stop=[-2,3] step=[1,1] : f64[s0-1,3]
  %3 = sub(%1, %2) : f64[s0-1,3]
  %4 = slice(%0) start=[-3,0] stop=[-2,3] step=[1,1] : f64[1,3]
  %5 = squeeze(%4) axis=[0] : f64[3]
  %6 = slice(%0) start=[0,1] stop=[-1,2] step=[1,1] : f64[s0,1]
  %7 = squeeze(%6) axis=[1] : f64[s0]
  %8 = slice(%1) start=[1,0] stop=[-2,3] step=[1,1] : f64[s0-3,3]
  return %3, %5, %7, %8
}
";
    let cg = compile_symbolic(ir);
    let symbolic = parse(ir).unwrap();
    let mut rng = Rng(0x51ce);
    for n in [5, 3, 9, 64, 4, 300] {
        let x = random_array(&mut rng, ember_core::ir::DType::F64, &[n, 3]);
        let want = ember_core::interp::run(&symbolic, std::slice::from_ref(&x)).unwrap();
        let shapes: Vec<Vec<usize>> = want.iter().map(|a| a.shape.clone()).collect();
        assert_eq!(shapes, [vec![n - 1, 3], vec![3], vec![n], vec![n - 3, 3]]);
        let elems = x.elems();
        let diff = want[0].elems();
        for (k, d) in diff.iter().enumerate() {
            let (a, b) = (&elems[k + 3], &elems[k]);
            use ember_core::interp::Elem;
            let (Elem::F(a), Elem::F(b), Elem::F(d)) = (a, b, d) else {
                panic!("f64 elements")
            };
            assert_eq!(*d, a - b, "x[1:] - x[:-1] at {k}, n={n}");
        }
        for layout in [Layout::C, Layout::F, Layout::Reversed, Layout::Strided] {
            let got = run_compiled(&cg, std::slice::from_ref(&x), layout, &shapes).unwrap();
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_close(g, w, 0.0, &format!("result {i} at n={n} {layout:?}"));
            }
        }
    }
    // `%8` has s0-3 rows: a binding of 2 would give it a negative size.
    let x = random_array(&mut rng, ember_core::ir::DType::F64, &[2, 3]);
    match run_compiled(
        &cg,
        &[x],
        Layout::C,
        &[vec![1, 3], vec![3], vec![2], vec![0, 3]],
    ) {
        Err(Error::Mismatch(m)) => assert!(m.contains("does not hold for these sizes"), "{m}"),
        other => panic!("expected a refusal, got {:?}", other.map(|_| ())),
    }
}
