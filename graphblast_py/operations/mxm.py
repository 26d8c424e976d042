"""``mxm``: SpGEMM, masked SpGEMM and SpMM.

Methods (``method="auto"`` picks one; the choice is recorded in ``gb.stats``):

* ``"spmm"`` -- B is in dense form with every entry present: a dense result
  (row-split or merge-based work distribution is the backend's business);
* ``"dot"`` -- a non-complemented mask: compute only the masked entries,
  each as a merge of row i of A with column j of B (masked dot product), when
  that is cheaper than expanding all products;
* a full diagonal operand (``Matrix.from_diag`` of a vector with every
  entry, known without reading it): ``D A`` scales A's rows, ``A D`` its
  columns, on A's structure (``method="auto"`` only; recorded as
  ``mxm: diag``);
* ``"saxpy"`` -- expand every product A(i,k) B(k,j) (Gustavson/ESC), drop the
  ones the mask forbids before sorting, reduce; in blocks of A's entries whose
  products fit a memory budget (``backend/generic_spgemm.py``).  Without a
  mask, an A stored dense and a sparse B with about as many entries as
  columns give a dense result computed from A's dense rows where the
  backend has the kernel (``dense_sparse_mm``, the CPU; recorded as
  ``mxm: dense``).

``mxm_reduce`` fuses ``mxm``, an element-wise unary operator and a row
reduction: ``w(i) = monoid_j op(C(i, j))`` over the entries of
``C<mask> = A (+).(x) B``, without storing C.
"""
import numpy as np

from ..errors import DimensionMismatch, InvalidValue
from ..backend.keys import split_keys
from ..stats import stats
from ..results import DenseMatrixResult, SparseResult
from ..mask import check_mask
from ..operators.core import UnaryOp
from ..operators import predefined
from .common import as_monoid, as_semiring, check_replace, check_user_op, finish, prepare

# One saxpy product (expand, mask test, sort, reduce; memory per product) costs
# about this many merge steps of the masked dot kernel: measured 85-240 ns per
# saxpy flop against ~5 ns per dot merge step on the CPU (complete graph K_300,
# R-MAT scale 12, 100x100 grid; triangle-counting products).  Without the
# weight, U L<U> on an R-MAT scale-16 graph went saxpy: 43 s and 13 GB.
# A backend with a cheaper saxpy says so: ``be.saxpy_flop_cost`` (the CPU's
# Gustavson kernel: 3).
SAXPY_FLOP_COST = 16
# the dot kernels intersect two lists by binary searches from the shorter one
# when it is this many times shorter (backend/cpu/spgemm.py GALLOP_RATIO)
GALLOP_RATIO = 8


def _check_operands(A, B, what):
    from ..matrix import Matrix
    if not isinstance(A, Matrix) or not isinstance(B, Matrix):
        raise InvalidValue(f"{what}: expected two Matrix operands, got {type(A).__name__} and "
                           f"{type(B).__name__}")
    if A.ncols != B.nrows:
        raise DimensionMismatch(f"{what}: {A.nrows}x{A.ncols} times {B.nrows}x{B.ncols}: inner "
                                f"dimensions {A.ncols} and {B.nrows} differ")


