//! `if` statements. A branch on data (`a[i] == b[j]` in a DP table) mispredicts about as
//! often as the data is random, so an `if` whose two regions are short, cannot raise and
//! touch only elements proven in bounds runs as straight-line code instead: both regions are
//! computed, scalar results are picked with `select` (a `cmov`), and the stores either region
//! makes are deferred and then made unconditionally, each storing the element's new value
//! when its region is the one taken and its old value otherwise. Anything else (a loop, a
//! check, an operation that could set a floating-point flag or trap) keeps the branches.

use super::lower::{Array, Native, Val};
use super::refine::Fact;
use crate::kernel::{Const, Scalar};
use crate::lower::expr::cl_type;
use crate::lower::{little, mem, Mode};
use crate::schedule::nodes::const_of;
use crate::Error;
use cranelift_codegen::ir::{types, BlockArg, InstBuilder, TrapCode, Value};
use cranelift_frontend::Variable;
use ember_core::ir::{BinaryOp, DType, Graph, Op, UnaryOp};
use std::collections::HashMap;
use std::rc::Rc;

/// Region nodes above which both sides cost more than a mispredicted branch.
const MAX_SELECT_NODES: usize = 24;

/// One index of a deferred store: the same register or the same constant is the same
/// element.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) enum IndexKey {
    Reg(Value),
    Const(i64),
}

/// A store a speculated region makes, deferred until both regions are computed.
pub(crate) struct Deferred {
    pub buffer: usize,
    pub key: Vec<IndexKey>,
    pub addr: Value,
    pub value: Value,
    /// The variable that also keeps the stored value (`forward.rs`).
    pub forward: Option<Variable>,
}

impl IndexKey {
    pub(crate) fn of(v: &Val) -> Option<IndexKey> {
        match v {
            Val::Const(Const::Int(c), _) => Some(IndexKey::Const(*c)),
            Val::Scalar(r, _) => Some(IndexKey::Reg(*r)),
            _ => None,
        }
    }
}

/// Whether `g` is short and made only of operations that neither branch, trap nor set a
/// floating-point flag, whatever values they see.
fn speculable(g: &Graph) -> bool {
    let float = |v: &ember_core::ir::ValueId| {
        g.value_type(*v)
            .is_some_and(|t| matches!(t.dtype, DType::F32 | DType::F64))
    };
    g.nodes.len() <= MAX_SELECT_NODES
        && g.nodes.iter().all(|n| match &n.op {
            Op::Const { .. } | Op::Load | Op::Store | Op::Where => true,
            // A float converted to an integer or narrower float can raise a flag.
            Op::Astype { .. } | Op::Copy => {
                !n.inputs.iter().any(float)
                    || g.value_type(n.inputs[0]).map(|t| t.dtype) == Some(n.ty.dtype)
            }
            Op::Binary(op) => {
                let compare = matches!(
                    op,
                    BinaryOp::Eq
                        | BinaryOp::Ne
                        | BinaryOp::Lt
                        | BinaryOp::Le
                        | BinaryOp::Gt
                        | BinaryOp::Ge
                );
                let integer = matches!(
                    op,
                    BinaryOp::Add
                        | BinaryOp::Sub
                        | BinaryOp::Mul
                        | BinaryOp::Maximum
                        | BinaryOp::Minimum
                        | BinaryOp::LogicalAnd
                        | BinaryOp::LogicalOr
                        | BinaryOp::LogicalXor
                        | BinaryOp::BitwiseAnd
                        | BinaryOp::BitwiseOr
                        | BinaryOp::BitwiseXor
                );
                compare || (integer && !n.inputs.iter().any(float))
            }
            Op::Unary(op) => match op {
                UnaryOp::LogicalNot | UnaryOp::Isnan | UnaryOp::Signbit => true,
                UnaryOp::Neg | UnaryOp::Positive | UnaryOp::Abs | UnaryOp::BitwiseNot => {
                    !n.inputs.iter().any(float)
                }
                _ => false,
            },
            _ => false,
        })
}

/// The `if` of loop body `body` (its node index) one of whose regions ends the loop: it
/// gives the body's continue flag (through casts) and that flag is the constant false in one
/// region (a `break`). Such a branch goes the same way on every trip but the last, so it
/// predicts well; computed as selects it would make every carried value wait for the test
/// (`d += 1` for the remainder of a trial division).
pub(crate) fn exit_test(body: &Graph) -> Option<usize> {
    let mut v = *body.results.first()?;
    let mut output = 0;
    let index = loop {
        let i = v.index().checked_sub(body.params.len())?;
        let node = body.nodes.get(i)?;
        match &node.op {
            Op::Astype { .. } | Op::Copy => v = node.inputs[0],
            Op::Result { index, .. } => {
                output = *index;
                v = node.inputs[0];
            }
            Op::If { .. } => break i,
            _ => return None,
        }
    };
    let Op::If { then, otherwise } = &body.nodes[index].op else {
        unreachable!("found above")
    };
    let is_false = |g: &Graph| {
        let mut node = g.results.get(output).and_then(|&r| g.node(r));
        while let Some(Op::Astype { .. } | Op::Copy) = node.map(|n| &n.op) {
            node = node.and_then(|n| g.node(n.inputs[0]));
        }
        node.is_some_and(
            |n| matches!(&n.op, Op::Const { value, .. } if const_of(*value) == Const::Int(0)),
        )
    };
    (is_false(then) || is_false(otherwise)).then_some(index)
}

