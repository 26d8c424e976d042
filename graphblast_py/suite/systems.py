"""The systems ``graphblast-py compare`` runs: graphblast-py on each device and
the peers (SciPy csgraph, networkx, python-graphblas / graphblas-algorithms,
the hand-written CuPy baselines of ``benchmarks/``).

A system turns a :class:`~graphblast_py.suite.graphs.Graph` into its own input
(``load``, timed apart), runs one algorithm (``run``, the timed part; GPU work
is synchronised in ``sync``) and converts the raw result into the suite's
normal form (``result``, untimed):

=========  =======================================================
bfs        {"levels": int64[n] (-1 unreached), "parents": int64[n] or None}
sssp       float64[n] distances (inf unreached)
pagerank   float64[n]
tc         int (number of triangles)
cc         int64[n] labels, relabelled to the smallest vertex id of each component
bc         float64[n] (networkx normalisation, k sampled sources)
fglt       int64[n, 16] net orbit frequencies
expm       float64[n] = e^{tA} 1
eigvalsh   float64[k] largest distinct eigenvalues, ascending
=========  =======================================================
"""
import importlib
import importlib.util
import random
from pathlib import Path

import numpy as np
import scipy
import scipy.sparse.csgraph as csgraph

from ..backend import get as backend_get

ALGORITHMS = ["bfs", "sssp", "pagerank", "tc", "cc", "bc", "fglt", "expm", "eigvalsh"]

# fixed parameters of every run (also written to the JSON file)
PARAMS = {
    "bfs": {"source": "max-degree vertex"},
    "sssp": {"source": "max-degree vertex",
             "weights": "w(u,v) = 1 + (2654435761 min(u,v) + 40503 max(u,v) + 12345) mod 16"},
    "pagerank": {"damping": 0.85, "tol": 1e-10, "max_iter": 1000},
    "bc": {"sources": "random.Random(0).sample(range(n), min(n, 16)) (networkx k-sample)",
           "k": 16},
    "tc": {}, "cc": {},
    "fglt": {"orbits": 16, "net": True},
    "expm": {"t": "1 / max(1, max degree)", "x": "ones"},
    "eigvalsh": {"k": 4, "which": "LA (largest, counted with multiplicity)"},
}


def bc_sources(n, k=PARAMS["bc"]["k"]):
    return sorted(random.Random(0).sample(range(n), min(n, k)))


def expm_t(g):
    return 1.0 / max(1, g.stats["degree"]["max"])


def normalize_labels(labels):
    """Component labels -> smallest vertex id of each component."""
    labels = np.asarray(labels).astype(np.int64)
    if labels.size == 0:
        return labels
    _, inv = np.unique(labels, return_inverse=True)
    first = np.full(inv.max() + 1, labels.size, dtype=np.int64)
    np.minimum.at(first, inv, np.arange(labels.size, dtype=np.int64))
    return first[inv]


def _version(module):
    try:
        from importlib.metadata import version
        return version(module)
    except Exception:  # noqa: BLE001 - a version is informative only
        return None


class NotAvailable(Exception):
    """This system cannot run this algorithm here (missing function/package)."""


class System:
    """Base class; subclasses set name, device, algorithms."""
    name = "?"
    device = "cpu"
    algorithms = ()
    is_graphblast = False
    mem_per_nnz = 40          # rough bytes per stored entry, for the memory check
    size_cap = None           # max nnz (None: no cap)
    package = None            # the Python package the system needs (import name) ...
    dist = None               # ... and its distribution name (pip install, version)

    def available(self):
        """(ok, note): the package imports."""
        if self.package is None:
            return True, ""
        try:
            importlib.import_module(self.package)
        except Exception as e:  # noqa: BLE001 - any failure means "not usable here"
            return False, f"not installed ({type(e).__name__}); pip install {self.dist}"
        return True, ""

    def version(self):
        return _version(self.dist) if self.dist else None

    def cap_note(self, alg, g):
        """A reason to skip (size cap) or None."""
        return None

    def load(self, g):
        return g

    def run(self, alg, h, g):
        raise NotAvailable(f"{self.name} has no {alg}")

    def sync(self):
        pass

    def result(self, alg, raw, g):
        return raw

    def est_bytes(self, alg, g):
        b = self.mem_per_nnz * g.nnz + 64 * g.n
        if alg == "bc":
            b += 8 * 8 * g.n * PARAMS["bc"]["k"]
        if alg == "fglt":
            b += 8 * 40 * g.n + 64 * g.nnz
        return b


