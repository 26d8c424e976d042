"""``A.T`` defers its transpose until its CSR is read (Matrix._lazy_t):
every use of a deferred transpose against SciPy's ``A.T``, entry by entry;
the transpose never computed where only its CSC (the source) is read
(triangle counting's ``L.mxm_reduce(L.T, ...)``); the source keeping the
result as its CSC; a source changed after ``.T`` was taken; iso and valued
matrices, empty and one-vertex ones, on both devices."""
import numpy as np
import pytest
import scipy.sparse as sp

import graphblast_py as gb
from graphblast_py import semiring

from .conftest import host


def _random(n, m, density, seed, iso=False):
    S = sp.random(n, m, density=density, format="csr", random_state=seed,
                  data_rvs=lambda k: np.random.default_rng(seed).integers(1, 9, k).astype(float))
    S.sum_duplicates()
    C = S.tocoo()
    r, c = C.row, C.col
    vals = True if iso else C.data
    return S, r, c, vals


def _same(M, S):
    """Every entry of the graphblast Matrix M equals SciPy's S."""
    r, c, v = (host(a) for a in M.to_coo())
    D = np.zeros(S.shape)
    P = np.zeros(S.shape, bool)
    D[r, c] = v
    P[r, c] = True
    Sd = S.toarray()
    Sp = np.zeros(S.shape, bool)
    Sc = S.tocoo()
    Sp[Sc.row, Sc.col] = True
    assert M.shape == S.shape
    np.testing.assert_array_equal(P, Sp)
    np.testing.assert_array_equal(D[P], Sd[Sp])


def _scipy(M):
    S = M.to_scipy()
    return S.get() if hasattr(S, "get") else S


def _count_transposes(monkeypatch, A):
    be = A._be
    calls = []
    orig = type(be).transpose_csr

    def counting(self, *args, **kw):
        calls.append(1)
        return orig(self, *args, **kw)
    monkeypatch.setattr(type(be), "transpose_csr", counting)
    return calls


@pytest.mark.parametrize("shape", [(7, 5), (1, 1), (0, 0), (4, 0), (30, 30)])
@pytest.mark.parametrize("iso", [False, True])
def test_deferred_transpose_entries(device, shape, iso):
    n, m = shape
    S, r, c, vals = _random(n, m, 0.3, 3, iso)
    A = gb.Matrix.from_coo(r, c, vals, n, m, device=device)
    if iso:
        S = S.copy()
        S.data[:] = 1.0
    T = A.T
    assert T.shape == (m, n) and T.nvals == S.nnz
    assert T.iso == A.iso and (T.iso == iso or S.nnz == 0)     # known without transposing
    _same(T, S.T.tocsr())
    _same(T.T, S)                            # T.T: A's own arrays again
    _same(A, S)


def test_only_csc_read_never_transposes(device, monkeypatch):
    """mxm_reduce(L, L.T) with the dot method reads L.T's CSC (= L): no
    transpose at all; the count equals networkx's."""
    import networkx as nx
    G = nx.gnm_random_graph(60, 400, seed=5)
    G.add_nodes_from(range(60, 70))                     # isolated vertices
    A = gb.Graph.from_networkx(G, device=device).A
    want = sum(nx.triangles(G).values()) // 3
    L = A.select("tril", -1)
    calls = _count_transposes(monkeypatch, A)
    for method in ("dot", "auto"):           # auto: the cost model reads L.T's row lengths
        LT = L.T
        w = L.mxm_reduce(LT, semiring.plus_pair, mask=L.S, method=method)
        assert calls == []
        assert int(w.reduce(gb.monoid.plus)) == want
        assert L._csc is None                # nothing was computed for L either
        np.testing.assert_array_equal(host(LT._row_ptr()),       # = the real transpose's
                                      _scipy(L).T.tocsr().indptr)
    assert gb.algorithms.triangle_count(A) == want


def test_first_read_caches_on_source(device, monkeypatch):
    S, r, c, vals = _random(20, 13, 0.25, 7)
    A = gb.Matrix.from_coo(r, c, vals, 20, 13, device=device)
    T = A.T
    calls = _count_transposes(monkeypatch, A)
    _same(T, S.T.tocsr())                    # first read: one transpose
    assert len(calls) == 1
    T2 = A.T                                 # A now has its CSC: no second transpose
    _same(T2, S.T.tocsr())
    x = gb.Vector.from_coo(np.arange(20), 1.0, size=20, device=device)
    y = x.vxm(A, semiring.plus_times)        # a pull/push over A reuses it too
    np.testing.assert_allclose(host(y.to_dense(fill=0)), S.T @ np.ones(20))
    assert len(calls) == 1


def test_keep_csc_false_not_cached(device, monkeypatch):
    S, r, c, vals = _random(15, 15, 0.3, 2)
    A = gb.Matrix.from_coo(r, c, vals, 15, 15, device=device)
    A.keep_csc = False
    T = A.T
    calls = _count_transposes(monkeypatch, A)
    _same(T, S.T.tocsr())
    assert len(calls) == 1 and A._csc is None


def test_source_changed_after_T(device):
    """T is the transpose of A as it was: changing A later changes neither
    T nor lets T's transpose become A's CSC."""
    S, r, c, vals = _random(12, 9, 0.3, 11)
    A = gb.Matrix.from_coo(r, c, vals, 12, 9, device=device)
    T = A.T
    A[0, 0] = 100.0
    A[11, 8] = 5.0
    _same(T, S.T.tocsr())
    S2 = S.tolil()
    S2[0, 0] = 100.0
    S2[11, 8] = 5.0
    S2 = S2.tocsr()
    _same(A.T, S2.T.tocsr())
    _same(A, S2)


def test_deferred_transpose_in_operations(device):
    """The deferred transpose as every kind of operand and output."""
    S, r, c, vals = _random(25, 18, 0.2, 13)
    A = gb.Matrix.from_coo(r, c, vals, 25, 18, device=device)
    ST = S.T.tocsr()
    _same(A.T.dup(), ST)
    _same(A.T.apply(gb.unary.ainv), -ST)
    _same(A.T.ewise_add(A.T, gb.binary.plus), 2 * ST)
    _same(A.T.mxm(A, semiring.plus_times), (ST @ S).tocsr())
    assert A.T.reduce_rowwise(gb.monoid.plus).nvals == int((np.diff(ST.indptr) > 0).sum())
    np.testing.assert_allclose(host(A.T.reduce_rowwise(gb.monoid.plus).to_dense(fill=0)),
                               np.asarray(ST.sum(axis=1)).ravel())
    B = A.T
    B[0, 0] = 7.0                              # setting an element of a deferred transpose
    ST2 = ST.tolil()
    ST2[0, 0] = 7.0
    _same(B, ST2.tocsr())
    _same(A, S)
    assert A.T.get(3, 4, default=None) == (ST[3, 4] if ST[3, 4] != 0 else None)
    assert "Matrix 18x25" in repr(A.T)
