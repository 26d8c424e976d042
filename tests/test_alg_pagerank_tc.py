"""PageRank and triangle counting against networkx and the known answers in
tests/data/README.md."""
import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import graphblast_py as gb
from graphblast_py.algorithms import pagerank, triangle_count, triangles_per_vertex

from .conftest import host
from .test_alg_traversal import DIRECTED, UNDIRECTED, directed, mtx, to_nx, undirected


# ---------------------------------------------------------------- PageRank
def _assert_pr(v, ref, n):
    assert v.dtype == np.float64 and v.nvals == n
    got = host(v.to_dense())
    np.testing.assert_allclose(got, [ref[i] for i in range(n)], rtol=1e-9, atol=1e-15)
    assert got.sum() == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("name,is_directed",
                         [(n, False) for n in UNDIRECTED] + [(n, True) for n in DIRECTED])
def test_pagerank_matches_networkx(device, name, is_directed):
    S = directed(name) if is_directed else undirected(name)
    G = to_nx(S, is_directed)            # edge attribute 'weight' = the matrix values
    A = gb.Matrix.from_scipy(S, device=device)
    _assert_pr(pagerank(A), nx.pagerank(G), S.shape[0])
    _assert_pr(pagerank(A, damping=0.6, tol=1e-10, max_iter=300),
               nx.pagerank(G, alpha=0.6, tol=1e-10, max_iter=300), S.shape[0])


def test_pagerank_weighted_with_dangling_vertices(device):
    """Random weights, sinks (dangling vertices), a self-loop and a vertex whose
    out-weights are explicit zeros (dangling too, as in networkx)."""
    S = directed("gnp").tocoo()
    keep = S.row != 5
    r = np.concatenate([S.row[keep], [3, 5, 5]])
    c = np.concatenate([S.col[keep], [3, 6, 7]])
    w = np.concatenate([np.random.default_rng(4).uniform(0.1, 5.0, keep.sum()), [2.0, 0.0, 0.0]])
    W = sp.csr_matrix((w, (r, c)), shape=S.shape)
    assert (np.diff(W.indptr) == 0).sum() > 10
    G = to_nx(W, True)
    assert G.has_edge(5, 6)
    A = gb.Matrix.from_scipy(W, device=device)
    assert A.nvals == W.nnz
    _assert_pr(pagerank(A), nx.pagerank(G), W.shape[0])
    Gu = to_nx(undirected("ldbc"), False)   # weighted undirected (LDBC example)
    _assert_pr(pagerank(gb.Matrix.from_scipy(undirected("ldbc"), device=device)),
               nx.pagerank(Gu), Gu.number_of_nodes())


def test_pagerank_iso_and_bool_matrices(device):
    S = undirected("karate")
    ref = nx.pagerank(to_nx(S, False))
    r, c = S.nonzero()
    for A in (gb.Matrix.from_coo(r, c, True, 34, 34, device=device),
              gb.Matrix.from_coo(r, c, 3, 34, 34, device=device)):   # iso: weights cancel
        _assert_pr(pagerank(A), ref, 34)


def test_pagerank_convergence_error_and_edge_cases(device):
    A = gb.Matrix.from_scipy(undirected("karate"), device=device)
    with pytest.raises(nx.PowerIterationFailedConvergence):
        nx.pagerank(to_nx(undirected("karate"), False), max_iter=3)
    with pytest.raises(gb.ConvergenceError):
        pagerank(A, max_iter=3)
    empty = gb.Matrix("fp64", 4, 4, device=device)      # every vertex dangling: uniform
    np.testing.assert_allclose(host(pagerank(empty).to_dense()), 0.25)
    assert pagerank(gb.Matrix("fp64", 0, 0, device=device)).size == 0
    with pytest.raises(gb.DimensionMismatch):
        pagerank(gb.Matrix("fp64", 3, 4, device=device))


