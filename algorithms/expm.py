"""The action of the matrix exponential, e^{tA} x, for symmetric A by Lanczos.

With the Lanczos relation A Q_k ≈ Q_k T_k (see ``graphblast_py.lanczos``) and T_k = V Λ Vᵀ,

    e^{tA} x ≈ ‖x‖ Q_k e^{t T_k} e_1 = e^s · ‖x‖ Q_k V e^{t(Λ − s)} Vᵀ e_1,   s = max tΛ

(Saad 1992; Gallopoulos & Saad 1992).  e^{tA} is never formed; each step
costs one ``mxv`` and a few vector operations, T_k is eigendecomposed on the
host.  k grows until two successive approximations agree to ``tol``
(relatively; at least a few ulps of ``dtype``), or is fixed by ``krylov_dim``;
a breakdown (β ≈ 0: the Krylov space is invariant) ends it early with the
exact result.  The shift s keeps every computed number in range: with
``return_log_scale=True`` the result is ``(y, s)`` with e^{tA} x = e^s y; else
y·e^s is returned, and :class:`Overflow` is raised when that exceeds the
dtype's range.  ``x=None`` is the ones vector.

Total communicability (Benzi & Klymko 2013): TC(β) = e^{βA} 1, the row sums of
e^{βA}: how well each vertex communicates with all the others.
"""
import math

import numpy as np

from graphblast_py import ConvergenceError, InvalidValue, Overflow, Vector, monoid, unary

from graphblast_py.lanczos import (Lanczos, check_operator, combine, dot, expm_coefficients,
                       relative_change, scale)


def expm_multiply(A, x=None, t=1.0, *, tol=1e-12, max_krylov=300, krylov_dim=None,
                  return_log_scale=False, dtype="float64"):
    """e^{tA} x for a symmetric Matrix A (a Vector; ``(Vector, s)`` with
    ``return_log_scale``, e^{tA} x = e^s · Vector).  See the module."""
    A = check_operator(A, "expm_multiply", dtype)
    if x is None:
        x = Vector(A.dtype, A.nrows, device=A.device)
        x.assign(1)
    elif not isinstance(x, Vector) or x.size != A.nrows:
        raise InvalidValue(f"expm_multiply: x must be a Vector of size {A.nrows}")
    x = x.dup(A.dtype)
    if dot(x, x) == 0:
        return (x, 0.0) if return_log_scale else x          # e^{tA} 0 = 0
    L, tol = Lanczos(A, x, keep_basis=True), max(tol, 8 * np.finfo(A.dtype).eps)
    limit = krylov_dim or max_krylov
    c, s = None, None
    while L.step() and len(L.alpha) < limit:
        c_prev, s_prev = c, s
        c, s = expm_coefficients(L.alpha, L.beta, t, L.norm0)
        if krylov_dim is None and c_prev is not None and \
                relative_change(c, s, c_prev, s_prev) <= tol:
            break
    else:
        if not L.breakdown and krylov_dim is None:
            raise ConvergenceError(f"expm_multiply: no convergence to tol={tol:g} within "
                                   f"max_krylov={max_krylov} Lanczos steps")
    c, s = expm_coefficients(L.alpha, L.beta, t, L.norm0)
    y = combine(L.basis[:len(c)], c)
    if return_log_scale:
        return y, s
    ymax = y.apply(unary.abs).reduce(monoid.max)
    if ymax > 0 and s + math.log(ymax) >= math.log(np.finfo(A.dtype).max):
        raise Overflow(f"expm_multiply: e^(tA)x reaches about e^{s + math.log(ymax):.1f}, "
                       f"beyond {A.dtype}; use return_log_scale=True to get (y, s) with "
                       "e^(tA)x = e^s * y")
    pieces = math.ceil(abs(s) / 600)                       # e^s in factors that fit
    for _ in range(pieces):
        y = scale(y, math.exp(s / pieces))
    return y


def total_communicability(A, beta=1.0, **kwargs):
    """e^{βA} 1 (Benzi & Klymko): a Vector, or ``(Vector, s)`` with
    ``return_log_scale=True``; keywords as :func:`expm_multiply`."""
    return expm_multiply(A, None, t=beta, **kwargs)
