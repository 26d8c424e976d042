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
from ..results import SparseResult
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
    # element-wise operations on vectors under a sparse structural mask are
    # computed at the mask's positions only (operations/ewise.py
    # ``_mask_first``)
    ewise_mask_first = True
    # apply of an index-unary operator to a dense vector gives a dense result
    # over all positions (operations/apply.py)
    dense_index_apply = True
    # traversal speculation (operations/speculate.py): a backend with a
    # whole-traversal kernel (``traverse``) sets ``speculate``; set it False
    # (on the class or the instance, ``gb.backend.get("cpu")``) to take one
    # ordinary call per BFS level.  ``speculate_capacity``: a traversal stops
    # after a level of more vertices (the ordinary push/pull takes over);
    # ``speculate_levels``: at most this many levels per traversal
    speculate = False
    speculate_capacity = 1 << 16
    speculate_levels = 1 << 20
    # ``speculate_wide``: a continuing call on a *big* frontier (a power-law
    # graph's middle levels) runs the rest of the traversal in
    # ``traverse_wide`` (level by level, no framework call between levels);
    # off, such a call takes the ordinary path
    speculate_wide = False
    # round speculation (operations/relax.py): a backend with a whole-run
    # kernel for frontier Bellman-Ford rounds (``relax_rounds``) sets
    # ``relax``; False takes the four ordinary calls of every SSSP round.
    # ``relax_limit``: at most this many rounds per kernel run
    relax = False
    relax_limit = 1 << 20

    def traverse_wide(self, push_P, pull_P, frontier, visited, max_levels, parents=False,
                      count=None):
        """Every later level of a plain BFS from ``frontier`` (a vector's
        ``_view()``) outside ``visited`` (bool over the vertices, not
        changed), at most ``max_levels``: ``(order, offsets, complete,
        parents or None)`` as ``traverse`` returns them, except that each
        level's vertices may come in any order (the parents aligned with
        them).  ``count``: the frontier's number of entries when the caller
        knows it (None: unknown; a backend may then read it).  ``push_P``:
        ``(indptr, indices)`` listing the vertices each vertex reaches;
        ``pull_P`` the same for the reverse edges (a backend that looks
        bottom-up reads it).  Here: level by level with array operations
        (the frontier's out-edges gathered, the unvisited heads kept once,
        each with the first frontier vertex that reached it), one host read
        a level."""
        xp = self.xp
        ip, ix = push_P
        n = visited.shape[0]
        i64 = np.int64
        vis = xp.array(visited, dtype=bool, copy=True)
        if isinstance(frontier, SparseResult):
            f = frontier.keys.astype(i64)
        elif frontier.present is None:
            f = xp.arange(n, dtype=i64)
        else:
            f = xp.flatnonzero(frontier.present).astype(i64)
        ip = ip.astype(i64)
        orders, pars, offsets, complete = [], [], [0], False
        while len(offsets) <= max_levels:
            starts = ip[f]
            lens = ip[f + 1] - starts
            ends = xp.cumsum(lens)
            total = int(ends[-1]) if ends.shape[0] else 0
            if total == 0:
                complete = True
                break
            at = xp.arange(total, dtype=i64)
            row = xp.searchsorted(ends, at, side="right")       # the frontier entry of each edge
            heads = ix[starts[row] + (at - (ends[row] - lens[row]))].astype(i64)
            keep = ~vis[heads]
            heads, row = heads[keep], row[keep]
            new, first = xp.unique(heads, return_index=True)
            if new.shape[0] == 0:
                complete = True
                break
            vis[new] = True
            orders.append(new)
            if parents:
                pars.append(f[row[first]])
            offsets.append(offsets[-1] + int(new.shape[0]))
            f = new
        order = xp.concatenate(orders) if orders else xp.zeros(0, dtype=i64)
        par = (xp.concatenate(pars) if pars else xp.zeros(0, dtype=i64)) if parents else None
        return order, np.asarray(offsets, dtype=i64), complete, par

    def relax_rounds(self, P, semiring, out_dtype, a_iso, swap, frontier, dist, default, small,
                     max_rounds):
        """The rounds of the frontier Bellman-Ford recurrence after
        ``frontier`` (see operations/relax.py); None where this backend has
        no kernel for them."""
        return None

    # ------------------------------------------------------------ arrays
    def asarray(self, x, dtype=None):
        return self.xp.asarray(x, dtype=dtype)

    def to_host(self, a):
        return np.asarray(a)

    def asarrays(self, arrays):
        """``[asarray(a) for a in arrays]`` for host (NumPy) arrays; a device
        backend may move them in one transfer (their data never shared with
        the caller's arrays when it does)."""
        return [self.asarray(a) for a in arrays]

    def empty(self, n, dtype):
        return self.xp.empty(n, dtype=dtype)

    def zeros(self, n, dtype):
        return self.xp.zeros(n, dtype=dtype)

    def full(self, n, value, dtype):
        return self.xp.full(n, value, dtype=dtype)

    def arange(self, n, dtype=np.int64):
        return self.xp.arange(n, dtype=dtype)

    def one_entry(self, i, value, dtype):
        """The arrays of a one-entry sparse vector: ``([i]`` as int64,
        ``[value]`` in ``dtype)``; ``value`` is already of ``dtype`` (a
        traversal's source, ``Vector.from_coo``)."""
        return self.full(1, i, np.int64), self.full(1, value, dtype)

    def synchronize(self):
        """Wait until queued device work has finished (no-op on the CPU)."""

    def item(self, a):
        """A host scalar from a 0-d or 1-element device array (one sync)."""
        return self.to_host(a).reshape(-1)[0].item()

    def count_nonzero(self, a):
        return int(self.xp.count_nonzero(a))

    def known_all_zero(self, a):
        """True when every entry of ``a`` is zero and that is known without
        waiting on a device; False otherwise (a GPU answers False rather
        than stop the host for the read: FGLT drops C = A ∘ A² of a graph
        without triangles only where the test is free)."""
        return not bool(self.xp.any(a))

    def compare_at(self, op, va, keys, dv, dp, default, swap):
        """The predefined comparison ``op`` of ``va[i]`` (values at the
        sorted ``keys``) with a dense operand there (``dv``, presence ``dp``
        or None; ``default`` where it has no entry), operands swapped with
        ``swap``, as a bool array in one pass where the backend has one
        (CPU: operands of one type); None here (the caller gathers and
        compares)."""
        return None

    def compress_truthy(self, keys, vals, flags):
        """``(keys[t], vals[t])`` as new arrays, ``t`` where ``flags`` (any
        numeric type; aligned with ``keys``) is nonzero (NaN counts), in
        one pass where the backend has one (CPU); None here (the caller
        selects with a bool array)."""
        return None

    def take_checked(self, src, idx):
        """``src[idx]`` as a new array when every index is in ``[0,
        len(src))``, checked in the same pass where the backend has one
        (CPU); None otherwise (an index out of range, or no such pass: the
        caller checks and gathers as usual)."""
        return None

    def minmax_into(self, op, x, y, p, out_dtype, dst):
        """``where(p, op(x, y), x)`` (``p`` None: ``op(x, y)`` everywhere)
        in ``out_dtype`` for the predefined ``min``/``max``, written into
        ``dst`` (an array of ``out_dtype`` that may be ``x`` or ``y``
        itself; None: a new array) in one pass where the backend has one
        (CPU: integers of one type), returning the array; None here (the
        caller takes its ordinary path)."""
        return None

    def dense_sparse_mm(self, avals, apres, B, ncols, semiring, out_dtype):
        """A dense A (2-D values, presence or None) times a CSR ``B`` (of
        ``ncols`` columns) as
        ``(values, presence or None)``, where the backend has a kernel (CPU);
        None here (the caller converts A to CSR and takes saxpy)."""
        return None

    def pull_accum(self, R, xvals, semiring, accum, swap, old, own, cache=None, a_iso=None):
        """``accum(old, A (+).(x) x)`` for a full output ``old`` and a full
        input ``xvals`` as one kernel writing the output directly, where the
        backend has one (CPU: min/max semirings whose multiply returns x's
        value, on integers); None here (the ordinary product and the output
        rule).  ``cache``: a dict that lives as long as R's matrix (or
        None), as for :meth:`pull`; ``a_iso``: the value of every entry of
        an iso R (which then comes without values), as for :meth:`pull`."""
        return None

    def masked_merge(self, m, z, zp, c, cp):
        """``(where(m, z, c), where(m, zp, cp))``: positions the bool mask
        ``m`` allows take ``z`` and its presence ``zp``, the others keep ``c``
        and ``cp`` (a presence None: every position present)."""
        xp = self.xp
        if zp is None:
            return xp.where(m, z, c), (None if cp is None else cp | m)
        return xp.where(m, z, c), xp.where(m, zp, cp if cp is not None else True)

    def fill_at(self, vals, pres, keys, s, starts=None):
        """In place: the distinct positions ``keys`` take the scalar ``s`` in
        ``vals`` and become present in ``pres``.  With ``starts`` (host int64,
        ``starts[0] = 0``, ``starts[-1] = len(keys)``) ``s`` holds one scalar
        per segment: ``keys[starts[j]:starts[j + 1]]`` take ``s[j]``."""
        if starts is None:
            vals[keys] = s
        else:
            vals[keys] = self.xp.repeat(self.asarray(s), self.asarray(np.diff(starts)))
        pres[keys] = True

    def copy_at(self, vals, pres, keys, src, last=False):
        """In place: the distinct positions ``keys`` take ``src`` (aligned
        with ``keys``, of ``vals``' type) in ``vals`` and become present in
        ``pres``.  ``last``: ``keys`` may repeat, and a position takes the
        value of its last occurrence (a fancy-indexed store leaves the
        winner unspecified)."""
        if last and keys.shape[0] > 1:
            keys, src = self._last_occurrences(keys, src)
        vals[keys] = src
        pres[keys] = True

    def _last_occurrences(self, keys, src):
        """``(keys, src)`` with only the last occurrence of each key kept
        (one sort)."""
        xp = self.xp
        m = keys.shape[0]
        _, first = xp.unique(keys[::-1], return_index=True)
        at = (m - 1) - first
        return keys[at], src[at]

    def minmax(self, a):
        """``(min, max)`` of a non-empty integer array, as Python ints."""
        return int(a.min()), int(a.max())

    def all_equal(self, a, b):
        """``all(a == b)`` of two 1-D arrays of one type as a bool, stopping
        at the first block that differs; None where this backend has no
        such pass (the caller compares every position)."""
        return None

    def put_missing(self, out, pres, s):
        """In place: ``out[~pres] = s`` (``s`` a NumPy scalar of out's type)."""
        out[~pres] = s

    def assign_where(self, vals, pres, m, s):
        """In place: ``vals[m] = s`` and ``pres |= m`` (``m`` a bool array
        over the positions, ``s`` a scalar of ``vals``' type; ``m`` may be
        ``pres`` itself).  Nothing waits on the device."""
        xp = self.xp
        xp.copyto(vals, s, where=m)
        xp.bitwise_or(pres, m, out=pres)

    def copy_where(self, vals, pres, m, src):
        """In place: ``vals[m] = src[m]`` and ``pres |= m`` (``m`` a bool
        array over the positions, ``src`` an array of ``vals``' type and
        length; neither is ``vals`` or ``pres``).  Nothing waits on the
        device.  (:meth:`assign_where`'s ``copyto`` takes an array as well
        as a scalar: the same two steps.)"""
        ArrayBackend.assign_where(self, vals, pres, m, src)

    def cast(self, a, dtype):
        return a if a.dtype == dtype else a.astype(dtype)

    #: the duplicate operators :meth:`scatter_reduce` may combine without sorting
    #: (see :meth:`scatter_kind` for which result types)
    SCATTER_OPS = ("min", "max", "plus", "lor", "land")

    @staticmethod
    def scatter_kind(op, dtype):
        """The scatter (``"min"``, ``"max"`` or ``"plus"``) that gives exactly
        what the sort path gives for duplicate operator ``op`` (a BinaryOp)
        in result type ``dtype``, in any order of the duplicates; None where
        there is none (the caller sorts).

        * integers: min, max, plus (plus wraps as the sort path's sum does:
          two's complement addition is exact in any order);
        * bool: min and land are "and" (min), max, lor and plus are "or" (max);
        * floats: min and max (``fmin``/``fmax``: a NaN loses, only all-NaN
          gives NaN, in any order; which zero ``min(-0.0, 0.0)`` gives may
          differ, as docs/operations.md allows).  A float plus depends on the
          order of the additions, so it keeps the sort path."""
        if op is None or op.is_user or op.name not in ArrayBackend.SCATTER_OPS:
            return None
        kind = np.dtype(dtype).kind
        name = op.name
        if kind == "b":
            return "min" if name in ("min", "land") else "max"
        if name in ("lor", "land"):
            return None
        if kind in "iu" or (kind == "f" and name != "plus"):
            return name
        return None

    @staticmethod
    def _scatter_fill(dt, op):
        """The start value of every position of a scatter: the identity of
        ``op`` in ``dt``, except NaN for a float min/max (``fmin(NaN, v) = v``
        for every v, and a position whose values are all NaN stays NaN)."""
        dt = np.dtype(dt)
        if op == "plus":
            return dt.type(0)
        if dt.kind == "b":
            return op == "min"
        if dt.kind == "f":
            return dt.type(np.nan)
        info = np.iinfo(dt)
        return dt.type(info.max if op == "min" else info.min)

    def scatter_reduce(self, idx, vals, size, op):
        """Dense ``(values, presence)`` of length ``size``: ``values[i]`` is
        ``op`` (``"min"``, ``"max"`` or ``"plus"``, as :meth:`scatter_kind`
        chose it for ``vals.dtype``) over the ``vals[k]`` with ``idx[k] ==
        i``, presence where some ``idx[k] == i`` (positions without one hold
        the fill).  ``idx``: int64, every one in ``[0, size)`` (checked by the
        caller).  An unsorted scatter, no sort.  This generic form uses
        ``ufunc.at``; the CPU backend runs one numba loop, the GPU backend
        one atomic kernel."""
        xp = self.xp
        out = xp.full(size, self._scatter_fill(vals.dtype, op), dtype=vals.dtype)
        uf = {"min": xp.fmin, "max": xp.fmax, "plus": xp.add}[op]
        if vals.dtype.kind == "b":
            uf = xp.logical_and if op == "min" else xp.logical_or
        uf.at(out, idx, vals)
        pres = xp.zeros(size, dtype=bool)
        pres[idx] = True
        return out, pres

    def scatter_reduce_in_range(self, idx, vals, size, op):
        """:meth:`scatter_reduce` with the range check of ``idx`` done by the
        scatter itself: None where an index is outside ``[0, size)`` (the
        caller then takes its checked path, which reports it) or where the
        backend has no such pass (None here)."""
        return None

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
