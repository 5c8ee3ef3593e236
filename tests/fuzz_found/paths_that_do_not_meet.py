def program(a, b, M, n):
    h = 0
    c = 0
    t = 0.0
    s = 0
    out = np.zeros(len(a))
    if int(a[0 % len(a)]) % 3 == 0 and (a[(0 ** 2) % len(a)] + 0.5) < (a[0 % len(a)] + -1):
        b[0] = s
    else:
        s += (int((out[0] - a[-1])) ** 3)
        for u3, v2 in zip(a, b):
            if a[1:].max() > a[-1]:
                break
            for u6, v5 in zip(a, b):
                if int(u3) % 3 == 0 and M.shape[1] & 1:
                    return (t,)
                h = -5
            c = (max(0, c) // round(float(b[1:].sum())))
    for i7 in range(1, M.shape[1]):
        if a[0] == a[(3 ** 2) % len(a)]:
            break
        if (a[0] - -1) == a[0]:
            a[-1], a[0] = a[0], a[-1]
            t += t
        else:
            for row10 in M:
                if t < 1e-3:
                    return (c,)
                if (t ** 2.0) < 0.5 or (~i7) % 3 == 0:
                    out[int(np.abs(a[0])) % len(a)], out[-1] = out[-1], out[int(np.abs(a[0])) % len(a)]
                    if M[-1, M.shape[1] - 1 - i7] == a[-1]:
                        continue
                else:
                    a[min(-5, h) % len(a)], a[0] = a[0], a[min(-5, h) % len(a)]
                if a[(int(b[1:].sum()) ** 3) % len(a)] != b[1:].min() and i7 % 3 == 1:
                    a[0], a[(i7 ** 2) % len(a)] = a[(i7 ** 2) % len(a)], a[0]
                elif (a[-1] - np.max(row10)) != b[0]:
                    t += math.atan(math.sqrt(-1.5))
                    s += (3 ** 2)
            if i7 & 1:
                break
    return (out[-1:], h, t, s,)
