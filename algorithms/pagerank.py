"""PageRank by power iteration, exactly as ``networkx.pagerank`` defines it.

Definition
----------
Edge i -> j has weight A[i, j] (an iso/Boolean matrix weighs every edge 1);
``d(i) = sum_j A[i, j]`` is the weighted out-degree and vertices with
``d(i) = 0`` are dangling.  With damping alpha, starting from x = 1/n,

    x'(j) = alpha * sum_i x(i) A[i, j] / d(i)
            + (alpha * sum_{i dangling} x(i) + 1 - alpha) / n

(the dangling mass and the teleport are spread uniformly), until
``sum_j |x'(j) - x(j)| < n * tol``; the result sums to 1.  Not converged
after ``max_iter`` iterations raises :class:`graphblast_py.ConvergenceError`
(networkx raises PowerIterationFailedConvergence).  Reference: Page, Brin,
Motwani, Winograd 1999; networkx ``_pagerank_scipy``.

GraphBLAS mapping: the row sums are one ``reduce_rowwise``; per iteration
w = x o s (``ewise_mult``) with s(i) = alpha/d(i), and s(i) = 0 for a
dangling i (s has every entry, so w does: the product w A reads a full
vector), the dangling sum (masked ``apply`` +
``reduce``), and x' = c + w A as one ``vxm`` (plus_times) accumulated into a
vector filled with the constant c; the error is an ``ewise`` and a reduce.

Complexity: O(m + n) per iteration, at most ``max_iter`` iterations.
"""
from graphblast_py import ConvergenceError, Vector, binary, dtypes, monoid, semiring, unary
from graphblast_py.checks import check_int, check_matrix, check_nonnegative, check_real
from graphblast_py.hints import GraphLike


def pagerank(A: GraphLike, damping: float = 0.85, tol: float = 1e-6,
             max_iter: int = 100) -> Vector:
    """PageRank of every vertex of the weighted digraph ``A`` (float64 Vector
    with every entry present, summing to 1); networkx's definition.

    Parameters are checked before any work: ``damping`` a finite number in
    [0, 1], ``tol`` a finite number > 0, ``max_iter`` an integer >= 1
    (InvalidValue, or InvalidObject for a wrong type); ``A`` a square Matrix, gb.Graph,
    SciPy/CuPy sparse matrix or networkx graph (its 'weight' attribute, default
    1) (InvalidObject / DimensionMismatch) whose weights are non-negative numbers
    (InvalidValue for a NaN or negative weight: no random walk)."""
    A = check_matrix(A, "pagerank", weighted=True)
    check_nonnegative(A, "pagerank")
    damping = check_real(damping, "pagerank", "damping", 0.0, 1.0)
    tol = check_real(tol, "pagerank", "tol", 0.0, lo_open=True)
    max_iter = check_int(max_iter, "pagerank", "max_iter", 1)
    n = A.nrows
    x = Vector(dtypes.FP64, n, device=A.device)
    if n == 0:
        return x
    d = A.reduce_rowwise(monoid.plus).select("!=", 0)                   # weighted out-degree
    scale = Vector(dtypes.FP64, n, device=A.device)
    scale.assign(0.0)                                                   # dangling: no share
    scale.assign(d.apply(binary.div, left=float(damping)), accum=binary.plus)   # alpha / d(i)
    dangling = Vector(dtypes.BOOL, n, device=A.device)
    dangling.assign(True, mask=~d.S)
    x.assign(1.0 / n)
    for _ in range(max_iter):
        w = x.ewise_mult(scale, binary.times)
        lost = x.apply(unary.identity, mask=dangling.S).reduce(monoid.plus)
        xnew = Vector(dtypes.FP64, n, device=A.device)
        xnew.assign((damping * lost + 1.0 - damping) / n)
        w.vxm(A, semiring.plus_times, accum=binary.plus, out=xnew)
        err = xnew.ewise_mult(x, binary.minus).apply(unary.abs).reduce(monoid.plus)
        x = xnew
        if err < n * tol:
            return x
    raise ConvergenceError(f"pagerank did not converge to tol={tol} in {max_iter} iterations")
