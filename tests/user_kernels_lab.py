"""Lab scripts and lecture-note code of scientists and engineers: particle and lattice
simulations with given random draws, filters written as loops over their coefficients, image
processing by hand, option trees and volatility filters, sequence alignment and hidden Markov
models on integer codes."""

import math

import numpy as np


# ---------------------------------------------------------------- simulations

def sph_density_pressure(pos, mass, h, rho0, k):
    """SPH: density by the poly6 kernel over all pairs, then pressure by a Tait-like law."""
    n = pos.shape[0]
    h2 = h * h
    poly6 = 315.0 / (64.0 * math.pi * h ** 9)
    rho = np.zeros(n)
    for i in range(n):
        for j in range(n):
            dx = pos[i, 0] - pos[j, 0]
            dy = pos[i, 1] - pos[j, 1]
            r2 = dx * dx + dy * dy
            if r2 < h2:
                rho[i] += mass * poly6 * (h2 - r2) ** 3
    p = k * (rho - rho0)
    return rho, p


def md_verlet_neighbours(x, v, nbr_start, nbr_list, dt, steps, box):
    """Velocity Verlet with a fixed neighbour list (CSR-like int32 arrays), LJ forces, periodic box."""
    n = x.shape[0]

    def forces(x):
        f = np.zeros_like(x)
        epot = 0.0
        for i in range(n):
            for kk in range(nbr_start[i], nbr_start[i + 1]):
                j = nbr_list[kk]
                d = x[i] - x[j]
                d = d - box * np.round(d / box)
                r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2]
                inv6 = 1.0 / r2 ** 3
                fmag = 24.0 * (2.0 * inv6 * inv6 - inv6) / r2
                f[i] += fmag * d
                f[j] -= fmag * d
                epot += 4.0 * (inv6 * inv6 - inv6)
        return f, epot

    f, epot = forces(x)
    for _ in range(steps):
        v += 0.5 * dt * f
        x += dt * v
        x %= box
        f, epot = forces(x)
        v += 0.5 * dt * f
    ekin = 0.5 * np.sum(v * v)
    return epot, ekin


def _softened_acc(pos, m, eps2):
    n = len(m)
    acc = np.zeros_like(pos)
    for i in range(n):
        for j in range(n):
            if i != j:
                dx = pos[j, 0] - pos[i, 0]
                dy = pos[j, 1] - pos[i, 1]
                dz = pos[j, 2] - pos[i, 2]
                inv = (dx * dx + dy * dy + dz * dz + eps2) ** -1.5
                acc[i, 0] += m[j] * dx * inv
                acc[i, 1] += m[j] * dy * inv
                acc[i, 2] += m[j] * dz * inv
    return acc


def nbody_softened_leapfrog(pos, vel, m, dt, steps, eps):
    """Kick-drift-kick leapfrog, float32 state, direct summation with Plummer softening."""
    eps2 = eps * eps
    acc = _softened_acc(pos, m, eps2)
    for _ in range(steps):
        vel += 0.5 * dt * acc
        pos += dt * vel
        acc = _softened_acc(pos, m, eps2)
        vel += 0.5 * dt * acc
    return pos, vel


def potts_metropolis(spins, q, beta, proposals, draws, sweeps):
    """q-state Potts model: proposals[s, i, j] is the proposed state, draws the uniforms."""
    L = spins.shape[0]
    accepted = 0
    for s in range(sweeps):
        for i in range(L):
            for j in range(L):
                old = spins[i, j]
                new = proposals[s, i, j] % q
                nb = (spins[(i + 1) % L, j], spins[(i - 1) % L, j],
                      spins[i, (j + 1) % L], spins[i, (j - 1) % L])
                e_old = 0
                e_new = 0
                for t in nb:
                    e_old -= 1 if t == old else 0
                    e_new -= 1 if t == new else 0
                dE = e_new - e_old
                if dE <= 0 or draws[s, i, j] < math.exp(-beta * dE):
                    spins[i, j] = new
                    accepted += 1
    return accepted


