//! The `np.linalg` ops: their type rules and the reference interpreter's results on small
//! matrices worked by hand (pivoting, batches broadcast, singular and indefinite matrices).

use ember_core::interp::{self, Data, HostArray};
use ember_core::ir::parse;

/// Runs `op` (`solve` with a second operand) on f64 arrays and returns the result's values.
fn run(op: &str, inputs: &[&str], result: &str) -> Result<Vec<f64>, String> {
    let arrays: Vec<HostArray> = inputs
        .iter()
        .map(|t| HostArray::parse(t).unwrap())
        .collect();
    let params: Vec<String> = arrays
        .iter()
        .enumerate()
        .map(|(i, a)| format!("%{i}: f64{:?}", a.shape).replace(' ', ""))
        .collect();
    let operands: Vec<String> = (0..arrays.len()).map(|i| format!("%{i}")).collect();
    let n = arrays.len();
    let text = format!(
        "ember-ir 1\nfunc @f({}) -> ({result}) {{\n  %{n} = {op}({}) : {result}\n  return %{n}\n}}\n",
        params.join(", "),
        operands.join(", ")
    );
    let graph = parse(&text).map_err(|e| e.to_string())?;
    let out = interp::run(&graph, &arrays).map_err(|e| e.message)?;
    match &out[0].data {
        Data::F64(v) => Ok(v.clone()),
        other => panic!("not f64: {other:?}"),
    }
}

fn assert_close(got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for (g, w) in got.iter().zip(want) {
        assert!(
            g == w || (g - w).abs() <= 1e-12 * w.abs().max(1.0) || (g.is_nan() && w.is_nan()),
            "{got:?} vs {want:?}"
        );
    }
}

#[test]
fn solve_inv_det_on_small_matrices() {
    let a = "f64[2,2]{4, 7, 2, 6}";
    assert_close(
        &run("inv", &[a], "f64[2,2]").unwrap(),
        &[0.6, -0.7, -0.2, 0.4],
    );
    assert_close(&run("det", &[a], "f64[]").unwrap(), &[10.0]);
    let b = "f64[2,1]{1, 2}";
    assert_close(&run("solve", &[a, b], "f64[2,1]").unwrap(), &[-0.8, 0.6]);
    // A zero first pivot: rows swapped, the sign flipped.
    let swap = "f64[2,2]{0, 1, 1, 0}";
    assert_close(&run("det", &[swap], "f64[]").unwrap(), &[-1.0]);
    assert_close(&run("slogdet", &[swap], "f64[2]").unwrap(), &[-1.0, 0.0]);
    let diag = "f64[2,2]{-2, 0, 0, 3}";
    assert_close(
        &run("slogdet", &[diag], "f64[2]").unwrap(),
        &[-1.0, 6f64.ln()],
    );
}

#[test]
fn batches_broadcast_and_empty_matrices() {
    let a = "f64[2,2,2]{1, 0, 0, 1, 2, 0, 0, 4}";
    let b = "f64[2,1]{1, 2}";
    assert_close(
        &run("solve", &[a, b], "f64[2,2,1]").unwrap(),
        &[1.0, 2.0, 0.5, 0.5],
    );
    assert_close(&run("det", &[a], "f64[2]").unwrap(), &[1.0, 8.0]);
    assert_close(&run("det", &["f64[0,0]{}"], "f64[]").unwrap(), &[1.0]);
    assert_close(
        &run("slogdet", &["f64[0,0]{}"], "f64[2]").unwrap(),
        &[1.0, 0.0],
    );
}

#[test]
fn cholesky_lower_and_upper() {
    let a = "f64[2,2]{4, 2, 2, 3}";
    let r2 = 2f64.sqrt();
    assert_close(
        &run("cholesky", &[a], "f64[2,2]").unwrap(),
        &[2.0, 0.0, 1.0, r2],
    );
    assert_close(
        &run("cholesky_upper", &[a], "f64[2,2]").unwrap(),
        &[2.0, 1.0, 0.0, r2],
    );
}

#[test]
fn singular_and_indefinite_matrices() {
    let singular = "f64[2,2]{1, 2, 2, 4}";
    assert_eq!(
        run("inv", &[singular], "f64[2,2]").unwrap_err(),
        "Singular matrix"
    );
    assert_eq!(
        run("solve", &[singular, "f64[2,1]{1, 1}"], "f64[2,1]").unwrap_err(),
        "Singular matrix"
    );
    assert_close(&run("det", &[singular], "f64[]").unwrap(), &[0.0]);
    assert_close(
        &run("slogdet", &[singular], "f64[2]").unwrap(),
        &[0.0, f64::NEG_INFINITY],
    );
    assert_eq!(
        run("cholesky", &["f64[2,2]{1, 2, 2, 1}"], "f64[2,2]").unwrap_err(),
        "Matrix is not positive definite"
    );
}

