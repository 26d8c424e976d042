"""Graph specs, named sets and graph statistics for ``graphblast-py compare``.

Every graph the suite runs is undirected and unweighted: the structure of
A + Aᵀ without self-loops (values of files are dropped).  SSSP runs on
deterministic integer weights 1..16 derived from each edge's end points
(the same on every system, so distances compare exactly).
"""
import math
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph

from ..errors import InvalidValue

# named sets: lists of specs
SETS = {
    "small": ["kron:8", "grid:16", "geometric:500"],
    "default": ["kron:8", "kron:9", "kron:10", "grid:16", "grid:32", "grid:48",
                "geometric:1000", "geometric:4000"],
    "large": ["kron:22", "grid:1000"],
}

SPEC_HELP = ("kron:SCALE (Graph500 Kronecker, 2^SCALE vertices, edge factor 16), grid:K "
             "(K x K grid), geometric:N[:RADIUS] (random geometric graph, default radius "
             "gives average degree ~10), er:N:P (Erdos-Renyi G(n, p)), a Matrix Market file "
             "(.mtx, .mtx.gz), an edge list file (any other name: 'u v [w]' lines), or a named "
             "set: " + ", ".join(SETS))


@dataclass
class Graph:
    """One graph of the run: host SciPy CSR (bool structure, symmetric) plus stats."""
    name: str
    spec: str
    family: str
    S: sp.csr_matrix
    gen_s: float = 0.0
    stats: dict = field(default_factory=dict)
    _weights: object = None
    _gb: dict = field(default_factory=dict)

    @property
    def n(self):
        return self.S.shape[0]

    @property
    def nnz(self):
        return int(self.S.nnz)

    @property
    def source(self):
        """BFS/SSSP source: the vertex of largest degree (smallest id on ties)."""
        return self.stats["source"]

    def weighted(self):
        """float64 CSR with integer weights 1..16, symmetric: w(u, v) = w(v, u)."""
        if self._weights is None:
            S = self.S
            rows = np.repeat(np.arange(S.shape[0], dtype=np.int64), np.diff(S.indptr))
            cols = S.indices.astype(np.int64)
            lo, hi = np.minimum(rows, cols), np.maximum(rows, cols)
            w = ((lo * 2654435761 + hi * 40503 + 12345) % 16 + 1).astype(np.float64)
            self._weights = sp.csr_matrix((w, S.indices.copy(), S.indptr.copy()), shape=S.shape)
        return self._weights

    def gb_matrix(self, kind, device):
        """graphblast_py Matrix on ``device``: kind 'bool' (structure), 'weights'
        (sssp weights, float64) or 'float' (float64 ones: expm, eigvalsh)."""
        key = (kind, device)
        if key not in self._gb:
            from ..matrix import Matrix
            if kind == "bool":
                S = self.S
                M = Matrix.from_csr(S.indptr, S.indices, True, S.shape[1], dtype="bool",
                                    device=device)
            elif kind == "weights":
                W = self.weighted()
                M = Matrix.from_csr(W.indptr, W.indices, W.data, W.shape[1], dtype="float64",
                                    device=device)
            elif kind == "float":
                S = self.S
                M = Matrix.from_csr(S.indptr, S.indices, 1.0, S.shape[1], dtype="float64",
                                    device=device)
            else:
                raise InvalidValue(f"unknown matrix kind {kind!r}")
            self._gb[key] = M
        return self._gb[key]

    def drop_device_copies(self):
        self._gb.clear()


def expand(specs):
    """Spec strings -> flat list with named sets replaced by their members."""
    out = []
    for s in specs or ["default"]:
        for part in str(s).split(","):
            part = part.strip()
            if not part:
                continue
            if part in SETS:
                out.extend(SETS[part])
            else:
                out.append(part)
    return out


def _int(tok, spec, what):
    try:
        v = int(tok)
    except ValueError:
        raise InvalidValue(f"graph spec {spec!r}: {what} must be an integer, got {tok!r}; "
                           f"expected {SPEC_HELP}") from None
    if v < 0:
        raise InvalidValue(f"graph spec {spec!r}: {what} must be >= 0, got {v}")
    return v


def _float(tok, spec, what):
    try:
        return float(tok)
    except ValueError:
        raise InvalidValue(f"graph spec {spec!r}: {what} must be a number, got {tok!r}") \
            from None


