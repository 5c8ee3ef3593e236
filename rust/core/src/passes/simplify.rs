//! Algebraic simplification: a table of small rules, one line each with its algebra. A rule
//! sees one statement (operands already rewritten) and may replace it by an existing value or
//! a new op; the replacement is taken only when its type equals the statement's type, so no
//! rule changes a dtype, a shape or weakness. Rules are exact: none changes a NaN or the sign
//! of a zero.

use super::rewrite::{infers_to, rewrite, Rewriter};
use crate::error::Result;
use crate::ir::{BinaryOp as B, DType, Dim, Graph, Node, Op, Scalar, UnaryOp as U, ValueId};

/// What a rule turns a statement into.
enum Rewrite {
    /// An existing value.
    Value(ValueId),
    /// A new statement.
    Op(Op, Vec<ValueId>),
}

use Rewrite::{Op as New, Value as Same};

/// Every new-op rewrite removes an op or replaces it by a cheaper one, so few apply in a row;
/// the bound only guards against a future rule pair that undoes each other.
const MAX_REWRITES: usize = 16;

type Rule = fn(&Rewriter, &Node) -> Option<Rewrite>;

#[rustfmt::skip]
const RULES: &[(&str, Rule)] = &[
    ("mul_one", |rw, n| binary(n, B::Mul).and_then(|(x, y)| either(rw, x, y, is_one)).map(Same)),  // x*1 -> x, 1*x -> x
    ("div_one", |rw, n| binary(n, B::Div).and_then(|(x, y)| is_one(rw, y).then_some(Same(x)))),  // x/1 -> x
    ("add_zero", |rw, n| binary(n, B::Add).and_then(|(x, y)| either(rw, x, y, if n.ty.dtype.is_float() { is_minus_zero } else { is_zero })).map(Same)),  // x+0 -> x for ints and bools; x+(-0.0) -> x for floats (x+0.0 turns -0.0 into 0.0)
    ("sub_zero", |rw, n| binary(n, B::Sub).and_then(|(x, y)| (is_zero(rw, y) && !is_minus_zero(rw, y)).then_some(Same(x)))),  // x-0 -> x and x-(+0.0) -> x (x-(-0.0) turns -0.0 into 0.0)
    ("pow_one", |rw, n| binary(n, B::Pow).filter(|_| !n.ty.dtype.is_float()).and_then(|(x, y)| is_one(rw, y).then_some(Same(x)))),  // x**1 -> x for ints (libm's pow may clear a NaN's sign)
    ("and_true", |rw, n| binary(n, B::LogicalAnd).and_then(|(x, y)| either(rw, x, y, is_true)).map(Same)),  // x and True -> x (x bool)
    ("or_false", |rw, n| binary(n, B::LogicalOr).and_then(|(x, y)| either(rw, x, y, is_false)).map(Same)),  // x or False -> x (x bool)
    ("neg_neg", |rw, n| unary(n, U::Neg).and_then(|x| operand_of(rw, x, &Op::Unary(U::Neg))).map(Same)),  // -(-x) -> x
    ("not_not", |rw, n| unary(n, U::LogicalNot).and_then(|x| operand_of(rw, x, &Op::Unary(U::LogicalNot))).map(Same)),  // not(not x) -> x (x bool)
    ("positive", |_, n| unary(n, U::Positive).map(Same)),  // +x -> x
    ("astype_same", |rw, n| match n.op { Op::Astype { dtype } if rw.type_of(n.inputs[0]).is_some_and(|t| t.dtype == dtype) => Some(Same(n.inputs[0])), _ => None }),  // x.astype(x.dtype) -> x
    ("where_same", |rw, n| (n.op == Op::Where && n.inputs[1] == n.inputs[2] && computes_nothing(rw, n.inputs[0])).then(|| Same(n.inputs[1]))),  // where(c, x, x) -> x (c computed by nothing whose floating-point warnings would be lost)
    ("identity_view", |rw, n| is_identity_view(rw, n).then(|| Same(n.inputs[0]))),  // transpose by id, reshape/broadcast_to to the same shape, expand_dims/squeeze/flip of no axes, full slice -> x
    ("pow_two", |rw, n| binary(n, B::Pow).and_then(|(x, y)| is_value(rw, y, 2.0).then(|| New(Op::Binary(B::Mul), vec![x, x])))),  // x**2 -> x*x
    ("pow_half", |rw, n| binary(n, B::Pow).and_then(|(x, y)| (is_value(rw, y, 0.5) && is_0d(rw, y) && n.ty.dtype.is_float()).then(|| New(Op::Unary(U::Sqrt), vec![x])))),  // x**0.5 -> sqrt(x) (NumPy's own scalar-exponent path, -0.0 and -inf included)
    ("mul_minus_one", |rw, n| binary(n, B::Mul).filter(|_| n.ty.dtype.is_int()).and_then(|(x, y)| either(rw, x, y, |rw, c| is_value(rw, c, -1.0))).map(|x| New(Op::Unary(U::Neg), vec![x]))),  // x*(-1) -> -x for ints (for floats the sign of a NaN would differ)
    ("transpose_transpose", transpose_transpose),  // transpose(transpose(x, p), q) -> transpose(x, [p[q[i]]])
    ("reshape_reshape", |rw, n| match &n.op { Op::Reshape { .. } => producer_input(rw, n.inputs[0], |op| matches!(op, Op::Reshape { .. })).map(|x| New(n.op.clone(), vec![x])), _ => None }),  // reshape(reshape(x, s), t) -> reshape(x, t)
    ("squeeze_expand_dims", |rw, n| match &n.op { Op::Squeeze { axes } => operand_of(rw, n.inputs[0], &Op::ExpandDims { axes: axes.clone() }).map(Same), _ => None }),  // squeeze(expand_dims(x, a), a) -> x
    ("flip_flip", |rw, n| match &n.op { Op::Flip { .. } => operand_of(rw, n.inputs[0], &n.op).map(Same), _ => None }),  // flip(flip(x, a), a) -> x
    ("not_not_bits", |rw, n| unary(n, U::BitwiseNot).and_then(|x| operand_of(rw, x, &Op::Unary(U::BitwiseNot))).map(Same)),  // ~~x -> x
    ("abs_abs", |rw, n| unary(n, U::Abs).and_then(|x| rw.producer(x).filter(|p| p.op == Op::Unary(U::Abs)).map(|_| Same(x)))),  // abs(abs(x)) -> abs(x)
    ("idempotent_self", |_, n| matches!(n.op, Op::Binary(B::Maximum | B::Minimum | B::Fmax | B::Fmin | B::LogicalAnd | B::LogicalOr | B::BitwiseAnd | B::BitwiseOr)).then(|| n.inputs[0]).filter(|&x| x == n.inputs[1]).map(Same)),  // max(x, x) -> x, x & x -> x, ...
    ("where_const", |rw, n| (n.op == Op::Where).then(|| constant(rw, n.inputs[0])).flatten().filter(|c| is_0d(rw, n.inputs[0]) && !matches!(c, Scalar::Float(x) if x.is_nan())).filter(|c| computes_nothing(rw, n.inputs[if c.to_f64() != 0.0 { 2 } else { 1 }])).map(|c| Same(n.inputs[if c.to_f64() != 0.0 { 1 } else { 2 }]))),  // where(True, x, y) -> x, where(False, x, y) -> y (the dropped one computed by nothing)
    ("astype_roundtrip", astype_roundtrip),  // x.astype(B).astype(A) -> x when A is x's dtype and B holds every A value
    ("copy_copy", |rw, n| (n.op == Op::Copy).then(|| rw.producer(n.inputs[0]).filter(|p| p.op == Op::Copy).map(|_| Same(n.inputs[0]))).flatten()),  // copy(copy(x)) -> copy(x)
];

