"""Functions written as people write NumPy code, each with the arguments of one call for a
size `n` (`tests/test_dynamic_probes.py` calls each with 100 sizes): normalisations,
reshapes by a size read at run time, products, joins, differences and strides, new arrays
of an argument's shape, reductions over each axis, masks, loops over `len(x)`, slices by
int arguments and by sizes computed from the batch, in ranks 1 to 3."""

from __future__ import annotations

import numpy as np


def _rows(cols: int = 4):
    return lambda n, rng: (rng.standard_normal((n, cols)),)


def _pair(n, rng):
    return rng.standard_normal((n, 4)), rng.standard_normal((n, 4))


def _vector(n, rng):
    return (rng.standard_normal(n),)


def _cube(n, rng):
    return (rng.standard_normal((n, 3, 2)),)


def _long_rows(n, rng):
    """A fixed array and a bound that changes with `n` (inside it, and past its end)."""
    return rng.standard_normal((120, 3)), 2 + n


def _short_rows(n, rng):
    return rng.standard_normal((60, 3)), 4 + n % 50


# ---- the batch size changes ---------------------------------------------------------------

def standardise(x):
    return (x - x.mean(axis=0)) / (x.std(axis=0) + 1e-8)


def unit_rows(x):
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def flatten_rows(x):
    return x.reshape(x.shape[0], -1).sum(axis=1)


def reshape_by_len(x):
    n = len(x)
    return x.reshape(n, -1) * 2.0


def gram(x, w):
    return x.T @ w


def join_columns(x, y):
    return np.concatenate([x, y], axis=1)


def stack_pair(x, y):
    return np.stack([x, y]) * 0.5


def stack_columns(x, y):
    return np.stack([x, y], axis=1)


def hstack_pair(x, y):
    return np.hstack([x, y])


def differences(x):
    return x[1:] - x[:-1]


def every_other(x):
    return x[::2] * 2.0


def odd_rows_reversed(x):
    return x[-1::-2] + 1.0


def zeros_of_shape(x):
    return np.zeros(x.shape) + x


def zeros_like_scaled(x):
    return np.zeros_like(x) + 2.0 * x


def empty_filled(x):
    out = np.empty((len(x), 3))
    out[:] = x[:, :3]
    return out


def column_sums(x):
    return x.sum(axis=0)


def row_sums(x):
    return x.sum(axis=1)


def largest(x):
    return x.max()


def argmax_rows(x):
    return np.argmax(x, axis=0)


def argmax_columns(x):
    return x.argmax(axis=1)


def argmax_flat(x):
    return np.argmax(x)


def leaky_relu(x):
    return np.where(x > 0, x, 0.1 * x)


def outer_columns(x):
    return np.outer(x[:, 0], x[:, 1])


def batched_matmul(a, b):
    return a @ b


def loop_over_len(x):
    total = 0.0
    for i in range(len(x)):
        total += x[i, 0]
    return total


def roll_rows(x):
    return np.roll(x, 1, axis=0)


def roll_back(x):
    return np.roll(x, -2, axis=0) - x


def cumulative_rows(x):
    return np.cumsum(x, axis=0)


def masked_sum(x):
    return x[x > 0].sum()


def clipped_copy(x):
    y = x.copy()
    y[y < 0] = 0.0
    return y


def scaled(x, a):
    return x * a + 1.0


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def minus_last(x):
    return x - x[-1]


def first_rows(x):
    return x[0] + x[1]


def transposed_sum(x):
    return (x.T * 2.0).sum(axis=0)


def mean_by_len(x):
    return x.sum(axis=0) / len(x)


def ones_times(x):
    return np.ones(x.shape[0]) @ x


def row_std(x):
    return x.std(axis=1)


def clipped(x):
    return np.clip(x, -0.5, 0.5)


def positions(x):
    return x[:, 0] * np.arange(len(x))


def identity_product(x):
    return x @ np.eye(x.shape[1])


def pairwise(x):
    return x[:, None, :] - x[None, :, :]


def vector_norm(v):
    return v / np.sqrt((v * v).sum())


def vector_steps(v):
    return np.maximum(v[1:], v[:-1]) - v.mean()


def sorted_columns(x):
    return np.sort(x, axis=0) - np.argsort(x[:, 0])[:, None]


def ramp(x):
    return x[:, 0] * np.linspace(0, 1, len(x)) + np.linspace(-2.0, 3.0, x.shape[0],
                                                             endpoint=False)


def reversed_rows(x):
    return x[::-1] - x, x[:, ::-1]


def identity_of_len(x):
    return np.eye(len(x)) @ x + np.identity(x.shape[0]).sum(axis=1, keepdims=True)


