//! `gather` and `scatter_add` as an extern step. Both pair an *indexed* array (the data of a
//! gather, the result of a scatter-add), of shape `pre + indexed + post`, with a *moved* one
//! of shape `pre + B + post`. Every index is read once, wrapped and checked against its axis
//! before any element moves (NumPy's `IndexError` message, never an access outside an array);
//! then elements are copied (gather) or added in row-major order, so a repeated position
//! accumulates as `np.add.at` does (scatter-add).

use crate::kernel::Scalar;
use crate::Error;
use ember_core::interp::index_error;
use ember_core::views::{self, Layout};

/// An operand as the runtime resolves it: data pointer, dtype, layout in elements.
pub(crate) type Operand = (*mut u8, Scalar, Layout);

/// `out = gather(inputs[0], inputs[1..])` from `axis` on, or (`scatter`) zeros with
/// `inputs[0]` added at those positions.
///
/// # Safety
/// Every pointer and layout must describe a valid array of its dtype; the index arrays must be
/// integers whose shapes broadcast to `B`, the other shapes as the op's type rule gives; `out`
/// must be writable, of the first operand's dtype, and overlap no operand.
pub(crate) unsafe fn run(
    scatter: bool,
    axis: usize,
    inputs: &[Operand],
    (out, lo): (*mut u8, &Layout),
) -> Result<(), Error> {
    let (first, dtype, lf) = &inputs[0];
    let k = inputs.len() - 1;
    let (indexed, moved) = if scatter { (lo, lf) } else { (lf, lo) };
    let nb = moved.shape.len() + k - indexed.shape.len();
    let b = &moved.shape[axis..axis + nb];
    // SAFETY: the caller's contract for the index arrays.
    let targets = unsafe { index_offsets(&inputs[1..], b, indexed, axis) }?;
    let pre = offsets(
        &indexed.shape[..axis],
        &indexed.strides[..axis],
        &moved.strides[..axis],
    );
    let b_strides = &moved.strides[axis..axis + nb];
    let sources = offsets(b, b_strides, b_strides);
    let post_dims = &indexed.shape[axis + k..];
    let (run_len, run_i, run_m, outer) = match post_dims.split_last() {
        Some((&n, rest)) => (
            n,
            *indexed.strides.last().expect("a post axis"),
            *moved.strides.last().expect("a post axis"),
            offsets(
                rest,
                &indexed.strides[axis + k..indexed.shape.len() - 1],
                &moved.strides[axis + nb..moved.shape.len() - 1],
            ),
        ),
        None => (1, 0, 0, vec![(0, 0)]),
    };
    let walk = Walk {
        pre,
        targets,
        sources: sources.into_iter().map(|(_, m)| m).collect(),
        outer,
        run: (run_len, run_i, run_m),
    };
    // SAFETY: every offset the walk produces is inside both layouts' shapes, the indexed ones
    // checked above.
    unsafe {
        if scatter {
            zero(*dtype, out, lo);
            scatter_typed(*dtype, &walk, (out, lo.offset), (*first, lf.offset));
        } else {
            gather_sized(dtype.size(), &walk, (*first, lf.offset), (out, lo.offset));
        }
    }
    Ok(())
}

/// The positions an extern step visits, in elements: `pre` pairs (indexed, moved) over the
/// leading axes, one indexed offset per position of `B` (`targets`) with its moved offset
/// (`sources`), `outer` pairs over the trailing axes but the last, and the last axis as a run
/// `(length, indexed stride, moved stride)`.
struct Walk {
    pre: Vec<(isize, isize)>,
    targets: Vec<isize>,
    sources: Vec<isize>,
    outer: Vec<(isize, isize)>,
    run: (usize, isize, isize),
}

impl Walk {
    /// Calls `f(indexed, moved)` for every element, in the moved array's row-major order.
    fn each(&self, mut f: impl FnMut(isize, isize)) {
        let (n, si, sm) = self.run;
        for &(pi, pm) in &self.pre {
            for (&t, &s) in self.targets.iter().zip(&self.sources) {
                for &(oi, om) in &self.outer {
                    let (i0, m0) = (pi + t + oi, pm + s + om);
                    for r in 0..n as isize {
                        f(i0 + r * si, m0 + r * sm);
                    }
                }
            }
        }
    }
}

