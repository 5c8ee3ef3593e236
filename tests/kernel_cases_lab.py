"""Inputs for the kernels of `user_kernels_lab.py`: (name, function, make inputs(rng, scale))."""

from __future__ import annotations

import numpy as np
import user_kernels_lab as Lb
import user_kernels_astro as As


def _lattice_md(rng, s):
    side = 3 + s
    box = 1.2 * side
    g = np.arange(side) * 1.2 + 0.6
    x = np.array([(a, b, c) for a in g for b in g for c in g]) + 0.02 * rng.standard_normal(
        (side ** 3, 3))
    n = len(x)
    start, nbrs = [0], []
    for i in range(n):
        for j in range(i + 1, n):
            d = x[i] - x[j]
            d -= box * np.round(d / box)
            if d @ d < 2.5 ** 2:
                nbrs.append(j)
        start.append(len(nbrs))
    return (x, 0.1 * rng.standard_normal((n, 3)), np.array(start, dtype=np.int32),
            np.array(nbrs, dtype=np.int32), 0.002, 3, box)


def _nbody_f32(rng, s):
    n = 12 * s
    return (rng.standard_normal((n, 3)).astype(np.float32),
            0.1 * rng.standard_normal((n, 3)).astype(np.float32),
            rng.random(n).astype(np.float32) + np.float32(0.5), np.float32(0.01), 4,
            np.float32(0.05))


def _potts(rng, s):
    L, sweeps = 8 * s, 3
    return (rng.integers(0, 3, (L, L)).astype(np.int32), 3, 0.9,
            rng.integers(0, 3, (sweeps, L, L)).astype(np.int32), rng.random((sweeps, L, L)),
            sweeps)


def _lbm(rng, s):
    ny, nx = 10 * s, 14 * s
    w = np.array([4 / 9] + [1 / 9] * 4 + [1 / 36] * 4)
    f = w[:, None, None] * (1.0 + 0.05 * rng.random((9, ny, nx)))
    return f, 1.2, 4


def _sir_ca(rng, s):
    n, steps = 10 * s, 6
    state = np.zeros((n, n), dtype=np.uint8)
    state[rng.random((n, n)) < 0.05] = 1
    return state, rng.random((steps, n, n)), 0.3, 0.2, steps


def _nasch(rng, s):
    L, n, steps = 60 * s, 15 * s, 20
    pos = np.sort(rng.choice(L, n, replace=False)).astype(np.int32)
    return pos, np.zeros(n, dtype=np.int32), L, 5, 0.3, rng.random((steps, n))


def _gillespie(rng, s):
    k = 200 * s
    return 90 * s, 10, 0.5, 0.2, 1.0 - rng.random(k), rng.random(k), 40.0


def _sos(rng, s):
    k = 3
    sos = np.zeros((k, 6))
    for i in range(k):
        r, th = 0.5 + 0.4 * rng.random(), np.pi * rng.random()
        sos[i] = [1.0, rng.random(), 0.3 * rng.random(), 1.0, -2 * r * np.cos(th), r * r]
    return sos, rng.standard_normal(200 * s)


def _edges(rng, s):
    n = 16 * s
    y, x = np.mgrid[0:n, 0:n]
    return (((x - n / 2) ** 2 + (y - n / 3) ** 2 < (n / 4) ** 2) * 1.0
            + 0.1 * rng.random((n, n)),)


def _hyst(rng, s):
    return rng.random((14 * s, 14 * s)) ** 2, 0.3, 0.8


def _binary(rng, s):
    return ((rng.random((12 * s, 12 * s)) < 0.45).astype(np.uint8),)


def _hmm(rng, s):
    S, V, T = 3, 4, 40 * s
    A = rng.random((S, S)) + np.eye(S) * 2
    A /= A.sum(axis=1, keepdims=True)
    B = rng.random((S, V))
    B /= B.sum(axis=1, keepdims=True)
    pi = np.full(S, 1 / S)
    return rng.integers(0, V, T), pi, A, B


def _hmm_log(rng, s):
    obs, pi, A, B = _hmm(rng, s)
    return obs, np.log(pi), np.log(A), np.log(B)


def _dates(rng, s):
    n = 50 * s
    return (rng.integers(1900, 2100, n).astype(np.int32), rng.integers(1, 13, n).astype(np.int32),
            rng.integers(1, 29, n).astype(np.int32), 24 * rng.random(n))


def _orbits(rng, s):
    return 1.0 + rng.random(), 0.6 * rng.random(), rng.random(), 0.3, np.linspace(0, 40, 60 * s)


def _ar_series(rng, s):
    n = 300 * s
    x = np.zeros(n)
    e = rng.standard_normal(n)
    for t in range(2, n):
        x[t] = 0.6 * x[t - 1] - 0.2 * x[t - 2] + e[t]
    return x


