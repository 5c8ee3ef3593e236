"""Kernels from fields the rest of the corpus lacks, written as their users write them:
robot kinematics, audio effects, orbits, epidemics and ecology, economic models and games.
Helpers called from the kernel, small classes, dataclasses and NamedTuples of parameters,
`enumerate`/`zip` loops, `while` loops on tolerances, early returns, float32 and small
integer grids, keyword and default arguments."""

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np


# --- robotics and kinematics ---------------------------------------------------------------

def dh_matrix(theta, d, a, alpha):
    ct, st = np.cos(theta), np.sin(theta)
    ca, sa = np.cos(alpha), np.sin(alpha)
    return np.array([[ct, -st * ca, st * sa, a * ct],
                     [st, ct * ca, -ct * sa, a * st],
                     [0.0, sa, ca, d],
                     [0.0, 0.0, 0.0, 1.0]])


def dh_forward_kinematics(joint_angles, dh_params):
    """End-effector positions of a serial arm for each row of joint angles."""
    n_poses = joint_angles.shape[0]
    positions = np.zeros((n_poses, 3))
    for p in range(n_poses):
        T = np.eye(4)
        for j, (d, a, alpha) in enumerate(dh_params):
            T = T @ dh_matrix(joint_angles[p, j], d, a, alpha)
        positions[p] = T[:3, 3]
    return positions


def planar_jacobian(q, lengths):
    angles = np.cumsum(q)
    n = len(q)
    J = np.zeros((2, n))
    for i in range(n):
        J[0, i] = -np.sum(lengths[i:] * np.sin(angles[i:]))
        J[1, i] = np.sum(lengths[i:] * np.cos(angles[i:]))
    return J


def planar_fk(q, lengths):
    angles = np.cumsum(q)
    return np.array([np.sum(lengths * np.cos(angles)), np.sum(lengths * np.sin(angles))])


def ik_damped_least_squares(q0, target, lengths, damping=0.05, tol=1e-6, max_iter=200):
    q = q0.copy()
    for it in range(max_iter):
        err = target - planar_fk(q, lengths)
        if np.linalg.norm(err) < tol:
            return q, it
        J = planar_jacobian(q, lengths)
        JJt = J @ J.T + damping ** 2 * np.eye(2)
        q += J.T @ np.linalg.solve(JJt, err)
    return q, max_iter


def quat_mul(p, q):
    w1, x1, y1, z1 = p
    w2, x2, y2, z2 = q
    return np.array([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
                     w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
                     w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2])


class AttitudeIntegrator:
    """Integrates body rates into an attitude quaternion, renormalising each step."""

    def __init__(self, dt):
        self.dt = dt
        self.q = np.array([1.0, 0.0, 0.0, 0.0])

    def step(self, omega):
        dq = quat_mul(self.q, np.array([0.0, omega[0], omega[1], omega[2]]))
        self.q = self.q + 0.5 * self.dt * dq
        self.q /= np.linalg.norm(self.q)

    def run(self, rates):
        history = np.empty((len(rates), 4))
        for i, w in enumerate(rates):
            self.step(w)
            history[i] = self.q
        return history


def diff_drive_odometry(v_left, v_right, wheel_base=0.5, dt=0.02):
    x = y = theta = 0.0
    path = np.zeros((len(v_left), 3))
    for k, (vl, vr) in enumerate(zip(v_left, v_right)):
        v = 0.5 * (vl + vr)
        w = (vr - vl) / wheel_base
        x += v * math.cos(theta) * dt
        y += v * math.sin(theta) * dt
        theta += w * dt
        path[k, 0] = x
        path[k, 1] = y
        path[k, 2] = theta
    return path


@dataclass
class PIDGains:
    kp: float
    ki: float
    kd: float
    limit: float = 10.0


def pid_first_order_plant(setpoints, gains, dt=0.01, tau=0.5):
    y = 0.0
    integral = 0.0
    prev_err = 0.0
    out = np.empty_like(setpoints)
    for i in range(len(setpoints)):
        err = setpoints[i] - y
        integral = min(max(integral + err * dt, -gains.limit), gains.limit)
        deriv = (err - prev_err) / dt
        u = gains.kp * err + gains.ki * integral + gains.kd * deriv
        y += dt * (u - y) / tau
        prev_err = err
        out[i] = y
    return out


