//! Statements with regions and element access: one native step each (`crate::native`), or,
//! for a loop whose body computes with arrays, a body graph run per iteration; and when a
//! result may take over its operand's buffer.

use super::lazy::{LOp, L};
use super::{Scheduler, Slot, Step, ValueRef};
use crate::Error;
use ember_core::ir::{Node, Op, Type, ValueId};

impl Scheduler<'_> {
    /// A statement compiled to one native function: operands stored, one fresh buffer per
    /// result; the projections that follow take the further results.
    pub(crate) fn native(
        &mut self,
        node: &Node,
        v: ValueId,
        done: &mut [bool],
    ) -> Result<L, Error> {
        if !crate::native::supports(&node.op) {
            return self.body_loop(node, v, done);
        }
        let inputs: Vec<Type> = node.inputs.iter().map(|&v| self.ty(v).clone()).collect();
        let start = v.index() - self.g.params.len();
        let results: Vec<Type> = (0..node.op.result_count())
            .map(|k| self.g.nodes[start + k].ty.clone())
            .collect();
        let statement = crate::native::NativeStatement::new(node, &inputs, &results)?;
        let mut statement = statement;
        let mut operands: Vec<ValueRef> = Vec::new();
        for (p, &x) in node.inputs.iter().enumerate() {
            // 0-d constants are compiled into the code (known trip counts and indices let
            // element accesses skip their bounds checks); their operand is never read.
            if let LOp::Const(c) = self.lazy.nodes[self.defs[x.index()]].op {
                if inputs[p].shape.is_empty() {
                    statement.consts[p] = Some(c);
                    operands.push(ValueRef::of(crate::native::COMPILED_IN, &[]));
                    continue;
                }
            }
            let vr = self.materialise(self.defs[x.index()], None)?;
            self.settle(vr.slot)?;
            operands.push(vr);
        }
        // An open group may still read a buffer this statement updates in place.
        for g in 0..self.groups.len() {
            self.close(g)?;
        }
        let mut leaves = Vec::new();
        let mut refs = Vec::new();
        for (k, ty) in results.iter().enumerate() {
            let dtype = ty.dtype;
            let shape = ty.static_shape().expect("checked static");
            let value = ValueId(v.0 + k as u32);
            // A donated operand that nothing else reads is updated where it lies (no copy);
            // when the result is a graph output, the steps that built that operand are made
            // to write the output instead, so the statement updates the output in place.
            let reuse = statement.donated[k].filter(|&p| {
                self.dead_after(node.inputs[p], v)
                    && node.inputs.iter().filter(|&&y| y == node.inputs[p]).count() == 1
                    && self.sole_reader(&operands[p], node.inputs[p])
            });
            let vr = match (reuse, self.result_slot(value, done)) {
                (Some(p), Some(out)) => {
                    self.retarget(operands[p].slot, out);
                    operands[p] = ValueRef::of(out, &shape);
                    statement.in_place[k] = true;
                    operands[p].clone()
                }
                (None, Some(out)) => ValueRef::of(out, &shape),
                (Some(p), None) => {
                    statement.in_place[k] = true;
                    operands[p].clone()
                }
                (None, None) => ValueRef::of(self.new_temp(dtype, &shape), &shape),
            };
            leaves.push(self.leaf(vr.clone(), dtype));
            refs.push(vr);
        }
        self.natives.push(statement);
        self.steps.push(Step::Native {
            native: self.natives.len() - 1,
            operands,
            results: refs,
        });
        self.further = leaves.split_off(1);
        Ok(leaves[0])
    }

    /// A loop or an `if` whose regions compute with arrays: every operand stored, one buffer
    /// per result, each region a body graph of its own.
    fn body_loop(&mut self, node: &Node, v: ValueId, done: &mut [bool]) -> Result<L, Error> {
        let bodies: Vec<&ember_core::ir::Region> = match &node.op {
            Op::Loop { body, .. } => vec![body],
            Op::If { then, otherwise } => vec![then, otherwise],
            op => {
                return Err(Error::Unsupported(format!(
                    "`{}` as a native statement",
                    op.name()
                )))
            }
        };
        let mut operands = Vec::new();
        for &x in &node.inputs {
            let vr = self.materialise(self.defs[x.index()], None)?;
            self.settle(vr.slot)?;
            operands.push(vr);
        }
        for g in 0..self.groups.len() {
            self.close(g)?;
        }
        let mut leaves = Vec::new();
        let mut results = Vec::new();
        let start = v.index() - self.g.params.len();
        for k in 0..node.op.result_count() {
            let ty = self.g.nodes[start + k].ty.clone();
            let dtype = ty.dtype;
            let shape = ty.static_shape().expect("checked static");
            let slot = match self.result_slot(ValueId(v.0 + k as u32), done) {
                Some(out) => out,
                None => self.new_temp(dtype, &shape),
            };
            let vr = ValueRef::of(slot, &shape);
            leaves.push(self.leaf(vr.clone(), dtype));
            results.push(vr);
        }
        let first = self.bodies.len();
        self.bodies.extend(bodies.iter().map(|b| (***b).clone()));
        self.steps.push(match &node.op {
            Op::Loop { carried, .. } => Step::BodyLoop {
                body: first,
                carried: *carried,
                operands,
                results,
            },
            _ => Step::BodyIf {
                then: first,
                otherwise: first + 1,
                operands,
                results,
            },
        });
        self.further = leaves.split_off(1);
        Ok(leaves[0])
    }

    /// Makes every step and lazy value built so far use slot `to` instead of temp `from`
    /// (which only the statement being scheduled reads from now on).
    fn retarget(&mut self, from: Slot, to: Slot) {
        let mut refs: Vec<&mut ValueRef> = Vec::new();
        for step in &mut self.steps {
            match step {
                Step::Kernel { operands, .. } => refs.extend(operands.iter_mut().map(|(v, _)| v)),
                Step::Matmul { a, b, out, .. } => refs.extend([a, b, out]),
                Step::Scan { input, out, .. } => refs.extend([input, out]),
                Step::Linalg { inputs, out, .. } | Step::Indexed { inputs, out, .. } => {
                    refs.extend(inputs.iter_mut().chain([out]))
                }
                Step::Native {
                    operands, results, ..
                }
                | Step::BodyLoop {
                    operands, results, ..
                }
                | Step::BodyIf {
                    operands, results, ..
                } => refs.extend(operands.iter_mut().chain(results.iter_mut())),
            }
        }
        for node in &mut self.lazy.nodes {
            if let LOp::Leaf(vr) = &mut node.op {
                refs.push(vr);
            }
        }
        for vr in refs {
            if vr.slot == from {
                vr.slot = to;
            }
        }
    }

    /// Whether `x` is read by no statement after `at` and is not a graph result.
    fn dead_after(&self, x: ValueId, at: ValueId) -> bool {
        let first = at.index() - self.g.params.len() + 1;
        !self.g.results.contains(&x) && self.g.nodes[first..].iter().all(|n| !n.inputs.contains(&x))
    }

    /// Whether `vr` is a whole temp that no lazy value but `x`'s own definition reads (so that
    /// writing it in place changes nothing anyone else sees).
    fn sole_reader(&self, vr: &ValueRef, x: ValueId) -> bool {
        if !matches!(vr.slot, Slot::Temp(_)) || !vr.views.is_empty() {
            return false;
        }
        let own = self.defs[x.index()];
        let leaves: Vec<L> = (0..self.lazy.nodes.len())
            .filter(|&l| matches!(&self.lazy.nodes[l].op, LOp::Leaf(r) if r.slot == vr.slot))
            .collect();
        let read_by_others = self.lazy.nodes.iter().any(|n| {
            let operands: Vec<L> = match &n.op {
                LOp::Unary(_, a) | LOp::Cast(a) | LOp::View(_, a) => vec![*a],
                LOp::Binary(_, a, b) => vec![*a, *b],
                LOp::Where(a, b, c) => vec![*a, *b, *c],
                LOp::Leaf(_) | LOp::Const(_) | LOp::Stage { .. } => Vec::new(),
            };
            operands.iter().any(|o| leaves.contains(o))
        });
        let shared = self
            .defs
            .iter()
            .enumerate()
            .any(|(y, d)| y != x.index() && leaves.contains(d));
        leaves.iter().all(|&l| l == own) && !read_by_others && !shared
    }
}
