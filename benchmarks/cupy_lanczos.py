"""Hand-written CuPy baselines for the spectral algorithms (no graphblast_py
inside): what a careful CuPy user writes for the same work.

* ``expm_multiply(indptr, indices, data, x, t, k)``: e^{tA}x by k steps of
  plain Lanczos (no reorthogonalisation) on the whole matrix, one cuSPARSE
  SpMV per step (``cupyx.scipy.sparse``), α and β kept on the device (no host
  read per step), T eigendecomposed on the host once at the end, the shift
  max tλ applied; returns (y, s) with e^{tA}x ≈ e^s y.  It is *normwise*
  accurate only: it does not split components (see algorithms/expm.py).
* ``eigsh_top(indptr, indices, data, k)``: ``cupyx.scipy.sparse.linalg.eigsh``
  for the k largest eigenvalues (CuPy's thick-restart Lanczos).
"""
import cupy as cp
import cupyx.scipy.sparse as csp
import cupyx.scipy.sparse.linalg as cla
import numpy as np


def csr(indptr, indices, data, n):
    if data is None:
        data = cp.ones(indices.shape[0], dtype=cp.float64)
    return csp.csr_matrix((data.astype(cp.float64), indices.astype(cp.int32),
                           indptr.astype(cp.int32)), shape=(n, n))


def expm_multiply(A, x, t, k):
    """A: a cupyx csr_matrix (float64); x: a CuPy vector."""
    n = A.shape[0]
    Q = cp.empty((k + 1, n), dtype=cp.float64)
    alpha = cp.empty(k, dtype=cp.float64)
    beta = cp.empty(k, dtype=cp.float64)
    norm0 = cp.linalg.norm(x)
    Q[0] = x / norm0
    for j in range(k):
        w = A @ Q[j]
        a = cp.dot(w, Q[j])
        w -= a * Q[j]
        if j:
            w -= beta[j - 1] * Q[j - 1]
        b = cp.linalg.norm(w)
        alpha[j] = a
        beta[j] = b
        Q[j + 1] = w / b
    al, be, nx = cp.asnumpy(alpha), cp.asnumpy(beta), float(norm0)
    T = np.diag(al) + np.diag(be[:-1], 1) + np.diag(be[:-1], -1)
    lam, V = np.linalg.eigh(T)
    s = float(np.max(t * lam))
    c = nx * (V @ (np.exp(t * lam - s) * V[0]))
    return Q[:k].T @ cp.asarray(c), s


def eigsh_top(A, k):
    return cp.sort(cla.eigsh(A, k=k, which="LA", return_eigenvectors=False))