# --- audio DSP -----------------------------------------------------------------------------

def biquad_df2t(x, b, a):
    """Direct form II transposed; b and a are normalised so that a[0] == 1."""
    y = np.zeros_like(x)
    z1 = 0.0
    z2 = 0.0
    for n in range(len(x)):
        xn = x[n]
        yn = b[0] * xn + z1
        z1 = b[1] * xn - a[1] * yn + z2
        z2 = b[2] * xn - a[2] * yn
        y[n] = yn
    return y


def adsr_envelope(n, attack, decay, sustain, release, sr=8000):
    env = np.zeros(n)
    a = int(attack * sr)
    d = int(decay * sr)
    r = int(release * sr)
    s_end = n - r
    for i in range(n):
        if i < a:
            env[i] = i / a
        elif i < a + d:
            env[i] = 1.0 - (1.0 - sustain) * (i - a) / d
        elif i < s_end:
            env[i] = sustain
        else:
            env[i] = sustain * (1.0 - (i - s_end) / r)
    return env


def feedback_delay(x, delay, feedback=0.5, mix=0.3):
    buf = np.zeros(delay)
    out = np.empty_like(x)
    idx = 0
    for n in range(len(x)):
        delayed = buf[idx]
        buf[idx] = x[n] + feedback * delayed
        out[n] = (1 - mix) * x[n] + mix * delayed
        idx = (idx + 1) % delay
    return out


def compressor_f32(x, threshold_db=-20.0, ratio=4.0, attack=0.01, release=0.1, sr=8000.0):
    att = np.float32(math.exp(-1.0 / (attack * sr)))
    rel = np.float32(math.exp(-1.0 / (release * sr)))
    env = np.float32(0.0)
    gains = np.ones_like(x)
    for i, s in enumerate(x):
        level = abs(s)
        coeff = att if level > env else rel
        env = coeff * env + (1 - coeff) * level
        level_db = 20.0 * np.log10(env + 1e-9)
        if level_db > threshold_db:
            gain_db = (threshold_db - level_db) * (1.0 - 1.0 / ratio)
            gains[i] = 10.0 ** (gain_db / 20.0)
    return x * gains


def resample_fractional(x, ratio):
    n_out = int((len(x) - 1) / ratio)
    t = np.arange(n_out) * ratio
    i0 = np.floor(t).astype(np.int64)
    frac = t - i0
    return x[i0] * (1.0 - frac) + x[i0 + 1] * frac


def comb(x, delay, g):
    y = x.copy()
    for n in range(delay, len(x)):
        y[n] += g * y[n - delay]
    return y


def allpass(x, delay, g):
    y = np.zeros_like(x)
    for n in range(len(x)):
        xd = x[n - delay] if n >= delay else 0.0
        yd = y[n - delay] if n >= delay else 0.0
        y[n] = -g * x[n] + xd + g * yd
    return y


def schroeder_reverb(x, combs=((29, 0.75), (37, 0.72), (41, 0.7)), allpasses=((5, 0.7),)):
    wet = np.zeros_like(x)
    for delay, g in combs:
        wet += comb(x, delay, g)
    wet /= len(combs)
    for delay, g in allpasses:
        wet = allpass(wet, delay, g)
    return 0.6 * x + 0.4 * wet


def frame_features(x, frame=64, hop=32):
    n_frames = 1 + (len(x) - frame) // hop
    zcr = np.empty(n_frames)
    rms = np.empty(n_frames)
    for f in range(n_frames):
        seg = x[f * hop:f * hop + frame]
        zcr[f] = np.mean(np.abs(np.diff(np.sign(seg))) > 0)
        rms[f] = np.sqrt(np.mean(seg ** 2))
    return zcr, rms


def one_pole_smooth_inplace(x, coeff):
    for i in range(1, len(x)):
        x[i] = coeff * x[i - 1] + (1 - coeff) * x[i]
    return x


# --- orbital mechanics and astronomy -------------------------------------------------------

def kepler_vectorized(M, e, tol=1e-12):
    E = np.where(e < 0.8, M, np.pi * np.ones_like(M))
    delta = np.ones_like(M)
    iterations = 0
    while np.max(np.abs(delta)) > tol and iterations < 50:
        delta = (E - e * np.sin(E) - M) / (1.0 - e * np.cos(E))
        E = E - delta
        iterations += 1
    return E


