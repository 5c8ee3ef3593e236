"""Simulations and transforms written the way their users write them: wavelets by lifting,
optical flow and block matching, Kalman tracking of several targets, particle filters,
agent and cellular models, population genetics and ecology, circuit and load-flow solvers
with real and imaginary parts kept apart, and queueing and inventory runs."""

from dataclasses import dataclass

import numpy as np


# ---------------------------------------------------------------- wavelets

def haar_forward_levels(x, levels):
    """Multilevel Haar transform by lifting; returns the approximation and the details."""
    a = x.astype(np.float64)
    details = []
    for _ in range(levels):
        even = a[0::2]
        odd = a[1::2]
        d = odd - even
        s = even + d / 2
        details.append(d)
        a = s
    return a, details


def _haar_inverse_step(s, d):
    even = s - d / 2
    odd = d + even
    out = np.empty(2 * len(s))
    out[0::2] = even
    out[1::2] = odd
    return out


def haar_denoise_soft(x, levels, thresh):
    approx, details = haar_forward_levels(x, levels)
    for k in range(len(details)):
        d = details[k]
        details[k] = np.sign(d) * np.maximum(np.abs(d) - thresh, 0.0)
    rec = approx
    for d in reversed(details):
        rec = _haar_inverse_step(rec, d)
    return rec


def db4_lifting(x):
    """One level of the Daubechies-4 transform by lifting (periodic)."""
    s = x[0::2].copy()
    d = x[1::2].copy()
    sqrt3 = np.sqrt(3.0)
    s = s + sqrt3 * d
    d = d - sqrt3 / 4 * s - (sqrt3 - 2) / 4 * np.roll(s, 1)
    s = s - np.roll(d, -1)
    s = s * (sqrt3 - 1) / np.sqrt(2.0)
    d = d * (sqrt3 + 1) / np.sqrt(2.0)
    return s, d


def db4_multilevel_energy(x, levels):
    energies = np.zeros(levels + 1)
    s = x
    for lev in range(levels):
        s, d = db4_lifting(s)
        energies[lev] = np.sum(d * d)
    energies[levels] = np.sum(s * s)
    return energies / energies.sum()


def haar_2d(img):
    """One level of the 2-d Haar transform: rows, then columns; four quadrants."""
    rows_lo = (img[:, 0::2] + img[:, 1::2]) / 2
    rows_hi = (img[:, 0::2] - img[:, 1::2]) / 2
    ll = (rows_lo[0::2, :] + rows_lo[1::2, :]) / 2
    lh = (rows_lo[0::2, :] - rows_lo[1::2, :]) / 2
    hl = (rows_hi[0::2, :] + rows_hi[1::2, :]) / 2
    hh = (rows_hi[0::2, :] - rows_hi[1::2, :]) / 2
    out = np.empty_like(img)
    h, w = ll.shape
    out[:h, :w] = ll
    out[:h, w:] = hl
    out[h:, :w] = lh
    out[h:, w:] = hh
    return out


def haar_inplace_loop(signal, levels):
    """The classic in-place Haar loop over a float32 buffer, halving the length each level."""
    n = signal.shape[0]
    tmp = np.empty_like(signal)
    for _ in range(levels):
        half = n // 2
        for i in range(half):
            tmp[i] = (signal[2 * i] + signal[2 * i + 1]) * np.float32(0.5)
            tmp[half + i] = (signal[2 * i] - signal[2 * i + 1]) * np.float32(0.5)
        signal[:n] = tmp[:n]
        n = half
    return signal


def wavelet_hard_threshold(x, levels):
    """Universal threshold from the finest details' median absolute deviation."""
    approx, details = haar_forward_levels(x, levels)
    sigma = np.median(np.abs(details[0])) / 0.6745
    lam = sigma * np.sqrt(2 * np.log(len(x)))
    kept = 0
    for d in details:
        small = np.abs(d) < lam
        d[small] = 0.0
        kept += int(np.count_nonzero(~small))
    rec = approx
    for d in details[::-1]:
        rec = _haar_inverse_step(rec, d)
    return rec, kept


