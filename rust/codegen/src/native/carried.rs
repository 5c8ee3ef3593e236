//! Ranges of carried `i64` scalars that only ever take values of known range: selection
//! sort's `min_idx` is `i` at first and then, trip after trip, either itself or the induction
//! variable `j` (`min_idx = j` on one side of a branch). Whatever the data, its value is one
//! of those, so `a[min_idx]` needs no check when they are all in bounds.
//!
//! A loop that goes on only while a carried value's new version passes a comparison
//! (`while n > 0: ... n //= 10`) starts every trip after the first with a value that passed
//! it: inside the body `n` is its initial value or positive (`n % 10` divides unsigned).
//! The test may be one side of the flag's short-circuit `and` (`while j >= 0 and a[j] >
//! key`), and a value that only moves down (`j -= 1`) also stays at most its first value.
//!
//! A counter (`out[k] = v; k += 1` on one side of a branch) takes at most one step a trip:
//! in a loop of known trips it stays within that many steps of its other values.

use super::lower::{Native, Val};
use super::refine::{split, FULL};
use crate::kernel::{Const, Scalar};
use crate::schedule::nodes::const_of;
use ember_core::ir::{BinaryOp, DType, Graph, Op, ValueId};

/// A value a choice can pass on: a parameter of the loop body, a constant, or a parameter
/// plus a constant (`k + 1`: a counter).
#[derive(Clone, Copy, PartialEq)]
enum Leaf {
    Param(usize),
    Const(i64),
    Step(usize, i64),
}

/// Calls of `leaves` one range may take: a long chain of `if`s passing a value on (a pivot
/// search unrolled at capture) gives up rather than walk every path.
const BUDGET: usize = 4096;

/// Adds `leaf` to `out` unless it is there already.
fn push(out: &mut Vec<Leaf>, leaf: Leaf) {
    if !out.contains(&leaf) {
        out.push(leaf);
    }
}

/// The values `v` of `g` can be (an `i64` passed on unchanged through `where`, `maximum`,
/// `minimum` and the results of `if`s), each once, or `None` when it may be computed
/// otherwise or finding them takes more than `budget` steps.
fn leaves(g: &Graph, v: ValueId, out: &mut Vec<Leaf>, budget: &mut usize) -> Option<()> {
    *budget = budget.checked_sub(1)?;
    if v.index() < g.params.len() {
        push(out, Leaf::Param(v.index()));
        return Some(());
    }
    let node = g.node(v)?;
    if node.ty.dtype != DType::I64 || !node.ty.shape.is_empty() {
        return None;
    }
    match &node.op {
        Op::Const { value, .. } => match const_of(*value) {
            Const::Int(c) => push(out, Leaf::Const(c)),
            Const::Float(_) => return None,
        },
        Op::Where => {
            leaves(g, node.inputs[1], out, budget)?;
            leaves(g, node.inputs[2], out, budget)?;
        }
        Op::Binary(BinaryOp::Maximum | BinaryOp::Minimum) => {
            leaves(g, node.inputs[0], out, budget)?;
            leaves(g, node.inputs[1], out, budget)?;
        }
        Op::If { .. } => region_results(g, v, 0, out, budget)?,
        Op::Result { index, .. } => region_results(g, node.inputs[0], *index, out, budget)?,
        Op::Binary(op @ (BinaryOp::Add | BinaryOp::Sub)) => {
            let constant = |v: ValueId| match g.node(v).map(|n| &n.op) {
                Some(Op::Const { value, .. }) => match const_of(*value) {
                    Const::Int(c) => Some(c),
                    Const::Float(_) => None,
                },
                _ => None,
            };
            let param = |v: ValueId| (v.index() < g.params.len()).then_some(v.index());
            let (a, b) = (node.inputs[0], node.inputs[1]);
            let step = match op {
                BinaryOp::Add => match (param(a), param(b)) {
                    (Some(p), _) => Leaf::Step(p, constant(b)?),
                    (_, Some(p)) => Leaf::Step(p, constant(a)?),
                    _ => return None,
                },
                _ => Leaf::Step(param(a)?, constant(b)?.checked_neg()?),
            };
            push(out, step);
        }
        _ => return None,
    }
    Some(())
}

