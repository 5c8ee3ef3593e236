//! Native loop paths against the interpreter: a DP loop whose data branch runs as selects,
//! a recurrence whose loads are forwarded from the previous iteration's store, and loops
//! over bounds read from an array, whose checks one entry test hoists (bounds inside, at
//! the edge, past the end and negative, in every layout).

mod common;

use common::{check_all_layouts, check_ir, run_jit, Layout};
use ember_core::interp::HostArray;

const DP: &str = r#"ember-ir 2
func @lcs_length(%0: i64[10], %1: i64[9]) -> (i32[]) {
  %2 = full() value=0 : i32[11,10]
  %3 = const() value=1 : i64[] weak
  %4 = const() value=11 : i64[] weak
  %5 = const() value=1 : i64[] weak
  %6 = loop(%3, %4, %5, %2, %0, %1) body=@lcs_length_loop0 carried=1 : i32[11,10]
  %7 = slice(%6) start=[10,9] stop=[11,10] step=[1,1] : i32[1,1]
  %8 = squeeze(%7) axis=[0,1] : i32[]
  return %8
}
func @lcs_length_loop0(%0: i64[] weak, %1: i32[11,10], %2: i64[10], %3: i64[9]) -> (bool[], i32[11,10]) {
  %4 = const() value=1 : i64[] weak
  %5 = const() value=10 : i64[] weak
  %6 = const() value=1 : i64[] weak
  %7 = loop(%4, %5, %6, %1, %2, %3, %0) body=@lcs_length_loop1 carried=1 : i32[11,10]
  %8 = const() value=true : bool[]
  return %8, %7
}
func @lcs_length_loop1(%0: i64[] weak, %1: i32[11,10], %2: i64[10], %3: i64[9], %4: i64[] weak) -> (bool[], i32[11,10]) {
  %5 = const() value=1 : i64[] weak
  %6 = sub(%4, %5) : i64[] weak
  %7 = load(%2, %6) : i64[]
  %8 = const() value=1 : i64[] weak
  %9 = sub(%0, %8) : i64[] weak
  %10 = load(%3, %9) : i64[]
  %11 = eq(%7, %10) : bool[]
  %12 = if(%11, %1, %4, %0) then=@lcs_length_then2 else=@lcs_length_else3 : i32[11,10]
  %13 = const() value=true : bool[]
  return %13, %12
}
func @lcs_length_then2(%0: i32[11,10], %1: i64[] weak, %2: i64[] weak) -> (i32[11,10]) {
  %3 = const() value=1 : i64[] weak
  %4 = sub(%1, %3) : i64[] weak
  %5 = const() value=1 : i64[] weak
  %6 = sub(%2, %5) : i64[] weak
  %7 = load(%0, %4, %6) : i32[]
  %8 = const() value=1 : i64[] weak
  %9 = add(%7, %8) : i32[]
  %10 = store(%0, %9, %1, %2) : i32[11,10]
  return %10
}
func @lcs_length_else3(%0: i32[11,10], %1: i64[] weak, %2: i64[] weak) -> (i32[11,10]) {
  %3 = const() value=1 : i64[] weak
  %4 = sub(%1, %3) : i64[] weak
  %5 = load(%0, %4, %2) : i32[]
  %6 = const() value=1 : i64[] weak
  %7 = sub(%2, %6) : i64[] weak
  %8 = load(%0, %1, %7) : i32[]
  %9 = gt(%8, %5) : bool[]
  %10 = where(%9, %8, %5) : i32[]
  %11 = store(%0, %10, %1, %2) : i32[11,10]
  return %11
}"#;

