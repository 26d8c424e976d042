"""Fast Graphlet Transform (FGLT): per-vertex graphlet orbit frequencies.

Floros, Pitsianis, Sun, "Fast graphlet transform of sparse graphs", IEEE HPEC
2020 (arXiv:2007.11111).  For a simple undirected graph with adjacency matrix
A (symmetric pattern, zero diagonal; values are ignored) and e the ones vector:

    d = A e                      (degrees)
    C = A ∘ A²                   (per edge: number of common neighbours)
    W = A² − diag(A²)            (2-paths i–k–j with j ≠ i)

the raw frequencies σ0..σ15 of every vertex are

    σ0 = 1                       σ8  = d(d−1)(d−2)/6
    σ1 = d                       σ9  = A σ4 − 2σ4
    σ2 = A d − d                 σ10 = C (d − 2)
    σ3 = d(d−1)/2                σ11 = (d − 2) ∘ σ4
    σ4 = (C e)/2                 σ12 = Σ_j W_ij (W_ij − 1)/2
    σ5 = A σ2 − d(d−1) − 2σ4     σ13 = ((A ∘ (A (C − A))) e)/2
    σ6 = σ2 ∘ (d−1) − 2σ4        σ14 = Σ_j C_ij (C_ij − 1)/2
    σ7 = A ((d−1)(d−2)/2)        σ15 = number of 4-cliques containing i

(all divisions exact, int64; d(d−1)/2, (d−1)(d−2)/2 and d(d−1)(d−2)/6 are
unary operators on d and d − 1, and d(d − 1) in σ5 is 2σ3).  For a graph
without triangles C has no entry, so σ4, σ9, σ10, σ11, σ13, σ14, σ15 are 0 at
the cost of operations on an empty matrix.  No product is stored beyond C (nnz(A) entries).  C and σ13 come from ``graphblast_py.graphlets.common_neighbours``
(the CPU lists each triangle once): in σ13, A(C − A) under the mask A sums,
for each edge (i, j), C_kj − 1 over the common neighbours k of i and j (k ~ j,
so C_kj ≥ 1), i.e. σ13 = Σ over the triangles {i, j, k} at i of C_jk − 1.
With f(x) = x(x − 1)/2 and the fused ``mxm_reduce`` (w_i = Σ_j f((A B)_ij)
over the entries of the product, which is never kept):

    σ12 = Σ_j f((A²)_ij) − f(d_i)       (the diagonal of A² is d; f(0) = 0)
    σ14 = Σ_j f(C_ij)

σ15 counts 4-cliques directly (``graphblast_py.graphlets.four_cliques_per_vertex``:
per oriented edge, the edges among the common out-neighbours), searching only
the edges with C ≥ 2 (an edge of a 4-clique has two common neighbours in it).

The net (orbit) frequencies are a fixed integer transform of the raw ones,
n = U σ (table ``NET`` below: n5 = σ5 − 2σ9 − σ10 − 2σ12 + 4σ13 + 2σ14 − 6σ15,
...), which reproduces the authors' gold data exactly.

Returns an n×16 (``orbits=16``) or n×5 (``orbits=5``: σ0..σ4 only) int64
Matrix with every entry stored; ``net=False`` gives the raw frequencies.
"""
from graphblast_py import InvalidValue, Matrix, UnaryOp, Vector, binary, monoid, semiring
from graphblast_py.checks import check_bool, check_int, check_matrix
from graphblast_py.graphlets import (common_neighbours, four_cliques_per_vertex, simple_pattern,
                                    stack_columns)
from graphblast_py.progress import progress_bar
from graphblast_py.hints import GraphLike

# x ↦ x(x − 1)/2 and x(x − 1)(x − 2)/6 (pairs and triples among x items; the
# products are multiples of 2 and 6, so exact), x ↦ x/2 for an even x (exact)
CHOOSE2 = UnaryOp.register("fglt_choose2", lambda x: x * (x - 1) // 2,
                           cuda_expr="x * (x - 1) / 2")
CHOOSE3 = UnaryOp.register("fglt_choose3", lambda x: x * (x - 1) * (x - 2) // 6,
                           cuda_expr="x * (x - 1) * (x - 2) / 6")
