//! Gradient rules against central differences (run on the reference interpreter), and the
//! partitioner on graphs whose best cut is known.

use ember_core::autodiff::{differentiate, Residual, Strategy};
use ember_core::interp::{self, Data, HostArray};
use ember_core::ir::{self, Graph};

/// Deterministic values in [0.3, 1.3) (positive, away from the kinks of abs/sign/log).
fn values(n: usize, seed: u64) -> Vec<f64> {
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            0.3 + (state >> 11) as f64 / (1u64 << 53) as f64
        })
        .collect()
}

fn f64_array(shape: &[usize], data: Vec<f64>) -> HostArray {
    HostArray::new(shape.to_vec(), Data::F64(data)).unwrap()
}

fn as_f64(a: &HostArray) -> Vec<f64> {
    match &a.data {
        Data::F64(v) => v.clone(),
        other => panic!("expected f64 data, got {other:?}"),
    }
}

fn shape_of(g: &Graph, v: usize) -> Vec<usize> {
    g.params[v].static_shape().unwrap()
}

/// `sum(f(x) * ct)` for the first result of `g`.
fn weighted(g: &Graph, inputs: &[HostArray], ct: &[f64]) -> f64 {
    let out = interp::run(g, inputs).unwrap();
    as_f64(&out[0]).iter().zip(ct).map(|(a, b)| a * b).sum()
}

/// Check the gradient of every parameter of a one-result f64 graph against central
/// differences, through the partitioned forward and backward graphs.
fn check_gradients(text: &str) {
    let g = ir::parse(text).unwrap();
    let wrt: Vec<usize> = (0..g.params.len()).collect();
    let split = differentiate(&g, &wrt, &[true], Strategy::MinCut).unwrap();
    let inputs: Vec<HostArray> = (0..g.params.len())
        .map(|i| {
            let shape = shape_of(&g, i);
            f64_array(&shape, values(shape.iter().product(), i as u64 + 7))
        })
        .collect();
    let out_shape = g.value_type(g.results[0]).unwrap().static_shape().unwrap();
    let ct = values(out_shape.iter().product(), 99);
    let p = &split.partition;
    let fwd = interp::run(&p.forward, &inputs).unwrap();
    let mut bwd_inputs: Vec<HostArray> = p
        .residuals
        .iter()
        .map(|r| match *r {
            Residual::Input(i) => inputs[i].clone(),
            Residual::Output(j) => fwd[j].clone(),
        })
        .collect();
    bwd_inputs.push(f64_array(&out_shape, ct.clone()));
    let grads = interp::run(&p.backward, &bwd_inputs).unwrap();
    for (i, grad) in grads.iter().enumerate() {
        assert_eq!(
            grad.shape,
            shape_of(&g, i),
            "gradient shape of input {i}\n{text}"
        );
        let analytic = as_f64(grad);
        let base = as_f64(&inputs[i]);
        for k in 0..base.len() {
            let h = 1e-6 * base[k].abs().max(1.0);
            let mut shifted = inputs.clone();
            let mut up = base.clone();
            up[k] += h;
            shifted[i] = f64_array(&inputs[i].shape, up);
            let plus = weighted(&g, &shifted, &ct);
            let mut down = base.clone();
            down[k] -= h;
            shifted[i] = f64_array(&inputs[i].shape, down);
            let minus = weighted(&g, &shifted, &ct);
            let numeric = (plus - minus) / (2.0 * h);
            let err = (numeric - analytic[k]).abs();
            assert!(
                err <= 1e-5 * (1.0 + numeric.abs()),
                "input {i}[{k}]: numeric {numeric} vs analytic {}\n{}",
                analytic[k],
                split.report()
            );
        }
    }
}

fn binary_graph(op: &str) -> String {
    format!(
        "ember-ir 1\nfunc @f(%0: f64[2,3], %1: f64[3]) -> (f64[2,3]) {{\n  %2 = {op}(%0, %1) \
         : f64[2,3]\n  return %2\n}}\n"
    )
}

