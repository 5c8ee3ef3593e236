def program(a, b, M, n):
    h = 0
    c = 0
    t = 0.0
    lst = []
    s = 0
    out = np.zeros(len(a))
    for i1 in range(len(a)):
        s += (a[math.floor(0.0) % len(a)] * -1)
        s = max(s, 0)
        h = (h * 31 + 0)
    return (s,)
