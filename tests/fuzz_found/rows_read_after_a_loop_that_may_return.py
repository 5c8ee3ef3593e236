def program(a, b, M, n):
    h = 0
    for row8 in M:
        k12 = h
        while k12 > 0:
            k12 -= 1
            if a[0]:
                return (a,)
        for row15 in M:
            h = h | n
    return (h,)
