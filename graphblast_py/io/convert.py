"""Conversions to and from SciPy, networkx and python-graphblas.

networkx and python-graphblas are imported only when a function needs them;
a missing package raises ``ImportError`` saying what to install.
"""
import numpy as np

from .. import dtypes
from ..errors import DimensionMismatch, DomainMismatch, InvalidValue
from ..matrix import Matrix
from ..vector import Vector

__all__ = ["from_scipy", "to_scipy", "from_networkx", "to_networkx", "from_graphblas",
           "to_graphblas"]


def _require(module, package, what):
    import importlib
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ImportError(f"{what} needs {package}, which is not installed "
                          f"(pip install {package}): {e}") from None


# ---------------------------------------------------------------- SciPy
def from_scipy(S, *, dtype=None, device=None):
    """Matrix from a SciPy sparse matrix/array or a CuPy (cupyx) sparse matrix
    (same as :meth:`Matrix.from_scipy`)."""
    return Matrix.from_scipy(S, dtype=dtype, device=device)


def to_scipy(A):
    """SciPy CSR matrix (CPU objects) or cupyx CSR matrix (GPU objects)."""
    if not isinstance(A, Matrix):
        raise InvalidValue(f"to_scipy: expected a graphblast_py Matrix, got {type(A).__name__}")
    return A.to_scipy()


# ---------------------------------------------------------------- networkx
def from_networkx(G, weight="weight", *, dtype=None, nodelist=None, device=None):
    """Adjacency matrix of a networkx graph.

    Vertex ``k`` is ``nodelist[k]`` (default ``list(G)``).  ``weight``: the
    edge attribute holding the value (edges without it count 1); ``None``
    gives an iso ``bool`` matrix of the structure.  Undirected graphs give a
    symmetric matrix; parallel edges of a multigraph are summed (networkx's
    ``to_scipy_sparse_array``).
    """
    nx = _require("networkx", "networkx", "from_networkx")
    if not isinstance(G, nx.Graph):
        raise InvalidValue(f"from_networkx: expected a networkx graph, got {type(G).__name__}")
    if nodelist is not None:
        nodelist = list(nodelist)
        if len(set(nodelist)) != len(nodelist):
            raise InvalidValue("from_networkx: nodelist contains a node more than once")
        missing = [u for u in nodelist if u not in G]
        if missing:
            raise InvalidValue(f"from_networkx: nodelist node {missing[0]!r} is not in the graph")
    n = len(G) if nodelist is None else len(nodelist)
    if n == 0:
        return Matrix(dtypes.lookup(dtype) if dtype is not None else dtypes.BOOL, 0, 0,
                      device=device)
    try:
        S = nx.to_scipy_sparse_array(G, nodelist=nodelist, weight=weight, format="coo")
    except (TypeError, ValueError) as e:
        raise DomainMismatch(_bad_weight(G, weight, e)) from None
    r, c = S.row.astype(np.int64), S.col.astype(np.int64)
    if weight is None:
        dt = dtypes.lookup(dtype) if dtype is not None else dtypes.BOOL
        return Matrix.from_coo(r, c, dt.type(True), n, n, dtype=dt, dup_op="any", device=device)
    vals = np.asarray(S.data)
    if vals.dtype.kind not in "biuf":
        raise DomainMismatch(f"from_networkx: edge attribute {weight!r} gives values of type "
                             f"{vals.dtype}; expected numbers")
    return Matrix.from_coo(r, c, vals, n, n, dtype=dtype, dup_op="plus", device=device)


def _bad_weight(G, weight, e):
    """Message naming the first edge whose ``weight`` attribute is not a number."""
    for u, v, w in G.edges(data=weight, default=1):
        if not isinstance(w, (bool, int, float, np.number)):
            return (f"from_networkx: edge ({u!r}, {v!r}) has {weight}={w!r} "
                    f"({type(w).__name__}); edge attribute {weight!r} must hold numbers")
    return f"from_networkx: cannot build the adjacency matrix from attribute {weight!r}: {e}"


