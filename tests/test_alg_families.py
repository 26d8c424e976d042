"""Graph families that break graph algorithms, each with its known answer:
a path searched from either end (depth n - 1: a loop that stops one level
early loses the last vertex), a star (one hub, many leaves), a complete graph,
an empty graph (vertices, no edges), a single vertex (with and without a
self-loop), a graph with no vertices, and disconnected unions of all of them
with isolated vertices, relabelled so that ids do not follow the structure.

Every algorithm (bfs, sssp, connected_components, triangle_count, pagerank,
betweenness_centrality) is checked against networkx / scipy.sparse.csgraph
and, where there is a closed form, against the formula written here.
"""
import math

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph

import graphblast_py as gb
from graphblast_py.algorithms import (betweenness_centrality, bfs, connected_components,
                                      pagerank, sssp, triangle_count)

from .conftest import host


def _csr(G):
    S = nx.to_scipy_sparse_array(G, nodelist=range(G.number_of_nodes()), format="csr",
                                 dtype=float)
    return sp.csr_matrix(S)


def _relabel(G, seed):
    p = np.random.default_rng(seed).permutation(G.number_of_nodes())
    return nx.relabel_nodes(G, {i: int(p[i]) for i in range(G.number_of_nodes())})


def _union():
    """path + star + complete + cycle + isolated vertices, ids shuffled."""
    parts = [nx.path_graph(17), nx.star_graph(9), nx.complete_graph(6), nx.cycle_graph(7),
             nx.empty_graph(4)]
    return _relabel(nx.disjoint_union_all(parts), 5)


FAMILIES = {
    "path": lambda: nx.path_graph(40),
    "star": lambda: nx.star_graph(25),              # vertex 0 is the hub
    "complete": lambda: nx.complete_graph(11),
    "empty": lambda: nx.empty_graph(6),
    "single": lambda: nx.empty_graph(1),
    "single_loop": lambda: nx.Graph([(0, 0)]),
    "cycle": lambda: nx.cycle_graph(21),
    "grid": lambda: nx.convert_node_labels_to_integers(nx.grid_2d_graph(3, 25)),
    "union": _union,
}
DIRECTED_FAMILIES = {
    "dipath": lambda: nx.path_graph(30, create_using=nx.DiGraph),     # 0 -> 1 -> ... -> 29
    "instar": lambda: nx.DiGraph([(i, 0) for i in range(1, 15)]),    # leaves -> hub
    "outstar": lambda: nx.DiGraph([(0, i) for i in range(1, 15)]),   # hub -> leaves
    "dicomplete": lambda: nx.complete_graph(7, create_using=nx.DiGraph),
    "diunion": lambda: _relabel(nx.disjoint_union_all(
        [nx.path_graph(12, create_using=nx.DiGraph), nx.DiGraph([(i, 0) for i in range(1, 6)]),
         nx.empty_graph(3, create_using=nx.DiGraph)]), 8),
}
ALL = [(k, False) for k in FAMILIES] + [(k, True) for k in DIRECTED_FAMILIES]


def graph(name, directed):
    G = (DIRECTED_FAMILIES if directed else FAMILIES)[name]()
    return G, _csr(G)


