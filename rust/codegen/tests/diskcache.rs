//! The persistent compile cache inside one process: a second compile of the same graph reads
//! every function from disk and computes the same results; a different graph misses.
//! One test function, as the cache's settings and counters are process-wide.

mod common;
use common::{check_ir, random_array, Layout, Rng};
use ember_codegen::diskcache;
use ember_core::ir::DType;

const SOFTMAX_EXP: &str = "ember-ir 1
func @f(%0: f64[17,129], %1: f64[129]) -> (f64[17,129], f64[17]) {
  %2 = max(%0) axis=[1] keepdims=true : f64[17,1]
  %3 = sub(%0, %2) : f64[17,129]
  %4 = exp(%3) : f64[17,129]
  %5 = sum(%4) axis=[1] keepdims=true : f64[17,1]
  %6 = div(%4, %5) : f64[17,129]
  %7 = mul(%6, %1) : f64[17,129]
  %8 = tanh(%0) : f64[17,129]
  %9 = sum(%8) axis=[1] keepdims=false : f64[17]
  return %7, %9
}
";

#[test]
fn second_compile_reads_every_function_from_disk() {
    let dir = std::env::temp_dir().join(format!("ember-diskcache-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    diskcache::configure(Some(dir.clone()), 64 << 20, "test");
    let mut rng = Rng(7);
    let inputs = [
        random_array(&mut rng, DType::F64, &[17, 129]),
        random_array(&mut rng, DType::F64, &[129]),
    ];
    let before = diskcache::stats();
    let cold = check_ir(SOFTMAX_EXP, &inputs, Layout::C, 1, 1e-12);
    let after_cold = diskcache::stats();
    let compiled = after_cold.misses - before.misses;
    assert!(compiled >= 1, "{after_cold:?}");
    assert_eq!(after_cold.writes - before.writes, compiled);
    assert_eq!(after_cold.hits, before.hits);

    let warm = check_ir(SOFTMAX_EXP, &inputs, Layout::C, 1, 1e-12);
    let after_warm = diskcache::stats();
    assert_eq!(
        after_warm.hits - after_cold.hits,
        compiled,
        "{after_warm:?}"
    );
    assert_eq!(after_warm.misses, after_cold.misses);
    for (c, w) in cold.iter().zip(&warm) {
        assert_eq!(c.elems(), w.elems(), "cached code computes the same bits");
    }

    let f32_graph = SOFTMAX_EXP.replace("f64", "f32");
    let inputs32 = [
        random_array(&mut rng, DType::F32, &[17, 129]),
        random_array(&mut rng, DType::F32, &[129]),
    ];
    check_ir(&f32_graph, &inputs32, Layout::F, 1, 1e-5);
    assert!(
        diskcache::stats().misses > after_warm.misses,
        "another dtype misses"
    );

    diskcache::configure(None, 0, "");
    assert_eq!(diskcache::configured(), None);
    let _ = std::fs::remove_dir_all(&dir);
}
