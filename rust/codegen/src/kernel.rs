//! The kernel IR: one loop nest, below the graph level.
//!
//! A kernel iterates over `rows` outer indices and, per row, over an inner extent `n`. Every
//! buffer is addressed per row by a base pointer plus `row * row_stride` (bytes), and per inner
//! index by `j * inner_stride` (bytes). The runtime derives those from array views, so any view
//! (transpose, negative-step slice, broadcast, expand/squeeze) is only strides and an offset.
//! Per row the kernel runs its stages in order: reductions over the inner extent produce per-row
//! scalars that later stages read; maps write one element per inner index; row stores write one
//! element per row. With a softmax row in cache, max, sum and the normalised write all happen in
//! one kernel: one read and one write of memory.

/// The element types a kernel computes with: the core's dtypes themselves (codegen supports every
/// one), under the name codegen's code has always used for them.
pub use ember_core::ir::DType as Scalar;

/// What codegen asks of a dtype beyond the core's own [`DType`](Scalar) methods.
pub trait ScalarExt: Copy {
    /// Size of one element in bytes.
    fn size(self) -> usize;
    /// Whether this is an unsigned integer type.
    fn is_unsigned(self) -> bool;
    /// Whether 128-bit vector code handles this type (the others compute lane by lane:
    /// their division, shifts, comparisons and conversions differ from `i32`/`i64`'s).
    fn vectorizes(self) -> bool;
    /// The smallest and largest value of an integer or bool type, as `i128`; a float type
    /// answers with `i64`'s range (the bounds of the integer it is converted through).
    fn int_bounds(self) -> (i128, i128);
    /// `v` wrapped to this integer type's width, as held in a `Const::Int` (unsigned 64-bit
    /// values as their bit pattern).
    fn wrap(self, v: i64) -> i64;
}

impl ScalarExt for Scalar {
    fn size(self) -> usize {
        self.itemsize()
    }

    fn is_unsigned(self) -> bool {
        self.kind() == ember_core::ir::Kind::Unsigned
    }

    fn vectorizes(self) -> bool {
        matches!(
            self,
            Scalar::Bool | Scalar::I32 | Scalar::I64 | Scalar::F32 | Scalar::F64
        )
    }

    fn int_bounds(self) -> (i128, i128) {
        self.int_range()
            .unwrap_or((i64::MIN.into(), i64::MAX.into()))
    }

    fn wrap(self, v: i64) -> i64 {
        match self {
            Scalar::I8 => i64::from(v as i8),
            Scalar::I16 => i64::from(v as i16),
            Scalar::I32 => i64::from(v as i32),
            Scalar::U8 => i64::from(v as u8),
            Scalar::U16 => i64::from(v as u16),
            Scalar::U32 => i64::from(v as u32),
            Scalar::Bool => i64::from(v != 0),
            _ => v,
        }
    }
}

/// Index of an expression node inside [`Kernel::exprs`].
pub type ExprId = usize;

pub use ember_core::ir::{BinaryOp, UnaryOp};

/// Reductions over the inner extent: the per-row accumulation, not the IR op (`mean` is a
/// `Sum` and a division, `argmax`/`argmin` track an index beside the extreme).
#[allow(missing_docs)]
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    Sum,
    Prod,
    Max,
    Min,
    Any,
    All,
    Argmax,
    Argmin,
}

impl ReduceOp {
    /// The type of the per-row result for an operand of type `x`.
    pub fn result_type(self, x: Scalar) -> Scalar {
        match self {
            ReduceOp::Any | ReduceOp::All => Scalar::Bool,
            ReduceOp::Argmax | ReduceOp::Argmin => Scalar::I64,
            _ => x,
        }
    }
}

/// A scalar constant; its type comes from the expression node holding it.
#[derive(Copy, Clone, Debug)]
pub enum Const {
    /// Integer or bool value.
    Int(i64),
    /// Float value.
    Float(f64),
}

/// Equal bit for bit, as a kernel may share one node for both: 0.0 and -0.0 are two constants
/// (`minimum(maximum(x, -0.0), 0.0)` needs both signs), a NaN equals itself.
impl PartialEq for Const {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Const::Int(a), Const::Int(b)) => a == b,
            (Const::Float(a), Const::Float(b)) => a.to_bits() == b.to_bits(),
            _ => false,
        }
    }
}

