//! `load` and `store`: NumPy's index wrapping and bounds check per axis (a compare and a
//! branch to the cold `IndexError` exit), then one memory access. An index checked against
//! an axis length is not checked against it again where that check dominates, and a load
//! of an element stored earlier in the same block chain (no other store into that array
//! between) is the stored value itself.

use super::branch::{Deferred, IndexKey};
use super::lower::{Native, Val};
use crate::kernel::Scalar;
use crate::lower::mem;
use crate::Error;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, BlockArg, InstBuilder, Value};
use cranelift_frontend::Variable;
use ember_core::ir::Type;

impl Native<'_, '_> {
    /// The address of `a[indices]`, after the bounds checks; computed once where an earlier
    /// access to the element dominates (so its check is not repeated, and Cranelift sees one
    /// address, whose loads it merges).
    pub(super) fn element(
        &mut self,
        a: &super::lower::Array,
        indices: &[Val],
    ) -> Result<Value, Error> {
        let key = indices
            .iter()
            .map(IndexKey::of)
            .collect::<Option<Vec<_>>>()
            .map(|k| (a.base, a.strides.clone(), k));
        if let Some(&addr) = key.as_ref().and_then(|k| self.addresses.get(k)) {
            return Ok(addr);
        }
        let addr = self.checked_element(a, indices)?;
        if let Some(key) = key {
            self.addresses.insert(key, addr);
        }
        Ok(addr)
    }

    fn checked_element(
        &mut self,
        a: &super::lower::Array,
        indices: &[Val],
    ) -> Result<Value, Error> {
        // The address grows from the base axis by axis, so its leading part (`A + i * s0` in
        // a loop over `j`) is invariant in an inner loop and hoisted out of it, leaving one
        // add that x86 folds into the access's addressing mode.
        let mut addr = a.base;
        for (axis, index) in indices.iter().enumerate() {
            let i = self.value_as(index, Scalar::I64);
            let size = a.shape[axis] as i64;
            let known = self.ranges.get(&i).copied();
            let b = &mut self.em.b;
            let always = |lo: i128, hi: i128| known.is_some_and(|(a, b)| a >= lo && b <= hi);
            if always(0, i128::from(size) - 1) || always(-i128::from(size), -1) {
                // Proven in bounds: at most a constant shift, no check.
                let wrapped = if always(0, i128::from(size) - 1) {
                    i
                } else {
                    b.ins().iadd_imm_s(i, size)
                };
                let step = b.ins().imul(wrapped, a.strides[axis]);
                addr = b.ins().iadd(addr, step);
                continue;
            }
            // Checked against this length where that check dominates: it passed there.
            if let Some(&wrapped) = self.checked.get(&(i, size)) {
                let step = b.ins().imul(wrapped, a.strides[axis]);
                addr = b.ins().iadd(addr, step);
                continue;
            }
            if self.spec.is_some() {
                return Err(Error::Unsupported(
                    "a speculated access that needs a bounds check".into(),
                ));
            }
            // A sign known from a branch's test (`refine.rs`) needs no wrap at run time.
            let wrapped = match known {
                Some((lo, _)) if lo >= 0 => i,
                Some((_, hi)) if hi < 0 => b.ins().iadd_imm_s(i, size),
                _ => {
                    let negative = b.ins().icmp_imm_s(IntCC::SignedLessThan, i, 0);
                    let from_end = b.ins().iadd_imm_s(i, size);
                    b.ins().select(negative, from_end, i)
                }
            };
            // One unsigned compare rejects both a still-negative index and one past the end.
            let inside = b.ins().icmp_imm_s(IntCC::UnsignedLessThan, wrapped, size);
            let go_on = b.create_block();
            let axis_v = b.ins().iconst(types::I64, axis as i64);
            let size_v = b.ins().iconst(types::I64, size);
            let record = [
                BlockArg::Value(i),
                BlockArg::Value(axis_v),
                BlockArg::Value(size_v),
            ];
            b.ins().brif(inside, go_on, &[], self.fail_index, &record);
            b.switch_to_block(go_on);
            b.seal_block(go_on);
            let step = b.ins().imul(wrapped, a.strides[axis]);
            addr = b.ins().iadd(addr, step);
            self.checked.insert((i, size), wrapped);
        }
        Ok(addr)
    }

    /// `load(a, i...)`; of a 0-d value, the value itself.
    pub(crate) fn load(&mut self, args: &[Val]) -> Result<Val, Error> {
        match &args[0] {
            Val::Array(a) => {
                if let Some(stores) = &self.spec {
                    if stores.iter().any(|d| d.buffer == a.buffer) {
                        return Err(Error::Unsupported(
                            "a speculated load after a store into the same array".into(),
                        ));
                    }
                }
                let addr = self.element(a, &args[1..])?;
                if let Some(&(_, v)) = self.loaded.get(&addr) {
                    return Ok(Val::Scalar(v, a.dtype));
                }
                let v = self.load_scalar(addr, a.dtype);
                self.loaded.insert(addr, (a.buffer, v));
                Ok(Val::Scalar(v, a.dtype))
            }
            scalar => Ok(scalar.clone()),
        }
    }

    /// `store(a, v, i...)` in place (linear use makes the old version dead); of a 0-d value,
    /// `v` converted to its dtype.
    /// `forward`: the variable that also keeps the stored value (`forward.rs`).
    pub(crate) fn store(
        &mut self,
        args: &[Val],
        ty: &Type,
        forward: Option<Variable>,
    ) -> Result<Val, Error> {
        let dtype = ty.dtype;
        match &args[0] {
            Val::Array(a) if !a.writable => Err(Error::Unsupported(
                "a store into an array the loop does not carry (or an input)".into(),
            )),
            Val::Array(a) => {
                let v = self.value_as(&args[1], dtype);
                let addr = self.element(a, &args[2..])?;
                self.stores += 1;
                self.loaded.retain(|_, (buffer, _)| *buffer != a.buffer);
                match self.spec.as_mut() {
                    Some(stores) => {
                        let key: Option<Vec<IndexKey>> =
                            args[2..].iter().map(IndexKey::of).collect();
                        let key = key.ok_or_else(|| Error::Unsupported("an array index".into()))?;
                        if stores.iter().any(|d| d.buffer == a.buffer && d.key == key) {
                            return Err(Error::Unsupported(
                                "a speculated region storing one element twice".into(),
                            ));
                        }
                        stores.push(Deferred {
                            buffer: a.buffer,
                            key,
                            addr,
                            value: v,
                            forward,
                        });
                    }
                    None => {
                        self.em.b.ins().store(mem(), v, addr, 0);
                        if let Some(var) = forward {
                            self.em.b.def_var(var, v);
                        }
                        // A load of this element before the next store into the array reads
                        // `v` back (a bool normalised as `load_scalar` does): served from
                        // the register, without waiting on the store.
                        let back = match a.dtype {
                            Scalar::Bool => self.em.b.ins().icmp_imm_s(IntCC::NotEqual, v, 0),
                            _ => v,
                        };
                        self.loaded.insert(addr, (a.buffer, back));
                    }
                }
                Ok(args[0].clone())
            }
            _ => Ok(self.cast_val(&args[1], dtype)),
        }
    }

    /// The codegen dtype of a 0-d value.
    pub(crate) fn dtype_of(&self, v: &Val) -> Scalar {
        match v {
            Val::Const(_, d) | Val::Scalar(_, d) => *d,
            Val::Array(a) => a.dtype,
        }
    }
}
