//! Loop bodies that compute with short arrays, element by element: `x = x * 0.5 + y[i]` on
//! eight elements, a 3-vector of velocities, `v @ w` of two short rows. Such a body computes
//! with whole arrays, so a back end runs it as a graph of its own on every trip (a few kernel
//! launches, hundreds of nanoseconds each); written element by element it is 0-d values,
//! `load` and `store`, which a back end compiles into one native loop with its values in
//! registers. A body is rewritten only when every statement can be: elementwise ops, `full`,
//! views, whole-array `sum prod max min mean`, products of vectors and matrices, and element
//! access at constant positions on arrays of at most [`MAX_ELEMENTS`] elements. A carried
//! array computed so is stored, element by element, into its own parameter (which nothing
//! reads afterwards: linear use, checked), as a body updating it in place would.

mod arrays;

use std::collections::HashMap;
use std::sync::Arc;

use super::short_loops::unroll_short_loops;
use crate::error::Result;
use crate::ir::{DType, Graph, Node, Op, OpClass, Scalar, Type, ValueId};

/// Arrays up to this many elements are computed element by element.
pub const MAX_ELEMENTS: usize = 128;

/// A rewritten body may grow to this many statements, no more.
pub(super) const MAX_STATEMENTS: usize = 4096;

/// The pass: every loop body of `graph` (inner loops first) that can be written element by
/// element, so written.
pub fn scalarize(graph: &Graph) -> Result<Graph> {
    let rewrites = graph
        .nodes
        .iter()
        .map(|node| rewrite_statement(&node.op))
        .collect::<Result<Vec<_>>>()?;
    // A rewrite is kept where the graph verifies with it and those kept before it. Each
    // statement's rewrite depends on that statement alone, so all are tried together first:
    // one verification of the graph rather than one per loop and branch (quadratic in a
    // graph of many branches).
    let mut out = graph.clone();
    for (node, rewrite) in out.nodes.iter_mut().zip(&rewrites) {
        if let Some((op, _)) = rewrite {
            node.op = op.clone();
        }
    }
    if !rewrites.iter().flatten().any(|(_, checked)| *checked) || crate::verify(&out).is_ok() {
        return Ok(out);
    }
    let mut out = graph.clone();
    for (k, rewrite) in rewrites.into_iter().enumerate() {
        let Some((op, checked)) = rewrite else {
            continue;
        };
        let before = std::mem::replace(&mut out.nodes[k].op, op);
        // Anything the rewrite got wrong (a type, linear use) keeps the statement as it was.
        if checked && crate::verify(&out).is_err() {
            out.nodes[k].op = before;
        }
    }
    Ok(out)
}

/// A statement's regions scalarized, with whether the graph must be verified to keep that
/// (a branch; a loop whose body was rewritten); None for a statement without regions.
fn rewrite_statement(op: &Op) -> Result<Option<(Op, bool)>> {
    if let Op::If { then, otherwise } = op {
        // A branch filling a scratch row (`tmp = A[k].copy()` of a row swap) is written
        // out as a loop body is; it carries nothing, so every array it returns stays one.
        let op = Op::If {
            then: Arc::new(scalar_branch(then)?),
            otherwise: Arc::new(scalar_branch(otherwise)?),
        };
        return Ok(Some((op, true)));
    }
    let Op::Loop { body, carried } = op else {
        return Ok(None);
    };
    let carried = *carried;
    let inner = scalarize(body)?;
    // An inner loop filling a short array (a window gathered element by element,
    // `table[x]` of a short `x`) is unrolled first, so that the array it carries is
    // elements too; the body as it was is tried where that does not make it scalar.
    let scalar = unroll_short_loops(&inner)
        .and_then(|unrolled| Body::rewrite(&unrolled, carried))
        .or_else(|| Body::rewrite(&inner, carried));
    let (body, rewritten) = match scalar {
        Some(scalar) => (scalar, true),
        None => (inner, false),
    };
    let op = Op::Loop {
        body: Arc::new(body),
        carried,
    };
    Ok(Some((op, rewritten)))
}

/// A region of an `if`, its loops scalarized, and itself written element by element where it
/// can be (it carries nothing).
fn scalar_branch(region: &Graph) -> Result<Graph> {
    let inner = scalarize(region)?;
    Ok(unroll_short_loops(&inner)
        .and_then(|unrolled| Body::rewrite(&unrolled, 0))
        .or_else(|| Body::rewrite(&inner, 0))
        .unwrap_or(inner))
}

