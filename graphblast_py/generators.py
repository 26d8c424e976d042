"""Graph generators: ``gb.generators``.

* :func:`kronecker` -- Graph500 Kronecker / R-MAT graphs (scale-free, small diameter)
* :func:`grid2d` -- 2-D grids (road-like: degree <= 4, diameter ~ nrows + ncols)
* :func:`random_geometric` -- random geometric graphs in the unit cube
* :func:`erdos_renyi` -- G(n, p) and G(n, m) random graphs

Every generator returns an iso :class:`~graphblast_py.Matrix` (``dtype=bool``
by default, value ``True``; another ``dtype`` gives value 1) holding the
adjacency structure without self-loops or duplicate edges; undirected graphs
are symmetric.  Kronecker, grid and Erdos-Renyi graphs are generated on the
requested ``device`` by backend methods (array expressions, one pass per two
label bits at most, on the GPU; fused numba kernels on the CPU; never a
Python loop per edge), deduplicated and symmetrised by a sort on the device;
the random geometric graph's pairs are found on the host (SciPy's cKDTree)
and the matrix is built on the device.

Random numbers: a counter-based stream, identical on the CPU and the GPU, so
a seed gives the same graph on either device.  With ``mix64`` splitmix64's
finaliser (``z ^= z >> 30; z *= 0xBF58476D1CE4E5B9; z ^= z >> 27;
z *= 0x94D049BB133111EB; z ^= z >> 31``, uint64 arithmetic modulo 2**64) and
``G = 0x9E3779B97F4A7C15``:

* the key of stream ``s`` for a seed is ``k_s = mix64(seed mod 2**64 + s*G)``;
* draw ``i`` (i = 0, 1, ...) of stream ``s`` is ``r_s(i) = mix64(k_s + (i+1)*G)``.

Kronecker uses stream 1 for the quadrants and stream 2 for the relabelling;
Erdos-Renyi streams 3 (edges) and 4 (edges left out of a dense graph) and,
for ``G(n, p)``, NumPy's ``default_rng(seed)`` for the edge count only.
"""
import operator

import numpy as np

from . import dtypes
from .errors import InvalidValue
from .matrix import Matrix
from .backend.keys import split_keys
from .results import CSRResult

__all__ = ["kronecker", "rmat", "grid2d", "random_geometric", "erdos_renyi"]

_MASK64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15


def _mix64(z):
    """splitmix64's finaliser on a Python int (the arrays use the same)."""
    z &= _MASK64
    z ^= z >> 30
    z = (z * 0xBF58476D1CE4E5B9) & _MASK64
    z ^= z >> 27
    z = (z * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def stream_key(seed, stream):
    """``k_s = mix64(seed mod 2**64 + stream * G)``: the key of a random stream."""
    return _mix64((seed & _MASK64) + stream * _GOLDEN)


def _int_arg(x, name, lo=0, hi=None):
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)):
        raise InvalidValue(f"{name} must be an integer, got {x!r}")
    x = int(x)
    if x < lo or (hi is not None and x > hi):
        rng = f">= {lo}" if hi is None else f"between {lo} and {hi}"
        raise InvalidValue(f"{name} must be {rng}, got {x}")
    return x


def _seed_arg(seed, what):
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise InvalidValue(f"{what}: seed must be an integer, got {seed!r}")
    return int(seed)


def _backend(device):
    from .device import backend_for
    return backend_for(device)


def _iso_matrix(be, csr, n, dtype, nrows=None, symmetric=False):
    """Iso matrix (value True / 1) from the CSR arrays a backend built
    (``nrows`` x ``n``, square by default).  ``symmetric``: the generator
    stored both directions of every edge, so the matrix equals its
    transpose: ``Graph(A).is_symmetric``/``is_symmetric_structure`` are
    known without their whole-matrix check (kept until A changes), which
    on a Kronecker 26 graph would need more memory than the graph."""
    dt = dtypes.lookup(dtype)
    A = Matrix(dt, n if nrows is None else nrows, n, device=be.name)
    A._assign_result(CSRResult(csr[0], csr[1], None, dt.type(True)))
    if symmetric and (nrows is None or nrows == n):
        mark_symmetric(A)
    return A


def mark_symmetric(A):
    """Record on ``A`` (a Matrix, or a DistMatrix, whose row blocks keep it
    across runs) that it equals its transpose, by construction: the answer
    of the symmetry checks, dropped when ``A`` changes."""
    for key in ("symmetric_structure", "symmetric"):
        A._cached(key, lambda: True)


