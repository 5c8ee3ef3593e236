"""Minimax polynomial coefficients for the math functions in `src/lower/math/`.

    python rust/codegen/tools/minimax.py            # every function, as Rust arrays
    python rust/codegen/tools/minimax.py exp_f32    # one of them

Each approximation minimises the maximum *relative* error of `p(x)` against `f(x)` on an
interval with the Remez exchange algorithm (mpmath, 60 digits), with some low coefficients held
at their exact values (e.g. `p(0) = 1`), then rounds the coefficients to the working precision
and reports the error that remains. The error of the evaluation in floating point (a few half
ulps) comes on top; the ulp tests in `tests/math.rs` measure the whole.
"""

from __future__ import annotations

import sys

import mpmath as mp

mp.mp.dps = 60


def remez(f, lo, hi, fixed, degree, iters=40, grid=6000):
    """Coefficients c[0..=degree] of p minimising max |p/f - 1| on [lo, hi]; `fixed` maps
    indices to exact values that are not optimised."""
    free = [i for i in range(degree + 1) if i not in fixed]
    n = len(free)
    lo, hi = mp.mpf(lo), mp.mpf(hi)
    # Chebyshev extrema as the first reference.
    ref = [(lo + hi) / 2 - (hi - lo) / 2 * mp.cos(mp.pi * j / n) for j in range(n + 1)]
    xs = [lo + (hi - lo) * i / grid for i in range(grid + 1)]
    fx = [f(x) for x in xs]
    best = None
    for _ in range(iters):
        rows, rhs = [], []
        for j, x in enumerate(ref):
            fxj = f(x)
            base = sum(v * x**i for i, v in fixed.items())
            rows.append([x**i for i in free] + [(-1) ** j * fxj])
            rhs.append(fxj - base)
        sol = mp.lu_solve(mp.matrix(rows), mp.matrix(rhs))
        c = dict(fixed)
        for k, i in enumerate(free):
            c[i] = sol[k]
        coef = [c[i] for i in range(degree + 1)]
        err = [mp.polyval(coef[::-1], x) / y - 1 for x, y in zip(xs, fx)]
        # Local extrema of the error, then an alternating run of n + 1 of them.
        ext = [0] + [i for i in range(1, grid) if (err[i] - err[i - 1]) * (err[i + 1] - err[i]) <= 0]
        ext.append(grid)
        runs = []
        for i in ext:
            if runs and (err[i] >= 0) == (err[runs[-1]] >= 0):
                if abs(err[i]) > abs(err[runs[-1]]):
                    runs[-1] = i
            else:
                runs.append(i)
        while len(runs) > n + 1:
            # Drop the smaller end.
            if abs(err[runs[0]]) < abs(err[runs[-1]]):
                runs.pop(0)
            else:
                runs.pop()
        worst = max(abs(e) for e in err)
        best = (coef, worst)
        if len(runs) < n + 1:
            break
        ref = [xs[i] for i in runs]
        if worst - abs(sol[n]) < worst * mp.mpf("1e-6"):
            break
    return best


def rounded_error(f, lo, hi, coef, to, grid=20000):
    """Max relative error once the coefficients are rounded with `to` (evaluated exactly)."""
    cr = [mp.mpf(to(float(c))) for c in coef]
    lo, hi = mp.mpf(lo), mp.mpf(hi)
    return cr, max(abs(mp.polyval(cr[::-1], x) / f(x) - 1)
                   for x in (lo + (hi - lo) * i / grid for i in range(grid + 1)) if f(x) != 0)


def f32(v):
    import struct
    return struct.unpack("f", struct.pack("f", v))[0]


def f64(v):
    return v


LN2_2 = mp.log(2) / 2


def sin_tail(z):
    """(sin(r)/r - 1) / z at z = r^2: sin(r) = r + r z Q(z)."""
    r = mp.sqrt(z)
    return (mp.sin(r) / r - 1) / z if z else -mp.mpf(1) / 6


# |r| <= pi/2 after the reduction, with room for k rounded the other way.
SIN_Z = (mp.pi / 2 * mp.mpf("1.001")) ** 2


def em1_over(r):
    """(e^r - 1)/r."""
    return mp.expm1(r) / r if r else mp.mpf(1)


def atanh_tail(z):
    """(2 atanh(s)/s - 2) / z at z = s^2: log(1+f) = 2s + s z P(z) for s = f/(2+f)."""
    s = mp.sqrt(z)
    return (2 * mp.atanh(s) / s - 2) / z if z else mp.mpf(2) / 3


# s = f/(2+f) for f in [sqrt(1/2) - 1, sqrt(2) - 1] stays below 3 - 2 sqrt(2) = 0.17157.
LOG_Z = mp.mpf("0.0295")


# name: (f, lo, hi, fixed coefficients, degree, rounding)
FUNCTIONS = {
    "exp_f32": (mp.exp, -LN2_2, LN2_2, {0: 1}, 6, f32),
    "exp_f64": (mp.exp, -LN2_2, LN2_2, {0: 1, 1: 1}, 11, f64),
    "expm1_f32": (em1_over, -LN2_2, LN2_2, {0: 1}, 6, f32),
    "expm1_f64": (em1_over, -LN2_2, LN2_2, {0: 1}, 11, f64),
    # The tail enters log scaled by s z / log(1+f) < 0.01, hence the lower accuracy.
    # Q's error enters sin scaled by z Q / (1 + z Q), at most 0.57 and 0 near r = 0.
    "sin_f32": (sin_tail, mp.mpf("1e-30"), SIN_Z, {}, 4, f32),
    "sin_f64": (sin_tail, mp.mpf("1e-30"), SIN_Z, {}, 7, f64),
    "log_f32": (atanh_tail, mp.mpf("1e-30"), LOG_Z, {}, 2, f32),
    "log_f64": (atanh_tail, mp.mpf("1e-30"), LOG_Z, {}, 6, f64),
}


def fit(f, lo, hi, fixed, deg, to):
    """Remez, then for f32 the coefficients rounded one at a time from the lowest, the higher
    ones refitted around each rounded one (their rounding matters less: r^i is small); f64
    coefficients are rounded as they are, which costs little at 53 bits."""
    fixed = {k: mp.mpf(v) for k, v in fixed.items()}
    coef, err = remez(f, lo, hi, fixed, deg)
    for i in range(deg + 1 if to is f32 else 0):
        if i in fixed:
            continue
        fixed[i] = mp.mpf(to(float(coef[i])))
        if len(fixed) <= deg:
            coef, _ = remez(f, lo, hi, fixed, deg)
        else:
            coef = [fixed[j] for j in range(deg + 1)]
    cr, rerr = rounded_error(f, lo, hi, coef, to)
    return err, cr, rerr


def main(names):
    for name in names:
        f, lo, hi, fixed, deg, to = FUNCTIONS[name]
        err, cr, rerr = fit(f, lo, hi, fixed, deg, to)
        eps = 2.0**-24 if to is f32 else 2.0**-53
        print(f"// {name}: degree {deg} on [{float(lo):.6g}, {float(hi):.6g}], relative error "
              f"{float(err):.3g} ({float(err) / eps:.3f} half-ulp-units), "
              f"{float(rerr):.3g} with rounded coefficients ({float(rerr) / eps:.3f})")
        print("[" + ", ".join(repr(float(c)) for c in cr) + "]")


if __name__ == "__main__":
    main(sys.argv[1:] or list(FUNCTIONS))
