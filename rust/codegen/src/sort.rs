//! `sort` and `argsort` as an extern step: each line along one axis of a strided input is
//! sorted in NumPy's order (numbers by value with -0.0 equal to 0.0, NaN after every number)
//! and written to the strided output: the values, or the positions they came from as `i64`.
//!
//! Where the embedder registered NumPy's own sort functions ([`register`]: the
//! `PyArray_ArrFuncs` `sort`/`argsort` entries of each dtype), a line runs through the one
//! NumPy runs for that dtype and kind, called as `np.sort`/`np.argsort` call it: on a
//! contiguous copy of the line (or the line itself where it is contiguous), positions
//! starting as `0..n`. Results are then NumPy's bit for bit, ties of the default (unstable)
//! kind included, at the speed of its SIMD sorts. Otherwise each line is sorted by Rust's
//! sorts on keys, stably: NumPy's `kind="stable"` result, a valid answer for either kind.
use crate::kernel::Scalar;
use ember_core::ir::DType;
use ember_core::views::Layout;
use std::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};

/// What a sort step computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct How {
    /// The positions (`argsort`) rather than the values.
    pub positions: bool,
    /// Ties in their input order (`kind="stable"`) rather than NumPy's default kind.
    pub stable: bool,
}

/// NumPy's `PyArray_SortFunc`: sorts `n` contiguous elements in place; 0, or negative on
/// failure (memory for a stable sort's buffer).
type SortFn = unsafe extern "C" fn(*mut c_void, isize, *mut c_void) -> i32;
/// NumPy's `PyArray_ArgSortFunc`: permutes the `n` positions (`npy_intp`) so that they sort
/// the `n` contiguous elements, which it only reads.
type ArgSortFn = unsafe extern "C" fn(*mut c_void, *mut isize, isize, *mut c_void) -> i32;

/// Slots: 11 dtypes, each with values and positions of either kind.
static LOOPS: [AtomicUsize; 44] = [const { AtomicUsize::new(0) }; 44];
static LINES: AtomicUsize = AtomicUsize::new(0);

fn slot(dtype: Scalar, how: How) -> usize {
    let d = match dtype {
        Scalar::Bool => 0,
        Scalar::I8 => 1,
        Scalar::I16 => 2,
        Scalar::I32 => 3,
        Scalar::I64 => 4,
        Scalar::U8 => 5,
        Scalar::U16 => 6,
        Scalar::U32 => 7,
        Scalar::U64 => 8,
        Scalar::F32 => 9,
        Scalar::F64 => 10,
    };
    4 * d + 2 * how.positions as usize + how.stable as usize
}

/// Registers NumPy's sort function `func` for `dtype` and `how` (its `argsort` function when
/// `how.positions`), or removes it (`func == 0`).
///
/// # Safety
/// `func` must be the `PyArray_SortFunc` (or `PyArray_ArgSortFunc`) NumPy runs for `dtype` and
/// that kind, one that ignores its array argument (the numeric dtypes' do: it is passed
/// null), callable without the GIL and loaded for the life of the process.
pub unsafe fn register(dtype: DType, how: How, func: usize) {
    if let Ok(scalar) = crate::schedule::scalar_of(dtype) {
        LOOPS[slot(scalar, how)].store(func, Ordering::Release);
    }
}

/// How many lines NumPy's registered sort functions have sorted since the process started.
pub fn numpy_lines() -> usize {
    LINES.load(Ordering::Relaxed)
}

/// An element type with a sort key in NumPy's order: integer comparisons, so the sort's
/// inner loop has no float branches.
trait Key: Copy {
    type K: Ord + Copy;
    fn key(self) -> Self::K;
    /// `line` sorted in place, as the stable sort of (key, position) pairs orders it, without
    /// the positions: values of equal keys are equal, so only their order needs keeping
    /// where they differ (zeros of either sign, NaN payloads).
    fn sort_values(line: &mut Vec<Self>);
}

macro_rules! ordered_key {
    ($t:ty) => {
        impl Key for $t {
            type K = $t;
            fn key(self) -> $t {
                self
            }
            fn sort_values(line: &mut Vec<$t>) {
                line.sort_unstable();
            }
        }
    };
}

