"""``assign`` (GrB_assign): write a scalar, vector or matrix into a region.

    C<mask, replace>(I, J) = accum(C(I, J), A)

The region I x J of ``Z = C`` is replaced by A (without accum: entries of C
in the region that A lacks are deleted) or combined with it (accum); outside
the region Z = C.  The mask covers all of C; ``out<mask, replace> = Z`` is
then the one output rule (with no further accum).  Index lists must not
repeat an index.
"""
import numpy as np

from ..errors import DimensionMismatch, InvalidIndex, InvalidValue
from ..backend.keys import split_keys
from ..indexing import parse_index
from ..mask import Mask
from ..results import DenseVectorResult, SparseResult
from .apply import _scalar
from .common import PY_NUMBERS, check_replace
from .output import resolve_accum, union, write
from .speculate import level_keys, level_values, note_growth
from . import relax
from ..vector import DENSE_FRACTION, Vector


def _unique_check(be, I, what):
    if I is not None and I.shape[0] > 1:
        s = be.xp.sort(I)
        if bool((s[1:] == s[:-1]).any()):
            raise InvalidIndex(f"{what}: the index list repeats an index; assign needs unique "
                               "indices")


def vector_assign(w, value, indices=None, *, mask=None, accum=None, replace=False):
    """``w<mask>(indices) = accum(w(indices), value)``; value a scalar or a
    Vector of size len(indices)."""
    if (value.__class__ in PY_NUMBERS and indices is None and mask is None and accum is None
            and replace is False and w.__class__ is Vector):
        # a number to every position (PageRank's fresh teleport vector,
        # FGLT's ones): Z = T, what _assign's whole-vector path stores --
        # the fill as w's own array -- without its general set-up (~14 us
        # of host time a call on the GPU machine)
        return _fill_whole(w, value)
    # ``w<F.S> = F``, F another Vector of w's size on w's device
    own = (value.__class__ is Vector and indices is None and mask.__class__ is Mask
           and mask.parent is value and mask.structure and not mask.complement
           and accum is None and replace is False and w.__class__ is Vector
           and value.size == w.size and value._be is w._be and value is not w)
    if own and value._spec.__class__ is relax._Rec:
        # ``d<f.S> = f`` with ``f`` a round's frontier of a shortest-path
        # chain (operations/relax.py): answered from its kernel run, or
        # noted on ``d`` after the ordinary assign
        if relax.assign(w, value):
            return w
        before = w._ver
        _vector_assign(w, value, indices, mask, accum, replace, own)
        relax.note_assign(w, value, before)
        return w
    return _vector_assign(w, value, indices, mask, accum, replace, own)


def _fill_whole(w, value, what="assign"):
    """``w = value`` at every position (a scalar; no mask, accum or index
    list): a fill of the value cast to w's type, kept as w's own array."""
    be = w._be
    if w.size > 1 << 26:
        _check_fill_alloc(be, w, _scalar(value, what), what)
    w._set_full(be.full(w.size, _cast_scalar(value, w.dtype), w.dtype), True)
    return w


def _check_fill_alloc(be, C, s, what):
    """OutOfMemory before a whole-vector fill of the scalar ``s`` (a NumPy
    scalar) into ``C``: the fill, C's values and a presence array."""
    be.check_alloc(C.size * (np.asarray(s).dtype.itemsize + C.dtype.itemsize + 1),
                   f"{what} of a scalar to all {C.size} positions")