/// Whether a graph is made only of 0-d values, element access and regions made so: what a
/// back end compiles into one native function.
pub fn is_scalar_region(g: &Graph) -> bool {
    g.nodes.iter().all(|n| match n.op.class() {
        OpClass::Region => n.op.regions().into_iter().all(|r| is_scalar_region(r)),
        OpClass::Access | OpClass::Projection => true,
        _ => {
            n.ty.shape.is_empty()
                && n.inputs
                    .iter()
                    .all(|&v| g.value_type(v).is_some_and(|t| t.shape.is_empty()))
        }
    })
}

/// A value of the body being rewritten: as it is in the new body, or a short array as its
/// elements (row-major) and shape.
#[derive(Clone)]
enum Repr {
    Same(ValueId),
    Elements(Vec<usize>, Vec<ValueId>),
}

struct Body<'a> {
    old: &'a Graph,
    new: Graph,
    values: Vec<Repr>,
    /// `load`s made of an array's version at a constant position.
    loads: HashMap<(ValueId, usize), ValueId>,
    /// 0-d index constants, by value.
    indices: HashMap<i64, ValueId>,
    /// Old values that are versions of a carried result (`h2 = h * 0.9; h2[i] = v; h = h2`):
    /// the parameter they end up in, where one accessed at a run-time position is written.
    destinations: HashMap<ValueId, usize>,
}

impl<'a> Body<'a> {
    /// `old` written element by element, or None where some statement cannot be or nothing
    /// would be gained.
    fn rewrite(old: &'a Graph, carried: usize) -> Option<Graph> {
        if is_scalar_region(old) {
            return None;
        }
        let mut body = Body {
            old,
            new: Graph::new(old.name.clone(), old.params.clone()),
            values: (0..old.params.len())
                .map(|p| Repr::Same(old.param(p)))
                .collect(),
            loads: HashMap::new(),
            indices: HashMap::new(),
            destinations: destinations(old, carried),
        };
        for node in &old.nodes {
            let repr = body.statement(node)?;
            body.values.push(repr);
            if body.new.nodes.len() > MAX_STATEMENTS {
                return None;
            }
        }
        let mut results = Vec::with_capacity(old.results.len());
        for (k, &r) in old.results.iter().enumerate() {
            let value = match body.values[r.index()].clone() {
                Repr::Same(v) => v,
                // Result k of a loop body (after `go`) is carried value k, parameter k.
                Repr::Elements(shape, elements) if (1..=carried).contains(&k) => {
                    body.store_into_param(k, &shape, &elements)?
                }
                Repr::Elements(..) => return None,
            };
            results.push(value);
        }
        body.new.results = results;
        is_scalar_region(&body.new).then_some(body.new)
    }

    fn statement(&mut self, node: &Node) -> Option<Repr> {
        let small = node
            .ty
            .static_shape()
            .filter(|s| s.iter().product::<usize>() <= MAX_ELEMENTS);
        match &node.op {
            Op::Load => return self.load(node),
            Op::Store => return self.store(node),
            _ => {}
        }
        // A statement of 0-d values stays as it was; so does a region statement, and a
        // projection of one, whatever it carries (a loop or branch updating a long array, or
        // a short one held whole, in place): native code runs those on the arrays.
        let scalar_inputs = node
            .inputs
            .iter()
            .all(|&v| self.old.value_type(v).is_some_and(|t| t.shape.is_empty()));
        let class = node.op.class();
        if (node.ty.shape.is_empty() && scalar_inputs)
            || class == OpClass::Region
            || (class == OpClass::Projection
                && self.old.node(node.inputs[0]).map(|n| n.op.class()) == Some(OpClass::Region))
        {
            return self.copy(node);
        }
        let shape = small?;
        let repr = self.array_statement(node, shape)?;
        // A 0-d result (`squeeze`, a reduction) is a value of its own.
        Some(match repr {
            Repr::Elements(shape, elements) if shape.is_empty() => Repr::Same(elements[0]),
            repr => repr,
        })
    }

