"""Up-front checks of algorithm arguments.

Every algorithm validates its arguments before doing any work, with a message
naming the algorithm, the parameter, what was passed and what is accepted:
a wrong kind of object raises :class:`InvalidObject` (a ``TypeError``), a
value out of range :class:`InvalidValue`, a non-square matrix
:class:`DimensionMismatch`.
"""
import math
import numbers

import numpy as np

from .errors import DimensionMismatch, InvalidObject, InvalidValue


def _typename(x):
    t = type(x)
    mod = t.__module__
    return t.__qualname__ if mod in ("builtins", None) else f"{mod}.{t.__qualname__}"


def check_matrix(A, what, name="A", square=True, weighted=False):
    """The Matrix an algorithm works on, from what the user holds.

    Accepted: a graphblast_py ``Matrix`` (returned as is), a ``gb.Graph`` (its
    adjacency Matrix, with its cached properties), a SciPy sparse
    matrix/array (converted on the default device), a CuPy (cupyx) sparse
    matrix (converted on the GPU) or a networkx graph (vertex ``k`` =
    ``list(G)[k]``; ``weighted=True``, for algorithms that use the values,
    takes them from the edge attribute ``'weight'``, default 1, as networkx
    does; otherwise the structure only, an iso ``bool`` matrix).  Anything
    else raises :class:`InvalidObject`; a non-square matrix (unless
    ``square=False``) :class:`DimensionMismatch`.
    """
    from .matrix import Matrix
    if not isinstance(A, Matrix):
        A = _convert(A, what, name, weighted)
    if square and A.nrows != A.ncols:
        raise DimensionMismatch(f"{what}: {name} must be a square adjacency matrix, got "
                                f"{A.nrows} x {A.ncols}")
    return A


def _convert(A, what, name, weighted):
    from .graph import Graph
    from .matrix import Matrix
    if isinstance(A, Graph):
        return A.A
    mod = type(A).__module__ or ""
    if mod.startswith("networkx"):
        import networkx as nx
        if isinstance(A, nx.Graph):
            from .io.convert import from_networkx
            return from_networkx(A, weight="weight" if weighted else None)
    elif mod.startswith("scipy.sparse") and hasattr(A, "tocsr"):
        return Matrix.from_scipy(A)
    elif mod.startswith("cupyx.scipy.sparse") and hasattr(A, "tocsr"):
        return Matrix.from_scipy(A, device="gpu")
    hint = ""
    if mod.startswith("graphblas"):
        hint = " (convert it with gb.io.from_graphblas)"
    elif isinstance(A, np.ndarray):
        hint = " (convert it with gb.Matrix.from_dense)"
    raise InvalidObject(f"{what}: {name} must be a graphblast_py Matrix, a gb.Graph, a SciPy "
                        f"or CuPy sparse matrix or a networkx graph, got {_typename(A)}{hint}")


def check_real(x, what, name, lo=-math.inf, hi=math.inf, lo_open=False, hi_open=False):
    """A finite real number in the interval; returns it as float."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Real):
        raise InvalidObject(f"{what}: {name} must be a real number, got {_typename(x)} {x!r}")
    v = float(x)
    below = v <= lo if lo_open else v < lo
    above = v >= hi if hi_open else v > hi
    if not math.isfinite(v) or below or above:
        if hi == math.inf and lo == -math.inf:
            rng = ""
        elif hi == math.inf:
            rng = f" {'>' if lo_open else '>='} {lo:g}"
        else:
            rng = f" in {'(' if lo_open else '['}{lo:g}, {hi:g}{')' if hi_open else ']'}"
        raise InvalidValue(f"{what}: {name} must be a finite number{rng}, got {x!r}")
    return v


def check_int(x, what, name, lo=1):
    """An integer >= lo (bool refused); returns it as int."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Integral):
        raise InvalidObject(f"{what}: {name} must be an integer, got {_typename(x)} {x!r}")
    if x < lo:
        raise InvalidValue(f"{what}: {name} must be an integer >= {lo}, got {x!r}")
    return int(x)


def check_bool(x, what, name):
    if not isinstance(x, (bool, np.bool_)):
        raise InvalidObject(f"{what}: {name} must be True or False, got {_typename(x)} {x!r}")
    return bool(x)


def _first_bad(A, key, bad):
    """(row, column, value) of the first stored entry of ``bad()`` -- a
    Matrix of A's offending entries -- or None; the scan is kept with A
    under ``key`` until A changes, so repeated calls pay it once."""
    def find():
        B = bad()
        if not B.nvals:
            return None
        r, c, v = B.to_coo()
        return int(r[0]), int(c[0]), v[0].item()
    return A._cached(key, find)


def check_no_nan(A, what):
    """Refuse a float matrix holding NaN values (a NaN weight makes every
    comparison false: edges would be dropped silently)."""
    if A.dtype.kind != "f" or A.nvals == 0:
        return
    from .operators import binary
    # x != x only for NaN
    at = _first_bad(A, "first_nan", lambda: A.ewise_mult(A, binary.ne).select("==", True))
    if at is not None:
        raise InvalidValue(f"{what}: the weight A[{at[0]}, {at[1]}] is NaN; every "
                           "weight must be a number (remove or replace the NaN entries)")


def check_nonnegative(A, what):
    """Refuse NaN and negative values (weights that define no random walk)."""
    check_no_nan(A, what)
    if A.dtype.kind in "u" or A.dtype.kind == "b" or A.nvals == 0:
        return
    at = _first_bad(A, "first_negative", lambda: A.select("<", 0))
    if at is not None:
        raise InvalidValue(f"{what}: the weight A[{at[0]}, {at[1]}] = {at[2]!r} is "
                           "negative; the weights must be non-negative")
