"""Triangle counting on an undirected graph (exact, int64).

Definition
----------
A is the symmetric adjacency matrix of a simple undirected graph (values and
self-loops are ignored).  Order the vertices by degree, ties by id:
key(v) = deg(v) n + v, and let L keep the entries (i, j) of A with
key(i) < key(j) (each edge once, pointing to its higher-degree end).  Then

    ntri = sum_ij ( L L^T  o  L )_ij          over (plus, pair)

since for an edge with key(i) < key(j), (L L^T)_ij = ``|{k : k~i, k~j,
key(k) > key(j)}|`` counts each triangle once, from its two lowest-ranked
vertices (Azad, Buluc, Gilbert, "Parallel triangle counting and enumeration
using matrix algebra", 2015; Wolf et al., "Fast linear algebra-based triangle
counting with KokkosKernels", 2017; LAGraph ``LAGr_TriangleCount`` with its
degree sort).  The degree order keeps the rows of L short -- a hub's row holds
only its neighbours of higher degree -- so the masked dot products cost about
``sum over entries (i, j) of L of |L_j|`` instead of the squared hub degrees
of the vertex order.

GraphBLAS mapping: deg = A 1 over plus_pair, every vertex present
(``Graph(A).out_degree``: the row lengths, cached on A with its other graph
properties, so a second count on the same matrix does not redo it); key
from deg by apply/ewise_mult; K = diag(key) (``Matrix.from_diag``, every
entry present, so ``mxm`` scales rows and columns by it without a
product); ``(K A) K`` over (any_first) then (any, minus) puts
key(i) - key(j) on A's entries and ``select("valuelt", 0)`` gives L;
then one fused ``mxm_reduce(L, L^T, plus_pair, mask=L.S)`` (masked dot
products, C never stored) and ``reduce``.

Per vertex (networkx.triangles), with L0 the strictly lower triangle in vertex
order and U0 = L0^T, each triangle k < j < i is credited to its largest,
middle and smallest vertex from two masked products, C = L0 U0 <L0> and
D = U0 L0 <U0> (D(k, j) = ``|{i > j : i~k, i~j}|`` for k < j):

    t = rowsums(C) + colsums(C) + rowsums(D)

Complexity: O(m^{3/2}) worst case; memory O(m) (O(n) per thread for the
count's bitmap on the CPU).
"""
from graphblast_py import (Graph, InvalidValue, Matrix, Semiring, Vector, binary, dtypes,
                           indexunary, monoid, semiring)
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
    L = degree_ordered(A)
    w = L.mxm_reduce(L.T, semiring.plus_pair, mask=L.S)
    return int(w.reduce(monoid.plus))


def degree_ordered(A):
    """int64 Matrix L: the entries (i, j) of A with key(i) < key(j),
    key(v) = deg(v) n + v (deg counts the entries of row v; any order of the
    vertices counts correctly, the degree only keeps the rows short)."""
    n = A.nrows
    deg = Graph(A).out_degree            # A 1 over plus_pair: the row lengths; cached
    key = deg.apply(binary.times, right=n).ewise_mult(deg.apply(indexunary.rowindex),
                                                      binary.plus)
    K = Matrix.from_diag(key)                                     # diag(key), every entry
    ki = K.mxm(A, semiring.any_first)                             # key(i) at (i, j)
    diff = ki.mxm(K, _ANY_MINUS)                                  # key(i) - key(j) at (i, j)
    return diff.select("valuelt", 0)


_ANY_MINUS = Semiring(monoid.any, binary.minus)


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
