"""Framework pieces of the Fast Graphlet Transform (``algorithms/fglt.py``):
the simple-graph check, the per-vertex 4-clique count (σ15) and the stacking
of per-vertex frequency vectors into the result matrix.  Framework calls only.
"""
from .errors import InvalidValue
from .graph import Graph
from .matrix import Matrix
from .operators import binary, monoid, semiring, unary


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


def four_cliques_per_vertex(P):
    """The number of 4-cliques containing each vertex of the 0/1 pattern P:
    per upper edge e = (r, c), T(e, :) = P(r, :) ∘ P(c, :) (the common
    neighbours); K = (T P) ∘ T counts twice the edges among them, i.e. twice
    the 4-cliques through e; each 4-clique through a vertex contains 3 of its
    edges, so the count is (K4 + K4ᵀ) e / 6 with K4(r, c) = K(e, :) e."""
    r, c, _ = P.select("triu", 1).to_coo()
    T = P.extract(r, None).ewise_mult(P.extract(c, None), binary.pair)
    k4 = T.mxm(P, semiring.plus_pair, mask=T.S).reduce_rowwise(monoid.plus)
    K4 = Matrix.from_coo(r, c, k4.to_dense(fill=0), P.nrows, P.ncols, dtype="int64",
                         device=P.device)
    return K4.ewise_add(K4.T, binary.plus).reduce_rowwise(monoid.plus).apply(binary.div, right=6)


def stack_columns(vectors, dtype, device):
    """An n × len(vectors) Matrix with every entry stored: column k is
    ``vectors[k]`` (0 where it has no entry)."""
    n = vectors[0].size
    F = Matrix(dtype, n, len(vectors), device=device)
    F.assign(0)
    for k, v in enumerate(vectors):
        F.assign(v, cols=k, accum=binary.plus)
    return F
