"""The object networkx loads for backend "graphblast" (entry point
``networkx.backends``) and its ``networkx.backend_info``."""
import collections.abc
import inspect
import math
import numbers

import numpy as np

from ..errors import ConvergenceError, NegativeCycle
from ._graph import BACKEND_NAME, GraphblastGraph

# what each served function refuses (networkx then runs it) -- also docs/networkx.md
_NOTES = {
    "pagerank": "personalization, nstart, dangling and callable weights fall back to "
                "networkx, as do negative, NaN or infinite weights",
    "single_source_shortest_path_length": "cutoff other than None falls back to networkx",
    "triangles": "served for nodes=None, one node, or an iterable of nodes",
    "connected_components": "undirected graphs (networkx rejects directed ones first)",
    "number_connected_components": "undirected graphs (networkx rejects directed ones first)",
    "betweenness_centrality": "weight and endpoints=True fall back to networkx; k uses "
                              "networkx's own sample of sources (seed)",
    "single_source_bellman_ford_path_length": "callable weights, NaN or infinite weights "
                                              "fall back to networkx",
    "single_source_dijkstra_path_length": "cutoff, callable weights, negative, NaN or "
                                          "infinite weights fall back to networkx",
    "is_connected": "undirected graphs (networkx rejects directed ones first)",
    "node_connected_component": "undirected graphs; a node not in the graph falls back to "
                                "networkx (which raises)",
}


def get_info():
    """``networkx.backend_info`` entry point: metadata for networkx's docs."""
    return {
        "backend_name": BACKEND_NAME,
        "project": "graphblast-py",
        "package": "graphblast_py",
        "url": "docs/networkx.md",
        "short_summary": "GraphBLAS-style linear algebra on the GPU (CuPy) or CPU (numba)",
        "functions": {name: {"additional_docs": note} for name, note in _NOTES.items()},
    }


def _nx():
    import networkx as nx
    return nx


def _weights_ok(G, weight, *, nonnegative):
    """Reason string when the edge weights of networkx graph ``G`` cannot be
    served (not real numbers, NaN/inf, negative when ``nonnegative``), else None."""
    if weight is None or isinstance(G, GraphblastGraph):
        return None
    edges = G.edges(keys=False, data=weight, default=1) if G.is_multigraph() else \
        G.edges(data=weight, default=1)
    for _, _, w in edges:
        if not isinstance(w, numbers.Real):
            return f"edge attribute {weight!r} holds a non-number {w!r}"
        if not math.isfinite(w):
            return f"edge attribute {weight!r} holds {w!r}"
        if nonnegative and w < 0:
            return f"edge attribute {weight!r} holds a negative value"
    return None


def _node_dict(G, vec, fill=None, conv=float):
    """{label: value} for the entries present in Vector ``vec`` (all vertices,
    ``fill`` for absent ones, when ``fill`` is not None)."""
    idx, vals = (np.asarray(x) for x in vec.to("cpu").to_coo())
    nodes = G.nodes
    if fill is not None:
        dense = [fill] * len(nodes)
        for i, v in zip(idx.tolist(), vals.tolist()):
            dense[i] = conv(v)
        return dict(zip(nodes, dense))
    return {nodes[i]: conv(v) for i, v in zip(idx.tolist(), vals.tolist())}


def _ordered_by_value(d):
    """The dict ``d`` re-ordered by value (BFS / distance order, as networkx's
    dicts come out roughly)."""
    return dict(sorted(d.items(), key=lambda kv: kv[1]))