# --------------------------------------------------------------- graphblast-py
def finished(out):
    """``out`` -- a graphblast-py result, a tuple of them, or anything else
    (returned as it is) -- with its pending stores carried out: a BFS
    answered by traversal speculation keeps its level fills and parent
    copies, an SSSP its distance copies, until first read
    (``Vector._settle``).  Timing code calls it so that the timed region
    includes them, as the peers return finished arrays."""
    for v in (out if isinstance(out, tuple) else (out,)):
        if getattr(v, "_pend", None) is not None:
            v._settle()
    return out


class Graphblast(System):
    algorithms = tuple(ALGORITHMS)
    is_graphblast = True

    def __init__(self, device):
        self.device = device
        self.name = f"graphblast-py {device}"

    def available(self):
        if self.device == "gpu":
            from .. import backend
            if not backend.gpu_available():
                return False, backend.gpu_unavailable_reason() or "no GPU"
        return True, ""

    def version(self):
        import graphblast_py
        return graphblast_py.__version__

    def load(self, g):
        return {"bool": g.gb_matrix("bool", self.device)}

    def _mat(self, h, g, kind):
        if kind not in h:
            h[kind] = g.gb_matrix(kind, self.device)
        return h[kind]

    def run(self, alg, h, g):
        # the peers return finished arrays: the pending stores are carried
        # out here, inside the timed run
        return finished(self._run(alg, h, g))

    def _run(self, alg, h, g):
        from .. import algorithms as al
        A = h["bool"]
        if alg == "bfs":
            return al.bfs(A, g.source, parents=True)
        if alg == "sssp":
            return al.sssp(self._mat(h, g, "weights"), g.source)
        if alg == "pagerank":
            p = PARAMS["pagerank"]
            return al.pagerank(A, p["damping"], p["tol"], p["max_iter"])
        if alg == "tc":
            return al.triangle_count(A)
        if alg == "cc":
            return al.connected_components(A)
        if alg == "bc":
            return al.betweenness_centrality(A, sources=bc_sources(g.n))
        if alg == "fglt":
            return al.fglt(A)
        if alg == "expm":
            return al.expm_multiply(self._mat(h, g, "float"), t=expm_t(g))
        if alg == "eigvalsh":
            return al.eigvalsh(self._mat(h, g, "float"), k=min(PARAMS["eigvalsh"]["k"], g.n))
        raise NotAvailable(alg)

    def sync(self):
        from .. import device
        device.synchronize(self.device)

    def result(self, alg, raw, g):
        if alg == "bfs":
            levels, parents = raw
            return {"levels": levels.to("cpu").to_dense(fill=-1).astype(np.int64),
                    "parents": parents.to("cpu").to_dense(fill=-1).astype(np.int64)}
        if alg in ("sssp",):
            return raw.to("cpu").to_dense(fill=np.inf).astype(np.float64)
        if alg in ("pagerank", "bc", "expm"):
            return raw.to("cpu").to_dense(fill=0).astype(np.float64)
        if alg == "cc":
            return normalize_labels(raw.to("cpu").to_dense(fill=-1))
        if alg == "fglt":
            return np.asarray(raw.to("cpu").to_dense(fill=0), dtype=np.int64)
        if alg == "eigvalsh":
            return np.asarray(raw, dtype=np.float64)
        return raw


