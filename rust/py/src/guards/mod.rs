//! Guard trees: compiled from the wire format of `_core.pyi` when an entry is stored, evaluated
//! against a frame's argument slots, globals, builtins and closure cells without building dicts.

mod compile;
mod eval;
mod target;

pub use compile::compile_tree;
pub use target::Target;

use std::sync::atomic::{AtomicPtr, AtomicU64};

use numpy::PyArrayDescr;
use pyo3::ffi::PyObject;
use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};

/// What a guard reads: the frame (root accessors) or its parent's value (child accessors).
#[derive(Debug)]
pub enum Accessor {
    /// `("local", i)`: argument slot `localsplus[i]`.
    Local(usize),
    /// `("global", name)`: `f_globals[name]`.
    Global(DictRead),
    /// `("builtin", name)`: `f_builtins[name]`.
    Builtin(DictRead),
    /// `("closure", i)`: the contents of `func.__closure__[i]`.
    Closure(usize),
    /// `("globals_dict", None)`: the frame's globals dict itself.
    GlobalsDict,
    /// `("builtins_dict", None)`: the frame's builtins dict itself.
    BuiltinsDict,
    /// `("attr", name)`: `getattr(parent, name)`.
    Attr(Py<PyString>),
    /// `("item", key)`: `parent[key]`; `index` caches an int key for the tuple/list fast path.
    Item {
        /// The key as given.
        key: Py<PyAny>,
        /// The key as an index when it is an int.
        index: Option<isize>,
    },
}

/// A read of `dict[name]` from a frame's globals or builtins, with the item it found in the
/// dict of a version tag: an unchanged dict (same tag) gives the same item without a lookup.
#[derive(Debug)]
pub struct DictRead {
    /// The key.
    pub name: Py<PyString>,
    /// The version tag (`ma_version_tag`) of the exact dict `item` was read from; 0 (no
    /// dict has it) before a read.
    pub version: AtomicU64,
    /// The item found there, borrowed from that dict: alive while the dict keeps the tag.
    pub item: AtomicPtr<PyObject>,
}

impl DictRead {
    /// A read of `name` that has not looked anything up yet.
    pub fn new(name: Py<PyString>) -> Self {
        DictRead {
            name,
            version: AtomicU64::new(0),
            item: AtomicPtr::new(std::ptr::null_mut()),
        }
    }
}

/// A check on one value; the variants carry the guard kinds' wire names (`TYPE_MATCH`, ...).
#[derive(Debug)]
#[allow(clippy::enum_variant_names)]
pub enum Check {
    /// `type(v) is t`.
    TypeMatch(Target),
    /// `v is obj`.
    IdMatch(Target),
    /// `v` is the object that had this address at capture. Only the address is kept: used
    /// for globals and builtins dicts, which cannot be weakly referenced and must not be kept
    /// alive (they hold the function, whose code holds the entry). Sound because everything
    /// an entry reads from those dicts is guarded by value, and names it resolved elsewhere
    /// by [`Check::DictLacks`].
    AddressMatch(usize),
    /// `name not in v` for a dict `v` (a global that would shadow a builtin, an instance
    /// attribute that would shadow a method).
    DictLacks(DictLacks),
    /// `v.__dict__[name] is obj` for a module `v`, read without running Python code.
    ModuleAttrIs(ModuleAttrIs),
    /// Same exact type and equal, recursively through tuples; floats compare by bit pattern
    /// (NaN equals NaN, `-0.0` differs from `0.0`) because a specialised constant must be exact.
    EqualsMatch(Py<PyAny>),
    /// `len(v) == n`.
    LenMatch(isize),
    /// An exact `int` of at least this value (a `range` bound a loop op takes at run time,
    /// which must give the loop at least one trip).
    IntAtLeast(i64),
    /// `tuple(v.keys()) == keys`.
    DictKeysMatch(Py<PyTuple>),
    /// An exact `np.ndarray` of this dtype, rank, shape and strides (`None` matches any).
    ArrayMatch(ArrayMatch),
}

/// The fields of a `DICT_LACKS` check.
#[derive(Debug)]
pub struct DictLacks {
    /// The name that must be absent.
    pub name: Py<PyString>,
    /// The dict's version tag (`ma_version_tag`, unique across all dicts and changed by every
    /// mutation) when the check last passed: an unchanged dict passes without a lookup.
    pub passed_version: AtomicU64,
}

/// The fields of a `MODULE_ATTR_IS` check.
#[derive(Debug)]
pub struct ModuleAttrIs {
    /// The attribute's name.
    pub name: Py<PyString>,
    /// The object it held at capture.
    pub target: Target,
    /// The module dict's version tag when the check last passed (see [`DictLacks`]).
    pub passed_version: AtomicU64,
}

/// The fields of an `ARRAY_MATCH` check.
#[derive(Debug)]
pub struct ArrayMatch {
    /// The expected dtype.
    pub dtype: Py<PyArrayDescr>,
    /// One entry per dimension; `None` is a wildcard, [`SYMBOLIC_DIM`] or less a symbolic dim
    /// (see [`symbolic_minimum`]).
    pub shape: Vec<Option<isize>>,
    /// Byte strides per dimension; `None` (whole or per dimension) is a wildcard.
    pub strides: Option<Vec<Option<isize>>>,
}

/// The `ARRAY_MATCH` shape entry of a symbolic dim: any size of 2 or more (sizes 0 and 1
/// change broadcasting and emptiness, so they are never symbolic). An entry `-k` below it
/// takes sizes of `k + 1` or more: a symbol the graph slices (`x[2:]` needs 4 to leave 2).
pub const SYMBOLIC_DIM: isize = -1;

/// The least size a symbolic `ARRAY_MATCH` entry (`SYMBOLIC_DIM` or below) takes.
pub fn symbolic_minimum(entry: isize) -> isize {
    1 - entry
}

/// One node of a guard tree: read a value, check it, then check its children.
#[derive(Debug)]
pub struct GuardNode {
    /// How the value is read.
    pub accessor: Accessor,
    /// Checks on the value, all of which must pass.
    pub checks: Vec<Check>,
    /// Nodes reading from this value.
    pub children: Vec<GuardNode>,
}

/// A compiled guard tree: every root node must pass.
#[derive(Debug, Default)]
pub struct GuardTree {
    /// The root nodes (root accessors only).
    pub roots: Vec<GuardNode>,
}

/// What root accessors read: borrowed pointers into a frame (or a function plus arguments).
pub struct FrameView<'a> {
    /// The argument slots, `localsplus[0..n]`.
    pub locals: &'a [*mut PyObject],
    /// The globals dict.
    pub globals: *mut PyObject,
    /// The builtins dict.
    pub builtins: *mut PyObject,
    /// The closure tuple of cells, or NULL.
    pub closure: *mut PyObject,
}
