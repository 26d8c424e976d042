"""The per-component SciPy reference for e^{tA}x (the same as tests/test_alg_lanczos.py uses)."""
import numpy as np
import scipy.sparse as sp
import scipy.sparse.csgraph as csg
import scipy.sparse.linalg as sla


def reference_expm(S, x, t):
    """(e^{tA}x scaled per component by e^{-shift}, shift per vertex, component
    max per vertex): SciPy's expm_multiply on each component of the shifted
    matrix t(A_c - mu I), mu = the component's largest eigenvalue."""
    n = S.shape[0]
    nc, lab = csg.connected_components(S, directed=False)
    ref, shift, cmax = np.zeros(n), np.zeros(n), np.zeros(n)
    for c in range(nc):
        idx = np.flatnonzero(lab == c)
        Sc = S[idx][:, idx].tocsc()
        if len(idx) <= 3:
            lam, V = np.linalg.eigh(Sc.toarray())
            mu = lam.max()
            r = V @ (np.exp(t * (lam - mu)) * (V.T @ x[idx]))
        else:
            mu = sla.eigsh(Sc, 1, which="LA", return_eigenvectors=False)[0] if len(idx) > 50 \
                else np.linalg.eigvalsh(Sc.toarray()).max()
            r = sla.expm_multiply(t * (Sc - mu * sp.identity(len(idx), format="csc")), x[idx])
        ref[idx], shift[idx] = r, t * mu
        cmax[idx] = np.abs(r).max()
    return ref, shift, cmax
