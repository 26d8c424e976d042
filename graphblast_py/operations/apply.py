"""``apply`` (unary, bound binary, index-unary) and ``select``.

Both keep the structure of the input (``select`` drops entries); values of an
iso matrix are computed once when the operator does not depend on position.
"""
import numpy as np

from .. import dtypes
from ..errors import InvalidValue
from ..mask import Mask
from ..vector import Vector
from ..backend.keys import split_keys
from ..operators import predefined
from ..operators.core import BinaryOp, IndexUnaryOp, Monoid, UnaryOp
from ..results import CSRResult, DenseMatrixResult, DenseVectorResult, SparseResult
from .common import check_replace, check_user_op, finish, plain_vector_call, prepare
from . import relax


def _resolve_apply_op(op):
    if isinstance(op, str):
        for kind in ("unary", "indexunary", "binary"):
            ns = getattr(predefined, kind)
            if op in ns:
                return ns[op]
        raise InvalidValue(f"apply: no unary, index-unary or binary operator named {op!r}")
    if isinstance(op, Monoid):
        return op.op
    return op


def _positions(x):
    """(keys, values, i, j) of the stored entries."""
    keys, vals = x._keys_vals()
    if x._is_vector:
        return keys, vals, keys, np.int64(0)
    i, j = split_keys(keys, x.ncols)
    return keys, vals, i, j


_PLAIN_OPS = (UnaryOp, BinaryOp, IndexUnaryOp)


def apply(x, op, *, left=None, right=None, thunk=None, mask=None, accum=None, replace=False,
          out=None):
    """``out<mask> = accum(out, f(x))`` with f unary, ``op(left, x)``,
    ``op(x, right)`` or index-unary ``op(x, i, j, thunk)``."""
    if (op.__class__ is UnaryOp and mask.__class__ is Mask and not mask.structure
            and not mask.complement and out is None and accum is None and replace is False
            and left is None and right is None and thunk is None and x.__class__ is Vector
            and x._form == "sparse" and not op.is_user):
        # ``f(x) <m.V>`` with m stored at x's own keys (SSSP's ``f = t
        # <better.V>``, better computed at t.S): the general path's result
        # -- the operator on x's values, the entries where m is truthy --
        # without its set-up (every check it makes would pass: a predefined
        # unary operator, a Vector mask of x's size on x's device)
        if x._spec is not None:
            # a round of a shortest-path chain a kernel run already answers
            # (operations/relax.py: the mask is then the run's comparison of
            # x, so a Vector of x's size on x's device)
            r = relax.select(x, op, mask.parent)
            if r is not None:
                return r
        r = _unary_at_own_value_mask(x, op, mask.parent)
        if r is not None:
            return r
    if not (op.__class__ in _PLAIN_OPS and not op.is_user
            and plain_vector_call(x, out, mask, accum, replace)):
        # (else the checks below would raise nothing and resolve no accum)
        op = _resolve_apply_op(op)
        check_replace(replace, "apply")
        accum = prepare("apply", [("the input", x)], out, x.shape, x._is_vector, mask, accum)
        check_user_op(op, x._be, "apply")
    be = x._be
    if isinstance(op, UnaryOp):
        if left is not None or right is not None or thunk is not None:
            raise InvalidValue("apply: a UnaryOp takes no left/right/thunk")
        dt = op.out_dtype(x.dtype)
        f = lambda vals: be.unary(op, vals, dt)  # noqa: E731
    elif isinstance(op, BinaryOp):
        if (left is None) == (right is None) or thunk is not None:
            raise InvalidValue(f"apply with the BinaryOp {op.name!r} needs exactly one of "
                               "left= or right= (the bound scalar)")
        s = _scalar(left if left is not None else right, "apply")
        if op.positional is not None:
            return _apply_positional(x, op, left is not None, out, mask, accum, replace)
        dt = op.out_dtype(*((s.dtype, x.dtype) if left is not None else (x.dtype, s.dtype)))
        f = (lambda vals: be.binary(op, s, vals, dt)) if left is not None else \
            (lambda vals: be.binary(op, vals, s, dt))
    elif isinstance(op, IndexUnaryOp):
        if left is not None or right is not None:
            raise InvalidValue("apply: an IndexUnaryOp takes thunk=, not left/right")
        th = _scalar(0 if thunk is None else thunk, "apply")
        dt = op.out_dtype(x.dtype, th.dtype)
        if x._is_vector and x._form == "dense" and be.dense_index_apply:
            # a dense vector stays dense (a full one full: connected
            # components' f(v) = v then runs every later operation on full
            # vectors): the operator over all positions, x's presence kept
            xv, xpres = x._view()
            v = _index_values(be, op, xv, be.arange(x.size), np.int64(0), th, dt, x.size)
            return finish(out, DenseVectorResult(v, xpres), dt, x.shape, be, mask, accum,
                          replace, True)
        keys, vals, i, j = _positions(x)
        v = _index_values(be, op, vals, i, j, th, dt, keys.shape[0])
        return finish(out, SparseResult(keys, v), dt, x.shape, be, mask, accum, replace,
                      x._is_vector)
    else:
        raise InvalidValue(f"apply: expected a UnaryOp, BinaryOp or IndexUnaryOp, got {op!r}")
    if not x._is_vector and x.form == "sparse" and x.iso:
        # iso: one value in, one value out
        one = f(be.full(1, x._iso, x.dtype))
        iso = be.to_host(one)[0]
        ip, ix, _ = x._csr(False)
        T = CSRResult(ip, ix, None, iso)
    elif x._is_vector and x._form == "dense":
        xv, xp_ = x._view()         # (the result shares the presence array)
        if xp_ is None:
            T = DenseVectorResult(f(xv), None)
        else:
            with np.errstate(all="ignore"):     # positions without an entry hold anything
                T = DenseVectorResult(f(xv), xp_)
    elif not x._is_vector and x.form == "dense":
        T = DenseMatrixResult(f(x._dvals.reshape(-1)).reshape(x.shape), x._dpres)
    elif not x._is_vector:
        ip, ix, v = x._csr()
        T = CSRResult(ip, ix, f(v), None)
    else:
        idx, v = x._sparse()
        T = SparseResult(idx, f(v))
    w = finish(out, T, dt, x.shape, be, mask, accum, replace, x._is_vector)
    if (x._is_vector and x._spec is not None and out is None and accum is None
            and mask.__class__ is Mask and not mask.structure and not mask.complement
            and isinstance(op, UnaryOp)):
        relax.note_select(x, op, mask.parent, w)                # (operations/relax.py)
    return w


