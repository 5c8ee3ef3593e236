"""Signal processing and trading indicators written as their users write them: an iterative
FFT on separate real and imaginary arrays, filter design then application by loops,
forward-backward filtering, and indicators over price series with warm-up periods."""

import math

import numpy as np


def bit_reverse(re, im):
    n = re.shape[0]
    j = 0
    for i in range(1, n):
        bit = n >> 1
        while j & bit:
            j ^= bit
            bit >>= 1
        j ^= bit
        if i < j:
            re[i], re[j] = re[j], re[i]
            im[i], im[j] = im[j], im[i]


def fft_radix2(re, im):
    re = re.copy()
    im = im.copy()
    n = re.shape[0]
    bit_reverse(re, im)
    size = 2
    while size <= n:
        half = size // 2
        ang = -2.0 * math.pi / size
        for start in range(0, n, size):
            for k in range(half):
                wr = math.cos(ang * k)
                wi = math.sin(ang * k)
                a, b = start + k, start + k + half
                tr = wr * re[b] - wi * im[b]
                ti = wr * im[b] + wi * re[b]
                re[b] = re[a] - tr
                im[b] = im[a] - ti
                re[a] += tr
                im[a] += ti
        size *= 2
    return re, im


def savgol_coeffs(window, order):
    half = window // 2
    x = np.arange(-half, half + 1, dtype=np.float64)
    A = np.empty((window, order + 1))
    for p in range(order + 1):
        A[:, p] = x ** p
    return np.linalg.solve(A.T @ A, A.T)[0]


def savgol_smooth(y, window, order):
    c = savgol_coeffs(window, order)
    half = window // 2
    out = y.copy()
    for i in range(half, len(y) - half):
        out[i] = np.dot(c, y[i - half:i + half + 1])
    return out


def windowed_sinc(x, cutoff, taps):
    m = taps - 1
    h = np.empty(taps)
    for i in range(taps):
        t = i - m / 2
        if t == 0:
            h[i] = 2 * cutoff
        else:
            h[i] = np.sin(2 * np.pi * cutoff * t) / (np.pi * t)
        h[i] *= 0.42 - 0.5 * np.cos(2 * np.pi * i / m) + 0.08 * np.cos(4 * np.pi * i / m)
    h /= h.sum()
    y = np.zeros_like(x)
    for n in range(taps - 1, len(x)):
        acc = 0.0
        for k in range(taps):
            acc += h[k] * x[n - k]
        y[n] = acc
    return y, h


def decimate(x, h, factor):
    taps = len(h)
    n_out = (len(x) - taps) // factor + 1
    out = np.empty(n_out, dtype=x.dtype)
    for i in range(n_out):
        seg = x[i * factor:i * factor + taps]
        out[i] = np.sum(seg * h[::-1])
    return out


def spectrogram_loops(x, nwin, hop):
    nframes = (len(x) - nwin) // hop + 1
    nbins = nwin // 2 + 1
    window = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(nwin) / nwin)
    S = np.zeros((nframes, nbins))
    for f in range(nframes):
        frame = x[f * hop:f * hop + nwin] * window
        for k in range(nbins):
            re = 0.0
            im = 0.0
            for t in range(nwin):
                ang = 2 * np.pi * k * t / nwin
                re += frame[t] * np.cos(ang)
                im -= frame[t] * np.sin(ang)
            S[f, k] = np.sqrt(re * re + im * im)
    return S


def iir_forward(b, a, x):
    y = np.zeros_like(x)
    for n in range(len(x)):
        acc = b[0] * x[n]
        for k in range(1, len(b)):
            if n - k >= 0:
                acc += b[k] * x[n - k] - a[k] * y[n - k]
        y[n] = acc / a[0]
    return y


def filtfilt_zero_phase(b, a, x):
    y = iir_forward(b, a, x)
    y = iir_forward(b, a, y[::-1].copy())
    return y[::-1].copy()


def rsi(prices, period):
    deltas = np.diff(prices)
    gains = np.where(deltas > 0, deltas, 0.0)
    losses = np.where(deltas < 0, -deltas, 0.0)
    out = np.full(len(prices), np.nan)
    avg_gain = gains[:period].mean()
    avg_loss = losses[:period].mean()
    out[period] = 100.0 - 100.0 / (1.0 + avg_gain / avg_loss)
    for i in range(period + 1, len(prices)):
        avg_gain = (avg_gain * (period - 1) + gains[i - 1]) / period
        avg_loss = (avg_loss * (period - 1) + losses[i - 1]) / period
        if avg_loss == 0:
            out[i] = 100.0
        else:
            out[i] = 100.0 - 100.0 / (1.0 + avg_gain / avg_loss)
    return out


def ema(x, span):
    alpha = 2.0 / (span + 1)
    out = np.empty_like(x)
    out[0] = x[0]
    for i in range(1, len(x)):
        out[i] = alpha * x[i] + (1 - alpha) * out[i - 1]
    return out


def macd(prices, fast=12, slow=26, signal=9):
    line = ema(prices, fast) - ema(prices, slow)
    sig = ema(line, signal)
    return line, sig, line - sig


def bollinger(prices, window, k):
    n = len(prices)
    mid = np.full(n, np.nan)
    upper = np.full(n, np.nan)
    lower = np.full(n, np.nan)
    for i in range(window - 1, n):
        w = prices[i - window + 1:i + 1]
        m = w.mean()
        s = w.std()
        mid[i] = m
        upper[i] = m + k * s
        lower[i] = m - k * s
    return mid, upper, lower


def historical_var(returns, weights, alpha):
    pnl = returns @ weights
    losses = np.sort(-pnl)
    idx = int(np.ceil(alpha * len(losses))) - 1
    var = losses[idx]
    es = losses[idx:].mean()
    return var, es


def asian_option_mc(S0, r, sigma, T, strike, z):
    n_paths, n_steps = z.shape
    dt = T / n_steps
    drift = (r - 0.5 * sigma ** 2) * dt
    vol = sigma * np.sqrt(dt)
    payoff = np.empty(n_paths)
    for p in range(n_paths):
        s = S0
        total = 0.0
        for t in range(n_steps):
            s *= np.exp(drift + vol * z[p, t])
            total += s
        payoff[p] = max(total / n_steps - strike, 0.0)
    return np.exp(-r * T) * payoff.mean()


def garch_filter(returns, omega, alpha, beta):
    n = len(returns)
    sigma2 = np.empty(n)
    sigma2[0] = returns.var()
    loglik = 0.0
    for t in range(1, n):
        sigma2[t] = omega + alpha * returns[t - 1] ** 2 + beta * sigma2[t - 1]
        loglik += -0.5 * (np.log(2 * np.pi) + np.log(sigma2[t]) + returns[t] ** 2 / sigma2[t])
    return sigma2, loglik