def mxm(A, B, semiring, *, mask=None, accum=None, replace=False, out=None, method="auto"):
    """``C<mask> = accum(C, A (+).(x) B)``: see :meth:`Matrix.mxm`."""
    semiring = as_semiring(semiring, "mxm")
    _check_operands(A, B, "mxm")
    if method not in ("auto", "saxpy", "dot", "spmm"):
        raise InvalidValue(f"mxm: method must be 'auto', 'saxpy', 'dot' or 'spmm', got "
                           f"{method!r}")
    check_replace(replace, "mxm")
    shape = (A.nrows, B.ncols)
    accum = prepare("mxm", [("A", A), ("B", B)], out, shape, False, mask, accum)
    be = A._be
    check_user_op(semiring, be, "mxm")
    out_dtype = semiring.out_dtype(A.dtype, B.dtype)
    mult = semiring.mult
    if method == "auto" and (A._is_full_diagonal() or B._is_full_diagonal()):
        # a full diagonal operand (Matrix.from_diag): every entry of the
        # product has one term, D(i, i) (x) B(i, j) or A(i, j) (x) D(j, j), on
        # the other operand's structure -- a row or column scaling, one pass
        # over its entries, no product count, sort or check
        left = A._is_full_diagonal()
        T = be.spgemm_diag(A._csr(mult.reads_x), B._csr(mult.reads_y), semiring, out_dtype,
                           shape, left)
        stats.record("mxm", "diag")
        return finish(out, T, out_dtype, shape, be, mask, accum, replace, False)
    if method == "auto":
        method = _choose(A, B, mask, be.saxpy_flop_cost(semiring, out_dtype) or SAXPY_FLOP_COST)
        if method == "saxpy" and mask is None and A.form == "dense" and B.form == "sparse" \
                and B.ncols <= 4 * max(B.nvals, 1):
            # A stored dense (every row holds most columns) times a sparse B
            # whose columns are about as many as its entries: the result is
            # dense, computed from A's dense rows without converting A
            # (FGLT's net transform: n x 16 times 16 x 16), where the
            # backend has the kernel
            T = _dense_sparse(A, B, semiring, out_dtype, shape, be)
            if T is not None:
                stats.record("mxm", "dense")
                return finish(out, T, out_dtype, shape, be, mask, accum, replace, False)
    if method == "spmm":
        if B.nvals != B.nrows * B.ncols:
            raise InvalidValue(f"mxm(method='spmm') needs B with every entry present; B has "
                               f"{B.nvals} of {B.nrows * B.ncols}")
        B.to_dense_form()
    if method == "dot" and (mask is None or mask.complement):
        raise InvalidValue("mxm(method='dot') needs a mask that is not complemented")
    stats.record("mxm", method)
    if method == "spmm":
        vals, rowpres = be.spmm(A._csr(mult.reads_x), B._dvals, semiring, out_dtype)
        pres = None if bool(rowpres.all()) else be.xp.broadcast_to(
            rowpres[:, None], shape).copy()
        T = DenseMatrixResult(vals, pres)
    elif method == "dot":
        mkeys = mask.keys()
        keys, vals = be.spgemm_dot(A._csr(mult.reads_x), B._csc_arrays(mult.reads_y), semiring,
                                   mkeys, out_dtype, shape, A.ncols)
        T = SparseResult(keys, vals)
    else:
        mk = None if mask is None else (mask.keys(), mask.complement)
        mcsr = mask.parent._csr(False)[:2] if mask is not None and mask.structure else None
        T = be.spgemm_blocked(A._csr(mult.reads_x), B._csr(mult.reads_y), semiring, mk,
                              out_dtype, shape, mcsr)
    # dot and saxpy compute only what the mask allows: the output rule need not filter T
    return finish(out, T, out_dtype, shape, be, mask, accum, replace, False,
                  masked=method != "spmm")


def mxm_reduce(A, B, semiring, *, mask=None, apply=None, monoid="plus", accum=None, out=None,
               method="auto"):
    """``w = accum(w, [monoid_j op(C(i, j))]_i)`` with ``C<mask> = A (+).(x) B``:
    see :meth:`Matrix.mxm_reduce`."""
    semiring = as_semiring(semiring, "mxm_reduce")
    monoid = as_monoid(monoid, "mxm_reduce")
    if isinstance(apply, str):
        apply = predefined.lookup("unary", apply)
    if apply is not None and not isinstance(apply, UnaryOp):
        raise InvalidValue(f"mxm_reduce: apply must be a UnaryOp (e.g. gb.unary.abs) or None, "
                           f"got {apply!r}")
    _check_operands(A, B, "mxm_reduce")
    if method not in ("auto", "saxpy", "dot"):
        raise InvalidValue(f"mxm_reduce: method must be 'auto', 'saxpy' or 'dot', got "
                           f"{method!r}")
    shape = (A.nrows, B.ncols)
    check_mask(mask, shape, "mxm_reduce")
    operands = [("A", A), ("B", B)] + ([("mask", mask.parent)] if mask is not None else [])
    accum = prepare("mxm_reduce", operands, out, (A.nrows,), True, None, accum)
    be = A._be
    for op in (semiring, monoid) + ((apply,) if apply is not None else ()):
        check_user_op(op, be, "mxm_reduce")
    out_dtype = semiring.out_dtype(A.dtype, B.dtype)
    op_dtype = apply.out_dtype(out_dtype) if apply is not None else out_dtype
    red_dtype = monoid.out_dtype(op_dtype)
    mult = semiring.mult
    if method == "auto":
        method = _choose(A, B, mask, be.saxpy_flop_cost(semiring, out_dtype) or SAXPY_FLOP_COST)
        method = "saxpy" if method == "spmm" else method      # a dense B: Gustavson rows too
    if method == "dot" and (mask is None or mask.complement):
        raise InvalidValue("mxm_reduce(method='dot') needs a mask that is not complemented")
    stats.record("mxm_reduce", method)
    if method == "dot":
        mcsr = _mask_csr(mask) if be.dot_mask_csr else None
        rows, vals = be.spgemm_reduce_dot(A._csr(mult.reads_x), B._csc_arrays(mult.reads_y),
                                          semiring, mask.keys() if mcsr is None else None,
                                          out_dtype, shape, A.ncols, apply, op_dtype, monoid,
                                          red_dtype, mask_csr=mcsr)
    else:
        mk = None if mask is None else (mask.keys(), mask.complement)
        mcsr = mask.parent._csr(False)[:2] if mask is not None and mask.structure else None
        rows, vals = be.spgemm_reduce(A._csr(mult.reads_x), B._csr(mult.reads_y), semiring, mk,
                                      out_dtype, shape, apply, op_dtype, monoid, red_dtype, mcsr)
    return finish(out, SparseResult(rows, be.cast(vals, red_dtype)), red_dtype, (A.nrows,), be,
                  None, accum, False, True)


