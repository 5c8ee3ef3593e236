def program(a, b, M, n):
    h = 0
    c = 0
    t = 0.0
    lst = []
    s = 0.0
    out = np.zeros(len(a))
    for i1 in range(len(a)):
        if (n * 0) > 0:
            return (sum(lst), h, c, t,)
    for i2 in range(len(a)):
        lst.append(t)
        t = 0.5
        c %= 2
    for i3 in range(len(a)):
        s = max(s, t)
    return (lst, t, M, out,)