/// The values result `r` of the `if` statement `s` of `g` can be: either region's, each
/// region parameter being the statement's operand (followed once, however many regions
/// pass it on).
fn region_results(
    g: &Graph,
    s: ValueId,
    r: usize,
    out: &mut Vec<Leaf>,
    budget: &mut usize,
) -> Option<()> {
    let node = g.node(s)?;
    let Op::If { then, otherwise } = &node.op else {
        return None;
    };
    let mut inner = Vec::new();
    for region in [then, otherwise] {
        leaves(region, *region.results.get(r)?, &mut inner, budget)?;
    }
    for leaf in inner {
        match leaf {
            Leaf::Param(q) => leaves(g, *node.inputs.get(q + 1)?, out, budget)?,
            // A step of the statement's operand, which must be a parameter itself.
            Leaf::Step(q, c) => {
                let operand = node.inputs.get(q + 1)?.index();
                if operand >= g.params.len() {
                    return None;
                }
                push(out, Leaf::Step(operand, c));
            }
            c => push(out, c),
        }
    }
    Some(())
}

impl Native<'_, '_> {
    /// The ranges of carried scalar `j` of loop `body` inside every trip and after the
    /// last, when each value it is given is its initial value `init`, itself, the induction
    /// variable (in `induction`), a loop-invariant value or constant of known range, or
    /// itself plus a constant (a counter, `out[k] = v; k += 1` on one side of a branch: at
    /// most `trips - 1` steps from those values inside the body, `trips` after it).
    pub(crate) fn carried_range(
        &self,
        body: &Graph,
        carried: usize,
        j: usize,
        args: &[Val],
        init: &Val,
        induction: Option<(i128, i128)>,
        trips: Option<i128>,
    ) -> Option<[(i128, i128); 2]> {
        let carried_param = 1 + j;
        if body.params.get(carried_param)?.dtype != DType::I64 {
            return None;
        }
        let range_of = |v: &Val| match v {
            Val::Const(Const::Int(c), Scalar::I64) => Some((i128::from(*c), i128::from(*c))),
            Val::Scalar(r, Scalar::I64) => self.ranges.get(r).copied(),
            _ => None,
        };
        let mut hull = range_of(init)?;
        let (mut found, mut budget) = (Vec::new(), BUDGET);
        leaves(body, *body.results.get(1 + j)?, &mut found, &mut budget)?;
        let (mut up, mut down) = (0i128, 0i128);
        for leaf in found {
            let range = match leaf {
                Leaf::Param(p) if p == carried_param => continue,
                Leaf::Step(p, c) if p == carried_param => {
                    up = up.max(i128::from(c));
                    down = down.max(-i128::from(c));
                    continue;
                }
                Leaf::Step(..) => return None,
                Leaf::Param(0) => induction?,
                // Another carried value could change otherwise: only invariants.
                Leaf::Param(p) if p <= carried => return None,
                Leaf::Param(p) => range_of(args.get(2 + p)?)?,
                Leaf::Const(c) => (i128::from(c), i128::from(c)),
            };
            hull = (hull.0.min(range.0), hull.1.max(range.1));
        }
        if up == 0 && down == 0 {
            return Some([hull, hull]);
        }
        let trips = trips?.max(0);
        let after = |n: i128| (hull.0 - down * n, hull.1 + up * n);
        let (inside, past) = (after((trips - 1).max(0)), after(trips));
        let fits = |r: (i128, i128)| r.0 >= i128::from(i64::MIN) && r.1 <= i128::from(i64::MAX);
        fits(past).then_some([inside, past])
    }

