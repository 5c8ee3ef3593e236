//! Accuracy of the vectorised transcendentals against the platform libm, in ulps, over wide
//! ranges including infinities, NaN, denormals and negative inputs. Each function runs on the
//! SIMD path (contiguous input) and on the scalar path (strided input).

use ember_codegen::exec::{launch, Operand};
use ember_codegen::jit::Jit;
use ember_codegen::kernel::*;

fn run_unary(op: UnaryOp, ty: Scalar, xs: &[f64], contiguous: bool) -> Vec<f64> {
    let mut k = Kernel::default();
    let x = k.buffer(ty, InnerAccess::Strided);
    let out = k.buffer(ty, InnerAccess::Strided);
    let lx = k.load(x);
    let v = k.unary(op, lx);
    k.stages.push(Stage::Map {
        buffer: out,
        value: v,
    });
    let mut jit = Jit::new().unwrap();
    let id = jit.add(&k).unwrap();
    jit.finalize().unwrap();
    assert!(jit.scalar_fallbacks().is_empty());
    launch_map(jit.get(id), ty, &[xs], contiguous)
}

/// Runs a compiled one-dim map kernel over `inputs` (converted to `ty`), each spread every
/// third element unless `contiguous`, into a contiguous output it returns as f64.
fn launch_map(
    f: ember_codegen::jit::KernelFn,
    ty: Scalar,
    inputs: &[&[f64]],
    contiguous: bool,
) -> Vec<f64> {
    let n = inputs[0].len();
    let gap = if contiguous { 1 } else { 3 };
    let size = if ty == Scalar::F64 { 8 } else { 4 };
    let spread = |v: &[f64]| {
        let mut a = vec![0u8; n * gap * size];
        for (i, x) in v.iter().enumerate() {
            let at = i * gap * size;
            if ty == Scalar::F64 {
                a[at..at + 8].copy_from_slice(&x.to_ne_bytes());
            } else {
                a[at..at + 4].copy_from_slice(&(*x as f32).to_ne_bytes());
            }
        }
        a
    };
    let mut bufs: Vec<Vec<u8>> = inputs.iter().map(|v| spread(v)).collect();
    let mut o = vec![0u8; n * size];
    let op = |v: &mut Vec<u8>, step: usize| Operand {
        base: v.as_mut_ptr(),
        strides: vec![(step * size) as isize].into(),
    };
    let mut ops: Vec<Operand> = bufs.iter_mut().map(|b| op(b, gap)).collect();
    ops.push(op(&mut o, 1));
    unsafe { launch(f, &[n], &ops, 1, false) };
    o.chunks(size)
        .map(|c| {
            if ty == Scalar::F64 {
                f64::from_ne_bytes(c.try_into().unwrap())
            } else {
                f32::from_ne_bytes(c.try_into().unwrap()) as f64
            }
        })
        .collect()
}

fn ulps64(a: f64, b: f64) -> u64 {
    if a.is_nan() && b.is_nan() || a == b {
        return 0;
    }
    if a.is_nan() || b.is_nan() || a.is_infinite() || b.is_infinite() {
        return u64::MAX;
    }
    let key = |x: f64| {
        let i = x.to_bits() as i64;
        if i < 0 {
            i64::MIN - i
        } else {
            i
        }
    };
    key(a).abs_diff(key(b))
}

fn ulps32(a: f32, b: f32) -> u64 {
    if a.is_nan() && b.is_nan() || a == b {
        return 0;
    }
    if a.is_nan() || b.is_nan() || a.is_infinite() || b.is_infinite() {
        return u64::MAX;
    }
    let key = |x: f32| {
        let i = x.to_bits() as i32 as i64;
        if i < 0 {
            i32::MIN as i64 - i
        } else {
            i
        }
    };
    key(a).abs_diff(key(b))
}

