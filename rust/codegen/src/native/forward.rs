//! Store-to-load forwarding across iterations: in `y[i] = a * y[i - 1] + x[i]` (or a DP
//! table's `T[i, j - 1]`) every iteration reads the element the previous one stored. Such a
//! load is served from a register holding the value last stored instead of memory, which
//! takes the store-to-load round trip (several cycles) off the loop-carried chain.
//!
//! A carried array qualifies when, in the loop body (branches included, nested loops
//! excluded), every store to it is at the same index `P(i)` (each axis affine in the
//! induction variable `i`, with loop-invariant parts), one is made on every path through
//! the body, and the load reads `P(i - step)` before any store of the iteration. The first
//! iteration's value is loaded before the loop, which the lowering does only when that
//! element is proven in bounds; later iterations read what the previous one stored, so no
//! check is skipped that could fail.

use crate::schedule::nodes::const_of;
use ember_core::ir::{BinaryOp, DType, Graph, Op};
use std::collections::{HashMap, HashSet};

/// A statement, by its graph's address and position (regions are lowered in place, so this
/// names one node of the statement being compiled).
pub(crate) type NodeKey = (usize, usize);

pub(crate) fn node_key(g: &Graph, index: usize) -> NodeKey {
    (g as *const Graph as usize, index)
}

/// `ind * i + atom + c`: an index affine in the induction variable `i`, `atom` a
/// loop-invariant `i64` parameter of the body (by position).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Affine {
    pub ind: i64,
    pub atom: Option<usize>,
    pub c: i64,
}

#[derive(Clone, PartialEq, Eq, Debug)]
enum Form {
    Affine(Affine),
    /// A version of the carried array that is body parameter `p`.
    Buffer(usize),
    Opaque,
}

/// One forwarded array of a loop.
pub(crate) struct Forward {
    /// The body parameter of the carried array.
    pub buffer: usize,
    /// The element the first iteration reads, as forms of the loop's first index.
    pub first: Vec<Affine>,
    pub loads: Vec<NodeKey>,
    pub stores: Vec<NodeKey>,
}

struct Access {
    key: NodeKey,
    index: Vec<Form>,
    after_store: bool,
}

#[derive(Default)]
struct Scan {
    stores: HashMap<usize, Vec<Access>>,
    loads: HashMap<usize, Vec<Access>>,
    /// Arrays stored inside a nested loop: left alone.
    spoiled: HashSet<usize>,
}

/// Arrays stored on every path so far, and on some path.
#[derive(Clone, Default)]
struct Stored {
    always: HashSet<usize>,
    maybe: HashSet<usize>,
}

fn combine(a: &Form, b: &Form, sign: i64) -> Form {
    match (a, b) {
        (Form::Affine(x), Form::Affine(y)) if x.atom.is_none() || y.atom.is_none() => {
            if sign < 0 && y.atom.is_some() {
                return Form::Opaque;
            }
            match (
                x.ind.checked_add(sign * y.ind),
                y.c.checked_mul(sign).and_then(|c| x.c.checked_add(c)),
            ) {
                (Some(ind), Some(c)) => Form::Affine(Affine {
                    ind,
                    atom: x.atom.or(y.atom),
                    c,
                }),
                _ => Form::Opaque,
            }
        }
        _ => Form::Opaque,
    }
}

fn is_int(d: DType) -> bool {
    matches!(d, DType::I32 | DType::I64)
}