# ----------------------------------------------------------------------- SciPy
class Scipy(System):
    name = "scipy"
    algorithms = ("bfs", "sssp", "cc", "expm", "eigvalsh")
    mem_per_nnz = 24

    def version(self):
        return scipy.__version__

    def load(self, g):
        return g.S

    def run(self, alg, S, g):
        if alg == "bfs":
            return csgraph.breadth_first_order(S, g.source, directed=True,
                                               return_predecessors=True)
        if alg == "sssp":
            return csgraph.dijkstra(g.weighted(), directed=True, indices=g.source)
        if alg == "cc":
            return csgraph.connected_components(S, directed=False)[1]
        if alg == "expm":
            from scipy.sparse.linalg import expm_multiply
            return expm_multiply(S.astype(np.float64) * expm_t(g), np.ones(g.n))
        if alg == "eigvalsh":
            k = min(PARAMS["eigvalsh"]["k"], g.n)
            if g.n <= 64:
                return np.sort(np.linalg.eigvalsh(S.astype(np.float64).toarray()))[-k:]
            from scipy.sparse.linalg import eigsh
            return np.sort(eigsh(S.astype(np.float64), k=k, which="LA",
                                 return_eigenvectors=False))
        raise NotAvailable(alg)

    def result(self, alg, raw, g):
        if alg == "bfs":
            order, pred = raw
            n = g.n
            levels = np.full(n, -1, dtype=np.int64)
            parents = np.full(n, -1, dtype=np.int64)
            ok = pred >= 0
            parents[ok] = pred[ok]
            parents[g.source] = g.source
            levels[order] = tree_depths(parents, g.source)[order]
            return {"levels": levels, "parents": parents}
        if alg == "cc":
            return normalize_labels(raw)
        return np.asarray(raw, dtype=np.float64)


def tree_depths(parents, root):
    """Depth of every vertex in the tree given by ``parents`` (parent of the
    root = root; -1: not in the tree, depth -1), by pointer doubling."""
    n = parents.shape[0]
    inside = parents >= 0
    anc = np.where(inside, parents, np.arange(n))
    dist = (inside & (np.arange(n) != root)).astype(np.int64)
    for _ in range(64):
        nxt = anc[anc]
        if np.array_equal(nxt, anc):
            break
        dist = dist + dist[anc]
        anc = nxt
    dist[~inside] = -1
    return dist


def scipy_eigvalsh(S, k):
    """The k largest eigenvalues counted with multiplicity (as ``eigsh``),
    ascending: dense LAPACK up to 300 vertices, else ARPACK ``eigsh`` for
    k + 4 values (a little room for repeated ones) of which the top k are kept."""
    n = S.shape[0]
    A = S.astype(np.float64)
    if n <= 300:
        vals = np.linalg.eigvalsh(A.toarray())
    else:
        from scipy.sparse.linalg import eigsh
        vals = eigsh(A, k=min(n - 1, k + 4), which="LA", return_eigenvectors=False,
                     tol=1e-13, ncv=min(n, max(40, 4 * k + 20)), maxiter=100000)
    return np.sort(vals)[-k:] if k else np.zeros(0)


