def program(a, b, M, n):
    h = 0
    s = np.float32(1)
    for u3, v2 in zip(a, b):
        h = (h * 31 + (0 ** 2))
    s += (1e300 + float(a[0 % len(a)]))
    return (h, s)
