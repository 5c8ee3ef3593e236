//! Running a compiled kernel over an iteration space of any rank.
//!
//! A launch is the kernel plus, per buffer, a base pointer and byte strides over the
//! iteration dims; the last dim is the inner extent, the one before it the native row loop,
//! and any dims further out are walked here. Large launches split the rows across threads.

use std::sync::atomic::{AtomicU32, Ordering};

use crate::fpstatus::{self, FpStatus};
use crate::jit::KernelFn;

/// One buffer's addressing for a launch.
#[derive(Clone, Debug)]
pub struct Operand {
    /// Address of the element at index 0 of every iteration dim.
    pub base: *mut u8,
    /// Byte stride for each iteration dim (0 where the buffer is broadcast).
    pub strides: Vec<isize>,
}

/// Drops size-1 dims and merges neighbours that every operand walks as one (elementwise
/// kernels only: a reduction's inner extent must stay separate).
pub fn collapse(dims: &[usize], ops: &mut [Operand]) -> Vec<usize> {
    let keep: Vec<usize> = (0..dims.len()).filter(|&d| dims[d] != 1).collect();
    let mut out: Vec<usize> = Vec::new();
    let mut strides: Vec<Vec<isize>> = vec![Vec::new(); ops.len()];
    for &d in &keep {
        let mergeable = !out.is_empty()
            && ops.iter().enumerate().all(|(i, o)| {
                let last = *strides[i].last().unwrap();
                last == o.strides[d] * dims[d] as isize
            });
        if mergeable {
            *out.last_mut().unwrap() *= dims[d];
            for (i, o) in ops.iter().enumerate() {
                *strides[i].last_mut().unwrap() = o.strides[d];
            }
        } else {
            out.push(dims[d]);
            for (i, o) in ops.iter().enumerate() {
                strides[i].push(o.strides[d]);
            }
        }
    }
    for (o, s) in ops.iter_mut().zip(strides) {
        o.strides = s;
    }
    out
}

/// Work below this many inner iterations stays on the calling thread.
pub const PARALLEL_THRESHOLD: usize = 1 << 16;

