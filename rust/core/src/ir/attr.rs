//! Attribute values as written in the text, and building a typed [`Op`] from a statement's
//! op name, attributes and declared type (the attribute schema, checked).

use std::fmt;

use super::{
    ArgReduceKind, BinaryOp, DType, Dim, LinalgKind, Op, ReduceKind, Scalar, ScanKind, Type,
    UnaryOp,
};

/// An attribute value of the text form (`avalue` in the grammar).
#[derive(Clone, Debug, PartialEq)]
pub enum AttrValue {
    /// An integer.
    Int(i128),
    /// A float.
    Float(f64),
    /// `true` / `false`.
    Bool(bool),
    /// `none`.
    None,
    /// A dtype name.
    DType(DType),
    /// A symbolic dim inside a shape list (`shape=[s0,4]`, `shape=[s0-1]`).
    Sym(Dim),
    /// `[a,b,...]`.
    List(Vec<AttrValue>),
    /// `@name`: a function of the module (a region).
    Func(String),
}

impl AttrValue {
    /// A shape dim as an attribute value.
    pub fn from_dim(d: &Dim) -> AttrValue {
        match d {
            Dim::Static(n) => AttrValue::Int(*n as i128),
            symbolic => AttrValue::Sym(symbolic.clone()),
        }
    }

    fn describe(&self) -> String {
        match self {
            AttrValue::Int(_) => "an integer".into(),
            AttrValue::Float(_) => "a float".into(),
            AttrValue::Bool(_) => "a bool".into(),
            AttrValue::None => "none".into(),
            AttrValue::DType(_) => "a dtype".into(),
            AttrValue::Sym(_) => "a symbol".into(),
            AttrValue::List(_) => "a list".into(),
            AttrValue::Func(_) => "a function reference".into(),
        }
    }
}

impl From<Scalar> for AttrValue {
    fn from(s: Scalar) -> Self {
        match s {
            Scalar::Bool(b) => AttrValue::Bool(b),
            Scalar::Int(i) => AttrValue::Int(i),
            Scalar::Float(x) => AttrValue::Float(x),
        }
    }
}

impl fmt::Display for AttrValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AttrValue::Int(i) => write!(f, "{i}"),
            AttrValue::Float(x) => write!(f, "{}", Scalar::Float(*x)),
            AttrValue::Bool(b) => write!(f, "{b}"),
            AttrValue::None => f.write_str("none"),
            AttrValue::DType(d) => f.write_str(d.name()),
            AttrValue::Sym(d) => write!(f, "{d}"),
            AttrValue::Func(name) => write!(f, "@{name}"),
            AttrValue::List(items) => {
                f.write_str("[")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{item}")?;
                }
                f.write_str("]")
            }
        }
    }
}

/// An attribute problem: which attribute (index into the statement's list, or `None` for the
/// statement as a whole) and what is wrong.
pub type AttrError = (Option<usize>, String);

struct Attrs<'a> {
    op: &'a str,
    values: &'a [AttrValue],
}

impl Attrs<'_> {
    fn err(&self, i: usize, want: &str) -> AttrError {
        let name = Op::attr_names(self.op)
            .and_then(|n| n.get(i))
            .copied()
            .unwrap_or("?");
        (
            Some(i),
            format!(
                "{}: attribute `{name}` must be {want}, found {}",
                self.op,
                self.values[i].describe()
            ),
        )
    }

    fn scalar(&self, i: usize) -> Result<Scalar, AttrError> {
        match self.values[i] {
            AttrValue::Int(v) => Ok(Scalar::Int(v)),
            AttrValue::Float(v) => Ok(Scalar::Float(v)),
            AttrValue::Bool(v) => Ok(Scalar::Bool(v)),
            _ => Err(self.err(i, "a number or bool")),
        }
    }

    fn int(&self, i: usize) -> Result<i64, AttrError> {
        match self.values[i] {
            AttrValue::Int(v) => {
                i64::try_from(v).map_err(|_| self.err(i, "an integer in i64 range"))
            }
            _ => Err(self.err(i, "an integer")),
        }
    }

    fn index(&self, i: usize) -> Result<usize, AttrError> {
        match self.values[i] {
            AttrValue::Int(v) if (0..=i128::from(u32::MAX)).contains(&v) => Ok(v as usize),
            _ => Err(self.err(i, "a non-negative integer")),
        }
    }

    /// A region reference, resolved by the parser once every function is read (until then an
    /// empty graph carrying only the name).
    fn region(&self, i: usize) -> Result<super::op::Region, AttrError> {
        match &self.values[i] {
            AttrValue::Func(name) => {
                Ok(std::sync::Arc::new(super::Graph::new(name.clone(), vec![])))
            }
            _ => Err(self.err(i, "a function reference `@name`")),
        }
    }

    fn boolean(&self, i: usize) -> Result<bool, AttrError> {
        match self.values[i] {
            AttrValue::Bool(b) => Ok(b),
            _ => Err(self.err(i, "true or false")),
        }
    }

    fn list(&self, i: usize) -> Result<&[AttrValue], AttrError> {
        match &self.values[i] {
            AttrValue::List(items) => Ok(items),
            _ => Err(self.err(i, "a list")),
        }
    }

    fn indices(&self, i: usize) -> Result<Vec<usize>, AttrError> {
        self.list(i)?
            .iter()
            .map(|v| match v {
                AttrValue::Int(v) if (0..=i128::from(u32::MAX)).contains(v) => Ok(*v as usize),
                _ => Err(self.err(i, "a list of non-negative integers")),
            })
            .collect()
    }

    fn i64s(&self, i: usize) -> Result<Vec<i64>, AttrError> {
        self.list(i)?
            .iter()
            .map(|v| match v {
                AttrValue::Int(v) => {
                    i64::try_from(*v).map_err(|_| self.err(i, "a list of i64 integers"))
                }
                _ => Err(self.err(i, "a list of integers")),
            })
            .collect()
    }

    fn dims(&self, i: usize) -> Result<Vec<Dim>, AttrError> {
        self.list(i)?
            .iter()
            .map(|v| match v {
                AttrValue::Int(v) if (0..=i128::from(u32::MAX)).contains(v) => {
                    Ok(Dim::Static(*v as usize))
                }
                AttrValue::Sym(d) => Ok(d.clone()),
                _ => Err(self.err(i, "a list of sizes or symbols")),
            })
            .collect()
    }
}

