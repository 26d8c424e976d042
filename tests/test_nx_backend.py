"""The networkx dispatch backend "graphblast" against networkx's own answers.

Each served function, called as ``nx.<f>(G, backend="graphblast")``, must give
what networkx itself computes on the same graph (references: networkx).  The
last test runs networkx's own test modules for those functions through the
backend (graphblast_py.nx_backend.nxtests).
"""
import math
import random

import pytest

nx = pytest.importorskip("networkx")

from graphblast_py.nx_backend import BackendInterface, GraphblastGraph  # noqa: E402

B = "graphblast"


@pytest.fixture(autouse=True)
def _quiet_cache_note():
    """networkx notes (UserWarning) each reuse of a cached converted graph."""
    had = "cache" in nx.config.warnings_to_ignore
    nx.config.warnings_to_ignore.add("cache")
    yield
    if not had:
        nx.config.warnings_to_ignore.discard("cache")


def _disconnected():
    G = nx.disjoint_union(nx.cycle_graph(5), nx.complete_graph(4))
    G.add_edge(20, 21)
    G.add_nodes_from(["iso-a", "iso-b"])
    G.add_edge(3, 3)                                      # a self-loop
    return G


def _hubs():
    G = nx.barabasi_albert_graph(120, 2, seed=7)
    for u, v in G.edges:
        G[u][v]["weight"] = 1 + (u * 7 + v * 3) % 5
    return G


def _directed():
    G = nx.gnp_random_graph(60, 0.06, seed=3, directed=True)
    for u, v in G.edges:
        G[u][v]["weight"] = 0.5 + (u + 2 * v) % 4
    G.add_node(99)                                        # isolated, also dangling
    return G


UNDIRECTED = {
    "karate": nx.karate_club_graph,                       # integer 'weight' attributes
    "path": lambda: nx.path_graph(40),
    "grid": lambda: nx.grid_2d_graph(7, 6),               # tuple labels
    "disconnected": _disconnected,
    "hubs": _hubs,
    "strings": lambda: nx.relabel_nodes(nx.les_miserables_graph(), lambda s: "n:" + s),
    "empty": nx.Graph,
    "one-vertex": lambda: nx.empty_graph(1),
}
DIRECTED = {
    "directed": _directed,
    "directed-path": lambda: nx.path_graph(30, create_using=nx.DiGraph),
}
ALL = {**UNDIRECTED, **DIRECTED}


def assert_close(got, want, rel=1e-9, abs_=1e-12):
    assert list(got) == list(want) or set(got) == set(want)
    assert set(got) == set(want)
    for k, w in want.items():
        g = got[k]
        assert type(g) is type(w) or isinstance(g, float) and isinstance(w, float), (k, g, w)
        if isinstance(w, float) and math.isnan(w):
            assert math.isnan(g), (k, g, w)
        else:
            assert g == pytest.approx(w, rel=rel, abs=abs_), (k, g, w)


@pytest.fixture(params=sorted(ALL))
def graph(request):
    return ALL[request.param]()


@pytest.fixture(params=sorted(UNDIRECTED))
def ugraph(request):
    return UNDIRECTED[request.param]()


