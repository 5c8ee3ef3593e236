//! Benchmarks of the compiler and of compiled kernels: IR parse, the pass pipeline, Cranelift
//! compile time of fused graphs, and kernel throughput in GB/s next to a plain memory copy.
//!
//! `cargo bench -p ember-codegen --bench codegen`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use ember_codegen::{compile, ArrayView, ArrayViewMut, CompiledGraph, Options};
use ember_core::ir::{parse, DType};
use std::hint::black_box;
use std::time::Duration;

/// Layernorm followed by the tanh form of GELU: 23 ops, one fused kernel.
const LAYERNORM_GELU: &str = "ember-ir 1
func @layernorm_gelu(%0: f32[64,1024], %1: f32[1024], %2: f32[1024]) -> (f32[64,1024]) {
  %3 = mean(%0) axis=[1] keepdims=true : f32[64,1]
  %4 = sub(%0, %3) : f32[64,1024]
  %5 = mul(%4, %4) : f32[64,1024]
  %6 = mean(%5) axis=[1] keepdims=true : f32[64,1]
  %7 = const() value=1e-05 : f64[] weak
  %8 = add(%6, %7) : f32[64,1]
  %9 = sqrt(%8) : f32[64,1]
  %10 = div(%4, %9) : f32[64,1024]
  %11 = mul(%10, %1) : f32[64,1024]
  %12 = add(%11, %2) : f32[64,1024]
  %13 = const() value=0.5 : f64[] weak
  %14 = mul(%12, %13) : f32[64,1024]
  %15 = mul(%12, %12) : f32[64,1024]
  %16 = mul(%15, %12) : f32[64,1024]
  %17 = const() value=0.044715 : f64[] weak
  %18 = mul(%16, %17) : f32[64,1024]
  %19 = add(%12, %18) : f32[64,1024]
  %20 = const() value=0.7978845608028654 : f64[] weak
  %21 = mul(%19, %20) : f32[64,1024]
  %22 = tanh(%21) : f32[64,1024]
  %23 = const() value=1.0 : f64[] weak
  %24 = add(%22, %23) : f32[64,1024]
  %25 = mul(%14, %24) : f32[64,1024]
  return %25
}
";

/// A 20-op elementwise chain.
fn chain20(n: usize) -> String {
    let mut s = format!("ember-ir 1\nfunc @chain(%0: f64[{n}], %1: f64[{n}]) -> (f64[{n}]) {{\n");
    let ops = ["add", "mul", "sub", "maximum", "mul"];
    let mut prev = 0;
    for i in 0..20 {
        let v = i + 2;
        let op = ops[i % ops.len()];
        s += &format!("  %{v} = {op}(%{prev}, %1) : f64[{n}]\n");
        prev = v;
    }
    s += &format!("  return %{prev}\n}}\n");
    s
}

fn softmax(rows: usize, cols: usize) -> String {
    format!(
        "ember-ir 1
func @softmax(%0: f32[{rows},{cols}]) -> (f32[{rows},{cols}]) {{
  %1 = max(%0) axis=[1] keepdims=true : f32[{rows},1]
  %2 = sub(%0, %1) : f32[{rows},{cols}]
  %3 = exp(%2) : f32[{rows},{cols}]
  %4 = sum(%3) axis=[1] keepdims=true : f32[{rows},1]
  %5 = div(%3, %4) : f32[{rows},{cols}]
  return %5
}}
"
    )
}

fn elementwise(n: usize) -> String {
    format!(
        "ember-ir 1
func @axpb(%0: f64[{n}], %1: f64[{n}]) -> (f64[{n}]) {{
  %2 = const() value=2.5 : f64[] weak
  %3 = mul(%0, %2) : f64[{n}]
  %4 = add(%3, %1) : f64[{n}]
  %5 = mul(%4, %0) : f64[{n}]
  return %5
}}
"
    )
}

fn sum_of_squares(n: usize) -> String {
    format!(
        "ember-ir 1
func @sumsq(%0: f64[{n}]) -> (f64[]) {{
  %1 = mul(%0, %0) : f64[{n}]
  %2 = sum(%1) axis=none keepdims=false : f64[]
  return %2
}}
"
    )
}

/// Caller-owned arrays for a compiled graph, filled with small values.
struct Buffers {
    inputs: Vec<Vec<u64>>,
    outputs: Vec<Vec<u64>>,
}

