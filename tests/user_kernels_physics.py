"""Simulations and random generators written as their users write them: lattice Boltzmann
with `np.roll` streaming, reaction-diffusion, RK4 into a trajectory array, cellular automata
on small-integer grids, and generators kept to their width by unsigned wraparound."""

import numpy as np

D2Q9_CX = np.array([0, 1, 0, -1, 0, 1, -1, -1, 1])
D2Q9_CY = np.array([0, 0, 1, 0, -1, 1, 1, -1, -1])
D2Q9_W = np.array([4 / 9, 1 / 9, 1 / 9, 1 / 9, 1 / 9, 1 / 36, 1 / 36, 1 / 36, 1 / 36])


def lbm_d2q9(f, omega, steps):
    for _ in range(steps):
        for i in range(9):
            f[i] = np.roll(np.roll(f[i], D2Q9_CX[i], axis=1), D2Q9_CY[i], axis=0)
        rho = np.sum(f, axis=0)
        ux = np.sum(f * D2Q9_CX[:, None, None], axis=0) / rho
        uy = np.sum(f * D2Q9_CY[:, None, None], axis=0) / rho
        usq = ux * ux + uy * uy
        for i in range(9):
            cu = 3.0 * (D2Q9_CX[i] * ux + D2Q9_CY[i] * uy)
            feq = rho * D2Q9_W[i] * (1.0 + cu + 0.5 * cu * cu - 1.5 * usq)
            f[i] += omega * (feq - f[i])
    return f


def laplacian(Z):
    return (Z[:-2, 1:-1] + Z[1:-1, :-2] - 4 * Z[1:-1, 1:-1] + Z[1:-1, 2:] + Z[2:, 1:-1])


def gray_scott(U, V, Du, Dv, F, k, steps):
    u, v = U[1:-1, 1:-1], V[1:-1, 1:-1]
    for _ in range(steps):
        Lu = laplacian(U)
        Lv = laplacian(V)
        uvv = u * v * v
        u += Du * Lu - uvv + F * (1 - u)
        v += Dv * Lv + uvv - (F + k) * v
    return U, V


def lorenz_deriv(s, sigma, rho, beta):
    x, y, z = s[0], s[1], s[2]
    return np.array([sigma * (y - x), x * (rho - z) - y, x * y - beta * z])


def lorenz_rk4(s0, dt, n, sigma=10.0, rho=28.0, beta=8.0 / 3.0):
    traj = np.empty((n + 1, 3))
    traj[0] = s0
    s = s0.copy()
    for i in range(n):
        k1 = lorenz_deriv(s, sigma, rho, beta)
        k2 = lorenz_deriv(s + 0.5 * dt * k1, sigma, rho, beta)
        k3 = lorenz_deriv(s + 0.5 * dt * k2, sigma, rho, beta)
        k4 = lorenz_deriv(s + dt * k3, sigma, rho, beta)
        s = s + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
        traj[i + 1] = s
    return traj


def double_pendulum(th1, th2, w1, w2, dt, n, g=9.81):
    out = np.zeros((n, 2))
    for i in range(n):
        d = th1 - th2
        den = 3.0 - np.cos(2 * d)
        a1 = (-3 * g * np.sin(th1) - g * np.sin(th1 - 2 * th2)
              - 2 * np.sin(d) * (w2 * w2 + w1 * w1 * np.cos(d))) / den
        a2 = (2 * np.sin(d) * (2 * w1 * w1 + 2 * g * np.cos(th1) + w2 * w2 * np.cos(d))) / den
        w1 += a1 * dt
        w2 += a2 * dt
        th1 += w1 * dt
        th2 += w2 * dt
        out[i, 0] = th1
        out[i, 1] = th2
    return out


