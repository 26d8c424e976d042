"""The hand-written CuPy baselines (benchmarks/cupy_baselines.py) against
SciPy csgraph and networkx on graph families that break things: a path (many
levels), a grid, a star (one hub), a disconnected graph with isolated vertices,
a Kronecker graph (power-law hubs), one vertex, no edges.  GPU only: the whole
module is skipped without CuPy and a GPU."""
import importlib.util
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse import csgraph

from graphblast_py import backend

pytestmark = pytest.mark.gpu
if not backend.gpu_available():
    pytest.skip("needs a GPU: CuPy with a CUDA device is not available", allow_module_level=True)
cp = pytest.importorskip("cupy")

_path = Path(__file__).resolve().parent.parent / "benchmarks" / "cupy_baselines.py"
_spec = importlib.util.spec_from_file_location("cupy_baselines", _path)
cb = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cb)


def _sym(n, rows, cols):
    rows, cols = np.asarray(rows, np.int64), np.asarray(cols, np.int64)
    S = sp.coo_matrix((np.ones(rows.size), (rows, cols)), shape=(n, n)).tocsr()
    S = ((S + S.T) > 0).astype(np.float64).tocsr()
    S.setdiag(0)
    S.eliminate_zeros()
    S.sort_indices()
    return S


def _path_graph(n):
    return _sym(n, np.arange(n - 1), np.arange(1, n))


def _grid(r, c):
    S = sp.csr_matrix(nx.to_scipy_sparse_array(nx.grid_2d_graph(r, c), format="csr",
                                               dtype=np.float64))
    S.sort_indices()
    return S


def _star(n):
    return _sym(n, np.zeros(n - 1, np.int64), np.arange(1, n))


def _disconnected():
    # a triangle, a 4-cycle with a chord, a path, and isolated vertices 0, 5, 17, 19
    e = [(1, 2), (2, 3), (1, 3), (6, 7), (7, 8), (8, 9), (9, 6), (6, 8),
         (10, 11), (11, 12), (12, 13), (13, 14), (15, 16), (16, 18)]
    r, c = zip(*e)
    return _sym(20, r, c)


def _kron(scale):
    import graphblast_py as gb
    S = gb.generators.kronecker(scale, seed=3, device="cpu").to_scipy().astype(np.float64)
    S.sort_indices()
    return S


GRAPHS = {
    "path": lambda: _path_graph(300),
    "grid": lambda: _grid(17, 23),
    "star": lambda: _star(200),
    "bigstar": lambda: _star(20001),          # hub with more edges than one block's push
    "disconnected": _disconnected,
    "kron10": lambda: _kron(10),
    "one_vertex": lambda: sp.csr_matrix((1, 1)),
    "no_edges": lambda: sp.csr_matrix((7, 7)),
}


@pytest.fixture(params=sorted(GRAPHS))
def graph(request):
    return request.param, GRAPHS[request.param]()


def _dev(S, ip_dtype=np.int32, ix_dtype=np.int32):
    return cp.asarray(S.indptr.astype(ip_dtype)), cp.asarray(S.indices.astype(ix_dtype))


def _ref_levels(S, source):
    d = csgraph.shortest_path(S, indices=source, unweighted=True, directed=True)
    return np.where(np.isinf(d), -1, d).astype(np.int64)


@pytest.mark.parametrize("dtypes", [(np.int32, np.int32), (np.int64, np.int64),
                                    (np.int64, np.int32)])
def test_bfs_levels_and_parents(graph, dtypes):
    name, S = graph
    ip, ix = _dev(S, *dtypes)
    n = S.shape[0]
    deg = np.diff(S.indptr)
    sources = {0, int(np.argmax(deg)), n - 1}
    for s in sorted(sources):
        ref = _ref_levels(S, s)
        lv = cb.bfs_levels(ip, ix, s)
        assert lv.dtype == cp.int32
        np.testing.assert_array_equal(cp.asnumpy(lv).astype(np.int64), ref, err_msg=name)
        lv2, par = cb.bfs_levels(ip, ix, s, parents=True)
        np.testing.assert_array_equal(cp.asnumpy(lv2).astype(np.int64), ref, err_msg=name)
        assert cb.check_bfs_parents(ip, ix, s, lv2, par)
        # an explicit check of the parents, independent of check_bfs_parents
        par = cp.asnumpy(par)
        for v in np.flatnonzero(ref > 0):
            assert S[par[v], v] != 0 and ref[par[v]] == ref[v] - 1
        assert par[s] == s and np.all(par[ref < 0] == -1)