# ---------------------------------------------------------------- motion

def _gradients(I1, I2):
    Ix = np.zeros_like(I1)
    Iy = np.zeros_like(I1)
    Ix[:, 1:-1] = (I1[:, 2:] - I1[:, :-2]) / 2
    Iy[1:-1, :] = (I1[2:, :] - I1[:-2, :]) / 2
    It = I2 - I1
    return Ix, Iy, It


def lucas_kanade_windows(I1, I2, r):
    Ix, Iy, It = _gradients(I1, I2)
    h, w = I1.shape
    u = np.zeros((h, w))
    v = np.zeros((h, w))
    for i in range(r, h - r):
        for j in range(r, w - r):
            ix = Ix[i - r:i + r + 1, j - r:j + r + 1]
            iy = Iy[i - r:i + r + 1, j - r:j + r + 1]
            it = It[i - r:i + r + 1, j - r:j + r + 1]
            a = np.sum(ix * ix)
            b = np.sum(ix * iy)
            c = np.sum(iy * iy)
            p = -np.sum(ix * it)
            q = -np.sum(iy * it)
            det = a * c - b * b
            if det > 1e-9:
                u[i, j] = (c * p - b * q) / det
                v[i, j] = (a * q - b * p) / det
    return u, v


def _box_sum(a, r):
    c = np.cumsum(np.cumsum(np.pad(a, ((1, 0), (1, 0))), axis=0), axis=1)
    k = 2 * r + 1
    return c[k:, k:] - c[:-k, k:] - c[k:, :-k] + c[:-k, :-k]


def lucas_kanade_boxes(I1, I2, r):
    Ix, Iy, It = _gradients(I1, I2)
    a = _box_sum(Ix * Ix, r)
    b = _box_sum(Ix * Iy, r)
    c = _box_sum(Iy * Iy, r)
    p = -_box_sum(Ix * It, r)
    q = -_box_sum(Iy * It, r)
    det = a * c - b * b
    ok = det > 1e-9
    safe = np.where(ok, det, 1.0)
    u = np.where(ok, (c * p - b * q) / safe, 0.0)
    v = np.where(ok, (a * q - b * p) / safe, 0.0)
    return np.stack([u, v], axis=-1)


def block_matching_sad(prev, curr, block, search):
    """Exhaustive block matching: the motion vector of each block minimising the SAD."""
    h, w = curr.shape
    nby, nbx = h // block, w // block
    vectors = np.zeros((nby, nbx, 2), dtype=np.int64)
    for by in range(nby):
        for bx in range(nbx):
            y0, x0 = by * block, bx * block
            target = curr[y0:y0 + block, x0:x0 + block].astype(np.int32)
            best = 1 << 30
            for dy in range(-search, search + 1):
                for dx in range(-search, search + 1):
                    y, x = y0 + dy, x0 + dx
                    if y < 0 or x < 0 or y + block > h or x + block > w:
                        continue
                    cand = prev[y:y + block, x:x + block].astype(np.int32)
                    sad = np.abs(target - cand).sum()
                    if sad < best:
                        best = sad
                        vectors[by, bx, 0] = dy
                        vectors[by, bx, 1] = dx
    return vectors


def kalman_multi_target(zs, dt, q, r):
    """Constant-velocity Kalman filters for several 2-d targets at once (batched by einsum)."""
    steps, n_targets, _ = zs.shape
    F = np.eye(4)
    F[0, 2] = F[1, 3] = dt
    H = np.zeros((2, 4))
    H[0, 0] = H[1, 1] = 1.0
    Q = q * np.eye(4)
    R = r * np.eye(2)
    x = np.zeros((n_targets, 4))
    x[:, :2] = zs[0]
    P = np.tile(np.eye(4) * 10.0, (n_targets, 1, 1))
    track = np.empty((steps, n_targets, 2))
    for t in range(steps):
        x = np.einsum("ij,nj->ni", F, x)
        P = np.einsum("ij,njk,lk->nil", F, P, F) + Q
        S = np.einsum("ij,njk,lk->nil", H, P, H) + R
        K = np.einsum("nij,kj,nkl->nil", P, H, np.linalg.inv(S))
        y = zs[t] - x[:, :2]
        x = x + np.einsum("nij,nj->ni", K, y)
        P = P - np.einsum("nij,jk,nkl->nil", K, H, P)
        track[t] = x[:, :2]
    return track


