//! Running a compiled kernel over an iteration space of any rank.
//!
//! A launch is the kernel plus, per buffer, a base pointer and byte strides over the
//! iteration dims; the last dim is the inner extent, the one before it the native row loop,
//! and any dims further out are walked here. Large launches split the rows across threads.

use std::sync::atomic::{AtomicU32, Ordering};

use crate::fpstatus::{self, FpStatus};
use crate::jit::KernelFn;
use std::sync::atomic::AtomicBool;
use std::sync::{Mutex, Once};

/// Set in a child made by `fork` after the pool was first used. The child inherits rayon's
/// global pool's bookkeeping but not its threads, so work sent there would wait forever: a
/// forked child (as `multiprocessing` makes) spawns scoped threads instead. A fork handler
/// rather than comparing process ids: `getpid` is a system call on every launch.
static FORKED: AtomicBool = AtomicBool::new(false);
static FORK_HANDLER: Once = Once::new();

extern "C" fn note_fork_in_child() {
    FORKED.store(true, Ordering::Relaxed);
}

/// Whether rayon's global pool has live threads in this process: it does unless the process
/// was forked after its first use.
pub fn pool_usable() -> bool {
    FORK_HANDLER.call_once(|| {
        // SAFETY: registers a handler that only stores to an atomic, which is
        // async-signal-safe as a fork child handler must be.
        unsafe {
            libc::pthread_atfork(None, None, Some(note_fork_in_child));
        }
    });
    !FORKED.load(Ordering::Relaxed)
}

/// The threads `num_threads == 0` means: rayon's pool, or the cores in a forked child.
pub fn default_threads() -> usize {
    if pool_usable() {
        rayon::current_num_threads()
    } else {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    }
}
use smallvec::{smallvec, SmallVec};

/// The pools of thread counts other than the global pool's, made on first use and kept for
/// the process: starting threads for every launch cost more than a launch's own work.
static POOLS: Mutex<Vec<(usize, &'static rayon::ThreadPool)>> = Mutex::new(Vec::new());

/// Where a launch's threaded pieces run.
enum Threads {
    /// Rayon's global pool (`num_threads == 0`, or the global pool's own count).
    Global,
    /// A pool of another count, started on first use and kept for the process.
    Pool(&'static rayon::ThreadPool),
    /// Threads started for this launch: a forked child, whose inherited pools have no threads.
    Scoped,
}

fn threads_for(num_threads: usize) -> Threads {
    if !pool_usable() {
        return Threads::Scoped;
    }
    if num_threads == 0 || num_threads == rayon::current_num_threads() {
        return Threads::Global;
    }
    let Ok(mut pools) = POOLS.lock() else {
        return Threads::Scoped;
    };
    if let Some(&(_, pool)) = pools.iter().find(|(n, _)| *n == num_threads) {
        return Threads::Pool(pool);
    }
    match rayon::ThreadPoolBuilder::new()
        .num_threads(num_threads)
        .thread_name(|i| format!("ember-{i}"))
        .build()
    {
        Ok(pool) => {
            let pool: &'static rayon::ThreadPool = Box::leak(Box::new(pool));
            pools.push((num_threads, pool));
            Threads::Pool(pool)
        }
        Err(_) => Threads::Scoped,
    }
}

/// One buffer's addressing for a launch.
#[derive(Clone, Debug)]
pub struct Operand {
    /// Address of the element at index 0 of every iteration dim.
    pub base: *mut u8,
    /// Byte stride for each iteration dim (0 where the buffer is broadcast); inline up to 4
    /// dims, so that a launch allocates nothing.
    pub strides: SmallVec<[isize; 4]>,
}

/// Drops size-1 dims and merges neighbours that every operand walks as one (elementwise
/// kernels only: a reduction's inner extent must stay separate). Rewrites the operands'
/// strides in place: a merged dim only ever moves to a lower index, so nothing is allocated
/// but the returned dims.
pub fn collapse(dims: &[usize], ops: &mut [Operand]) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::with_capacity(dims.len());
    for (d, &extent) in dims.iter().enumerate() {
        if extent == 1 {
            continue;
        }
        let w = out.len();
        let mergeable = w > 0
            && ops
                .iter()
                .all(|o| o.strides[w - 1] == o.strides[d] * extent as isize);
        if mergeable {
            out[w - 1] *= extent;
            for o in ops.iter_mut() {
                o.strides[w - 1] = o.strides[d];
            }
        } else {
            out.push(extent);
            for o in ops.iter_mut() {
                o.strides[w] = o.strides[d];
            }
        }
    }
    for o in ops.iter_mut() {
        o.strides.truncate(out.len());
    }
    out
}

/// Work below this many inner iterations stays on the calling thread.
pub const PARALLEL_THRESHOLD: usize = 1 << 16;

/// The same for kernels that only move data ([`crate::kernel::Kernel::memory_bound`]): a
/// second thread shares the first one's memory bandwidth, so below this the split only adds
/// the wait for the slower thread (a training step's copy of a 784x256 weight ran slower
/// split in two on a busy machine).
pub const MEMORY_BOUND_THRESHOLD: usize = 1 << 20;

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
    let n = if nd == 0 { 1 } else { dims[nd - 1] };
    let rows = if nd >= 2 { dims[nd - 2] } else { 1 };
    let outer = if nd > 2 { &dims[..nd - 2] } else { &[][..] };
    let outer_count: usize = outer.iter().product();
    let total = outer_count * rows * n;
    // Decided before the thread count: finding rayon's pool asks the kernel for the process
    // id, a system call that costs more than a small launch's whole kernel.
    if num_threads == 1 || total < PARALLEL_THRESHOLD {
        // SAFETY: the caller's contract.
        unsafe { launch_serial(f, dims, ops) };
        return;
    }
    let threads = if num_threads == 0 {
        default_threads()
    } else {
        num_threads
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
        // SAFETY: the caller's contract.
        unsafe { launch_serial(f, dims, ops) };
        return;
    }
    let stride_of = |o: &Operand, d: Option<usize>| d.map_or(0, |d| o.strides[d] as i64);
    let inner: Vec<i64> = ops
        .iter()
        .map(|o| stride_of(o, nd.checked_sub(1)))
        .collect();
    let row: Vec<i64> = ops
        .iter()
        .map(|o| stride_of(o, nd.checked_sub(2)))
        .collect();
    // Addresses travel as integers so that the closures below can cross threads; the caller's
    // contract keeps every address formed here inside its operand.
    let base0: Vec<usize> = ops.iter().map(|o| o.base as usize).collect();
    let outer_strides: Vec<SmallVec<[isize; 4]>> = ops.iter().map(|o| o.strides.clone()).collect();
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
    match threads_for(num_threads) {
        Threads::Global => rayon::scope(|s| spawn_chunks(s, chunks, run)),
        Threads::Pool(pool) => pool.scope(|s| spawn_chunks(s, chunks, run)),
        Threads::Scoped => std::thread::scope(|s| {
            let per_thread = chunks.div_ceil(threads);
            for t in 0..threads {
                s.spawn(move || {
                    for c in t * per_thread..((t + 1) * per_thread).min(chunks) {
                        run(c);
                    }
                });
            }
        }),
    }
    fpstatus::raise(FpStatus(raised.into_inner()));
}

