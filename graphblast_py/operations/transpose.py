"""``transpose`` (GrB_transpose, with mask/accum/out) and ``kronecker``."""
import numpy as np

from ..errors import DimensionMismatch, InvalidValue
from ..indexing import MAX_DIM
from ..results import CSRResult, DenseMatrixResult, SparseResult
from .common import as_binary, check_replace, check_user_op, finish, prepare
from .output import _op


def transpose(A, *, mask=None, accum=None, replace=False, out=None):
    """``C<mask> = accum(C, A^T)``; ``A.T`` is the cheap form without a mask."""
    check_replace(replace, "transpose")
    shape = (A.ncols, A.nrows)
    accum = prepare("transpose", [("the matrix", A)], out, shape, False, mask, accum)
    t = A.T
    if t.form == "dense":
        T = DenseMatrixResult(t._dvals, t._dpres)
    else:
        T = CSRResult(t._indptr, t._indices, t._vals, t._iso)
    return finish(out, T, A.dtype, shape, A._be, mask, accum, replace, False)


def kronecker(A, B, op, *, mask=None, accum=None, replace=False, out=None):
    """``C(i1*m2 + i2, j1*n2 + j2) = op(A(i1, j1), B(i2, j2))`` (GrB_kronecker)."""
    from ..matrix import Matrix
    if not isinstance(A, Matrix) or not isinstance(B, Matrix):
        raise InvalidValue("kronecker: both operands must be Matrices")
    op = as_binary(op, "kronecker")
    check_replace(replace, "kronecker")
    shape = (A.nrows * B.nrows, A.ncols * B.ncols)
    if shape[0] > MAX_DIM or shape[1] > MAX_DIM or shape[0] * shape[1] > 2**63 - 1:
        raise DimensionMismatch(
            f"kronecker: a {A.nrows}x{A.ncols} by a {B.nrows}x{B.ncols} matrix gives a "
            f"{shape[0]}x{shape[1]} result, beyond the supported size (each dimension at most "
            f"2**62 and nrows * ncols below 2**63, the int64 positions)")
    accum = prepare("kronecker", [("A", A), ("B", B)], out, shape, False, mask, accum)
    be = A._be
    check_user_op(op, be, "kronecker")
    be.check_alloc(A.nvals * B.nvals * 24, "kronecker product")
    ka, va = A._keys_vals()
    kb, vb = B._keys_vals()
    na, nb = np.int64(max(A.ncols, 1)), np.int64(max(B.ncols, 1))
    ia, ja = ka // na, ka % na
    ib, jb = kb // nb, kb % nb
    # every pair (entry sa of A, entry sb of B), A-major
    sa, sb = be.expand(be.full(ka.shape[0], kb.shape[0], np.int64))
    i = ia[sa] * np.int64(B.nrows) + ib[sb]
    j = ja[sa] * np.int64(B.ncols) + jb[sb]
    keys = i * np.int64(shape[1]) + j
    dt = op.out_dtype(A.dtype, B.dtype)
    vals = _op(be, op, va[sa], vb[sb], dt, keys, shape[1])
    order = be.argsort(keys)
    return finish(out, SparseResult(keys[order], vals[order]), dt, shape, be, mask, accum,
                  replace, False)
