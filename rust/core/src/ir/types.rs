//! Array types (dtype, shape of static or symbolic dims, weakness) and scalar values.

use std::fmt;

use super::DType;

/// One dimension of a shape: a known size, or a size written in symbols (`s0`, `s0-1`,
/// `s0+s1`, `2*s0`, `4*s0+2`, `s0*s1`) that is known when the graph runs.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dim {
    /// A size known at compile time.
    Static(usize),
    /// A size in symbols, in normal form (`SymSize`), so equal sizes are equal values.
    Sym(SymSize),
}

/// A size in symbols: a sum of terms, each a nonzero integer times a product of symbols, plus
/// a constant. Kept in normal form (each product's symbols sorted, terms sorted by product and
/// merged, at least one term), so two sizes equal as polynomials compare and print equal.
/// Guards keep every symbol 2 or more, and the graph's `require_size` keeps a slice such as
/// `s0-3` 2 or more as well.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SymSize {
    terms: Vec<(Vec<String>, i64)>,
    constant: i64,
}

impl SymSize {
    /// The terms (each product's symbols and its integer) and the constant.
    pub fn parts(&self) -> (&[(Vec<String>, i64)], i64) {
        (&self.terms, self.constant)
    }
}

impl Dim {
    /// The symbol `name` itself.
    pub fn symbol_named(name: impl Into<String>) -> Dim {
        Dim::Sym(SymSize {
            terms: vec![(vec![name.into()], 1)],
            constant: 0,
        })
    }

    /// The size `sum of coefficient * product + constant` in normal form: static when no
    /// term is left; None for a negative static size.
    pub fn from_terms(terms: Vec<(Vec<String>, i64)>, constant: i64) -> Option<Dim> {
        let mut merged: Vec<(Vec<String>, i64)> = Vec::new();
        let mut sorted: Vec<(Vec<String>, i64)> = terms
            .into_iter()
            .map(|(mut product, c)| {
                product.sort();
                (product, c)
            })
            .collect();
        sorted.sort();
        for (product, c) in sorted {
            match merged.last_mut() {
                Some((last, total)) if *last == product => *total = total.saturating_add(c),
                _ => merged.push((product, c)),
            }
        }
        let constant = merged
            .iter()
            .filter(|(p, _)| p.is_empty())
            .fold(constant, |total, (_, c)| total.saturating_add(*c));
        merged.retain(|(p, c)| *c != 0 && !p.is_empty());
        if merged.is_empty() {
            return usize::try_from(constant).ok().map(Dim::Static);
        }
        Some(Dim::Sym(SymSize {
            terms: merged,
            constant,
        }))
    }

    /// The terms and constant of any dim (a static one is its constant).
    fn terms(&self) -> (Vec<(Vec<String>, i64)>, i64) {
        match self {
            Dim::Static(n) => (Vec::new(), *n as i64),
            Dim::Sym(s) => (s.terms.clone(), s.constant),
        }
    }

    /// The size when it is static.
    pub fn as_static(&self) -> Option<usize> {
        match self {
            Dim::Static(n) => Some(*n),
            Dim::Sym(_) => None,
        }
    }

    /// Whether the size is only known when the graph runs.
    pub fn is_symbolic(&self) -> bool {
        !matches!(self, Dim::Static(_))
    }

    /// The symbol when the size is one symbol alone (`s0`, not `s0-1` or `2*s0`).
    pub fn as_symbol(&self) -> Option<&str> {
        match self {
            Dim::Sym(s) if s.constant == 0 && s.terms.len() == 1 => match &s.terms[0] {
                (product, 1) if product.len() == 1 => Some(&product[0]),
                _ => None,
            },
            _ => None,
        }
    }

