//! `sort` and `argsort` as an extern step: each line along one axis of a strided input is
//! read into a buffer, sorted stably in NumPy's order (numbers by value with -0.0 equal to
//! 0.0, NaN after every number), and written to the strided output: the values, or the
//! positions they came from as `i64`.

use crate::kernel::Scalar;
use ember_core::views::Layout;

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

/// `out = sort(input)` along `axis` (`indices`: `argsort`, `out` holding `i64`); the input
/// holds `dtype`, layouts in elements.
///
/// # Safety
/// Both pointers and layouts must describe valid arrays of one shape, the input of `dtype`,
/// the output of `dtype` (or `i64` when `indices`); `out` must be writable and must not
/// overlap `input`.
pub(crate) unsafe fn sort(
    indices: bool,
    dtype: Scalar,
    axis: usize,
    (input, li): (*mut u8, &Layout),
    (out, lo): (*mut u8, &Layout),
) {
    // SAFETY: the caller's contract, with the element type of `dtype`.
    unsafe {
        match dtype {
            Scalar::Bool => typed::<bool>(indices, axis, input, li, out, lo),
            Scalar::I8 => typed::<i8>(indices, axis, input, li, out, lo),
            Scalar::I16 => typed::<i16>(indices, axis, input, li, out, lo),
            Scalar::I32 => typed::<i32>(indices, axis, input, li, out, lo),
            Scalar::I64 => typed::<i64>(indices, axis, input, li, out, lo),
            Scalar::U8 => typed::<u8>(indices, axis, input, li, out, lo),
            Scalar::U16 => typed::<u16>(indices, axis, input, li, out, lo),
            Scalar::U32 => typed::<u32>(indices, axis, input, li, out, lo),
            Scalar::U64 => typed::<u64>(indices, axis, input, li, out, lo),
            Scalar::F32 => typed::<f32>(indices, axis, input, li, out, lo),
            Scalar::F64 => typed::<f64>(indices, axis, input, li, out, lo),
        }
    }
}

/// # Safety
/// As for [`sort`], with `T` the input's element type.
unsafe fn typed<T: Key>(
    indices: bool,
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
    let input = input as *const T;
    let mut line: Vec<T> = Vec::with_capacity(n);
    // For `argsort`, (key, position) pairs side by side: the sort moves them together and
    // never looks a key up elsewhere, which keeps large lines in cache; ordering whole pairs
    // makes equal keys keep their positions' order, so an unstable sort gives the stable
    // result.
    let mut pairs: Vec<(T::K, usize)> = Vec::with_capacity(n);
    loop {
        let (mut pi, mut po) = (li.offset, lo.offset);
        for (k, &d) in others.iter().enumerate() {
            pi += idx[k] as isize * li.strides[d];
            po += idx[k] as isize * lo.strides[d];
        }
        line.clear();
        pairs.clear();
        // SAFETY: every position is an index inside the shape of both layouts.
        unsafe {
            line.extend((0..n as isize).map(|i| *input.offset(pi + i * si)));
            if indices {
                pairs.extend(line.iter().enumerate().map(|(i, v)| (v.key(), i)));
                pairs.sort_unstable();
                let out = out as *mut i64;
                for (i, &(_, from)) in pairs.iter().enumerate() {
                    *out.offset(po + i as isize * so) = from as i64;
                }
            } else {
                T::sort_values(&mut line);
                let out = out as *mut T;
                for (i, &v) in line.iter().enumerate() {
                    *out.offset(po + i as isize * so) = v;
                }
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