def solve_kepler_scalar(M, e, tol=1e-10):
    E = M if e < 0.8 else math.pi
    for _ in range(100):
        f = E - e * math.sin(E) - M
        step = f / (1.0 - e * math.cos(E))
        E -= step
        if abs(step) < tol:
            break
    return E


def kepler_positions(mean_anomalies, e, a=1.0):
    xy = np.empty((len(mean_anomalies), 2))
    for i, M in enumerate(mean_anomalies):
        E = solve_kepler_scalar(M, e)
        xy[i, 0] = a * (math.cos(E) - e)
        xy[i, 1] = a * math.sqrt(1 - e * e) * math.sin(E)
    return xy


def gravity_accel(pos, mass, G, soft):
    d = pos[None, :, :] - pos[:, None, :]
    r2 = np.sum(d * d, axis=-1) + soft ** 2
    inv3 = r2 ** -1.5
    np.fill_diagonal(inv3, 0.0)
    return G * np.sum(d * (mass[None, :] * inv3)[:, :, None], axis=1)


def nbody_kick_drift(pos, vel, mass, dt, steps, G=1.0, soft=0.05):
    acc = gravity_accel(pos, mass, G, soft)
    for _ in range(steps):
        vel += 0.5 * dt * acc
        pos += dt * vel
        acc = gravity_accel(pos, mass, G, soft)
        vel += 0.5 * dt * acc
    kinetic = 0.5 * np.sum(mass * np.sum(vel ** 2, axis=1))
    return pos, vel, kinetic


def two_body_deriv(state, mu):
    r = state[:3]
    v = state[3:]
    rn = np.linalg.norm(r)
    return np.concatenate((v, -mu * r / rn ** 3))


def two_body_rk4(state0, mu, dt, steps):
    state = state0.copy()
    energies = np.empty(steps)
    for k in range(steps):
        k1 = two_body_deriv(state, mu)
        k2 = two_body_deriv(state + 0.5 * dt * k1, mu)
        k3 = two_body_deriv(state + 0.5 * dt * k2, mu)
        k4 = two_body_deriv(state + dt * k3, mu)
        state = state + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        energies[k] = 0.5 * state[3:] @ state[3:] - mu / np.linalg.norm(state[:3])
    return state, energies


def sidereal_alt_az(jd, ra_deg, dec_deg, lat_deg=52.0, lon_deg=4.9):
    d = jd - 2451545.0
    gmst = np.mod(280.46061837 + 360.98564736629 * d, 360.0)
    ha = np.radians(np.mod(gmst + lon_deg - ra_deg, 360.0))
    dec = np.radians(dec_deg)
    lat = np.radians(lat_deg)
    sin_alt = np.sin(dec) * np.sin(lat) + np.cos(dec) * np.cos(lat) * np.cos(ha)
    alt = np.arcsin(np.clip(sin_alt, -1.0, 1.0))
    cos_az = (np.sin(dec) - np.sin(alt) * np.sin(lat)) / (np.cos(alt) * np.cos(lat))
    az = np.arccos(np.clip(cos_az, -1.0, 1.0))
    az = np.where(np.sin(ha) > 0, 2 * np.pi - az, az)
    return np.degrees(alt), np.degrees(az)


def hohmann_delta_v(r1, r2, mu=398600.4418):
    a_t = 0.5 * (r1 + r2)
    v1 = np.sqrt(mu / r1)
    v2 = np.sqrt(mu / r2)
    dv1 = np.abs(np.sqrt(mu * (2 / r1 - 1 / a_t)) - v1)
    dv2 = np.abs(v2 - np.sqrt(mu * (2 / r2 - 1 / a_t)))
    tof = np.pi * np.sqrt(a_t ** 3 / mu)
    return dv1 + dv2, tof


# --- epidemiology and ecology --------------------------------------------------------------

def sir_euler(s0, i0, beta, gamma, dt, steps):
    s, i, r = s0, i0, 1.0 - s0 - i0
    history = np.zeros((steps + 1, 3))
    history[0] = s, i, r
    for t in range(1, steps + 1):
        new_inf = beta * s * i * dt
        new_rec = gamma * i * dt
        s -= new_inf
        i += new_inf - new_rec
        r += new_rec
        history[t] = s, i, r
    return history


