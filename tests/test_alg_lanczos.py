"""Lanczos algorithms against SciPy/NumPy: e^{tA}x (scipy.sparse.linalg.expm_multiply,
dense eigh), extreme eigenvalues (eigsh), tridiagonal eigenvalues (eigh_tridiagonal)."""
import networkx as nx
import numpy as np
import pytest
import scipy.io as sio
import scipy.linalg as sl
import scipy.sparse as sp
import scipy.sparse.linalg as sla

import graphblast_py as gb
from graphblast_py.algorithms import (eigvalsh, expm_multiply, total_communicability,
                                      tridiagonal_eigvalsh)
from graphblast_py import lanczos as _lanczos

from .conftest import host


def rel(y, ref):
    return np.linalg.norm(host(y) - ref) / np.linalg.norm(ref)


def to_gb(S, device):
    return gb.Matrix.from_scipy(sp.csr_matrix(S, dtype=np.float64), device=device)


def rmat(scale, edge_factor=8, seed=0):
    """A small Graph500-style R-MAT graph (A=0.57, B=C=0.19), symmetric, no self-loops."""
    rng = np.random.default_rng(seed)
    m = edge_factor << scale
    r = np.zeros(m, dtype=np.int64)
    c = np.zeros(m, dtype=np.int64)
    for _ in range(scale):
        u = rng.random(m)
        r = 2 * r + (u >= 0.76)                       # C or D quadrant
        c = 2 * c + (((u >= 0.57) & (u < 0.76)) | (u >= 0.95))   # B or D
    S = sp.coo_matrix((np.ones(m), (r, c)), shape=(1 << scale,) * 2).tocsr()
    S = ((S + S.T) > 0).astype(np.float64)
    S.setdiag(0)
    S.eliminate_zeros()
    return S


@pytest.fixture
def karate(data_dir):
    return sio.mmread(data_dir / "karate.mtx").tocsr().astype(np.float64)


@pytest.fixture(scope="module")
def rgg():
    G = nx.random_geometric_graph(3000, 0.04, seed=1)
    return nx.to_scipy_sparse_array(G, nodelist=range(3000), format="csr").astype(np.float64)


# ---------------------------------------------------------------- expm_multiply
@pytest.mark.parametrize("t", [0.1, 1.0, 3.0, -2.0])
def test_expm_karate(device, karate, t):
    A = to_gb(karate, device)
    x = np.random.default_rng(5).standard_normal(34)
    y = expm_multiply(A, gb.Vector.from_dense(x, device=device), t=t)
    assert y.dtype == np.float64 and y.device == device
    assert rel(y.to_dense(), sla.expm_multiply(t * karate, x)) < 1e-10
    ones = sla.expm_multiply(t * karate, np.ones(34))
    assert rel(total_communicability(A, beta=t).to_dense(), ones) < 1e-10
    assert rel(expm_multiply(A, t=t).to_dense(), ones) < 1e-10


@pytest.mark.parametrize("t", [0.5, 2.0])
def test_expm_geometric_and_grid(device, rgg, t):
    G = nx.grid_2d_graph(50, 61)
    grid = nx.to_scipy_sparse_array(G, nodelist=sorted(G), format="csr").astype(np.float64)
    for S in (rgg, grid):
        x = np.random.default_rng(1).standard_normal(S.shape[0])
        y = expm_multiply(to_gb(S, device), gb.Vector.from_dense(x, device=device), t=t)
        assert rel(y.to_dense(), sla.expm_multiply(t * S, x)) < 1e-10


def test_expm_float32(device, rgg):
    x = np.random.default_rng(2).standard_normal(rgg.shape[0])
    y = expm_multiply(to_gb(rgg, device), gb.Vector.from_dense(x, device=device), t=1.0,
                      dtype="float32")
    assert y.dtype == np.float32
    assert rel(y.to_dense(), sla.expm_multiply(rgg, x)) < 1e-5


def test_expm_breakdown_single_edge(device):
    A = gb.Matrix.from_coo([0, 1], [1, 0], 1.0, 2, 2, device=device)
    x = gb.Vector.from_coo([0], [1.0], size=2, device=device)
    y = host(expm_multiply(A, x, t=1.5).to_dense())
    assert np.allclose(y, [np.cosh(1.5), np.sinh(1.5)], rtol=1e-14, atol=0)