/// Apply the rules to each statement until none applies to it.
pub fn simplify(graph: &Graph) -> Result<Graph> {
    rewrite(graph, |rw, node| {
        let mut current = node.clone();
        let mut changed = false;
        'rules: for _ in 0..MAX_REWRITES {
            for (_, rule) in RULES {
                match rule(rw, &current) {
                    Some(Same(v)) if rw.type_of(v) == Some(&current.ty) => return Ok(Some(v)),
                    Some(New(op, inputs)) if infers_to(rw, &op, &inputs, &current.ty) => {
                        current = Node {
                            op,
                            inputs,
                            ty: current.ty.clone(),
                        };
                        changed = true;
                        continue 'rules;
                    }
                    _ => {}
                }
            }
            break;
        }
        Ok(changed.then(|| rw.emit_typed(current.op, current.inputs, current.ty)))
    })
}

fn binary(n: &Node, op: B) -> Option<(ValueId, ValueId)> {
    (n.op == Op::Binary(op)).then(|| (n.inputs[0], n.inputs[1]))
}

fn unary(n: &Node, op: U) -> Option<ValueId> {
    (n.op == Op::Unary(op)).then(|| n.inputs[0])
}

/// The other operand when one of `x`, `y` satisfies `test`.
fn either(
    rw: &Rewriter,
    x: ValueId,
    y: ValueId,
    test: fn(&Rewriter, ValueId) -> bool,
) -> Option<ValueId> {
    if test(rw, y) {
        Some(x)
    } else if test(rw, x) {
        Some(y)
    } else {
        None
    }
}

