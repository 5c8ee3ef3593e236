//! The ops of the IR: one enum, attributes as typed fields, and the per-op tables (text name,
//! arity, attribute schema, class) as exhaustive matches. The kinds of the elementwise ops,
//! reductions and scans are declared in `kinds.rs`.

use std::sync::Arc;

use super::{
    ArgReduceKind, BinaryOp, DType, Dim, Graph, LinalgKind, ReduceKind, Scalar, ScanKind, Type,
    UnaryOp,
};

/// A function of the module run by a `loop` or `if` statement. It sees only its parameters.
pub type Region = Arc<Graph>;

/// An IR op with its attributes. Creation ops also carry the dtype and shape of their result
/// (the statement's type in the text), so that inference needs nothing but the op.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// An elementwise op of one operand.
    Unary(UnaryOp),
    /// An elementwise op of two operands with broadcasting.
    Binary(BinaryOp),
    /// `np.where(c, x, y)`.
    Where,
    /// `x.astype(dtype)`.
    Astype {
        /// The target dtype.
        dtype: DType,
    },
    /// A 0-d constant.
    Const {
        /// The value, exactly as printed.
        value: Scalar,
        /// The result dtype.
        dtype: DType,
        /// Whether the constant is a Python scalar (NEP 50 weak).
        weak: bool,
    },
    /// `np.full(shape, value, dtype)`.
    Full {
        /// The fill value.
        value: Scalar,
        /// The result dtype.
        dtype: DType,
        /// The result shape.
        shape: Vec<Dim>,
    },
    /// `start + i*step` for `i` in `0..len`.
    Arange {
        /// The first element.
        start: Scalar,
        /// The increment.
        step: Scalar,
        /// The result dtype.
        dtype: DType,
        /// The length.
        len: Dim,
    },
    /// `np.eye(n, m, k)`.
    Eye {
        /// The diagonal offset.
        k: i64,
        /// The result dtype.
        dtype: DType,
        /// Rows.
        n: Dim,
        /// Columns.
        m: Dim,
    },
    /// `sum prod max min mean any all`.
    Reduce {
        /// Which reduction.
        kind: ReduceKind,
        /// Sorted, distinct, non-negative axes; `None` reduces all of them.
        axes: Option<Vec<usize>>,
        /// Keep reduced axes as size 1.
        keepdims: bool,
    },
    /// `argmax argmin`.
    ArgReduce {
        /// Which reduction.
        kind: ArgReduceKind,
        /// The axis, or `None` for the flattened array.
        axis: Option<usize>,
        /// Keep the reduced axis as size 1.
        keepdims: bool,
    },
    /// `x.reshape(shape)` (no -1).
    Reshape {
        /// The target shape.
        shape: Vec<Dim>,
    },
    /// `np.transpose(x, perm)`.
    Transpose {
        /// A permutation of the axes.
        perm: Vec<usize>,
    },
    /// `np.broadcast_to(x, shape)`.
    BroadcastTo {
        /// The target shape.
        shape: Vec<Dim>,
    },
    /// `np.expand_dims(x, axes)`: new axes at those (sorted) positions of the result.
    ExpandDims {
        /// Positions in the result.
        axes: Vec<usize>,
    },
    /// `np.squeeze(x, axes)`.
    Squeeze {
        /// Size-1 axes to remove (sorted).
        axes: Vec<usize>,
    },
    /// `x[start0:stop0:step0, ...]`, normalised as `slice.indices` gives.
    Slice {
        /// Per-axis start.
        start: Vec<i64>,
        /// Per-axis stop (-1 for a negative step reaching the front).
        stop: Vec<i64>,
        /// Per-axis step, non-zero.
        step: Vec<i64>,
    },
    /// `np.flip(x, axes)`.
    Flip {
        /// The axes to reverse.
        axes: Vec<usize>,
    },
    /// `np.concatenate(xs, axis)`.
    Concatenate {
        /// The joining axis (non-negative).
        axis: usize,
    },
    /// `np.matmul(x, y)`.
    Matmul,
    /// A fresh contiguous copy.
    Copy,
    /// `cumsum cumprod` along one axis, accumulated in the result dtype in order;
    /// `sort argsort` along one axis (stable, NaN last).
    Scan {
        /// Which running operation.
        kind: ScanKind,
        /// The axis (non-negative).
        axis: usize,
    },
    /// An `np.linalg` function of `f64` stacks of matrices (`solve` takes two operands).
    Linalg {
        /// Which function.
        kind: LinalgKind,
    },
    /// `for i in range(lo, hi, step)`: operands `lo, hi, step, c_0.., k_0..`; the body maps
    /// `(i, c, k)` to `(go, c')` and the results are the carried values after the last iteration.
    Loop {
        /// The body region.
        body: Region,
        /// How many operands after `step` are carried (the rest are loop-invariant).
        carried: usize,
    },
    /// `then(a) if cond else otherwise(a)`: operands `cond, a_0..`.
    If {
        /// The region run when the condition is true.
        then: Region,
        /// The region run when it is false (`else=` in the text).
        otherwise: Region,
    },
    /// `data[:, ..., i_0, ..., i_{k-1}, ...]`: operands `data, i_0..`, integer index arrays for
    /// the `k` axes from `axis` on, broadcast together to a shape `B`. The result has shape
    /// `data.shape[:axis] + B + data.shape[axis+k:]`; a negative index counts from the end, and
    /// one out of range raises NumPy's `IndexError`.
    Gather {
        /// The first indexed axis.
        axis: usize,
    },
    /// Zeros of `shape` with `updates` added at the positions `gather` with the same index
    /// arrays reads (repeated positions add up, as `np.add.at`): operands `updates, i_0..`,
    /// `updates` of `gather`'s result shape.
    ScatterAdd {
        /// The first indexed axis.
        axis: usize,
        /// The result shape.
        shape: Vec<Dim>,
    },
    /// `a[i_0, ..., i_{r-1}]`, one 0-d integer index per axis.
    Load,
    /// A copy of `a` with `a[i...] = v`: operands `a, v, i_0..`.
    Store,
    /// Result `index` (1 or more) of the multi-result statement that is its only operand. Never
    /// printed on its own: `%7, %8 = loop(...)` is a `loop` statement followed by one of these.
    Result {
        /// Which result of the statement.
        index: usize,
        /// Its type.
        ty: Type,
    },
}

