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
    LOOPS[slot(dtype, how)].store(func, Ordering::Release);
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

/// The lines along `axis`: where each starts in the input and in the output (elements).
fn line_starts(axis: usize, li: &Layout, lo: &Layout) -> Vec<(isize, isize)> {
    let shape = &li.shape;
    let others: Vec<usize> = (0..shape.len()).filter(|&d| d != axis).collect();
    let count: usize = others.iter().map(|&d| shape[d]).product();
    let mut starts = Vec::with_capacity(count);
    // The last other axis runs innermost, by its strides; the ones before it by an index.
    let Some((&last, outer)) = others.split_last() else {
        return vec![(li.offset, lo.offset)];
    };
    let mut idx = vec![0usize; outer.len()];
    while starts.len() < count {
        let (mut pi, mut po) = (li.offset, lo.offset);
        for (k, &d) in outer.iter().enumerate() {
            pi += idx[k] as isize * li.strides[d];
            po += idx[k] as isize * lo.strides[d];
        }
        starts.extend(
            (0..shape[last] as isize)
                .map(|i| (pi + i * li.strides[last], po + i * lo.strides[last])),
        );
        for k in (0..outer.len()).rev() {
            idx[k] += 1;
            if idx[k] < shape[outer[k]] {
                break;
            }
            idx[k] = 0;
        }
    }
    starts
}

/// The arrays of one step, typed: the input's elements, the output's (values of `T` or `i64`
/// positions), strides along the axis and the line length, in elements.
struct Lines<T> {
    input: *const T,
    si: isize,
    out: *mut u8,
    so: isize,
    n: usize,
}

impl<T: Copy> Lines<T> {
    /// The line starting at `pi` read into `buffer`.
    ///
    /// # Safety
    /// `pi` starts a line of the input.
    unsafe fn read(&self, pi: isize, buffer: &mut [T]) {
        if self.si == 1 {
            // SAFETY: as the caller guarantees; the buffer is not the input.
            unsafe {
                let from = self.input.offset(pi);
                std::ptr::copy_nonoverlapping(from, buffer.as_mut_ptr(), buffer.len());
            }
            return;
        }
        for (i, b) in buffer.iter_mut().enumerate() {
            // SAFETY: as the caller guarantees.
            *b = unsafe { *self.input.offset(pi + i as isize * self.si) };
        }
    }

    /// `values` (of the output's element type `V`) written to the line starting at `po`.
    ///
    /// # Safety
    /// `po` starts a line of the output, of element type `V`.
    unsafe fn write<V: Copy>(&self, po: isize, values: &[V]) {
        let out = self.out as *mut V;
        for (i, &v) in values.iter().enumerate() {
            // SAFETY: as the caller guarantees.
            unsafe { *out.offset(po + i as isize * self.so) = v };
        }
    }
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
    if li.shape.contains(&0) {
        return;
    }
    let lines = Lines {
        input: input as *const T,
        si: li.strides[axis],
        out,
        so: lo.strides[axis],
        n: li.shape[axis],
    };
    let starts = line_starts(axis, li, lo);
    // SAFETY: every start begins a line inside both arrays; `numpy` is as the caller
    // guarantees.
    unsafe {
        let failed = if numpy == 0 {
            starts
        } else {
            numpy_sorts(how.positions, numpy, &lines, &starts)
        };
        rust_sorts(how.positions, &lines, &failed);
    }
}

/// Bytes of lines prepared before any is sorted: about an L2's share, so that a sort reads
/// lines whose stores have long retired (a vector load of data just stored element by element
/// cannot be forwarded and stalls: sorting short lines right after copying each ran at half
/// NumPy's speed) and that are still in cache.
const BLOCK_BYTES: usize = 1 << 16;

/// Sorts the lines starting at `starts` with NumPy's function `func`, as `np.sort`
/// (`np.argsort`) calls it on a contiguous line, block by block: each block's lines copied (or
/// their positions set to `0..n`) into the output where its lines are contiguous, else into a
/// scratch block, then sorted, then (from scratch) written out. Returns the lines it failed
/// on (out of memory), whose output is to be written again.
///
/// # Safety
/// The starts begin lines inside the step's arrays; `func` is the registered function for
/// their dtype and kind.
unsafe fn numpy_sorts<T: Copy>(
    positions: bool,
    func: usize,
    lines: &Lines<T>,
    starts: &[(isize, isize)],
) -> Vec<(isize, isize)> {
    let n = lines.n;
    let per_block = (BLOCK_BYTES / (n * 8)).max(1);
    let mut values: Vec<T> = Vec::new();
    let mut order: Vec<isize> = Vec::new();
    let mut failed = Vec::new();
    for block in starts.chunks(per_block) {
        // SAFETY: as the caller guarantees; a registered function has the signature of its
        // kind (see `register`) and reads or writes only the `n` elements and positions given.
        unsafe {
            let sorted = if positions {
                let f = std::mem::transmute::<usize, ArgSortFn>(func);
                let keys = prepare_values(lines, block, lines.si == 1, &mut values, false);
                let dest = prepare_positions(lines, block, &mut order);
                keys.iter()
                    .zip(&dest)
                    .map(|(&k, &d)| f(k as *mut c_void, d, n as isize, null()))
                    .collect::<Vec<_>>()
            } else {
                let f = std::mem::transmute::<usize, SortFn>(func);
                let dest = prepare_values(lines, block, false, &mut values, lines.so == 1);
                dest.iter()
                    .map(|&d| f(d as *mut c_void, n as isize, null()))
                    .collect::<Vec<_>>()
            };
            LINES.fetch_add(block.len(), Ordering::Relaxed);
            if positions && lines.so != 1 {
                for (j, &(_, po)) in block.iter().enumerate() {
                    lines.write(po, &order[j * n..(j + 1) * n]);
                }
            }
            if !positions && lines.so != 1 {
                for (j, &(_, po)) in block.iter().enumerate() {
                    lines.write(po, &values[j * n..(j + 1) * n]);
                }
            }
            let bad = sorted.iter().zip(block).filter(|(&status, _)| status < 0);
            failed.extend(bad.map(|(_, &start)| start));
        }
    }
    failed
}

