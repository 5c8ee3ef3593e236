//! View ops as transformations of a strided layout, in elements (not bytes).
//!
//! The back end asks [`apply`] for the layout of a view's result from its operand's layout;
//! `None` means the view cannot share the operand's data (a reshape of non-contiguous data
//! that no strides can express) and a copy is needed first.

use crate::infer::infer;
use crate::infer::shapes::resolve_slice;
use crate::ir::{DType, Dim, Op, Type};

/// Where the elements of an array lie in a buffer: element `idx` is at
/// `offset + sum(idx[i] * strides[i])`, all in elements.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Layout {
    /// Position of element `[0, 0, ...]`.
    pub offset: isize,
    /// Sizes, outermost first.
    pub shape: Vec<usize>,
    /// Steps per axis, in elements (may be 0 for broadcast or negative for flipped axes).
    pub strides: Vec<isize>,
}

impl Layout {
    /// The row-major (C-contiguous) layout of a shape.
    pub fn contiguous(shape: &[usize]) -> Layout {
        let mut strides = vec![0isize; shape.len()];
        let mut step = 1isize;
        for i in (0..shape.len()).rev() {
            strides[i] = step;
            step *= shape[i].max(1) as isize;
        }
        Layout {
            offset: 0,
            shape: shape.to_vec(),
            strides,
        }
    }

    /// The number of elements.
    pub fn size(&self) -> usize {
        self.shape.iter().product()
    }

    /// Whether the elements are contiguous in row-major order (size-1 axes may have any stride).
    pub fn is_contiguous(&self) -> bool {
        let mut step = 1isize;
        for i in (0..self.shape.len()).rev() {
            if self.shape[i] != 1 && self.strides[i] != step {
                return self.size() == 0;
            }
            step *= self.shape[i] as isize;
        }
        true
    }

    /// The buffer position of each element in row-major order.
    pub fn positions(&self) -> Vec<isize> {
        let size = self.size();
        let mut out = Vec::with_capacity(size);
        let mut idx = vec![0usize; self.shape.len()];
        let mut pos = self.offset;
        for _ in 0..size {
            out.push(pos);
            for axis in (0..self.shape.len()).rev() {
                idx[axis] += 1;
                pos += self.strides[axis];
                if idx[axis] < self.shape[axis] {
                    break;
                }
                pos -= self.strides[axis] * self.shape[axis] as isize;
                idx[axis] = 0;
            }
        }
        out
    }
}

/// The layout of a view op's result, given its operand's layout and the result shape (the
/// static shape of the op's result type). `None` when the op is not a view, needs a copy, or
/// does not apply to a layout of that shape.
pub fn apply(input: &Layout, op: &Op, out_shape: &[usize]) -> Option<Layout> {
    // Anything that does not type-check (wrong rank, bad axes, another result shape) is no
    // view. Shape attributes may hold symbols, which stand for the sizes in `out_shape`.
    let dims = || out_shape.iter().map(|&n| Dim::Static(n)).collect();
    // Slice bounds counted from the end of a symbolic axis are resolved for the sizes here.
    let concrete = match op {
        Op::Reshape { .. } => Op::Reshape { shape: dims() },
        Op::BroadcastTo { .. } => Op::BroadcastTo { shape: dims() },
        Op::Slice { start, stop, step } => {
            let (start, stop) = resolve_slice(&input.shape, start, stop, step);
            Op::Slice {
                start,
                stop,
                step: step.clone(),
            }
        }
        _ => op.clone(),
    };
    let operand = Type::of(DType::F64, &input.shape);
    let inferred = infer(&concrete, &[&operand]).ok()?;
    if input.strides.len() != input.shape.len()
        || inferred.static_shape().as_deref() != Some(out_shape)
    {
        return None;
    }
    let Layout {
        offset,
        shape,
        strides,
    } = input;
    match &concrete {
        Op::Transpose { perm } => Some(Layout {
            offset: *offset,
            shape: perm.iter().map(|&p| shape[p]).collect(),
            strides: perm.iter().map(|&p| strides[p]).collect(),
        }),
        Op::Reshape { .. } => reshape(input, out_shape),
        Op::BroadcastTo { .. } => broadcast(input, out_shape),
        Op::ExpandDims { axes } => {
            let mut rest = strides.iter();
            let strides = (0..out_shape.len())
                .map(|i| {
                    if axes.contains(&i) {
                        0
                    } else {
                        rest.next().copied().unwrap_or(0)
                    }
                })
                .collect();
            Some(Layout {
                offset: *offset,
                shape: out_shape.to_vec(),
                strides,
            })
        }
        Op::Squeeze { axes } => Some(Layout {
            offset: *offset,
            shape: out_shape.to_vec(),
            strides: strides
                .iter()
                .enumerate()
                .filter(|(i, _)| !axes.contains(i))
                .map(|(_, s)| *s)
                .collect(),
        }),
        Op::Slice { start, step, .. } => {
            let mut offset = *offset;
            for i in 0..shape.len() {
                // An empty result never reads its start, which may be past the end.
                if out_shape[i] > 0 {
                    offset += start[i] as isize * strides[i];
                }
            }
            let strides = strides
                .iter()
                .zip(step)
                .map(|(s, k)| s * *k as isize)
                .collect();
            Some(Layout {
                offset,
                shape: out_shape.to_vec(),
                strides,
            })
        }
        Op::Flip { axes } => {
            let mut layout = input.clone();
            for &a in axes {
                if shape[a] > 0 {
                    layout.offset += (shape[a] as isize - 1) * strides[a];
                }
                layout.strides[a] = -strides[a];
            }
            Some(layout)
        }
        _ => None,
    }
}