def alpha_beta_tracker(zs, dt, alpha, beta):
    """Several targets tracked by alpha-beta filters, the state as separate arrays."""
    pos = zs[0].copy()
    vel = np.zeros_like(pos)
    residuals = np.zeros(zs.shape[0])
    for k in range(1, zs.shape[0]):
        pred = pos + vel * dt
        res = zs[k] - pred
        pos = pred + alpha * res
        vel = vel + beta / dt * res
        residuals[k] = np.sqrt(np.mean(res ** 2))
    return pos, vel, residuals


# ---------------------------------------------------------------- particle filters

def systematic_resample(weights, u0):
    n = len(weights)
    positions = (np.arange(n) + u0) / n
    cumulative = np.cumsum(weights)
    cumulative[-1] = 1.0
    return np.searchsorted(cumulative, positions)


def particle_filter_generator(rng, observations, n_particles, q, r):
    particles = rng.normal(0.0, 1.0, n_particles)
    estimates = np.empty(len(observations))
    for t, z in enumerate(observations):
        particles = particles + rng.normal(0.0, q, n_particles)
        w = np.exp(-0.5 * ((z - particles) / r) ** 2)
        w /= w.sum()
        estimates[t] = np.dot(w, particles)
        idx = systematic_resample(w, rng.random())
        particles = particles[idx]
    return estimates


def particle_filter_given_draws(observations, noise, offsets, r):
    """Predict, weight and resample with all the randomness given as arrays; the
    log-likelihood of the observations comes back too."""
    steps, n = noise.shape
    particles = np.zeros(n)
    loglik = 0.0
    means = np.zeros(steps)
    for t in range(steps):
        particles = 0.9 * particles + noise[t]
        logw = -0.5 * ((observations[t] - particles) / r) ** 2
        m = logw.max()
        w = np.exp(logw - m)
        total = w.sum()
        loglik += m + np.log(total / n)
        w = w / total
        means[t] = (w * particles).sum()
        idx = systematic_resample(w, offsets[t])
        particles = particles[idx]
    return means, loglik


def particle_filter_2d(obs, noise, offsets, r):
    """A 2-d random-walk tracker whose particles are rows; resampled only when the
    effective sample size drops below half."""
    steps, n, _ = noise.shape
    particles = np.zeros((n, 2))
    weights = np.full(n, 1.0 / n)
    n_resampled = 0
    for t in range(steps):
        particles += noise[t]
        d2 = np.sum((particles - obs[t][None, :]) ** 2, axis=1)
        weights = weights * np.exp(-0.5 * d2 / r ** 2)
        weights /= np.sum(weights)
        if 1.0 / np.sum(weights ** 2) < n / 2:
            idx = systematic_resample(weights, offsets[t])
            particles = particles[idx]
            weights = np.full(n, 1.0 / n)
            n_resampled += 1
    return weights @ particles, n_resampled


# ---------------------------------------------------------------- agents and cellular models

class BoidParams:
    def __init__(self, r_sep=0.05, r_align=0.15, r_coh=0.2, w_sep=1.5, w_align=1.0,
                 w_coh=0.8, max_speed=0.03):
        self.r_sep = r_sep
        self.r_align = r_align
        self.r_coh = r_coh
        self.w_sep = w_sep
        self.w_align = w_align
        self.w_coh = w_coh
        self.max_speed = max_speed


