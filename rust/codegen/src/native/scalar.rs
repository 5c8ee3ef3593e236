//! 0-d elementwise statements inside native code, lowered exactly as the scheduler lowers
//! them for arrays (same loop dtypes, same constant folding of casts, same expression
//! lowering), so that a loop body computes what the array kernels compute.

use super::branch::IndexKey;
use super::lower::{Native, Val};
use crate::kernel::ScalarExt;
use crate::kernel::{Const, Scalar};
use crate::lower::Mode;
use crate::schedule::binary_loop_scalar;
use crate::schedule::nodes::const_of;
use crate::Error;

/// Native code computes one element at a time.
const MODE: Mode = Mode::Scalar;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, Value};
use ember_core::infer::dtypes;
use ember_core::ir::{BinaryOp, Node, Op, Type, UnaryOp};

/// A constant converted at compile time, as the scheduler converts constants.
fn fold_cast(c: Const, dtype: Scalar) -> Const {
    c.cast_to(dtype)
}

impl Native<'_, '_> {
    /// `v` converted to `dtype` (constants stay constants).
    pub(crate) fn cast_val(&mut self, v: &Val, dtype: Scalar) -> Val {
        match v {
            Val::Const(c, from) if *from == dtype => Val::Const(*c, dtype),
            Val::Const(c, _) => Val::Const(fold_cast(*c, dtype), dtype),
            Val::Scalar(x, from) => Val::Scalar(self.em.cast(*x, *from, dtype, MODE), dtype),
            Val::Array(_) => unreachable!("arrays are never cast inside native code"),
        }
    }

    /// `v` converted to `dtype`, in a register.
    pub(crate) fn value_as(&mut self, v: &Val, dtype: Scalar) -> Value {
        match self.cast_val(v, dtype) {
            Val::Const(Const::Int(c), Scalar::I64) => {
                let r = self.em.constant(Const::Int(c), Scalar::I64, MODE);
                self.ranges.insert(r, (i128::from(c), i128::from(c)));
                r
            }
            Val::Const(c, d) => self.em.constant(c, d, MODE),
            Val::Scalar(x, _) => x,
            Val::Array(_) => unreachable!("arrays are never cast inside native code"),
        }
    }

    /// Records the range of `v = op(a, b)` on `i64` when it follows from the operands' and
    /// cannot wrap around.
    fn track(&mut self, op: BinaryOp, a: Value, b: Value, v: Value) {
        let (Some(&(a0, a1)), Some(&(b0, b1))) = (self.ranges.get(&a), self.ranges.get(&b)) else {
            return;
        };
        let (lo, hi) = match op {
            BinaryOp::Add => (a0 + b0, a1 + b1),
            BinaryOp::Sub => (a0 - b1, a1 - b0),
            BinaryOp::Mul => {
                let corners = [a0 * b0, a0 * b1, a1 * b0, a1 * b1];
                (
                    *corners.iter().min().unwrap(),
                    *corners.iter().max().unwrap(),
                )
            }
            BinaryOp::Maximum => (a0.max(b0), a1.max(b1)),
            BinaryOp::Minimum => (a0.min(b0), a1.min(b1)),
            // Of values that are not negative (a Python int's overflow test on `i + 1`,
            // `(i ^ r) & (1 ^ r) < 0`): no sign bit, and no bit above the larger's.
            BinaryOp::BitwiseAnd if a0 >= 0 && b0 >= 0 => (0, a1.min(b1)),
            // One operand without a sign bit clears the result's (the test of `j - 1`:
            // `(j ^ r) & (j ^ 1) < 0` with `j` not negative).
            BinaryOp::BitwiseAnd if a0 >= 0 => (0, a1),
            BinaryOp::BitwiseAnd if b0 >= 0 => (0, b1),
            BinaryOp::BitwiseOr | BinaryOp::BitwiseXor if a0 >= 0 && b0 >= 0 => {
                let bits = 128 - a1.max(b1).leading_zeros();
                (0, (1i128 << bits) - 1)
            }
            // Two sign bits cancel: `a ^ b` is `!a ^ !b`, of values that are not negative.
            BinaryOp::BitwiseXor if a1 < 0 && b1 < 0 => {
                let bits = 128 - (-1 - a0).max(-1 - b0).leading_zeros();
                (0, (1i128 << bits) - 1)
            }
            _ => return,
        };
        if lo >= i128::from(i64::MIN) && hi <= i128::from(i64::MAX) {
            self.ranges.insert(v, (lo, hi));
        }
    }

