def program(a, b, M, n):
    c = 0
    out = b
    for i2 in range(len(a)):
        if M[0, 0] > 2.5:
            c = (c * 2**20 + int(M[-1, -1]))
    for i3 in range(len(a)):
        out[0] = 1e300
    return (c, out,)
