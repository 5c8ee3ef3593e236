"""Cost of a frame-hook cache hit: hook + guard evaluation + entry call, per call.

Run: python rust/py/benches/hook_overhead.py
"""

import timeit

import numpy as np
from ember import _core as core

SCALE = 2.0
N = 200_000


def plain(x, y):
    return x


namespace: dict = {}
exec(  # noqa: S102 - generated entry, like capture's
    compile("def entry(x, y):\n    return x\n", "<ember-bench>", "exec"), namespace
)
entry = namespace["entry"]

GUARDS = [
    (("local", 0), [("ARRAY_MATCH", np.float64, (None, 8), None)], []),
    (("local", 1), [("EQUALS_MATCH", 3)], []),
    (("global", "SCALE"), [("EQUALS_MATCH", 2.0)], []),
]


def per_call_ns(fn, *args):
    # A statement string keeps the timing loop free of extra Python frames per iteration.
    timer = timeit.Timer("fn(x, y)", globals={"fn": fn, "x": args[0], "y": args[1]})
    return min(timer.repeat(number=N, repeat=7)) / N * 1e9


def main():
    x = np.ones((4, 8))
    base = per_call_ns(plain, x, 3)
    direct = per_call_ns(entry, x, 3)
    core.set_callback(lambda func, args: (GUARDS, entry) if func is plain else core.SKIP)
    previous = core.enable(True)
    hit = per_call_ns(plain, x, 3)
    core.enable(previous)
    installed_off = per_call_ns(plain, x, 3)
    stats = core.hook_stats()
    core.set_callback(None)
    core.uninstall()
    print(f"plain call, no hook:            {base:7.1f} ns")
    print(f"entry called directly:          {direct:7.1f} ns")
    print(f"hook installed, thread disabled:{installed_off:7.1f} ns")
    print(f"cache hit (hook+3 guards+entry):{hit:7.1f} ns  (+{hit - direct:.1f} ns over the entry)")
    print(f"hits={stats['cache_hits']} misses={stats['cache_misses']}")


if __name__ == "__main__":
    main()