/// Whether `v` is an input or a constant: dropping it loses no computation, and so none of
/// the floating-point warnings NumPy would give for one.
fn computes_nothing(rw: &Rewriter, v: ValueId) -> bool {
    rw.producer(v).is_none() || constant(rw, v).is_some()
}

fn constant(rw: &Rewriter, v: ValueId) -> Option<Scalar> {
    match rw.producer(v)?.op {
        Op::Const { value, .. } | Op::Full { value, .. } => Some(value),
        _ => None,
    }
}

fn is_value(rw: &Rewriter, v: ValueId, want: f64) -> bool {
    constant(rw, v).is_some_and(|c| !matches!(c, Scalar::Bool(_)) && c.to_f64() == want)
}

fn is_0d(rw: &Rewriter, v: ValueId) -> bool {
    rw.type_of(v).is_some_and(|t| t.shape.is_empty())
}

fn is_one(rw: &Rewriter, v: ValueId) -> bool {
    constant(rw, v).is_some_and(|c| c.to_f64() == 1.0)
}

fn is_true(rw: &Rewriter, v: ValueId) -> bool {
    matches!(constant(rw, v), Some(Scalar::Bool(true)))
}

fn is_false(rw: &Rewriter, v: ValueId) -> bool {
    matches!(constant(rw, v), Some(Scalar::Bool(false)))
}

fn is_zero(rw: &Rewriter, c: ValueId) -> bool {
    constant(rw, c).is_some_and(|c| c.to_f64() == 0.0)
}

fn is_minus_zero(rw: &Rewriter, c: ValueId) -> bool {
    matches!(constant(rw, c), Some(Scalar::Float(z)) if z == 0.0 && z.is_sign_negative())
}

/// `x` when `v` is `op(x)` (same op and attributes).
fn operand_of(rw: &Rewriter, v: ValueId, op: &Op) -> Option<ValueId> {
    rw.producer(v).filter(|p| p.op == *op).map(|p| p.inputs[0])
}

/// `x` when `v` is some op accepted by `test` applied to `x`.
fn producer_input(rw: &Rewriter, v: ValueId, test: fn(&Op) -> bool) -> Option<ValueId> {
    rw.producer(v).filter(|p| test(&p.op)).map(|p| p.inputs[0])
}

fn transpose_transpose(rw: &Rewriter, n: &Node) -> Option<Rewrite> {
    let Op::Transpose { perm: outer } = &n.op else {
        return None;
    };
    let inner_node = rw.producer(n.inputs[0])?;
    let Op::Transpose { perm: inner } = &inner_node.op else {
        return None;
    };
    let perm = outer
        .iter()
        .map(|&q| inner.get(q).copied())
        .collect::<Option<Vec<usize>>>()?;
    Some(New(Op::Transpose { perm }, vec![inner_node.inputs[0]]))
}

fn astype_roundtrip(rw: &Rewriter, n: &Node) -> Option<Rewrite> {
    let Op::Astype { dtype: outer } = n.op else {
        return None;
    };
    let inner = rw.producer(n.inputs[0])?;
    let Op::Astype { dtype: wide } = inner.op else {
        return None;
    };
    let x = inner.inputs[0];
    let original = rw.type_of(x)?.dtype;
    (outer == original && holds_exactly(wide, original)).then_some(Same(x))
}

/// Whether every value of `narrow` converts to `wide` and back unchanged.
fn holds_exactly(wide: DType, narrow: DType) -> bool {
    use crate::ir::Kind::*;
    match (narrow.kind(), wide.kind()) {
        (Bool, _) => true,
        (Signed | Unsigned, Signed | Unsigned) => DType::promote(narrow, wide) == wide,
        // f32 has a 24-bit and f64 a 53-bit significand.
        (Signed | Unsigned, Float) => narrow.itemsize() * 2 <= wide.itemsize(),
        (Float, Float) => wide.itemsize() >= narrow.itemsize(),
        _ => false,
    }
}

fn is_identity_view(rw: &Rewriter, n: &Node) -> bool {
    let Some(x) = n.inputs.first().and_then(|&v| rw.type_of(v)) else {
        return false;
    };
    match &n.op {
        Op::Transpose { perm } => perm.iter().enumerate().all(|(i, &p)| i == p),
        Op::Reshape { shape } | Op::BroadcastTo { shape } => *shape == x.shape,
        Op::ExpandDims { axes } | Op::Squeeze { axes } | Op::Flip { axes } => axes.is_empty(),
        Op::Slice { start, stop, step } => x.shape.iter().enumerate().all(|(i, d)| match d {
            Dim::Sym(_) => crate::infer::shapes::whole_symbolic(start[i], stop[i], step[i]),
            Dim::Static(n) => *n as i64 == stop[i] && start[i] == 0 && step[i] == 1,
        }),
        _ => false,
    }
}
