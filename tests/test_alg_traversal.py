"""BFS, SSSP, connected components and betweenness centrality against
networkx and scipy.sparse.csgraph (references nobody here wrote)."""
import functools
import math
import random

import networkx as nx
import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph

import graphblast_py as gb
from graphblast_py.algorithms import (betweenness_centrality, bfs, connected_components, sssp)

from .conftest import data_file, host


# ---------------------------------------------------------------- test graphs
def _gen(name, *args, **kw):
    """A graph from gb.generators as a float64 SciPy CSR matrix."""
    return getattr(gb.generators, name)(*args, **kw).to("cpu").to_scipy().astype(float).tocsr()


def _relabel(S, seed):
    """The same graph with vertex ids permuted (so smallest-id answers are not trivial)."""
    p = np.random.default_rng(seed).permutation(S.shape[0])
    return S[p][:, p].tocsr()


def mtx(name):
    """A matrix from the test data in tests/data (a missing file fails the test)."""
    return scipy.io.mmread(data_file(name), spmatrix=True).tocsr()


@functools.lru_cache(maxsize=None)
def undirected(name):
    """Symmetric SciPy CSR adjacency matrices (values = 1 unless noted)."""
    if name in ("karate", "A", "ldbc"):
        f = {"karate": "karate.mtx", "A": "A.mtx", "ldbc": "ldbc-undirected-example.mtx"}[name]
        return mtx(f)
    if name == "kron":          # Graph500 R-MAT, scale 10: hubs and isolated vertices
        return _gen("kronecker", 10, seed=7)
    if name == "grid":          # large diameter
        return _gen("grid2d", 30, 40)
    if name == "smallgrid":
        return nx.to_scipy_sparse_array(
            nx.convert_node_labels_to_integers(nx.grid_2d_graph(9, 13)), format="csr")
    if name == "geometric":
        return _gen("random_geometric", 1500, 0.04, seed=3)
    if name == "disconnected":   # several components, isolated vertices, relabelled
        parts = [nx.gnp_random_graph(60, 0.08, seed=s) for s in range(4)]
        parts += [nx.path_graph(25), nx.empty_graph(7)]
        G = nx.disjoint_union_all(parts)
        return _relabel(nx.to_scipy_sparse_array(G, format="csr"), 11)
    raise KeyError(name)


@functools.lru_cache(maxsize=None)
def directed(name):
    if name == "west0067":
        return abs(mtx("west0067.mtx"))
    if name == "gnp":           # sparse random digraph: sinks, unreachable parts
        return _gen("erdos_renyi", 400, 0.006, seed=5, directed=True)
    if name == "scalefree":
        G = nx.DiGraph(nx.scale_free_graph(600, seed=9))
        G.remove_edges_from(nx.selfloop_edges(G))
        return nx.to_scipy_sparse_array(G, format="csr")
    raise KeyError(name)


UNDIRECTED = ["karate", "A", "ldbc", "kron", "grid", "geometric", "disconnected"]
DIRECTED = ["west0067", "gnp", "scalefree"]


def to_nx(S, is_directed):
    return nx.from_scipy_sparse_array(S, create_using=nx.DiGraph if is_directed else nx.Graph)


def as_dict(v):
    i, x = v.to_coo()
    return dict(zip(host(i).tolist(), host(x).tolist()))


def graph_cases():
    return [(n, False) for n in UNDIRECTED] + [(n, True) for n in DIRECTED]


def get(name, is_directed):
    return directed(name) if is_directed else undirected(name)


