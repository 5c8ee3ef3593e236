//! A kernel rewrite that stores an expensive reduced expression once instead of computing it
//! twice per element.
//!
//! Softmax reduces `exp(x - max)` and then writes `exp(x - max) / sum`: as built, each element's
//! `exp` runs in both stages. When a map's only per-element input is such a reduced expression
//! `r`, the kernel instead writes `r` into the map's output row first, reduces the stored row,
//! and finishes the map in place. The extra pass touches the row while it is still in cache.

use crate::kernel::{ExprId, ExprOp, InnerAccess, Kernel, Stage, UnaryOp};

/// Whether `e` computes a transcendental function somewhere below it.
fn expensive(k: &Kernel, e: ExprId) -> bool {
    let mut stack = vec![e];
    while let Some(i) = stack.pop() {
        match k.exprs[i].op {
            ExprOp::Unary(op, x) => {
                use UnaryOp::*;
                if !matches!(
                    op,
                    Neg | Abs
                        | Sign
                        | Square
                        | Floor
                        | Ceil
                        | Trunc
                        | Rint
                        | LogicalNot
                        | BitwiseNot
                        | Isnan
                        | Isinf
                        | Isfinite
                        | Signbit
                        | Sqrt
                        | Reciprocal
                ) {
                    return true;
                }
                stack.push(x);
            }
            ExprOp::Binary(_, x, y) => stack.extend([x, y]),
            ExprOp::Where(c, x, y) => stack.extend([c, x, y]),
            ExprOp::Cast(x) => stack.push(x),
            _ => {}
        }
    }
    false
}

/// Whether `root` reads a per-element buffer other than through node `hole`.
fn varies_outside(k: &Kernel, root: ExprId, hole: ExprId) -> bool {
    let mut stack = vec![root];
    while let Some(i) = stack.pop() {
        if i == hole {
            continue;
        }
        match k.exprs[i].op {
            ExprOp::Load(b) if k.buffers[b].inner == InnerAccess::Strided => return true,
            ExprOp::Unary(_, x) | ExprOp::Cast(x) => stack.push(x),
            ExprOp::Binary(_, x, y) => stack.extend([x, y]),
            ExprOp::Where(c, x, y) => stack.extend([c, x, y]),
            _ => {}
        }
    }
    false
}

/// `root` with node `from` replaced by `to` (new nodes appended; shared ones reused).
fn substitute(k: &mut Kernel, root: ExprId, from: ExprId, to: ExprId) -> ExprId {
    let mut map: Vec<ExprId> = (0..k.exprs.len()).collect();
    map[from] = to;
    for i in from + 1..=root {
        let e = k.exprs[i].clone();
        let op = match e.op {
            ExprOp::Unary(op, x) => ExprOp::Unary(op, map[x]),
            ExprOp::Binary(op, x, y) => ExprOp::Binary(op, map[x], map[y]),
            ExprOp::Where(c, x, y) => ExprOp::Where(map[c], map[x], map[y]),
            ExprOp::Cast(x) => ExprOp::Cast(map[x]),
            other => other,
        };
        if op != k.exprs[i].op {
            map[i] = k.expr(op, e.ty);
        }
    }
    map[root]
}

/// Applies the rewrite to every eligible (reduction, map) pair of `k`.
pub(crate) fn store_reduced_once(k: &mut Kernel) {
    let mut s = 0;
    while s < k.stages.len() {
        let Stage::Reduce { op, value: r } = k.stages[s].clone() else {
            s += 1;
            continue;
        };
        let candidate = k.stages[s + 1..].iter().position(|st| match *st {
            Stage::Map { buffer, value } => {
                k.buffers[buffer].inner == InnerAccess::Strided
                    && k.buffers[buffer].dtype == k.exprs[r].ty
                    && value != r
                    && contains(k, value, r)
                    && !varies_outside(k, value, r)
            }
            _ => false,
        });
        let Some(offset) = candidate.filter(|_| expensive(k, r)) else {
            s += 1;
            continue;
        };
        let m = s + 1 + offset;
        let Stage::Map { buffer, value } = k.stages[m].clone() else {
            unreachable!("candidate is a map")
        };
        let stored = k.load(buffer);
        let finish = substitute(k, value, r, stored);
        k.stages[m] = Stage::Map {
            buffer,
            value: finish,
        };
        k.stages[s] = Stage::Reduce { op, value: stored };
        k.stages.insert(s, Stage::Map { buffer, value: r });
        // Stage indices after `s` moved by one: renumber the results that name them.
        for e in k.exprs.iter_mut() {
            if let ExprOp::StageResult(t) = &mut e.op {
                if *t >= s {
                    *t += 1;
                }
            }
        }
        s += 2;
    }
}

fn contains(k: &Kernel, root: ExprId, target: ExprId) -> bool {
    let mut stack = vec![root];
    while let Some(i) = stack.pop() {
        if i == target {
            return true;
        }
        match k.exprs[i].op {
            ExprOp::Unary(_, x) | ExprOp::Cast(x) => stack.push(x),
            ExprOp::Binary(_, x, y) => stack.extend([x, y]),
            ExprOp::Where(c, x, y) => stack.extend([c, x, y]),
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::{BinaryOp, ReduceOp, Scalar};

    /// Softmax's kernel computes `exp` once per element after the rewrite.
    #[test]
    fn softmax_stores_exp_once() {
        let mut k = Kernel::default();
        let x = k.buffer(Scalar::F32, InnerAccess::Strided);
        let out = k.buffer(Scalar::F32, InnerAccess::Strided);
        let lx = k.load(x);
        k.stages.push(Stage::Reduce {
            op: ReduceOp::Max,
            value: lx,
        });
        let m = k.stage_result(0);
        let d = k.binary(BinaryOp::Sub, lx, m);
        let e = k.unary(UnaryOp::Exp, d);
        k.stages.push(Stage::Reduce {
            op: ReduceOp::Sum,
            value: e,
        });
        let s = k.stage_result(1);
        let q = k.binary(BinaryOp::Div, e, s);
        k.stages.push(Stage::Map {
            buffer: out,
            value: q,
        });
        store_reduced_once(&mut k);
        let kinds: Vec<&str> = k
            .stages
            .iter()
            .map(|s| match s {
                Stage::Reduce { .. } => "reduce",
                Stage::Map { .. } => "map",
                Stage::RowStore { .. } => "row",
            })
            .collect();
        assert_eq!(kinds, ["reduce", "map", "reduce", "map"]);
        let Stage::Map { value, .. } = k.stages[3] else {
            unreachable!()
        };
        assert!(!expensive(&k, value), "the final map still computes exp");
        let Stage::Reduce { value, .. } = k.stages[2] else {
            unreachable!()
        };
        assert_eq!(k.exprs[value].op, ExprOp::Load(out));
        // The sum's result is now stage 2: the final map must read it from there.
        assert!(k.exprs.iter().any(|e| e.op == ExprOp::StageResult(2)));
    }
}
