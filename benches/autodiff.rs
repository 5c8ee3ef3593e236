//! Benchmarks of reverse-mode autodiff in the core: building the joint graph and splitting it
//! with the min-cut partitioner, on a deep MLP and on a long elementwise chain.
//!
//! `cargo bench -p ember-core --bench autodiff`

use criterion::{criterion_group, criterion_main, Criterion};
use ember_core::autodiff::{differentiate, Strategy};
use ember_core::ir::{parse, Graph};
use std::fmt::Write;
use std::hint::black_box;

/// `layers` tanh layers of width 256 on a batch of 128, then a sum.
fn deep_mlp(layers: usize) -> Graph {
    let mut text = String::from("ember-ir 1\nfunc @mlp(%0: f32[128,256]");
    for i in 0..layers {
        write!(
            text,
            ", %{}: f32[256,256], %{}: f32[256]",
            1 + 2 * i,
            2 + 2 * i
        )
        .unwrap();
    }
    text += ") -> (f32[]) {\n";
    let mut h = 0;
    let mut next = 1 + 2 * layers;
    for i in 0..layers {
        let (w, b) = (1 + 2 * i, 2 + 2 * i);
        writeln!(text, "  %{next} = matmul(%{h}, %{w}) : f32[128,256]").unwrap();
        writeln!(text, "  %{} = add(%{next}, %{b}) : f32[128,256]", next + 1).unwrap();
        writeln!(text, "  %{} = tanh(%{}) : f32[128,256]", next + 2, next + 1).unwrap();
        h = next + 2;
        next += 3;
    }
    writeln!(
        text,
        "  %{next} = sum(%{h}) axis=none keepdims=false : f32[]"
    )
    .unwrap();
    writeln!(text, "  return %{next}\n}}").unwrap();
    parse(&text).unwrap()
}

/// `n` alternating sin/exp/mul statements on one vector.
fn elementwise_chain(n: usize) -> Graph {
    let mut text = String::from("ember-ir 1\nfunc @chain(%0: f64[4096]) -> (f64[]) {\n");
    for i in 1..=n {
        let stmt = match i % 3 {
            0 => format!("sin(%{})", i - 1),
            1 => format!("tanh(%{})", i - 1),
            _ => format!("mul(%{}, %0)", i - 1),
        };
        writeln!(text, "  %{i} = {stmt} : f64[4096]").unwrap();
    }
    writeln!(
        text,
        "  %{} = sum(%{n}) axis=none keepdims=false : f64[]",
        n + 1
    )
    .unwrap();
    writeln!(text, "  return %{}\n}}", n + 1).unwrap();
    parse(&text).unwrap()
}

fn bench(c: &mut Criterion) {
    let mlp = deep_mlp(64);
    let wrt: Vec<usize> = (0..mlp.params.len()).collect();
    c.bench_function("joint+min-cut: 64-layer MLP (193 forward ops)", |b| {
        b.iter(|| differentiate(black_box(&mlp), &wrt, &[true], Strategy::MinCut).unwrap())
    });
    let chain = elementwise_chain(1500);
    c.bench_function("joint+min-cut: 1500-op elementwise chain", |b| {
        b.iter(|| differentiate(black_box(&chain), &[0], &[true], Strategy::MinCut).unwrap())
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