const RECURRENCE: &str = r#"ember-ir 2
func @recurrence(%0: f64[40]) -> (f64[40]) {
  %1 = full() value=0.0 : f64[40]
  %2 = slice(%0) start=[0] stop=[1] step=[1] : f64[1]
  %3 = squeeze(%2) axis=[0] : f64[]
  %4 = slice(%1) start=[0] stop=[1] step=[1] : f64[1]
  %5 = squeeze(%4) axis=[0] : f64[]
  %6 = reshape(%3) shape=[1] : f64[1]
  %7 = slice(%1) start=[0] stop=[1] step=[1] : f64[1]
  %8 = slice(%1) start=[1] stop=[40] step=[1] : f64[39]
  %9 = concatenate(%6, %8) axis=0 : f64[40]
  %10 = const() value=1 : i64[] weak
  %11 = const() value=40 : i64[] weak
  %12 = const() value=1 : i64[] weak
  %13 = loop(%10, %11, %12, %9, %0) body=@recurrence_loop0 carried=1 : f64[40]
  return %13
}
func @recurrence_loop0(%0: i64[] weak, %1: f64[40], %2: f64[40]) -> (bool[], f64[40]) {
  %3 = const() value=1 : i64[] weak
  %4 = sub(%0, %3) : i64[] weak
  %5 = load(%1, %4) : f64[]
  %6 = const() value=0.9 : f64[] weak
  %7 = mul(%6, %5) : f64[]
  %8 = load(%2, %0) : f64[]
  %9 = add(%7, %8) : f64[]
  %10 = store(%1, %9, %0) : f64[40]
  %11 = const() value=true : bool[]
  return %11, %10
}"#;

const SEGMENTS: &str = r#"ember-ir 2
func @scale_segments(%0: f64[31], %1: i64[11], %2: f64[30]) -> (f64[31]) {
  %3 = const() value=0 : i64[] weak
  %4 = const() value=10 : i64[] weak
  %5 = const() value=1 : i64[] weak
  %6 = loop(%3, %4, %5, %0, %1, %2) body=@scale_segments_loop0 carried=1 : f64[31]
  return %6
}
func @scale_segments_loop0(%0: i64[] weak, %1: f64[31], %2: i64[11], %3: f64[30]) -> (bool[], f64[31]) {
  %4 = load(%2, %0) : i64[]
  %5 = const() value=1 : i64[] weak
  %6 = add(%0, %5) : i64[] weak
  %7 = load(%2, %6) : i64[]
  %8 = const() value=1 : i64[] weak
  %9 = loop(%4, %7, %8, %1, %3) body=@scale_segments_loop1 carried=1 : f64[31]
  %10 = const() value=true : bool[]
  return %10, %9
}
func @scale_segments_loop1(%0: i64[] weak, %1: f64[31], %2: f64[30]) -> (bool[], f64[31]) {
  %3 = load(%2, %0) : f64[]
  %4 = const() value=2.0 : f64[] weak
  %5 = mul(%3, %4) : f64[]
  %6 = const() value=1 : i64[] weak
  %7 = sub(%0, %6) : i64[] weak
  %8 = load(%1, %7) : f64[]
  %9 = add(%5, %8) : f64[]
  %10 = store(%1, %9, %0) : f64[31]
  %11 = const() value=true : bool[]
  return %11, %10
}"#;