@pytest.mark.parametrize("small_push", [True, False])
def test_bfs_forced_directions_agree(monkeypatch, small_push):
    """alpha tiny = push only, alpha huge = pull from the first level on; beta
    tiny = back to push as soon as the frontier shrinks, beta huge = never;
    small_push=False turns off the one-block push for small frontiers."""
    if not small_push:
        monkeypatch.setattr(cb, "SMALL_MF", -1)
    for S in (_kron(14), _grid(40, 9)):
        ip, ix = _dev(S)
        s = int(np.argmax(np.diff(S.indptr)))
        ref = _ref_levels(S, s)
        for alpha in (1e-9, 15.0, 1e12):
            for beta in (1e-9, 18.0, 1e12):
                lv, par = cb.bfs_levels(ip, ix, s, parents=True, alpha=alpha, beta=beta)
                np.testing.assert_array_equal(cp.asnumpy(lv).astype(np.int64), ref)
                assert cb.check_bfs_parents(ip, ix, s, lv, par)


def test_check_bfs_parents_rejects_wrong_tree():
    S = _path_graph(6)
    ip, ix = _dev(S)
    lv, par = cb.bfs_levels(ip, ix, 0, parents=True)
    bad = par.copy()
    bad[3] = 1                                  # not a neighbour of 3
    assert not cb.check_bfs_parents(ip, ix, 0, lv, bad)


def test_bfs_bad_source():
    ip, ix = _dev(_path_graph(4))
    with pytest.raises(IndexError, match="source 4 outside"):
        cb.bfs_levels(ip, ix, 4)
    with pytest.raises(TypeError, match="indptr must be"):
        cb.bfs_levels(np.arange(3), ix, 0)


def test_pagerank(graph):
    name, S = graph
    n = S.shape[0]
    ip, ix = _dev(S)
    G = nx.from_scipy_sparse_array(S, create_using=nx.DiGraph)
    ref = nx.pagerank(G, alpha=0.85, tol=1e-6, max_iter=100)
    ref = np.array([ref[i] for i in range(n)])
    x, iters = cb.pagerank(ip, ix, return_iterations=True)
    np.testing.assert_allclose(cp.asnumpy(x), ref, rtol=0, atol=1e-12, err_msg=name)
    assert 1 <= iters <= 100
    assert abs(float(x.sum()) - 1.0) < 1e-12


def test_pagerank_not_converged_raises():
    ip, ix = _dev(_kron(10))
    with pytest.raises(RuntimeError, match="did not converge"):
        cb.pagerank(ip, ix, tol=1e-15, max_iter=3)


def test_pagerank_iteration_time_positive():
    ip, ix = _dev(_kron(10))
    assert cb.pagerank_iteration_time(ip, ix, iters=3) > 0


def test_triangle_count(graph):
    name, S = graph
    ip, ix = _dev(S)
    G = nx.from_scipy_sparse_array(S)
    ref = sum(nx.triangles(G).values()) // 3
    assert cb.triangle_count(ip, ix) == ref, name
    ip, ix = _dev(S, np.int64, np.int64)
    assert cb.triangle_count(ip, ix) == ref, name


def test_triangle_count_known():
    # K5 has 10 triangles; a star none
    n = 5
    r, c = np.nonzero(np.ones((n, n)) - np.eye(n))
    assert cb.triangle_count(*_dev(_sym(n, r, c))) == 10
    assert cb.triangle_count(*_dev(_star(50))) == 0


def test_connected_components(graph):
    name, S = graph
    n = S.shape[0]
    _, lab = csgraph.connected_components(S, directed=False)
    # label = smallest vertex id of the component
    first = np.full(lab.max() + 1 if n else 0, n, dtype=np.int64)
    np.minimum.at(first, lab, np.arange(n))
    ref = first[lab]
    for dt in ((np.int32, np.int32), (np.int64, np.int64)):
        ip, ix = _dev(S, *dt)
        f = cb.connected_components_fastsv(ip, ix)
        np.testing.assert_array_equal(cp.asnumpy(f).astype(np.int64), ref, err_msg=name)
        # Afforest, also with no sampling rounds and with a one-vertex "big
        # component" guess that may well be a small component
        for rounds, samples in ((2, 1024), (0, 1), (1, 3), (5, 1)):
            f = cb.connected_components(ip, ix, rounds=rounds, samples=samples)
            np.testing.assert_array_equal(cp.asnumpy(f).astype(np.int64), ref,
                                          err_msg=f"{name} {rounds} {samples}")
