"""Every GraphBLAS operation, one module per family, attached here as methods
of :class:`Matrix` and :class:`Vector`.

All operations take keyword-only ``mask=``, ``accum=``, ``replace=`` and
``out=``; they return ``out`` (a new object when ``out`` is None).  The result
is written by the one output rule in :mod:`.output`.

Each method is an ordinary function with the operation's own signature; the
:func:`_method` decorator gives it its public name (``Matrix.mxm``,
``Vector.vxm``...), so ``help()``, :func:`inspect.signature`, tracebacks and
argument errors (``Matrix.mxv() missing 1 required positional argument``) name
the method a user called.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence, Union

from ..mask import Mask
from ..matrix import Matrix
from ..operators import BinaryOp, IndexUnaryOp, Monoid, Semiring, UnaryOp
from ..vector import Vector
from . import apply as _apply
from . import assign as _assign
from . import ewise as _ewise
from . import extract as _extract
from . import mxm as _mxm
from . import mxv as _mxv
from . import reduce as _reduce
from . import transpose as _transpose

# Names the annotations below use (strings under ``from __future__ import
# annotations``; :func:`typing.get_type_hints` resolves them in this module).
SemiringLike = Union[Semiring, str]
BinaryOpLike = Union[BinaryOp, str]
MonoidLike = Union[Monoid, str]
ApplyOpLike = Union[UnaryOp, BinaryOp, IndexUnaryOp, str]
SelectOpLike = Union[IndexUnaryOp, str]
MaskLike = Union[Mask, Matrix, Vector, None]
AccumLike = Union[BinaryOp, str, None]
Index = Union[int, Sequence[int], Any, None]
Scalar = Union[int, float, bool, complex]


def _method(cls, name=None):
    """Attach the decorated function to ``cls`` as ``cls.<name>`` under its public
    name: ``__name__``, ``__qualname__`` and the code object's names (what
    tracebacks and argument errors print) all say ``Matrix.mxm`` etc."""
    def attach(f):
        n = name or f.__name__.split("_", 2)[-1]
        f.__name__ = n
        f.__qualname__ = f"{cls.__name__}.{n}"
        f.__module__ = cls.__module__
        try:
            f.__code__ = f.__code__.replace(co_name=n, co_qualname=f.__qualname__)
        except TypeError:        # Python < 3.11 has no co_qualname
            f.__code__ = f.__code__.replace(co_name=n)
        setattr(cls, n, f)
        return f
    return attach


_SWITCHES = """
    Descriptor switches (GraphBLAST's Table 5.2; True by default, bools only;
    switching one off changes the work done, never the result):
    structure_only=False reads the matrix values even when the multiply
    ignores them (GrB_STRUCONLY off); mask_first=False computes every output
    and lets the output rule apply the mask afterwards; early_exit=False lets
    no row of pull stop at the monoid's terminal value (GrB_EARLYEXIT off)."""

_OUT = """
    mask, accum, replace, out: the output rule (``out<mask> = accum(out, T)``;
    replace=True clears the entries of ``out`` outside the mask). Returns
    ``out`` (a new object when None)."""


# ---------------------------------------------------------------- Matrix
@_method(Matrix)
def _Matrix_mxv(self: Matrix, u: Vector, semiring: SemiringLike, *, mask: MaskLike = None,
                accum: AccumLike = None, replace: bool = False, out: Optional[Vector] = None,
                direction: str = "auto", pull_input: Optional[Vector] = None,
                structure_only: bool = True, mask_first: bool = True,
                early_exit: bool = True) -> Vector:
    # (straight to the common body, as mxv.mxv does: one call fewer in a loop)
    return _mxv._matvec("mxv", self, u, semiring, mask, accum, replace, out, direction,
                        pull_input, structure_only, mask_first, early_exit, False)


Matrix.mxv.__doc__ = """``w<mask> = accum(w, A (+).(x) u)``: ``w(i) = add_j A(i,j) (x) u(j)``.

    semiring: a Semiring or its name. direction: "auto" (cost model), "push"
    (over the stored entries of u) or "pull" (over the rows the mask allows).
    pull_input: optional Vector that gives the same result as ``u`` in pull
    (e.g. BFS's visited set: operand reuse). Returns out (new when None).
""" + _SWITCHES


@_method(Matrix)
def _Matrix_mxm(self: Matrix, other: Matrix, semiring: SemiringLike, *, mask: MaskLike = None,
                accum: AccumLike = None, replace: bool = False, out: Optional[Matrix] = None,
                method: str = "auto") -> Matrix:
    """``C<mask> = accum(C, A (+).(x) B)``: ``C(i,j) = add_k A(i,k) (x) B(k,j)``.

    method: "auto", "saxpy" (expand all products, mask before the sort),
    "dot" (masked dot products: only the masked entries) or "spmm" (B dense)."""
    return _mxm.mxm(self, other, semiring, mask=mask, accum=accum, replace=replace, out=out,
                    method=method)


