"""Thread safety as documented in docs/concepts.md ("Threads"): algorithms and
operations running at the same time in several threads, each on its own
objects, give exactly the single-threaded answers (networkx / NumPy are the
references); operators, semirings and user-defined operators may be shared,
including their first (compiling) use."""
from concurrent.futures import ThreadPoolExecutor

import networkx as nx
import numpy as np

import graphblast_py as gb
from graphblast_py.algorithms import (bfs, connected_components, pagerank, sssp,
                                      triangle_count)

from .conftest import host


def families():
    """Graphs that break things: disconnected with isolated vertices, a long
    path and a grid (many levels), a power-law graph with hubs, a star, the
    empty graph and a single vertex."""
    g = nx.disjoint_union(nx.cycle_graph(7), nx.complete_graph(5))
    g.add_nodes_from(range(12, 15))                          # isolated vertices
    return {
        "disconnected": g,
        "path": nx.path_graph(120),
        "grid": nx.convert_node_labels_to_integers(nx.grid_2d_graph(9, 11)),
        "powerlaw": nx.barabasi_albert_graph(150, 3, seed=2),
        "star": nx.star_graph(60),
        "one": nx.empty_graph(1),
        "empty": nx.empty_graph(0),
    }


def weighted(G, seed):
    rng = np.random.default_rng(seed)
    H = nx.DiGraph()
    H.add_nodes_from(G)
    for u, v in G.edges():
        H.add_edge(u, v, weight=float(rng.integers(1, 9)))
        H.add_edge(v, u, weight=float(rng.integers(1, 9)))
    return H


def run_all(G, device):
    """Every algorithm on objects made here (never shared with another thread)."""
    W = weighted(G, len(G))
    A = gb.io.from_networkx(G, weight=None, device=device)
    Aw = gb.io.from_networkx(W, device=device)
    out = {"tc": triangle_count(A), "cc": host(connected_components(A).to_dense()),
           "pr": host(pagerank(A).to_dense()) if len(G) else np.zeros(0)}
    if len(G):
        out["bfs"] = host(bfs(A, 0).to_dense(fill=-1))
        out["sssp"] = host(sssp(Aw, 0).to_dense(fill=np.inf))
    return out


def reference(G):
    n = len(G)
    ref = {"tc": sum(nx.triangles(G).values()) // 3,
           "cc": np.array([min(c) for v in range(n) for c in [nx.node_connected_component(G, v)]],
                          dtype=np.int64)}
    pr = nx.pagerank(G) if n else {}
    ref["pr"] = np.array([pr[v] for v in range(n)])
    if n:
        lv = nx.single_source_shortest_path_length(G, 0)
        ref["bfs"] = np.array([lv.get(v, -1) for v in range(n)])
        d = nx.single_source_dijkstra_path_length(weighted(G, n), 0)
        ref["sssp"] = np.array([d.get(v, np.inf) for v in range(n)])
    return ref


def check(got, ref):
    assert got["tc"] == ref["tc"]
    np.testing.assert_array_equal(got["cc"], ref["cc"])
    np.testing.assert_allclose(got["pr"], ref["pr"], rtol=1e-4, atol=1e-7)
    if "bfs" in ref:
        np.testing.assert_array_equal(got["bfs"], ref["bfs"])
        np.testing.assert_array_equal(got["sssp"], ref["sssp"])


def test_concurrent_algorithms_on_separate_objects(device):
    graphs = families()
    refs = {k: reference(G) for k, G in graphs.items()}
    jobs = [k for _ in range(3) for k in graphs]               # every graph 3 times at once
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda k: (k, run_all(graphs[k], device)), jobs))
    assert len(results) == len(jobs)
    for k, got in results:
        check(got, refs[k])


def test_shared_operators_and_first_compile_across_threads(device):
    """A user-defined operator used for the first time by several threads at
    once (each on its own vectors) compiles once or more, never wrongly."""
    op = gb.BinaryOp.register("thread_absdiff", lambda x, y: abs(x - y),
                              "(x > y ? x - y : y - x)")
    sr = gb.Semiring.register("plus_thread_absdiff", gb.monoid.plus, op)
    rng = np.random.default_rng(5)
    data = [(rng.standard_normal(50), rng.standard_normal(50)) for _ in range(8)]
    M = rng.standard_normal((6, 50))

    def job(k):
        x, y = data[k]
        u = gb.Vector.from_dense(x, device=device)
        v = gb.Vector.from_dense(y, device=device)
        A = gb.Matrix.from_dense(M, device=device)
        return host(u.ewise_add(v, op).to_dense()), host(A.mxv(u, sr).to_dense())

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(job, range(len(data))))
    for (x, y), (d, p) in zip(data, results):
        np.testing.assert_allclose(d, np.abs(x - y))
        np.testing.assert_allclose(p, np.abs(M - x).sum(axis=1))


def test_dup_per_thread_of_one_input(device):
    """The documented way to share one input: a dup per thread (cheap: the
    arrays are shared and never modified in place)."""
    G = nx.barabasi_albert_graph(200, 4, seed=9)
    A = gb.io.from_networkx(G, weight=None, device=device)
    ref = reference(G)
    with ThreadPoolExecutor(max_workers=4) as pool:
        got = list(pool.map(lambda _: host(bfs(A.dup(), 0).to_dense(fill=-1)), range(8)))
    for g in got:
        np.testing.assert_array_equal(g, ref["bfs"])
    # a networkx graph is converted (structure only): the same levels
    np.testing.assert_array_equal(host(bfs(G, 0).to_dense(fill=-1)), ref["bfs"])
