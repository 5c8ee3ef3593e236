//! NumPy's own inner loops for the transcendental functions, called from kernels on blocks of
//! elements.
//!
//! Cranelift's x86-64 vectors are 128 bits wide, so a kernel's `exp` or `tanh` handles 2 or 4
//! lanes at a time (and `arcsin`, `sinh`, `log10`... one, through libm), where NumPy's loops
//! run 8 or 16 lanes of AVX-512 (`numpy/_core/src/umath/loops_*.dispatch.*`): 2-50x faster
//! per element. The embedder registers, per (op, dtype), the address of the loop NumPy itself
//! runs for that ufunc ([`register`]); a kernel stage that applies such an op to long rows then
//! computes the op's operand for a block of [`BLOCK`] elements into a scratch buffer, calls
//! [`ember_ufunc_unary`] on it in place, and goes on reading the block (`lower::staged`).
//! The values are NumPy's own, bit for bit.
//!
//! Code refers to a loop by its slot ([`slot`]: the op's position in `UnaryOp::ALL` and the
//! dtype), never by address, so machine code read back from the persistent cache calls the
//! loop this process registered.

use crate::kernel::ScalarExt;
use crate::kernel::{BinaryOp, ReduceOp, Scalar, UnaryOp};
use std::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Elements per block: large enough that a call's fixed cost (tens of nanoseconds) is small
/// beside the block's work, small enough that the scratch buffers stay in L1.
pub(crate) const BLOCK: i64 = 1024;

/// Rows shorter than this keep the kernel's own code: a call per few elements costs more
/// than it saves.
pub(crate) const MIN_ROW: i64 = 64;

/// NumPy's `PyUFuncGenericFunction`.
type LoopFn = unsafe extern "C" fn(*mut *mut u8, *const isize, *const isize, *mut c_void);

/// An op a registered loop computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoopOp {
    /// One operand.
    Unary(UnaryOp),
    /// Two operands.
    Binary(BinaryOp),
    /// A float `Max` or `Min` over a row: NumPy's `maximum`/`minimum` loop called as its
    /// `reduce` calls it (the accumulator as first operand and output, with steps of 0).
    /// `Argmax` or `Argmin` of a row: the dtype's own `argmax`/`argmin` function
    /// (`PyArray_ArrFuncs`, [`ember_argfunc`]), for floats and `i32`/`i64`.
    Reduce(ReduceOp),
}

/// The dtypes slots exist for, each op having one slot per dtype (loops are registered for
/// the float ones, arg functions for all).
const DTYPES: [Scalar; 4] = [Scalar::F32, Scalar::F64, Scalar::I32, Scalar::I64];
/// Slots per kind of op.
const PER_KIND: usize = DTYPES.len() * 64;
const SLOTS: usize = 3 * PER_KIND;
static FUNCS: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
static DATA: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
static CALLS: AtomicUsize = AtomicUsize::new(0);

/// How many blocks kernels have handed to registered loops since the process started.
pub fn calls() -> usize {
    CALLS.load(Ordering::Relaxed)
}

/// The slot of `(op, dtype)`: NumPy's loops are float ones, the arg functions also integer.
fn slot_of(op: LoopOp, dtype: Scalar) -> Option<usize> {
    let lane = DTYPES.iter().position(|&d| d == dtype)?;
    let arg = matches!(op, LoopOp::Reduce(ReduceOp::Argmax | ReduceOp::Argmin));
    if !dtype.is_float() && !arg {
        return None;
    }
    let (kind, i) = match op {
        LoopOp::Unary(u) => (0, UnaryOp::ALL.iter().position(|&o| o == u)?),
        LoopOp::Binary(b) => (1, BinaryOp::ALL.iter().position(|&o| o == b)?),
        LoopOp::Reduce(ReduceOp::Max) => (2, 0),
        LoopOp::Reduce(ReduceOp::Min) => (2, 1),
        LoopOp::Reduce(ReduceOp::Argmax) => (2, 2),
        LoopOp::Reduce(ReduceOp::Argmin) => (2, 3),
        LoopOp::Reduce(_) => return None,
    };
    let at = DTYPES.len() * i + lane;
    (at < PER_KIND).then_some(kind * PER_KIND + at)
}

/// The slot of the loop registered for `op` on `dtype` (operands and result), if any.
pub(crate) fn slot(op: LoopOp, dtype: Scalar) -> Option<usize> {
    slot_of(op, dtype).filter(|&s| FUNCS[s].load(Ordering::Acquire) != 0)
}

/// Registers NumPy's loop `func` (with its `data` pointer) for `op` on `dtype`, or removes
/// it (`func == 0`). Returns false for a pair that has no slot (a loop of a non-float dtype).
///
/// # Safety
/// `func` must be the address of a NumPy inner loop computing `op` elementwise from `dtype`
/// arrays (one or two) into another (`PyUFuncGenericFunction`), callable without the GIL,
/// that stays loaded for the life of the process, and `data` its entry in the ufunc's `data`;
/// for `Argmax`/`Argmin`, the dtype's `PyArray_ArgFunc` of that name, which reads only its
/// contiguous elements (`data` unused).
pub unsafe fn register(op: LoopOp, dtype: Scalar, func: usize, data: usize) -> bool {
    let Some(s) = slot_of(op, dtype) else {
        return false;
    };
    DATA[s].store(data, Ordering::Release);
    FUNCS[s].store(func, Ordering::Release);
    true
}

