"""Graph generators: ``gb.generators``.

* :func:`kronecker` -- Graph500 Kronecker / R-MAT graphs (scale-free, small diameter)
* :func:`grid2d` -- 2-D grids (road-like: degree <= 4, diameter ~ nrows + ncols)
* :func:`random_geometric` -- random geometric graphs in the unit cube
* :func:`erdos_renyi` -- G(n, p) and G(n, m) random graphs

Every generator is seeded and deterministic (``numpy.random.default_rng(seed)``)
and returns an iso :class:`~graphblast_py.Matrix` (``dtype=bool`` by default,
value ``True``; another ``dtype`` gives value 1) holding the adjacency
structure without self-loops or duplicate edges; undirected graphs are
symmetric.  The graph is computed on the host with vectorised NumPy (SciPy's
cKDTree for the geometric graph) and the result placed on ``device``, so the
same seed gives the same graph on the CPU and the GPU.
"""
import numpy as np

from . import dtypes
from .errors import InvalidValue
from .matrix import Matrix

__all__ = ["kronecker", "rmat", "grid2d", "random_geometric", "erdos_renyi"]


def _int_arg(x, name, lo=0, hi=None):
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)):
        raise InvalidValue(f"{name} must be an integer, got {x!r}")
    x = int(x)
    if x < lo or (hi is not None and x > hi):
        rng = f">= {lo}" if hi is None else f"between {lo} and {hi}"
        raise InvalidValue(f"{name} must be {rng}, got {x}")
    return x


def _result(rows, cols, n, m, dtype, device, symmetric):
    """Iso matrix from host COO (no self loops, no duplicates after symmetrising)."""
    dt = dtypes.lookup(dtype)
    rows = rows.astype(np.int64, copy=False)
    cols = cols.astype(np.int64, copy=False)
    if symmetric:
        rows, cols = np.concatenate([rows, cols]), np.concatenate([cols, rows])
    m1 = max(m, 1)
    pow2 = m1 & (m1 - 1) == 0
    sh = np.int64(m1.bit_length() - 1)
    keys = (rows << sh) | cols if pow2 else rows * np.int64(m1) + cols
    keys.sort()
    if keys.shape[0] > 1:
        keys = keys[np.concatenate([[True], keys[1:] != keys[:-1]])]
    if pow2:
        rows, cols = keys >> sh, keys & np.int64(m1 - 1)
    else:
        rows, cols = np.divmod(keys, np.int64(m1))
    return Matrix.from_coo(rows, cols, dt.type(True), n, m, dtype=dt, device=device)


def kronecker(scale, edge_factor=16, *, seed=0, a=0.57, b=0.19, c=0.19, dtype=bool,
              permute=True, device=None):
    """Graph500 Kronecker (R-MAT) graph with ``2**scale`` vertices.

    ``edge_factor * 2**scale`` edges are drawn: for each of the ``scale`` bits
    of the endpoints one quadrant is chosen with probabilities ``a``, ``b``,
    ``c``, ``d = 1 - a - b - c`` (Graph500: 0.57, 0.19, 0.19, 0.05).  Vertex
    labels are then randomly permuted (``permute=False`` keeps the R-MAT
    order, vertex 0 the densest).  The graph is symmetrised; self-loops and
    duplicate edges are removed, so ``nvals`` (twice the number of undirected
    edges) is below ``2 * edge_factor * 2**scale``.
    """
    scale = _int_arg(scale, "scale", 0, 31)
    edge_factor = _int_arg(edge_factor, "edge_factor", 0)
    probs = [float(p) for p in (a, b, c)]
    d = 1.0 - sum(probs)
    if any(not (0.0 <= p <= 1.0) for p in probs) or d < -1e-12:
        raise InvalidValue(f"kronecker: a, b, c must be probabilities with a + b + c <= 1, got "
                           f"{a}, {b}, {c}")
    n = 1 << scale
    nedges = edge_factor * n
    from .device import backend_for
    backend_for("cpu").check_alloc(nedges * 40, f"kronecker({scale}, {edge_factor})")
    rng = np.random.default_rng(seed)
    it = np.int32 if scale < 31 else np.int64
    ii = np.zeros(nedges, dtype=it)
    jj = np.zeros(nedges, dtype=it)
    ta, tab, tabc = (np.float32(t) for t in (probs[0], probs[0] + probs[1], sum(probs)))
    u = np.empty(nedges, dtype=np.float32)
    for bit in range(scale):   # one vectorised draw per bit of the labels
        rng.random(out=u, dtype=np.float32)
        ibit = u >= tab                                # quadrants c, d: row bit set
        jbit = (u >= ta) != ibit                       # quadrant b ...
        jbit ^= u >= tabc                              # ... or d: column bit set
        ii |= ibit.view(np.uint8).astype(it) << it(bit)
        jj |= jbit.view(np.uint8).astype(it) << it(bit)
    del u
    if permute:
        perm = rng.permutation(n).astype(it)
        ii, jj = perm[ii], perm[jj]
    keep = ii != jj
    return _result(ii[keep], jj[keep], n, n, dtype, device, True)


rmat = kronecker


