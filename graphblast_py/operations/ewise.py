"""Element-wise operations on vectors and matrices of the same shape.

* ``ewise_add``  -- union of the structures; ``op(a, b)`` where both exist,
  the single value elsewhere (GrB_eWiseAdd);
* ``ewise_mult`` -- intersection; ``op(a, b)`` (GrB_eWiseMult);
* ``ewise_union`` -- union, with ``left_default``/``right_default`` standing in
  for a missing operand, so ``op`` is applied everywhere (GxB_eWiseUnion).
"""
import numpy as np

from .. import dtypes
from ..errors import DimensionMismatch, InvalidValue
from ..mask import Mask
from ..results import DenseVectorResult, SparseResult
from ..operators.core import BinaryOp
from ..vector import DENSE_FRACTION, Vector
from .common import (PY_NUMBERS, as_binary, check_replace, check_user_op, finish,
                     plain_vector_call, prepare)
from .output import _op, intersect, union
from . import relax


def _setup(what, a, b, op, out, mask, accum, replace):
    if type(a) is not type(b):
        raise InvalidValue(f"{what}: both operands must be Vectors or both Matrices, got "
                           f"{type(a).__name__} and {type(b).__name__}")
    if a.shape != b.shape:
        raise DimensionMismatch(f"{what}: shapes {a.shape} and {b.shape} differ")
    op = as_binary(op, what)
    check_replace(replace, what)
    accum = prepare(what, [("the first operand", a), ("the second operand", b)], out, a.shape,
                    a._is_vector, mask, accum)
    check_user_op(op, a._be, what)
    return op, accum


def _positional(a):
    return 1 if a._is_vector else a.ncols


def _mask_first(a, b, op, mask):
    """The keys of a sparse, structural, uncomplemented vector mask when the
    operation may be computed at those positions only (GraphBLAST's masking
    before the operation: SSSP's ``t.ewise_union(dist, lt, ..., mask=t.S)``
    costs the frontier's size, not the vector's), else None.  Taken on
    backends that set ``ewise_mask_first``, for a predefined non-positional
    operator (it is evaluated on the gathered values, including positions
    where an operand has no entry, whose results are dropped), and where an
    operand is dense or has several times the mask's entries (else a merge
    of the operands' keys costs no more)."""
    if (mask is None or not mask.structure or mask.complement or not a._is_vector
            or not a._be.ewise_mask_first or op.is_user or op.positional is not None
            or op.name == "pair"):
        return None
    m = mask.parent
    if m.form != "sparse":
        return None
    nm = m._nvals_estimate()
    if nm >= DENSE_FRACTION * m.size:
        return None
    if (a.form != "dense" and b.form != "dense"
            and max(a._nvals_estimate(), b._nvals_estimate()) <= 4 * nm):
        return None
    return mask.keys()


def _gather_at(x, mask, mk):
    """``x``'s (values, presence) at the mask's keys ``mk`` (as
    ``Vector._gather``), presence None where every key has an entry: the
    mask is ``x.S`` itself (SSSP's ``t.ewise_union(dist, ..., mask=t.S)``:
    ``x``'s own values, no search), or ``x`` is full."""
    if mask.parent is x:        # a sparse x (see _mask_first): mk is its index array
        return x._sparse()[1], None
    if x._form == "dense":
        vals, pres = x._dense(lend=True)
        if pres is None:
            return vals[mk], None
    return x._gather(mk)


# predefined operators that raise no floating-point flag on any input
# (NaN, inf): comparisons (a bool result); min/max/first/second when no
# float is cast to an integer type
_CMP = frozenset(("lt", "le", "gt", "ge", "eq", "ne"))
_PICK = frozenset(("min", "max", "first", "second"))


def _quiet(op, dt, va, vb):
    """Whether ``_at``'s arithmetic can raise no floating-point flag, so it
    needs no ``np.errstate`` (which costs ~1.6 us a call)."""
    if op.is_user or op.positional is not None:
        return False
    if op.name in _CMP:
        return True
    return op.name in _PICK and (dt.kind == "f" or (va.dtype.kind in "biu"
                                                    and vb.dtype.kind in "biu"))


