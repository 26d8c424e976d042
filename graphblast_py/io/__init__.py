"""Reading, writing and converting matrices: ``gb.io``.

* Matrix Market: :func:`mmread`, :func:`mmwrite`, :func:`mminfo`
* edge lists: :func:`read_edgelist`, :func:`write_edgelist`
* other libraries: :func:`from_scipy`/:func:`to_scipy` (SciPy and CuPy sparse),
  :func:`from_networkx`/:func:`to_networkx`, :func:`from_graphblas`/
  :func:`to_graphblas` (python-graphblas ``Matrix`` and ``Vector``)

See docs/io.md.  Parsing and formatting run on the host (NumPy); ``device=``
says where the resulting object lives.
"""
from .matrixmarket import mminfo, mmread, mmwrite

__all__ = ["mmread", "mmwrite", "mminfo"]
from .edgelist import read_edgelist, write_edgelist
from .convert import (from_graphblas, from_networkx, from_scipy, to_graphblas, to_networkx,
                      to_scipy)

__all__ += ["read_edgelist", "write_edgelist", "from_scipy", "to_scipy", "from_networkx",
            "to_networkx", "from_graphblas", "to_graphblas"]