macro_rules! float_key {
    ($t:ty, $bits:ty) => {
        impl Key for $t {
            type K = $bits;
            /// Numbers in their order with -0.0 equal to 0.0 (adding 0.0 makes it 0.0), NaN
            /// above every number: the sign-magnitude bits made one unsigned order.
            fn key(self) -> $bits {
                if self.is_nan() {
                    return <$bits>::MAX;
                }
                let bits = (self + 0.0).to_bits();
                if bits >> (<$bits>::BITS - 1) == 1 {
                    !bits
                } else {
                    bits | (1 << (<$bits>::BITS - 1))
                }
            }
            /// The numbers' keys sorted as plain unsigned integers and turned back into
            /// numbers, then the zeros put back in their input order (their keys are one)
            /// and the NaNs after them in theirs: sorting 8-byte keys rather than
            /// (key, position) pairs halves what the sort moves and compares.
            fn sort_values(line: &mut Vec<$t>) {
                let mut keys: Vec<$bits> = Vec::with_capacity(line.len());
                let mut zeros: Vec<$t> = Vec::new();
                let mut nans: Vec<$t> = Vec::new();
                for &v in line.iter() {
                    if v.is_nan() {
                        nans.push(v);
                    } else {
                        if v == 0.0 {
                            zeros.push(v);
                        }
                        keys.push(v.key());
                    }
                }
                keys.sort_unstable();
                let top = 1 << (<$bits>::BITS - 1);
                line.clear();
                line.extend(
                    keys.iter()
                        .map(|&k| <$t>::from_bits(if k & top != 0 { k & !top } else { !k })),
                );
                if !zeros.is_empty() {
                    let first = line.partition_point(|&v| v < 0.0);
                    line[first..first + zeros.len()].copy_from_slice(&zeros);
                }
                line.extend(nans);
            }
        }
    };
}

ordered_key!(bool);
ordered_key!(i8);
ordered_key!(i16);
ordered_key!(i32);
ordered_key!(i64);
ordered_key!(u8);
ordered_key!(u16);
ordered_key!(u32);
ordered_key!(u64);
float_key!(f32, u32);
float_key!(f64, u64);

/// `out = sort(input)` along `axis` (`how.positions`: `argsort`, `out` holding `i64`); the
/// input holds `dtype`, layouts in elements.
///
/// # Safety
/// Both pointers and layouts must describe valid arrays of one shape, the input of `dtype`,
/// the output of `dtype` (or `i64` for positions); `out` must be writable and must not
/// overlap `input`.
pub(crate) unsafe fn sort(
    how: How,
    dtype: Scalar,
    axis: usize,
    (input, li): (*mut u8, &Layout),
    (out, lo): (*mut u8, &Layout),
) {
    let numpy = LOOPS[slot(dtype, how)].load(Ordering::Acquire);
    // NumPy's sorts compare NaNs with vector compares that raise the invalid flag, and NumPy
    // runs them with floating-point errors unchecked: the flags raised before stay, theirs go.
    let before = crate::fpstatus::take();
    // SAFETY: the caller's contract, with the element type of `dtype`.
    unsafe {
        match dtype {
            Scalar::Bool => typed::<bool>(how, numpy, axis, input, li, out, lo),
            Scalar::I8 => typed::<i8>(how, numpy, axis, input, li, out, lo),
            Scalar::I16 => typed::<i16>(how, numpy, axis, input, li, out, lo),
            Scalar::I32 => typed::<i32>(how, numpy, axis, input, li, out, lo),
            Scalar::I64 => typed::<i64>(how, numpy, axis, input, li, out, lo),
            Scalar::U8 => typed::<u8>(how, numpy, axis, input, li, out, lo),
            Scalar::U16 => typed::<u16>(how, numpy, axis, input, li, out, lo),
            Scalar::U32 => typed::<u32>(how, numpy, axis, input, li, out, lo),
            Scalar::U64 => typed::<u64>(how, numpy, axis, input, li, out, lo),
            Scalar::F32 => typed::<f32>(how, numpy, axis, input, li, out, lo),
            Scalar::F64 => typed::<f64>(how, numpy, axis, input, li, out, lo),
        }
    }
    crate::fpstatus::take();
    crate::fpstatus::take_x87();
    crate::fpstatus::raise(before);
}

/// One line of `n` elements, read at `input + i * si`, written at `out + i * so` (elements).
struct Line<T> {
    input: *const T,
    si: isize,
    out: *mut u8,
    so: isize,
    n: usize,
}

/// # Safety
/// As for [`sort`], with `T` the input's element type and `numpy` 0 or the function
/// registered for its dtype and `how`.
unsafe fn typed<T: Key>(
    how: How,
    numpy: usize,
    axis: usize,
    input: *mut u8,
    li: &Layout,
    out: *mut u8,
    lo: &Layout,
) {
    let shape = &li.shape;
    if shape.contains(&0) {
        return;
    }
    let n = shape[axis];
    let (si, so) = (li.strides[axis], lo.strides[axis]);
    let others: Vec<usize> = (0..shape.len()).filter(|&d| d != axis).collect();
    let mut idx = vec![0usize; others.len()];
    let mut buffers = Buffers {
        line: Vec::with_capacity(n),
        pairs: Vec::new(),
        order: Vec::new(),
    };
    loop {
        let (mut pi, mut po) = (li.offset, lo.offset);
        for (k, &d) in others.iter().enumerate() {
            pi += idx[k] as isize * li.strides[d];
            po += idx[k] as isize * lo.strides[d];
        }
        // SAFETY: every position is an index inside the shape of both layouts.
        let line = unsafe {
            Line {
                input: (input as *const T).offset(pi),
                si,
                out: out.offset(po * if how.positions { 8 } else { size_of::<T>() } as isize),
                so,
                n,
            }
        };
        // SAFETY: the line lies inside both arrays; `numpy` is as the caller guarantees.
        unsafe {
            if numpy == 0 || !numpy_line(how.positions, numpy, &line, &mut buffers) {
                rust_line(how.positions, &line, &mut buffers);
            }
        }
        let mut k = others.len();
        loop {
            if k == 0 {
                return;
            }
            k -= 1;
            idx[k] += 1;
            if idx[k] < shape[others[k]] {
                break;
            }
            idx[k] = 0;
        }
    }
}