const INSERTION: &str = r#"ember-ir 2
func @insertion_sort(%0: f64[12]) -> (bool[], f64[12]) {
  %1 = copy(%0) : f64[12]
  %2 = const() value=false : bool[]
  %3 = const() value=1 : i64[] weak
  %4 = const() value=12 : i64[] weak
  %5, %6 = loop(%3, %4, %3, %1, %2) body=@insertion_sort_loop0 carried=2 : f64[12], bool[]
  return %6, %5
}
func @insertion_sort_loop0(%0: i64[] weak, %1: f64[12], %2: bool[]) -> (bool[], f64[12], bool[]) {
  %3 = load(%1, %0) : f64[]
  %4 = const() value=1 : i64[] weak
  %5 = sub(%0, %4) : i64[] weak
  %6 = const() value=0 : i64[] weak
  %7 = ge(%5, %6) : bool[] weak
  %8 = astype(%7) dtype=bool : bool[]
  %9 = if(%8, %1, %3, %5) then=@insertion_sort_then1 else=@insertion_sort_else4 : bool[]
  %10, %11, %12 = if(%9, %1, %2, %3, %5) then=@insertion_sort_then11 else=@insertion_sort_else5 : f64[12], bool[], i64[] weak
  %13 = add(%12, %4) : i64[] weak
  %14 = bitwise_xor(%12, %13) : i64[] weak
  %15 = bitwise_xor(%4, %13) : i64[] weak
  %16 = bitwise_and(%14, %15) : i64[] weak
  %17 = lt(%16, %6) : bool[] weak
  %18 = astype(%17) dtype=bool : bool[]
  %19 = logical_or(%11, %18) : bool[]
  %20 = store(%10, %3, %13) : f64[12]
  %21 = const() value=true : bool[]
  return %21, %20, %19
}
func @insertion_sort_then1(%0: f64[12], %1: f64[], %2: i64[] weak) -> (bool[]) {
  %3 = load(%0, %2) : f64[]
  %4 = gt(%3, %1) : bool[]
  %5 = if(%4) then=@insertion_sort_then2 else=@insertion_sort_else3 : bool[]
  return %5
}
func @insertion_sort_then2() -> (bool[]) {
  %0 = const() value=false : bool[]
  return %0
}
func @insertion_sort_else3() -> (bool[]) {
  %0 = const() value=true : bool[]
  return %0
}
func @insertion_sort_else4(%0: f64[12], %1: f64[], %2: i64[] weak) -> (bool[]) {
  %3 = const() value=true : bool[]
  return %3
}
func @insertion_sort_then11(%0: f64[12], %1: bool[], %2: f64[], %3: i64[] weak) -> (f64[12], bool[], i64[] weak) {
  return %0, %1, %3
}
func @insertion_sort_else5(%0: f64[12], %1: bool[], %2: f64[], %3: i64[] weak) -> (f64[12], bool[], i64[] weak) {
  %4 = const() value=0 : i64[] weak
  %5 = const() value=9223372036854775807 : i64[] weak
  %6 = const() value=1 : i64[] weak
  %7, %8, %9 = loop(%4, %5, %6, %0, %1, %3, %2) body=@insertion_sort_loop6 carried=3 : f64[12], bool[], i64[] weak
  return %7, %8, %9
}
func @insertion_sort_loop6(%0: i64[] weak, %1: f64[12], %2: bool[], %3: i64[] weak, %4: f64[]) -> (bool[], f64[12], bool[], i64[] weak) {
  %5 = load(%1, %3) : f64[]
  %6 = const() value=1 : i64[] weak
  %7 = add(%3, %6) : i64[] weak
  %8 = bitwise_xor(%3, %7) : i64[] weak
  %9 = bitwise_xor(%6, %7) : i64[] weak
  %10 = bitwise_and(%8, %9) : i64[] weak
  %11 = const() value=0 : i64[] weak
  %12 = lt(%10, %11) : bool[] weak
  %13 = astype(%12) dtype=bool : bool[]
  %14 = logical_or(%2, %13) : bool[]
  %15 = store(%1, %5, %7) : f64[12]
  %16 = sub(%3, %6) : i64[] weak
  %17 = bitwise_xor(%3, %16) : i64[] weak
  %18 = bitwise_xor(%3, %6) : i64[] weak
  %19 = bitwise_and(%17, %18) : i64[] weak
  %20 = lt(%19, %11) : bool[] weak
  %21 = astype(%20) dtype=bool : bool[]
  %22 = logical_or(%14, %21) : bool[]
  %23 = ge(%16, %11) : bool[] weak
  %24 = astype(%23) dtype=bool : bool[]
  %25 = if(%24, %15, %4, %16) then=@insertion_sort_then7 else=@insertion_sort_else10 : bool[]
  return %25, %15, %22, %16
}
func @insertion_sort_then7(%0: f64[12], %1: f64[], %2: i64[] weak) -> (bool[]) {
  %3 = load(%0, %2) : f64[]
  %4 = gt(%3, %1) : bool[]
  %5 = if(%4) then=@insertion_sort_then8 else=@insertion_sort_else9 : bool[]
  return %5
}
func @insertion_sort_then8() -> (bool[]) {
  %0 = const() value=true : bool[]
  return %0
}
func @insertion_sort_else9() -> (bool[]) {
  %0 = const() value=false : bool[]
  return %0
}
func @insertion_sort_else10(%0: f64[12], %1: f64[], %2: i64[] weak) -> (bool[]) {
  %3 = const() value=false : bool[]
  return %3
}"#;

