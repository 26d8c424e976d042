"""Argument checks shared by every operation: run before anything is
computed or written, so a failing call leaves ``out`` untouched."""
from ..device import same_device
from ..dtypes import lookup
from ..errors import DimensionMismatch, InvalidValue, MissingKernel
from ..mask import Mask, check_mask
from ..operators import predefined
from ..operators.core import BinaryOp, Monoid, Semiring
from ..results import SparseResult
from ..vector import Vector
from .output import resolve_accum, write


# Python numbers, plainly no framework object: an operand's class tested
# against these needs no attribute probe (a failed hasattr costs a raised
# and caught AttributeError) -- a BFS depth, ewise_union's defaults
PY_NUMBERS = frozenset((int, float, bool))


def prepare(what, operands, out, out_shape, out_is_vector, mask, accum):
    """Validate devices, ``out`` and ``mask``; returns the resolved accum op."""
    objs = list(operands)
    if out is not None:
        if getattr(out, "_is_vector", None) is not out_is_vector:
            want = "Vector" if out_is_vector else "Matrix"
            raise InvalidValue(f"{what}: out must be a {want}, got "
                               f"{type(out).__name__}")
        if out.shape != out_shape:
            raise DimensionMismatch(f"{what}: out has shape {out.shape} but the result has shape "
                                    f"{out_shape}")
        objs.append(("out", out))
    check_mask(mask, out_shape, what)
    if mask is not None:
        objs.append(("mask", mask.parent))
    same_device(what, *objs)
    return resolve_accum(accum)


def plain_vector_call(x, out, mask, accum, replace):
    """True when a call on the Vector ``x`` with these arguments is one that
    :func:`prepare` and :func:`check_replace` accept as they are (no out,
    no accum, ``replace=False``, no mask or a mask of a Vector of ``x``'s
    size on its device) -- an operation may then skip them: they would
    raise nothing and resolve no accum.  (SSSP's rounds make thousands of
    such calls; each check costs microseconds of host time.)  The caller
    still checks its other operands and its operator."""
    if (out is not None or accum is not None or replace is not False
            or x.__class__ is not Vector):
        return False
    if mask is None:
        return True
    if mask.__class__ is not Mask:
        return False
    p = mask.parent
    return p.__class__ is Vector and p.size == x.size and p._be is x._be


def finish(out, T, dtype, shape, be, mask, accum, replace, is_vector, masked=False):
    """Create ``out`` if needed and apply the output rule (``masked``: see
    :func:`~.output.write`)."""
    if out is None:
        if is_vector:
            # (the shape and type come from checked inputs: no checks again)
            dt = lookup(dtype)
            if T.__class__ is SparseResult and (mask is None or masked):
                # the output rule's first case for a new vector (Z = T:
                # nothing old, nothing left to test), without its tests
                return Vector._new_sparse(dt, shape[0], be, T.keys, be.cast(T.vals, dt))
            out = Vector._new_empty(dt, shape[0], be)
        else:
            from ..matrix import Matrix
            out = Matrix(dtype, shape[0], shape[1], device=be.name)
    return write(out, T, mask, accum, replace, masked)


def as_semiring(op, what):
    if isinstance(op, str):
        op = predefined.lookup("semiring", op)
    if not isinstance(op, Semiring):
        raise InvalidValue(f"{what}: expected a Semiring (e.g. gb.semiring.plus_times), got {op!r}")
    return op


def as_monoid(op, what):
    if isinstance(op, str):
        op = predefined.lookup("monoid", op)
    if isinstance(op, BinaryOp):
        try:
            return predefined.monoid[op.name]
        except AttributeError:
            raise InvalidValue(f"{what}: {op!r} is not a monoid; pass a Monoid") from None
    if not isinstance(op, Monoid):
        raise InvalidValue(f"{what}: expected a Monoid (e.g. gb.monoid.plus), got {op!r}")
    return op


def as_binary(op, what):
    """A BinaryOp from a BinaryOp, Monoid, Semiring (its add) or a name."""
    if isinstance(op, str):
        op = predefined.lookup("binary", op)
    if isinstance(op, Monoid):
        return op.op
    if isinstance(op, Semiring):
        return op.monoid.op
    if not isinstance(op, BinaryOp):
        raise InvalidValue(f"{what}: expected a BinaryOp (e.g. gb.binary.plus), got {op!r}")
    return op


def check_replace(replace, what):
    if not isinstance(replace, bool):
        raise InvalidValue(f"{what}: replace must be True or False, got {replace!r}")


def check_user_op(op, be, what):
    """A user-defined operator on a backend that compiles CUDA C (the GPU)
    needs a CUDA expression; checked before anything is computed."""
    if not (be.needs_cuda_expr and getattr(op, "is_user", False)):
        return
    parts = (op.monoid.op, op.mult) if isinstance(op, Semiring) else \
        (op.op,) if isinstance(op, Monoid) else (op,)
    for p in parts:
        if p.is_user and p.cexpr is None:
            raise MissingKernel(f"{what}: user-defined operator {p.name!r} has no CUDA "
                                "expression (cuda_expr=...), so it cannot run on a GPU "
                                "object; give one or move the objects with .to('cpu')")
