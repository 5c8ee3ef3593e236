"""Data wrangling, hand-written sparse formats, byte processing, simulations driven by a
`np.random.Generator` argument and evaluation metrics, written the way their users write them:
group-bys through argsort/unique/bincount, rolling windows, NaN filling, rank transforms,
joins of sorted keys, CSR by hand, checksums and encodings over uint8 arrays, random walks and
bootstraps, ROC AUC and ranking metrics."""

import numpy as np


# ---------------------------------------------------------------- group-by and wrangling

def group_mean_argsort(keys, values):
    order = np.argsort(keys, kind="stable")
    k = keys[order]
    v = values[order]
    starts = np.flatnonzero(np.r_[True, k[1:] != k[:-1]])
    sums = np.add.reduceat(v, starts)
    counts = np.diff(np.r_[starts, len(k)])
    return k[starts], sums / counts


def group_stats_unique(keys, values):
    uniq, inverse, counts = np.unique(keys, return_inverse=True, return_counts=True)
    sums = np.bincount(inverse, weights=values)
    sq = np.bincount(inverse, weights=values * values)
    mean = sums / counts
    var = sq / counts - mean ** 2
    return {"keys": uniq, "mean": mean, "std": np.sqrt(np.maximum(var, 0.0)), "n": counts}


def group_max_loop(keys, values, n_groups):
    out = np.full(n_groups, -np.inf)
    for i in range(keys.shape[0]):
        g = keys[i]
        if values[i] > out[g]:
            out[g] = values[i]
    return out


def group_first_last(keys, values):
    order = np.argsort(keys, kind="mergesort")
    sk = keys[order]
    sv = values[order]
    uniq = np.unique(sk)
    lo = np.searchsorted(sk, uniq, side="left")
    hi = np.searchsorted(sk, uniq, side="right")
    return uniq, sv[lo], sv[hi - 1], hi - lo


def rolling_mean_std(x, window):
    n = x.shape[0]
    means = np.full(n, np.nan)
    stds = np.full(n, np.nan)
    for i in range(window - 1, n):
        w = x[i - window + 1:i + 1]
        means[i] = w.mean()
        stds[i] = w.std(ddof=1)
    return means, stds


def rolling_sum_cumsum(x, window):
    c = np.cumsum(np.insert(x, 0, 0.0))
    out = c[window:] - c[:-window]
    return np.concatenate([np.full(window - 1, np.nan), out])


def expanding_zscore(x):
    n = len(x)
    out = np.zeros(n)
    total = 0.0
    total_sq = 0.0
    for i in range(n):
        total += x[i]
        total_sq += x[i] * x[i]
        count = i + 1
        mean = total / count
        var = total_sq / count - mean * mean
        if count > 1 and var > 0:
            out[i] = (x[i] - mean) / np.sqrt(var)
    return out


def rolling_max_deque(x, window):
    n = x.shape[0]
    out = np.empty(n - window + 1)
    dq = np.empty(n, dtype=np.int64)
    head = 0
    tail = 0
    for i in range(n):
        while tail > head and x[dq[tail - 1]] <= x[i]:
            tail -= 1
        dq[tail] = i
        tail += 1
        if dq[head] <= i - window:
            head += 1
        if i >= window - 1:
            out[i - window + 1] = x[dq[head]]
    return out