def lbm_d2q9_steps(f, omega, steps):
    """Lattice Boltzmann D2Q9 (BGK), periodic, streaming by np.roll per direction."""
    ex = np.array([0, 1, 0, -1, 0, 1, -1, -1, 1])
    ey = np.array([0, 0, 1, 0, -1, 1, 1, -1, -1])
    w = np.array([4 / 9, 1 / 9, 1 / 9, 1 / 9, 1 / 9, 1 / 36, 1 / 36, 1 / 36, 1 / 36])
    for _ in range(steps):
        for k in range(9):
            f[k] = np.roll(np.roll(f[k], ex[k], axis=1), ey[k], axis=0)
        rho = np.sum(f, axis=0)
        ux = np.zeros_like(rho)
        uy = np.zeros_like(rho)
        for k in range(9):
            ux += ex[k] * f[k]
            uy += ey[k] * f[k]
        ux /= rho
        uy /= rho
        usq = ux * ux + uy * uy
        for k in range(9):
            eu = ex[k] * ux + ey[k] * uy
            feq = w[k] * rho * (1 + 3 * eu + 4.5 * eu * eu - 1.5 * usq)
            f[k] += omega * (feq - f[k])
    return f


def sir_cellular(state, draws, p_inf, p_rec, steps):
    """SIR on a grid of uint8 states (0 S, 1 I, 2 R); von Neumann neighbours infect."""
    n, m = state.shape
    history = np.zeros((steps, 3), dtype=np.int64)
    for t in range(steps):
        new = state.copy()
        for i in range(n):
            for j in range(m):
                if state[i, j] == 0:
                    k = 0
                    if i > 0 and state[i - 1, j] == 1:
                        k += 1
                    if i < n - 1 and state[i + 1, j] == 1:
                        k += 1
                    if j > 0 and state[i, j - 1] == 1:
                        k += 1
                    if j < m - 1 and state[i, j + 1] == 1:
                        k += 1
                    if draws[t, i, j] < 1.0 - (1.0 - p_inf) ** k:
                        new[i, j] = 1
                elif state[i, j] == 1:
                    if draws[t, i, j] < p_rec:
                        new[i, j] = 2
        state = new
        for c in range(3):
            history[t, c] = np.sum(state == c)
    return state, history


def nasch_ring(pos, vel, L, vmax, p, draws):
    """Nagel-Schreckenberg on a ring with cars kept sorted by position (int32 arrays)."""
    n = len(pos)
    flow = 0
    for t in range(draws.shape[0]):
        gaps = np.empty(n, dtype=np.int32)
        for i in range(n):
            gaps[i] = (pos[(i + 1) % n] - pos[i] - 1) % L
        for i in range(n):
            vel[i] = min(vel[i] + 1, vmax)
            vel[i] = min(vel[i], gaps[i])
            if vel[i] > 0 and draws[t, i] < p:
                vel[i] -= 1
        for i in range(n):
            if pos[i] + vel[i] >= L:
                flow += 1
            pos[i] = (pos[i] + vel[i]) % L
    return flow / (draws.shape[0] * L)


def gillespie_sir(S0, I0, beta, gamma, u1, u2, t_max):
    """Gillespie's direct method for SIR with given uniforms; stops when I dies out."""
    S, I, R = S0, I0, 0
    N = S0 + I0
    t = 0.0
    times = np.zeros(len(u1) + 1)
    infected = np.zeros(len(u1) + 1, dtype=np.int64)
    infected[0] = I
    k = 0
    while k < len(u1):
        a1 = beta * S * I / N
        a2 = gamma * I
        a0 = a1 + a2
        if a0 <= 0.0:
            break
        t += -math.log(u1[k]) / a0
        if t > t_max:
            break
        if u2[k] * a0 < a1:
            S -= 1
            I += 1
        else:
            I -= 1
            R += 1
        k += 1
        times[k] = t
        infected[k] = I
    return times[:k + 1], infected[:k + 1], R


