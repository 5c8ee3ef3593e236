//! The reference interpreter: runs a graph op by op on host arrays with NumPy's exact
//! semantics. It is the oracle the JIT is tested against, and constant folding uses it.

mod array;
mod control;
mod indexed;
pub mod linalg;
mod reduce;
pub mod scalar;

use std::collections::HashMap;

pub use array::{Data, Elem, HostArray};
pub use control::{index_error, RANGE_STEP_ZERO};

use crate::infer::regions::induction_type;

use crate::error::{Error, Result};
use crate::infer::dtypes;
use crate::ir::{BinaryOp, DType, Dim, Graph, Node, Op, Scalar, ScanKind, Type, UnaryOp};
use crate::views::{self, Layout};

/// The largest result the interpreter builds (it holds 32 bytes per element while computing).
const MAX_ELEMENTS: usize = 1 << 28;

/// Run `graph` on `inputs` (one per parameter, of its dtype and shape; symbolic dims bind to
/// the sizes they first meet) and return its results. The graph is verified first.
pub fn run(graph: &Graph, inputs: &[HostArray]) -> Result<Vec<HostArray>> {
    crate::verify(graph)?;
    if inputs.len() != graph.params.len() {
        return Err(Error::new(format!(
            "{} takes {} input(s), {} given",
            graph.name,
            graph.params.len(),
            inputs.len()
        )));
    }
    let mut symbols = HashMap::new();
    for (i, (ty, x)) in graph.params.iter().zip(inputs).enumerate() {
        bind(ty, x, &mut symbols).map_err(|e| Error::new(format!("input %{i}: {}", e.message)))?;
    }
    for (i, (ty, x)) in graph.params.iter().zip(inputs).enumerate() {
        check(ty, x, &symbols).map_err(|e| Error::new(format!("input %{i}: {}", e.message)))?;
    }
    control::run_graph(graph, inputs.to_vec(), &symbols)
}

fn bind(ty: &Type, x: &HostArray, symbols: &mut HashMap<String, usize>) -> Result<()> {
    if x.dtype() != ty.dtype || x.shape.len() != ty.shape.len() {
        return Err(Error::new(format!(
            "expected {ty}, got {}{:?}",
            x.dtype(),
            x.shape
        )));
    }
    for (d, &n) in ty.shape.iter().zip(&x.shape) {
        if let Some(s) = d.as_symbol() {
            if *symbols.entry(s.to_string()).or_insert(n) != n {
                return Err(Error::new(format!(
                    "symbol {s} is {} elsewhere but {n} here",
                    symbols[s]
                )));
            }
        }
    }
    Ok(())
}

/// Checks the dims that are not one symbol alone (static ones, `s0-1`, `2*s0`) once every
/// input has bound its symbols.
fn check(ty: &Type, x: &HostArray, symbols: &HashMap<String, usize>) -> Result<()> {
    for (d, &n) in ty.shape.iter().zip(&x.shape) {
        if d.as_symbol().is_none() && d.resolve(|s| symbols.get(s).copied()) != Some(n) {
            return Err(Error::new(format!(
                "expected {ty}, got {}{:?}",
                x.dtype(),
                x.shape
            )));
        }
    }
    Ok(())
}

fn concrete(shape: &[Dim], symbols: &HashMap<String, usize>) -> Result<Vec<usize>> {
    shape
        .iter()
        .map(|d| {
            d.resolve(|s| symbols.get(s).copied())
                .ok_or_else(|| Error::new(format!("the dim {d} is not given by the inputs' sizes")))
        })
        .collect()
}

/// The elements of `x` broadcast to `shape`, row-major.
fn broadcast(x: &HostArray, shape: &[usize]) -> Vec<Elem> {
    if x.shape == shape {
        return x.elems();
    }
    match views::broadcast(&Layout::contiguous(&x.shape), shape) {
        Some(layout) => layout
            .positions()
            .into_iter()
            .map(|p| x.get(p as usize))
            .collect(),
        None => x.elems(),
    }
}

/// Cast elements of dtype `from` to `to` (nothing to do when they are equal).
fn cast_from(elems: Vec<Elem>, from: DType, to: DType) -> Vec<Elem> {
    if from == to {
        return elems;
    }
    elems.into_iter().map(|e| scalar::cast(e, to)).collect()
}