/// The broad class of an op, which decides how passes and back ends treat it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpClass {
    /// Elementwise, one operand (unary ops, `astype`, `copy`).
    Unary,
    /// Elementwise, two broadcast operands.
    Binary,
    /// Elementwise, three broadcast operands (`where`).
    Ternary,
    /// No operands: `const full arange eye`.
    Creation,
    /// Reductions, including `argmax`/`argmin`.
    Reduction,
    /// Views of the operand's data: `reshape transpose broadcast_to expand_dims squeeze slice flip`.
    View,
    /// `concatenate`.
    Concatenate,
    /// `matmul`.
    Matmul,
    /// `cumsum cumprod sort argsort`.
    Scan,
    /// `solve inv det slogdet cholesky cholesky_upper`.
    Linalg,
    /// Statements that run a region: `loop`, `if`.
    Region,
    /// Elements moved by integer index arrays: `gather`, `scatter_add`.
    Indexed,
    /// Element access: `load`, `store`.
    Access,
    /// A further result of a multi-result statement.
    Projection,
}

/// How many operands an op takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arity {
    /// Exactly this many.
    Exactly(usize),
    /// This many or more.
    AtLeast(usize),
}

impl Arity {
    /// Whether `n` operands are allowed.
    pub fn allows(self, n: usize) -> bool {
        match self {
            Arity::Exactly(k) => n == k,
            Arity::AtLeast(k) => n >= k,
        }
    }
}

/// The text names of the ops that are not unary, binary or reductions.
const OTHER_OPS: [&str; 22] = [
    "where",
    "astype",
    "const",
    "full",
    "arange",
    "eye",
    "reshape",
    "transpose",
    "broadcast_to",
    "expand_dims",
    "squeeze",
    "slice",
    "flip",
    "concatenate",
    "matmul",
    "copy",
    "loop",
    "if",
    "load",
    "store",
    "gather",
    "scatter_add",
];

