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
    xp = be.xp
    for name, v in (("d", d), ("e", e)):
        if v.shape[0] and not bool(xp.isfinite(v).all()):
            k = int(xp.flatnonzero(~xp.isfinite(v))[0])
            raise InvalidValue(f"tridiagonal_eigvalsh: {name} must be finite, but {name}[{k}] is "
                               f"{float(v[k])}")
    for name, v in (("lo", lo), ("hi", hi), ("tol", tol)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, numbers.Real)
                              or not math.isfinite(v)):
            raise InvalidValue(f"tridiagonal_eigvalsh: {name} must be a finite number, got {v!r}")
    # The Sturm recurrence squares e: work on T / scale when the entries are
    # near the ends of the float64 range (eigenvalues scale exactly with T).
    scale = max(float(xp.abs(d).max()) if n else 0.0,
                float(xp.abs(e).max()) if n > 1 else 0.0)
    if scale > 2.0 ** 400 or 0 < scale < 2.0 ** -400:
        s = 2.0 ** math.floor(math.log2(scale))          # a power of two: exact scaling
        w = be.sturm_bisect(d / s, e / s, None if lo is None else lo / s,
                            None if hi is None else hi / s, float(tol) / s)
        return w * s
    return be.sturm_bisect(d, e, lo, hi, float(tol))