    /// A 0-d elementwise statement.
    pub(crate) fn scalar_node(
        &mut self,
        node: &Node,
        types: &[&Type],
        args: &[Val],
    ) -> Result<Val, Error> {
        if !node.ty.shape.is_empty() || args.iter().any(|a| matches!(a, Val::Array(_))) {
            return Err(Error::Unsupported(
                "array operations inside a loop or branch (only 0-d values, load and store)".into(),
            ));
        }
        let out = node.ty.dtype;
        let unsupported = |e: ember_core::Error| Error::Unsupported(e.message);
        let val = match &node.op {
            // `np.zeros_like` of a 0-d value and `np.asarray` of a scalar (`np.polyval(p, x)`
            // in a body): a number, and the same number.
            Op::Const { value, .. } | Op::Full { value, .. } => Val::Const(const_of(*value), out),
            Op::Astype { .. } | Op::Copy | Op::Squeeze { .. } | Op::Reshape { .. } => {
                self.cast_val(&args[0], out)
            }
            // A reduction of a 0-d value (`np.sum` of a sum, left by `scalarize` once its
            // operand became one number): that number in the result's dtype (`any`/`all`
            // its truth, as `astype(bool)`).
            Op::Reduce { .. } if types[0].shape.is_empty() => self.cast_val(&args[0], out),
            Op::Unary(op) => {
                if *op == UnaryOp::Positive {
                    return Ok(args[0].clone());
                }
                let lp = dtypes::unary_loop(*op, types[0].dtype).map_err(unsupported)?;
                let x = self.value_as(&args[0], lp);
                let v = self.em.unary(*op, x, lp, MODE);
                let ty = if op.gives_bool() { Scalar::Bool } else { lp };
                Val::Scalar(v, ty)
            }
            Op::Binary(op) => {
                let key = self.index_arithmetic(*op, args, out);
                if let Some(v) = key.and_then(|k| self.arithmetic.get(&k)) {
                    return Ok(v.clone());
                }
                let v = self.binary_node(*op, types, args, out)?;
                if let Some(k) = key {
                    self.arithmetic.insert(k, v.clone());
                }
                return Ok(v);
            }
            // A known test (a deferred overflow check's) picks its side at compile time.
            Op::Where if matches!(args[0], Val::Const(..)) => {
                let c = self.cast_val(&args[0], Scalar::Bool);
                let holds = !matches!(c, Val::Const(Const::Int(0), _));
                self.cast_val(&args[if holds { 1 } else { 2 }], out)
            }
            Op::Where => {
                let c = self.value_as(&args[0], Scalar::Bool);
                let x = self.value_as(&args[1], out);
                let y = self.value_as(&args[2], out);
                let v = self.em.pick(c, x, y, out, MODE);
                // Either side's values: the slice-bound clamps of `a[i, :j]` keep a range.
                if let (Some(&(x0, x1)), Some(&(y0, y1))) =
                    (self.ranges.get(&x), self.ranges.get(&y))
                {
                    if out == Scalar::I64 {
                        self.ranges.insert(v, (x0.min(y0), x1.max(y1)));
                    }
                }
                Val::Scalar(v, out)
            }
            other => {
                return Err(Error::Unsupported(format!(
                    "{} inside a loop or branch",
                    other.name()
                )))
            }
        };
        Ok(self.cast_val(&val, out))
    }

    /// The key of an `i64` add, subtract or multiply of registers and constants, which is
    /// computed once where it dominates.
    fn index_arithmetic(
        &self,
        op: BinaryOp,
        args: &[Val],
        out: Scalar,
    ) -> Option<(BinaryOp, IndexKey, IndexKey)> {
        let int = |v: &Val| matches!(v, Val::Const(_, Scalar::I64) | Val::Scalar(_, Scalar::I64));
        let pure = matches!(op, BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul);
        if !pure || out != Scalar::I64 || !int(&args[0]) || !int(&args[1]) {
            return None;
        }
        Some((op, IndexKey::of(&args[0])?, IndexKey::of(&args[1])?))
    }

