def program(a, b, M, n):
    h = 0
    c = 0
    t = 0.0
    s = 0
    out = np.zeros(len(a))
    if int(a[0 % len(a)]) % 3 == 0 and (a[(0 ** 2) % len(a)] + 0.5) < (a[0 % len(a)] + -1):
        out[0] -= math.exp(0.0)
    else:
        for i1 in range(M.shape[0]):
            if (a[-5 % len(a)] - -1) <= a[h % len(a)]:
                return (a, out,)
            t = t * 0.5 + float(a[i1 % len(a)])
            a[-1] *= h
        if (a[(3 ** 2) % len(a)] - 2) != 0:
            for i2 in range(0, len(a) - 1, 2):
                s += float((b[i2] + b[len(a) - 1 - i2]))
                if float(a[i2:i2 + 2].min()) < 0.0:
                    return (h, c, a, M,)
                if a[i2 + 1] < t:
                    if h % 3 == 1:
                        break
                elif (h // c) % 3 == 0 or round(float((out[i2 + 1] + M[-1, abs(1) % M.shape[1]]))) % 3 == 1:
                    t = t * 0.9 + math.sin(t)
                else:
                    if 31 & 1 and (float(a[i2:].max()) ** 0.5) < 0.5 and i2 % 3 == 1 or c % 3 == 1:
                        continue
                    c = (c * 1000003 + h)
            c += 2
            if (t * t) < 1e-3:
                b[c % len(a)] *= s
                t = t * 0.5 + 1e10
            else:
                b[-1] *= (len(a) ** 3)
        k3 = abs(h) % 20
        while k3 > 0:
            k3 -= 1
            c = (c * 1000003 + (c - c)) % 1000003
            for i4 in range(M.shape[0]):
                h <<= i4
            if math.atan(1e300) < 2.0:
                continue
    for i5 in range(len(a)):
        h = (h * 2**20 + 3)
        s += (31 + 1e300)
        t += t
    return (h, M, s,)