fn scalar_elem(value: Scalar) -> Elem {
    match value {
        Scalar::Bool(b) => Elem::B(b),
        Scalar::Int(i) => Elem::I(i),
        Scalar::Float(x) => Elem::F(x),
    }
}

/// Evaluate one statement on its operands (`types` are the operands' declared types, which
/// decide NEP 50 promotion).
pub(crate) fn eval(
    node: &Node,
    types: &[&Type],
    args: &[&HostArray],
    symbols: &HashMap<String, usize>,
) -> Result<HostArray> {
    if types.len() != node.inputs.len() || args.len() != node.inputs.len() {
        return Err(Error::new("operand count differs from the statement"));
    }
    let shape = concrete(&node.ty.shape, symbols)?;
    let out = node.ty.dtype;
    let arg = |i: usize| args[i];
    let size = shape
        .iter()
        .try_fold(1usize, |acc, &n| acc.checked_mul(n))
        .filter(|&n| n <= MAX_ELEMENTS)
        .ok_or_else(|| {
            Error::new(format!(
                "a result of shape {shape:?} is too large for the interpreter"
            ))
        })?;
    let elems: Vec<Elem> = match &node.op {
        Op::Unary(u) => {
            let dt = dtypes::unary_loop(*u, arg(0).dtype())?;
            cast_from(arg(0).elems(), arg(0).dtype(), dt)
                .into_iter()
                .map(|x| scalar::fit(scalar::unary(*u, dt, x), out))
                .collect()
        }
        Op::Binary(b) => {
            let (resolved, _) = dtypes::resolve_operands(&[types[0], types[1]]);
            let dt = dtypes::binary_loop(*b, resolved[0], resolved[1])?;
            // A Python int that does not fit the loop dtype is an error, or compared exactly.
            let mut operands = Vec::with_capacity(2);
            for (x, ty) in args.iter().zip(types) {
                let elems = broadcast(x, &shape);
                let exact = match (ty.weak && x.len() == 1).then(|| x.get(0)) {
                    Some(Elem::I(v)) => !dtypes::weak_int_fits(*b, dt, v)?,
                    _ => false,
                };
                operands.push(if exact {
                    elems
                } else {
                    cast_from(elems, x.dtype(), dt)
                });
            }
            let ys = operands.pop().unwrap_or_default();
            let xs = operands.pop().unwrap_or_default();
            // NumPy's float power loop takes a fast path for a scalar exponent of 0.5, 2 or -1
            // (sqrt, square, reciprocal), which differs from `pow` at -0.0, -inf and in rounding.
            let fast = match (*b, dt.is_float(), arg(1).shape.is_empty()) {
                (BinaryOp::Pow, true, true) => match ys.first().copied() {
                    Some(Elem::F(0.5)) => Some(UnaryOp::Sqrt),
                    Some(Elem::F(2.0)) => Some(UnaryOp::Square),
                    Some(Elem::F(-1.0)) => Some(UnaryOp::Reciprocal),
                    _ => None,
                },
                _ => None,
            };
            match fast {
                Some(u) => xs
                    .into_iter()
                    .map(|x| scalar::fit(scalar::unary(u, dt, x), out))
                    .collect(),
                None => xs
                    .into_iter()
                    .zip(ys)
                    .map(|(x, y)| scalar::binary(*b, dt, x, y).map(|e| scalar::fit(e, out)))
                    .collect::<Result<_>>()?,
            }
        }
        Op::Where => {
            let c = broadcast(arg(0), &shape);
            let xs = cast_from(broadcast(arg(1), &shape), arg(1).dtype(), out);
            let ys = cast_from(broadcast(arg(2), &shape), arg(2).dtype(), out);
            c.iter()
                .zip(xs)
                .zip(ys)
                .map(|((c, x), y)| if c.truthy() { x } else { y })
                .collect()
        }
        Op::Astype { dtype } => cast_from(arg(0).elems(), arg(0).dtype(), *dtype),
        Op::Copy => arg(0).elems(),
        Op::Const { value, .. } | Op::Full { value, .. } => {
            vec![scalar::cast(scalar_elem(*value), out); size]
        }
        Op::Arange { start, step, .. } => (0..size)
            .map(|i| arange_elem(*start, *step, i, out))
            .collect(),
        Op::Eye { k, .. } => {
            let m = shape.get(1).copied().unwrap_or(0);
            (0..size)
                .map(|p| scalar::cast(Elem::B((p % m) as i64 - (p / m) as i64 == *k), out))
                .collect()
        }
        Op::Reduce { kind, axes, .. } => {
            return reduce::reduce(*kind, arg(0), axes.as_deref(), out, shape)
        }
        Op::ArgReduce { kind, axis, .. } => return reduce::arg_reduce(*kind, arg(0), *axis, shape),
        Op::Reshape { .. }
        | Op::Transpose { .. }
        | Op::BroadcastTo { .. }
        | Op::ExpandDims { .. }
        | Op::Squeeze { .. }
        | Op::Slice { .. }
        | Op::Flip { .. } => {
            let x = arg(0);
            let layout = views::apply(&Layout::contiguous(&x.shape), &node.op, &shape)
                .ok_or_else(|| Error::new("view of contiguous data needs no copy"))?;
            layout
                .positions()
                .into_iter()
                .map(|p| x.get(p as usize))
                .collect()
        }
        Op::Concatenate { axis } => concatenate(args, *axis, out),
        Op::Matmul => matmul(arg(0), arg(1), out, &shape),
        Op::Scan { kind, axis } => scan(*kind, arg(0), *axis, out)?,
        Op::Linalg { kind } => linalg::eval(*kind, args, &shape)?,
        Op::Gather { axis } => indexed::gather(arg(0), &args[1..], *axis)?,
        Op::ScatterAdd { axis, .. } => {
            indexed::scatter_add(arg(0), &args[1..], *axis, &shape, out)?
        }
        Op::Load => vec![arg(0).get(control::element(arg(0), &args[1..])?)],
        Op::Store => {
            let mut elems = arg(0).elems();
            elems[control::element(arg(0), &args[2..])?] = scalar::cast(arg(1).get(0), out);
            elems
        }
        Op::Loop { .. } | Op::If { .. } | Op::Result { .. } => {
            return Err(Error::new("a statement with regions runs in its graph"))
        }
    };
    Ok(HostArray::from_elems(out, shape, &elems))
}

