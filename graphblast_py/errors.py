"""The exception hierarchy.

Every error the framework raises on purpose is a :class:`GraphBLASError`; most
are also a subclass of the built-in exception a Python user would expect
(``ValueError``, ``IndexError``, ``TypeError``, ``MemoryError``), so plain
``except ValueError`` still works.  Errors are raised before any output is
written: an operation that fails leaves its ``out`` argument untouched.
"""

__all__ = [
    "GraphBLASError", "DimensionMismatch", "DomainMismatch", "InvalidValue",
    "InvalidIndex", "IndexOutOfBound", "DeviceMismatch", "DeviceUnavailable",
    "OutOfMemory", "MatrixMarketError", "NoValue", "MissingKernel",
    "ConvergenceError", "NegativeCycle", "EmptyObject", "Overflow", "InvalidObject",
]


class GraphBLASError(Exception):
    """Base class of every error raised by graphblast_py."""


class DimensionMismatch(GraphBLASError, ValueError):
    """Shapes of the operands (or of the output or mask) do not agree."""


class DomainMismatch(GraphBLASError, TypeError):
    """A dtype is not supported, or an operator cannot be used on that dtype."""


class InvalidValue(GraphBLASError, ValueError):
    """An argument has a value outside its allowed set."""


class InvalidObject(GraphBLASError, TypeError):
    """An argument is not the kind of object expected, e.g. a networkx graph or
    a SciPy matrix where a graphblast_py Matrix is needed; the message names the
    type that was passed."""


class InvalidIndex(GraphBLASError, IndexError):
    """An index is negative, not an integer, or otherwise malformed."""


class IndexOutOfBound(InvalidIndex):
    """An index is outside ``[0, size)``."""


class DeviceMismatch(GraphBLASError, ValueError):
    """Objects on different devices were mixed in one call."""


class DeviceUnavailable(GraphBLASError, RuntimeError):
    """The requested device (e.g. ``"gpu"``) cannot be used on this machine."""


class OutOfMemory(GraphBLASError, MemoryError):
    """An allocation would not fit (checked before allocating where possible)."""

    def __reduce__(self):
        # rebuilt by calling the class: tblib (Dask's traceback pickling) would
        # call MemoryError.__new__(OutOfMemory), which Python refuses, and the
        # worker's out-of-memory error would reach the client as a TypeError
        return (_rebuild, (type(self), self.args), self.__dict__ or None)


def _rebuild(cls, args):
    return cls(*args)


class MatrixMarketError(GraphBLASError, ValueError):
    """A Matrix Market file is malformed; the message names the line."""


class NoValue(GraphBLASError, KeyError):
    """The requested element is not stored (GrB_NO_VALUE)."""

    def __str__(self):  # KeyError quotes its argument; keep the message readable
        return str(self.args[0]) if self.args else "no value"


class MissingKernel(GraphBLASError, TypeError):
    """A user-defined operator has no implementation for the object's device
    (e.g. no CUDA expression for a GPU object)."""


class ConvergenceError(GraphBLASError, ArithmeticError):
    """An iterative algorithm did not converge within its iteration limit."""


class Overflow(GraphBLASError, OverflowError):
    """A result is too large for its dtype (e.g. e^{tA}x beyond float64: ask for
    the scaled result, ``return_log_scale=True``)."""


class NegativeCycle(GraphBLASError, ValueError):
    """A negative-weight cycle is reachable from the source."""


class EmptyObject(GraphBLASError, ValueError):
    """An operation needs at least one stored value and found none."""


class AccuracyWarning(UserWarning):
    """A result was returned without reaching its stated accuracy (e.g.
    ``expm_multiply`` with a fixed ``krylov_dim`` too small for ``tol``); the
    message says how many entries it concerns and the estimated error."""
