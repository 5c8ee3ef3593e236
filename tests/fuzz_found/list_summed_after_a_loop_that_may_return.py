def program(a, b, M, n):
    h = 0
    c = 0
    t = 0.0
    lst = []
    s = 0
    out = np.zeros(len(a))
    for i1 in range(len(a)):
        lst.append(math.sqrt(0.0))
        lst.append(math.sqrt(0.0))
    k2 = 0
    while k2 < len(a) and a[k2] > 0:
        k2 += 1
        if a[0 % len(a)] < a[0 % len(a)]:
            break
        h = 0
        if a[0 % len(a)] < a[0 % len(a)]:
            return (h,)
    return (h, sum(lst),)
