//! Small float products that no BLAS takes (none registered, or a layout it refuses, such
//! as a reversed or broadcast axis). The `gemm` crate spends a fixed few
//! hundred nanoseconds per call (packing buffers, blocking and thread decisions) before its
//! first multiply, more than a 4 x 4 product takes, and a batch of small products pays it per
//! matrix. Here the product runs as a register-tiled loop on the calling thread: `B` is read
//! in column panels `NR` wide (in place where contiguous, else from a zero-padded copy), and
//! each `MR x NR` tile of the output accumulates in registers over the whole `k` (in order,
//! one rounding per multiply-add, as BLAS kernels do), then is stored through the output's
//! strides. NumPy's OpenBLAS has small-matrix kernels of its own that beat this loop at every
//! size measured (`benches/matmul.py`), so where it is registered it takes every product.

use super::Product;
use crate::kernel::Scalar;
use std::cell::RefCell;
use std::ops::{Add, Mul};

/// Rows of the output per tile: each packed `B` element loaded is used `MR` times.
const MR: usize = 4;

/// Largest product taken here, in multiply-adds including tile padding. Above it the `gemm`
/// crate's wider kernels win back their fixed cost.
pub(super) const MAX_WORK: usize = 16 * 16 * 16;

thread_local! {
    /// Packed `B` panels, reused across calls so that a product allocates nothing.
    static PANELS: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

/// A float element: `f32` or `f64`.
trait Element: Copy + Add<Output = Self> + Mul<Output = Self> {
    const ZERO: Self;
}

impl Element for f32 {
    const ZERO: Self = 0.0;
}

impl Element for f64 {
    const ZERO: Self = 0.0;
}

/// One `MR x NR` tile of the output: row pointers into `A` (each row's elements `acs`
/// apart), a panel of `B` (`k` rows of `NR` contiguous elements, `brs` apart), and the sums.
type Tile<T, const NR: usize> =
    unsafe fn(&[*const T; MR], isize, *const T, isize, usize, &mut [[T; NR]; MR]);

/// [`Tile`] in portable code: one rounding for the product and one for the sum.
///
/// # Safety
/// Every row pointer must address `k` elements `acs` apart, and the panel `k` rows of `NR`.
unsafe fn portable_tile<T: Element, const NR: usize>(
    rows: &[*const T; MR],
    acs: isize,
    panel: *const T,
    brs: isize,
    k: usize,
    out: &mut [[T; NR]; MR],
) {
    *out = [[T::ZERO; NR]; MR];
    for q in 0..k as isize {
        // SAFETY: row q of the panel holds NR elements (the caller's contract).
        let bv = unsafe { &*(panel.offset(q * brs) as *const [T; NR]) };
        for (row, sums) in rows.iter().zip(out.iter_mut()) {
            // SAFETY: element q of the row exists.
            let x = unsafe { *row.offset(q * acs) };
            for (s, &y) in sums.iter_mut().zip(bv) {
                *s = x * y + *s;
            }
        }
    }
}

/// [`Tile`] in AVX2 registers with fused multiply-adds: two vectors per row, four rows.
#[cfg(target_arch = "x86_64")]
macro_rules! avx2_tile {
    ($name:ident, $t:ty, $nr:expr, $lanes:expr, $zero:ident, $load:ident, $set1:ident, $fmadd:ident, $store:ident) => {
        /// # Safety
        /// The CPU must support AVX2 and FMA; the rest as for `portable_tile`.
        #[target_feature(enable = "avx2,fma")]
        unsafe fn $name(
            rows: &[*const $t; MR],
            acs: isize,
            panel: *const $t,
            brs: isize,
            k: usize,
            out: &mut [[$t; $nr]; MR],
        ) {
            use std::arch::x86_64::*;
            let mut c = [[$zero(); 2]; MR];
            for q in 0..k as isize {
                // SAFETY: panel row q holds two vectors; row elements as the caller guarantees.
                unsafe {
                    let bv = panel.offset(q * brs);
                    let b0 = $load(bv);
                    let b1 = $load(bv.add($lanes));
                    for (row, sums) in rows.iter().zip(c.iter_mut()) {
                        let x = $set1(*row.offset(q * acs));
                        sums[0] = $fmadd(x, b0, sums[0]);
                        sums[1] = $fmadd(x, b1, sums[1]);
                    }
                }
            }
            for (sums, dst) in c.iter().zip(out.iter_mut()) {
                // SAFETY: each output row holds two vectors.
                unsafe {
                    $store(dst.as_mut_ptr(), sums[0]);
                    $store(dst.as_mut_ptr().add($lanes), sums[1]);
                }
            }
        }
    };
}

#[cfg(target_arch = "x86_64")]
avx2_tile!(
    avx2_tile_f32,
    f32,
    16,
    8,
    _mm256_setzero_ps,
    _mm256_loadu_ps,
    _mm256_set1_ps,
    _mm256_fmadd_ps,
    _mm256_storeu_ps
);
#[cfg(target_arch = "x86_64")]
avx2_tile!(
    avx2_tile_f64,
    f64,
    8,
    4,
    _mm256_setzero_pd,
    _mm256_loadu_pd,
    _mm256_set1_pd,
    _mm256_fmadd_pd,
    _mm256_storeu_pd
);

/// Whether the AVX2 tiles can run here.
#[cfg(target_arch = "x86_64")]
fn has_avx2_fma() -> bool {
    std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
}

/// Multiply-adds the tiled loop would execute for an `m x n` output with inner extent `k`.
fn padded_work(m: usize, n: usize, k: usize, nr: usize) -> usize {
    m.next_multiple_of(MR)
        .saturating_mul(n.next_multiple_of(nr))
        .saturating_mul(k)
}

/// `p` with the roles of rows and columns exchanged: `C^T = B^T A^T`.
fn transposed(p: &Product) -> Product {
    let swap = |(r, c): (isize, isize)| (c, r);
    Product {
        m: p.n,
        n: p.m,
        k: p.k,
        a: p.b,
        a_strides: swap(p.b_strides),
        b: p.a,
        b_strides: swap(p.a_strides),
        o: p.o,
        o_strides: swap(p.o_strides),
    }
}

/// Runs `p` here if it is a small float product; false leaves `p` untouched.
///
/// # Safety
/// `p` must describe valid matrices of `dtype`, the output not overlapping the operands.
pub(super) unsafe fn product(dtype: Scalar, p: &Product) -> bool {
    #[cfg(target_arch = "x86_64")]
    if has_avx2_fma() {
        // SAFETY: the caller's contract; the CPU has the features the tiles use.
        return unsafe {
            match dtype {
                Scalar::F32 => oriented::<f32, 16>(p, avx2_tile_f32),
                Scalar::F64 => oriented::<f64, 8>(p, avx2_tile_f64),
                _ => false,
            }
        };
    }
    // SAFETY: the caller's contract.
    unsafe {
        match dtype {
            Scalar::F32 => oriented::<f32, 16>(p, portable_tile::<f32, 16>),
            Scalar::F64 => oriented::<f64, 8>(p, portable_tile::<f64, 8>),
            _ => false,
        }
    }
}

/// Runs `p` in whichever orientation pads less (a matrix-vector product puts the long side
/// along the panels), if that is small enough.
///
/// # Safety
/// As for [`product`], with `T` the dtype and `tile` runnable on this CPU.
unsafe fn oriented<T: Element, const NR: usize>(p: &Product, tile: Tile<T, NR>) -> bool {
    // The empty sum stays with the general path, which writes its zeros.
    if p.k == 0 {
        return false;
    }
    let t = transposed(p);
    let (work, work_t) = (
        padded_work(p.m, p.n, p.k, NR),
        padded_work(t.m, t.n, t.k, NR),
    );
    let p = if work_t < work { &t } else { p };
    if work.min(work_t) > MAX_WORK {
        return false;
    }
    if p.m == 0 || p.n == 0 {
        return true;
    }
    let mut buf = PANELS.take();
    // SAFETY: the caller's contract.
    unsafe { tiles::<T, NR>(p, &mut buf, tile) };
    PANELS.set(buf);
    true
}

/// The tiled product: runs `tile` over every `MR x NR` block of the output, reading `B`'s
/// rows in place where a whole panel of them is contiguous, else from a zero-padded copy.
///
/// # Safety
/// `p` must describe valid `m x k`, `k x n`, `m x n` matrices of `T` (strides in elements,
/// `m, n, k > 0`); the output must not overlap the operands; `tile` must run on this CPU.
unsafe fn tiles<T: Element, const NR: usize>(p: &Product, buf: &mut Vec<u64>, tile: Tile<T, NR>) {
    let (m, n, k) = (p.m, p.n, p.k);
    let (a, (ars, acs)) = (p.a as *const T, p.a_strides);
    let (b, (brs, bcs)) = (p.b as *const T, p.b_strides);
    let (o, (ors, ocs)) = (p.o as *mut T, p.o_strides);
    let words = (k * NR * size_of::<T>()).div_ceil(8);
    if buf.len() < words {
        buf.resize(words, 0);
    }
    let packed = buf.as_mut_ptr() as *mut T;
    for j0 in (0..n).step_by(NR) {
        let cols = (n - j0).min(NR);
        let (panel, stride) = if cols == NR && bcs == 1 {
            (b.wrapping_offset(j0 as isize * bcs), brs)
        } else {
            for q in 0..k {
                for c in 0..NR {
                    let x = if c < cols {
                        // SAFETY: (q, j0 + c) is inside the k x n matrix B.
                        unsafe { *b.offset(q as isize * brs + (j0 + c) as isize * bcs) }
                    } else {
                        T::ZERO
                    };
                    // SAFETY: the buffer holds k x NR elements (8-byte words suit f32, f64).
                    unsafe { *packed.add(q * NR + c) = x };
                }
            }
            (packed as *const T, NR as isize)
        };
        for i0 in (0..m).step_by(MR) {
            // Rows past the end repeat the last row; their sums are never stored.
            let rows: [*const T; MR] =
                std::array::from_fn(|r| a.wrapping_offset((i0 + r).min(m - 1) as isize * ars));
            let mut acc = [[T::ZERO; NR]; MR];
            // SAFETY: the clamped rows are rows of A with k elements each; the panel has k
            // rows of NR elements `stride` apart.
            unsafe { tile(&rows, acs, panel, stride, k, &mut acc) };
            for (r, acc_row) in acc.iter().enumerate().take(m - i0) {
                let dst = o.wrapping_offset((i0 + r) as isize * ors + j0 as isize * ocs);
                if ocs == 1 && cols == NR {
                    // SAFETY: columns j0..j0 + NR of row i0 + r are inside the output and
                    // contiguous.
                    unsafe { std::ptr::write_unaligned(dst as *mut [T; NR], *acc_row) };
                    continue;
                }
                for (c, &s) in acc_row.iter().enumerate().take(cols) {
                    // SAFETY: (i0 + r, j0 + c) is inside the m x n output.
                    unsafe { *dst.offset(c as isize * ocs) = s };
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic values in [-1, 1).
    fn values(n: usize, seed: usize) -> Vec<f64> {
        (0..n)
            .map(|i| ((i * 7919 + seed * 104_729) % 2001) as f64 / 1000.0 - 1.0)
            .collect()
    }

    /// Runs an m x k by k x n product through `run` with every operand stored row-major or
    /// transposed, against a sum in f64.
    fn check<T: Copy + Into<f64>>(from: fn(f64) -> T, run: unsafe fn(&Product) -> bool, tol: f64) {
        for (m, n, k) in [
            (1, 1, 1),
            (4, 4, 4),
            (3, 17, 5),
            (9, 1, 7),
            (1, 9, 7),
            (16, 16, 16),
            (4, 32, 1),
        ] {
            for layout in 0..8 {
                let (ta, tb, to) = (layout & 1 != 0, layout & 2 != 0, layout & 4 != 0);
                let a: Vec<T> = values(m * k, 1).into_iter().map(from).collect();
                let b: Vec<T> = values(k * n, 2).into_iter().map(from).collect();
                let mut o: Vec<T> = vec![from(f64::NAN); m * n];
                let st = |t: bool, r: usize, c: usize| {
                    if t {
                        (1, r as isize)
                    } else {
                        (c as isize, 1)
                    }
                };
                let p = Product {
                    m,
                    n,
                    k,
                    a: a.as_ptr() as *mut u8,
                    a_strides: st(ta, m, k),
                    b: b.as_ptr() as *mut u8,
                    b_strides: st(tb, k, n),
                    o: o.as_mut_ptr() as *mut u8,
                    o_strides: st(to, m, n),
                };
                // SAFETY: the buffers hold the m x k, k x n and m x n matrices the strides
                // describe.
                assert!(unsafe { run(&p) }, "{m}x{n}x{k} taken");
                let at = |v: &[T], (rs, cs): (isize, isize), i: usize, j: usize| -> f64 {
                    v[(i as isize * rs + j as isize * cs) as usize].into()
                };
                for i in 0..m {
                    for j in 0..n {
                        let want: f64 = (0..k)
                            .map(|q| at(&a, p.a_strides, i, q) * at(&b, p.b_strides, q, j))
                            .sum();
                        let got = at(&o, p.o_strides, i, j);
                        assert!(
                            (got - want).abs() <= tol * k as f64,
                            "{m}x{n}x{k} layout {layout} ({i}, {j}): {got} vs {want}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn small_products_match_a_sum_in_f64_for_every_layout() {
        // SAFETY (both): `check` hands over products over its own buffers.
        check::<f32>(|x| x as f32, |p| unsafe { product(Scalar::F32, p) }, 1e-6);
        check::<f64>(|x| x, |p| unsafe { product(Scalar::F64, p) }, 1e-15);
    }

    #[test]
    fn portable_tiles_match_a_sum_in_f64_for_every_layout() {
        // SAFETY (both): as above; the portable tiles run on any CPU.
        check::<f32>(
            |x| x as f32,
            |p| unsafe { oriented::<f32, 16>(p, portable_tile) },
            1e-6,
        );
        check::<f64>(
            |x| x,
            |p| unsafe { oriented::<f64, 8>(p, portable_tile) },
            1e-15,
        );
    }

    #[test]
    fn large_products_and_integers_are_left_alone() {
        let p = Product {
            m: 17,
            n: 16,
            k: 16,
            a: std::ptr::null_mut(),
            a_strides: (16, 1),
            b: std::ptr::null_mut(),
            b_strides: (16, 1),
            o: std::ptr::null_mut(),
            o_strides: (16, 1),
        };
        // SAFETY: a product this size is refused before any pointer is read.
        assert!(!unsafe { product(Scalar::F32, &p) });
        // SAFETY: integer products are refused before any pointer is read.
        assert!(!unsafe { product(Scalar::I64, &Product { m: 2, ..p }) });
    }
}