@_method(Matrix)
def _Matrix_mxm_reduce(self: Matrix, other: Matrix, semiring: SemiringLike, *,
                       mask: MaskLike = None, apply: Union[UnaryOp, str, None] = None,
                       monoid: MonoidLike = "plus", accum: AccumLike = None,
                       out: Optional[Vector] = None, method: str = "auto") -> Vector:
    """Vector ``w(i) = monoid_j apply(C(i,j))`` over the entries of
    ``C<mask> = A (+).(x) B``, computed without storing C; rows of C without an
    entry have no entry in w.  ``apply=None`` is the identity; ``accum``/``out``:
    ``w = accum(out, ...)``.  method: "auto", "saxpy" (Gustavson rows, any
    mask) or "dot" (one dot product per entry of a non-complemented mask)."""
    return _mxm.mxm_reduce(self, other, semiring, mask=mask, apply=apply, monoid=monoid,
                           accum=accum, out=out, method=method)


def _ewise_methods(cls):
    @_method(cls)
    def _x_ewise_add(self, other, op: BinaryOpLike, *, mask: MaskLike = None,
                     accum: AccumLike = None, replace: bool = False, out=None):
        return _ewise.ewise_add(self, other, op, mask=mask, accum=accum, replace=replace,
                                out=out)
    _x_ewise_add.__doc__ = ("Union of structures: ``op(a, b)`` where both exist, the one "
                            "present value elsewhere.\n" + _OUT)

    @_method(cls)
    def _x_ewise_mult(self, other, op: BinaryOpLike, *, mask: MaskLike = None,
                      accum: AccumLike = None, replace: bool = False, out=None):
        return _ewise.ewise_mult(self, other, op, mask=mask, accum=accum, replace=replace,
                                 out=out)
    _x_ewise_mult.__doc__ = "Intersection of structures: ``op(a, b)``.\n" + _OUT

    @_method(cls)
    def _x_ewise_union(self, other, op: BinaryOpLike, left_default: Scalar,
                       right_default: Scalar, *, mask: MaskLike = None, accum: AccumLike = None,
                       replace: bool = False, out=None):
        return _ewise.ewise_union(self, other, op, left_default, right_default, mask=mask,
                                  accum=accum, replace=replace, out=out)
    _x_ewise_union.__doc__ = ("Union with ``op`` applied everywhere: a missing operand is "
                              "replaced by left_default / right_default.\n" + _OUT)

    @_method(cls)
    def _x_apply(self, op: ApplyOpLike, *, left: Optional[Scalar] = None,
                 right: Optional[Scalar] = None, thunk: Optional[Scalar] = None,
                 mask: MaskLike = None, accum: AccumLike = None, replace: bool = False,
                 out=None):
        return _apply.apply(self, op, left=left, right=right, thunk=thunk, mask=mask,
                            accum=accum, replace=replace, out=out)
    _x_apply.__doc__ = ("``op(x)`` (UnaryOp), ``op(left, x)`` / ``op(x, right)`` (BinaryOp with "
                        "a bound scalar) or ``op(x, i, j, thunk)`` (IndexUnaryOp) on every "
                        "stored entry.\n" + _OUT)

    @_method(cls)
    def _x_select(self, op: SelectOpLike, thunk: Optional[Scalar] = None, *,
                  mask: MaskLike = None, accum: AccumLike = None, replace: bool = False,
                  out=None):
        return _apply.select(self, op, thunk, mask=mask, accum=accum, replace=replace, out=out)
    _x_select.__doc__ = ("Keep the entries where the IndexUnaryOp predicate is true; ``op`` may "
                         "be 'tril', 'triu', 'diag', 'offdiag', '>', '>=', '<', '<=', '==', "
                         "'!=', 'row<=', 'row>', 'col<=', 'col>'.\n" + _OUT)


_ewise_methods(Matrix)
_ewise_methods(Vector)


@_method(Matrix)
def _Matrix_reduce_rowwise(self: Matrix, monoid: MonoidLike = "plus", *, mask: MaskLike = None,
                           accum: AccumLike = None, replace: bool = False,
                           out: Optional[Vector] = None) -> Vector:
    """Vector ``w(i) = add_j A(i,j)``; empty rows have no entry."""
    return _reduce.reduce_rowwise(self, monoid, mask=mask, accum=accum, replace=replace, out=out)


@_method(Matrix)
def _Matrix_reduce_columnwise(self: Matrix, monoid: MonoidLike = "plus", *,
                              mask: MaskLike = None, accum: AccumLike = None,
                              replace: bool = False, out: Optional[Vector] = None) -> Vector:
    """Vector ``w(j) = add_i A(i,j)``; empty columns have no entry."""
    return _reduce.reduce_columnwise(self, monoid, mask=mask, accum=accum, replace=replace,
                                     out=out)