    /// The symbols the size depends on, each once, in order.
    pub fn symbols(&self) -> Vec<&str> {
        let mut found: Vec<&str> = match self {
            Dim::Static(_) => Vec::new(),
            Dim::Sym(s) => s
                .terms
                .iter()
                .flat_map(|(p, _)| p.iter().map(String::as_str))
                .collect(),
        };
        found.sort_unstable();
        found.dedup();
        found
    }

    /// The size given the symbols' sizes; None for an unbound symbol, an overflow or a
    /// negative size.
    pub fn resolve(&self, size_of: impl Fn(&str) -> Option<usize>) -> Option<usize> {
        match self {
            Dim::Static(n) => Some(*n),
            Dim::Sym(s) => {
                let mut total = s.constant;
                for (product, c) in &s.terms {
                    let mut term = *c;
                    for name in product {
                        term = term.checked_mul(i64::try_from(size_of(name)?).ok()?)?;
                    }
                    total = total.checked_add(term)?;
                }
                usize::try_from(total).ok()
            }
        }
    }

    /// This size plus `by` (which may be negative); None for a negative static size.
    pub fn plus(&self, by: i64) -> Option<Dim> {
        let (terms, constant) = self.terms();
        Dim::from_terms(terms, constant.checked_add(by)?)
    }

    /// The sum of two sizes (`s0 + s0` is `2*s0`); None where that is a negative size (only
    /// dims written with a negative term, `s0-s1`, can make one).
    pub fn sum(&self, other: &Dim) -> Option<Dim> {
        let (mut terms, a) = self.terms();
        let (more, b) = other.terms();
        terms.extend(more);
        Dim::from_terms(terms, a.saturating_add(b))
    }

    /// The product of two sizes (`4 * s0`, `s0 * s1`); None as for `sum`.
    pub fn product(&self, other: &Dim) -> Option<Dim> {
        let (ta, ca) = self.terms();
        let (tb, cb) = other.terms();
        let mut terms = Vec::new();
        for (pa, a) in ta.iter().chain([(Vec::new(), ca)].iter()) {
            for (pb, b) in tb.iter().chain([(Vec::new(), cb)].iter()) {
                terms.push(([pa.clone(), pb.clone()].concat(), a.saturating_mul(*b)));
            }
        }
        Dim::from_terms(terms, 0)
    }

    /// This size divided by `other` when that is exact term by term (`4*s0 / 4` is `s0`,
    /// `s0*s1 / s1` is `s0`); None otherwise.
    pub fn divide(&self, other: &Dim) -> Option<Dim> {
        let (tb, cb) = other.terms();
        let (divisor, by): (Vec<String>, i64) = match (tb.as_slice(), cb) {
            ([], c) if c > 0 => (Vec::new(), c),
            ([(p, c)], 0) if *c > 0 => (p.clone(), *c),
            _ => return None,
        };
        let (ta, ca) = self.terms();
        if !divisor.is_empty() && ca != 0 || ca % by != 0 {
            return None;
        }
        let mut terms = Vec::new();
        for (p, c) in ta {
            if c % by != 0 {
                return None;
            }
            let mut rest = p.clone();
            for s in &divisor {
                let k = rest.iter().position(|r| r == s)?;
                rest.remove(k);
            }
            terms.push((rest, c / by));
        }
        Dim::from_terms(terms, ca / by)
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
            Dim::Sym(s) => write!(f, "{s}"),
        }
    }
}

impl fmt::Display for SymSize {
    /// Terms in order, a coefficient of 1 left out, then the constant: `2*s0+s1-1`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (product, c)) in self.terms.iter().enumerate() {
            match (*c, i) {
                (c, _) if c < 0 => write!(f, "-")?,
                (_, 0) => {}
                _ => write!(f, "+")?,
            }
            if c.abs() != 1 {
                write!(f, "{}*", c.abs())?;
            }
            f.write_str(&product.join("*"))?;
        }
        match self.constant {
            0 => Ok(()),
            c if c > 0 => write!(f, "+{c}"),
            c => write!(f, "{c}"),
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
