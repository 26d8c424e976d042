"""The CPU backend's parallel kernels that the rest of the suite never
reaches -- their work thresholds sit above its small graphs: the pull
(``kernels.pull_parallel``), the fused masked-product reductions
(``spgemm.fused_parallel``, ``fused_dot_parallel``), the dense-with-holes
times sparse product (``dense_sparse_parallel``) and the columns kernel
(``columns_parallel``).  Each runs here with its threshold lowered (the
kernel's call is counted, so a test cannot pass on the serial path) and is
checked entry by entry against SciPy or the serial kernel.  numba runs
them on the machine's threads (2 in CI)."""
import numba
import numpy as np
import pytest
import scipy.sparse as sp

import graphblast_py as gb
from graphblast_py.backend.cpu import backend as B
from graphblast_py.backend.cpu import kernels as K
from graphblast_py.backend.cpu import spgemm as S

from .conftest import host

# (with one thread the backend runs the serial kernels by design)
pytestmark = pytest.mark.skipif(numba.get_num_threads() < 2,
                                reason="the parallel kernels need 2 or more numba threads")


@pytest.fixture
def count(monkeypatch):
    """count(module, name) wraps a kernel so that its calls are counted."""
    calls = {}

    def wrap(mod, name):
        kernel = getattr(mod, name)
        calls[name] = 0

        def counted(*args):
            calls[name] += 1
            return kernel(*args)
        monkeypatch.setattr(mod, name, counted)
        return calls
    return wrap


def _graph(n=300, density=0.05, seed=3):
    S_ = sp.random(n, n, density, format="csr", random_state=seed)
    S_.data = np.random.default_rng(seed).uniform(-2, 2, S_.nnz)
    S_ = S_.tolil()
    S_[7, :] = 0                              # an empty row
    S_[0, :] = 1.5                            # a full row
    return S_.tocsr()


def test_pull_parallel(monkeypatch, count):
    monkeypatch.setattr(B, "PULL_PARALLEL_WORK", 0)
    calls = count(K, "pull_parallel")
    Sm = _graph()
    A = gb.Matrix.from_scipy(Sm, device="cpu")
    x = np.random.default_rng(1).uniform(-1, 1, Sm.shape[1])
    w = A.mxv(gb.Vector.from_dense(x, device="cpu"), gb.semiring.plus_times,
              direction="pull")
    assert calls["pull_parallel"] == 1
    has = np.diff(Sm.indptr) > 0
    got = host(w.to_dense(fill=np.nan))
    assert np.array_equal(np.isfinite(got), has)
    np.testing.assert_allclose(got[has], (Sm @ x)[has], rtol=1e-12, atol=1e-12)
    # a masked BFS-style step (any_pair, early exit, the complement mask)
    Sb = (Sm != 0).astype(bool).tocsr()
    Ab = gb.Matrix.from_scipy(Sb, device="cpu")
    f = gb.Vector.from_coo([0, 5, 9], True, size=Sb.shape[0], device="cpu")
    seen = gb.Vector.from_coo(np.arange(0, 300, 3), True, size=Sb.shape[0], device="cpu")
    r = f.vxm(Ab, gb.semiring.any_pair, mask=~seen.S, direction="pull")
    assert calls["pull_parallel"] == 2
    want = np.asarray(Sb[[0, 5, 9]].sum(axis=0)).ravel() > 0
    want[np.arange(0, 300, 3)] = False
    assert np.array_equal(host(r.to_dense(fill=False)).astype(bool), want)


@pytest.mark.parametrize("method,kernel", [("saxpy", "fused_parallel"),
                                           ("dot", "fused_dot_parallel")])
def test_fused_reduce_parallel(monkeypatch, count, method, kernel):
    """mxm_reduce's fused kernels (not the integer plus_pair counts) in
    threads: w = max_j |(A B)(i, j)| over the mask A.S."""
    monkeypatch.setattr(B, "PARALLEL_WORK", 1)
    calls = count(S, kernel)
    Sm = _graph(200, 0.06, 5)
    A = gb.Matrix.from_scipy(Sm, device="cpu")
    w = A.mxm_reduce(A, gb.semiring.plus_times, mask=A.S, apply=gb.unary.abs, monoid="max",
                     method=method)
    assert calls[kernel] == 1
    C = (Sm @ Sm).toarray()
    terms = ((Sm != 0).astype(int) @ (Sm != 0).astype(int)).toarray() > 0
    allowed = (Sm != 0).toarray() & terms
    has = allowed.any(axis=1)
    want = np.where(allowed, np.abs(C), -np.inf).max(axis=1)
    got = host(w.to_dense(fill=np.nan))
    assert np.array_equal(~np.isnan(got), has)
    np.testing.assert_allclose(got[has], want[has], rtol=1e-12, atol=1e-12)


def test_dense_sparse_parallel(count):
    """A dense block with holes times a sparse B, the rows in threads,
    against the serial kernel and NumPy."""
    calls = count(S, "dense_sparse_parallel")
    be = gb.backend.get("cpu")
    rng = np.random.default_rng(4)
    m, k, n = 300, 6, 8
    A = rng.uniform(-1, 1, (m, k))
    P = rng.random((m, k)) < 0.7
    Bd = rng.uniform(-1, 1, (k, n)) * (rng.random((k, n)) < 0.5)
    Bs = sp.csr_matrix(Bd)
    Bc = (Bs.indptr.astype(np.int64), Bs.indices.astype(np.int64), Bs.data)
    sr = gb.semiring.plus_times
    out = np.dtype(np.float64)
    got_v, got_p = S.dense_sparse_mm(be, A, P, Bc, n, sr, out, 1)
    assert calls["dense_sparse_parallel"] == 1
    want_v, want_p = S.dense_sparse_mm(be, A, P, Bc, n, sr, out, 1 << 60)
    assert calls["dense_sparse_parallel"] == 1             # (the serial one)
    assert np.array_equal(got_p, want_p)
    np.testing.assert_array_equal(np.where(got_p, got_v, 0), np.where(want_p, want_v, 0))
    np.testing.assert_allclose(np.where(got_p, got_v, 0), (A * P) @ Bd, atol=1e-12)


def test_columns_parallel(monkeypatch, count):
    """The columns kernel (FGLT's stacking) on more rows than 8 column
    blocks, in threads, against NumPy."""
    monkeypatch.setattr(S, "COLUMN_BLOCK", 16)
    calls = count(S, "columns_parallel")
    be = gb.backend.get("cpu")
    rng = np.random.default_rng(6)
    m, k, n = 200, 5, 9
    cols = [rng.integers(-9, 10, m).astype(np.float64) for _ in range(k)]
    Bd = rng.integers(-4, 5, (k, n)) * (rng.random((k, n)) < 0.5)
    Bd[:, 2] = 0                                            # an empty column
    Bs = sp.csr_matrix(Bd.astype(np.float64))
    Bs.eliminate_zeros()
    Bc = (Bs.indptr.astype(np.int64), Bs.indices.astype(np.int64), Bs.data)
    got_v, got_p = S.dense_columns_mm(be, cols, Bc, n, gb.semiring.plus_times,
                                      np.dtype(np.float64), 1)
    assert calls["columns_parallel"] == 1
    want = np.stack(cols, axis=1) @ Bd
    gp = np.ones((m, n), bool) if got_p is None else got_p
    assert np.array_equal(gp, np.broadcast_to((Bd != 0).any(axis=0), (m, n)))
    np.testing.assert_array_equal(np.where(gp, got_v, 0), want)
