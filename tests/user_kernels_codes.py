"""Ciphers, checksums, compressors and generators on unsigned integers (arrays, whose arithmetic wraps), written as their users
write them: TEA/XTEA rounds on uint32 pairs, the RC4 key schedule and keystream on uint8 state,
table-driven CRC-32C and CRC-8, an LZ77 longest-match search, Huffman code lengths from byte
frequencies, xoshiro256** on uint64 streams and a run-length decoder."""

import numpy as np


def tea_encrypt(blocks, key, rounds=32):
    v0 = blocks[:, 0].copy()
    v1 = blocks[:, 1].copy()
    k0, k1, k2, k3 = key[0], key[1], key[2], key[3]
    s = 0
    for _ in range(rounds):
        s = (s + 0x9E3779B9) & 0xFFFFFFFF
        v0 += ((v1 << 4) + k0) ^ (v1 + np.uint32(s)) ^ ((v1 >> 5) + k1)
        v1 += ((v0 << 4) + k2) ^ (v0 + np.uint32(s)) ^ ((v0 >> 5) + k3)
    out = np.empty_like(blocks)
    out[:, 0] = v0
    out[:, 1] = v1
    return out


def xtea_encrypt(v, key, num_rounds=32):
    v0 = v[:, 0].copy()
    v1 = v[:, 1].copy()
    s = 0
    delta = 0x9E3779B9
    for _ in range(num_rounds):
        v0 += (((v1 << 4) ^ (v1 >> 5)) + v1) ^ np.uint32((s + int(key[s & 3])) & 0xFFFFFFFF)
        s = (s + delta) & 0xFFFFFFFF
        v1 += (((v0 << 4) ^ (v0 >> 5)) + v0) ^ np.uint32((s + int(key[(s >> 11) & 3])) & 0xFFFFFFFF)
    return np.stack([v0, v1], axis=1)


def rc4_keystream(key, n):
    S = np.arange(256, dtype=np.uint8)
    j = 0
    for i in range(256):
        j = (j + int(S[i]) + int(key[i % len(key)])) % 256
        S[i], S[j] = S[j], S[i]
    out = np.empty(n, dtype=np.uint8)
    i = j = 0
    for k in range(n):
        i = (i + 1) % 256
        j = (j + int(S[i])) % 256
        S[i], S[j] = S[j], S[i]
        out[k] = S[(int(S[i]) + int(S[j])) % 256]
    return out


def _crc32c_table():
    table = np.zeros(256, dtype=np.uint32)
    for i in range(256):
        c = np.uint32(i)
        for _ in range(8):
            if c & 1:
                c = (c >> np.uint32(1)) ^ np.uint32(0x82F63B78)
            else:
                c = c >> np.uint32(1)
        table[i] = c
    return table


def crc32c(data):
    table = _crc32c_table()
    crc = np.uint32(0xFFFFFFFF)
    for b in data:
        crc = table[(crc ^ b) & 0xFF] ^ (crc >> np.uint32(8))
    return crc ^ np.uint32(0xFFFFFFFF)


def crc8_blocks(blocks, poly=0x07):
    out = np.zeros(blocks.shape[0], dtype=np.uint8)
    for r in range(blocks.shape[0]):
        crc = 0
        for b in blocks[r]:
            crc ^= int(b)
            for _ in range(8):
                if crc & 0x80:
                    crc = ((crc << 1) ^ poly) & 0xFF
                else:
                    crc = (crc << 1) & 0xFF
        out[r] = crc
    return out


def lz77_matches(data, window=64, max_len=16):
    n = len(data)
    lengths = np.zeros(n, dtype=np.int32)
    offsets = np.zeros(n, dtype=np.int32)
    for i in range(1, n):
        best_len, best_off = 0, 0
        for j in range(max(0, i - window), i):
            k = 0
            while k < max_len and i + k < n and data[j + k] == data[i + k]:
                k += 1
            if k > best_len:
                best_len, best_off = k, i - j
        lengths[i] = best_len
        offsets[i] = best_off
    return lengths, offsets


def huffman_code_lengths(data):
    freq = np.bincount(data, minlength=256).astype(np.float64)
    weight = freq.copy()
    alive = freq > 0
    parent = np.full(511, -1)
    node_of = np.arange(256)
    next_node = 256
    while alive.sum() > 1:
        w = np.where(alive, weight, np.inf)
        a = np.argmin(w)
        w[a] = np.inf
        b = np.argmin(w)
        parent[node_of[a]] = next_node
        parent[node_of[b]] = next_node
        weight[a] += weight[b]
        alive[b] = False
        node_of[a] = next_node
        next_node += 1
    lengths = np.zeros(256, dtype=np.int64)
    for s in range(256):
        if freq[s] == 0:
            continue
        node, depth = s, 0
        while parent[node] != -1:
            node = parent[node]
            depth += 1
        lengths[s] = depth
    return freq, lengths


def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


def xoshiro256ss(state, n):
    s0, s1, s2, s3 = state[0].copy(), state[1].copy(), state[2].copy(), state[3].copy()
    out = np.empty((n, state.shape[1]), dtype=np.uint64)
    for i in range(n):
        out[i] = _rotl(s1 * np.uint64(5), 7) * np.uint64(9)
        t = s1 << np.uint64(17)
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = _rotl(s3, 45)
    return out


def rle_decode(values, counts):
    out = np.empty(int(counts.sum()), dtype=values.dtype)
    pos = 0
    for v, c in zip(values, counts):
        out[pos:pos + c] = v
        pos += c
    return out
