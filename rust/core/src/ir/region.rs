//! What passes and back ends ask of the version-2 ops: the regions a statement runs, how many
//! values it defines, whether it may raise.

use super::op::{Op, OpClass, Region};

impl Op {
    /// The regions the op runs, in attribute order.
    pub fn regions(&self) -> Vec<&Region> {
        match self {
            Op::Loop { body, .. } => vec![body],
            Op::If { then, otherwise } => vec![then, otherwise],
            _ => Vec::new(),
        }
    }

    /// The same op with its regions replaced, in [`Op::regions`] order.
    pub fn with_regions(&self, mut regions: impl Iterator<Item = Region>) -> Op {
        let mut next = |old: &Region| regions.next().unwrap_or_else(|| old.clone());
        match self {
            Op::Loop { body, carried } => Op::Loop {
                body: next(body),
                carried: *carried,
            },
            Op::If { then, otherwise } => Op::If {
                then: next(then),
                otherwise: next(otherwise),
            },
            other => other.clone(),
        }
    }

    /// How many values the statement defines (`loop`, `if`: one per region result).
    pub fn result_count(&self) -> usize {
        match self {
            Op::Loop { carried, .. } => *carried,
            Op::If { then, .. } => then.results.len(),
            _ => 1,
        }
    }

    /// Whether the op may fail at run time (an index out of bounds, `range` with step 0, or a
    /// region that does), so that passes keep it even when its value is unused.
    pub fn may_raise(&self) -> bool {
        matches!(
            self.class(),
            OpClass::Region | OpClass::Access | OpClass::Indexed
        )
    }

    /// Whether the op exists only in version 2 of the text.
    pub fn is_v2(&self) -> bool {
        matches!(
            self.class(),
            OpClass::Region | OpClass::Access | OpClass::Projection
        )
    }
}