# ---------------------------------------------------------------- signal processing

def lfilter_df2(b, a, x):
    """Direct form II, like scipy.signal.lfilter (a[0] normalised)."""
    n = max(len(a), len(b))
    bb = np.zeros(n)
    aa = np.zeros(n)
    bb[:len(b)] = b / a[0]
    aa[:len(a)] = a / a[0]
    w = np.zeros(n)
    y = np.zeros(len(x))
    for i in range(len(x)):
        w0 = x[i]
        for k in range(1, n):
            w0 -= aa[k] * w[k]
        w[0] = w0
        yi = 0.0
        for k in range(n):
            yi += bb[k] * w[k]
        for k in range(n - 1, 0, -1):
            w[k] = w[k - 1]
        y[i] = yi
    return y


def fir_taps_f32(x, taps):
    """FIR filter on float32 samples, loop over the taps, zero initial state."""
    y = np.zeros_like(x)
    for n in range(len(x)):
        acc = np.float32(0.0)
        for k in range(len(taps)):
            if n - k >= 0:
                acc += taps[k] * x[n - k]
        y[n] = acc
    return y


def goertzel_powers(x, freqs, fs):
    """Goertzel algorithm per target frequency, math.cos on the scalar coefficient."""
    N = len(x)
    out = np.empty(len(freqs))
    for m in range(len(freqs)):
        kk = int(0.5 + N * freqs[m] / fs)
        coeff = 2.0 * math.cos(2.0 * math.pi * kk / N)
        s1 = 0.0
        s2 = 0.0
        for n in range(N):
            s0 = x[n] + coeff * s1 - s2
            s2 = s1
            s1 = s0
        out[m] = s1 * s1 + s2 * s2 - coeff * s1 * s2
    return out


def autocorr_unbiased(x, maxlag):
    """Unbiased autocorrelation estimate of a demeaned series, normalised by lag 0."""
    x = x - x.mean()
    n = len(x)
    r = np.zeros(maxlag + 1)
    for lag in range(maxlag + 1):
        s = 0.0
        for t in range(n - lag):
            s += x[t] * x[t + lag]
        r[lag] = s / (n - lag)
    return r / r[0]


def levinson_durbin(r, order):
    """Levinson-Durbin recursion: AR coefficients, prediction error, reflection coefficients."""
    a = np.zeros(order + 1)
    a[0] = 1.0
    e = r[0]
    refl = np.zeros(order)
    for k in range(1, order + 1):
        acc = r[k]
        for j in range(1, k):
            acc += a[j] * r[k - j]
        kappa = -acc / e
        refl[k - 1] = kappa
        a_old = a.copy()
        for j in range(1, k):
            a[j] = a_old[j] + kappa * a_old[k - j]
        a[k] = kappa
        e *= 1.0 - kappa * kappa
    return a, e, refl


def overlap_add(x, h, block):
    """Overlap-add convolution: each block convolved by direct loops, tails added on."""
    M = len(h)
    y = np.zeros(len(x) + M - 1)
    for start in range(0, len(x), block):
        seg = x[start:start + block]
        L = len(seg)
        conv = np.zeros(L + M - 1)
        for i in range(L):
            for j in range(M):
                conv[i + j] += seg[i] * h[j]
        y[start:start + L + M - 1] += conv
    return y


def zero_crossing_rate(x, frame, hop):
    """Zero-crossing rate per frame (counts of sign changes over the frame length)."""
    n_frames = 1 + (len(x) - frame) // hop
    zcr = np.zeros(n_frames)
    for f in range(n_frames):
        seg = x[f * hop:f * hop + frame]
        count = 0
        for i in range(1, frame):
            if (seg[i] >= 0) != (seg[i - 1] >= 0):
                count += 1
        zcr[f] = count / frame
    return zcr


