//! Running a static plan step by step: kernel launches (with their operands' views worked
//! out, or taken from a [`super::Prepared`] run), products, scans, loops and native statements.

use super::{ArrayView, ArrayViewMut, PreparedKernel, PreparedStep, StaticGraph};
use crate::exec::{self, Operand};
use crate::gather;
use crate::kernel::Scalar;
use crate::kernel::ScalarExt;
use crate::linalg;
use crate::matmul;
use crate::scan;
use crate::schedule::{IndexMap, Slot, Step, ValueRef};
use crate::Error;
use ember_core::views::{self, Layout};
use smallvec::{smallvec, SmallVec};

/// Where a slot's strides come from on the allocation-free operand path.
#[derive(Clone, Copy)]
enum Strides<'a> {
    /// A caller's array: byte strides.
    Bytes(&'a [isize]),
    /// A contiguous buffer of this shape.
    Contiguous(&'a [usize]),
}

/// One run of a static plan: its arrays and buffers, stepped through by [`StaticGraph`].
pub(super) struct Runtime<'a> {
    pub(super) g: &'a StaticGraph,
    pub(super) inputs: &'a [ArrayView],
    pub(super) outputs: &'a [ArrayViewMut],
    /// Each buffer's data (inline: a repeated call allocates nothing).
    pub(super) buffers: SmallVec<[*mut u8; 8]>,
    /// Contiguous copies made when a reshape cannot view a caller's strided array.
    pub(super) scratch: Vec<Vec<u128>>,
    /// Per step, the kernel launches and products worked out by an earlier run
    /// ([`super::Prepared`]).
    pub(super) prepared: Option<&'a mut Vec<Option<PreparedStep>>>,
}