impl Buffers {
    fn new(cg: &CompiledGraph) -> Self {
        let bytes = |t: &ember_core::ir::Type| {
            let n: usize = t.static_shape().unwrap().iter().product();
            let size = if t.dtype == DType::F32 { 4 } else { 8 };
            (n * size).div_ceil(8).max(1)
        };
        let fill = |t: &ember_core::ir::Type| {
            let mut v = vec![0u64; bytes(t)];
            let n: usize = t.static_shape().unwrap().iter().product();
            // SAFETY: `v` holds at least `n` elements of the type written (8-byte aligned words).
            if t.dtype == DType::F32 {
                let f = unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr() as *mut f32, n) };
                f.iter_mut()
                    .enumerate()
                    .for_each(|(i, x)| *x = (i % 97) as f32 * 0.03 - 1.0);
            } else {
                let f = unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr() as *mut f64, n) };
                f.iter_mut()
                    .enumerate()
                    .for_each(|(i, x)| *x = (i % 97) as f64 * 0.03 - 1.0);
            }
            v
        };
        Buffers {
            inputs: cg.input_types().iter().map(fill).collect(),
            outputs: cg
                .output_types()
                .iter()
                .map(|t| vec![0u64; bytes(t)])
                .collect(),
        }
    }

    fn run(&mut self, cg: &CompiledGraph) {
        let view = |t: &ember_core::ir::Type| {
            let shape = t.static_shape().unwrap();
            let size = if t.dtype == DType::F32 { 4 } else { 8 };
            let mut strides = vec![size as isize; shape.len()];
            for i in (0..shape.len().saturating_sub(1)).rev() {
                strides[i] = strides[i + 1] * shape[i + 1] as isize;
            }
            (t.dtype, shape, strides)
        };
        let ins: Vec<ArrayView> = cg
            .input_types()
            .iter()
            .zip(&self.inputs)
            .map(|(t, b)| {
                let (d, s, st) = view(t);
                // SAFETY: `b` holds the whole array and outlives the call.
                unsafe { ArrayView::new(b.as_ptr() as *const u8, d, s, st) }
            })
            .collect();
        let outs: Vec<ArrayViewMut> = cg
            .output_types()
            .iter()
            .zip(&mut self.outputs)
            .map(|(t, b)| {
                let (d, s, st) = view(t);
                // SAFETY: as above, and nothing else touches `b` meanwhile.
                unsafe { ArrayViewMut::new(b.as_mut_ptr() as *mut u8, d, s, st) }
            })
            .collect();
        cg.run(&ins, &outs).unwrap();
    }
}

fn front_end(c: &mut Criterion) {
    let mut g = c.benchmark_group("front_end");
    g.bench_function("parse_layernorm_gelu", |b| {
        b.iter(|| parse(black_box(LAYERNORM_GELU)).unwrap())
    });
    let graph = parse(LAYERNORM_GELU).unwrap();
    g.bench_function("pipeline_layernorm_gelu", |b| {
        b.iter(|| ember_core::passes::run_pipeline(black_box(&graph), false).unwrap())
    });
    g.finish();
}

fn compile_time(c: &mut Criterion) {
    let mut g = c.benchmark_group("compile");
    let ln = parse(LAYERNORM_GELU).unwrap();
    g.bench_function("layernorm_gelu", |b| {
        b.iter(|| compile(black_box(&ln), &Options::default()).unwrap())
    });
    let ch = parse(&chain20(1024)).unwrap();
    g.bench_function("chain20_fused", |b| {
        b.iter(|| compile(black_box(&ch), &Options::default()).unwrap())
    });
    g.finish();
}

fn throughput(c: &mut Criterion) {
    let mut g = c.benchmark_group("throughput");
    g.sample_size(10).measurement_time(Duration::from_secs(3));
    let n = 10_000_000;
    let copy_src = vec![1.0f64; n];
    let mut copy_dst = vec![0.0f64; n];
    g.throughput(Throughput::Bytes((16 * n) as u64));
    g.bench_function("memcpy_10M_f64", |b| {
        b.iter(|| copy_dst.copy_from_slice(black_box(&copy_src)))
    });
    for threads in [1usize, 0] {
        let cases = [
            ("elementwise_10M_f64", elementwise(n), 24 * n),
            ("chain20_10M_f64", chain20(n), 24 * n),
            (
                "softmax_4096x4096_f32",
                softmax(4096, 4096),
                8 * 4096 * 4096,
            ),
            ("sum_of_squares_10M_f64", sum_of_squares(n), 8 * n),
        ];
        for (name, ir, bytes) in cases {
            let cg = compile(
                &parse(&ir).unwrap(),
                &Options {
                    num_threads: threads,
                },
            )
            .unwrap();
            let mut bufs = Buffers::new(&cg);
            g.throughput(Throughput::Bytes(bytes as u64));
            let label = format!(
                "{name}_threads{}",
                if threads == 0 {
                    "all".into()
                } else {
                    threads.to_string()
                }
            );
            g.bench_function(label, |b| b.iter(|| bufs.run(&cg)));
        }
    }
    g.finish();
}

criterion_group!(benches, front_end, compile_time, throughput);
criterion_main!(benches);
