def program(a, b, M, n):
    h = 0
    c = 0
    t = 0.0
    lst = []
    s = 0.0
    out = np.zeros(len(a))
    for i1 in range(len(a)):
        h += 0
    for i2 in range(len(a)):
        a[i2], a[len(a) - 1 - i2] = a[len(a) - 1 - i2], a[i2]
        if math.sqrt(0.0) < 0.0:
            break
        if 0.0 < 0.0:
            break
    for i3, v4 in enumerate(a):
        for i5 in range(i3):
            h += 0
            k6 = 0
            while k6 < len(a) and a[k6] > 0:
                k6 += 1
                if a[len(a) - 1 - i3] > t:
                    break
                if math.expm1(t) < -1.5:
                    s *= t
                elif (k6 * 3.0) < 0.0:
                    s *= (np.exp(out[i5]) * 2)
                else:
                    if math.atan2(float((a[-1] * 2)), 0.5) < 0.5 or c % 3 == 0:
                        return (s,)
                    if t < 2.0 and (b[i3 - 1] - a[-1]) != a[k6]:
                        if len(a) & 1:
                            continue
                        if 31 & 1:
                            return (s, out, a,)
            h = h
    return (M,)
