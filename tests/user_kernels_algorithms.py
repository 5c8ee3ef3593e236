"""Sorting, searching, dynamic programming and byte-string algorithms written as their users
write them: explicit stacks in arrays, in-place swaps, DP tables filled by index loops, and
uint8 buffers scanned with rolling hashes and tables."""

import numpy as np


def quicksort_stack(a):
    a = a.copy()
    stack = np.empty(2 * len(a) + 2, dtype=np.int64)
    top = 0
    stack[0], stack[1] = 0, len(a) - 1
    top = 2
    while top > 0:
        top -= 2
        lo, hi = stack[top], stack[top + 1]
        if lo >= hi:
            continue
        pivot = a[hi]
        i = lo
        for j in range(lo, hi):
            if a[j] < pivot:
                a[i], a[j] = a[j], a[i]
                i += 1
        a[i], a[hi] = a[hi], a[i]
        stack[top], stack[top + 1] = lo, i - 1
        stack[top + 2], stack[top + 3] = i + 1, hi
        top += 4
    return a


def merge_sort_bottom_up(a):
    n = len(a)
    src = a.copy()
    dst = np.empty_like(a)
    width = 1
    while width < n:
        for lo in range(0, n, 2 * width):
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            i, j, k = lo, mid, lo
            while i < mid and j < hi:
                if src[i] <= src[j]:
                    dst[k] = src[i]
                    i += 1
                else:
                    dst[k] = src[j]
                    j += 1
                k += 1
            while i < mid:
                dst[k] = src[i]
                i += 1
                k += 1
            while j < hi:
                dst[k] = src[j]
                j += 1
                k += 1
        src, dst = dst, src
        width *= 2
    return src


def sift_down(a, start, end):
    root = start
    while 2 * root + 1 <= end:
        child = 2 * root + 1
        if child + 1 <= end and a[child] < a[child + 1]:
            child += 1
        if a[root] < a[child]:
            a[root], a[child] = a[child], a[root]
            root = child
        else:
            return


