//! The floating-point exception flags a run raised, so that the caller can give NumPy's
//! warnings and errors (`np.errstate`) for them.
//!
//! NumPy clears the CPU's sticky exception flags before a ufunc loop and reads them after it;
//! compiled kernels do the same around a whole graph run. Flags are per thread: a run clears
//! the calling thread's flags, every worker thread of a parallel launch clears its own before
//! its share of the rows and hands what it raised back to the caller ([`exec::launch`]), so
//! the calling thread ends the run holding the union.
//!
//! Kernels raise a flag wherever NumPy's loop would (hardware `sqrt`, `fdiv` and conversions
//! raise them themselves; integer division by zero raises it on purpose, see
//! `lower::binary`), and may raise one where NumPy does not (a signalling comparison of a NaN
//! in a vector compare): the caller reruns the graph with NumPy when a flag is set, so a
//! spurious flag costs time, never a wrong warning.
//!
//! [`exec::launch`]: crate::exec::launch

/// A set of floating-point exception flags.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FpStatus(pub u32);

impl FpStatus {
    /// An invalid operation (`0/0`, `sqrt(-1)`, `inf - inf`, a NaN cast to an integer).
    pub const INVALID: u32 = 1;
    /// Division of a non-zero number by zero (`1/0`, `log(0)`).
    pub const DIVIDE: u32 = 4;
    /// A finite result too large for its type (`exp(1000)`).
    pub const OVERFLOW: u32 = 8;
    /// A non-zero result too small for a normal number of its type.
    pub const UNDERFLOW: u32 = 16;
    /// The flags this module reports (NumPy's four `errstate` categories).
    pub const ALL: u32 = Self::INVALID | Self::DIVIDE | Self::OVERFLOW | Self::UNDERFLOW;

    /// Whether no flag is set.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether `flag` (one of the constants) is set.
    pub fn has(self, flag: u32) -> bool {
        self.0 & flag != 0
    }
}

#[cfg(target_arch = "x86_64")]
mod arch {
    use std::arch::asm;

    /// MXCSR's sticky exception flags occupy its low six bits; the four NumPy reports use
    /// the same bit positions as [`super::FpStatus`] (denormal-operand and precision are
    /// not errors to NumPy).
    const FLAG_MASK: u32 = 0x3f;

    pub fn read_csr() -> u32 {
        let mut csr: u32 = 0;
        // SAFETY: `stmxcsr` stores the 32-bit control/status register into the local.
        unsafe { asm!("stmxcsr [{}]", in(reg) &mut csr, options(nostack, preserves_flags)) };
        csr
    }

    pub fn write_csr(csr: u32) {
        // SAFETY: `ldmxcsr` loads a value read by `read_csr` with only its flag bits changed,
        // so rounding mode, masks and flush-to-zero stay as the thread had them.
        unsafe { asm!("ldmxcsr [{}]", in(reg) &csr, options(nostack, readonly, preserves_flags)) };
    }

    /// Only the reported flags are cleared: the precision flag, which almost every float
    /// operation sets, would otherwise cost an `ldmxcsr` (a pipeline stall) on every call.
    pub fn take() -> u32 {
        let csr = read_csr();
        let flags = csr & super::FpStatus::ALL;
        if flags != 0 {
            write_csr(csr & !super::FpStatus::ALL);
        }
        flags
    }

    pub fn raise(flags: u32) {
        if flags != 0 {
            write_csr(read_csr() | (flags & super::FpStatus::ALL));
        }
    }

    /// Reads and clears the x87 unit's exception flags (its status word keeps them in the
    /// same bit positions as MXCSR). C code that raises a flag on purpose with
    /// `feraiseexcept` (NumPy's `npy_set_floatstatus_overflow`) may set it there.
    pub fn take_x87() -> u32 {
        let mut sw: u16 = 0;
        // SAFETY: `fnstsw` stores the 16-bit status word into the local; `fnclex` clears its
        // exception flags and nothing else.
        unsafe {
            asm!("fnstsw [{}]", in(reg) &mut sw, options(nostack, preserves_flags));
            if u32::from(sw) & FLAG_MASK != 0 {
                asm!("fnclex", options(nomem, nostack, preserves_flags));
            }
        }
        u32::from(sw) & super::FpStatus::ALL
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod arch {
    // Other targets report no flags: warnings for compiled code are an x86-64 feature.
    pub fn take() -> u32 {
        0
    }

    pub fn raise(_flags: u32) {}

    pub fn take_x87() -> u32 {
        0
    }
}

/// Reads and clears this thread's exception flags.
pub fn take() -> FpStatus {
    FpStatus(arch::take())
}

/// Reads and clears this thread's x87 exception flags: C code called from a kernel may raise
/// flags there (glibc's `feraiseexcept` does for overflow and underflow).
pub fn take_x87() -> FpStatus {
    FpStatus(arch::take_x87())
}

/// Sets `status`'s flags on this thread, keeping those already set.
pub fn raise(status: FpStatus) {
    arch::raise(status.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_of_float_operations_are_read_and_cleared() {
        take();
        let zero = std::hint::black_box(0.0f64);
        let one = std::hint::black_box(1.0f64);
        std::hint::black_box(one / zero);
        let got = take();
        if cfg!(target_arch = "x86_64") {
            assert!(got.has(FpStatus::DIVIDE), "{got:?}");
            assert!(!got.has(FpStatus::INVALID), "{got:?}");
        }
        assert!(take().is_empty());
        std::hint::black_box(zero / zero);
        if cfg!(target_arch = "x86_64") {
            assert!(take().has(FpStatus::INVALID));
        }
        raise(FpStatus(FpStatus::OVERFLOW));
        if cfg!(target_arch = "x86_64") {
            assert_eq!(take(), FpStatus(FpStatus::OVERFLOW));
        }
    }
}