const COMPACT: &str = r#"ember-ir 2
func @compact_positive(%0: f64[9]) -> (bool[], f64[9], i64[] weak) {
  %1 = full() value=0.0 : f64[9]
  %2 = const() value=false : bool[]
  %3 = const() value=0 : i64[] weak
  %4 = const() value=9 : i64[] weak
  %5 = const() value=1 : i64[] weak
  %6, %7, %8 = loop(%3, %4, %5, %1, %3, %2, %0) body=@compact_positive_loop0 carried=3 : f64[9], i64[] weak, bool[]
  return %8, %6, %7
}
func @compact_positive_loop0(%0: i64[] weak, %1: f64[9], %2: i64[] weak, %3: bool[], %4: f64[9]) -> (bool[], f64[9], i64[] weak, bool[]) {
  %5 = load(%4, %0) : f64[]
  %6 = const() value=0 : i64[] weak
  %7 = gt(%5, %6) : bool[]
  %8, %9, %10 = if(%7, %4, %1, %2, %3, %0) then=@compact_positive_then1 else=@compact_positive_else2 : f64[9], bool[], i64[] weak
  %11 = const() value=true : bool[]
  return %11, %8, %10, %9
}
func @compact_positive_then1(%0: f64[9], %1: f64[9], %2: i64[] weak, %3: bool[], %4: i64[] weak) -> (f64[9], bool[], i64[] weak) {
  %5 = load(%0, %4) : f64[]
  %6 = store(%1, %5, %2) : f64[9]
  %7 = const() value=1 : i64[] weak
  %8 = add(%2, %7) : i64[] weak
  %9 = bitwise_xor(%2, %8) : i64[] weak
  %10 = bitwise_xor(%7, %8) : i64[] weak
  %11 = bitwise_and(%9, %10) : i64[] weak
  %12 = const() value=0 : i64[] weak
  %13 = lt(%11, %12) : bool[] weak
  %14 = astype(%13) dtype=bool : bool[]
  %15 = logical_or(%3, %14) : bool[]
  return %6, %15, %8
}
func @compact_positive_else2(%0: f64[9], %1: f64[9], %2: i64[] weak, %3: bool[], %4: i64[] weak) -> (f64[9], bool[], i64[] weak) {
  return %1, %3, %2
}"#;

fn arrays(text: &str) -> Vec<HostArray> {
    text.split(';')
        .map(|a| HostArray::parse(a).unwrap())
        .collect()
}

#[test]
fn a_dp_branch_on_data_runs_as_selects() {
    check_all_layouts(DP, 3, 0.0);
    let x = arrays("i64[10]{0, 1, 2, 1, 0, 1, 2, 2, 1, 0}; i64[9]{1, 0, 2, 1, 1, 0, 2, 0, 1}");
    for layout in [Layout::C, Layout::F, Layout::Reversed, Layout::Strided] {
        check_ir(DP, &x, layout, 1, 0.0);
    }
    let graph = ember_core::ir::parse(DP).unwrap();
    let listings = ember_codegen::disassemble(&graph).unwrap();
    let native = listings.iter().find(|l| l.starts_with("native")).unwrap();
    assert!(native.contains(" select"), "{native}");
}

#[test]
fn a_recurrence_reads_the_previous_store() {
    check_all_layouts(RECURRENCE, 5, 0.0);
}

