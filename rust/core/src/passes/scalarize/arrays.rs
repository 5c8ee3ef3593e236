//! The array statements of a body that [`super`] writes element by element: elementwise ops,
//! views, `concatenate`, reductions, `arange` and products of short vectors and matrices, each
//! turned into the 0-d statements that compute its elements.

use super::{broadcast_position, ravel, unravel, Body, Repr};
use crate::ir::{ArgReduceKind, BinaryOp, DType, Node, Op, ReduceKind, Scalar, UnaryOp, ValueId};

impl Body<'_> {
    pub(super) fn elementwise(&mut self, node: &Node, shape: &[usize]) -> Option<Repr> {
        let operands = node
            .inputs
            .iter()
            .map(|&v| self.elements(v))
            .collect::<Option<Vec<_>>>()?;
        let n: usize = shape.iter().product();
        let mut out = Vec::with_capacity(n);
        for pos in 0..n {
            let index = unravel(pos, shape);
            let inputs = operands
                .iter()
                .map(|(s, e)| broadcast_position(&index, s).map(|p| e[p]))
                .collect::<Option<Vec<_>>>()?;
            out.push(self.scalar_op(node.op.clone(), inputs, node.ty.dtype)?);
        }
        Some(Repr::Elements(shape.to_vec(), out))
    }

    pub(super) fn view(&mut self, node: &Node, shape: &[usize]) -> Option<Repr> {
        let (in_shape, elements) = self.elements(node.inputs[0])?;
        let n: usize = shape.iter().product();
        let pick = |pos: usize| -> Option<usize> {
            let index = unravel(pos, shape);
            match &node.op {
                // Row-major order is kept by these.
                Op::Copy | Op::Reshape { .. } | Op::Squeeze { .. } | Op::ExpandDims { .. } => {
                    Some(pos)
                }
                Op::BroadcastTo { .. } => broadcast_position(&index, &in_shape),
                Op::Transpose { perm } => {
                    let mut src = vec![0; in_shape.len()];
                    for (a, &p) in perm.iter().enumerate() {
                        src[p] = index[a];
                    }
                    Some(ravel(&src, &in_shape))
                }
                Op::Flip { axes } => {
                    let src: Vec<usize> = index
                        .iter()
                        .enumerate()
                        .map(|(a, &i)| {
                            if axes.contains(&a) {
                                in_shape[a] - 1 - i
                            } else {
                                i
                            }
                        })
                        .collect();
                    Some(ravel(&src, &in_shape))
                }
                Op::Slice { start, step, .. } => {
                    let src = index
                        .iter()
                        .enumerate()
                        .map(|(a, &i)| {
                            let at = start.get(a).copied().unwrap_or(0)
                                + i as i64 * step.get(a).copied().unwrap_or(1);
                            usize::try_from(at).ok().filter(|&x| x < in_shape[a])
                        })
                        .collect::<Option<Vec<_>>>()?;
                    Some(ravel(&src, &in_shape))
                }
                _ => None,
            }
        };
        let out = (0..n)
            .map(|pos| pick(pos).and_then(|p| elements.get(p).copied()))
            .collect::<Option<Vec<_>>>()?;
        Some(Repr::Elements(shape.to_vec(), out))
    }

    /// `np.concatenate` (and `np.array` of computed scalars, made of it): each output element
    /// the element of the operand its position along `axis` falls in.
    pub(super) fn concatenate(
        &mut self,
        node: &Node,
        axis: usize,
        shape: &[usize],
    ) -> Option<Repr> {
        let parts = node
            .inputs
            .iter()
            .map(|&v| self.elements(v))
            .collect::<Option<Vec<_>>>()?;
        if parts.iter().any(|(s, e)| {
            s.len() != shape.len()
                || e.first()
                    .and_then(|&x| self.new.value_type(x))
                    .map(|t| t.dtype)
                    != Some(node.ty.dtype)
        }) {
            return None;
        }
        let n: usize = shape.iter().product();
        let mut out = Vec::with_capacity(n);
        for pos in 0..n {
            let mut index = unravel(pos, shape);
            let mut part = 0;
            while index[axis] >= parts.get(part)?.0[axis] {
                index[axis] -= parts[part].0[axis];
                part += 1;
            }
            let (s, e) = &parts[part];
            out.push(*e.get(ravel(&index, s))?);
        }
        Some(Repr::Elements(shape.to_vec(), out))
    }

    /// A whole-array `sum prod max min mean` in NumPy's order: sums pairwise as NumPy's inner
    /// loop does for a short row (one running sum below 8 elements, eight above).
    pub(super) fn reduce(
        &mut self,
        node: &Node,
        kind: ReduceKind,
        axes: Option<&[usize]>,
        keepdims: bool,
    ) -> Option<Repr> {
        let (shape, elements) = self.elements(node.inputs[0])?;
        let all = axes.is_none_or(|a| a.len() == shape.len());
        if !all || elements.is_empty() {
            return None;
        }
        let dtype = node.ty.dtype;
        let in_dtype = self.new.value_type(elements[0])?.dtype;
        let float = matches!(dtype, DType::F32 | DType::F64);
        // Integer sums and products wrap, in any order; float ones keep their input dtype.
        let accumulates = match kind {
            ReduceKind::Max | ReduceKind::Min => in_dtype == dtype,
            ReduceKind::Sum | ReduceKind::Prod => {
                in_dtype == dtype || (!float && !matches!(in_dtype, DType::F32 | DType::F64))
            }
            ReduceKind::Mean => float && in_dtype == dtype,
            // A truth value of each element (`x != 0`, NaN true) first.
            ReduceKind::Any | ReduceKind::All => dtype == DType::Bool,
        };
        if !accumulates {
            return None;
        }
        let mut xs = Vec::with_capacity(elements.len());
        for &e in &elements {
            xs.push(if in_dtype == dtype {
                e
            } else {
                self.scalar_op(Op::Astype { dtype }, vec![e], dtype)?
            });
        }
        let value = match kind {
            ReduceKind::Any | ReduceKind::All if dtype == DType::Bool => {
                let op = if kind == ReduceKind::Any {
                    BinaryOp::LogicalOr
                } else {
                    BinaryOp::LogicalAnd
                };
                self.fold(op, &xs, dtype)?
            }
            ReduceKind::Max => self.fold(BinaryOp::Maximum, &xs, dtype)?,
            ReduceKind::Min => self.fold(BinaryOp::Minimum, &xs, dtype)?,
            ReduceKind::Prod => self.fold(BinaryOp::Mul, &xs, dtype)?,
            ReduceKind::Sum if !float => self.fold(BinaryOp::Add, &xs, dtype)?,
            ReduceKind::Sum => self.pairwise_sum(&xs, dtype)?,
            ReduceKind::Mean => {
                let sum = self.pairwise_sum(&xs, dtype)?;
                let n = self.index(xs.len() as i64);
                self.scalar_op(Op::Binary(BinaryOp::Div), vec![sum, n], dtype)?
            }
            _ => return None,
        };
        if node.ty.shape.is_empty() {
            return Some(Repr::Same(value));
        }
        let ones = node.ty.static_shape()?;
        (keepdims && ones.iter().all(|&d| d == 1)).then(|| Repr::Elements(ones, vec![value]))
    }

    /// `argmax`/`argmin` of a whole short array (or its one axis) as NumPy picks: the first
    /// place of the extreme, the first NaN where there is one (a later element replaces the
    /// best so far only when strictly beyond it, or NaN where the best is not).
    pub(super) fn arg_reduce(
        &mut self,
        node: &Node,
        kind: ArgReduceKind,
        axis: Option<usize>,
    ) -> Option<Repr> {
        let (shape, xs) = self.elements(node.inputs[0])?;
        if xs.is_empty() || (axis.is_some() && shape.len() != 1) || !node.ty.shape.is_empty() {
            return None;
        }
        let dtype = node.ty.dtype;
        let in_dtype = self.new.value_type(xs[0])?.dtype;
        let float = matches!(in_dtype, DType::F32 | DType::F64);
        let (mut best, mut place) = (xs[0], self.constant(Scalar::Int(0), dtype));
        for (k, &x) in xs.iter().enumerate().skip(1) {
            let beyond = if in_dtype == DType::Bool {
                // argmax: the first true; argmin: the first false.
                let (a, b) = if kind == ArgReduceKind::Argmax {
                    (x, best)
                } else {
                    (best, x)
                };
                let not_b = self.scalar_op(Op::Unary(UnaryOp::LogicalNot), vec![b], DType::Bool)?;
                self.scalar_op(
                    Op::Binary(BinaryOp::LogicalAnd),
                    vec![a, not_b],
                    DType::Bool,
                )?
            } else {
                let cmp = if kind == ArgReduceKind::Argmax {
                    BinaryOp::Gt
                } else {
                    BinaryOp::Lt
                };
                let strictly = self.scalar_op(Op::Binary(cmp), vec![x, best], DType::Bool)?;
                if float {
                    let nan = self.scalar_op(Op::Unary(UnaryOp::Isnan), vec![x], DType::Bool)?;
                    let best_nan =
                        self.scalar_op(Op::Unary(UnaryOp::Isnan), vec![best], DType::Bool)?;
                    let number = self.scalar_op(
                        Op::Unary(UnaryOp::LogicalNot),
                        vec![best_nan],
                        DType::Bool,
                    )?;
                    let first_nan = self.scalar_op(
                        Op::Binary(BinaryOp::LogicalAnd),
                        vec![nan, number],
                        DType::Bool,
                    )?;
                    self.scalar_op(
                        Op::Binary(BinaryOp::LogicalOr),
                        vec![strictly, first_nan],
                        DType::Bool,
                    )?
                } else {
                    strictly
                }
            };
            best = self.scalar_op(Op::Where, vec![beyond, x, best], in_dtype)?;
            let here = self.constant(Scalar::Int(k as i128), dtype);
            place = self.scalar_op(Op::Where, vec![beyond, here, place], dtype)?;
        }
        Some(Repr::Same(place))
    }

    /// `np.arange` of a short static length: its elements as constants, for integer dtypes
    /// (a float arange's steps are NumPy's own rounding, left to the array kernel).
    pub(super) fn arange(
        &mut self,
        start: Scalar,
        step: Scalar,
        dtype: DType,
        shape: &[usize],
    ) -> Option<Repr> {
        let (Scalar::Int(start), Scalar::Int(step)) = (start, step) else {
            return None;
        };
        if dtype.is_float() || dtype == DType::Bool || shape.len() != 1 {
            return None;
        }
        let elements = (0..shape[0])
            .map(|k| self.constant(Scalar::Int(start + step * k as i128), dtype))
            .collect();
        Some(Repr::Elements(shape.to_vec(), elements))
    }

    pub(super) fn fold(&mut self, op: BinaryOp, xs: &[ValueId], dtype: DType) -> Option<ValueId> {
        let mut acc = xs[0];
        for &x in &xs[1..] {
            acc = self.scalar_op(Op::Binary(op), vec![acc, x], dtype)?;
        }
        Some(acc)
    }

    /// NumPy's float sum of a short contiguous row: from +0.0 one by one below 8 elements;
    /// else eight running sums, added as a tree, then the rest one by one.
    pub(super) fn pairwise_sum(&mut self, xs: &[ValueId], dtype: DType) -> Option<ValueId> {
        let add = |b: &mut Self, x: ValueId, y: ValueId| {
            b.scalar_op(Op::Binary(BinaryOp::Add), vec![x, y], dtype)
        };
        if xs.len() < 8 {
            let mut acc = self.constant(Scalar::Float(0.0), dtype);
            for &x in xs {
                acc = add(self, acc, x)?;
            }
            return Some(acc);
        }
        let mut r: Vec<ValueId> = xs[..8].to_vec();
        let whole = xs.len() - xs.len() % 8;
        let mut i = 8;
        while i < whole {
            for j in 0..8 {
                r[j] = add(self, r[j], xs[i + j])?;
            }
            i += 8;
        }
        let a = add(self, r[0], r[1])?;
        let b = add(self, r[2], r[3])?;
        let c = add(self, r[4], r[5])?;
        let d = add(self, r[6], r[7])?;
        let ab = add(self, a, b)?;
        let cd = add(self, c, d)?;
        let mut acc = add(self, ab, cd)?;
        for &x in &xs[whole..] {
            acc = add(self, acc, x)?;
        }
        Some(acc)
    }

    /// `a @ b` of vectors and matrices: each output element a running sum of products.
    pub(super) fn matmul(&mut self, node: &Node, shape: &[usize]) -> Option<Repr> {
        let (sa, ea) = self.elements(node.inputs[0])?;
        let (sb, eb) = self.elements(node.inputs[1])?;
        let dtype = node.ty.dtype;
        for &e in [ea.first()?, eb.first()?] {
            if self.new.value_type(e)?.dtype != dtype {
                return None;
            }
        }
        // As matrices: (m, k) @ (k, p), a vector's missing axis of size 1.
        let (m, k) = match sa.as_slice() {
            [k] => (1, *k),
            [m, k] => (*m, *k),
            _ => return None,
        };
        let (k2, p) = match sb.as_slice() {
            [k] => (*k, 1),
            [k, p] => (*k, *p),
            _ => return None,
        };
        if k != k2 || k == 0 || m * p != shape.iter().product::<usize>().max(1) {
            return None;
        }
        let mut out = Vec::with_capacity(m * p);
        for i in 0..m {
            for j in 0..p {
                let mut acc =
                    self.scalar_op(Op::Binary(BinaryOp::Mul), vec![ea[i * k], eb[j]], dtype)?;
                for t in 1..k {
                    let prod = self.scalar_op(
                        Op::Binary(BinaryOp::Mul),
                        vec![ea[i * k + t], eb[t * p + j]],
                        dtype,
                    )?;
                    acc = self.scalar_op(Op::Binary(BinaryOp::Add), vec![acc, prod], dtype)?;
                }
                out.push(acc);
            }
        }
        if shape.is_empty() {
            return Some(Repr::Same(out[0]));
        }
        Some(Repr::Elements(shape.to_vec(), out))
    }
}