def test_expm_breakdown_disconnected(device):
    # a path 0-1-2-3-4 and a triangle 5-6-7; x lives on the path only
    S = sp.csr_matrix((np.ones(14), ([0, 1, 1, 2, 2, 3, 3, 4, 5, 6, 6, 7, 7, 5],
                                     [1, 0, 2, 1, 3, 2, 4, 3, 6, 5, 7, 6, 5, 7])), shape=(8, 8))
    x = np.array([1.0, -2.0, 0.5, 0.0, 3.0, 0, 0, 0])
    A = to_gb(S, device)
    y = host(expm_multiply(A, gb.Vector.from_dense(x, device=device), t=0.7).to_dense())
    ref = sla.expm_multiply(0.7 * S, x)
    assert rel(y, ref) < 1e-13 and np.all(y[5:] == 0)
    L = _lanczos.Lanczos(A, gb.Vector.from_dense(x, device=device))
    while L.step():
        pass
    assert L.breakdown and len(L.alpha) <= 5          # the path has 5 vertices


def test_expm_overflow_complete_graph(device):
    n = 1000                                       # A = J - I: e^A x = e^{-1}(x + (e^n - 1)/n (1'x) 1)
    A = gb.Matrix.from_scipy(sp.csr_matrix(np.ones((n, n)) - np.eye(n)), device=device)
    x = np.random.default_rng(3).standard_normal(n)
    with pytest.raises(gb.Overflow, match="return_log_scale"):
        expm_multiply(A, gb.Vector.from_dense(x, device=device))
    with pytest.raises(OverflowError):
        total_communicability(A)
    y, s = expm_multiply(A, gb.Vector.from_dense(x, device=device), return_log_scale=True)
    ref = np.exp(-n) * x + (1 - np.exp(-n)) / n * x.sum()          # times e^{n-1}
    assert rel(host(y.to_dense()) * np.exp(s - (n - 1)), ref) < 1e-10
    y, s = total_communicability(A, return_log_scale=True)
    assert abs(s - (n - 1)) < 1e-10 * n and np.allclose(host(y.to_dense()) * np.exp(s - (n - 1)), 1)


def test_expm_overflow_dense_random(device):
    rng = np.random.default_rng(4)
    n = 800
    M = np.triu((rng.random((n, n)) < 0.6).astype(np.float64), 1)
    M = M + M.T                                   # lambda_max about 480: e^A x overflows
    lam, V = np.linalg.eigh(M)
    x = rng.standard_normal(n)
    ref = V @ (np.exp(2.0 * (lam - lam[-1])) * (V.T @ x))       # e^{2A}x / e^{2 lam_max}
    A = gb.Matrix.from_scipy(sp.csr_matrix(M), device=device)
    y, s = expm_multiply(A, gb.Vector.from_dense(x, device=device), t=2.0,
                         return_log_scale=True)
    assert abs(s - 2 * lam[-1]) < 1e-12 * s
    assert rel(host(y.to_dense()) * np.exp(s - 2 * lam[-1]), ref) < 1e-10
    # no overflow for t small enough: the plain result equals e^s y
    z = expm_multiply(A, gb.Vector.from_dense(x, device=device), t=0.5)
    assert rel(z.to_dense(), V @ (np.exp(0.5 * lam) * (V.T @ x))) < 1e-10


def test_expm_edge_cases(device, karate):
    A = to_gb(karate, device)
    z = expm_multiply(A, gb.Vector("float64", 34, device=device))
    assert z.nvals == 0
    y4 = expm_multiply(A, t=1.0, krylov_dim=4).to_dense()     # fixed, small: inexact
    ref = sla.expm_multiply(karate, np.ones(34))
    assert 1e-8 < rel(y4, ref) < 0.5
    with pytest.raises(gb.ConvergenceError):
        expm_multiply(A, t=3.0, max_krylov=5)
    with pytest.raises(gb.InvalidValue, match="symmetric"):
        expm_multiply(gb.Matrix.from_coo([0], [1], 1.0, 2, 2, device=device))
    with pytest.raises(gb.InvalidValue, match="size"):
        expm_multiply(A, gb.Vector("float64", 3, device=device))
    with pytest.raises(gb.InvalidValue, match="dtype"):
        expm_multiply(A, dtype="int64")


# ---------------------------------------------------------------- tridiagonal eigenvalues
@pytest.mark.parametrize("n", [1, 2, 3, 17, 500, 5000])
def test_tridiagonal_random(device, n):
    rng = np.random.default_rng(n)
    d, e = rng.standard_normal(n), rng.standard_normal(n - 1)
    w = host(tridiagonal_eigvalsh(d, e, device=device))
    ref = sl.eigh_tridiagonal(d, e, eigvals_only=True)
    assert w.shape == (n,) and np.all(np.diff(w) >= 0)
    assert np.abs(w - ref).max() <= 1e-13 * max(1.0, np.abs(ref).max()) * max(1, np.log2(n))