impl Op {
    /// Build an op from its text name, its attribute values (in schema order, all present) and
    /// the statement's declared type (creation ops take their dtype and shape from it).
    pub fn from_text(name: &str, values: &[AttrValue], ty: &Type) -> Result<Op, AttrError> {
        let Some(names) = Op::attr_names(name) else {
            return Err((None, format!("unknown op `{name}`")));
        };
        if values.len() != names.len() {
            let want = if names.is_empty() {
                "no attributes".to_string()
            } else {
                names.join(" ")
            };
            return Err((
                None,
                format!("{name} takes {want}, found {} attribute(s)", values.len()),
            ));
        }
        let a = Attrs { op: name, values };
        let creation_dim = |i: usize| -> Result<Dim, AttrError> {
            ty.shape
                .get(i)
                .cloned()
                .ok_or_else(|| (None, format!("{name}: result type {ty} has too few dims")))
        };
        if let Some(u) = UnaryOp::from_name(name) {
            return Ok(Op::Unary(u));
        }
        if let Some(b) = BinaryOp::from_name(name) {
            return Ok(Op::Binary(b));
        }
        if let Some(kind) = ReduceKind::from_name(name) {
            let axes = match values[0] {
                AttrValue::None => None,
                _ => Some(a.indices(0)?),
            };
            return Ok(Op::Reduce {
                kind,
                axes,
                keepdims: a.boolean(1)?,
            });
        }
        if let Some(kind) = ArgReduceKind::from_name(name) {
            let axis = match values[0] {
                AttrValue::None => None,
                _ => Some(a.index(0)?),
            };
            return Ok(Op::ArgReduce {
                kind,
                axis,
                keepdims: a.boolean(1)?,
            });
        }
        if let Some(kind) = ScanKind::from_name(name) {
            return Ok(Op::Scan {
                kind,
                axis: a.index(0)?,
            });
        }
        if let Some(kind) = LinalgKind::from_name(name) {
            return Ok(Op::Linalg { kind });
        }
        Ok(match name {
            "where" => Op::Where,
            "matmul" => Op::Matmul,
            "copy" => Op::Copy,
            "astype" => match values[0] {
                AttrValue::DType(dtype) => Op::Astype { dtype },
                _ => return Err(a.err(0, "a dtype")),
            },
            "const" => Op::Const {
                value: a.scalar(0)?,
                dtype: ty.dtype,
                weak: ty.weak,
            },
            "full" => Op::Full {
                value: a.scalar(0)?,
                dtype: ty.dtype,
                shape: ty.shape.clone(),
            },
            "arange" => Op::Arange {
                start: a.scalar(0)?,
                step: a.scalar(1)?,
                dtype: ty.dtype,
                len: creation_dim(0)?,
            },
            "eye" => Op::Eye {
                k: a.int(0)?,
                dtype: ty.dtype,
                n: creation_dim(0)?,
                m: creation_dim(1)?,
            },
            "reshape" => Op::Reshape { shape: a.dims(0)? },
            "broadcast_to" => Op::BroadcastTo { shape: a.dims(0)? },
            "transpose" => Op::Transpose {
                perm: a.indices(0)?,
            },
            "expand_dims" => Op::ExpandDims {
                axes: a.indices(0)?,
            },
            "squeeze" => Op::Squeeze {
                axes: a.indices(0)?,
            },
            "flip" => Op::Flip {
                axes: a.indices(0)?,
            },
            "slice" => Op::Slice {
                start: a.i64s(0)?,
                stop: a.i64s(1)?,
                step: a.i64s(2)?,
            },
            "concatenate" => Op::Concatenate { axis: a.index(0)? },
            "gather" => Op::Gather { axis: a.index(0)? },
            "scatter_add" => Op::ScatterAdd {
                axis: a.index(0)?,
                shape: a.dims(1)?,
            },
            "load" => Op::Load,
            "store" => Op::Store,
            "loop" => Op::Loop {
                body: a.region(0)?,
                carried: a.index(1)?,
            },
            "if" => Op::If {
                then: a.region(0)?,
                otherwise: a.region(1)?,
            },
            _ => return Err((None, format!("unknown op `{name}`"))),
        })
    }
}

