//! The interpreter's owned host array (dtype, shape, typed data) and its text form
//! `f32[2,2]{1.0, 2.5, nan, -0.0}` used by `run:` lines of golden tests.

use std::fmt;

use crate::error::{Error, Result};
use crate::ir::{format_float, DType, Kind};

/// The typed elements of a [`HostArray`], row-major.
#[derive(Clone, Debug, PartialEq)]
#[allow(missing_docs)]
pub enum Data {
    Bool(Vec<bool>),
    I8(Vec<i8>),
    I16(Vec<i16>),
    I32(Vec<i32>),
    I64(Vec<i64>),
    U8(Vec<u8>),
    U16(Vec<u16>),
    U32(Vec<u32>),
    U64(Vec<u64>),
    F32(Vec<f32>),
    F64(Vec<f64>),
}

/// An owned, C-contiguous array.
#[derive(Clone, Debug, PartialEq)]
pub struct HostArray {
    /// Sizes, outermost first.
    pub shape: Vec<usize>,
    /// The elements in row-major order; their count is the product of `shape`.
    pub data: Data,
}

/// One element during computation: integers of every width are exact in `i128`, `f32` values
/// are held as (exactly representable) `f64`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Elem {
    /// A bool.
    B(bool),
    /// An integer of any width.
    I(i128),
    /// A float (f32 values rounded to f32).
    F(f64),
}

impl Elem {
    /// NumPy's truth value (`nan` is true).
    pub fn truthy(self) -> bool {
        match self {
            Elem::B(b) => b,
            Elem::I(i) => i != 0,
            Elem::F(x) => x != 0.0,
        }
    }
}

macro_rules! each_dtype {
    ($data:expr, $v:ident => $body:expr) => {
        match $data {
            Data::Bool($v) => $body,
            Data::I8($v) => $body,
            Data::I16($v) => $body,
            Data::I32($v) => $body,
            Data::I64($v) => $body,
            Data::U8($v) => $body,
            Data::U16($v) => $body,
            Data::U32($v) => $body,
            Data::U64($v) => $body,
            Data::F32($v) => $body,
            Data::F64($v) => $body,
        }
    };
}

impl HostArray {
    /// An array from a shape and data; the sizes must agree.
    pub fn new(shape: Vec<usize>, data: Data) -> Result<HostArray> {
        let array = HostArray { shape, data };
        if array.len() != array.shape.iter().product::<usize>() {
            return Err(Error::new(format!(
                "{} elements do not fill shape {:?}",
                array.len(),
                array.shape
            )));
        }
        Ok(array)
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        match self.data {
            Data::Bool(_) => DType::Bool,
            Data::I8(_) => DType::I8,
            Data::I16(_) => DType::I16,
            Data::I32(_) => DType::I32,
            Data::I64(_) => DType::I64,
            Data::U8(_) => DType::U8,
            Data::U16(_) => DType::U16,
            Data::U32(_) => DType::U32,
            Data::U64(_) => DType::U64,
            Data::F32(_) => DType::F32,
            Data::F64(_) => DType::F64,
        }
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        each_dtype!(&self.data, v => v.len())
    }

    /// Whether the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `i` (row-major).
    pub fn get(&self, i: usize) -> Elem {
        match &self.data {
            Data::Bool(v) => Elem::B(v[i]),
            Data::I8(v) => Elem::I(v[i].into()),
            Data::I16(v) => Elem::I(v[i].into()),
            Data::I32(v) => Elem::I(v[i].into()),
            Data::I64(v) => Elem::I(v[i].into()),
            Data::U8(v) => Elem::I(v[i].into()),
            Data::U16(v) => Elem::I(v[i].into()),
            Data::U32(v) => Elem::I(v[i].into()),
            Data::U64(v) => Elem::I(v[i].into()),
            Data::F32(v) => Elem::F(v[i].into()),
            Data::F64(v) => Elem::F(v[i]),
        }
    }

    /// All elements, row-major.
    pub fn elems(&self) -> Vec<Elem> {
        (0..self.len()).map(|i| self.get(i)).collect()
    }

