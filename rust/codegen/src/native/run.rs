//! Calling a native statement: donated operands copied into their result buffers, the
//! pointer and stride arrays, and the status turned into an error.

use super::{raised, NativeFn, NativeStatement, OK};
use crate::kernel::Scalar;
use crate::Error;
use ember_core::views::Layout;

/// An array resolved by the runtime: data pointer (at element 0 of the layout's offset
/// origin), dtype and element layout.
pub(crate) type Resolved = (*mut u8, Scalar, Layout);

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
                let (src, dst) = (operand, &results[j]);
                let size = src.1.size();
                let base = origin(src);
                for (k, pos) in src.2.positions().into_iter().enumerate() {
                    let pos = pos - src.2.offset;
                    // SAFETY: `pos` addresses an element of the operand, `k` one of the result
                    // (same shape, C-contiguous); they do not overlap (the caller's promise).
                    unsafe {
                        std::ptr::copy_nonoverlapping(
                            base.offset(pos * size as isize),
                            dst.0.add(k * size),
                            size,
                        )
                    };
                }
                ptrs.push(dst.0);
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
