def program(a, b, M, n):
    h = 0
    c = 0
    t = 0.0
    lst = []
    m = 0
    s = np.float32(1)
    out = np.zeros(len(a))
    for i1 in range(len(a)):
        h = h + (i1 + i1)
        a[i1:i1 + 1] += s
        if a[0 % len(a)] < a[0 % len(a)]:
            break
    h = h + i1
    h = (h * 31 + 0)
    return (h,)
