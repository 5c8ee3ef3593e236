//! Chains of computed values that several reductions read, stored once.
//!
//! A reduction is a loop over its row of its own: it shares no work with the kernel's other
//! stages, so the values it reads are computed again inside it. Where a long chain of values
//! feeds several reductions -- a backward pass, where each step's cotangent is summed into a
//! scalar's gradient and also carried on to the step before -- each reduction would compute
//! the whole chain again, and the code (and its compile time) would grow with the square of
//! the chain's length. So before a reduction reads a value, each value of its chain that
//! other statements read too and that costs [`REDUCED_CHAIN`] or more per element is stored
//! once, deepest first; later readers load it (`Scheduler::stored`). A chain only this
//! reduction reads stays in its kernel.

use std::collections::{HashMap, HashSet};

use super::lazy::{LOp, L};
use super::Scheduler;
use crate::Error;

/// Per-element cost (in adds, counted through every path of the chain) from which a value
/// that other statements read too is stored before a reduction reads it.
const REDUCED_CHAIN: usize = 64;

impl Scheduler<'_> {
    /// Stores the costly shared values of `x`'s chain (see the module's doc).
    pub(crate) fn store_shared_chains(&mut self, x: L) -> Result<(), Error> {
        // The chain in post-order (operands first), not entering stored values.
        let mut order = Vec::new();
        let mut seen = HashSet::new();
        let mut stack = vec![(x, false)];
        while let Some((l, operands_done)) = stack.pop() {
            if operands_done {
                order.push(l);
                continue;
            }
            if !seen.insert(l) || self.stored.contains_key(&l) {
                continue;
            }
            stack.push((l, true));
            let (operands, _) = self.lazy.operands_and_cost(l);
            stack.extend(operands.into_iter().map(|a| (a, false)));
        }
        // Per value: its reads by statements of the chain and by the reduction itself (the
        // statement being scheduled). A value read elsewhere too is shared.
        let params = self.g.params.len();
        let current = self.defs.len() - params;
        let mut inside = vec![0u32; self.readers.len()];
        for (u, node) in self.g.nodes.iter().enumerate().take(current + 1) {
            if u == current || seen.contains(&self.defs[params + u]) {
                for v in &node.inputs {
                    inside[v.index()] += 1;
                }
            }
        }
        let shared: HashSet<L> = self
            .defs
            .iter()
            .enumerate()
            .filter(|&(i, l)| self.readers[i] > inside[i] && seen.contains(l))
            .map(|(_, &l)| l)
            .collect();
        if shared.is_empty() {
            return Ok(());
        }
        let mut cost: HashMap<L, usize> = HashMap::new();
        for l in order {
            let (operands, own) = self.lazy.operands_and_cost(l);
            let total = operands
                .iter()
                .map(|a| cost.get(a).copied().unwrap_or(0))
                .fold(own, usize::saturating_add);
            let node = &self.lazy.nodes[l];
            let storable = !matches!(node.op, LOp::View(..) | LOp::Leaf(_) | LOp::Const(_));
            if total >= REDUCED_CHAIN && storable && shared.contains(&l) {
                self.store_for_views(l)?;
                cost.insert(l, 0);
            } else {
                cost.insert(l, total);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::{schedule, Plan};
    use ember_core::ir::parse;

    /// Expressions each reduction stage of `plan` computes (a stage is a loop of its own: it
    /// computes every expression its value reads), over all kernels.
    fn reduced_work(plan: &Plan) -> usize {
        use crate::kernel::Stage;
        let mut work = 0;
        for k in &plan.kernels {
            for stage in &k.stages {
                let Stage::Reduce { value, .. } = stage else {
                    continue;
                };
                let mut seen = std::collections::HashSet::new();
                let mut stack = vec![*value];
                while let Some(e) = stack.pop() {
                    if seen.insert(e) {
                        stack.extend(k.exprs[e].op.operands());
                    }
                }
                work += seen.len();
            }
        }
        work
    }

    #[test]
    fn a_chain_summed_at_every_step_is_stored_not_computed_again() {
        // A backward pass's shape: each step's value summed (a scalar's gradient) and carried
        // on to the next step. Computed again in each sum, the work (and the code) grew with
        // the square of the chain's length.
        let steps = 24;
        let mut ir = String::from("ember-ir 1\nfunc @f(%0: f64[3]) -> (");
        ir += &vec!["f64[]"; steps].join(", ");
        ir += ") {\n";
        for i in 0..steps {
            ir += &format!(
                "  %{} = tanh(%{}) : f64[3]\n",
                2 * i + 1,
                if i == 0 { 0 } else { 2 * i - 1 }
            );
            ir += &format!(
                "  %{} = sum(%{}) axis=none keepdims=false : f64[]\n",
                2 * i + 2,
                2 * i + 1
            );
        }
        let sums: Vec<String> = (0..steps).map(|i| format!("%{}", 2 * i + 2)).collect();
        ir += &format!("  return {}\n}}\n", sums.join(", "));
        let plan = schedule(&parse(&ir).unwrap()).unwrap();
        let work = reduced_work(&plan);
        assert!(work <= 8 * steps, "the sums compute {work} expressions");
    }
}
