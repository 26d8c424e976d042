"""Spectral algorithms against references nobody here wrote.

* e^{tA}x: SciPy's ``expm_multiply`` run on each connected component on its
  own (SciPy's csgraph finds them), so each entry is held to its own
  component's scale: the accuracy contract of algorithms/expm.py.
* eigvalsh: NumPy's dense ``eigvalsh`` (the exact spectrum, multiplicities
  included) and SciPy's ``eigsh``.
* tridiagonal_eigvalsh: SciPy's ``eigh_tridiagonal``.
"""
import warnings

import networkx as nx
import numpy as np
import pytest
import scipy.io as sio
import scipy.linalg as sl
import scipy.sparse as sp
import scipy.sparse.csgraph as csg
import scipy.sparse.linalg as sla

import graphblast_py as gb
from graphblast_py.algorithms import (connected_components, eigvalsh, expm_multiply,
                                      total_communicability, tridiagonal_eigvalsh)

from .conftest import host


def to_gb(S, device):
    return gb.Matrix.from_scipy(sp.csr_matrix(S, dtype=np.float64), device=device)


def grid(k, m=None):
    G = nx.grid_2d_graph(k, m or k)
    return nx.to_scipy_sparse_array(G, nodelist=sorted(G), format="csr").astype(np.float64)


def rmat(scale, edge_factor=8, seed=0):
    """A small Graph500-style R-MAT graph (A=0.57, B=C=0.19), symmetric, no
    self-loops, with isolated vertices and small components."""
    rng = np.random.default_rng(seed)
    m = edge_factor << scale
    r = np.zeros(m, dtype=np.int64)
    c = np.zeros(m, dtype=np.int64)
    for _ in range(scale):
        u = rng.random(m)
        r = 2 * r + (u >= 0.76)
        c = 2 * c + (((u >= 0.57) & (u < 0.76)) | (u >= 0.95))
    S = sp.coo_matrix((np.ones(m), (r, c)), shape=(1 << scale,) * 2).tocsr()
    S = ((S + S.T) > 0).astype(np.float64)
    S.setdiag(0)
    S.eliminate_zeros()
    return S


def union_of_radii():
    """Components with very different spectral radii: K_40 (39), a 3x-weighted
    10x10 grid (~11.5), karate-like star, a path, two isolated vertices (one
    with a self-loop of 2.5), an edge."""
    K = sp.csr_matrix(np.ones((40, 40)) - np.eye(40))
    G = 3.0 * grid(10)
    star = nx.to_scipy_sparse_array(nx.star_graph(30), format="csr").astype(np.float64)
    path = nx.to_scipy_sparse_array(nx.path_graph(120), format="csr").astype(np.float64)
    iso = sp.csr_matrix(np.array([[0.0, 0.0], [0.0, 2.5]]))
    edge = sp.csr_matrix(np.array([[0.0, 0.5], [0.5, 0.0]]))
    return sp.block_diag([path, K, iso, G, star, edge]).tocsr()


@pytest.fixture(scope="module")
def karate():
    from .conftest import DATA
    return sio.mmread(DATA / "karate.mtx", spmatrix=True).tocsr().astype(np.float64)


@pytest.fixture(scope="module")
def west_sym():
    from .conftest import DATA
    W = sio.mmread(DATA / "west0067.mtx", spmatrix=True).tocsr().astype(np.float64)
    return (W + W.T).tocsr()


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


def check_contract(S, y, s, t, x, nonneg):
    """The contract: entries >= 1e-6 x their component's max within relative
    1e-7, the others within 1e-12 x that max; none negative for A, x >= 0."""
    y, s = host(y.to_dense()), host(s.to_dense())
    ref, shift, cmax = reference_expm(S, x, t)
    got = y * np.exp(s - shift)                      # the same per-component scale
    big = np.abs(ref) >= 1e-6 * cmax
    relerr = np.abs(got[big] - ref[big]) / np.abs(ref[big])
    abserr = np.abs(got - ref) / np.where(cmax > 0, cmax, 1)
    assert relerr.max(initial=0) <= 1e-7, (relerr.max(), np.flatnonzero(big)[relerr.argmax()])
    assert abserr[~big].max(initial=0) <= 1e-12, abserr[~big].max()
    if nonneg:
        assert np.all(y >= 0)
    deg = np.diff(S.indptr)
    iso = np.flatnonzero(deg == 0)                    # isolated, no self-loop: exactly x_i
    assert np.array_equal(y[iso] * np.exp(s[iso]), x[iso])


