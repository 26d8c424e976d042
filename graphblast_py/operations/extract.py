"""``extract``: w = u(I), C = A(I, J), and a row or column of A as a vector.

Index arguments: None or ``slice(None)`` (all), a slice, an int, or a list /
array of indices (duplicates allowed, any order); for a vector also a Vector
of indices (:func:`extract_by_vector`)."""
import numpy as np

from ..errors import InvalidValue
from ..indexing import parse_index
from ..results import DenseVectorResult, SparseResult
from .common import check_replace, finish, prepare


def vector_extract(u, indices, *, mask=None, accum=None, replace=False, out=None):
    """``w<mask> = accum(w, u(indices))``.  ``indices`` may also be a Vector of
    an integer type: then ``w`` has its size and positions, ``w(i) =
    u(indices(i))`` where ``indices`` has an entry at ``i`` and ``u`` one at
    ``indices(i)`` (connected components' grandparents ``gf = f(f)`` are
    ``f.extract(f)``: no index array is built, and on distributed vectors
    each worker reads only its block of ``indices``)."""
    from ..vector import Vector
    if isinstance(indices, Vector):
        return extract_by_vector(u, indices, mask=mask, accum=accum, replace=replace, out=out)
    be = u._be
    I, _ = parse_index(be, indices, u.size, "extract")
    n = u.size if I is None else I.shape[0]
    check_replace(replace, "extract")
    accum = prepare("extract", [("the vector", u)], out, (n,), True, mask, accum)
    if I is None:
        T = SparseResult(*u._sparse())
    elif u._form == "dense":
        uv, up = u._view()
        vals = uv[I]
        pres = None if up is None else up[I]
        T = DenseVectorResult(vals, pres)
    else:
        idx, vals = u._sparse()
        found, pos = be.locate(I, idx)
        k = be.xp.flatnonzero(found)
        T = SparseResult(k.astype(np.int64), vals[pos[k]])
    return finish(out, T, u.dtype, (n,), be, mask, accum, replace, True)


def extract_by_vector(u, iv, *, mask=None, accum=None, replace=False, out=None):
    """``w<mask> = accum(w, t)`` with ``t(i) = u(iv(i))`` where ``iv`` (a
    Vector of an integer type, of ``w``'s size) has an entry at ``i`` and
    ``u`` has one at ``iv(i)``.  Raises IndexOutOfBound naming the first
    position whose value is outside ``[0, u.size)``."""
    from ..errors import IndexOutOfBound
    from ..vector import check_index_vector
    be = u._be
    check_index_vector(iv, "extract")
    n = iv.size
    check_replace(replace, "extract")
    accum = prepare("extract", [("the vector", u), ("the index vector", iv)], out, (n,), True,
                    mask, accum)
    xp = be.xp
    if u.size == 0:                       # no position to read: iv must be empty
        if iv.nvals:
            raise IndexOutOfBound(f"extract: the index Vector has {iv.nvals} entries but the "
                                  "vector has size 0")
        return finish(out, SparseResult(be.zeros(0, np.int64), be.zeros(0, u.dtype)), u.dtype,
                      (n,), be, mask, accum, replace, True)
    if iv.form == "dense":
        # (lent: the index array is read here, not kept; a presence array
        # is kept by the result, so it is handed out)
        pos, (I, ip) = None, iv._dense(lend=True)
        if ip is not None:
            ip = iv._dense()[1]
            I = xp.where(ip, I, 0)            # absent positions read position 0
    else:
        pos, I = iv._sparse()
        ip = None
    vals = None
    if I.shape[0] and u.form == "dense":
        # the gather and the range check in one pass where the backend has
        # one (None: an index out of range, reported below, or no such pass)
        vals = be.take_checked(u._lend()[0], I)
    if vals is None and I.shape[0]:
        lo, hi = be.minmax(I)
        if lo < 0 or hi >= u.size:
            bad = (I < 0) | (I >= u.size)
            k = int(xp.argmax(bad))
            where = k if pos is None else int(pos[k])
            raise IndexOutOfBound(f"extract: the index Vector has the value {int(I[k])} at "
                                  f"position {where}, outside [0, {u.size})")
    if u.form == "dense":
        uv, up = u._lend()              # (read here; the result takes new arrays)
        if vals is None:
            vals = uv[I]
        found = None if up is None else up[I]
    else:
        idx, uvals = u._sparse()
        found, p = be.locate(I, idx)
        vals = uvals[p] if idx.shape[0] else be.zeros(I.shape[0], u.dtype)
    if pos is None:                       # dense index vector: a dense result
        if ip is not None:
            found = ip if found is None else found & ip
        T = DenseVectorResult(vals, found)
    elif found is None:
        T = SparseResult(pos.copy(), vals)
    else:
        k = xp.flatnonzero(found)
        T = SparseResult(pos[k], vals[k])
    return finish(out, T, u.dtype, (n,), be, mask, accum, replace, True)


def _map_columns(be, cols, J):
    """For stored column ids ``cols``: (which entries survive, their output
    columns) when column list J is selected (duplicates in J repeat)."""
    xp = be.xp
    order = be.argsort(J)
    Js = J[order]
    lo = xp.searchsorted(Js, cols, side="left")
    hi = xp.searchsorted(Js, cols, side="right")
    seg, off = be.expand(hi - lo)
    return seg, order[lo[seg] + off]


def matrix_extract(A, rows, cols, *, mask=None, accum=None, replace=False, out=None):
    """``C<mask> = accum(C, A(rows, cols))``; an int for exactly one of rows
    or cols gives a Vector (a row or a column of A)."""
    from ..matrix import _scalar
    be = A._be
    if _scalar(rows) and _scalar(cols):
        raise InvalidValue("extract: two integer indices select one element; use A[i, j]")
    if _scalar(rows) or _scalar(cols):
        from ..vector import Vector
        if _scalar(rows):
            line, other, n_other = rows, cols, A.ncols
            ip, ix, v = A._csr(True)
        else:
            line, other, n_other = cols, rows, A.nrows
            ip, ix, v = A._csc_arrays(True)
        from ..indexing import check_index
        i = check_index(line, A.nrows if _scalar(rows) else A.ncols, "extract index")
        lo, hi = int(ip[i]), int(ip[i + 1])
        tmp = Vector(A.dtype, n_other, device=A.device)
        tmp._set_sparse(ix[lo:hi].astype(np.int64), v[lo:hi])
        return vector_extract(tmp, other, mask=mask, accum=accum, replace=replace, out=out)
    I, _ = parse_index(be, rows, A.nrows, "extract rows")
    J, _ = parse_index(be, cols, A.ncols, "extract cols")
    m = A.nrows if I is None else I.shape[0]
    n = A.ncols if J is None else J.shape[0]
    check_replace(replace, "extract")
    accum = prepare("extract", [("the matrix", A)], out, (m, n), False, mask, accum)
    ip, ix, v = A._csr(True)
    if I is None:
        r = be.rows_of(ip, ix.shape[0])
        pos = be.arange(ix.shape[0])
    else:
        r, pos = be.gather_rows(ip, I)
    c = ix[pos].astype(np.int64)
    vals = v[pos]
    if J is not None:
        seg, c = _map_columns(be, c, J)
        r, vals = r[seg], vals[seg]
    keys = r * np.int64(n) + c
    order = be.argsort(keys)
    return finish(out, SparseResult(keys[order], vals[order]), A.dtype, (m, n), be, mask, accum,
                  replace, False)
