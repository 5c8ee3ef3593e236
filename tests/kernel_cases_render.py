"""Inputs for the kernels of `user_kernels_render.py`: (name, function, make inputs(rng, scale))."""

from __future__ import annotations

import numpy as np
import user_kernels_render as R


def _mesh(rng, s):
    """A jittered structured triangle mesh of the unit square and its boundary nodes."""
    m = 3 + s
    xs, ys = np.meshgrid(np.linspace(0, 1, m), np.linspace(0, 1, m))
    pts = np.stack([xs.ravel(), ys.ravel()], axis=1)
    inner = (pts > 0).all(axis=1) & (pts < 1).all(axis=1)
    pts[inner] += 0.1 / m * (rng.random((inner.sum(), 2)) - 0.5)
    tris = []
    for j in range(m - 1):
        for i in range(m - 1):
            a = j * m + i
            tris += [(a, a + 1, a + m + 1), (a, a + m + 1, a + m)]
    return pts, np.array(tris, dtype=np.int64), np.flatnonzero(~inner)


def _triangles(rng, s, w, h):
    n = 4 * s
    verts = np.column_stack([rng.uniform(-2, w + 2, 3 * n), rng.uniform(-2, h + 2, 3 * n),
                             rng.uniform(1, 10, 3 * n)])
    return verts, np.arange(3 * n).reshape(n, 3), rng.random((n, 3)), w, h


def _spheres(rng, k):
    centers = np.column_stack([rng.uniform(-2, 2, k), rng.uniform(-2, 2, k), rng.uniform(-8, -4, k)])
    return centers, rng.uniform(0.5, 1.5, k)


def _normals(rng, shape):
    n = rng.standard_normal(shape + (3,))
    n[..., 2] = np.abs(n[..., 2]) + 0.1
    return n


def _truss(rng, s):
    m = 3 + s
    top = np.column_stack([np.arange(m), np.ones(m)])
    bottom = np.column_stack([np.arange(m), np.zeros(m)])
    nodes = np.concatenate([bottom, top]) + 0.01 * rng.random((2 * m, 2))
    bars = [(i, i + 1) for i in range(m - 1)] + [(m + i, m + i + 1) for i in range(m - 1)]
    bars += [(i, m + i) for i in range(m)] + [(i, m + i + 1) for i in range(m - 1)]
    loads = np.zeros(4 * m)
    loads[2 * (2 * m - 1) + 1] = -1.0
    return nodes, np.array(bars), 200.0, 0.01, [0, 1, 2 * (m - 1) + 1], loads


def _seq(rng, n, dtype=np.uint8):
    return rng.integers(0, 4, n).astype(dtype)


def _codon_table(rng):
    table = rng.integers(1, 21, 64).astype(np.int8)
    table[[48, 50, 56]] = 0
    return table


def _reads(rng, s):
    ref = _seq(rng, 60 * s)
    starts = rng.integers(0, 60 * s - 12, 6 * s)
    reads = np.stack([ref[a:a + 12] for a in starts])
    flip = rng.random(reads.shape) < 0.05
    reads[flip] = (reads[flip] + 1) % 4
    return reads, ref


def _lattice(rng, n, box):
    m = int(np.ceil(n ** (1 / 3)))
    g = np.stack(np.meshgrid(*[np.arange(m)] * 3, indexing="ij"), -1).reshape(-1, 3)[:n]
    return (g + 0.5) * (box / m) + 0.05 * rng.standard_normal((n, 3))


def _chain(rng, n):
    steps = rng.standard_normal((n, 3))
    return np.cumsum(steps / np.linalg.norm(steps, axis=1, keepdims=True), axis=0)


def _spikes(rng, steps, n, p):
    return rng.random((steps, n)) < p


