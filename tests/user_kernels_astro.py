"""Orbit computations from lecture notes: Kepler's equation by Newton's method, Julian dates,
air mass and orbit positions."""

import math

import numpy as np


# ---------------------------------------------------------------- astronomy

def kepler_newton_orbits(M, e, tol=1e-12, max_iter=50):
    """Eccentric anomaly of each orbit by Newton's method with its own stopping test."""
    E_out = np.empty_like(M)
    iters = np.zeros(len(M), dtype=np.int32)
    for k in range(len(M)):
        E = M[k] if e[k] < 0.8 else math.pi
        for it in range(max_iter):
            f = E - e[k] * math.sin(E) - M[k]
            dE = f / (1 - e[k] * math.cos(E))
            E -= dE
            if abs(dE) < tol:
                iters[k] = it + 1
                break
        E_out[k] = E
    return E_out, iters


def julian_dates(year, month, day, hour):
    """Julian dates of Gregorian calendar dates (int32 arrays), Meeus' algorithm."""
    y = year.copy()
    m = month.copy()
    early = m <= 2
    y[early] -= 1
    m[early] += 12
    A = y // 100
    B = 2 - A + A // 4
    return (np.floor(365.25 * (y + 4716)) + np.floor(30.6001 * (m + 1)) + day + B - 1524.5
            + hour / 24.0)


def airmass_kasten_young(alt_deg):
    """Airmass by Kasten and Young (1989), NaN below the horizon, per object."""
    out = np.empty(len(alt_deg))
    for i in range(len(alt_deg)):
        h = alt_deg[i]
        if h <= 0.0:
            out[i] = np.nan
            continue
        z = 90.0 - h
        out[i] = 1.0 / (math.cos(math.radians(z)) + 0.50572 * (96.07995 - z) ** -1.6364)
    return out


def _true_anomaly(E, e):
    return 2.0 * np.arctan2(np.sqrt(1 + e) * np.sin(E / 2), np.sqrt(1 - e) * np.cos(E / 2))


def orbit_positions(a, e, M0, n_motion, t):
    """Positions in the orbital plane at times t: vectorised Newton on Kepler, a helper for nu."""
    M = M0 + n_motion * t
    E = M.copy()
    for _ in range(30):
        E = E - (E - e * np.sin(E) - M) / (1 - e * np.cos(E))
    nu = _true_anomaly(E, e)
    r = a * (1 - e * np.cos(E))
    return r * np.cos(nu), r * np.sin(nu)