/// The `if`s of loop body `body` (node indices) on a recurrence through their test: the test
/// reads a carried value (`a[j] < a[best]`, `d < low`) that the `if`'s results then give the
/// next iteration (`best = j`). As selects, each iteration's test would wait for the last
/// one's select (and the load it addresses); as branches, a running minimum or search, which
/// changes its mind rarely, predicts well and iterations overlap, as after LLVM's conversion
/// of such `cmov`s to branches.
pub(crate) fn recurrent_tests(body: &Graph, carried: usize) -> Vec<usize> {
    let width = body.params.len() + body.nodes.len();
    // The carried values each value reads (params `1..=carried`), as bits.
    let mut reads = vec![0u128; width];
    for (j, r) in reads.iter_mut().enumerate().skip(1).take(carried.min(128)) {
        *r = 1 << (j - 1);
    }
    for (i, n) in body.nodes.iter().enumerate() {
        let bits = n.inputs.iter().fold(0, |acc, v| acc | reads[v.index()]);
        reads[body.params.len() + i] = bits;
    }
    let mut found = Vec::new();
    for (i, n) in body.nodes.iter().enumerate() {
        if !matches!(n.op, Op::If { .. }) {
            continue;
        }
        let tested = reads[n.inputs[0].index()];
        if tested == 0 {
            continue;
        }
        // The values computed from the `if`'s results.
        let mut from_if = vec![false; width];
        from_if[body.params.len() + i] = true;
        for (k, m) in body.nodes.iter().enumerate().skip(i + 1) {
            from_if[body.params.len() + k] = m.inputs.iter().any(|v| from_if[v.index()]);
        }
        let recurs = body
            .results
            .iter()
            .skip(1)
            .take(carried.min(128))
            .enumerate()
            .any(|(j, r)| tested & (1 << j) != 0 && from_if[r.index()]);
        if recurs {
            found.push(i);
        }
    }
    found
}

impl Native<'_, '_> {
    /// `facts`: what the test proves on each side (`refine.rs`), used where it branches;
    /// `branch`: whether it is the loop's [`exit_test`] or one of its [`recurrent_tests`],
    /// which always branch.
    pub(crate) fn lower_if(
        &mut self,
        then: &Graph,
        otherwise: &Graph,
        args: &[Val],
        facts: &[Fact],
        branch: bool,
    ) -> Result<Vec<Val>, Error> {
        if !branch && speculable(then) && speculable(otherwise) {
            if let Some(results) = self.lower_selected(then, otherwise, args)? {
                return Ok(results);
            }
        }
        self.lower_branches(then, otherwise, args, facts)
    }

    /// Both regions computed in a block of their own, joined by selects; `None` (the block
    /// left unreachable) when a region needs a bounds check or its stores cannot be merged.
    fn lower_selected(
        &mut self,
        then: &Graph,
        otherwise: &Graph,
        args: &[Val],
    ) -> Result<Option<Vec<Val>>, Error> {
        let cond = self.value_as(&args[0], Scalar::Bool);
        let from = self.em.b.current_block().expect("lowering inside a block");
        let block = self.em.b.create_block();
        self.em.b.switch_to_block(block);
        let merged = self.speculate(then, otherwise, args, cond);
        match merged {
            Ok(results) => {
                self.em.b.switch_to_block(from);
                self.em.b.ins().jump(block, &[]);
                self.em.b.switch_to_block(block);
                self.em.b.seal_block(block);
                Ok(Some(results))
            }
            Err(_) => {
                self.spec = None;
                self.em.b.ins().trap(TrapCode::unwrap_user(1));
                self.em.b.switch_to_block(from);
                Ok(None)
            }
        }
    }

