"""Triangle counting on an undirected graph (exact, int64).

Definition
----------
A is the symmetric adjacency matrix of a simple undirected graph (values and
self-loops are ignored).  With L the strictly lower triangle of A,

    ntri = sum_ij ( L L^T  o  L )_ij          over (plus, pair)

since for an edge i > j, (L L^T)_ij = ``|{k < j : k~i, k~j}|`` counts each
triangle k < j < i exactly once (Azad, Buluc, Gilbert, "Parallel triangle
counting and enumeration using matrix algebra", 2015; Wolf et al., "Fast
linear algebra-based triangle counting with KokkosKernels", 2017; LAGraph
``LAGr_TriangleCount`` method "Sandia_LL").  Per vertex (networkx.triangles),
each triangle k < j < i is credited to its largest, middle and smallest
vertex from two masked products, C = L U <L> and D = U L <U> (U = L^T,
D(k, j) = ``|{i > j : i~k, i~j}|`` for k < j):

    t = rowsums(C) + colsums(C) + rowsums(D)

GraphBLAS mapping: ``select("tril", -1)`` then one masked ``mxm`` with the
structural mask L.S -- the backend computes only the masked entries, each a
merge of two sorted rows (masked dot product) -- then ``reduce_scalar``.  The
operands are cast to int64 first so the counts accumulate in int64.

Complexity: O(sum over edges (i, j) of min/merge of deg(i), deg(j)) =
O(m^{3/2}) worst case; memory O(m).
"""
from graphblast_py import Graph, InvalidValue, Vector, binary, dtypes, monoid, semiring
from graphblast_py.checks import check_matrix
from graphblast_py.hints import GraphLike


def check_undirected(A, what):
    """The Matrix of A (any input ``check_matrix`` accepts); raises unless it
    is square (InvalidObject / DimensionMismatch) with a symmetric structure
    (InvalidValue; the symmetry is cached on the matrix, see ``gb.Graph``)."""
    A = check_matrix(A, what)
    if not Graph(A).is_symmetric_structure:                         # cached on A
        raise InvalidValue(f"{what} needs an undirected graph: the structure of A must be "
                           "symmetric (use A.ewise_add(A.T, gb.binary.any) to symmetrise)")
    return A


def triangle_count(A: GraphLike) -> int:
    """Number of triangles (int) of the undirected graph ``A``."""
    A = check_undirected(A, "triangle_count")
    L = A.select("tril", -1).dup(dtypes.INT64)
    return int(L.mxm(L.T, semiring.plus_pair, mask=L.S).reduce_scalar(monoid.plus))


def triangles_per_vertex(A: GraphLike) -> Vector:
    """int64 Vector (every entry present): triangles containing each vertex."""
    A = check_undirected(A, "triangles_per_vertex")
    L = A.select("tril", -1).dup(dtypes.INT64)
    U = L.T
    t = Vector(dtypes.INT64, A.nrows, device=A.device)
    t.assign(0)
    C = L.mxm(U, semiring.plus_pair, mask=L.S)                    # C(i,j): k < j < i
    C.reduce_rowwise(monoid.plus, accum=binary.plus, out=t)        # i is the largest vertex
    C.reduce_columnwise(monoid.plus, accum=binary.plus, out=t)     # j is the middle one
    D = U.mxm(L, semiring.plus_pair, mask=U.S)                    # D(k,j): k < j < i
    D.reduce_rowwise(monoid.plus, accum=binary.plus, out=t)        # k is the smallest
    return t