/// Runs `f` over the iteration space `dims` (row-major, last = inner extent).
/// `elementwise` kernels (no reductions, no per-row stores) may also have their inner extent
/// split across threads, which a collapsed 1-D array needs to use more than one core.
///
/// # Safety
/// Every operand must address valid memory for every index of `dims`, with outputs writable
/// and not overlapping inputs in a way the kernel's element order would observe.
pub unsafe fn launch(
    f: KernelFn,
    dims: &[usize],
    ops: &[Operand],
    num_threads: usize,
    elementwise: bool,
) {
    let nd = dims.len();
    // An empty inner extent still runs: reductions store their identity per row.
    if nd > 0 && dims[..nd - 1].contains(&0) {
        return;
    }
    let (n, inner): (usize, Vec<i64>) = if nd == 0 {
        (1, vec![0; ops.len()])
    } else {
        (
            dims[nd - 1],
            ops.iter().map(|o| o.strides[nd - 1] as i64).collect(),
        )
    };
    let (rows, row): (usize, Vec<i64>) = if nd >= 2 {
        (
            dims[nd - 2],
            ops.iter().map(|o| o.strides[nd - 2] as i64).collect(),
        )
    } else {
        (1, vec![0; ops.len()])
    };
    let outer = if nd > 2 { &dims[..nd - 2] } else { &[][..] };
    let outer_count: usize = outer.iter().product();
    let total = outer_count * rows * n;
    let threads = if num_threads == 0 {
        rayon::current_num_threads()
    } else {
        num_threads
    };
    // Addresses travel as integers so that the closures below can cross threads; the caller's
    // contract keeps every address formed here inside its operand.
    let base0: Vec<usize> = ops.iter().map(|o| o.base as usize).collect();
    let outer_strides: Vec<Vec<isize>> = ops.iter().map(|o| o.strides.clone()).collect();
    let bases_of = |flat: usize| -> Vec<usize> {
        let mut rem = flat;
        let mut bases = base0.clone();
        for d in (0..outer.len()).rev() {
            let i = rem % outer[d];
            rem /= outer[d];
            for (b, s) in bases.iter_mut().zip(&outer_strides) {
                *b = b.wrapping_add_signed(i as isize * s[d]);
            }
        }
        bases
    };
    let run_rows = |flat: usize, r0: usize, r1: usize| {
        let bases: Vec<*mut u8> = bases_of(flat)
            .iter()
            .zip(&row)
            .map(|(b, s)| b.wrapping_add_signed(r0 as isize * *s as isize) as *mut u8)
            .collect();
        // SAFETY: the kernel touches rows r0..r1 of this outer index, all in bounds.
        unsafe {
            f(
                bases.as_ptr(),
                row.as_ptr(),
                inner.as_ptr(),
                (r1 - r0) as i64,
                n as i64,
            )
        };
    };
    let lines = outer_count * rows;
    // Pieces per row: enough work items for every thread when rows are few and long.
    let pieces = if elementwise && lines < threads * 4 {
        (threads * 4)
            .div_ceil(lines)
            .min(n.div_ceil(PARALLEL_THRESHOLD / 4))
            .max(1)
    } else {
        1
    };
    if threads <= 1 || total < PARALLEL_THRESHOLD || lines * pieces < 2 {
        for flat in 0..outer_count {
            run_rows(flat, 0, rows);
        }
        return;
    }
    let piece_len = n.div_ceil(pieces).next_multiple_of(16);
    let run_piece = |line: usize, p: usize| {
        let (j0, j1) = ((p * piece_len).min(n), ((p + 1) * piece_len).min(n));
        if j0 == j1 {
            return;
        }
        let (flat, r) = (line / rows, line % rows);
        let bases: Vec<*mut u8> = bases_of(flat)
            .iter()
            .zip(row.iter().zip(&inner))
            .map(|(b, (rs, is))| {
                b.wrapping_add_signed(r as isize * *rs as isize + j0 as isize * *is as isize)
                    as *mut u8
            })
            .collect();
        // SAFETY: elements j0..j1 of row r of this outer index are in bounds, and an
        // elementwise kernel touches nothing else.
        unsafe {
            f(
                bases.as_ptr(),
                row.as_ptr(),
                inner.as_ptr(),
                1,
                (j1 - j0) as i64,
            )
        };
    };
    // About 4 chunks per thread, of whole rows or of row pieces.
    let items = lines * pieces;
    let chunks = (threads * 4).min(items);
    let per = items.div_ceil(chunks);
    let pool_job = |c: usize| {
        let start = c * per;
        let end = ((c + 1) * per).min(items);
        if pieces > 1 {
            for item in start..end {
                run_piece(item / pieces, item % pieces);
            }
            return;
        }
        let mut i = start;
        while i < end {
            let flat = i / rows;
            let r0 = i % rows;
            let r1 = (r0 + (end - i)).min(rows);
            run_rows(flat, r0, r1);
            i += r1 - r0;
        }
    };
    // Exception flags are per thread: each job starts from clear flags on whatever thread runs
    // it and hands what it raised to the caller, whose flags are restored afterwards (a job
    // may run on the calling thread itself).
    let raised = AtomicU32::new(0);
    let job = |c: usize| {
        let saved = fpstatus::take();
        pool_job(c);
        raised.fetch_or(fpstatus::take().0, Ordering::Relaxed);
        fpstatus::raise(saved);
    };
    let run = &job;
    if num_threads == 0 {
        rayon::scope(|s| {
            for c in 0..chunks {
                s.spawn(move |_| run(c));
            }
        });
    } else {
        std::thread::scope(|s| {
            let per_thread = chunks.div_ceil(threads);
            for t in 0..threads {
                s.spawn(move || {
                    for c in t * per_thread..((t + 1) * per_thread).min(chunks) {
                        run(c);
                    }
                });
            }
        });
    }
    fpstatus::raise(FpStatus(raised.into_inner()));
}