@_method(Matrix)
def _Matrix_reduce_scalar(self: Matrix, monoid: MonoidLike = "plus") -> Any:
    """Python scalar: every stored value reduced with the monoid (its identity
    when the matrix is empty)."""
    return _reduce.reduce_scalar(self, monoid)


@_method(Vector)
def _Vector_reduce(self: Vector, monoid: MonoidLike = "plus") -> Any:
    """Python scalar: every stored value reduced with the monoid (its identity
    when the vector is empty)."""
    return _reduce.reduce_scalar(self, monoid)


@_method(Matrix)
def _Matrix_assign(self: Matrix, value: Union[Scalar, Matrix, Vector], rows: Index = None,
                   cols: Index = None, *, mask: MaskLike = None, accum: AccumLike = None,
                   replace: bool = False) -> Matrix:
    return _assign.matrix_assign(self, value, rows, cols, mask=mask, accum=accum,
                                 replace=replace)


Matrix.assign.__doc__ = _assign.matrix_assign.__doc__ + " Returns the matrix (changed in place)."


@_method(Vector)
def _Vector_assign(self: Vector, value: Union[Scalar, Vector], indices: Index = None, *,
                   mask: MaskLike = None, accum: AccumLike = None,
                   replace: bool = False) -> Vector:
    return _assign.vector_assign(self, value, indices, mask=mask, accum=accum, replace=replace)


Vector.assign.__doc__ = _assign.vector_assign.__doc__ + " Returns the vector (changed in place)."


@_method(Matrix)
def _Matrix_extract(self: Matrix, rows: Index, cols: Index, *, mask: MaskLike = None,
                    accum: AccumLike = None, replace: bool = False,
                    out: Union[Matrix, Vector, None] = None) -> Union[Matrix, Vector]:
    return _extract.matrix_extract(self, rows, cols, mask=mask, accum=accum, replace=replace,
                                   out=out)


Matrix.extract.__doc__ = _extract.matrix_extract.__doc__ + "\n" + _OUT


@_method(Vector)
def _Vector_extract(self: Vector, indices: Index, *, mask: MaskLike = None,
                    accum: AccumLike = None, replace: bool = False,
                    out: Optional[Vector] = None) -> Vector:
    return _extract.vector_extract(self, indices, mask=mask, accum=accum, replace=replace,
                                   out=out)


Vector.extract.__doc__ = _extract.vector_extract.__doc__ + "\n" + _OUT


@_method(Matrix)
def _Matrix_transpose(self: Matrix, *, mask: MaskLike = None, accum: AccumLike = None,
                      replace: bool = False, out: Optional[Matrix] = None) -> Matrix:
    return _transpose.transpose(self, mask=mask, accum=accum, replace=replace, out=out)


Matrix.transpose.__doc__ = _transpose.transpose.__doc__ + "\n" + _OUT


@_method(Matrix)
def _Matrix_kronecker(self: Matrix, other: Matrix, op: BinaryOpLike, *, mask: MaskLike = None,
                      accum: AccumLike = None, replace: bool = False,
                      out: Optional[Matrix] = None) -> Matrix:
    return _transpose.kronecker(self, other, op, mask=mask, accum=accum, replace=replace,
                                out=out)


Matrix.kronecker.__doc__ = _transpose.kronecker.__doc__ + "\n" + _OUT


# ---------------------------------------------------------------- Vector
@_method(Vector)
def _Vector_vxm(self: Vector, A: Matrix, semiring: SemiringLike, *, mask: MaskLike = None,
                accum: AccumLike = None, replace: bool = False, out: Optional[Vector] = None,
                direction: str = "auto", pull_input: Optional[Vector] = None,
                structure_only: bool = True, mask_first: bool = True,
                early_exit: bool = True) -> Vector:
    return _mxv._matvec("vxm", A, self, semiring, mask, accum, replace, out, direction,
                        pull_input, structure_only, mask_first, early_exit, True)


Vector.vxm.__doc__ = """``w<mask> = accum(w, u (+).(x) A)``: ``w(j) = add_i u(i) (x) A(i,j)``.

    For a graph A (edge i->j is A[i, j]) this advances a frontier u along
    out-edges. direction: "auto", "push" (rows of A at u's entries) or "pull"
    (in-edges of the positions the mask allows, with early exit). pull_input:
    as for Matrix.mxv (operand reuse).
""" + _SWITCHES

#: Every method this module attaches, by class (the API tests walk it).
METHODS = {
    "Matrix": ("mxv", "mxm", "mxm_reduce", "ewise_add", "ewise_mult", "ewise_union", "apply", "select",
               "reduce_rowwise", "reduce_columnwise", "reduce_scalar", "assign", "extract",
               "transpose", "kronecker"),
    "Vector": ("vxm", "ewise_add", "ewise_mult", "ewise_union", "apply", "select", "reduce",
               "assign", "extract"),
}

__all__ = ["Matrix", "Vector", "METHODS"]
