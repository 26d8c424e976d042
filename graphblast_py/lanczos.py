"""Krylov machinery shared by the algorithms expm_multiply and eigvalsh: the
Lanczos three-term recurrence on framework Vectors, and the small host-side
math on its tridiagonal matrix.

Lanczos (no reorthogonalisation): q_1 = x/‖x‖, and for j = 1, 2, ...

    w = A q_j,  α_j = q_jᵀ w,  w ← w − α_j q_j − β_{j−1} q_{j−1},
    β_j = ‖w‖,  q_{j+1} = w/β_j

so that A Q_k = Q_k T_k + β_k q_{k+1} e_kᵀ with T_k = tridiag(β, α, β).  The
matrix-vector product is ``mxv`` over plus_times and the inner products are
``ewise_mult`` + ``reduce``; T_k is k×k and lives on the host (NumPy).
β_j ≈ 0 (below a few ulps of ‖T‖) is a breakdown: span(Q) is invariant, and
results computed from T are exact.
"""
import math

import numpy as np

from . import dtypes
from .errors import InvalidValue
from .linalg import tridiagonal_eigvalsh
from .operators import binary, monoid, semiring
from .vector import Vector


def dot(u, v):
    return u.ewise_mult(v, binary.times).reduce(monoid.plus)


def scale(v, c):
    """c v, in v's dtype."""
    return v.apply(binary.times, right=v.dtype.type(c))


def combine(vectors, coefs):
    """Σ coefs[j] vectors[j] (a missing entry counts as 0)."""
    y = scale(vectors[0], coefs[0])
    for q, c in zip(vectors[1:], coefs[1:]):
        y = y.ewise_add(scale(q, c), binary.plus)
    return y


def check_operator(A, what, dtype):
    """A square, symmetric Matrix cast to the Krylov dtype (float32/float64)."""
    dtype = dtypes.lookup(dtype)
    if dtype not in (dtypes.FP32, dtypes.FP64):
        raise InvalidValue(f"{what}: dtype must be float32 or float64, got {dtype}")
    if A.nrows != A.ncols:
        raise InvalidValue(f"{what}: A must be square, got {A.nrows}x{A.ncols}")
    if not A.isequal(A.T):
        raise InvalidValue(f"{what}: A is not symmetric; the Lanczos method needs a symmetric "
                           "matrix (e.g. an undirected graph)")
    return A if A.dtype == dtype else A.dup(dtype)


def start_vector(n, seed, dtype, device):
    """A reproducible random start vector (uniform in [-1, 1))."""
    rng = np.random.default_rng(seed)
    return Vector.from_dense(rng.uniform(-1.0, 1.0, n), dtype=dtype, device=device)


class Lanczos:
    """The recurrence, one :meth:`step` at a time; ``alpha``/``beta`` hold T's
    entries (host floats), ``basis`` the vectors q_1..q_k when ``keep_basis``."""

    def __init__(self, A, x, keep_basis=False):
        self.A, self.norm0 = A, math.sqrt(dot(x, x))
        self.eps = float(np.finfo(A.dtype).eps)
        self.q = scale(x, 1.0 / self.norm0)
        self.q_prev, self.alpha, self.beta, self.anorm = None, [], [], 0.0
        self.basis = [self.q] if keep_basis else None
        self.breakdown = False

    def step(self):
        """Extend T by one row; False (and ``breakdown`` set) once span(Q) is invariant."""
        w = self.A.mxv(self.q, semiring.plus_times)
        a = dot(w, self.q)
        w = w.ewise_add(scale(self.q, -a), binary.plus)
        if self.q_prev is not None:
            w = w.ewise_add(scale(self.q_prev, -self.beta[-1]), binary.plus)
        b = math.sqrt(dot(w, w))
        self.anorm = max(self.anorm, abs(a) + b + (self.beta[-1] if self.beta else 0.0))
        self.alpha.append(a)
        self.beta.append(b)
        if b <= 64 * self.eps * self.anorm or self.anorm == 0.0:
            self.breakdown = True
            return False
        self.q_prev, self.q = self.q, scale(w, 1.0 / b)
        if self.basis is not None:
            self.basis.append(self.q)
        return True


# ---------------------------------------------------------------- host math on T
def expm_coefficients(alpha, beta, t, norm0):
    """c = ‖x‖ V exp(t(Λ − s)) Vᵀ e_1 with T = V Λ Vᵀ and the shift s = max tΛ,
    so that e^{tA} x ≈ e^s Q c.  Returns (c, s)."""
    k = len(alpha)
    T = np.diag(np.asarray(alpha, dtype=np.float64))
    if k > 1:
        off = np.asarray(beta[:k - 1], dtype=np.float64)
        T += np.diag(off, 1) + np.diag(off, -1)
    lam, V = np.linalg.eigh(T)
    s = float(np.max(t * lam))
    return norm0 * (V @ (np.exp(t * lam - s) * V[0])), s


def relative_change(c, s, c_prev, s_prev):
    """‖e^s c − e^{s'} [c'; 0]‖ / ‖e^s c‖ (Q orthonormal: the change in e^{tA}x)."""
    d = c.copy()
    d[:len(c_prev)] -= c_prev * math.exp(s_prev - s)
    return float(np.linalg.norm(d) / max(np.linalg.norm(c), np.finfo(np.float64).tiny))


def cullum_willoughby(alpha, beta, exact=False):
    """The good eigenvalues of T_m (Cullum & Willoughby, 1985), ascending: all
    eigenvalues of T_m and of T̂_m (T_m without its first row and column) by
    Sturm bisection; a numerically multiple eigenvalue of T_m has converged
    (kept once: the other copies are ghosts); a simple one that is also an
    eigenvalue of T̂_m is spurious (dropped).  ``exact`` (after a breakdown):
    T_m's eigenvalues are eigenvalues of A, nothing is dropped."""
    m = len(alpha)
    d = np.asarray(alpha, dtype=np.float64)
    e = np.asarray(beta[:m - 1], dtype=np.float64)
    mu = np.asarray(tridiagonal_eigvalsh(d, e, device="cpu"))
    if exact or m == 1:
        return mu
    muh = np.asarray(tridiagonal_eigvalsh(d[1:], e[1:], device="cpu"))
    tnorm = max(float(np.abs(mu).max()), np.finfo(np.float64).tiny)
    tol = 500.0 * (m + 1000) * np.finfo(np.float64).eps * tnorm   # CW's multiplicity tolerance
    pos = np.searchsorted(muh, mu)                                 # distance to T̂'s spectrum
    gap = np.minimum(np.abs(muh[np.clip(pos - 1, 0, m - 2)] - mu),
                     np.abs(muh[np.clip(pos, 0, m - 2)] - mu))
    cluster = np.cumsum(np.concatenate([[True], np.diff(mu) > tol])) - 1
    size = np.bincount(cluster)
    order = np.lexsort((-gap, cluster))              # per cluster: the copy farthest from T̂'s
    rep = order[np.concatenate([[True], np.diff(cluster[order]) > 0])]   # (best converged)
    return mu[rep[(size > 1) | (gap[rep] > tol)]]


def pick(values, k, which):
    """The k algebraically largest ("LA"), smallest ("SA") or half from each
    end ("BE", the odd one from the high end), ascending."""
    if len(values) <= k:
        return values
    lo = {"LA": 0, "SA": k, "BE": k // 2}[which]
    return np.concatenate([values[:lo], values[len(values) - (k - lo):]])
