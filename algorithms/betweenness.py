"""Betweenness centrality (Brandes), a batch of sources at a time.

Definition
----------
Edge i -> j is A[i, j] (values ignored: unweighted shortest paths, as
``networkx.betweenness_centrality(G)`` with weight=None).  With sigma_st the
number of shortest s-t paths and sigma_st(v) those through v::

    bc(v) = sum_{s in S, s != v} delta_s(v),
    delta_s(v) = sum_{t != s, v} sigma_st(v) / sigma_st
               = sum_{w: v in pred_s(w)} sigma_sv / sigma_sw * (1 + delta_s(w))

(Brandes, "A faster algorithm for betweenness centrality", 2001), S the
sources: all vertices when ``sources=None``.  Normalisation is networkx's
(``_rescale``, networkx >= 3.5), N = n - 1, K = ``|S|`` (K = N when S = V):
normalized: bc / (K (N - 1)); otherwise bc * N / (K c), c = 2 for an
undirected graph (``directed=None`` infers it from the symmetry of A) and 1
for a directed one.  A proper subset S (k samples) follows networkx's
k-sample semantics: vertices in S are scaled by K/(K-1) more (NaN when K=1),
so ``sources = random.Random(seed).sample(list(G), k)`` reproduces
``networkx.betweenness_centrality(G, k=k, seed=seed)``.

GraphBLAS mapping (Buluc & Gilbert's batched Brandes, LAGraph
``LAGr_Betweenness``): the frontiers of k sources are one k x n sparse Matrix
F_d (row s = source s; values = path counts sigma), advanced by one ``mxm``
per level (F_{d+1}<~P.S> = F_d plus_first A, P all visited); backward, with
W_d = (1 + delta_d) / sigma_d on level d,

    G       = W_d plus_first A^T  <F_{d-1}.S>     (masked mxm)
    bc     += column sums of  F_{d-1} o G         (delta_{d-1} = sigma o G)
    W_{d-1} = 1 / F_{d-1}  +  G                   ((1 + delta)/sigma = 1/sigma + G)

The row-per-source (k x n, the transpose of an n x k block) layout makes
each mxm cost about the edges leaving the frontiers.

Complexity: O(``|S|`` m) work, O(k n) memory per batch of k sources.
"""
import math

from graphblast_py import Graph, InvalidValue, Matrix, Vector, binary, dtypes, monoid, semiring, unary
from graphblast_py.checks import check_bool, check_int, check_matrix
from graphblast_py.progress import progress_bar
from graphblast_py.hints import GraphLike, Union, VertexIds


def betweenness_centrality(A: GraphLike, sources: Union[VertexIds, None] = None,
                           normalized: bool = True, directed: Union[bool, None] = None,
                           batch_size: int = 64, *, progress: bool = False) -> Vector:
    """float64 Vector (every entry present) of betweenness centralities,
    normalised as networkx does; ``sources`` (distinct vertex ids) restricts
    the sum to those sources (networkx's k-sample semantics).

    Checked up front: ``A`` a square Matrix, ``normalized`` a bool,
    ``directed`` None or a bool, ``batch_size`` an integer >= 1, ``sources``
    distinct integer ids in [0, n), at least one, ``progress`` a bool (True:
    a tqdm bar on stderr counting the sources done; needs tqdm)."""
    what = "betweenness_centrality"
    A = check_matrix(A, what)
    normalized = check_bool(normalized, what, "normalized")
    if directed is not None:
        directed = check_bool(directed, what, "directed")
    batch_size = check_int(batch_size, what, "batch_size", 1)
    progress = check_bool(progress, what, "progress")
    n = A.nrows
    if sources is None:
        S = Vector(dtypes.BOOL, n, device=A.device)
        S.assign(True)
    else:                                                           # checks the range
        S = Vector.from_coo(sources, True, size=n, dup_op=binary.any, device=A.device)
        if S.nvals != len(sources) or S.nvals == 0:
            raise InvalidValue("betweenness_centrality: sources must be distinct vertex ids, "
                               f"at least one; got {len(sources)} ids, {S.nvals} distinct")
    src, k = S.to_coo()[0], S.nvals
    bc = Vector(dtypes.FP64, n, device=A.device)
    bc.assign(0.0)
    with progress_bar(k, what, progress) as bar:
        for start in range(0, k, batch_size):
            _accumulate(A, src[start:start + batch_size], bc)
            bar.update(min(batch_size, k - start))
    N = n - 1
    if N < 2:
        return bc
    K = k if k < n else N
    if not normalized and directed is None:
        directed = not Graph(A).is_symmetric_structure
    scale = 1 / (K * (N - 1)) if normalized else N / (K * (1 if directed else 2))
    bc = bc.apply(binary.times, right=scale)
    if k < n:                                                       # networkx's k-sample case
        bc.apply(binary.times, right=K / (K - 1) if K > 1 else math.nan, mask=S.S, out=bc)
    return bc


def _accumulate(A, batch, bc):
    """bc += sum over the sources in ``batch`` of delta_s (Brandes)."""
    k, n = batch.shape[0], A.nrows
    F = Matrix.from_coo(range(k), batch, 1.0, k, n, device=A.device)  # sigma on level 0
    P = F.dup()
    levels = [F]
    while True:
        F = F.mxm(A, semiring.plus_first, mask=~P.S)               # next level, path counts
        if F.nvals == 0:
            break
        P.ewise_add(F, binary.first, out=P)
        levels.append(F)
    W = levels[-1].apply(unary.minv)
    for d in range(len(levels) - 1, 1, -1):
        G = W.mxm(A.T, semiring.plus_first, mask=levels[d - 1].S)
        levels[d - 1].ewise_mult(G, binary.times).reduce_columnwise(
            monoid.plus, accum=binary.plus, out=bc)
        W = levels[d - 1].apply(unary.minv).ewise_add(G, binary.plus)