/// Spawns job `c` for each of `chunks` chunks into a pool's scope.
fn spawn_chunks<'s>(s: &rayon::Scope<'s>, chunks: usize, run: &'s (dyn Fn(usize) + Sync)) {
    for c in 0..chunks {
        s.spawn(move |_| run(c));
    }
}

/// `launch` on the calling thread: the small launches that dominate graphs of many small ops
/// allocate nothing (operand addressing lives on the stack for up to 8 operands), and outer
/// dims are walked by stepping the base pointers.
///
/// # Safety
/// As for [`launch`].
unsafe fn launch_serial(f: KernelFn, dims: &[usize], ops: &[Operand]) {
    let nd = dims.len();
    let stride_of = |o: &Operand, d: Option<usize>| d.map_or(0, |d| o.strides[d] as i64);
    let inner: SmallVec<[i64; 8]> = ops
        .iter()
        .map(|o| stride_of(o, nd.checked_sub(1)))
        .collect();
    let row: SmallVec<[i64; 8]> = ops
        .iter()
        .map(|o| stride_of(o, nd.checked_sub(2)))
        .collect();
    let mut bases: SmallVec<[*mut u8; 8]> = ops.iter().map(|o| o.base).collect();
    let n = if nd == 0 { 1 } else { dims[nd - 1] };
    let rows = if nd >= 2 { dims[nd - 2] } else { 1 };
    let outer = &dims[..nd.saturating_sub(2)];
    let mut idx: SmallVec<[usize; 4]> = smallvec![0; outer.len()];
    for _ in 0..outer.iter().product::<usize>() {
        // SAFETY: the bases address this outer index's rows, all in bounds.
        unsafe {
            f(
                bases.as_ptr(),
                row.as_ptr(),
                inner.as_ptr(),
                rows as i64,
                n as i64,
            )
        };
        for d in (0..outer.len()).rev() {
            idx[d] += 1;
            let back = if idx[d] < outer[d] {
                1
            } else {
                1 - outer[d] as isize
            };
            for (b, o) in bases.iter_mut().zip(ops) {
                *b = b.wrapping_offset(back * o.strides[d]);
            }
            if idx[d] < outer[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}
