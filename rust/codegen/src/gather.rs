//! `gather` and `scatter_add` as an extern step. Both pair an *indexed* array (the data of a
//! gather, the result of a scatter-add), of shape `pre + indexed + post`, with a *moved* one
//! of shape `pre + B + post`. Each index is wrapped and checked against its axis before the
//! elements it names move (NumPy's `IndexError` message, never an access outside an array; the
//! result of a step that raised is never seen); elements are copied (gather) or added in the
//! moved array's row-major order, so a repeated position accumulates as `np.add.at` does.

use crate::kernel::Scalar;
use crate::kernel::ScalarExt;
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
    let (indexed, moved) = if scatter { (lo, lf) } else { (lf, lo) };
    let walk = Walk::new(indexed, moved, &inputs[1..], axis)?;
    // SAFETY: the walk yields positions inside both layouts' shapes (the indexed ones checked
    // as they are read).
    unsafe {
        if scatter {
            zero(*dtype, out, lo);
            scatter_typed(*dtype, &walk, (out, lo.offset), (*first, lf.offset))
        } else {
            gather_sized(dtype.size(), &walk, (*first, lf.offset), (out, lo.offset))
        }
    }
}

/// A row-major walk over `shape` keeping one element offset per layout (`strides[d][l]`: the
/// step of layout `l` along axis `d`). Nothing is allocated per position.
struct Cursor {
    shape: Vec<usize>,
    strides: Vec<Vec<isize>>,
    start: Vec<isize>,
    at: Vec<isize>,
    index: Vec<usize>,
    fresh: bool,
}

impl Cursor {
    fn new(shape: &[usize], layouts: &[(&[isize], isize)]) -> Cursor {
        let strides = (0..shape.len())
            .map(|d| layouts.iter().map(|(s, _)| s[d]).collect())
            .collect();
        let start: Vec<isize> = layouts.iter().map(|&(_, offset)| offset).collect();
        Cursor {
            shape: shape.to_vec(),
            strides,
            at: start.clone(),
            start,
            index: vec![0; shape.len()],
            fresh: true,
        }
    }

    /// Back to the first position, every offset moved by `base`.
    fn restart(&mut self, base: &[isize]) {
        for ((at, start), b) in self.at.iter_mut().zip(&mut self.start).zip(base) {
            *at = *b;
            *start = *b;
        }
        self.index.fill(0);
        self.fresh = true;
    }

    /// Moves to the next position; false once every position was visited.
    fn advance(&mut self) -> bool {
        if self.fresh {
            self.fresh = false;
            return !self.shape.contains(&0);
        }
        for d in (0..self.shape.len()).rev() {
            self.index[d] += 1;
            if self.index[d] < self.shape[d] {
                for (at, s) in self.at.iter_mut().zip(&self.strides[d]) {
                    *at += s;
                }
                return true;
            }
            let back = self.index[d] as isize - 1;
            for (at, s) in self.at.iter_mut().zip(&self.strides[d]) {
                *at -= back * s;
            }
            self.index[d] = 0;
        }
        false
    }
}

/// The element pairs an extern step visits, in elements: the leading axes (indexed and moved
/// offsets alike), the positions of `B` (the moved offset, and the index arrays' elements that
/// give the indexed offset), the trailing axes but the last, and the last axis as a run
/// `(length, indexed stride, moved stride)`.
struct Walk<'a> {
    pre: (Vec<usize>, Vec<isize>, Vec<isize>),
    b: Vec<usize>,
    b_strides: Vec<Vec<isize>>,
    index_starts: Vec<isize>,
    indices: &'a [Operand],
    /// Per index array: the size and indexed stride of its axis, and the axis number.
    axes: Vec<(usize, isize, usize)>,
    outer: (Vec<usize>, Vec<isize>, Vec<isize>),
    run: (usize, isize, isize),
}