impl Op {
    /// The IR text name.
    pub fn name(&self) -> &'static str {
        match self {
            Op::Unary(u) => u.name(),
            Op::Binary(b) => b.name(),
            Op::Where => "where",
            Op::Astype { .. } => "astype",
            Op::Const { .. } => "const",
            Op::Full { .. } => "full",
            Op::Arange { .. } => "arange",
            Op::Eye { .. } => "eye",
            Op::Reduce { kind, .. } => kind.name(),
            Op::ArgReduce { kind, .. } => kind.name(),
            Op::Reshape { .. } => "reshape",
            Op::Transpose { .. } => "transpose",
            Op::BroadcastTo { .. } => "broadcast_to",
            Op::ExpandDims { .. } => "expand_dims",
            Op::Squeeze { .. } => "squeeze",
            Op::Slice { .. } => "slice",
            Op::Flip { .. } => "flip",
            Op::Concatenate { .. } => "concatenate",
            Op::Matmul => "matmul",
            Op::Copy => "copy",
            Op::Scan { kind, .. } => kind.name(),
            Op::Linalg { kind } => kind.name(),
            Op::Loop { .. } => "loop",
            Op::If { .. } => "if",
            Op::Gather { .. } => "gather",
            Op::ScatterAdd { .. } => "scatter_add",
            Op::Load => "load",
            Op::Store => "store",
            Op::Result { .. } => "result",
        }
    }

    /// Every op text name of the IR.
    pub fn all_names() -> Vec<&'static str> {
        let mut names: Vec<&'static str> = UnaryOp::ALL.iter().map(|u| u.name()).collect();
        names.extend(BinaryOp::ALL.iter().map(|b| b.name()));
        names.extend(ReduceKind::ALL.iter().map(|r| r.name()));
        names.extend(ArgReduceKind::ALL.iter().map(|r| r.name()));
        names.extend(ScanKind::ALL.iter().map(|r| r.name()));
        names.extend(LinalgKind::ALL.iter().map(|r| r.name()));
        names.extend(OTHER_OPS);
        names
    }

    /// Whether `name` is an op of the IR.
    pub fn is_op_name(name: &str) -> bool {
        UnaryOp::from_name(name).is_some()
            || BinaryOp::from_name(name).is_some()
            || ReduceKind::from_name(name).is_some()
            || ArgReduceKind::from_name(name).is_some()
            || ScanKind::from_name(name).is_some()
            || LinalgKind::from_name(name).is_some()
            || OTHER_OPS.contains(&name)
    }

    /// The class of the op.
    pub fn class(&self) -> OpClass {
        match self {
            Op::Unary(_) | Op::Astype { .. } | Op::Copy => OpClass::Unary,
            Op::Binary(_) => OpClass::Binary,
            Op::Where => OpClass::Ternary,
            Op::Const { .. } | Op::Full { .. } | Op::Arange { .. } | Op::Eye { .. } => {
                OpClass::Creation
            }
            Op::Reduce { .. } | Op::ArgReduce { .. } => OpClass::Reduction,
            Op::Reshape { .. }
            | Op::Transpose { .. }
            | Op::BroadcastTo { .. }
            | Op::ExpandDims { .. }
            | Op::Squeeze { .. }
            | Op::Slice { .. }
            | Op::Flip { .. } => OpClass::View,
            Op::Concatenate { .. } => OpClass::Concatenate,
            Op::Matmul => OpClass::Matmul,
            Op::Scan { .. } => OpClass::Scan,
            Op::Linalg { .. } => OpClass::Linalg,
            Op::Loop { .. } | Op::If { .. } => OpClass::Region,
            Op::Gather { .. } | Op::ScatterAdd { .. } => OpClass::Indexed,
            Op::Load | Op::Store => OpClass::Access,
            Op::Result { .. } => OpClass::Projection,
        }
    }

    /// How many operands the op takes.
    pub fn arity(&self) -> Arity {
        match self {
            Op::Loop { .. } => return Arity::AtLeast(3),
            Op::If { .. } | Op::Load => return Arity::AtLeast(1),
            Op::Store | Op::Gather { .. } | Op::ScatterAdd { .. } => return Arity::AtLeast(2),
            Op::Linalg {
                kind: LinalgKind::Solve,
            } => return Arity::Exactly(2),
            Op::Linalg {
                kind: LinalgKind::Lstsq,
            } => return Arity::Exactly(3),
            _ => {}
        }
        match self.class() {
            OpClass::Creation => Arity::Exactly(0),
            OpClass::Unary
            | OpClass::Reduction
            | OpClass::View
            | OpClass::Scan
            | OpClass::Linalg
            | OpClass::Projection => Arity::Exactly(1),
            OpClass::Binary | OpClass::Matmul => Arity::Exactly(2),
            OpClass::Ternary => Arity::Exactly(3),
            OpClass::Indexed => Arity::AtLeast(2),
            OpClass::Concatenate | OpClass::Region | OpClass::Access => Arity::AtLeast(1),
        }
    }
}
