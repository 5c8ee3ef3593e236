//! Loops whose body computes with whole arrays (a Jacobi sweep over slices): the body is a
//! graph compiled on its own, run once per iteration on two sets of carried buffers that take
//! turns as input and output, so no iteration allocates: the views of both turns are made
//! once, and the body's kernel launches are worked out on the first trip ([`Prepared`]).
//! An `if` whose regions compute with arrays (`if len(members) > 0: c[j] = members.mean(0)`)
//! runs one of its two region graphs straight on the operands and results ([`run_if`]).

use crate::graph::{ArrayView, ArrayViewMut, CompiledGraph, Prepared};
use crate::kernel::Scalar;
use crate::kernel::ScalarExt;
use crate::Error;
use ember_core::views::Layout;

/// An array resolved by the runtime: data pointer, dtype and element layout.
pub(crate) type Resolved = (*mut u8, Scalar, Layout);

fn byte_strides(d: Scalar, l: &Layout) -> Vec<isize> {
    l.strides.iter().map(|s| s * d.size() as isize).collect()
}

fn origin(r: &Resolved) -> *mut u8 {
    r.0.wrapping_offset(r.2.offset * r.1.size() as isize)
}

/// A C-contiguous, 16-byte aligned buffer for one carried value.
struct Buffer {
    words: Vec<u128>,
    dtype: Scalar,
    shape: Vec<usize>,
}

impl Buffer {
    fn new(dtype: Scalar, shape: &[usize]) -> Buffer {
        let n: usize = shape.iter().product();
        Buffer {
            words: vec![0; (n * dtype.size()).div_ceil(16).max(1)],
            dtype,
            shape: shape.to_vec(),
        }
    }

    fn strides(&self) -> Vec<isize> {
        byte_strides(self.dtype, &Layout::contiguous(&self.shape))
    }

    fn view(&self) -> ArrayView {
        // SAFETY: the buffer holds `shape` contiguous elements of `dtype`.
        unsafe {
            ArrayView::new(
                self.words.as_ptr() as *const u8,
                self.dtype,
                self.shape.clone(),
                self.strides(),
            )
        }
    }

    fn view_mut(&mut self) -> ArrayViewMut {
        // SAFETY: as for `view`; the caller uses it while nothing else reads the buffer.
        unsafe {
            ArrayViewMut::new(
                self.words.as_mut_ptr() as *mut u8,
                self.dtype,
                self.shape.clone(),
                self.strides(),
            )
        }
    }

    /// Whether a resolved array of this buffer's dtype and shape lies as the buffer does
    /// (its views of the buffer serve for it as they are).
    fn packs(&self, r: &Resolved) -> bool {
        r.1 == self.dtype
            && r.2.shape == self.shape
            && r.2.strides == Layout::contiguous(&self.shape).strides
    }

    /// Copies from or to a resolved array of the same dtype and shape.
    fn exchange(&mut self, other: &Resolved, into_self: bool) {
        let size = self.dtype.size();
        let mine = self.words.as_mut_ptr() as *mut u8;
        let packed = Layout::contiguous(&self.shape);
        // SAFETY: `other` addresses elements of its array (positions from its data pointer),
        // this buffer holds `shape` contiguous elements, and the two never overlap.
        unsafe {
            if into_self {
                crate::strided::copy(other.0, &other.2, mine, &packed, size)
            } else {
                crate::strided::copy(mine, &packed, other.0, &other.2, size)
            }
        }
    }
}

fn read_i64(r: &Resolved) -> i64 {
    // SAFETY: a 0-d i64 operand (the verifier's loop signature) at its origin.
    unsafe { (origin(r) as *const i64).read_unaligned() }
}

/// What a loop keeps between its runs on operands of the same layouts (a compiled
/// function called again, an inner loop on every trip of an outer one): both sets of
/// carried buffers, the index and `go` buffers, the views of both turns and the body's
/// [`Prepared`], so that a run only copies the initial values in and the results out.
pub(crate) struct State {
    current: Vec<Buffer>,
    next: Vec<Buffer>,
    // The views point into these buffers' heap memory, which never moves.
    _index: Buffer,
    _go: Buffer,
    index_at: *mut i64,
    go_at: *const u8,
    even: (Vec<ArrayView>, Vec<ArrayViewMut>),
    odd: (Vec<ArrayView>, Vec<ArrayViewMut>),
    prepared: Prepared,
}

// SAFETY: the raw pointers address the state's own buffers (heap memory it owns) and the
// invariant operands of the run using it, refreshed at the start of every run; a state is
// used by one run at a time.
unsafe impl Send for State {}

