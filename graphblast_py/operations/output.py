"""The one output rule every operation ends with:

    out<mask, replace> = accum(out, T)

* ``Z = accum(out, T)`` where both have an entry, the one that exists
  elsewhere (no accum: ``Z = T``, entries of ``out`` not in ``T`` vanish);
* with a mask: positions the mask allows take ``Z``; positions it does not
  allow keep their old ``out`` entry, or lose it when ``replace=True``.
* values are cast to ``out.dtype`` (C casting).

Kernels may use the mask early (pull computes only allowed rows, push skips
disallowed outputs) but never write outputs themselves: they hand a result
``T`` to :func:`write` and this function is the only writer.  ``T`` is
computed fully before anything is written, so ``out`` may alias an input.

A result is one of the named types of :mod:`graphblast_py.results`:
    SparseResult(keys, vals)               sorted unique keys (vector index or i*ncols+j)
    DenseVectorResult(vals, present)       vectors: arrays over all positions (present None = full)
    CSRResult(indptr, indices, vals, iso)  matrices (vals None for an iso result)
    DenseMatrixResult(vals, present)       matrices in dense form (2-D arrays)
"""
import numpy as np

from ..errors import InvalidValue
from ..backend.keys import split_keys
from ..operators import predefined
from ..operators.core import BinaryOp, Monoid
from ..results import CSRResult, DenseVectorResult, SparseResult
from ..vector import DENSE_FRACTION


def resolve_accum(accum):
    if accum is None:
        return None
    if isinstance(accum, str):
        accum = predefined.lookup("binary", accum)
    if isinstance(accum, Monoid):
        accum = accum.op
    if not isinstance(accum, BinaryOp):
        raise InvalidValue(f"accum must be a BinaryOp (e.g. gb.binary.plus), got {accum!r}")
    if accum.positional is not None:
        raise InvalidValue(f"accum cannot be the positional operator {accum.name!r}")
    return accum


def _accum_vals(be, accum, cv, tv, out_dtype):
    dt = accum.out_dtype(cv.dtype, tv.dtype)
    return be.cast(be.binary(accum, cv, tv, dt), out_dtype)


def write(out, T, mask, accum, replace, masked=False):
    """Apply the output rule; ``out`` is a Vector or Matrix (possibly empty, new).
    ``masked``: T holds no entry the mask forbids (the kernel applied the mask).

    Fast paths (each covered by the reference-model tests of
    tests/test_semantics.py):

    * ``Z = T`` taken as is, when nothing old can survive and nothing needs
      testing: no mask, or a mask the kernel applied (``masked``) with
      ``replace`` or into an empty ``out``; and no accum, or an empty ``out``;
    * a kernel-applied mask is not tested again on the general path;
    * vectors with a dense operand: elementwise array work over the positions
      (no key sorts, no device waits), see :func:`_write_dense_vector`.
    """
    be = out._be
    fresh = out._is_empty_fresh()
    if (mask is None or (masked and (fresh or replace))) and (accum is None or fresh):
        # Z = T, nothing old survives
        if out._is_vector:
            out._assign_result(T, None if mask is None else _mask_bound(mask, out.size))
        else:
            out._assign_result(T)
        return out
    if fresh and accum is None and out._is_vector and T.__class__ is SparseResult:
        # a new (or empty) vector out and a mask the kernel did not apply
        # (SSSP's ``f = t <better.V>``): Z = T, and the mask keeps what it
        # allows -- the general path below without its no-op steps (nothing
        # old to merge, nothing to accumulate)
        kt, vt = T.keys, be.cast(T.vals, out.dtype)
        p = mask.parent
        if not mask.structure and not mask.complement and p._is_vector:
            own = p._values_at_own_keys(kt)
            if own is not None:
                # the mask vector stored at T's keys: the entries where its
                # value is truthy, in one pass where the backend has one
                r = be.compress_truthy(kt, vt, own)
                if r is not None:
                    out._set_sparse(*r)
                    return out
        keep = _allowed(be, mask, kt)
        out._set_sparse(kt[keep], vt[keep])
        return out
    if out._is_vector and (isinstance(T, DenseVectorResult) or out.form == "dense"
                           or out._nvals_estimate() >= DENSE_FRACTION * out.size):
        # (an out dense enough is turned dense here: SSSP's distances)
        return _write_dense_vector(out, T, mask, accum, replace, masked)
    # general path on sorted keys
    kc, vc = out._keys_vals()
    kt, vt = _as_keys(out, T)
    vt = be.cast(vt, out.dtype) if accum is None else vt
    if accum is not None and kc.shape[0]:
        kz, vz = union(be, kc, vc, kt, vt, accum, out.dtype)
    else:
        kz, vz = kt, be.cast(vt, out.dtype)
    if mask is not None:
        if not (masked and accum is None):
            keep = _allowed(be, mask, kz)
            kz, vz = kz[keep], vz[keep]
        if not replace and kc.shape[0]:
            old = ~_allowed(be, mask, kc)
            kz, vz = _merge_disjoint(be, kz, vz, kc[old], vc[old])
    out._assign_result(SparseResult(kz, vz))
    return out