/// `np.cumsum` / `np.cumprod` along `axis`: each element cast to the result dtype, then
/// combined in order with the running value, rounded (or wrapped) in that dtype at each step.
fn scan(kind: ScanKind, x: &HostArray, axis: usize, out: DType) -> Result<Vec<Elem>> {
    let op = match kind {
        ScanKind::Cumsum => BinaryOp::Add,
        ScanKind::Cumprod => BinaryOp::Mul,
        // The default kind's ties are NumPy's to order; the stable order is one valid answer.
        _ => return Ok(sort(kind.gives_positions(), x, axis)),
    };
    let mut elems = cast_from(x.elems(), x.dtype(), out);
    let n = x.shape[axis];
    let inner: usize = x.shape[axis + 1..].iter().product();
    for block in 0..x.shape[..axis].iter().product::<usize>() {
        for j in 0..inner {
            for i in 1..n {
                let at = (block * n + i) * inner + j;
                let previous = elems[at - inner];
                elems[at] = scalar::fit(scalar::binary(op, out, previous, elems[at])?, out);
            }
        }
    }
    Ok(elems)
}

/// `np.sort` / `np.argsort` (`positions`) along `axis`, stable, NaN after every number
/// (NumPy's order).
fn sort(positions: bool, x: &HostArray, axis: usize) -> Vec<Elem> {
    let elems = x.elems();
    let n = x.shape[axis];
    let inner: usize = x.shape[axis + 1..].iter().product();
    let mut out = elems.clone();
    for block in 0..x.shape[..axis].iter().product::<usize>() {
        for j in 0..inner {
            let at = |i: usize| (block * n + i) * inner + j;
            let mut order: Vec<usize> = (0..n).collect();
            order.sort_by(|&a, &b| sort_order(elems[at(a)], elems[at(b)]));
            for (i, &from) in order.iter().enumerate() {
                out[at(i)] = if positions {
                    Elem::I(from as i128)
                } else {
                    elems[at(from)]
                };
            }
        }
    }
    out
}

