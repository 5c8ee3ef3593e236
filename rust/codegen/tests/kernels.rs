//! Hand-built kernels run through the JIT and compared with plain Rust loops.

use ember_codegen::exec::{launch, Operand};
use ember_codegen::jit::Jit;
use ember_codegen::kernel::*;

fn compile(k: &Kernel) -> (Jit, ember_codegen::jit::KernelFn) {
    let mut jit = Jit::new().unwrap();
    let id = jit.add(k).unwrap();
    jit.finalize().unwrap();
    assert!(
        jit.scalar_fallbacks().is_empty(),
        "{:?}",
        jit.scalar_fallbacks()
    );
    let f = jit.get(id);
    (jit, f)
}

fn op<T>(v: &mut [T], strides: &[isize]) -> Operand {
    Operand {
        base: v.as_mut_ptr() as *mut u8,
        strides: strides.into(),
    }
}

#[test]
fn elementwise_add_mul_contiguous_and_strided() {
    let mut k = Kernel::default();
    let x = k.buffer(Scalar::F64, InnerAccess::Strided);
    let y = k.buffer(Scalar::F64, InnerAccess::Strided);
    let out = k.buffer(Scalar::F64, InnerAccess::Strided);
    let (lx, ly) = (k.load(x), k.load(y));
    let s = k.binary(BinaryOp::Add, lx, ly);
    let m = k.binary(BinaryOp::Mul, s, lx);
    k.stages.push(Stage::Map {
        buffer: out,
        value: m,
    });
    let (_jit, f) = compile(&k);
    for n in [0usize, 1, 3, 7, 8, 9, 31, 100, 1001] {
        let mut a: Vec<f64> = (0..2 * n).map(|i| i as f64 * 0.5 - 3.0).collect();
        let mut b: Vec<f64> = (0..n).map(|i| (i * i) as f64).collect();
        let mut o = vec![0.0f64; n];
        // a read with stride 2 (a[::2]), b reversed (b[::-1]).
        let bo = if n > 0 { (n - 1) * 8 } else { 0 };
        let mut ops = vec![op(&mut a, &[16]), op(&mut b, &[-8]), op(&mut o, &[8])];
        ops[1].base = ops[1].base.wrapping_add(bo);
        unsafe { launch(f, &[n], &ops, 1, false) };
        for i in 0..n {
            let (av, bv) = (a[2 * i], b[n - 1 - i]);
            assert_eq!(o[i], (av + bv) * av, "n={n} i={i}");
        }
        let mut a2: Vec<f64> = (0..n).map(|i| i as f64).collect();
        let mut b2 = a2.clone();
        let mut o2 = vec![0.0f64; n];
        let ops = [op(&mut a2, &[8]), op(&mut b2, &[8]), op(&mut o2, &[8])];
        unsafe { launch(f, &[n], &ops, 0, true) };
        for (i, v) in o2.iter().enumerate() {
            assert_eq!(*v, (2.0 * i as f64) * i as f64);
        }
    }
}

/// Row softmax in one kernel: max, sum of exp, normalised write.
#[test]
fn softmax_rows_f32() {
    let mut k = Kernel::default();
    let x = k.buffer(Scalar::F32, InnerAccess::Strided);
    let out = k.buffer(Scalar::F32, InnerAccess::Strided);
    let lx = k.load(x);
    k.stages.push(Stage::Reduce {
        op: ReduceOp::Max,
        value: lx,
    });
    let m = k.stage_result(0);
    let d = k.binary(BinaryOp::Sub, lx, m);
    let e = k.unary(UnaryOp::Exp, d);
    k.stages.push(Stage::Reduce {
        op: ReduceOp::Sum,
        value: e,
    });
    let s = k.stage_result(1);
    let q = k.binary(BinaryOp::Div, e, s);
    k.stages.push(Stage::Map {
        buffer: out,
        value: q,
    });
    let (_jit, f) = compile(&k);
    let (rows, n) = (37usize, 301usize);
    let mut a: Vec<f32> = (0..rows * n)
        .map(|i| ((i * 7919) % 1000) as f32 / 100.0 - 5.0)
        .collect();
    let mut o = vec![0.0f32; rows * n];
    let ops = [
        op(&mut a, &[4 * n as isize, 4]),
        op(&mut o, &[4 * n as isize, 4]),
    ];
    unsafe { launch(f, &[rows, n], &ops, 1, false) };
    for r in 0..rows {
        let row = &a[r * n..(r + 1) * n];
        let mx = row.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
        let sum: f64 = row.iter().map(|v| ((v - mx) as f64).exp()).sum();
        for j in 0..n {
            let want = ((row[j] - mx) as f64).exp() / sum;
            let got = o[r * n + j] as f64;
            assert!(
                (got - want).abs() <= 1e-6 * want.abs() + 1e-12,
                "{r},{j}: {got} {want}"
            );
        }
    }
}

