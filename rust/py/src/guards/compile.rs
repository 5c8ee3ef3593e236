//! Compiles the Python wire format of a guard tree into a [`GuardTree`], rejecting bad trees
//! with a ValueError/TypeError that says which node is wrong, so a broken tree fails when it is
//! stored rather than silently never matching.

use numpy::npyffi::PY_ARRAY_API;
use numpy::{PyArrayDescr, PyArrayDescrMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PyList, PySequence, PyString, PyTuple, PyType};

use std::sync::atomic::AtomicU64;

use super::{
    Accessor, ArrayMatch, Check, DictLacks, DictRead, GuardNode, GuardTree, ModuleAttrIs, Target,
};

/// Compiles a guard tree (`list` of `(accessor, checks, children)` nodes).
pub fn compile_tree(guards: &Bound<'_, PyAny>) -> PyResult<GuardTree> {
    let mut roots = Vec::new();
    for (i, node) in sequence(guards, "guard tree")?.into_iter().enumerate() {
        roots.push(compile_node(&node, true, &format!("node [{i}]"))?);
    }
    Ok(GuardTree { roots })
}

fn compile_node(node: &Bound<'_, PyAny>, root: bool, path: &str) -> PyResult<GuardNode> {
    let parts = sequence(node, path)?;
    let [accessor, checks, children] = parts.as_slice() else {
        return Err(PyValueError::new_err(format!(
            "guard {path}: expected (accessor, checks, children), got {} items",
            parts.len()
        )));
    };
    let accessor = compile_accessor(accessor, root, path)?;
    let checks = sequence(checks, path)?
        .iter()
        .map(|check| compile_check(check, path))
        .collect::<PyResult<Vec<_>>>()?;
    let mut compiled_children = Vec::new();
    for (i, child) in sequence(children, path)?.into_iter().enumerate() {
        compiled_children.push(compile_node(&child, false, &format!("{path}[{i}]"))?);
    }
    Ok(GuardNode {
        accessor,
        checks,
        children: compiled_children,
    })
}

fn compile_accessor(accessor: &Bound<'_, PyAny>, root: bool, path: &str) -> PyResult<Accessor> {
    let parts = sequence(accessor, path)?;
    let [kind, arg] = parts.as_slice() else {
        return Err(PyValueError::new_err(format!(
            "guard {path}: an accessor is (kind, argument)"
        )));
    };
    let kind: String = kind.extract()?;
    let accessor = match kind.as_str() {
        "local" => Accessor::Local(index(arg, path)?),
        "global" => Accessor::Global(DictRead::new(name(arg, path)?)),
        "builtin" => Accessor::Builtin(DictRead::new(name(arg, path)?)),
        "closure" => Accessor::Closure(index(arg, path)?),
        "globals_dict" => Accessor::GlobalsDict,
        "builtins_dict" => Accessor::BuiltinsDict,
        "attr" => Accessor::Attr(name(arg, path)?),
        "item" => Accessor::Item {
            index: if arg.is_instance_of::<PyInt>() {
                arg.extract::<isize>().ok()
            } else {
                None
            },
            key: arg.clone().unbind(),
        },
        other => {
            return Err(PyValueError::new_err(format!(
                "guard {path}: unknown accessor {other:?}"
            )));
        }
    };
    let is_root = matches!(
        accessor,
        Accessor::Local(_)
            | Accessor::Global(_)
            | Accessor::Builtin(_)
            | Accessor::Closure(_)
            | Accessor::GlobalsDict
            | Accessor::BuiltinsDict
    );
    if is_root != root {
        let place = if root { "a root node" } else { "a child node" };
        return Err(PyValueError::new_err(format!(
            "guard {path}: accessor {kind:?} cannot start {place}"
        )));
    }
    Ok(accessor)
}