def to_networkx(A, *, directed="auto", weight="weight", nodelist=None):
    """networkx graph with the entries of ``A`` as edges.

    ``directed``: ``True`` (DiGraph), ``False`` (Graph; ``A`` must be
    symmetric) or ``"auto"`` (Graph when ``A`` is symmetric, else DiGraph).
    Each edge gets the value as attribute ``weight``, except for a ``bool``
    matrix whose values are all ``True`` (a plain graph).  Nodes are
    ``0..n-1`` or the entries of ``nodelist``; every node is added, isolated
    ones included.
    """
    nx = _require("networkx", "networkx", "to_networkx")
    if not isinstance(A, Matrix):
        raise InvalidValue(f"to_networkx: expected a graphblast_py Matrix, got "
                           f"{type(A).__name__}")
    if A.nrows != A.ncols:
        raise DimensionMismatch(f"to_networkx: an adjacency matrix must be square, got "
                                f"{A.nrows} x {A.ncols}")
    if directed not in (True, False, "auto"):
        raise InvalidValue(f"to_networkx: directed must be True, False or 'auto', got "
                           f"{directed!r}")
    r, c, v = (np.asarray(x) for x in A.to("cpu").to_coo())
    plain = A.dtype == dtypes.BOOL and bool(np.all(v))
    if directed != True:  # noqa: E712 - 'auto' or False
        from .matrixmarket import _holds_coo
        sym = _holds_coo("symmetric", r.astype(np.int64), c.astype(np.int64), v, A.shape,
                         A.dtype, plain)
        if directed is False and not sym:
            raise InvalidValue("to_networkx: directed=False needs a symmetric matrix; use "
                               "directed=True or 'auto'")
        directed = not sym
    G = nx.DiGraph() if directed else nx.Graph()
    n = A.nrows
    if not directed:
        keep = r <= c
        r, c, v = r[keep], c[keep], v[keep]
    if nodelist is not None:
        nodelist = list(nodelist)
        if len(nodelist) != n:
            raise DimensionMismatch(f"to_networkx: nodelist has {len(nodelist)} nodes, the "
                                    f"matrix {n}")
        names = np.empty(n, dtype=object)
        names[:] = nodelist
        G.add_nodes_from(nodelist)
        ru, cu = names[r].tolist(), names[c].tolist()
    else:
        G.add_nodes_from(range(n))
        ru, cu = r.tolist(), c.tolist()
    if plain:
        G.add_edges_from(zip(ru, cu))
    else:
        G.add_weighted_edges_from(zip(ru, cu, v.tolist()), weight=weight)
    return G


# ---------------------------------------------------------------- python-graphblas
def _is_graphblas(obj, kind):
    mod = type(obj).__module__ or ""
    return mod.startswith("graphblas") and type(obj).__name__ in kind


def from_graphblas(M, *, dtype=None, device=None):
    """Matrix or Vector from a python-graphblas ``Matrix`` or ``Vector`` (an iso
    graphblas object gives an iso Matrix)."""
    if _is_graphblas(M, ("TransposedMatrix",)):
        M = M.new()
    if _is_graphblas(M, ("Matrix",)):
        _require("graphblas", "python-graphblas", "from_graphblas")
        r, c, v = M.to_coo()
        dt = _gb_dtype(M, dtype)
        iso = v.shape[0] > 0 and _gb_iso(M)
        vals = dt.type(v[0]) if iso else v
        return Matrix.from_coo(r.astype(np.int64), c.astype(np.int64), vals, M.nrows, M.ncols,
                               dtype=dt, device=device)
    if _is_graphblas(M, ("Vector",)):
        _require("graphblas", "python-graphblas", "from_graphblas")
        i, v = M.to_coo()
        dt = _gb_dtype(M, dtype)
        return Vector.from_coo(i.astype(np.int64), v, M.size, dtype=dt, device=device)
    raise InvalidValue(f"from_graphblas: expected a graphblas Matrix or Vector, got "
                       f"{type(M).__module__}.{type(M).__name__}")


def _gb_iso(M):
    try:
        return bool(M.ss.is_iso)
    except Exception:  # noqa: BLE001 - not SuiteSparse:GraphBLAS: no iso information
        return False


def _gb_dtype(M, dtype):
    if dtype is not None:
        return dtypes.lookup(dtype)
    np_type = getattr(M.dtype, "np_type", None)
    try:
        return dtypes.lookup(np_type)
    except (DomainMismatch, TypeError):
        raise DomainMismatch(f"from_graphblas: graphblas type {M.dtype} is not supported "
                             "(bool, int8..uint64, float32, float64)") from None


def to_graphblas(A):
    """python-graphblas ``Matrix`` (from a Matrix; iso stays iso) or
    ``Vector`` (from a Vector)."""
    gbl = _require("graphblas", "python-graphblas", "to_graphblas")
    if isinstance(A, Matrix):
        H = A.to("cpu")
        r, c, v = (np.asarray(x) for x in H.to_coo())
        if H.nvals and H.iso:
            vals = v[0].item()
        else:
            vals = v
        return gbl.Matrix.from_coo(r, c, vals, nrows=A.nrows, ncols=A.ncols,
                                   dtype=A.dtype.name)
    if isinstance(A, Vector):
        i, v = (np.asarray(x) for x in A.to("cpu").to_coo())
        return gbl.Vector.from_coo(i, v, size=A.size, dtype=A.dtype.name)
    raise InvalidValue(f"to_graphblas: expected a graphblast_py Matrix or Vector, got "
                       f"{type(A).__name__}")