#[test]
fn reductions_sum_max_argmax_any() {
    for (op, ty) in [
        (ReduceOp::Sum, Scalar::F64),
        (ReduceOp::Sum, Scalar::F32),
        (ReduceOp::Prod, Scalar::F64),
        (ReduceOp::Max, Scalar::F64),
        (ReduceOp::Min, Scalar::F32),
        (ReduceOp::Argmax, Scalar::F64),
        (ReduceOp::Argmin, Scalar::F32),
        (ReduceOp::Sum, Scalar::I64),
        (ReduceOp::Max, Scalar::I32),
    ] {
        let mut k = Kernel::default();
        let x = k.buffer(Scalar::F64, InnerAccess::Strided);
        let rt = op.result_type(ty);
        let out = k.buffer(rt, InnerAccess::Row);
        let lx = k.load(x);
        let v = k.cast(lx, ty);
        k.stages.push(Stage::Reduce { op, value: v });
        let r = k.stage_result(0);
        k.stages.push(Stage::RowStore {
            buffer: out,
            value: r,
        });
        let (_jit, f) = compile(&k);
        for n in [1usize, 2, 5, 16, 17, 255, 256, 257, 1000, 5003] {
            let mut a: Vec<f64> = (0..n)
                .map(|i| ((i * 37) % 101) as f64 / 50.0 - 0.9)
                .collect();
            let want: f64 = match op {
                ReduceOp::Sum if ty.is_int() => a.iter().map(|v| *v as i64).sum::<i64>() as f64,
                ReduceOp::Max if ty.is_int() => a.iter().map(|v| *v as i64).max().unwrap() as f64,
                ReduceOp::Sum => a
                    .iter()
                    .map(|v| {
                        if ty == Scalar::F32 {
                            *v as f32 as f64
                        } else {
                            *v
                        }
                    })
                    .sum(),
                ReduceOp::Prod => a.iter().product(),
                ReduceOp::Max => a.iter().cloned().fold(f64::NEG_INFINITY, f64::max),
                ReduceOp::Min => a
                    .iter()
                    .map(|v| *v as f32 as f64)
                    .fold(f64::INFINITY, f64::min),
                ReduceOp::Argmax => {
                    let m = a.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                    a.iter().position(|v| *v == m).unwrap() as f64
                }
                ReduceOp::Argmin => {
                    let m = a.iter().map(|v| *v as f32).fold(f32::INFINITY, f32::min);
                    a.iter().position(|v| *v as f32 == m).unwrap() as f64
                }
                _ => unreachable!(),
            };
            let mut o = vec![0u8; 8];
            let ops = [
                op_of(&mut a),
                Operand {
                    base: o.as_mut_ptr(),
                    strides: vec![0].into(),
                },
            ];
            unsafe { launch(f, &[n], &ops, 1, false) };
            let got = match rt {
                Scalar::F64 => f64::from_ne_bytes(o[..8].try_into().unwrap()),
                Scalar::F32 => f32::from_ne_bytes(o[..4].try_into().unwrap()) as f64,
                Scalar::I64 => i64::from_ne_bytes(o[..8].try_into().unwrap()) as f64,
                Scalar::I32 => i32::from_ne_bytes(o[..4].try_into().unwrap()) as f64,
                Scalar::Bool => o[0] as f64,
                other => unreachable!("no reduction here gives {other}"),
            };
            let tol = if ty == Scalar::F32 { 1e-5 } else { 1e-12 };
            assert!(
                (got - want).abs() <= tol * want.abs().max(1.0),
                "{op:?} {ty} n={n}: {got} vs {want}"
            );
        }
    }
}

fn op_of(a: &mut [f64]) -> Operand {
    Operand {
        base: a.as_mut_ptr() as *mut u8,
        strides: vec![8].into(),
    }
}

#[test]
fn nan_propagates_in_max_and_argmax_finds_first_nan() {
    let mut k = Kernel::default();
    let x = k.buffer(Scalar::F64, InnerAccess::Strided);
    let o1 = k.buffer(Scalar::F64, InnerAccess::Row);
    let o2 = k.buffer(Scalar::I64, InnerAccess::Row);
    let lx = k.load(x);
    k.stages.push(Stage::Reduce {
        op: ReduceOp::Max,
        value: lx,
    });
    k.stages.push(Stage::Reduce {
        op: ReduceOp::Argmax,
        value: lx,
    });
    let (r0, r1) = (k.stage_result(0), k.stage_result(1));
    k.stages.push(Stage::RowStore {
        buffer: o1,
        value: r0,
    });
    k.stages.push(Stage::RowStore {
        buffer: o2,
        value: r1,
    });
    let (_jit, f) = compile(&k);
    let mut a: Vec<f64> = (0..100).map(|i| i as f64).collect();
    a[40] = f64::NAN;
    a[70] = f64::NAN;
    let mut m = [0.0f64];
    let mut i = [0i64];
    let ops = [op_of(&mut a), op(&mut m, &[0]), op(&mut i, &[0])];
    unsafe { launch(f, &[100], &ops, 1, false) };
    assert!(m[0].is_nan());
    assert_eq!(i[0], 40);
}

