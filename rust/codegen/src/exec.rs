//! Running a compiled kernel over an iteration space of any rank.
//!
//! A launch is the kernel plus, per buffer, a base pointer and byte strides over the
//! iteration dims; the last dim is the inner extent, the one before it the native row loop,
//! and any dims further out are walked here. Large launches split the rows across threads.

use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};

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

/// When [`idle_cores`] last read the machine's load (coarse monotonic milliseconds, plus 1 so
/// that 0 means never) and what it found.
static LOAD_READ_AT: AtomicU64 = AtomicU64::new(0);
static IDLE_CORES: AtomicUsize = AtomicUsize::new(1);

/// The machine's cores that no other runnable thread wants now, at least 1: its online cores
/// less the other threads `/proc/loadavg` counts as running, read at most every 20 ms.
/// Threads handed a share of a launch on a machine busier than its cores wait their turn,
/// and the launch waits for the last of them: a 256x256 product took 340 ms instead of
/// 0.3 ms at a load of 14 on 2 cores. Where the load cannot be read, every core counts.
pub fn idle_cores() -> usize {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec to write; the coarse clock is a vDSO read.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC_COARSE, &mut ts) };
    let now = ts.tv_sec as u64 * 1000 + ts.tv_nsec as u64 / 1_000_000 + 1;
    let last = LOAD_READ_AT.load(Ordering::Relaxed);
    if last != 0 && now.saturating_sub(last) < 20 {
        return IDLE_CORES.load(Ordering::Relaxed);
    }
    LOAD_READ_AT.store(now, Ordering::Relaxed);
    // SAFETY: `sysconf` only reads a configuration value.
    let online = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) }.max(1) as usize;
    // The fourth field is `running/total`, this thread among the running.
    let running = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| {
            let field = s.split_whitespace().nth(3)?;
            field.split('/').next()?.parse::<usize>().ok()
        })
        .unwrap_or(1);
    let idle = online.saturating_sub(running.saturating_sub(1)).max(1);
    IDLE_CORES.store(idle, Ordering::Relaxed);
    idle
}

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
    // The default count adapts to the machine's load; a count asked for is used as it is.
    let threads = if num_threads == 0 {
        default_threads().min(idle_cores())
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
        // SAFETY: `run` is called for chunks below `chunks` only.
        Threads::Global => unsafe { share(None, threads - 1, chunks, run) },
        Threads::Pool(pool) => unsafe { share(Some(pool), threads - 1, chunks, run) },
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

/// The chunks of one launch that [`share`] hands out, and who is running them.
struct Shared {
    /// The next chunk to claim (at or past `chunks` once all are claimed).
    next: AtomicUsize,
    chunks: usize,
    /// Pool threads between their check of `closed` and their return.
    active: AtomicUsize,
    /// Set by the caller once it has claimed its last chunk: a pool thread that starts later
    /// returns without touching `run`.
    closed: AtomicBool,
    /// The launch's chunk function, valid while the caller is in [`share`].
    run: *const (dyn Fn(usize) + Sync + 'static),
}

// SAFETY: `run` is a `Sync` closure only called while the caller keeps it alive (see `share`);
// the rest is atomics.
unsafe impl Send for Shared {}
unsafe impl Sync for Shared {}

impl Shared {
    /// Runs chunks until none is left.
    fn claim(&self) {
        loop {
            let c = self.next.fetch_add(1, Ordering::SeqCst);
            if c >= self.chunks {
                return;
            }
            // SAFETY: the caller of `share` is still inside it (it waits for `active`).
            unsafe { (*self.run)(c) };
        }
    }
}

/// Runs `run(c)` for every chunk `c < chunks` on the calling thread and on up to `helpers`
/// pool threads, each claiming the next chunk until none is left. The caller works too, and
/// never waits for a pool thread that has not started (one that starts late finds the chunks
/// gone and returns): on a machine busier than its cores, where a pool thread may be off its
/// core for milliseconds, the caller does the work itself instead of sleeping until every
/// thread it woke has had its turn. It waits only for the chunks pool threads are running,
/// spinning briefly, then yielding its core to them.
///
/// # Safety
/// `run` must be callable for every chunk below `chunks` from any thread.
unsafe fn share(
    pool: Option<&'static rayon::ThreadPool>,
    helpers: usize,
    chunks: usize,
    run: &(dyn Fn(usize) + Sync),
) {
    // SAFETY: the lifetime is only erased; `share` returns after the last call through it
    // (pool threads check `closed` after announcing themselves in `active`).
    let run: &'static (dyn Fn(usize) + Sync) = unsafe { std::mem::transmute(run) };
    let shared = std::sync::Arc::new(Shared {
        next: AtomicUsize::new(0),
        chunks,
        active: AtomicUsize::new(0),
        closed: AtomicBool::new(false),
        run,
    });
    for _ in 0..helpers.min(chunks.saturating_sub(1)) {
        let shared = shared.clone();
        let job = move || {
            shared.active.fetch_add(1, Ordering::SeqCst);
            if !shared.closed.load(Ordering::SeqCst) {
                shared.claim();
            }
            shared.active.fetch_sub(1, Ordering::SeqCst);
        };
        match pool {
            Some(pool) => pool.spawn(job),
            None => rayon::spawn(job),
        }
    }
    shared.claim();
    shared.closed.store(true, Ordering::SeqCst);
    let mut spins = 0u32;
    while shared.active.load(Ordering::SeqCst) != 0 {
        if spins < 1000 {
            std::hint::spin_loop();
            spins += 1;
        } else {
            std::thread::yield_now();
        }
    }
}

/// `launch` on the calling thread: the small launches that dominate graphs of many small ops
/// allocate nothing (operand addressing lives on the stack for up to 8 operands), and outer
/// dims are walked by stepping the base pointers.
///
/// # Safety
/// As for [`launch`].
unsafe fn launch_serial(f: KernelFn, dims: &[usize], ops: &[Operand]) {
    // Up to `INLINE` operands (nearly every kernel) the stride and base arrays the kernel
    // reads live in fixed arrays on the stack: a small launch builds no collection.
    const INLINE: usize = 8;
    let nd = dims.len();
    let stride_of = |o: &Operand, d: Option<usize>| d.map_or(0, |d| o.strides[d] as i64);
    if ops.len() <= INLINE {
        let mut inner = [0i64; INLINE];
        let mut row = [0i64; INLINE];
        let mut bases = [std::ptr::null_mut::<u8>(); INLINE];
        for (k, o) in ops.iter().enumerate() {
            inner[k] = stride_of(o, nd.checked_sub(1));
            row[k] = stride_of(o, nd.checked_sub(2));
            bases[k] = o.base;
        }
        // SAFETY: the caller's contract.
        unsafe { serial_rows(f, dims, ops, &inner, &row, &mut bases[..ops.len()]) };
        return;
    }
    let inner: Vec<i64> = ops
        .iter()
        .map(|o| stride_of(o, nd.checked_sub(1)))
        .collect();
    let row: Vec<i64> = ops
        .iter()
        .map(|o| stride_of(o, nd.checked_sub(2)))
        .collect();
    let mut bases: Vec<*mut u8> = ops.iter().map(|o| o.base).collect();
    // SAFETY: the caller's contract.
    unsafe { serial_rows(f, dims, ops, &inner, &row, &mut bases) };
}

/// [`launch_serial`]'s loop over the outer dims, from each operand's inner and row strides
/// and its base address (one per operand, in order; `bases` is walked in place).
///
/// # Safety
/// As for [`launch`].
unsafe fn serial_rows(
    f: KernelFn,
    dims: &[usize],
    ops: &[Operand],
    inner: &[i64],
    row: &[i64],
    bases: &mut [*mut u8],
) {
    let nd = dims.len();
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