    fn array_statement(&mut self, node: &Node, shape: Vec<usize>) -> Option<Repr> {
        match &node.op {
            Op::Full { value, dtype, .. } => {
                let c = self.constant(*value, *dtype);
                let n = shape.iter().product();
                Some(Repr::Elements(shape, vec![c; n]))
            }
            Op::Eye { k, dtype, .. } => {
                // `np.eye(2)` in a body: its ones and zeros.
                let [n, m] = shape[..] else { return None };
                let value_of = |one: bool| {
                    if dtype.is_float() {
                        Scalar::Float(if one { 1.0 } else { 0.0 })
                    } else {
                        Scalar::Int(i128::from(one))
                    }
                };
                if *dtype == DType::Bool {
                    return None;
                }
                let one = self.constant(value_of(true), *dtype);
                let zero = self.constant(value_of(false), *dtype);
                let elements = (0..n * m)
                    .map(|p| {
                        if (p % m) as i64 - (p / m) as i64 == *k {
                            one
                        } else {
                            zero
                        }
                    })
                    .collect();
                Some(Repr::Elements(shape, elements))
            }
            Op::Concatenate { axis } => self.concatenate(node, *axis, &shape),
            Op::Unary(_) | Op::Binary(_) | Op::Where | Op::Astype { .. } => {
                self.elementwise(node, &shape)
            }
            Op::Copy
            | Op::Reshape { .. }
            | Op::Squeeze { .. }
            | Op::ExpandDims { .. }
            | Op::BroadcastTo { .. }
            | Op::Transpose { .. }
            | Op::Slice { .. }
            | Op::Flip { .. } => self.view(node, &shape),
            Op::Reduce {
                kind,
                axes,
                keepdims,
            } => self.reduce(node, *kind, axes.as_deref(), *keepdims),
            Op::ArgReduce {
                kind,
                axis,
                keepdims: false,
            } => self.arg_reduce(node, *kind, *axis),
            Op::Arange {
                start, step, dtype, ..
            } => self.arange(*start, *step, *dtype, &shape),
            Op::Matmul => self.matmul(node, &shape),
            _ => None,
        }
    }

