def program(a, b, M, n):
    s = 0
    out = np.zeros(len(a))
    s *= math.atan2(0.0, 3.0)
    for i7 in range(1, M.shape[1]):
        s = max(s, out[0])
    return (s,)
