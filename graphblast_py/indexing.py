"""Validation and normalisation of sizes, indices and index lists.

Everything here raises before any output is touched: negative or
out-of-range indices (:class:`IndexOutOfBound`), non-integer indices
(:class:`InvalidIndex`), wrong lengths (:class:`DimensionMismatch`).
"""
import numpy as np

from . import dtypes
from .errors import (DimensionMismatch, DomainMismatch, GraphBLASError, IndexOutOfBound,
                     InvalidIndex, InvalidValue)

MAX_DIM = 2**62


def check_size(n, what):
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
        raise InvalidValue(f"{what} must be a non-negative integer, got {n!r}")
    n = int(n)
    if n < 0:
        raise InvalidValue(f"{what} must be non-negative, got {n}")
    if n > MAX_DIM:
        raise InvalidValue(f"{what} {n} exceeds the largest supported dimension 2**62")
    return n


def check_index(i, n, what):
    if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)):
        raise InvalidIndex(f"{what} must be an integer, got {i!r}")
    i = int(i)
    if i < 0 or i >= n:
        raise IndexOutOfBound(f"{what} {i} is outside [0, {n})")
    return i


def parse_index(be, index, n, what):
    """Normalise an index argument to (int64 array on the device, is_all).

    Accepts None or ``slice(None)`` (all), a slice with non-negative bounds,
    an int, or a list/array of non-negative integers < n (duplicates allowed).
    """
    if index is None or (isinstance(index, slice) and index == slice(None)):
        return None, n
    if isinstance(index, slice):
        for part in ("start", "stop", "step"):
            v = getattr(index, part)
            if v is not None and (not isinstance(v, (int, np.integer)) or v < 0) and \
                    not (part == "step" and isinstance(v, (int, np.integer)) and v != 0):
                raise InvalidIndex(f"{what}: slice {part} must be a non-negative integer, "
                                   f"got {v!r}")
        start, stop, step = index.indices(n)
        return be.xp.arange(start, stop, step, dtype=np.int64), None
    if isinstance(index, (int, np.integer)) and not isinstance(index, (bool, np.bool_)):
        return be.xp.asarray([check_index(index, n, what)], dtype=np.int64), None
    arr = _int_array(be, index, what)
    if arr.ndim != 1:
        raise InvalidIndex(f"{what}: index list must be 1-D, got shape {arr.shape}")
    if arr.shape[0]:
        lo, hi = int(arr.min()), int(arr.max())
        if lo < 0:
            raise IndexOutOfBound(f"{what}: index {lo} is negative")
        if hi >= n:
            raise IndexOutOfBound(f"{what}: index {hi} is outside [0, {n})")
    return arr, None


def _int_array(be, x, what):
    try:
        a = be.asarray(x)
    except GraphBLASError:
        raise
    except (TypeError, ValueError) as e:
        raise InvalidIndex(f"{what}: cannot read indices from {type(x).__name__}: {e}") from None
    if a.dtype.kind not in "iu":
        if a.shape[0] == 0 if a.ndim == 1 else False:
            return a.astype(np.int64)
        if a.dtype.kind == "f" and a.size and bool(be.xp.all(be.xp.floor(a) == a)):
            raise InvalidIndex(f"{what}: indices must have an integer dtype, got {a.dtype} "
                               "(convert with .astype(int) if the values are whole)")
        raise InvalidIndex(f"{what}: indices must be integers, got dtype {a.dtype}")
    if a.dtype.kind == "u" and a.dtype.itemsize == 8 and a.size and int(a.max()) >= 2**63:
        raise IndexOutOfBound(f"{what}: index {int(a.max())} is too large")
    return a.astype(np.int64, copy=False)


def coo_arrays(be, index_lists, values, dtype, what, maxima=None):
    """Validate COO input: returns ([int64 index arrays], values array, dtype).
    With a list ``maxima``, each index array's largest index (None when
    empty) is appended to it: its minimum and maximum are read together (on
    a GPU one wait), and the caller checks the maximum against the size."""
    idx = [_int_array(be, a, f"{what} indices") for a in index_lists]
    n = idx[0].shape[0] if idx[0].ndim == 1 else -1
    for k_arr, a in enumerate(idx):
        if a.ndim != 1:
            raise InvalidIndex(f"{what}: index arrays must be 1-D, got shape {a.shape}")
        if a.shape[0] != n:
            raise DimensionMismatch(f"{what}: index arrays have different lengths "
                                    f"({n} and {a.shape[0]})")
        if maxima is not None:
            lo, hi = be.minmax(a) if n else (0, None)
            maxima.append(hi)
        else:
            lo = int(a.min()) if n else 0
        if lo < 0:
            k = int(be.xp.argmax(a < 0))
            raise IndexOutOfBound(f"{what}: negative index {int(a[k])} at position {k} "
                                  f"(index array {k_arr})")
    if np.ndim(values) == 0 and not hasattr(values, "shape") or \
            (hasattr(values, "shape") and values.shape == ()):
        dt = dtypes.lookup(dtype) if dtype is not None else dtypes.of_value(
            values.item() if hasattr(values, "item") else values)
        vals = be.full(n, dtypes.cast_scalar(values, dt, f"{what} value"), dt)
    else:
        try:
            vals = be.asarray(values)
        except GraphBLASError:
            raise
        except (TypeError, ValueError) as e:
            raise InvalidValue(f"{what}: cannot read values: {e}") from None
        if vals.dtype.kind == "c":
            raise DomainMismatch(f"{what}: complex values are not supported")
        if vals.dtype.kind not in "biuf":
            raise DomainMismatch(f"{what}: values of dtype {vals.dtype} are not numeric")
        dt = dtypes.lookup(dtype if dtype is not None else vals.dtype)
        if vals.ndim != 1 or vals.shape[0] != n:
            raise DimensionMismatch(f"{what}: {n} indices but values have shape {vals.shape}")
        vals = be.cast(vals, dt)
    return idx, vals, dt
