"""Accuracy of ``expm_multiply`` on small connected graphs (at most 64
vertices: the dense eigendecomposition path) against a 40-digit reference.

Random connected graphs of 2-64 vertices -- paths, grids, stars, G(n, p),
preferential attachment -- unweighted or with weights in [0.1, 3], and t
from {-2, 0.1, 1, 3, 10}; y = e^{tA} 1 from ``gb.algorithms.expm_multiply``
and from SciPy's dense ``scipy.linalg.expm``, each against ``mpmath.expm``
at 40 digits.  Prints the worst error over max|y| (in units of float64's
eps) for each, split by the sign of t, and the case that gave it.  Needs
``mpmath`` (``pip install mpmath``).

    python3 benchmarks/expm_small.py [--seconds 240] [--seed 0] [--device cpu|gpu]
"""
import argparse
import time

import networkx as nx
import numpy as np
import scipy.linalg as sl

import graphblast_py as gb
from graphblast_py.algorithms import expm_multiply


def random_connected(rng):
    """A random connected graph of 2-64 vertices and its family's name."""
    while True:
        n = int(rng.integers(2, 65))
        kind = str(rng.choice(["path", "grid", "star", "gnp", "ba"]))
        seed = int(rng.integers(1 << 30))
        if kind == "path":
            G = nx.path_graph(n)
        elif kind == "grid":
            G = nx.convert_node_labels_to_integers(nx.grid_2d_graph(max(1, n // 7), 7))
        elif kind == "star":
            G = nx.star_graph(n - 1)
        elif kind == "gnp":
            G = nx.gnp_random_graph(n, rng.uniform(0.05, 0.5), seed=seed)
        else:
            G = nx.barabasi_albert_graph(max(n, 3), 2, seed=seed)
        if G.number_of_nodes() <= 64 and nx.is_connected(G):
            return kind, G


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=240)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--device", default="cpu", choices=["cpu", "gpu"])
    args = p.parse_args()
    import mpmath
    mpmath.mp.dps = 40
    eps = np.finfo(np.float64).eps
    rng = np.random.default_rng(args.seed)
    worst = {}
    cases = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < args.seconds:
        kind, G = random_connected(rng)
        n = G.number_of_nodes()
        weighted = bool(rng.random() < 0.5)
        for u, v in G.edges:
            G[u][v]["weight"] = float(rng.uniform(0.1, 3)) if weighted else 1.0
        S = nx.to_scipy_sparse_array(G, nodelist=range(n), weight="weight", format="csr")
        D = S.toarray()
        t = float(rng.choice([-2.0, 0.1, 1.0, 3.0, 10.0]))
        y = expm_multiply(gb.Matrix.from_scipy(S, device=args.device), t=t).to_dense()
        y = y.get() if args.device == "gpu" else y
        ys = sl.expm(t * D) @ np.ones(n)
        E = mpmath.expm(mpmath.matrix(D.tolist()) * t)
        exact = np.array([float(mpmath.fsum(E[i, j] for j in range(n))) for i in range(n)])
        m = np.abs(exact).max()
        ours, scipy_ = (float(np.abs(a - exact).max() / m / eps) for a in (y, ys))
        key = "t < 0" if t < 0 else "t > 0"
        w = worst.setdefault(key, [0.0, 0.0, None, 0])
        w[3] += 1
        if ours > w[0]:
            w[0], w[2] = ours, f"{kind}, {n} vertices, t = {t}, {'weighted' if weighted else 'unweighted'}"
        w[1] = max(w[1], scipy_)
        cases += 1
    print(f"{cases} graphs on the {args.device}; worst |y - exact| / max|exact|, in eps = {eps:.2e}:")
    for key, (ours, scipy_, case, k) in sorted(worst.items()):
        print(f"  {key} ({k} graphs): expm_multiply {ours:.0f} eps ({ours * eps:.1e}; {case}), "
              f"scipy.linalg.expm {scipy_:.0f} eps ({scipy_ * eps:.1e})")


if __name__ == "__main__":
    main()
