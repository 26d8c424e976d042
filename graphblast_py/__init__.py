"""graphblast-py: GraphBLAS-style graph algorithms on GPU (CuPy) and CPU (NumPy/SciPy/numba).

    import graphblast_py as gb
    A = gb.generators.kronecker(10, seed=1)
    levels = gb.algorithms.bfs(A, 0)
"""
from pathlib import Path as _Path

from . import dtypes, errors
from .device import get_device, set_device, using_device
from .errors import (ConvergenceError, DeviceMismatch, DeviceUnavailable, DimensionMismatch,
                     DomainMismatch, EmptyObject, GraphBLASError, IndexOutOfBound, InvalidIndex,
                     InvalidObject, InvalidValue, MatrixMarketError, MissingKernel, NegativeCycle, NoValue,
                     OutOfMemory, Overflow)
from .mask import Mask
from .matrix import Matrix
from .operators import (BinaryOp, IndexUnaryOp, Monoid, Semiring, UnaryOp, binary, indexunary,
                        monoid, semiring, unary)
from .vector import Vector
from .graph import Graph
from . import operations as _operations  # noqa: F401  (attaches the operation methods)
from . import oom as _oom
_oom.install(Matrix, Vector)   # out of memory inside an operation names the step
from .stats import stats

__version__ = "0.1.0"

# Running from a source checkout without installing: find ../algorithms as
# graphblast_py.algorithms (an install maps it there through package-dir).
_src_alg = _Path(__file__).resolve().parent.parent / "algorithms"
if not (_Path(__file__).resolve().parent / "algorithms").is_dir() and _src_alg.is_dir():
    __path__.append(str(_src_alg.parent))  # noqa: F821


def __getattr__(name):
    import importlib
    if name in ("algorithms", "io", "generators", "linalg"):
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'graphblast_py' has no attribute {name!r}")


__all__ = [
    "Matrix", "Vector", "Graph", "Mask", "UnaryOp", "BinaryOp", "IndexUnaryOp", "Monoid", "Semiring",
    "unary", "binary", "indexunary", "monoid", "semiring", "dtypes", "errors",
    "get_device", "set_device", "using_device", "stats",
    "GraphBLASError", "DimensionMismatch", "DomainMismatch", "InvalidValue", "InvalidIndex",
    "IndexOutOfBound", "DeviceMismatch", "DeviceUnavailable", "OutOfMemory",
    "MatrixMarketError", "NoValue", "MissingKernel", "ConvergenceError", "NegativeCycle",
    "EmptyObject", "Overflow", "InvalidObject", "algorithms", "linalg", "io", "generators",
]