/// The layout of `np.broadcast_to(x, out_shape)`: broadcast axes get stride 0.
pub fn broadcast(input: &Layout, out_shape: &[usize]) -> Option<Layout> {
    let lead = out_shape.len().checked_sub(input.shape.len())?;
    let strides = (0..out_shape.len())
        .map(|i| match i.checked_sub(lead) {
            Some(j) if input.shape[j] == out_shape[i] => input.strides[j],
            _ => 0,
        })
        .collect();
    Some(Layout {
        offset: input.offset,
        shape: out_shape.to_vec(),
        strides,
    })
}

/// A reshape without copying: each run of input axes that merges or splits must be
/// contiguous within itself (NumPy's `_attempt_nocopy_reshape`).
fn reshape(input: &Layout, out_shape: &[usize]) -> Option<Layout> {
    if input.size() == 0 || input.is_contiguous() {
        let mut layout = Layout::contiguous(out_shape);
        layout.offset = input.offset;
        return Some(layout);
    }
    // Drop size-1 axes of the input: they carry no stride information.
    let (old_shape, old_strides): (Vec<usize>, Vec<isize>) = input
        .shape
        .iter()
        .zip(&input.strides)
        .filter(|(n, _)| **n != 1)
        .map(|(n, s)| (*n, *s))
        .unzip();
    let mut new_strides = vec![0isize; out_shape.len()];
    let (mut oi, mut oj, mut ni, mut nj) = (0, 1, 0, 1);
    while ni < out_shape.len() && oi < old_shape.len() {
        let mut np = out_shape[ni];
        let mut op = old_shape[oi];
        while np != op {
            if np < op {
                np *= out_shape.get(nj)?;
                nj += 1;
            } else {
                op *= old_shape.get(oj)?;
                oj += 1;
            }
        }
        // The merged input axes oi..oj must be contiguous among themselves.
        for k in oi..oj - 1 {
            if old_strides[k] != old_strides[k + 1] * old_shape[k + 1] as isize {
                return None;
            }
        }
        new_strides[nj - 1] = old_strides[oj - 1];
        for k in (ni + 1..nj).rev() {
            new_strides[k - 1] = new_strides[k] * out_shape[k] as isize;
        }
        ni = nj;
        nj += 1;
        oi = oj;
        oj += 1;
    }
    // Trailing size-1 axes of the output.
    for s in new_strides.iter_mut().skip(ni) {
        *s = 1;
    }
    Some(Layout {
        offset: input.offset,
        shape: out_shape.to_vec(),
        strides: new_strides,
    })
}
