//! Loops, branches and element access compiled to native code, against the interpreter:
//! recurrences, nested loops with branches, early exit, zero-trip loops, negative indices and
//! steps, every input layout, and the errors (IndexError, range step 0).

mod common;

use common::{check_all_layouts, check_ir, run_jit, Layout};
use ember_core::interp::HostArray;

fn golden(name: &str) -> String {
    let path = format!("{}/../core/tests/golden/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(path).unwrap();
    text[..text.find("\n# ----\n").unwrap() + 1].to_string()
}

fn arrays(text: &str) -> Vec<HostArray> {
    text.split(';')
        .map(|a| HostArray::parse(a).unwrap())
        .collect()
}

#[test]
fn golden_loops_match_the_interpreter_in_every_layout() {
    for name in [
        "loop_recurrence.ir",
        "loop_nested_if.ir",
        "loop_break.ir",
        "loop_if_store.ir",
    ] {
        check_all_layouts(&golden(name), 7, 1e-12);
    }
}

#[test]
fn a_branch_stores_into_a_carried_array() {
    let ir = golden("loop_if_store.ir");
    let x = arrays("f32[6]{1.5, -2.0, 0.0, 3.25, -0.5, 7.0}; i32[]{-1}");
    for layout in [Layout::C, Layout::Reversed, Layout::Strided] {
        check_ir(&ir, &x, layout, 1, 0.0);
    }
    let x = arrays("f32[6]{1.5, -2.0, 0.0, 3.25, -0.5, 7.0}; i32[]{6}");
    let err = run_jit(&ir, &x, Layout::C, 1).unwrap_err();
    let message = "index 6 is out of bounds for axis 0 with size 6";
    assert_eq!(err, ember_codegen::Error::Index(message.into()));
}

#[test]
fn zero_trip_and_break() {
    let ir = golden("loop_zero_trip.ir");
    for lo in ["1", "4", "9", "-3"] {
        let x = arrays(&format!("f64[]{{1.5}}; i64[]{{{lo}}}"));
        check_ir(&ir, &x, Layout::C, 1, 0.0);
    }
    let ir = golden("loop_break.ir");
    for data in ["0, 5, 1, 7, 2, 1", "0, 1, 1, 1, 2, 1", "9, 9, 9, 9, 9, 9"] {
        let x = arrays(&format!("i32[6]{{{data}}}"));
        for layout in [Layout::C, Layout::Reversed, Layout::Strided] {
            check_ir(&ir, &x, layout, 1, 0.0);
        }
    }
}

#[test]
fn index_errors_carry_numpys_message() {
    let ir = golden("load_store.ir");
    for (i, want) in [
        (
            "-3",
            Some("index -3 is out of bounds for axis 0 with size 2"),
        ),
        ("3", Some("index 3 is out of bounds for axis 1 with size 3")),
        (
            "-4",
            Some("index -4 is out of bounds for axis 1 with size 3"),
        ),
        ("1", None),
        ("-1", None),
        ("0", None),
    ] {
        let x = arrays(&format!(
            "i32[2,3]{{1, 2, 3, 4, 5, 6}}; i64[]{{{i}}}; f64[]{{-7.9}}"
        ));
        match want {
            Some(message) => {
                let err = run_jit(&ir, &x, Layout::F, 1).unwrap_err();
                assert_eq!(err, ember_codegen::Error::Index(message.into()));
            }
            None => {
                check_ir(&ir, &x, Layout::F, 1, 0.0);
            }
        }
    }
}

#[test]
fn range_step_zero_is_a_value_error() {
    let ir = golden("err_loop_step_zero.ir");
    let err = run_jit(&ir, &arrays("f64[]{1.5}; i64[]{0}"), Layout::C, 1).unwrap_err();
    assert_eq!(
        err,
        ember_codegen::Error::Value("range() arg 3 must not be zero".into())
    );
    for step in ["2", "-1", "7"] {
        check_ir(
            &ir,
            &arrays(&format!("f64[]{{1.5}}; i64[]{{{step}}}")),
            Layout::C,
            1,
            0.0,
        );
    }
}

/// `sum(a[i + off] for i in range(lo, hi, step))` with every bound a compiled-in constant, so
/// that the proven-range path (no check, or a constant shift for negative indices) and the
/// checked path both run.
fn constant_range_sum(lo: i64, hi: i64, step: i64, off: i64) -> String {
    format!(
        "ember-ir 2
func @f(%0: f64[5]) -> (f64[]) {{
  %1 = const() value=0.0 : f64[]
  %2 = const() value={lo} : i64[] weak
  %3 = const() value={hi} : i64[] weak
  %4 = const() value={step} : i64[] weak
  %5 = loop(%2, %3, %4, %1, %0) body=@body carried=1 : f64[]
  return %5
}}
func @body(%0: i64[] weak, %1: f64[], %2: f64[5]) -> (bool[], f64[]) {{
  %3 = const() value={off} : i64[] weak
  %4 = add(%0, %3) : i64[] weak
  %5 = load(%2, %4) : f64[]
  %6 = add(%1, %5) : f64[]
  %7 = const() value=true : bool[]
  return %7, %6
}}
"
    )
}

#[test]
fn proven_and_checked_indices_agree_with_the_interpreter() {
    let x = arrays("f64[5]{1.0, 2.0, 4.0, 8.0, 16.0}");
    let mut rng = common::Rng(11);
    let mut cases = vec![
        (0, 5, 1, 0),
        (-5, 0, 1, 0),
        (0, 6, 1, 0),
        (-6, 0, 1, 0),
        (4, -1, -1, 0),
    ];
    for _ in 0..60 {
        let pick = |r: &mut common::Rng, span: u64| r.below(2 * span + 1) as i64 - span as i64;
        let step = [1, 2, 3, -1, -2][common::Rng::below(&mut rng, 5) as usize];
        cases.push((
            pick(&mut rng, 7),
            pick(&mut rng, 7),
            step,
            pick(&mut rng, 4),
        ));
    }
    for (lo, hi, step, off) in cases {
        let ir = constant_range_sum(lo, hi, step, off);
        let graph = ember_core::ir::parse(&ir).unwrap();
        match ember_core::interp::run(&graph, &x) {
            Ok(_) => {
                check_ir(&ir, &x, Layout::Reversed, 1, 0.0);
            }
            Err(e) => {
                let err = run_jit(&ir, &x, Layout::C, 1).unwrap_err();
                assert_eq!(err, ember_codegen::Error::Index(e.message), "{ir}");
            }
        }
    }
}

/// A Jacobi sweep `u[1:-1, 1:-1] = 0.25 * (four neighbours)` repeated `iters` times on an
/// `n x n` grid: a loop whose body computes with whole arrays.
pub fn jacobi(n: usize, iters: usize) -> String {
    let m = n - 2;
    let sl = |r0: usize, r1: usize, c0: usize, c1: usize| {
        format!("start=[{r0},{c0}] stop=[{r1},{c1}] step=[1,1]")
    };
    format!(
        "ember-ir 2
func @f(%0: f64[{n},{n}]) -> (f64[{n},{n}]) {{
  %1 = const() value=0 : i64[] weak
  %2 = const() value={iters} : i64[] weak
  %3 = const() value=1 : i64[] weak
  %4 = loop(%1, %2, %3, %0) body=@sweep carried=1 : f64[{n},{n}]
  return %4
}}
func @sweep(%0: i64[] weak, %1: f64[{n},{n}]) -> (bool[], f64[{n},{n}]) {{
  %2 = slice(%1) {up} : f64[{m},{m}]
  %3 = slice(%1) {down} : f64[{m},{m}]
  %4 = slice(%1) {left} : f64[{m},{m}]
  %5 = slice(%1) {right} : f64[{m},{m}]
  %6 = add(%2, %3) : f64[{m},{m}]
  %7 = add(%6, %4) : f64[{m},{m}]
  %8 = add(%7, %5) : f64[{m},{m}]
  %9 = const() value=0.25 : f64[] weak
  %10 = mul(%9, %8) : f64[{m},{m}]
  %11 = slice(%1) {west} : f64[{m},1]
  %12 = slice(%1) {east} : f64[{m},1]
  %13 = concatenate(%11, %10, %12) axis=1 : f64[{m},{n}]
  %14 = slice(%1) {top} : f64[1,{n}]
  %15 = slice(%1) {bottom} : f64[1,{n}]
  %16 = concatenate(%14, %13, %15) axis=0 : f64[{n},{n}]
  %17 = const() value=true : bool[]
  return %17, %16
}}
",
        up = sl(0, n - 2, 1, n - 1),
        down = sl(2, n, 1, n - 1),
        left = sl(1, n - 1, 0, n - 2),
        right = sl(1, n - 1, 2, n),
        west = sl(1, n - 1, 0, 1),
        east = sl(1, n - 1, n - 1, n),
        top = sl(0, 1, 0, n),
        bottom = sl(n - 1, n, 0, n),
    )
}

#[test]
fn loops_over_array_bodies_run_the_body_per_iteration() {
    check_all_layouts(&jacobi(9, 5), 3, 1e-12);
    check_all_layouts(&jacobi(6, 0), 3, 0.0);
}

#[test]
fn integer_power_with_a_negative_exponent_raises() {
    let ir = "ember-ir 2
func @f(%0: i64[3]) -> (i64[]) {
  %1 = const() value=1 : i64[]
  %2 = const() value=0 : i64[] weak
  %3 = const() value=3 : i64[] weak
  %4 = const() value=1 : i64[] weak
  %5 = loop(%2, %3, %4, %1, %0) body=@body carried=1 : i64[]
  return %5
}
func @body(%0: i64[] weak, %1: i64[], %2: i64[3]) -> (bool[], i64[]) {
  %3 = load(%2, %0) : i64[]
  %4 = pow(%3, %3) : i64[]
  %5 = add(%1, %4) : i64[]
  %6 = const() value=true : bool[]
  return %6, %5
}
";
    check_ir(ir, &arrays("i64[3]{2, 3, 0}"), Layout::C, 1, 0.0);
    let err = run_jit(ir, &arrays("i64[3]{2, -1, 3}"), Layout::C, 1).unwrap_err();
    let message = "Integers to negative integer powers are not allowed.";
    assert_eq!(err, ember_codegen::Error::Value(message.into()));
}

#[test]
fn stores_into_loop_invariant_arrays_are_refused() {
    // Functionally each iteration stores into a fresh copy of the invariant %2; updating it
    // in place would let later iterations see the store.
    let ir = "ember-ir 2
func @f(%0: f64[], %1: f64[3]) -> (f64[]) {
  %2 = const() value=0 : i64[] weak
  %3 = const() value=3 : i64[] weak
  %4 = const() value=1 : i64[] weak
  %5 = loop(%2, %3, %4, %0, %1) body=@body carried=1 : f64[]
  return %5
}
func @body(%0: i64[] weak, %1: f64[], %2: f64[3]) -> (bool[], f64[]) {
  %3 = const() value=0 : i64[] weak
  %4 = load(%2, %3) : f64[]
  %5 = add(%1, %4) : f64[]
  %6 = store(%2, %5, %3) : f64[3]
  %7 = load(%6, %3) : f64[]
  %8 = const() value=true : bool[]
  return %8, %7
}
";
    let g = ember_core::ir::parse(ir).unwrap();
    ember_core::verify(&g).unwrap();
    let err = ember_codegen::compile(&g, &ember_codegen::Options::default()).err();
    assert!(
        matches!(&err, Some(ember_codegen::Error::Unsupported(m)) if m.contains("does not carry")),
        "{err:?}"
    );
}

/// `for i in range(n): if x[i].sum() > 0: x[i] = x[i] * 2 else: x = x - 1`: an `if` whose
/// regions compute with whole arrays, inside a loop whose body is a graph of its own.
fn rows_by_sign(n: usize, m: usize) -> String {
    format!(
        "ember-ir 2
func @f(%0: f64[{n},{m}]) -> (f64[{n},{m}]) {{
  %1 = const() value=0 : i64[] weak
  %2 = const() value={n} : i64[] weak
  %3 = const() value=1 : i64[] weak
  %4 = copy(%0) : f64[{n},{m}]
  %5 = loop(%1, %2, %3, %4) body=@trip carried=1 : f64[{n},{m}]
  return %5
}}
func @trip(%0: i64[] weak, %1: f64[{n},{m}]) -> (bool[], f64[{n},{m}]) {{
  %2 = sum(%1) axis=[1] keepdims=false : f64[{n}]
  %3 = load(%2, %0) : f64[]
  %4 = const() value=0 : i64[] weak
  %5 = gt(%3, %4) : bool[]
  %6 = if(%5, %1) then=@double else=@less : f64[{n},{m}]
  %7 = const() value=true : bool[]
  return %7, %6
}}
func @double(%0: f64[{n},{m}]) -> (f64[{n},{m}]) {{
  %1 = const() value=2.0 : f64[] weak
  %2 = mul(%0, %1) : f64[{n},{m}]
  return %2
}}
func @less(%0: f64[{n},{m}]) -> (f64[{n},{m}]) {{
  %1 = const() value=1.0 : f64[] weak
  %2 = sub(%0, %1) : f64[{n},{m}]
  return %2
}}
"
    )
}

#[test]
fn branches_with_array_work_run_their_regions_as_graphs() {
    check_all_layouts(&rows_by_sign(5, 4), 11, 1e-12);
    check_all_layouts(&rows_by_sign(1, 3), 12, 1e-12);
    // The same `if` at the graph's top level, on a 0-d test of the input.
    let top = "ember-ir 2
func @f(%0: f64[3,4]) -> (f64[3,4]) {
  %1 = sum(%0) axis=none keepdims=false : f64[]
  %2 = const() value=0 : i64[] weak
  %3 = gt(%1, %2) : bool[]
  %4 = if(%3, %0) then=@double else=@less : f64[3,4]
  return %4
}
func @double(%0: f64[3,4]) -> (f64[3,4]) {
  %1 = const() value=2.0 : f64[] weak
  %2 = mul(%0, %1) : f64[3,4]
  return %2
}
func @less(%0: f64[3,4]) -> (f64[3,4]) {
  %1 = const() value=1.0 : f64[] weak
  %2 = sub(%0, %1) : f64[3,4]
  return %2
}
";
    check_all_layouts(top, 13, 1e-12);
}