# ---------------------------------------------------------------- triangles
@pytest.mark.parametrize("name,count", [("karate", 45), ("A", 11), ("ldbc", 4)])
def test_triangle_count_known_answers(device, name, count):
    A = gb.Matrix.from_scipy(undirected(name), device=device)
    assert triangle_count(A) == count
    # self-loops are not triangles: the count ignores the diagonal
    S = undirected(name).tocoo()
    n = S.shape[0]
    loops = gb.Matrix.from_coo(np.concatenate([S.row, np.arange(n)]),
                               np.concatenate([S.col, np.arange(n)]), 1.0, n, n, device=device)
    assert loops.nvals == S.nnz + n and triangle_count(loops) == count


@pytest.mark.parametrize("name", UNDIRECTED)
def test_triangles_match_networkx(device, name):
    S = undirected(name)
    G = to_nx(S, False)
    ref = nx.triangles(G)
    A = gb.Matrix.from_scipy(S, device=device)
    assert triangle_count(A) == sum(ref.values()) // 3
    t = triangles_per_vertex(A)
    assert t.dtype == np.int64 and t.nvals == S.shape[0]
    np.testing.assert_array_equal(host(t.to_dense()), [ref[i] for i in range(S.shape[0])])


def test_triangles_dtypes_and_self_loops(device):
    S = undirected("karate").tolil()
    S.setdiag(1.0)                         # self-loops are ignored
    S = S.tocsr()
    ref = nx.triangles(to_nx(undirected("karate"), False))
    r, c = S.nonzero()
    for dtype in ("bool", "int8", "int32", "float32", "float64"):
        A = gb.Matrix.from_coo(r, c, np.ones(len(r)), 34, 34, dtype=dtype, device=device)
        assert triangle_count(A) == 45
        np.testing.assert_array_equal(host(triangles_per_vertex(A).to_dense()),
                                      [ref[i] for i in range(34)])


