//! Kernels whose stages mix lane widths or use byte lanes: casts between 4- and 8-byte
//! types, `i64`/`f64` conversions, `i32` floor division through `f64`, bools alone. Each is
//! checked to take the vector path (its listing) and against plain Rust, in every length
//! around the unrolled step (vector tails).

use ember_codegen::exec::{launch, Operand};
use ember_codegen::jit::Jit;
use ember_codegen::kernel::*;

/// A one-stage kernel mapping `in_ty` to `out_ty` through `body`; returns the compiled
/// function and its Cranelift listing.
fn map_kernel(
    in_ty: Scalar,
    out_ty: Scalar,
    body: impl Fn(&mut Kernel, ExprId) -> ExprId,
) -> (Jit, ember_codegen::jit::KernelFn, String) {
    let mut k = Kernel::default();
    let x = k.buffer(in_ty, InnerAccess::Strided);
    let out = k.buffer(out_ty, InnerAccess::Strided);
    let lx = k.load(x);
    let v = body(&mut k, lx);
    k.stages.push(Stage::Map {
        buffer: out,
        value: v,
    });
    let mut jit = Jit::new().unwrap();
    jit.keep_listings();
    let id = jit.add(&k).unwrap();
    jit.finalize().unwrap();
    assert!(jit.scalar_fallbacks().is_empty());
    let listing = jit.listings().join("\n");
    let f = jit.get(id);
    (jit, f, listing)
}

/// Runs `f` over contiguous `xs` into a fresh output.
fn run<A: Copy, B: Copy + Default>(f: ember_codegen::jit::KernelFn, xs: &[A]) -> Vec<B> {
    let mut a = xs.to_vec();
    let mut o = vec![B::default(); xs.len()];
    let ops = [
        Operand {
            base: a.as_mut_ptr() as *mut u8,
            strides: vec![std::mem::size_of::<A>() as isize].into(),
        },
        Operand {
            base: o.as_mut_ptr() as *mut u8,
            strides: vec![std::mem::size_of::<B>() as isize].into(),
        },
    ];
    unsafe { launch(f, &[xs.len()], &ops, 0, true) };
    o
}

/// x86's `cvttsd2si` to `i64`: truncation in range, `i64::MIN` otherwise (NaN too).
fn x86_to_i64(v: f64) -> i64 {
    if v.trunc() >= -(2f64.powi(63)) && v.trunc() < 2f64.powi(63) {
        v as i64
    } else {
        i64::MIN
    }
}

const LENGTHS: [usize; 7] = [0, 1, 2, 3, 17, 33, 1001];

#[test]
fn casts_between_lane_widths_take_vectors_and_round_as_x86() {
    let (_j, f, l) = map_kernel(Scalar::I32, Scalar::F64, |k, x| k.cast(x, Scalar::F64));
    assert!(l.contains("f64x2"), "{l}");
    let (_j2, g, l2) = map_kernel(Scalar::F64, Scalar::F32, |k, x| k.cast(x, Scalar::F32));
    assert!(l2.contains("f64x2"), "{l2}");
    let (_j3, h, l3) = map_kernel(Scalar::I64, Scalar::F64, |k, x| k.cast(x, Scalar::F64));
    assert!(l3.contains("i64x2"), "{l3}");
    let (_j4, c, l4) = map_kernel(Scalar::F64, Scalar::I64, |k, x| k.cast(x, Scalar::I64));
    assert!(l4.contains("f64x2"), "{l4}");
    for n in LENGTHS {
        let ints: Vec<i32> = (0..n as i32).map(|i| i.wrapping_mul(0x3504_f333)).collect();
        let got: Vec<f64> = run(f, &ints);
        assert_eq!(got, ints.iter().map(|&v| v as f64).collect::<Vec<_>>());
        let floats: Vec<f64> = (0..n).map(|i| (i as f64 - 7.3) * 1e37).collect();
        let got: Vec<f32> = run(g, &floats);
        let want: Vec<f32> = floats.iter().map(|&v| v as f32).collect();
        assert_eq!(got, want);
        let wide: Vec<i64> = (0..n as i64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15u64 as i64) >> (i % 40))
            .collect();
        let got: Vec<f64> = run(h, &wide);
        assert_eq!(got, wide.iter().map(|&v| v as f64).collect::<Vec<_>>());
        let specials = [
            f64::NAN,
            f64::INFINITY,
            -0.75,
            2f64.powi(51),
            -(2f64.powi(63)),
            1e19,
        ];
        let mixed: Vec<f64> = (0..n)
            .map(|i| match i % 9 {
                8 => specials[i / 9 % specials.len()],
                _ => (i as f64 - 500.0) * 12345.678,
            })
            .collect();
        let got: Vec<i64> = run(c, &mixed);
        assert_eq!(
            got,
            mixed.iter().map(|&v| x86_to_i64(v)).collect::<Vec<_>>()
        );
    }
}