def kronecker(scale, edge_factor=16, *, seed=0, a=0.57, b=0.19, c=0.19, dtype=bool,
              permute=True, rows=None, device=None):
    """Graph500 Kronecker (R-MAT) graph with ``n = 2**scale`` vertices,
    generated on ``device``.

    ``M = edge_factor * n`` edges are drawn: for each of the ``scale`` bits
    of the endpoints one quadrant is chosen with probabilities ``a``, ``b``,
    ``c``, ``d = 1 - a - b - c`` (Graph500: 0.57, 0.19, 0.19, 0.05).
    Precisely (stream 1, see the module docstring): bit ``t`` of edge ``e``
    takes the 32-bit number ``u`` = the high half (t even) or the low half
    (t odd) of ``r_1((t // 2)*M + e)``, and with the thresholds ``T1, T2, T3
    = min(floor(2**32 * (a, a + b, a + b + c)), 2**32)`` (sums in double) the
    row label's bit ``t`` is ``u >= T2`` and the column label's bit is
    ``(u >= T1) xor (u >= T2) xor (u >= T3)`` (quadrants a, b, c, d =
    (0, 0), (0, 1), (1, 0), (1, 1)).  Vertex labels are then randomly
    permuted: with ``key(v) = ((r_2(v) >> scale) << scale) | v`` (distinct),
    ``perm = argsort(key)`` and vertex ``v`` becomes ``perm[v]``
    (``permute=False`` keeps the R-MAT order, vertex 0 the densest).  Self
    loops are dropped, the graph symmetrised and duplicates removed, so
    ``nvals`` (twice the number of undirected edges) is below ``2 * M``.
    The same seed gives the same graph on the CPU and the GPU.

    ``rows=(lo, hi)`` returns only the rows [lo, hi) of that graph, an
    ``(hi - lo) x n`` matrix, without building the rest (every edge is
    still drawn, only the block's are sorted and kept): what a distributed
    run makes on each of its workers (``gb.dist.kronecker``).
    """
    scale = _int_arg(scale, "scale", 0, 31)
    edge_factor = _int_arg(edge_factor, "edge_factor", 0)
    seed = _seed_arg(seed, "kronecker")
    probs = [float(p) for p in (a, b, c)]
    d = 1.0 - sum(probs)
    if any(not (0.0 <= p <= 1.0) for p in probs) or d < -1e-12:
        raise InvalidValue(f"kronecker: a, b, c must be probabilities with a + b + c <= 1, got "
                           f"{a}, {b}, {c}")
    n = 1 << scale
    nedges = edge_factor * n
    be = _backend(device)
    lo, hi = _row_range(rows, n, "kronecker")
    if hi - lo < n and getattr(be, "KRON_CHUNK", None):
        # a row block: its own keys (both directions, a share of the rows), twice
        # for the sort, and one chunk of draws at a time
        need = 2 * 16 * nedges * (hi - lo) // max(n, 1) + min(nedges, be.KRON_CHUNK) * 56
    else:
        need = nedges * 56
    be.check_alloc(need + n * 24, f"kronecker({scale}, {edge_factor})")
    pa, pab, pabc = probs[0], probs[0] + probs[1], probs[0] + probs[1] + probs[2]
    t1, t2, t3 = (min(int(t * 2.0**32), 2**32) for t in (pa, pab, pabc))
    csr = be.kronecker_csr(stream_key(seed, 1), stream_key(seed, 2), scale, nedges, t1, t2, t3,
                           permute, lo, hi)
    return _iso_matrix(be, csr, n, dtype, hi - lo, symmetric=True)


def _row_range(rows, n, what):
    """``rows=None | (lo, hi)`` checked against ``n`` rows."""
    if rows is None:
        return 0, n
    try:
        lo, hi = (operator.index(r) for r in rows)
    except (TypeError, ValueError):
        raise InvalidValue(f"{what}: rows must be a pair of integers (lo, hi), got "
                           f"{rows!r}") from None
    if not 0 <= lo <= hi <= n:
        raise InvalidValue(f"{what}: rows=({lo}, {hi}) must satisfy 0 <= lo <= hi <= n = {n}")
    return lo, hi


rmat = kronecker


def grid2d(nrows, ncols, *, diagonals=False, periodic=False, dtype=bool, device=None):
    """Undirected ``nrows x ncols`` grid graph; vertex ``(i, j)`` is
    ``i * ncols + j`` (networkx ``grid_2d_graph`` order).

    Each vertex is joined to its left/right/up/down neighbours (degree <= 4,
    diameter ``nrows + ncols - 2``: a road-network-like graph);
    ``diagonals=True`` adds the two diagonals (degree <= 8);
    ``periodic=True`` wraps around (a torus).  Built on ``device``.
    """
    nrows = _int_arg(nrows, "nrows")
    ncols = _int_arg(ncols, "ncols")
    n = nrows * ncols
    be = _backend(device)
    be.check_alloc(n * 8 * 24, f"grid2d({nrows}, {ncols})")
    xp = be.xp
    idx = xp.arange(n, dtype=np.int64).reshape(nrows, ncols)
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
            link(idx, xp.roll(xp.roll(idx, -1, 0), -1, 1))
            link(idx, xp.roll(xp.roll(idx, -1, 0), 1, 1))
    rows = xp.concatenate([p[0] for p in pairs])
    cols = xp.concatenate([p[1] for p in pairs])
    return _iso_matrix(be, be.simple_graph_csr(rows, cols, n, True), n, dtype, symmetric=True)