#[test]
fn type_rules() {
    let err = run("inv", &["f64[2,3]{1, 2, 3, 4, 5, 6}"], "f64[2,3]").unwrap_err();
    assert!(err.contains("must be square"), "{err}");
    let err = run(
        "solve",
        &["f64[2,2]{1, 0, 0, 1}", "f64[3,1]{1, 2, 3}"],
        "f64[2,1]",
    )
    .unwrap_err();
    assert!(err.contains("do not match"), "{err}");
    let text = "ember-ir 1\nfunc @f(%0: f32[2,2]) -> (f64[2,2]) {\n  %1 = inv(%0) : f64[2,2]\n  return %1\n}\n";
    let err = parse(text).and_then(|g| ember_core::verify(&g).map(|_| g));
    assert!(
        err.is_err_and(|e| e.to_string().contains("f64 operands")),
        "f32 operand accepted"
    );
}

#[test]
fn symmetric_eigenproblems_from_one_triangle() {
    let r = 0.5f64.sqrt();
    // The lower triangle reads [[2, 1], [1, 2]]; the upper one [[2, 9], [9, 2]].
    let a = "f64[2,2]{2, 9, 1, 2}";
    assert_close(&run("eigvalsh", &[a], "f64[2]").unwrap(), &[1.0, 3.0]);
    assert_close(
        &run("eigvalsh_upper", &[a], "f64[2]").unwrap(),
        &[-7.0, 11.0],
    );
    let packed = run("eigh", &[a], "f64[3,2]").unwrap();
    assert_close(&packed[..2], &[1.0, 3.0]);
    // Columns of the vectors, up to their signs: (1, -1) and (1, 1) normalised.
    let magnitudes: Vec<f64> = packed[2..].iter().map(|x| x.abs()).collect();
    assert_close(&magnitudes, &[r, r, r, r]);
    assert!(packed[2] * packed[4] < 0.0 && packed[3] * packed[5] > 0.0);
    let diagonal = run(
        "eigh_upper",
        &["f64[3,3]{3, 0, 0, 5, 1, 0, 7, 7, 2}"],
        "f64[4,3]",
    );
    assert_close(
        &diagonal.unwrap(),
        &[1.0, 2.0, 3.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0],
    );
}

#[test]
fn least_squares_of_full_rank() {
    // Fitting y = c0 + c1 t through (0, 1), (1, 3), (2, 2): c = (1.5, 0.5), residual 1.5.
    let a = "f64[3,2]{1, 0, 1, 1, 1, 2}";
    let b = "f64[3,1]{1, 3, 2}";
    let packed = run("lstsq", &[a, b, "f64[]{1e-15}"], "f64[5]").unwrap();
    assert_close(&packed[..3], &[1.5, 0.5, 1.5]);
    // The singular values are the square roots of eigenvalues of [[3, 3], [3, 5]].
    let root = |x: f64| x.sqrt();
    assert_close(
        &packed[3..],
        &[root(4.0 + 10f64.sqrt()), root(4.0 - 10f64.sqrt())],
    );
    assert_eq!(
        run(
            "lstsq",
            &["f64[2,2]{1, 1, 1, 1}", "f64[2,1]{1, 2}", "f64[]{1e-15}"],
            "f64[5]"
        )
        .unwrap_err(),
        "lstsq of a matrix below full rank"
    );
}

#[test]
fn singular_value_decompositions() {
    let a = "f64[3,2]{1, 2, 3, 4, 5, 6}";
    let values = run("svdvals", &[a], "f64[2]").unwrap();
    // The squares of the singular values are the eigenvalues of a.T @ a = [[35, 44], [44, 56]].
    let (t, d) = (91.0, 35.0 * 56.0 - 44.0 * 44.0);
    let root = |x: f64| x.sqrt();
    assert_close(
        &values,
        &[
            root((t + root(t * t - 4.0 * d)) / 2.0),
            root((t - root(t * t - 4.0 * d)) / 2.0),
        ],
    );
    // Reduced: u (3, 2), s (2), vh (2, 2); u @ diag(s) @ vh is a again.
    let p = run("svd_reduced", &[a], "f64[12]").unwrap();
    let (u, s, vh) = (&p[..6], &p[6..8], &p[8..]);
    let rebuilt: Vec<f64> = (0..6)
        .map(|q| {
            (0..2)
                .map(|j| u[(q / 2) * 2 + j] * s[j] * vh[j * 2 + q % 2])
                .sum()
        })
        .collect();
    assert_close(&rebuilt, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    // Full: u (3, 3) orthogonal, its last column completing the first two.
    let p = run("svd", &[a], "f64[15]").unwrap();
    let u = &p[..9];
    let gram: Vec<f64> = (0..9)
        .map(|q| (0..3).map(|r| u[r * 3 + q / 3] * u[r * 3 + q % 3]).sum())
        .collect();
    assert_close(&gram, &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]);
}
