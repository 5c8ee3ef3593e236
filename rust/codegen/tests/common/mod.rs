//! Differential testing: the JIT against `ember_core::interp::run` on the same graph, with
//! inputs laid out contiguously, transposed, reversed and strided.

#![allow(dead_code)]

use ember_codegen::{compile, ArrayView, ArrayViewMut, CompiledGraph, Options};
use ember_core::interp::{Data, HostArray};
use ember_core::ir::{parse, DType};

/// A tiny deterministic generator (xorshift), so failures reproduce.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    pub fn float(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Random contents for an input of `dtype` and `shape`.
pub fn random_array(rng: &mut Rng, dtype: DType, shape: &[usize]) -> HostArray {
    let n: usize = shape.iter().product();
    let data = match dtype {
        DType::Bool => Data::Bool((0..n).map(|_| rng.below(2) == 1).collect()),
        DType::I32 => Data::I32((0..n).map(|_| rng.below(41) as i32 - 20).collect()),
        DType::I64 => Data::I64((0..n).map(|_| rng.below(2001) as i64 - 1000).collect()),
        DType::F32 => Data::F32((0..n).map(|_| (rng.float() * 8.0 - 4.0) as f32).collect()),
        DType::F64 => Data::F64((0..n).map(|_| rng.float() * 8.0 - 4.0).collect()),
        other => panic!("no generator for {other}"),
    };
    HostArray::new(shape.to_vec(), data).unwrap()
}

fn elem_bytes(a: &HostArray) -> (Vec<u8>, usize) {
    match &a.data {
        Data::Bool(v) => (v.iter().map(|&b| b as u8).collect(), 1),
        Data::I32(v) => (v.iter().flat_map(|x| x.to_ne_bytes()).collect(), 4),
        Data::I64(v) => (v.iter().flat_map(|x| x.to_ne_bytes()).collect(), 8),
        Data::F32(v) => (v.iter().flat_map(|x| x.to_ne_bytes()).collect(), 4),
        Data::F64(v) => (v.iter().flat_map(|x| x.to_ne_bytes()).collect(), 8),
        _ => panic!("unsupported dtype"),
    }
}

fn from_bytes(dtype: DType, shape: &[usize], b: &[u8]) -> HostArray {
    let data = match dtype {
        DType::Bool => Data::Bool(b.iter().map(|&x| x != 0).collect()),
        DType::I32 => Data::I32(
            b.chunks(4)
                .map(|c| i32::from_ne_bytes(c.try_into().unwrap()))
                .collect(),
        ),
        DType::I64 => Data::I64(
            b.chunks(8)
                .map(|c| i64::from_ne_bytes(c.try_into().unwrap()))
                .collect(),
        ),
        DType::F32 => Data::F32(
            b.chunks(4)
                .map(|c| f32::from_ne_bytes(c.try_into().unwrap()))
                .collect(),
        ),
        DType::F64 => Data::F64(
            b.chunks(8)
                .map(|c| f64::from_ne_bytes(c.try_into().unwrap()))
                .collect(),
        ),
        _ => panic!("unsupported dtype"),
    };
    HostArray::new(shape.to_vec(), data).unwrap()
}

/// The bytes of 8-byte aligned storage (every dtype's alignment).
fn bytes_of(words: &mut [u64]) -> &mut [u8] {
    // SAFETY: u8 has no alignment or validity requirements; the length covers the words.
    unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr() as *mut u8, words.len() * 8) }
}

/// How an input is laid out in memory.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Layout {
    /// Row-major.
    C,
    /// Column-major (a transpose's layout).
    F,
    /// Row-major with the last axis reversed (negative stride).
    Reversed,
    /// Every other element of a twice-as-long last axis (a step-2 slice).
    Strided,
}