def _at(be, op, mk, ga, gb, dt, kind, ld=None, rd=None):
    """The result at the mask's keys ``mk`` from the operands' values and
    presence gathered there (:func:`_gather_at`; presence None: all
    present): ``kind`` "add", "mult" or "union" (with the defaults)."""
    (va, pa), (vb, pb) = ga, gb
    xp = be.xp
    if _quiet(op, dt, va, vb):
        keep, vals = _at_values(be, op, va, pa, vb, pb, dt, kind, ld, rd)
    else:
        with np.errstate(all="ignore"):     # values where an operand has no entry are dropped
            keep, vals = _at_values(be, op, va, pa, vb, pb, dt, kind, ld, rd)
    if keep is None:
        # every key kept: the result shares the mask's index array (sparse
        # arrays are never written in place), its values are its own
        vals = xp.asarray(vals, dtype=dt)
        if vals is va or vals is vb:
            vals = vals.copy()
        return SparseResult(mk, vals)
    return SparseResult(mk[keep], xp.asarray(vals, dtype=dt)[keep])


def _at_values(be, op, va, pa, vb, pb, dt, kind, ld, rd):
    """``(keep or None: every key, values)`` of :func:`_at`."""
    xp = be.xp
    both = be.binary(op, va, vb, dt)
    if kind == "mult":
        return (pb if pa is None else pa if pb is None else pa & pb), both
    keep = None if pa is None or pb is None else pa | pb
    if kind == "add":
        alone_a = be.cast(va, dt) if pb is not None else None
        alone_b = be.cast(vb, dt) if pa is not None else None
    else:
        alone_a = be.binary(op, va, rd, dt) if pb is not None else None
        alone_b = be.binary(op, ld, vb, dt) if pa is not None else None
    if pa is None and pb is None:
        return keep, both
    if pa is None:
        return keep, xp.where(pb, both, alone_a)
    if pb is None:
        return keep, xp.where(pa, both, alone_b)
    return keep, xp.where(pa & pb, both, xp.where(pa, alone_a, alone_b))


def ewise_add(a, b, op, *, mask=None, accum=None, replace=False, out=None):
    if not _plain(a, b, op, out, mask, accum, replace):
        op, accum = _setup("ewise_add", a, b, op, out, mask, accum, replace)
    be = a._be
    dt = op.out_dtype(a.dtype, b.dtype)
    mk = _mask_first(a, b, op, mask)
    if mk is not None:
        T = _at(be, op, mk, _gather_at(a, mask, mk), _gather_at(b, mask, mk), dt, "add")
        return finish(out, T, dt, a.shape, be, mask, accum, replace, True, masked=True)
    if (out is not None and mask is None and accum is None and op.name in _PICK_MINMAX
            and not op.is_user and a._is_vector and a.form == "dense" and b.form == "dense"
            and a.dtype == b.dtype == dt == out.dtype):
        if _minmax_into_out(be, op, a, b, out, dt):
            return out
    if _dense_path(a, b):
        (av, ap), (bv, bp) = a._dense(), b._dense()
        if (ap is None) != (bp is None) and op.name in ("min", "max") and not op.is_user \
                and av.dtype == bv.dtype:
            # one full operand: where the other has an entry min/max of
            # both, else the full one's -- one pass where the backend has
            # one (connected components' hooking)
            full, other, p = (av, bv, bp) if ap is None else (bv, av, ap)
            vals = be.minmax_into(op, full, other, p, dt, None)
            if vals is not None:
                return finish(out, DenseVectorResult(vals, None), dt, a.shape, be, mask, accum,
                              replace, True)
        both = _dense_op(be, op, av, bv, dt)
        if ap is None and bp is None:
            vals = both
        elif ap is None or bp is None:      # one is full: the other's holes take the full one
            vals = be.xp.where(bp if ap is None else ap, both,
                               be.cast(av if ap is None else bv, dt))
        else:
            vals = be.xp.where(ap & bp, both, be.xp.where(ap, be.cast(av, dt), be.cast(bv, dt)))
        T = DenseVectorResult(vals, None if ap is None or bp is None else ap | bp)
    else:
        ka, va = a._keys_vals()
        kb, vb = b._keys_vals()
        k, v = union(be, ka, va, kb, vb, op, dt, positional=_positional(a))
        T = SparseResult(k, v)
    return finish(out, T, dt, a.shape, be, mask, accum, replace, a._is_vector)