fn compile_check(check: &Bound<'_, PyAny>, path: &str) -> PyResult<Check> {
    let parts = sequence(check, path)?;
    let Some(kind) = parts.first() else {
        return Err(PyValueError::new_err(format!("guard {path}: empty check")));
    };
    let kind: String = kind.extract()?;
    let args = &parts[1..];
    let arity = |n: usize| -> PyResult<()> {
        if args.len() == n {
            Ok(())
        } else {
            Err(PyValueError::new_err(format!(
                "guard {path}: {kind} takes {n} argument(s), got {}",
                args.len()
            )))
        }
    };
    match kind.as_str() {
        "TYPE_MATCH" => {
            arity(1)?;
            let ty = args[0].cast::<PyType>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "guard {path}: TYPE_MATCH needs a type, got {}",
                    args[0].repr().map(|r| r.to_string()).unwrap_or_default()
                ))
            })?;
            Ok(Check::TypeMatch(Target::new(ty.as_any())?))
        }
        "ID_MATCH" => {
            arity(1)?;
            Ok(Check::IdMatch(Target::new(&args[0])?))
        }
        "ADDRESS_MATCH" => {
            arity(1)?;
            Ok(Check::AddressMatch(args[0].as_ptr() as usize))
        }
        "DICT_LACKS" => {
            arity(1)?;
            Ok(Check::DictLacks(DictLacks {
                name: name(&args[0], path)?,
                passed_version: AtomicU64::new(0),
            }))
        }
        "MODULE_ATTR_IS" => {
            arity(2)?;
            Ok(Check::ModuleAttrIs(ModuleAttrIs {
                name: name(&args[0], path)?,
                target: Target::new(&args[1])?,
                passed_version: AtomicU64::new(0),
            }))
        }
        "EQUALS_MATCH" => {
            arity(1)?;
            if !is_constant(&args[0]) {
                return Err(PyTypeError::new_err(format!(
                    "guard {path}: EQUALS_MATCH takes None, bool, int, float, str or tuples of those, got {}",
                    args[0].get_type().name()?
                )));
            }
            Ok(Check::EqualsMatch(args[0].clone().unbind()))
        }
        "INT_AT_LEAST" => {
            arity(1)?;
            Ok(Check::IntAtLeast(args[0].extract().map_err(|_| {
                PyTypeError::new_err(format!("guard {path}: INT_AT_LEAST takes an int64"))
            })?))
        }
        "LEN_MATCH" => {
            arity(1)?;
            Ok(Check::LenMatch(count(&args[0], path)?))
        }
        "DICT_KEYS_MATCH" => {
            arity(1)?;
            let keys = PyTuple::new(args[0].py(), sequence(&args[0], path)?)?;
            Ok(Check::DictKeysMatch(keys.unbind()))
        }
        "ARRAY_MATCH" => {
            arity(3)?;
            Ok(Check::ArrayMatch(array_match(
                &args[0], &args[1], &args[2], path,
            )?))
        }
        other => Err(PyValueError::new_err(format!(
            "guard {path}: unknown check {other:?}"
        ))),
    }
}

