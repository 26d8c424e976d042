"""Framework pieces of the Fast Graphlet Transform (``algorithms/fglt.py``):
the simple-graph check, the common-neighbour counts C = A ∘ A², the
per-vertex 4-clique count (σ15) and the stacking
of per-vertex frequency vectors into the result matrix.  Framework calls only.
"""
from . import dtypes
from .errors import InvalidValue
from .graph import Graph
from .matrix import Matrix
from .oom import _wrap as _oom_step
from .operators import semiring, unary
from .stats import stats
from .vector import Vector


def simple_pattern(A, what):
    """A's structure as an int64 0/1 Matrix; refuses a non-square matrix,
    self-loops and an asymmetric structure (FGLT counts graphlets of a simple
    undirected graph)."""
    if A.nrows != A.ncols:
        raise InvalidValue(f"{what}: the adjacency matrix must be square, got "
                           f"{A.nrows}x{A.ncols}")
    G = Graph(A)                                      # properties cached on A
    if G.nself_loops:
        raise InvalidValue(f"{what}: the graph has {G.nself_loops} self-loop(s); FGLT "
                           "needs a simple graph (zero diagonal)")
    if not G.is_symmetric_structure:
        raise InvalidValue(f"{what}: the adjacency matrix is not symmetric; FGLT needs an "
                           "undirected graph (symmetrise it, e.g. A + Aᵀ)")
    return A.dup("int64").apply(unary.one)


def common_neighbours(P, sums=True):
    """``(C, t)`` for the 0/1 pattern P (symmetric, zero diagonal):
    C = P ∘ P², on every edge (i, j) the number of common neighbours of i and
    j, as an int64 Matrix with P's structure (zeros stored), or, where the
    backend knows at no cost that there is no triangle (the CPU), without
    any entry (the later operations on C then cost nothing; a zero adds
    nothing to what FGLT computes from C); t,
    a full int64
    Vector: t(i) = Σ over the triangles {i, j, k} of (C(j, k) − 1), which is
    ((P ∘ (P (C − P))) e)(i) / 2.  The CPU backend lists each triangle once,
    from its lowest vertex of the degree orientation; the generic path uses
    masked dot products.  ``sums=False``: ``(C, None)``, without the second
    pass over the triangles that t takes (FGLT with 5 orbits needs no σ13)."""
    ip, ix, _ = P._csr(False)
    if not sums:
        return _nonzero(P, P._be.edge_triangles(ip, ix, sums=False)), None
    c, t = P._be.edge_triangles(ip, ix, sums=True)
    return _nonzero(P, c), Vector.from_dense(t, dtype="int64", device=P.device)


def _nonzero(P, c):
    """P's structure with the values c (int64; zeros stored), or a Matrix
    without entries when c is all zero (a graph without triangles) and the
    backend knows it without waiting on a device (``known_all_zero``)."""
    if P._be.known_all_zero(c):
        return Matrix("int64", P.nrows, P.ncols, device=P.device)
    return P._with_values(c, "int64")


def four_cliques_per_vertex(P, C=None):
    """The number of 4-cliques containing each vertex of the 0/1 pattern P
    (symmetric, zero diagonal) as a full int64 Vector.  The backend's kernel
    orients every edge from the lower to the higher (degree, id) vertex, and
    for each oriented edge (u, v) and each w in S = N⁺(u) ∩ N⁺(v) counts the
    x in N⁺(w) ∩ S: each 4-clique once, credited to its four vertices.  Peak
    memory: the oriented graph and O(n) per thread (no per-edge rows).

    ``C``: P's common-neighbour counts (``common_neighbours``); the search
    then runs on the edges with C ≥ 2 only (each edge of a 4-clique has the
    clique's two other vertices as common neighbours), the same counts; a
    graph without triangles leaves no edge to search."""
    if C is not None and C.nvals == 0:                 # no triangle: no 4-clique
        return Vector.from_dense(P._be.zeros(P.nrows, dtypes.lookup("int64")), dtype="int64",
                                 device=P.device)
    Q = P if C is None else C.select("valuege", 2)
    ip, ix, _ = Q._csr(False)
    return Vector.from_dense(P._be.four_cliques(ip, ix), dtype="int64", device=P.device)


# an allocation failure inside these framework steps surfaces as OutOfMemory
# naming the step ("graphlets.common_neighbours (n x n): out of memory ..."),
# as one inside a Matrix method does
common_neighbours = _oom_step("graphlets", "common_neighbours", common_neighbours)
four_cliques_per_vertex = _oom_step("graphlets", "four_cliques_per_vertex",
                                    four_cliques_per_vertex)


def stack_columns(vectors, dtype, device, times=None):
    """An n × len(vectors) Matrix with every entry stored: column k is
    ``vectors[k]`` (0 where it has no entry), in dtype; built from one dense
    block.  ``times``: a len(vectors) × m Matrix; the result is then the
    n × m product of that block and ``times`` (plus_times), computed from the
    columns themselves where the backend can (``dense_columns_mm``, the CPU:
    the block is never formed), else the block's ``mxm`` (its dense path)."""
    be = vectors[0]._be
    dt = dtypes.lookup(dtype)
    if times is not None:
        # the columns lent to the one kernel call (no copy of a vector stored full)
        cols = [be.cast(_full_values(v), dt) for v in vectors]
        sr = semiring.plus_times
        out_dt = dtypes.lookup(sr.out_dtype(dt, times.dtype))
        got = be.dense_columns_mm(cols, times._csr(True), times.ncols, sr, out_dt)
        if got is not None:
            stats.record("mxm", "dense")
            F = Matrix(out_dt, cols[0].shape[0], times.ncols, device=device)
            F._set_dense(*got)
            return F
    cols = [be.cast(v.to_dense(fill=0), dt) for v in vectors]
    # (kept in dense form: a product with it runs from its dense rows where
    # the backend can, operations/mxm.py)
    F = Matrix.from_dense(be.xp.stack(cols, axis=1), dtype=dtype, device=device)
    return F if times is None else F.mxm(times, semiring.plus_times)


def _full_values(v):
    """v's values at every position, 0 where it has no entry: the stored
    array itself for a vector stored full (``Vector._full_values``; read
    before v changes)."""
    full = v._full_values()
    return full[0] if full is not None else v.to_dense(fill=0)
