"""Capture: the frame hook's Python side.

The native hook (`ember._core`) calls `policy.on_cache_miss(func, args)` when no cached entry
of a frame's code passes its guards. From there, data flows one way:

    policy.py       per-frame policy: options of the active `ember.compile`, recompile limit,
                    automatic dynamic shapes, SKIP / CACHE_ONLY after a break
    convert.py      capture the frame, compile its graph with the backend, build the entry
    interpreter.py  the 3.11 bytecode run symbolically (handlers named by opname; building.py
                    holds the container-building ones); a break records a `FrameState` per
                    frame (stack before the refused instruction, locals, cells)
    bytecode.py     the one home of 3.11 details: instructions, exception and line tables
    variables/      trackers: arrays (graph values), constants, containers, functions
                    (inlined), builtins, modules, user objects; every tracker refuses by default
    builder.py      wraps a value read from the frame, by its source, recording its guard
    sources.py      where a value came from: guard path, readable name, reload expression
    guards.py       the guard tree of `_core.pyi`, and which check failed (recompile reasons)
    operators.py    Python operators on trackers
    codegen.py      the generated entry (`<ember entry ...>`): reload inputs, call the graph,
                    rebuild the return value; reruns the function as Python if the graph raises
    breaks.py       the catalogue of graph-break reasons
"""