def envelope_attack_release(x, fs, attack_ms, release_ms):
    """Peak envelope follower with separate attack and release time constants."""
    ga = math.exp(-1.0 / (fs * attack_ms / 1000.0))
    gr = math.exp(-1.0 / (fs * release_ms / 1000.0))
    env = np.empty_like(x)
    level = 0.0
    for i in range(len(x)):
        v = abs(x[i])
        if v > level:
            level = ga * level + (1.0 - ga) * v
        else:
            level = gr * level + (1.0 - gr) * v
        env[i] = level
    return env


def sosfilt_cascade(sos, x):
    """Cascade of biquads in second-order sections (rows b0 b1 b2 a0 a1 a2), DF2 transposed."""
    y = x.copy()
    for s in range(sos.shape[0]):
        b0, b1, b2, a0, a1, a2 = sos[s]
        b0, b1, b2, a1, a2 = b0 / a0, b1 / a0, b2 / a0, a1 / a0, a2 / a0
        z1 = 0.0
        z2 = 0.0
        for n in range(len(y)):
            xn = y[n]
            yn = b0 * xn + z1
            z1 = b1 * xn - a1 * yn + z2
            z2 = b2 * xn - a2 * yn
            y[n] = yn
    return y


# ---------------------------------------------------------------- images

def sobel_nms(img):
    """Sobel gradients, then non-maximum suppression along the quantised gradient direction."""
    h, w = img.shape
    gx = np.zeros((h, w))
    gy = np.zeros((h, w))
    gx[1:-1, 1:-1] = (img[:-2, 2:] + 2 * img[1:-1, 2:] + img[2:, 2:]
                      - img[:-2, :-2] - 2 * img[1:-1, :-2] - img[2:, :-2])
    gy[1:-1, 1:-1] = (img[2:, :-2] + 2 * img[2:, 1:-1] + img[2:, 2:]
                      - img[:-2, :-2] - 2 * img[:-2, 1:-1] - img[:-2, 2:])
    mag = np.hypot(gx, gy)
    ang = np.rad2deg(np.arctan2(gy, gx)) % 180
    out = np.zeros((h, w))
    for i in range(1, h - 1):
        for j in range(1, w - 1):
            a = ang[i, j]
            if a < 22.5 or a >= 157.5:
                q, r = mag[i, j + 1], mag[i, j - 1]
            elif a < 67.5:
                q, r = mag[i + 1, j - 1], mag[i - 1, j + 1]
            elif a < 112.5:
                q, r = mag[i + 1, j], mag[i - 1, j]
            else:
                q, r = mag[i - 1, j - 1], mag[i + 1, j + 1]
            if mag[i, j] >= q and mag[i, j] >= r:
                out[i, j] = mag[i, j]
    return out


def hysteresis_stack(mag, low, high):
    """Canny hysteresis: strong pixels seed a stack that grows edges through weak ones."""
    h, w = mag.shape
    edges = np.zeros((h, w), dtype=np.uint8)
    stack = []
    for i in range(h):
        for j in range(w):
            if mag[i, j] >= high:
                edges[i, j] = 1
                stack.append((i, j))
    while stack:
        i, j = stack.pop()
        for di in (-1, 0, 1):
            for dj in (-1, 0, 1):
                ni, nj = i + di, j + dj
                if 0 <= ni < h and 0 <= nj < w:
                    if edges[ni, nj] == 0 and mag[ni, nj] >= low:
                        edges[ni, nj] = 1
                        stack.append((ni, nj))
    return edges


def two_pass_labels(binary):
    """Connected components (4-connectivity), two passes with a union-find of provisional labels."""
    h, w = binary.shape
    labels = np.zeros((h, w), dtype=np.int32)
    parent = np.zeros(h * w + 1, dtype=np.int32)
    nxt = 1
    for i in range(h):
        for j in range(w):
            if binary[i, j] == 0:
                continue
            up = labels[i - 1, j] if i > 0 else 0
            left = labels[i, j - 1] if j > 0 else 0
            if up == 0 and left == 0:
                parent[nxt] = nxt
                labels[i, j] = nxt
                nxt += 1
            elif up != 0 and left != 0:
                a = up
                while parent[a] != a:
                    a = parent[a]
                b = left
                while parent[b] != b:
                    b = parent[b]
                lo = min(a, b)
                parent[a] = lo
                parent[b] = lo
                labels[i, j] = lo
            else:
                labels[i, j] = max(up, left)
    for i in range(h):
        for j in range(w):
            a = labels[i, j]
            if a:
                while parent[a] != a:
                    a = parent[a]
                labels[i, j] = a
    return labels


