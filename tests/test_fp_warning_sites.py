"""Where and how often NumPy's floating-point warnings appear from compiled code: at the
user's line that called the ufunc (an inlined helper's own line), with the text NumPy gives
(the ufunc an in-place cast happens in), once per location under the default filter, and
with errstate handlers for other categories left as the caller set them."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import ember
import numpy as np
import pytest
from fp_harness import assert_same_fp_behaviour, observe

BACKENDS = ["cranelift", "eager"]


def _helper(y):
    return np.log(y)


@pytest.mark.parametrize("backend", BACKENDS)
def test_warning_of_an_inlined_helper_names_the_helper_line(backend):
    def f(x):
        z = x * 2.0
        return _helper(z) + 1.0

    x = np.array([0.0, 1.0, -1.0] * 5)
    assert_same_fp_behaviour(f, (x,), backend)
    _, caught = observe(ember.compile(f, backend=backend), (x,))
    line = _helper.__code__.co_firstlineno + 1
    assert {(w[2], w[3]) for w in caught} == {(__file__, line)}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("op", ["add", "multiply", "subtract"])
def test_in_place_downcast_warns_in_the_ufunc(op, backend):
    statements = {"add": "a += b", "multiply": "a *= b", "subtract": "a -= b"}
    namespace = {"np": np}
    exec(f"def f(a, b):\n    {statements[op]}\n    return a\n", namespace)  # noqa: S102
    f = namespace["f"]
    a = np.ones(6, np.float32)
    b = np.full(6, 1e300)
    assert_same_fp_behaviour(f, (a, b), backend)
    _, caught = observe(ember.compile(f, backend=backend), (np.ones(6, np.float32), b))
    assert [w[1] for w in caught] == [f"overflow encountered in {op}"]
    assert_same_fp_behaviour(f, (np.ones(6, np.float32), b), backend, over="raise")


@pytest.mark.parametrize("backend", BACKENDS)
def test_cast_written_by_the_user_warns_as_cast(backend):
    def f(a, b):
        return (a + b).astype(np.float32)

    assert_same_fp_behaviour(f, (np.ones(4), np.full(4, 1e300)), backend)
    _, caught = observe(ember.compile(f, backend=backend), (np.ones(4), np.full(4, 1e300)))
    assert [w[1] for w in caught] == ["overflow encountered in cast"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_call_handler_for_one_category_warnings_for_another(backend):
    def f(x, y):
        return np.log(x) + x / y

    x = np.array([0.0, 1.0, -1.0] * 4)
    y = np.array([0.0, 2.0, 0.0] * 4)
    seen = []
    for fn in (f, ember.compile(f, backend=backend)):
        calls: list[tuple[str, int]] = []
        _, caught = observe(fn, (x.copy(), y), divide="call",
                            call=lambda k, flag, calls=calls: calls.append((k, flag)))
        seen.append((calls, caught))
    (want_calls, want_warnings), (got_calls, got_warnings) = seen
    assert want_calls and want_warnings
    assert got_calls == want_calls
    assert got_warnings == want_warnings


SCRIPT = """
import warnings, numpy as np, ember
def f(x):
    return np.sqrt(x) * 2.0
compiled = ember.compile(f, backend={backend!r})
x = np.array([-1.0, 4.0])
for _ in range(3):
    (compiled if {use_ember} else f)(x)
    def g(x):
        return np.log(x)
    (ember.compile(g, backend={backend!r}) if {use_ember} else g)(x)
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_default_filter_shows_each_location_once(backend, tmp_path):
    """The printed warnings of a script are NumPy's: once per source line, whatever the
    number of calls (the warning registry is the user's module's)."""
    outputs = []
    for use_ember in (False, True):
        script = tmp_path / f"script_{use_ember}.py"
        script.write_text(textwrap.dedent(SCRIPT.format(backend=backend, use_ember=use_ember)))
        run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                             check=True)
        outputs.append(run.stderr.replace(script.name, "script.py"))
    assert outputs[1] == outputs[0]
    assert outputs[0].count("RuntimeWarning") == 2


def _body_float(x):
    s = x[0]
    for _ in range(x.shape[0] * 20):
        s = s * 1e300
    return s


def _body_int(x):
    s = x[0]
    for i in range(x.shape[0] * 20):
        s = s + i
    return s


def _body_while(x):
    s = x[0]
    i = 0
    while i < 50:
        s = s * np.int64(2**40)
        i += 1
    return s


def _body_branch(x):
    s = x[0]
    for i in range(60):
        if i > 50:
            s = s * 1e300
        else:
            s = s - 1.0
    return s


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("fn", "x"), [
    (_body_float, np.array([100.0, 2.0])), (_body_int, np.array([100, 2], np.int8)),
    (_body_while, np.array([3, 1])), (_body_branch, np.array([2.0, 1.0])),
], ids=lambda v: getattr(v, "__name__", None))
def test_warnings_of_a_loop_body_name_the_body_line(fn, x, backend):
    # A loop captured as one loop op: the warning names the body's statement, not the
    # `for` line, as NumPy's does.
    want = observe(fn, (x,))
    assert want[1], "the program warns in NumPy"
    ember.reset()
    for _ in range(2):
        assert repr(observe(ember.compile(fn, backend=backend), (x,))) == repr(want)
    assert ember.stats()["compiles"] >= 1


def _overwritten_edge(a):
    a -= a
    a[-1] = 1
    return a


def _overwritten_block(a, b):
    c = a / b
    c[1:, :2] = 0.0
    return c.sum()


@pytest.mark.parametrize("fn, make", [
    (_overwritten_edge, lambda: (np.array([[1.0], [np.inf]], np.float32),)),
    (_overwritten_block, lambda: (np.array([[1.0, 2, 3], [0.0, 1, 2]]),
                                  np.array([[1.0, 1, 1], [0.0, 1, 1]]))),
])
@pytest.mark.parametrize("mode", [{}, {"all": "raise"}, {"all": "ignore"}])
@pytest.mark.parametrize("backend", BACKENDS)
def test_elements_overwritten_after_computing_keep_their_warnings(fn, make, mode, backend):
    """NumPy computes the whole array before an assignment overwrites part of it: the
    floating-point flags of the overwritten elements are the program's too."""
    assert_same_fp_behaviour(fn, make(), backend, **mode)
