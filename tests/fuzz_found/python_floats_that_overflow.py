def program(a, b, M, n):
    t = 0.0
    for i10 in range(12):
        for row13 in M:
            for i14 in range(len(a)):
                t = t * 1.5 + t
        t += float(M[-1, 0])
    return (t,)
