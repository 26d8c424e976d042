"""Array-namespace implementations shared by both backends.

Everything here is written against ``self.xp`` (NumPy on the CPU backend, CuPy
on the GPU backend): bulk, vectorized array expressions (gathers, scans,
sorts, searchsorted).  A backend subclass replaces any method with a faster
kernel behind the same signature -- numba loop kernels on the CPU, generated
CUDA kernels on the GPU -- so the object layer never knows which it got.

Conventions
-----------
* indices inside a computation are int64; stored column indices use the
  smallest index dtype that fits (``dtypes.index_dtype``).
* a *keys* array is a sorted, duplicate-free int64 array of linear positions
  (``i * ncols + j`` for a matrix, ``i`` for a vector).
* ``vals is None`` means "not read / iso" -- a kernel never touches it then.
* a semiring product between ``x`` (first operand) and ``y`` (second) is
  described by the output row ``r``, inner index ``c`` and output column: see
  :meth:`mult`.

The methods live in one module per concern, as mixins that this class
assembles: ``generic_sparse`` (CSR, keys, transposes), ``generic_ewise``
(operators on arrays), ``generic_reduce`` (reductions, sorted-key sets),
``generic_matvec`` (mxv/vxm push and pull, mxm, spmm), ``generic_tridiag``
(the Lanczos hook, tridiagonal eigenvalues) and ``generic_generators``
(random graphs).  This module keeps the array basics.
"""
import numpy as np

from ..errors import OutOfMemory
from .generic_ewise import EwiseMixin
from .generic_generators import GeneratorMixin
from .generic_matvec import MatVecMixin
from .generic_reduce import ReduceMixin
from .generic_sparse import SparseMixin
from .generic_spgemm import SpgemmMixin
from .generic_tridiag import TridiagMixin


class ArrayBackend(SparseMixin, EwiseMixin, ReduceMixin, MatVecMixin, SpgemmMixin,
                   TridiagMixin, GeneratorMixin):
    name = "generic"
    xp = np
    # user operators run here only with a CUDA C expression (the GPU backend)
    needs_cuda_expr = False
    # True where sizing a sparse result waits on the device (the GPU): vector
    # results then stay in the dense (bitmap) form, a whole-vector assign runs
    # on dense arrays, and push takes a dense frontier as it is
    dense_vectors = False

    # ------------------------------------------------------------ arrays
    def asarray(self, x, dtype=None):
        return self.xp.asarray(x, dtype=dtype)

    def to_host(self, a):
        return np.asarray(a)

    def empty(self, n, dtype):
        return self.xp.empty(n, dtype=dtype)

    def zeros(self, n, dtype):
        return self.xp.zeros(n, dtype=dtype)

    def full(self, n, value, dtype):
        return self.xp.full(n, value, dtype=dtype)

    def arange(self, n, dtype=np.int64):
        return self.xp.arange(n, dtype=dtype)

    def synchronize(self):
        """Wait until queued device work has finished (no-op on the CPU)."""

    def item(self, a):
        """A host scalar from a 0-d or 1-element device array (one sync)."""
        return self.to_host(a).reshape(-1)[0].item()

    def count_nonzero(self, a):
        return int(self.xp.count_nonzero(a))

    def masked_merge(self, m, z, zp, c, cp):
        """``(where(m, z, c), where(m, zp, cp))``: positions the bool mask
        ``m`` allows take ``z`` and its presence ``zp``, the others keep ``c``
        and ``cp`` (a presence None: every position present)."""
        xp = self.xp
        if zp is None:
            return xp.where(m, z, c), (None if cp is None else cp | m)
        return xp.where(m, z, c), xp.where(m, zp, cp if cp is not None else True)

    def cast(self, a, dtype):
        return a if a.dtype == dtype else a.astype(dtype)

    #: the duplicate operators :meth:`scatter_reduce` combines without sorting
    SCATTER_OPS = ("min", "max", "plus")

    def scatter_reduce(self, idx, vals, size, op):
        """Dense ``(values, presence)`` of length ``size``: ``values[i]`` is
        ``op`` (``"min"``, ``"max"`` or ``"plus"``) over the ``vals[k]`` with
        ``idx[k] == i``, presence where some ``idx[k] == i``; integer ``vals``
        (exact in any order: plus wraps as the sort path's does); ``idx`` in
        range.  An unsorted scatter (``ufunc.at``), no sort.  None where the
        backend has no scatter for this type (the caller sorts instead)."""
        out = self.xp.full(size, self._scatter_identity(vals.dtype, op), dtype=vals.dtype)
        out = self._scatter_at(op, out, idx, vals)
        if out is None:
            return None
        pres = self.xp.zeros(size, dtype=bool)
        pres[idx] = True
        return out, pres

    @staticmethod
    def _scatter_identity(dt, op):
        if op == "plus":
            return 0
        info = np.iinfo(dt)
        return info.max if op == "min" else info.min

    def _scatter_at(self, op, out, idx, vals):
        {"min": np.minimum, "max": np.maximum, "plus": np.add}[op].at(out, idx, vals)
        return out

    def check_alloc(self, nbytes, what):
        """Refuse absurd allocations before trying them."""
        if nbytes > self.max_alloc_bytes():
            raise OutOfMemory(f"{what} needs {nbytes / 2**30:.1f} GiB, more than the "
                              f"{self.max_alloc_bytes() / 2**30:.1f} GiB this {self.name} "
                              "device can provide")

    def free_bytes(self):
        """Memory available now, in bytes: MemAvailable of /proc/meminfo (or
        os.sysconf); None if unknown."""
        import os
        try:
            with open("/proc/meminfo") as f:
                for line in f:
                    if line.startswith("MemAvailable:"):
                        return int(line.split()[1]) * 1024
        except OSError:
            pass
        try:
            return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (ValueError, OSError, AttributeError):
            return None

    def device_name(self):
        """The processor's model name."""
        import platform
        try:
            with open("/proc/cpuinfo") as f:
                for line in f:
                    if line.lower().startswith("model name"):
                        return line.split(":", 1)[1].strip()
        except OSError:
            pass
        return platform.processor() or platform.machine()

    def max_alloc_bytes(self):
        try:
            import os
            return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (ValueError, OSError, AttributeError):  # pragma: no cover
            return 2**40
