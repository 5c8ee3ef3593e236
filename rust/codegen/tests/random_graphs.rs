//! Property test: random elementwise + reduction + view graphs, JIT against the interpreter.
//! Deterministic seeds; a failure prints the graph's IR text.

mod common;
use common::{check_ir, random_array, Layout, Rng};
use ember_core::ir::{print, BinaryOp, DType, Dim, Graph, Op, ReduceKind, Type, UnaryOp, ValueId};

const DTYPES: [DType; 5] = [DType::Bool, DType::I32, DType::I64, DType::F32, DType::F64];

/// Unary ops whose results stay well-conditioned (sin and cos of an `exp` that is a few ulp
/// off are not: they have their own ulp tests).
const UNARY: [UnaryOp; 14] = [
    UnaryOp::Neg,
    UnaryOp::Abs,
    UnaryOp::Square,
    UnaryOp::Sqrt,
    UnaryOp::Exp,
    UnaryOp::Log,
    UnaryOp::Log1p,
    UnaryOp::Tanh,
    UnaryOp::Floor,
    UnaryOp::Rint,
    UnaryOp::Isnan,
    UnaryOp::LogicalNot,
    UnaryOp::Sign,
    UnaryOp::Expm1,
];

const BINARY: [BinaryOp; 14] = [
    BinaryOp::Add,
    BinaryOp::Sub,
    BinaryOp::Mul,
    BinaryOp::Div,
    BinaryOp::Maximum,
    BinaryOp::Minimum,
    BinaryOp::Fmax,
    BinaryOp::Lt,
    BinaryOp::Ge,
    BinaryOp::Eq,
    BinaryOp::LogicalAnd,
    BinaryOp::BitwiseXor,
    BinaryOp::Floordiv,
    BinaryOp::Mod,
];

const REDUCE: [ReduceKind; 7] = [
    ReduceKind::Sum,
    ReduceKind::Prod,
    ReduceKind::Max,
    ReduceKind::Min,
    ReduceKind::Mean,
    ReduceKind::Any,
    ReduceKind::All,
];

fn pick<T: Copy>(rng: &mut Rng, xs: &[T]) -> T {
    xs[rng.below(xs.len() as u64) as usize]
}

fn random_graph(rng: &mut Rng) -> Graph {
    let (r, c) = (1 + rng.below(9) as usize, 1 + rng.below(70) as usize);
    let shapes = [vec![r, c], vec![c], vec![r, 1], vec![]];
    let nparams = 1 + rng.below(3) as usize;
    let params: Vec<Type> = (0..nparams)
        .map(|i| {
            let s = if i == 0 {
                0
            } else {
                rng.below(shapes.len() as u64) as usize
            };
            let s = shapes[s].clone();
            Type::of(pick(rng, &DTYPES), &s)
        })
        .collect();
    let mut g = Graph::new("random", params);
    let mut values: Vec<ValueId> = (0..nparams).map(|i| g.param(i)).collect();
    let steps = 2 + rng.below(10);
    for _ in 0..steps {
        let x = pick(rng, &values);
        let y = pick(rng, &values);
        let z = pick(rng, &values);
        let ndim = g.value_type(x).unwrap().ndim();
        let op = match rng.below(10) {
            0..=2 => (Op::Unary(pick(rng, &UNARY)), vec![x]),
            3..=5 => (Op::Binary(pick(rng, &BINARY)), vec![x, y]),
            6 => (Op::Where, vec![z, x, y]),
            7 => {
                let axes = match (ndim, rng.below(3)) {
                    (0, _) | (_, 0) => None,
                    (_, k) => Some(vec![(k as usize) % ndim]),
                };
                (
                    Op::Reduce {
                        kind: pick(rng, &REDUCE),
                        axes,
                        keepdims: rng.below(2) == 0,
                    },
                    vec![x],
                )
            }
            8 if ndim == 2 => (Op::Transpose { perm: vec![1, 0] }, vec![x]),
            8 => (
                Op::Astype {
                    dtype: pick(rng, &[DType::F64, DType::F32]),
                },
                vec![x],
            ),
            _ if ndim >= 1 => (
                Op::Flip {
                    axes: vec![ndim - 1],
                },
                vec![x],
            ),
            _ => (
                Op::BroadcastTo {
                    shape: vec![Dim::Static(3)],
                },
                vec![x],
            ),
        };
        if let Ok(v) = g.add(op.0, op.1) {
            if DTYPES.contains(&g.value_type(v).unwrap().dtype) {
                values.push(v);
            } else {
                g.nodes.pop();
            }
        }
    }
    let last = *values.last().unwrap();
    g.results = vec![last];
    if values.len() > nparams + 1 {
        g.results
            .push(values[nparams + rng.below((values.len() - nparams) as u64) as usize]);
    }
    g
}

#[test]
fn random_graphs_match_the_interpreter() {
    let mut rng = Rng(0x1111_2222_3333_4447);
    let mut ran = 0;
    for case in 0..400 {
        let g = random_graph(&mut rng);
        let ir = print(&g);
        let inputs: Vec<_> = g
            .params
            .iter()
            .map(|t| random_array(&mut rng, t.dtype, &t.static_shape().unwrap()))
            .collect();
        // Random graphs may hit values the interpreter rejects (empty max): skip those.
        if ember_core::interp::run(&g, &inputs).is_err() {
            continue;
        }
        let f32_involved = g.nodes.iter().any(|n| n.ty.dtype == DType::F32);
        let rtol = if f32_involved { 2e-3 } else { 1e-9 };
        for layout in [Layout::C, Layout::F] {
            let _ = case;
            check_ir(&ir, &inputs, layout, 1, rtol);
        }
        ran += 1;
    }
    assert!(ran > 300, "only {ran} graphs ran");
}