/// NumPy's sort order of two elements: numbers by value (-0.0 equal to 0.0), NaN last.
fn sort_order(a: Elem, b: Elem) -> std::cmp::Ordering {
    match (a, b) {
        (Elem::B(a), Elem::B(b)) => a.cmp(&b),
        (Elem::I(a), Elem::I(b)) => a.cmp(&b),
        (Elem::F(a), Elem::F(b)) => match (a.is_nan(), b.is_nan()) {
            (true, true) => std::cmp::Ordering::Equal,
            (true, false) => std::cmp::Ordering::Greater,
            (false, true) => std::cmp::Ordering::Less,
            (false, false) => a.partial_cmp(&b).unwrap_or(std::cmp::Ordering::Equal),
        },
        _ => std::cmp::Ordering::Equal,
    }
}

/// Element `i` of `np.arange`: `start + i*step`, exact for integers.
fn arange_elem(start: Scalar, step: Scalar, i: usize, out: DType) -> Elem {
    match (start, step) {
        (Scalar::Int(a), Scalar::Int(s)) if out.is_int() => {
            Elem::I(a.wrapping_add(s.wrapping_mul(i as i128)))
        }
        _ => scalar::cast(Elem::F(start.to_f64() + i as f64 * step.to_f64()), out),
    }
}

fn concatenate(xs: &[&HostArray], axis: usize, out: DType) -> Vec<Elem> {
    let outer: usize = xs[0].shape[..axis].iter().product();
    let parts: Vec<(Vec<Elem>, usize)> = xs
        .iter()
        .map(|x| {
            (
                cast_from(x.elems(), x.dtype(), out),
                x.shape[axis..].iter().product::<usize>(),
            )
        })
        .collect();
    let mut result = Vec::new();
    for o in 0..outer {
        for (elems, chunk) in &parts {
            result.extend_from_slice(&elems[o * chunk..(o + 1) * chunk]);
        }
    }
    result
}

/// `np.matmul`: 1-D operands are promoted to matrices; batches broadcast. Float dot products
/// accumulate in f64 and round once; integers wrap; bools are `any(a & b)`.
fn matmul(a: &HostArray, b: &HostArray, out: DType, out_shape: &[usize]) -> Vec<Elem> {
    let a_shape: Vec<usize> = if a.shape.len() == 1 {
        vec![1, a.shape[0]]
    } else {
        a.shape.clone()
    };
    let b_shape: Vec<usize> = if b.shape.len() == 1 {
        vec![b.shape[0], 1]
    } else {
        b.shape.clone()
    };
    let (m, k) = (a_shape[a_shape.len() - 2], a_shape[a_shape.len() - 1]);
    let n = b_shape[b_shape.len() - 1];
    let batch_ndim = a_shape.len().max(b_shape.len()) - 2;
    let batch: Vec<usize> = out_shape[..batch_ndim.min(out_shape.len())].to_vec();
    let spread = |x: &HostArray, shape: &[usize], rows: usize, cols: usize| {
        let view = HostArray {
            shape: shape.to_vec(),
            data: x.data.clone(),
        };
        let mut full = batch.clone();
        full.extend([rows, cols]);
        cast_from(broadcast(&view, &full), x.dtype(), out)
    };
    let (xa, xb) = (spread(a, &a_shape, m, k), spread(b, &b_shape, k, n));
    let batches: usize = batch.iter().product();
    let mut result = Vec::with_capacity(batches * m * n);
    for t in 0..batches {
        for i in 0..m {
            for j in 0..n {
                let pairs = (0..k).map(|p| (xa[t * m * k + i * k + p], xb[t * k * n + p * n + j]));
                let dot = match out.kind() {
                    crate::ir::Kind::Bool => {
                        Elem::B(pairs.into_iter().any(|(x, y)| x.truthy() && y.truthy()))
                    }
                    crate::ir::Kind::Float => {
                        // From +0.0 as NumPy (Rust's float `sum` starts from -0.0).
                        Elem::F(pairs.fold(0.0, |acc, (x, y)| acc + elem_f64(x) * elem_f64(y)))
                    }
                    _ => Elem::I(pairs.fold(0i128, |acc, (x, y)| {
                        acc.wrapping_add(elem_i128(x).wrapping_mul(elem_i128(y)))
                    })),
                };
                result.push(scalar::fit(dot, out));
            }
        }
    }
    result
}

fn elem_f64(e: Elem) -> f64 {
    if let Elem::F(x) = scalar::cast(e, DType::F64) {
        x
    } else {
        0.0
    }
}

fn elem_i128(e: Elem) -> i128 {
    match e {
        Elem::I(i) => i,
        other => i128::from(other.truthy()),
    }
}
