//! Version 2 of the IR: modules of several functions, multi-result statements, loops,
//! branches and element access (parse, print, verify, passes).

use std::path::Path;

use ember_core::interp::{self, HostArray};
use ember_core::ir::{parse, print};
use ember_core::passes::run_pipeline;
use ember_core::verify;

/// The IR part of a golden file, without its comment lines.
fn golden_input(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    let text = std::fs::read_to_string(path).unwrap();
    let input = &text[..text.find("\n# ----\n").unwrap() + 1];
    input
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn version_two_text_prints_back_byte_for_byte() {
    for name in [
        "loop_recurrence.ir",
        "loop_nested_if.ir",
        "loop_break.ir",
        "loop_zero_trip.ir",
        "load_store.ir",
        "loop_if_store.ir",
    ] {
        let text = golden_input(name);
        let graph = parse(&text).unwrap();
        verify(&graph).unwrap();
        assert_eq!(print(&graph), text, "{name}");
    }
}

#[test]
fn version_one_text_keeps_its_header() {
    let text =
        "ember-ir 1\nfunc @f(%0: f32[2]) -> (f32[2]) {\n  %1 = neg(%0) : f32[2]\n  return %1\n}\n";
    assert_eq!(print(&parse(text).unwrap()), text);
    let two = text.replace("ember-ir 1", "ember-ir 2");
    assert_eq!(print(&parse(&two).unwrap()), text);
}

fn parse_error(text: &str) -> String {
    match parse(text) {
        Ok(g) => verify(&g).unwrap_err().to_string(),
        Err(e) => e.to_string(),
    }
}

const BODY: &str = "func @b(%0: i64[] weak, %1: f64[]) -> (bool[], f64[]) {\n  %2 = const() value=true : bool[]\n  return %2, %1\n}\n";

#[test]
fn module_errors_name_the_function() {
    let head = "ember-ir 2\nfunc @f(%0: f64[]) -> (f64[]) {\n  %1 = const() value=0 : i64[] weak\n  %2 = loop(%1, %1, %1, %0) body=@b carried=1 : f64[]\n  return %2\n}\n";
    assert!(parse(&format!("{head}{BODY}")).is_ok());
    assert!(parse_error(&format!("{head}{BODY}{BODY}")).contains("@b is defined twice"));
    assert!(parse_error(head).contains("unknown function @b"));
    let unused = BODY.replace("@b", "@c");
    assert!(parse_error(&format!("{head}{BODY}{unused}")).contains("@c is never used"));
    let two = head
        .replace("%2 = loop", "%2, %3 = loop")
        .replace(": f64[]\n  return", ": f64[], f64[]\n  return");
    assert!(parse_error(&format!("{two}{BODY}"))
        .contains("a further result must directly follow its statement"));
    let add = "ember-ir 2\nfunc @f(%0: f64[]) -> (f64[]) {\n  %1, %2 = neg(%0) : f64[], f64[]\n  return %1\n}\n";
    assert!(parse_error(add).contains("neg defines one value"));
}

#[test]
fn unused_loads_stay_for_their_index_error() {
    let text = "ember-ir 2\nfunc @f(%0: f64[3], %1: i64[]) -> (f64[3]) {\n  %2 = load(%0, %1) : f64[]\n  return %0\n}\n";
    let graph = parse(text).unwrap();
    let (optimised, _) = run_pipeline(&graph, false).unwrap();
    assert_eq!(print(&optimised), text);
    let x = HostArray::parse("f64[3]{1.0, 2.0, 3.0}").unwrap();
    let i = HostArray::parse("i64[]{3}").unwrap();
    let err = interp::run(&optimised, &[x, i]).unwrap_err();
    assert_eq!(
        err.message,
        "index 3 is out of bounds for axis 0 with size 3"
    );
}

#[test]
fn regions_are_folded_and_cleaned_but_not_merged() {
    let text = "ember-ir 2\nfunc @f(%0: f64[]) -> (f64[]) {\n  %1 = const() value=0 : i64[] weak\n  %2 = const() value=3 : i64[] weak\n  %3 = const() value=1 : i64[] weak\n  %4 = loop(%1, %2, %3, %0) body=@b carried=1 : f64[]\n  return %4\n}\nfunc @b(%0: i64[] weak, %1: f64[]) -> (bool[], f64[]) {\n  %2 = const() value=2.0 : f64[] weak\n  %3 = const() value=0.5 : f64[] weak\n  %4 = add(%2, %3) : f64[] weak\n  %5 = neg(%1) : f64[]\n  %6 = mul(%1, %4) : f64[]\n  %7 = const() value=true : bool[]\n  return %7, %6\n}\n";
    let graph = parse(text).unwrap();
    let (optimised, _) = run_pipeline(&graph, false).unwrap();
    let printed = print(&optimised);
    assert!(printed.contains("value=2.5 : f64[] weak"), "{printed}");
    assert!(!printed.contains("neg("), "{printed}");
    let x = HostArray::parse("f64[]{2.0}").unwrap();
    let y = interp::run(&optimised, &[x]).unwrap();
    assert_eq!(y[0].to_string(), "f64[]{31.25}");
}

#[test]
fn regions_are_simplified_where_linear_use_allows() {
    // A masked mean in a loop body counts the mask through `broadcast_to` of its own shape,
    // which simplify removes (a view there made the back end store the mask first).
    let text = "ember-ir 2\nfunc @f(%0: f64[4]) -> (i64[]) {\n  %1 = const() value=0 : i64[] weak\n  %2 = const() value=3 : i64[] weak\n  %3 = const() value=1 : i64[] weak\n  %4 = const() value=0 : i64[]\n  %5 = loop(%1, %2, %3, %4, %0) body=@b carried=1 : i64[]\n  return %5\n}\nfunc @b(%0: i64[] weak, %1: i64[], %2: f64[4]) -> (bool[], i64[]) {\n  %3 = lt(%2, %0) : bool[4]\n  %4 = broadcast_to(%3) shape=[4] : bool[4]\n  %5 = sum(%4) axis=none keepdims=false : i64[]\n  %6 = add(%1, %5) : i64[]\n  %7 = const() value=true : bool[]\n  return %7, %6\n}\n";
    let graph = parse(text).unwrap();
    let (optimised, _) = run_pipeline(&graph, false).unwrap();
    let printed = print(&optimised);
    assert!(!printed.contains("broadcast_to("), "{printed}");
    let x = HostArray::parse("f64[4]{0.5, 1.5, 2.5, 3.5}").unwrap();
    let want = interp::run(&graph, std::slice::from_ref(&x)).unwrap();
    let got = interp::run(&optimised, &[x]).unwrap();
    assert_eq!(got[0].to_string(), want[0].to_string());
    assert_eq!(got[0].to_string(), "i64[]{3}");
}

#[test]
fn a_region_whose_simplification_breaks_linear_use_is_kept() {
    // `y = x * 1` read after `x` is stored into: replacing `y` by `x` would return a
    // consumed array, so the body stays as it was.
    let text = "ember-ir 2\nfunc @f(%0: f64[3]) -> (f64[3], f64[3]) {\n  %1 = const() value=0 : i64[] weak\n  %2 = const() value=3 : i64[] weak\n  %3 = const() value=1 : i64[] weak\n  %4 = full() value=0.0 : f64[3]\n  %5, %6 = loop(%1, %2, %3, %0, %4) body=@b carried=2 : f64[3], f64[3]\n  return %5, %6\n}\nfunc @b(%0: i64[] weak, %1: f64[3], %2: f64[3]) -> (bool[], f64[3], f64[3]) {\n  %3 = const() value=1.0 : f64[] weak\n  %4 = mul(%1, %3) : f64[3]\n  %5 = const() value=7.0 : f64[]\n  %6 = store(%1, %5, %0) : f64[3]\n  %7 = const() value=true : bool[]\n  return %7, %6, %4\n}\n";
    let graph = parse(text).unwrap();
    let (optimised, _) = run_pipeline(&graph, false).unwrap();
    let printed = print(&optimised);
    assert!(printed.contains("mul("), "{printed}");
    let x = HostArray::parse("f64[3]{1.0, 2.0, 3.0}").unwrap();
    let got = interp::run(&optimised, &[x]).unwrap();
    assert_eq!(got[0].to_string(), "f64[3]{7.0, 7.0, 7.0}");
    assert_eq!(got[1].to_string(), "f64[3]{7.0, 7.0, 3.0}");
}

/// The body of `for i in range(3): x = x * 0.5 + y[i]` on `n`-element rows.
fn relax(n: usize) -> String {
    format!(
        "ember-ir 2\nfunc @f(%0: f64[{n}], %1: f64[3,{n}]) -> (f64[{n}]) {{\n  %2 = const() value=0 : i64[] weak\n  %3 = const() value=3 : i64[] weak\n  %4 = const() value=1 : i64[] weak\n  %5 = loop(%2, %3, %4, %0, %1) body=@b carried=1 : f64[{n}]\n  return %5\n}}\nfunc @b(%0: i64[] weak, %1: f64[{n}], %2: f64[3,{n}]) -> (bool[], f64[{n}]) {{\n  %3 = const() value=0.5 : f64[] weak\n  %4 = mul(%1, %3) : f64[{n}]\n  %5 = const() value=1 : i64[] weak\n  %6 = const() value=0 : i64[] weak\n  %7 = load(%2, %0, %6) : f64[]\n  %8 = add(%4, %7) : f64[{n}]\n  %9 = sum(%8) axis=none keepdims=false : f64[]\n  %10 = load(%8, %5) : f64[]\n  %11 = add(%9, %10) : f64[]\n  %12 = full() value=0.0 : f64[{n}]\n  %13 = add(%8, %12) : f64[{n}]\n  %14 = store(%13, %11, %6) : f64[{n}]\n  %15 = const() value=true : bool[]\n  return %15, %14\n}}\n"
    )
}

#[test]
fn short_array_bodies_are_written_element_by_element() {
    let text = relax(3);
    let graph = parse(&text).unwrap();
    let (optimised, _) = run_pipeline(&graph, false).unwrap();
    let printed = print(&optimised);
    let body = &printed[printed.find("func @b").unwrap()..];
    for line in body.lines().filter(|l| l.contains(" = ")) {
        let ty = line
            .rsplit(" : ")
            .next()
            .unwrap()
            .split(' ')
            .next()
            .unwrap();
        assert!(
            ty.ends_with("[]") || line.contains("store("),
            "{line}\n{printed}"
        );
    }
    let x = HostArray::parse("f64[3]{1.0, 2.0, 3.0}").unwrap();
    let y = HostArray::parse("f64[3,3]{0.5, 0.0, 0.0, 1.5, 0.0, 0.0, 2.5, 0.0, 0.0}").unwrap();
    let want = interp::run(&graph, &[x.clone(), y.clone()]).unwrap();
    let got = interp::run(&optimised, &[x, y]).unwrap();
    assert_eq!(got[0].to_string(), want[0].to_string());
}

#[test]
fn long_array_bodies_keep_their_array_ops() {
    let graph = parse(&relax(129)).unwrap();
    let (optimised, _) = run_pipeline(&graph, false).unwrap();
    let printed = print(&optimised);
    assert!(printed.contains("mul(%1, %3) : f64[129]"), "{printed}");
}

/// The body of `for i in range(3): out[i] = (x[i:i + w] * 2.0).sum()`, its window gathered
/// by an inner loop of `w` trips into a new array.
fn windows(w: usize) -> String {
    format!(
        "ember-ir 2\nfunc @f(%0: f64[3], %1: f64[140]) -> (f64[3]) {{\n  %2 = const() value=0 : i64[] weak\n  %3 = const() value=3 : i64[] weak\n  %4 = const() value=1 : i64[] weak\n  %5 = loop(%2, %3, %4, %0, %1) body=@b carried=1 : f64[3]\n  return %5\n}}\nfunc @b(%0: i64[] weak, %1: f64[3], %2: f64[140]) -> (bool[], f64[3]) {{\n  %3 = const() value=0 : i64[] weak\n  %4 = const() value={w} : i64[] weak\n  %5 = const() value=1 : i64[] weak\n  %6 = full() value=0.0 : f64[{w}]\n  %7 = loop(%3, %4, %5, %6, %2, %0) body=@g carried=1 : f64[{w}]\n  %8 = const() value=2.0 : f64[] weak\n  %9 = mul(%7, %8) : f64[{w}]\n  %10 = sum(%9) axis=none keepdims=false : f64[]\n  %11 = store(%1, %10, %0) : f64[3]\n  %12 = const() value=true : bool[]\n  return %12, %11\n}}\nfunc @g(%0: i64[] weak, %1: f64[{w}], %2: f64[140], %3: i64[] weak) -> (bool[], f64[{w}]) {{\n  %4 = add(%0, %3) : i64[] weak\n  %5 = load(%2, %4) : f64[]\n  %6 = store(%1, %5, %0) : f64[{w}]\n  %7 = const() value=true : bool[]\n  return %7, %6\n}}\n"
    )
}

#[test]
fn short_arrays_filled_by_inner_loops_are_written_element_by_element() {
    let x = HostArray::parse("f64[3]{0.0, 0.0, 0.0}").unwrap();
    let values: Vec<String> = (0..140).map(|k| format!("{}.25", k % 7)).collect();
    let y = HostArray::parse(&format!("f64[140]{{{}}}", values.join(", "))).unwrap();
    for (w, scalar) in [(20, true), (128, true), (129, false)] {
        let graph = parse(&windows(w)).unwrap();
        let (optimised, _) = run_pipeline(&graph, false).unwrap();
        let printed = print(&optimised);
        let body = &printed[printed.find("func @b").unwrap()..];
        assert_eq!(!body.contains("loop("), scalar, "{printed}");
        assert_eq!(!body.contains(&format!("f64[{w}]")), scalar, "{printed}");
        let want = interp::run(&graph, &[x.clone(), y.clone()]).unwrap();
        let got = interp::run(&optimised, &[x.clone(), y.clone()]).unwrap();
        assert_eq!(got[0].to_string(), want[0].to_string());
    }
}

/// The body of `for i in range(4): w = np.abs(x[i]); out[i] = np.argmax(w) + 10 *
/// np.argmin(w) + 100 * np.any(w > 1.5) + 1000 * (np.arange(5) >= 3)[argmax]`-like code on
/// rows of five: its argument reductions, `any` and `arange` written element by element.
const ARG_REDUCTIONS: &str = "ember-ir 2\nfunc @f(%0: i64[4], %1: f64[4,5]) -> (i64[4]) {\n  %2 = const() value=0 : i64[] weak\n  %3 = const() value=4 : i64[] weak\n  %4 = const() value=1 : i64[] weak\n  %5 = loop(%2, %3, %4, %0, %1) body=@b carried=1 : i64[4]\n  return %5\n}\nfunc @b(%0: i64[] weak, %1: i64[4], %2: f64[4,5]) -> (bool[], i64[4]) {\n  %3 = slice(%2) start=[0,0] stop=[4,5] step=[1,1] : f64[4,5]\n  %4 = const() value=0 : i64[] weak\n  %5 = load(%2, %0, %4) : f64[]\n  %6 = const() value=1 : i64[] weak\n  %7 = load(%2, %0, %6) : f64[]\n  %8 = const() value=2 : i64[] weak\n  %9 = load(%2, %0, %8) : f64[]\n  %10 = const() value=3 : i64[] weak\n  %11 = load(%2, %0, %10) : f64[]\n  %12 = const() value=4 : i64[] weak\n  %13 = load(%2, %0, %12) : f64[]\n  %14 = full() value=0.0 : f64[5]\n  %15 = store(%14, %5, %4) : f64[5]\n  %16 = store(%15, %7, %6) : f64[5]\n  %17 = store(%16, %9, %8) : f64[5]\n  %18 = store(%17, %11, %10) : f64[5]\n  %19 = store(%18, %13, %12) : f64[5]\n  %20 = abs(%19) : f64[5]\n  %21 = argmax(%20) axis=0 keepdims=false : i64[]\n  %22 = argmin(%20) axis=none keepdims=false : i64[]\n  %23 = const() value=1.5 : f64[]\n  %24 = gt(%20, %23) : bool[5]\n  %25 = any(%24) axis=none keepdims=false : bool[]\n  %26 = astype(%25) dtype=i64 : i64[]\n  %27 = arange() start=0 step=1 : i64[5]\n  %28 = const() value=3 : i64[]\n  %29 = ge(%27, %28) : bool[5]\n  %30 = all(%29) axis=none keepdims=false : bool[]\n  %31 = astype(%30) dtype=i64 : i64[]\n  %32 = const() value=10 : i64[]\n  %33 = mul(%22, %32) : i64[]\n  %34 = const() value=100 : i64[]\n  %35 = mul(%26, %34) : i64[]\n  %36 = add(%21, %33) : i64[]\n  %37 = add(%36, %35) : i64[]\n  %38 = add(%37, %31) : i64[]\n  %39 = store(%1, %38, %0) : i64[4]\n  %40 = const() value=true : bool[]\n  return %40, %39\n}\n";

#[test]
fn argument_reductions_any_and_arange_of_short_arrays_are_written_element_by_element() {
    let graph = parse(ARG_REDUCTIONS).unwrap();
    verify(&graph).unwrap();
    let (optimised, _) = run_pipeline(&graph, false).unwrap();
    let printed = print(&optimised);
    let body = &printed[printed.find("func @b").unwrap()..];
    for op in ["argmax(", "argmin(", "any(", "all(", "arange("] {
        assert!(!body.contains(op), "{op}\n{printed}");
    }
    let x = HostArray::parse("i64[4]{0, 0, 0, 0}").unwrap();
    // Ties (the first place wins), NaN (the first NaN wins), -0.0 against 0.0, all equal.
    let y = HostArray::parse(
        "f64[4,5]{1.0, -3.0, 3.0, 0.5, 2.0, 1.0, nan, 0.0, nan, -0.0, -0.0, 0.0, -0.0, 0.0, 0.0, \
         2.0, 2.0, 2.0, 2.0, 2.0}",
    )
    .unwrap();
    let want = interp::run(&graph, &[x.clone(), y.clone()]).unwrap();
    let got = interp::run(&optimised, &[x, y]).unwrap();
    assert_eq!(got[0].to_string(), want[0].to_string());
    assert_eq!(got[0].to_string(), "i64[4]{131, 11, 0, 100}");
}
