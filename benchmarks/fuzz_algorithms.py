"""Randomised differential check of the algorithms against references nobody
here wrote, for as long as asked: a complement to the test suite's fixed
families, to run before a release or after a change to a kernel.

Each round draws a small graph (1-65 vertices) from a family that breaks
things -- G(n, p) dense and sparse, stars, paths, grids, preferential
attachment, empty graphs, one vertex, isolated vertices, several
components -- makes it directed (some edges both ways) or weighted at
random, and checks on the chosen device:

* ``bfs`` levels against networkx's shortest path lengths, and parents as
  a valid BFS tree (each parent one level up and adjacent);
* ``sssp`` against SciPy's Dijkstra; ``pagerank`` against networkx
  (atol 1e-6);
* undirected only: ``connected_components`` (labels = smallest id),
  ``triangle_count`` and ``triangles_per_vertex`` against networkx;
* ``betweenness_centrality`` against networkx (normalised);
* undirected only: ``eigvalsh`` (LA / SA / LM, k 1-6) against NumPy's dense
  eigenvalues (LM compared by magnitude), and ``fglt`` (16 and 5 orbits,
  raw and net) against the tests' brute-force orbit enumeration when the
  graph has at most 25 vertices.

Prints every mismatch with its round's seed (``--first SEED --rounds 1``
runs that round again) and a count at the end; exit status 1 when anything
differed.

    python3 benchmarks/fuzz_algorithms.py [--seconds 120 | --rounds N] [--first 0]
                                          [--device cpu|gpu]
"""
import argparse
import sys
import time
from pathlib import Path

import networkx as nx
import numpy as np
import scipy.sparse.csgraph as csg

import graphblast_py as gb
from graphblast_py.algorithms import (betweenness_centrality, bfs, connected_components,
                                      eigvalsh, fglt, pagerank, sssp, triangle_count,
                                      triangles_per_vertex)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.test_alg_fglt import brute_force  # noqa: E402  (the tests' enumeration)

FAMILIES = ("gnp", "gnp_sparse", "star", "path", "grid", "ba", "empty", "one", "isolated",
            "components")