    /// The range of carried scalar `j` of loop `body` at the start of each trip, when the
    /// body's continue flag implies its new value passes a comparison with a value of known
    /// range (the flag itself, or one operand of an `and`, or the test of an `if` whose other
    /// side makes the flag false: `while j >= 0 and a[j] > key`): the initial value's range
    /// joined with the values that pass the test. A value that only moves one way (`j -= 1`,
    /// `i += 2`) is also bounded on the other side by its initial value. (After the loop it
    /// holds a value that failed the test, so this range stays inside the body.)
    pub(crate) fn entry_range(
        &self,
        body: &Graph,
        carried: usize,
        j: usize,
        args: &[Val],
        init: &Val,
    ) -> Option<(i128, i128)> {
        let next = *body.results.get(1 + j)?;
        let range_of = |v: ValueId| -> Option<(i128, i128)> {
            let p = v.index();
            match body.node(v).map(|n| &n.op) {
                Some(Op::Const { value, .. }) => match const_of(*value) {
                    Const::Int(c) => Some((i128::from(c), i128::from(c))),
                    Const::Float(_) => None,
                },
                // Loop-invariant operands only (a carried one changes).
                None if p > carried => self.known(args.get(2 + p)?),
                _ => None,
            }
        };
        let mut tests = Vec::new();
        implied_tests(body, *body.results.first()?, &mut tests, &mut 16);
        let mut passes = FULL;
        for (op, a, b) in tests {
            let [holds, _] = match (a, b) {
                (a, b) if a == next => split(op, passes, range_of(b)?)?,
                (a, b) if b == next => split(super::refine::mirrored(op), passes, range_of(a)?)?,
                _ => continue,
            };
            passes = holds;
        }
        if passes == FULL {
            return None;
        }
        let first = self.known(init)?;
        let mut range = (first.0.min(passes.0), first.1.max(passes.1));
        // A value that only moves down stays at most its first value, one that only moves
        // up at least it, as long as the step from the range's far end cannot wrap around.
        if let Some(step) = monotone_step(body, 1 + j, next) {
            let wraps = |v: i128| v < i128::from(i64::MIN) || v > i128::from(i64::MAX);
            if step <= 0 && !wraps(range.0 + i128::from(step)) {
                range.1 = range.1.min(first.1);
            } else if step >= 0 && !wraps(range.1 + i128::from(step)) {
                range.0 = range.0.max(first.0);
            }
        }
        Some(range)
    }
}

/// The comparisons `(op, a, b)` that hold whenever bool `v` of `g` is true: `v` itself, both
/// operands of an `and`, and the test of an `if` whose `else` side makes `v` false (the
/// short-circuit `while j >= 0 and a[j] > key`). `budget` bounds the walk.
fn implied_tests(
    g: &Graph,
    v: ValueId,
    out: &mut Vec<(BinaryOp, ValueId, ValueId)>,
    budget: &mut usize,
) {
    if *budget == 0 {
        return;
    }
    *budget -= 1;
    let Some(node) = g.node(v) else {
        return;
    };
    let is_false = |region: &Graph, r: usize| {
        region.results.get(r).and_then(|&x| region.node(x)).is_some_and(|n| {
            matches!(&n.op, Op::Const { value, .. } if matches!(const_of(*value), Const::Int(0)))
        })
    };
    match &node.op {
        Op::Astype {
            dtype: DType::Bool, ..
        } if g
            .value_type(node.inputs[0])
            .is_some_and(|t| t.dtype == DType::Bool) =>
        {
            implied_tests(g, node.inputs[0], out, budget)
        }
        Op::Binary(BinaryOp::LogicalAnd) => {
            implied_tests(g, node.inputs[0], out, budget);
            implied_tests(g, node.inputs[1], out, budget);
        }
        Op::Binary(op @ (BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge)) => {
            out.push((*op, node.inputs[0], node.inputs[1]))
        }
        Op::If { otherwise, .. } if is_false(otherwise, 0) => {
            implied_tests(g, node.inputs[0], out, budget)
        }
        Op::Result { index, .. } => {
            if let Some(Op::If { otherwise, .. }) = g.node(node.inputs[0]).map(|n| &n.op) {
                if is_false(otherwise, *index) {
                    implied_tests(
                        g,
                        g.node(node.inputs[0]).expect("an if").inputs[0],
                        out,
                        budget,
                    );
                }
            }
        }
        _ => {}
    }
}

/// The constant step of a carried value whose new value `next` is its parameter `p` plus or
/// minus a constant (`j - 1`: -1, `i + 2`: 2).
fn monotone_step(g: &Graph, p: usize, next: ValueId) -> Option<i64> {
    let node = g.node(next)?;
    let constant = |v: ValueId| match g.node(v).map(|n| &n.op) {
        Some(Op::Const { value, .. }) => match const_of(*value) {
            Const::Int(c) => Some(c),
            Const::Float(_) => None,
        },
        _ => None,
    };
    let param = |v: ValueId| v.index() == p && v.index() < g.params.len();
    match (&node.op, &node.inputs[..]) {
        (Op::Binary(BinaryOp::Add), &[a, b]) if param(a) => constant(b),
        (Op::Binary(BinaryOp::Add), &[a, b]) if param(b) => constant(a),
        (Op::Binary(BinaryOp::Sub), &[a, b]) if param(a) => constant(b)?.checked_neg(),
        _ => None,
    }
}