GRAPHS = {
    "kron10": lambda: rmat(10, seed=1),
    "kron12": lambda: rmat(12, seed=2),
    "union": union_of_radii,
    "grid30": lambda: grid(30),
}


# ---------------------------------------------------------------- expm_multiply
@pytest.mark.parametrize("t", [0.1, 1.0, 5.0])
@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_expm_accuracy_contract(device, name, t):
    S = GRAPHS[name]()
    A = to_gb(S, device)
    ones = np.ones(S.shape[0])
    y, s = total_communicability(A, beta=t, return_log_scale=True)
    assert y.dtype == np.float64 and s.dtype == np.float64 and y.device == device
    check_contract(S, y, s, t, ones, nonneg=True)
    x = np.random.default_rng(7).standard_normal(S.shape[0])   # signs: no bound applies
    y, s = expm_multiply(A, gb.Vector.from_dense(x, device=device), t=t, return_log_scale=True)
    check_contract(S, y, s, t, x, nonneg=False)


@pytest.mark.parametrize("t", [0.1, 1.0, 5.0])
def test_expm_real_matrices(device, karate, west_sym, t):
    for S in (karate, west_sym):
        x = np.abs(np.random.default_rng(3).standard_normal(S.shape[0]))
        y, s = expm_multiply(to_gb(S, device), gb.Vector.from_dense(x, device=device), t=t,
                             return_log_scale=True)
        check_contract(S, y, s, t, x, nonneg=S.min() >= 0)


def test_expm_isolated_and_tiny_components_exact(device):
    """The Kronecker-12 failure: isolated vertices got 7.5e47 instead of 1."""
    S = sp.block_diag([rmat(12, seed=1), sp.csr_matrix(np.array([[0.0, 1.0], [1.0, 0.0]]))])
    S = S.tocsr()
    A = to_gb(S, device)
    y = host(total_communicability(A).to_dense())
    deg = np.diff(S.indptr)
    assert (deg == 0).sum() > 100 and np.all(y[deg == 0] == 1.0)
    nc, lab = csg.connected_components(S, directed=False)
    sizes = np.bincount(lab)
    two = np.flatnonzero(sizes[lab] == 2)               # a single edge: cosh(1) + sinh(1) = e
    assert len(two) and np.allclose(y[two], np.e, rtol=1e-14, atol=0)
    y = host(expm_multiply(A, t=0.1).to_dense())
    assert np.all(y >= 1.0)                             # e^{tA} >= I entrywise for A >= 0


def test_expm_plain_result_and_reuse_components(device, karate):
    S = union_of_radii()
    A = to_gb(S, device)
    x = np.random.default_rng(5).standard_normal(S.shape[0])
    xv = gb.Vector.from_dense(x, device=device)
    ref, shift, _ = reference_expm(S, x, 0.7)
    y = host(expm_multiply(A, xv, t=0.7).to_dense())
    full = ref * np.exp(shift)
    assert np.allclose(y, full, rtol=1e-9, atol=1e-12 * np.abs(full).max())
    labels = connected_components(A)
    y2 = host(expm_multiply(A, xv, t=0.7, components=labels).to_dense())
    assert np.allclose(y, y2, rtol=1e-12, atol=1e-13 * np.abs(y).max())   # GPU sums: any order
    y32 = expm_multiply(A, xv, t=0.7, dtype="float32")
    assert y32.dtype == np.float32
    assert np.allclose(host(y32.to_dense()), y, rtol=1e-4, atol=1e-4 * np.abs(y).max())


