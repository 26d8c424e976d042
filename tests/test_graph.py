"""gb.Graph and the inputs algorithms accept.

Every algorithm is run on the same graph given five ways -- a Matrix, a
``gb.Graph``, a SciPy sparse matrix, a networkx graph and (GPU only) a CuPy
sparse matrix -- and must give the Matrix result; the Matrix result itself is
checked against networkx mapped back through the node labels.  Graphs: the
karate club (weighted, relabelled with strings) and a disconnected weighted
graph with string labels, isolated vertices and its nodes in scrambled order.
The Graph's cached properties are checked against networkx/NumPy, and again
after the matrix is changed in place.
"""
import math

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import graphblast_py as gb
from graphblast_py.algorithms import (betweenness_centrality, bfs, connected_components,
                                      eigvalsh, expm_multiply, fglt, pagerank, sssp,
                                      total_communicability, triangle_count,
                                      triangles_per_vertex)


def karate():
    G = nx.karate_club_graph()                           # edges carry 'weight'
    return nx.relabel_nodes(G, {v: f"member{v}" for v in G})


def disconnected():
    G = nx.Graph()
    G.add_nodes_from(["h", "c", "a", "z", "e", "b", "g", "d", "f"])   # h, z isolated
    G.add_weighted_edges_from([("a", "b", 2.0), ("b", "c", 1.0), ("a", "c", 4.0),
                               ("c", "e", 0.5), ("d", "e", 1.5), ("e", "f", 0.5),
                               ("f", "g", 3.0), ("d", "f", 1.0), ("d", "g", 2.5)])
    return G


GRAPHS = {"karate": karate, "disconnected": disconnected}


def weighted_scipy(G):
    """Adjacency of G by networkx itself (vertex k = list(G)[k], 'weight' values)."""
    return nx.to_scipy_sparse_array(G, nodelist=list(G), weight="weight", format="csr")


# name -> (call, uses the values)
ALGORITHMS = {
    "bfs": (lambda X: bfs(X, 2), False),
    "bfs_parents": (lambda X: bfs(X, 2, parents=True), False),
    "sssp": (lambda X: sssp(X, 2), True),
    "pagerank": (lambda X: pagerank(X, tol=1e-10), True),
    "triangle_count": (triangle_count, False),
    "triangles_per_vertex": (triangles_per_vertex, False),
    "connected_components": (connected_components, False),
    "betweenness_centrality": (betweenness_centrality, False),
    "fglt": (fglt, False),
    "expm_multiply": (lambda X: expm_multiply(X, t=0.05), True),
    "total_communicability": (lambda X: total_communicability(X, beta=0.05), True),
    "eigvalsh": (lambda X: eigvalsh(X, k=2), True),
}


def same(r, ref):
    if isinstance(ref, tuple):
        assert isinstance(r, tuple) and len(r) == len(ref)
        for a, b in zip(r, ref):
            same(a, b)
    elif isinstance(ref, (gb.Vector, gb.Matrix)):
        assert type(r) is type(ref) and r.isclose(ref, rel_tol=1e-9, abs_tol=1e-12), (r, ref)
    elif isinstance(ref, np.ndarray):
        np.testing.assert_allclose(r, ref, rtol=1e-9, atol=1e-12)
    else:
        assert r == ref


def inputs(G, weighted):
    """The CPU input kinds of one graph: Matrix (from networkx's own SciPy
    adjacency), Graph, SciPy, networkx."""
    S = weighted_scipy(G)
    A = gb.Matrix.from_scipy(S if weighted else S.astype(bool))
    return A, {"Graph": gb.Graph.from_networkx(G), "scipy": S, "scipy_array_coo": S.tocoo(),
               "networkx": G}


@pytest.mark.parametrize("graph", sorted(GRAPHS))
@pytest.mark.parametrize("name", sorted(ALGORITHMS))
def test_every_input_kind_gives_the_matrix_result(name, graph):
    call, weighted = ALGORITHMS[name]
    G = GRAPHS[graph]()
    A, kinds = inputs(G, weighted)
    ref = call(A)
    for kind, X in kinds.items():
        try:
            same(call(X), ref)
        except AssertionError as e:
            raise AssertionError(f"{name} on a {kind} input differs from the Matrix result") \
                from e


@pytest.mark.gpu
@pytest.mark.parametrize("graph", sorted(GRAPHS))
@pytest.mark.parametrize("name", sorted(ALGORITHMS))
def test_cupy_sparse_input_gives_the_matrix_result(name, graph):
    cupyx_sparse = pytest.importorskip("cupyx.scipy.sparse")
    call, weighted = ALGORITHMS[name]
    G = GRAPHS[graph]()
    S = weighted_scipy(G)
    if not weighted:
        S = S.astype(bool)
    ref = call(gb.Matrix.from_scipy(S, device="gpu"))
    # cupyx holds no bool matrices: float64 values (ignored by the unweighted algorithms)
    r = call(cupyx_sparse.csr_matrix(sp.csr_matrix(S.astype(np.float64))))
    same(r, ref)