def boids(pos, vel, params, steps):
    n = pos.shape[0]
    for _ in range(steps):
        diff = pos[:, None, :] - pos[None, :, :]
        dist = np.sqrt((diff ** 2).sum(axis=-1)) + np.eye(n) * 1e9
        near_sep = dist < params.r_sep
        near_align = dist < params.r_align
        near_coh = dist < params.r_coh
        sep = (diff * near_sep[:, :, None]).sum(axis=1)
        n_align = np.maximum(near_align.sum(axis=1), 1)[:, None]
        align = (near_align[:, :, None] * vel[None, :, :]).sum(axis=1) / n_align - vel
        n_coh = np.maximum(near_coh.sum(axis=1), 1)[:, None]
        coh = (near_coh[:, :, None] * pos[None, :, :]).sum(axis=1) / n_coh - pos
        vel = vel + params.w_sep * sep + params.w_align * 0.05 * align + params.w_coh * 0.01 * coh
        speed = np.linalg.norm(vel, axis=1, keepdims=True)
        vel = np.where(speed > params.max_speed, vel / speed * params.max_speed, vel)
        pos = (pos + vel) % 1.0
    return pos, vel


def nagel_schreckenberg(position, speed, length, vmax, p_slow, draws):
    """Cars on a ring road (int32 positions and speeds); `draws[t]` are the uniform draws
    of step t. Returns the flow (cars passing 0) and updates the arrays in place."""
    n = position.shape[0]
    passed = 0
    for t in range(draws.shape[0]):
        order = np.argsort(position)
        pos = position[order]
        spd = speed[order]
        gap = (np.roll(pos, -1) - pos - 1) % length
        if n == 1:
            gap[0] = length - 1
        spd = np.minimum(spd + 1, vmax)
        spd = np.minimum(spd, gap)
        slow = (draws[t, :n] < p_slow) & (spd > 0)
        spd = spd - slow.astype(np.int32)
        new_pos = pos + spd
        passed += int(np.sum(new_pos >= length))
        position[order] = new_pos % length
        speed[order] = spd
    return passed


def traffic_cells_loop(road, vmax, slow_draws, p):
    """A cell array of speeds (-1 for an empty cell), stepped cell by cell."""
    L = road.shape[0]
    for t in range(slow_draws.shape[0]):
        new = np.full(L, -1, dtype=road.dtype)
        for i in range(L):
            v = road[i]
            if v < 0:
                continue
            gap = 0
            while gap < vmax and road[(i + gap + 1) % L] < 0:
                gap += 1
            v = min(v + 1, vmax, gap)
            if v > 0 and slow_draws[t, i] < p:
                v -= 1
            new[(i + v) % L] = v
        road = new
    return road


def forest_fire(grid, p_grow, p_lightning, draws_grow, draws_fire):
    """0 empty, 1 tree, 2 burning (uint8); von Neumann neighbours catch fire."""
    EMPTY, TREE, FIRE = 0, 1, 2
    g = grid.copy()
    burnt = 0
    for t in range(draws_grow.shape[0]):
        burning = g == FIRE
        nb = np.zeros(g.shape, dtype=bool)
        nb[1:, :] |= burning[:-1, :]
        nb[:-1, :] |= burning[1:, :]
        nb[:, 1:] |= burning[:, :-1]
        nb[:, :-1] |= burning[:, 1:]
        trees = g == TREE
        ignite = trees & (nb | (draws_fire[t] < p_lightning))
        grow = (g == EMPTY) & (draws_grow[t] < p_grow)
        new = g.copy()
        new[burning] = EMPTY
        new[ignite] = FIRE
        new[grow] = TREE
        burnt += int(ignite.sum())
        g = new
    return g, burnt


def sandpile_queue(grid, threshold):
    """Abelian sandpile toppled from a work list; grains fall off the edges. In place."""
    h, w = grid.shape
    queue = [(i, j) for i in range(h) for j in range(w) if grid[i, j] >= threshold]
    topples = 0
    while queue:
        i, j = queue.pop()
        if grid[i, j] < threshold:
            continue
        grid[i, j] -= 4
        topples += 1
        for di, dj in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            a, b = i + di, j + dj
            if 0 <= a < h and 0 <= b < w:
                grid[a, b] += 1
                if grid[a, b] >= threshold:
                    queue.append((a, b))
        if grid[i, j] >= threshold:
            queue.append((i, j))
    return topples