def random_geometric(n, radius, *, dim=2, seed=0, dtype=bool, return_positions=False,
                     device=None):
    """Random geometric graph: ``n`` points uniform in ``[0, 1)**dim``
    (NumPy's ``default_rng(seed)``), an edge between two points at Euclidean
    distance ``<= radius`` (as networkx ``random_geometric_graph``).  The
    pairs are found on the host (SciPy's cKDTree) and the graph is built on
    ``device``.  ``return_positions=True`` also returns the ``(n, dim)`` NumPy
    array of points."""
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
    be = _backend(device)
    pairs = be.asarray(pairs.astype(np.int64, copy=False))
    A = _iso_matrix(be, be.simple_graph_csr(pairs[:, 0], pairs[:, 1], n, True), n, dtype,
                    symmetric=True)
    return (A, pos) if return_positions else A


def erdos_renyi(n, p=None, *, nedges=None, seed=0, directed=False, dtype=bool, device=None):
    """Erdos-Renyi random graph without self-loops, generated on ``device``:
    ``G(n, p)`` (each possible edge independently with probability ``p``) or
    ``G(n, m)`` (``nedges`` distinct edges chosen uniformly).  Undirected
    graphs are symmetric and ``nedges`` counts each undirected edge once.

    Precisely: the ``N`` possible edges are numbered (directed: ``k = i*(n-1)
    + j'`` with ``j'`` the column skipping the diagonal; undirected: ``k =
    i*(i-1)/2 + j`` for ``i > j``).  ``G(n, p)`` draws ``m ~ Binomial(N, p)``
    with NumPy's ``default_rng(seed)`` and then proceeds as ``G(n, m)``.
    ``G(n, m)`` with ``m <= N/2`` takes the first ``m`` distinct values of
    ``r_3(0) mod N, r_3(1) mod N, ...``; with ``m > N/2`` every edge except
    the first ``N - m`` distinct values of stream 4.  The same seed gives the
    same graph on the CPU and the GPU."""
    n = _int_arg(n, "n")
    seed = _seed_arg(seed, "erdos_renyi")
    if (p is None) == (nedges is None):
        raise InvalidValue("erdos_renyi: give exactly one of p and nedges")
    npairs = n * (n - 1) if directed else n * (n - 1) // 2
    if p is not None:
        p = float(p)
        if not 0.0 <= p <= 1.0:
            raise InvalidValue(f"erdos_renyi: p must be in [0, 1], got {p}")
        m = int(np.random.default_rng(seed).binomial(npairs, p)) if npairs else 0
    else:
        m = _int_arg(nedges, "nedges", 0)
        if m > npairs:
            raise InvalidValue(f"erdos_renyi: nedges={m} is more than the {npairs} possible "
                               "edges")
    be = _backend(device)
    xp = be.xp
    if m <= npairs // 2:
        be.check_alloc(m * 96 + n * 8, f"erdos_renyi({n}, nedges={m})")
        keys = be.first_distinct(stream_key(seed, 3), m, npairs)
    else:
        be.check_alloc(npairs * 24 + n * 8, f"erdos_renyi({n}, nedges={m})")
        drop = be.first_distinct(stream_key(seed, 4), npairs - m, npairs)
        keep = xp.ones(npairs, dtype=bool)
        keep[drop] = False
        keys = xp.flatnonzero(keep).astype(np.int64)
    if directed:
        rows, cols = split_keys(keys, max(n - 1, 1))   # n - 1 off-diagonal columns per row
        cols += cols >= rows                  # skip the diagonal
    else:
        rows, cols = _triangle_pair(keys, xp)
    return _iso_matrix(be, be.simple_graph_csr(rows, cols, n, not directed), n, dtype,
                       symmetric=not directed)


def _triangle_pair(k, xp=np):
    """Pair number k -> (i, j) with i > j, k = i*(i-1)/2 + j."""
    i = xp.floor((1 + xp.sqrt(1 + 8 * k.astype(np.float64))) / 2).astype(np.int64)
    i -= (i * (i - 1) // 2 > k)               # fix floating-point rounding
    i += ((i + 1) * i // 2 <= k)
    j = k - i * (i - 1) // 2
    return i, j