# ---------------------------------------------------------------- results vs networkx
@pytest.mark.parametrize("graph", sorted(GRAPHS))
def test_results_mapped_to_labels_match_networkx(graph):
    G = GRAPHS[graph]()
    g = gb.Graph.from_networkx(G)
    src = list(G)[2]
    assert g.index(src) == 2 and g.label(2) == src and g.labels == tuple(G)
    assert g.to_dict(bfs(G, 2)) == nx.single_source_shortest_path_length(G, src)
    dist = g.to_dict(sssp(g, g.index(src)))
    ref = nx.single_source_dijkstra_path_length(G, src, weight="weight")
    assert dist.keys() == ref.keys()
    assert all(math.isclose(dist[v], ref[v], rel_tol=1e-12) for v in ref)
    assert g.to_dict(triangles_per_vertex(G)) == nx.triangles(G)
    assert triangle_count(g) == sum(nx.triangles(G).values()) // 3
    pr, ref = g.to_dict(pagerank(G, tol=1e-12)), nx.pagerank(G, tol=1e-12)
    assert pr.keys() == ref.keys() and all(abs(pr[v] - ref[v]) < 1e-8 for v in ref)
    bc, ref = g.to_dict(betweenness_centrality(G)), nx.betweenness_centrality(G)
    assert all(math.isclose(bc[v], ref[v], rel_tol=1e-9, abs_tol=1e-12) for v in ref)
    labels = g.to_dict(connected_components(G))
    comps = {}
    for v, c in labels.items():
        comps.setdefault(c, set()).add(v)
    assert sorted(map(sorted, comps.values())) == sorted(map(sorted, nx.connected_components(G)))
    w = np.linalg.eigvalsh(nx.to_numpy_array(G, weight="weight"))
    np.testing.assert_allclose(eigvalsh(G, k=2), w[-2:], rtol=1e-9)


def test_networkx_structure_only_for_unweighted_algorithms():
    """bfs/betweenness on networkx input ignore 'weight' (hop counts), while
    sssp/pagerank use it, defaulting to 1 where an edge has none."""
    G = nx.DiGraph()
    G.add_edge("x", "y", weight=10.0)
    G.add_edge("y", "z")                                  # no weight: counts 1
    G.add_edge("x", "z", weight=0.5)
    g = gb.Graph.from_networkx(G)
    assert g.to_dict(bfs(G, 0)) == {"x": 0, "y": 1, "z": 1}
    assert g.to_dict(sssp(G, 0)) == nx.single_source_bellman_ford_path_length(G, "x") \
        == {"x": 0, "y": 10.0, "z": 0.5}
    G.add_edge("z", "y", weight=1)
    assert g.to_dict(sssp(G, 0)) == {"x": 0, "y": 1.5, "z": 0.5}


def test_other_objects_still_refused():
    for obj in (np.eye(3), [[0, 1], [1, 0]], None, gb.Vector("int64", 3)):
        with pytest.raises(gb.InvalidObject, match="triangle_count: A must be .*networkx graph"):
            triangle_count(obj)
    with pytest.raises(gb.DimensionMismatch):
        bfs(sp.csr_array(np.ones((2, 3))), 0)


# ---------------------------------------------------------------- Graph properties
def test_graph_properties_match_references():
    G = nx.gnp_random_graph(40, 0.1, seed=3, directed=True)
    G.add_edges_from([(5, 5), (7, 7)])                         # two self-loops
    G.add_node(40)                                             # isolated
    g = gb.Graph.from_networkx(G, weight=None)
    assert g.labels == tuple(range(41)) and g.nvertices == 41 and g.nedges == G.number_of_edges()
    assert g.to_dict(g.out_degree) == dict(G.out_degree())
    assert g.to_dict(g.in_degree) == dict(G.in_degree())
    assert g.nself_loops == nx.number_of_selfloops(G) == 2
    assert g.is_symmetric_structure is False and g.is_symmetric is False
    S = nx.to_scipy_sparse_array(G, nodelist=list(G), format="csr")
    assert g.AT.isequal(gb.Matrix.from_scipy(S.T.astype(bool)))
    H = G.to_undirected()
    U = gb.Graph.from_networkx(H)
    assert U.is_symmetric_structure and U.is_symmetric
    # networkx counts a self-loop twice in an undirected degree, a row holds it once
    assert U.to_dict(U.out_degree) == {v: d - H.has_edge(v, v) for v, d in H.degree()}


