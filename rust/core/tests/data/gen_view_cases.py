"""Write view_cases.txt: random chains of view ops as IR, with NumPy's layout after each view.

Each case is an IR function (blank-line separated) followed by `# layout %k: ...` lines giving
NumPy's offset, shape and strides in elements, or `copy` where `reshape(copy=False)` refuses.
The Rust test `views_match_numpy` replays the chains through `ember_core::views::apply`.
"""

import numpy as np

rng = np.random.default_rng(20261202)


def layout(x, base):
    offset = (x.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // 4
    strides = ",".join(str(s // 4) for s in x.strides)
    shape = ",".join(map(str, x.shape))
    return f"offset={offset} shape=[{shape}] strides=[{strides}]"


def ir_list(values):
    return "[" + ",".join(str(v) for v in values) + "]"


def random_view(x):
    """One random view of x: (IR op text, result) or None."""
    kind = rng.choice(["transpose", "slice", "flip", "expand_dims", "squeeze", "broadcast_to"])
    kind = rng.choice([kind, "reshape"])
    nd = x.ndim
    if kind == "transpose" and nd > 1:
        perm = list(rng.permutation(nd))
        return f"transpose(%v) perm={ir_list(perm)}", np.transpose(x, perm)
    if kind == "slice" and nd > 0:
        starts, stops, steps, index = [], [], [], []
        for n in x.shape:
            step = int(rng.choice([1, 1, 2, 3, -1, -2]))
            lo, hi = int(rng.integers(-n - 1, n + 2)), int(rng.integers(-n - 1, n + 2))
            s = slice(lo, hi, step)
            start, stop, step = s.indices(n)
            starts.append(start)
            stops.append(stop)
            steps.append(step)
            index.append(s)
        text = f"slice(%v) start={ir_list(starts)} stop={ir_list(stops)} step={ir_list(steps)}"
        return text, x[tuple(index)]
    if kind == "flip" and nd > 0:
        axes = sorted(
            int(a) for a in rng.choice(nd, size=int(rng.integers(1, nd + 1)), replace=False)
        )
        return f"flip(%v) axis={ir_list(axes)}", np.flip(x, tuple(axes))
    if kind == "expand_dims":
        k = int(rng.integers(1, 3))
        axes = sorted(int(a) for a in rng.choice(nd + k, size=k, replace=False))
        return f"expand_dims(%v) axis={ir_list(axes)}", np.expand_dims(x, tuple(axes))
    if kind == "squeeze":
        axes = [i for i, n in enumerate(x.shape) if n == 1]
        if axes:
            return f"squeeze(%v) axis={ir_list(axes)}", np.squeeze(x, tuple(axes))
    if kind == "broadcast_to":
        shape = [int(rng.integers(1, 4))] + [
            n if n != 1 else int(rng.integers(1, 4)) for n in x.shape
        ]
        return f"broadcast_to(%v) shape={ir_list(shape)}", np.broadcast_to(x, shape)
    if kind == "reshape":
        shape = random_factorisation(x.size) if x.size else [0, *rng.integers(1, 3, size=2)]
        try:
            y = np.reshape(x, shape, copy=False)
        except ValueError:
            y = None
        return f"reshape(%v) shape={ir_list(shape)}", y
    return None


def random_factorisation(size):
    dims = []
    while size > 1:
        divisors = [d for d in range(2, size + 1) if size % d == 0]
        d = int(rng.choice(divisors))
        dims.append(d)
        size //= d
    for _ in range(int(rng.integers(0, 2))):
        dims.insert(int(rng.integers(0, len(dims) + 1)), 1)
    order = rng.permutation(len(dims))
    return [dims[i] for i in order]


def case():
    shape = [int(n) for n in rng.integers(1, 6, size=int(rng.integers(1, 4)))]
    base = np.zeros(shape, np.float32)
    x = base
    lines = []
    layouts = []
    value = 1
    while len(lines) < int(rng.integers(1, 5)):
        view = random_view(x)
        if view is None:
            continue
        text, y = view
        text = text.replace("%v", f"%{value - 1}")
        if y is None:
            out_type = "f32[" + text.split("shape=[")[1].split("]")[0] + "]"
            lines.append(f"  %{value} = {text} : {out_type}")
            layouts.append(f"# layout %{value}: copy")
            break
        out_type = "f32[" + ",".join(map(str, y.shape)) + "]"
        lines.append(f"  %{value} = {text} : {out_type}")
        layouts.append(f"# layout %{value}: {layout(y, base)}")
        x = y
        value += 1
    last = lines[-1].split(" = ")[0].strip()
    last_type = lines[-1].rsplit(" : ", 1)[1]
    in_type = "f32[" + ",".join(map(str, shape)) + "]"
    head = f"ember-ir 1\nfunc @view(%0: {in_type}) -> ({last_type}) {{\n"
    return head + "\n".join(lines) + f"\n  return {last}\n}}\n" + "\n".join(layouts) + "\n"


def main():
    cases = [case() for _ in range(400)]
    with open("view_cases.txt", "w") as f:
        f.write("\n".join(cases))


if __name__ == "__main__":
    main()
