"""Every GraphBLAS operation, one module per family, attached here as methods
of :class:`Matrix` and :class:`Vector`.

All operations take keyword-only ``mask=``, ``accum=``, ``replace=`` and
``out=``; they return ``out`` (a new object when ``out`` is None).  The result
is written by the one output rule in :mod:`.output`.
"""
from ..matrix import Matrix
from ..vector import Vector
from . import apply as _apply
from . import assign as _assign
from . import ewise as _ewise
from . import extract as _extract
from . import mxm as _mxm
from . import mxv as _mxv
from . import reduce as _reduce
from . import transpose as _transpose


def _doc(f, text):
    f.__doc__ = text
    return f


# ---------------------------------------------------------------- Matrix
def _m_mxv(self, u, semiring, *, mask=None, accum=None, replace=False, out=None,
           direction="auto", pull_input=None, structure_only=True, mask_first=True,
           early_exit=True):
    return _mxv.mxv(self, u, semiring, mask=mask, accum=accum, replace=replace, out=out,
                    direction=direction, pull_input=pull_input, structure_only=structure_only,
                    mask_first=mask_first, early_exit=early_exit)


_SWITCHES = """
    Descriptor switches (GraphBLAST's Table 5.2; True by default, bools only;
    switching one off changes the work done, never the result):
    structure_only=False reads the matrix values even when the multiply
    ignores them (GrB_STRUCONLY off); mask_first=False computes every output
    and lets the output rule apply the mask afterwards; early_exit=False lets
    no row of pull stop at the monoid's terminal value (GrB_EARLYEXIT off)."""

Matrix.mxv = _doc(_m_mxv, """``w<mask> = accum(w, A (+).(x) u)``: ``w(i) = add_j A(i,j) (x) u(j)``.

    semiring: a Semiring or its name. direction: "auto" (cost model), "push"
    (over the stored entries of u) or "pull" (over the rows the mask allows).
    pull_input: optional Vector that gives the same result as ``u`` in pull
    (e.g. BFS's visited set: operand reuse). Returns out (new when None).
""" + _SWITCHES)


def _m_mxm(self, other, semiring, *, mask=None, accum=None, replace=False, out=None,
           method="auto"):
    return _mxm.mxm(self, other, semiring, mask=mask, accum=accum, replace=replace, out=out,
                    method=method)


Matrix.mxm = _doc(_m_mxm, """``C<mask> = accum(C, A (+).(x) B)``: ``C(i,j) = add_k A(i,k) (x) B(k,j)``.

    method: "auto", "saxpy" (expand all products, mask before the sort),
    "dot" (masked dot products: only the masked entries) or "spmm" (B dense).""")

for _cls in (Matrix, Vector):
    _cls.ewise_add = _doc(lambda self, other, op, **kw: _ewise.ewise_add(self, other, op, **kw),
                          "Union of structures; ``op(a, b)`` where both exist. "
                          "Keywords: mask, accum, replace, out.")
    _cls.ewise_mult = _doc(lambda self, other, op, **kw: _ewise.ewise_mult(self, other, op, **kw),
                           "Intersection of structures: ``op(a, b)``. "
                           "Keywords: mask, accum, replace, out.")
    _cls.ewise_union = _doc(
        lambda self, other, op, left_default, right_default, **kw:
        _ewise.ewise_union(self, other, op, left_default, right_default, **kw),
        "Union with ``op`` applied everywhere: a missing operand is replaced by "
        "left_default / right_default.")
    _cls.apply = _doc(lambda self, op, **kw: _apply.apply(self, op, **kw),
                      "``op(x)`` (UnaryOp), ``op(left, x)`` / ``op(x, right)`` (BinaryOp with "
                      "a bound scalar) or ``op(x, i, j, thunk)`` (IndexUnaryOp) on every "
                      "stored entry. Keywords: left, right, thunk, mask, accum, replace, out.")
    _cls.select = _doc(lambda self, op, thunk=None, **kw: _apply.select(self, op, thunk, **kw),
                       "Keep the entries where the IndexUnaryOp predicate is true; ``op`` may "
                       "be 'tril', 'triu', 'diag', 'offdiag', '>', '>=', '<', '<=', '==', "
                       "'!=', 'row<=', 'row>', 'col<=', 'col>'.")

Matrix.reduce_rowwise = _doc(lambda self, monoid="plus", **kw:
                             _reduce.reduce_rowwise(self, monoid, **kw),
                             "Vector ``w(i) = add_j A(i,j)``; empty rows have no entry.")
Matrix.reduce_columnwise = _doc(lambda self, monoid="plus", **kw:
                                _reduce.reduce_columnwise(self, monoid, **kw),
                                "Vector ``w(j) = add_i A(i,j)``; empty columns have no entry.")
Matrix.reduce_scalar = _doc(lambda self, monoid="plus": _reduce.reduce_scalar(self, monoid),
                            "Python scalar: every stored value reduced with the monoid "
                            "(its identity when the matrix is empty).")
Vector.reduce = _doc(lambda self, monoid="plus": _reduce.reduce_scalar(self, monoid),
                     "Python scalar: every stored value reduced with the monoid "
                     "(its identity when the vector is empty).")
Matrix.assign = _assign.matrix_assign
Vector.assign = _assign.vector_assign
Matrix.extract = _extract.matrix_extract
Vector.extract = _extract.vector_extract
Matrix.transpose = _transpose.transpose
Matrix.kronecker = _transpose.kronecker


def _v_vxm(self, A, semiring, *, mask=None, accum=None, replace=False, out=None,
           direction="auto", pull_input=None, structure_only=True, mask_first=True,
           early_exit=True):
    return _mxv.vxm(self, A, semiring, mask=mask, accum=accum, replace=replace, out=out,
                    direction=direction, pull_input=pull_input, structure_only=structure_only,
                    mask_first=mask_first, early_exit=early_exit)


Vector.vxm = _doc(_v_vxm, """``w<mask> = accum(w, u (+).(x) A)``: ``w(j) = add_i u(i) (x) A(i,j)``.

    For a graph A (edge i->j is A[i, j]) this advances a frontier u along
    out-edges. direction: "auto", "push" (rows of A at u's entries) or "pull"
    (in-edges of the positions the mask allows, with early exit). pull_input:
    as for Matrix.mxv (operand reuse).
""" + _SWITCHES)

__all__ = ["Matrix", "Vector"]
