"""Type aliases used in the public API's annotations (no runtime behaviour).

``GraphLike`` is what the algorithms accept: a :class:`Matrix`, a
:class:`Graph`, or what they convert (a SciPy or CuPy sparse matrix, a
networkx graph), the latter typed as ``Any`` so that neither SciPy, CuPy nor
networkx has to be imported to read the hints.
"""
from typing import Any, Sequence, Tuple, Union

import numpy as np

from .graph import Graph
from .matrix import Matrix
from .vector import Vector

GraphLike = Union[Matrix, Graph, Any]
VertexIds = Union[Sequence[int], np.ndarray]

__all__ = ["GraphLike", "VertexIds", "Matrix", "Vector", "Graph", "Tuple", "Union", "Any"]