def test_expm_breakdown_single_edge(device):
    A = gb.Matrix.from_coo([0, 1], [1, 0], 1.0, 2, 2, device=device)
    x = gb.Vector.from_coo([0], [1.0], size=2, device=device)
    y = host(expm_multiply(A, x, t=1.5).to_dense())
    assert np.allclose(y, [np.cosh(1.5), np.sinh(1.5)], rtol=1e-14, atol=0)


def test_expm_x_on_one_component(device):
    # a path of 200 and a triangle; x lives on the path only: zero on the triangle
    path = nx.to_scipy_sparse_array(nx.path_graph(200), format="csr").astype(np.float64)
    tri = sp.csr_matrix(np.ones((3, 3)) - np.eye(3))
    S = sp.block_diag([path, tri]).tocsr()
    x = np.zeros(203)
    x[:200] = np.random.default_rng(1).standard_normal(200)
    y = host(expm_multiply(to_gb(S, device), gb.Vector.from_dense(x, device=device),
                           t=0.7).to_dense())
    ref = sla.expm_multiply(0.7 * path, x[:200])
    assert np.allclose(y[:200], ref, rtol=1e-10, atol=1e-12)
    assert np.all(y[200:] == 0)


def test_expm_overflow_complete_graph(device):
    n = 1000                                       # A = J - I: e^A x = e^{-1}(x + (e^n - 1)/n (1'x) 1)
    A = gb.Matrix.from_scipy(sp.csr_matrix(np.ones((n, n)) - np.eye(n)), device=device)
    x = np.random.default_rng(3).standard_normal(n)
    with pytest.raises(gb.Overflow, match="return_log_scale"):
        expm_multiply(A, gb.Vector.from_dense(x, device=device))
    with pytest.raises(OverflowError):
        total_communicability(A)
    y, s = expm_multiply(A, gb.Vector.from_dense(x, device=device), return_log_scale=True)
    s = host(s.to_dense())
    assert np.all(s == s[0])                       # one component, one scale
    ref = np.exp(-n) * x + (1 - np.exp(-n)) / n * x.sum()          # times e^{n-1}
    got = host(y.to_dense()) * np.exp(s - (n - 1))
    assert np.abs(got - ref).max() <= 1e-10 * np.abs(ref).max()
    y, s = total_communicability(A, return_log_scale=True)
    assert np.allclose(host(s.to_dense()), n - 1, rtol=1e-12)
    assert np.allclose(host(y.to_dense()) * np.exp(host(s.to_dense()) - (n - 1)), 1, rtol=1e-12)


def test_expm_fixed_dimension_warns_and_errors(device):
    S = grid(20)
    A = to_gb(S, device)
    with pytest.warns(gb.errors.AccuracyWarning, match="400 of 400 entries"):
        y4 = host(expm_multiply(A, t=1.0, krylov_dim=4).to_dense())
    ref = sla.expm_multiply(S, np.ones(400))
    assert 1e-8 < np.linalg.norm(y4 - ref) / np.linalg.norm(ref) < 0.5
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        expm_multiply(A, t=1.0, krylov_dim=40)      # enough: no warning
    with pytest.raises(gb.ConvergenceError, match="max_krylov=5"):
        expm_multiply(A, t=3.0, max_krylov=5)
    z = expm_multiply(A, gb.Vector("float64", 400, device=device))
    assert np.all(host(z.to_dense()) == 0)


