//! Array types (dtype, shape of static or symbolic dims, weakness) and scalar values.

use std::fmt;

use super::DType;

/// One dimension of a shape: a known size or a named symbol (`s0`); equal symbols are equal sizes.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dim {
    /// A size known at compile time.
    Static(usize),
    /// A size named by a symbol, known when the graph runs.
    Sym(String),
    /// A symbol less a constant (`s0-1`, never less 0): what slicing a symbolic dim leaves
    /// (`x[1:]`). Guards keep the symbol large enough that this is 2 or more, as a symbol is.
    Less(String, usize),
}

impl Dim {
    /// The size when it is static.
    pub fn as_static(&self) -> Option<usize> {
        match self {
            Dim::Static(n) => Some(*n),
            Dim::Sym(_) | Dim::Less(..) => None,
        }
    }

    /// Whether the size is only known when the graph runs.
    pub fn is_symbolic(&self) -> bool {
        !matches!(self, Dim::Static(_))
    }

    /// The symbol the size depends on, if any.
    pub fn symbol(&self) -> Option<&str> {
        match self {
            Dim::Static(_) => None,
            Dim::Sym(s) | Dim::Less(s, _) => Some(s),
        }
    }

    /// The size given the symbols' sizes; None for an unbound symbol or a negative size.
    pub fn resolve(&self, size_of: impl Fn(&str) -> Option<usize>) -> Option<usize> {
        match self {
            Dim::Static(n) => Some(*n),
            Dim::Sym(s) => size_of(s),
            Dim::Less(s, k) => size_of(s)?.checked_sub(*k),
        }
    }

    /// This size plus `by` (which may be negative); None where that is not a dim
    /// (a negative static size, or more than the symbol).
    pub fn plus(&self, by: i64) -> Option<Dim> {
        let less = |s: &str, k: i64| match k {
            0 => Some(Dim::Sym(s.to_string())),
            k if k > 0 => Some(Dim::Less(s.to_string(), k as usize)),
            _ => None,
        };
        match self {
            Dim::Static(n) => usize::try_from(*n as i64 + by).ok().map(Dim::Static),
            Dim::Sym(s) => less(s, -by),
            Dim::Less(s, k) => less(s, *k as i64 - by),
        }
    }
}

impl From<usize> for Dim {
    fn from(n: usize) -> Self {
        Dim::Static(n)
    }
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dim::Static(n) => write!(f, "{n}"),
            Dim::Sym(s) => f.write_str(s),
            Dim::Less(s, k) => write!(f, "{s}-{k}"),
        }
    }
}

/// The type of a value: `DTYPE[d0,d1,...]`, with `weak` for a Python scalar under NEP 50.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Type {
    /// Element type.
    pub dtype: DType,
    /// Dimensions, outermost first; empty for a 0-d array.
    pub shape: Vec<Dim>,
    /// A Python `bool`/`int`/`float` (always 0-d): takes part in promotion only by kind.
    pub weak: bool,
}

impl Type {
    /// A strong array type.
    pub fn new(dtype: DType, shape: Vec<Dim>) -> Self {
        Type {
            dtype,
            shape,
            weak: false,
        }
    }

    /// A strong array type of static dims.
    pub fn of(dtype: DType, shape: &[usize]) -> Self {
        Type::new(dtype, shape.iter().map(|&n| Dim::Static(n)).collect())
    }

    /// A strong 0-d type.
    pub fn scalar(dtype: DType) -> Self {
        Type::new(dtype, Vec::new())
    }

    /// The number of dimensions.
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// The static shape, or `None` when a dim is symbolic.
    pub fn static_shape(&self) -> Option<Vec<usize>> {
        self.shape.iter().map(Dim::as_static).collect()
    }

    /// The same type with another dtype, strong.
    pub fn with_dtype(&self, dtype: DType) -> Self {
        Type::new(dtype, self.shape.clone())
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}[", self.dtype)?;
        for (i, d) in self.shape.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{d}")?;
        }
        f.write_str("]")?;
        if self.weak {
            f.write_str(" weak")?;
        }
        Ok(())
    }
}

/// A scalar attribute value as written in the text: `true`, an integer or a float.
///
/// Integers are `i128` so that every `i64` and `u64` value is exact.
#[derive(Clone, Copy, Debug)]
pub enum Scalar {
    /// `true` / `false`
    Bool(bool),
    /// An integer literal.
    Int(i128),
    /// A float literal.
    Float(f64),
}

impl Scalar {
    /// The value as f64 (integers rounded to nearest).
    pub fn to_f64(self) -> f64 {
        match self {
            Scalar::Bool(b) => f64::from(u8::from(b)),
            Scalar::Int(i) => i as f64,
            Scalar::Float(x) => x,
        }
    }
}

/// Scalars compare bit for bit, so `nan == nan` (the text has one NaN) and `0.0 != -0.0`: what
/// CSE and the round trip need.
impl PartialEq for Scalar {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Scalar::Bool(a), Scalar::Bool(b)) => a == b,
            (Scalar::Int(a), Scalar::Int(b)) => a == b,
            (Scalar::Float(a), Scalar::Float(b)) => a.to_bits() == b.to_bits(),
            _ => false,
        }
    }
}

impl Eq for Scalar {}

impl std::hash::Hash for Scalar {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        match self {
            Scalar::Bool(b) => (0u8, *b).hash(state),
            Scalar::Int(i) => (1u8, *i).hash(state),
            Scalar::Float(x) => (2u8, x.to_bits()).hash(state),
        }
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scalar::Bool(b) => write!(f, "{b}"),
            Scalar::Int(i) => write!(f, "{i}"),
            Scalar::Float(x) => f.write_str(&format_float(*x)),
        }
    }
}

/// Python's `repr(float)`: shortest round-trip digits, fixed notation for decimal exponents
/// in `[-4, 16)`, otherwise `d.ddde±XX`; `inf`, `-inf`, `nan`.
pub fn format_float(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    // Rust's `{:e}` gives the shortest round-trip digits as `d.ddde<exp>`.
    let sci = format!("{:e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let sign = if x.is_sign_negative() { "-" } else { "" };
    // Python's decpt: the value is 0.DIGITS * 10**decpt.
    let decpt = exp + 1;
    if (-3..=16).contains(&decpt) {
        let n = digits.len() as i32;
        let body = if decpt <= 0 {
            format!("0.{}{}", "0".repeat((-decpt) as usize), digits)
        } else if decpt >= n {
            format!("{}{}.0", digits, "0".repeat((decpt - n) as usize))
        } else {
            let (int, frac) = digits.split_at(decpt as usize);
            format!("{int}.{frac}")
        };
        format!("{sign}{body}")
    } else {
        let (first, rest) = digits.split_at(1);
        let frac = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{first}{frac}e{esign}{:02}", exp.abs())
    }
}

#[cfg(test)]
mod tests {
    use super::format_float;

    #[test]
    fn floats_print_as_python_repr() {
        let cases = [
            (1e-05, "1e-05"),
            (0.0001, "0.0001"),
            (1.0, "1.0"),
            (-0.0, "-0.0"),
            (2.5e20, "2.5e+20"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (123.456, "123.456"),
            (0.1f32 as f64, "0.10000000149011612"),
            (1.5e-300, "1.5e-300"),
            (f64::MAX, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
            (12345678901234567.0, "1.2345678901234568e+16"),
            (f64::NEG_INFINITY, "-inf"),
            (f64::NAN, "nan"),
        ];
        for (x, want) in cases {
            assert_eq!(format_float(x), want, "{x:?}");
        }
    }
}