/// Points spread over `[lo, hi]`: evenly, log-spaced over the whole float range, uniformly at
/// random (a fixed generator, so failures reproduce), densely near the thresholds where the
/// functions switch between code paths, plus the special values.
fn samples(lo: f64, hi: f64) -> Vec<f64> {
    let mut v: Vec<f64> = (0..4001)
        .map(|i| lo + (hi - lo) * i as f64 / 4000.0)
        .collect();
    for e in -30000..30000 {
        let m = 10f64.powf(e as f64 / 100.0);
        for s in [1.0, -1.0] {
            let x = s * m * 1.2345;
            if x >= lo && x <= hi {
                v.push(x);
            }
        }
    }
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut uniform = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let (dlo, dhi) = (lo.max(-40.0), hi.min(40.0));
    for _ in 0..200_000 {
        v.push(lo + (hi - lo) * uniform());
        v.push(dlo + (dhi - dlo) * uniform());
    }
    let edges = [
        20.0, 40.0, 86.0, 87.3, 88.7, 89.0, 103.9, 104.0, 706.0, 708.4, 709.8, 710.0, 745.1, 746.0,
        1e3, 1e4,
    ];
    for t in edges {
        for s in [1.0, -1.0] {
            for i in -200..=200 {
                let x = s * t * (1.0 + i as f64 * 1e-5);
                if x >= lo && x <= hi {
                    v.push(x);
                }
            }
        }
    }
    v.extend([
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        5e-324,
        -5e-324,
        2.2e-308,
        1.4e-45,
        1.2e-38,
        f64::MAX,
        -f64::MAX,
    ]);
    v
}

fn check(
    op: UnaryOp,
    reference: fn(f64) -> f64,
    ref32: fn(f32) -> f32,
    lo: f64,
    hi: f64,
    max64: u64,
    max32: u64,
) {
    let xs = samples(lo, hi);
    for contiguous in [true, false] {
        let got = run_unary(op, Scalar::F64, &xs, contiguous);
        let worst = xs
            .iter()
            .zip(&got)
            .map(|(x, g)| (ulps64(*g, reference(*x)), *x, *g))
            .max_by_key(|t| t.0)
            .unwrap();
        eprintln!("{op:?} f64 contiguous={contiguous}: worst {} ulp", worst.0);
        assert!(
            worst.0 <= max64,
            "{op:?} f64 contiguous={contiguous}: {} ulp at x={} got {} want {}",
            worst.0,
            worst.1,
            worst.2,
            reference(worst.1)
        );
        let got = run_unary(op, Scalar::F32, &xs, contiguous);
        let worst = xs
            .iter()
            .zip(&got)
            .map(|(x, g)| (ulps32(*g as f32, ref32(*x as f32)), *x as f32, *g))
            .max_by_key(|t| t.0)
            .unwrap();
        eprintln!("{op:?} f32 contiguous={contiguous}: worst {} ulp", worst.0);
        assert!(
            worst.0 <= max32,
            "{op:?} f32 contiguous={contiguous}: {} ulp at x={} got {} want {}",
            worst.0,
            worst.1,
            worst.2,
            ref32(worst.1)
        );
    }
}

#[test]
fn exp_within_1_ulp() {
    check(UnaryOp::Exp, f64::exp, f32::exp, -800.0, 800.0, 1, 1);
}

#[test]
fn expm1_within_2_ulp() {
    check(
        UnaryOp::Expm1,
        f64::exp_m1,
        f32::exp_m1,
        -100.0,
        720.0,
        2,
        2,
    );
}

#[test]
fn log_within_1_ulp() {
    check(UnaryOp::Log, f64::ln, f32::ln, -10.0, 1e308, 1, 1);
}

#[test]
fn log1p_within_2_ulp() {
    check(UnaryOp::Log1p, f64::ln_1p, f32::ln_1p, -1.5, 1e300, 2, 2);
}

#[test]
fn tanh_within_3_ulp() {
    check(UnaryOp::Tanh, f64::tanh, f32::tanh, -40.0, 40.0, 3, 3);
}

#[test]
fn sin_cos_within_2_ulp() {
    check(UnaryOp::Sin, f64::sin, f32::sin, -1e4, 1e4, 2, 2);
    check(UnaryOp::Cos, f64::cos, f32::cos, -1e4, 1e4, 2, 2);
    // Beyond the polynomial's range the SIMD path hands the lanes to libm.
    check(UnaryOp::Sin, f64::sin, f32::sin, -1e300, 1e300, 2, 2);
    check(UnaryOp::Cos, f64::cos, f32::cos, -1e300, 1e300, 2, 2);
}

#[test]
fn arctan_within_1_ulp_f64_3_ulp_f32() {
    check(UnaryOp::Arctan, f64::atan, f32::atan, -1e300, 1e300, 1, 3);
    check(UnaryOp::Arctan, f64::atan, f32::atan, -3.0, 3.0, 1, 3);
}

