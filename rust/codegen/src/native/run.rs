//! Calling a native statement: donated operands copied into their result buffers, the
//! pointer and stride arrays (prepared once per layout, [`Call`]), and the status turned
//! into an error.

use super::{raised, NativeFn, NativeStatement, OK};
use crate::kernel::Scalar;
use crate::kernel::ScalarExt;
use crate::Error;
use ember_core::views::Layout;
use smallvec::SmallVec;

/// An array resolved by the runtime: data pointer (at element 0 of the layout's offset
/// origin), dtype and element layout.
pub(crate) type Resolved = (*mut u8, Scalar, Layout);

/// How a donated operand is copied into its result buffer, from the two arrays' origins.
enum Copy {
    /// Both contiguous: this many bytes at once.
    Bytes(usize),
    /// Element by element: byte offsets from each origin, and the element size.
    Elements(Vec<(isize, isize)>, usize),
}

impl Copy {
    /// The copy of `src` into `dst` (same dtype and shape, any layouts).
    fn plan(src: &Resolved, dst: &Resolved) -> Copy {
        let size = src.1.size();
        let contiguous = |l: &Layout| l.strides == Layout::contiguous(&l.shape).strides;
        if contiguous(&src.2) && contiguous(&dst.2) {
            return Copy::Bytes(src.2.size() * size);
        }
        let bytes = |pos: isize, l: &Layout| (pos - l.offset) * size as isize;
        let pairs = src.2.positions().into_iter().zip(dst.2.positions());
        Copy::Elements(
            pairs
                .map(|(from, to)| (bytes(from, &src.2), bytes(to, &dst.2)))
                .collect(),
            size,
        )
    }

    /// # Safety
    /// `src` and `dst` must be the origins of non-overlapping arrays of the layouts planned.
    unsafe fn run(&self, src: *const u8, dst: *mut u8) {
        match self {
            // SAFETY: both hold that many contiguous bytes from their origin (the caller's
            // promise).
            Copy::Bytes(n) => unsafe { std::ptr::copy_nonoverlapping(src, dst, *n) },
            Copy::Elements(pairs, size) => {
                for &(from, to) in pairs {
                    // SAFETY: both offsets address elements of their arrays.
                    unsafe {
                        let (s, d) = (src.offset(from), dst.offset(to));
                        match size {
                            8 => {
                                (d as *mut u64).write_unaligned((s as *const u64).read_unaligned())
                            }
                            4 => {
                                (d as *mut u32).write_unaligned((s as *const u32).read_unaligned())
                            }
                            _ => std::ptr::copy_nonoverlapping(s, d, *size),
                        }
                    }
                }
            }
        }
    }
}

/// A native call's arguments worked out from its operands' and results' layouts alone: the
/// stride array, where each pointer argument comes from, the donated operands to copy. A
/// loop body calling a statement on every trip makes it once (`graph::Prepared`).
pub(crate) struct Call {
    /// Per pointer argument: the origin of operand `k` (false) or result `k` (true).
    sources: Vec<(bool, usize)>,
    strides: Vec<i64>,
    /// Donated operands copied into their result buffers first: (operand, result, how).
    copies: Vec<(usize, usize, Copy)>,
    /// Bytes of the heap block of the statement's scratch arrays (0: none).
    heap_scratch: usize,
}

/// The origin of a resolved array: its element at the layout's offset.
pub(crate) fn origin((ptr, d, l): &Resolved) -> *mut u8 {
    ptr.wrapping_offset(l.offset * d.size() as isize)
}

/// Prepares the call of statement `st` on operands and results of these layouts.
pub(crate) fn prepare(st: &NativeStatement, operands: &[Resolved], results: &[Resolved]) -> Call {
    let mut call = Call {
        sources: Vec::with_capacity(operands.len() + results.len()),
        strides: Vec::new(),
        copies: Vec::new(),
        heap_scratch: st.heap_scratch,
    };
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
                    call.copies.push((p, j, Copy::plan(operand, dst)));
                }
                call.sources.push((true, j));
                call.strides.extend(byte_strides(dst));
            }
            None => {
                call.sources.push((false, p));
                call.strides.extend(byte_strides(operand));
            }
        }
    }
    for (j, result) in results.iter().enumerate() {
        call.sources.push((true, j));
        call.strides.extend(byte_strides(result));
    }
    call
}

/// Runs `f` for the statement `prepared` was made for, on the origins of operands and
/// results of the layouts it was made from: donated operands copied into their result
/// buffers, then the call, its status turned into an error.
///
/// # Safety
/// Every operand must address readable memory of its layout, every result writable memory of
/// its layout, and results must not overlap operands or each other; `f` must be the
/// statement's code.
pub(crate) unsafe fn call_prepared(
    f: NativeFn,
    prepared: &Call,
    operands: &[*mut u8],
    results: &[*mut u8],
) -> Result<(), Error> {
    for (p, j, copy) in &prepared.copies {
        // SAFETY: the caller's contract: distinct arrays of the layouts planned.
        unsafe { copy.run(operands[*p], results[*j]) };
    }
    let mut ptrs: SmallVec<[*mut u8; 16]> = prepared
        .sources
        .iter()
        .map(|&(result, k)| if result { results[k] } else { operands[k] })
        .collect();
    // The scratch arrays' heap block: the code fills each array before reading it, and the
    // block is freed when this returns, whatever the status.
    let mut heap: Vec<u64> = Vec::new();
    if prepared.heap_scratch > 0 {
        let words = prepared.heap_scratch.div_ceil(8);
        heap.try_reserve_exact(words).map_err(|_| {
            Error::Memory(format!(
                "Unable to allocate {} bytes for arrays made in a loop",
                prepared.heap_scratch
            ))
        })?;
        ptrs.push(heap.as_mut_ptr() as *mut u8);
    }
    let mut record = [0i64; 3];
    // SAFETY: the pointer and stride arrays follow the layout `native::build` reads; every
    // access the code makes is bounds-checked against the static shapes the runtime checked.
    let status = unsafe {
        f(
            ptrs.as_ptr(),
            prepared.strides.as_ptr(),
            record.as_mut_ptr(),
        )
    };
    if status == OK {
        Ok(())
    } else {
        Err(raised(status, &record))
    }
}