# -------------------------------------------------------------------- networkx
class Networkx(System):
    name = "networkx"
    algorithms = ("bfs", "sssp", "pagerank", "tc", "cc", "bc")
    mem_per_nnz = 500

    def __init__(self, max_nnz=200_000, max_nnz_bc=40_000):
        self.max_nnz, self.max_nnz_bc = max_nnz, max_nnz_bc

    package = dist = "networkx"

    def cap_note(self, alg, g):
        cap = self.max_nnz_bc if alg == "bc" else self.max_nnz
        if g.nnz > cap:
            opt = "--nx-max-nnz-bc" if alg == "bc" else "--nx-max-nnz"
            return f"skipped: {g.nnz} stored entries > networkx cap {cap} ({opt})"
        return None

    def load(self, g):
        import networkx as nx
        G = nx.Graph()
        G.add_nodes_from(range(g.n))
        W = g.weighted()
        rows = np.repeat(np.arange(g.n), np.diff(W.indptr))
        up = rows < W.indices
        G.add_weighted_edges_from(zip(rows[up].tolist(), W.indices[up].tolist(),
                                      W.data[up].tolist()), weight="w")
        return G

    def run(self, alg, G, g):
        import networkx as nx
        if alg == "bfs":
            return nx.single_source_shortest_path_length(G, g.source)
        if alg == "sssp":
            return nx.single_source_dijkstra_path_length(G, g.source, weight="w")
        if alg == "pagerank":
            p = PARAMS["pagerank"]
            return nx.pagerank(G, alpha=p["damping"], tol=p["tol"], max_iter=p["max_iter"],
                               weight=None)
        if alg == "tc":
            return sum(nx.triangles(G).values()) // 3
        if alg == "cc":
            return list(nx.connected_components(G))
        if alg == "bc":
            k = min(g.n, PARAMS["bc"]["k"])
            return nx.betweenness_centrality(G, k=k if k < g.n else None, seed=0,
                                             normalized=True)
        raise NotAvailable(alg)

    def result(self, alg, raw, g):
        n = g.n
        if alg == "bfs":
            lv = np.full(n, -1, dtype=np.int64)
            lv[list(raw.keys())] = list(raw.values())
            return {"levels": lv, "parents": None}
        if alg == "sssp":
            d = np.full(n, np.inf)
            d[list(raw.keys())] = list(raw.values())
            return d
        if alg in ("pagerank", "bc"):
            x = np.zeros(n)
            x[list(raw.keys())] = list(raw.values())
            return x
        if alg == "cc":
            lab = np.empty(n, dtype=np.int64)
            for comp in raw:
                c = list(comp)
                lab[c] = min(c)
            return lab
        return raw


# --------------------------------------------- SuiteSparse via python-graphblas
class PythonGraphblas(System):
    """SuiteSparse:GraphBLAS through python-graphblas: the textbook BFS loop and
    the masked-mxm triangle count, written with python-graphblas."""
    name = "python-graphblas"
    algorithms = ("bfs", "tc")
    mem_per_nnz = 40

    package, dist = "graphblas", "python-graphblas"

    def load(self, g):
        import graphblas as gr
        S = g.S
        return gr.Matrix.ss.import_csr(indptr=S.indptr.astype(np.uint64),
                                       col_indices=S.indices.astype(np.uint64),
                                       values=np.ones(1, dtype=bool), is_iso=True,
                                       nrows=g.n, ncols=g.n, take_ownership=False)

    def run(self, alg, A, g):
        import graphblas as gr
        from graphblas import semiring as sr
        if alg == "bfs":
            n = g.n
            levels = gr.Vector(gr.dtypes.INT64, n)
            q = gr.Vector(bool, n)
            q[g.source] = True
            d = 0
            while q.nvals:
                levels(q.S) << d
                q(~levels.S, replace=True) << sr.any_pair(q @ A)
                d += 1
            return levels
        if alg == "tc":
            L = gr.select.tril(A, -1).new(dtype=gr.dtypes.INT64)
            return int(sr.plus_pair(L @ L.T).new(mask=L.S).reduce_scalar().new().value or 0)
        raise NotAvailable(alg)

    def result(self, alg, raw, g):
        if alg == "bfs":
            idx, vals = raw.to_coo()
            lv = np.full(g.n, -1, dtype=np.int64)
            lv[idx] = vals
            return {"levels": lv, "parents": None}
        return raw