    /// A statement of 0-d values (or a region statement, or its projection) as it was, on
    /// the new body's values; None when an operand is a short array now written out.
    fn copy(&mut self, node: &Node) -> Option<Repr> {
        if node.op.class() == OpClass::Region
            && !node.op.regions().into_iter().all(|r| is_scalar_region(r))
        {
            return None;
        }
        let inputs = node
            .inputs
            .iter()
            .map(|&v| match &self.values[v.index()] {
                Repr::Same(x) => Some(*x),
                Repr::Elements(..) => None,
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Repr::Same(self.new.push(
            node.op.clone(),
            inputs,
            node.ty.clone(),
        )))
    }

    /// The constant index `v` of the old body, if it is one.
    fn constant_index(&self, v: ValueId) -> Option<i64> {
        match self.old.node(v)?.op {
            Op::Const {
                value: Scalar::Int(i),
                ..
            } => i64::try_from(i).ok(),
            _ => None,
        }
    }

    /// The row-major position of constant indices into `shape` (negative ones counting from
    /// the end); None when one is not constant or out of bounds (the access raises as it was).
    fn position(&self, shape: &[usize], indices: &[ValueId]) -> Option<usize> {
        let mut pos = 0usize;
        for (&size, &i) in shape.iter().zip(indices) {
            let i = self.constant_index(i)?;
            let wrapped = if i < 0 { i + size as i64 } else { i };
            if !(0..size as i64).contains(&wrapped) {
                return None;
            }
            pos = pos * size + wrapped as usize;
        }
        Some(pos)
    }

    fn load(&mut self, node: &Node) -> Option<Repr> {
        match self.values[node.inputs[0].index()].clone() {
            Repr::Elements(shape, elements) => match self.position(&shape, &node.inputs[1..]) {
                Some(pos) => Some(Repr::Same(elements[pos])),
                None => self.write_out_then_copy(node, &shape, &elements),
            },
            Repr::Same(_) => self.copy(node),
        }
    }

    /// An access at a run-time position into a short array written element by element: the
    /// array is stored into the parameter it ends up in, and accessed there.
    fn write_out_then_copy(
        &mut self,
        node: &Node,
        shape: &[usize],
        elements: &[ValueId],
    ) -> Option<Repr> {
        let array = node.inputs[0];
        let param = *self.destinations.get(&array)?;
        let stored = self.store_into_param(param, shape, elements)?;
        self.values[array.index()] = Repr::Same(stored);
        self.copy(node)
    }

    fn store(&mut self, node: &Node) -> Option<Repr> {
        match self.values[node.inputs[0].index()].clone() {
            Repr::Elements(shape, mut elements) => {
                let Some(pos) = self.position(&shape, &node.inputs[2..]) else {
                    return self.write_out_then_copy(node, &shape, &elements);
                };
                let Repr::Same(value) = self.values[node.inputs[1].index()] else {
                    return None;
                };
                // A store casts; the elements keep their array's dtype exactly.
                if self.new.value_type(value)?.dtype != node.ty.dtype {
                    return None;
                }
                elements[pos] = value;
                Some(Repr::Elements(shape, elements))
            }
            Repr::Same(_) => self.copy(node),
        }
    }

    /// A strong 0-d constant.
    fn constant(&mut self, value: Scalar, dtype: DType) -> ValueId {
        self.new.push(
            Op::Const {
                value,
                dtype,
                weak: false,
            },
            Vec::new(),
            Type::new(dtype, Vec::new()),
        )
    }

    fn index(&mut self, i: i64) -> ValueId {
        *self.indices.entry(i).or_insert_with(|| {
            self.new.push(
                Op::Const {
                    value: Scalar::Int(i128::from(i)),
                    dtype: DType::I64,
                    weak: true,
                },
                Vec::new(),
                Type {
                    dtype: DType::I64,
                    shape: Vec::new(),
                    weak: true,
                },
            )
        })
    }

    /// Old value `v` as its shape and elements: a 0-d value is one element; an array the new
    /// body holds as such (a parameter) is read element by element.
    fn elements(&mut self, v: ValueId) -> Option<(Vec<usize>, Vec<ValueId>)> {
        match self.values[v.index()].clone() {
            Repr::Elements(shape, elements) => Some((shape, elements)),
            Repr::Same(x) => {
                let shape = self.new.value_type(x)?.static_shape()?;
                let n: usize = shape.iter().product();
                if n > MAX_ELEMENTS {
                    return None;
                }
                let mut elements = Vec::with_capacity(n);
                for pos in 0..n {
                    if let Some(&e) = self.loads.get(&(x, pos)) {
                        elements.push(e);
                        continue;
                    }
                    let mut inputs = vec![x];
                    for i in unravel(pos, &shape) {
                        inputs.push(self.index(i as i64));
                    }
                    let dtype = self.new.value_type(x)?.dtype;
                    let e = if shape.is_empty() {
                        x
                    } else {
                        self.new
                            .push(Op::Load, inputs, Type::new(dtype, Vec::new()))
                    };
                    self.loads.insert((x, pos), e);
                    elements.push(e);
                }
                Some((shape, elements))
            }
        }
    }

    /// Pushes `op` on 0-d operands, checking that it has the dtype the array op had.
    fn scalar_op(&mut self, op: Op, inputs: Vec<ValueId>, dtype: DType) -> Option<ValueId> {
        let v = self.new.add(op, inputs).ok()?;
        (self.new.value_type(v)?.dtype == dtype).then_some(v)
    }

    /// Stores a carried array's elements into the latest version of its own parameter.
    fn store_into_param(
        &mut self,
        param: usize,
        shape: &[usize],
        elements: &[ValueId],
    ) -> Option<ValueId> {
        let ty = self.new.params.get(param)?.clone();
        if ty.static_shape()? != shape || ty.weak {
            return None;
        }
        let mut current = (0..self.new.nodes.len())
            .rev()
            .map(|i| self.new.node_value(i))
            .find(|&v| {
                matches!(self.new.node(v).map(|n| &n.op), Some(Op::Store))
                    && self.new.version_root(v) == Some(param)
            })
            .unwrap_or(self.new.param(param));
        for (pos, &e) in elements.iter().enumerate() {
            if self.new.value_type(e)?.dtype != ty.dtype {
                return None;
            }
            let mut inputs = vec![current, e];
            for i in unravel(pos, shape) {
                inputs.push(self.index(i as i64));
            }
            current = self.new.push(Op::Store, inputs, ty.clone());
        }
        Some(current)
    }
}

/// Each old value that carried result `k` is a version of (through `store`), mapped to `k`.
fn destinations(body: &Graph, carried: usize) -> HashMap<ValueId, usize> {
    let mut out = HashMap::new();
    for (k, &r) in body.results.iter().enumerate().skip(1).take(carried) {
        let mut v = r;
        loop {
            out.insert(v, k);
            match body.node(v) {
                Some(node) if node.op == Op::Store => v = node.inputs[0],
                _ => break,
            }
        }
    }
    out
}

fn unravel(mut pos: usize, shape: &[usize]) -> Vec<usize> {
    let mut index = vec![0; shape.len()];
    for (a, &size) in shape.iter().enumerate().rev() {
        index[a] = pos % size.max(1);
        pos /= size.max(1);
    }
    index
}

fn ravel(index: &[usize], shape: &[usize]) -> usize {
    index
        .iter()
        .zip(shape)
        .fold(0, |pos, (&i, &size)| pos * size + i)
}

/// The position in an operand of `shape` that NumPy's broadcasting reads for output `index`.
fn broadcast_position(index: &[usize], shape: &[usize]) -> Option<usize> {
    let skip = index.len().checked_sub(shape.len())?;
    let src: Vec<usize> = shape
        .iter()
        .enumerate()
        .map(|(a, &size)| if size == 1 { 0 } else { index[skip + a] })
        .collect();
    Some(ravel(&src, shape))
}
