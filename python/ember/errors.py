"""ember's exceptions. Graph-break reasons live in `ember.capture.breaks`."""


class EmberError(Exception):
    """Base class of ember's own errors."""


class Unsupported(EmberError):
    """Capture cannot continue here: becomes a graph break (or an error under fullgraph).

    `kind` is the catalogue key of `ember.capture.breaks` (empty for reasons raised by the
    NumPy mapping, which carry their own text)."""

    def __init__(self, reason: str, hint: str = "", kind: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.hint = hint
        self.kind = kind


def complex_number(what: str) -> Unsupported:
    """The refusal of a complex number or array (the `complex` break: ember has no complex
    dtype, and the whole frame runs as plain Python)."""
    return Unsupported(f"{what} is complex, which ember does not support", "", "complex")


class GraphBreakError(EmberError):
    """`fullgraph=True` and the function cannot be captured as one graph: names the reason and
    the user's file:line."""


class RunFrameAsPython(EmberError):  # noqa: N818 -- a signal to the entry, not an error
    """Raised by a compiled graph whose run raised a floating-point flag the caller's errstate
    acts on, where NumPy's behaviour is cheapest had by running the frame as plain Python (a
    loop: see `backends/cranelift.py: numpy_rerun`). Only a graph called by a frame's entry
    (`Graph.frame_fallback`) raises it: the entry then runs the frame as Python."""


class BackendError(EmberError):
    """A backend failed to compile a graph it accepted."""


class RegionsRejected(BackendError):
    """A backend cannot run natively a graph holding loop or if ops. Run op by op, such a
    graph would be far slower than the frame as plain Python, so capture takes the frame
    again without region ops (short loops unroll, the others run as Python)."""