def _vector_assign(w, value, indices, mask, accum, replace, own):
    """:func:`vector_assign`'s body; ``own``: the call is ``w<F.S> = F``
    with F another Vector of w's size on w's device (vector_assign's test)."""
    if own:
        # w<F.S> = F where F is a level of a BFS-with-parents traversal
        # (speculate.py; algorithms/bfs.py's parent update): F's entries
        # are known on the host as slices of the traversal's arrays, so the
        # copy waits and joins those of the following levels (one scatter)
        lv = level_values(value, w.dtype)
        if lv is not None:
            order, vals, a, b = lv
            w._defer_copies(order, vals, a, b, w._nv_hi + (b - a))
            return w
        if value._form == "dense" and (w._form == "dense" or w._be.dense_vectors):
            # a dense F into w (a BFS's parents after a pull level, whose
            # frontier comes dense): F's positions take F's values in one
            # pass over the positions (Vector._update_from), into w's own
            # arrays where it owns them -- not _assign's whole-vector path
            # (the output rule's dense merge into new arrays); w turns dense
            # as it would there
            fv, fp = value._lend()
            if fp is not None:
                w._update_from(fp, w._be.cast(fv, w.dtype),
                               min(w.size, w._nv_hi + value._nvals_bound()))
                return w
        if value._form == "sparse":
            merge = (w._form == "sparse" and not w._be.dense_vectors
                     and w._nvals_estimate() < DENSE_FRACTION * w.size)
            if w._form == "dense" or (merge and _merged_enough(w)):
                # F's positions take F's values in w's own arrays where it
                # owns them (Vector._update_dense): a sparse F into a dense
                # w (SSSP's ``dist<f.S> = f``: what _assign's whole-vector
                # path and the output rule's sparse-mask branch do, without
                # their general set-up), or into a sparse w that has been
                # merged into often enough that its copies cost a dense
                # form's build -- it turns dense here, and later updates
                # write only F's positions (SSSP's distances on the
                # 1000x1000 grid: ~110 merges of up to 60k entries each).
                # Nothing to clear first: the positions that would lose
                # their entry are the ones that take F's.
                kf, vf = value._view()  # (sparse: the keys and values, handed out)
                w._update_dense(kf[:0], kf, w._be.cast(vf, w.dtype),
                                min(w.size, w._nv_hi + kf.shape[0]))
                return w
            if merge:
                # both sparse (SSSP's first rounds): where _assign's key path
                # and the output rule's arrive, F's entries and w's others,
                # by one search and one merge of two sorted runs
                kf, vf = value._view()
                kc, vc = w._sparse()
                w._assign_result(SparseResult(*_overwrite_sorted(w._be, kc, vc, kf,
                                                                 w._be.cast(vf, w.dtype))))
                return w
    if (indices is None and isinstance(mask, Mask) and mask.structure and not mask.complement
            and replace is False
            and (value.__class__ in PY_NUMBERS or not hasattr(value, "_be"))):
        # a scalar under F.S: w's structure grows by exactly F's -- recorded
        # for traversal speculation (operations/speculate.py)
        F = mask.parent
        before, by = getattr(w, "_ver", None), getattr(F, "_ver", None)
        plain = (accum is None and type(w) is Vector and type(F) is Vector
                 and F.size == w.size and F._be is w._be)
        lk = level_keys(F) if plain and F._form == "sparse" else None
        if lk is not None:
            # F is a level of a traversal (speculate.py): the fill waits and
            # joins those of the following levels, one scatter in all; a
            # sparse w turns dense (a long BFS: w is a levels or visited
            # vector, dense by nature)
            order, a, b = lk
            w._defer_fills(order, a, b, _cast_scalar(value, w.dtype), w._nv_hi + (b - a))
        elif plain and F._form == "sparse" and (
                w._form == "dense" or F._spec is not None
                or w._nv_hi + F._nvals_bound() >= DENSE_FRACTION * w.size
                or w._be.dense_vectors):
            # a BFS level update (a dense w, a sparse frontier F): what
            # _assign's whole-vector path does for it (output rule: positions
            # of F take the scalar), without its general set-up: one scatter
            # of the scalar into w's own arrays (Vector._update_scalar).  A
            # sparse w turns dense here when F is the small frontier of a
            # BFS-shaped step (a speculation link: w is a levels/visited
            # vector, dense by nature; O(n) once, where each early level on
            # the general path cost ~60 us on a 300^2 grid),
            # when the result may reach the dense fraction (the first big
            # level of a power-law BFS; the key path would sort it all) and
            # on a backend that keeps vectors dense (the GPU: _assign's
            # whole-vector path made w dense there too)
            mk = F._sparse()[0]
            w._update_scalar(mk, _cast_scalar(value, w.dtype),
                             min(w.size, w._nv_hi + mk.shape[0]))
        elif plain and F._form == "sparse" and w._is_empty_fresh():
            # an empty w (a BFS's first level): F's positions with the scalar
            # (F's index array is shared: sparse arrays are never written
            # in place)
            mk = F._sparse()[0]
            w._set_sparse(mk, w._be.full(mk.shape[0], _cast_scalar(value, w.dtype), w.dtype))
        elif plain and F._form == "dense":
            # the same with a dense F (the big levels of a power-law BFS):
            # one pass over the positions (Vector._update_where) with F's
            # presence lent as the mask, into w's own arrays where it owns
            # them; w turns dense, as on _assign's whole-vector path
            w._update_where(mask.dense_parts()[0], _cast_scalar(value, w.dtype),
                            min(w.size, w._nv_hi + F._nvals_estimate()))
        else:
            _assign(w, value, (indices,), mask, accum, replace)
        if before is not None and by is not None:
            note_growth(w, before, by)
        return w
    return _assign(w, value, (indices,), mask, accum, replace)


