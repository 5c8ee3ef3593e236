//! Buffer planning for a compiled graph's intermediates: each temp gets a physical buffer,
//! reused once the temp's last reader has run.

use crate::kernel::ScalarExt;
use crate::schedule::{Plan, Slot, Step};

/// Assigns temps to physical buffers: a buffer is reused once its last reader has run.
pub(crate) fn plan_buffers(plan: &Plan) -> (Vec<usize>, Vec<usize>) {
    let nt = plan.temps.len();
    let mut first = vec![usize::MAX; nt];
    let mut last = vec![0usize; nt];
    for (i, step) in plan.steps.iter().enumerate() {
        let slots: Vec<Slot> = match step {
            Step::Kernel { operands, .. } => operands.iter().map(|(v, _)| v.slot).collect(),
            Step::Matmul { a, b, out, .. } => vec![a.slot, b.slot, out.slot],
            Step::Scan { input, out, .. } => vec![input.slot, out.slot],
            Step::Linalg { inputs, out, .. } | Step::Indexed { inputs, out, .. } => {
                inputs.iter().chain([out]).map(|v| v.slot).collect()
            }
            Step::Native {
                operands, results, ..
            }
            | Step::BodyLoop {
                operands, results, ..
            }
            | Step::BodyIf {
                operands, results, ..
            } => operands.iter().chain(results).map(|v| v.slot).collect(),
        };
        for s in slots {
            if let Slot::Temp(t) = s {
                first[t] = first[t].min(i);
                last[t] = last[t].max(i);
            }
        }
    }
    let bytes = |t: usize| {
        let (d, shape) = &plan.temps[t];
        shape.iter().product::<usize>() * d.size()
    };
    let mut assign = vec![usize::MAX; nt];
    let mut sizes: Vec<usize> = Vec::new();
    let mut free: Vec<usize> = Vec::new();
    for i in 0..plan.steps.len() {
        for t in (0..nt).filter(|&t| first[t] == i) {
            let need = bytes(t);
            let best = free
                .iter()
                .enumerate()
                .filter(|(_, &b)| sizes[b] >= need)
                .min_by_key(|(_, &b)| sizes[b])
                .map(|(k, _)| k);
            assign[t] = match best {
                Some(k) => free.swap_remove(k),
                None => {
                    sizes.push(need);
                    sizes.len() - 1
                }
            };
        }
        for t in (0..nt).filter(|&t| last[t] == i && first[t] != usize::MAX) {
            free.push(assign[t]);
        }
    }
    for a in assign.iter_mut().filter(|a| **a == usize::MAX) {
        sizes.push(0);
        *a = sizes.len() - 1;
    }
    (assign, sizes)
}