def test_expm_bad_input(device, karate):
    A = to_gb(karate, device)
    with pytest.raises(gb.InvalidValue, match="symmetric"):
        expm_multiply(gb.Matrix.from_coo([0], [1], 1.0, 2, 2, device=device))
    with pytest.raises(gb.InvalidValue, match="size"):
        expm_multiply(A, gb.Vector("float64", 3, device=device))
    with pytest.raises(gb.InvalidValue, match="dtype"):
        expm_multiply(A, dtype="int64")
    for t in (np.nan, np.inf, -np.inf):
        with pytest.raises(gb.InvalidValue, match="t must be a finite"):
            expm_multiply(A, t=t)
    with pytest.raises(gb.InvalidValue, match="tol"):
        expm_multiply(A, tol=0)
    with pytest.raises(gb.InvalidValue, match="krylov_dim"):
        expm_multiply(A, krylov_dim=0)
    bad = gb.Matrix.from_coo([0, 1], [1, 0], [np.inf, np.inf], 2, 2, device=device)
    with pytest.raises(gb.InvalidValue, match="infinite"):
        expm_multiply(bad)
    nan = gb.Matrix.from_coo([0, 1], [1, 0], [np.nan, np.nan], 2, 2, device=device)
    with pytest.raises(gb.InvalidValue, match="NaN"):
        expm_multiply(nan)
    with pytest.raises(gb.InvalidValue, match="NaN"):
        expm_multiply(A, gb.Vector.from_coo([3], [np.nan], size=34, device=device))
    with pytest.raises(gb.InvalidValue, match="components"):
        expm_multiply(A, components=gb.Vector("float64", 34, device=device))
    with pytest.raises(gb.errors.InvalidObject):    # networkx graphs are converted now
        expm_multiply(np.eye(3))


# ---------------------------------------------------------------- tridiagonal eigenvalues
@pytest.mark.parametrize("n", [1, 2, 3, 17, 500, 5000])
def test_tridiagonal_random(device, n):
    rng = np.random.default_rng(n)
    d, e = rng.standard_normal(n), rng.standard_normal(n - 1)
    w = host(tridiagonal_eigvalsh(d, e, device=device))
    ref = sl.eigh_tridiagonal(d, e, eigvals_only=True)
    assert w.shape == (n,) and np.all(np.diff(w) >= 0)
    assert np.abs(w - ref).max() <= 1e-13 * max(1.0, np.abs(ref).max()) * max(1, np.log2(n))


@pytest.mark.gpu
@pytest.mark.parametrize("n", [10000, 20000])
def test_tridiagonal_large_gpu(n):
    rng = np.random.default_rng(n)
    d, e = rng.standard_normal(n), rng.standard_normal(n - 1)
    ref = sl.eigh_tridiagonal(d, e, eigvals_only=True)
    w = tridiagonal_eigvalsh(d, e, device="gpu")
    assert type(w).__module__.startswith("cupy")
    w = host(w)
    assert w.shape == (n,) and np.abs(w - ref).max() <= 1e-12 * np.abs(ref).max()
    lo, hi = -0.3, 0.9                               # a sub-interval
    w = host(tridiagonal_eigvalsh(d, e, lo, hi, device="gpu"))
    want = ref[(ref >= lo) & (ref < hi)]
    assert w.shape == want.shape and np.abs(w - want).max() <= 1e-12


def test_tridiagonal_interval_and_special(device):
    rng = np.random.default_rng(7)
    d, e = rng.standard_normal(300), rng.standard_normal(299)
    ref = sl.eigh_tridiagonal(d, e, eigvals_only=True)
    w = host(tridiagonal_eigvalsh(d, e, -0.5, 1.25, device=device))
    want = ref[(ref >= -0.5) & (ref < 1.25)]
    assert w.shape == want.shape and np.abs(w - want).max() < 1e-12
    assert host(tridiagonal_eigvalsh(d, e, lo=100.0, device=device)).shape == (0,)
    w = host(tridiagonal_eigvalsh([3, 1, 1, 2], [0, 0, 0], device=device))
    assert np.allclose(w, [1.0, 1.0, 2.0, 3.0], rtol=0, atol=1e-14)
    wd = np.abs(np.arange(-10, 11)).astype(np.float64)
    d = np.concatenate([wd, wd])
    e = np.concatenate([np.ones(20), [1e-8], np.ones(20)])
    ref = sl.eigh_tridiagonal(d, e, eigvals_only=True)
    assert np.abs(host(tridiagonal_eigvalsh(d, e, device=device)) - ref).max() < 1e-12
    v = gb.Vector.from_dense(np.array([2.0, 2.0]), device=device)
    w = host(tridiagonal_eigvalsh(v, gb.Vector.from_dense(np.array([1.0]), device=device)))
    assert np.allclose(w, [1.0, 3.0], rtol=0, atol=1e-15)