/// Scratch space reused from line to line.
struct Buffers<T: Key> {
    line: Vec<T>,
    /// For the Rust `argsort`: (key, position) pairs side by side, which the sort moves
    /// together and never looks a key up elsewhere, keeping large lines in cache; ordering
    /// whole pairs makes equal keys keep their positions' order, so an unstable sort gives
    /// the stable result.
    pairs: Vec<(T::K, usize)>,
    /// For NumPy's `argsort` of a line whose output is strided: the positions.
    order: Vec<isize>,
}

/// Sorts `line` with NumPy's function `func`, as `np.sort` (`np.argsort`) calls it on a
/// contiguous line: in the output itself where it is contiguous, else in a buffer. False if
/// the function failed (out of memory), leaving the output to be written again.
///
/// # Safety
/// `line` lies inside the step's arrays; `func` is the registered function for the line's
/// dtype and kind.
unsafe fn numpy_line<T: Key>(
    positions: bool,
    func: usize,
    line: &Line<T>,
    buffers: &mut Buffers<T>,
) -> bool {
    let n = line.n;
    // SAFETY: as the caller guarantees; a registered function has the signature of its kind
    // (see `register`) and reads or writes only the `n` elements and positions given.
    let status = unsafe {
        if positions {
            let f = std::mem::transmute::<usize, ArgSortFn>(func);
            let values = if line.si == 1 {
                line.input
            } else {
                read(line, &mut buffers.line);
                buffers.line.as_ptr()
            };
            let order = if line.so == 1 {
                line.out as *mut isize
            } else {
                buffers.order.resize(n, 0);
                buffers.order.as_mut_ptr()
            };
            for i in 0..n {
                *order.add(i) = i as isize;
            }
            let status = f(values as *mut c_void, order, n as isize, std::ptr::null_mut());
            if line.so != 1 {
                write(line, &buffers.order);
            }
            status
        } else {
            let f = std::mem::transmute::<usize, SortFn>(func);
            if line.so == 1 {
                let out = line.out as *mut T;
                for i in 0..n {
                    *out.add(i) = *line.input.offset(i as isize * line.si);
                }
                f(out as *mut c_void, n as isize, std::ptr::null_mut())
            } else {
                read(line, &mut buffers.line);
                let status = f(
                    buffers.line.as_mut_ptr() as *mut c_void,
                    n as isize,
                    std::ptr::null_mut(),
                );
                write(line, &buffers.line);
                status
            }
        }
    };
    LINES.fetch_add(1, Ordering::Relaxed);
    status >= 0
}

/// The line's elements, in order, into `buffer`.
///
/// # Safety
/// `line` lies inside the step's input.
unsafe fn read<T: Copy>(line: &Line<T>, buffer: &mut Vec<T>) {
    buffer.clear();
    // SAFETY: as the caller guarantees.
    buffer.extend((0..line.n as isize).map(|i| unsafe { *line.input.offset(i * line.si) }));
}

/// `values` (the line's values, or its positions) into the line's output.
///
/// # Safety
/// `line` lies inside the step's output, of `V`'s element type.
unsafe fn write<T, V: Copy>(line: &Line<T>, values: &[V]) {
    let out = line.out as *mut V;
    for (i, &v) in values.iter().enumerate() {
        // SAFETY: as the caller guarantees.
        unsafe { *out.offset(i as isize * line.so) = v };
    }
}

/// Sorts `line` stably with Rust's sorts on keys.
///
/// # Safety
/// `line` lies inside the step's arrays.
unsafe fn rust_line<T: Key>(positions: bool, line: &Line<T>, buffers: &mut Buffers<T>) {
    // SAFETY: as the caller guarantees.
    unsafe {
        read(line, &mut buffers.line);
        if positions {
            let pairs = &mut buffers.pairs;
            pairs.clear();
            pairs.extend(buffers.line.iter().enumerate().map(|(i, v)| (v.key(), i)));
            pairs.sort_unstable();
            let out = line.out as *mut i64;
            for (i, &(_, from)) in pairs.iter().enumerate() {
                *out.offset(i as isize * line.so) = from as i64;
            }
        } else {
            T::sort_values(&mut buffers.line);
            write(line, &buffers.line);
        }
    }
}
