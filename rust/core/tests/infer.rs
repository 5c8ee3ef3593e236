//! Inference against NumPy: the dtype table written by `tests/data/gen_dtype_table.py`, and
//! shape rules.

use ember_core::infer::infer;
use ember_core::ir::{ArgReduceKind, BinaryOp, DType, Dim, Op, ReduceKind, Type, UnaryOp};

fn operand(name: &str) -> Type {
    let weak = |dtype| Type {
        dtype,
        shape: vec![],
        weak: true,
    };
    match name {
        "weak_bool" => weak(DType::Bool),
        "weak_int" => weak(DType::I64),
        "weak_float" => weak(DType::F64),
        _ => Type::of(DType::from_name(name).expect("dtype"), &[2]),
    }
}

fn op_of(kind: &str, name: &str) -> Op {
    match kind {
        "unary" => Op::Unary(UnaryOp::from_name(name).expect("unary")),
        "binary" => Op::Binary(BinaryOp::from_name(name).expect("binary")),
        "reduce" => match ReduceKind::from_name(name) {
            Some(kind) => Op::Reduce {
                kind,
                axes: None,
                keepdims: false,
            },
            None => Op::ArgReduce {
                kind: ArgReduceKind::from_name(name).expect("reduce"),
                axis: None,
                keepdims: false,
            },
        },
        "matmul" => Op::Matmul,
        "where" => Op::Where,
        "concatenate" => Op::Concatenate { axis: 0 },
        _ => panic!("unknown kind {kind}"),
    }
}