/// Row-major offsets of `shape` in two layouts of it (strides `a` and `b`).
fn offsets(shape: &[usize], a: &[isize], b: &[isize]) -> Vec<(isize, isize)> {
    let mut out = vec![(0isize, 0isize)];
    for (d, &n) in shape.iter().enumerate() {
        out = out
            .iter()
            .flat_map(|&(x, y)| (0..n as isize).map(move |i| (x + i * a[d], y + i * b[d])))
            .collect();
    }
    out
}

/// Per position of `B` (row-major), the offset in `indexed` of the element the index arrays
/// name on the axes `axis..`, each index wrapped when negative and checked against its axis.
///
/// # Safety
/// The index operands must be valid integer arrays whose shapes broadcast to `b`.
unsafe fn index_offsets(
    indices: &[Operand],
    b: &[usize],
    indexed: &Layout,
    axis: usize,
) -> Result<Vec<isize>, Error> {
    let count: usize = b.iter().product();
    let mut out = vec![0isize; count];
    for (j, (ptr, dtype, layout)) in indices.iter().enumerate() {
        let size = indexed.shape[axis + j];
        let stride = indexed.strides[axis + j];
        let spread = views::broadcast(layout, b)
            .ok_or_else(|| Error::Codegen("index arrays that do not broadcast".into()))?;
        let at = offsets(b, &spread.strides, &spread.strides);
        for (slot, (p, _)) in out.iter_mut().zip(at) {
            // SAFETY: `p` is a position of the broadcast layout, inside the index array.
            let i = unsafe { read_index(*ptr, *dtype, spread.offset + p) }?;
            let wrapped = if i < 0 { i + size as i128 } else { i };
            if !(0..size as i128).contains(&wrapped) {
                return Err(Error::Index(index_error(i, axis + j, size)));
            }
            *slot += wrapped as isize * stride;
        }
    }
    Ok(out)
}

/// The integer at element `at` of an index array.
///
/// # Safety
/// `ptr` must point to an array of `dtype` holding element `at`.
unsafe fn read_index(ptr: *mut u8, dtype: Scalar, at: isize) -> Result<i128, Error> {
    // SAFETY: the caller's contract, read with the element type of `dtype`.
    unsafe {
        Ok(match dtype {
            Scalar::I8 => i128::from(*(ptr as *const i8).offset(at)),
            Scalar::I16 => i128::from(*(ptr as *const i16).offset(at)),
            Scalar::I32 => i128::from(*(ptr as *const i32).offset(at)),
            Scalar::I64 => i128::from(*(ptr as *const i64).offset(at)),
            Scalar::U8 => i128::from(*ptr.offset(at)),
            Scalar::U16 => i128::from(*(ptr as *const u16).offset(at)),
            Scalar::U32 => i128::from(*(ptr as *const u32).offset(at)),
            Scalar::U64 => i128::from(*(ptr as *const u64).offset(at)),
            Scalar::Bool | Scalar::F32 | Scalar::F64 => {
                return Err(Error::Codegen(format!("index array of {dtype:?}")))
            }
        })
    }
}

/// Gathered elements are copied as bits of their size.
///
/// # Safety
/// As for [`run`], with the walk's offsets inside both arrays.
unsafe fn gather_sized(
    size: usize,
    walk: &Walk,
    data: (*mut u8, isize),
    out: (*mut u8, isize),
) {
    // SAFETY: the caller's contract, with an element type of the dtype's size.
    unsafe {
        match size {
            1 => copy::<u8>(walk, data, out),
            2 => copy::<u16>(walk, data, out),
            4 => copy::<u32>(walk, data, out),
            _ => copy::<u64>(walk, data, out),
        }
    }
}

