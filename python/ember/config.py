"""ember's settings. The only module that reads environment variables.

`ember.config` is the one `Config` instance; change its fields at run time
(`ember.config.recompile_limit = 16`). Environment variables give the initial values:

- `EMBER_RECOMPILE_LIMIT`  entries per code object before ember stops compiling it (8)
- `EMBER_SUPPRESS_ERRORS`  `1`: an internal error in capture runs the frame as plain Python
- `EMBER_NUM_THREADS`      threads for compiled kernels (0: one per core)
- `EMBER_CACHE_DIR`        persistent compile cache: machine code of compiled kernels, reused
                           by later processes (default `$XDG_CACHE_HOME/ember` or
                           `~/.cache/ember`; set but empty: no cache, nothing written)
- `EMBER_STORED_ENTRIES`   `0`: keep no captured entries in that directory (`capture/stored.py`;
                           on by default: a later process runs them without capture)
- `EMBER_CACHE_MAX_BYTES`  bound on that directory, least recently used files evicted (256 MiB)
- `EMBER_LOGS`             comma-separated log channels (see `ember.logging`)
- `EMBER_RECYCLE_BYTES`    bytes of output arrays compiled graphs keep for reuse, all graphs
                           together, least recently used evicted first (256 MiB; 0: none)
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field


def _env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() not in ("0", "false", "no", "off")


def _env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return default
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"{name}={value!r} is not an integer") from None


def _default_cache_dir() -> str | None:
    explicit = os.environ.get("EMBER_CACHE_DIR")
    if explicit is not None:
        return explicit.strip() or None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "ember")


def _env_logs() -> frozenset[str]:
    raw = os.environ.get("EMBER_LOGS", "")
    return frozenset(part.strip() for part in raw.split(",") if part.strip())


@dataclass
class Config:
    """Settings read by capture, the cache policy and the backends."""

    recompile_limit: int = field(default_factory=lambda: _env_int("EMBER_RECOMPILE_LIMIT", 8))
    suppress_errors: bool = field(
        default_factory=lambda: _env_bool("EMBER_SUPPRESS_ERRORS", False)
    )
    num_threads: int = field(default_factory=lambda: _env_int("EMBER_NUM_THREADS", 0))
    # Whether captured entries are kept in (and restored from) `cache_dir`.
    stored_entries: bool = field(
        default_factory=lambda: _env_bool("EMBER_STORED_ENTRIES", True)
    )
    logs: frozenset[str] = field(default_factory=_env_logs)
    # How deep user functions are inlined, and how many instructions one capture may execute
    # (loops are unrolled): past these, capture gives up with a graph break.
    inline_depth_limit: int = 32
    instruction_limit: int = 200_000
    # The unrolling cost rule (docs/ARCHITECTURE.md, section 12): a loop of up to
    # `unroll_max_trips` trips unrolls while it adds at most `unroll_op_budget` ops (then it
    # is tried as a loop op, and unrolls up to `unroll_op_limit` ops if it cannot be one); a
    # longer one becomes a loop op, or unrolls only when its trips project at most
    # `unroll_op_budget` ops (`unroll_op_limit` where a carried array changes shape), or the
    # frame runs as plain Python.
    unroll_max_trips: int = 8
    unroll_op_budget: int = 256
    unroll_op_limit: int = 4096
    # A graph break inside an unrolled loop of at least `cheap_loop_trips` trips averaging
    # fewer than `cheap_trip_ops` ops runs the frame as plain Python (a graph call per trip
    # would cost more than NumPy's own ops).
    cheap_loop_trips: int = 16
    cheap_trip_ops: int = 32
    # A branch on a 0-d value outside loops is one `if` op while each path holds at most
    # `branch_op_budget` ops, none of them whole-array work (section 10); else a graph break.
    branch_op_budget: int = 64

    # Held by the native pool of recycled outputs (one budget for the whole process), so that
    # a change takes effect at once: a property, not a field.
    @property
    def recycle_bytes(self) -> int:
        from ember import _core

        return _core.recycle_usage()[0]

    @recycle_bytes.setter
    def recycle_bytes(self, value: int) -> None:
        from ember import _core

        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"recycle_bytes must be an int >= 0, got {value!r}")
        _core.set_recycle_budget(value)


    # The persistent compile cache lives in the native code generator (one per process), so
    # that a change applies to the next compile at once: properties, not fields.
    @property
    def cache_dir(self) -> str | None:
        """Directory of the persistent compile cache; None: no cache."""
        return getattr(self, "_cache_dir", None)

    @cache_dir.setter
    def cache_dir(self, value: str | os.PathLike | None) -> None:
        if value is not None and not isinstance(value, (str, os.PathLike)):
            raise ValueError(f"cache_dir must be a path or None, got {value!r}")
        path = None if value is None else os.fspath(value)
        self._cache_dir = path or None
        self._apply_disk_cache()

    @property
    def cache_max_bytes(self) -> int:
        """Bound on the bytes the cache directory holds (least recently used files go)."""
        return getattr(self, "_cache_max_bytes", 256 << 20)

    @cache_max_bytes.setter
    def cache_max_bytes(self, value: int) -> None:
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"cache_max_bytes must be an int >= 0, got {value!r}")
        self._cache_max_bytes = value
        self._apply_disk_cache()

    def _apply_disk_cache(self) -> None:
        from ember import _core

        # Machine code does not depend on the interpreter, but a file written under another
        # Python (another build of the extension for it) is never trusted.
        salt = f"python {sys.version} {sys.implementation.cache_tag}"
        _core.set_disk_cache(self.cache_dir, self.cache_max_bytes, salt)


config = Config()
config.cache_max_bytes = _env_int("EMBER_CACHE_MAX_BYTES", 256 << 20)
config.cache_dir = _default_cache_dir()
config.recycle_bytes = _env_int("EMBER_RECYCLE_BYTES", 256 << 20)