    /// Each region with its stores deferred, then the merge.
    fn speculate(
        &mut self,
        then: &Graph,
        otherwise: &Graph,
        args: &[Val],
        cond: Value,
    ) -> Result<Vec<Val>, Error> {
        // What memory holds before either region's deferred stores are made.
        let loaded = self.loaded.clone();
        let mut sides = Vec::new();
        for region in [then, otherwise] {
            self.spec = Some(Vec::new());
            let results = self.lower_graph(region, args[1..].to_vec())?;
            sides.push((results, self.spec.take().expect("set above")));
        }
        let (else_results, else_stores) = sides.pop().expect("two sides");
        let (then_results, then_stores) = sides.pop().expect("two sides");
        // Paired stores are made in the then-region's order, so the elements both regions
        // store must come in the same order in the other.
        let paired: Vec<usize> = then_stores
            .iter()
            .filter_map(|t| {
                else_stores
                    .iter()
                    .position(|e| e.buffer == t.buffer && e.key == t.key)
            })
            .collect();
        if paired.windows(2).any(|w| w[0] > w[1]) {
            return Err(Error::Unsupported("stores in different orders".into()));
        }
        // Where no element is stored by both regions, the elements the then-region's stores
        // overwrite are read before any is made: on the path not taken each keeps its value,
        // even where two of them are one element. (A store pairing the else-region's value
        // could be such an element too: then each is read just before its store.)
        let olds: Vec<Option<Value>> = then_stores
            .iter()
            .map(|t| paired.is_empty().then(|| self.old_value(t, &loaded)))
            .collect();
        for (t, old) in then_stores.iter().zip(olds) {
            let other = else_stores
                .iter()
                .find(|e| e.buffer == t.buffer && e.key == t.key);
            let otherwise = match (other, old) {
                (Some(e), _) => e.value,
                (None, Some(old)) => old,
                (None, None) => self.old_value(t, &HashMap::new()),
            };
            let v = self.select_bits(cond, t.value, otherwise);
            self.em.b.ins().store(mem(), v, t.addr, 0);
            self.keep_stored(t.forward.or(other.and_then(|e| e.forward)), v, t.value);
        }
        for (k, e) in else_stores.iter().enumerate() {
            if paired.contains(&k) {
                continue;
            }
            let old = self.old_value(e, &HashMap::new());
            let v = self.select_bits(cond, old, e.value);
            self.em.b.ins().store(mem(), v, e.addr, 0);
            self.keep_stored(e.forward, v, e.value);
        }
        let mut out = Vec::new();
        for (j, ((t, e), ty)) in then_results
            .iter()
            .zip(&else_results)
            .zip(then.result_types())
            .enumerate()
        {
            out.push(match (t, e) {
                (Val::Array(a), Val::Array(b)) if a.buffer == b.buffer => Val::Array(Rc::clone(a)),
                (Val::Array(_), _) | (_, Val::Array(_)) => {
                    return Err(Error::Unsupported(format!(
                        "the branches return different arrays as result {j}"
                    )))
                }
                _ => {
                    let dtype = ty.dtype;
                    let (x, y) = (self.value_as(t, dtype), self.value_as(e, dtype));
                    let bits = self.select_bits(cond, x, y);
                    Val::Scalar(self.typed_from_bits(bits, dtype), dtype)
                }
            });
        }
        Ok(out)
    }

    /// Defines `forward` as the stored `bits`, typed as `like`.
    fn keep_stored(&mut self, forward: Option<Variable>, bits: Value, like: Value) {
        let Some(var) = forward else { return };
        let b = &mut self.em.b;
        let ty = b.func.dfg.value_type(like);
        let v = if b.func.dfg.value_type(bits) == ty {
            bits
        } else {
            b.ins().bitcast(ty, little(), bits)
        };
        b.def_var(var, v);
    }

    /// The element a deferred store overwrites, as it is before the store: a value `loaded`
    /// before the branch (while memory is unchanged), else a load. A bool's byte is loaded
    /// as it is (a loaded bool was normalised).
    fn old_value(&mut self, d: &Deferred, loaded: &HashMap<Value, (usize, Value)>) -> Value {
        let ty = self.em.b.func.dfg.value_type(d.value);
        match loaded.get(&d.addr) {
            Some(&(_, v)) if ty != types::I8 && self.em.b.func.dfg.value_type(v) == ty => v,
            _ => self.em.b.ins().load(ty, mem(), d.addr, 0),
        }
    }

    /// `cond ? x : y` as integer bits: a float is moved to an integer register first, where
    /// a select is a `cmov` rather than a branch.
    fn select_bits(&mut self, cond: Value, x: Value, y: Value) -> Value {
        let b = &mut self.em.b;
        let ty = b.func.dfg.value_type(x);
        let bits = match ty {
            types::F64 => types::I64,
            types::F32 => types::I32,
            _ => return b.ins().select(cond, x, y),
        };
        let xb = b.ins().bitcast(bits, little(), x);
        let yb = b.ins().bitcast(bits, little(), y);
        b.ins().select(cond, xb, yb)
    }

