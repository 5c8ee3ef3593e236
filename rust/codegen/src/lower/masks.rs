//! Bool results of vector stages in memory.
//!
//! In a vector stage a bool is a lane mask as wide as the stage's other lanes (all ones for
//! true), and NumPy stores one byte, 0 or 1, per element. Rather than make every stage with a
//! bool output scalar (a compare of `f64` lanes and a 1-byte store do not share a width), the
//! masks of an unrolled step are narrowed together with packing instructions (`packssdw`,
//! `packsswb`: saturation keeps 0 and -1) until 16 of them fill one byte vector, which is
//! stored at once. Bools read by a vector stage are widened the other way (`pmovsx`), then
//! compared with 0 (any non-zero byte is true). A stage of bools alone works on byte masks,
//! 16 to a vector, with nothing to widen or pack.

use super::expr::cl_type;
use super::{little, mem, Emitter, Mode};
use crate::kernel::Scalar;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, ConstantData, InstBuilder, MemFlagsData, Type, Value};

/// The byte picks of a shuffle that keeps the low 32-bit half of each 64-bit lane of its two
/// operands (a `shufps`).
const LOW_HALVES: [u8; 16] = [0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27];

impl Emitter<'_, '_> {
    /// Stores `masks`, consecutive vectors of `mode` holding the bools of elements `j..`, as
    /// 0/1 bytes into `buffer` (a contiguous one, as every vector store).
    pub(crate) fn put_masks(&mut self, buffer: usize, masks: &[Value], j: Value, mode: Mode) {
        let total = masks.len() * mode.lanes();
        let mut vs = masks.to_vec();
        if mode == Mode::Vector(8) {
            vs = self.narrow_pairs(&vs, |em, a, b| em.low_halves(a, b));
        }
        if mode != Mode::Vector(1) {
            vs = self.narrow_pairs(&vs, |em, a, b| em.b.ins().snarrow(a, b));
            vs = self.narrow_pairs(&vs, |em, a, b| em.b.ins().snarrow(a, b));
        }
        let base = self.addr(buffer, j, mode);
        for (k, &v) in vs.iter().enumerate() {
            let bytes = (total - 16 * k).min(16);
            let ones = self.b.ins().ineg(v);
            self.store_low_bytes(ones, bytes, base, 16 * k as i32);
        }
    }

    /// `narrow(a, b)` for each pair of `vs` in order (the last alone paired with itself: its
    /// lanes come first, the copy after them is never stored).
    fn narrow_pairs(
        &mut self,
        vs: &[Value],
        mut narrow: impl FnMut(&mut Self, Value, Value) -> Value,
    ) -> Vec<Value> {
        vs.chunks(2)
            .map(|c| narrow(self, c[0], *c.get(1).unwrap_or(&c[0])))
            .collect()
    }

    /// The low 32 bits of each 64-bit mask lane of `a`, then of `b`, as one `I32X4`.
    pub(crate) fn low_halves(&mut self, a: Value, b: Value) -> Value {
        let bytes = |em: &mut Self, v| em.b.ins().bitcast(types::I8X16, little(), v);
        let (a, b) = (bytes(self, a), bytes(self, b));
        let picks = self
            .b
            .func
            .dfg
            .immediates
            .push(ConstantData::from(LOW_HALVES.as_ref()));
        let v = self.b.ins().shuffle(a, b, picks);
        self.b.ins().bitcast(types::I32X4, little(), v)
    }

    /// Stores the first `bytes` (2, 4, 8 or 16) bytes of the byte vector `v` at `base + offset`.
    fn store_low_bytes(&mut self, v: Value, bytes: usize, base: Value, offset: i32) {
        let v = if bytes == 16 {
            v
        } else {
            let lane = Type::int_with_byte_size(bytes as u16).expect("a lane of 2, 4 or 8 bytes");
            let vt = lane.by(16 / bytes as u32).expect("a 128-bit vector");
            let cast = self.b.ins().bitcast(vt, little(), v);
            self.b.ins().extractlane(cast, 0)
        };
        self.b.ins().store(mem(), v, base, offset);
    }

    /// The bools at `addr` (one byte each, a vector of `mode` of them) as lane masks.
    pub(crate) fn load_masks(&mut self, addr: Value, flags: MemFlagsData, mode: Mode) -> Value {
        let Mode::Vector(width) = mode else {
            unreachable!("masks are vectors")
        };
        let mut v = if width == 1 {
            self.b.ins().load(types::I8X16, flags, addr, 0)
        } else {
            let bytes = mode.lanes();
            let lane = Type::int_with_byte_size(bytes as u16).expect("2 or 4 bools");
            let packed = self.b.ins().load(lane, flags, addr, 0);
            let vt = lane.by(16 / bytes as u32).expect("a 128-bit vector");
            let v = self.b.ins().scalar_to_vector(vt, packed);
            self.b.ins().bitcast(types::I8X16, little(), v)
        };
        for _ in 0..width.trailing_zeros() {
            v = self.b.ins().swiden_low(v);
        }
        let mt = cl_type(Scalar::Bool, mode);
        let zero = self.b.ins().iconst(mt.lane_type(), 0);
        let zeros = self.b.ins().splat(mt, zero);
        self.b.ins().icmp(IntCC::NotEqual, v, zeros)
    }
}
