"""Connected components of an undirected graph (FastSV).

Definition
----------
A is the symmetric adjacency matrix of an undirected graph (values ignored).
``label(v)`` = the smallest vertex id in the connected component of v, so
labels compare exactly with any reference.

FastSV (Zhang, Azad, Hu, "FastSV: a distributed-memory connected component
algorithm with fast convergence", SIAM PP 2020; LAGraph
``LAGr_ConnectedComponents``) keeps a parent vector f (initially f(v) = v)
and its grandparents gf = f(f).  Every step only lowers parents, so the root
of each final tree is its smallest vertex.  One iteration:

    mngf(u)   = min(gf(u), min_{v ~ u} gf(v))      mxv over (min, second)
    f(f(u))   = min(f(f(u)), mngf(u))              stochastic hooking
    f(u)      = min(f(u), mngf(u), gf(u))          aggressive hooking, shortcut
    gf        = f(f)                               extract(f)
    until gf does not change

f, gf and mngf are full (an entry at every vertex); f serves as an index
Vector (its values are positions), so no index array is built, and on
distributed vectors each worker reads only its own block of f and mngf.  The
stochastic hooking is a scatter-min,

    hook(p)   = min { mngf(u) : f(u) = p }         Vector.from_coo(f, mngf, dup_op=min)
    f         = min(f, hook)                       ewise_add

a build whose duplicates the framework combines by one unsorted scatter
(an atomic min per vertex on the GPU, one loop on the CPU): no sort and no
n x n matrix.  All three hookings only lower f and read the f of the
iteration's start, so their order does not matter.

Complexity: O(m + n) per iteration, O(log n) iterations in practice.
"""
from graphblast_py import Vector, binary, dtypes, indexunary, semiring
from graphblast_py.hints import GraphLike

from .triangle_count import check_undirected


def connected_components(A: GraphLike) -> Vector:
    """int64 Vector: label(v) = smallest vertex id in v's component."""
    A = check_undirected(A, "connected_components")
    n = A.nrows
    f = Vector(dtypes.INT64, n, device=A.device)
    f.assign(0)
    f = f.apply(indexunary.rowindex, thunk=0)                       # f(v) = v
    gf = f.dup()
    while True:
        mngf = gf.dup()
        A.mxv(gf, semiring.min_second, accum=binary.min, out=mngf)
        hook = Vector.from_coo(f, mngf, n, dup_op=binary.min)       # min over f(u) = p
        f.ewise_add(hook, binary.min, out=f)                         # stochastic hooking
        f.ewise_add(mngf, binary.min, out=f)                         # aggressive hooking
        f.ewise_add(gf, binary.min, out=f)                           # shortcutting
        gf_new = f.extract(f)                                        # gf = f(f)
        if gf_new.isequal(gf):
            return f
        gf = gf_new