class BackendInterface:
    """networkx backend "graphblast": conversions, ``can_run`` and the functions."""

    backend_name = BACKEND_NAME

    # ------------------------------------------------------------ conversions
    @staticmethod
    def convert_from_nx(G, edge_attrs=None, node_attrs=None, preserve_edge_attrs=False,
                        preserve_node_attrs=False, preserve_graph_attrs=False, name=None,
                        graph_name=None):
        if isinstance(G, GraphblastGraph):
            return G
        if preserve_edge_attrs is True:
            raise NotImplementedError("graphblast backend: converting every edge attribute "
                                      "is not supported")
        return GraphblastGraph.from_networkx(G, edge_attrs)

    @staticmethod
    def convert_to_nx(obj, *, name=None):
        if isinstance(obj, GraphblastGraph):
            return obj.to_networkx()
        return obj

    # ------------------------------------------------------------ dispatch policy
    @classmethod
    def can_run(cls, name, args, kwargs):
        """True, or a string saying why networkx should run ``name`` itself."""
        func = getattr(cls, name, None)
        if func is None:
            return f"{name} is not implemented by the graphblast backend"
        try:
            b = inspect.signature(func).bind(*args, **kwargs)
        except TypeError as e:
            return f"arguments not understood: {e}"
        b.apply_defaults()
        a = b.arguments
        G = a["G"]
        check = getattr(cls, "_can_" + name, None)
        return True if check is None else (check(G, a) or True)

    @staticmethod
    def should_run(name, args, kwargs):
        return True

    @staticmethod
    def _can_pagerank(G, a):
        for arg in ("personalization", "nstart", "dangling"):
            if a[arg] is not None:
                return f"{arg} is not supported"
        w = a["weight"]
        if w is not None and not isinstance(w, str):
            return "weight must be an attribute name or None"
        alpha, tol, it = a["alpha"], a["tol"], a["max_iter"]
        if not (isinstance(alpha, numbers.Real) and 0 <= alpha <= 1):
            return "alpha outside [0, 1]"
        if not (isinstance(tol, numbers.Real) and tol > 0 and math.isfinite(tol)):
            return "tol must be a positive number"
        if not (isinstance(it, numbers.Integral) and not isinstance(it, bool) and it >= 1):
            return "max_iter must be an integer >= 1"
        return _weights_ok(G, w, nonnegative=True)

    @staticmethod
    def _can_single_source_shortest_path_length(G, a):
        if a["cutoff"] is not None:
            return "cutoff is not supported"
        return None

    @staticmethod
    def _can_betweenness_centrality(G, a):
        if a["weight"] is not None:
            return "weighted betweenness is not supported"
        if a["endpoints"]:
            return "endpoints=True is not supported"
        if not isinstance(a["normalized"], bool):
            return "normalized must be a bool"
        k = a["k"]
        if k is not None and (not isinstance(k, numbers.Integral) or isinstance(k, bool)
                              or k < 1):
            return "k must be None or an integer >= 1"
        if k is not None and a["seed"] is not None and not hasattr(a["seed"], "sample"):
            return "seed must be a random.Random (networkx's py_random_state gives one)"
        return None

    @staticmethod
    def _can_triangles(G, a):
        nodes = a["nodes"]
        if nodes is None or nodes in G:
            return None
        if not isinstance(nodes, collections.abc.Collection):
            return "nodes must be None, a node or a collection of nodes"
        try:
            for v in nodes:
                hash(v)
        except TypeError:
            return "nodes holds an unhashable object"
        return None

    @staticmethod
    def _can_node_connected_component(G, a):
        return None if a["n"] in G else "the node is not in the graph"

    @staticmethod
    def _can_single_source_dijkstra_path_length(G, a):
        if a["cutoff"] is not None:
            return "cutoff is not supported"
        w = a["weight"]
        if w is not None and not isinstance(w, str):
            return "weight must be an attribute name or None"
        return _weights_ok(G, w, nonnegative=True)

    @staticmethod
    def _can_single_source_bellman_ford_path_length(G, a):
        w = a["weight"]
        if w is not None and not isinstance(w, str):
            return "weight must be an attribute name or None"
        return _weights_ok(G, w, nonnegative=False)

    # ------------------------------------------------------------ the functions
    @staticmethod
    def pagerank(G, alpha=0.85, personalization=None, max_iter=100, tol=1e-06, nstart=None,
                 weight="weight", dangling=None):
        from graphblast_py.algorithms import pagerank
        if len(G) == 0:
            return {}
        try:
            x = pagerank(G.matrix(weight, "plus"), damping=alpha, tol=tol, max_iter=max_iter)
        except ConvergenceError:
            raise _nx().PowerIterationFailedConvergence(max_iter) from None
        return _node_dict(G, x)

    @staticmethod
    def single_source_shortest_path_length(G, source, cutoff=None):
        from graphblast_py.algorithms import bfs
        if source not in G:
            raise _nx().NodeNotFound(f"Source {source} is not in G")
        levels = bfs(G.matrix(), G.index[source])
        return _ordered_by_value(_node_dict(G, levels, conv=int))

    @staticmethod
    def triangles(G, nodes=None):
        from graphblast_py.algorithms import triangles_per_vertex
        if len(G) == 0:
            t = []
        else:
            t = np.asarray(triangles_per_vertex(G.matrix()).to("cpu").to_dense()).tolist()
        if nodes is None:
            return dict(zip(G.nodes, t))
        if nodes in G:
            return t[G.index[nodes]]
        return {v: t[G.index[v]] for v in nodes if v in G}

    @staticmethod
    def connected_components(G):
        from graphblast_py.algorithms import connected_components
        if len(G) == 0:
            return (c for c in ())
        labels = np.asarray(connected_components(G.matrix()).to("cpu").to_dense())
        order = np.argsort(labels, kind="stable")
        cuts = np.flatnonzero(np.diff(labels[order])) + 1
        nodes = G.nodes
        comps = [{nodes[i] for i in part.tolist()} for part in np.split(order, cuts)]
        return (c for c in comps)

    @staticmethod
    def number_connected_components(G):
        from graphblast_py.algorithms import connected_components
        if len(G) == 0:
            return 0
        labels = np.asarray(connected_components(G.matrix()).to("cpu").to_dense())
        return int(np.unique(labels).shape[0])

    @staticmethod
    def is_connected(G):
        if len(G) == 0:
            raise _nx().NetworkXPointlessConcept("Connectivity is undefined for the null graph.")
        return BackendInterface.number_connected_components(G) == 1

    @staticmethod
    def node_connected_component(G, n):
        from graphblast_py.algorithms import bfs
        reached = bfs(G.matrix(), G.index[n])
        nodes = G.nodes
        return {nodes[i] for i in np.asarray(reached.to("cpu").to_coo()[0]).tolist()}

    @staticmethod
    def betweenness_centrality(G, k=None, normalized=True, weight=None, endpoints=False,
                               seed=None):
        from graphblast_py.algorithms import betweenness_centrality
        n = len(G)
        if n == 0:
            return {}
        sources = None
        if k is not None:
            if seed is None:                         # networkx's py_random_state(None)
                import random
                seed = random._inst
            # networkx: nodes = seed.sample(list(G.nodes()), k) -- the same draw
            sample = seed.sample(list(G.nodes), k)
            sources = [G.index[u] for u in sample]
        bc = betweenness_centrality(G.matrix(), sources=sources, normalized=normalized,
                                    directed=G.is_directed())
        return _node_dict(G, bc, fill=0.0)

    @staticmethod
    def single_source_bellman_ford_path_length(G, source, weight="weight"):
        nx = _nx()
        if source not in G:
            raise nx.NodeNotFound(f"Source {source} not in G")
        return _distances(G, source, weight)

    @staticmethod
    def single_source_dijkstra_path_length(G, source, cutoff=None, weight="weight"):
        if source not in G:
            raise _nx().NodeNotFound(f"Node {source} not found in graph")
        return _distances(G, source, weight)     # weights checked non-negative by can_run


def _distances(G, source, weight):
    """{label: shortest-path length from ``source``} (reachable vertices),
    weights = attribute ``weight`` (1 for None), parallel edges: the lightest."""
    from graphblast_py.algorithms import sssp
    try:
        dist = sssp(G.matrix(weight, "min"), G.index[source])
    except NegativeCycle:
        raise _nx().NetworkXUnbounded("Negative cycle detected.") from None
    conv = int if G.integral(weight) else float
    out = _ordered_by_value(_node_dict(G, dist, conv=conv))
    out[source] = 0                            # networkx starts from the int 0
    return out