impl Const {
    /// The constant converted to `dtype` at compile time, as `astype` converts it: integers
    /// wrap to the type's width, floats to integers as the kernels convert them (truncation
    /// in range; NumPy's x86-64 values out of range, see `lower::binary`).
    pub fn cast_to(self, dtype: Scalar) -> Const {
        match (self, dtype) {
            (Const::Int(i), Scalar::F32 | Scalar::F64) => Const::Float(i as f64),
            (Const::Float(f), Scalar::Bool) => Const::Int((f != 0.0) as i64),
            (Const::Int(i), Scalar::Bool) => Const::Int((i != 0) as i64),
            (Const::Float(f), Scalar::I64) => Const::Int(float_to_i64(f)),
            (Const::Float(f), Scalar::I32) => Const::Int(float_to_i32(f)),
            (Const::Float(f), t) if t.is_int() => {
                let wide = match t {
                    Scalar::U32 => float_to_i64(f),
                    Scalar::U64 if f >= 2f64.powi(64) => 0,
                    Scalar::U64 if f >= 2f64.powi(63) => (f - 2f64.powi(63)) as i64 ^ i64::MIN,
                    Scalar::U64 => float_to_i64(f),
                    _ => float_to_i32(f),
                };
                Const::Int(t.wrap(wide))
            }
            (Const::Int(i), t) if t.is_int() => Const::Int(t.wrap(i)),
            (c, _) => c,
        }
    }
}

/// `f` to `i64` as x86-64 converts it: truncation in range, `i64::MIN` otherwise (NaN too).
fn float_to_i64(f: f64) -> i64 {
    if f.trunc() >= -(2f64.powi(63)) && f.trunc() < 2f64.powi(63) {
        f as i64
    } else {
        i64::MIN
    }
}

/// `f` to `i32` as x86-64 converts it: truncation in range, `i32::MIN` otherwise (NaN too).
fn float_to_i32(f: f64) -> i64 {
    if f.trunc() >= -(2f64.powi(31)) && f.trunc() < 2f64.powi(31) {
        f as i64
    } else {
        i64::from(i32::MIN)
    }
}

/// What an expression node computes.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprOp {
    /// The element of buffer `b` at the current (row, inner) index.
    Load(usize),
    /// A constant.
    Const(Const),
    /// The per-row result of an earlier reduction stage (index into [`Kernel::stages`]).
    StageResult(usize),
    /// `op(x)`.
    Unary(UnaryOp, ExprId),
    /// `op(x, y)`; both operands already have the node's computation type (comparisons: the
    /// operands' common type, the node is `bool`).
    Binary(BinaryOp, ExprId, ExprId),
    /// `where(c, x, y)`.
    Where(ExprId, ExprId, ExprId),
    /// `x.astype(node type)` with C casting.
    Cast(ExprId),
}

impl ExprOp {
    /// The nodes this one reads.
    pub fn operands(&self) -> Vec<ExprId> {
        match *self {
            ExprOp::Unary(_, x) | ExprOp::Cast(x) => vec![x],
            ExprOp::Binary(_, x, y) => vec![x, y],
            ExprOp::Where(c, x, y) => vec![c, x, y],
            ExprOp::Load(_) | ExprOp::Const(_) | ExprOp::StageResult(_) => vec![],
        }
    }
}

/// One node of the expression DAG.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// What the node computes.
    pub op: ExprOp,
    /// The node's result type.
    pub ty: Scalar,
}

/// How a buffer is addressed along the inner extent.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum InnerAccess {
    /// Element `j` at `base + j * inner_stride`; a unit stride enables the SIMD path.
    Strided,
    /// The same element for every inner index (broadcast along the inner extent, or a
    /// per-row output): loaded or stored once per row.
    Row,
}

/// A buffer the kernel reads or writes.
#[derive(Clone, Debug, PartialEq)]
pub struct BufferParam {
    /// Element type in memory.
    pub dtype: Scalar,
    /// Inner addressing, fixed at compile time.
    pub inner: InnerAccess,
}

/// A per-row step of the kernel.
#[derive(Clone, Debug, PartialEq)]
pub enum Stage {
    /// Reduce `value` over the inner extent; later nodes read the result through
    /// [`ExprOp::StageResult`].
    Reduce {
        /// The reduction.
        op: ReduceOp,
        /// The reduced expression.
        value: ExprId,
    },
    /// Write `value` at every inner index of buffer `buffer` (its access is `Strided`).
    Map {
        /// Output buffer.
        buffer: usize,
        /// The stored expression (converted to the buffer's dtype by the scheduler).
        value: ExprId,
    },
    /// Write the row-invariant `value` once per row into buffer `buffer` (access `Row`).
    RowStore {
        /// Output buffer.
        buffer: usize,
        /// The stored expression; it must not depend on the inner index.
        value: ExprId,
    },
}