def test_tridiagonal_interval_and_special(device):
    rng = np.random.default_rng(7)
    d, e = rng.standard_normal(300), rng.standard_normal(299)
    ref = sl.eigh_tridiagonal(d, e, eigvals_only=True)
    w = host(tridiagonal_eigvalsh(d, e, -0.5, 1.25, device=device))
    want = ref[(ref >= -0.5) & (ref < 1.25)]
    assert w.shape == want.shape and np.abs(w - want).max() < 1e-12
    assert host(tridiagonal_eigvalsh(d, e, lo=100.0, device=device)).shape == (0,)
    # decoupled blocks (e = 0), repeated diagonal, integers, glued Wilkinson (close pairs)
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


def test_tridiagonal_errors():
    with pytest.raises(gb.DimensionMismatch):
        tridiagonal_eigvalsh([1.0, 2.0], [1.0, 2.0])
    with pytest.raises(gb.InvalidValue, match="finite"):
        tridiagonal_eigvalsh([1.0, np.nan], [1.0])
    with pytest.raises(gb.InvalidValue):
        tridiagonal_eigvalsh([1.0], [], lo="a")


# ---------------------------------------------------------------- eigvalsh
def check_eigsh(S, device, k=6, whichs=("LA", "SA", "BE")):
    A = to_gb(S, device)
    for which in whichs:
        ref = np.sort(sla.eigsh(S, k, which=which, return_eigenvectors=False, tol=1e-14))
        w = eigvalsh(A, k, which)
        assert isinstance(w, np.ndarray) and w.shape == (k,)
        assert np.abs(w - ref).max() <= 1e-8 * np.abs(ref).max(), (which, w, ref)


def test_eigvalsh_karate(device, karate):
    check_eigsh(karate, device)


def test_eigvalsh_grid(device):
    G = nx.grid_2d_graph(40, 53)                   # 40 x 53: distinct extreme eigenvalues
    check_eigsh(nx.to_scipy_sparse_array(G, nodelist=sorted(G), format="csr"), device, k=5)


def test_eigvalsh_kronecker(device):
    check_eigsh(rmat(11, seed=2), device, k=4, whichs=("LA", "SA"))


def test_cullum_willoughby_removes_ghosts_and_spurious(device):
    n = 40
    lam = np.sort(np.random.default_rng(0).uniform(-5, 5, n))
    A = gb.Matrix.from_coo(np.arange(n), np.arange(n), lam, device=device)
    L = _lanczos.Lanczos(A, _lanczos.start_vector(n, 0, np.float64, device))
    while len(L.alpha) < 10 * n and L.step():     # far past n: T has many ghost copies
        pass
    mu = host(tridiagonal_eigvalsh(np.array(L.alpha), np.array(L.beta[:-1])))
    assert len(mu) == 10 * n
    tol = 500 * (10 * n + 1000) * np.finfo(float).eps * 5
    clusters = mu[np.concatenate([[True], np.diff(mu) > tol])]
    assert len(clusters) > n                      # numerically distinct spurious values exist
    good = _lanczos.cullum_willoughby(L.alpha, L.beta)
    assert good.shape == (n,) and np.abs(good - lam).max() < 1e-12
    assert np.allclose(eigvalsh(A, 3, "BE"), lam[[0, -2, -1]], rtol=0, atol=1e-12)


def test_eigvalsh_multiple_eigenvalues_and_errors(device):
    n = 30                                        # K_n: eigenvalues n-1 and -1 (n-1 times)
    A = gb.Matrix.from_scipy(sp.csr_matrix(np.ones((n, n)) - np.eye(n)), device=device)
    w = eigvalsh(A, 6, "LA")                      # breakdown after 2 steps: distinct values
    assert np.allclose(w, [-1, n - 1], rtol=0, atol=1e-12)
    with pytest.raises(gb.InvalidValue, match="which"):
        eigvalsh(A, 2, which="LM")
    with pytest.raises(gb.InvalidValue, match="k must"):
        eigvalsh(A, 0)
    with pytest.raises(gb.InvalidValue, match="symmetric"):
        eigvalsh(gb.Matrix.from_coo([0], [1], 1.0, 2, 2, device=device), 1)