def sandpile_vectorized(grid):
    g = grid.astype(np.int64)
    rounds = 0
    while np.any(g >= 4):
        topple = (g >= 4).astype(np.int64)
        g -= 4 * topple
        g[1:, :] += topple[:-1, :]
        g[:-1, :] += topple[1:, :]
        g[:, 1:] += topple[:, :-1]
        g[:, :-1] += topple[:, 1:]
        rounds += 1
    return g, rounds


def sir_grid(S, I, R, beta, gamma, D, dt, steps):
    """A deterministic SIR field with diffusion of the infected between cells (periodic);
    float32 fields updated in place, totals per step returned."""
    totals = np.zeros((steps, 3), dtype=np.float32)
    for t in range(steps):
        lap = (np.roll(I, 1, 0) + np.roll(I, -1, 0) + np.roll(I, 1, 1) + np.roll(I, -1, 1)
               - 4 * I)
        N = S + I + R
        infect = beta * S * I / N
        recover = gamma * I
        S -= dt * infect
        I += dt * (infect - recover + D * lap)
        R += dt * recover
        totals[t, 0] = S.sum()
        totals[t, 1] = I.sum()
        totals[t, 2] = R.sum()
    return totals


def sir_stochastic_cells(state, neighbours_p, recover_p, draws):
    """0 susceptible, 1 infected, 2 recovered (int8 cells); an infected neighbour infects
    with probability `neighbours_p` each; stops early once no one is infected."""
    s = state.copy()
    history = np.zeros(draws.shape[0], dtype=np.int64)
    for t in range(draws.shape[0]):
        inf = (s == 1).astype(np.int64)
        k = np.zeros_like(inf)
        k[1:] += inf[:-1]
        k[:-1] += inf[1:]
        k[:, 1:] += inf[:, :-1]
        k[:, :-1] += inf[:, 1:]
        p_inf = 1.0 - (1.0 - neighbours_p) ** k
        u = draws[t]
        newly = (s == 0) & (u < p_inf)
        healed = (s == 1) & (u < recover_p)
        s[newly] = 1
        s[healed] = 2
        history[t] = int((s == 1).sum())
        if history[t] == 0:
            return s, history[:t + 1]
    return s, history


# ---------------------------------------------------------------- population genetics, ecology

def wright_fisher(rng, N, p0, generations):
    p = p0
    freqs = np.empty(generations + 1)
    freqs[0] = p
    for g in range(generations):
        k = rng.binomial(2 * N, p)
        p = k / (2 * N)
        freqs[g + 1] = p
    return freqs


def wright_fisher_loci(rng, N, p0, s, generations):
    """Many independent loci with selection; stops when every locus is fixed or lost."""
    p = p0.copy()
    for g in range(generations):
        w = p * (1 + s) / (p * (1 + s) + (1 - p))
        p = rng.binomial(2 * N, w) / (2 * N)
        if np.all((p == 0) | (p == 1)):
            break
    return p, g + 1


def leslie_projection(fecundity, survival, n0, years):
    k = fecundity.shape[0]
    L = np.zeros((k, k))
    L[0, :] = fecundity
    L[np.arange(1, k), np.arange(k - 1)] = survival
    pop = np.empty((years + 1, k))
    pop[0] = n0
    for t in range(years):
        pop[t + 1] = L @ pop[t]
    growth = pop[1:].sum(axis=1) / pop[:-1].sum(axis=1)
    return pop, growth


def leslie_growth_rate(fecundity, survival, iterations=200):
    k = len(fecundity)
    L = np.diag(survival, -1)
    L[0] = fecundity
    v = np.ones(k) / k
    lam = 0.0
    for _ in range(iterations):
        w = L @ v
        lam = np.linalg.norm(w) / np.linalg.norm(v)
        v = w / w.sum()
    return lam, v