_PICK_MINMAX = frozenset(("min", "max"))


def _minmax_into_out(be, op, a, b, out, dt):
    """``out = min(a, b)`` (or max) with no mask and no accum, both
    operands stored dense and at least one full (so the result is full:
    where both have an entry the min, elsewhere the full one's value),
    everything of one type: the output rule would take the result as it is
    (``Z = T``), so the backend's one pass (``minmax_into``) writes it
    straight into ``out``'s own values array where ``out`` is full and owns
    it -- ``out`` may be ``a`` or ``b`` (connected components' ``f =
    min(f, mngf)``): no new array -- else into a new one that ``out`` then
    owns.  False where the backend has no such pass (the ordinary path
    runs; nothing was written)."""
    (av, ap), (bv, bp) = a._dense(lend=True), b._dense(lend=True)
    if ap is not None and bp is not None:
        return False
    full, other, p = (av, bv, bp) if ap is None else (bv, av, ap)
    fv = out._full_values()
    dst = fv[0] if fv is not None and fv[1] else None
    vals = be.minmax_into(op, full, other, p, dt, dst)
    if vals is None:
        return False
    out._set_full(vals, True)
    return True


def ewise_mult(a, b, op, *, mask=None, accum=None, replace=False, out=None):
    if not _plain(a, b, op, out, mask, accum, replace):
        op, accum = _setup("ewise_mult", a, b, op, out, mask, accum, replace)
    be = a._be
    dt = op.out_dtype(a.dtype, b.dtype)
    mk = _mask_first(a, b, op, mask)
    if mk is not None:
        T = _at(be, op, mk, _gather_at(a, mask, mk), _gather_at(b, mask, mk), dt, "mult")
        return finish(out, T, dt, a.shape, be, mask, accum, replace, True, masked=True)
    if _dense_path(a, b):
        (av, ap), (bv, bp) = a._dense(), b._dense()
        T = DenseVectorResult(_dense_op(be, op, av, bv, dt),
                              ap if bp is None else bp if ap is None else ap & bp)
    else:
        ka, va = a._keys_vals()
        kb, vb = b._keys_vals()
        k, v = intersect(be, ka, va, kb, vb, op, dt, positional=_positional(a))
        T = SparseResult(k, v)
    return finish(out, T, dt, a.shape, be, mask, accum, replace, a._is_vector)


def _plain(a, b, op, out, mask, accum, replace):
    """True when :func:`_setup` would raise nothing and return ``(op,
    None)``: two Vectors of one size on one device, a predefined BinaryOp
    and a call :func:`~.common.plain_vector_call` accepts."""
    return (op.__class__ is BinaryOp and not op.is_user and b.__class__ is Vector
            and plain_vector_call(a, out, mask, accum, replace)
            and b.size == a.size and b._be is a._be)


