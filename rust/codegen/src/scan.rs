//! `cumsum` and `cumprod` as an extern step: along one axis of strided input and output
//! layouts of one dtype, each output element is the previous one combined with the input's,
//! in order, in that dtype (integers wrap), exactly as NumPy accumulates. `sort` and
//! `argsort` share the step (`sort.rs`).

use crate::kernel::Scalar;
use crate::sort;
use ember_core::ir::ScanKind;
use ember_core::views::Layout;

/// How a running scan combines the previous result with the next element.
#[derive(Clone, Copy)]
enum Running {
    Sum,
    Product,
}

/// A numeric element the scan combines.
trait Element: Copy {
    fn combine(self, other: Self, kind: Running) -> Self;
}

macro_rules! wrapping_element {
    ($t:ty) => {
        impl Element for $t {
            fn combine(self, other: Self, kind: Running) -> Self {
                match kind {
                    Running::Sum => self.wrapping_add(other),
                    Running::Product => self.wrapping_mul(other),
                }
            }
        }
    };
}

macro_rules! float_element {
    ($t:ty) => {
        impl Element for $t {
            fn combine(self, other: Self, kind: Running) -> Self {
                match kind {
                    Running::Sum => self + other,
                    Running::Product => self * other,
                }
            }
        }
    };
}

wrapping_element!(i8);
wrapping_element!(i16);
wrapping_element!(i32);
wrapping_element!(u8);
wrapping_element!(u16);
wrapping_element!(u32);
wrapping_element!(u64);
wrapping_element!(i64);
float_element!(f32);
float_element!(f64);

impl Element for bool {
    fn combine(self, other: Self, kind: Running) -> Self {
        match kind {
            Running::Sum => self || other,
            Running::Product => self && other,
        }
    }
}

/// `out = cumsum(input)` (or `cumprod`, `sort`, `argsort`) along `axis`; layouts in
/// elements.
///
/// # Safety
/// Both pointers and layouts must describe valid arrays of one shape, `input` of `in_dtype`
/// and `out` of `dtype` (the same but for `argsort`, whose output is `i64`); `out` must be
/// writable and must not overlap `input`.
pub(crate) unsafe fn scan(
    kind: ScanKind,
    dtype: Scalar,
    in_dtype: Scalar,
    axis: usize,
    (input, li): (*mut u8, &Layout),
    (out, lo): (*mut u8, &Layout),
) {
    let kind = match kind {
        ScanKind::Cumsum => Running::Sum,
        ScanKind::Cumprod => Running::Product,
        _ => {
            let how = sort::How {
                positions: kind.gives_positions(),
                stable: kind.is_stable(),
            };
            // SAFETY: the caller's contract.
            unsafe { sort::sort(how, in_dtype, axis, (input, li), (out, lo)) };
            return;
        }
    };
    // SAFETY: the caller's contract, with the element type of `dtype`.
    unsafe {
        match dtype {
            Scalar::Bool => typed::<bool>(kind, axis, input, li, out, lo),
            Scalar::I8 => typed::<i8>(kind, axis, input, li, out, lo),
            Scalar::I16 => typed::<i16>(kind, axis, input, li, out, lo),
            Scalar::I32 => typed::<i32>(kind, axis, input, li, out, lo),
            Scalar::U8 => typed::<u8>(kind, axis, input, li, out, lo),
            Scalar::U16 => typed::<u16>(kind, axis, input, li, out, lo),
            Scalar::U32 => typed::<u32>(kind, axis, input, li, out, lo),
            Scalar::U64 => typed::<u64>(kind, axis, input, li, out, lo),
            Scalar::I64 => typed::<i64>(kind, axis, input, li, out, lo),
            Scalar::F32 => typed::<f32>(kind, axis, input, li, out, lo),
            Scalar::F64 => typed::<f64>(kind, axis, input, li, out, lo),
        }
    }
}

/// # Safety
/// As for [`scan`], with `T` the element type.
unsafe fn typed<T: Element>(
    kind: Running,
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
    let (input, out) = (input as *const T, out as *mut T);
    loop {
        let (mut pi, mut po) = (li.offset, lo.offset);
        for (k, &d) in others.iter().enumerate() {
            pi += idx[k] as isize * li.strides[d];
            po += idx[k] as isize * lo.strides[d];
        }
        // SAFETY: every position is an index inside the shape of both layouts.
        unsafe {
            let mut acc = *input.offset(pi);
            *out.offset(po) = acc;
            for i in 1..n as isize {
                acc = acc.combine(*input.offset(pi + i * si), kind);
                *out.offset(po + i * so) = acc;
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