def _sources(G):
    nodes = list(G)
    return nodes[:1] + nodes[len(nodes) // 2: len(nodes) // 2 + 1] if nodes else []


# ---------------------------------------------------------------- each function
@pytest.mark.parametrize("weight", ["weight", None])
def test_pagerank(graph, weight):
    got = nx.pagerank(graph, weight=weight, backend=B)
    want = nx.pagerank(graph, weight=weight)
    assert_close(got, want, rel=1e-5, abs_=1e-7)      # both stop at the same tolerance
    if got:
        assert sum(got.values()) == pytest.approx(1.0)


def test_pagerank_multigraph_counts_parallel_edges():
    G = nx.MultiDiGraph([(0, 1), (0, 1), (0, 2), (1, 0), (2, 2)])
    assert_close(nx.pagerank(G, weight=None, backend=B), nx.pagerank(G, weight=None), 1e-5)


def test_pagerank_not_converged_raises_networkx_error():
    G = nx.path_graph(20, create_using=nx.DiGraph)
    with pytest.raises(nx.PowerIterationFailedConvergence):
        nx.pagerank(G, max_iter=1, backend=B)


def test_shortest_path_length(graph):
    for s in _sources(graph):
        got = nx.single_source_shortest_path_length(graph, s, backend=B)
        assert got == nx.single_source_shortest_path_length(graph, s)
        assert all(type(v) is int for v in got.values())


def test_shortest_path_length_missing_source():
    with pytest.raises(nx.NodeNotFound):
        nx.single_source_shortest_path_length(nx.path_graph(3), 7, backend=B)


def test_triangles(ugraph):
    got = nx.triangles(ugraph, backend=B)
    assert got == nx.triangles(ugraph)
    assert all(type(v) is int for v in got.values())
    nodes = list(ugraph)[::3]
    assert nx.triangles(ugraph, nodes, backend=B) == nx.triangles(ugraph, nodes)
    if nodes:
        one = nx.triangles(ugraph, nodes[-1], backend=B)
        assert type(one) is int and one == nx.triangles(ugraph, nodes[-1])


def test_connected_components(ugraph):
    got = nx.connected_components(ugraph, backend=B)
    assert iter(got) is got                                 # a generator, as networkx's
    assert list(got) == list(nx.connected_components(ugraph))   # same sets, same order
    assert (nx.number_connected_components(ugraph, backend=B)
            == nx.number_connected_components(ugraph))


@pytest.mark.parametrize("normalized", [True, False])
def test_betweenness(graph, normalized):
    got = nx.betweenness_centrality(graph, normalized=normalized, backend=B)
    assert_close(got, nx.betweenness_centrality(graph, normalized=normalized))


@pytest.mark.parametrize("normalized", [True, False])
def test_betweenness_k_sample_uses_networkx_sources(graph, normalized):
    if len(graph) < 4:
        pytest.skip("k-sampling needs a few vertices")
    for k in (1, 3, len(graph)):
        got = nx.betweenness_centrality(graph, k=k, normalized=normalized, seed=11, backend=B)
        want = nx.betweenness_centrality(graph, k=k, normalized=normalized, seed=11)
        assert_close(got, want)
    # a random.Random passed as seed is drawn from the same way
    got = nx.betweenness_centrality(graph, k=3, seed=random.Random(5), backend=B)
    assert_close(got, nx.betweenness_centrality(graph, k=3, seed=random.Random(5)))


def test_bellman_ford(graph):
    for s in _sources(graph):
        got = nx.single_source_bellman_ford_path_length(graph, s, backend=B)
        want = nx.single_source_bellman_ford_path_length(graph, s)
        assert_close(got, want)
        got = nx.single_source_bellman_ford_path_length(graph, s, weight=None, backend=B)
        assert got == nx.single_source_bellman_ford_path_length(graph, s, weight=None)


def test_dijkstra(graph):
    for s in _sources(graph):
        got = nx.single_source_dijkstra_path_length(graph, s, backend=B)
        assert_close(got, nx.single_source_dijkstra_path_length(graph, s))
    with pytest.raises(nx.NodeNotFound):
        nx.single_source_dijkstra_path_length(graph, "no such node", backend=B)


def test_is_connected_and_node_component(ugraph):
    if len(ugraph) == 0:
        with pytest.raises(nx.NetworkXPointlessConcept):
            nx.is_connected(ugraph, backend=B)
        return
    assert nx.is_connected(ugraph, backend=B) == nx.is_connected(ugraph)
    for s in _sources(ugraph) + list(ugraph)[-1:]:
        assert (nx.node_connected_component(ugraph, s, backend=B)
                == nx.node_connected_component(ugraph, s))


def test_triangles_node_arguments_as_networkx():
    G = nx.complete_graph(4)
    assert nx.triangles(G, [0, 1, 9], backend=B) == {0: 3, 1: 3}    # unknown nodes skipped
    assert nx.triangles(G, 2, backend=B) == 3
    # an iterator or an unhashable node is left to networkx (and its errors)
    assert BackendInterface.can_run("triangles", (G, iter([0])), {}) is not True
    assert BackendInterface.can_run("triangles", (G, [[0]]), {}) is not True


def test_bellman_ford_negative_weights_and_cycles():
    G = nx.DiGraph()
    G.add_weighted_edges_from([(0, 1, 4), (0, 2, 1), (2, 1, -2), (1, 3, 1), (4, 0, 1)])
    want = nx.single_source_bellman_ford_path_length(G, 0)
    assert nx.single_source_bellman_ford_path_length(G, 0, backend=B) == want
    G.add_weighted_edges_from([(3, 2, -1)])                 # 2 -> 1 -> 3 -> 2 sums to -2
    with pytest.raises(nx.NetworkXUnbounded):
        nx.single_source_bellman_ford_path_length(G, 0, backend=B)
    U = nx.Graph()
    U.add_weighted_edges_from([(0, 1, 1), (1, 2, -1)])      # undirected negative edge
    with pytest.raises(nx.NetworkXUnbounded):
        nx.single_source_bellman_ford_path_length(U, 0, backend=B)
    M = nx.MultiGraph()
    M.add_weighted_edges_from([(0, 1, 5), (0, 1, 2), (1, 2, 1.5)])  # min of parallel edges
    # int and float weights mixed: the backend gives floats (2.0), networkx an int
    # where the path has only int weights (2); equal values (docs/networkx.md)
    assert (nx.single_source_bellman_ford_path_length(M, 0, backend=B)
            == nx.single_source_bellman_ford_path_length(M, 0) == {0: 0, 1: 2, 2: 3.5})


def test_every_function_on_each_device(device):
    """The same answers with the matrices on the CPU and (where there is one) the GPU."""
    from graphblast_py import using_device
    G, D = _hubs(), _directed()
    with using_device(device):
        assert_close(nx.pagerank(D, backend=B), nx.pagerank(D), rel=1e-5, abs_=1e-7)
        assert nx.triangles(G, backend=B) == nx.triangles(G)
        assert list(nx.connected_components(G, backend=B)) == \
            list(nx.connected_components(G))
        assert_close(nx.betweenness_centrality(D, k=5, seed=2, backend=B),
                     nx.betweenness_centrality(D, k=5, seed=2))
        assert_close(nx.single_source_bellman_ford_path_length(G, 0, backend=B),
                     nx.single_source_bellman_ford_path_length(G, 0))
        assert (nx.single_source_shortest_path_length(D, 0, backend=B)
                == nx.single_source_shortest_path_length(D, 0))


# ---------------------------------------------------------------- what falls back
def test_unserved_arguments_are_refused_not_answered():
    G = nx.karate_club_graph()
    refused = [
        ("pagerank", (G,), {"personalization": {0: 1.0}}),
        ("pagerank", (G,), {"nstart": {u: 1.0 for u in G}}),
        ("pagerank", (G,), {"dangling": {0: 1.0}}),
        ("single_source_shortest_path_length", (G, 0), {"cutoff": 2}),
        ("betweenness_centrality", (G,), {"weight": "weight"}),
        ("betweenness_centrality", (G,), {"endpoints": True}),
        ("single_source_bellman_ford_path_length", (G, 0), {"weight": lambda u, v, d: 1}),
        ("single_source_dijkstra_path_length", (G, 0), {"cutoff": 2}),
        ("node_connected_component", (G, "no such node"), {}),
        ("bfs_layers", (G, [0]), {}),
    ]
    for name, args, kwargs in refused:
        assert BackendInterface.can_run(name, args, kwargs) is not True, name
        with pytest.raises(NotImplementedError):           # explicit backend: refused
            getattr(nx, name)(*args, backend=B, **kwargs)
    H = nx.DiGraph([(0, 1, {"weight": -1.0})])
    assert BackendInterface.can_run("pagerank", (H,), {}) is not True
    assert BackendInterface.can_run("single_source_dijkstra_path_length", (H, 0), {}) \
        is not True
    H[0][1]["weight"] = float("nan")
    assert BackendInterface.can_run("single_source_bellman_ford_path_length", (H, 0), {}) \
        is not True


def test_refused_calls_fall_back_with_backend_priority():
    G = nx.karate_club_graph()
    old = nx.config.backend_priority.algos
    try:
        nx.config.backend_priority.algos = [B]
        want = nx.pagerank(G, personalization={0: 1.0}, backend="networkx")
        assert nx.pagerank(G, personalization={0: 1.0}) == want    # networkx ran it
        assert nx.pagerank(G) == pytest.approx(nx.pagerank(G, backend="networkx"), rel=1e-5)
    finally:
        nx.config.backend_priority.algos = old


def test_graph_object_round_trip():
    G = _disconnected()
    for u, v in G.edges:
        G[u][v]["weight"] = 2
    g = BackendInterface.convert_from_nx(G, edge_attrs={"weight": 1})
    assert isinstance(g, GraphblastGraph) and g.__networkx_backend__ == B
    assert list(g) == list(G) and not g.is_directed()
    H = BackendInterface.convert_to_nx(g)
    assert set(H.nodes) == set(G.nodes)
    assert {frozenset(e) for e in H.edges} == {frozenset(e) for e in G.edges}
    assert all(d["weight"] == 2 for _, _, d in H.edges(data=True))
    # a converted graph can be passed straight in
    assert nx.triangles(g) == nx.triangles(G)


def test_backend_is_registered_without_import_warnings():
    import subprocess
    import sys
    code = ("import networkx as nx; info = nx.utils.backends.backend_info['graphblast']; "
            "assert info['backend_name'] == 'graphblast' and 'pagerank' in info['functions']")
    subprocess.run([sys.executable, "-W", "error", "-c", code], check=True)


# ---------------------------------------------------------------- networkx's own tests
def test_networkx_own_tests_pass_through_backend():
    from graphblast_py.nx_backend import nxtests
    rc, output, stats = nxtests.run(timeout=240)
    assert rc == 0, output[-3000:]
    assert " failed" not in output and " passed" in output, output[-3000:]
    used = stats["used"]
    for name in ("pagerank", "single_source_shortest_path_length", "triangles",
                 "connected_components", "number_connected_components",
                 "betweenness_centrality", "single_source_bellman_ford_path_length",
                 "single_source_dijkstra_path_length", "is_connected",
                 "node_connected_component"):
        assert used.get(name, 0) > 0, (name, used)         # the backend really answered