class SEIRParams(NamedTuple):
    beta: float
    sigma: float
    gamma: float
    population: float


def seir_peak(params, y0, days, dt=0.1):
    y = np.array(y0, dtype=float)
    steps_per_day = int(round(1 / dt))
    daily_infectious = np.zeros(days)
    peak_day = 0
    peak = 0.0
    for day in range(days):
        for _ in range(steps_per_day):
            S, E, I, R = y
            infection = params.beta * S * I / params.population
            dy = np.array([-infection, infection - params.sigma * E,
                           params.sigma * E - params.gamma * I, params.gamma * I])
            y = y + dt * dy
        daily_infectious[day] = y[2]
        if y[2] > peak:
            peak = y[2]
            peak_day = day
    return daily_infectious, peak_day


def metapopulation_sir(S, I, R, mobility, beta, gamma, steps, dt=0.1):
    N = S + I + R
    for _ in range(steps):
        force = beta * (mobility @ (I / N))
        inf = force * S * dt
        rec = gamma * I * dt
        S = S - inf
        I = I + inf - rec
        R = R + rec
    return S, I, R


def predator_prey_diffusion(prey, pred, steps, a=1.0, b=0.5, c=0.8, d=0.3, D=0.1, dt=0.05):
    for _ in range(steps):
        lap_prey = (np.roll(prey, 1, 0) + np.roll(prey, -1, 0) + np.roll(prey, 1, 1)
                    + np.roll(prey, -1, 1) - 4 * prey)
        lap_pred = (np.roll(pred, 1, 0) + np.roll(pred, -1, 0) + np.roll(pred, 1, 1)
                    + np.roll(pred, -1, 1) - 4 * pred)
        growth = a * prey - b * prey * pred
        hunt = d * prey * pred - c * pred
        prey = np.maximum(prey + dt * (growth + D * lap_prey), 0.0)
        pred = np.maximum(pred + dt * (hunt + D * lap_pred), 0.0)
    return prey, pred


SUSCEPTIBLE, INFECTED, RECOVERED = 0, 1, 2


def infection_grid(state, draws, p_infect=0.3, p_recover=0.1):
    grid = state.copy()
    counts = np.zeros(3, dtype=np.int64)
    for t in range(draws.shape[0]):
        infected = grid == INFECTED
        neighbours = np.zeros(grid.shape, dtype=np.int32)
        neighbours[1:, :] += infected[:-1, :]
        neighbours[:-1, :] += infected[1:, :]
        neighbours[:, 1:] += infected[:, :-1]
        neighbours[:, :-1] += infected[:, 1:]
        p = 1.0 - (1.0 - p_infect) ** neighbours
        catch = (grid == SUSCEPTIBLE) & (draws[t] < p)
        heal = infected & (draws[t] < p_recover)
        grid[catch] = INFECTED
        grid[heal] = RECOVERED
    for k in range(3):
        counts[k] = np.count_nonzero(grid == k)
    return grid, counts


def harvest_until_collapse(r, K, harvest, n0, max_years=500, threshold=1.0):
    n = n0
    trajectory = np.zeros(max_years)
    year = 0
    while year < max_years:
        n = n + r * n * (1 - n / K) - harvest
        if n < threshold:
            return trajectory[:year], year
        trajectory[year] = n
        year += 1
    return trajectory, -1


def leslie_projection(fecundity, survival, n0, years):
    k = len(fecundity)
    L = np.zeros((k, k))
    L[0, :] = fecundity
    for i in range(k - 1):
        L[i + 1, i] = survival[i]
    pops = np.empty((years + 1, k))
    pops[0] = n0
    for t in range(years):
        pops[t + 1] = L @ pops[t]
    growth = pops[-1].sum() / pops[-2].sum()
    return pops, growth


# --- economics -----------------------------------------------------------------------------

def leontief_output(A, final_demand):
    n = A.shape[0]
    x = np.linalg.solve(np.eye(n) - A, final_demand)
    multipliers = np.linalg.inv(np.eye(n) - A).sum(axis=0)
    value_added = x * (1 - A.sum(axis=0))
    return x, multipliers, value_added


