//! Calling a native statement: donated operands copied into their result buffers, the
//! pointer and stride arrays, and the status turned into an error.

use super::{raised, NativeFn, NativeStatement, OK};
use crate::kernel::Scalar;
use crate::Error;
use ember_core::views::Layout;

/// An array resolved by the runtime: data pointer (at element 0 of the layout's offset
/// origin), dtype and element layout.
pub(crate) type Resolved = (*mut u8, Scalar, Layout);

/// Copies the elements of `src` into `dst` (same dtype and shape, any layouts).
fn copy(src: &Resolved, dst: &Resolved) {
    let size = src.1.size();
    let contiguous = |l: &Layout| {
        *l == Layout {
            offset: l.offset,
            ..Layout::contiguous(&l.shape)
        }
    };
    if contiguous(&src.2) && contiguous(&dst.2) {
        // SAFETY: both hold `size()` contiguous elements from their origin; they do not
        // overlap (the caller's promise).
        unsafe {
            std::ptr::copy_nonoverlapping(
                src.0.offset(src.2.offset * size as isize),
                dst.0.offset(dst.2.offset * size as isize),
                src.2.size() * size,
            )
        };
        return;
    }
    for (from, to) in src.2.positions().into_iter().zip(dst.2.positions()) {
        // SAFETY: both positions address elements of their arrays.
        unsafe {
            let (s, d) = (
                src.0.offset(from * size as isize),
                dst.0.offset(to * size as isize),
            );
            match size {
                8 => (d as *mut u64).write_unaligned((s as *const u64).read_unaligned()),
                4 => (d as *mut u32).write_unaligned((s as *const u32).read_unaligned()),
                _ => std::ptr::copy_nonoverlapping(s, d, size),
            }
        }
    }
}

/// Runs `f` for statement `st` on resolved operands, writing `results` (fresh C-contiguous
/// buffers of the result types).
///
/// # Safety
/// Every operand must address readable memory of its layout, every result writable memory of
/// its layout, and results must not overlap operands or each other; `f` must be `st`'s code.
pub(crate) unsafe fn call(
    f: NativeFn,
    st: &NativeStatement,
    operands: &[Resolved],
    results: &[Resolved],
) -> Result<(), Error> {
    let mut ptrs: Vec<*mut u8> = Vec::with_capacity(operands.len() + results.len());
    let mut strides: Vec<i64> = Vec::new();
    let origin = |(ptr, d, l): &Resolved| ptr.wrapping_offset(l.offset * d.size() as isize);
    let byte_strides = |(_, d, l): &Resolved| -> Vec<i64> {
        l.strides
            .iter()
            .map(|s| (s * d.size() as isize) as i64)
            .collect()
    };
    for (p, operand) in operands.iter().enumerate() {
        match st.donated.iter().position(|&d| d == Some(p)) {
            Some(j) => {
                let dst = &results[j];
                if !st.in_place[j] {
                    copy(operand, dst);
                }
                ptrs.push(origin(dst));
                strides.extend(byte_strides(dst));
            }
            None => {
                ptrs.push(origin(operand));
                strides.extend(byte_strides(operand));
            }
        }
    }
    for result in results {
        ptrs.push(origin(result));
        strides.extend(byte_strides(result));
    }
    let mut record = [0i64; 3];
    // SAFETY: the pointer and stride arrays follow the layout `native::build` reads; every
    // access the code makes is bounds-checked against the static shapes the runtime checked.
    let status = unsafe { f(ptrs.as_ptr(), strides.as_ptr(), record.as_mut_ptr()) };
    if status == OK {
        Ok(())
    } else {
        Err(raised(status, &record))
    }
}