/// NumPy's own descriptor of `dtype`'s type number where it is equivalent to `dtype`, else
/// `dtype`. An unpickled dtype (a stored entry's guards, a pickled compiled function's) is a
/// copy, never NumPy's singleton, so an array of the plain dtype would miss the guard's
/// pointer comparison and pay the equivalence test on every call; which arrays match is
/// unchanged (the guard compares by equivalence).
fn builtin_equivalent(dtype: Bound<'_, PyArrayDescr>) -> Bound<'_, PyArrayDescr> {
    let py = dtype.py();
    // SAFETY: a live dtype's type number; `PyArray_DescrFromType` returns a new reference or
    // NULL with an exception set (taken here).
    let builtin = unsafe {
        let made = PY_ARRAY_API.PyArray_DescrFromType(py, (*dtype.as_dtype_ptr()).type_num);
        if made.is_null() {
            let _ = PyErr::take(py);
            return dtype;
        }
        Bound::from_owned_ptr(py, made.cast()).cast_into_unchecked::<PyArrayDescr>()
    };
    if builtin.is(&dtype) || !builtin.is_equiv_to(&dtype) {
        return dtype;
    }
    builtin
}

fn array_match(
    dtype: &Bound<'_, PyAny>,
    shape: &Bound<'_, PyAny>,
    strides: &Bound<'_, PyAny>,
    path: &str,
) -> PyResult<ArrayMatch> {
    let py = dtype.py();
    // np.dtype(x) accepts dtype objects, scalar types and strings alike.
    let dtype = py
        .import("numpy")?
        .getattr("dtype")?
        .call1((dtype,))?
        .cast_into::<PyArrayDescr>()?;
    let dtype = builtin_equivalent(dtype);
    let shape = optional_dims(shape, path)?;
    let strides = if strides.is_none() {
        None
    } else {
        let strides = optional_dims(strides, path)?;
        if strides.len() != shape.len() {
            return Err(PyValueError::new_err(format!(
                "guard {path}: ARRAY_MATCH has {} strides for {} dimensions",
                strides.len(),
                shape.len()
            )));
        }
        Some(strides)
    };
    Ok(ArrayMatch {
        dtype: dtype.unbind(),
        shape,
        strides,
    })
}

fn optional_dims(dims: &Bound<'_, PyAny>, path: &str) -> PyResult<Vec<Option<isize>>> {
    sequence(dims, path)?
        .iter()
        .map(|d| {
            if d.is_none() {
                Ok(None)
            } else {
                int(d, path).map(Some)
            }
        })
        .collect()
}

/// Whether `value` may be an EQUALS_MATCH constant: None, bool, int, float, str, tuples of those.
fn is_constant(value: &Bound<'_, PyAny>) -> bool {
    if value.is_none()
        || value.is_exact_instance_of::<PyBool>()
        || value.is_exact_instance_of::<PyInt>()
        || value.is_exact_instance_of::<PyFloat>()
        || value.is_exact_instance_of::<PyString>()
    {
        return true;
    }
    match value.cast_exact::<PyTuple>() {
        Ok(tuple) => tuple.iter().all(|item| is_constant(&item)),
        Err(_) => false,
    }
}

/// The items of a list or tuple (the wire format uses both).
fn sequence<'py>(value: &Bound<'py, PyAny>, path: &str) -> PyResult<Vec<Bound<'py, PyAny>>> {
    if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        return value.cast::<PySequence>()?.try_iter()?.collect();
    }
    Err(PyTypeError::new_err(format!(
        "guard {path}: expected a list or tuple, got {}",
        value.get_type().name()?
    )))
}

fn int(value: &Bound<'_, PyAny>, path: &str) -> PyResult<isize> {
    if !value.is_instance_of::<PyInt>() || value.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(format!(
            "guard {path}: expected an int, got {}",
            value.repr()?
        )));
    }
    value.extract()
}

fn index(value: &Bound<'_, PyAny>, path: &str) -> PyResult<usize> {
    usize::try_from(int(value, path)?).map_err(|_| {
        PyValueError::new_err(format!("guard {path}: a slot index must not be negative"))
    })
}

fn count(value: &Bound<'_, PyAny>, path: &str) -> PyResult<isize> {
    let n = int(value, path)?;
    if n < 0 {
        return Err(PyValueError::new_err(format!(
            "guard {path}: LEN_MATCH needs a length >= 0"
        )));
    }
    Ok(n)
}

fn name(value: &Bound<'_, PyAny>, path: &str) -> PyResult<Py<PyString>> {
    let name = value.cast::<PyString>().map_err(|_| {
        PyTypeError::new_err(format!(
            "guard {path}: expected a name (str), got {}",
            value.repr().map(|r| r.to_string()).unwrap_or_default()
        ))
    })?;
    // Interned names hash once and compare by pointer in the dict lookups of the hot path.
    Ok(PyString::intern(value.py(), name.to_str()?).unbind())
}