/// Applies the loop in `slot` to `n` elements, element `i` read at `input + i * in_step`
/// and written at `output + i * out_step` (bytes; the two may be the same elements). The
/// sticky floating-point flags the kernel raised before the call are kept whatever the loop
/// does with them, and those the loop raised, in MXCSR or the x87 status word, are left in
/// MXCSR, so [`crate::fpstatus`] sees them all when the run ends.
///
/// # Safety
/// Both ranges hold `n` elements of the slot's dtype at those steps, inside arrays of the
/// caller, and either are the same elements or do not overlap; code only calls it for a
/// registered slot.
pub(crate) unsafe extern "C" fn ember_ufunc_unary(
    slot: i64,
    input: *mut u8,
    in_step: i64,
    output: *mut u8,
    out_step: i64,
    n: i64,
) {
    // SAFETY: as the caller guarantees.
    unsafe {
        call(
            slot,
            [input, output],
            [in_step as isize, out_step as isize],
            n,
        )
    }
}

/// Applies the binary loop in `slot` to `n` elements: operand `k` read at `a_k + i * s_k`
/// (a step of 0 for an operand that is one value), written at `output + i * out_step`; the
/// flags as [`ember_ufunc_unary`] keeps them.
///
/// # Safety
/// As for [`ember_ufunc_unary`], for each operand.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe extern "C" fn ember_ufunc_binary(
    slot: i64,
    a: *mut u8,
    a_step: i64,
    b: *mut u8,
    b_step: i64,
    output: *mut u8,
    out_step: i64,
    n: i64,
) {
    let args = [a, b, output];
    let steps = [a_step as isize, b_step as isize, out_step as isize];
    // SAFETY: as the caller guarantees.
    unsafe { call(slot, args, steps, n) }
}

/// Calls the loop in `slot` on `args` (operands, then the output) with `steps`, keeping the
/// kernel's floating-point flags and moving the loop's own into MXCSR.
///
/// # Safety
/// `slot` is registered; `args` and `steps` describe `n` elements as its loop takes them.
unsafe fn call<const K: usize>(slot: i64, mut args: [*mut u8; K], steps: [isize; K], n: i64) {
    let s = slot as usize;
    let func = FUNCS[s].load(Ordering::Acquire);
    let data = DATA[s].load(Ordering::Acquire) as *mut c_void;
    let dims = [n as isize];
    CALLS.fetch_add(1, Ordering::Relaxed);
    let before = crate::fpstatus::take();
    // SAFETY: a registered slot holds a NumPy loop of this signature (see `register`), given
    // its operands and output of `n` elements as NumPy's own calls give them.
    unsafe {
        let f: LoopFn = std::mem::transmute::<usize, LoopFn>(func);
        f(args.as_mut_ptr(), dims.as_ptr(), steps.as_ptr(), data);
    }
    // A loop may raise a flag on purpose through `feraiseexcept`, which sets overflow and
    // underflow in the x87 status word: they join the kernel's in MXCSR.
    let x87 = crate::fpstatus::take_x87();
    crate::fpstatus::raise(crate::fpstatus::FpStatus(before.0 | x87.0));
}

/// NumPy's `PyArray_ArgFunc`: `(data, n, &index, array)`; numeric dtypes' ignore `array`.
type ArgFn = unsafe extern "C" fn(*mut u8, isize, *mut isize, *mut c_void) -> i32;

/// The index of the first extreme (NumPy's sense: a NaN first) of `n > 0` elements of the
/// slot's dtype, element `i` at `data + i * step`, by the arg function in `slot`. NumPy's
/// functions read contiguous elements; a strided block (at most [`BLOCK`] elements) is
/// copied first, as NumPy copies a strided array before calling them.
///
/// # Safety
/// The elements are inside an array of the caller; `slot` is a registered arg function.
pub(crate) unsafe extern "C" fn ember_argfunc(slot: i64, data: *mut u8, step: i64, n: i64) -> i64 {
    let s = slot as usize;
    let func = FUNCS[s].load(Ordering::Acquire);
    let size = DTYPES[(s % PER_KIND) % DTYPES.len()].size() as i64;
    let mut copy = std::mem::MaybeUninit::<[u64; BLOCK as usize]>::uninit();
    let data = if step == size {
        data
    } else {
        assert!(n <= BLOCK, "strided arg reductions run block by block");
        let out = copy.as_mut_ptr() as *mut u8;
        for i in 0..n {
            // SAFETY: element `i` is in the caller's array; `copy` holds BLOCK elements of at
            // most 8 bytes.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    data.offset((i * step) as isize),
                    out.offset((i * size) as isize),
                    size as usize,
                )
            }
        }
        out
    };
    CALLS.fetch_add(1, Ordering::Relaxed);
    let mut index: isize = 0;
    // SAFETY: a registered arg slot holds the dtype's `PyArray_ArgFunc` (see `register`),
    // given `n` contiguous elements.
    unsafe {
        let f: ArgFn = std::mem::transmute::<usize, ArgFn>(func);
        f(data, n as isize, &mut index, std::ptr::null_mut());
    }
    index as i64
}

/// The number of `i64` arguments [`ember_ufunc_unary`], [`ember_ufunc_binary`] and
/// [`ember_argfunc`] take.
pub(crate) const ARGS: [usize; 3] = [6, 8, 4];

/// The symbols kernels import [`ember_ufunc_unary`], [`ember_ufunc_binary`] and
/// [`ember_argfunc`] by.
pub(crate) const SYMBOLS: [&str; 3] = ["ember_ufunc_unary", "ember_ufunc_binary", "ember_argfunc"];

/// The addresses the JIT resolves [`SYMBOLS`] to.
pub(crate) fn addresses() -> [*const u8; 3] {
    [
        ember_ufunc_unary as *const u8,
        ember_ufunc_binary as *const u8,
        ember_argfunc as *const u8,
    ]
}