def equalize_uint8(img):
    """Histogram equalisation of a uint8 image through its cumulative histogram."""
    hist = np.zeros(256, dtype=np.int64)
    for v in img.ravel():
        hist[v] += 1
    cdf = np.cumsum(hist)
    cdf_min = cdf[np.nonzero(cdf)[0][0]]
    total = img.size
    lut = np.zeros(256, dtype=np.uint8)
    for v in range(256):
        if cdf[v] >= cdf_min and total > cdf_min:
            lut[v] = round((cdf[v] - cdf_min) / (total - cdf_min) * 255)
    return lut[img]


def bilinear_resize_f32(img, new_h, new_w):
    """Bilinear resize with align-corners sampling, float32 image, per-pixel loops."""
    h, w = img.shape
    out = np.zeros((new_h, new_w), dtype=np.float32)
    sy = (h - 1) / (new_h - 1)
    sx = (w - 1) / (new_w - 1)
    for i in range(new_h):
        y = i * sy
        y0 = int(y)
        y1 = min(y0 + 1, h - 1)
        fy = y - y0
        for j in range(new_w):
            x = j * sx
            x0 = int(x)
            x1 = min(x0 + 1, w - 1)
            fx = x - x0
            top = img[y0, x0] * (1 - fx) + img[y0, x1] * fx
            bot = img[y1, x0] * (1 - fx) + img[y1, x1] * fx
            out[i, j] = top * (1 - fy) + bot * fy
    return out


def integral_box_means(img, r):
    """Integral image of a uint8 image by running sums, then box means of radius r."""
    h, w = img.shape
    ii = np.zeros((h + 1, w + 1), dtype=np.int64)
    for i in range(h):
        row = 0
        for j in range(w):
            row += int(img[i, j])
            ii[i + 1, j + 1] = ii[i, j + 1] + row
    out = np.zeros((h, w))
    for i in range(h):
        for j in range(w):
            y0, y1 = max(i - r, 0), min(i + r + 1, h)
            x0, x1 = max(j - r, 0), min(j + r + 1, w)
            s = ii[y1, x1] - ii[y0, x1] - ii[y1, x0] + ii[y0, x0]
            out[i, j] = s / ((y1 - y0) * (x1 - x0))
    return out


def open_binary(img, k):
    """Morphological opening (erosion then dilation) of a uint8 image by a k x k square."""
    h, w = img.shape
    r = k // 2
    er = np.zeros_like(img)
    for i in range(h):
        for j in range(w):
            v = 255
            for di in range(-r, r + 1):
                for dj in range(-r, r + 1):
                    ii, jj = i + di, j + dj
                    if 0 <= ii < h and 0 <= jj < w:
                        v = min(v, img[ii, jj])
                    else:
                        v = 0
            er[i, j] = v
    out = np.zeros_like(img)
    for i in range(h):
        for j in range(w):
            v = 0
            for di in range(-r, r + 1):
                for dj in range(-r, r + 1):
                    ii, jj = i + di, j + dj
                    if 0 <= ii < h and 0 <= jj < w:
                        v = max(v, er[ii, jj])
            out[i, j] = v
    return out


# ---------------------------------------------------------------- finance