RENDER_CASES = [
    ("ray_sphere_depth", R.ray_sphere_depth,
     lambda r, s: (8 * s, 6 * s, np.array([0.1, 0.0, -3.0]) + 0.1 * r.random(3), 1.0)),
    ("ray_sphere_vectorized", R.ray_sphere_vectorized,
     lambda r, s: (16 * s, 12 * s, *_spheres(r, 3))),
    ("ray_plane_checker", R.ray_plane_checker, lambda r, s: (10 * s, 8 * s, -1.0, 2.0 + r.random())),
    ("lambert_shade", R.lambert_shade,
     lambda r, s: (_normals(r, (6 * s, 8 * s)), r.standard_normal(3) + [0, 0, 2], r.random(3))),
    ("phong_shade", R.phong_shade,
     lambda r, s: (r.random((4 * s, 5 * s, 3)), _normals(r, (4 * s, 5 * s)),
                   np.array([2.0, 3.0, 4.0]), np.array([0.0, 0.0, 5.0]), 16)),
    ("zbuffer_raster", R.zbuffer_raster, lambda r, s: _triangles(r, s, 12 * s, 10 * s)),
    ("barycentric_grid", R.barycentric_grid,
     lambda r, s: (((1.0, 1.0), (11.0 * s, 2.0), (4.0, 9.0 * s)), 12 * s, 10 * s)),
    ("reflect_bounces", R.reflect_bounces,
     lambda r, s: (np.zeros((10 * s, 3)), r.standard_normal((10 * s, 3)) * [0.3, 0.3, 0.1] - [0, 0, 1],
                   *_spheres(r, 4), 4)),
    ("rgb_to_hsv", R.rgb_to_hsv, lambda r, s: (np.round(r.random((5 * s, 7, 3)), 1),)),
    ("srgb_to_linear_luma", R.srgb_to_linear_luma,
     lambda r, s: (r.integers(0, 256, (6 * s, 5, 3), dtype=np.uint8),)),
    ("reinhard_tonemap", R.reinhard_tonemap, lambda r, s: (r.exponential(2.0, (6 * s, 8, 3)),)),
    ("aces_filmic_inplace", R.aces_filmic_inplace, lambda r, s: (r.exponential(1.0, (4 * s, 5, 3)),)),
    ("fem_poisson_1d_assembly", R.fem_poisson_1d_assembly, lambda r, s: (8 * s, 1.0 + r.random())),
    ("fem_1d_mass_stiffness", R.fem_1d_mass_stiffness,
     lambda r, s: (np.cumsum(r.random(8 * s) + 0.5), np.stack([np.arange(8 * s - 1), np.arange(1, 8 * s)], 1),
                   7800.0, 2.1e3)),
    ("fem_2d_poisson", R.fem_2d_poisson, lambda r, s: (*_mesh(r, s), 1.0)),
    ("fem_2d_mass_vectorized", R.fem_2d_mass_vectorized, lambda r, s: _mesh(r, s)[:2]),
    ("fem_truss_2d", R.fem_truss_2d, lambda r, s: _truss(r, s)),
    ("lif_network", R.lif_network,
     lambda r, s: (0.2 * r.random((10 * s, 10 * s)), 1.0 + r.random(10 * s), 60)),
    ("izhikevich_network", R.izhikevich_network,
     lambda r, s: (R.IzhParams(0.02, 0.2, -65.0, 8.0), 0.5 * r.random((10 * s, 10 * s)),
                   5.0 * r.standard_normal((7, 10 * s)), 40)),
    ("stdp_update", R.stdp_update,
     lambda r, s: (_spikes(r, 40, 6 * s, 0.2), _spikes(r, 40, 4 * s, 0.2), 0.5 * r.random((4 * s, 6 * s)),
                   0.01, 0.012, 20.0, 20.0, 1.0)),
    ("lif_single_scalar", R.lif_single_scalar,
     lambda r, s: (1.0 + 2.0 * r.random(100 * s), 0.5, 10.0, 0.8)),
    ("spike_rate_float32", R.spike_rate_float32, lambda r, s: (_spikes(r, 50 * s, 6, 0.3), 5)),
    ("needleman_wunsch_score", R.needleman_wunsch_score,
     lambda r, s: (_seq(r, 12 * s), _seq(r, 10 * s))),
    ("smith_waterman_traceback", R.smith_waterman_traceback,
     lambda r, s: (_seq(r, 14 * s, np.int8), _seq(r, 12 * s, np.int8))),
    ("kmer_counts_rolling", R.kmer_counts_rolling, lambda r, s: (_seq(r, 200 * s), 3)),
    ("kmer_codes_vectorized", R.kmer_codes_vectorized, lambda r, s: (_seq(r, 200 * s), 4)),
    ("gc_content_windows", R.gc_content_windows, lambda r, s: (_seq(r, 200 * s), 20, 7)),
    ("gc_skew_cumulative", R.gc_skew_cumulative, lambda r, s: (_seq(r, 300 * s),)),
    ("hamming_all_pairs", R.hamming_all_pairs, lambda r, s: (_reads(r, s)[0],)),
    ("hamming_broadcast", R.hamming_broadcast, lambda r, s: (_reads(r, s)[0],)),
    ("edit_distance_rows", R.edit_distance_rows, lambda r, s: (_seq(r, 15 * s), _seq(r, 13 * s))),
    ("reverse_complement_int8", R.reverse_complement_int8, lambda r, s: (_seq(r, 50 * s, np.int8),)),
    ("translate_codons", R.translate_codons, lambda r, s: (_seq(r, 90 * s + 2), _codon_table(r))),
    ("best_offsets", R.best_offsets, lambda r, s: _reads(r, s)),
    ("lj_energy_forces", R.lj_energy_forces,
     lambda r, s: (_lattice(r, 8 * s, 2.5 * s ** (1 / 3)), 2.5 * s ** (1 / 3), 1.2)),
    ("lj_vectorized", R.lj_vectorized,
     lambda r, s: (_lattice(r, 27 * s, 3.3 * s ** (1 / 3)), 3.3 * s ** (1 / 3), 1.5)),
    ("cell_list_pairs", R.cell_list_pairs,
     lambda r, s: (r.random((30 * s, 2)) * (4.0 + s), 4.0 + s, 1.0)),
    ("bond_angles", R.bond_angles,
     lambda r, s: (_chain(r, 20 * s), np.stack([np.arange(20 * s - 2) + k for k in range(3)], 1))),
    ("dihedrals_loop", R.dihedrals_loop,
     lambda r, s: (_chain(r, 12 * s), np.stack([np.arange(12 * s - 3) + k for k in range(4)], 1))),
    ("velocity_verlet_berendsen", R.velocity_verlet_berendsen,
     lambda r, s: (r.standard_normal((6 * s, 3)), r.standard_normal((6 * s, 3)), 1.0 + r.random(6 * s),
                   2.0, 0.01, 30, R.Thermostat(1.0, 0.1))),
    ("radial_distribution", R.radial_distribution,
     lambda r, s: (r.random((20 * s, 3)) * 3.0, 3.0, 10, 1.5)),
    ("wrap_positions_f32", R.wrap_positions_f32,
     lambda r, s: ((r.random((30 * s, 3)) * 12.0 - 6.0).astype(np.float32), np.float32(4.0))),
]