class GraphblasAlgorithms(PythonGraphblas):
    name = "graphblas-algorithms"
    algorithms = ("bfs", "sssp", "pagerank", "tc")

    package, dist = "graphblas_algorithms", "graphblas-algorithms"

    def load(self, g):
        import graphblas as gr
        import graphblas_algorithms as ga
        A = super().load(g)
        W = g.weighted()
        Wm = gr.Matrix.ss.import_csr(indptr=W.indptr.astype(np.uint64),
                                     col_indices=W.indices.astype(np.uint64),
                                     values=W.data.copy(), nrows=g.n, ncols=g.n,
                                     take_ownership=False)
        return {"G": ga.Graph(A.dup(dtype=gr.dtypes.FP64)), "W": ga.Graph(Wm)}

    def run(self, alg, h, g):
        import graphblas_algorithms as ga
        if alg == "bfs":
            return ga.single_source_shortest_path_length(h["G"], g.source)
        if alg == "sssp":
            return ga.single_source_bellman_ford_path_length(h["W"], g.source)
        if alg == "pagerank":
            p = PARAMS["pagerank"]
            return ga.pagerank(h["G"], alpha=p["damping"], tol=p["tol"], max_iter=p["max_iter"])
        if alg == "tc":
            return int(ga.total_triangles(h["G"]))
        raise NotAvailable(alg)

    def result(self, alg, raw, g):
        if alg == "tc":
            return int(raw)
        idx, vals = raw.to_coo()
        if alg == "bfs":
            lv = np.full(g.n, -1, dtype=np.int64)
            lv[idx] = vals
            return {"levels": lv, "parents": None}
        fill = np.inf if alg == "sssp" else 0.0
        x = np.full(g.n, fill)
        x[idx] = vals
        return x


# ------------------------------------------------------------ CuPy baselines
def benchmarks_dir():
    """benchmarks/ of the source checkout, or None (installed wheel)."""
    import graphblast_py
    d = Path(graphblast_py.__file__).resolve().parent.parent / "benchmarks"
    return d if d.is_dir() else None


