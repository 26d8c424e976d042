"""``Graph``: an adjacency Matrix with node labels and cached properties.

After LAGraph's ``LAGraph_Graph``: the graph *is* its adjacency matrix ``A``
(``A[i, j]`` present = an edge i -> j, the value its weight); a ``Graph`` adds

* ``labels`` -- optional node labels (``labels[k]`` names vertex ``k``), to
  map results back (:meth:`Graph.to_dict`, :meth:`Graph.index`);
* properties algorithms would otherwise recompute on every call: the
  transpose ``AT``, ``out_degree`` / ``in_degree``, whether the structure
  (and the values) are symmetric, the number of self-loops.

The properties are computed on first use and kept **on the matrix**
(``Matrix._cached``), which drops them whenever the matrix changes, so
``G.A[i, j] = x`` (or any other operation writing into ``G.A``) never leaves a
stale property behind.  Two ``Graph`` objects over the same Matrix share them;
an algorithm given a bare Matrix uses the same cache (``Graph(A)`` costs
nothing to build).
"""
import numpy as np

from . import dtypes
from .errors import DimensionMismatch, InvalidIndex, InvalidObject, InvalidValue
from .matrix import Matrix
from .operators import binary
from .results import DenseVectorResult
from .vector import Vector


def _typename(x):
    t = type(x)
    return t.__qualname__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