def binomial_european_call(S, K, T, r, sigma, N):
    """Cox-Ross-Rubinstein tree for a European call, backward induction on one array."""
    dt = T / N
    u = math.exp(sigma * math.sqrt(dt))
    d = 1.0 / u
    p = (math.exp(r * dt) - d) / (u - d)
    disc = math.exp(-r * dt)
    values = np.zeros(N + 1)
    for j in range(N + 1):
        values[j] = max(S * u ** j * d ** (N - j) - K, 0.0)
    for i in range(N - 1, -1, -1):
        for j in range(i + 1):
            values[j] = disc * (p * values[j + 1] + (1 - p) * values[j])
    return values[0]


def trinomial_american_put(S, K, T, r, sigma, N):
    """Trinomial tree (Boyle) for an American put, vectorised over each level."""
    dt = T / N
    u = np.exp(sigma * np.sqrt(2 * dt))
    a = np.exp(r * dt / 2)
    b = np.exp(sigma * np.sqrt(dt / 2))
    pu = ((a - 1 / b) / (b - 1 / b)) ** 2
    pd = ((b - a) / (b - 1 / b)) ** 2
    pm = 1 - pu - pd
    disc = np.exp(-r * dt)
    k = np.arange(-N, N + 1)
    V = np.maximum(K - S * u ** k, 0.0)
    for i in range(N - 1, -1, -1):
        k = np.arange(-i, i + 1)
        cont = disc * (pu * V[2:] + pm * V[1:-1] + pd * V[:-2])
        V = np.maximum(cont, K - S * u ** k)
    return float(V[0])


def mc_paths_from_normals(S0, mu, sigma, dt, Z, barrier):
    """GBM paths from given normals; a dict of the terminal mean, the knock-out share and a path."""
    n_paths, n_steps = Z.shape
    S = np.empty((n_paths, n_steps + 1))
    S[:, 0] = S0
    for t in range(n_steps):
        S[:, t + 1] = S[:, t] * np.exp((mu - 0.5 * sigma ** 2) * dt + sigma * np.sqrt(dt) * Z[:, t])
    knocked = (S.max(axis=1) >= barrier)
    return {"mean_terminal": S[:, -1].mean(), "knocked_out": knocked.mean(),
            "first_path": S[0]}


def garch11(returns, omega, alpha, beta):
    """GARCH(1,1) conditional variances and the Gaussian log-likelihood."""
    n = len(returns)
    sigma2 = np.empty(n)
    sigma2[0] = np.var(returns)
    ll = 0.0
    for t in range(1, n):
        sigma2[t] = omega + alpha * returns[t - 1] ** 2 + beta * sigma2[t - 1]
    for t in range(n):
        ll += -0.5 * (math.log(2 * math.pi) + math.log(sigma2[t]) + returns[t] ** 2 / sigma2[t])
    return sigma2, ll


def ewma_vol_into(returns, lam, out):
    """RiskMetrics EWMA volatility written into a given output array; annualised."""
    var = returns[0] ** 2
    out[0] = math.sqrt(var * 252)
    for t in range(1, len(returns)):
        var = lam * var + (1 - lam) * returns[t - 1] ** 2
        out[t] = math.sqrt(var * 252)


def drawdown_stats(prices):
    """Drawdown series, maximum drawdown and its peak and trough indices."""
    peak = prices[0]
    peak_i = 0
    dd = np.zeros(len(prices))
    max_dd = 0.0
    start = 0
    end = 0
    for i in range(len(prices)):
        if prices[i] > peak:
            peak = prices[i]
            peak_i = i
        dd[i] = (prices[i] - peak) / peak
        if dd[i] < max_dd:
            max_dd = dd[i]
            start = peak_i
            end = i
    return dd, max_dd, start, end


def rolling_sharpe(returns, window, rf=0.0):
    """Rolling annualised Sharpe ratio; NaN until the window fills or when the stdev is zero."""
    n = len(returns)
    out = np.full(n, np.nan)
    for t in range(window - 1, n):
        w = returns[t - window + 1:t + 1] - rf / 252
        sd = w.std(ddof=1)
        if sd > 0:
            out[t] = np.sqrt(252) * w.mean() / sd
    return out