def test_triangles_complete_graph_uses_masked_dot(device):
    """K_n: n(n-1)(n-2)/6 triangles, (n-1)(n-2)/2 per vertex (more than int8
    holds).  The expanded (saxpy) product is smaller than the dot work here,
    but ~16x slower per product: method="auto" must still pick the dot kernel
    (the count: one fused mxm_reduce over the degree-ordered L; the two
    products with the full diag(key), row and column scalings, build L; the
    degrees are the row lengths, no product)."""
    K = gb.Matrix.from_scipy(sp.csr_matrix(np.ones((300, 300), dtype=np.int8)), device=device)
    gb.stats.reset()
    assert triangle_count(K) == 300 * 299 * 298 // 6
    assert gb.stats()["counts"] == {"mxm:diag": 2, "mxm_reduce:dot": 1}
    gb.stats.reset()
    np.testing.assert_array_equal(host(triangles_per_vertex(K).to_dense()), 299 * 298 // 2)
    assert gb.stats()["counts"] == {"mxm:dot": 2}


def test_triangle_count_reuses_degree_until_the_graph_changes(device, monkeypatch):
    """The degree order reads ``Graph(A).out_degree`` (cached on A): a second
    count on the same matrix does not recompute it, and a change to A drops
    the cache, so the next count sees the new degrees."""
    import graphblast_py.graph as graph_mod
    made = []
    real = graph_mod._degree
    monkeypatch.setattr(graph_mod, "_degree", lambda A, rows: made.append(rows) or real(A, rows))
    G = nx.path_graph(6)                                   # 0-1-2-3-4-5: no triangle
    A, G = _from_nx(G, device)
    assert triangle_count(A) == 0
    assert made == [True]
    assert triangle_count(A) == 0
    assert made == [True]                                  # not recomputed
    for i, j in ((0, 2), (2, 0), (2, 4), (4, 2), (1, 3), (3, 1)):     # three triangles
        A[i, j] = True
        G.add_edge(i, j)
    assert triangle_count(A) == sum(nx.triangles(G).values()) // 3 == 3
    assert made == [True, True]
    np.testing.assert_array_equal(host(gb.Graph(A).out_degree.to_dense()),
                                  [G.degree(v) for v in range(6)])


def _from_nx(G, device):
    G = nx.convert_node_labels_to_integers(G)
    S = nx.to_scipy_sparse_array(G, nodelist=range(G.number_of_nodes()), format="csr")
    return gb.Matrix.from_scipy(sp.csr_matrix(S), device=device), G


@pytest.mark.parametrize("family", ["hubs", "grid", "isolated", "path", "one", "star"])
def test_triangles_graph_families(device, family):
    """The degree-ordered count against networkx on the families that break
    orderings: power-law hubs, grids and paths (equal degrees: ties by id),
    isolated vertices beside a clique, one vertex, a star (one hub)."""
    if family == "hubs":
        K = gb.generators.kronecker(8, seed=3, device="cpu")   # networkx reads SciPy
        G = nx.from_scipy_sparse_array(K.to_scipy())
        G.remove_edges_from(nx.selfloop_edges(G))
    else:
        G = {"grid": nx.triangular_lattice_graph(6, 8), "path": nx.path_graph(50),
             "one": nx.empty_graph(1), "star": nx.wheel_graph(20),
             "isolated": nx.disjoint_union(nx.complete_graph(7), nx.empty_graph(5))}[family]
    A, G = _from_nx(G, device)
    ref = sum(nx.triangles(G).values()) // 3
    assert (ref > 0) == (family not in ("path", "one"))
    assert triangle_count(A) == ref


def test_triangle_count_errors(device):
    with pytest.raises(gb.InvalidValue):
        triangle_count(gb.Matrix.from_coo([0, 1], [1, 2], True, 3, 3, device=device))
    with pytest.raises(gb.InvalidValue):
        triangles_per_vertex(gb.Matrix.from_coo([0], [1], True, 3, 3, device=device))
    with pytest.raises(gb.DimensionMismatch):
        triangle_count(gb.Matrix.from_coo([0], [1], True, 2, 3, device=device))
    assert triangle_count(gb.Matrix("bool", 5, 5, device=device)) == 0
    W = mtx("west0067.mtx")
    with pytest.raises(gb.InvalidValue):            # unsymmetric structure
        triangle_count(gb.Matrix.from_scipy(W, device=device))


@pytest.mark.parametrize("seed", [0, 1])
def test_masked_count_reduce_matches_scipy(device, seed):
    """The masked plus_pair mxm_reduce (dot; on the CPU the bitmap count
    kernel) against SciPy: rowsums of (A B) o M, over a mask that is not A's
    structure, with empty rows and columns on every operand."""
    rng = np.random.default_rng(seed)
    A = sp.random(60, 40, density=0.15, format="csr", random_state=rng)
    B = sp.random(40, 50, density=0.2, format="csr", random_state=rng)
    M = sp.random(60, 50, density=0.3, format="csr", random_state=rng)
    A, B, M = (sp.csr_matrix(X, dtype=np.int64) for X in (A, B, M))
    for X in (A, B, M):
        X.data[:] = 1
    A.data[A.indptr[7]:A.indptr[8]] = 0                 # empty rows
    M.data[M.indptr[9]:M.indptr[10]] = 0
    A.eliminate_zeros(), M.eliminate_zeros()
    ref = np.asarray((A @ B).multiply(M).sum(axis=1)).ravel().astype(np.int64)
    gA, gB, gM = (gb.Matrix.from_scipy(X, device=device) for X in (A, B, M))
    w = gA.mxm_reduce(gB, gb.semiring.plus_pair, mask=gM.S, method="dot")
    assert w.dtype == np.int64 and w.nvals == np.count_nonzero(ref)
    np.testing.assert_array_equal(host(w.to_dense()), ref)