/// # Safety
/// As for [`gather_sized`], `T` of the element size.
unsafe fn copy<T: Copy>(walk: &Walk, (data, di): (*mut u8, isize), (out, oi): (*mut u8, isize)) {
    let (data, out) = (data as *const T, out as *mut T);
    // SAFETY: every offset is an element of its array (the caller's contract).
    walk.each(|i, m| unsafe { *out.offset(oi + m) = *data.offset(di + i) });
}

/// An element type that scatter-add accumulates: floats add, integers wrap, bools or.
trait Accumulate: Copy {
    const ZERO: Self;
    fn accumulate(self, other: Self) -> Self;
}

macro_rules! accumulate {
    ($($t:ty => $zero:expr, $add:ident);* $(;)?) => {$(
        impl Accumulate for $t {
            const ZERO: Self = $zero;
            fn accumulate(self, other: Self) -> Self {
                accumulate!(@ $add self other)
            }
        }
    )*};
    (@ wrapping $a:ident $b:ident) => { $a.wrapping_add($b) };
    (@ plus $a:ident $b:ident) => { $a + $b };
    (@ or $a:ident $b:ident) => { $a | $b };
}

accumulate! {
    bool => false, or;
    i8 => 0, wrapping;
    i16 => 0, wrapping;
    i32 => 0, wrapping;
    i64 => 0, wrapping;
    u8 => 0, wrapping;
    u16 => 0, wrapping;
    u32 => 0, wrapping;
    u64 => 0, wrapping;
    f32 => 0.0, plus;
    f64 => 0.0, plus;
}

macro_rules! by_dtype {
    ($dtype:expr, $f:ident($($arg:expr),*)) => {
        match $dtype {
            Scalar::Bool => $f::<bool>($($arg),*),
            Scalar::I8 => $f::<i8>($($arg),*),
            Scalar::I16 => $f::<i16>($($arg),*),
            Scalar::I32 => $f::<i32>($($arg),*),
            Scalar::I64 => $f::<i64>($($arg),*),
            Scalar::U8 => $f::<u8>($($arg),*),
            Scalar::U16 => $f::<u16>($($arg),*),
            Scalar::U32 => $f::<u32>($($arg),*),
            Scalar::U64 => $f::<u64>($($arg),*),
            Scalar::F32 => $f::<f32>($($arg),*),
            Scalar::F64 => $f::<f64>($($arg),*),
        }
    };
}

/// Zeros into every element of `out`.
///
/// # Safety
/// `out` must be a writable array of `dtype` with layout `lo`.
unsafe fn zero(dtype: Scalar, out: *mut u8, lo: &Layout) {
    /// # Safety
    /// As for [`zero`], `T` of `dtype`.
    unsafe fn typed<T: Accumulate>(out: *mut u8, lo: &Layout) {
        let out = out as *mut T;
        for p in lo.positions() {
            // SAFETY: `p` is an element of `out`.
            unsafe { *out.offset(p) = T::ZERO };
        }
    }
    // SAFETY: the caller's contract.
    unsafe { by_dtype!(dtype, typed(out, lo)) }
}

/// `out[indexed] += updates[moved]` for every pair of the walk, in order.
///
/// # Safety
/// As for [`run`], `out` and `updates` of `dtype`.
unsafe fn scatter_typed(
    dtype: Scalar,
    walk: &Walk,
    out: (*mut u8, isize),
    updates: (*mut u8, isize),
) {
    /// # Safety
    /// As for [`scatter_typed`], `T` of `dtype`.
    unsafe fn typed<T: Accumulate>(
        walk: &Walk,
        (out, oi): (*mut u8, isize),
        (updates, ui): (*mut u8, isize),
    ) {
        let (out, updates) = (out as *mut T, updates as *const T);
        // SAFETY: every offset is an element of its array (the caller's contract).
        walk.each(|i, m| unsafe {
            let at = out.offset(oi + i);
            *at = (*at).accumulate(*updates.offset(ui + m));
        });
    }
    // SAFETY: the caller's contract.
    unsafe { by_dtype!(dtype, typed(walk, out, updates)) }
}