impl Scan {
    fn walk(
        &mut self,
        g: &Graph,
        params: Vec<Form>,
        stored: &mut Stored,
        nested: bool,
    ) -> Vec<Form> {
        let mut vals = params;
        let mut further: Vec<Form> = Vec::new();
        for (i, n) in g.nodes.iter().enumerate() {
            let arg = |k: usize| vals[n.inputs[k].index()].clone();
            let dtype_in = |k: usize| g.value_type(n.inputs[k]).map(|t| t.dtype);
            let form = match &n.op {
                Op::Const { value, .. } if is_int(n.ty.dtype) => match const_of(*value) {
                    crate::kernel::Const::Int(c) => Form::Affine(Affine {
                        ind: 0,
                        atom: None,
                        c,
                    }),
                    crate::kernel::Const::Float(_) => Form::Opaque,
                },
                Op::Binary(BinaryOp::Add) if n.ty.dtype == DType::I64 => {
                    combine(&arg(0), &arg(1), 1)
                }
                Op::Binary(BinaryOp::Sub) if n.ty.dtype == DType::I64 => {
                    combine(&arg(0), &arg(1), -1)
                }
                Op::Astype { .. } | Op::Copy
                    if n.ty.dtype == DType::I64 && dtype_in(0).is_some_and(is_int) =>
                {
                    arg(0)
                }
                Op::Load => {
                    if let (Form::Buffer(p), false) = (arg(0), nested) {
                        self.loads.entry(p).or_default().push(Access {
                            key: node_key(g, i),
                            index: (1..n.inputs.len()).map(arg).collect(),
                            after_store: stored.maybe.contains(&p),
                        });
                    }
                    Form::Opaque
                }
                Op::Store => match arg(0) {
                    Form::Buffer(p) => {
                        if nested {
                            self.spoiled.insert(p);
                        } else {
                            self.stores.entry(p).or_default().push(Access {
                                key: node_key(g, i),
                                index: (2..n.inputs.len()).map(arg).collect(),
                                after_store: false,
                            });
                            stored.always.insert(p);
                            stored.maybe.insert(p);
                        }
                        Form::Buffer(p)
                    }
                    _ => Form::Opaque,
                },
                Op::If { then, otherwise } => {
                    let inner: Vec<Form> = (1..n.inputs.len()).map(arg).collect();
                    let (mut s1, mut s2) = (stored.clone(), stored.clone());
                    let r1 = self.walk(then, inner.clone(), &mut s1, nested);
                    let r2 = self.walk(otherwise, inner, &mut s2, nested);
                    stored.always = s1.always.intersection(&s2.always).copied().collect();
                    stored.maybe = s1.maybe.union(&s2.maybe).copied().collect();
                    let mut results: Vec<Form> = r1
                        .iter()
                        .zip(&r2)
                        .map(|(a, b)| if a == b { a.clone() } else { Form::Opaque })
                        .collect();
                    further = results.split_off(1);
                    further.reverse();
                    results.remove(0)
                }
                Op::Loop { body, carried } => {
                    let mut inner = vec![Form::Opaque];
                    for k in 3..n.inputs.len() {
                        inner.push(match arg(k) {
                            Form::Affine(_) if k < 3 + carried => Form::Opaque,
                            other => other,
                        });
                    }
                    let mut s = stored.clone();
                    self.walk(body, inner, &mut s, true);
                    let mut results: Vec<Form> = (3..3 + carried)
                        .map(|k| match arg(k) {
                            Form::Buffer(p) => Form::Buffer(p),
                            _ => Form::Opaque,
                        })
                        .collect();
                    further = results.split_off(1);
                    further.reverse();
                    results.remove(0)
                }
                Op::Result { .. } => further.pop().unwrap_or(Form::Opaque),
                _ => Form::Opaque,
            };
            vals.push(form);
        }
        g.results.iter().map(|v| vals[v.index()].clone()).collect()
    }
}

/// The accesses of loop `body` (with `carried` carried values) outside nested loops.
fn scan(body: &Graph, carried: usize) -> (Scan, Stored) {
    let mut params = vec![Form::Affine(Affine {
        ind: 1,
        atom: None,
        c: 0,
    })];
    for (p, ty) in body.params.iter().enumerate().skip(1) {
        params.push(match (ty.shape.is_empty(), p <= carried) {
            (false, _) => Form::Buffer(p),
            (true, false) if is_int(ty.dtype) => Form::Affine(Affine {
                ind: 0,
                atom: Some(p),
                c: 0,
            }),
            _ => Form::Opaque,
        });
    }
    let mut scan = Scan::default();
    let mut stored = Stored::default();
    scan.walk(body, params, &mut stored, false);
    (scan, stored)
}

/// Every element access of loop `body` outside nested loops: the array (a body parameter)
/// and, per axis, the index when it is affine.
pub(crate) fn accesses(body: &Graph, carried: usize) -> Vec<(usize, Vec<Option<Affine>>)> {
    let (scan, _) = scan(body, carried);
    let affine = |f: &Form| match f {
        Form::Affine(a) => Some(*a),
        _ => None,
    };
    scan.loads
        .iter()
        .chain(&scan.stores)
        .flat_map(|(&p, list)| {
            list.iter()
                .map(move |a| (p, a.index.iter().map(affine).collect()))
        })
        .collect()
}

/// The arrays of loop `body` (with `carried` carried values and a constant `step`) whose
/// loads can be forwarded from the previous iteration's store.
pub(crate) fn plan(body: &Graph, carried: usize, step: i64) -> Vec<Forward> {
    let (scan, stored) = scan(body, carried);
    let mut plans = Vec::new();
    for (&p, stores) in &scan.stores {
        let bool_array = body.params[p].dtype == DType::Bool;
        if p > carried || bool_array || scan.spoiled.contains(&p) || !stored.always.contains(&p) {
            continue;
        }
        let index: Option<Vec<Affine>> = stores[0]
            .index
            .iter()
            .map(|f| match f {
                Form::Affine(a) => Some(*a),
                _ => None,
            })
            .collect();
        let Some(index) = index else { continue };
        // An index that does not move (`x[i] = x[i] + A[i, j] * y[j]` over `j`) is its own
        // previous element: the accumulator stays in a register.
        if stores.iter().any(|s| s.index != stores[0].index) {
            continue;
        }
        let previous: Option<Vec<Affine>> = index
            .iter()
            .map(|a| {
                let c = a.c.checked_sub(a.ind.checked_mul(step)?)?;
                Some(Affine { c, ..*a })
            })
            .collect();
        let Some(previous) = previous else { continue };
        let wanted: Vec<Form> = previous.iter().map(|a| Form::Affine(*a)).collect();
        let loads: Vec<NodeKey> = scan
            .loads
            .get(&p)
            .into_iter()
            .flatten()
            .filter(|l| !l.after_store && l.index == wanted)
            .map(|l| l.key)
            .collect();
        if loads.is_empty() {
            continue;
        }
        plans.push(Forward {
            buffer: p,
            first: previous,
            loads,
            stores: stores.iter().map(|s| s.key).collect(),
        });
    }
    plans.sort_by_key(|f| f.buffer);
    plans
}