class Graph:
    """A graph: its square adjacency Matrix ``A`` plus optional node labels.

    Any algorithm of ``graphblast_py.algorithms`` accepts a ``Graph`` where it
    accepts a Matrix; results are indexed by vertex id, and :meth:`to_dict`
    maps a result Vector to ``{label: value}``.

    Parameters
    ----------
    A : Matrix
        Square adjacency matrix (kept, not copied: changes to ``A`` are
        changes to the graph, and the cached properties follow them).
    labels : sequence, optional
        ``A.nrows`` distinct hashable node labels; vertex ``k`` is
        ``labels[k]``.  ``None``: the vertices are their ids ``0..n-1``.
    """

    __slots__ = ("_A", "_labels", "_index")

    def __init__(self, A, labels=None):
        if not isinstance(A, Matrix):
            raise InvalidObject(f"Graph: A must be a graphblast_py Matrix, got {_typename(A)} "
                                "(use Graph.from_scipy or Graph.from_networkx to convert)")
        if A.nrows != A.ncols:
            raise DimensionMismatch(f"Graph: the adjacency matrix must be square, got "
                                    f"{A.nrows} x {A.ncols}")
        if labels is not None:
            if isinstance(labels, (str, bytes)) or not hasattr(labels, "__len__"):
                raise InvalidObject(f"Graph: labels must be a sequence of {A.nrows} node labels, "
                                    f"got {_typename(labels)}")
            labels = tuple(labels)
            if len(labels) != A.nrows:
                raise InvalidValue(f"Graph: {len(labels)} labels for a matrix of {A.nrows} "
                                   "vertices; give exactly one label per vertex")
            try:
                index = {}
                for k, lab in enumerate(labels):
                    if index.setdefault(lab, k) != k:
                        raise InvalidValue(f"Graph: label {lab!r} is given twice (vertices "
                                           f"{index[lab]} and {k}); labels must be distinct")
            except TypeError:
                raise InvalidObject(f"Graph: label {lab!r} (vertex {k}) is not hashable; "
                                    "labels must be hashable") from None
        self._A = A
        self._labels = labels
        self._index = None if labels is None else index

    # ------------------------------------------------------------ construction
    @classmethod
    def from_networkx(cls, G, weight="weight", *, dtype=None, device=None):
        """Graph of a networkx graph; its nodes (in ``list(G)`` order) become
        the labels.  ``weight``: the edge attribute giving the values (edges
        without it count 1, as in networkx); ``None`` keeps the structure only
        (an iso ``bool`` matrix).  Undirected graphs give a symmetric matrix;
        parallel edges of a multigraph are summed."""
        from .io.convert import from_networkx
        A = from_networkx(G, weight=weight, dtype=dtype, device=device)
        return cls(A, list(G))

    @classmethod
    def from_scipy(cls, S, labels=None, *, dtype=None, device=None):
        """Graph of a SciPy sparse matrix/array or a CuPy (cupyx) sparse
        matrix (see :meth:`Matrix.from_scipy`), with optional labels."""
        return cls(Matrix.from_scipy(S, dtype=dtype, device=device), labels)

    # ------------------------------------------------------------ contents
    @property
    def A(self):
        """The adjacency Matrix (the object itself, not a copy)."""
        return self._A

    @property
    def labels(self):
        """The node labels (a tuple), or ``None`` when vertices are their ids."""
        return self._labels

    @property
    def nvertices(self):
        return self._A.nrows

    @property
    def nedges(self):
        """Stored entries of ``A`` (an undirected edge counts twice, a
        self-loop once)."""
        return self._A.nvals

    @property
    def device(self):
        return self._A.device

    def label(self, k):
        """The label of vertex id ``k`` (``k`` itself without labels)."""
        n = self._A.nrows
        if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)):
            raise InvalidIndex(f"Graph.label: a vertex id must be an integer, got "
                               f"{_typename(k)} {k!r}")
        if not 0 <= k < n:
            raise InvalidIndex(f"Graph.label: vertex id {k} is outside [0, {n})")
        return int(k) if self._labels is None else self._labels[k]

    def index(self, label):
        """The vertex id of ``label`` (e.g. a ``source`` for bfs / sssp)."""
        if self._labels is None:
            return self.label(label)
        try:
            return self._index[label]
        except (KeyError, TypeError):
            raise InvalidValue(f"Graph.index: {label!r} is not a node label of this graph") \
                from None

    def to_dict(self, v):
        """``{label: value}`` for every stored entry of the Vector ``v`` (a
        result indexed by vertex id, e.g. ``pagerank(G)``); values as Python
        numbers.  Vertices without an entry (e.g. unreached by ``bfs``) are
        left out."""
        if not isinstance(v, Vector):
            raise InvalidObject(f"Graph.to_dict: expected a Vector, got {_typename(v)}")
        if v.size != self._A.nrows:
            raise DimensionMismatch(f"Graph.to_dict: the Vector has size {v.size}, the graph "
                                    f"{self._A.nrows} vertices")
        idx, vals = v.to("cpu").to_coo()
        idx, vals = np.asarray(idx).tolist(), np.asarray(vals).tolist()
        labels = self._labels
        if labels is None:
            return dict(zip(idx, vals))
        return {labels[i]: x for i, x in zip(idx, vals)}

    # ------------------------------------------------------------ cached properties
    @property
    def AT(self):
        """The transpose of ``A`` (cached; treat it as read-only)."""
        A = self._A
        return A._cached("transpose", lambda: A.T)

    @property
    def out_degree(self):
        """int64 Vector, every entry present: stored entries in each row."""
        A = self._A
        return A._cached("out_degree", lambda: _degree(A, rows=True))

    @property
    def in_degree(self):
        """int64 Vector, every entry present: stored entries in each column."""
        A = self._A
        return A._cached("in_degree", lambda: _degree(A, rows=False))

    @property
    def is_symmetric_structure(self):
        """Whether A[i, j] is stored exactly when A[j, i] is (values ignored):
        the graph is undirected."""
        A = self._A
        return A._cached("symmetric_structure",
                         lambda: A.ewise_mult(self.AT, binary.pair).nvals == A.nvals)

    @property
    def is_symmetric(self):
        """Whether ``A`` equals its transpose, values included."""
        A = self._A
        return A._cached("symmetric", lambda: A.isequal(self.AT))

    @property
    def nself_loops(self):
        """Number of stored diagonal entries."""
        A = self._A
        return A._cached("nself_loops", lambda: A.select("diag").nvals)

    def __repr__(self):
        lab = "" if self._labels is None else f", labels {list(self._labels[:3])}" + \
            ("..." if len(self._labels) > 3 else "")
        return (f"gb.Graph: {self.nvertices} vertices, {self.nedges} stored edges, "
                f"{self._A.dtype}, {self.device}{lab}")

    def __eq__(self, other):
        raise InvalidObject("== is not defined on Graph objects: compare G.A.isequal(H.A) "
                            "and the labels")

    __hash__ = None


def _degree(A, rows):
    """Stored entries of every row (column) of A: the differences of the
    line pointers (no product, no transpose), an int64 Vector with every
    entry present."""
    ptr = A._line_ptr(rows)
    d = Vector._new_empty(dtypes.INT64, A.nrows if rows else A.ncols, A._be)
    d._assign_result(DenseVectorResult((ptr[1:] - ptr[:-1]).astype(np.int64), None))
    return d
