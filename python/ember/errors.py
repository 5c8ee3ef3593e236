"""ember's exceptions. Graph-break reasons live in `ember.capture.breaks`."""


class EmberError(Exception):
    """Base class of ember's own errors."""


class Unsupported(EmberError):
    """Capture cannot continue here: becomes a graph break (or an error under fullgraph)."""

    def __init__(self, reason: str, hint: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.hint = hint


class BackendError(EmberError):
    """A backend failed to compile a graph it accepted."""
