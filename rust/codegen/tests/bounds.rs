//! Compiled graphs never touch memory outside the arrays they are given: every input and
//! output lies flush against an inaccessible page on both sides, so a read or write one byte
//! outside (a vector load past a row's end, a touch of a row that does not exist) faults.

use ember_codegen::{compile, ArrayView, ArrayViewMut, Options};
use ember_core::ir::{parse, DType, Type};

const PAGE: usize = 4096;

/// `bytes` of readable, writable memory with an inaccessible page right before and right
/// after; `at_end` puts the array against the page after, else against the page before.
struct Guarded {
    base: *mut u8,
    len: usize,
    data: *mut u8,
}

impl Guarded {
    fn new(bytes: usize, at_end: bool) -> Guarded {
        let body = bytes.div_ceil(PAGE).max(1) * PAGE;
        let len = body + 2 * PAGE;
        // SAFETY: a fresh anonymous mapping; the two guard pages are then made inaccessible.
        unsafe {
            let base = libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            ) as *mut u8;
            assert!(base as isize != -1, "mmap failed");
            assert_eq!(libc::mprotect(base as *mut _, PAGE, libc::PROT_NONE), 0);
            assert_eq!(
                libc::mprotect(base.add(PAGE + body) as *mut _, PAGE, libc::PROT_NONE),
                0
            );
            let data = if at_end {
                base.add(PAGE + body - bytes)
            } else {
                base.add(PAGE)
            };
            Guarded { base, len, data }
        }
    }
}

impl Drop for Guarded {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, no longer used.
        unsafe { libc::munmap(self.base as *mut _, self.len) };
    }
}

fn size(d: DType) -> usize {
    match d {
        DType::F32 | DType::I32 => 4,
        DType::Bool => 1,
        _ => 8,
    }
}

fn c_strides(t: &Type) -> Vec<isize> {
    let shape = t.static_shape().unwrap();
    let mut s = vec![size(t.dtype) as isize; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1] as isize;
    }
    s
}

/// Runs `ir` with every array against a guard page (after it, then before it).
fn run_guarded(ir: &str, threads: usize) {
    let (graph, _) = ember_core::passes::run_pipeline(&parse(ir).unwrap(), false).unwrap();
    let cg = compile(
        &graph,
        &Options {
            num_threads: threads,
        },
    )
    .unwrap();
    for at_end in [true, false] {
        let bytes = |t: &Type| t.static_shape().unwrap().iter().product::<usize>() * size(t.dtype);
        let ins: Vec<Guarded> = cg
            .input_types()
            .iter()
            .map(|t| {
                let g = Guarded::new(bytes(t), at_end);
                let n = bytes(t) / size(t.dtype);
                for i in 0..n {
                    let v = ((i * 7919) % 101) as f64 / 25.0 - 2.0;
                    // SAFETY: element i of the array just mapped.
                    unsafe {
                        match t.dtype {
                            DType::F32 => *(g.data as *mut f32).add(i) = v as f32,
                            DType::F64 => *(g.data as *mut f64).add(i) = v,
                            _ => unreachable!("float inputs only"),
                        }
                    }
                }
                g
            })
            .collect();
        let outs: Vec<Guarded> = cg
            .output_types()
            .iter()
            .map(|t| Guarded::new(bytes(t), at_end))
            .collect();
        let views: Vec<ArrayView> = cg
            .input_types()
            .iter()
            .zip(&ins)
            .map(|(t, g)| {
                // SAFETY: the mapping holds the whole array and outlives the run.
                unsafe { ArrayView::new(g.data, t.dtype, t.static_shape().unwrap(), c_strides(t)) }
            })
            .collect();
        let out_views: Vec<ArrayViewMut> = cg
            .output_types()
            .iter()
            .zip(&outs)
            .map(|(t, g)| {
                // SAFETY: as above; nothing else uses these mappings.
                unsafe {
                    ArrayViewMut::new(g.data, t.dtype, t.static_shape().unwrap(), c_strides(t))
                }
            })
            .collect();
        cg.run(&views, &out_views).unwrap();
    }
}

/// Row counts and extents around the vector and unrolled steps (4 and 32 f32, 2 and 16 f64).
const SHAPES: [(usize, usize); 6] = [(1, 1), (3, 5), (7, 33), (2, 64), (9, 131), (64, 1027)];

#[test]
fn softmax_and_layernorm_stay_inside_their_arrays() {
    for (rows, n) in SHAPES {
        for ty in ["f32", "f64"] {
            let softmax = format!(
                "ember-ir 1
func @softmax(%0: {ty}[{rows},{n}]) -> ({ty}[{rows},{n}]) {{
  %1 = max(%0) axis=[1] keepdims=true : {ty}[{rows},1]
  %2 = sub(%0, %1) : {ty}[{rows},{n}]
  %3 = exp(%2) : {ty}[{rows},{n}]
  %4 = sum(%3) axis=[1] keepdims=true : {ty}[{rows},1]
  %5 = div(%3, %4) : {ty}[{rows},{n}]
  return %5
}}
"
            );
            let layernorm = format!(
                "ember-ir 1
func @ln(%0: {ty}[{rows},{n}], %1: {ty}[{n}]) -> ({ty}[{rows},{n}]) {{
  %2 = mean(%0) axis=[1] keepdims=true : {ty}[{rows},1]
  %3 = sub(%0, %2) : {ty}[{rows},{n}]
  %4 = mul(%3, %3) : {ty}[{rows},{n}]
  %5 = mean(%4) axis=[1] keepdims=true : {ty}[{rows},1]
  %6 = sqrt(%5) : {ty}[{rows},1]
  %7 = div(%3, %6) : {ty}[{rows},{n}]
  %8 = mul(%7, %1) : {ty}[{rows},{n}]
  %9 = tanh(%8) : {ty}[{rows},{n}]
  return %9
}}
"
            );
            for threads in [1, 2] {
                run_guarded(&softmax, threads);
                run_guarded(&layernorm, threads);
            }
        }
    }
}

#[test]
fn elementwise_math_and_reductions_stay_inside_their_arrays() {
    for (rows, n) in SHAPES {
        for ty in ["f32", "f64"] {
            let ir = format!(
                "ember-ir 1
func @f(%0: {ty}[{rows},{n}], %1: {ty}[{rows},{n}]) -> ({ty}[{rows},{n}], {ty}[{rows},1], {ty}[{rows},1]) {{
  %2 = sin(%0) : {ty}[{rows},{n}]
  %3 = log(%1) : {ty}[{rows},{n}]
  %4 = mul(%2, %3) : {ty}[{rows},{n}]
  %5 = exp(%4) : {ty}[{rows},{n}]
  %6 = max(%1) axis=[1] keepdims=true : {ty}[{rows},1]
  %7 = sum(%5) axis=[1] keepdims=true : {ty}[{rows},1]
  return %5, %6, %7
}}
"
            );
            for threads in [1, 2] {
                run_guarded(&ir, threads);
            }
        }
    }
}