/// Where a unary op's gradient is checked (an exhaustive match, so that a new op states it):
/// the scale bringing the inputs, in [0.3, 1.3), into its domain, or `None` for ops that pass
/// no gradient (piecewise constant, or not float-valued).
fn unary_scale(op: ir::UnaryOp) -> Option<f64> {
    use ir::UnaryOp::*;
    match op {
        Neg | Positive | Abs | Square | Reciprocal | Sqrt | Cbrt | Exp | Exp2 | Expm1 | Log
        | Log2 | Log10 | Log1p | Sin | Cos | Tan | Arctan | Sinh | Cosh | Tanh | Arcsinh
        | Arccosh | Erf | Erfc => Some(1.0),
        Arcsin | Arccos | Arctanh => Some(0.5),
        Sign | Floor | Ceil | Trunc | Rint | LogicalNot | BitwiseNot | Isnan | Isinf | Isfinite
        | Signbit => None,
    }
}

#[test]
fn unary_rules_match_central_differences() {
    let mut checked = 0;
    for &op in ir::UnaryOp::ALL {
        let Some(scale) = unary_scale(op) else {
            continue;
        };
        let op = op.name();
        // arccosh needs x > 1: its inputs are shifted by 2.
        let (prep, arg) = match (op, scale) {
            ("arccosh", _) => ("add", 2.0),
            (_, s) => ("mul", s),
        };
        check_gradients(&format!(
            "ember-ir 1\nfunc @f(%0: f64[2,3]) -> (f64[2,3]) {{\n  %1 = const() value={arg:?} : \
             f64[] weak\n  %2 = {prep}(%0, %1) : f64[2,3]\n  %3 = {op}(%2) : f64[2,3]\n  \
             return %3\n}}\n"
        ));
        checked += 1;
    }
    assert!(checked >= 25, "only {checked} unary rules checked");
}

/// Whether a binary op passes a gradient to its operands (an exhaustive match, so that a new
/// op states it); those that do are checked on inputs in [0.3, 1.3).
fn binary_differentiable(op: ir::BinaryOp) -> bool {
    use ir::BinaryOp::*;
    match op {
        Add | Sub | Mul | Div | Pow | Maximum | Minimum | Fmax | Fmin | Arctan2 | Hypot
        | Logaddexp => true,
        // Checked where the quotient is away from its jumps, in the Python rules' tests.
        Mod | Fmod | Copysign => false,
        Floordiv | Eq | Ne | Lt | Le | Gt | Ge | LogicalAnd | LogicalOr | LogicalXor
        | BitwiseAnd | BitwiseOr | BitwiseXor | LeftShift | RightShift => false,
    }
}

#[test]
fn binary_rules_sum_broadcast_cotangents_back() {
    let ops = ir::BinaryOp::ALL
        .iter()
        .filter(|&&op| binary_differentiable(op));
    for op in ops {
        check_gradients(&binary_graph(op.name()));
    }
}

#[test]
fn reductions_views_and_structure() {
    let cases = [
        "%1 = sum(%0) axis=[1] keepdims=false : f64[2]",
        "%1 = mean(%0) axis=none keepdims=false : f64[]",
        "%1 = prod(%0) axis=[0] keepdims=true : f64[1,3]",
        "%1 = max(%0) axis=[1] keepdims=false : f64[2]",
        "%1 = min(%0) axis=none keepdims=true : f64[1,1]",
        "%1 = reshape(%0) shape=[3,2] : f64[3,2]",
        "%1 = transpose(%0) perm=[1,0] : f64[3,2]",
        "%1 = broadcast_to(%0) shape=[4,2,3] : f64[4,2,3]",
        "%1 = expand_dims(%0) axis=[1] : f64[2,1,3]",
        "%1 = flip(%0) axis=[1] : f64[2,3]",
        "%1 = slice(%0) start=[1,0] stop=[2,3] step=[1,2] : f64[1,2]",
        "%1 = slice(%0) start=[1,2] stop=[-1,-1] step=[-1,-2] : f64[2,2]",
        "%1 = concatenate(%0, %0) axis=1 : f64[2,6]",
        "%1 = matmul(%0, %0) : f64[2,2]",
    ];
    for stmt in cases {
        let stmt = if stmt.starts_with("%1 = matmul") {
            "%1 = transpose(%0) perm=[1,0] : f64[3,2]\n  %2 = matmul(%0, %1) : f64[2,2]"
        } else {
            stmt
        };
        let last = if stmt.contains("%2 =") { "%2" } else { "%1" };
        let ty = stmt.rsplit(" : ").next().unwrap();
        let text = format!(
            "ember-ir 1\nfunc @f(%0: f64[2,3]) -> ({ty}) {{\n  {stmt}\n  return {last}\n}}\n"
        );
        check_gradients(&text);
    }
}