# Entries the sorted merges of ``w<F.S> = F`` have copied, counted on w
# itself (``Vector._merged``, kept across its stores): once they reach
# MERGE_DENSE_SHARE of w's size, w turns dense -- a rent-or-buy rule: the
# merges (each copies all of w's entries) never cost more than that share
# of a dense build before the build is paid, and a vector assigned into
# once or twice stays sparse.
MERGE_DENSE_SHARE = 0.25


def _merged_enough(w):
    """Count a merge into the sparse ``w`` (its entries are copied) and
    whether the merges have now copied ``MERGE_DENSE_SHARE`` of its
    size."""
    c = getattr(w, "_merged", 0) + w._nvals_estimate()
    if c >= MERGE_DENSE_SHARE * w.size:
        w._merged = 0
        return True
    w._merged = c
    return False


def _overwrite_sorted(be, kc, vc, kf, vf):
    """The entries ``(kc, vc)`` overwritten by ``(kf, vf)`` (both with
    sorted, distinct keys; ``vf`` in ``vc``'s type): ``kf``'s entries and
    those of ``kc`` not in ``kf``, sorted -- by searches and scatters, no
    sort (each key's place in the result is known from the other list)."""
    xp = be.xp
    nc = kc.shape[0]
    if nc == 0 or kf.shape[0] == 0:
        return (kf, vf) if nc == 0 else (kc, vc)
    pos = xp.searchsorted(kc, kf)
    at = xp.minimum(pos, nc - 1)
    found = kc[at] == kf
    miss = xp.flatnonzero(~found)
    km = kf[miss]
    pm = pos[miss] + xp.arange(miss.shape[0], dtype=pos.dtype)   # new keys' places
    m = nc + miss.shape[0]
    keys = xp.empty(m, dtype=kc.dtype)
    vals = xp.empty(m, dtype=vc.dtype)
    old = xp.ones(m, dtype=bool)
    old[pm] = False
    keys[old] = kc
    vals[old] = vc
    keys[pm] = km
    vals[pm] = vf[miss]
    hit = xp.flatnonzero(found)
    kh = kc[at[hit]]             # kept keys that kf overwrites: their places
    vals[at[hit] + xp.searchsorted(km, kh)] = vf[hit]
    return keys, vals


_INT64 = np.dtype(np.int64)
_I64_MIN, _I64_MAX = -(1 << 63), (1 << 63) - 1


def _cast_scalar(value, dtype):
    """``value`` (a Python or NumPy scalar) as a NumPy scalar of ``dtype``,
    cast as the output rule casts (C casting, ``casting="unsafe"``); bad
    input raises what ``apply._scalar`` raises.  A Python int into int64 (a
    BFS depth into a levels vector) is just ``np.int64(value)``: the same
    value, without the array round trip."""
    if value.__class__ is int and dtype is _INT64 and _I64_MIN <= value <= _I64_MAX:
        return np.int64(value)
    return np.asarray(_scalar(value, "assign")).astype(dtype, casting="unsafe")[()]


def matrix_assign(C, value, rows=None, cols=None, *, mask=None, accum=None, replace=False):
    """``C<mask>(rows, cols) = accum(C(rows, cols), value)``; value a scalar or a
    Matrix of shape (len(rows), len(cols)), or a Vector written into one column
    (``cols`` an int: GrB_Col_assign) or one row (``rows`` an int: GrB_Row_assign)."""
    return _assign(C, value, (rows, cols), mask, accum, replace)


