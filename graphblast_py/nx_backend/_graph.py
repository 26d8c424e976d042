"""The backend's graph object: adjacency Matrix + node labels."""
import numbers

import numpy as np

from .. import dtypes
from ..device import get_device
from ..matrix import Matrix

BACKEND_NAME = "graphblast"


class GraphblastGraph:
    """A networkx graph as graphblast_py sees it.

    ``nodes[k]`` is the label of vertex ``k`` (the order of ``list(G)``) and
    ``index`` maps labels back.  Edge ``u -> v`` is entry ``(index[u],
    index[v])``; an undirected edge is stored both ways (a self-loop once).
    The edge values of each converted attribute are kept as arrays beside the
    structure, and :meth:`matrix` builds (and caches) the Matrix a function
    needs: the structure (``attr=None``), or an attribute's values with
    parallel multigraph edges combined by ``dup`` ("plus" or "min").
    """

    __networkx_backend__ = BACKEND_NAME

    def __init__(self, nodes, rows, cols, values, *, directed, multigraph, graph_attrs=None):
        self.nodes = list(nodes)
        self.index = {u: k for k, u in enumerate(self.nodes)}
        self._rows = np.asarray(rows, dtype=np.int64)
        self._cols = np.asarray(cols, dtype=np.int64)
        # attr -> (float64 array aligned with rows/cols, all values integers?)
        self._values = dict(values)
        self._directed = bool(directed)
        self._multigraph = bool(multigraph)
        self.graph = dict(graph_attrs or {})
        self._cache = {}

    # -- the bits of the networkx graph API that the dispatcher and users touch
    def is_directed(self):
        return self._directed

    def is_multigraph(self):
        return self._multigraph

    def __len__(self):
        return len(self.nodes)

    def __iter__(self):
        return iter(self.nodes)

    def __contains__(self, u):
        try:
            return u in self.index
        except TypeError:
            return False

    def number_of_nodes(self):
        return len(self.nodes)

    def __repr__(self):
        kind = "directed" if self._directed else "undirected"
        return (f"GraphblastGraph({len(self.nodes)} nodes, {kind}, "
                f"attributes {sorted(map(repr, self._values))})")

    # -- matrices
    def has_values(self, attr):
        return attr in self._values

    def integral(self, attr):
        """True when every value of ``attr`` is an integer (networkx then
        returns integer sums)."""
        return attr is None or self._values[attr][1]

    def matrix(self, attr=None, dup=None):
        """The adjacency Matrix: the structure (``bool``) for ``attr=None,
        dup=None``; else float64 values, those of edge attribute ``attr`` (1 for
        ``attr=None``, so parallel edges count), parallel multigraph edges
        combined with ``dup`` ("plus" or "min").  Raises NotImplementedError
        when ``attr`` was not converted."""
        key = (attr, dup, get_device())           # built on the current default device
        if key not in self._cache:
            n = len(self.nodes)
            if attr is None and dup is None:
                M = Matrix.from_coo(self._rows, self._cols, True, n, n, dtype=dtypes.BOOL,
                                    dup_op="any")
            elif attr is None:
                M = Matrix.from_coo(self._rows, self._cols, 1.0, n, n, dtype=dtypes.FP64,
                                    dup_op=dup)
            else:
                if attr not in self._values:
                    raise NotImplementedError(
                        f"graphblast backend: edge attribute {attr!r} was not converted "
                        f"(converted: {sorted(map(repr, self._values))})")
                M = Matrix.from_coo(self._rows, self._cols, self._values[attr][0], n, n,
                                    dtype=dtypes.FP64, dup_op=dup)
            self._cache[key] = M
        return self._cache[key]

    # -- conversion
    @classmethod
    def from_networkx(cls, G, edge_attrs=None):
        """Convert networkx graph ``G``; ``edge_attrs`` maps attribute name ->
        default for edges without it (networkx's ``edge_attrs`` argument).
        Raises NotImplementedError for an attribute whose values are not real
        numbers (networkx then runs the function itself)."""
        nodes = list(G)
        index = {u: k for k, u in enumerate(nodes)}
        directed = G.is_directed()
        multigraph = G.is_multigraph()
        attrs = dict(edge_attrs or {})
        if multigraph:
            edges = list(G.edges(keys=False, data=True))
        else:
            edges = list(G.edges(data=True))
        m = len(edges)
        r = np.fromiter((index[u] for u, _, _ in edges), dtype=np.int64, count=m)
        c = np.fromiter((index[v] for _, v, _ in edges), dtype=np.int64, count=m)
        values = {}
        for attr, default in attrs.items():
            vals = [d.get(attr, default) for _, _, d in edges]
            if not all(isinstance(w, numbers.Real) for w in vals):
                raise NotImplementedError(
                    f"graphblast backend: edge attribute {attr!r} holds values that are not "
                    "real numbers")
            integral = all(isinstance(w, numbers.Integral) for w in vals)
            values[attr] = (np.asarray(vals, dtype=np.float64), integral)
        if not directed:                                 # store both directions
            off = r != c
            r, c = np.concatenate([r, c[off]]), np.concatenate([c, r[off]])
            values = {a: (np.concatenate([v, v[off]]), i) for a, (v, i) in values.items()}
        return cls(nodes, r, c, values, directed=directed, multigraph=multigraph,
                   graph_attrs=G.graph)

    def to_networkx(self):
        """networkx graph with the same nodes, edges and converted attributes."""
        import networkx as nx
        if self._multigraph:
            G = nx.MultiDiGraph() if self._directed else nx.MultiGraph()
        else:
            G = nx.DiGraph() if self._directed else nx.Graph()
        G.graph.update(self.graph)
        G.add_nodes_from(self.nodes)
        m = self._rows.shape[0]
        if not self._directed:
            # the first m0 entries are the edges as converted, the rest their reverses
            m = (m + int(np.count_nonzero(self._rows == self._cols))) // 2
        for k in range(m):
            data = {a: (int(v[k]) if i else float(v[k])) for a, (v, i) in self._values.items()}
            G.add_edge(self.nodes[self._rows[k]], self.nodes[self._cols[k]], **data)
        return G
