//! Loads invariant in a native loop, made once before it (`native/invariant.rs`), against
//! the interpreter: an element of an array the loop does not carry, at a run-time index and
//! at that index less one (index arithmetic taken out of the loop too), with loops of zero
//! and more trips, indices in bounds, negative, and out of bounds (where the interpreter
//! raises, the JIT raises the same `IndexError`; where the loop makes no trip, neither
//! does), in every layout; and a 2-d read-only array whose row is the outer loop's.

mod common;

use common::{check_ir, run_jit, Layout};
use ember_core::interp::HostArray;

fn arrays(text: &str) -> Vec<HostArray> {
    text.split(';')
        .map(|a| HostArray::parse(a).unwrap())
        .collect()
}

/// `for i in range(n): out[i] = x[k] * i + x[k - 1]` (carried `out`, read-only `x`).
const INVARIANT_ELEMENT: &str = "ember-ir 2
func @f(%0: f64[5], %1: i64[], %2: i64[]) -> (f64[4]) {
  %3 = full() value=0.0 : f64[4]
  %4 = const() value=0 : i64[] weak
  %5 = const() value=1 : i64[] weak
  %6 = loop(%4, %2, %5, %3, %0, %1) body=@body carried=1 : f64[4]
  return %6
}
func @body(%0: i64[] weak, %1: f64[4], %2: f64[5], %3: i64[]) -> (bool[], f64[4]) {
  %4 = load(%2, %3) : f64[]
  %5 = astype(%0) dtype=f64 : f64[]
  %6 = mul(%4, %5) : f64[]
  %7 = const() value=1 : i64[] weak
  %8 = sub(%3, %7) : i64[]
  %9 = load(%2, %8) : f64[]
  %10 = add(%6, %9) : f64[]
  %11 = store(%1, %10, %0) : f64[4]
  %12 = const() value=true : bool[]
  return %12, %11
}
";

#[test]
fn invariant_loads_agree_with_the_interpreter() {
    let g = ember_core::ir::parse(INVARIANT_ELEMENT).unwrap();
    for n in [0, 1, 4] {
        for k in -7..=7 {
            let x = arrays(&format!(
                "f64[5]{{1.5, -2.0, 4.0, 8.25, 16.0}}; i64[]{{{k}}}; i64[]{{{n}}}"
            ));
            let want = ember_core::interp::run(&g, &x);
            for layout in [Layout::C, Layout::Reversed, Layout::Strided] {
                match &want {
                    Ok(_) => {
                        check_ir(INVARIANT_ELEMENT, &x, layout, 1, 0.0);
                    }
                    Err(e) => {
                        let err = run_jit(INVARIANT_ELEMENT, &x, layout, 1).unwrap_err();
                        assert_eq!(
                            err,
                            ember_codegen::Error::Index(e.message.clone()),
                            "{k} {n}"
                        );
                    }
                }
            }
        }
    }
}

/// `for i in range(3): for j in range(4): acc += a[i, j] * a[i, k]`: `a[i, k]` is invariant
/// in the inner loop only.
const ROW_OF_OUTER_LOOP: &str = "ember-ir 2
func @f(%0: f64[3,4], %1: i64[]) -> (f64[]) {
  %2 = const() value=0.0 : f64[]
  %3 = const() value=0 : i64[] weak
  %4 = const() value=3 : i64[] weak
  %5 = const() value=1 : i64[] weak
  %6 = loop(%3, %4, %5, %2, %0, %1) body=@outer carried=1 : f64[]
  return %6
}
func @outer(%0: i64[] weak, %1: f64[], %2: f64[3,4], %3: i64[]) -> (bool[], f64[]) {
  %4 = const() value=0 : i64[] weak
  %5 = const() value=4 : i64[] weak
  %6 = const() value=1 : i64[] weak
  %7 = loop(%4, %5, %6, %1, %2, %0, %3) body=@inner carried=1 : f64[]
  %8 = const() value=true : bool[]
  return %8, %7
}
func @inner(%0: i64[] weak, %1: f64[], %2: f64[3,4], %3: i64[] weak, %4: i64[]) -> (bool[], f64[]) {
  %5 = load(%2, %3, %0) : f64[]
  %6 = load(%2, %3, %4) : f64[]
  %7 = mul(%5, %6) : f64[]
  %8 = add(%1, %7) : f64[]
  %9 = const() value=true : bool[]
  return %9, %8
}
";

#[test]
fn a_row_of_the_outer_loop_agrees_with_the_interpreter() {
    let g = ember_core::ir::parse(ROW_OF_OUTER_LOOP).unwrap();
    for k in -5..=4 {
        let x = arrays(&format!(
            "f64[3,4]{{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12.5}}; i64[]{{{k}}}"
        ));
        let want = ember_core::interp::run(&g, &x);
        for layout in [Layout::C, Layout::F, Layout::Reversed, Layout::Strided] {
            match &want {
                Ok(_) => {
                    check_ir(ROW_OF_OUTER_LOOP, &x, layout, 1, 0.0);
                }
                Err(e) => {
                    let err = run_jit(ROW_OF_OUTER_LOOP, &x, layout, 1).unwrap_err();
                    assert_eq!(err, ember_codegen::Error::Index(e.message.clone()), "{k}");
                }
            }
        }
    }
}
