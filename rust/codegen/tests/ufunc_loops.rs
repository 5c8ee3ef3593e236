//! Kernels calling registered element loops (`ember_codegen::ufunc`, NumPy's in the Python
//! package) for long rows: the values equal the interpreter's in every layout, the loop is
//! what computed them, short rows keep the kernel's own code, and floating-point flags the
//! kernel raised before a call survive it.
//!
//! This test binary registers its own loops (libm's `tanh`, `exp`, `arcsin`), so it runs in
//! a process of its own: every other test binary compiles kernels without registered loops.

mod common;
use common::{check_all_layouts, Layout, Rng};
use ember_codegen::fpstatus::FpStatus;
use ember_codegen::kernel::{BinaryOp, Scalar, UnaryOp};
use ember_codegen::ufunc::LoopOp;
use ember_codegen::{compile, ArrayView, ArrayViewMut, Options};
use ember_core::ir::DType;
use std::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Elements each registered loop computed, over all calls (tests run in parallel, so each
/// test uses loops no other test uses).
static ELEMENTS: [AtomicUsize; 7] = [const { AtomicUsize::new(0) }; 7];

/// A NumPy-style loop (`args`, `dims`, `steps`, `data`) applying `f` from one strided array
/// into another, counted in `ELEMENTS[id]`.
unsafe fn apply<T: Copy>(
    id: usize,
    args: *mut *mut u8,
    dims: *const isize,
    steps: *const isize,
    f: fn(T) -> T,
) {
    let n = unsafe { *dims } as usize;
    let (input, output) = unsafe { (*args, *args.add(1)) };
    let (si, so) = unsafe { (*steps, *steps.add(1)) };
    for i in 0..n as isize {
        unsafe {
            let x = (input.offset(i * si) as *const T).read_unaligned();
            (output.offset(i * so) as *mut T).write_unaligned(f(x));
        }
    }
    ELEMENTS[id].fetch_add(n, Ordering::SeqCst);
}

/// A NumPy-style loop of two operands (steps of 0 for a broadcast one) applying `f`, counted
/// in `ELEMENTS[id]`.
unsafe extern "C" fn pow64(
    args: *mut *mut u8,
    dims: *const isize,
    steps: *const isize,
    _data: *mut c_void,
) {
    let n = unsafe { *dims } as usize;
    for i in 0..n as isize {
        unsafe {
            let a = ((*args).offset(i * *steps) as *const f64).read_unaligned();
            let b = ((*args.add(1)).offset(i * *steps.add(1)) as *const f64).read_unaligned();
            ((*args.add(2)).offset(i * *steps.add(2)) as *mut f64).write_unaligned(a.powf(b));
        }
    }
    ELEMENTS[POW64].fetch_add(n, Ordering::SeqCst);
}

macro_rules! loop_fn {
    ($name:ident, $id:expr, $t:ty, $f:expr) => {
        unsafe extern "C" fn $name(
            args: *mut *mut u8,
            dims: *const isize,
            steps: *const isize,
            _data: *mut c_void,
        ) {
            unsafe { apply::<$t>($id, args, dims, steps, $f) }
        }
    };
}

const TANH64: usize = 0;
const TANH32: usize = 1;
const EXP64: usize = 2;
const ASIN64: usize = 3;
const COSH64: usize = 4;
const EXPM1_64: usize = 5;
const POW64: usize = 6;
loop_fn!(tanh64, TANH64, f64, f64::tanh);
loop_fn!(tanh32, TANH32, f32, f32::tanh);
loop_fn!(exp64, EXP64, f64, f64::exp);
loop_fn!(asin64, ASIN64, f64, f64::asin);
loop_fn!(cosh64, COSH64, f64, f64::cosh);
loop_fn!(expm1_64, EXPM1_64, f64, f64::exp_m1);

type Loop = unsafe extern "C" fn(*mut *mut u8, *const isize, *const isize, *mut c_void);

fn register() {
    let loops: [(LoopOp, Scalar, Loop); 7] = [
        (LoopOp::Unary(UnaryOp::Tanh), Scalar::F64, tanh64),
        (LoopOp::Unary(UnaryOp::Tanh), Scalar::F32, tanh32),
        (LoopOp::Unary(UnaryOp::Exp), Scalar::F64, exp64),
        (LoopOp::Unary(UnaryOp::Arcsin), Scalar::F64, asin64),
        (LoopOp::Unary(UnaryOp::Cosh), Scalar::F64, cosh64),
        (LoopOp::Unary(UnaryOp::Expm1), Scalar::F64, expm1_64),
        (LoopOp::Binary(BinaryOp::Pow), Scalar::F64, pow64),
    ];
    for (op, ty, f) in loops {
        let f = f as usize;
        // SAFETY: each is a loop of NumPy's signature computing `op` on `ty`, alive for the
        // whole process.
        assert!(unsafe { ember_codegen::ufunc::register(op, ty, f, 0) });
    }
}

/// Runs `ir` in every layout against the interpreter (within `rtol`) and returns how many
/// elements the registered loops `ids` computed meanwhile.
fn computed_by_loops(ir: &str, rtol: f64, ids: &[usize]) -> Vec<usize> {
    register();
    let count = || -> Vec<usize> {
        ids.iter()
            .map(|&i| ELEMENTS[i].load(Ordering::SeqCst))
            .collect()
    };
    let before = count();
    check_all_layouts(ir, 7, rtol);
    count().iter().zip(before).map(|(a, b)| a - b).collect()
}

#[test]
fn a_lone_op_on_long_rows_runs_in_the_loop_in_every_layout() {
    // Several blocks and a partial one; rows of 3 * 1000 as well as one run.
    let ir = "ember-ir 1
func @f(%0: f64[3,1000]) -> (f64[3,1000]) {
  %1 = tanh(%0) : f64[3,1000]
  return %1
}";
    assert!(computed_by_loops(ir, 1e-12, &[TANH64])[0] >= 5 * 3000);
}

#[test]
fn fused_and_nested_ops_read_each_loop_result_from_its_block() {
    // `asin` has no vector form of its own: as a leaf it no longer makes the stage scalar.
    let ir = "ember-ir 1
func @f(%0: f64[2500], %1: f64[2500]) -> (f64[2500]) {
  %2 = mul(%0, %1) : f64[2500]
  %3 = exp(%2) : f64[2500]
  %4 = expm1(%3) : f64[2500]
  %5 = const() value=0.5 : f64[] weak
  %6 = mul(%0, %5) : f64[2500]
  %7 = arcsin(%6) : f64[2500]
  %8 = add(%4, %7) : f64[2500]
  %9 = mul(%8, %3) : f64[2500]
  return %9
}";
    let counts = computed_by_loops(ir, 1e-12, &[EXP64, EXPM1_64, ASIN64]);
    assert!(counts.iter().all(|&c| c >= 5 * 2500), "{counts:?}");
}

#[test]
fn float32_rows_and_broadcast_operands() {
    let ir = "ember-ir 1
func @f(%0: f32[4,300], %1: f32[300]) -> (f32[4,300]) {
  %2 = add(%0, %1) : f32[4,300]
  %3 = tanh(%2) : f32[4,300]
  %4 = mul(%3, %1) : f32[4,300]
  return %4
}";
    assert!(computed_by_loops(ir, 1e-6, &[TANH32])[0] >= 5 * 1200);
}

#[test]
fn short_rows_keep_the_kernels_own_code() {
    // A column broadcast along the rows keeps rows of 9 (an elementwise kernel over
    // contiguous arrays alone would run them as one row of 360).
    let ir = "ember-ir 1
func @f(%0: f64[40,9], %1: f64[40,1]) -> (f64[40,9]) {
  %2 = add(%0, %1) : f64[40,9]
  %3 = cosh(%2) : f64[40,9]
  return %3
}";
    register();
    let before = ELEMENTS[COSH64].load(Ordering::SeqCst);
    let mut rng = Rng(3);
    let x = common::random_array(&mut rng, DType::F64, &[40, 9]);
    let y = common::random_array(&mut rng, DType::F64, &[40, 1]);
    common::check_ir(ir, &[x, y], Layout::C, 1, 1e-12);
    assert_eq!(ELEMENTS[COSH64].load(Ordering::SeqCst), before);
}

#[test]
fn flags_raised_before_a_call_survive_it() {
    // 1/x of a zero raises divide-by-zero in the operand's sweep; the loop (expm1) then runs
    // on the block, and the run still reports the flag.
    register();
    let ir = "ember-ir 1
func @f(%0: f64[2000]) -> (f64[2000]) {
  %1 = reciprocal(%0) : f64[2000]
  %2 = neg(%1) : f64[2000]
  %3 = expm1(%2) : f64[2000]
  return %3
}";
    let g = ember_core::ir::parse(ir).unwrap();
    let cg = compile(&g, &Options { num_threads: 1 }).unwrap();
    let mut x: Vec<f64> = (0..2000).map(|i| 1.0 + i as f64).collect();
    x[5] = 0.0;
    let mut out = vec![0.0f64; 2000];
    let before = ELEMENTS[EXPM1_64].load(Ordering::SeqCst);
    let flags = unsafe {
        let input = ArrayView::new(x.as_ptr() as *const u8, DType::F64, vec![2000], vec![8]);
        let output =
            ArrayViewMut::new(out.as_mut_ptr() as *mut u8, DType::F64, vec![2000], vec![8]);
        cg.run(&[input], &[output]).unwrap()
    };
    assert!(ELEMENTS[EXPM1_64].load(Ordering::SeqCst) - before >= 2000);
    if cfg!(target_arch = "x86_64") {
        assert!(flags.has(FpStatus::DIVIDE), "{flags:?}");
    }
    assert_eq!(out[5], -1.0);
    assert_eq!(out[0], (-1.0f64).exp_m1());
}

#[test]
fn an_operand_computed_in_another_type_is_swept_in_its_own_mode() {
    // The operand's cast from i32 has no vector form: its sweep is scalar, the stage's
    // value (a leaf) is not.
    let ir = "ember-ir 1
func @f(%0: i32[700]) -> (f64[700]) {
  %1 = astype(%0) dtype=f64 : f64[700]
  %2 = arcsin(%1) : f64[700]
  return %2
}";
    assert!(computed_by_loops(ir, 1e-12, &[ASIN64])[0] >= 5 * 700);
}

#[test]
fn sums_read_their_loop_results_block_by_block_in_numpys_order() {
    // Rows of 3000: parts of at most 128 in NumPy's pairwise order, each in a block; and
    // a whole-array sum.
    let ir = "ember-ir 1
func @f(%0: f64[4,3000]) -> (f64[4,1], f64[]) {
  %1 = tanh(%0) : f64[4,3000]
  %2 = sum(%1) axis=[1] keepdims=true : f64[4,1]
  %3 = mul(%0, %0) : f64[4,3000]
  %4 = expm1(%3) : f64[4,3000]
  %5 = exp(%4) : f64[4,3000]
  %6 = sum(%5) axis=[0,1] keepdims=false : f64[]
  return %2, %6
}";
    let counts = computed_by_loops(ir, 1e-12, &[TANH64, EXP64, EXPM1_64]);
    assert!(counts.iter().all(|&c| c >= 5 * 12000), "{counts:?}");
}

#[test]
fn binary_loops_take_swept_loaded_and_constant_operands() {
    // `x ** y` of two loaded arrays, of a computed base and a constant exponent (step 0),
    // and of a constant base.
    let ir = "ember-ir 1
func @f(%0: f64[3,900], %1: f64[3,900]) -> (f64[3,900]) {
  %2 = abs(%0) : f64[3,900]
  %3 = pow(%2, %1) : f64[3,900]
  %4 = const() value=2.5 : f64[] weak
  %5 = pow(%2, %4) : f64[3,900]
  %6 = pow(%4, %1) : f64[3,900]
  %7 = add(%3, %5) : f64[3,900]
  %8 = add(%7, %6) : f64[3,900]
  return %8
}";
    assert!(computed_by_loops(ir, 1e-12, &[POW64])[0] >= 5 * 3 * 2700);
}
