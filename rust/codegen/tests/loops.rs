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
    for name in ["loop_recurrence.ir", "loop_nested_if.ir", "loop_break.ir"] {
        check_all_layouts(&golden(name), 7, 1e-12);
    }
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
