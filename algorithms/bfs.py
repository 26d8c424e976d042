"""Breadth-first search: levels and (optionally) parents from one source.

Definition
----------
Edge i -> j is A[i, j] (a directed graph follows out-edges; an undirected one
is stored symmetric).  With the frontier f_0 = {source} and the visited set
v_d = f_0 + ... + f_d, one level is

    f_{d+1} = f_d A  <~v_d>        over the Boolean semiring (any, pair)

i.e. the vertices reachable by one out-edge from f_d that were never seen.
``level(u) = d`` for u in f_d; unreached vertices have no entry.  With the
``any_secondi`` semiring the product f_d(i) * A(i, j) is i itself, so each new
vertex j also gets a BFS parent: some i in f_d with A[i, j] (parent of the
source = the source).

GraphBLAS mapping and the GraphBLAST optimizations (Yang, Buluc, Owens,
"GraphBLAST", 2019/2022, Algorithm 11; LAGraph ``LAGr_BreadthFirstSearch``):
one ``vxm`` per level with the complemented structural mask ~visited.S and
replace, so the backend picks push (SpMSpV over the frontier) or pull (only
unvisited rows, stopping each at its first hit: early exit); ``any_pair`` and
``any_secondi`` never read the matrix values (structure only); and pull reads
the visited set instead of the frontier (operand reuse): for an unvisited j
every visited in-neighbour lies in the last frontier, so the result is the same.

Complexity: O(n + m) work in push (every edge is scanned at most once over
the whole search), fewer edges in pull thanks to early exit; one level is
2-3 framework calls, ``depth + 1`` levels in all.
"""
from graphblast_py import Vector, dtypes, semiring
from graphblast_py.checks import check_bool, check_matrix
from graphblast_py.indexing import check_index
from graphblast_py.hints import GraphLike, Tuple, Union


def bfs(A: GraphLike, source: int,
        parents: bool = False) -> Union[Vector, Tuple[Vector, Vector]]:
    """Levels (int64 Vector: source 0, unreached vertices absent) of a BFS
    from ``source`` along the out-edges of ``A``; with ``parents=True``
    returns ``(levels, parents)``, parents an int64 Vector (parent of the
    source = source).

    Unreached vertices have *no entry*: ``levels.to_dense()`` fills them with
    0, the level of the source, so pass a fill that cannot be a level, e.g.
    ``levels.to_dense(fill=-1)``.

    ``A``: a Matrix, gb.Graph, SciPy/CuPy sparse matrix or networkx graph
    (structure only).  Raises InvalidObject for any other ``A``,
    DimensionMismatch for a non-square matrix, InvalidIndex/IndexOutOfBound for
    a source that is not an integer in [0, n), InvalidObject for a non-bool
    ``parents``."""
    A = check_matrix(A, "bfs")
    n = A.nrows
    source = check_index(source, n, "bfs source")
    parents = check_bool(parents, "bfs", "parents")
    levels = Vector(dtypes.INT64, n, device=A.device)
    frontier = Vector.from_coo([source], source, size=n, dtype=dtypes.INT64, device=A.device)
    op = semiring.any_secondi if parents else semiring.any_pair
    parent = frontier.dup() if parents else None
    depth = 0
    while frontier.nvals:
        levels.assign(depth, mask=frontier.S)
        frontier.vxm(A, op, mask=~levels.S, replace=True, out=frontier, pull_input=levels)
        if parents:
            parent.assign(frontier, mask=frontier.S)
        depth += 1
    return (levels, parent) if parents else levels