def _mask_csr(mask):
    """(indptr, indices) of a structural mask whose matrix is stored sparse
    (its rows as they are: no keys), else None."""
    p = mask.parent
    if mask.structure and not mask.complement and not p._is_vector and p.form == "sparse":
        return p._csr(False)[:2]
    return None


def _dense_sparse(A, B, semiring, out_dtype, shape, be):
    """The product of a dense-form A and a sparse B as a DenseMatrixResult
    by the backend's ``dense_sparse_mm``, or None where it has none."""
    av, ap = A._dense_arrays()
    got = be.dense_sparse_mm(av, ap, B._csr(semiring.mult.reads_y), B.ncols, semiring,
                             out_dtype)
    return None if got is None else DenseMatrixResult(*got)


def _choose(A, B, mask, flop_cost):
    if B.form == "dense" and B._dpres is None and A.form == "sparse":
        return "spmm"
    if mask is None or mask.complement:
        return "saxpy"
    # flops of the full product vs. the merge work of the masked entries
    ip, ix, _ = A._csr(False)
    bp = B._row_ptr()                       # (a deferred B.T stays deferred)
    mcsr = _mask_csr(mask)
    if mcsr is not None:
        if mcsr[1].shape[0] == 0:
            return "dot"
        costs = A._be.dot_costs(ip, ix, bp, B._csc_arrays(False)[0], mcsr[0], mcsr[1],
                                GALLOP_RATIO)
        if costs is not None:
            flops, dot_work = costs
            return "dot" if dot_work <= flop_cost * flops else "saxpy"
    blen = (bp[1:] - bp[:-1]).astype(np.int64)
    flops = int(blen[ix.astype(np.int64)].sum()) if ix.shape[0] else 0
    if mcsr is None:
        mkeys = mask.keys()
        if mkeys.shape[0] == 0:
            return "dot"
        mi, mj = split_keys(mkeys, B.ncols)
    else:
        mp, mj = mcsr
        mi = A._be.rows_of(mp, mj.shape[0])
    alen = (ip[1:] - ip[:-1]).astype(np.int64)
    cp, _, _ = B._csc_arrays(False)
    clen = (cp[1:] - cp[:-1]).astype(np.int64)
    la, lb = alen[mi], clen[mj]
    # a merge costs la + lb steps; lists of very unequal length are intersected
    # by binary searches from the shorter one (about short * log2(long) steps)
    xp = A._be.xp
    short, long = xp.minimum(la, lb), xp.maximum(la, lb)
    gallop = short * GALLOP_RATIO < long
    steps = xp.where(gallop, short * (1 + xp.log2(long + 1)).astype(np.int64), la + lb)
    dot_work = int(steps.sum())
    return "dot" if dot_work <= flop_cost * flops else "saxpy"