impl Op {
    /// The attribute names of an op text name, in print order (`None` for an unknown op).
    pub fn attr_names(name: &str) -> Option<&'static [&'static str]> {
        if ReduceKind::from_name(name).is_some() || ArgReduceKind::from_name(name).is_some() {
            return Some(&["axis", "keepdims"]);
        }
        if ScanKind::from_name(name).is_some() {
            return Some(&["axis"]);
        }
        if UnaryOp::from_name(name).is_some()
            || BinaryOp::from_name(name).is_some()
            || LinalgKind::from_name(name).is_some()
        {
            return Some(&[]);
        }
        Some(match name {
            "where" | "matmul" | "copy" | "load" | "store" => &[],
            "loop" => &["body", "carried"],
            "if" => &["then", "else"],
            "astype" => &["dtype"],
            "const" | "full" => &["value"],
            "arange" => &["start", "step"],
            "eye" => &["k"],
            "reshape" | "broadcast_to" => &["shape"],
            "transpose" => &["perm"],
            "expand_dims" | "squeeze" | "flip" | "concatenate" | "gather" => &["axis"],
            "scatter_add" => &["axis", "shape"],
            "slice" => &["start", "stop", "step"],
            _ => return None,
        })
    }

    /// The attributes in print order, as generic values.
    pub fn attrs(&self) -> Vec<(&'static str, AttrValue)> {
        let ints =
            |v: &[usize]| AttrValue::List(v.iter().map(|&i| AttrValue::Int(i as i128)).collect());
        let i64s =
            |v: &[i64]| AttrValue::List(v.iter().map(|&i| AttrValue::Int(i128::from(i))).collect());
        let dims = |v: &[Dim]| AttrValue::List(v.iter().map(AttrValue::from_dim).collect());
        match self {
            Op::Unary(_)
            | Op::Binary(_)
            | Op::Where
            | Op::Matmul
            | Op::Copy
            | Op::Load
            | Op::Store
            | Op::Linalg { .. }
            | Op::Result { .. } => vec![],
            Op::Loop { body, carried } => vec![
                ("body", AttrValue::Func(body.name.clone())),
                ("carried", AttrValue::Int(*carried as i128)),
            ],
            Op::If { then, otherwise } => vec![
                ("then", AttrValue::Func(then.name.clone())),
                ("else", AttrValue::Func(otherwise.name.clone())),
            ],
            Op::Astype { dtype } => vec![("dtype", AttrValue::DType(*dtype))],
            Op::Const { value, .. } | Op::Full { value, .. } => {
                vec![("value", AttrValue::from(*value))]
            }
            Op::Arange { start, step, .. } => vec![
                ("start", AttrValue::from(*start)),
                ("step", AttrValue::from(*step)),
            ],
            Op::Eye { k, .. } => vec![("k", AttrValue::Int(i128::from(*k)))],
            Op::Reduce { axes, keepdims, .. } => vec![
                ("axis", axes.as_ref().map_or(AttrValue::None, |a| ints(a))),
                ("keepdims", AttrValue::Bool(*keepdims)),
            ],
            Op::ArgReduce { axis, keepdims, .. } => vec![
                (
                    "axis",
                    axis.map_or(AttrValue::None, |a| AttrValue::Int(a as i128)),
                ),
                ("keepdims", AttrValue::Bool(*keepdims)),
            ],
            Op::Reshape { shape } | Op::BroadcastTo { shape } => vec![("shape", dims(shape))],
            Op::Transpose { perm } => vec![("perm", ints(perm))],
            Op::ExpandDims { axes } | Op::Squeeze { axes } | Op::Flip { axes } => {
                vec![("axis", ints(axes))]
            }
            Op::Slice { start, stop, step } => vec![
                ("start", i64s(start)),
                ("stop", i64s(stop)),
                ("step", i64s(step)),
            ],
            Op::Concatenate { axis } | Op::Scan { axis, .. } | Op::Gather { axis } => {
                vec![("axis", AttrValue::Int(*axis as i128))]
            }
            Op::ScatterAdd { axis, shape } => vec![
                ("axis", AttrValue::Int(*axis as i128)),
                ("shape", dims(shape)),
            ],
        }
    }
}