    /// A value of `dtype` back from the bits [`Self::select_bits`] gave.
    fn typed_from_bits(&mut self, bits: Value, dtype: Scalar) -> Value {
        let ty = cl_type(dtype, Mode::Scalar);
        if self.em.b.func.dfg.value_type(bits) == ty {
            bits
        } else {
            self.em.b.ins().bitcast(ty, little(), bits)
        }
    }
    /// Both regions as blocks and a conditional branch.
    fn lower_branches(
        &mut self,
        then: &Graph,
        otherwise: &Graph,
        args: &[Val],
        facts: &[Fact],
    ) -> Result<Vec<Val>, Error> {
        let cond = self.value_as(&args[0], Scalar::Bool);
        let result_types = then.result_types();
        let b = &mut self.em.b;
        let (tb, eb, merge) = (b.create_block(), b.create_block(), b.create_block());
        let mut merged: Vec<Option<Val>> = Vec::new();
        for ty in &result_types {
            if ty.shape.is_empty() {
                let dtype = ty.dtype;
                let v = b.append_block_param(merge, cl_type(dtype, Mode::Scalar));
                merged.push(Some(Val::Scalar(v, dtype)));
            } else {
                merged.push(None);
            }
        }
        b.ins().brif(cond, tb, &[], eb, &[]);
        let mut arrays: Vec<Option<Rc<Array>>> = vec![None; result_types.len()];
        for (block, region, taken) in [(tb, then, true), (eb, otherwise, false)] {
            self.em.b.switch_to_block(block);
            self.em.b.seal_block(block);
            let results = self.assuming(facts, taken, |nt| {
                nt.lower_graph(region, args[1..].to_vec())
            })?;
            let mut jump_args = Vec::new();
            for (j, (r, ty)) in results.iter().zip(&result_types).enumerate() {
                match r {
                    Val::Array(a) => match &arrays[j] {
                        Some(seen) if seen.buffer != a.buffer => {
                            return Err(Error::Unsupported(format!(
                                "the branches return different arrays as result {j}"
                            )))
                        }
                        _ => arrays[j] = Some(a.clone()),
                    },
                    scalar => {
                        let dtype = ty.dtype;
                        jump_args.push(BlockArg::Value(self.value_as(scalar, dtype)));
                    }
                }
            }
            self.em.b.ins().jump(merge, &jump_args);
        }
        self.em.b.switch_to_block(merge);
        self.em.b.seal_block(merge);
        Ok(merged
            .into_iter()
            .zip(arrays)
            .map(|(m, a)| m.unwrap_or_else(|| Val::Array(a.expect("an array result"))))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::recurrent_tests;
    use ember_core::ir::{parse, Op};

    /// The first loop body of `text` with its carried count.
    fn tests_of(text: &str) -> Vec<usize> {
        let g = parse(text).unwrap();
        let (body, carried) = g
            .nodes
            .iter()
            .find_map(|n| match &n.op {
                Op::Loop { body, carried } => Some((body.clone(), *carried)),
                _ => None,
            })
            .unwrap();
        recurrent_tests(&body, carried)
    }

    const SCAN: &str = "ember-ir 2
func @f(%0: f64[5]) -> (i64[] weak) {
  %1 = const() value=0 : i64[] weak
  %2 = const() value=1 : i64[] weak
  %3 = const() value=5 : i64[] weak
  %4 = loop(%2, %3, %2, %1, %0) body=@body carried=1 : i64[] weak
  return %4
}
func @body(%0: i64[] weak, %1: i64[] weak, %2: f64[5]) -> (bool[], i64[] weak) {
  %3 = load(%2, %0) : f64[]
  %4 = load(%2, INDEX) : f64[]
  %5 = lt(%3, %4) : bool[]
  %6 = if(%5, %1, %0) then=@then else=@else : i64[] weak
  %7 = const() value=true : bool[]
  return %7, RESULT
}
func @then(%0: i64[] weak, %1: i64[] weak) -> (i64[] weak) {
  return %1
}
func @else(%0: i64[] weak, %1: i64[] weak) -> (i64[] weak) {
  return %0
}
";

    #[test]
    fn a_test_on_a_value_its_if_carries_is_recurrent() {
        // `if a[j] < a[best]: best = j`
        let scan = SCAN.replace("INDEX", "%1").replace("RESULT", "%6");
        assert_eq!(tests_of(&scan), vec![3]);
    }

    #[test]
    fn a_test_on_data_only_or_a_carried_value_it_does_not_set_is_not() {
        // `if a[j] < a[0]: best = j`: the test reads no carried value.
        let data = SCAN.replace("INDEX", "%0").replace("RESULT", "%6");
        assert_eq!(tests_of(&data), Vec::<usize>::new());
        // The test reads `best`, but the `if`'s result is dropped.
        let dropped = SCAN.replace("INDEX", "%1").replace("RESULT", "%1");
        assert_eq!(tests_of(&dropped), Vec::<usize>::new());
    }
}