impl<'a> Walk<'a> {
    fn new(
        indexed: &Layout,
        moved: &Layout,
        indices: &'a [Operand],
        axis: usize,
    ) -> Result<Walk<'a>, Error> {
        let k = indices.len();
        let nb = moved.shape.len() + k - indexed.shape.len();
        let b = moved.shape[axis..axis + nb].to_vec();
        let mut b_strides = vec![moved.strides[axis..axis + nb].to_vec()];
        let mut index_starts = Vec::with_capacity(k);
        for (_, _, layout) in indices {
            let spread = views::broadcast(layout, &b)
                .ok_or_else(|| Error::Codegen("index arrays that do not broadcast".into()))?;
            b_strides.push(spread.strides);
            index_starts.push(spread.offset);
        }
        let axes = (0..k)
            .map(|j| (indexed.shape[axis + j], indexed.strides[axis + j], axis + j))
            .collect();
        let (ni, nm) = (indexed.shape.len(), moved.shape.len());
        let (run, outer) = match indexed.shape[axis + k..].split_last() {
            Some((&n, rest)) => (
                (n, indexed.strides[ni - 1], moved.strides[nm - 1]),
                (
                    rest.to_vec(),
                    indexed.strides[axis + k..ni - 1].to_vec(),
                    moved.strides[axis + nb..nm - 1].to_vec(),
                ),
            ),
            None => ((1, 0, 0), (vec![], vec![], vec![])),
        };
        Ok(Walk {
            pre: (
                indexed.shape[..axis].to_vec(),
                indexed.strides[..axis].to_vec(),
                moved.strides[..axis].to_vec(),
            ),
            b,
            b_strides,
            index_starts,
            indices,
            axes,
            outer,
            run,
        })
    }

    /// Calls `f(indexed, moved)` for every element, in the moved array's row-major order; an
    /// index out of bounds stops the walk with NumPy's `IndexError`.
    ///
    /// # Safety
    /// The index operands must be valid integer arrays whose shapes broadcast to `B`.
    unsafe fn each(&self, f: impl FnMut(isize, isize)) -> Result<(), Error> {
        let all_i64 = self.indices.iter().all(|(_, d, _)| *d == Scalar::I64);
        // SAFETY: the caller's contract; `Int64` reads only arrays of `i64`.
        unsafe {
            if all_i64 {
                self.each_read(Int64, f)
            } else {
                self.each_read(AnyInt, f)
            }
        }
    }

    /// [`Walk::each`] with the index arrays read by `read`.
    ///
    /// # Safety
    /// As for [`Walk::each`], the index arrays of the dtypes `read` takes.
    unsafe fn each_read(
        &self,
        read: impl ReadIndex,
        mut f: impl FnMut(isize, isize),
    ) -> Result<(), Error> {
        let (n, si, sm) = self.run;
        let pair = |(shape, a, b): &(Vec<usize>, Vec<isize>, Vec<isize>)| {
            Cursor::new(shape, &[(a, 0), (b, 0)])
        };
        let mut pre = pair(&self.pre);
        // The trailing axes but the last are few positions (one, mostly): listed once.
        let mut outer = Vec::new();
        let mut trailing = pair(&self.outer);
        while trailing.advance() {
            outer.push((trailing.at[0], trailing.at[1]));
        }
        // The last axis of B is an inner loop; a cursor walks the ones before it.
        let (lead, inner) = match self.b.split_last() {
            Some((&n, lead)) => (lead, n),
            None => (&[][..], 1),
        };
        let steps: Vec<isize> = self
            .b_strides
            .iter()
            .map(|s| s.last().copied().unwrap_or(0))
            .collect();
        let layouts: Vec<(&[isize], isize)> = self
            .b_strides
            .iter()
            .zip(std::iter::once(0).chain(self.index_starts.iter().copied()))
            .map(|(s, start)| (&s[..lead.len()], start))
            .collect();
        let mut b = Cursor::new(lead, &layouts);
        // One element per position of B (no trailing axes): no inner loops.
        let single = n == 1 && outer == [(0, 0)];
        let b_start: Vec<isize> = b.start.clone();
        while pre.advance() {
            let (pi, pm) = (pre.at[0], pre.at[1]);
            b.restart(&b_start);
            while b.advance() {
                for t in 0..inner as isize {
                    let mut target = pi;
                    for (j, (ptr, dtype, _)) in self.indices.iter().enumerate() {
                        let (size, stride, axis) = self.axes[j];
                        let at = b.at[1 + j] + t * steps[1 + j];
                        // SAFETY: `at` is an element of the broadcast index array.
                        let i = unsafe { read.read(*ptr, *dtype, at) }?;
                        let wrapped = if i < 0 { i + size as i128 } else { i };
                        if !(0..size as i128).contains(&wrapped) {
                            return Err(Error::Index(index_error(i, axis, size)));
                        }
                        target += wrapped as isize * stride;
                    }
                    let source = pm + b.at[0] + t * steps[0];
                    if single {
                        f(target, source);
                        continue;
                    }
                    for &(oi, om) in &outer {
                        let (i0, m0) = (target + oi, source + om);
                        for r in 0..n as isize {
                            f(i0 + r * si, m0 + r * sm);
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// How the elements of index arrays are read: [`Int64`] (the common case, one load, no
/// branch on the dtype) or [`AnyInt`].
trait ReadIndex: Copy {
    /// The integer at element `at` of an index array of `dtype`.
    ///
    /// # Safety
    /// `ptr` must point to an array of `dtype` holding element `at`.
    unsafe fn read(self, ptr: *mut u8, dtype: Scalar, at: isize) -> Result<i128, Error>;
}

/// Index arrays that are all `i64`.
#[derive(Clone, Copy)]
struct Int64;

impl ReadIndex for Int64 {
    unsafe fn read(self, ptr: *mut u8, _: Scalar, at: isize) -> Result<i128, Error> {
        // SAFETY: the caller's contract, for an array of `i64`.
        Ok(i128::from(unsafe { *(ptr as *const i64).offset(at) }))
    }
}

/// Index arrays of any integer dtypes.
#[derive(Clone, Copy)]
struct AnyInt;

impl ReadIndex for AnyInt {
    unsafe fn read(self, ptr: *mut u8, dtype: Scalar, at: isize) -> Result<i128, Error> {
        // SAFETY: the caller's contract.
        unsafe { read_index(ptr, dtype, at) }
    }
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
) -> Result<(), Error> {
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
unsafe fn copy<T: Copy>(
    walk: &Walk,
    (data, di): (*mut u8, isize),
    (out, oi): (*mut u8, isize),
) -> Result<(), Error> {
    let (data, out) = (data as *const T, out as *mut T);
    // SAFETY: every offset is an element of its array (the caller's contract).
    unsafe { walk.each(|i, m| *out.offset(oi + m) = *data.offset(di + i)) }
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
) -> Result<(), Error> {
    /// # Safety
    /// As for [`scatter_typed`], `T` of `dtype`.
    unsafe fn typed<T: Accumulate>(
        walk: &Walk,
        (out, oi): (*mut u8, isize),
        (updates, ui): (*mut u8, isize),
    ) -> Result<(), Error> {
        let (out, updates) = (out as *mut T, updates as *const T);
        // SAFETY: every offset is an element of its array (the caller's contract).
        unsafe {
            walk.each(|i, m| {
                let at = out.offset(oi + i);
                *at = (*at).accumulate(*updates.offset(ui + m));
            })
        }
    }
    // SAFETY: the caller's contract.
    unsafe { by_dtype!(dtype, typed(walk, out, updates)) }
}