def _unary_at_own_value_mask(x, op, m):
    """``x.apply(op, mask=m.V)`` for a sparse ``x`` whose index array is
    also ``m``'s (m sparse, stored): a new vector of op(x) where m's value
    is truthy, through the same backend calls as the output rule's branch
    for it (``compress_truthy``); None where that does not hold."""
    if m.__class__ is not Vector or m._be is not x._be or m.size != x.size:
        return None
    kx = x._idx
    own = m._values_at_own_keys(kx)
    if own is None:
        return None
    be = x._be
    dt = op.out_dtype(x.dtype)
    wdt = dtypes.lookup(dt)
    r = be.compress_truthy(kx, be.cast(be.unary(op, x._vals, dt), wdt), own)
    if r is None:
        return None
    f = Vector._new_sparse(wdt, x.size, be, r[0], r[1])
    if x._spec is not None:
        relax.note_select(x, op, m, f)
    return f


def _apply_positional(x, op, bound_left, out, mask, accum, replace):
    # firsti(x, s) = row of x ; secondi(s, x) = row of x ; ...j = column
    keys, vals, i, j = _positions(x)
    src = i if op.positional.endswith("i") else j
    be = x._be
    dt = dtypes.INT64
    v = be.cast(be.xp.broadcast_to(be.xp.asarray(src), keys.shape), dt)
    return finish(out, SparseResult(keys, v.copy()), dt, x.shape, be, mask, accum, replace,
                  x._is_vector)


def select(x, op, thunk=None, *, mask=None, accum=None, replace=False, out=None):
    """Keep the entries where the index-unary predicate ``op(x, i, j, thunk)``
    is true (``op`` may be a name: "tril", "triu", "diag", "offdiag", ">", ...)."""
    if isinstance(op, str):
        op = predefined.lookup("indexunary", op)
    if not isinstance(op, IndexUnaryOp):
        raise InvalidValue(f"select: expected an IndexUnaryOp or its name, got {op!r}")
    check_replace(replace, "select")
    accum = prepare("select", [("the input", x)], out, x.shape, x._is_vector, mask, accum)
    be = x._be
    check_user_op(op, be, "select")
    th = _scalar(0 if thunk is None else thunk, "select")
    if not x._is_vector and x.form == "sparse":
        # a row kernel where the backend has one (no keys of the entries)
        T = be.select_csr(op, x._indptr, x._indices, x._vals, x._iso, x.ncols, th)
        if T is not None:
            return finish(out, T, x.dtype, x.shape, be, mask, accum, replace, False)
    if x._is_vector and x._form == "dense" and be.dense_index_apply and not op.is_user:
        # a dense vector stays dense: the (predefined) predicate over all
        # positions, the result present where x is and it holds -- no
        # listing of the entries, nothing that waits on the device
        # (PageRank's nonzero degrees at the start).  A user's predicate
        # runs on the entries only (the positions without one hold anything)
        xv, xpres = x._view()
        keep = _index_values(be, op, xv, be.arange(x.size), np.int64(0), th, dtypes.BOOL,
                             x.size)
        if xpres is not None:
            keep = keep & xpres
        return finish(out, DenseVectorResult(xv, keep), x.dtype, x.shape, be, mask, accum,
                      replace, True)
    keys, vals, i, j = _positions(x)
    keep = _index_values(be, op, vals, i, j, th, dtypes.BOOL, keys.shape[0])
    T = SparseResult(keys[keep], vals[keep])
    return finish(out, T, x.dtype, x.shape, be, mask, accum, replace, x._is_vector)


def _index_values(be, op, vals, i, j, th, dt, n):
    """``op(x, i, j, thunk)`` at n positions (x's values ``vals`` there, read
    only when the operator reads x) as an array of ``dt``; an operator that
    reads neither x nor the position gives one value, broadcast to n."""
    v = be.indexunary(op, vals if op.reads_x else None, i, j, th, dt)
    if not hasattr(v, "shape") or v.shape != (n,):
        v = be.xp.broadcast_to(be.xp.asarray(v, dtype=dt), (n,)).copy()
    return v


def _scalar(s, what):
    """A bool, int or float (Python or NumPy) as a NumPy scalar: a Python
    int as int64, or as uint64 above int64's range; InvalidValue for an int
    beyond uint64's and for anything else."""
    if isinstance(s, (bool, np.bool_)):
        return np.bool_(s)
    if isinstance(s, (int, np.integer, float, np.floating)):
        if isinstance(s, np.generic):
            return np.asarray(s)[()]
        if isinstance(s, int):
            if -(1 << 63) <= s < (1 << 63):
                return np.int64(s)
            if 0 <= s < (1 << 64):
                return np.uint64(s)
            raise InvalidValue(f"{what}: the integer {s} is outside the range of int64 and "
                               "uint64")
        return np.float64(s)
    raise InvalidValue(f"{what}: expected a scalar (bool, int or float), got {s!r}")