    /// A 0-d binary statement.
    fn binary_node(
        &mut self,
        op: BinaryOp,
        types: &[&Type],
        args: &[Val],
        out: Scalar,
    ) -> Result<Val, Error> {
        let lp = binary_loop_scalar(op, types[0], types[1])?;
        if op == BinaryOp::Pow && lp.is_int() {
            if let Val::Const(Const::Int(e), _) = args[1] {
                if e < 0 {
                    return Err(Error::Unsupported(
                        "Integers to negative integer powers are not allowed.".into(),
                    ));
                }
            }
        }
        if let Some(v) = self.decided(op, args, lp) {
            return Ok(self.cast_val(&v, out));
        }
        let a = self.value_as(&args[0], lp);
        if op == BinaryOp::Pow && lp.is_float() {
            if let Val::Const(Const::Float(2.0) | Const::Int(2), _) = args[1] {
                let v = self.em.unary(UnaryOp::Square, a, lp, MODE);
                return Ok(self.cast_val(&Val::Scalar(v, lp), out));
            }
            if let (Val::Const(Const::Float(3.0) | Const::Int(3), _), Scalar::F64, true) =
                (&args[1], lp, self.em.fma)
            {
                let v = self.cube_f64(a);
                return Ok(self.cast_val(&Val::Scalar(v, lp), out));
            }
        }
        if let Some(inverse) = exact_inverse(op, &args[1], lp) {
            // `x / 2^k` and `x * 2^-k` round the same real number: one result, flags and
            // all, without a division's latency on a loop's chain (a bisection's midpoint).
            let inverse = self.em.constant(Const::Float(inverse), lp, MODE);
            let v = self.em.binary(BinaryOp::Mul, a, inverse, lp, MODE);
            return Ok(self.cast_val(&Val::Scalar(v, lp), out));
        }
        let b = self.value_as(&args[1], lp);
        if op == BinaryOp::Pow
            && lp.is_int()
            && !lp.is_unsigned()
            && !matches!(args[1], Val::Const(..))
        {
            // NumPy raises where the array kernels cannot; native code can.
            let bad = self.em.b.ins().icmp_imm_s(IntCC::SignedLessThan, b, 0);
            let go_on = self.em.b.create_block();
            self.em.b.ins().brif(bad, self.fail_power, &[], go_on, &[]);
            self.em.b.switch_to_block(go_on);
            self.em.b.seal_block(go_on);
        }
        let v = match op {
            BinaryOp::Floordiv | BinaryOp::Mod if lp == Scalar::I64 => {
                self.divmod_i64(a, b, op == BinaryOp::Floordiv)
            }
            _ => self.em.binary(op, a, b, lp, MODE),
        };
        if lp == Scalar::I64 {
            self.track(op, a, b, v);
        }
        let ty = if op.gives_bool() { Scalar::Bool } else { lp };
        Ok(self.cast_val(&Val::Scalar(v, ty), out))
    }
}

impl Native<'_, '_> {
    /// A statement whose value is known at compile time from its operands' ranges: an `i64`
    /// comparison the ranges decide (an overflow test of index arithmetic, `i + 1 < 0` for
    /// `i` in a `range`), and a logical `or`/`and` with a constant operand that decides it or
    /// leaves the other (a flag or-ed with a test found false).
    fn decided(&mut self, op: BinaryOp, args: &[Val], lp: Scalar) -> Option<Val> {
        let truth = |v: &Val| match v {
            Val::Const(Const::Int(c), _) => Some(*c != 0),
            Val::Const(Const::Float(f), _) => Some(*f != 0.0),
            _ => None,
        };
        let known = |b: bool| Some(Val::Const(Const::Int(i64::from(b)), Scalar::Bool));
        match op {
            BinaryOp::LogicalOr | BinaryOp::LogicalAnd => {
                let or = op == BinaryOp::LogicalOr;
                for (x, y) in [(&args[0], &args[1]), (&args[1], &args[0])] {
                    match truth(x) {
                        // `x or y` with `x` true, `x and y` with `x` false.
                        Some(t) if t == or => return known(or),
                        Some(_) => return Some(self.cast_val(y, Scalar::Bool)),
                        None => {}
                    }
                }
                None
            }
            BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge if lp == Scalar::I64 => {
                if matches!((&args[0], &args[1]), (Val::Const(..), Val::Const(..))) {
                    return None;
                }
                let x = self.cast_val(&args[0], Scalar::I64);
                let y = self.cast_val(&args[1], Scalar::I64);
                let ((a0, a1), (b0, b1)) = (self.known(&x)?, self.known(&y)?);
                match op {
                    BinaryOp::Lt if a1 < b0 => known(true),
                    BinaryOp::Lt if a0 >= b1 => known(false),
                    BinaryOp::Le if a1 <= b0 => known(true),
                    BinaryOp::Le if a0 > b1 => known(false),
                    BinaryOp::Gt if a0 > b1 => known(true),
                    BinaryOp::Gt if a1 <= b0 => known(false),
                    BinaryOp::Ge if a0 >= b1 => known(true),
                    BinaryOp::Ge if a1 < b0 => known(false),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

/// `1 / c` for a true division of floats by a constant power of two whose inverse is a
/// normal number (so multiplying by it is exact).
fn exact_inverse(op: BinaryOp, divisor: &Val, lp: Scalar) -> Option<f64> {
    let c = match (op, divisor, lp.is_float()) {
        (BinaryOp::Div, Val::Const(Const::Float(c), _), true) => *c,
        (BinaryOp::Div, Val::Const(Const::Int(c), _), true) => *c as f64,
        _ => return None,
    };
    let inverse = 1.0 / c;
    let (smallest, largest) = if lp == Scalar::F32 {
        (f64::from(f32::MIN_POSITIVE), f64::from(f32::MAX))
    } else {
        (f64::MIN_POSITIVE, f64::MAX)
    };
    let power_of_two = c.is_normal() && c.to_bits() & ((1 << 52) - 1) == 0;
    (power_of_two && (smallest..=largest).contains(&inverse.abs())).then_some(inverse)
}