#[test]
fn bounds_read_at_run_time() {
    let data: Vec<String> = (0..30).map(|k| format!("{k}.5")).collect();
    let data = data.join(", ");
    let zeros = vec!["0.0"; 31].join(", ");
    for bounds in [
        "0, 3, 5, 9, 12, 12, 15, 18, 20, 24, 30",
        "1, 3, 5, 9, 12, 12, 15, 18, 20, 24, 30",
        "-30, -20, -5, 0, 12, 12, 15, 18, 20, 24, 29",
        "5, 3, 5, 9, 12, 12, 15, 18, 20, 24, 2",
    ] {
        let x = arrays(&format!(
            "f64[31]{{{zeros}}}; i64[11]{{{bounds}}}; f64[30]{{{data}}}"
        ));
        for layout in [Layout::C, Layout::Reversed, Layout::Strided] {
            check_ir(SEGMENTS, &x, layout, 1, 0.0);
        }
    }
    for (last, index) in [("31", 30), ("32", 30), ("-31", -31)] {
        let bounds = if last.starts_with('-') {
            format!("{last}, 3, 5, 9, 12, 12, 15, 18, 20, 24, 30")
        } else {
            format!("0, 3, 5, 9, 12, 12, 15, 18, 20, 24, {last}")
        };
        let x = arrays(&format!(
            "f64[31]{{{zeros}}}; i64[11]{{{bounds}}}; f64[30]{{{data}}}"
        ));
        let err = run_jit(SEGMENTS, &x, Layout::C, 1).unwrap_err();
        let g = ember_core::ir::parse(SEGMENTS).unwrap();
        let want = ember_core::interp::run(&g, &x).unwrap_err();
        assert!(
            want.to_string().ends_with(&err.to_string()),
            "{err} vs {want}"
        );
        assert!(
            err.to_string().contains(&format!("index {index} ")),
            "{err}"
        );
    }
}

#[test]
fn a_scan_index_bounded_by_its_loop_test_is_not_checked() {
    // `while j >= 0 and a[j] > key: a[j + 1] = a[j]; j -= 1`: `j` starts inside the array,
    // only moves down and the loop goes on only while it is not negative.
    check_all_layouts(INSERTION, 9, 0.0);
    for data in [
        "1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0",
        "12.0, 11.0, 10.0, 9.0, 8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0",
        "3.0, -1.0, 3.0, 0.5, -7.0, 2.0, 2.0, 9.0, -0.0, 0.0, 1.0, -1.0",
    ] {
        let x = arrays(&format!("f64[12]{{{data}}}"));
        for layout in [Layout::C, Layout::Reversed, Layout::Strided] {
            check_ir(INSERTION, &x, layout, 1, 0.0);
        }
    }
    let graph = ember_core::ir::parse(INSERTION).unwrap();
    let listings = ember_codegen::disassemble(&graph).unwrap();
    let native = listings.iter().find(|l| l.starts_with("native")).unwrap();
    // Only `a[j + 1] = key` after the scan checks its index (once in each layout's version).
    let checks = native.matches(", block1(").count();
    assert!(checks <= 2, "{checks} checks:\n{native}");
}

#[test]
fn a_counter_stepped_at_most_once_a_trip_is_not_checked() {
    // `if x[i] > 0: out[k] = x[i]; k += 1` over `range(9)`: `k` starts at 0 and takes at
    // most one step a trip, so it indexes `out` (9 elements) without a check.
    check_all_layouts(COMPACT, 11, 0.0);
    for data in [
        "1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0",
        "-1.0, -2.0, -3.0, -4.0, -5.0, -6.0, -7.0, -8.0, -9.0",
        "3.0, -1.0, 0.0, 0.5, -7.0, 2.0, -0.0, 9.0, -2.0",
    ] {
        let x = arrays(&format!("f64[9]{{{data}}}"));
        for layout in [Layout::C, Layout::Reversed, Layout::Strided] {
            check_ir(COMPACT, &x, layout, 1, 0.0);
        }
    }
    let graph = ember_core::ir::parse(COMPACT).unwrap();
    let listings = ember_codegen::disassemble(&graph).unwrap();
    let native = listings.iter().find(|l| l.starts_with("native")).unwrap();
    assert!(!native.contains(", block1("), "{native}");
}