fn null() -> *mut c_void {
    std::ptr::null_mut()
}

/// Where each line of `block` is to be sorted (or, for `argsort`, read) as one contiguous run
/// of values: the input itself (`in_place_input`: its lines are contiguous and only read),
/// the output (`into_output`: its lines are contiguous), else `scratch`.
///
/// # Safety
/// The block's starts begin lines inside the step's arrays.
unsafe fn prepare_values<T: Copy>(
    lines: &Lines<T>,
    block: &[(isize, isize)],
    in_place_input: bool,
    scratch: &mut Vec<T>,
    into_output: bool,
) -> Vec<*mut T> {
    let n = lines.n;
    if in_place_input {
        // SAFETY: as the caller guarantees.
        return block
            .iter()
            .map(|&(pi, _)| unsafe { lines.input.offset(pi) as *mut T })
            .collect();
    }
    if into_output {
        let out = lines.out as *mut T;
        // Lines that follow one another in both arrays (the rows of C-ordered arrays) are
        // copied as one run.
        let mut at = 0;
        while at < block.len() {
            let (pi, po) = block[at];
            let mut run = 1;
            while at + run < block.len()
                && block[at + run] == (pi + (run * n) as isize, po + (run * n) as isize)
            {
                run += 1;
            }
            // SAFETY: the run's output lines are contiguous and adjacent, `run * n` elements
            // of `T`, and so are its input lines where the input's are contiguous.
            unsafe {
                if lines.si == 1 {
                    let dest = std::slice::from_raw_parts_mut(out.offset(po), run * n);
                    lines.read(pi, dest);
                } else {
                    for j in 0..run {
                        let dest = std::slice::from_raw_parts_mut(out.offset(po).add(j * n), n);
                        lines.read(pi + (j * n) as isize, dest);
                    }
                }
            }
            at += run;
        }
        // SAFETY: each output line is contiguous, inside the output.
        return block
            .iter()
            .map(|&(_, po)| unsafe { out.offset(po) })
            .collect();
    }
    if scratch.len() < block.len() * n {
        // SAFETY: any `T` of the input serves as filler; every element is read over below.
        let filler = unsafe { *lines.input.offset(block[0].0) };
        scratch.resize(block.len() * n, filler);
    }
    let base = scratch.as_mut_ptr();
    block
        .iter()
        .enumerate()
        .map(|(j, &(pi, _))| {
            // SAFETY: row `j` of the scratch block, inside it.
            unsafe {
                let dest = std::slice::from_raw_parts_mut(base.add(j * n), n);
                lines.read(pi, dest);
                dest.as_mut_ptr()
            }
        })
        .collect()
}

/// Where each line of `block` has its positions sorted, set to `0..n`: the output where its
/// lines are contiguous, else `scratch`.
///
/// # Safety
/// The block's starts begin lines inside the step's arrays.
unsafe fn prepare_positions<T>(
    lines: &Lines<T>,
    block: &[(isize, isize)],
    scratch: &mut Vec<isize>,
) -> Vec<*mut isize> {
    let n = lines.n;
    if lines.so != 1 {
        scratch.resize(block.len() * n, 0);
    }
    let base = scratch.as_mut_ptr();
    block
        .iter()
        .enumerate()
        .map(|(j, &(_, po))| {
            // SAFETY: a contiguous output line of `n` positions, or row `j` of the scratch.
            unsafe {
                let dest = if lines.so == 1 {
                    (lines.out as *mut isize).offset(po)
                } else {
                    base.add(j * n)
                };
                for i in 0..n {
                    *dest.add(i) = i as isize;
                }
                dest
            }
        })
        .collect()
}

/// Sorts the lines starting at `starts` stably with Rust's sorts on keys.
///
/// # Safety
/// The starts begin lines inside the step's arrays.
unsafe fn rust_sorts<T: Key>(positions: bool, lines: &Lines<T>, starts: &[(isize, isize)]) {
    let Some(&(first, _)) = starts.first() else {
        return;
    };
    // SAFETY: as the caller guarantees.
    let mut line = vec![unsafe { *lines.input.offset(first) }; lines.n];
    // For `argsort`, (key, position) pairs side by side: the sort moves them together and
    // never looks a key up elsewhere, which keeps large lines in cache; ordering whole pairs
    // makes equal keys keep their positions' order, so an unstable sort gives the stable
    // result.
    let mut pairs: Vec<(T::K, usize)> = Vec::new();
    let mut order: Vec<i64> = Vec::new();
    for &(pi, po) in starts {
        // SAFETY: as the caller guarantees.
        unsafe {
            line.resize(lines.n, line[0]);
            lines.read(pi, &mut line);
            if positions {
                pairs.clear();
                pairs.extend(line.iter().enumerate().map(|(i, v)| (v.key(), i)));
                pairs.sort_unstable();
                order.clear();
                order.extend(pairs.iter().map(|&(_, from)| from as i64));
                lines.write(po, &order);
            } else {
                T::sort_values(&mut line);
                lines.write(po, &line);
            }
        }
    }
}
