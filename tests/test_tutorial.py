"""The tutorial (docs/tutorial.md) runs and its widest-path code is right.

The Python blocks of the page are executed in order (the page's own example
asserts its answer); ``widest_path`` is then compared with an independent
reference, a modified Dijkstra (max-heap on the bottleneck width) written here
in plain Python, on the graph families that break things.
"""
import heapq
import math
import re
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import graphblast_py as gb

PAGE = Path(__file__).resolve().parent.parent / "docs" / "tutorial.md"


@pytest.fixture(scope="module")
def page():
    blocks = re.findall(r"```python\n(.*?)```", PAGE.read_text(), re.S)
    assert len(blocks) >= 2, "the tutorial lost its code blocks"
    ns = {"__name__": "tutorial"}
    for code in blocks:
        exec(compile(code, str(PAGE), "exec"), ns)   # noqa: S102 - our own docs page
    return ns


def reference_widest(n, edges, source):
    """Modified Dijkstra: settle vertices by decreasing bottleneck width."""
    out = [[] for _ in range(n)]
    for u, v, w in edges:
        out[u].append((v, w))
    best = {source: math.inf}
    heap = [(-math.inf, source)]
    done = set()
    while heap:
        negw, u = heapq.heappop(heap)
        if u in done:
            continue
        done.add(u)
        for v, w in out[u]:
            cand = min(-negw, w)
            if v not in best or cand > best[v]:
                best[v] = cand
                heapq.heappush(heap, (-cand, v))
    return best


def _weighted(G, seed, directed, integer=False):
    rng = np.random.default_rng(seed)
    edges = []
    for u, v in G.edges():
        w = int(rng.integers(-5, 20)) if integer else float(rng.uniform(-1.0, 10.0))
        edges.append((u, v, w))
        if not directed:
            edges.append((v, u, w))
        elif not G.has_edge(v, u) and rng.random() < 0.3:   # some antiparallel pairs with their own capacity
            edges.append((v, u, float(rng.uniform(-1.0, 10.0)) if not integer else
                          int(rng.integers(-5, 20))))
    return G.number_of_nodes(), edges


def _families():
    yield "path", nx.path_graph(60), False
    yield "grid", nx.convert_node_labels_to_integers(nx.grid_2d_graph(9, 11)), False
    yield "hubs", nx.barabasi_albert_graph(150, 2, seed=3), False
    disc = nx.disjoint_union(nx.gnp_random_graph(30, 0.15, seed=4),
                             nx.gnp_random_graph(20, 0.2, seed=5))
    disc.add_nodes_from(range(50, 55))   # isolated vertices
    yield "disconnected", disc, False
    yield "directed", nx.gnp_random_graph(80, 0.05, seed=6, directed=True), True
    yield "no-edges", nx.empty_graph(7), False
    yield "one-vertex", nx.empty_graph(1), False


@pytest.mark.parametrize("integer", [False, True])
@pytest.mark.parametrize("name,G,directed", list(_families()), ids=[f[0] for f in _families()])
def test_widest_path_matches_dijkstra(page, name, G, directed, integer):
    n, edges = _weighted(G, seed=len(name), directed=directed, integer=integer)
    if edges:
        r, c, v = zip(*edges)
    else:
        r, c, v = [], [], []
    dtype = gb.dtypes.INT64 if integer else gb.dtypes.FP64
    A = gb.Matrix.from_coo(list(r), list(c), list(v), nrows=n, ncols=n, dtype=dtype)
    for source in sorted({0, n // 2, n - 1}):
        got = page["widest_path"](A, source)
        want = reference_widest(n, edges, source)
        idx, vals = got.to_coo()
        assert got.dtype == gb.dtypes.FP64
        assert dict(zip(np.asarray(idx).tolist(), np.asarray(vals).tolist())) == want


def test_bool_matrix_has_unit_capacities(page):
    A = gb.Matrix.from_coo([0, 1, 3], [1, 2, 4], True, nrows=5, ncols=5)
    w = page["widest_path"](A, 0)
    assert w.to_dense(fill=-1.0).tolist() == [math.inf, 1.0, 1.0, -1.0, -1.0]


def test_widest_path_rejects_bad_input(page):
    widest = page["widest_path"]
    A = gb.Matrix.from_coo([0], [1], [1.0], nrows=2, ncols=2)
    with pytest.raises(gb.InvalidObject, match="widest_path"):
        widest(nx.path_graph(3), 0)
    with pytest.raises(gb.DimensionMismatch, match="square"):
        widest(gb.Matrix.from_coo([0], [1], [1.0], nrows=2, ncols=3), 0)
    with pytest.raises(gb.IndexOutOfBound, match="outside"):
        widest(A, 2)
    with pytest.raises(gb.InvalidIndex, match="integer"):
        widest(A, 0.5)
    with pytest.raises(gb.InvalidValue, match="NaN"):
        widest(gb.Matrix.from_coo([0], [1], [math.nan], nrows=2, ncols=2), 0)
