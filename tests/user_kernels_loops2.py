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