def heap_sort(a):
    n = len(a)
    for start in range((n - 2) // 2, -1, -1):
        sift_down(a, start, n - 1)
    for end in range(n - 1, 0, -1):
        a[0], a[end] = a[end], a[0]
        sift_down(a, 0, end - 1)
    return a


def counting_sort(a, k):
    counts = np.zeros(k, dtype=np.int64)
    for v in a:
        counts[v] += 1
    out = np.empty_like(a)
    pos = 0
    for v in range(k):
        for _ in range(counts[v]):
            out[pos] = v
            pos += 1
    return out, counts


def radix_sort_u32(a):
    src = a.copy()
    dst = np.empty_like(src)
    for shift in range(0, 32, 8):
        counts = np.zeros(257, dtype=np.int64)
        digits = (src >> np.uint32(shift)) & np.uint32(0xFF)
        for d in digits:
            counts[d + 1] += 1
        offsets = np.cumsum(counts)
        for i in range(len(src)):
            d = digits[i]
            dst[offsets[d]] = src[i]
            offsets[d] += 1
        src, dst = dst, src
    return src


def quickselect(a, k):
    a = a.copy()
    lo, hi = 0, len(a) - 1
    while lo < hi:
        pivot = a[(lo + hi) // 2]
        i, j = lo, hi
        while i <= j:
            while a[i] < pivot:
                i += 1
            while a[j] > pivot:
                j -= 1
            if i <= j:
                a[i], a[j] = a[j], a[i]
                i += 1
                j -= 1
        if k <= j:
            hi = j
        elif k >= i:
            lo = i
        else:
            break
    return a[k]


def binary_searches(sorted_keys, queries):
    out = np.empty(len(queries), dtype=np.int64)
    for q in range(len(queries)):
        x = queries[q]
        lo, hi = 0, len(sorted_keys)
        while lo < hi:
            mid = (lo + hi) // 2
            if sorted_keys[mid] < x:
                lo = mid + 1
            else:
                hi = mid
        out[q] = lo
    return out


def matrix_chain_order(dims):
    n = len(dims) - 1
    cost = np.zeros((n, n), dtype=np.int64)
    split = np.zeros((n, n), dtype=np.int32)
    for length in range(2, n + 1):
        for i in range(n - length + 1):
            j = i + length - 1
            cost[i, j] = np.iinfo(np.int64).max
            for k in range(i, j):
                c = cost[i, k] + cost[k + 1, j] + dims[i] * dims[k + 1] * dims[j + 1]
                if c < cost[i, j]:
                    cost[i, j] = c
                    split[i, j] = k
    return cost[0, n - 1], split


def rod_cutting(prices, n):
    best = np.zeros(n + 1)
    first_cut = np.zeros(n + 1, dtype=np.int64)
    for length in range(1, n + 1):
        q = -np.inf
        for cut in range(1, min(length, len(prices)) + 1):
            v = prices[cut - 1] + best[length - cut]
            if v > q:
                q = v
                first_cut[length] = cut
        best[length] = q
    pieces = []
    rest = n
    while rest > 0:
        pieces.append(first_cut[rest])
        rest -= first_cut[rest]
    return best[n], pieces


def longest_palindromic_subseq(s):
    n = len(s)
    L = np.zeros((n, n), dtype=np.int32)
    for i in range(n):
        L[i, i] = 1
    for length in range(2, n + 1):
        for i in range(n - length + 1):
            j = i + length - 1
            if s[i] == s[j]:
                L[i, j] = L[i + 1, j - 1] + 2 if length > 2 else 2
            else:
                L[i, j] = max(L[i + 1, j], L[i, j - 1])
    return L[0, n - 1]


def subset_sum_table(values, target):
    n = len(values)
    T = np.zeros((n + 1, target + 1), dtype=np.bool_)
    T[:, 0] = True
    for i in range(1, n + 1):
        v = values[i - 1]
        T[i] = T[i - 1]
        if v <= target:
            T[i, v:] |= T[i - 1, :target + 1 - v]
    return T[n, target], T[n].sum()


def word_wrap(lengths, width):
    n = len(lengths)
    cost = np.full(n + 1, np.inf)
    cost[n] = 0.0
    brk = np.zeros(n, dtype=np.int64)
    for i in range(n - 1, -1, -1):
        line = -1
        for j in range(i, n):
            line += lengths[j] + 1
            if line > width:
                break
            c = 0.0 if j == n - 1 else (width - line) ** 3
            if c + cost[j + 1] < cost[i]:
                cost[i] = c + cost[j + 1]
                brk[i] = j + 1
    return cost[0], brk


def held_karp(dist):
    n = dist.shape[0]
    full = 1 << n
    dp = np.full((full, n), np.inf)
    dp[1, 0] = 0.0
    for mask in range(1, full):
        if not mask & 1:
            continue
        for last in range(n):
            if not (mask >> last) & 1 or dp[mask, last] == np.inf:
                continue
            for nxt in range(n):
                if (mask >> nxt) & 1:
                    continue
                m2 = mask | (1 << nxt)
                c = dp[mask, last] + dist[last, nxt]
                if c < dp[m2, nxt]:
                    dp[m2, nxt] = c
    return np.min(dp[full - 1] + dist[:, 0])


def kmp_prefix(s):
    n = len(s)
    pi = np.zeros(n, dtype=np.int32)
    k = 0
    for i in range(1, n):
        while k > 0 and s[i] != s[k]:
            k = pi[k - 1]
        if s[i] == s[k]:
            k += 1
        pi[i] = k
    return pi


def rabin_karp(text, pattern, base=256, mod=1000003):
    n, m = len(text), len(pattern)
    h = 1
    for _ in range(m - 1):
        h = (h * base) % mod
    p_hash = 0
    t_hash = 0
    for i in range(m):
        p_hash = (p_hash * base + int(pattern[i])) % mod
        t_hash = (t_hash * base + int(text[i])) % mod
    matches = []
    for s in range(n - m + 1):
        if p_hash == t_hash and np.array_equal(text[s:s + m], pattern):
            matches.append(s)
        if s < n - m:
            t_hash = ((t_hash - int(text[s]) * h) * base + int(text[s + m])) % mod
    return matches


def horspool_count(text, pattern):
    m, n = len(pattern), len(text)
    shift = np.full(256, m, dtype=np.int64)
    for i in range(m - 1):
        shift[pattern[i]] = m - 1 - i
    count = 0
    pos = 0
    while pos <= n - m:
        j = m - 1
        while j >= 0 and text[pos + j] == pattern[j]:
            j -= 1
        if j < 0:
            count += 1
        pos += shift[text[pos + m - 1]]
    return count


def hamming_distances(codes):
    n, nbytes = codes.shape
    table = np.zeros(256, dtype=np.uint8)
    for i in range(256):
        table[i] = (i & 1) + table[i >> 1]
    D = np.zeros((n, n), dtype=np.int32)
    for i in range(n):
        for j in range(i + 1, n):
            x = codes[i] ^ codes[j]
            d = int(table[x].sum())
            D[i, j] = d
            D[j, i] = d
    return D


def utf8_validate(data):
    i = 0
    n = len(data)
    while i < n:
        b = data[i]
        if b < 0x80:
            i += 1
            continue
        if b >> 5 == 0b110:
            need = 1
        elif b >> 4 == 0b1110:
            need = 2
        elif b >> 3 == 0b11110:
            need = 3
        else:
            return False, i
        if i + need >= n:
            return False, i
        for k in range(1, need + 1):
            if data[i + k] >> 6 != 0b10:
                return False, i
        i += need + 1
    return True, n


B64 = np.frombuffer(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
                    dtype=np.uint8)


def base64_encode(data):
    n = len(data)
    out = np.full(4 * ((n + 2) // 3), ord("="), dtype=np.uint8)
    j = 0
    for i in range(0, n - 2, 3):
        v = (int(data[i]) << 16) | (int(data[i + 1]) << 8) | int(data[i + 2])
        out[j] = B64[(v >> 18) & 63]
        out[j + 1] = B64[(v >> 12) & 63]
        out[j + 2] = B64[(v >> 6) & 63]
        out[j + 3] = B64[v & 63]
        j += 4
    rest = n % 3
    if rest:
        v = int(data[n - rest]) << 16
        if rest == 2:
            v |= int(data[n - 1]) << 8
        out[j] = B64[(v >> 18) & 63]
        out[j + 1] = B64[(v >> 12) & 63]
        if rest == 2:
            out[j + 2] = B64[(v >> 6) & 63]
    return out