def grid2d(nrows, ncols, *, diagonals=False, periodic=False, dtype=bool, device=None):
    """Undirected ``nrows x ncols`` grid graph; vertex ``(i, j)`` is
    ``i * ncols + j`` (networkx ``grid_2d_graph`` order).

    Each vertex is joined to its left/right/up/down neighbours (degree <= 4,
    diameter ``nrows + ncols - 2``: a road-network-like graph);
    ``diagonals=True`` adds the two diagonals (degree <= 8);
    ``periodic=True`` wraps around (a torus).
    """
    nrows = _int_arg(nrows, "nrows")
    ncols = _int_arg(ncols, "ncols")
    n = nrows * ncols
    from .device import backend_for
    backend_for("cpu").check_alloc(n * 8 * 16, f"grid2d({nrows}, {ncols})")
    idx = np.arange(n, dtype=np.int64).reshape(nrows, ncols)
    pairs = []

    def link(a, b):
        pairs.append((a.reshape(-1), b.reshape(-1)))

    link(idx[:, :-1], idx[:, 1:])                   # horizontal
    link(idx[:-1, :], idx[1:, :])                   # vertical
    if diagonals:
        link(idx[:-1, :-1], idx[1:, 1:])
        link(idx[:-1, 1:], idx[1:, :-1])
    if periodic:
        if ncols > 2:
            link(idx[:, -1], idx[:, 0])
        if nrows > 2:
            link(idx[-1, :], idx[0, :])
        if diagonals and nrows > 2 and ncols > 2:
            link(idx, np.roll(np.roll(idx, -1, 0), -1, 1))
            link(idx, np.roll(np.roll(idx, -1, 0), 1, 1))
    rows = np.concatenate([p[0] for p in pairs]) if pairs else np.zeros(0, np.int64)
    cols = np.concatenate([p[1] for p in pairs]) if pairs else np.zeros(0, np.int64)
    keep = rows != cols
    return _result(rows[keep], cols[keep], n, n, dtype, device, True)


def random_geometric(n, radius, *, dim=2, seed=0, dtype=bool, return_positions=False,
                     device=None):
    """Random geometric graph: ``n`` points uniform in ``[0, 1)**dim``, an
    edge between two points at Euclidean distance ``<= radius`` (as networkx
    ``random_geometric_graph``).  ``return_positions=True`` also returns the
    ``(n, dim)`` NumPy array of points."""
    n = _int_arg(n, "n")
    dim = _int_arg(dim, "dim", 1)
    radius = float(radius)
    if not radius >= 0:
        raise InvalidValue(f"random_geometric: radius must be >= 0, got {radius}")
    from scipy.spatial import cKDTree
    rng = np.random.default_rng(seed)
    pos = rng.random((n, dim))
    if n:
        pairs = cKDTree(pos).query_pairs(radius, output_type="ndarray")
    else:
        pairs = np.zeros((0, 2), dtype=np.int64)
    A = _result(pairs[:, 0], pairs[:, 1], n, n, dtype, device, True)
    return (A, pos) if return_positions else A


def erdos_renyi(n, p=None, *, nedges=None, seed=0, directed=False, dtype=bool, device=None):
    """Erdos-Renyi random graph without self-loops: ``G(n, p)`` (each possible
    edge independently with probability ``p``) or ``G(n, m)`` (``nedges``
    distinct edges chosen uniformly).  Undirected graphs are symmetric and
    ``nedges`` counts each undirected edge once."""
    n = _int_arg(n, "n")
    if (p is None) == (nedges is None):
        raise InvalidValue("erdos_renyi: give exactly one of p and nedges")
    npairs = n * (n - 1) if directed else n * (n - 1) // 2
    rng = np.random.default_rng(seed)
    if p is not None:
        p = float(p)
        if not 0.0 <= p <= 1.0:
            raise InvalidValue(f"erdos_renyi: p must be in [0, 1], got {p}")
        m = int(rng.binomial(npairs, p)) if npairs else 0
    else:
        m = _int_arg(nedges, "nedges", 0)
        if m > npairs:
            raise InvalidValue(f"erdos_renyi: nedges={m} is more than the {npairs} possible "
                               "edges")
    from .device import backend_for
    backend_for("cpu").check_alloc(m * 64, f"erdos_renyi({n}, nedges={m})")
    keys = _sample_pairs(rng, n, m, npairs, directed)
    if directed:
        rows, cols = np.divmod(keys, np.int64(max(n - 1, 1)))
        cols = cols + (cols >= rows)          # skip the diagonal
    else:
        rows, cols = _triangle_pair(keys)
    return _result(rows, cols, n, n, dtype, device, not directed)


def _sample_pairs(rng, n, m, npairs, directed):
    """``m`` distinct pair numbers in ``[0, npairs)``, uniformly (vectorised
    rounds of rejection sampling; the complement when ``m`` is large)."""
    if m == 0:
        return np.zeros(0, dtype=np.int64)
    if m > npairs // 2:
        if npairs <= 1 << 26:
            return np.sort(rng.choice(npairs, m, replace=False).astype(np.int64))
        drop = _sample_pairs(rng, n, npairs - m, npairs, directed)
        return np.setdiff1d(np.arange(npairs, dtype=np.int64), drop, assume_unique=True)
    got = np.zeros(0, dtype=np.int64)
    while got.shape[0] < m:
        need = m - got.shape[0]
        draw = rng.integers(0, npairs, size=int(need * 1.1) + 16, dtype=np.int64)
        got = np.union1d(got, draw)
    return np.sort(rng.choice(got, m, replace=False))


def _triangle_pair(k):
    """Pair number k -> (i, j) with i > j, k = i*(i-1)/2 + j."""
    i = np.floor((1 + np.sqrt(1 + 8 * k.astype(np.float64))) / 2).astype(np.int64)
    i -= (i * (i - 1) // 2 > k)               # fix floating-point rounding
    i += ((i + 1) * i // 2 <= k)
    j = k - i * (i - 1) // 2
    return i, j
