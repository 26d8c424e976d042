"""The linear-key convention, written once.

A *keys* array holds the linear positions ``i * ncols + j`` of a matrix's
entries (``i`` for a vector).  :func:`split_keys` turns keys back into the
row and column indices; it uses only array operators (``//``, ``-``, ``>>``,
``&``), so it works unchanged on NumPy and CuPy arrays and on scalars.
"""
import numpy as np


def split_keys(keys, ncols):
    """Non-negative linear keys -> ``(rows, cols)`` for a matrix with ``ncols`` columns.

    ``rows = keys // ncols`` and ``cols = keys - rows * ncols`` (a shift and a
    mask when ``ncols`` is a power of two: the same numbers, cheaper).  With
    ``ncols == 0`` there can be no entries; both results are ``keys`` then.
    """
    n = int(ncols)
    if n == 0:
        return keys, keys
    if n & (n - 1) == 0:
        return keys >> np.int64(n.bit_length() - 1), keys & np.int64(n - 1)
    n = np.int64(n)
    rows = keys // n
    return rows, keys - rows * n