impl State {
    /// Buffers shaped as the carried operands, views of both turns over them and the
    /// invariant operands.
    fn new(operands: &[Resolved], carried: usize) -> Box<State> {
        let current: Vec<Buffer> = operands[3..3 + carried]
            .iter()
            .map(|r| Buffer::new(r.1, &r.2.shape))
            .collect();
        let mut next: Vec<Buffer> = current
            .iter()
            .map(|b| Buffer::new(b.dtype, &b.shape))
            .collect();
        let mut current = current;
        let mut index = Buffer::new(Scalar::I64, &[]);
        let mut go = Buffer::new(Scalar::Bool, &[]);
        // Views of the invariant operands (readable arrays of their layouts, the caller's
        // promise); later runs refresh their data pointers.
        let invariants: Vec<ArrayView> = operands[3 + carried..].iter().map(view_of).collect();
        let mut views = |from: &[Buffer], to: &mut [Buffer]| {
            let mut inputs = vec![index.view()];
            inputs.extend(from.iter().map(Buffer::view));
            inputs.extend(invariants.iter().cloned());
            let mut outputs = vec![go.view_mut()];
            outputs.extend(to.iter_mut().map(Buffer::view_mut));
            (inputs, outputs)
        };
        let even = views(&current, &mut next);
        let odd = views(&next, &mut current);
        Box::new(State {
            current,
            next,
            index_at: index.words.as_mut_ptr() as *mut i64,
            go_at: go.words.as_ptr() as *const u8,
            _index: index,
            _go: go,
            even,
            odd,
            prepared: Prepared::default(),
        })
    }

    /// Points both turns' views of the invariant operands at this run's arrays.
    fn refresh(&mut self, operands: &[Resolved], carried: usize) {
        let first = 1 + carried;
        for (k, r) in operands[3 + carried..].iter().enumerate() {
            self.even.0[first + k].data = origin(r);
            self.odd.0[first + k].data = origin(r);
        }
    }

    /// Points the first turn's carried inputs at the buffers again.
    fn point_inputs_back(&mut self) {
        for (k, b) in self.current.iter().enumerate() {
            self.even.0[1 + k].data = b.words.as_ptr() as *const u8;
        }
    }

    /// Points both turns' carried outputs at the buffers again.
    fn point_outputs_back(&mut self) {
        for (k, b) in self.next.iter_mut().enumerate() {
            self.even.1[1 + k].data = b.words.as_mut_ptr() as *mut u8;
        }
        for (k, b) in self.current.iter_mut().enumerate() {
            self.odd.1[1 + k].data = b.words.as_mut_ptr() as *mut u8;
        }
    }

    /// Hands the body's buffers back to its pool.
    pub(crate) fn release(self: Box<State>, body: &CompiledGraph) {
        body.release(self.prepared);
    }
}

/// Runs `for i in range(lo, hi, step)` with `body` over operands `lo, hi, step, c.., k..`,
/// writing the final carried values into `results`. `state`: what an earlier run on
/// operands of the same layouts kept (None: made here, and left there for the next run).
///
/// # Safety
/// Operands must address readable memory of their layouts, results writable memory of theirs.
pub(crate) unsafe fn run(
    body: &CompiledGraph,
    carried: usize,
    operands: &[Resolved],
    results: &[Resolved],
    state: &mut Option<Box<State>>,
) -> Result<(), Error> {
    let (lo, hi, step) = (
        read_i64(&operands[0]),
        read_i64(&operands[1]),
        read_i64(&operands[2]),
    );
    if step == 0 {
        return Err(Error::Value(ember_core::interp::RANGE_STEP_ZERO.into()));
    }
    let st = match state {
        Some(st) => {
            st.refresh(operands, carried);
            st
        }
        None => state.insert(State::new(operands, carried)),
    };
    let (lo, hi, step) = (i128::from(lo), i128::from(hi), i128::from(step));
    let planned = trips_of(lo, hi, step);
    // The first trip reads each packed carried operand where it lies, and the last trip
    // the range plans writes each packed result overlapping no operand where it goes:
    // copying them through the buffers would add two passes over the carried arrays to
    // every run. The others go through the buffers, as does every value of a loop that
    // runs no trip or ends early.
    let carried_ops = &operands[3..3 + carried];
    let read_in: Vec<bool> = carried_ops
        .iter()
        .zip(&st.current)
        .map(|(r, b)| planned > 0 && b.packs(r))
        .collect();
    let written_out: Vec<bool> = results
        .iter()
        .zip(&st.current)
        .map(|(r, b)| planned > 0 && b.packs(r) && operands.iter().all(|o| !overlap(o, r)))
        .collect();
    for (k, (b, r)) in st.current.iter_mut().zip(carried_ops).enumerate() {
        if read_in[k] {
            st.even.0[1 + k].data = origin(r);
        } else {
            b.exchange(r, true);
        }
    }
    // The two sets of carried buffers take turns: even trips read `current` and write
    // `next`, odd trips the other way round. Their views were made once (the buffers never
    // move), so a trip allocates nothing.
    let mut i = lo;
    let mut trips = 0i128;
    let mut outcome = Ok(());
    while (step > 0 && i < hi) || (step < 0 && i > hi) {
        // SAFETY: the index buffer holds one i64; the body reads it only during the run.
        unsafe { st.index_at.write(i as i64) };
        let turn = if trips % 2 == 0 {
            &mut st.even
        } else {
            &mut st.odd
        };
        if trips + 1 == planned {
            for (k, r) in results.iter().enumerate() {
                if written_out[k] {
                    turn.1[1 + k].data = origin(r);
                }
            }
        }
        trips += 1;
        let result = body.run_trip(&turn.0, &turn.1, &mut st.prepared);
        if trips == 1 {
            st.point_inputs_back();
        }
        if trips == planned {
            st.point_outputs_back();
        }
        if let Err(e) = result {
            outcome = Err(e);
            break;
        }
        // SAFETY: the body wrote its `go` result, one bool, into the buffer.
        if unsafe { st.go_at.read() } == 0 {
            break;
        }
        i += step;
    }
    st.point_inputs_back();
    outcome?;
    let last = if trips % 2 == 0 {
        &mut st.current
    } else {
        &mut st.next
    };
    let direct = trips == planned;
    for (k, (b, r)) in last.iter_mut().zip(results).enumerate() {
        if !(direct && written_out[k]) {
            b.exchange(r, false);
        }
    }
    Ok(())
}