impl Runtime<'_> {
    /// The data pointer of a slot.
    fn slot_data(&self, slot: Slot) -> *mut u8 {
        match slot {
            Slot::Input(i) => self.inputs[i].data as *mut u8,
            Slot::Output(i) => self.outputs[i].data,
            Slot::Temp(t) => self.buffers[self.g.temp_buffer[t]],
            Slot::Const(c) => self.g.consts[c].as_ptr() as *mut u8,
        }
    }

    fn slot(&self, slot: Slot, shape: &[usize]) -> (*mut u8, Scalar, Layout) {
        let plan = &self.g.plan;
        let from_bytes = |strides: &[isize], size: usize| Layout {
            offset: 0,
            shape: shape.to_vec(),
            strides: strides.iter().map(|s| s / size as isize).collect(),
        };
        match slot {
            Slot::Input(i) => {
                let d = plan.inputs[i].0;
                (
                    self.inputs[i].data as *mut u8,
                    d,
                    from_bytes(&self.inputs[i].strides, d.size()),
                )
            }
            Slot::Output(i) => {
                let d = plan.outputs[i].0;
                (
                    self.outputs[i].data,
                    d,
                    from_bytes(&self.outputs[i].strides, d.size()),
                )
            }
            Slot::Temp(t) => (
                self.buffers[self.g.temp_buffer[t]],
                plan.temps[t].0,
                Layout::contiguous(shape),
            ),
            Slot::Const(c) => (
                self.g.consts[c].as_ptr() as *mut u8,
                plan.consts[c].0,
                Layout::contiguous(shape),
            ),
        }
    }

    /// The data pointer and element layout of a value seen through its views.
    fn resolve(&mut self, vr: &ValueRef) -> (*mut u8, Scalar, Layout) {
        let (mut ptr, d, mut layout) = self.slot(vr.slot, &vr.base_shape);
        for (op, shape) in &vr.views {
            layout = match views::apply(&layout, op, shape) {
                Some(l) => l,
                None => {
                    let size = d.size();
                    let n = layout.size();
                    let mut copy = vec![0u128; (n * size).div_ceil(16)];
                    let dst = copy.as_mut_ptr() as *mut u8;
                    let packed = Layout::contiguous(&layout.shape);
                    // SAFETY: `layout` addresses elements of the source array; `copy` holds
                    // `n` contiguous elements.
                    unsafe { crate::strided::copy(ptr, &layout, dst, &packed, size) };
                    self.scratch.push(copy);
                    ptr = dst;
                    views::apply(&Layout::contiguous(&layout.shape), op, shape)
                        .expect("a contiguous array can be reshaped")
                }
            };
        }
        (ptr, d, layout)
    }

    /// The data pointer, element size and element strides of a slot read without views,
    /// with no allocation: caller arrays give their own strides, temps and constants are
    /// contiguous.
    fn direct<'s>(&'s self, vr: &'s ValueRef) -> (*mut u8, usize, Strides<'s>) {
        let plan = &self.g.plan;
        match vr.slot {
            Slot::Input(i) => (
                self.inputs[i].data as *mut u8,
                plan.inputs[i].0.size(),
                Strides::Bytes(&self.inputs[i].strides),
            ),
            Slot::Output(i) => (
                self.outputs[i].data,
                plan.outputs[i].0.size(),
                Strides::Bytes(&self.outputs[i].strides),
            ),
            Slot::Temp(t) => (
                self.buffers[self.g.temp_buffer[t]],
                plan.temps[t].0.size(),
                Strides::Contiguous(&vr.base_shape),
            ),
            Slot::Const(c) => (
                self.g.consts[c].as_ptr() as *mut u8,
                plan.consts[c].0.size(),
                Strides::Contiguous(&vr.base_shape),
            ),
        }
    }

    fn native(
        &mut self,
        index: usize,
        native: usize,
        operands: &[ValueRef],
        results: &[ValueRef],
    ) -> Result<(), Error> {
        use crate::native::run;
        let f = self.g.natives[native];
        if let Some(Some(PreparedStep::Native(call, at))) =
            self.prepared.as_ref().map(|p| &p[index])
        {
            let origin = |a: &Option<(Slot, isize)>| match a {
                Some((slot, offset)) => self.slot_data(*slot).wrapping_offset(*offset),
                None => std::ptr::null_mut(),
            };
            let ops: SmallVec<[*mut u8; 8]> = at[..operands.len()].iter().map(origin).collect();
            let outs: SmallVec<[*mut u8; 4]> = at[operands.len()..].iter().map(origin).collect();
            // SAFETY: as below, for the layouts of the run that prepared it, which this
            // run's arrays share.
            return unsafe { run::call_prepared(f, call, &ops, &outs) };
        }
        let scratch = self.scratch.len();
        // Constant operands are compiled in: a null pointer stands for them.
        let ops: Vec<_> = operands
            .iter()
            .map(|v| {
                if v.slot == crate::native::COMPILED_IN {
                    (std::ptr::null_mut(), Scalar::I64, Layout::contiguous(&[]))
                } else {
                    self.resolve(v)
                }
            })
            .collect();
        let outs: Vec<_> = results.iter().map(|v| self.resolve(v)).collect();
        let call = run::prepare(&self.g.plan.natives[native], &ops, &outs);
        let origins: Vec<*mut u8> = ops.iter().chain(&outs).map(run::origin).collect();
        // SAFETY: operands resolve to checked caller arrays or planned buffers; results are
        // fresh temps (never shared with an operand: a temp is reused only after its last
        // reader ran), and the function is the one compiled for this statement.
        let outcome =
            unsafe { run::call_prepared(f, &call, &origins[..ops.len()], &origins[ops.len()..]) };
        // An operand copied to scratch memory has an address of this run only.
        if self.prepared.is_some() && self.scratch.len() == scratch {
            let at = operands
                .iter()
                .chain(results)
                .zip(&origins)
                .map(|(v, &ptr)| {
                    (v.slot != crate::native::COMPILED_IN).then(|| {
                        (
                            v.slot,
                            (ptr as isize).wrapping_sub(self.slot_data(v.slot) as isize),
                        )
                    })
                })
                .collect();
            if let Some(prepared) = self.prepared.as_mut() {
                prepared[index] = Some(PreparedStep::Native(call, at));
            }
        }
        outcome
    }

    fn operand(&mut self, vr: &ValueRef, map: &IndexMap, ndims: usize) -> Operand {
        if vr.views.is_empty() {
            let (ptr, size, strides) = self.direct(vr);
            let mut pos = 0isize;
            let mut out: SmallVec<[isize; 4]> = smallvec![0isize; ndims];
            let mut inner = 1isize;
            for (a, m) in map.iter().enumerate().rev() {
                // Strides in elements, as the views path computes them.
                let stride = match strides {
                    Strides::Bytes(b) => b[a] / size as isize,
                    Strides::Contiguous(shape) => {
                        let s = inner;
                        inner *= shape[a].max(1) as isize;
                        s
                    }
                };
                pos += m.start * stride;
                if let Some(k) = m.dim {
                    out[k] += m.step * stride * size as isize;
                }
            }
            return Operand {
                base: ptr.wrapping_offset(pos * size as isize),
                strides: out,
            };
        }
        let (ptr, d, l) = self.resolve(vr);
        let size = d.size() as isize;
        let mut pos = l.offset;
        let mut strides: SmallVec<[isize; 4]> = smallvec![0isize; ndims];
        for (a, m) in map.iter().enumerate() {
            pos += m.start * l.strides[a];
            if let Some(k) = m.dim {
                strides[k] += m.step * l.strides[a] * size;
            }
        }
        Operand {
            base: ptr.wrapping_offset(pos * size),
            strides,
        }
    }

    /// A kernel launch as a [`super::Prepared`] holds it.
    fn prepare_kernel(&self, ops: &[(&ValueRef, Operand)], dims: Vec<usize>) -> PreparedKernel {
        let origins = ops
            .iter()
            .map(|(v, o)| {
                let data = self.slot_data(v.slot);
                (v.slot, (o.base as isize).wrapping_sub(data as isize))
            })
            .collect();
        let operands = ops.iter().map(|(_, o)| o.clone()).collect();
        PreparedKernel {
            dims,
            origins,
            operands,
        }
    }

    pub(super) fn step(&mut self, index: usize, step: &Step) -> Result<(), Error> {
        match step {
            Step::Native {
                native,
                operands,
                results,
            } => return self.native(index, *native, operands, results),
            Step::BodyLoop {
                body,
                carried,
                operands,
                results,
            } => {
                let ops: Vec<_> = operands.iter().map(|v| self.resolve(v)).collect();
                let outs: Vec<_> = results.iter().map(|v| self.resolve(v)).collect();
                let body = &self.g.bodies[*body];
                let mut state = match self.prepared.as_mut().map(|p| p[index].take()) {
                    Some(Some(PreparedStep::BodyLoop(state))) => Some(state),
                    _ => None,
                };
                // SAFETY: operands resolve to checked caller arrays or planned buffers, results
                // to fresh temps or caller outputs of the carried types; a state kept is from a
                // run on arrays of these layouts.
                let outcome =
                    unsafe { crate::body_loop::run(body, *carried, &ops, &outs, &mut state) };
                // Kept for the next run on these layouts; an error drops what a trip left.
                match (self.prepared.as_mut(), state) {
                    (Some(prepared), Some(state)) if outcome.is_ok() => {
                        prepared[index] = Some(PreparedStep::BodyLoop(state));
                    }
                    (_, Some(state)) => state.release(body),
                    _ => {}
                }
                return outcome;
            }
            Step::BodyIf {
                then,
                otherwise,
                operands,
                results,
            } => {
                let ops: Vec<_> = operands.iter().map(|v| self.resolve(v)).collect();
                let outs: Vec<_> = results.iter().map(|v| self.resolve(v)).collect();
                let mut kept = match self.prepared.as_mut().map(|p| p[index].take()) {
                    Some(Some(PreparedStep::BodyIf(kept))) => kept,
                    _ => Box::default(),
                };
                // SAFETY: operands resolve to checked caller arrays or planned buffers (the
                // first a 0-d bool), results to fresh temps or caller outputs of the regions'
                // result types.
                let outcome = unsafe {
                    crate::body_loop::run_if(
                        [&self.g.bodies[*then], &self.g.bodies[*otherwise]],
                        &ops,
                        &outs,
                        &mut kept,
                    )
                };
                match self.prepared.as_mut() {
                    Some(prepared) if outcome.is_ok() => {
                        prepared[index] = Some(PreparedStep::BodyIf(kept));
                    }
                    _ => {
                        let [a, b] = *kept;
                        self.g.bodies[*then].release(a);
                        self.g.bodies[*otherwise].release(b);
                    }
                }
                return outcome;
            }
            Step::Kernel {
                kernel,
                dims,
                operands,
                collapse,
                serial,
            } => {
                // Serial kernels accumulate every row into one output row: no row splitting.
                let small = || {
                    self.g.memory_bound[*kernel]
                        && dims.iter().product::<usize>() < exec::MEMORY_BOUND_THRESHOLD
                };
                let threads = if *serial || small() {
                    1
                } else {
                    self.g.options.num_threads
                };
                let f = self.g.fns[*kernel];
                let bases = match self.prepared.as_deref().map(|p| &p[index]) {
                    Some(Some(PreparedStep::Kernel(p))) => Some(
                        p.origins
                            .iter()
                            .map(|&(slot, offset)| self.slot_data(slot).wrapping_offset(offset))
                            .collect::<SmallVec<[*mut u8; 8]>>(),
                    ),
                    _ => None,
                };
                if let (Some(bases), Some(Some(PreparedStep::Kernel(p)))) =
                    (bases, self.prepared.as_deref_mut().map(|p| &mut p[index]))
                {
                    for (op, base) in p.operands.iter_mut().zip(bases) {
                        op.base = base;
                    }
                    // SAFETY: as below, for the layouts of the run that prepared it, which
                    // this run's arrays share; every base is this run's.
                    unsafe { exec::launch(f, &p.dims, &p.operands, threads, *collapse) };
                    return Ok(());
                }
                let scratch = self.scratch.len();
                let mut ops: SmallVec<[Operand; 8]> = operands
                    .iter()
                    .map(|(v, m)| self.operand(v, m, dims.len()))
                    .collect();
                let dims = if *collapse {
                    exec::collapse(dims, &mut ops)
                } else {
                    dims.clone()
                };
                // SAFETY: shapes were checked against the graph's types, and every operand's
                // strides come from those shapes through views the core validated; only
                // elementwise (collapsible) kernels may be split inside a row.
                unsafe { exec::launch(f, &dims, &ops, threads, *collapse) };
                // An operand copied to scratch memory has an address of this run only.
                if self.prepared.is_some() && self.scratch.len() == scratch {
                    let pairs: SmallVec<[(&ValueRef, Operand); 8]> =
                        operands.iter().map(|(v, _)| v).zip(ops).collect();
                    let p = self.prepare_kernel(&pairs, dims);
                    if let Some(prepared) = self.prepared.as_mut() {
                        prepared[index] = Some(PreparedStep::Kernel(p));
                    }
                }
            }
            Step::Scan {
                kind,
                axis,
                input,
                out,
                dtype,
                in_dtype,
            } => {
                let (pi, _, li) = self.resolve(input);
                let (po, _, lo) = self.resolve(out);
                // SAFETY: as for kernels; `out` is a fresh temp or a caller output of the
                // input's shape, of `dtype` (`i64` for argsort), the input of `in_dtype`.
                unsafe { scan::scan(*kind, *dtype, *in_dtype, *axis, (pi, &li), (po, &lo)) };
            }
            Step::Indexed {
                scatter,
                axis,
                inputs,
                out,
            } => {
                let inputs: SmallVec<[(*mut u8, Scalar, Layout); 4]> =
                    inputs.iter().map(|x| self.resolve(x)).collect();
                let (po, _, lo) = self.resolve(out);
                // SAFETY: as for kernels; the operands have the types the op's rule checked
                // (integer index arrays broadcasting to the indexed shape), `out` is a fresh
                // temp or a caller output of the result's type, overlapping no operand.
                unsafe { gather::run(*scatter, *axis, &inputs, (po, &lo)) }?;
            }
            Step::Linalg { kind, inputs, out } => {
                let inputs: SmallVec<[(*const f64, Layout); 3]> = inputs
                    .iter()
                    .map(|x| {
                        let (p, _, l) = self.resolve(x);
                        (p as *const f64, l)
                    })
                    .collect();
                let (po, _, lo) = self.resolve(out);
                // SAFETY: as for kernels; every operand is `f64` of the shapes the op's type
                // rule gives, `out` a fresh temp or a caller output.
                unsafe { linalg::run(*kind, &inputs, (po as *mut f64, &lo)) }?;
            }
            Step::Matmul {
                a,
                b,
                out,
                dtype,
                update,
            } => {
                let threads = self.g.options.num_threads;
                if let Some(Some(PreparedStep::Matmul(planned, at))) =
                    self.prepared.as_ref().map(|p| &p[index])
                {
                    let [pa, pb, po] =
                        at.map(|(slot, offset)| self.slot_data(slot).wrapping_offset(offset));
                    // SAFETY: as below, for the layouts of the run that planned it, which
                    // this run's arrays share.
                    unsafe { matmul::run(*dtype, planned, pa, pb, po, threads, *update) };
                    return Ok(());
                }
                let scratch = self.scratch.len();
                let (pa, _, la) = self.resolve(a);
                let (pb, _, lb) = self.resolve(b);
                let (po, _, lo) = self.resolve(out);
                let planned = matmul::plan(*dtype, &la, &lb, &lo);
                // SAFETY: as for kernels; `out` is a fresh temp or a caller output.
                unsafe { matmul::run(*dtype, &planned, pa, pb, po, threads, *update) };
                // An operand copied to scratch memory has an address of this run only.
                if self.prepared.is_some() && self.scratch.len() == scratch {
                    let at = [(a, pa), (b, pb), (out, po)].map(|(v, ptr)| {
                        (
                            v.slot,
                            (ptr as isize).wrapping_sub(self.slot_data(v.slot) as isize),
                        )
                    });
                    if let Some(prepared) = self.prepared.as_mut() {
                        prepared[index] = Some(PreparedStep::Matmul(planned, at));
                    }
                }
            }
        }
        Ok(())
    }
}