def _undirected(S):
    """bool CSR of the structure of S + Sᵀ without the diagonal, sorted indices."""
    S = sp.csr_matrix(S)
    if S.shape[0] != S.shape[1]:
        raise InvalidValue(f"the suite needs a square adjacency matrix, got shape {S.shape}")
    S = sp.csr_matrix((np.ones(S.nnz, dtype=bool), S.indices, S.indptr), shape=S.shape)
    S = (S + S.T).tocsr()
    S.setdiag(False)
    S.eliminate_zeros()
    S.sort_indices()
    S.data[:] = True
    return S


def load(spec, seed=1):
    """Graph for one spec string (not a named set)."""
    from .. import generators
    t0 = time.perf_counter()
    parts = spec.split(":")
    kind = parts[0].lower()
    A = None
    if kind in ("kron", "kronecker", "rmat") and len(parts) == 2:
        scale = _int(parts[1], spec, "SCALE")
        A = generators.kronecker(scale, seed=seed, device="cpu")
        family, name = "kron", f"kron:{scale}"
    elif kind == "grid" and len(parts) == 2:
        k = _int(parts[1], spec, "K")
        A = generators.grid2d(k, k, device="cpu")
        family, name = "grid", f"grid:{k}"
    elif kind in ("geometric", "geo") and len(parts) in (2, 3):
        n = _int(parts[1], spec, "N")
        r = _float(parts[2], spec, "RADIUS") if len(parts) == 3 else \
            math.sqrt(10.0 / (math.pi * max(n, 1)))
        A = generators.random_geometric(n, r, seed=seed, device="cpu")
        family, name = "geometric", spec if len(parts) == 3 else f"geometric:{n}"
    elif kind == "er" and len(parts) == 3:
        n = _int(parts[1], spec, "N")
        p = _float(parts[2], spec, "P")
        A = generators.erdos_renyi(n, p, seed=seed, device="cpu")
        family, name = "er", f"er:{n}:{parts[2]}"
    else:
        path = Path(spec)
        if not path.exists():
            raise InvalidValue(f"graph spec {spec!r} is neither a generator spec nor an "
                               f"existing file; expected {SPEC_HELP}")
        from .. import io
        low = path.name.lower()
        if low.endswith(".mtx") or low.endswith(".mtx.gz"):
            A = io.mmread(str(path), device="cpu")
        else:
            A = io.read_edgelist(str(path), directed=False, device="cpu")
        family, name = "file", path.name
    S = A.to_scipy()
    if family == "file":
        S = _undirected(S)
    else:
        S = sp.csr_matrix((np.ones(S.nnz, dtype=bool), S.indices, S.indptr), shape=S.shape)
        S.sort_indices()
    g = Graph(name=name, spec=spec, family=family, S=S, gen_s=time.perf_counter() - t0)
    g.stats = statistics(S)
    return g


def bfs_levels(S, source):
    """int64 BFS levels from ``source`` (-1 unreached), via SciPy csgraph."""
    n = S.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    d = csgraph.shortest_path(S, method="D", unweighted=True, indices=source, directed=True)
    lv = np.full(n, -1, dtype=np.int64)
    ok = np.isfinite(d)
    lv[ok] = d[ok].astype(np.int64)
    return lv


def statistics(S):
    """n, nnz, edges, degree spread, isolated vertices, BFS source and a
    double-sweep diameter estimate (a lower bound: the eccentricity of the
    farthest vertex found by a BFS from the max-degree vertex, within that
    vertex's component)."""
    n = S.shape[0]
    deg = np.diff(S.indptr)
    st = {"n": int(n), "nnz": int(S.nnz), "edges": int(S.nnz // 2),
          "degree": {"min": int(deg.min()) if n else 0,
                     "median": float(np.median(deg)) if n else 0.0,
                     "max": int(deg.max()) if n else 0,
                     "mean": float(deg.mean()) if n else 0.0},
          "isolated": int((deg == 0).sum()),
          "components": int(csgraph.connected_components(S, directed=False)[0]) if n else 0,
          "source": int(np.argmax(deg)) if n else 0}
    if n == 0:
        st["diameter_estimate"] = {"value": 0, "method": "double-sweep BFS lower bound"}
        return st
    lv = bfs_levels(S, st["source"])
    far = int(np.argmax(lv))
    lv2 = bfs_levels(S, far)
    st["diameter_estimate"] = {"value": int(lv2.max()),
                               "method": "double-sweep BFS lower bound (component of the "
                                         "max-degree vertex)"}
    st["source_component_edges"] = int(deg[lv >= 0].sum() // 2)
    return st