@dataclass
class LotkaVolterra:
    alpha: float = 1.0
    beta: float = 0.5
    delta: float = 0.2
    gamma: float = 0.6
    Du: float = 0.05
    Dv: float = 0.02


def _laplacian(a):
    return (np.roll(a, 1, axis=0) + np.roll(a, -1, axis=0) + np.roll(a, 1, axis=1)
            + np.roll(a, -1, axis=1) - 4.0 * a)


def lotka_volterra_field(u, v, p, dt, steps):
    for _ in range(steps):
        du = p.alpha * u - p.beta * u * v + p.Du * _laplacian(u)
        dv = p.delta * u * v - p.gamma * v + p.Dv * _laplacian(v)
        u = u + dt * du
        v = v + dt * dv
        np.maximum(u, 0.0, out=u)
        np.maximum(v, 0.0, out=v)
    return u, v


def lotka_volterra_rk4(x0, params, dt, steps):
    a, b, c, d = params

    def f(x):
        return np.array([a * x[0] - b * x[0] * x[1], c * x[0] * x[1] - d * x[1]])

    traj = np.zeros((steps + 1, 2))
    traj[0] = x0
    x = x0
    for i in range(steps):
        k1 = f(x)
        k2 = f(x + dt / 2 * k1)
        k3 = f(x + dt / 2 * k2)
        k4 = f(x + dt * k3)
        x = x + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        traj[i + 1] = x
    return traj


# ---------------------------------------------------------------- circuits and power systems

def nodal_analysis(branches, conductance, injections, n_nodes):
    """Assemble the conductance matrix of a resistor network (node 0 is ground) and solve
    for the node voltages; returns the voltages and the branch currents."""
    G = np.zeros((n_nodes, n_nodes))
    for k in range(branches.shape[0]):
        a, b = branches[k, 0], branches[k, 1]
        g = conductance[k]
        G[a, a] += g
        G[b, b] += g
        G[a, b] -= g
        G[b, a] -= g
    V = np.zeros(n_nodes)
    V[1:] = np.linalg.solve(G[1:, 1:], injections[1:])
    currents = conductance * (V[branches[:, 0]] - V[branches[:, 1]])
    return V, currents


def nodal_add_at(branches, conductance, injections, n_nodes):
    a, b = branches[:, 0], branches[:, 1]
    G = np.zeros((n_nodes, n_nodes))
    np.add.at(G, (a, a), conductance)
    np.add.at(G, (b, b), conductance)
    np.add.at(G, (a, b), -conductance)
    np.add.at(G, (b, a), -conductance)
    Gr = G[1:, 1:]
    V = np.concatenate([[0.0], np.linalg.solve(Gr, injections[1:])])
    power = np.sum(V * injections)
    return V, power


def gauss_seidel_load_flow(G, B, P, Q, iterations, tol):
    """Gauss-Seidel power flow with bus 0 the slack (1 + 0j) and the others PQ buses; complex
    voltages kept as real and imaginary float arrays. Returns them and the iterations used."""
    n = G.shape[0]
    e = np.ones(n)
    f = np.zeros(n)
    for it in range(iterations):
        max_change = 0.0
        for i in range(1, n):
            # sum over k != i of Y_ik V_k
            sr = 0.0
            si = 0.0
            for k in range(n):
                if k != i:
                    sr += G[i, k] * e[k] - B[i, k] * f[k]
                    si += G[i, k] * f[k] + B[i, k] * e[k]
            # (P - jQ) / conj(V)
            den = e[i] * e[i] + f[i] * f[i]
            ar = (P[i] * e[i] - Q[i] * f[i]) / den
            ai = (P[i] * f[i] + Q[i] * e[i]) / den
            nr = ar - sr
            ni = ai - si
            # divide by Y_ii
            yd = G[i, i] * G[i, i] + B[i, i] * B[i, i]
            new_e = (nr * G[i, i] + ni * B[i, i]) / yd
            new_f = (ni * G[i, i] - nr * B[i, i]) / yd
            change = abs(new_e - e[i]) + abs(new_f - f[i])
            if change > max_change:
                max_change = change
            e[i] = new_e
            f[i] = new_f
        if max_change < tol:
            return e, f, it + 1
    return e, f, iterations