def _assign(C, value, index_args, mask, accum, replace):
    from ..mask import check_mask
    from ..device import same_device
    be = C._be
    xp = be.xp
    what = "assign"
    check_replace(replace, what)
    dims = C.shape
    parsed = [parse_index(be, ix, d, f"{what} index") for ix, d in zip(index_args, dims)]
    idx = [p[0] for p in parsed]
    for I in idx:
        _unique_check(be, I, what)
    region = tuple(d if I is None else I.shape[0] for I, d in zip(idx, dims))
    check_mask(mask, C.shape, what)
    accum = resolve_accum(accum)
    is_scalar = not hasattr(value, "_be")
    line = not is_scalar and value._is_vector and not C._is_vector   # Col/Row_assign
    if line:
        from ..matrix import _scalar as _is_int
        if _is_int(index_args[0]) == _is_int(index_args[1]):
            raise InvalidValue(f"{what}: a Vector goes into one column (cols=int) or one row "
                               "(rows=int) of a Matrix")
        if value.size != (region[0] if _is_int(index_args[1]) else region[1]):
            raise DimensionMismatch(f"{what}: Vector of size {value.size} into a region of "
                                    f"shape {region}")
    elif not is_scalar:
        if value._is_vector != C._is_vector:
            raise InvalidValue(f"{what}: cannot assign a {type(value).__name__} into a "
                               f"{type(C).__name__}")
        if value.shape != region:
            raise DimensionMismatch(f"{what}: value has shape {value.shape} but the region "
                                    f"has shape {region}")
    same_device(what, ("the output", C), ("mask", None if mask is None else mask.parent),
                ("the value", None if is_scalar else value))
    if C._is_vector and idx[0] is None and (
            C.form == "dense" or mask is None or mask.parent.form == "dense"
            or be.dense_vectors or C._nvals_estimate() >= DENSE_FRACTION * C.size):
        # The region is the whole vector, so GrB_assign is exactly the output
        # rule with T = value; with dense operands (or on a backend that keeps
        # vectors dense) it runs as O(n) array work instead of key sorts (a
        # BFS level update on a dense level vector).
        if is_scalar:
            if mask is None and accum is None:
                # Z = T: the fill as C's own array (a later in-place update
                # -- PageRank's accumulated product into the teleport
                # vector -- writes it without a copy); a Python number with
                # replace=False comes here directly from vector_assign
                return _fill_whole(C, value, what)
            s = _scalar(value, what)
            if C.size > 1 << 26:
                _check_fill_alloc(be, C, s, what)
            # in C's type already unless an accum must see the scalar's own
            if accum is None:
                s = np.asarray(s).astype(C.dtype, casting="unsafe")[()]
            if mask is not None and not mask.complement and mask.parent.form == "sparse":
                # a sparse mask (a BFS frontier): T only where it allows, so
                # the output rule touches those positions, not all n
                mk = mask.keys()
                T = SparseResult(mk, be.full(mk.shape[0], s, np.asarray(s).dtype))
                return write(C, T, mask, accum, replace, masked=True)
            T = DenseVectorResult(be.full(C.size, s, np.asarray(s).dtype), None)
        else:
            T = value._view()
        return write(C, T, mask, accum, replace)
    ncols = np.int64(1 if C._is_vector else C.ncols)

    def to_keys(local_keys, local_ncols):
        """Region-local keys -> keys of C."""
        if C._is_vector:
            return local_keys if idx[0] is None else idx[0][local_keys]
        r, c = split_keys(local_keys, local_ncols)
        if idx[0] is not None:
            r = idx[0][r]
        if idx[1] is not None:
            c = idx[1][c]
        return r * ncols + c

    if is_scalar:
        s = _scalar(value, what)
        if mask is not None and not mask.complement:
            # only positions the mask allows can change: expand just those
            mk = mask.keys()
            keep = _in_region(be, mk, idx, ncols, C)
            ka = mk[keep]
        else:
            n_region = int(np.prod(region, dtype=np.int64))
            be.check_alloc(n_region * 16, f"{what} of a scalar to {n_region} positions")
            ka = to_keys(be.arange(n_region), region[-1] if not C._is_vector else 1)
        order = be.argsort(ka)
        ka = ka[order]
        va = be.full(ka.shape[0], s, np.asarray(s).dtype)
    else:
        lk, va = value._keys_vals()
        ka = to_keys(lk, 1 if C._is_vector else (region[1] if line else value.ncols))
        order = be.argsort(ka)
        ka, va = ka[order], va[order]

    kc, vc = C._keys_vals()
    inreg = _in_region(be, kc, idx, ncols, C)
    k_out, v_out = kc[~inreg], vc[~inreg]
    if accum is None:
        k_in, v_in = ka, be.cast(va, C.dtype)
    else:
        k_in, v_in = union(be, kc[inreg], vc[inreg], ka, va, accum, C.dtype)
    keys = xp.concatenate([k_out, k_in])
    vals = xp.concatenate([v_out, be.cast(v_in, C.dtype)])
    order = be.argsort(keys)
    return write(C, SparseResult(keys[order], vals[order]), mask, None, replace)


def _in_region(be, keys, idx, ncols, C):
    xp = be.xp
    if C._is_vector:
        if idx[0] is None:
            return xp.ones(keys.shape[0], dtype=bool)
        sel = xp.zeros(C.size, dtype=bool)
        sel[idx[0]] = True
        return sel[keys]
    r, c = split_keys(keys, ncols)
    ok = xp.ones(keys.shape[0], dtype=bool)
    if idx[0] is not None:
        sel = xp.zeros(C.nrows, dtype=bool)
        sel[idx[0]] = True
        ok &= sel[r]
    if idx[1] is not None:
        sel = xp.zeros(C.ncols, dtype=bool)
        sel[idx[1]] = True
        ok &= sel[c]
    return ok