/// A fused loop nest.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Kernel {
    /// Buffers, in the order of the runtime's base-pointer array.
    pub buffers: Vec<BufferParam>,
    /// Expression DAG in definition order (operands before users).
    pub exprs: Vec<Expr>,
    /// Per-row stages in execution order.
    pub stages: Vec<Stage>,
}

impl Kernel {
    /// Whether the kernel only moves data (loads, constants, casts, selects, additions and
    /// multiplications): its time is memory bandwidth, which threads share.
    pub fn memory_bound(&self) -> bool {
        self.exprs.iter().all(|e| match e.op {
            ExprOp::Unary(..) => false,
            ExprOp::Binary(op, ..) => matches!(op, BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul),
            _ => true,
        })
    }

    /// Adds a buffer and returns its index.
    pub fn buffer(&mut self, dtype: Scalar, inner: InnerAccess) -> usize {
        self.buffers.push(BufferParam { dtype, inner });
        self.buffers.len() - 1
    }

    /// Adds an expression node and returns its id (structurally equal nodes are shared).
    pub fn expr(&mut self, op: ExprOp, ty: Scalar) -> ExprId {
        let node = Expr { op, ty };
        if let Some(i) = self.exprs.iter().position(|e| *e == node) {
            return i;
        }
        self.exprs.push(node);
        self.exprs.len() - 1
    }

    /// `Load(b)` with the buffer's dtype.
    pub fn load(&mut self, b: usize) -> ExprId {
        let ty = self.buffers[b].dtype;
        self.expr(ExprOp::Load(b), ty)
    }

    /// A constant of type `ty`.
    pub fn constant(&mut self, c: Const, ty: Scalar) -> ExprId {
        self.expr(ExprOp::Const(c), ty)
    }

    /// The result of stage `s`, which must be a reduction.
    pub fn stage_result(&mut self, s: usize) -> ExprId {
        let ty = match &self.stages[s] {
            Stage::Reduce { op, value } => op.result_type(self.exprs[*value].ty),
            _ => panic!("stage {s} is not a reduction"),
        };
        self.expr(ExprOp::StageResult(s), ty)
    }

    /// `op(x)` keeping `x`'s type, or `bool` for predicates.
    pub fn unary(&mut self, op: UnaryOp, x: ExprId) -> ExprId {
        let ty = if op.gives_bool() {
            Scalar::Bool
        } else {
            self.exprs[x].ty
        };
        self.expr(ExprOp::Unary(op, x), ty)
    }

    /// `op(x, y)`; operands must share a type.
    pub fn binary(&mut self, op: BinaryOp, x: ExprId, y: ExprId) -> ExprId {
        let ty = if op.gives_bool() {
            Scalar::Bool
        } else {
            self.exprs[x].ty
        };
        self.expr(ExprOp::Binary(op, x, y), ty)
    }

    /// `where(c, x, y)`.
    pub fn select(&mut self, c: ExprId, x: ExprId, y: ExprId) -> ExprId {
        let ty = self.exprs[x].ty;
        self.expr(ExprOp::Where(c, x, y), ty)
    }

    /// `x.astype(ty)`; a no-op when the type already matches.
    pub fn cast(&mut self, x: ExprId, ty: Scalar) -> ExprId {
        if self.exprs[x].ty == ty {
            return x;
        }
        self.expr(ExprOp::Cast(x), ty)
    }

    /// For every node, whether it has the same value at every inner index of a row.
    pub fn row_invariant(&self) -> Vec<bool> {
        let mut inv = vec![true; self.exprs.len()];
        for (i, node) in self.exprs.iter().enumerate() {
            inv[i] = match node.op {
                ExprOp::Load(b) => self.buffers[b].inner == InnerAccess::Row,
                ExprOp::Const(_) | ExprOp::StageResult(_) => true,
                ExprOp::Unary(_, x) | ExprOp::Cast(x) => inv[x],
                ExprOp::Binary(_, x, y) => inv[x] && inv[y],
                ExprOp::Where(c, x, y) => inv[c] && inv[x] && inv[y],
            };
        }
        inv
    }
}