def _allowed(be, mask, keys):
    p = mask.parent
    if p._is_vector:
        if p._form == "dense":
            return mask.dense()[keys]
        own = p._values_at_own_keys(keys)
        if own is not None:
            # the keys are the mask vector's own index array (SSSP's
            # ``t.apply(identity, mask=better.V)``, better stored at t's
            # keys): the mask at its own entries, no search
            hit = be.xp.ones(keys.shape[0], dtype=bool) if mask.structure \
                else own.astype(bool)
            return ~hit if mask.complement else hit
    hit = be.member(keys, mask.keys())
    return ~hit if mask.complement else hit


def _as_keys(out, T):
    be = out._be
    if isinstance(T, SparseResult):
        return T.keys, T.vals
    if isinstance(T, DenseVectorResult):
        vals, pres = T.vals, T.present
        if pres is None:
            return be.arange(vals.shape[0]), vals
        idx = be.xp.flatnonzero(pres)
        return idx, vals[idx]
    from ..matrix import Matrix
    # keep T's own type: the accum operator must see T's values before any
    # cast to out.dtype (e.g. min(False, -1) is -1, which casts to True)
    if isinstance(T, CSRResult):
        dt = T.vals.dtype if T.vals is not None else np.asarray(T.iso).dtype
    else:
        dt = T.vals.dtype
    tmp = Matrix(dt, out.nrows, out.ncols, device=out.device)
    tmp._assign_result(T)
    return tmp._keys_vals()


def _merge_disjoint(be, ka, va, kb, vb):
    keys = be.xp.concatenate([ka, kb])
    vals = be.xp.concatenate([va, be.cast(vb, va.dtype)])
    order = be.argsort(keys)
    return keys[order], vals[order]


def _mask_bound(mask, n):
    """Upper bound of the positions a vector mask allows, known on the host."""
    p = mask.parent
    if not mask.complement:
        return p._nvals_bound()         # a value mask allows at most the stored ones
    known = p._nvals_known() if mask.structure else None
    return n if known is None else n - known


