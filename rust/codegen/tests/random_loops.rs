//! Property test: random loops whose bodies compute 0-d expressions of loads, the induction
//! variable, carried scalars and weak constants, store into a carried array and may stop
//! early; the JIT against the interpreter in every input layout. Deterministic seeds; a
//! failure prints the IR text.

mod common;

use std::sync::Arc;

use common::{check_ir, random_array, Layout, Rng};
use ember_core::ir::{print, BinaryOp, DType, Graph, Op, Scalar, Type, UnaryOp, ValueId};

const DTYPES: [DType; 5] = [DType::Bool, DType::I32, DType::I64, DType::F32, DType::F64];

const UNARY: [UnaryOp; 8] = [
    UnaryOp::Neg,
    UnaryOp::Abs,
    UnaryOp::Square,
    UnaryOp::Sqrt,
    UnaryOp::Floor,
    UnaryOp::Sign,
    UnaryOp::LogicalNot,
    UnaryOp::Isnan,
];

const BINARY: [BinaryOp; 13] = [
    BinaryOp::Add,
    BinaryOp::Sub,
    BinaryOp::Mul,
    BinaryOp::Div,
    BinaryOp::Floordiv,
    BinaryOp::Mod,
    BinaryOp::Maximum,
    BinaryOp::Minimum,
    BinaryOp::Lt,
    BinaryOp::Eq,
    BinaryOp::LogicalOr,
    BinaryOp::BitwiseAnd,
    BinaryOp::Copysign,
];

fn pick<T: Copy>(rng: &mut Rng, xs: &[T]) -> T {
    xs[rng.below(xs.len() as u64) as usize]
}

fn weak(dtype: DType) -> Type {
    Type {
        dtype,
        shape: vec![],
        weak: true,
    }
}

fn constant(g: &mut Graph, value: Scalar, ty: Type) -> ValueId {
    let op = Op::Const {
        value,
        dtype: ty.dtype,
        weak: ty.weak,
    };
    g.push(op, vec![], ty)
}

/// The body `(i, acc, y, b) -> (go, acc', y')`.
fn random_body(rng: &mut Rng, acc: &Type, y: &Type, b: &Type, n: usize) -> Graph {
    let i_ty = weak(DType::I64);
    let mut g = Graph::new(
        "body",
        vec![i_ty.clone(), acc.clone(), y.clone(), b.clone()],
    );
    let i = g.param(0);
    let last = constant(&mut g, Scalar::Int(n as i128 - 1), i_ty.clone());
    let mirrored = g.add(Op::Binary(BinaryOp::Sub), vec![last, i]).unwrap();
    let minus_one = constant(&mut g, Scalar::Int(-1), i_ty.clone());
    let before = g
        .add(Op::Binary(BinaryOp::Add), vec![i, minus_one])
        .unwrap();
    let mut pool = vec![i, g.param(1)];
    pool.push(g.add(Op::Load, vec![g.param(2), before]).unwrap());
    pool.push(g.add(Op::Load, vec![g.param(3), mirrored]).unwrap());
    pool.push(constant(&mut g, Scalar::Float(0.5), weak(DType::F64)));
    pool.push(constant(&mut g, Scalar::Int(3), weak(DType::I64)));
    for _ in 0..2 + rng.below(6) {
        let op = if rng.below(3) == 0 {
            Op::Unary(pick(rng, &UNARY))
        } else {
            Op::Binary(pick(rng, &BINARY))
        };
        let inputs: Vec<ValueId> = (0..if matches!(op, Op::Unary(_)) { 1 } else { 2 })
            .map(|_| pick(rng, &pool))
            .collect();
        let mut trial = g.clone();
        if let Ok(v) = trial.add(op, inputs) {
            // The back end computes in these dtypes only (bool // bool is i8 in NumPy).
            let computable = DTYPES.contains(&trial.value_type(v).unwrap().dtype);
            if computable && ember_core::verify(&trial).is_ok() {
                g = trial;
                pool.push(v);
            }
        }
    }
    let result = *pool.last().unwrap();
    let acc_next = g
        .add(Op::Astype { dtype: acc.dtype }, vec![result])
        .unwrap();
    let stored = pick(rng, &pool);
    let y_next = g.add(Op::Store, vec![g.param(2), stored, i]).unwrap();
    let go = if rng.below(3) == 0 {
        let stop = constant(&mut g, Scalar::Int(rng.below(n as u64) as i128), i_ty);
        g.add(Op::Binary(BinaryOp::Lt), vec![i, stop]).unwrap()
    } else {
        constant(&mut g, Scalar::Bool(true), Type::of(DType::Bool, &[]))
    };
    g.results = vec![go, acc_next, y_next];
    g
}

fn random_program(rng: &mut Rng) -> (Graph, bool) {
    let n = 1 + rng.below(9) as usize;
    let (dy, db, dacc) = (pick(rng, &DTYPES), pick(rng, &DTYPES), pick(rng, &DTYPES));
    let y = Type::of(dy, &[n]);
    let b = Type::of(db, &[n]);
    let acc = Type::of(dacc, &[]);
    let mut g = Graph::new("f", vec![y.clone(), b.clone()]);
    let init = constant(&mut g, Scalar::Int(1), Type::of(DType::I64, &[]));
    let init = g.add(Op::Astype { dtype: dacc }, vec![init]).unwrap();
    // range(1, n) so that y[i - 1] is in bounds; a negative step walks it backwards.
    let (lo, hi, step) = if rng.below(2) == 0 {
        (1, n as i128, 1)
    } else {
        (n as i128 - 1, 0, -1)
    };
    let bounds: Vec<ValueId> = [lo, hi, step]
        .iter()
        .map(|&v| constant(&mut g, Scalar::Int(v), weak(DType::I64)))
        .collect();
    let body = random_body(rng, &acc, &y, &b, n);
    let mut inputs = bounds;
    inputs.extend([init, g.param(0), g.param(1)]);
    let op = Op::Loop {
        body: Arc::new(body),
        carried: 2,
    };
    let first = g.push(op, inputs, acc.clone());
    let second = g.push(
        Op::Result {
            index: 1,
            ty: y.clone(),
        },
        vec![first],
        y,
    );
    g.results = vec![first, second];
    let f32_involved = [dy, db, dacc].contains(&DType::F32);
    (g, f32_involved)
}

#[test]
fn random_loops_match_the_interpreter() {
    let mut rng = Rng(0x5eed_1005);
    for case in 0..200 {
        let (g, f32_involved) = random_program(&mut rng);
        let ir = print(&g);
        ember_core::verify(&g).unwrap_or_else(|e| panic!("case {case}: {e}\n{ir}"));
        let inputs: Vec<_> = g
            .params
            .iter()
            .map(|t| random_array(&mut rng, t.dtype, &t.static_shape().unwrap()))
            .collect();
        let rtol = if f32_involved { 2e-3 } else { 1e-9 };
        for layout in [Layout::C, Layout::Reversed, Layout::Strided] {
            check_ir(&ir, &inputs, layout, 1, rtol);
        }
    }
}