# ---------------------------------------------------------------- BFS
@pytest.mark.parametrize("name,is_directed", graph_cases())
def test_bfs_levels_and_parents(device, name, is_directed):
    S = get(name, is_directed)
    A = gb.Matrix.from_scipy(S, device=device)
    G = to_nx(S, is_directed)
    for src in (0, S.shape[0] // 2, S.shape[0] - 1):
        levels, parents = bfs(A, src, parents=True)
        ref = nx.single_source_shortest_path_length(G, src)
        assert as_dict(levels) == ref
        assert levels.dtype == np.int64
        assert as_dict(bfs(A, src)) == ref
        par = as_dict(parents)
        assert set(par) == set(ref) and par[src] == src
        for v, p in par.items():          # a BFS parent: an in-neighbour one level up
            if v != src:
                assert S[p, v] != 0 and ref[p] == ref[v] - 1


def test_bfs_switches_direction(device, monkeypatch):
    """The ordinary calls go push and pull on a power-law graph; with wide
    traversal runs (the GPU's default) the run does, where the backend
    reports its levels' directions."""
    A = gb.Matrix.from_scipy(undirected("kron"), device=device)
    be = gb.backend.get(device)
    monkeypatch.setattr(be, "speculate_wide", False)
    gb.stats.reset()
    off = bfs(A, 0)
    counts = gb.stats()["counts"]
    assert counts.get("vxm:push", 0) >= 1 and counts.get("vxm:pull", 0) >= 1
    monkeypatch.setattr(be, "speculate_wide", True)
    gb.stats.reset()
    assert bfs(A, 0).isequal(off)
    counts = gb.stats()["counts"]
    assert counts.get("traversal:launched", 0) >= 1 and counts.get("vxm:push", 0) >= 1
    k = getattr(be, "last_kernel", None)
    if isinstance(k, tuple) and k[0] == "traverse_wide":
        assert "u" in k[1] and "p" in k[1], k


def test_bfs_isolated_source_and_errors(device):
    S = undirected("disconnected")
    iso = int(np.flatnonzero(np.diff(S.indptr) == 0)[0])
    A = gb.Matrix.from_scipy(S, device=device)
    levels, parents = bfs(A, iso, parents=True)
    assert as_dict(levels) == {iso: 0} and as_dict(parents) == {iso: iso}
    with pytest.raises(gb.IndexOutOfBound):
        bfs(A, S.shape[0])
    with pytest.raises(gb.IndexOutOfBound):
        bfs(A, -1)
    with pytest.raises(gb.DimensionMismatch):
        bfs(gb.Matrix.from_coo([0], [1], True, 2, 3, device=device), 0)


# ---------------------------------------------------------------- SSSP
def _csgraph_dist(S, src, method):
    d = csgraph.shortest_path(S, method=method, indices=src)
    return {i: x for i, x in enumerate(d.tolist()) if math.isfinite(x)}


def _assert_dist(v, ref):
    got = as_dict(v)
    assert set(got) == set(ref)
    for i, x in ref.items():
        assert got[i] == pytest.approx(x, rel=1e-12, abs=1e-12)


def _weighted(S, seed, lo=0.5, hi=10.0):
    W = S.tocoo()
    w = np.random.default_rng(seed).uniform(lo, hi, W.nnz)
    return sp.csr_matrix((w, (W.row, W.col)), shape=S.shape)


@pytest.mark.parametrize("name,is_directed", graph_cases())
def test_sssp_positive_weights(device, name, is_directed):
    S = _weighted(get(name, is_directed), 1)
    A = gb.Matrix.from_scipy(S, device=device)
    for src in (0, S.shape[0] - 1):
        d = sssp(A, src)
        assert d.dtype == np.float64
        _assert_dist(d, _csgraph_dist(S, src, "D"))


def test_sssp_unweighted_counts_hops(device):
    S = undirected("grid")
    A = gb.Matrix.from_coo(*S.nonzero(), True, *S.shape, device=device)    # iso Boolean
    d = sssp(A, 5)
    ref = nx.single_source_shortest_path_length(to_nx(S, False), 5)
    assert as_dict(d) == {k: float(x) for k, x in ref.items()}


@pytest.mark.parametrize("name", ["gnp", "scalefree", "west0067"])
def test_sssp_negative_weights(device, name):
    """w'(i,j) = w(i,j) + h(i) - h(j) (Johnson's reweighting) keeps every cycle
    non-negative but makes many edges negative."""
    S = _weighted(directed(name), 2, 1.0, 3.0).tocoo()
    h = np.random.default_rng(3).uniform(0, 20, S.shape[0])
    w = S.data + h[S.row] - h[S.col]
    assert (w < 0).sum() > S.nnz // 4
    W = sp.csr_matrix((w, (S.row, S.col)), shape=S.shape)
    A = gb.Matrix.from_scipy(W, device=device)
    for src in (0, 7):
        _assert_dist(sssp(A, src), _csgraph_dist(W, src, "BF"))


def test_sssp_negative_cycle(device):
    W = mtx("west0067.mtx")                                  # has a negative cycle
    with pytest.raises(csgraph.NegativeCycleError):
        csgraph.shortest_path(W, method="BF", indices=0)
    with pytest.raises(gb.NegativeCycle):
        sssp(gb.Matrix.from_scipy(W, device=device), 0)
    # a negative cycle 3 -> 4 -> 3 that vertex 0 cannot reach: no error
    r, c, w = [0, 1, 3, 4, 5], [1, 2, 4, 3, 5], [1.0, -2.0, 1.0, -3.0, 2.0]
    A = gb.Matrix.from_coo(r, c, w, 6, 6, device=device)
    assert as_dict(sssp(A, 0)) == {0: 0.0, 1: 1.0, 2: -1.0}
    with pytest.raises(gb.NegativeCycle):
        sssp(A, 3)
    with pytest.raises(gb.NegativeCycle):        # negative self-loop
        sssp(gb.Matrix.from_coo([0, 0], [0, 1], [-1.0, 1.0], 2, 2, device=device), 0)


def test_sssp_dtypes_isolated_and_errors(device):
    A = gb.Matrix.from_coo([0, 1, 0], [1, 2, 2], [2, 3, 7], 4, 4, dtype="int32", device=device)
    d = sssp(A, 0)
    assert d.dtype == np.float64 and as_dict(d) == {0: 0.0, 1: 2.0, 2: 5.0}
    assert as_dict(sssp(A, 3)) == {3: 0.0}                  # a source with no edges
    A32 = gb.Matrix.from_coo([0, 1], [1, 2], [0.5, 0.25], 3, 3, dtype="float32", device=device)
    d32 = sssp(A32, 0)
    assert d32.dtype == np.float32 and as_dict(d32) == {0: 0.0, 1: 0.5, 2: 0.75}
    with pytest.raises(gb.IndexOutOfBound):
        sssp(A, 4)
    with pytest.raises(gb.DimensionMismatch):
        sssp(gb.Matrix.from_coo([0], [1], 1.0, 2, 3, device=device), 0)


# ---------------------------------------------------------------- connected components
@pytest.mark.parametrize("name", UNDIRECTED)
def test_connected_components(device, name):
    S = undirected(name)
    labels = connected_components(gb.Matrix.from_scipy(S, device=device))
    assert labels.dtype == np.int64 and labels.nvals == S.shape[0]
    ref = np.empty(S.shape[0], dtype=np.int64)
    for comp in nx.connected_components(to_nx(S, False)):
        ref[list(comp)] = min(comp)
    np.testing.assert_array_equal(host(labels.to_dense()), ref)


def test_connected_components_edge_cases(device):
    empty = gb.Matrix("bool", 5, 5, device=device)
    np.testing.assert_array_equal(host(connected_components(empty).to_dense()), np.arange(5))
    # a long path with decreasing ids: 9-8-...-0 plus a self-loop
    r = list(range(1, 10)) + list(range(9)) + [4]
    c = list(range(9)) + list(range(1, 10)) + [4]
    A = gb.Matrix.from_coo(r, c, 1.0, 12, 12, device=device)
    np.testing.assert_array_equal(host(connected_components(A).to_dense()),
                                  [0] * 10 + [10, 11])
    with pytest.raises(gb.InvalidValue):
        connected_components(gb.Matrix.from_coo([0], [1], True, 2, 2, device=device))
    with pytest.raises(gb.DimensionMismatch):
        connected_components(gb.Matrix.from_coo([0], [1], True, 2, 3, device=device))


# ---------------------------------------------------------------- betweenness
def _assert_bc(v, ref, rel=1e-9):
    got = host(v.to_dense())
    want = np.array([ref[i] for i in range(len(ref))])
    np.testing.assert_allclose(got, want, rtol=rel, atol=1e-12)


@pytest.mark.parametrize("name,is_directed",
                         [("karate", False), ("A", False), ("ldbc", False), ("smallgrid", False),
                          ("disconnected", False), ("west0067", True), ("gnp", True),
                          ("scalefree", True)])
def test_betweenness_all_sources(device, name, is_directed):
    S = get(name, is_directed)
    G = to_nx(S, is_directed)
    A = gb.Matrix.from_scipy(S, device=device)
    _assert_bc(betweenness_centrality(A, batch_size=48), nx.betweenness_centrality(G))
    _assert_bc(betweenness_centrality(A, normalized=False, batch_size=500),
               nx.betweenness_centrality(G, normalized=False))


@pytest.mark.parametrize("name,is_directed", [("kron", False), ("geometric", False),
                                              ("disconnected", False), ("scalefree", True)])
@pytest.mark.parametrize("k", [1, 40])
def test_betweenness_sampled_sources(device, name, is_directed, k):
    """sources = the sample networkx draws for k=..., seed=...: same result."""
    S = get(name, is_directed)
    G = to_nx(S, is_directed)
    sources = random.Random(42).sample(list(G), k)
    A = gb.Matrix.from_scipy(S, device=device)
    for normalized in (True, False):
        ref = nx.betweenness_centrality(G, k=k, seed=42, normalized=normalized)
        _assert_bc(betweenness_centrality(A, sources=sources, normalized=normalized,
                                          batch_size=16), ref)


def test_betweenness_directed_flag_and_errors(device):
    S = undirected("karate")
    A = gb.Matrix.from_scipy(S, device=device)
    ref = nx.betweenness_centrality(to_nx(S, True), normalized=False)   # as a digraph
    _assert_bc(betweenness_centrality(A, normalized=False, directed=True), ref)
    with pytest.raises(gb.IndexOutOfBound):
        betweenness_centrality(A, sources=[0, 34])
    with pytest.raises(gb.InvalidValue):
        betweenness_centrality(A, sources=[3, 3])
    with pytest.raises(gb.InvalidValue):
        betweenness_centrality(A, sources=[])
    with pytest.raises(gb.InvalidValue):
        betweenness_centrality(A, batch_size=0)
    with pytest.raises(gb.DimensionMismatch):
        betweenness_centrality(gb.Matrix.from_coo([0], [1], True, 2, 3, device=device))