def _load_script(name):
    d = benchmarks_dir()
    if d is None or not (d / f"{name}.py").is_file():
        return None
    spec = importlib.util.spec_from_file_location(f"_graphblast_suite_{name}", d / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class CupyBaselines(System):
    """Hand-written CuPy kernels of benchmarks/cupy_baselines.py (source
    checkout only)."""
    name = "cupy-baselines"
    device = "gpu"
    # benchmarks/cupy_lanczos.py's plain Lanczos is a speed baseline only
    # (benchmarks/spectral.py): it is accurate normwise, not per entry, so on
    # a graph with small components it disagrees with the reference by design
    algorithms = ("bfs", "pagerank", "tc", "cc")
    FUNCS = {"bfs": ("cupy_baselines", "bfs_levels"), "pagerank": ("cupy_baselines", "pagerank"),
             "tc": ("cupy_baselines", "triangle_count"),
             "cc": ("cupy_baselines", "connected_components")}

    def __init__(self):
        self._mods = {}

    def available(self):
        from .. import backend
        if not backend.gpu_available():
            return False, "no GPU (" + (backend.gpu_unavailable_reason() or "CuPy sees none") + ")"
        if benchmarks_dir() is None:
            return False, "not available: benchmarks/ is not here (installed package, not a " \
                          "source checkout)"
        return True, ""

    def _func(self, alg):
        mod_name, fn = self.FUNCS[alg]
        if mod_name not in self._mods:
            try:
                self._mods[mod_name] = _load_script(mod_name)
            except Exception as e:  # noqa: BLE001
                raise NotAvailable(f"not available: benchmarks/{mod_name}.py failed to import "
                                   f"({type(e).__name__}: {e})") from e
        mod = self._mods[mod_name]
        if mod is None:
            raise NotAvailable(f"not available: benchmarks/{mod_name}.py is missing")
        f = getattr(mod, fn, None)
        if f is None:
            raise NotAvailable(f"not available: benchmarks/{mod_name}.py has no {fn}()")
        return f

    def load(self, g):
        C = g.gb_matrix("bool", "gpu").to_scipy()
        return {"indptr": C.indptr, "indices": C.indices}

    def run(self, alg, h, g):
        f = self._func(alg)
        ip, ix = h["indptr"], h["indices"]
        if alg == "bfs":
            try:
                return f(ip, ix, g.source, parents=True)
            except TypeError:                       # a version without parents
                return f(ip, ix, g.source)
        if alg == "pagerank":
            p = PARAMS["pagerank"]
            return f(ip, ix, damping=p["damping"], tol=p["tol"], max_iter=p["max_iter"])
        if alg in ("tc", "cc"):
            return f(ip, ix)
        raise NotAvailable(alg)

    def sync(self):
        from .. import device
        device.synchronize("gpu")

    def result(self, alg, raw, g):
        if alg == "tc":
            return int(raw)
        to_host = backend_get("gpu").to_host
        if alg == "bfs":
            if isinstance(raw, tuple):
                return {"levels": to_host(raw[0]).astype(np.int64),
                        "parents": to_host(raw[1]).astype(np.int64)}
            return {"levels": to_host(raw).astype(np.int64), "parents": None}
        x = to_host(raw)
        if alg == "cc":
            return normalize_labels(x)
        return x.astype(np.float64)


# ------------------------------------------------------------------ registry
_EXTRA = []


def register_system(system):
    """Add a System object to every later run (a plug-in point; the tests use it
    to inject a deliberately wrong peer).  Returns the system."""
    _EXTRA.append(system)
    return system


def unregister_system(system):
    if system in _EXTRA:
        _EXTRA.remove(system)


def all_systems(nx_max_nnz=200_000, nx_max_nnz_bc=40_000):
    return [Graphblast("cpu"), Graphblast("gpu"), Scipy(),
            Networkx(nx_max_nnz, nx_max_nnz_bc), PythonGraphblas(), GraphblasAlgorithms(),
            CupyBaselines()] + list(_EXTRA)


# reference for each algorithm: the first of these systems that produced a result
REFERENCES = {
    "bfs": ["scipy"], "sssp": ["scipy"], "cc": ["scipy"],
    "tc": ["python-graphblas", "networkx", "graphblas-algorithms"],
    "pagerank": ["networkx", "graphblas-algorithms"],
    "bc": ["networkx"], "expm": ["scipy"], "eigvalsh": [], "fglt": [],
}


def fglt_partial_reference(g):
    """Net orbit frequencies 0..4 (n x 5) from SciPy: 1, d, σ2 − 2σ4, σ3 − σ4, σ4
    with σ2 = A d − d, σ3 = d(d−1)/2, σ4 = triangles at each vertex."""
    A = g.S.astype(np.int64)
    d = np.asarray(A.sum(axis=1)).ravel()
    t = _triangles_per_vertex(g, d)
    s2 = A @ d - d
    return np.stack([np.ones_like(d), d, s2 - 2 * t, d * (d - 1) // 2 - t, t], axis=1)


def _triangles_per_vertex(g, d):
    """Triangles at each vertex: SuiteSparse (python-graphblas, masked
    A plus_pair A) when installed, else SciPy's (A @ A) o A, refused when that
    product would hold more than 5e8 entries (sum of squared degrees)."""
    try:
        import graphblas as gr
        A = PythonGraphblas().load(g)
        C = gr.semiring.plus_pair(A @ A).new(dtype=gr.dtypes.INT64, mask=A.S)
        idx, vals = C.reduce_rowwise().new().to_coo()
        t = np.zeros(g.n, dtype=np.int64)
        t[idx] = vals
        return t // 2
    except ImportError:
        pass
    if float(np.square(d.astype(np.float64)).sum()) > 5e8:
        raise NotAvailable("graph too large for the SciPy FGLT reference (A @ A)")
    A = g.S.astype(np.int64)
    return np.asarray((A @ A).multiply(A).sum(axis=1)).ravel() // 2


# used when none of REFERENCES[alg] produced a result: (name, function of the graph)
REFERENCE_FUNCS = {
    "fglt": ("scipy (orbits 0-4 only)", fglt_partial_reference),
    "eigvalsh": ("scipy (LAPACK dense / eigsh k+4)",
                 lambda g: scipy_eigvalsh(g.S, min(PARAMS["eigvalsh"]["k"], g.n))),
}


def fmt_exc(e):
    s = f"{type(e).__name__}: {e}"
    return s if len(s) < 300 else s[:297] + "..."


__all__ = ["ALGORITHMS", "PARAMS", "System", "NotAvailable", "register_system",
           "unregister_system", "all_systems", "REFERENCES"]