/// A buffer holding `a` in `layout`: (bytes, offset of element 0, byte strides).
fn lay_out(a: &HostArray, layout: Layout) -> (Vec<u64>, usize, Vec<isize>) {
    let (bytes, size) = elem_bytes(a);
    let shape = &a.shape;
    let nd = shape.len();
    let n: usize = shape.iter().product();
    let mut c_strides = vec![1isize; nd];
    for i in (0..nd.saturating_sub(1)).rev() {
        c_strides[i] = c_strides[i + 1] * shape[i + 1] as isize;
    }
    let (strides, span, offset): (Vec<isize>, usize, isize) = match layout {
        Layout::C => (c_strides.clone(), n, 0),
        Layout::F => {
            let mut f = vec![1isize; nd];
            for i in 1..nd {
                f[i] = f[i - 1] * shape[i - 1] as isize;
            }
            (f, n, 0)
        }
        Layout::Reversed => {
            let mut s = c_strides.clone();
            let mut off = 0;
            if nd > 0 && shape[nd - 1] > 0 {
                s[nd - 1] = -1;
                off = shape[nd - 1] as isize - 1;
            }
            (s, n, off)
        }
        Layout::Strided => (c_strides.iter().map(|s| s * 2).collect(), 2 * n, 0),
    };
    let mut words = vec![0xAAAA_AAAA_AAAA_AAAAu64; (span.max(1) * size).div_ceil(8)];
    let buf = bytes_of(&mut words);
    let mut idx = vec![0usize; nd];
    for i in 0..n {
        let pos: isize = offset
            + idx
                .iter()
                .zip(&strides)
                .map(|(&k, &s)| k as isize * s)
                .sum::<isize>();
        let p = pos as usize * size;
        buf[p..p + size].copy_from_slice(&bytes[i * size..(i + 1) * size]);
        for d in (0..nd).rev() {
            idx[d] += 1;
            if idx[d] < shape[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    (
        words,
        offset as usize * size,
        strides.iter().map(|s| s * size as isize).collect(),
    )
}

/// Whether two results agree: same dtype and shape, floats within `rtol`, NaN where NaN.
pub fn assert_close(got: &HostArray, want: &HostArray, rtol: f64, what: &str) {
    assert_eq!(got.shape, want.shape, "{what}: shape");
    assert_eq!(got.dtype(), want.dtype(), "{what}: dtype");
    let (g, w) = (got.elems(), want.elems());
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        use ember_core::interp::Elem;
        let ok = match (a, b) {
            (Elem::F(x), Elem::F(y)) => {
                (x.is_nan() && y.is_nan()) || x == y || (x - y).abs() <= rtol * y.abs().max(1.0)
            }
            _ => a == b,
        };
        assert!(ok, "{what}: element {i}: jit {a:?} vs interpreter {b:?}");
    }
}

/// Compiles `ir`, runs it on `inputs` laid out as `layout` with `threads`, and compares with
/// the interpreter. Returns the JIT's results.
pub fn check_ir(
    ir: &str,
    inputs: &[HostArray],
    layout: Layout,
    threads: usize,
    rtol: f64,
) -> Vec<HostArray> {
    let g = parse(ir).unwrap_or_else(|e| panic!("{e}\n{ir}"));
    let want = ember_core::interp::run(&g, inputs).unwrap_or_else(|e| panic!("interp: {e}\n{ir}"));
    let got = run_jit(ir, inputs, layout, threads).unwrap_or_else(|e| panic!("run: {e}\n{ir}"));
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_close(g, w, rtol, &format!("result {i} ({layout:?}) of\n{ir}"));
    }
    got
}

/// Compiles `ir` and runs it on `inputs` laid out as `layout` with `threads` (compile
/// failures panic; run failures are returned).
pub fn run_jit(
    ir: &str,
    inputs: &[HostArray],
    layout: Layout,
    threads: usize,
) -> Result<Vec<HostArray>, ember_codegen::Error> {
    let g = parse(ir).unwrap_or_else(|e| panic!("{e}\n{ir}"));
    let cg = compile(
        &g,
        &Options {
            num_threads: threads,
        },
    )
    .unwrap_or_else(|e| panic!("compile: {e}\n{ir}"));
    let shapes: Vec<Vec<usize>> = cg
        .output_types()
        .iter()
        .map(|t| t.static_shape().unwrap())
        .collect();
    run_compiled(&cg, inputs, layout, &shapes)
}

/// Runs a compiled graph on `inputs` laid out as `layout`, into C-contiguous outputs of
/// `out_shapes` (a graph with symbolic dims takes any shapes that bind its symbols).
pub fn run_compiled(
    cg: &CompiledGraph,
    inputs: &[HostArray],
    layout: Layout,
    out_shapes: &[Vec<usize>],
) -> Result<Vec<HostArray>, ember_codegen::Error> {
    let mut bufs: Vec<(Vec<u64>, usize, Vec<isize>)> =
        inputs.iter().map(|a| lay_out(a, layout)).collect();
    let views: Vec<ArrayView> = inputs
        .iter()
        .zip(bufs.iter_mut())
        .map(|(a, (b, off, strides))| unsafe {
            ArrayView::new(
                (b.as_ptr() as *const u8).add(*off),
                a.dtype(),
                a.shape.clone(),
                strides.clone(),
            )
        })
        .collect();
    let out_types: Vec<(DType, Vec<usize>)> = cg
        .output_types()
        .iter()
        .zip(out_shapes)
        .map(|(t, s)| (t.dtype, s.clone()))
        .collect();
    let mut outs: Vec<Vec<u64>> = out_types
        .iter()
        .map(|(dtype, shape)| {
            let n: usize = shape.iter().product();
            vec![0x5555_5555_5555_5555u64; (n * dsize(*dtype)).div_ceil(8)]
        })
        .collect();
    let out_views: Vec<ArrayViewMut> = out_types
        .iter()
        .zip(outs.iter_mut())
        .map(|((dtype, shape), b)| {
            let shape = shape.clone();
            let mut strides = vec![dsize(*dtype) as isize; shape.len()];
            for i in (0..shape.len().saturating_sub(1)).rev() {
                strides[i] = strides[i + 1] * shape[i + 1] as isize;
            }
            unsafe { ArrayViewMut::new(b.as_mut_ptr() as *mut u8, *dtype, shape, strides) }
        })
        .collect();
    cg.run(&views, &out_views)?;
    let got: Vec<HostArray> = out_types
        .iter()
        .zip(&outs)
        .map(|((dtype, shape), b)| {
            let n: usize = shape.iter().product();
            from_bytes(
                *dtype,
                shape,
                &bytes_of(&mut b.clone())[..n * dsize(*dtype)],
            )
        })
        .collect();
    Ok(got)
}

pub fn dsize(d: DType) -> usize {
    match d {
        DType::Bool => 1,
        DType::I32 | DType::F32 => 4,
        _ => 8,
    }
}

/// Runs `ir` with random inputs in every layout, single- and multi-threaded.
pub fn check_all_layouts(ir: &str, seed: u64, rtol: f64) {
    let g = parse(ir).unwrap_or_else(|e| panic!("{e}\n{ir}"));
    let mut rng = Rng(seed | 1);
    let inputs: Vec<HostArray> = g
        .params
        .iter()
        .map(|t| random_array(&mut rng, t.dtype, &t.static_shape().unwrap()))
        .collect();
    for layout in [Layout::C, Layout::F, Layout::Reversed, Layout::Strided] {
        check_ir(ir, &inputs, layout, 1, rtol);
    }
    check_ir(ir, &inputs, Layout::C, 0, rtol);
}
