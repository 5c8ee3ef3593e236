//! Copies between strided arrays at run time (a reshape of data no strides can express, a
//! loop's carried values in and out of its buffers): a run of the innermost axis at a time,
//! one `memcpy` where both runs are contiguous, with no allocation.

use ember_core::views::Layout;

/// Copies every element of `src` (laid out as `from`, positions counted from `src`) to the
/// same index of `dst` (laid out as `to`), in row-major order.
///
/// # Safety
/// Both layouts have the same shape; every position they give addresses an element of
/// `size` bytes in its own array, and the arrays do not overlap.
pub(crate) unsafe fn copy(src: *const u8, from: &Layout, dst: *mut u8, to: &Layout, size: usize) {
    debug_assert_eq!(from.shape, to.shape);
    let rank = from.shape.len();
    if from.shape.contains(&0) {
        return;
    }
    let size_i = size as isize;
    let (n, s_step, d_step) = match rank {
        0 => (1, 0, 0),
        _ => (
            from.shape[rank - 1],
            from.strides[rank - 1],
            to.strides[rank - 1],
        ),
    };
    let outer = rank.saturating_sub(1);
    let mut idx = vec![0usize; outer];
    let (mut s, mut d) = (from.offset, to.offset);
    loop {
        // SAFETY: `s` and `d` are positions of elements of their arrays (the caller's
        // promise), and so are the `n` elements of the run from them.
        unsafe {
            if n == 1 || (s_step == 1 && d_step == 1) {
                std::ptr::copy_nonoverlapping(
                    src.offset(s * size_i),
                    dst.offset(d * size_i),
                    n * size,
                );
            } else {
                for k in 0..n as isize {
                    std::ptr::copy_nonoverlapping(
                        src.offset((s + k * s_step) * size_i),
                        dst.offset((d + k * d_step) * size_i),
                        size,
                    );
                }
            }
        }
        // The next run: count up the outer axes, innermost first.
        let mut axis = outer;
        loop {
            if axis == 0 {
                return;
            }
            axis -= 1;
            idx[axis] += 1;
            s += from.strides[axis];
            d += to.strides[axis];
            if idx[axis] < from.shape[axis] {
                break;
            }
            s -= from.strides[axis] * from.shape[axis] as isize;
            d -= to.strides[axis] * to.shape[axis] as isize;
            idx[axis] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every layout pair of a 3-d shape (C order, F order, reversed, strided, broadcast)
    /// copies to the elements `positions()` names.
    #[test]
    fn copies_match_element_positions() {
        let shape = [3usize, 4, 5];
        let n: usize = shape.iter().product();
        let layouts = [
            Layout::contiguous(&shape),
            Layout {
                offset: 0,
                shape: shape.to_vec(),
                strides: vec![1, 3, 12],
            },
            Layout {
                offset: 59,
                shape: shape.to_vec(),
                strides: vec![-20, -5, -1],
            },
            Layout {
                offset: 1,
                shape: shape.to_vec(),
                strides: vec![40, 10, 2],
            },
            Layout {
                offset: 0,
                shape: shape.to_vec(),
                strides: vec![0, 5, 1],
            },
        ];
        let src: Vec<u64> = (0..200).collect();
        for from in &layouts {
            for to in layouts.iter().filter(|l| l.strides[0] != 0) {
                let mut dst = vec![u64::MAX; 200];
                unsafe {
                    copy(
                        src.as_ptr() as *const u8,
                        from,
                        dst.as_mut_ptr() as *mut u8,
                        to,
                        8,
                    )
                };
                let (p, q) = (from.positions(), to.positions());
                assert_eq!(p.len(), n);
                for (a, b) in p.iter().zip(&q) {
                    assert_eq!(dst[*b as usize], src[*a as usize], "{from:?} -> {to:?}");
                }
            }
        }
        let scalar = Layout::contiguous(&[]);
        let mut one = [0u32; 1];
        unsafe {
            copy(
                [7u32].as_ptr() as *const u8,
                &scalar,
                one.as_mut_ptr() as *mut u8,
                &scalar,
                4,
            )
        };
        assert_eq!(one, [7]);
    }
}
