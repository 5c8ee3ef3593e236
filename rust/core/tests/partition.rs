//! The min-cut partitioner on graphs whose best cut is known: what is saved, what the backward
//! graph recomputes, and the bytes against saving every value the backward ops read.

use ember_core::autodiff::{differentiate, Residual, Strategy};
use ember_core::ir::{self, ValueId};

fn split(text: &str, strategy: Strategy) -> ember_core::autodiff::Differentiated {
    let g = ir::parse(text).unwrap();
    differentiate(&g, &[0], &[true], strategy).unwrap()
}

const CHAIN: &str = "ember-ir 1
func @f(%0: f32[256]) -> (f32[]) {
  %1 = sin(%0) : f32[256]
  %2 = exp(%1) : f32[256]
  %3 = tanh(%2) : f32[256]
  %4 = sum(%3) axis=none keepdims=false : f32[]
  return %4
}
";

#[test]
fn an_elementwise_chain_saves_only_its_input() {
    let d = split(CHAIN, Strategy::MinCut);
    assert_eq!(d.partition.residuals, vec![Residual::Input(0)]);
    assert_eq!(d.partition.residual_bytes, 1024);
    let backward = ir::print(&d.partition.backward);
    for recomputed in ["sin(%0)", "exp(", "tanh("] {
        assert!(backward.contains(recomputed), "{}", d.report());
    }
    // Saving what the backward ops read: x (for cos), exp's and tanh's results (their rules).
    assert_eq!(d.save_all_bytes, 3 * 1024);
    let all = split(CHAIN, Strategy::SaveAll);
    assert_eq!(all.partition.residual_bytes, 3 * 1024);
    assert_eq!(
        ir::print(&all.partition.forward).matches("return").count(),
        1
    );
}

#[test]
fn matmul_results_are_saved_not_recomputed() {
    let d = split(
        "ember-ir 1
func @f(%0: f32[64,32], %1: f32[32,16]) -> (f32[]) {
  %2 = matmul(%0, %1) : f32[64,16]
  %3 = tanh(%2) : f32[64,16]
  %4 = sum(%3) axis=none keepdims=false : f32[]
  return %4
}
",
        Strategy::MinCut,
    );
    // Joint ids: %2 is the cotangent, %3 the matmul. The gradient of x reads W; tanh's rule
    // reads tanh's result: the cut saves the (equal-sized, earlier) matmul output and
    // recomputes tanh from it, so the backward graph has one matmul (g @ W^T).
    assert_eq!(d.partition.saved, vec![ValueId(1), ValueId(3)]);
    let backward = ir::print(&d.partition.backward);
    assert!(backward.contains("tanh(%1)"), "{backward}");
    assert_eq!(backward.matches("matmul").count(), 1, "{backward}");
}

#[test]
fn shrinking_reductions_are_saved_and_chains_after_them_recomputed() {
    let d = split(
        "ember-ir 1
func @f(%0: f64[64,64]) -> (f64[]) {
  %1 = max(%0) axis=[1] keepdims=true : f64[64,1]
  %2 = sub(%0, %1) : f64[64,64]
  %3 = exp(%2) : f64[64,64]
  %4 = sum(%3) axis=none keepdims=false : f64[]
  return %4
}
",
        Strategy::MinCut,
    );
    // Joint ids: %1 is the cotangent, %2 the row maxima. x is needed anyway (the max rule
    // compares against it); the maxima are saved (64x smaller than x), exp(x - max) is
    // recomputed from both.
    assert_eq!(d.partition.saved, vec![ValueId(0), ValueId(2)]);
    assert_eq!(d.partition.residual_bytes, 64 * 64 * 8 + 64 * 8);
    let backward = ir::print(&d.partition.backward);
    assert!(!backward.contains(" = max("), "{backward}");
    assert!(backward.contains("exp("), "{backward}");
    assert!(d.save_all_bytes > d.partition.residual_bytes);
}

#[test]
fn report_shows_the_joint_graph_the_cut_and_both_graphs() {
    let report = split(CHAIN, Strategy::MinCut).report();
    for part in [
        "joint graph:",
        "saved: %0: f32[256] (1024 B)",
        "forward graph:",
        "backward graph:",
        "func @f_backward",
    ] {
        assert!(report.contains(part), "{part} missing in\n{report}");
    }
}