#[test]
fn integer_floordiv_mod_follow_numpy() {
    let mut k = Kernel::default();
    let x = k.buffer(Scalar::I64, InnerAccess::Strided);
    let y = k.buffer(Scalar::I64, InnerAccess::Strided);
    let q = k.buffer(Scalar::I64, InnerAccess::Strided);
    let r = k.buffer(Scalar::I64, InnerAccess::Strided);
    let (lx, ly) = (k.load(x), k.load(y));
    let d = k.binary(BinaryOp::Floordiv, lx, ly);
    let m = k.binary(BinaryOp::Mod, lx, ly);
    k.stages.push(Stage::Map {
        buffer: q,
        value: d,
    });
    k.stages.push(Stage::Map {
        buffer: r,
        value: m,
    });
    let (_jit, f) = compile(&k);
    let mut xs = vec![7i64, -7, 7, -7, 5, 0, i64::MIN, 3];
    let mut ys = vec![2i64, 2, -2, -2, 0, 3, -1, 1];
    let mut qs = vec![0i64; 8];
    let mut rs = vec![0i64; 8];
    let ops = [
        op(&mut xs, &[8]),
        op(&mut ys, &[8]),
        op(&mut qs, &[8]),
        op(&mut rs, &[8]),
    ];
    unsafe { launch(f, &[8], &ops, 1, false) };
    assert_eq!(qs, vec![3, -4, -4, 3, 0, 0, i64::MIN, 3]);
    assert_eq!(rs, vec![1, 1, -1, -1, 0, 0, 0, 0]);
}

/// A long 1-D elementwise launch is split into pieces across threads.
#[test]
fn long_rows_split_across_threads() {
    let mut k = Kernel::default();
    let x = k.buffer(Scalar::F64, InnerAccess::Strided);
    let c = k.buffer(Scalar::F64, InnerAccess::Row);
    let out = k.buffer(Scalar::F64, InnerAccess::Strided);
    let (lx, lc) = (k.load(x), k.load(c));
    let v = k.binary(BinaryOp::Mul, lx, lc);
    k.stages.push(Stage::Map {
        buffer: out,
        value: v,
    });
    let (_jit, f) = compile(&k);
    let n = 300_001;
    let mut a: Vec<f64> = (0..2 * n).map(|i| i as f64).collect();
    let mut s = [3.0f64];
    for threads in [0, 2, 3, 7] {
        let mut o = vec![0.0f64; n];
        let ops = [op(&mut a, &[16]), op(&mut s, &[0]), op(&mut o, &[8])];
        unsafe { launch(f, &[n], &ops, threads, true) };
        for (i, v) in o.iter().enumerate() {
            assert_eq!(*v, 6.0 * i as f64, "threads={threads} i={i}");
        }
    }
}

/// NumPy's max/min of a row: NaN if any element is NaN, else the extreme.
fn fold_extreme(xs: &[f64], max: bool) -> f64 {
    let init = if max {
        f64::NEG_INFINITY
    } else {
        f64::INFINITY
    };
    xs.iter().fold(init, |acc, &x| {
        if acc.is_nan() || x.is_nan() {
            f64::NAN
        } else if max {
            acc.max(x)
        } else {
            acc.min(x)
        }
    })
}

#[test]
fn float_max_min_match_a_scalar_fold_for_every_length_and_special_position() {
    for ty in [Scalar::F32, Scalar::F64] {
        for rop in [ReduceOp::Max, ReduceOp::Min] {
            let mut k = Kernel::default();
            let x = k.buffer(ty, InnerAccess::Strided);
            let out = k.buffer(ty, InnerAccess::Row);
            let lx = k.load(x);
            k.stages.push(Stage::Reduce { op: rop, value: lx });
            let r = k.stage_result(0);
            k.stages.push(Stage::RowStore {
                buffer: out,
                value: r,
            });
            let (_jit, f) = compile(&k);
            let run = |xs: &[f64]| -> f64 {
                if ty == Scalar::F64 {
                    let mut a = xs.to_vec();
                    let mut o = [0.0f64];
                    let ops = [op(&mut a, &[8]), op(&mut o, &[0])];
                    unsafe { launch(f, &[xs.len()], &ops, 1, false) };
                    o[0]
                } else {
                    let mut a: Vec<f32> = xs.iter().map(|&v| v as f32).collect();
                    let mut o = [0.0f32];
                    let ops = [op(&mut a, &[4]), op(&mut o, &[0])];
                    unsafe { launch(f, &[xs.len()], &ops, 1, false) };
                    o[0] as f64
                }
            };
            for n in 0..=80usize {
                let base: Vec<f64> = (0..n).map(|i| ((i * 37) % 23) as f64 - 11.0).collect();
                let want = fold_extreme(&base, rop == ReduceOp::Max);
                let got = run(&base);
                assert!(got == want, "{ty} {rop:?} n={n}: {got} != {want}");
                for special in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
                    for p in 0..n {
                        let mut xs = base.clone();
                        xs[p] = special;
                        let want = fold_extreme(&xs, rop == ReduceOp::Max);
                        let got = run(&xs);
                        assert!(
                            got == want || got.is_nan() && want.is_nan(),
                            "{ty} {rop:?} n={n} {special} at {p}: {got} != {want}"
                        );
                    }
                }
            }
        }
    }
}