def ewise_union(a, b, op, left_default, right_default, *, mask=None, accum=None, replace=False,
                out=None):
    if (mask.__class__ is Mask and out is None and accum is None and replace is False
            and mask.structure and not mask.complement and op.__class__ is BinaryOp
            and left_default.__class__ in PY_NUMBERS and right_default.__class__ in PY_NUMBERS
            and a.__class__ is Vector and b.__class__ is Vector):
        if a._spec is not None:
            # a round of a shortest-path chain a kernel run already answers
            # (operations/relax.py: b is then the run's distances, so on a's
            # device and of its size -- what the checks below would test)
            r = relax.compare(a, b, op, left_default, right_default, mask)
            if r is not None:
                return r
        r = _compare_at_own_mask(a, b, op, left_default, right_default, mask)
        if r is not None:
            return r
    if not _plain(a, b, op, out, mask, accum, replace):
        op, accum = _setup("ewise_union", a, b, op, out, mask, accum, replace)
    if not (left_default.__class__ in PY_NUMBERS and right_default.__class__ in PY_NUMBERS):
        # (a Python float, int or bool passes these checks as it is)
        for name, v in (("left_default", left_default), ("right_default", right_default)):
            if v is None or hasattr(v, "shape") and getattr(v, "shape", ()) != ():
                raise InvalidValue(f"ewise_union: {name} must be a scalar, got {v!r}")
    be = a._be
    dt = op.out_dtype(a.dtype, b.dtype)
    # each default is typed as its operand, with C casting (-1 as uint8 is 255)
    ld = dtypes.cast_scalar(left_default, a.dtype, "ewise_union: left_default")
    rd = dtypes.cast_scalar(right_default, b.dtype, "ewise_union: right_default")
    mk = _mask_first(a, b, op, mask)
    if mk is not None:
        T = _compare_union_at(be, op, a, b, mask, mk, ld, rd) if op.name in _CMP else None
        if T is None:
            T = _at(be, op, mk, _gather_at(a, mask, mk), _gather_at(b, mask, mk), dt, "union",
                    ld, rd)
    elif (a._is_vector and op.positional is None and not op.is_user
            and (a.form == "dense" or b.form == "dense")):
        # a dense operand (SSSP's distances): over all positions, as ewise_add
        # does, instead of key sorts of every stored entry (a predefined op:
        # a user's function could raise on the unused positions' values);
        # the other operand's entries, when it is sparse, patched in after
        with np.errstate(all="ignore"):     # positions without an entry hold anything
            T = _union_dense(be, a, b, op, dt, ld, rd)
    else:
        ka, va = a._keys_vals()
        kb, vb = b._keys_vals()
        k, v = union(be, ka, va, kb, vb, op, dt, left_default=ld, right_default=rd,
                     positional=_positional(a))
        T = SparseResult(k, v)
    # (mask first: a vector's, computed at the mask's keys only)
    w = finish(out, T, dt, a.shape, be, mask, accum, replace, a._is_vector,
               masked=mk is not None)
    if a._is_vector and a._spec is not None and out is None and accum is None:
        relax.note_compare(a, b, op, rd, mask, w)      # (operations/relax.py)
    return w


def _compare_at_own_mask(a, b, op, left_default, right_default, mask):
    """SSSP's ``better = t.ewise_union(dist, lt, inf, inf, mask=t.S)``: a
    comparison at the keys of a sparse operand's own structural mask
    against a dense operand (the path :func:`_mask_first` and
    :func:`_compare_union_at` take, with the same backend call and the
    output rule's store of a kernel-masked result into a new vector),
    without the general set-up -- taken only where every check of it would
    pass (one size and device, a predefined comparison, Python scalar
    defaults).  None otherwise (the general path runs)."""
    x = mask.parent
    be = a._be
    if (op.is_user or op.name not in _CMP or b._be is not be or b.size != a.size
            or x.__class__ is not Vector or not be.ewise_mask_first
            or (x is not a and x is not b) or x._form != "sparse"
            or x._nvals_estimate() >= DENSE_FRACTION * x.size):
        return None
    ld = dtypes.cast_scalar(left_default, a.dtype, "ewise_union: left_default")
    rd = dtypes.cast_scalar(right_default, b.dtype, "ewise_union: right_default")
    T = _compare_union_at(be, op, a, b, mask, x._idx, ld, rd)
    if T is None:
        return None
    dt = dtypes.lookup(op.out_dtype(a.dtype, b.dtype))
    w = Vector._new_sparse(dt, a.size, be, T.keys, be.cast(T.vals, dt))
    if a._spec is not None:
        relax.note_compare(a, b, op, rd, mask, w)
    return w