def _write_dense_vector(out, T, mask, accum, replace, masked=False):
    """The output rule over all positions (a dense operand): a few elementwise
    array operations, none of which waits on the device.  The result's entry
    count is left to be counted when asked; the host keeps an upper bound of
    it (the old count plus what the mask lets in)."""
    be = out._be
    xp = be.xp
    n = out.size
    # nothing old to keep in an empty out: replace gives the same result
    replace = replace or (accum is None and out._is_empty_fresh())
    if (accum is None and not replace and mask is not None and not mask.complement
            and isinstance(T, SparseResult) and mask.parent._is_vector
            and mask.parent.form == "sparse"):
        # a sparse mask and a sparse T: only the mask's positions change (old
        # entries there vanish, T's allowed entries land); the rest is a copy
        # (written in place where out owns its arrays: Vector._update_dense)
        kt, vt = T.keys, T.vals
        mk = mask.keys()
        if not masked and kt is not mk:     # (T at the mask's own keys: all allowed)
            keep = be.member(kt, mk)
            kt, vt = kt[keep], vt[keep]
        out._update_dense(mk, kt, be.cast(vt, out.dtype),
                          min(n, out._nvals_bound() + kt.shape[0]))
        return out
    cv, cp = out._dense() if not (replace and accum is None) else (None, None)
    if isinstance(T, DenseVectorResult):
        tv, tp = T.vals, T.present
        t_hi = n
    else:
        tv = xp.zeros(n, dtype=T.vals.dtype)
        tp = xp.zeros(n, dtype=bool)
        tv[T.keys] = T.vals
        tp[T.keys] = True
        t_hi = T.keys.shape[0]
    c_hi = out._nvals_bound()
    if accum is not None:
        # accum where both have an entry, the one entry elsewhere
        zv = None
        if cp is None and tp is not None and tv.dtype == cv.dtype:
            # (one pass where the backend has one: connected components'
            # mxv with accum=min into a full vector)
            zv = be.minmax_into(accum, cv, tv, tp, out.dtype, None)
        if zv is not None:
            pass
        elif cp is None and tp is None:
            zv = _accum_vals(be, accum, cv, tv, out.dtype)
        elif cp is None:
            zv = xp.where(tp, _accum_vals(be, accum, cv, tv, out.dtype), cv)
        elif tp is None:
            zv = xp.where(cp, _accum_vals(be, accum, cv, tv, out.dtype), be.cast(tv, out.dtype))
        else:
            zv = xp.where(tp, xp.where(cp, _accum_vals(be, accum, cv, tv, out.dtype),
                                       be.cast(tv, out.dtype)), cv)
        zp = None if (cp is None or tp is None) else (cp | tp)
        z_hi = min(n, c_hi + t_hi)
    else:
        zv, zp, z_hi = be.cast(tv, out.dtype), tp, t_hi
    if mask is None:
        rv, rp, hi = zv, zp, z_hi
    else:
        m = mask.dense()
        m_hi = _mask_bound(mask, n)
        if replace:
            rv, rp = zv, (m if zp is None else zp & m)
            hi = min(z_hi, m_hi)
        else:
            rv, rp = be.masked_merge(m, zv, zp, cv, cp)
            hi = min(n, c_hi + min(z_hi, m_hi))
    out._assign_result(DenseVectorResult(rv, rp), hi)
    return out


# ---------------------------------------------------------------- key-set algebra
def union(be, ka, va, kb, vb, op, out_dtype, left_default=None, right_default=None,
          positional=None):
    """Entries of A or B; op(a, b) where both exist.  With defaults (ewise_union)
    A-only entries become op(a, right_default) and B-only op(left_default, b)."""
    xp = be.xp
    inb, posb = be.locate(ka, kb)
    ina = be.member(kb, ka)
    both_a = xp.flatnonzero(inb)
    kboth = ka[both_a]
    vboth = _op(be, op, va[both_a] if va is not None else None,
                vb[posb[both_a]] if vb is not None else None, out_dtype, kboth, positional)
    only_a = xp.flatnonzero(~inb)
    only_b = xp.flatnonzero(~ina)
    ka_only, kb_only = ka[only_a], kb[only_b]
    if right_default is None:
        va_only = be.cast(va[only_a], out_dtype)
        vb_only = be.cast(vb[only_b], out_dtype)
    else:
        va_only = _op(be, op, va[only_a], right_default, out_dtype, ka_only, positional)
        vb_only = _op(be, op, left_default, vb[only_b], out_dtype, kb_only, positional)
    keys = xp.concatenate([kboth, ka_only, kb_only])
    vals = xp.concatenate([vboth, va_only, vb_only])
    order = be.argsort(keys)
    return keys[order], vals[order]


def intersect(be, ka, va, kb, vb, op, out_dtype, positional=None):
    found, pos = be.locate(ka, kb)
    sel = be.xp.flatnonzero(found)
    k = ka[sel]
    return k, _op(be, op, va[sel] if va is not None else None,
                  vb[pos[sel]] if vb is not None else None, out_dtype, k, positional)


def _op(be, op, x, y, out_dtype, keys, positional):
    """Elementwise op; positional operators see (row, col) recovered from keys
    (``positional`` = ncols of the matrix, or 1 for a vector)."""
    n = keys.shape[0]
    if op.positional is not None:
        i, j = split_keys(keys, positional or 1)
        src = i if op.positional.endswith("i") else j
        return be.cast(src, out_dtype)
    if op.name == "pair":
        return be.xp.ones(n, dtype=out_dtype)
    r = be.binary(op, x, y, out_dtype)
    if not hasattr(r, "shape") or r.shape == ():
        r = be.xp.full(n, r, dtype=out_dtype)
    return r