def value_iteration(rewards, transitions, discount=0.95, tol=1e-8):
    """rewards (S, A); transitions (A, S, S). Returns values and the greedy policy."""
    n_states, n_actions = rewards.shape
    V = np.zeros(n_states)
    while True:
        Q = np.empty((n_states, n_actions))
        for a in range(n_actions):
            Q[:, a] = rewards[:, a] + discount * transitions[a] @ V
        V_new = Q.max(axis=1)
        if np.max(np.abs(V_new - V)) < tol:
            break
        V = V_new
    return V_new, np.argmax(Q, axis=1)


def markov_stationary(P, tol=1e-12, max_iter=10000):
    pi = np.full(P.shape[0], 1.0 / P.shape[0])
    for it in range(max_iter):
        nxt = pi @ P
        if np.abs(nxt - pi).sum() < tol:
            return nxt, it
        pi = nxt
    return pi, max_iter


def cake_eating_vfi(grid, beta=0.96, iterations=100):
    n = len(grid)
    consumption = grid[:, None] - grid[None, :]
    utility = np.where(consumption > 0, np.log(np.maximum(consumption, 1e-12)), -np.inf)
    v = np.zeros(n)
    for _ in range(iterations):
        v = np.max(utility + beta * v[None, :], axis=1)
    policy = grid[np.argmax(utility + beta * v[None, :], axis=1)]
    return v, policy


def gini_lorenz(incomes):
    x = np.sort(incomes)
    n = len(x)
    lorenz = np.concatenate(([0.0], np.cumsum(x) / x.sum()))
    gini = 1.0 - 2.0 * np.trapezoid(lorenz, dx=1.0 / n)
    top10 = x[int(0.9 * n):].sum() / x.sum()
    return gini, lorenz, top10


def amortization(principal, annual_rate, months, extra=0.0):
    r = annual_rate / 12
    payment = principal * r / (1 - (1 + r) ** -months)
    balance = principal
    schedule = np.zeros((months, 3))
    for m in range(months):
        interest = balance * r
        pay = min(payment + extra, balance + interest)
        balance = balance + interest - pay
        schedule[m] = (pay, interest, balance)
        if balance <= 0.0:
            return schedule[:m + 1]
    return schedule


# --- games ---------------------------------------------------------------------------------

def count_neighbours(board):
    b = board.astype(np.int8)
    return (np.roll(b, 1, 0) + np.roll(b, -1, 0) + np.roll(b, 1, 1) + np.roll(b, -1, 1)
            + np.roll(np.roll(b, 1, 0), 1, 1) + np.roll(np.roll(b, 1, 0), -1, 1)
            + np.roll(np.roll(b, -1, 0), 1, 1) + np.roll(np.roll(b, -1, 0), -1, 1))


def highlife(board, steps):
    """B36/S23 on a torus."""
    for _ in range(steps):
        n = count_neighbours(board)
        born = ~board & ((n == 3) | (n == 6))
        survive = board & ((n == 2) | (n == 3))
        board = born | survive
    return board, int(board.sum())


def brians_brain(cells, steps):
    """0 off, 1 on, 2 dying."""
    for _ in range(steps):
        on = cells == 1
        n = np.zeros(cells.shape, dtype=np.int8)
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                if dy or dx:
                    n += np.roll(np.roll(on, dy, axis=0), dx, axis=1)
        new = np.zeros_like(cells)
        new[(cells == 0) & (n == 2)] = 1
        new[on] = 2
        cells = new
    return cells


def wireworld(grid, steps):
    """0 empty, 1 head, 2 tail, 3 conductor; fixed borders."""
    h, w = grid.shape
    for _ in range(steps):
        new = grid.copy()
        for i in range(1, h - 1):
            for j in range(1, w - 1):
                c = grid[i, j]
                if c == 1:
                    new[i, j] = 2
                elif c == 2:
                    new[i, j] = 3
                elif c == 3:
                    heads = 0
                    for di in range(-1, 2):
                        for dj in range(-1, 2):
                            if grid[i + di, j + dj] == 1:
                                heads += 1
                    if heads == 1 or heads == 2:
                        new[i, j] = 1
        grid = new
    return grid