def _compare_union_at(be, op, a, b, mask, mk, ld, rd):
    """ewise_union of a comparison at the keys ``mk`` of the mask ``x.S``
    of a sparse operand x (so x has an entry at every key) with the other
    operand stored dense: the backend's one pass (``compare_at``: x's own
    values against the dense one's, or its default where it has no entry)
    instead of a gather, two comparisons and a select (SSSP's ``better =
    t < dist <t.S>``).  None where it does not apply (the caller gathers)."""
    x = mask.parent
    d = b if x is a else a if x is b else None
    if d is None or d._form != "dense" or x._form != "sparse":
        return None
    xv = x._values_at_own_keys(mk)
    if xv is None:
        return None
    dv, dp = d._dense(lend=True)
    vals = be.compare_at(op, xv, mk, dv, dp, rd if x is a else ld, x is b)
    return None if vals is None else SparseResult(mk, vals)


def _union_dense(be, a, b, op, dt, ld, rd):
    """ewise_union of two vectors, one or both stored dense, as a dense result."""
    xp = be.xp
    n = a.size
    ar = be.arange(n)
    if a.form == "dense" and b.form == "dense":
        (av, ap), (bv, bp) = a._dense(), b._dense()
        both = _op(be, op, av, bv, dt, ar, 1)
        if ap is None and bp is None:
            return DenseVectorResult(both, None)
        apx = ap if ap is not None else xp.ones(n, dtype=bool)
        bpx = bp if bp is not None else xp.ones(n, dtype=bool)
        vals = xp.where(apx & bpx, both, xp.where(apx, _op(be, op, av, rd, dt, ar, 1),
                                                  _op(be, op, ld, bv, dt, ar, 1)))
        return DenseVectorResult(vals, apx | bpx)
    left_sparse = a.form == "sparse"
    (ks, vs), (dv, dp) = (a._sparse(), b._dense()) if left_sparse else \
        (b._sparse(), a._dense())
    # the dense operand's entries with the sparse one's default
    vals = _op(be, op, ld, dv, dt, ar, 1) if left_sparse else \
        _op(be, op, dv, rd, dt, ar, 1)
    vals = xp.array(vals, dtype=dt)     # a fresh writable copy (an op may return dv)
    pres = dp.copy() if dp is not None else xp.ones(n, dtype=bool)
    if ks.shape[0]:
        dk = dv[ks]
        if left_sparse:
            both, alone = _op(be, op, vs, dk, dt, ks, 1), _op(be, op, vs, rd, dt, ks, 1)
        else:
            both, alone = _op(be, op, dk, vs, dt, ks, 1), _op(be, op, ld, vs, dt, ks, 1)
        there = pres[ks]
        vals[ks] = xp.where(there, both, alone)
        pres[ks] = True
    return DenseVectorResult(vals, pres)


def _dense_path(a, b):
    """Vectors computed over all positions: both stored dense, or one dense
    on a backend that keeps vectors dense (no key sorts, no device waits),
    or one dense and the other holding at least DENSE_FRACTION of the
    positions (a key search of that many entries costs more than a pass over
    all positions)."""
    if not a._is_vector:
        return False
    da, db = a.form == "dense", b.form == "dense"
    if (da and db) or (a._be.dense_vectors and (da or db)):
        return True
    sparse = b if da else a if db else None
    return sparse is not None and sparse._nvals_estimate() >= DENSE_FRACTION * sparse.size


def _dense_op(be, op, x, y, dt):
    """op over all positions of two dense value arrays (the values at
    positions without an entry are computed too, and ignored); positions are
    built only for the operators that need them (positional ones, pair)."""
    if op.positional is not None or op.name == "pair":
        return _op(be, op, x, y, dt, be.arange(x.shape[0]), 1)
    return be.binary(op, x, y, dt)