def row_dots(x, y):
    return np.einsum("ij,ij->i", x, y) + np.einsum("ii->i", x @ y.T)


def chosen_columns(x):
    return np.take(x, [0, 2], axis=1) + x[:, [3, 1]] + np.roll(x, 1, axis=1)[:, :2]


def cube_means(x):
    return x.mean(axis=(1, 2)), x.mean(axis=0)


def cube_swap(x):
    return np.swapaxes(x, 1, 2) * 2.0


# ---- an int argument changes ----------------------------------------------------------------

def head(x, n):
    return x[:n].sum(axis=0)


def tail(x, n):
    return x[n:] * 2.0


def window(x, n):
    return x[n // 2:n].mean(axis=0)


def leading_columns(x, n):
    return x.T[:, :n] + 1.0


def last_k(x, k):
    return x[-k:].sum(axis=0)


def head_and_rest(x, n):
    return x[:n].sum() - x[n:].sum()


def head_returned(x, n):
    return x[:n]


def heads_added(x, n):
    return x[:n] + x[:n] * 2.0


# ---- a size computed from the batch ---------------------------------------------------------

def halves(x):
    k = len(x) // 2
    return x[:k].sum() - x[k:].sum()


def thirds(x):
    i = x.shape[0] // 3
    a, b = x[:i], x[i:]
    return a.sum() + b.mean()


def _from(n: int, make):
    """Sizes from `n` on: a view of a size below 2 at capture is specialised (see
    `variables/slices.py`), so these start where every view is 2 or more."""
    return lambda k, rng: make(n + k, rng)


PROBES = [
    (standardise, _rows()), (unit_rows, _rows()), (flatten_rows, _cube),
    (reshape_by_len, _cube),
    (gram, lambda n, rng: (rng.standard_normal((n, 4)), rng.standard_normal((n, 5)))),
    (join_columns, _pair), (stack_pair, _pair), (stack_columns, _pair), (hstack_pair, _pair),
    (differences, _rows()), (every_other, _rows()), (odd_rows_reversed, _rows()),
    (zeros_of_shape, _rows()), (zeros_like_scaled, _rows()), (empty_filled, _rows()),
    (column_sums, _rows()), (row_sums, _rows()), (largest, _rows()), (argmax_rows, _rows()),
    (argmax_columns, _rows()), (argmax_flat, _rows()), (leaky_relu, _rows()),
    (outer_columns, _rows()),
    (batched_matmul,
     lambda n, rng: (rng.standard_normal((n, 3, 4)), rng.standard_normal((n, 4, 2)))),
    (loop_over_len, _rows()), (roll_rows, _rows()), (roll_back, _from(2, _rows())),
    (cumulative_rows, _rows()), (masked_sum, _rows()), (clipped_copy, _rows()),
    (scaled, lambda n, rng: (rng.standard_normal((n, 4)), float(n))),
    (softmax, _rows()), (minus_last, _rows()), (first_rows, _rows()),
    (transposed_sum, _rows()), (mean_by_len, _rows()), (ones_times, _rows()),
    (row_std, _rows()), (clipped, _rows()), (positions, _rows()),
    (identity_product, _rows()), (pairwise, _rows(3)), (vector_norm, _vector),
    (vector_steps, _vector), (cube_means, _cube), (cube_swap, _cube),
    (sorted_columns, _rows()), (ramp, _rows()), (reversed_rows, _rows()),
    (identity_of_len, _rows()), (row_dots, _pair), (chosen_columns, _rows()),
    (head, _long_rows), (tail, _long_rows), (window, _short_rows),
    (leading_columns, _short_rows), (last_k, _short_rows), (head_and_rest, _short_rows),
    (head_returned, _short_rows), (heads_added, _short_rows),
    (halves, _from(4, _rows())), (thirds, _from(6, _rows())),
]


# ---- sizes that are sums and multiples of symbols (`2*s0`, `s0+2`, `4*s0`) ------------------

def join_rows(x, y):
    return np.concatenate([x, y])


def vstack_pair(x, y):
    return np.vstack([x, y])


def padded(x):
    return np.pad(x, 1)


def tiled(x):
    return np.tile(x, (2, 1))


def flat_dot(x):
    return x.ravel() @ x.ravel()


def running_total(x):
    return np.cumsum(x)


def repeated(x):
    return np.repeat(x, 3, axis=0) * 2.0


def repeated_flat(x):
    return np.repeat(x, 2)


def kron_eye(x):
    return np.kron(x, np.eye(2))


def hstack_vectors(x):
    return np.hstack([x, x[::-1]])


def stack_three(x):
    return np.vstack([x, 2 * x, x[:1]])


def strided_vector(x):
    return x[::2] * 2.0


def pad_rows_only(x):
    return np.pad(x, ((2, 3), (0, 0)))


def flat_norm(x):
    return np.linalg.norm(x.ravel())


def join_then_reduce(x, y):
    return np.concatenate([x, y], axis=0).mean(axis=0)


def ravel_then_pairs(x):
    return x.ravel().reshape(-1, 2).sum(axis=1)


def pad_vector_front(x):
    return np.pad(x.ravel(), (3, 0))


def join_three(x, y):
    return np.concatenate([x, y, x]) - 1.0


def tile_both(x):
    return np.tile(x, (2, 2))


def repeat_mean(x):
    return np.repeat(x, 2, axis=0).mean(axis=0)


def outer_flat(x):
    return np.outer(x.ravel(), np.ones(2))


def flat_cumsum_last(x):
    return np.cumsum(x.ravel())[-1]


def vstack_row(x):
    return np.vstack([x, np.zeros(4)])


def appended(x):
    return np.append(x, 1.0)


def flat_sorted(x):
    return np.sort(x.ravel())


def column_stack_flat(x):
    return np.column_stack([x.ravel(), x.ravel() ** 2])


def pad_filled(x):
    return np.pad(x, 2, mode="constant", constant_values=-1.0) * 2


def flat_max_min(x):
    f = x.flatten()
    return f.max() - f.min()


def frobenius(x, y):
    return np.einsum("ij,ij", x, y)


def flat_outer_einsum(x):
    return np.einsum("ij,kl->ijkl", x, x[:2]).reshape(len(x) * 4, -1).sum(axis=1)


def smoothed(x):
    return np.convolve(x, np.ones(3) / 3, mode="valid")


def convolved_full(x):
    return np.convolve(x, np.array([1.0, -1.0]))


def convolved_same(x):
    return np.convolve(x, np.array([0.25, 0.5, 0.25]), mode="same")


def kernel_first(x):
    return np.convolve(np.array([1.0, 2.0, 3.0, 4.0]), x)


def flat_mean_by_size(x):
    f = x.reshape(-1)
    return (f * f).sum() / f.size


def scaled_by_flat_len(x):
    f = x.ravel()
    return f * len(f)


def joined_mean_by_len(x, y):
    z = np.concatenate([x, y])
    return z.sum(axis=0) / len(z) + z.shape[0]


def padded_shape(x):
    return np.pad(x, 1).shape


def chosen_rows(x):
    return x[np.array([0, 1, 0, -1])] * 2.0


def row_of_largest(x):
    return x[np.argmax(x[:, 0])]


def sorted_by_first_column(x):
    return x[np.argsort(x[:, 0])]


def picked_columns(x):
    return x[:, np.array([[0, 3], [1, 2]])].sum(axis=-1)


PROBES += [
    (chosen_rows, _rows()), (row_of_largest, _rows()), (sorted_by_first_column, _rows()),
    (picked_columns, _rows()),
    (flat_mean_by_size, _rows()), (scaled_by_flat_len, _rows()), (joined_mean_by_len, _pair),
    (padded_shape, _rows()),
    (frobenius, _pair), (flat_outer_einsum, _from(2, _rows())),
    (smoothed, _from(4, _vector)), (convolved_full, _vector), (convolved_same, _vector),
    (kernel_first, _from(4, _vector)),
    (join_rows, _pair), (vstack_pair, _pair), (padded, _rows()), (tiled, _rows()),
    (flat_dot, _rows()), (running_total, _rows()), (repeated, _rows()),
    (repeated_flat, _rows()), (kron_eye, _rows(2)), (hstack_vectors, _vector),
    (stack_three, _rows()), (strided_vector, _vector), (pad_rows_only, _rows()),
    (flat_norm, _rows()), (join_then_reduce, _pair), (ravel_then_pairs, _rows()),
    (pad_vector_front, _rows()), (join_three, _pair), (tile_both, _rows()),
    (repeat_mean, _rows()), (outer_flat, _rows()), (flat_cumsum_last, _rows()),
    (vstack_row, _rows()), (appended, _rows()), (flat_sorted, _rows()),
    (column_stack_flat, _rows()), (pad_filled, _vector), (flat_max_min, _rows()),
]


# ---- what still compiles per size -----------------------------------------------------------

# (function, arguments, why it compiles once per size)
SPECIALISED = [
    (halves, _rows(), "a view of a size below 2 at capture (x[:1] for 3 rows) is specialised"),
]
