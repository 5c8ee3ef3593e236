//! The reference interpreter against NumPy: `data/ops_table.txt` (written by
//! `data/gen_ops_table.py`) holds NumPy's results for every elementwise op, cast and reduction
//! on edge values of every dtype. Integers, bools, NaN positions and signed zeros must match
//! exactly; so must floats, except a few ulps for transcendental functions (NumPy's own
//! implementations are not correctly rounded) and for f32 reductions (NumPy accumulates in f32).

use ember_core::interp::{self, Data, HostArray};
use ember_core::ir::{ArgReduceKind, BinaryOp, DType, Graph, Op, ReduceKind, Type, UnaryOp};

fn array(text: &str) -> (HostArray, bool) {
    let text = text.trim();
    match text.strip_prefix("weak ") {
        Some(rest) => (HostArray::parse(rest).unwrap(), true),
        None => (HostArray::parse(text).unwrap(), false),
    }
}

fn floats(a: &HostArray) -> Option<Vec<f64>> {
    match &a.data {
        Data::F32(v) => Some(v.iter().map(|&x| f64::from(x)).collect()),
        Data::F64(v) => Some(v.clone()),
        _ => None,
    }
}

/// Within `ulps` units in the last place of the dtype, with NaN and signed zeros exact.
fn close(want: &HostArray, got: &HostArray, ulps: f64) -> bool {
    if want.dtype() != got.dtype() || want.shape != got.shape {
        return false;
    }
    let (Some(w), Some(g)) = (floats(want), floats(got)) else {
        return want == got;
    };
    let eps = if want.dtype() == DType::F32 {
        f64::from(f32::EPSILON)
    } else {
        f64::EPSILON
    };
    w.iter().zip(&g).all(|(&a, &b)| {
        if a.is_nan() || b.is_nan() {
            a.is_nan() && b.is_nan()
        } else if a == 0.0 && b == 0.0 {
            a.is_sign_negative() == b.is_sign_negative()
        } else {
            a == b || (a - b).abs() <= ulps * eps * a.abs().max(b.abs())
        }
    })
}

fn op_of(words: &[&str]) -> Op {
    match words[0] {
        "unary" => Op::Unary(UnaryOp::from_name(words[1]).unwrap()),
        "binary" => Op::Binary(BinaryOp::from_name(words[1]).unwrap()),
        "astype" => Op::Astype {
            dtype: DType::from_name(words[1]).unwrap(),
        },
        "matmul" => Op::Matmul,
        _ => {
            let axes = words[2].parse::<usize>().ok();
            match ReduceKind::from_name(words[1]) {
                Some(kind) => Op::Reduce {
                    kind,
                    axes: axes.map(|a| vec![a]),
                    keepdims: false,
                },
                None => Op::ArgReduce {
                    kind: ArgReduceKind::from_name(words[1]).unwrap(),
                    axis: axes,
                    keepdims: false,
                },
            }
        }
    }
}

fn tolerance(words: &[&str], dtype: DType) -> f64 {
    if words[0] == "matmul" {
        // NumPy's BLAS sums f32 in f32 (ember in f64), and in another order.
        return 8.0;
    }
    let exact = [
        "add",
        "sub",
        "mul",
        "div",
        "floordiv",
        "mod",
        "maximum",
        "minimum",
        "fmax",
        "fmin",
        "copysign",
        "neg",
        "positive",
        "abs",
        "sign",
        "square",
        "reciprocal",
        "sqrt",
        "floor",
        "ceil",
        "trunc",
        "rint",
        "max",
        "min",
    ];
    if words[0] == "astype"
        || exact.contains(&words[1])
        || (words[0] == "reduce" && dtype == DType::F64)
    {
        0.0
    } else {
        4.0
    }
}

#[test]
fn interpreter_matches_numpy() {
    let table = include_str!("data/ops_table.txt");
    let mut wrong = Vec::new();
    let mut checked = 0;
    for line in table.lines() {
        let parts: Vec<&str> = line.split(" | ").collect();
        let words: Vec<&str> = parts[0].split(' ').collect();
        let operands: Vec<(HostArray, bool)> =
            parts[1..parts.len() - 1].iter().map(|t| array(t)).collect();
        let want = parts[parts.len() - 1].trim();
        let params = operands
            .iter()
            .map(|(a, weak)| Type {
                weak: *weak,
                ..Type::of(a.dtype(), &a.shape)
            })
            .collect();
        let mut graph = Graph::new("t", params);
        let inputs = (0..operands.len()).map(|i| graph.param(i)).collect();
        let got = graph.add(op_of(&words), inputs).and_then(|v| {
            graph.results = vec![v];
            let arrays: Vec<HostArray> = operands.iter().map(|(a, _)| a.clone()).collect();
            interp::run(&graph, &arrays)
        });
        checked += 1;
        match (got, want) {
            (Err(_), "error") => {}
            (Ok(r), want) if want != "error" => {
                let want = HostArray::parse(want).unwrap();
                if !close(&want, &r[0], tolerance(&words, want.dtype())) {
                    wrong.push(format!("{line}\n    ember: {}", r[0]));
                }
            }
            (got, _) => wrong.push(format!(
                "{line}\n    ember: {:?}",
                got.map(|r| r[0].to_string())
            )),
        }
    }
    assert!(checked > 1500, "only {checked} rows");
    let kinds = UnaryOp::ALL.iter().map(|u| ("unary", u.name()));
    for (kind, name) in kinds.chain(BinaryOp::ALL.iter().map(|b| ("binary", b.name()))) {
        // A new elementwise op needs its row in gen_dtype_table.py, and the table written again.
        assert!(
            table.contains(&format!("{kind} {name} |")),
            "{kind} {name} is not in ops_table.txt"
        );
    }
    assert!(
        wrong.is_empty(),
        "{} of {checked} differ from NumPy:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