def sources(n):
    """Both ends and the middle (a path: depth n - 1 from either end)."""
    return sorted({0, n // 2, n - 1})


def as_dict(v):
    i, x = v.to_coo()
    return dict(zip(host(i).tolist(), host(x).tolist()))


# ---------------------------------------------------------------- known answers, spelled out
@pytest.mark.parametrize("n", [2, 3, 40, 257])
def test_path_from_either_end(device, n):
    """A path 0 - 1 - ... - n-1: BFS from an end reaches every vertex, the
    last at depth n - 1; SSSP with unit weights gives the same numbers; the
    directed path reaches nothing backwards."""
    r = np.arange(n - 1)
    A = gb.Matrix.from_coo(np.r_[r, r + 1], np.r_[r + 1, r], True, n, n, device=device)
    D = gb.Matrix.from_coo(r, r + 1, 1.0, n, n, device=device)
    for src, want in ((0, list(range(n))), (n - 1, list(range(n - 1, -1, -1)))):
        levels, parents = bfs(A, src, parents=True)
        assert as_dict(levels) == dict(enumerate(want))
        assert max(as_dict(levels).values()) == n - 1
        par = as_dict(parents)
        assert all(par[v] == (v - 1 if src == 0 else v + 1) for v in range(n) if v != src)
        assert as_dict(sssp(A, src)) == {v: float(d) for v, d in enumerate(want)}
    assert as_dict(bfs(D, 0)) == {v: v for v in range(n)}
    assert as_dict(bfs(D, n - 1)) == {n - 1: 0}
    assert as_dict(sssp(D, n - 1)) == {n - 1: 0.0}
    np.testing.assert_array_equal(host(connected_components(A).to_dense()), np.zeros(n))
    assert triangle_count(A) == 0
    bc = host(betweenness_centrality(A, normalized=False).to_dense())
    np.testing.assert_allclose(bc, [i * (n - 1 - i) for i in range(n)])   # pairs through i


@pytest.mark.parametrize("n", [1, 2, 5, 30])
def test_star(device, n):
    """Hub 0 with n leaves: depth 1 from the hub, 2 between leaves; the hub
    lies on every leaf-to-leaf path (n(n-1)/2 pairs); no triangles."""
    A = gb.Matrix.from_coo(np.r_[np.zeros(n, int), np.arange(1, n + 1)],
                           np.r_[np.arange(1, n + 1), np.zeros(n, int)], 1, n + 1, n + 1,
                           device=device)
    assert as_dict(bfs(A, 0)) == {0: 0, **{v: 1 for v in range(1, n + 1)}}
    assert as_dict(bfs(A, n)) == {n: 0, 0: 1, **{v: 2 for v in range(1, n)}}
    bc = host(betweenness_centrality(A, normalized=False).to_dense())
    np.testing.assert_allclose(bc, [n * (n - 1) / 2] + [0.0] * n)
    assert triangle_count(A) == 0
    np.testing.assert_array_equal(host(connected_components(A).to_dense()), np.zeros(n + 1))


@pytest.mark.parametrize("n", [1, 2, 3, 4, 12])
def test_complete(device, n):
    """K_n: every vertex at depth 1, C(n, 3) triangles, uniform PageRank,
    betweenness 0."""
    K = gb.Matrix.from_dense(np.ones((n, n)) - np.eye(n), device=device)
    K = K.select("offdiag")
    assert as_dict(bfs(K, n - 1)) == {v: int(v != n - 1) for v in range(n)}
    assert triangle_count(K) == math.comb(n, 3)
    np.testing.assert_allclose(host(pagerank(K).to_dense()), 1.0 / n, rtol=1e-12)
    np.testing.assert_allclose(host(betweenness_centrality(K).to_dense()), 0.0, atol=1e-12)
    np.testing.assert_array_equal(host(connected_components(K).to_dense()), np.zeros(n))


@pytest.mark.parametrize("n", [0, 1, 5])
def test_no_edges(device, n):
    """Vertices without edges (and the graph with no vertices): each vertex
    its own component, reached only from itself, PageRank uniform, nothing
    else."""
    A = gb.Matrix("bool", n, n, device=device)
    np.testing.assert_array_equal(host(connected_components(A).to_dense()), np.arange(n))
    assert triangle_count(A) == 0
    pr = pagerank(gb.Matrix("fp64", n, n, device=device))
    assert pr.size == n
    np.testing.assert_allclose(host(pr.to_dense()), np.full(n, 1.0 / n) if n else [])
    if n == 0:
        with pytest.raises(gb.IndexOutOfBound):
            bfs(A, 0)
        return
    for src in sources(n):
        assert as_dict(bfs(A, src)) == {src: 0}
        assert as_dict(sssp(A, src)) == {src: 0.0}
    np.testing.assert_allclose(host(betweenness_centrality(A).to_dense()), 0.0)


# ---------------------------------------------------------------- every family against networkx
@pytest.mark.parametrize("name,directed", ALL)
def test_bfs_families(device, name, directed):
    G, S = graph(name, directed)
    A = gb.Matrix.from_scipy(S, device=device)
    for src in sources(S.shape[0]):
        levels, parents = bfs(A, src, parents=True)
        ref = nx.single_source_shortest_path_length(G, src)
        assert as_dict(levels) == ref, src
        par = as_dict(parents)
        assert set(par) == set(ref) and par[src] == src
        assert all(S[p, v] != 0 and ref[p] == ref[v] - 1 for v, p in par.items() if v != src)


@pytest.mark.parametrize("name,directed", ALL)
def test_sssp_families(device, name, directed):
    G, S = graph(name, directed)
    W = S.tocoo()
    w = np.random.default_rng(3).integers(1, 9, W.nnz).astype(float)
    if not directed:                       # the same weight both ways
        key = np.minimum(W.row, W.col) * S.shape[0] + np.maximum(W.row, W.col)
        w = np.random.default_rng(3).integers(1, 9, key.max() + 1 if W.nnz else 1)[key]
        w = w.astype(float)
    W = sp.csr_matrix((w, (W.row, W.col)), shape=S.shape)
    A = gb.Matrix.from_scipy(W, device=device)
    for src in sources(S.shape[0]):
        d = csgraph.shortest_path(W, method="D", directed=True, indices=src)
        want = {i: x for i, x in enumerate(d.tolist()) if math.isfinite(x)}
        assert as_dict(sssp(A, src)) == want, src


@pytest.mark.parametrize("name", list(FAMILIES))
def test_connected_components_families(device, name):
    G, S = graph(name, False)
    labels = host(connected_components(gb.Matrix.from_scipy(S, device=device)).to_dense())
    want = np.empty(S.shape[0], dtype=np.int64)
    for comp in nx.connected_components(G):
        want[list(comp)] = min(comp)              # the smallest vertex id of the component
    np.testing.assert_array_equal(labels, want)


@pytest.mark.parametrize("name", list(FAMILIES))
def test_triangle_count_families(device, name):
    G, S = graph(name, False)
    G.remove_edges_from(nx.selfloop_edges(G))
    want = sum(nx.triangles(G).values()) // 3
    assert triangle_count(gb.Matrix.from_scipy(S, device=device)) == want


@pytest.mark.parametrize("name,directed", ALL)
def test_pagerank_families(device, name, directed):
    G, S = graph(name, directed)
    n = S.shape[0]
    got = host(pagerank(gb.Matrix.from_scipy(S, device=device), tol=1e-10, max_iter=500)
               .to_dense())
    ref = nx.pagerank(G, tol=1e-10, max_iter=500)
    np.testing.assert_allclose(got, [ref[i] for i in range(n)], rtol=1e-8, atol=1e-14)
    assert got.sum() == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("name,directed", ALL)
def test_betweenness_families(device, name, directed):
    G, S = graph(name, directed)
    n = S.shape[0]
    A = gb.Matrix.from_scipy(S, device=device)
    G.remove_edges_from(nx.selfloop_edges(G))
    for normalized in (True, False):
        ref = nx.betweenness_centrality(G, normalized=normalized)
        got = host(betweenness_centrality(A, normalized=normalized, batch_size=7).to_dense())
        np.testing.assert_allclose(got, [ref[i] for i in range(n)], rtol=1e-9, atol=1e-12)


def test_sssp_zero_weights(device):
    """Zero-weight edges (an undirected one, a directed zero cycle): a vertex
    re-reached at the same distance is not an improvement -- treating it as
    one never stops and reports a negative cycle."""
    A = gb.Matrix.from_coo([0, 1, 1, 2], [1, 0, 2, 1], [0.0, 0.0, 2.0, 2.0], 3, 3,
                           device=device)
    assert as_dict(sssp(A, 0)) == {0: 0.0, 1: 0.0, 2: 2.0}
    assert as_dict(sssp(A, 2)) == {0: 2.0, 1: 2.0, 2: 0.0}
    D = gb.Matrix.from_coo([0, 1, 1, 2], [1, 0, 2, 3], [0.0, 0.0, 5.0, 0.0], 4, 4,
                           device=device)
    assert as_dict(sssp(D, 1)) == {0: 0.0, 1: 0.0, 2: 5.0, 3: 5.0}