#[test]
fn dtype_table_matches_numpy() {
    let table = include_str!("data/dtype_table.txt");
    let mut checked = 0;
    let mut wrong = Vec::new();
    for line in table.lines().filter(|l| !l.starts_with('#')) {
        let words: Vec<&str> = line.split(' ').collect();
        let (kind, want) = (words[0], words[words.len() - 1]);
        let (op, names) = match kind {
            "unary" | "binary" | "reduce" => (op_of(kind, words[1]), &words[2..words.len() - 1]),
            _ => (op_of(kind, kind), &words[1..words.len() - 1]),
        };
        let mut types: Vec<Type> = names.iter().map(|n| operand(n)).collect();
        if kind == "where" {
            types.insert(0, Type::of(DType::Bool, &[2]));
        }
        let refs: Vec<&Type> = types.iter().collect();
        let got = match infer(&op, &refs) {
            Ok(t) => t.dtype.name().to_string(),
            Err(_) => "error".to_string(),
        };
        // NumPy's float16 results are rejected by ember.
        let want = if want == "f16" { "error" } else { want };
        if got != want {
            wrong.push(format!("{line}: ember gives {got}"));
        }
        checked += 1;
    }
    assert!(checked > 6000, "only {checked} table rows");
    let kinds = UnaryOp::ALL.iter().map(|u| ("unary", u.name()));
    let kinds = kinds.chain(BinaryOp::ALL.iter().map(|b| ("binary", b.name())));
    let kinds = kinds.chain(ReduceKind::ALL.iter().map(|r| ("reduce", r.name())));
    let kinds = kinds.chain(ArgReduceKind::ALL.iter().map(|r| ("reduce", r.name())));
    for (kind, name) in kinds {
        // A new op kind needs its row in gen_dtype_table.py, and the table written again.
        assert!(
            table.contains(&format!("\n{kind} {name} ")),
            "{kind} {name} is not in dtype_table.txt"
        );
    }
    assert!(
        wrong.is_empty(),
        "{} mismatches:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

fn ty(text: &str) -> Type {
    // `f32[2,s0]`, `f32[s0-1]`, `f32[4*s0]` or `f64[] weak`, read by the IR's own parser
    let module = format!("ember-ir 1\nfunc @t(%0: {text}) -> ({text}) {{\n  return %0\n}}\n");
    let graph = ember_core::ir::parse(&module).unwrap_or_else(|e| panic!("{text}: {e}"));
    graph.params[0].clone()
}

fn infer_text(op: Op, inputs: &[&str]) -> String {
    let types: Vec<Type> = inputs.iter().map(|t| ty(t)).collect();
    let refs: Vec<&Type> = types.iter().collect();
    match infer(&op, &refs) {
        Ok(t) => t.to_string(),
        Err(e) => format!("error: {e}"),
    }
}

#[test]
fn broadcasting_with_symbols() {
    let add = || Op::Binary(BinaryOp::Add);
    assert_eq!(infer_text(add(), &["f32[s0,1]", "f32[1,s1]"]), "f32[s0,s1]");
    assert_eq!(infer_text(add(), &["f32[s0,3]", "f32[s0,3]"]), "f32[s0,3]");
    assert_eq!(infer_text(add(), &["f32[4,1,3]", "f32[5,1]"]), "f32[4,5,3]");
    assert_eq!(infer_text(add(), &["f32[0]", "f32[1]"]), "f32[0]");
    assert_eq!(infer_text(add(), &["f32[2]", "f64[] weak"]), "f32[2]");
    assert_eq!(
        infer_text(add(), &["i64[] weak", "f64[] weak"]),
        "f64[] weak"
    );
    assert_eq!(
        infer_text(add(), &["bool[] weak", "bool[] weak"]),
        "bool[] weak"
    );
    assert_eq!(
        infer_text(add(), &["f32[s0]", "f32[3]"]),
        "error: operands could not be broadcast together with shapes (s0,) (3,) (a symbolic dim broadcasts only with itself or 1)"
    );
    assert!(infer_text(add(), &["f32[s0]", "f32[s1]"]).starts_with("error"));
    assert!(infer_text(add(), &["f32[2,3]", "f32[2]"]).starts_with("error"));
    assert_eq!(
        infer_text(Op::Where, &["bool[s0,1]", "f32[3]", "f64[] weak"]),
        "f32[s0,3]"
    );
}

#[test]
fn reductions() {
    let sum = |axes: Option<Vec<usize>>, keepdims| Op::Reduce {
        kind: ReduceKind::Sum,
        axes,
        keepdims,
    };
    assert_eq!(
        infer_text(sum(Some(vec![1]), false), &["i8[2,s0,4]"]),
        "i64[2,4]"
    );
    assert_eq!(
        infer_text(sum(Some(vec![0, 2]), true), &["u16[2,s0,4]"]),
        "u64[1,s0,1]"
    );
    assert_eq!(infer_text(sum(None, false), &["f32[2,3]"]), "f32[]");
    assert_eq!(infer_text(sum(None, true), &["f32[2,3]"]), "f32[1,1]");
    assert!(infer_text(sum(Some(vec![2]), false), &["f32[2,3]"]).contains("out of bounds"));
    assert!(infer_text(sum(Some(vec![1, 0]), false), &["f32[2,3]"]).contains("sorted"));
    let max = Op::Reduce {
        kind: ReduceKind::Max,
        axes: Some(vec![0]),
        keepdims: false,
    };
    assert!(infer_text(max, &["f32[0,3]"]).contains("no identity"));
    let argmax = |axis, keepdims| Op::ArgReduce {
        kind: ArgReduceKind::Argmax,
        axis,
        keepdims,
    };
    assert_eq!(infer_text(argmax(Some(1), true), &["f32[2,3]"]), "i64[2,1]");
    assert_eq!(infer_text(argmax(None, true), &["f32[2,3]"]), "i64[1,1]");
    assert_eq!(infer_text(argmax(None, false), &["f32[2,3]"]), "i64[]");
    let mean = Op::Reduce {
        kind: ReduceKind::Mean,
        axes: None,
        keepdims: false,
    };
    assert_eq!(infer_text(mean, &["i32[2,3]"]), "f64[]");
}

#[test]
fn views() {
    let dims = |v: &[usize]| v.iter().map(|&n| Dim::Static(n)).collect::<Vec<_>>();
    assert_eq!(
        infer_text(
            Op::Reshape {
                shape: dims(&[3, 2])
            },
            &["f32[2,3]"]
        ),
        "f32[3,2]"
    );
    let four_s0 = Dim::symbol_named("s0")
        .product(&Dim::Static(4))
        .expect("a size");
    assert_eq!(
        infer_text(
            Op::Reshape {
                shape: vec![four_s0.clone()]
            },
            &["f32[s0,4]"]
        ),
        "f32[4*s0]"
    );
    assert_eq!(
        infer_text(
            Op::Reshape {
                shape: vec![Dim::symbol_named("s0"), Dim::Static(4)]
            },
            &["f32[4*s0]"]
        ),
        "f32[s0,4]"
    );
    assert!(infer_text(
        Op::Reshape {
            shape: vec![four_s0]
        },
        &["f32[s0,3]"]
    )
    .contains("cannot reshape"));
    let sym_shape = vec![Dim::symbol_named("s0"), Dim::Static(6)];
    assert_eq!(
        infer_text(Op::Reshape { shape: sym_shape }, &["f32[s0,2,3]"]),
        "f32[s0,6]"
    );
    assert!(infer_text(Op::Reshape { shape: dims(&[4]) }, &["f32[2,3]"]).contains("cannot reshape"));
    assert_eq!(
        infer_text(
            Op::Transpose {
                perm: vec![2, 0, 1]
            },
            &["f32[2,3,s0]"]
        ),
        "f32[s0,2,3]"
    );
    assert!(infer_text(Op::Transpose { perm: vec![0, 0] }, &["f32[2,3]"]).contains("permutation"));
    assert_eq!(
        infer_text(
            Op::BroadcastTo {
                shape: dims(&[4, 2, 3])
            },
            &["f32[1,3]"]
        ),
        "f32[4,2,3]"
    );
    assert!(
        infer_text(Op::BroadcastTo { shape: dims(&[4]) }, &["f32[3]"]).contains("cannot broadcast")
    );
    assert_eq!(
        infer_text(Op::ExpandDims { axes: vec![0, 2] }, &["f32[2,3]"]),
        "f32[1,2,1,3]"
    );
    assert_eq!(
        infer_text(Op::Squeeze { axes: vec![0, 2] }, &["f32[1,2,1,3]"]),
        "f32[2,3]"
    );
    assert!(
        infer_text(Op::Squeeze { axes: vec![1] }, &["f32[1,2]"]).contains("size not equal to one")
    );
    let slice = |start: Vec<i64>, stop: Vec<i64>, step: Vec<i64>| Op::Slice { start, stop, step };
    assert_eq!(
        infer_text(slice(vec![1, 4], vec![10, -1], vec![3, -2]), &["f32[10,5]"]),
        "f32[3,3]"
    );
    assert_eq!(
        infer_text(slice(vec![5], vec![2], vec![1]), &["f32[10]"]),
        "f32[0]"
    );
    assert!(infer_text(slice(vec![0], vec![11], vec![1]), &["f32[10]"]).contains("not normalised"));
    assert!(infer_text(slice(vec![0], vec![1], vec![0]), &["f32[10]"]).starts_with("error"));
    // Slices of a symbolic dim: bounds from the front, or counted from the end (-1 the end).
    assert_eq!(
        infer_text(slice(vec![0], vec![1], vec![1]), &["f32[s0]"]),
        "f32[1]"
    );
    assert_eq!(
        infer_text(slice(vec![1], vec![-1], vec![1]), &["f32[s0]"]),
        "f32[s0-1]"
    );
    assert_eq!(
        infer_text(slice(vec![2], vec![-3], vec![1]), &["f32[s0]"]),
        "f32[s0-4]"
    );
    assert_eq!(
        infer_text(slice(vec![1], vec![-1], vec![1]), &["f32[s0-1]"]),
        "f32[s0-2]"
    );
    assert_eq!(
        infer_text(slice(vec![-4], vec![-2], vec![1]), &["f32[s0]"]),
        "f32[2]"
    );
    assert!(infer_text(slice(vec![-2], vec![3], vec![1]), &["f32[s0]"]).contains("symbolic"));
    assert!(infer_text(slice(vec![0], vec![-1], vec![2]), &["f32[s0]"]).contains("step 1"));
    // A symbolic dim taken whole (0:-1:1) beside a static one sliced.
    assert_eq!(
        infer_text(slice(vec![0, 1], vec![-1, 3], vec![1, 1]), &["f32[s0,4]"]),
        "f32[s0,2]"
    );
    assert!(infer_text(slice(vec![0], vec![-1], vec![1]), &["f32[10]"]).contains("not normalised"));
    assert_eq!(
        infer_text(Op::Flip { axes: vec![1] }, &["u8[2,3]"]),
        "u8[2,3]"
    );
}

#[test]
fn matmul_and_concatenate() {
    assert_eq!(
        infer_text(Op::Matmul, &["f32[s0,3]", "f32[3,4]"]),
        "f32[s0,4]"
    );
    assert_eq!(infer_text(Op::Matmul, &["f32[3]", "f64[3]"]), "f64[]");
    assert_eq!(
        infer_text(Op::Matmul, &["f32[3]", "f32[5,3,4]"]),
        "f32[5,4]"
    );
    assert_eq!(
        infer_text(Op::Matmul, &["f32[5,2,3]", "f32[3]"]),
        "f32[5,2]"
    );
    assert_eq!(
        infer_text(Op::Matmul, &["i8[7,1,2,3]", "u8[5,3,4]"]),
        "i16[7,5,2,4]"
    );
    assert!(infer_text(Op::Matmul, &["f32[2,3]", "f32[2,3]"]).contains("mismatch"));
    assert!(infer_text(Op::Matmul, &["f32[]", "f32[2,3]"]).contains("enough dimensions"));
    let cat = |axis| Op::Concatenate { axis };
    assert_eq!(
        infer_text(cat(1), &["f32[s0,2]", "i32[s0,5]", "f32[s0,1]"]),
        "f64[s0,8]"
    );
    // One operand symbolic along the axis: that dim plus the others.
    assert_eq!(
        infer_text(cat(0), &["f32[s0-1,2]", "f32[1,2]"]),
        "f32[s0,2]"
    );
    // Sums of symbols and constants, in normal form.
    assert_eq!(
        infer_text(cat(0), &["f32[s0,2]", "f32[3,2]"]),
        "f32[s0+3,2]"
    );
    assert_eq!(
        infer_text(cat(0), &["f32[s0,2]", "f32[s0,2]"]),
        "f32[2*s0,2]"
    );
    assert_eq!(
        infer_text(cat(0), &["f32[s1,2]", "f32[s0-1,2]", "f32[1,2]"]),
        "f32[s0+s1,2]"
    );
    assert!(infer_text(cat(0), &["f32[2,2]", "f32[3,3]"]).contains("must match exactly"));
    assert!(infer_text(cat(0), &["f32[]"]).contains("zero-dimensional"));
}

#[test]
fn creation_literals_must_fit() {
    let c = |value, dtype, weak| Op::Const { value, dtype, weak };
    use ember_core::ir::Scalar;
    assert_eq!(
        infer_text(c(Scalar::Int(255), DType::U8, false), &[]),
        "u8[]"
    );
    assert!(infer_text(c(Scalar::Int(256), DType::U8, false), &[]).contains("not a valid u8"));
    assert!(infer_text(c(Scalar::Float(1.5), DType::I32, false), &[]).contains("not a valid"));
    assert!(infer_text(c(Scalar::Int(1), DType::I32, true), &[]).contains("weak"));
    assert_eq!(
        infer_text(c(Scalar::Bool(true), DType::Bool, true), &[]),
        "bool[] weak"
    );
    assert!(infer_text(Op::Unary(UnaryOp::Sqrt), &["u8[3]"]).contains("float16"));
    assert!(infer_text(Op::Binary(BinaryOp::Add), &["f32[3]"]).contains("operand"));
}