def resample_to_bins(t, y, n_bins):
    edges = np.linspace(t.min(), t.max(), n_bins + 1)
    idx = np.clip(np.digitize(t, edges) - 1, 0, n_bins - 1)
    counts = np.bincount(idx, minlength=n_bins)
    sums = np.bincount(idx, weights=y, minlength=n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = sums / counts
    return edges, means, counts


def ffill_nan(x):
    out = x.copy()
    last = np.nan
    for i in range(out.shape[0]):
        if np.isnan(out[i]):
            out[i] = last
        else:
            last = out[i]
    return out


def ffill_vectorized(x):
    mask = np.isnan(x)
    idx = np.where(~mask, np.arange(len(x)), 0)
    np.maximum.accumulate(idx, out=idx)
    out = x[idx]
    return out


def bfill_2d(a):
    out = a.copy()
    rows, cols = out.shape
    for j in range(cols):
        nxt = np.nan
        i = rows - 1
        while i >= 0:
            if np.isnan(out[i, j]):
                out[i, j] = nxt
            else:
                nxt = out[i, j]
            i -= 1
    return out


def zscore_clip(x, k):
    mu = np.nanmean(x, axis=0)
    sd = np.nanstd(x, axis=0)
    z = (x - mu) / sd
    z = np.clip(z, -k, k)
    return np.where(np.isnan(z), 0.0, z).astype(np.float32)


def rank_average_ties(x):
    order = np.argsort(x, kind="mergesort")
    sx = x[order]
    ranks = np.empty(len(x))
    i = 0
    n = len(x)
    while i < n:
        j = i
        while j + 1 < n and sx[j + 1] == sx[i]:
            j += 1
        avg = 0.5 * (i + j) + 1.0
        for k in range(i, j + 1):
            ranks[order[k]] = avg
        i = j + 1
    return ranks


def dense_rank_columns(a):
    out = np.empty(a.shape, dtype=np.int32)
    for j in range(a.shape[1]):
        _, inv = np.unique(a[:, j], return_inverse=True)
        out[:, j] = inv
    return out


def dedupe_keep_first(ids, values):
    _, first = np.unique(ids, return_index=True)
    first = np.sort(first)
    return ids[first], values[first]


def dedupe_sorted_loop(a):
    s = np.sort(a)
    keep = [s[0]]
    for v in s[1:]:
        if v != keep[-1]:
            keep.append(v)
    return np.array(keep)


def merge_join_sorted(left_keys, left_vals, right_keys, right_vals):
    i = 0
    j = 0
    out_keys = []
    out_pairs = []
    while i < len(left_keys) and j < len(right_keys):
        if left_keys[i] < right_keys[j]:
            i += 1
        elif left_keys[i] > right_keys[j]:
            j += 1
        else:
            out_keys.append(left_keys[i])
            out_pairs.append((left_vals[i], right_vals[j]))
            i += 1
            j += 1
    return np.array(out_keys, dtype=np.int64), np.array(out_pairs).reshape(-1, 2)


def asof_join(t_left, t_right, v_right):
    pos = np.searchsorted(t_right, t_left, side="right") - 1
    valid = pos >= 0
    out = np.full(t_left.shape, np.nan)
    out[valid] = v_right[pos[valid]]
    return out


def pivot_table_sum(rows, cols, vals, n_rows, n_cols):
    table = np.zeros((n_rows, n_cols))
    np.add.at(table, (rows, cols), vals)
    return table


def cumcount_by_group(keys):
    counter = {}
    out = np.empty(len(keys), dtype=np.int64)
    for i, k in enumerate(keys.tolist()):
        c = counter.get(k, 0)
        out[i] = c
        counter[k] = c + 1
    return out


# ---------------------------------------------------------------- hand-written sparse

def coo_to_csr_counts(rows, cols, vals, n_rows):
    counts = np.bincount(rows, minlength=n_rows)
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    indptr[1:] = np.cumsum(counts)
    fill = indptr[:-1].copy()
    indices = np.empty(len(cols), dtype=np.int32)
    data = np.empty(len(vals), dtype=vals.dtype)
    for k in range(len(rows)):
        r = rows[k]
        p = fill[r]
        indices[p] = cols[k]
        data[p] = vals[k]
        fill[r] = p + 1
    return indptr, indices, data


def csr_matvec(indptr, indices, data, x):
    n = len(indptr) - 1
    y = np.zeros(n, dtype=x.dtype)
    for i in range(n):
        acc = 0.0
        for p in range(indptr[i], indptr[i + 1]):
            acc += data[p] * x[indices[p]]
        y[i] = acc
    return y


def csr_matvec_reduceat(indptr, indices, data, x):
    prod = data * x[indices]
    row_of = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
    return np.bincount(row_of, weights=prod, minlength=len(indptr) - 1)


def csr_transpose_scan(indptr, indices, data, n_cols):
    n_rows = indptr.shape[0] - 1
    nnz = indptr[-1]
    t_ptr = np.zeros(n_cols + 1, dtype=np.int64)
    for p in range(nnz):
        t_ptr[indices[p] + 1] += 1
    t_ptr = np.cumsum(t_ptr)
    nxt = t_ptr[:-1].copy()
    t_idx = np.empty(nnz, dtype=np.int64)
    t_data = np.empty(nnz)
    for i in range(n_rows):
        for p in range(indptr[i], indptr[i + 1]):
            c = indices[p]
            q = nxt[c]
            t_idx[q] = i
            t_data[q] = data[p]
            nxt[c] += 1
    return t_ptr, t_idx, t_data


# ---------------------------------------------------------------- bytes and text

def adler32(buf):
    a = 1
    b = 0
    for byte in buf:
        a = (a + int(byte)) % 65521
        b = (b + a) % 65521
    return (b << 16) | a


def fletcher16_blocks(data):
    s1 = np.uint16(0)
    s2 = np.uint16(0)
    for i in range(data.shape[0]):
        s1 = np.uint16((int(s1) + int(data[i])) % 255)
        s2 = np.uint16((int(s2) + int(s1)) % 255)
    return (int(s2) << 8) | int(s1)


def rle_encode_bytes(data):
    change = np.flatnonzero(data[1:] != data[:-1]) + 1
    starts = np.concatenate(([0], change))
    lengths = np.diff(np.concatenate((starts, [len(data)])))
    return data[starts], lengths.astype(np.uint8)


def delta_encode_decode(x):
    d = np.empty_like(x)
    d[0] = x[0]
    d[1:] = x[1:] - x[:-1]
    back = np.cumsum(d, dtype=x.dtype)
    return d, back


def pack_bits_manual(bits):
    n = len(bits) // 8
    out = np.zeros(n, dtype=np.uint8)
    for i in range(n):
        byte = 0
        for b in range(8):
            byte = (byte << 1) | int(bits[8 * i + b])
        out[i] = byte
    return out


def pack_nibbles(values):
    lo = values[0::2] & 0x0F
    hi = values[1::2] & 0x0F
    return (hi << 4 | lo).astype(np.uint8)


def base64_encode_bytes(text):
    alphabet = np.frombuffer(
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", dtype=np.uint8)
    data = np.frombuffer(text, dtype=np.uint8)
    n = len(data) // 3 * 3
    b = data[:n].reshape(-1, 3).astype(np.uint32)
    word = (b[:, 0] << 16) | (b[:, 1] << 8) | b[:, 2]
    idx = np.stack([(word >> 18) & 63, (word >> 12) & 63, (word >> 6) & 63, word & 63], axis=1)
    return alphabet[idx.ravel()]


def byte_histogram_entropy(buf):
    data = np.frombuffer(buf, dtype=np.uint8)
    counts = np.bincount(data, minlength=256)
    p = counts[counts > 0] / data.size
    return float(-(p * np.log2(p)).sum()), counts


def word_lengths_ascii(codes):
    is_space = codes == 32
    lengths = []
    run = 0
    for c in is_space:
        if c:
            if run > 0:
                lengths.append(run)
            run = 0
        else:
            run += 1
    if run > 0:
        lengths.append(run)
    return np.array(lengths, dtype=np.int32)


def to_upper_ascii(codes):
    lower = (codes >= ord("a")) & (codes <= ord("z"))
    out = codes.copy()
    out[lower] -= 32
    return out


# ---------------------------------------------------------------- simulations

def random_walk_2d(rng, n_steps):
    steps = rng.integers(0, 4, size=n_steps)
    dx = np.array([1, -1, 0, 0])[steps]
    dy = np.array([0, 0, 1, -1])[steps]
    x = np.cumsum(dx)
    y = np.cumsum(dy)
    return x, y, np.max(np.abs(x) + np.abs(y))


def monte_carlo_pi(rng, n):
    pts = rng.random((n, 2))
    inside = np.count_nonzero((pts ** 2).sum(axis=1) <= 1.0)
    return 4.0 * inside / n


def gamblers_ruin(rng, start, goal, p, n_games):
    wins = 0
    total_steps = 0
    for _ in range(n_games):
        money = start
        while 0 < money < goal:
            if rng.random() < p:
                money += 1
            else:
                money -= 1
            total_steps += 1
        if money == goal:
            wins += 1
    return wins / n_games, total_steps


def queue_sim_generator(rng, n_customers, arrival_rate, service_rate):
    inter = rng.exponential(1.0 / arrival_rate, n_customers)
    service = rng.exponential(1.0 / service_rate, n_customers)
    arrivals = np.cumsum(inter)
    start = np.empty(n_customers)
    finish = np.empty(n_customers)
    free_at = 0.0
    for i in range(n_customers):
        start[i] = max(arrivals[i], free_at)
        finish[i] = start[i] + service[i]
        free_at = finish[i]
    wait = start - arrivals
    return wait.mean(), wait.max()


def bootstrap_mean_ci(rng, x, n_boot):
    n = len(x)
    means = np.empty(n_boot)
    for b in range(n_boot):
        idx = rng.integers(0, n, n)
        means[b] = x[idx].mean()
    return np.percentile(means, [2.5, 97.5])


def gbm_paths(rng, s0, mu, sigma, dt, n_steps, n_paths):
    z = rng.standard_normal((n_paths, n_steps)).astype(np.float32)
    inc = (mu - 0.5 * sigma ** 2) * dt + sigma * np.sqrt(dt) * z
    return s0 * np.exp(np.cumsum(inc, axis=1))


# ---------------------------------------------------------------- metrics

def roc_auc_rank(y_true, scores):
    order = np.argsort(scores)
    ranks = np.empty(len(scores))
    ranks[order] = np.arange(1, len(scores) + 1)
    n_pos = y_true.sum()
    n_neg = len(y_true) - n_pos
    return (ranks[y_true == 1].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


def roc_curve_trapz(y_true, scores):
    order = np.argsort(-scores, kind="mergesort")
    y = y_true[order]
    tps = np.cumsum(y)
    fps = np.cumsum(1 - y)
    tpr = np.concatenate([[0.0], tps / tps[-1]])
    fpr = np.concatenate([[0.0], fps / fps[-1]])
    return np.trapezoid(tpr, fpr)


def confusion_matrix_np(y_true, y_pred, n_classes):
    cm = np.zeros((n_classes, n_classes), dtype=np.int64)
    for t, p in zip(y_true, y_pred):
        cm[t, p] += 1
    return cm


def precision_recall_f1(cm):
    tp = np.diag(cm).astype(np.float64)
    precision = tp / np.maximum(cm.sum(axis=0), 1)
    recall = tp / np.maximum(cm.sum(axis=1), 1)
    denom = precision + recall
    f1 = np.where(denom > 0, 2 * precision * recall / np.where(denom > 0, denom, 1), 0.0)
    return {"precision": precision, "recall": recall, "f1": f1, "macro_f1": f1.mean()}


def precision_recall_at_k(scores, relevant, k):
    results = []
    for q in range(scores.shape[0]):
        top = np.argsort(-scores[q])[:k]
        hits = relevant[q, top].sum()
        results.append((hits / k, hits / max(relevant[q].sum(), 1)))
    return np.array(results)


def ndcg_at_k(relevance, scores, k):
    order = np.argsort(-scores, axis=1)[:, :k]
    gains = np.take_along_axis(relevance, order, axis=1)
    discounts = 1.0 / np.log2(np.arange(2, k + 2))
    dcg = (gains * discounts).sum(axis=1)
    ideal = -np.sort(-relevance, axis=1)[:, :k]
    idcg = (ideal * discounts).sum(axis=1)
    if np.all(idcg == 0):
        return np.zeros(relevance.shape[0])
    return np.where(idcg > 0, dcg / np.where(idcg > 0, idcg, 1.0), 0.0)


def log_loss_binary(y, p, eps=1e-15):
    p = np.clip(p, eps, 1 - eps)
    return -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))


def average_precision(y_true, scores):
    order = np.argsort(-scores, kind="stable")
    y = y_true[order].astype(bool)
    hits = 0
    total = 0.0
    for i in range(len(y)):
        if y[i]:
            hits += 1
            total += hits / (i + 1)
    return total / max(hits, 1)