#[test]
fn matmul_promotes_vectors_and_sums_batch_dims() {
    check_gradients(
        "ember-ir 1\nfunc @f(%0: f64[3], %1: f64[2,3,4]) -> (f64[2,4]) {\n  \
         %2 = matmul(%0, %1) : f64[2,4]\n  return %2\n}\n",
    );
    check_gradients(
        "ember-ir 1\nfunc @f(%0: f64[2,1,3], %1: f64[3]) -> (f64[2,1]) {\n  \
         %2 = matmul(%0, %1) : f64[2,1]\n  return %2\n}\n",
    );
}

#[test]
fn where_and_comparisons_pass_gradients_by_condition() {
    check_gradients(
        "ember-ir 1\nfunc @f(%0: f64[2,3], %1: f64[3]) -> (f64[2,3]) {\n  \
         %2 = gt(%0, %1) : bool[2,3]\n  %3 = where(%2, %0, %1) : f64[2,3]\n  return %3\n}\n",
    );
}

#[test]
fn ties_split_the_cotangent_equally() {
    let g = ir::parse(
        "ember-ir 1\nfunc @f(%0: f64[3]) -> (f64[]) {\n  %1 = max(%0) axis=none keepdims=false \
         : f64[]\n  return %1\n}\n",
    )
    .unwrap();
    let split = differentiate(&g, &[0], &[true], Strategy::MinCut).unwrap();
    let x = HostArray::parse("f64[3]{2.0, 1.0, 2.0}").unwrap();
    let p = &split.partition;
    let fwd = interp::run(&p.forward, std::slice::from_ref(&x)).unwrap();
    let mut args: Vec<HostArray> = p
        .residuals
        .iter()
        .map(|r| match *r {
            Residual::Input(_) => x.clone(),
            Residual::Output(j) => fwd[j].clone(),
        })
        .collect();
    args.push(HostArray::parse("f64[]{1.0}").unwrap());
    let grads = interp::run(&p.backward, &args).unwrap();
    assert_eq!(grads[0].to_string(), "f64[3]{0.5, 0.0, 0.5}");
}

/// Gradients of `sum(f(x))` at a given point, through the partitioned graphs.
fn gradient_at(text: &str, x: &str) -> String {
    let g = ir::parse(text).unwrap();
    let split = differentiate(&g, &[0], &[true], Strategy::MinCut).unwrap();
    let x = HostArray::parse(x).unwrap();
    let p = &split.partition;
    let fwd = interp::run(&p.forward, std::slice::from_ref(&x)).unwrap();
    let mut args: Vec<HostArray> = p
        .residuals
        .iter()
        .map(|r| match *r {
            Residual::Input(_) => x.clone(),
            Residual::Output(j) => fwd[j].clone(),
        })
        .collect();
    args.push(HostArray::parse("f64[]{1.0}").unwrap());
    interp::run(&p.backward, &args).unwrap()[0].to_string()
}

