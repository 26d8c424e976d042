"""networkx dispatch backend ``"graphblast"``.

With graphblast-py installed, ``nx.pagerank(G, backend="graphblast")`` (or
``nx.config.backend_priority = ["graphblast"]``) runs the function with this
library's algorithms: the networkx graph is converted once to a
:class:`GraphblastGraph` (a graphblast_py adjacency :class:`~graphblast_py.Matrix`
plus the node list), the algorithm runs on the default device (the GPU when
there is one), and the result is mapped back to node labels in the type
networkx returns.

Calls this backend cannot answer exactly as networkx would (a
``personalization`` vector, a callable weight, a ``cutoff``, ...) are refused
by :meth:`BackendInterface.can_run`, so networkx runs them itself (with an
explicit ``backend="graphblast"`` networkx raises ``NotImplementedError``
naming the function instead).  docs/networkx.md lists what is served.
"""
from ._graph import GraphblastGraph
from ._interface import BackendInterface, get_info

__all__ = ["BackendInterface", "GraphblastGraph", "get_info"]
