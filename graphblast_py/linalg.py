"""Small linear-algebra building blocks that algorithms need beyond the
GraphBLAS operations, run by the device's backend.

* :func:`tridiagonal_eigvalsh` -- eigenvalues of a symmetric tridiagonal
  matrix by Sturm-count bisection, data-parallel over the eigenvalues
  (``backend.sturm_bisect``: a vectorised array routine, with a numba kernel on
  the CPU), so a large tridiagonal matrix (Lessig's case, n in the tens of
  thousands) is solved where its data lives.
"""
import math
import numbers

from . import dtypes
from .device import backend_for
from .errors import DimensionMismatch, DomainMismatch, InvalidValue


def tridiagonal_eigvalsh(d, e, lo=None, hi=None, *, tol=0.0, device=None):
    """Eigenvalues, ascending, of the symmetric tridiagonal matrix with diagonal
    ``d`` (length n) and off-diagonal ``e`` (length n - 1) that lie in
    ``[lo, hi)`` (``None``: unbounded), as an array on ``device``.

    ``d``/``e`` may be NumPy or CuPy arrays, lists, or :class:`Vector` s (whose
    device is then the default).  ``tol``: absolute accuracy of each
    eigenvalue (<= 0: 2 eps ||T||).  Bisection on the monotone Sturm count
    (Demmel, Dhillon & Ren 1995) with LAPACK dstebz's Gershgorin brackets and
    pivot guard; all intervals are refined at once.
    """
    from .vector import Vector
    if device is None:
        device = next((v.device for v in (d, e) if isinstance(v, Vector)), None)
    be = backend_for(device)
    d, e = (be.asarray(v.to(be.name).to_dense() if isinstance(v, Vector) else v)
            for v in (d, e))
    for name, v in (("d", d), ("e", e)):
        if v.ndim != 1:
            raise DimensionMismatch(f"tridiagonal_eigvalsh: {name} must be 1-D, got shape "
                                    f"{v.shape}")
        if v.dtype.kind not in "biuf":
            raise DomainMismatch(f"tridiagonal_eigvalsh: {name} has dtype {v.dtype}; a real "
                                 "(float or integer) array is needed")
    n = d.shape[0]
    if e.shape[0] != max(n - 1, 0):
        raise DimensionMismatch(f"tridiagonal_eigvalsh: d has {n} entries so e needs "
                                f"{max(n - 1, 0)}, got {e.shape[0]}")
    d, e = be.cast(d, dtypes.FP64), be.cast(e, dtypes.FP64)
    if n and not (math.isfinite(float(d.sum())) and math.isfinite(float((e * e).sum()))):
        raise InvalidValue("tridiagonal_eigvalsh: d and e must be finite (found inf or nan)")
    for name, v in (("lo", lo), ("hi", hi), ("tol", tol)):
        if v is not None and not (isinstance(v, numbers.Real) and math.isfinite(v)):
            raise InvalidValue(f"tridiagonal_eigvalsh: {name} must be a finite number, got {v!r}")
    return be.sturm_bisect(d, e, lo, hi, float(tol))
