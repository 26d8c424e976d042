"""Krylov support for :class:`~graphblast_py.backend.generic.ArrayBackend`: the
fused-Lanczos hook and tridiagonal eigenvalues by Sturm counts and bisection
(see generic.py).
"""
import numpy as np


class TridiagMixin:
    """Lanczos hook and symmetric tridiagonal eigenvalues (part of ArrayBackend)."""

    def lanczos_fused(self):
        """Fused kernels for a one-set Lanczos step, or None: the array
        expressions of ``backend/krylov.py`` are used as they are."""
        return None

    # ------------------------------------------------------------ tridiagonal eigenvalues
    def sturm_count(self, d, e2, x, pivmin):
        """For every shift ``x[k]``: the number of eigenvalues of the symmetric
        tridiagonal T (diagonal ``d``, squared off-diagonal ``e2``) below
        ``x[k]``, i.e. the number of negative pivots of the LDL^T factorisation
        of T - x[k] I; a pivot smaller than ``pivmin`` in magnitude becomes
        ``-pivmin``.  This is the count that Demmel, Dhillon and Ren (1995)
        prove monotone in x in IEEE arithmetic.  Vectorised over the shifts;
        the recurrence runs over the rows."""
        xp = self.xp
        q = d[0] - x
        q = xp.where(xp.abs(q) < pivmin, -pivmin, q)
        count = (q < 0).astype(np.int64)
        for i in range(1, d.shape[0]):
            q = (d[i] - x) - e2[i - 1] / q
            q = xp.where(xp.abs(q) < pivmin, -pivmin, q)
            count += q < 0
        return count

    def bisect_intervals(self, d, e2, k, a, b, pivmin, iters, atol):
        """Bisection for eigenvalue indices ``k`` (ascending order, 0-based)
        from brackets with count(a) <= k < count(b): every interval is halved
        ``iters`` times (all at once: one Sturm count per step for all of
        them) or until narrower than ``atol``.  Returns the midpoints."""
        xp = self.xp
        for _ in range(iters):
            mid = 0.5 * (a + b)
            up = self.sturm_count(d, e2, mid, pivmin) > k
            a, b = xp.where(up, a, mid), xp.where(up, mid, b)
        return 0.5 * (a + b)

    def sturm_bisect(self, d, e, lo=None, hi=None, tol=0.0):
        """Eigenvalues in ``[lo, hi)`` (None: unbounded) of the symmetric
        tridiagonal matrix with diagonal ``d`` and off-diagonal ``e``,
        ascending, by Sturm-count bisection (LAPACK dstebz's brackets and
        pivot guard; Lessig's data-parallel formulation: all intervals at
        once).  ``tol``: absolute accuracy; <= 0 means 2 eps ||T||."""
        xp = self.xp
        d = xp.asarray(d, dtype=np.float64)
        e = xp.asarray(e, dtype=np.float64)
        n = d.shape[0]
        if n == 0:
            return xp.zeros(0, dtype=np.float64)
        e2 = e * e
        ae = xp.abs(e)
        r = xp.zeros(n, dtype=np.float64)
        r[:-1] += ae
        r[1:] += ae
        gl, gu = float((d - r).min()), float((d + r).max())
        tnorm = max(abs(gl), abs(gu))
        eps, tiny = np.finfo(np.float64).eps, np.finfo(np.float64).tiny
        pivmin = tiny * max(1.0, float(e2.max()) if n > 1 else 1.0)
        widen = 2.1 * tnorm * eps * n + 4.0 * pivmin
        gl, gu = gl - widen, gu + widen
        atol = tol if tol > 0 else 2.0 * eps * max(tnorm, tiny)
        a0 = gl if lo is None else max(float(lo), gl)
        b0 = gu if hi is None else min(float(hi), gu)
        if not a0 < b0:
            return xp.zeros(0, dtype=np.float64)
        k0 = 0 if a0 == gl else int(self.sturm_count(d, e2, xp.full(1, a0), pivmin)[0])
        k1 = n if b0 == gu else int(self.sturm_count(d, e2, xp.full(1, b0), pivmin)[0])
        if k1 <= k0:
            return xp.zeros(0, dtype=np.float64)
        iters = int(np.ceil(np.log2((b0 - a0) / atol))) + 1
        k = xp.arange(k0, k1, dtype=np.int64)
        return self.bisect_intervals(d, e2, k, xp.full(k1 - k0, a0), xp.full(k1 - k0, b0),
                                     pivmin, max(iters, 1), atol)
