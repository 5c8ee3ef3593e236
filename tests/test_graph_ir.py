"""The graph's IR text: docs/IR.md's printing rules, byte for byte."""

from __future__ import annotations

import numpy as np
import pytest
from ember import numpy_api as api
from ember.errors import Unsupported
from ember.graph import OPS, Graph

LAYERNORM = """\
ember-ir 1
func @layernorm(%0: f32[8,1024], %1: f32[1024], %2: f32[1024]) -> (f32[8,1024]) {
  %3 = mean(%0) axis=[1] keepdims=true : f32[8,1]
  %4 = sub(%0, %3) : f32[8,1024]
  %5 = mul(%4, %4) : f32[8,1024]
  %6 = mean(%5) axis=[1] keepdims=true : f32[8,1]
  %7 = const() value=1e-05 : f64[] weak
  %8 = add(%6, %7) : f32[8,1]
  %9 = sqrt(%8) : f32[8,1]
  %10 = div(%4, %9) : f32[8,1024]
  %11 = mul(%10, %1) : f32[8,1024]
  %12 = add(%11, %2) : f32[8,1024]
  return %12
}
"""


def test_layernorm_example_of_ir_md() -> None:
    g = Graph("layernorm")
    x = g.add_input(np.float32, (8, 1024))
    gamma = g.add_input(np.float32, (1024,))
    beta = g.add_input(np.float32, (1024,))
    mu = api.lookup_method("mean")(g, x, axis=-1, keepdims=True)
    d = api.binary_op(g, "-", x, mu)
    var = api.lookup_method("mean")(g, api.binary_op(g, "*", d, d), axis=-1, keepdims=True)
    y = api.binary_op(g, "/", d, api.lookup_function(np.sqrt)(g, api.binary_op(g, "+", var, 1e-5)))
    g.set_outputs([api.binary_op(g, "+", api.binary_op(g, "*", y, gamma), beta)])
    assert g.to_ir() == LAYERNORM
    assert str(g) == LAYERNORM


def test_inputs_added_late_are_numbered_first() -> None:
    g = Graph("late")
    x = g.add_input(np.int32, (3,))
    t = g.op("neg", [x])
    y = g.add_input(np.int32, ("s0", 3))
    g.set_outputs([g.op("add", [t, y]), t])
    assert g.to_ir() == (
        "ember-ir 1\n"
        "func @late(%0: i32[3], %1: i32[s0,3]) -> (i32[s0,3], i32[3]) {\n"
        "  %2 = neg(%0) : i32[3]\n"
        "  %3 = add(%2, %1) : i32[s0,3]\n"
        "  return %3, %2\n"
        "}\n"
    )


@pytest.mark.parametrize(
    ("value", "text"),
    [(1e-5, "1e-05"), (-0.0, "-0.0"), (2.5e20, "2.5e+20"), (float("inf"), "inf"),
     (float("-inf"), "-inf"), (float("nan"), "nan"), (3.0, "3.0"), (7, "7"), (True, "true")],
)
def test_const_values_print_as_ir_md_says(value: object, text: str) -> None:
    g = Graph()
    g.set_outputs([g.const(value)])  # type: ignore[arg-type]
    line = g.to_ir().splitlines()[2]
    kind = {bool: "bool", int: "i64", float: "f64"}[type(value)]
    assert line == f"  %0 = const() value={text} : {kind}[] weak"


def test_attributes_print_in_table_order_with_none_and_dtypes() -> None:
    g = Graph("attrs")
    x = g.add_input(np.float64, (2, 3, 4))
    g.op("sum", [x], axis=None, keepdims=False)
    g.op("argmax", [x], axis=None, keepdims=True)
    g.op("slice", [x], start=[1, 0, 3], stop=[2, 3, -1], step=[1, 2, -2])
    g.op("astype", [x], dtype=np.uint16)
    g.op("transpose", [x], perm=[2, 0, 1])
    g.full((2, 2), 1, np.float32)
    g.arange(0, 3, 4, np.int64)
    g.eye(3, 4, -1, np.bool_)
    g.const(np.float32(0.5))
    g.const(3, np.uint8, weak=False)
    g.set_outputs([])
    assert g.to_ir().splitlines()[2:-1] == [
        "  %1 = sum(%0) axis=none keepdims=false : f64[]",
        "  %2 = argmax(%0) axis=none keepdims=true : i64[1,1,1]",
        "  %3 = slice(%0) start=[1,0,3] stop=[2,3,-1] step=[1,2,-2] : f64[1,2,2]",
        "  %4 = astype(%0) dtype=u16 : u16[2,3,4]",
        "  %5 = transpose(%0) perm=[2,0,1] : f64[4,2,3]",
        "  %6 = full() value=1.0 : f32[2,2]",
        "  %7 = arange() start=0 step=3 : i64[4]",
        "  %8 = eye() k=-1 : bool[3,4]",
        "  %9 = const() value=0.5 : f32[]",
        "  %10 = const() value=3 : u8[]",
        "  return",
    ]


def test_function_names_are_made_ir_names() -> None:
    assert Graph("MyFunc.<locals>.f").to_ir().startswith("ember-ir 1\nfunc @myfunc__locals__f()")
    assert Graph("3d").name == "_3d"


def test_values_are_immutable_and_report_their_type() -> None:
    g = Graph()
    x = g.add_input(np.float32, ("s0", 4))
    assert (x.ndim, x.size, x.type_str) == (2, None, "f32[s0,4]")
    with pytest.raises(AttributeError):
        x.dtype = np.dtype(np.float64)  # type: ignore[misc]


def test_bad_ops_and_attributes_are_refused() -> None:
    g = Graph()
    x = g.add_input(np.float32, (2,))
    with pytest.raises(Unsupported, match="no op 'frobnicate'"):
        g.op("frobnicate", [x])
    with pytest.raises(TypeError, match="missing"):
        g.op("sum", [x], axis=None)
    with pytest.raises(TypeError, match="unknown"):
        g.op("neg", [x], axis=0)
    with pytest.raises(TypeError, match="operands"):
        g.op("add", [x])
    with pytest.raises(TypeError, match="not a valid"):
        g.op("transpose", [x], perm="0")
    other = Graph().add_input(np.float32, (2,))
    with pytest.raises(TypeError, match="not a value of this graph"):
        g.op("neg", [other])


def test_unsupported_result_dtypes_are_refused_naming_the_function() -> None:
    g = Graph()
    x = g.add_input(np.int8, (2,))
    with pytest.raises(Unsupported, match="np.sqrt gives dtype float16"):
        g.op("sqrt", [x])


def test_every_op_has_a_complete_table_entry() -> None:
    for name, opdef in OPS.items():
        assert opdef.name == name
        assert opdef.kind in ("elementwise", "reduction", "shape", "creation", "other", "region")
        if opdef.kind in ("elementwise", "reduction") and name not in ("astype",):
            assert opdef.numpy is not None, name