def power_mismatch(G, B, e, f, P, Q):
    """The complex power injections S = V conj(Y V) in real arithmetic, and the mismatches."""
    Ir = G @ e - B @ f
    Ii = G @ f + B @ e
    Pc = e * Ir + f * Ii
    Qc = f * Ir - e * Ii
    return Pc - P, Qc - Q, np.max(np.abs(np.concatenate([Pc[1:] - P[1:], Qc[1:] - Q[1:]])))


def dc_power_flow(lines, reactance, P, n_bus, slack=0):
    B = np.zeros((n_bus, n_bus))
    for (i, j), x in zip(lines, reactance):
        B[i, j] -= 1.0 / x
        B[j, i] -= 1.0 / x
        B[i, i] += 1.0 / x
        B[j, j] += 1.0 / x
    keep = np.arange(n_bus) != slack
    theta = np.zeros(n_bus)
    theta[keep] = np.linalg.solve(B[np.ix_(keep, keep)], P[keep])
    flows = np.array([(theta[i] - theta[j]) / x for (i, j), x in zip(lines, reactance)])
    return theta, flows


# ---------------------------------------------------------------- queueing and inventory

def lindley_waits(interarrival, service):
    n = len(interarrival)
    wait = np.zeros(n)
    for i in range(1, n):
        wait[i] = max(0.0, wait[i - 1] + service[i - 1] - interarrival[i])
    return wait.mean(), np.percentile(wait, 95), wait


def multi_server_queue(arrivals, services, c):
    """First-come first-served with `c` servers: each customer takes the first free one."""
    free_at = np.zeros(c)
    start = np.empty_like(arrivals)
    server = np.empty(len(arrivals), dtype=np.int32)
    for i in range(len(arrivals)):
        k = np.argmin(free_at)
        start[i] = max(arrivals[i], free_at[k])
        free_at[k] = start[i] + services[i]
        server[i] = k
    waits = start - arrivals
    busy = np.bincount(server, weights=services, minlength=c)
    return waits, busy / free_at.max()


def inventory_s_S(demand, s, S, lead_time, holding, shortage, order_cost):
    """An (s, S) policy with a fixed lead time; integer stock, lost sales."""
    T = len(demand)
    stock = S
    pipeline = np.zeros(T + lead_time + 1, dtype=np.int64)
    cost = 0.0
    lost = 0
    levels = np.zeros(T, dtype=np.int64)
    for t in range(T):
        stock += pipeline[t]
        sold = min(stock, demand[t])
        lost += demand[t] - sold
        stock -= sold
        position = stock + pipeline[t + 1:t + lead_time + 1].sum()
        if position <= s:
            pipeline[t + lead_time] += S - position
            cost += order_cost
        cost += holding * stock + shortage * (demand[t] - sold)
        levels[t] = stock
    return cost, lost, levels


def newsvendor_grid(demands, quantities, price, cost, salvage):
    """Profit of every order quantity against every demand scenario, by broadcasting."""
    q = quantities[:, None]
    d = demands[None, :]
    sold = np.minimum(q, d)
    profit = price * sold + salvage * (q - sold) - cost * q
    expected = profit.mean(axis=1)
    best = int(np.argmax(expected))
    return quantities[best], expected, (profit < 0).mean(axis=1)


def queue_length_events(arrival_times, departure_times, horizon):
    """The queue length over time from merged arrival (+1) and departure (-1) events, and
    its time average."""
    times = np.concatenate([arrival_times, departure_times])
    steps = np.concatenate([np.ones(len(arrival_times), dtype=np.int32),
                            -np.ones(len(departure_times), dtype=np.int32)])
    order = np.argsort(times, kind="stable")
    times = times[order]
    length = np.cumsum(steps[order])
    durations = np.diff(np.append(times, horizon))
    return length, np.sum(length * durations) / horizon
