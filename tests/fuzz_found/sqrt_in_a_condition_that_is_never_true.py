def program(a, b, M, n):
    h = 0
    c = 0
    t = 0.0
    lst = []
    s = 0
    out = np.zeros(len(a))
    for i1 in range(len(a)):
        if np.sqrt(a[i1]) < a[i1 % len(a)] and 0 % 3 == 1:
            break
        h = (h * 31 + 0)
    return (h,)
