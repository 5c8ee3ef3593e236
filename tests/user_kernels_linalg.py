

def low_rank_approx(X, k):
    U, s, Vt = np.linalg.svd(X, full_matrices=False)
    approx = (U[:, :k] * s[:k]) @ Vt[:k]
    return approx, np.sum(s[k:] ** 2) / np.sum(s ** 2)
