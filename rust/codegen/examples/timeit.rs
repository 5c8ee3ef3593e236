//! Times the compiled form of an ember IR file on preallocated arrays (no allocation or page
//! faults in the timed region): median nanoseconds per call and per output element.
//!
//! `cargo run --release -p ember-codegen --example timeit -- graph.ir [threads] [repeats] [fresh]`
//!
//! With `fresh`, every call writes into newly allocated outputs, as a Python caller's are
//! (their first touch then costs page faults inside the timed region).

use ember_codegen::{compile, ArrayView, ArrayViewMut, Options};
use ember_core::ir::{parse, DType, Type};
use std::time::Instant;

fn elements(t: &Type) -> usize {
    t.static_shape().expect("static shapes").iter().product()
}

fn size(d: DType) -> usize {
    match d {
        DType::F32 | DType::I32 => 4,
        DType::Bool => 1,
        _ => 8,
    }
}

fn strides(t: &Type) -> Vec<isize> {
    let shape = t.static_shape().unwrap();
    let mut s = vec![size(t.dtype) as isize; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1] as isize;
    }
    s
}

/// An 8-byte aligned buffer of `t`'s bytes, filled with values in [0.1, 3) (integers 1..97).
fn filled(t: &Type) -> Vec<u64> {
    let n = elements(t);
    let mut v = vec![0u64; (n * size(t.dtype)).div_ceil(8).max(1)];
    let p = v.as_mut_ptr() as *mut u8;
    for i in 0..n {
        let x = 0.1 + (i % 97) as f64 * 0.03;
        // SAFETY: element `i` lies inside `v`, which holds `n` elements of this dtype.
        unsafe {
            match t.dtype {
                DType::F32 => *(p as *mut f32).add(i) = x as f32,
                DType::F64 => *(p as *mut f64).add(i) = x,
                DType::I32 => *(p as *mut i32).add(i) = 1 + (i % 97) as i32,
                DType::I64 => *(p as *mut i64).add(i) = 1 + (i % 97) as i64,
                _ => *p.add(i) = (i % 2) as u8,
            }
        }
    }
    v
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let text = std::fs::read_to_string(&args[1]).expect("readable IR file");
    let threads = args.get(2).map_or(1, |s| s.parse().unwrap());
    let repeats = args.get(3).map_or(15, |s| s.parse().unwrap());
    let fresh = args.get(4).is_some_and(|s| s == "fresh");
    let graph = parse(&text).expect("valid ember IR");
    let (graph, _) = ember_core::passes::run_pipeline(&graph, false).expect("optimisable graph");
    let t0 = Instant::now();
    let cg = compile(
        &graph,
        &Options {
            num_threads: threads,
        },
    )
    .expect("compilable graph");
    let compile_ms = t0.elapsed().as_secs_f64() * 1e3;
    let inputs: Vec<Vec<u64>> = cg.input_types().iter().map(filled).collect();
    let mut outputs: Vec<Vec<u64>> = cg.output_types().iter().map(filled).collect();
    let ins: Vec<ArrayView> = cg
        .input_types()
        .iter()
        .zip(&inputs)
        .map(|(t, b)| {
            let shape = t.static_shape().unwrap();
            // SAFETY: `b` holds the whole array and outlives every call.
            unsafe { ArrayView::new(b.as_ptr() as *const u8, t.dtype, shape, strides(t)) }
        })
        .collect();
    let views = |outputs: &mut [Vec<u64>]| -> Vec<ArrayViewMut> {
        cg.output_types()
            .iter()
            .zip(outputs)
            .map(|(t, b)| {
                let shape = t.static_shape().unwrap();
                // SAFETY: `b` holds the whole array, and nothing else touches it during a run.
                unsafe { ArrayViewMut::new(b.as_mut_ptr() as *mut u8, t.dtype, shape, strides(t)) }
            })
            .collect()
    };
    cg.run(&ins, &views(&mut outputs)).unwrap();
    let mut samples: Vec<f64> = (0..repeats)
        .map(|_| {
            let mut fresh_out: Vec<Vec<u64>> = if fresh {
                cg.output_types()
                    .iter()
                    .map(|t| vec![0u64; (elements(t) * size(t.dtype)).div_ceil(8).max(1)])
                    .collect()
            } else {
                Vec::new()
            };
            let outs = views(if fresh { &mut fresh_out } else { &mut outputs });
            let t = Instant::now();
            cg.run(&ins, &outs).unwrap();
            t.elapsed().as_secs_f64()
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    let med = samples[samples.len() / 2];
    let n: usize = cg.input_types().iter().map(elements).max().unwrap_or(1);
    println!(
        "compile {compile_ms:.2} ms  run {:.3} ms  {:.3} ns/elem (largest input)  kernels {:?}",
        med * 1e3,
        med * 1e9 / n as f64,
        cg.kernel_count()
    );
}