@pytest.mark.parametrize("scale", [1e300, 1e-300])
def test_tridiagonal_extreme_scale(device, scale):
    rng = np.random.default_rng(1)
    d, e = rng.standard_normal(60) * scale, rng.standard_normal(59) * scale
    ref = sl.eigh_tridiagonal(d, e, eigvals_only=True)
    w = host(tridiagonal_eigvalsh(d, e, device=device))
    assert np.abs(w - ref).max() <= 1e-13 * np.abs(ref).max()


def test_tridiagonal_errors():
    with pytest.raises(gb.DimensionMismatch):
        tridiagonal_eigvalsh([1.0, 2.0], [1.0, 2.0])
    with pytest.raises(gb.InvalidValue, match=r"d\[1\]"):
        tridiagonal_eigvalsh([1.0, np.nan], [1.0])
    with pytest.raises(gb.InvalidValue, match=r"e\[0\]"):
        tridiagonal_eigvalsh([1.0, 2.0], [np.inf])
    with pytest.raises(gb.InvalidValue):
        tridiagonal_eigvalsh([1.0], [], lo="a")


# ---------------------------------------------------------------- eigvalsh
def dense_truth(S, k, which, lam=None):
    lam = np.linalg.eigvalsh(S.toarray()) if lam is None else lam
    if which == "LA":
        return lam[-k:]
    if which == "SA":
        return lam[:k]
    if which == "LM":
        return np.sort(lam[np.argsort(-np.abs(lam), kind="stable")[:k]])
    return np.sort(np.concatenate([lam[:k // 2], lam[len(lam) - (k - k // 2):]]))


def check_eigs(S, device, k=6, whichs=("LA", "SA", "LM", "BE"), rtol=1e-10):
    A = to_gb(S, device)
    lam = np.linalg.eigvalsh(S.toarray())
    for which in whichs:
        ref = dense_truth(S, k, which, lam)
        w = eigvalsh(A, k, which)
        assert isinstance(w, np.ndarray) and w.shape == (k,) and np.all(np.diff(w) >= 0)
        if which == "LM":                 # +-lambda tie on bipartite graphs: either is right
            w, ref = np.sort(np.abs(w)), np.sort(np.abs(ref))
        assert np.abs(w - ref).max() <= rtol * np.abs(ref).max(), (which, w, ref)


@pytest.mark.parametrize("name", ["grid40x53", "grid30", "two_grids", "kron11", "path",
                                  "complete", "star_isolated"])
def test_eigvalsh_families(device, name):
    S = {"grid40x53": lambda: grid(40, 53),
         "grid30": lambda: grid(30),                           # pairs (i,j), (j,i): doubles
         "two_grids": lambda: sp.block_diag([grid(20), grid(20)]).tocsr(),   # quadruples
         "kron11": lambda: rmat(11, seed=2),
         "path": lambda: nx.to_scipy_sparse_array(nx.path_graph(400), format="csr"),
         "complete": lambda: sp.csr_matrix(np.ones((200, 200)) - np.eye(200)),  # -1 x 199
         "star_isolated": lambda: sp.block_diag([
             nx.to_scipy_sparse_array(nx.star_graph(150), format="csr"),
             sp.csr_matrix((60, 60))]).tocsr(),
         }[name]().astype(np.float64)
    check_eigs(S, device)


def test_eigvalsh_matches_eigsh_where_eigsh_is_right(device, karate):
    for S in (karate, rmat(12, seed=3)):
        ref = np.sort(sla.eigsh(S, 4, which="LA", return_eigenvectors=False, tol=1e-14))
        w = eigvalsh(to_gb(S, device), 4, "LA")
        assert np.abs(w - ref).max() <= 1e-10 * np.abs(ref).max()


def test_eigvalsh_eigenvectors(device):
    S = grid(30)
    for which in ("LA", "BE"):
        w, X = eigvalsh(to_gb(S, device), 5, which, return_eigenvectors=True)
        assert isinstance(X, gb.Matrix) and X.shape == (900, 5) and X.device == device
        Xd = host(X.to_dense())
        assert np.abs(S @ Xd - Xd * w).max() <= 1e-9 * np.abs(w).max()
        assert np.abs(Xd.T @ Xd - np.eye(5)).max() <= 1e-10
        assert np.allclose(w, dense_truth(S, 5, which), rtol=0, atol=1e-10)


def test_eigvalsh_small_empty_and_errors(device):
    A = gb.Matrix("float64", 1, 1, device=device)
    assert np.array_equal(eigvalsh(A, 1), [0.0])
    Z = gb.Matrix("float64", 500, 500, device=device)              # no edges: all zero
    assert np.array_equal(eigvalsh(Z, 3), [0.0, 0.0, 0.0])
    K = gb.Matrix.from_scipy(sp.csr_matrix(np.ones((30, 30)) - np.eye(30)), device=device)
    assert np.allclose(eigvalsh(K, 6, "LA"), [-1] * 5 + [29], rtol=0, atol=1e-12)
    with pytest.raises(gb.InvalidValue, match="which"):
        eigvalsh(K, 2, which="XX")
    with pytest.raises(gb.InvalidValue, match="k must"):
        eigvalsh(K, 0)
    with pytest.raises(gb.InvalidValue, match="k must"):
        eigvalsh(K, 31)
    with pytest.raises(gb.InvalidValue, match="symmetric"):
        eigvalsh(gb.Matrix.from_coo([0], [1], 1.0, 2, 2, device=device), 1)
    with pytest.raises(gb.errors.InvalidObject):
        eigvalsh(np.eye(3), 1)
    with pytest.raises(gb.ConvergenceError, match="max_restarts=0"):
        eigvalsh(to_gb(grid(40), device), 6, max_restarts=0)


def test_cached_properties_follow_mutation(device):
    """Symmetry, components and the sparse operator are kept with the matrix
    and dropped when it changes."""
    S = sp.block_diag([grid(10), grid(9)]).tocsr()
    A = to_gb(S, device)
    y1 = host(total_communicability(A, beta=0.5).to_dense())
    A[0, 150] = 1.0                                  # no longer symmetric
    with pytest.raises(gb.InvalidValue, match="symmetric"):
        total_communicability(A, beta=0.5)
    A[150, 0] = 1.0                                  # symmetric again, now connected
    S2 = S.tolil()
    S2[0, 150] = S2[150, 0] = 1.0
    y2, s2 = total_communicability(A, beta=0.5, return_log_scale=True)
    check_contract(S2.tocsr(), y2, s2, 0.5, np.ones(181), nonneg=True)
    assert not np.allclose(host(y2.to_dense()) * np.exp(host(s2.to_dense())), y1)
    assert np.allclose(eigvalsh(A, 2), dense_truth(S2.tocsr(), 2, "LA"), rtol=1e-10)


@pytest.mark.parametrize("name", ["grid30", "two_grids"])
def test_eigvalsh_block2(device, name):
    S = grid(30) if name == "grid30" else sp.block_diag([grid(20), grid(20)]).tocsr()
    A = to_gb(S, device)
    lam = np.linalg.eigvalsh(S.toarray())
    for which in ("LA", "SA"):
        w = eigvalsh(A, 6, which, block=2)
        assert np.abs(w - dense_truth(S, 6, which, lam)).max() <= 1e-10 * np.abs(lam).max()


# ---------------------------------------------------------------- the large sizes (H100)
@pytest.mark.gpu
@pytest.mark.slow
@pytest.mark.parametrize("scale", [14, 16])
def test_expm_accuracy_contract_large_gpu(scale):
    S = rmat(scale, seed=scale)
    A = to_gb(S, "gpu")
    for t in (0.1, 1.0, 5.0):
        y, s = total_communicability(A, beta=t, return_log_scale=True)
        check_contract(S, y, s, t, np.ones(S.shape[0]), nonneg=True)


@pytest.mark.gpu
@pytest.mark.slow
@pytest.mark.parametrize("name", ["kron18", "kron20", "grid300"])
def test_eigvalsh_large_gpu(name):
    import cupyx.scipy.sparse.linalg as cla
    if name == "grid300":
        A = gb.generators.grid2d(300, 300, dtype="float64", device="gpu")
    else:
        A = gb.generators.kronecker(int(name[4:]), seed=1, dtype="float64", device="gpu")
    w = eigvalsh(A, 6)
    ref = np.sort(host(cla.eigsh(A.to_scipy(), k=6, which="LA", return_eigenvectors=False)))
    assert np.abs(w - ref).max() <= 1e-10 * np.abs(ref).max()
    if name == "grid300":                       # 2 cos(pi i/301) + 2 cos(pi j/301), doubles
        c = 2 * np.cos(np.pi * np.arange(1, 6) / 301)
        lam = np.sort((c[:, None] + c[None, :]).ravel())[-6:]
        assert np.abs(w - lam).max() <= 1e-12 * 4


def test_expm_iso_matrix_with_small_components(device):
    """An iso matrix (no values array) with isolated vertices, edges and a
    triangle beside a Kronecker graph: the small-component path reads the
    iso value."""
    K = gb.generators.kronecker(10, seed=3, dtype="float64", device="cpu")
    S = sp.block_diag([K.to_scipy(), sp.csr_matrix(np.ones((3, 3)) - np.eye(3)),
                       sp.csr_matrix(np.array([[0.0, 1.0], [1.0, 0.0]])),
                       sp.csr_matrix((4, 4))]).tocsr().astype(np.float64)
    r, c = S.nonzero()
    A = gb.Matrix.from_coo(r, c, 1.0, *S.shape, device=device)
    assert A.iso
    for t in (0.5, 3.0):
        y, s = total_communicability(A, beta=t, return_log_scale=True)
        check_contract(S, y, s, t, np.ones(S.shape[0]), nonneg=True)


def test_expm_plan_follows_the_labelling(device):
    """The component analysis kept with A is made for one labelling: a call
    with another labelling (here all vertices in one set, which is also an
    invariant set) redoes it, and a later change of A drops it; every result
    is checked against SciPy per entry."""
    from graphblast_py.lanczos import expm_components
    K = gb.generators.kronecker(8, seed=5, dtype="float64", device="cpu")
    S = K.to_scipy()
    A = gb.Matrix.from_scipy(S, device=device)
    n = A.nrows
    x = gb.Vector.from_dense(np.ones(n), device=device)
    cc = connected_components(A)
    one_set = gb.Vector.from_dense(np.zeros(n, dtype=np.int64), device=device)
    _, _, st = expm_components(A, x, 0.5, cc, tol=1e-12, limit=300, fixed=False)
    assert st.n_small > 0
    y, s, st = expm_components(A, x, 0.5, one_set, tol=1e-12, limit=300, fixed=False)
    assert (st.n_small, st.n_large) == (0, 1)
    ref = sla.expm_multiply(0.5 * S, np.ones(n))
    got = host(y.to_dense()) * np.exp(host(s.to_dense()))
    np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-9 * ref.max())
    _, _, st = expm_components(A, x, 0.5, cc, tol=1e-12, limit=300, fixed=False)
    assert st.n_small > 0
    A[0, n - 1] = 1.0                   # a new edge (and its mirror): a new graph
    A[n - 1, 0] = 1.0
    S2 = A.to("cpu").to_scipy()
    cc2 = connected_components(A)
    y, s, _ = expm_components(A, x, 0.5, cc2, tol=1e-12, limit=300, fixed=False)
    got = host(y.to_dense()) * np.exp(host(s.to_dense()))
    ref = sla.expm_multiply(0.5 * S2, np.ones(n))
    np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-12 * ref.max())