#[test]
fn i32_floor_division_by_constants_is_exact_in_vectors() {
    for d in [7i32, -7, 3, 1000003, i32::MAX, i32::MIN] {
        let (_j, f, l) = map_kernel(Scalar::I32, Scalar::I32, |k, x| {
            let c = k.constant(Const::Int(d as i64), Scalar::I32);
            k.binary(BinaryOp::Floordiv, x, c)
        });
        assert!(l.contains("f64x2"), "{l}");
        for n in LENGTHS {
            let xs: Vec<i32> = (0..n as i32)
                .map(|i| match i % 5 {
                    0 => i32::MIN + i,
                    1 => i32::MAX - i,
                    _ => i.wrapping_mul(0x2545_f491),
                })
                .collect();
            let got: Vec<i32> = run(f, &xs);
            let want: Vec<i32> = xs.iter().map(|&x| x.div_euclid(d) - fix(x, d)).collect();
            assert_eq!(got, want, "d={d}");
        }
    }
}

/// The step from Euclid's quotient to the floored one (they differ for a negative divisor
/// with a remainder).
fn fix(x: i32, d: i32) -> i32 {
    (d < 0 && x.rem_euclid(d) != 0) as i32
}

#[test]
fn bool_stages_run_in_byte_lanes() {
    let (_j, f, l) = map_kernel(Scalar::Bool, Scalar::Bool, |k, x| {
        let n = k.unary(UnaryOp::LogicalNot, x);
        k.binary(BinaryOp::Eq, n, x)
    });
    assert!(l.contains("i8x16"), "{l}");
    for n in LENGTHS {
        // Any non-zero byte is true.
        let xs: Vec<u8> = (0..n).map(|i| (i % 3) as u8 * 2).collect();
        let got: Vec<u8> = run(f, &xs);
        assert_eq!(got, vec![0u8; n]);
    }
}

/// `m = x > t` stored, then `m.any()` / `m.all()` of the stored row: the reduction runs in
/// the map's loop, which stores 0/1 bytes; without the store the masks reduce in vectors.
#[test]
fn any_all_of_masks_with_and_without_a_stored_map() {
    for op in [ReduceOp::Any, ReduceOp::All] {
        for stored in [true, false] {
            let mut k = Kernel::default();
            let x = k.buffer(Scalar::I32, InnerAccess::Strided);
            let m = k.buffer(Scalar::Bool, InnerAccess::Strided);
            let out = k.buffer(Scalar::Bool, InnerAccess::Row);
            let lx = k.load(x);
            let t = k.constant(Const::Int(5), Scalar::I32);
            let gt = k.binary(BinaryOp::Gt, lx, t);
            let value = if stored {
                k.stages.push(Stage::Map {
                    buffer: m,
                    value: gt,
                });
                k.load(m)
            } else {
                gt
            };
            k.stages.push(Stage::Reduce { op, value });
            let r = k.stage_result(k.stages.len() - 1);
            k.stages.push(Stage::RowStore {
                buffer: out,
                value: r,
            });
            let mut jit = Jit::new().unwrap();
            let id = jit.add(&k).unwrap();
            jit.finalize().unwrap();
            assert!(jit.scalar_fallbacks().is_empty());
            let f = jit.get(id);
            for n in LENGTHS {
                for hit in [None, Some(0), Some(n / 2), Some(n.saturating_sub(1))] {
                    // All small but `hit` (any), or all large but `hit` (all).
                    let mut xs: Vec<i32> = vec![if op == ReduceOp::Any { 1 } else { 9 }; n];
                    if let Some(h) = hit.filter(|&h| h < n) {
                        xs[h] = if op == ReduceOp::Any { 9 } else { 1 };
                    }
                    // A guard byte after the stored row: the map writes n bytes, no more.
                    let mut ms = vec![7u8; n + 16];
                    let mut o = [7u8; 1];
                    let ops = [
                        Operand {
                            base: xs.as_mut_ptr() as *mut u8,
                            strides: vec![4].into(),
                        },
                        Operand {
                            base: ms.as_mut_ptr(),
                            strides: vec![1].into(),
                        },
                        Operand {
                            base: o.as_mut_ptr(),
                            strides: vec![0].into(),
                        },
                    ];
                    unsafe { launch(f, &[n], &ops, 0, true) };
                    let bools: Vec<bool> = xs.iter().map(|&v| v > 5).collect();
                    let want = match op {
                        ReduceOp::Any => bools.iter().any(|&b| b),
                        _ => bools.iter().all(|&b| b),
                    };
                    assert_eq!(o[0], want as u8, "{op:?} stored={stored} n={n} hit={hit:?}");
                    if stored {
                        let bytes: Vec<u8> = bools.iter().map(|&b| b as u8).collect();
                        assert_eq!(&ms[..n], &bytes[..]);
                    }
                    assert!(ms[n..].iter().all(|&b| b == 7), "wrote past the row");
                }
            }
        }
    }
}