#[test]
fn prod_gradient_is_the_product_of_the_others_even_at_zeros() {
    let text = "ember-ir 1\nfunc @f(%0: f64[2,3]) -> (f64[]) {\n  %1 = prod(%0) axis=[1] \
                keepdims=false : f64[2]\n  %2 = sum(%1) axis=none keepdims=false : f64[]\n  \
                return %2\n}\n";
    assert_eq!(
        gradient_at(text, "f64[2,3]{2.0, 0.0, 5.0, 0.0, 3.0, 0.0}"),
        "f64[2,3]{0.0, 10.0, 0.0, 0.0, 0.0, 0.0}"
    );
    assert_eq!(
        gradient_at(text, "f64[2,3]{2.0, 4.0, 5.0, 1.0, 3.0, 2.0}"),
        "f64[2,3]{20.0, 10.0, 8.0, 6.0, 2.0, 3.0}"
    );
}

#[test]
fn integer_inputs_and_missing_paths() {
    let g = ir::parse(
        "ember-ir 1\nfunc @f(%0: i64[3], %1: f64[3]) -> (f64[3]) {\n  %2 = mul(%0, %1) : f64[3]\n  \
         return %2\n}\n",
    )
    .unwrap();
    let err = differentiate(&g, &[0], &[true], Strategy::MinCut).unwrap_err();
    assert!(err.to_string().contains("only float values"), "{err}");
    let split = differentiate(&g, &[1], &[true], Strategy::MinCut).unwrap();
    assert_eq!(
        split.partition.backward.result_types()[0].to_string(),
        "f64[3]"
    );
}

#[test]
fn scans_match_central_differences() {
    for stmt in [
        "cumsum(%0) axis=1",
        "cumprod(%0) axis=1",
        "cumprod(%0) axis=0",
    ] {
        check_gradients(&format!(
            "ember-ir 1\nfunc @f(%0: f64[2,3]) -> (f64[2,3]) {{\n  %1 = {stmt} : f64[2,3]\n  \
             return %1\n}}\n"
        ));
    }
}

#[test]
fn cumprod_gradient_is_exact_at_and_after_zeros() {
    let text = "ember-ir 1\nfunc @f(%0: f64[4]) -> (f64[]) {\n  %1 = cumprod(%0) axis=0 : \
                f64[4]\n  %2 = sum(%1) axis=none keepdims=false : f64[]\n  return %2\n}\n";
    // d/dx1 = x0 (1 + x2 + x2 x3); nothing flows past the zero.
    assert_eq!(
        gradient_at(text, "f64[4]{2.0, 0.0, 3.0, 0.5}"),
        "f64[4]{1.0, 11.0, 0.0, 0.0}"
    );
    assert_eq!(
        gradient_at(text, "f64[4]{0.0, 2.0, 0.0, 4.0}"),
        "f64[4]{3.0, 0.0, 0.0, 0.0}"
    );
}

#[test]
fn factorisations_of_a_positive_definite_matrix_match_central_differences() {
    // a = x xᵀ + 3 I keeps every factorisation defined (and the eigenvalues distinct).
    for (stmt, ty) in [
        ("cholesky(%6)", "f64[3,3]"),
        ("cholesky_upper(%6)", "f64[3,3]"),
        ("eigvalsh(%6)", "f64[3]"),
        ("eigvalsh_upper(%6)", "f64[3]"),
        ("svdvals(%6)", "f64[3]"),
        ("inv(%6)", "f64[3,3]"),
    ] {
        check_gradients(&format!(
            "ember-ir 1\nfunc @f(%0: f64[3,3]) -> ({ty}) {{\n  \
             %1 = transpose(%0) perm=[1,0] : f64[3,3]\n  %2 = matmul(%0, %1) : f64[3,3]\n  \
             %3 = eye() k=0 : f64[3,3]\n  %4 = const() value=3.0 : f64[] weak\n  \
             %5 = mul(%3, %4) : f64[3,3]\n  %6 = add(%2, %5) : f64[3,3]\n  \
             %7 = {stmt} : {ty}\n  return %7\n}}\n"
        ));
    }
}
