//! Appending typed ops to a graph while gradient rules run: every helper infers the result
//! type with the same rules as any captured op, so a joint graph is an ordinary graph.

use crate::error::{Error, Result};
use crate::infer::shapes;
use crate::ir::{BinaryOp, DType, Dim, Graph, Op, ReduceKind, Scalar, Type, UnaryOp, ValueId};

/// A graph being extended with the backward half.
pub struct Emitter<'g> {
    /// The graph receiving the ops.
    pub graph: &'g mut Graph,
}

impl Emitter<'_> {
    /// The type of a value already in the graph.
    pub fn ty(&self, v: ValueId) -> Type {
        self.graph
            .value_type(v)
            .cloned()
            .expect("gradient rules only read values of the graph")
    }

    /// Append `op(inputs)` with its inferred type.
    pub fn op(&mut self, op: Op, inputs: Vec<ValueId>) -> Result<ValueId> {
        self.graph.add(op, inputs)
    }

    /// An elementwise op of one operand.
    pub fn unary(&mut self, u: UnaryOp, x: ValueId) -> Result<ValueId> {
        self.op(Op::Unary(u), vec![x])
    }

    /// An elementwise op of two operands.
    pub fn binary(&mut self, b: BinaryOp, x: ValueId, y: ValueId) -> Result<ValueId> {
        self.op(Op::Binary(b), vec![x, y])
    }

    /// `x + y`.
    pub fn add(&mut self, x: ValueId, y: ValueId) -> Result<ValueId> {
        self.binary(BinaryOp::Add, x, y)
    }

    /// `x * y`.
    pub fn mul(&mut self, x: ValueId, y: ValueId) -> Result<ValueId> {
        self.binary(BinaryOp::Mul, x, y)
    }

    /// `x - y`.
    pub fn sub(&mut self, x: ValueId, y: ValueId) -> Result<ValueId> {
        self.binary(BinaryOp::Sub, x, y)
    }

    /// `x @ y`.
    pub fn matmul(&mut self, x: ValueId, y: ValueId) -> Result<ValueId> {
        self.op(Op::Matmul, vec![x, y])
    }

    /// `x / y`.
    pub fn div(&mut self, x: ValueId, y: ValueId) -> Result<ValueId> {
        self.binary(BinaryOp::Div, x, y)
    }

    /// `-x`.
    pub fn neg(&mut self, x: ValueId) -> Result<ValueId> {
        self.unary(UnaryOp::Neg, x)
    }

    /// A Python float constant: weak, so that it keeps the dtype of the array it meets.
    pub fn float(&mut self, value: f64) -> Result<ValueId> {
        self.op(
            Op::Const {
                value: Scalar::Float(value),
                dtype: DType::F64,
                weak: true,
            },
            vec![],
        )
    }

    /// `x * value` with a weak constant.
    pub fn scale(&mut self, x: ValueId, value: f64) -> Result<ValueId> {
        let c = self.float(value)?;
        self.mul(x, c)
    }

    /// `value + x` with a weak constant.
    pub fn offset(&mut self, x: ValueId, value: f64) -> Result<ValueId> {
        let c = self.float(value)?;
        self.add(c, x)
    }

    /// Zeros of a type (strong, never weak).
    pub fn zeros(&mut self, ty: &Type) -> Result<ValueId> {
        let value = if ty.dtype == DType::Bool {
            Scalar::Bool(false)
        } else {
            Scalar::Int(0)
        };
        self.op(
            Op::Full {
                value,
                dtype: ty.dtype,
                shape: ty.shape.clone(),
            },
            vec![],
        )
    }

    /// `x.astype(dtype)` unless it already has that dtype.
    pub fn cast(&mut self, x: ValueId, dtype: DType) -> Result<ValueId> {
        if self.ty(x).dtype == dtype {
            return Ok(x);
        }
        self.op(Op::Astype { dtype }, vec![x])
    }

    /// `x.sum(axes, keepdims)`.
    pub fn sum(&mut self, x: ValueId, axes: Option<Vec<usize>>, keepdims: bool) -> Result<ValueId> {
        self.op(
            Op::Reduce {
                kind: ReduceKind::Sum,
                axes,
                keepdims,
            },
            vec![x],
        )
    }

    /// `x.reshape(shape)` unless it already has that shape.
    pub fn reshape(&mut self, x: ValueId, shape: &[Dim]) -> Result<ValueId> {
        if self.ty(x).shape == shape {
            return Ok(x);
        }
        self.op(
            Op::Reshape {
                shape: shape.to_vec(),
            },
            vec![x],
        )
    }

    /// `np.broadcast_to(x, shape)` unless it already has that shape.
    pub fn broadcast(&mut self, x: ValueId, shape: &[Dim]) -> Result<ValueId> {
        if self.ty(x).shape == shape {
            return Ok(x);
        }
        self.op(
            Op::BroadcastTo {
                shape: shape.to_vec(),
            },
            vec![x],
        )
    }

    /// Swap the last two axes (ndim >= 2).
    pub fn swap_last(&mut self, x: ValueId) -> Result<ValueId> {
        let n = self.ty(x).ndim();
        let mut perm: Vec<usize> = (0..n).collect();
        perm.swap(n - 2, n - 1);
        self.op(Op::Transpose { perm }, vec![x])
    }

    /// `x[..., start:stop, ...]` along `axis` of a value of static shape.
    pub fn slice_axis(
        &mut self,
        x: ValueId,
        axis: usize,
        start: usize,
        stop: usize,
    ) -> Result<ValueId> {
        let dims = static_dims(&self.ty(x).shape, "slice")?;
        let mut lo = vec![0i64; dims.len()];
        let mut hi: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
        lo[axis] = start as i64;
        hi[axis] = stop as i64;
        self.op(
            Op::Slice {
                start: lo,
                stop: hi,
                step: vec![1; dims.len()],
            },
            vec![x],
        )
    }

    /// The cotangent `g` of a broadcast result summed back to `shape` (NumPy broadcasting
    /// adds leading axes and stretches size-1 axes; both are sums here).
    pub fn unbroadcast(&mut self, g: ValueId, shape: &[Dim]) -> Result<ValueId> {
        let gshape = self.ty(g).shape;
        if gshape == shape {
            return Ok(g);
        }
        let lead = gshape.len() - shape.len();
        let mut axes: Vec<usize> = (0..lead).collect();
        for (i, d) in shape.iter().enumerate() {
            if *d == Dim::Static(1) && gshape[lead + i] != Dim::Static(1) {
                axes.push(lead + i);
            }
        }
        let summed = if axes.is_empty() {
            g
        } else {
            self.sum(g, Some(axes), true)?
        };
        self.reshape(summed, shape)
    }

    /// A reduced cotangent broadcast back over the reduced axes of an input of `shape`.
    pub fn unreduce(
        &mut self,
        g: ValueId,
        shape: &[Dim],
        axes: Option<&[usize]>,
        keepdims: bool,
    ) -> Result<ValueId> {
        let kept = shapes::reduce(shape, axes, true)?;
        let g = if keepdims { g } else { self.reshape(g, &kept)? };
        self.broadcast(g, shape)
    }
}

/// The number of elements reduced by `axes` of `shape`, which must be static.
pub fn reduced_count(shape: &[Dim], axes: Option<&[usize]>, op: &str) -> Result<usize> {
    let mut count = 1usize;
    for (i, d) in shape.iter().enumerate() {
        if axes.is_none_or(|a| a.contains(&i)) {
            count *= d.as_static().ok_or_else(|| {
                Error::new(format!(
                    "gradient of {op} over a symbolic dimension is not supported"
                ))
            })?;
        }
    }
    Ok(count)
}

/// The static sizes of a shape, or an error naming the op whose gradient needs them.
pub fn static_dims(shape: &[Dim], op: &str) -> Result<Vec<usize>> {
    shape
        .iter()
        .map(|d| {
            d.as_static().ok_or_else(|| {
                Error::new(format!(
                    "gradient of {op} with symbolic dimensions is not supported"
                ))
            })
        })
        .collect()
}
