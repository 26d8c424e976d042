"""Graph algorithms written with the graphblast_py API (installed as graphblast_py.algorithms)."""
from .fglt import fglt  # noqa: F401
from .expm import expm_multiply, total_communicability  # noqa: F401
from .eigen import eigvalsh, tridiagonal_eigvalsh  # noqa: F401
from .betweenness import betweenness_centrality  # noqa: F401
from .bfs import bfs  # noqa: F401
from .connected_components import connected_components  # noqa: F401
from .pagerank import pagerank  # noqa: F401
from .sssp import sssp  # noqa: F401
from .triangle_count import triangle_count, triangles_per_vertex  # noqa: F401
