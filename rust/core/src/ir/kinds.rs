//! The kinds of the elementwise ops, reductions and scans, one row each (IR name, NumPy name),
//! and their result-class table. An op kind is declared here and nowhere else: every other
//! per-op table (dtype rule, reference semantics, gradient, code generation) is an exhaustive
//! match on these enums, and Python's op list is read from [`UnaryOp::ALL`] and its siblings.

/// The first of one or two literals: a NumPy name where it differs from the IR's, else the IR's.
macro_rules! first_literal {
    ($a:literal $($rest:literal)?) => {
        $a
    };
}

/// An enum of op kinds and its name table, from one row per kind: `Variant => "ir_name"`, with
/// `("numpy_name")` where the NumPy function is named otherwise. The row is where a kind is
/// declared; what it computes is in the per-op tables, exhaustive matches on the enum, so that a
/// new row does not compile until each of them handles it (docs/ARCHITECTURE.md lists them).
macro_rules! op_kinds {
    ($(#[$meta:meta])* $ty:ident {
        $($(#[$vmeta:meta])* $variant:ident => $name:literal $(($numpy:literal))?,)*
    }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $ty {
            $(
                #[doc = concat!("`", $name, "`")]
                $(#[$vmeta])*
                $variant,
            )*
        }

        impl $ty {
            /// Every variant.
            pub const ALL: &'static [$ty] = &[$($ty::$variant,)*];

            /// The IR text name.
            pub fn name(self) -> &'static str {
                match self {
                    $($ty::$variant => $name,)*
                }
            }

            /// The name of the NumPy function (a ufunc for elementwise ops) the op means.
            pub fn numpy_name(self) -> &'static str {
                match self {
                    $($ty::$variant => first_literal!($($numpy)? $name),)*
                }
            }

            /// The variant of an IR text name.
            pub fn from_name(name: &str) -> Option<$ty> {
                match name {
                    $($name => Some($ty::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

op_kinds!(
    /// Elementwise ops of one operand.
    UnaryOp {
        Neg => "neg" ("negative"),
        Positive => "positive",
        Abs => "abs" ("absolute"),
        Sign => "sign",
        Square => "square",
        Reciprocal => "reciprocal",
        Sqrt => "sqrt",
        Cbrt => "cbrt",
        Exp => "exp",
        Exp2 => "exp2",
        Expm1 => "expm1",
        Log => "log",
        Log2 => "log2",
        Log10 => "log10",
        Log1p => "log1p",
        Sin => "sin",
        Cos => "cos",
        Tan => "tan",
        Arcsin => "arcsin",
        Arccos => "arccos",
        Arctan => "arctan",
        Sinh => "sinh",
        Cosh => "cosh",
        Tanh => "tanh",
        Arcsinh => "arcsinh",
        Arccosh => "arccosh",
        Arctanh => "arctanh",
        Floor => "floor",
        Ceil => "ceil",
        Trunc => "trunc",
        Rint => "rint",
        LogicalNot => "logical_not",
        BitwiseNot => "bitwise_not" ("invert"),
        Isnan => "isnan",
        Isinf => "isinf",
        Isfinite => "isfinite",
        Signbit => "signbit",
        Erf => "erf",
        Erfc => "erfc",
    }
);

op_kinds!(
    /// Elementwise ops of two broadcast operands.
    BinaryOp {
        Add => "add",
        Sub => "sub" ("subtract"),
        Mul => "mul" ("multiply"),
        Div => "div" ("true_divide"),
        Floordiv => "floordiv" ("floor_divide"),
        Mod => "mod" ("remainder"),
        Fmod => "fmod",
        Pow => "pow" ("power"),
        Maximum => "maximum",
        Minimum => "minimum",
        Fmax => "fmax",
        Fmin => "fmin",
        Arctan2 => "arctan2",
        Hypot => "hypot",
        Copysign => "copysign",
        Logaddexp => "logaddexp",
        Eq => "eq" ("equal"),
        Ne => "ne" ("not_equal"),
        Lt => "lt" ("less"),
        Le => "le" ("less_equal"),
        Gt => "gt" ("greater"),
        Ge => "ge" ("greater_equal"),
        LogicalAnd => "logical_and",
        LogicalOr => "logical_or",
        LogicalXor => "logical_xor",
        BitwiseAnd => "bitwise_and",
        BitwiseOr => "bitwise_or",
        BitwiseXor => "bitwise_xor",
        LeftShift => "left_shift",
        RightShift => "right_shift",
    }
);

op_kinds!(
    /// Reductions over a set of axes.
    ReduceKind {
        Sum => "sum",
        Prod => "prod",
        Max => "max",
        Min => "min",
        Mean => "mean",
        Any => "any",
        All => "all",
    }
);

op_kinds!(
    /// Index reductions over one axis or the flattened array.
    ArgReduceKind {
        Argmax => "argmax",
        Argmin => "argmin",
    }
);

op_kinds!(
    /// Operations along one axis that read the whole line: running totals and sorting.
    ScanKind {
        Cumsum => "cumsum",
        Cumprod => "cumprod",
        /// `np.sort(kind="stable")`: NaN after every number, ties in their order.
        Sort => "sort",
        /// `np.argsort(kind="stable")`: the permutation that sorts the line, as `i64`.
        Argsort => "argsort",
        /// `np.sort` of the default kind (`"quicksort"`, and `"heapsort"`, which NumPy 2.4
        /// runs as it): the values of `sort`, with zeros of either sign and NaN payloads in
        /// the order NumPy's unstable sort leaves them.
        SortDefault => "sort_default" ("sort"),
        /// `np.argsort` of the default kind: a permutation that sorts the line, ties in the
        /// order NumPy's unstable sort gives them.
        ArgsortDefault => "argsort_default" ("argsort"),
    }
);

impl ScanKind {
    /// A sort of either kind (values or positions).
    pub fn is_sort(self) -> bool {
        !matches!(self, ScanKind::Cumsum | ScanKind::Cumprod)
    }

    /// A sort giving positions (`i64`) rather than values.
    pub fn gives_positions(self) -> bool {
        matches!(self, ScanKind::Argsort | ScanKind::ArgsortDefault)
    }

    /// A sort whose ties keep their input order.
    pub fn is_stable(self) -> bool {
        matches!(self, ScanKind::Sort | ScanKind::Argsort)
    }
}

op_kinds!(
    /// `np.linalg` functions over the last two axes (the leading ones are a batch), computed
    /// in `f64` by LAPACK's routines as NumPy's own `_umath_linalg` calls them.
    LinalgKind {
        /// `np.linalg.solve(a, b)` for `b` of shape `(..., m, k)`.
        Solve => "solve" ("linalg.solve"),
        /// `np.linalg.inv(a)`.
        Inv => "inv" ("linalg.inv"),
        /// `np.linalg.det(a)`.
        Det => "det" ("linalg.det"),
        /// `np.linalg.slogdet(a)`: the sign and the log of the absolute value of the
        /// determinant, as the two elements of a last axis of size 2.
        Slogdet => "slogdet" ("linalg.slogdet"),
        /// `np.linalg.cholesky(a)`: the lower factor `l` with `a = l @ l.T`.
        Cholesky => "cholesky" ("linalg.cholesky"),
        /// `np.linalg.cholesky(a, upper=True)`: the upper factor `u` with `a = u.T @ u`.
        CholeskyUpper => "cholesky_upper" ("linalg.cholesky"),
        /// `np.linalg.eigh(a)` (from the lower triangle): the eigenvalues in ascending order,
        /// then the eigenvectors as columns, packed as `(..., m + 1, m)`: row 0 the values,
        /// rows 1.. the vectors.
        Eigh => "eigh" ("linalg.eigh"),
        /// `np.linalg.eigh(a, UPLO="U")`, packed as `eigh`.
        EighUpper => "eigh_upper" ("linalg.eigh"),
        /// `np.linalg.eigvalsh(a)`: the eigenvalues alone, in ascending order.
        Eigvalsh => "eigvalsh" ("linalg.eigvalsh"),
        /// `np.linalg.eigvalsh(a, UPLO="U")`.
        EigvalshUpper => "eigvalsh_upper" ("linalg.eigvalsh"),
        /// `np.linalg.lstsq(a, b, rcond)` of one `(m, n)` matrix, `b` `(m, k)` and `rcond` 0-d,
        /// for a matrix of full rank (`min(m, n)`; another rank is an error at run time): the
        /// solution `(n, k)`, the residuals `(k)` and the singular values `(min(m, n))`,
        /// flattened one after the other into one vector.
        Lstsq => "lstsq" ("linalg.lstsq"),
        /// `np.linalg.svd(a)` of `(..., m, n)`: `u` `(m, m)`, `s` `(min(m, n))` and `vh`
        /// `(n, n)`, flattened one after the other into a last axis.
        Svd => "svd" ("linalg.svd"),
        /// `np.linalg.svd(a, full_matrices=False)`: `u` `(m, k)`, `s` `(k)`, `vh` `(k, n)` for
        /// `k = min(m, n)`, flattened as `svd`.
        SvdReduced => "svd_reduced" ("linalg.svd"),
        /// `np.linalg.svd(a, compute_uv=False)`: the singular values, descending.
        Svdvals => "svdvals" ("linalg.svd"),
    }
);

impl LinalgKind {
    /// How many trailing axes of the result one matrix gives: 0 for `det`, 1 for `slogdet`
    /// and the eigenvalues, 2 for matrices (the packed eigenvalues and vectors of `eigh`).
    pub fn result_axes(self) -> usize {
        use LinalgKind::*;
        match self {
            Det => 0,
            Slogdet | Eigvalsh | EigvalshUpper | Lstsq | Svd | SvdReduced | Svdvals => 1,
            Solve | Inv | Cholesky | CholeskyUpper | Eigh | EighUpper => 2,
        }
    }
}

impl UnaryOp {
    /// Whether the op is a predicate, giving `bool` whatever its loop dtype.
    pub fn gives_bool(self) -> bool {
        use UnaryOp::*;
        match self {
            LogicalNot | Isnan | Isinf | Isfinite | Signbit => true,
            Neg | Positive | Abs | Sign | Square | Reciprocal | Sqrt | Cbrt | Exp | Exp2
            | Expm1 | Log | Log2 | Log10 | Log1p | Sin | Cos | Tan | Arcsin | Arccos | Arctan
            | Sinh | Cosh | Tanh | Arcsinh | Arccosh | Arctanh | Floor | Ceil | Trunc | Rint
            | BitwiseNot | Erf | Erfc => false,
        }
    }
}

impl BinaryOp {
    /// Whether the op is a comparison or logical op, giving `bool` whatever its loop dtype.
    pub fn gives_bool(self) -> bool {
        use BinaryOp::*;
        match self {
            Eq | Ne | Lt | Le | Gt | Ge | LogicalAnd | LogicalOr | LogicalXor => true,
            Add | Sub | Mul | Div | Floordiv | Mod | Fmod | Pow | Maximum | Minimum | Fmax
            | Fmin | Arctan2 | Hypot | Copysign | Logaddexp | BitwiseAnd | BitwiseOr
            | BitwiseXor | LeftShift | RightShift => false,
        }
    }
}
