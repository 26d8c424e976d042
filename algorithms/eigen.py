"""Extreme eigenvalues of a symmetric matrix by Lanczos with Cullum–Willoughby
filtering, and all eigenvalues of a symmetric tridiagonal matrix by bisection.

``eigvalsh``: run the Lanczos recurrence (``graphblast_py.lanczos``; a reproducible random
start vector, no reorthogonalisation) for m steps, take all eigenvalues of
T_m by Sturm-count bisection, and keep the good ones (Cullum & Willoughby
1985): numerically multiple eigenvalues of T_m are converged ones whose extra
copies (ghosts, from the loss of orthogonality) are dropped; simple ones that
are also eigenvalues of T̂_m (T_m less its first row and column) are
spurious.  m grows by half until the k wanted eigenvalues change by at most
``tol``·max|λ| between two rounds; a breakdown (invariant Krylov space) makes
T_m's eigenvalues exact.  One start vector sees every distinct eigenvalue
once: an eigenvalue of multiplicity > 1 is reported once.

``tridiagonal_eigvalsh(d, e, lo, hi)``: eigenvalues in [lo, hi) of the matrix
with diagonal d and off-diagonal e, by bisection on the monotone Sturm count
(Demmel, Dhillon & Ren), all intervals at once (Lessig's data-parallel
scheme), on the device of the data (``graphblast_py.linalg``).
"""
import numpy as np

from graphblast_py import ConvergenceError, InvalidValue
from graphblast_py.linalg import tridiagonal_eigvalsh

from graphblast_py.lanczos import Lanczos, check_operator, cullum_willoughby, pick, start_vector


def eigvalsh(A, k=6, which="LA", *, tol=1e-12, max_steps=None, seed=0):
    """The k algebraically largest ("LA"), smallest ("SA") or both-ends ("BE")
    distinct eigenvalues of the symmetric Matrix A, ascending (a NumPy array)."""
    if which not in ("LA", "SA", "BE"):
        raise InvalidValue(f"eigvalsh: which must be 'LA', 'SA' or 'BE', got {which!r}")
    A = check_operator(A, "eigvalsh", "float64")
    if not (isinstance(k, (int, np.integer)) and 1 <= k <= A.nrows):
        raise InvalidValue(f"eigvalsh: k must be an integer in [1, {A.nrows}], got {k!r}")
    L = Lanczos(A, start_vector(A.nrows, seed, A.dtype, A.device))
    max_steps = max_steps or max(1000, 20 * k)
    m, prev = min(max(2 * k + 40, 60), max_steps), None
    while True:
        while len(L.alpha) < m and L.step():
            pass
        vals = pick(cullum_willoughby(L.alpha, L.beta, exact=L.breakdown), k, which)
        if L.breakdown:
            return vals
        if prev is not None and len(vals) == len(prev) == k and \
                np.all(np.abs(vals - prev) <= tol * np.abs(vals).max()):
            return vals
        if m >= max_steps:
            raise ConvergenceError(f"eigvalsh: the {k} wanted eigenvalues did not settle to "
                                   f"tol={tol:g} within max_steps={max_steps} Lanczos steps")
        prev, m = vals, min(m + m // 2, max_steps)


__all__ = ["eigvalsh", "tridiagonal_eigvalsh"]