    /// An array of `dtype` from elements already of its kind (see [`super::scalar::cast`]):
    /// integers wrap to the width, floats round to `f32`.
    pub fn from_elems(dtype: DType, shape: Vec<usize>, elems: &[Elem]) -> HostArray {
        fn int(e: &Elem) -> i128 {
            match *e {
                Elem::B(b) => i128::from(b),
                Elem::I(i) => i,
                Elem::F(x) => x as i128,
            }
        }
        fn float(e: &Elem) -> f64 {
            match *e {
                Elem::B(b) => f64::from(u8::from(b)),
                Elem::I(i) => i as f64,
                Elem::F(x) => x,
            }
        }
        let data = match dtype {
            DType::Bool => Data::Bool(elems.iter().map(|e| e.truthy()).collect()),
            DType::I8 => Data::I8(elems.iter().map(|e| int(e) as i8).collect()),
            DType::I16 => Data::I16(elems.iter().map(|e| int(e) as i16).collect()),
            DType::I32 => Data::I32(elems.iter().map(|e| int(e) as i32).collect()),
            DType::I64 => Data::I64(elems.iter().map(|e| int(e) as i64).collect()),
            DType::U8 => Data::U8(elems.iter().map(|e| int(e) as u8).collect()),
            DType::U16 => Data::U16(elems.iter().map(|e| int(e) as u16).collect()),
            DType::U32 => Data::U32(elems.iter().map(|e| int(e) as u32).collect()),
            DType::U64 => Data::U64(elems.iter().map(|e| int(e) as u64).collect()),
            DType::F32 => Data::F32(elems.iter().map(|e| float(e) as f32).collect()),
            DType::F64 => Data::F64(elems.iter().map(float).collect()),
        };
        HostArray { shape, data }
    }

    /// A 0-d array of one element.
    pub fn scalar(dtype: DType, e: Elem) -> HostArray {
        HostArray::from_elems(dtype, Vec::new(), &[e])
    }

    /// Parse `dtype[shape]{v, v, ...}`.
    pub fn parse(text: &str) -> Result<HostArray> {
        let bad = |why: &str| Error::new(format!("bad array literal `{text}`: {why}"));
        let text = text.trim();
        let (dtype, rest) = text
            .split_once('[')
            .ok_or_else(|| bad("expected `dtype[`"))?;
        let dtype = DType::from_name(dtype.trim()).ok_or_else(|| bad("unknown dtype"))?;
        let (dims, rest) = rest.split_once(']').ok_or_else(|| bad("expected `]`"))?;
        let shape = dims
            .split(',')
            .filter(|d| !d.trim().is_empty())
            .map(|d| d.trim().parse::<usize>().map_err(|_| bad("bad dimension")))
            .collect::<Result<Vec<_>>>()?;
        let body = rest
            .trim()
            .strip_prefix('{')
            .and_then(|r| r.strip_suffix('}'))
            .ok_or_else(|| bad("expected `{...}`"))?;
        let elems = body
            .split(',')
            .filter(|v| !v.trim().is_empty())
            .map(|v| {
                parse_elem(v.trim(), dtype)
                    .ok_or_else(|| bad(&format!("`{}` is not a {dtype} value", v.trim())))
            })
            .collect::<Result<Vec<_>>>()?;
        if elems.len() != shape.iter().product::<usize>() {
            return Err(bad("the number of values does not match the shape"));
        }
        Ok(HostArray::from_elems(dtype, shape, &elems))
    }
}

fn parse_elem(v: &str, dtype: DType) -> Option<Elem> {
    match dtype.kind() {
        Kind::Bool => match v {
            "true" => Some(Elem::B(true)),
            "false" => Some(Elem::B(false)),
            _ => None,
        },
        Kind::Signed | Kind::Unsigned => {
            let i: i128 = v.parse().ok()?;
            let (lo, hi) = dtype.int_range()?;
            (lo..=hi).contains(&i).then_some(Elem::I(i))
        }
        Kind::Float => {
            let x: f64 = v.parse().ok()?;
            Some(Elem::F(if dtype == DType::F32 {
                f64::from(x as f32)
            } else {
                x
            }))
        }
    }
}

/// The shortest digits that read back as the same `f32`, in Python's repr style.
fn format_f32(x: f32) -> String {
    let shortest: f64 = format!("{x:e}").parse().unwrap_or(f64::from(x));
    format_float(shortest)
}

impl fmt::Display for HostArray {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dims: Vec<String> = self.shape.iter().map(|d| d.to_string()).collect();
        write!(f, "{}[{}]{{", self.dtype(), dims.join(","))?;
        for i in 0..self.len() {
            if i > 0 {
                f.write_str(", ")?;
            }
            match (&self.data, self.get(i)) {
                (Data::F32(v), _) => f.write_str(&format_f32(v[i]))?,
                (_, Elem::F(x)) => f.write_str(&format_float(x))?,
                (_, Elem::I(n)) => write!(f, "{n}")?,
                (_, Elem::B(b)) => write!(f, "{b}")?,
            }
        }
        f.write_str("}")
    }
}
