//! Native steps: a `loop`, `if`, `load` or `store` statement compiled, with every region it
//! runs, into ONE Cranelift function. Loop-carried scalars live in registers (Cranelift
//! variables), arrays are a base pointer and byte strides, carried arrays are updated in place
//! in the statement's result buffer (the runtime first copies the initial value there), and
//! every element access not proven in bounds (by constant ranges, or by a test at loop entry:
//! `hoist.rs`) wraps negative indices once and checks bounds, branching to a cold block that
//! reports NumPy's `IndexError` through the error record instead of touching memory outside
//! the array. Loops are rotated (`loops.rs`), loads of the element the previous iteration
//! stored come from a register (`forward.rs`), and short branches that cannot raise run as
//! selects (`branch.rs`).
//!
//! The function: `fn(ptrs: *const *mut u8, strides: *const i64, err: *mut i64) -> i64`.
//! `ptrs` holds one data pointer per parameter of the statement's wrapper graph (a donated
//! parameter points at its result buffer), then one per result, then (when its scratch arrays
//! outgrow the stack: `support::ScratchPlan`) the heap block of its scratch arrays, allocated
//! for the call; `strides` the byte strides of
//! every parameter, then of every result, concatenated. It returns [`OK`], [`INDEX_ERROR`]
//! (`err` = index, axis, size), [`RANGE_STEP_ZERO`] or [`NEGATIVE_POWER`].

mod access;
mod branch;
mod carried;
mod cube;
mod divide;
mod forward;
mod hoist;
mod invariant;
mod layout;
mod loops;
mod lower;
mod overflow;
mod refine;
pub(crate) mod run;
mod scalar;
mod scratch;
mod support;

pub(crate) use support::supports;

pub(crate) use lower::build;

use crate::Error;
use ember_core::ir::{Graph, Node, Op, Type, ValueId};

/// The slot standing for an operand compiled into the code as a constant (never read).
pub(crate) const COMPILED_IN: crate::schedule::Slot = crate::schedule::Slot::Const(usize::MAX);

/// The native entry of a statement.
pub type NativeFn = unsafe extern "C" fn(*const *mut u8, *const i64, *mut i64) -> i64;

/// Success.
pub(crate) const OK: i64 = 0;
/// An index out of bounds: `err[0..3]` = the index as given, the axis, the axis size.
pub(crate) const INDEX_ERROR: i64 = 1;
/// `range()` with a zero step.
pub(crate) const RANGE_STEP_ZERO: i64 = 2;
/// An integer raised to a negative integer power.
pub(crate) const NEGATIVE_POWER: i64 = 3;

/// NumPy's message for an integer raised to a negative integer power.
const NEGATIVE_POWER_MESSAGE: &str = "Integers to negative integer powers are not allowed.";

/// One statement as a graph of its own (parameters: its operands; one statement; results:
/// all its values), and for each result the parameter it is a new version of (its buffer is
/// copied into the result before the call and updated in place).
#[derive(Clone, Debug)]
pub(crate) struct NativeStatement {
    pub graph: Graph,
    pub donated: Vec<Option<usize>>,
    /// Per result: its buffer is the donated operand's own (dead after the statement), so
    /// no copy is made.
    pub in_place: Vec<bool>,
    /// Per parameter: the constant it always is (compiled in; its operand is not passed).
    pub consts: Vec<Option<crate::kernel::Const>>,
    /// Bytes of the heap block its scratch arrays need beyond the stack's (0: none).
    pub heap_scratch: usize,
}

impl NativeStatement {
    /// Wraps statement `node`, whose operands have types `inputs` and whose results have
    /// types `results`.
    pub(crate) fn new(node: &Node, inputs: &[Type], results: &[Type]) -> Result<Self, Error> {
        let mut graph = Graph::new("native", inputs.to_vec());
        let first = graph.push(
            node.op.clone(),
            (0..inputs.len()).map(|i| ValueId(i as u32)).collect(),
            results[0].clone(),
        );
        for (index, ty) in results.iter().enumerate().skip(1) {
            graph.push(
                Op::Result {
                    index,
                    ty: ty.clone(),
                },
                vec![first],
                ty.clone(),
            );
        }
        graph.results = (0..results.len())
            .map(|k| ValueId(first.0 + k as u32))
            .collect();
        let mut donated = Vec::new();
        for (j, ty) in results.iter().enumerate() {
            if ty.shape.is_empty() {
                donated.push(None);
                continue;
            }
            match graph.version_root(graph.results[j]) {
                Some(p) => donated.push(Some(p)),
                None => {
                    return Err(Error::Unsupported(format!(
                        "result {j} of {} is an array that is not a new version of an operand",
                        node.op.name()
                    )))
                }
            }
        }
        let in_place = vec![false; donated.len()];
        let consts = vec![None; inputs.len()];
        let heap_scratch = support::ScratchPlan::of(&node.op).heap_bytes;
        Ok(NativeStatement {
            graph,
            donated,
            in_place,
            consts,
            heap_scratch,
        })
    }
}

/// The error a native function reported.
pub(crate) fn raised(code: i64, record: &[i64; 3]) -> Error {
    match code {
        INDEX_ERROR => Error::Index(ember_core::interp::index_error(
            i128::from(record[0]),
            record[1] as usize,
            record[2] as usize,
        )),
        RANGE_STEP_ZERO => Error::Value(ember_core::interp::RANGE_STEP_ZERO.into()),
        NEGATIVE_POWER => Error::Value(NEGATIVE_POWER_MESSAGE.into()),
        other => Error::Codegen(format!("native code returned unknown status {other}")),
    }
}