def boids_step(pos, vel, steps, radius=1.0, sep=0.3, max_speed=0.5, dt=0.1):
    n = len(pos)
    for _ in range(steps):
        diff = pos[:, None, :] - pos[None, :, :]
        dist = np.sqrt((diff ** 2).sum(-1))
        near = (dist < radius) & (dist > 0)
        count = near.sum(1)
        has = count > 0
        safe = np.maximum(count, 1)[:, None]
        cohesion = (near @ pos) / safe - pos
        alignment = (near @ vel) / safe - vel
        close = (dist < sep) & (dist > 0)
        separation = (diff * close[:, :, None]).sum(1)
        vel = vel + has[:, None] * (0.01 * cohesion + 0.05 * alignment) + 0.1 * separation
        speed = np.linalg.norm(vel, axis=1, keepdims=True)
        vel = np.where(speed > max_speed, vel * max_speed / speed, vel)
        pos = pos + dt * vel
    return pos, vel, n


def grid_bfs_distance(walls, start=(0, 0)):
    h, w = walls.shape
    dist = np.full((h, w), -1, dtype=np.int64)
    dist[start] = 0
    frontier = [start]
    while frontier:
        nxt = []
        for (i, j) in frontier:
            for di, dj in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                a, b = i + di, j + dj
                if 0 <= a < h and 0 <= b < w and not walls[a, b] and dist[a, b] < 0:
                    dist[a, b] = dist[i, j] + 1
                    nxt.append((a, b))
        frontier = nxt
    return dist


def grid_dijkstra(cost):
    h, w = cost.shape
    dist = np.full((h, w), np.inf)
    done = np.zeros((h, w), dtype=bool)
    dist[0, 0] = cost[0, 0]
    for _ in range(h * w):
        masked = np.where(done, np.inf, dist)
        k = np.argmin(masked)
        i, j = k // w, k % w
        done[i, j] = True
        if i == h - 1 and j == w - 1:
            break
        if i > 0:
            dist[i - 1, j] = min(dist[i - 1, j], dist[i, j] + cost[i - 1, j])
        if i < h - 1:
            dist[i + 1, j] = min(dist[i + 1, j], dist[i, j] + cost[i + 1, j])
        if j > 0:
            dist[i, j - 1] = min(dist[i, j - 1], dist[i, j] + cost[i, j - 1])
        if j < w - 1:
            dist[i, j + 1] = min(dist[i, j + 1], dist[i, j] + cost[i, j + 1])
    return dist[h - 1, w - 1]


def minesweeper_counts(mines):
    padded = np.pad(mines.astype(np.uint8), 1)
    counts = np.zeros(mines.shape, dtype=np.uint8)
    h, w = mines.shape
    for dy in range(3):
        for dx in range(3):
            if dy == 1 and dx == 1:
                continue
            counts += padded[dy:dy + h, dx:dx + w]
    counts[mines] = 9
    return counts


def elo_ratings(winners, losers, n_players, k=32.0, start=1500.0):
    ratings = np.full(n_players, start)
    for w, l in zip(winners, losers):
        expected = 1.0 / (1.0 + 10.0 ** ((ratings[l] - ratings[w]) / 400.0))
        ratings[w] += k * (1.0 - expected)
        ratings[l] -= k * (1.0 - expected)
    return ratings


def connect_four_winner(board):
    """board (6, 7) of 0 empty, 1 and 2 players; the first line of four found wins."""
    rows, cols = board.shape
    for r in range(rows):
        for c in range(cols):
            p = board[r, c]
            if p == 0:
                continue
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                rr, cc = r + 3 * dr, c + 3 * dc
                if 0 <= rr < rows and 0 <= cc < cols:
                    if (board[r + dr, c + dc] == p and board[r + 2 * dr, c + 2 * dc] == p
                            and board[rr, cc] == p):
                        return int(p)
    return 0


def sokoban_reachable(free, start):
    """Flood fill of the cells a player can walk to, as a count and a mask."""
    seen = np.zeros_like(free)
    stack = [start]
    while stack:
        i, j = stack.pop()
        if seen[i, j] or not free[i, j]:
            continue
        seen[i, j] = True
        if i > 0:
            stack.append((i - 1, j))
        if i < free.shape[0] - 1:
            stack.append((i + 1, j))
        if j > 0:
            stack.append((i, j - 1))
        if j < free.shape[1] - 1:
            stack.append((i, j + 1))
    return int(seen.sum()), seen