def kalman_local_level(y, sigma_eps2, sigma_eta2, a1, p1):
    """Kalman filter for the local-level model; filtered states, variances, log-likelihood."""
    n = len(y)
    a = np.zeros(n)
    P = np.zeros(n)
    at, pt = a1, p1
    loglik = 0.0
    for t in range(n):
        v = y[t] - at
        F = pt + sigma_eps2
        K = pt / F
        a[t] = at + K * v
        P[t] = pt * (1 - K)
        loglik -= 0.5 * (np.log(2 * np.pi) + np.log(F) + v * v / F)
        at = a[t]
        pt = P[t] + sigma_eta2
    return a, P, loglik


def yule_walker_ar(x, p):
    """AR(p) fit by Yule-Walker: the Toeplitz system from biased autocovariances."""
    x = x - np.mean(x)
    n = len(x)
    r = np.array([np.dot(x[:n - k], x[k:]) / n for k in range(p + 1)])
    R = np.empty((p, p))
    for i in range(p):
        for j in range(p):
            R[i, j] = r[abs(i - j)]
    phi = np.linalg.solve(R, r[1:])
    sigma2 = r[0] - np.dot(phi, r[1:])
    return phi, sigma2


# ---------------------------------------------------------------- bioinformatics

def smith_waterman_int8(a, b, match, mismatch, gap):
    """Local alignment score of two int8-coded sequences, int32 score matrix."""
    n, m = len(a), len(b)
    H = np.zeros((n + 1, m + 1), dtype=np.int32)
    best = 0
    bi = 0
    bj = 0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            s = match if a[i - 1] == b[j - 1] else mismatch
            v = max(0, H[i - 1, j - 1] + s, H[i - 1, j] - gap, H[i, j - 1] - gap)
            H[i, j] = v
            if v > best:
                best = v
                bi, bj = i, j
    return best, bi, bj


def kmer_spectrum(seq, k):
    """Counts of every k-mer of a sequence of codes 0..3, with a rolling base-4 code."""
    counts = np.zeros(4 ** k, dtype=np.int64)
    mask = 4 ** k
    code = 0
    for i in range(len(seq)):
        code = (code * 4 + int(seq[i])) % mask
        if i >= k - 1:
            counts[code] += 1
    return counts


def viterbi_log(obs, log_pi, log_A, log_B):
    """Viterbi decoding in log space; the path and its log-probability."""
    T = len(obs)
    S = log_pi.shape[0]
    delta = np.zeros((T, S))
    psi = np.zeros((T, S), dtype=np.int64)
    delta[0] = log_pi + log_B[:, obs[0]]
    for t in range(1, T):
        for j in range(S):
            scores = delta[t - 1] + log_A[:, j]
            psi[t, j] = np.argmax(scores)
            delta[t, j] = scores[psi[t, j]] + log_B[j, obs[t]]
    path = np.zeros(T, dtype=np.int64)
    path[-1] = np.argmax(delta[-1])
    for t in range(T - 2, -1, -1):
        path[t] = psi[t + 1, path[t + 1]]
    return path, delta[-1].max()


def forward_backward_scaled(obs, pi, A, B):
    """Scaled forward-backward: posteriors of the states and the log-likelihood."""
    T = len(obs)
    S = len(pi)
    alpha = np.zeros((T, S))
    beta = np.zeros((T, S))
    c = np.zeros(T)
    alpha[0] = pi * B[:, obs[0]]
    c[0] = alpha[0].sum()
    alpha[0] /= c[0]
    for t in range(1, T):
        alpha[t] = (alpha[t - 1] @ A) * B[:, obs[t]]
        c[t] = alpha[t].sum()
        alpha[t] /= c[t]
    beta[T - 1] = 1.0
    for t in range(T - 2, -1, -1):
        beta[t] = A @ (B[:, obs[t + 1]] * beta[t + 1]) / c[t + 1]
    gamma = alpha * beta
    gamma /= gamma.sum(axis=1, keepdims=True)
    return gamma, np.log(c).sum()
