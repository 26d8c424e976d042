"""Reductions with a monoid: rows or columns of a matrix to a vector, a whole
matrix or vector to a scalar (the monoid's identity when empty)."""
import math

import numpy as np

from ..results import DenseVectorResult, SparseResult
from .common import as_monoid, check_replace, check_user_op, finish, prepare


def reduce_rowwise(A, monoid, *, mask=None, accum=None, replace=False, out=None):
    """``w(i) = add_j A(i, j)`` over the stored entries of row i; rows
    without entries have no entry in w."""
    return _reduce_lines("reduce_rowwise", A, monoid, mask, accum, replace, out, rows=True)


def reduce_columnwise(A, monoid, *, mask=None, accum=None, replace=False, out=None):
    """``w(j) = add_i A(i, j)``."""
    return _reduce_lines("reduce_columnwise", A, monoid, mask, accum, replace, out, rows=False)


def _reduce_lines(what, A, monoid, mask, accum, replace, out, rows):
    monoid = as_monoid(monoid, what)
    check_replace(replace, what)
    n = A.nrows if rows else A.ncols
    accum = prepare(what, [("the matrix", A)], out, (n,), True, mask, accum)
    be = A._be
    check_user_op(monoid, be, what)
    dt = monoid.out_dtype(A.dtype)
    T = _iso_lines(A, monoid, np.dtype(dt), be, rows)
    if T is not None:
        return finish(out, T, dt, (n,), be, mask, accum, replace, True)
    ip, ix, v = A._csr(True) if rows else A._csc_arrays(True)
    lens = (ip[1:] - ip[:-1]).astype(np.int64)
    nonempty = be.xp.flatnonzero(lens > 0)
    starts = ip[:-1].astype(np.int64)[nonempty]
    red = be.segment_reduce(monoid, be.cast(v, dt), starts) if starts.shape[0] else \
        be.zeros(0, dt)
    return finish(out, SparseResult(nonempty.astype(np.int64), red), dt, (n,), be, mask, accum,
                  replace, True)


def _iso_lines(A, monoid, dt, be, rows):
    """The reduction of every row (column) of an iso matrix in closed form
    from the line lengths alone -- O(n), no value array, no transpose and
    nothing that waits on the device: a dense result, present where the line
    has an entry.  With k copies of the value v (cast to the output type):
    min, max, any, lor, land give v; plus gives k v where that is exactly
    the sum in any order (integers: both wrap the same way; floats: when
    every partial sum j v, j <= nvals, is exact); times gives v for v in
    {0, 1} (not -0.0).  None for every other case (the general path runs)."""
    v = _iso_value(A, monoid, dt)
    if v is None:
        return None
    name = monoid.name
    ptr = A._line_ptr(rows)
    lens = ptr[1:] - ptr[:-1]
    n = lens.shape[0]
    if name == "plus" and v != 1:
        vals = lens.astype(dt) * dt.type(v)         # wraps as repeated addition does
    elif name == "plus":
        vals = lens.astype(dt)
    else:
        vals = be.full(n, v, dt)
    return DenseVectorResult(vals, lens > 0)


def _iso_value(A, monoid, dt):
    """The value v of the iso matrix ``A`` cast to ``dt`` when a reduction
    of any part of it with ``monoid`` has a closed form in the count k of
    its entries (see :func:`_iso_lines`), else None."""
    if monoid.is_user or A.form != "sparse" or not A.iso:
        return None
    name = monoid.name
    if name not in ("min", "max", "any", "lor", "land", "plus", "times") or dt.kind == "c":
        return None
    with np.errstate(all="ignore"):
        v = np.asarray(A.iso_value).astype(dt)[()]
    if name == "times" and not (v == 1 or (v == 0 and not np.signbit(v))):
        return None
    if name == "plus" and dt.kind == "f" and not _exact_multiples(v, A.nvals, dt):
        return None
    return v


def _iso_scalar(A, monoid, dt):
    """The reduction of every entry of the iso matrix ``A`` (at least one)
    in closed form, as :func:`_iso_lines` for one line of nvals entries: a
    NumPy scalar of ``dt``, computed on the host (no device array, no
    read); None where there is none."""
    v = _iso_value(A, monoid, dt)
    if v is None:
        return None
    if monoid.name != "plus":
        return v
    with np.errstate(all="ignore"):             # (integers wrap as repeated addition does)
        return (np.asarray([A.nvals]).astype(dt) * np.asarray([v], dtype=dt))[0]


def _exact_multiples(v, count, dt):
    """True when j * v is exact in the float type ``dt`` for every j <= count
    (so a sum of up to ``count`` copies of v is the same in any order)."""
    if not np.isfinite(v):
        return False
    if v == 0:
        return True
    fi = np.finfo(dt)
    if abs(float(v)) * count >= float(fi.max):
        return False
    mant, _ = math.frexp(abs(float(v)))
    m = int(mant * (1 << 53))                   # v's significand as an integer
    bits = 53 - ((m & -m).bit_length() - 1)     # its significant bits
    return bits + int(count).bit_length() <= fi.nmant + 1


def reduce_scalar(x, monoid):
    """Reduce every stored value of a Matrix or Vector to a Python scalar."""
    monoid = as_monoid(monoid, "reduce")
    be = x._be
    check_user_op(monoid, be, "reduce")
    dt = monoid.out_dtype(x.dtype)
    if not x._is_vector and x.form == "sparse" and x.iso and x.nvals:
        r = _iso_scalar(x, monoid, np.dtype(dt))
        if r is not None:
            return r.item()
    view = x._lend() if x._is_vector else None
    present = None
    if isinstance(view, DenseVectorResult) and view.present is None:
        vals = view.vals                # every position stored
    elif be.dense_vectors and isinstance(view, DenseVectorResult):
        # a dense vector with holes: the reduction skips them itself instead
        # of listing the entries (listing waits on the device to size the list)
        vals, present = view.vals, view.present
    else:
        _, vals = x._keys_vals()
    r = be.reduce(monoid, vals, dt, present=present)
    return r.item() if hasattr(r, "item") else r