/// `arctan2(ys, xs)` by a compiled kernel, on the SIMD path (contiguous) or the scalar one.
fn run_atan2(ty: Scalar, ys: &[f64], xs: &[f64], contiguous: bool) -> Vec<f64> {
    let mut k = Kernel::default();
    let y = k.buffer(ty, InnerAccess::Strided);
    let x = k.buffer(ty, InnerAccess::Strided);
    let out = k.buffer(ty, InnerAccess::Strided);
    let (ly, lx) = (k.load(y), k.load(x));
    let v = k.binary(BinaryOp::Arctan2, ly, lx);
    k.stages.push(Stage::Map {
        buffer: out,
        value: v,
    });
    let mut jit = Jit::new().unwrap();
    let id = jit.add(&k).unwrap();
    jit.finalize().unwrap();
    launch_map(jit.get(id), ty, &[ys, xs], contiguous)
}

#[test]
fn arctan2_within_1_ulp_f64_3_ulp_f32_in_every_octant() {
    let special = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        5e-324,
        -5e-324,
        1e-310,
        1e308,
        -1e308,
        f64::MAX,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
    ];
    let mut ys = Vec::new();
    let mut xs = Vec::new();
    for &a in &special {
        for &b in &special {
            ys.push(a);
            xs.push(b);
        }
    }
    let wide = samples(-1e300, 1e300);
    let near = samples(-3.0, 3.0);
    for v in [&wide, &near] {
        ys.extend(v.iter());
        xs.extend(v.iter().rev());
        ys.extend(v.iter().map(|t| t * 0.6));
        xs.extend(v.iter());
    }
    for contiguous in [true, false] {
        let got = run_atan2(Scalar::F64, &ys, &xs, contiguous);
        for ((y, x), g) in ys.iter().zip(&xs).zip(&got) {
            let want = y.atan2(*x);
            let u = ulps64(*g, want);
            let zeros_alike = *g != 0.0 || g.to_bits() == want.to_bits();
            assert!(
                u <= 1 && zeros_alike,
                "f64 contiguous={contiguous} atan2({y:e}, {x:e}): got {g:e} want {want:e}"
            );
        }
        let got = run_atan2(Scalar::F32, &ys, &xs, contiguous);
        for ((y, x), g) in ys.iter().zip(&xs).zip(&got) {
            let (y, x, g) = (*y as f32, *x as f32, *g as f32);
            let want = y.atan2(x);
            let zeros_alike = g != 0.0 || g.to_bits() == want.to_bits();
            assert!(
                ulps32(g, want) <= 3 && zeros_alike,
                "f32 contiguous={contiguous} atan2({y:e}, {x:e}): got {g:e} want {want:e}"
            );
        }
    }
}

#[test]
fn signed_zeros_tiny_and_special_inputs_match_libm_bit_for_bit() {
    let xs = [
        0.0,
        -0.0,
        5e-324,
        -5e-324,
        1e-310,
        -1e-310,
        1e-300,
        -1e-300,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ];
    type Pair = (UnaryOp, fn(f64) -> f64, fn(f32) -> f32);
    let ops: [Pair; 8] = [
        (UnaryOp::Exp, f64::exp, f32::exp),
        (UnaryOp::Expm1, f64::exp_m1, f32::exp_m1),
        (UnaryOp::Log, f64::ln, f32::ln),
        (UnaryOp::Log1p, f64::ln_1p, f32::ln_1p),
        (UnaryOp::Tanh, f64::tanh, f32::tanh),
        (UnaryOp::Sin, f64::sin, f32::sin),
        (UnaryOp::Cos, f64::cos, f32::cos),
        (UnaryOp::Arctan, f64::atan, f32::atan),
    ];
    for (op, r64, r32) in ops {
        for contiguous in [true, false] {
            let got = run_unary(op, Scalar::F64, &xs, contiguous);
            for (x, g) in xs.iter().zip(&got) {
                let want = r64(*x);
                assert!(
                    g.to_bits() == want.to_bits() || g.is_nan() && want.is_nan(),
                    "{op:?} f64 contiguous={contiguous} x={x:e}: got {g:e} want {want:e}"
                );
            }
            let got = run_unary(op, Scalar::F32, &xs, contiguous);
            for (x, g) in xs.iter().zip(&got) {
                let (x, g) = (*x as f32, *g as f32);
                let want = r32(x);
                assert!(
                    g.to_bits() == want.to_bits() || g.is_nan() && want.is_nan(),
                    "{op:?} f32 contiguous={contiguous} x={x:e}: got {g:e} want {want:e}"
                );
            }
        }
    }
}
