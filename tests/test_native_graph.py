"""Graph bindings of `ember._core`: IR round trip, errors, pipeline stages, compiled graphs
checked against NumPy."""

import importlib
import importlib.machinery
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _load_core():
    """`ember._core`, loaded directly if the `ember` package itself cannot be imported."""
    try:
        return importlib.import_module("ember._core")
    except ImportError:
        path = next((ROOT / "python" / "ember").glob("_core.*.so"))
        loader = importlib.machinery.ExtensionFileLoader("ember._core", str(path))
        spec = importlib.util.spec_from_loader("ember._core", loader)
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
        return module


core = _load_core()

LAYERNORM = (ROOT / "docs" / "IR.md").read_text().split("```")[1].strip() + "\n"

ADD = """ember-ir 1
func @f(%0: f64[4,3], %1: f64[3]) -> (f64[4,3]) {
  %2 = add(%0, %1) : f64[4,3]
  return %2
}
"""


def test_parse_ir_round_trips_the_documented_example():
    assert LAYERNORM.startswith("ember-ir 1\nfunc @layernorm")
    assert core.parse_ir(LAYERNORM) == LAYERNORM
    assert core.parse_ir(ADD) == ADD


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (("sub(%0, %3)", "sub(%0, %99)"), r"^4:16: %99 is used before it is defined"),
        (("ember-ir 1", "ember-ir 7"), r"^1:\d+: .*version"),
        (("%4 = sub(%0, %3) : f32[8,1024]", "%4 = sub(%0, %3) : f64[8,1024]"), r"%4 = sub: .*f64"),
        (("%9 = sqrt(%8)", "%9 = nosuchop(%8)"), r"^\d+:\d+: .*nosuchop"),
    ],
)
def test_ir_errors_name_where(edit, message):
    broken = LAYERNORM.replace(*edit)
    assert broken != LAYERNORM
    with pytest.raises(core.IRError, match=message):
        core.parse_ir(broken)


def test_ir_error_is_a_value_error():
    assert issubclass(core.IRError, ValueError)
    with pytest.raises(ValueError):
        core.parse_ir("not ir at all")