HALF = UnaryOp.register("fglt_half", lambda x: x // 2, cuda_expr="x / 2")

# net frequency k = sum of coef * raw sigma_j, as (k, j, coef); identity terms included
NET = [(0, 0, 1), (1, 1, 1), (2, 2, 1), (2, 4, -2), (3, 3, 1), (3, 4, -1), (4, 4, 1),
       (5, 5, 1), (5, 9, -2), (5, 10, -1), (5, 12, -2), (5, 13, 4), (5, 14, 2), (5, 15, -6),
       (6, 6, 1), (6, 10, -1), (6, 11, -2), (6, 12, -2), (6, 13, 2), (6, 14, 4), (6, 15, -6),
       (7, 7, 1), (7, 9, -1), (7, 10, -1), (7, 13, 2), (7, 14, 1), (7, 15, -3),
       (8, 8, 1), (8, 11, -1), (8, 14, 1), (8, 15, -1), (9, 9, 1), (9, 13, -2), (9, 15, 3),
       (10, 10, 1), (10, 13, -2), (10, 14, -2), (10, 15, 6), (11, 11, 1), (11, 14, -2),
       (11, 15, 3), (12, 12, 1), (12, 13, -1), (12, 14, -1), (12, 15, 3), (13, 13, 1),
       (13, 15, -3), (14, 14, 1), (14, 15, -3), (15, 15, 1)]


def fglt(A: GraphLike, orbits: int = 16, net: bool = True, *,
         progress: bool = False) -> Matrix:
    """Raw (``net=False``) or net graphlet orbit frequencies of every vertex: see the module.

    ``progress=True`` shows a tqdm bar on stderr (one step per stage: the
    masked product C, σ0..σ4, σ5..σ15, the net transform; needs tqdm)."""
    A = check_matrix(A, "fglt", square=False)
    if check_int(orbits, "fglt", "orbits", 1) not in (5, 16):
        raise InvalidValue(f"fglt: orbits must be 5 or 16, got {orbits!r}")
    net = check_bool(net, "fglt", "net")
    with progress_bar(4 if orbits == 16 else 3, "fglt", progress) as bar:
        return _fglt(A, orbits, net, bar)


def _fglt(A, orbits, net, bar):
    P = simple_pattern(A, "fglt")
    n, pt, ps = P.nrows, semiring.plus_times, semiring.plus_pair
    add = lambda x, y, a=1: x.ewise_union(y.apply(binary.times, right=a), binary.plus, 0, 0)  # noqa: E731
    mul = lambda x, y: x.ewise_mult(y, binary.times)  # noqa: E731
    one = Vector("int64", n, device=P.device)
    one.assign(1)
    # X e as a full vector (a row without entries gives 0); P's values are 1
    rowsums = lambda X: X.mxv(one, pt, accum=binary.plus, out=one.apply(binary.times, right=0))  # noqa: E731
    d = rowsums(P)
    C, s13 = common_neighbours(P, sums=orbits == 16)   # C = A ∘ A², σ13 (16 orbits)
    bar.update()
    s3 = d.apply(CHOOSE2)
    s = [one, d, add(P.mxv(d, pt), d, -1), s3, rowsums(C).apply(HALF)]
    bar.update()
    if orbits == 16:
        d1, d2 = d.apply(binary.minus, right=1), d.apply(binary.minus, right=2)
        s += [add(add(P.mxv(s[2], pt), s3, -2), s[4], -2),            # d(d − 1) = 2σ3
              add(mul(s[2], d1), s[4], -2), P.mxv(d1.apply(CHOOSE2), pt),
              d.apply(CHOOSE3), add(P.mxv(s[4], pt), s[4], -2),
              C.mxv(d2, pt), mul(d2, s[4]),
              add(P.mxm_reduce(P, ps, apply=CHOOSE2), s3, -1),        # W: A² less diag = d
              s13,
              C.apply(CHOOSE2).reduce_rowwise(monoid.plus), four_cliques_per_vertex(P, C)]
        bar.update()
    if not net:
        bar.update()
        return stack_columns(s, "int64", P.device)
    k, j, c = zip(*[t for t in NET if t[0] < orbits])
    U = Matrix.from_coo(j, k, list(c), orbits, orbits, device=P.device)
    F = stack_columns(s, "int64", P.device, times=U)      # [σ0 … σ15] Uᵀ
    bar.update()
    return F
