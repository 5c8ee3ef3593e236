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