/// How many trips `range(lo, hi, step)` makes.
fn trips_of(lo: i128, hi: i128, step: i128) -> i128 {
    if step > 0 && hi > lo {
        (hi - lo + step - 1) / step
    } else if step < 0 && hi < lo {
        (lo - hi - step - 1) / -step
    } else {
        0
    }
}

/// The first and one past the last byte an array's elements take (empty for no elements).
fn extent(r: &Resolved) -> (isize, isize) {
    if r.2.shape.contains(&0) {
        return (0, 0);
    }
    let size = r.1.size() as isize;
    let (mut lo, mut hi) = (r.2.offset, r.2.offset);
    for (&n, &s) in r.2.shape.iter().zip(&r.2.strides) {
        let far = (n as isize - 1) * s;
        if far < 0 {
            lo += far;
        } else {
            hi += far;
        }
    }
    let base = r.0 as isize;
    (base + lo * size, base + (hi + 1) * size)
}

/// Whether two arrays share a byte (by the bytes between their first and last elements).
fn overlap(a: &Resolved, b: &Resolved) -> bool {
    let ((a0, a1), (b0, b1)) = (extent(a), extent(b));
    a0 < a1 && b0 < b1 && a0 < b1 && b0 < a1
}

/// A read-only view of a resolved array.
fn view_of(r: &Resolved) -> ArrayView {
    // SAFETY: the runtime resolved `r` to readable memory of its layout.
    unsafe { ArrayView::new(origin(r), r.1, r.2.shape.clone(), byte_strides(r.1, &r.2)) }
}

/// A writable view of a resolved array.
///
/// # Safety
/// `r` addresses writable memory of its layout that nothing else reads while it is used.
unsafe fn view_mut_of(r: &Resolved) -> ArrayViewMut {
    // SAFETY: the caller's promise.
    unsafe { ArrayViewMut::new(origin(r), r.1, r.2.shape.clone(), byte_strides(r.1, &r.2)) }
}

/// Runs `then(a)` if `cond` else `otherwise(a)` over operands `cond, a..`, writing the
/// region's results into `results`. `kept`: what earlier
/// runs of each region on operands of these layouts kept.
///
/// # Safety
/// Operands must address readable memory of their layouts (the first one 0-d bool), results
/// writable memory of theirs that no operand overlaps.
pub(crate) unsafe fn run_if(
    regions: [&CompiledGraph; 2],
    operands: &[Resolved],
    results: &[Resolved],
    kept: &mut [Prepared; 2],
) -> Result<(), Error> {
    // SAFETY: the condition is one bool at its origin.
    let taken = unsafe { origin(&operands[0]).read() } != 0;
    let k = usize::from(!taken);
    let inputs: Vec<ArrayView> = operands[1..].iter().map(view_of).collect();
    // SAFETY: the caller's promise: results are writable and overlap no operand.
    let outputs: Vec<ArrayViewMut> = results.iter().map(|r| unsafe { view_mut_of(r) }).collect();
    regions[k].run_trip(&inputs, &outputs, &mut kept[k])
}
