"""Scalar loop kernels written as their users write them: scans whose index only moves one
way while a bound test holds (`while j >= 0 and a[j] > key`), in several styles."""

from __future__ import annotations

import numpy as np


def insertion_sort_desc(a):
    a = a.copy()
    for i in range(1, len(a)):
        key = a[i]
        j = i - 1
        while j >= 0 and a[j] < key:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = key
    return a


def gapped_insertion(a, gap):
    a = a.copy()
    n = a.shape[0]
    for i in range(gap, n):
        tmp = a[i]
        j = i
        while j >= gap and a[j - gap] > tmp:
            a[j] = a[j - gap]
            j -= gap
        a[j] = tmp
    return a


def run_lengths_forward(x):
    n = len(x)
    out = np.zeros(n, dtype=np.int64)
    i = 0
    while i < n:
        j = i + 1
        while j < n and x[j] == x[i]:
            j += 1
        out[i] = j - i
        i = j
    return out


def next_greater_scan(x):
    n = x.shape[0]
    out = np.full(n, -1, dtype=np.int64)
    for i in range(n):
        k = i + 1
        while k < n and x[k] <= x[i]:
            k += 1
        if k < n:
            out[i] = k
    return out


def insertion_sort_ints(a):
    a = a.astype(np.int32)
    for i in range(1, a.size):
        v = a[i]
        j = i
        while j > 0 and a[j - 1] > v:
            a[j] = a[j - 1]
            j = j - 1
        a[j] = v
    return a


def compact_positive(x):
    out = np.zeros(x.shape[0])
    k = 0
    for i in range(x.shape[0]):
        if x[i] > 0:
            out[k] = x[i]
            k += 1
    return out, k


def split_by_sign(x):
    n = len(x)
    neg = np.empty(n, dtype=x.dtype)
    pos = np.empty(n, dtype=x.dtype)
    a = b = 0
    for v in x:
        if v < 0:
            neg[a] = v
            a = a + 1
        else:
            pos[b] = v
            b += 1
    return neg[:a], pos[:b]


def pairs_below(d, t):
    n = d.shape[0]
    rows = np.zeros(n * n, dtype=np.int64)
    m = 0
    for i in range(n):
        for j in range(n):
            if d[i, j] < t:
                rows[m] = i
                m += 1
    return rows[:m], m