def test_graph_of_empty_and_one_vertex_matrices():
    for n in (0, 1):
        g = gb.Graph(gb.Matrix("bool", n, n))
        assert g.nself_loops == 0 and g.is_symmetric_structure
        assert g.out_degree.size == n and g.to_dict(g.in_degree) == {k: 0 for k in range(n)}
        assert triangle_count(g) == 0


def test_cached_properties_follow_mutations():
    G = disconnected()
    g = gb.Graph.from_networkx(G)
    A = g.A
    assert g.is_symmetric_structure and g.nself_loops == 0
    deg = g.to_dict(g.out_degree)
    assert deg == dict(G.degree())
    assert triangle_count(g) == sum(nx.triangles(G).values()) // 3 == 3
    assert g.out_degree is g.out_degree                      # cached, not recomputed
    A[g.index("h"), g.index("a")] = 7.0                      # one direction only
    assert not g.is_symmetric_structure and not g.is_symmetric
    assert g.to_dict(g.out_degree)["h"] == 1 and g.to_dict(g.in_degree)["h"] == 0
    assert g.AT.isequal(A.T) and g.AT[g.index("a"), g.index("h")] == 7.0
    with pytest.raises(gb.InvalidValue, match="symmetric"):
        triangle_count(g)
    with pytest.raises(gb.InvalidValue, match="symmetric"):
        eigvalsh(g, k=1)
    A[g.index("a"), g.index("h")] = 7.0                      # symmetric again
    assert g.is_symmetric_structure and g.is_symmetric
    assert triangle_count(g) == sum(nx.triangles(G).values()) // 3 == 3
    A[g.index("z"), g.index("z")] = 1.0                      # a self-loop
    assert g.nself_loops == 1
    with pytest.raises(gb.InvalidValue, match="self-loop"):
        fglt(g)
    A[g.index("a"), g.index("h")] = 8.0                      # values differ, structure not
    assert g.is_symmetric_structure and not g.is_symmetric
    # an operation writing into A through out= also drops the caches
    A.apply(gb.unary.identity, mask=A.S, out=A)
    A.ewise_add(A.T, gb.binary.max, out=A)
    assert g.is_symmetric
    B = gb.Matrix.from_coo([0], [1], True, 2, 2)
    gB = gb.Graph(B)
    assert not gB.is_symmetric_structure
    B.assign(True, [1], [0])
    assert gB.is_symmetric_structure and gb.Graph(B).to_dict(gb.Graph(B).in_degree) == {0: 1, 1: 1}


def test_graph_bad_input():
    A = gb.Matrix("bool", 3, 3)
    with pytest.raises(gb.InvalidObject, match="Graph: A must be a graphblast_py Matrix"):
        gb.Graph(sp.eye(3))
    with pytest.raises(gb.DimensionMismatch, match="square"):
        gb.Graph(gb.Matrix("bool", 2, 3))
    with pytest.raises(gb.InvalidValue, match="2 labels for a matrix of 3"):
        gb.Graph(A, ["a", "b"])
    with pytest.raises(gb.InvalidValue, match="'a' is given twice"):
        gb.Graph(A, ["a", "b", "a"])
    with pytest.raises(gb.InvalidObject, match="not hashable"):
        gb.Graph(A, ["a", ["b"], "c"])
    with pytest.raises(gb.InvalidObject, match="sequence"):
        gb.Graph(A, "abc")
    g = gb.Graph(A, ["a", "b", "c"])
    with pytest.raises(gb.InvalidValue, match="'q' is not a node label"):
        g.index("q")
    with pytest.raises(gb.InvalidIndex):
        g.label(3)
    with pytest.raises(gb.DimensionMismatch, match="size 4"):
        g.to_dict(gb.Vector("int64", 4))
    with pytest.raises(gb.InvalidObject, match="expected a Vector"):
        g.to_dict([1, 2, 3])
    assert gb.Graph(A).index(1) == 1 and gb.Graph(A).labels is None


# ---------------------------------------------------------------- == on objects
def test_eq_raises_and_points_to_isequal():
    B = gb.Matrix.from_coo([0, 1], [1, 0], 1.0, 2, 2)
    u = gb.Vector.from_coo([0], [1.0], 3)
    for x, y in ((B, B.dup()), (B, B), (u, u.dup()), (B, 1), (u, None)):
        with pytest.raises(gb.InvalidObject, match="isequal"):
            x == y  # noqa: B015
        with pytest.raises(TypeError, match="isclose"):
            x != y  # noqa: B015
    for x in (B, u, gb.Graph(B)):
        with pytest.raises(TypeError, match="unhashable"):
            hash(x)
    assert B.isequal(B.dup()) and u.isequal(u.dup())