def spring_chain(pos, vel, k, rest, damping, dt, steps):
    n = pos.shape[0]
    force = np.zeros_like(pos)
    for _ in range(steps):
        force[:] = 0.0
        force[:, 1] -= 9.81
        for i in range(n - 1):
            d = pos[i + 1] - pos[i]
            length = np.sqrt(d[0] * d[0] + d[1] * d[1])
            f = k * (length - rest) * d / length
            force[i] += f
            force[i + 1] -= f
        vel += dt * (force - damping * vel)
        vel[0] = 0.0
        pos += dt * vel
    return pos, vel


def sandpile(grid):
    g = grid.copy()
    topples = 0
    while True:
        unstable = g >= 4
        if not unstable.any():
            break
        topples += int(unstable.sum())
        spill = np.where(unstable, 1, 0)
        g -= 4 * spill
        g[1:, :] += spill[:-1, :]
        g[:-1, :] += spill[1:, :]
        g[:, 1:] += spill[:, :-1]
        g[:, :-1] += spill[:, 1:]
    return g, topples


def langtons_ant(n, steps):
    grid = np.zeros((n, n), dtype=np.uint8)
    x, y, d = n // 2, n // 2, 0
    dx = [0, 1, 0, -1]
    dy = [-1, 0, 1, 0]
    for _ in range(steps):
        if grid[y, x] == 0:
            d = (d + 1) % 4
            grid[y, x] = 1
        else:
            d = (d + 3) % 4
            grid[y, x] = 0
        x = (x + dx[d]) % n
        y = (y + dy[d]) % n
    return grid


def forest_fire(grid, rand_grow, rand_fire, p, f):
    EMPTY, TREE, FIRE = 0, 1, 2
    n, m = grid.shape
    for t in range(rand_grow.shape[0]):
        new = grid.copy()
        for i in range(n):
            for j in range(m):
                if grid[i, j] == FIRE:
                    new[i, j] = EMPTY
                elif grid[i, j] == TREE:
                    burning = False
                    for di in (-1, 0, 1):
                        for dj in (-1, 0, 1):
                            ii, jj = i + di, j + dj
                            if 0 <= ii < n and 0 <= jj < m and grid[ii, jj] == FIRE:
                                burning = True
                    if burning or rand_fire[t, i, j] < f:
                        new[i, j] = FIRE
                elif rand_grow[t, i, j] < p:
                    new[i, j] = TREE
        grid = new
    return grid


def splitmix64(seeds, n):
    state = seeds.astype(np.uint64)
    out = np.empty((seeds.shape[0], n), dtype=np.uint64)
    for i in range(n):
        state = state + np.uint64(0x9E3779B97F4A7C15)
        z = state
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        out[:, i] = z ^ (z >> np.uint64(31))
    return out


def pcg32(states, inc, n):
    state = states.copy()
    out = np.empty((n, state.shape[0]), dtype=np.uint32)
    mult = np.uint64(6364136223846793005)
    for i in range(n):
        old = state
        state = old * mult + inc
        xorshifted = (((old >> np.uint64(18)) ^ old) >> np.uint64(27)).astype(np.uint32)
        rot = (old >> np.uint64(59)).astype(np.uint32)
        out[i] = (xorshifted >> rot) | (xorshifted << ((np.uint32(32) - rot) & np.uint32(31)))
    return out, state


def box_muller(u1, u2):
    r = np.sqrt(-2.0 * np.log(u1))
    theta = 2.0 * np.pi * u2
    z = np.empty(2 * u1.shape[0])
    z[0::2] = r * np.cos(theta)
    z[1::2] = r * np.sin(theta)
    return z


def marsaglia_polar(u, n):
    out = np.empty(n)
    k = 0
    i = 0
    while k < n and i + 1 < len(u):
        a = 2.0 * u[i] - 1.0
        b = 2.0 * u[i + 1] - 1.0
        i += 2
        s = a * a + b * b
        if s >= 1.0 or s == 0.0:
            continue
        m = np.sqrt(-2.0 * np.log(s) / s)
        out[k] = a * m
        k += 1
        if k < n:
            out[k] = b * m
            k += 1
    return out[:k]
