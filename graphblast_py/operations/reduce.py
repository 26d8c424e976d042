"""Reductions with a monoid: rows or columns of a matrix to a vector, a whole
matrix or vector to a scalar (the monoid's identity when empty)."""
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
    ip, ix, v = A._csr(True) if rows else A._csc_arrays(True)
    lens = (ip[1:] - ip[:-1]).astype(np.int64)
    nonempty = be.xp.flatnonzero(lens > 0)
    starts = ip[:-1].astype(np.int64)[nonempty]
    red = be.segment_reduce(monoid, be.cast(v, dt), starts) if starts.shape[0] else \
        be.zeros(0, dt)
    return finish(out, SparseResult(nonempty.astype(np.int64), red), dt, (n,), be, mask, accum,
                  replace, True)


def reduce_scalar(x, monoid):
    """Reduce every stored value of a Matrix or Vector to a Python scalar."""
    monoid = as_monoid(monoid, "reduce")
    be = x._be
    check_user_op(monoid, be, "reduce")
    dt = monoid.out_dtype(x.dtype)
    if not x._is_vector and x.form == "sparse" and x.iso and not monoid.is_user \
            and monoid.name in ("any", "min", "max", "lor", "land") and x.nvals:
        return be.cast(be.full(1, x._iso, x.dtype), dt)[0].item()
    view = x._view() if x._is_vector else None
    if isinstance(view, DenseVectorResult) and view.present is None:
        vals = view.vals                # every position stored
    elif (be.dense_vectors and isinstance(view, DenseVectorResult)
            and not monoid.is_user and monoid.name == "plus"):
        # a dense vector with holes: add zeros for the holes instead of
        # listing the entries (listing waits on the device to size the list)
        vals = be.xp.where(view.present, view.vals, view.vals.dtype.type(0))
    else:
        _, vals = x._keys_vals()
    r = be.reduce(monoid, vals, dt)
    return r.item() if hasattr(r, "item") else r