LAB_CASES = [
    ("sph_density_pressure", Lb.sph_density_pressure,
     lambda r, s: (r.random((40 * s, 2)), 0.02, 0.15, 1.0, 3.0)),
    ("md_verlet_neighbours", Lb.md_verlet_neighbours, _lattice_md),
    ("nbody_softened_leapfrog", Lb.nbody_softened_leapfrog, _nbody_f32),
    ("potts_metropolis", Lb.potts_metropolis, _potts),
    ("lbm_d2q9_steps", Lb.lbm_d2q9_steps, _lbm),
    ("sir_cellular", Lb.sir_cellular, _sir_ca),
    ("nasch_ring", Lb.nasch_ring, _nasch),
    ("gillespie_sir", Lb.gillespie_sir, _gillespie),
    ("lfilter_df2", Lb.lfilter_df2,
     lambda r, s: (np.array([0.2, 0.3, 0.2]), np.array([1.0, -0.5, 0.25, -0.05]),
                   r.standard_normal(300 * s))),
    ("fir_taps_f32", Lb.fir_taps_f32,
     lambda r, s: (r.standard_normal(300 * s).astype(np.float32),
                   (np.hanning(15) / np.hanning(15).sum()).astype(np.float32))),
    ("goertzel_powers", Lb.goertzel_powers,
     lambda r, s: (np.sin(2 * np.pi * 697 * np.arange(205 * s) / 8000)
                   + 0.1 * r.standard_normal(205 * s),
                   np.array([697.0, 770.0, 852.0, 941.0, 1209.0, 1336.0]), 8000.0)),
    ("autocorr_unbiased", Lb.autocorr_unbiased,
     lambda r, s: (np.cumsum(r.standard_normal(200 * s)), 20)),
    ("levinson_durbin", Lb.levinson_durbin,
     lambda r, s: (0.8 ** np.arange(12) + 0.01 * r.random(12), 8)),
    ("overlap_add", Lb.overlap_add,
     lambda r, s: (r.standard_normal(250 * s), r.random(9), 64)),
    ("zero_crossing_rate", Lb.zero_crossing_rate,
     lambda r, s: (r.standard_normal(400 * s), 64, 32)),
    ("envelope_attack_release", Lb.envelope_attack_release,
     lambda r, s: (r.standard_normal(500 * s) * np.sin(np.arange(500 * s) / 40.0), 8000.0,
                   2.0, 40.0)),
    ("sosfilt_cascade", Lb.sosfilt_cascade, _sos),
    ("sobel_nms", Lb.sobel_nms, _edges),
    ("hysteresis_stack", Lb.hysteresis_stack, _hyst),
    ("two_pass_labels", Lb.two_pass_labels, _binary),
    ("equalize_uint8", Lb.equalize_uint8,
     lambda r, s: (r.integers(40, 120, (16 * s, 20 * s)).astype(np.uint8),)),
    ("bilinear_resize_f32", Lb.bilinear_resize_f32,
     lambda r, s: (r.random((10 * s, 12 * s)).astype(np.float32), 17 * s, 23 * s)),
    ("integral_box_means", Lb.integral_box_means,
     lambda r, s: (r.integers(0, 256, (14 * s, 18 * s)).astype(np.uint8), 2)),
    ("open_binary", Lb.open_binary,
     lambda r, s: ((r.random((12 * s, 12 * s)) < 0.7).astype(np.uint8) * 255, 3)),
    ("binomial_european_call", Lb.binomial_european_call,
     lambda r, s: (100.0, 90.0 + 20 * r.random(), 1.0, 0.03, 0.2, 100 * s)),
    ("trinomial_american_put", Lb.trinomial_american_put,
     lambda r, s: (100.0, 90.0 + 20 * r.random(), 1.0, 0.03, 0.25, 60 * s)),
    ("mc_paths_from_normals", Lb.mc_paths_from_normals,
     lambda r, s: (100.0, 0.05, 0.2, 1 / 252, r.standard_normal((200 * s, 50)), 120.0)),
    ("garch11", Lb.garch11,
     lambda r, s: (0.01 * r.standard_normal(400 * s), 1e-6, 0.08, 0.9)),
    ("ewma_vol_into", Lb.ewma_vol_into,
     lambda r, s: (0.01 * r.standard_normal(400 * s), 0.94, np.zeros(400 * s))),
    ("drawdown_stats", Lb.drawdown_stats,
     lambda r, s: (100 * np.exp(np.cumsum(0.01 * r.standard_normal(300 * s))),)),
    ("rolling_sharpe", Lb.rolling_sharpe,
     lambda r, s: (0.01 * r.standard_normal(300 * s) + 0.0003, 60)),
    ("kalman_local_level", Lb.kalman_local_level,
     lambda r, s: (np.cumsum(r.standard_normal(300 * s)) + r.standard_normal(300 * s), 1.0,
                   0.5, 0.0, 1e7)),
    ("yule_walker_ar", Lb.yule_walker_ar, lambda r, s: (_ar_series(r, s), 3)),
    ("smith_waterman_int8", Lb.smith_waterman_int8,
     lambda r, s: (r.integers(0, 4, 30 * s).astype(np.int8),
                   r.integers(0, 4, 25 * s).astype(np.int8), 2, -1, 1)),
    ("kmer_spectrum", Lb.kmer_spectrum,
     lambda r, s: (r.integers(0, 4, 500 * s).astype(np.uint8), 4)),
    ("viterbi_log", Lb.viterbi_log, _hmm_log),
    ("forward_backward_scaled", Lb.forward_backward_scaled, _hmm),
    ("kepler_newton_orbits", As.kepler_newton_orbits,
     lambda r, s: (2 * np.pi * r.random(100 * s), 0.95 * r.random(100 * s))),
    ("julian_dates", As.julian_dates, _dates),
    ("airmass_kasten_young", As.airmass_kasten_young,
     lambda r, s: (r.uniform(-10.0, 90.0, 80 * s),)),
    ("orbit_positions", As.orbit_positions, _orbits),
]
