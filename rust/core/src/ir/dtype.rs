//! Element types and NumPy 2's promotion of two (strong) dtypes.

use std::fmt;

/// An array element type; the names are the IR's text names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    /// `bool`
    Bool,
    /// `i8`
    I8,
    /// `i16`
    I16,
    /// `i32`
    I32,
    /// `i64`
    I64,
    /// `u8`
    U8,
    /// `u16`
    U16,
    /// `u32`
    U32,
    /// `u64`
    U64,
    /// `f32`
    F32,
    /// `f64`
    F64,
}

/// The kind of a dtype, as NumPy's `dtype.kind` (`b`, `i`, `u`, `f`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// `b`
    Bool,
    /// `i`
    Signed,
    /// `u`
    Unsigned,
    /// `f`
    Float,
}

impl DType {
    /// Every dtype, in the IR's listing order.
    pub const ALL: [DType; 11] = [
        DType::Bool,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::U8,
        DType::U16,
        DType::U32,
        DType::U64,
        DType::F32,
        DType::F64,
    ];

    /// The IR text name (`f32`, `bool`, ...).
    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::I8 => "i8",
            DType::I16 => "i16",
            DType::I32 => "i32",
            DType::I64 => "i64",
            DType::U8 => "u8",
            DType::U16 => "u16",
            DType::U32 => "u32",
            DType::U64 => "u64",
            DType::F32 => "f32",
            DType::F64 => "f64",
        }
    }

    /// NumPy's name (`float32`, `uint8`, ...), for messages that quote NumPy.
    pub fn numpy_name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::I8 => "int8",
            DType::I16 => "int16",
            DType::I32 => "int32",
            DType::I64 => "int64",
            DType::U8 => "uint8",
            DType::U16 => "uint16",
            DType::U32 => "uint32",
            DType::U64 => "uint64",
            DType::F32 => "float32",
            DType::F64 => "float64",
        }
    }

    /// The dtype of an IR text name.
    pub fn from_name(name: &str) -> Option<DType> {
        DType::ALL.into_iter().find(|d| d.name() == name)
    }

    /// Bytes per element (`bool` is one byte, as in NumPy).
    pub fn itemsize(self) -> usize {
        match self {
            DType::Bool | DType::I8 | DType::U8 => 1,
            DType::I16 | DType::U16 => 2,
            DType::I32 | DType::U32 | DType::F32 => 4,
            DType::I64 | DType::U64 | DType::F64 => 8,
        }
    }

    /// The kind (bool, signed, unsigned, float).
    pub fn kind(self) -> Kind {
        match self {
            DType::Bool => Kind::Bool,
            DType::I8 | DType::I16 | DType::I32 | DType::I64 => Kind::Signed,
            DType::U8 | DType::U16 | DType::U32 | DType::U64 => Kind::Unsigned,
            DType::F32 | DType::F64 => Kind::Float,
        }
    }

    /// Signed or unsigned integer.
    pub fn is_int(self) -> bool {
        matches!(self.kind(), Kind::Signed | Kind::Unsigned)
    }

    /// `f32` or `f64`.
    pub fn is_float(self) -> bool {
        self.kind() == Kind::Float
    }

    /// The signed integer type of a byte size (1, 2, 4 or 8).
    fn signed_of_size(size: usize) -> DType {
        match size {
            1 => DType::I8,
            2 => DType::I16,
            4 => DType::I32,
            _ => DType::I64,
        }
    }

    /// The smallest and largest value of an integer or bool dtype.
    pub fn int_range(self) -> Option<(i128, i128)> {
        let bits = 8 * self.itemsize() as u32;
        match self.kind() {
            Kind::Bool => Some((0, 1)),
            Kind::Signed => Some((-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)),
            Kind::Unsigned => Some((0, (1i128 << bits) - 1)),
            Kind::Float => None,
        }
    }

    /// `np.result_type(a, b)` for two strong dtypes (NumPy 2).
    pub fn promote(a: DType, b: DType) -> DType {
        use Kind::*;
        if a == b {
            return a;
        }
        match (a.kind(), b.kind()) {
            (Bool, _) => b,
            (_, Bool) => a,
            (Float, Float) => DType::F64,
            (Float, _) => float_with_int(a, b),
            (_, Float) => float_with_int(b, a),
            (Signed, Signed) | (Unsigned, Unsigned) => {
                if a.itemsize() >= b.itemsize() {
                    a
                } else {
                    b
                }
            }
            (Signed, Unsigned) => signed_with_unsigned(a, b),
            (Unsigned, Signed) => signed_with_unsigned(b, a),
        }
    }
}

/// A float dtype against an integer dtype: f32 holds integers up to 16 bits exactly.
fn float_with_int(float: DType, int: DType) -> DType {
    if float == DType::F32 && int.itemsize() <= 2 {
        DType::F32
    } else {
        DType::F64
    }
}

/// A signed against an unsigned integer: the smallest signed type holding both, or f64 for u64.
fn signed_with_unsigned(signed: DType, unsigned: DType) -> DType {
    if signed.itemsize() > unsigned.itemsize() {
        signed
    } else if unsigned == DType::U64 {
        DType::F64
    } else {
        DType::signed_of_size(2 * unsigned.itemsize())
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