def draw(rng):
    """``(family, networkx Graph)`` on vertices 0..n-1."""
    kind = str(rng.choice(FAMILIES))
    n = int(rng.integers(1, 60))
    seed = int(rng.integers(1 << 30))
    if kind == "gnp":
        G = nx.gnp_random_graph(n, rng.uniform(0.05, 0.5), seed=seed)
    elif kind == "gnp_sparse":
        G = nx.gnp_random_graph(n, 1.5 / n, seed=seed)
    elif kind == "star":
        G = nx.star_graph(n - 1)
    elif kind == "path":
        G = nx.path_graph(n)
    elif kind == "grid":
        G = nx.convert_node_labels_to_integers(nx.grid_2d_graph(max(1, n // 7), 7))
    elif kind == "ba":
        G = nx.barabasi_albert_graph(max(n, 3), 2, seed=seed)
    elif kind == "empty":
        G = nx.empty_graph(n)
    elif kind == "one":
        G = nx.empty_graph(1)
    elif kind == "isolated":
        G = nx.gnp_random_graph(n, 0.2, seed=seed)
        G.add_nodes_from(range(n, n + 5))
    else:
        G = nx.disjoint_union(nx.gnp_random_graph(n // 2 + 1, 0.3, seed=seed), nx.path_graph(5))
    return kind, G


def host(a):
    return a.get() if hasattr(a, "get") and not isinstance(a, np.ndarray) else a


def check(seed, device):
    """The mismatches of one round, as strings."""
    rng = np.random.default_rng(seed)
    kind, G = draw(rng)
    n = G.number_of_nodes()
    directed = bool(rng.random() < 0.3)
    if directed:
        D = nx.DiGraph()
        D.add_nodes_from(G.nodes)
        for u, v in G.edges:
            D.add_edge(*((u, v) if rng.random() < 0.5 else (v, u)))
            if rng.random() < 0.2:
                D.add_edge(v, u)
        G = D
    weighted = bool(rng.random() < 0.5)
    for u, v in G.edges:
        G[u][v]["weight"] = float(rng.integers(1, 10)) if weighted else 1.0
    S = nx.to_scipy_sparse_array(G, nodelist=range(n), weight="weight", format="csr")
    A = gb.Matrix.from_scipy(S, device=device)
    src = int(rng.integers(0, n))
    what = f"seed {seed}: {kind}, {n} vertices, {'directed' if directed else 'undirected'}, " \
           f"{'weighted' if weighted else 'unweighted'}"
    bad = []

    def expect(ok, name):
        if not ok:
            bad.append(f"{name} differs ({what})")

    ref = np.full(n, -1)
    for v, d in nx.single_source_shortest_path_length(G, src).items():
        ref[v] = d
    expect(np.array_equal(host(bfs(A, src).to_dense(fill=-1)), ref), "bfs levels")
    _, par = bfs(A, src, parents=True)
    p = host(par.to_dense(fill=-1))
    expect(all((ref[v] > 0 and G.has_edge(p[v], v) and ref[p[v]] == ref[v] - 1)
               or (ref[v] == 0 and p[v] == v) or (ref[v] < 0 and p[v] == -1)
               for v in range(n)), "bfs parents")
    expect(np.allclose(host(sssp(A, src).to_dense(fill=np.inf)),
                       csg.dijkstra(S, directed=True, indices=src)), "sssp")
    rp = nx.pagerank(G, weight="weight")
    expect(np.allclose(host(pagerank(A).to_dense()), [rp[i] for i in range(n)], atol=1e-6),
           "pagerank")
    rb = nx.betweenness_centrality(G, weight=None)
    expect(np.allclose(host(betweenness_centrality(A, directed=directed).to_dense()),
                       [rb[i] for i in range(n)]), "betweenness")
    if directed:
        return bad
    low = {}
    for c in nx.connected_components(G):
        for v in c:
            low[v] = min(c)
    expect(np.array_equal(host(connected_components(A).to_dense()), [low[i] for i in range(n)]),
           "connected components")
    tri = nx.triangles(G)
    expect(triangle_count(A) == sum(tri.values()) // 3, "triangle count")
    expect(np.array_equal(host(triangles_per_vertex(A).to_dense()), [tri[i] for i in range(n)]),
           "triangles per vertex")
    if n >= 2:
        k = int(rng.integers(1, min(n, 6) + 1))
        which = str(rng.choice(["LA", "SA", "LM"]))
        w = np.asarray(eigvalsh(A, k=k, which=which))
        ev = np.linalg.eigvalsh(S.toarray())
        tol = 1e-8 * max(1.0, float(np.abs(ev).max()))
        if which == "LM":
            want = np.sort(np.abs(ev))[-k:]
            expect(np.allclose(np.sort(np.abs(w)), want, atol=tol), "eigvalsh LM")
        else:
            want = ev[-k:] if which == "LA" else ev[:k]
            expect(np.allclose(w, np.sort(want), atol=tol), f"eigvalsh {which}")
    if n <= 25:
        P = gb.Matrix.from_scipy(S.astype(bool), device=device)
        D = S.toarray() != 0
        for orbits in (16, 5):
            for net in (True, False):
                got = host(fglt(P, orbits=orbits, net=net).to_dense())
                expect(np.array_equal(got, brute_force(D, induced=net)[:, :orbits]),
                       f"fglt {orbits} orbits, {'net' if net else 'raw'}")
    return bad


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=120)
    p.add_argument("--rounds", type=int, default=None, help="stop after this many rounds")
    p.add_argument("--first", type=int, default=0, help="the first round's seed")
    p.add_argument("--device", default="cpu", choices=["cpu", "gpu"])
    args = p.parse_args()
    t0 = time.perf_counter()
    seed, failed = args.first, 0
    while (args.rounds is None or seed - args.first < args.rounds) and \
            (args.rounds is not None or time.perf_counter() - t0 < args.seconds):
        try:
            bad = check(seed, args.device)
        except Exception as e:              # a crash is a finding too
            bad = [f"seed {seed}: {type(e).__name__}: {e}"]
        for line in bad:
            print("MISMATCH", line, flush=True)
        failed += bool(bad)
        seed += 1
    where = gb.backend.get("gpu").device_name() if args.device == "gpu" else "the CPU"
    print(f"{seed - args.first} rounds on {where}, {failed} with a mismatch")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
