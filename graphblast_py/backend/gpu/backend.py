"""The GPU backend (CuPy).

Bulk array expressions come from :class:`ArrayBackend` with ``xp = cupy``
(CUB/Thrust-backed scans, sorts, searchsorted run on the device); this class
replaces the loop-shaped operations with CUDA kernels generated from the
operators' C expressions (see :mod:`.kernels`):

* ``spmv_pull`` -- a thread per row, or a warp per row when the mean row
  length is at least ``PULL_WARP_MIN_DEGREE``, grid-stride; the dense mask is
  tested in the kernel (never listed on the host); early exit at the monoid's
  terminal value (first term for ``any``);
* ``spmspv_push`` -- one thread per frontier *edge* (the frontier's row
  lengths are scanned on the device, so a hub row does not stall a warp, and
  the grid-stride kernel reads the edge count itself: no host read sizes the
  launch), from a frontier list or a dense frontier as stored; the mask
  tested per product, products combined with atomics into a dense
  accumulator plus flags (any, lor, land, min, max, plus), which ``push``
  hands to the output rule as a dense result (no compaction); other monoids
  take the generic sort/reduce path;
* ``spgemm_dot`` -- a thread per mask entry, merge/binary-search intersection
  with early exit;
* ``spmm`` -- cuSPARSE (``cupyx.scipy.sparse``) for plus_times on floats, else
  a row-split or nonzero-split ("merge") kernel (see :meth:`spmm`);
* ``segment_reduce`` -- a thread or a warp per segment, 2-D values per column.

Each kernel is compiled once per signature (operators, dtypes, index types)
and cached in a dict; a user-defined operator without a CUDA expression
raises :class:`MissingKernel`.  Nothing falls back to the host.  Device
allocation failures surface as :class:`OutOfMemory` naming what was being
allocated.

No operation on the ``mxv``/``vxm`` path waits on the device (DESIGN.md
section 1.4): results are sized by bounds (a vector result is a dense
accumulator of the output's size), counts are taken only when asked, and
``dense_vectors`` keeps vector results in the dense form.
:meth:`GPUBackend.count_syncs` counts the waits CuPy declares, for tests and
benchmarks.
"""
import contextlib
import threading

import numpy as np

import cupy
import cupyx.scipy.sparse as _csp

from ... import dtypes
from ...errors import InvalidValue, MissingKernel, OutOfMemory
from ...results import CSRResult, DenseVectorResult, SparseResult
from ...stats import stats
from .. import note_compile
from ..generic import ArrayBackend
from . import kernels as K

_I64 = np.dtype(np.int64)
_I32 = np.dtype(np.int32)
_BOOL = np.dtype(bool)
_INT32_MAX = 2**31 - 1
_OOM_ERRORS = (cupy.cuda.memory.OutOfMemoryError,)


class _OOM:
    """``with _OOM("what", n): ...`` turns CuPy's OutOfMemoryError into
    :class:`OutOfMemory` saying what was being allocated."""

    __slots__ = ("what", "n")

    def __init__(self, what, n=None):
        self.what, self.n = what, n

    def __enter__(self):
        return self

    def __exit__(self, et, e, tb):
        if et is not None and issubclass(et, _OOM_ERRORS):
            size = "" if self.n is None else f" ({self.n} elements)"
            raise OutOfMemory(f"the GPU ran out of memory allocating {self.what}{size}: {e}; "
                              "free GPU arrays or use smaller inputs (or device='cpu')") from e
        return False


def _atomic_fill(monoid, out_dtype):
    """The start value of an accumulator that products are combined into
    atomically: the identity, except NaN for a float min/max.  Those follow
    fmin/fmax (a NaN operand loses), so NaN is also an identity for every
    number -- but an output whose only products are NaN must stay NaN, as a
    sequential reduction of them does, and fmin(+inf, NaN) would be +inf."""
    if np.dtype(out_dtype).kind == "f" and not monoid.is_user and monoid.op.name in ("min", "max"):
        return np.nan
    return monoid.identity(out_dtype)


def _c(a):
    """A C-contiguous device array (raw kernels index flat memory)."""
    return a if a.flags.c_contiguous else cupy.ascontiguousarray(a)


def _grid(n):
    return ((n + K.BLOCK - 1) // K.BLOCK,)


_MAX_BLOCKS = []


# the types of the fill kernel behind GPUBackend.full
_FILL_TYPES = frozenset(np.dtype(t) for t in (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
    np.float32, np.float64))


def _grid_capped(n):
    """Blocks for ``n`` threads of a grid-stride kernel, at most
    ``GRID_BLOCKS_PER_SM`` per multiprocessor (at least one block)."""
    if not _MAX_BLOCKS:
        sms = cupy.cuda.Device().attributes["MultiProcessorCount"]
        _MAX_BLOCKS.append(max(1, sms * GRID_BLOCKS_PER_SM))
    return (max(1, min((n + K.BLOCK - 1) // K.BLOCK, _MAX_BLOCKS[0])),)


GRID_BLOCKS_PER_SM = 32

_LOCAL = threading.local()
_NULL = np.uint64(0)        # a null pointer argument


def pinned_u64():
    """Six uint64 of pinned host memory, one array per thread, for reading
    counters back (a read into pinned memory needs no staging copy;
    ``cupyx.empty_pinned`` costs ~13 us of host time, so it is allocated
    once).  Whoever reads into it takes the values out before its next
    read."""
    h = getattr(_LOCAL, "u64", None)
    if h is None:
        import cupyx
        h = _LOCAL.u64 = cupyx.empty_pinned(6, dtype=np.uint64)
    return h


class SyncCount:
    """``count``: the device synchronisations CuPy declared inside a
    :meth:`GPUBackend.count_syncs` block."""

    __slots__ = ("count",)

    def __init__(self):
        self.count = 0


class GPUBackend(ArrayBackend):
    name = "gpu"
    xp = cupy
    needs_cuda_expr = True
    dense_vectors = True

    # pull: mean row length from which a warp (not a thread) handles one row;
    # for a pull that stops at the first term (`any`, Boolean lor/land: BFS)
    # a thread per row keeps more rows in flight, so the warp takes over only
    # from PULL_WARP_MIN_DEGREE_EARLY (H100, BFS on Kronecker 18/20/22, mean
    # degree ~30: a thread per row 1.1-1.8x faster than a warp per row).  A
    # min/max pull (CC, SSSP) does not stop in practice: a thread per row made
    # CC's min_second pull 79 ms at Kronecker 22 (its hub rows walked by one
    # thread), so it takes the warp from PULL_WARP_MIN_DEGREE
    PULL_WARP_MIN_DEGREE = 8
    PULL_WARP_MIN_DEGREE_EARLY = 256
    # the unmasked float (plus, times) pull through cuSPARSE (_cusparse_pull;
    # its plan is kept in the matrix's derived-data cache)
    CUSPARSE_PULL = True
    # the same product by the structure-only kernel spmv_sum instead (an iso
    # matrix's value compiled in: 4 bytes read per entry, not cuSPARSE's 4 + 8
    # of the value array it needs), a group of lanes per row (SUM_PULL_LANES,
    # None for the rule of _sum_lanes), taken only for matrices whose longest
    # row is at most SUM_PULL_MAX_ROW (meshes, grids, roads), cuSPARSE for
    # the rest (None: every matrix).  benchmarks/pull_variants.py, one H200:
    # the 1000^2 grid 0.052-0.061 ms against cuSPARSE's 0.076-0.081
    # (0.68-0.75x); on Kronecker 20 / 22 versions with the hub rows apart or
    # the rows binned by length took 1.28-1.40x cuSPARSE's time (taken out),
    # this one 4.6x at Kronecker 20 (a group walks each hub row), so
    # power-law graphs stay with cuSPARSE
    SUM_PULL = True
    SUM_PULL_LANES = None
    SUM_PULL_MAX_ROW = 32
    # an unmasked pull that does not stop early takes rows longer than this
    # (hubs) by a block each (pull_block) and the rest by the kernel over a
    # row list (0: off); Kronecker 22's hub rows hold up to 163 327 entries
    PULL_HEAVY_ROW = 1024
    # the pull kernels read the input's presence packed one bit per position
    # (kernels.PACK_BITS) from this many positions: a bool array of 16 MB or
    # more no longer stays in L2 while the kernel reads it at random (the
    # blocks of a distributed BFS read a gathered frontier over all n)
    PULL_BITS_MIN = 1 << 24
    # auto direction: a push edge (atomics, binary search) against a pull edge
    # (H100, BFS on Kronecker 18/20/22 with weights 1, 2, 4, 8: 8 chose pull
    # for every middle level and was fastest, 1.5-1.6 ms against 2.3-5.6 ms
    # with weight 1; grids push at every level under each weight)
    push_cost_weight = 8.0
    # push from a dense frontier: a thread per vertex (no scan) when no row of
    # the matrix is longer than this (grids, meshes, roads)
    PUSH_VERTEX_MAX_DEGREE = 32
    # segment_reduce: mean segment length from which a warp handles a segment
    SEG_WARP_MIN_LEN = 16
    # reductions of at least this many values take the nonzero split
    # (seg_atomic), whose time does not depend on the longest segment: a
    # thread (or a warp) per segment waits on a hub's 10^6-long row
    SEG_ATOMIC_MIN_LEN = 1 << 20
    # SpMM work distribution: stored entries per thread in the nonzero split;
    # it is used when the mean row length reaches this (a thread per row would
    # then do more work, with less parallelism, than a thread per chunk) or
    # when a hub row is SPMM_HUB_FACTOR times the mean and SPMM_HUB_MIN long
    SPMM_CHUNK = 32
    SPMM_HUB_FACTOR = 32
    SPMM_HUB_MIN = 1024
    # whole-array reductions: segment length of each pass
    REDUCE_CHUNK = 4096

    # traversal speculation (operations/speculate.py): a persistent one-block
    # kernel (gpu/traverse.py) serves the remaining levels of a BFS-shaped
    # loop while they have at most speculate_capacity vertices; the level
    # offsets come back in one copy of speculate_levels + 3 numbers; a
    # continuing call on a bigger frontier runs the rest level by level in
    # traverse_wide (a launch and a read of three counters a level)
    speculate = True
    speculate_capacity = 1 << 15
    speculate_levels = 8192
    speculate_wide = True

    # round speculation (operations/relax.py): a persistent one-block kernel
    # (gpu/relax.py); at most relax_limit rounds a run, their sizes and
    # offsets back in one copy
    relax = True
    relax_limit = 8192

    def relax_rounds(self, P, semiring, out_dtype, a_iso, swap, frontier, dist, default, small,
                     max_rounds):
        """The rounds of the frontier Bellman-Ford recurrence after
        ``frontier`` (see gpu/relax.py); None for what the kernel does not
        compute (a user operator, another semiring than min_plus, a type
        without the atomic combine, the frontier's or distances' type not
        the output's)."""
        fidx, fvals = frontier
        dvals, _ = dist
        out_dtype = np.dtype(out_dtype)
        if (semiring.is_user or semiring.monoid.name != "min" or semiring.mult.name != "plus"
                or fvals.dtype != out_dtype or dvals.dtype != out_dtype
                or not K.atomic_ok(out_dtype)):
            return None
        from .relax import relax_rounds
        with _OOM("a run of shortest-path rounds", dvals.shape[0]):
            return relax_rounds(self, P, semiring, out_dtype, a_iso, swap, frontier, dist,
                                default, small, max_rounds)

    def traverse(self, indptr, indices, frontier, visited, capacity, max_levels,
                 parents=False):
        """Every later level of a plain BFS (see gpu/traverse.py)."""
        from .traverse import traverse
        with _OOM("a traversal", visited.shape[0]):
            return traverse(self, indptr, indices, frontier, visited, capacity, max_levels,
                            parents)

    def traverse_wide(self, push_P, pull_P, frontier, visited, max_levels, parents=False,
                      count=None):
        """The later levels of a BFS with big levels: a top-down or
        bottom-up kernel per level, the direction from counters the kernels
        keep (see gpu/traverse.py, ``traverse_wide``)."""
        from .traverse import traverse_wide
        with _OOM("a traversal", visited.shape[0]):
            return traverse_wide(self, push_P, pull_P, frontier, visited, max_levels, parents,
                                 count)

    def __init__(self):
        self._mods = {}
        self._fns = {}
        self._user = {}
        self._dummies = {}
        self._reduce_scratch = {}
        self._pool = cupy.get_default_memory_pool()
        self._sink = cupy.zeros(1, dtype=bool)   # dummy store target of keep_a (never read)

    # ------------------------------------------------------------ arrays
    def asarray(self, x, dtype=None):
        """A device array from a NumPy/CuPy array, list or scalar (host data is
        copied to the device).  Non-numeric data (strings, objects), which a
        GPU array cannot hold, comes back as the NumPy array so that the
        caller's dtype check rejects it exactly as on the CPU."""
        if not isinstance(x, cupy.ndarray):
            x = np.asarray(x, dtype=dtype)
            if x.dtype.kind not in "biufc":
                return x
        with _OOM("an array on the GPU", x.size):
            return cupy.asarray(x, dtype=dtype)

    def to_host(self, a):
        return cupy.asnumpy(a)

    #: host arrays of at most this many bytes in all move in one transfer
    PACK_BYTES = 1 << 16

    def asarrays(self, arrays):
        """Small NumPy arrays of numbers (at most ``PACK_BYTES`` in all) move
        in one host-to-device copy, each a view of its own 8-byte-aligned part
        of one device buffer: a copy costs ~20-30 us of host time, a view a
        few.  Anything else: one ``asarray`` each."""
        arrays = [np.asarray(a) for a in arrays]
        sizes = [-(-a.nbytes // 8) * 8 for a in arrays]
        if (len(arrays) < 2 or sum(sizes) > self.PACK_BYTES
                or any(a.ndim != 1 or a.dtype.kind not in "biuf" for a in arrays)):
            return [self.asarray(a) for a in arrays]
        buf = np.empty(max(8, sum(sizes)), dtype=np.uint8)
        offs, o = [], 0
        for a, nb in zip(arrays, sizes):
            buf[o:o + a.nbytes] = np.ascontiguousarray(a).view(np.uint8)
            offs.append(o)
            o += nb
        with _OOM("an array", buf.shape[0]):
            dev = cupy.asarray(buf)
        return [dev[o:o + a.nbytes].view(a.dtype) for a, o in zip(arrays, offs)]

    def empty(self, n, dtype):
        with _OOM("an array", n):
            return cupy.empty(n, dtype=dtype)

    def zeros(self, n, dtype):
        with _OOM("an array", n):
            return cupy.zeros(n, dtype=dtype)

    def full(self, n, value, dtype):
        """``cupy.full`` for other values than numbers; a number into a
        numeric type by one launch of a fill kernel (its value cast as NumPy
        casts it) -- cupy.full's own fill costs ~30 us of host time, and a
        BFS makes several."""
        dt = dtype if isinstance(dtype, np.dtype) else np.dtype(dtype)
        s = value
        if s.__class__ is not dt.type:
            # (a NumPy scalar of the array's type already -- assign's cast
            # scalars -- needs no conversion)
            v = np.asarray(value) if isinstance(value, (int, float, bool, np.number,
                                                        np.bool_)) else None
            if v is None or v.dtype.kind not in "biuf":
                s = None
            else:
                with np.errstate(all="ignore"):
                    s = v.astype(dt)[()]
        with _OOM("an array", n):
            if s is None or dt not in _FILL_TYPES or not isinstance(n, (int, np.integer)):
                return cupy.full(n, value, dtype=dt)
            out = cupy.empty(n, dtype=dt)
        if n:
            self._fill_kernel(dt, "fill_all")(_grid_capped(n), (K.BLOCK,), (np.int64(n), s, out))
        return out

    def one_entry(self, i, value, dtype):
        """As the generic ``one_entry``: both arrays written by one launch
        (two fills cost two)."""
        dt = np.dtype(dtype)
        if dt not in _FILL_TYPES or not isinstance(value, (np.number, np.bool_)) \
                or value.dtype != dt:
            return super().one_entry(i, value, dt)
        idx, vals = cupy.empty(1, dtype=_I64), cupy.empty(1, dtype=dt)
        self._fill_kernel(dt, "one_entry")(
            (1,), (1,), (np.int64(i), value, idx, vals))
        return idx, vals

    def arange(self, n, dtype=np.int64):
        with _OOM("an index range", n):
            return cupy.arange(n, dtype=dtype)

    def synchronize(self):
        cupy.cuda.Device().synchronize()

    @staticmethod
    @contextlib.contextmanager
    def count_syncs():
        """``with be.count_syncs() as c: ...`` -- ``c.count`` is the number of
        host synchronisations CuPy declared inside the block (device-to-host
        copies such as ``int(x)``, ``.get()``, sizing a ``flatnonzero`` or a
        boolean index, ``Device.synchronize``), through the hook of its
        synchronisation detector (``cupy._core.syncdetect``).  Raises
        RuntimeError where this CuPy has no such hook."""
        try:
            from cupy._core import syncdetect
        except ImportError as e:    # pragma: no cover - depends on the CuPy version
            raise RuntimeError(f"this CuPy has no synchronisation detector: {e}") from None
        orig = getattr(syncdetect, "_declare_synchronize", None)
        if orig is None:            # pragma: no cover - depends on the CuPy version
            raise RuntimeError("this CuPy has no cupy._core.syncdetect._declare_synchronize")
        c = SyncCount()

        def counting():
            c.count += 1
            return orig()
        syncdetect._declare_synchronize = counting
        try:
            yield c
        finally:
            syncdetect._declare_synchronize = orig

    def item(self, a):
        if isinstance(a, cupy.ndarray):
            return cupy.asnumpy(a.reshape(-1)[:1])[0].item()
        return np.asarray(a).reshape(-1)[0].item()

    def known_all_zero(self, a):
        # the read would stop the host until the device catches up (in
        # FGLT, until the triangle kernel ends, with the later calls' launch
        # work not overlapped: the 5-orbit seed graph "auto" took ~1 ms more)
        return False

    def count_nonzero(self, a):
        """Entries of ``a`` that are nonzero; a bool array is counted by one
        small kernel (then one read of the count)."""
        if a.dtype != _BOOL or a.ndim != 1 or a.shape[0] == 0:
            return int(cupy.count_nonzero(a))
        out = cupy.zeros(1, dtype=np.uint64)
        self._fn(("count",), K.count_source, "count_true")(
            _grid_capped(a.shape[0]), (K.BLOCK,), (_c(a), np.int64(a.shape[0]), out))
        h = pinned_u64()[:1]
        out.get(out=h)              # (into pinned memory: no staging copy)
        return int(h[0])

    _MERGE = {}


    # The backend's own scatter kernel (kernels.scatter_source: integers,
    # float min/max and bool); it passed its tests on the H100 (2026-11-25:
    # every type against the dense model and the sort path, with contention).
    # Switched off, integer scatters take cupyx's atomic scatters and the other
    # types the sort path (the ablation of this switch).
    SCATTER_KERNEL = True

    def scatter_kind(self, op, dtype):
        """As :meth:`ArrayBackend.scatter_kind`; integer types only when
        ``SCATTER_KERNEL`` is off."""
        kind = ArrayBackend.scatter_kind(op, dtype)
        if kind is None or self.SCATTER_KERNEL or np.dtype(dtype).kind in "iu":
            return kind
        return None

    def _cupyx_scatter(self, idx, vals, size, op):
        """Integer min / max / plus by cupyx's atomic scatters (one kernel, no
        sort); 8- and 16-bit types work in 32 bits (min and max are exact
        there, a sum cast back wraps as the narrow sum does)."""
        import cupyx
        fn = {"min": cupyx.scatter_min, "max": cupyx.scatter_max,
              "plus": cupyx.scatter_add}[op]
        dt = vals.dtype
        wide = np.dtype(np.int32 if dt.kind == "i" else np.uint32) if dt.itemsize < 4 else dt
        with _OOM("a scatter-reduce", size):
            out = cupy.full(size, wide.type(self._scatter_fill(dt, op)), dtype=wide)
            pres = cupy.zeros(size, dtype=bool)
        fn(out, idx, vals.astype(wide, copy=False))
        pres[idx] = True
        return (out.astype(dt) if wide != dt else out), pres

    def scatter_reduce(self, idx, vals, size, op):
        """Integers through cupyx (:meth:`_cupyx_scatter`) when
        ``SCATTER_KERNEL`` is off.  With it on (the default): one kernel
        (``kernels.scatter_reduce``): every entry combined into its position
        by an atomic (atomicMin / atomicMax / atomicAdd; a float
        min/max by a compare-and-swap loop over fmin/fmax) into the fill
        (``_scatter_fill``: the identity, NaN for a float min/max), presence
        set in the same pass; no sort, no host synchronisation.  Types of 1
        and 2 bytes and bool work in 32 bits (the atomics' narrowest): min and
        max are exact there, a sum cast back wraps as the narrow sum does,
        bool min/max are and/or of 0/1."""
        if not self.SCATTER_KERNEL:
            return self._cupyx_scatter(idx, vals, size, op)
        from ...operators import binary
        dt = vals.dtype
        if dt.itemsize < 4:
            wide = np.dtype(np.int32 if dt.kind == "i" else np.uint32)
        else:
            wide = dt
        with _OOM("a scatter-reduce", size):
            out = cupy.full(size, wide.type(self._scatter_fill(dt, op)), dtype=wide)
            pres = cupy.zeros(size, dtype=bool)
        n = idx.shape[0]
        if n:
            fn = self._fn(("scatter", op, wide),
                          lambda: K.scatter_source(getattr(binary, op), wide), "scatter_reduce")
            fn(_grid_capped(n), (K.BLOCK,),
               (_c(idx.astype(np.int64, copy=False)), _c(vals.astype(wide, copy=False)),
                np.int64(n), out, pres))
        return (out.astype(dt) if wide != dt else out), pres

    def masked_merge(self, m, z, zp, c, cp):
        """One elementwise kernel for ``(where(m, z, c), where(m, zp, cp))``
        (``zp`` None: every position of z present)."""
        if cp is None or z.dtype != c.dtype:
            return super().masked_merge(m, z, zp, c, cp)
        full = zp is None
        k = GPUBackend._MERGE.get(full)
        if k is None:
            if full:
                k = cupy.ElementwiseKernel("bool m, T z, T c, bool cp", "T rv, bool rp",
                                           "rv = m ? z : c; rp = m || cp;", "gb_masked_merge")
            else:
                k = cupy.ElementwiseKernel("bool m, T z, bool zp, T c, bool cp",
                                           "T rv, bool rp", "rv = m ? z : c; rp = m ? zp : cp;",
                                           "gb_masked_merge_p")
            GPUBackend._MERGE[full] = k
        return k(m, z, c, cp) if full else k(m, z, zp, c, cp)

    def fill_at(self, vals, pres, keys, s, starts=None):
        """As the generic ``fill_at``, in one kernel launch (CuPy's
        ``vals[keys] = s; pres[keys] = True`` is two scatters, and most of
        their cost is on the host: a BFS level update)."""
        m = keys.shape[0]
        if m == 0:
            return
        dt = vals.dtype
        if starts is None:
            seg, k, s = self._dummy(np.int64), 0, dt.type(s)
        elif len(starts) <= 5 and dt.itemsize <= 8:
            # at most 4 segments: bounds and scalars as launch arguments (a
            # copy to the device costs 17-100 us of host time)
            st = [int(x) for x in starts] + [m] * (5 - len(starts))
            bits = np.zeros(4, dtype=np.uint64)
            bits.view(np.uint8).reshape(4, 8)[:len(starts) - 1, :dt.itemsize] = \
                np.asarray(s, dtype=dt).view(np.uint8).reshape(-1, dt.itemsize)
            self._fill_kernel(dt, "fill_at_few")(
                _grid_capped(m), (K.BLOCK,),
                (_c(keys), np.int64(m), np.int64(st[1]), np.int64(st[2]), np.int64(st[3]),
                 *bits, vals, pres))
            return
        else:
            # the starts and then the scalars, in one copy to the device
            # (each copy costs ~17 us of host time)
            k = len(starts) - 1
            buf = np.zeros(k + 1 + -(-k * dt.itemsize // 8), dtype=np.int64)
            buf[:k + 1] = starts
            buf[k + 1:].view(np.uint8)[:k * dt.itemsize] = \
                np.asarray(s, dtype=dt).view(np.uint8)
            seg, s = cupy.asarray(buf), dt.type(0)
        self._fill_kernel(dt, "fill_at")(
            _grid_capped(m), (K.BLOCK,), (_c(keys), np.int64(m), s, seg, np.int32(k), vals, pres))

    def copy_at(self, vals, pres, keys, src, last=False):
        """As the generic ``copy_at``, in one kernel launch (CuPy's
        ``vals[keys] = src; pres[keys] = True`` is two scatters, most of
        their cost on the host: a BFS's parents, an SSSP's distances).  With
        ``last`` (a relaxation run's deferred distance copies: a key may
        repeat) and no sort or wait: a first launch leaves each position's
        last occurrence in a work array (an atomic maximum of the
        occurrences' indices), and only that occurrence stores."""
        m = keys.shape[0]
        if m == 0:
            return
        dt = vals.dtype
        if (dt not in _FILL_TYPES or src.dtype != dt or keys.dtype != _I64
                or pres.dtype != _BOOL):
            super().copy_at(vals, pres, keys, src, last)
            return
        keys, src = _c(keys), _c(src)
        grid = _grid_capped(m)
        if last and m > 1:
            win = self.full(vals.shape[0], -1, _I64)
            self._fill_kernel(dt, "last_occurrence")(
                grid, (K.BLOCK,), (keys, np.int64(m), win))
        else:
            win, last = self._dummy(_I64), False
        self._fill_kernel(dt, "copy_at")(
            grid, (K.BLOCK,), (keys, np.int64(m), src, win, np.int32(last), vals, pres))

    def minmax_into(self, op, x, y, p, out_dtype, dst):
        """As the generic ``minmax_into``, in one launch of the fill module's
        ``minmax_into`` for the predefined ``min``/``max`` on integers of
        one type (``x``, ``y`` and ``out_dtype``; exact, no NaN), into
        ``dst`` when it is ``x`` or ``y`` itself (or shares no memory with
        them), else a new array; None otherwise (CuPy's ``where`` and
        ``minimum``, two launches of ~15 us host time each, then run)."""
        if op.is_user or op.name not in ("min", "max"):
            return None
        t = x.dtype
        n = x.shape[0] if x.ndim == 1 else -1
        if (t.kind not in "iu" or y.dtype != t or out_dtype != t or y.shape != (n,)
                or (p is not None and (p.dtype != _BOOL or p.shape != (n,)))):
            return None
        if dst is not None and (dst.dtype != t or dst.shape != (n,) or (
                dst is not x and dst is not y and (cupy.may_share_memory(dst, x)
                                                   or cupy.may_share_memory(dst, y)))):
            dst = None
        if dst is None or not dst.flags.c_contiguous:
            with _OOM("a min/max result", n):
                dst = cupy.empty(n, dtype=t)
        if n:
            fn = self._fill_kernel(t, "minmax_into")
            fn(_grid_capped(n), (K.BLOCK,), (_c(x), _c(y), _c(p) if p is not None else _NULL,
                                             np.int64(n), np.int32(op.name == "max"), dst))
        return dst

    def put_missing(self, out, pres, s):
        """As the generic ``put_missing``, in one kernel and without a wait
        (CuPy's boolean-mask assignment counts the mask on the host first)."""
        n = out.shape[0]
        if n == 0:
            return
        dt = out.dtype
        fn = self._fill_kernel(dt, "put_missing")
        fn(_grid_capped(n), (K.BLOCK,), (_c(pres), np.int64(n), dt.type(s), out))

    def assign_where(self, vals, pres, m, s):
        """As the generic ``assign_where``, in one kernel launch (``m`` may
        be ``pres`` itself: each thread reads m[i] before it writes pres[i])."""
        n = m.shape[0]
        if n == 0:
            return
        dt = vals.dtype
        fn = self._fill_kernel(dt, "assign_where")
        fn(_grid_capped(n), (K.BLOCK,), (_c(m), np.int64(n), dt.type(s), vals, pres))

    def copy_where(self, vals, pres, m, src):
        """As the generic ``copy_where``, in one kernel launch."""
        n = m.shape[0]
        if n == 0:
            return
        dt = vals.dtype
        fn = self._fill_kernel(dt, "copy_where")
        fn(_grid_capped(n), (K.BLOCK,), (_c(m), np.int64(n), _c(src), vals, pres))

    def free_bytes(self):
        """Free device memory now (cudaMemGetInfo), in bytes."""
        return int(cupy.cuda.runtime.memGetInfo()[0])

    def device_name(self):
        p = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
        name = p["name"]
        return name.decode() if isinstance(name, bytes) else str(name)

    def max_alloc_bytes(self):
        """Free device memory plus what CuPy's pool holds unused."""
        free, _total = cupy.cuda.runtime.memGetInfo()
        return int(free) + int(self._pool.free_bytes())

    def sparse_matrix(self, indptr, indices, vals, shape):
        """A ``cupyx.scipy.sparse.csr_matrix``.  cuSPARSE has no integer
        matrices: integer values become float64 (exact below 2**53); bool,
        float32 and float64 stay as they are."""
        if indices.shape[0] > _INT32_MAX:
            raise InvalidValue("cupyx.scipy.sparse needs fewer than 2**31 stored entries; use "
                               "A.to('cpu').to_scipy()")
        with _OOM("a cupyx CSR matrix", indices.shape[0]):
            if vals.dtype.kind in "iu":
                vals = vals.astype(np.float64)
            return _csp.csr_matrix((vals, indices.astype(np.int32), indptr.astype(np.int32)),
                                   shape=shape)

    def lanczos_fused(self):
        """Fused kernels for a one-set Lanczos step (``gpu/krylov.py``)."""
        from .krylov import FusedLanczos
        return FusedLanczos()

    def bisect_intervals(self, d, e2, k, a, b, pivmin, iters, atol):
        """Sturm bisection, one CUDA thread per eigenvalue index (``sturm.py``)."""
        from .sturm import bisect_intervals
        with _OOM("Sturm bisection", k.shape[0]):
            return bisect_intervals(d, e2, k, a, b, pivmin, iters, atol)

    # ------------------------------------------------------------ kernel cache
    def _fn(self, key, build, name):
        fn = self._fns.get((key, name))
        if fn is not None:
            return fn
        mod = self._mods.get(key)
        try:
            if mod is None:
                note_compile("gpu", "kernels")
                mod = self._mods[key] = cupy.RawModule(code=build())
            fn = mod.get_function(name)
        except cupy.cuda.compiler.CompileException as e:
            self._mods.pop(key, None)
            raise MissingKernel(f"the CUDA kernel {name} for {_describe(key)} does not compile "
                                f"(check the operators' CUDA expressions): {e}") from e
        self._fns[(key, name)] = fn
        return fn

    def _fill_kernel(self, dt, name):
        """Kernel ``name`` of the fill module for the value type ``dt``
        (kernels.fill_source: fills, copies at positions, masked stores)."""
        return self._fn(("fill", dt.str), lambda: K.fill_source(dt), name)

    def _dummy(self, dt):
        d = self._dummies.get(dt)
        if d is None:
            d = self._dummies[dt] = cupy.zeros(1, dtype=dt)
        return d

    @staticmethod
    def _kernel_ok(semiring):
        """True when both operators have C expressions the kernels run
        (MissingKernel for a user-defined operator without one)."""
        return (K.op_expr(semiring.mult, "multiply operator") is not None
                and K.op_expr(semiring.monoid.op, "monoid operator") is not None)

    # ------------------------------------------------------------ user operators
    def _user_kernel(self, key, op, params, out_dtype):
        k = self._user.get(key)
        if k is None:
            note_compile("gpu", "user operator kernels")
            body = K.elementwise_body(op, out_dtype, index=key[0] == "i")
            k = cupy.ElementwiseKernel(params, f"{out_dtype.name} z", body,
                                       f"gb_user_{key[0]}_{op.name}")
            self._user[key] = k
        return k

    @staticmethod
    def _run_user(op, k, *args):
        if not any(isinstance(a, cupy.ndarray) for a in args):
            args = (cupy.asarray(args[0]),) + args[1:]
        try:
            with _OOM(f"the result of {op.name!r}"):
                return k(*args)
        except cupy.cuda.compiler.CompileException as e:
            raise MissingKernel(f"the CUDA expression of user-defined operator {op.name!r} "
                                f"({op.cexpr!r}) does not compile: {e}") from e

    @staticmethod
    def _arg(x, dt):
        if isinstance(x, cupy.ndarray):
            return x.astype(dt, copy=False)
        if isinstance(x, np.ndarray) and x.ndim:
            return cupy.asarray(x, dtype=dt)
        return np.asarray(x).astype(dt, casting="unsafe")[()]

    def user_unary(self, op, in_dtype, out_dtype):
        ti, to = np.dtype(in_dtype), np.dtype(out_dtype)
        k = self._user_kernel(("u", op, ti, to), op, f"{ti.name} x", to)
        return lambda x: self._run_user(op, k, self._arg(x, ti))

    def user_binary(self, op, in_dtype, out_dtype):
        ti, to = np.dtype(in_dtype), np.dtype(out_dtype)
        k = self._user_kernel(("b", op, ti, to), op, f"{ti.name} x, {ti.name} y", to)
        return lambda x, y: self._run_user(op, k, self._arg(x, ti), self._arg(y, ti))

    def user_indexunary(self, op, in_dtype, out_dtype):
        ti, to = np.dtype(in_dtype), np.dtype(out_dtype)
        kernels = {}

        def f(x, i, j, thunk):
            th = np.asarray(thunk)
            k = kernels.get(th.dtype)
            if k is None:
                k = kernels[th.dtype] = self._user_kernel(
                    ("i", op, ti, to, th.dtype), op,
                    f"{ti.name} x, int64 gb_i, int64 gb_j, {th.dtype.name} thunk", to)
            xv = self._arg(x, ti) if x is not None else ti.type(0)
            return self._run_user(op, k, xv, self._arg(i, _I64), self._arg(j, _I64), th[()])
        return f

    # ------------------------------------------------------------ reductions
    def segment_reduce(self, monoid, vals, starts):
        if vals.shape[0] == 0:
            return vals[:0]
        if monoid.is_any:
            return vals[starts]
        if (vals.ndim == 1 and vals.shape[0] >= self.SEG_ATOMIC_MIN_LEN and not monoid.is_user
                and K.atomic_ok(vals.dtype) and starts.shape[0]):
            return self._segment_reduce_atomic(monoid, vals, starts)
        return self._segment_reduce(monoid.op, vals, starts, ordered=False)

    def _segment_reduce_atomic(self, monoid, vals, starts):
        """Segments of any length (a hub's row among short ones) by the
        nonzero split (``seg_atomic``): every thread a fixed chunk of values,
        one atomic per run of a segment, into the identity."""
        t = vals.dtype
        vals = _c(vals)
        starts = _c(starts.astype(np.int64, copy=False))
        ns, n = starts.shape[0], vals.shape[0]
        with _OOM("a segmented reduction", ns):
            out = cupy.full(ns, _atomic_fill(monoid, t), dtype=t)
        fn = self._fn(("seg_atomic", monoid.op, t),
                      lambda: K.segatomic_source(monoid.op, t), "seg_atomic")
        fn(_grid_capped(-(-n // 64)), (K.BLOCK,), (vals, starts, np.int64(ns), np.int64(n), out))
        return out

    def segment_reduce_op(self, op, vals, starts):
        """Any BinaryOp, applied left to right within each segment."""
        if vals.shape[0] == 0:
            return vals[:0]
        return self._segment_reduce(op, vals, starts, ordered=not op.commutative)

    def _segment_reduce(self, op, vals, starts, ordered):
        name = None if op.is_user else op.name
        starts = starts.astype(np.int64, copy=False)
        n = vals.shape[0]
        if name in ("first", "any"):
            return vals[starts]
        if name == "second":
            ends = cupy.empty_like(starts)
            ends[:-1] = starts[1:] - 1
            ends[-1] = n - 1
            return vals[ends]
        K.reduce_expr(op)   # MissingKernel now, before anything is allocated
        vals = _c(vals)
        starts = _c(starts)
        ns = starts.shape[0]
        t = vals.dtype
        key = ("seg", op, t)
        build = lambda: K.segreduce_source(op, t)  # noqa: E731
        with _OOM("a segmented reduction", ns):
            out = cupy.empty((ns,) + vals.shape[1:], dtype=t)
            if vals.ndim == 2:
                ncols = vals.shape[1]
                if ns * ncols:
                    self._fn(key, build, "seg_2d")(
                        _grid(ns * ncols), (K.BLOCK,),
                        (vals, starts, np.int64(ns), np.int64(n), np.int64(ncols), out))
            elif not ordered and n >= self.SEG_WARP_MIN_LEN * ns:
                self._fn(key, build, "seg_warp")(_grid(ns * 32), (K.BLOCK,),
                                                 (vals, starts, np.int64(ns), np.int64(n), out))
            else:
                self._fn(key, build, "seg_thread")(_grid(ns), (K.BLOCK,),
                                                   (vals, starts, np.int64(ns), np.int64(n), out))
        return out

    #: blocks of one ``reduce_all`` launch at most (its partials' room)
    REDUCE_BLOCKS = 1024

    def reduce(self, monoid, vals, out_dtype, present=None):
        """Whole-array reduction (``present``: a bool array, only those
        positions count) to a host scalar: one launch of ``reduce_all`` and
        one read (the same result on every run); for the types it cannot
        take (complex) and operators without a C expression, ``plus`` by
        one CuPy sum and the others in passes of REDUCE_CHUNK-long
        segments."""
        if vals.shape[0] == 0:
            return monoid.identity(out_dtype)
        vals = self.cast(vals, out_dtype)
        got = self._reduce_all(monoid, vals, present)
        if got is not None:
            return got
        if present is not None:
            vals = vals[present]                  # (waits on the device: rare types only)
            if vals.shape[0] == 0:
                return monoid.identity(out_dtype)
        if not monoid.is_user and monoid.name == "plus":
            # one CuPy reduction (a sum in the output type, bool: or)
            return self.to_host(cupy.sum(vals, dtype=vals.dtype))[()]
        while vals.shape[0] > 1:
            starts = cupy.arange(0, vals.shape[0], self.REDUCE_CHUNK, dtype=np.int64)
            vals = self.segment_reduce(monoid, vals, starts)
        return self.to_host(vals)[0]

    def _reduce_all(self, monoid, vals, present):
        """:meth:`reduce` by one ``reduce_all`` launch, or None where the type
        or operator has no such kernel.  Its partials, counter and result
        live in a scratch buffer kept per device, stream and host thread
        (launches on one stream run in order, and a thread reads its result
        before its next launch, so no two reductions share one at once)."""
        t = vals.dtype
        if vals.ndim != 1 or not K.reduce_all_ok(t):
            return None
        try:
            fn = self._fn(("reduce_all", monoid.op, t),
                          lambda: K.reduce_all_source(monoid.op, t), "reduce_all")
        except MissingKernel:
            return None
        n = vals.shape[0]
        h = self._fold(fn, "reduce_all", n,
                       (_c(vals), _c(present) if present is not None else _NULL, np.int64(n)))
        if not int(h[1]) & 0xFFFFFFFF:  # (no value: the flag, the low half)
            return monoid.identity(t)
        return h.view(np.uint8)[:t.itemsize].view(t)[0]

    def _fold(self, fn, kind, n, args, grid=None):
        """Launch the one-launch fold ``fn`` of kind ``kind`` over ``n``
        entries -- ``args`` then its scratch buffer's pointer; one block per
        BLOCK entries up to REDUCE_BLOCKS, or ``grid`` (a kernel whose
        scratch holds only a flag) -- and read the scratch's first 16 bytes,
        where the kernel left its result, into this thread's pinned memory
        (no staging copy): two uint64, valid until this thread's next
        read."""
        blocks = 1 if grid is not None else min(-(-n // K.BLOCK), self.REDUCE_BLOCKS)
        head, ptr = self._fold_scratch(kind, blocks)
        fn(grid if grid is not None else (blocks,), (K.BLOCK,), args + (ptr,))
        h = pinned_u64()[:2]
        head.get(out=h)
        return h

    def _fold_scratch(self, kind, blocks):
        """``(head, pointer)``: the scratch buffer of the one-launch folds of
        kind ``kind`` (``reduce_all``, ``minmax``, ``diff_any``,
        ``take_checked``; their layouts in kernels.py) for a launch of
        ``blocks`` blocks, kept per kind, device, stream and host thread
        (launches on one stream run in order, and a thread reads its result
        before its next launch, so no two folds share one at once);
        ``head``: its first 16 bytes, where the result is, as two uint64."""
        key = (kind, cupy.cuda.runtime.getDevice(), cupy.cuda.get_current_stream().ptr,
               threading.get_ident())
        scratch = self._reduce_scratch.get(key)
        if scratch is None or scratch[1] < blocks:
            nb = max(blocks, self.REDUCE_BLOCKS)
            buf = cupy.zeros(4 + 2 * nb, dtype=np.uint64)   # 24 + 16 bytes a block at most
            scratch = self._reduce_scratch[key] = (buf[:2], nb, np.uint64(buf.data.ptr))
        return scratch[0], scratch[2]

    def minmax(self, a):
        """``(min, max)`` of a non-empty integer array (not uint64) by one
        ``minmax_all`` launch and one read into pinned memory (CuPy's
        ``min`` and ``max``, stacked and read, were four calls of ~40 us of
        host time each on the H200's host: connected components checks its
        index vectors twice an iteration)."""
        t = a.dtype
        n = a.shape[0] if a.ndim == 1 else 0
        if n == 0 or t.kind not in "iu" or (t.kind == "u" and t.itemsize == 8):
            lo, hi = cupy.stack((a.min(), a.max())).get().tolist()
            return int(lo), int(hi)
        fn = self._fn(("folds", t.str), lambda: K.folds_source(t), "minmax_all")
        h = self._fold(fn, "minmax", n, (_c(a), np.int64(n)))
        lo, hi = h.view(np.int64).tolist()
        return lo, hi

    def take_checked(self, src, idx):
        """As the generic ``take_checked``: ``src[idx]`` and the range check
        in one launch and one read of a flag (extract by an index Vector:
        connected components' ``f.extract(f)``; CuPy's minimum and maximum
        and its gather were four calls before); None for an index outside
        ``[0, len(src))`` or types the kernel does not take."""
        tv, ti = src.dtype, idx.dtype
        if (src.ndim != 1 or idx.ndim != 1 or tv not in _FILL_TYPES or ti.kind not in "iu"):
            return None
        m = idx.shape[0]
        with _OOM("a gather", m):
            out = cupy.empty(m, dtype=tv)
        if m == 0:
            return out
        fn = self._fn(("take_checked", tv.str, ti.str),
                      lambda: K.take_checked_source(tv, ti), "take_checked")
        h = self._fold(fn, "take_checked", m,
                       (_c(src), np.int64(src.shape[0]), _c(idx), np.int64(m), out),
                       grid=_grid_capped(m))
        if int(h[0]) & 0xFFFFFFFF:
            # (the flag back to 0 for the next launch)
            self._fold_scratch("take_checked", 1)[0].fill(0)
            return None
        return out

    def all_equal(self, a, b):
        """``all(a == b)`` of two 1-D integer or bool arrays of one type and
        length by one ``diff_any`` launch and one read (connected
        components' ``gf_new.isequal(gf)``); None for other arrays (floats:
        NaN and -0.0 compare otherwise than their bits)."""
        t = a.dtype
        if a.ndim != 1 or b.shape != a.shape or b.dtype != t or t.kind not in "biu":
            return None
        n = a.shape[0]
        if n == 0:
            return True
        fn = self._fn(("folds", t.str), lambda: K.folds_source(t), "diff_any")
        h = self._fold(fn, "diff_any", n, (_c(a), _c(b), np.int64(n)))
        return not int(h[0]) & 0xFFFFFFFF

    # ------------------------------------------------------------ structure
    def expand(self, counts):
        counts = counts.astype(np.int64, copy=False)
        if counts.shape[0] == 0:
            z = cupy.zeros(0, dtype=np.int64)
            return z, z
        ends = cupy.cumsum(counts)
        total = int(ends[-1])
        with _OOM("an expansion", total):
            idx = cupy.arange(total, dtype=np.int64)
            seg = cupy.searchsorted(ends, idx, side="right")
            off = idx - (ends - counts)[seg]
        return seg, off

    def argsort(self, keys):
        # CuPy's argsort is a stable (Thrust) sort, like NumPy's kind="stable"
        with _OOM("a sort", keys.shape[0]):
            return cupy.argsort(keys)

    def rows_of(self, indptr, nnz):
        nrows = indptr.shape[0] - 1
        with _OOM("row indices", nnz):
            out = cupy.empty(nnz, dtype=np.int64)
        if nnz:
            ip = _c(indptr)
            fn = self._fn(("rows_of", ip.dtype), lambda: K.rows_of_source(ip.dtype), "rows_of")
            fn(_grid(nnz), (K.BLOCK,), (ip, np.int64(nrows), np.int64(nnz), out))
        return out

    def transpose_csr(self, indptr, indices, vals, nrows, ncols):
        """CSR of the transpose, stable in row order (a stable sort by column;
        the row pointers by ``count_ptr``)."""
        nnz = indices.shape[0]
        with _OOM("the transpose", nnz):
            rows = self.rows_of(indptr, nnz)
            cols = indices.astype(np.int64)
            order = cupy.argsort(cols)
            t_indices = rows[order].astype(dtypes.index_dtype(nrows))
            t_indptr = self.count_ptr(indices, ncols).astype(
                indptr.dtype if nnz < _INT32_MAX else _I64, copy=False)
            return t_indptr, t_indices, (vals[order] if vals is not None else None)

    def select_csr(self, op, indptr, indices, vals, iso, ncols, thunk):
        """``select`` on a CSR matrix without the entries' keys: the
        predicate per stored entry (row ids expanded only for a positional
        one), one scan of the kept flags -- its value at each old row start
        is the new row pointer, its last the size, read once -- and one
        compaction kernel (``compact_kept``; the generic path built
        int64 keys, split them back and rebuilt the rows by a bincount:
        triangle counting's degree order selects half of A).  A user
        operator, or a value test on an iso matrix: the generic path."""
        if op.is_user or (op.reads_x and vals is None):
            return None
        nnz = indices.shape[0]
        with _OOM("select", nnz):
            if op.reads_x:
                keep = self.indexunary(op, vals, None, None, thunk, dtypes.BOOL)
            else:
                keep = self.indexunary(op, None, self.rows_of(indptr, nnz),
                                       indices.astype(_I64), thunk, dtypes.BOOL)
            if getattr(keep, "shape", None) != (nnz,):
                return None
            cum = cupy.zeros(nnz + 1, dtype=_I64)
            if nnz:
                cupy.cumsum(keep, dtype=_I64, out=cum[1:])
            kept = int(cum[-1])                 # the one read: the result's size
            ix = cupy.empty(kept, dtype=indices.dtype)
            v = cupy.empty(kept, dtype=vals.dtype) if vals is not None else None
            if kept:
                src_ix = _c(indices)
                tv = vals.dtype if vals is not None else _BOOL
                fn = self._fn(("compact_kept", src_ix.dtype, tv),
                              lambda: K.compact_kept_source(src_ix.dtype, tv), "compact_kept")
                fn(_grid_capped(nnz), (K.BLOCK,),
                   (_c(keep), cum, np.int64(nnz), src_ix,
                    _c(vals) if vals is not None else self._dummy(tv), np.int32(vals is not None),
                    ix, v if v is not None else self._dummy(tv)))
            ip = cum[indptr.astype(_I64)]
        return CSRResult(ip.astype(dtypes.index_dtype(max(ncols, kept))), ix, v,
                         iso if v is None else None)

    # ------------------------------------------------------------ mxv: pull
    def pull(self, R, x, semiring, allowed, swap, out_dtype, structure_only=True,
             early_exit=True, complement=False, a_iso=None, cache=None):
        """The pull kernel tests the dense mask ``allowed`` itself: no row list
        is built, nothing waits on the device; an iso matrix's value is a
        constant of the kernel."""
        return DenseVectorResult(*self.spmv_pull(R, x, semiring, allowed, swap, out_dtype,
                                                 structure_only=structure_only,
                                                 early_exit=early_exit,
                                                 rows_complement=complement, a_iso=a_iso,
                                                 cache=cache))

    def spmv_pull(self, R, x, semiring, rows, swap, out_dtype, structure_only=True,
                  early_exit=True, rows_complement=False, a_iso=None, cache=None):
        """As :meth:`ArrayBackend.spmv_pull`; ``rows`` may also be a bool
        array over the rows (a dense mask, left out where it is
        ``rows_complement``), which the kernel tests; ``a_iso``: the value of
        every stored entry of R when R comes without values (an iso matrix);
        ``cache``: the matrix's dict for the hub-row split and the cuSPARSE
        plan (None: made for this call only)."""
        done = self._sum_pull(R, x, semiring, rows, swap, out_dtype, structure_only, a_iso,
                              cache)
        if done is None:
            done = self._cusparse_pull(R, x, semiring, rows, swap, out_dtype, structure_only,
                                       a_iso, cache)
        if done is not None:
            return done
        if not self._kernel_ok(semiring):
            if rows is not None and rows.dtype == _BOOL:
                rows = cupy.flatnonzero(~rows if rows_complement else rows)
            R = self._with_iso(R, a_iso)
            with _OOM("the pull SpMV (vectorized path)"):
                return super().spmv_pull(R, x, semiring, rows, swap, out_dtype,
                                         structure_only=structure_only, early_exit=early_exit)
        out_dtype = np.dtype(out_dtype)
        indptr, indices, rvals = R
        nrows = indptr.shape[0] - 1
        xvals, xpres = x
        ra, rx = self._reads(semiring, swap)
        keep = not structure_only and rvals is not None
        read_a = bool((ra or keep) and rvals is not None)
        read_x = bool(rx)
        if a_iso is not None and rvals is None and ra:
            ta, iso = np.asarray(a_iso).dtype, a_iso       # the value, compiled in
        else:
            ta, iso = (rvals.dtype if read_a else _BOOL), None
        tx = xvals.dtype if read_x else _BOOL
        with _OOM("the pull SpMV output", nrows):
            outv = cupy.empty(nrows, dtype=out_dtype)     # read only where outp is set
        early = bool(early_exit)
        # a row stops early in practice only for `any` and for Boolean
        # monoids (lor/land reach their terminal at once); min/max also have
        # a terminal (the type's extreme) that real data seldom reach, and a
        # thread per row would then walk a hub's whole row alone
        stops = early and (semiring.monoid.is_any or
                           (out_dtype == _BOOL and
                            semiring.monoid.terminal(out_dtype) is not None))
        alw, has_alw = self._dummy(_BOOL), rows is not None and rows.dtype == _BOOL
        heavy = None
        if rows is None and not stops and self.PULL_HEAVY_ROW:
            split = self._heavy_split(indptr, cache)
            if split is not None:               # hub rows apart, the rest listed
                rows, heavy = split
        if rows is None or has_alw:
            nlist, rws, all_rows = nrows, self._dummy(_I64), 1
            if has_alw:
                alw = _c(rows)
        else:
            rws = _c(rows.astype(np.int64, copy=False))
            nlist, all_rows = rws.shape[0], 0
        masked = rows is not None and heavy is None
        # over all rows the kernel writes every row's presence (no zero fill);
        # a row list or the hub rows apart leave rows unvisited
        fills = all_rows and heavy is None and nlist > 0 and indices.shape[0] > 0
        with _OOM("the pull SpMV output", nrows):
            outp = cupy.empty(nrows, dtype=bool) if fills else cupy.zeros(nrows, dtype=bool)
        if heavy is not None:
            # the hub rows by a block each, so no warp walks a hub's row alone
            bkey = ("pull_block", semiring.monoid, semiring.mult, ta, tx, out_dtype, indptr.dtype,
                    indices.dtype, bool(swap), _iso_key(iso))
            fb = self._fn(bkey, lambda: K.pull_block_source(semiring, ta, tx, out_dtype,
                                                            indptr.dtype, indices.dtype, swap,
                                                            iso), "pull_block")
            fb((int(min(heavy.shape[0], 1 << 16)),), (K.BLOCK,),
               (_c(indptr), _c(indices), _c(rvals) if read_a else self._dummy(ta),
                np.int32(read_a), _c(xvals) if read_x else self._dummy(tx), np.int32(read_x),
                _c(xpres) if xpres is not None else self._dummy(_BOOL),
                np.int32(xpres is not None), heavy, np.int64(heavy.shape[0]), outv, outp))
        if nlist == 0 or indices.shape[0] == 0:
            return outv, outp
        ip, ix = _c(indptr), _c(indices)
        warp = indices.shape[0] >= (self.PULL_WARP_MIN_DEGREE_EARLY if stops else
                                    self.PULL_WARP_MIN_DEGREE) * max(nrows, 1)
        bits = xpres is not None and xpres.shape[0] >= self.PULL_BITS_MIN
        key = ("pull", semiring.monoid, semiring.mult, ta, tx, out_dtype, ip.dtype, ix.dtype,
               bool(swap), _iso_key(iso), early, bits)
        fn = self._fn(key, lambda: K.pull_source(semiring, ta, tx, out_dtype, ip.dtype, ix.dtype,
                                                 swap, early, iso, bits),
                      "pull_warp" if warp else "pull_thread")
        xp_arg = self._pack_bits(xpres) if bits else \
            (_c(xpres) if xpres is not None else self._dummy(_BOOL))
        flags = (read_a | read_x << 1 | (xpres is not None) << 2 | all_rows << 3
                 | has_alw << 4 | (bool(rows_complement) and has_alw) << 5 | keep << 6)
        fn(_grid_capped(nlist * (32 if warp else 1)), (K.BLOCK,),
           (ip, ix, _c(rvals) if read_a else self._dummy(ta),
            _c(xvals) if read_x else self._dummy(tx), xp_arg, rws, np.int64(nlist), alw,
            np.int32(flags), outv, outp, self._sink))
        self.last_kernel = ("pull", read_a, early, masked)
        return outv, outp

    def _pack_bits(self, pres):
        """``pres`` (bool) packed one bit per position, little-endian within
        each byte (one kernel, no wait)."""
        n = pres.shape[0]
        with _OOM("a packed presence", (n + 7) // 8):
            out = cupy.empty((n + 7) // 8, dtype=np.uint8)
        if n:
            fn = self._fn(("pack_bits",), lambda: K.PACK_BITS, "pack_bits")
            fn(_grid_capped((n + 7) // 8), (K.BLOCK,), (_c(pres), np.int64(n), out))
        return out

    def _heavy_split(self, indptr, cache=None):
        """(light rows, hub rows) of a CSR structure -- the non-empty rows up
        to ``PULL_HEAVY_ROW`` entries long and the longer ones, int64 lists --
        or None when there is no hub row.  One device read; kept in the
        matrix's ``cache`` (dropped with the matrix or when it changes)."""
        key = ("heavy_split", indptr.data.ptr, indptr.shape[0])
        if cache is not None and key in cache:
            return cache[key]
        lens = indptr[1:].astype(np.int64) - indptr[:-1].astype(np.int64)
        big = lens > self.PULL_HEAVY_ROW
        split = None
        if bool(big.any()):
            split = (cupy.flatnonzero((lens > 0) & ~big), cupy.flatnonzero(big))
        if cache is not None:
            cache[key] = split
        return split

    def _plus_pull_case(self, R, x, semiring, rows, swap, out_dtype, structure_only, a_iso):
        """For an unmasked pull of a (plus, times) or (plus, x-only
        projection) product in float32/float64 over a vector with every entry
        present (PageRank's product): ("vals", R's values) or ("iso", the
        value every entry of R multiplies by); else None (another path)."""
        if rows is not None or not structure_only:
            return None
        mult, mon = semiring.mult, semiring.monoid
        if mon.is_user or mon.name != "plus" or mult.is_user or mult.positional is not None:
            return None
        out_dtype = np.dtype(out_dtype)
        xvals, xpres = x
        if out_dtype not in (np.dtype(np.float32), np.dtype(np.float64)) or \
                xpres is not None or xvals.dtype != out_dtype or xvals.ndim != 1:
            return None
        rvals = R[2]
        if R[1].shape[0] == 0:
            return None
        ra, rx = self._reads(semiring, swap)
        if mult.name == "times" and ra and rx:
            if rvals is not None:
                return ("vals", rvals) if rvals.dtype == out_dtype else None
            return None if a_iso is None else ("iso", out_dtype.type(a_iso))
        if mult.name in ("first", "second") and rx and not ra:
            return "iso", out_dtype.type(1)      # the product is x itself
        return None

    def _sum_lanes(self, nnz, nrows):
        """Lanes per row of spmv_sum: the power of two nearest half the mean
        row length, from 2 to 32 (SUM_PULL_LANES if set)."""
        if self.SUM_PULL_LANES:
            return int(self.SUM_PULL_LANES)
        mean = nnz / max(nrows, 1)
        lanes = 2
        while lanes < 32 and lanes * 2 <= mean / 2:
            lanes *= 2
        return lanes

    def _short_rows(self, indptr, cache=None):
        """True when the short-row kernel (spmv_sum) takes a matrix with
        these rows: SUM_PULL on and no row longer than SUM_PULL_MAX_ROW (the
        longest row found once per matrix and kept in ``cache``)."""
        if not self.SUM_PULL:
            return False
        if self.SUM_PULL_MAX_ROW is not None:
            key = ("max_row_length", indptr.data.ptr, indptr.shape[0])
            longest = cache.get(key) if cache is not None else None
            if longest is None:
                longest = self.max_row_length(indptr)
                if cache is not None:
                    cache[key] = longest
            if longest > self.SUM_PULL_MAX_ROW:
                return False
        return True

    def _sum_pull(self, R, x, semiring, rows, swap, out_dtype, structure_only, a_iso,
                  cache=None):
        """PageRank's product (the case of :meth:`_plus_pull_case`) by
        spmv_sum on a matrix whose rows are all short (SUM_PULL_MAX_ROW):
        structure only (an iso matrix's value compiled in), one launch, no
        fill, nothing waits on the device (the longest row,
        ``max_row_length``, is found once per matrix and kept in ``cache``).
        Returns (outv, outp) or None when the case does not apply."""
        if not self.SUM_PULL:
            return None
        case = self._plus_pull_case(R, x, semiring, rows, swap, out_dtype, structure_only,
                                    a_iso)
        if case is None:
            return None
        if not self._short_rows(R[0], cache):
            return None
        fn, head, nrows, lanes = self._sum_kernel(R, x[0], semiring, swap, out_dtype, case,
                                                  "spmv_sum")
        with _OOM("the pull SpMV output", nrows):
            outv = cupy.empty(nrows, dtype=out_dtype)     # read only where outp is set
            outp = cupy.empty(nrows, dtype=bool)
        if nrows:
            fn(_grid_capped(nrows * lanes), (K.BLOCK,), head + (outv, outp))
        self.last_kernel = ("pull", self._reads(semiring, swap)[0], False, False)
        return outv, outp

    def _sum_kernel(self, R, xvals, semiring, swap, out_dtype, case, name):
        """``(fn, head, nrows, lanes)``: kernel ``name`` of the spmv_sum
        module for R (``spmv_sum`` or ``spmv_sum_accum``), its arguments up
        to the row count, and its lanes per row."""
        tag, value = case
        indptr, indices, rvals = R
        out_dtype = np.dtype(out_dtype)
        xvals = _c(xvals)
        read_a = tag == "vals"
        ta = rvals.dtype if read_a else out_dtype
        iso = None if read_a else value
        lanes = self._sum_lanes(indices.shape[0], indptr.shape[0] - 1)
        key = ("spmv_sum", semiring.monoid, semiring.mult, ta, xvals.dtype, out_dtype,
               indptr.dtype, indices.dtype, bool(swap), _iso_key(iso), lanes)
        fn = self._fn(key, lambda: K.spmv_sum_source(semiring, ta, xvals.dtype, out_dtype,
                                                     indptr.dtype, indices.dtype, swap,
                                                     lanes, iso), name)
        nrows = indptr.shape[0] - 1
        return fn, (_c(indptr), _c(indices), _c(rvals) if read_a else self._dummy(ta),
                    np.int32(read_a), xvals, np.int64(nrows)), nrows, lanes

    def _cusparse_pull(self, R, x, semiring, rows, swap, out_dtype, structure_only, a_iso,
                       cache=None):
        """The unmasked pull of a (plus, times) or (plus, x-only projection)
        product in float32/float64 over a vector with every entry present --
        PageRank's iteration -- by cuSPARSE's SpMV, whose load balance holds
        on power-law rows where the warp-per-row kernel waits on a hub.
        Returns (outv, outp) or None when the case does not apply.  The
        cuSPARSE plan (the matrix descriptor, the work buffer and, for an
        iso matrix or a projection, a value array) is kept in the matrix's
        ``cache``, so it goes with the matrix (None: made for this call)."""
        if not self.CUSPARSE_PULL:
            return None
        case = self._plus_pull_case(R, x, semiring, rows, swap, out_dtype, structure_only,
                                    a_iso)
        if case is None:
            return None
        plan = self._cusparse_plan(R, case, out_dtype, x[0].shape[0], cache)
        if plan is None:
            return None
        _, run, has = plan
        nrows = R[0].shape[0] - 1
        with _OOM("the pull SpMV output", nrows):
            outv = cupy.empty(nrows, dtype=out_dtype)
            run(_c(x[0]), outv)
        self.last_kernel = ("pull", self._reads(semiring, swap)[0], False, False)
        return outv, has.copy()

    def _cusparse_plan(self, R, case, out_dtype, ncols, cache):
        """(cupyx matrix, run, rows with an entry) for cuSPARSE's SpMV of R
        with the values of ``case`` (see :meth:`_plus_pull_case`), kept in
        ``cache``; None where cuSPARSE cannot take R (64-bit indices, no
        entry)."""
        tag, value = case
        indptr, indices, rvals = R
        if indptr.dtype != np.int32 or indices.dtype != np.int32:
            return None
        out_dtype = np.dtype(out_dtype)
        nrows = indptr.shape[0] - 1
        key = ("cusparse", indptr.data.ptr, indices.data.ptr, nrows, ncols, indices.shape[0],
               out_dtype, tag, value.data.ptr if tag == "vals" else float(value))
        plan = None if cache is None else cache.get(key)
        if plan is None:
            from .krylov import _SpMV
            data = value if tag == "vals" else cupy.full(indices.shape[0], value,
                                                         dtype=out_dtype)
            with _OOM("the cuSPARSE pull's matrix"):
                A = _csp.csr_matrix((data, indices, indptr), shape=(nrows, ncols), copy=False)
                run, _ = _SpMV.make(A)
                has = indptr[1:] != indptr[:-1]
            if run is None:
                return None
            plan = (A, run, has)
            if cache is not None:
                cache[key] = plan
        return plan

    def pull_accum(self, R, xvals, semiring, accum, swap, old, own, cache=None, a_iso=None):
        """``old + T`` for PageRank's product T (the case of
        :meth:`_plus_pull_case`, accumulated with ``plus``) written into the
        output (``old`` itself when ``own``, else a new array) in one launch:
        on a matrix whose rows are all short, ``spmv_sum_accum`` (the
        short-row kernel of ``_sum_pull`` adding each row's sum to ``old``),
        else one cuSPARSE SpMV with beta = 1.  No product vector, no second
        pass.  None where neither can (the ordinary path then runs)."""
        if accum.is_user or accum.name != "plus" or old.dtype != xvals.dtype:
            return None
        case = self._plus_pull_case(R, (xvals, None), semiring, None, swap, old.dtype, True,
                                    a_iso)
        if case is None:
            return None
        if self._short_rows(R[0], cache):
            fn, head, nrows, lanes = self._sum_kernel(R, xvals, semiring, swap, old.dtype,
                                                      case, "spmv_sum_accum")
            src = _c(old)
            with _OOM("the pull SpMV output", nrows):
                y = old if own and src is old else cupy.empty_like(src)
            if nrows:
                fn(_grid_capped(nrows * lanes), (K.BLOCK,), head + (src, y))
            self.last_kernel = ("pull", self._reads(semiring, swap)[0], False, False)
            return y
        if not self.CUSPARSE_PULL:
            return None
        plan = self._cusparse_plan(R, case, old.dtype, xvals.shape[0], cache)
        if plan is None:
            return None
        with _OOM("the pull SpMV output", old.shape[0]):
            y = old if own else old.copy()
            plan[1](_c(xvals), y, accumulate=True)
        self.last_kernel = ("pull", self._reads(semiring, swap)[0], False, False)
        return y

    # ------------------------------------------------------------ mxv: push
    @staticmethod
    def _push_mode(semiring, out_dtype):
        """How push combines products (see kernels._PUSH), None for the
        generic sort/reduce path."""
        m = semiring.monoid
        if m.is_any:
            return 0 if (semiring.mult.name == "pair" and not semiring.mult.is_user) else 1
        if m.is_user:
            return None
        name = m.op.name
        if out_dtype == _BOOL:
            return 3 if name in ("lor", "max") else 4 if name in ("land", "min") else None
        if name in ("plus", "min", "max") and K.atomic_ok(out_dtype):
            return 2
        return None

    # a sparse frontier of fewer vertices takes push_offsets_small (its
    # degrees and their prefix sum in one single-block launch)
    PUSH_SMALL_SCAN = 1 << 14
    # a sparse frontier of at most this many: push_edges_fused (each block
    # scans the degrees itself; kernels.py PUSH_FUSED, the block size; 0:
    # never, for tests and benchmarks/push_offsets.py)
    PUSH_FUSED = 256
    # a bigger one: push_deg_blocks and push_scan_blocks (two launches; at
    # most this many blocks of 256 threads, each thread 8 or more entries;
    # 0: push_degrees and cupy.cumsum, the earlier way, for
    # benchmarks/push_offsets.py)
    PUSH_SCAN_BLOCKS = 1024

    def push(self, P, x, semiring, allowed, swap, out_dtype, n_out, structure_only=True,
             complement=False, max_row_length=None, a_iso=None):
        """Push as a dense result (the kernel's accumulator and flags): no
        compaction, nothing waits on the device.  ``x`` a SparseResult or a
        DenseVectorResult (a dense frontier as stored)."""
        return self.spmspv_push(P, x, semiring, allowed, swap, out_dtype, n_out,
                                structure_only=structure_only, as_result=True,
                                allowed_complement=complement, max_row_length=max_row_length,
                                a_iso=a_iso)

    def spmspv_push(self, P, x, semiring, allowed, swap, out_dtype, n_out, structure_only=True,
                    as_result=False, allowed_complement=False, max_row_length=None,
                    a_iso=None):
        """As :meth:`ArrayBackend.spmspv_push`; ``x`` may also be a
        :class:`DenseVectorResult` (values, presence) over the input positions;
        ``allowed_complement``: ``allowed`` marks the outputs left out.
        ``as_result``: return a result for the output rule (a
        DenseVectorResult from the kernel) instead of sorted (idx, vals).
        A dense frontier on a matrix whose rows are at most
        ``PUSH_VERTEX_MAX_DEGREE`` long (``max_row_length``, when the caller
        knows it) runs a thread per vertex, with no scan."""
        out_dtype = np.dtype(out_dtype)
        indptr, indices, pvals = P
        dense_x = isinstance(x, DenseVectorResult)
        if dense_x:
            xvals, xpres = x
            nf = indptr.shape[0] - 1
            xi = self._dummy(_I64)
        else:
            xidx, xvals = x
            nf = xidx.shape[0]
        mode = self._push_mode(semiring, out_dtype) if self._kernel_ok(semiring) else None
        if mode is None or nf >= _INT32_MAX:
            if allowed is not None and allowed_complement:
                allowed = ~allowed
            if dense_x:
                idx = cupy.arange(nf, dtype=np.int64) if xpres is None else cupy.flatnonzero(xpres)
                x = (idx, xvals[idx])
            P = self._with_iso(P, a_iso)
            with _OOM("the push SpMSpV (sort/reduce path)"):
                r = super().spmspv_push(P, tuple(x), semiring, allowed, swap, out_dtype, n_out,
                                        structure_only=structure_only)
            return SparseResult(*r) if as_result else r
        if nf == 0:
            r = (cupy.zeros(0, dtype=np.int64), cupy.zeros(0, dtype=out_dtype))
            return SparseResult(*r) if as_result else r
        ra, rx = self._reads(semiring, swap)
        keep = not structure_only and pvals is not None
        read_a = bool((ra or keep) and pvals is not None)
        read_x = bool(rx)
        if a_iso is not None and pvals is None and ra:
            ta, iso = np.asarray(a_iso).dtype, a_iso       # the value, compiled in
        else:
            ta, iso = (pvals.dtype if read_a else _BOOL), None
        tx = xvals.dtype if read_x else _BOOL
        ip, ix = _c(indptr), _c(indices)
        key = ("push", semiring.monoid, semiring.mult, ta, tx, out_dtype, ip.dtype, ix.dtype,
               bool(swap), mode, _iso_key(iso))
        build = lambda: K.push_source(semiring, ta, tx, out_dtype, ip.dtype, ix.dtype,  # noqa: E731
                                      swap, mode, iso)
        has_pres = dense_x and xpres is not None
        by_vertex = (dense_x and max_row_length is not None
                     and max_row_length <= self.PUSH_VERTEX_MAX_DEGREE)
        # a sparse frontier of at most PUSH_FUSED entries: one launch that
        # scans the row lengths itself (no offsets launch, no array)
        fused = not dense_x and nf <= self.PUSH_FUSED
        with _OOM("the push accumulator", n_out):
            if not dense_x:
                xi = _c(xidx.astype(np.int64, copy=False))
            if not by_vertex and not fused:
                deg_args = (ip, xi, np.int32(dense_x),
                            _c(xpres) if has_pres else self._dummy(_BOOL),
                            np.int32(has_pres), np.int64(nf))
                if nf < self.PUSH_SMALL_SCAN:     # degrees and their scan: one launch
                    off = cupy.empty(nf + 1, dtype=np.int64)
                    self._fn(key, build, "push_offsets_small")((1,), (1024,), deg_args + (off,))
                elif not self.PUSH_SCAN_BLOCKS:   # the earlier way, for comparison
                    d = cupy.empty(nf + 1, dtype=np.int64)
                    self._fn(key, build, "push_degrees")(_grid(nf + 1), (K.BLOCK,),
                                                         deg_args + (d,))
                    off = cupy.cumsum(d)
                else:                             # two launches, one allocation
                    per = max(8, -(-nf // (256 * self.PUSH_SCAN_BLOCKS)))
                    nb = -(-nf // (256 * per))
                    buf = cupy.empty(2 * nf + nb + 1, dtype=np.int64)
                    d, bsum, off = buf[:nf], buf[nf:nf + nb], buf[nf + nb:]
                    self._fn(key, build, "push_deg_blocks")((nb,), (256,),
                                                            deg_args + (np.int64(per), d, bsum))
                    self._fn(key, build, "push_scan_blocks")((nb,), (256,),
                                                             (d, bsum, np.int64(nf),
                                                              np.int64(per), off))
            if mode == 2:
                acc = cupy.full(n_out, _atomic_fill(semiring.monoid, out_dtype), dtype=out_dtype)
            elif mode == 4:
                acc = cupy.ones(n_out, dtype=out_dtype)
            elif mode == 3:
                acc = cupy.zeros(n_out, dtype=out_dtype)
            else:       # any: every flagged output is written; the rest are absent
                acc = cupy.empty(n_out, dtype=out_dtype)
            flags = cupy.zeros(n_out, dtype=bool)
            win = cupy.full(n_out, _INT32_MAX, dtype=np.int32) if mode == 1 else \
                self._dummy(_I32)
        if ix.shape[0]:
            pv = _c(pvals) if read_a else self._dummy(ta)
            xv = _c(xvals) if read_x else self._dummy(tx)
            alw = _c(allowed) if allowed is not None else self._dummy(_BOOL)
            has_alw = allowed is not None
            # the kernels' switches in one argument (kernels.py PUSH_SWITCHES)
            sw = (read_a | read_x << 1 | has_alw << 3
                  | (bool(allowed_complement) and has_alw) << 4 | keep << 5)
            if by_vertex:
                fn = self._fn(key, build, "push_vertices")
                args = [ip, ix, pv, _c(xpres) if has_pres else self._dummy(_BOOL), xv,
                        np.int64(nf)]
                sw |= has_pres << 2
                grid = _grid_capped(nf)
            elif fused:
                fn = self._fn(key, build, "push_edges_fused")
                args = [ip, ix, pv, xi, xv, np.int64(nf)]
                grid = _grid_capped(ix.shape[0])
            else:
                fn = self._fn(key, build, "push_edges")
                args = [ip, ix, pv, xi, xv, off, np.int64(nf)]
                sw |= dense_x << 2
                grid = _grid_capped(ix.shape[0])
            args += [alw, acc, flags, win, np.int32(0), np.int32(sw), self._sink]
            fn(grid, (K.BLOCK,), tuple(args))
            if mode == 1:
                args[-3] = np.int32(1)          # phase 1: the elected entries write
                fn(grid, (K.BLOCK,), tuple(args))
        self.last_kernel = ("push", read_a, None, allowed is not None)
        if as_result:
            return DenseVectorResult(acc, flags)
        with _OOM("the push result", n_out):
            idx = cupy.flatnonzero(flags)
            return idx, acc[idx]

    # ------------------------------------------------------------ mxm
    def spgemm(self, A, B, semiring, mask, out_dtype, shape):
        """The generic ESC path (expand, mask, sort, reduce) on the device,
        after checking that the expansion fits."""
        ai, aj, av = A
        bi, bj, bv = B
        if aj.shape[0]:
            blen = (bi[1:] - bi[:-1]).astype(np.int64)
            flops = int(blen[aj.astype(np.int64)].sum())
            self.check_alloc(flops * 48, f"SpGEMM's expansion of {flops} products")
        with _OOM("SpGEMM's expanded products"):
            return super().spgemm(A, B, semiring, mask, out_dtype, shape)

    def spgemm_memory(self):
        """Bytes the blocked SpGEMM sizes its blocks from: free device memory
        plus what CuPy's pool holds unused."""
        return self.max_alloc_bytes()

    def spgemm_reduce(self, A, B, semiring, mask, out_dtype, shape, op, op_dtype, monoid,
                      red_dtype, mask_csr=None):
        """The fused product-reduce kernel (gpu/spgemm.py) for plus-monoid
        products without a mask; other cases: the generic blocked path."""
        from .spgemm import spgemm_reduce
        with _OOM("the fused product-reduce workspace"):
            r = spgemm_reduce(self, A, B, semiring, mask, out_dtype, op, op_dtype, monoid,
                              red_dtype)
        if r is not None:
            return r
        with _OOM("the blocked product-reduce"):
            return super().spgemm_reduce(A, B, semiring, mask, out_dtype, shape, op, op_dtype,
                                         monoid, red_dtype, mask_csr)

    def edge_triangles(self, indptr, indices, sums=False):
        """C = A ∘ A² by one kernel over the entries (gpu/spgemm.py
        ``edge_common``; an index type other than int32/int64: the generic
        masked dot products); the per-vertex sums, when asked for, by the
        generic second pass over C."""
        from .spgemm import edge_common
        if indptr.dtype not in (_I32, _I64) or indices.dtype not in (_I32, _I64):
            return super().edge_triangles(indptr, indices, sums)
        with _OOM("the per-edge common-neighbour count"):
            c = edge_common(self, indptr, indices)
        return (c, self.triangle_sums(indptr, indices, c)) if sums else c

    def four_cliques(self, indptr, indices):
        """4-cliques containing each vertex (gpu/spgemm.py)."""
        from .spgemm import four_cliques
        with _OOM("the 4-clique count"):
            return four_cliques(self, indptr, indices)

    # mxm_reduce hands a structural mask stored sparse over as its CSR (no keys)
    dot_mask_csr = True

    def spgemm_reduce_dot(self, A, BT, semiring, mask_keys, out_dtype, shape, inner, op,
                          op_dtype, monoid, red_dtype, mask_csr=None):
        """The fused masked product -> row reduction.  When the reduction is
        the semiring's own built-in monoid in the product's type, without an
        ``apply``, on a type with atomics (triangle counting's plus_pair):
        one kernel whose threads add their dot product into its row by one
        atomic (``dot_masked_rows``), nothing stored per mask entry; other
        cases: the dot products, then the row reduction.  The mask: its
        sorted keys, or (``mask_keys`` None) its CSR ``mask_csr``, which the
        fused kernel reads as it is (``dot_masked_rows_csr``)."""
        out_dtype = np.dtype(out_dtype)
        sm = semiring.monoid
        if (op is not None or monoid.is_user or sm.is_user or sm.is_any
                or monoid.name != sm.name or np.dtype(red_dtype) != out_dtype
                or not K.atomic_ok(out_dtype) or not self._kernel_ok(semiring)):
            return super().spgemm_reduce_dot(A, BT, semiring, mask_keys, out_dtype, shape,
                                             inner, op, op_dtype, monoid, red_dtype, mask_csr)
        nm = mask_keys.shape[0] if mask_keys is not None else mask_csr[1].shape[0]
        nrows = shape[0]
        if nm == 0:
            return cupy.zeros(0, dtype=np.int64), cupy.zeros(0, dtype=out_dtype)
        with _OOM("the fused masked product's rows", nrows):
            outv = cupy.full(nrows, _atomic_fill(sm, out_dtype), dtype=out_dtype)
            outp = cupy.zeros(nrows, dtype=bool)
        self._dot_launch(A, BT, semiring, mask_keys, shape, outv, outp, rows=True,
                         mask_csr=mask_csr)
        rows = cupy.flatnonzero(outp)
        return rows, outv[rows]

    def _dot_launch(self, A, BT, semiring, mask_keys, shape, outv, outp, rows,
                    mask_csr=None):
        """The masked dot-product kernel over the mask entries ``mask_keys``:
        one value per entry into ``outv``/``outp`` (``dot_masked``), or, with
        ``rows``, each added into its row (``dot_masked_rows``; with
        ``mask_keys`` None, over the mask's CSR ``mask_csr``:
        ``dot_masked_rows_csr``).  Returns the int64 keys it ran over (None
        for a CSR mask)."""
        out_dtype = outv.dtype
        ai, aj, av = A
        bi, bj, bv = BT
        m = semiring.mult
        read_a = bool(m.reads_x and av is not None)
        read_b = bool(m.reads_y and bv is not None)
        ta = av.dtype if read_a else _BOOL
        tb = bv.dtype if read_b else _BOOL
        ai, aj, bi, bj = _c(ai), _c(aj), _c(bi), _c(bj)
        dtypes_ = (ta, tb, out_dtype, ai.dtype, aj.dtype, bi.dtype, bj.dtype)
        if mask_keys is None:
            mp, mj = _c(mask_csr[0]), _c(mask_csr[1])
            nm = mj.shape[0]
            mt = (mp.dtype, mj.dtype)
            fn = self._fn(("dot_rows_csr", semiring.monoid, m) + dtypes_ + mt,
                          lambda: K.dot_rows_csr_source(semiring, *dtypes_, *mt),
                          "dot_masked_rows_csr")
            fn(_grid(nm), (K.BLOCK,),
               (ai, aj, _c(av) if read_a else self._dummy(ta), np.int32(read_a),
                bi, bj, _c(bv) if read_b else self._dummy(tb), np.int32(read_b),
                mp, mj, np.int64(nm), np.int64(shape[0]), outv, outp))
            return None
        mk = _c(mask_keys.astype(np.int64, copy=False))
        nm = mk.shape[0]
        if rows:
            fn = self._fn(("dot_rows", semiring.monoid, m) + dtypes_,
                          lambda: K.dot_rows_source(semiring, *dtypes_), "dot_masked_rows")
        else:
            fn = self._fn(("dot", semiring.monoid, m) + dtypes_,
                          lambda: K.dot_source(semiring, *dtypes_), "dot_masked")
        fn(_grid(nm), (K.BLOCK,),
           (ai, aj, _c(av) if read_a else self._dummy(ta), np.int32(read_a),
            bi, bj, _c(bv) if read_b else self._dummy(tb), np.int32(read_b),
            mk, np.int64(nm), np.int64(shape[1]), outv, outp))
        return mk

    def count_ptr(self, indices, n):
        """The pointers of the counts of each value (a deferred transpose's
        row pointers): 32-bit atomics in one kernel, then a scan -- CuPy's
        ``bincount`` also reduces the array twice for its range checks and
        reads both results to the host."""
        nnz = indices.shape[0]
        if nnz >= 1 << 32:
            return super().count_ptr(indices, n)
        with _OOM("the counts of a transpose's rows", n):
            counts = cupy.zeros(n, dtype=np.uint32)
            ptr = cupy.zeros(n + 1, dtype=_I64)
        if nnz:
            ix = _c(indices)
            fn = self._fn(("count_values", ix.dtype), lambda: K.count_values_source(ix.dtype),
                          "count_values")
            fn(_grid_capped(nnz), (K.BLOCK,), (ix, np.int64(nnz), counts))
            cupy.cumsum(counts, dtype=_I64, out=ptr[1:])
        return ptr

    def dot_costs(self, ip, ix, bp, cp, mp, mj, ratio):
        """mxm's cost-model terms in one kernel and one read of two numbers
        (the generic path: about a dozen array passes over the mask entries
        and two reads; triangle counting's masked product at Kronecker 20
        decides over 15.7 million of them)."""
        nrows = ip.shape[0] - 1
        i64 = _I64
        ix, mj = _c(ix), _c(mj)
        out = cupy.zeros(2, dtype=np.uint64)
        fn = self._fn(("dot_costs", ix.dtype, mj.dtype),
                      lambda: K.dot_costs_source(ix.dtype, mj.dtype), "dot_costs")
        fn(_grid_capped(32 * max(nrows, 1)), (K.BLOCK,),
           (_c(ip.astype(i64, copy=False)), ix, _c(bp.astype(i64, copy=False)),
            _c(cp.astype(i64, copy=False)), _c(mp.astype(i64, copy=False)), mj,
            np.int64(nrows), np.int64(ratio), out))
        f, w = (int(a) for a in out.get())
        return f, w

    def spgemm_dot(self, A, BT, semiring, mask_keys, out_dtype, shape, inner):
        if not self._kernel_ok(semiring):
            with _OOM("the masked SpGEMM (vectorized path)"):
                return super().spgemm_dot(A, BT, semiring, mask_keys, out_dtype, shape, inner)
        out_dtype = np.dtype(out_dtype)
        nm = mask_keys.shape[0]
        if nm == 0:
            return mask_keys[:0], cupy.zeros(0, dtype=out_dtype)
        with _OOM("the masked SpGEMM output", nm):
            outv = cupy.zeros(nm, dtype=out_dtype)
            outp = cupy.zeros(nm, dtype=bool)
        mk = self._dot_launch(A, BT, semiring, mask_keys, shape, outv, outp, rows=False)
        with _OOM("the masked SpGEMM result", nm):
            sel = cupy.flatnonzero(outp)
            return mk[sel], outv[sel]

    _IDIV = {}

    def binary(self, op, x, y, out_dtype):
        """Integer ``div`` (the predefined one) as one elementwise kernel with
        the generic definition -- truncation toward zero, x / 0 the type's
        max, min or 0 (SuiteSparse's convention), min / -1 wrapping -- where
        the generic array formula is about fifteen CuPy calls (each a launch
        and microseconds of host time: FGLT's halvings); every other
        operator and type the generic way."""
        if op.name != "div" or op.is_user or not any(getattr(a, "ndim", 0) for a in (x, y)):
            return super().binary(op, x, y, out_dtype)
        dt = np.dtype(cupy.result_type(x, y))
        if dt.kind not in "iu":
            return super().binary(op, x, y, out_dtype)
        k = self._IDIV.get(dt)
        if k is None:
            c = K.ctype(dt)
            info = np.iinfo(dt)
            hi = f"(({c}){info.max}ULL)"
            if dt.kind == "u":
                body = f"z = (y == 0) ? (x == 0 ? ({c})0 : {hi}) : ({c})(x / y);"
            else:
                lo = f"(({c})(-{info.max}LL - 1))"
                body = (f"if (y == 0) z = (x == 0) ? ({c})0 : (x > 0 ? {hi} : {lo}); "
                        f"else if (y == -1) z = ({c})(0ULL - (unsigned long long)(long long)x); "
                        f"else z = ({c})(x / y);")
            k = self._IDIV[dt] = cupy.ElementwiseKernel(
                f"{dt.name} x, {dt.name} y", f"{dt.name} z", body, f"gb_int_div_{dt.name}")
        args = [cupy.asarray(a, dtype=dt) if isinstance(a, cupy.ndarray) or getattr(a, "ndim", 0)
                else dt.type(a) for a in (x, y)]
        return self.cast(k(*args), out_dtype)

    def dense_sparse_mm(self, avals, apres, B, ncols, semiring, out_dtype):
        """A dense A with every entry present times a CSR B over ``plus_times``
        on an integer type (A, B and the result of one type): one CuPy
        ``matmul`` with B made dense (k x ncols, k small: FGLT's net
        transform).  Integer sums wrap the same in any order, so the values
        are the saxpy path's; a column of B without entries is absent in
        every row.  Other cases: None (the caller converts A and takes
        saxpy)."""
        out_dtype = np.dtype(out_dtype)
        bi, bj, bv = B
        if (apres is not None or semiring.is_user or semiring.monoid.name != "plus"
                or semiring.mult.name != "times" or out_dtype.kind != "i" or avals.ndim != 2
                or avals.dtype != out_dtype or bv is None or bv.dtype != out_dtype
                or bi.shape[0] != avals.shape[1] + 1
                or avals.shape[1] * ncols > max(avals.shape[0] * ncols, 1 << 20)):
            # (B made dense must stay small next to the result: a short, wide
            # A times a big sparse B is saxpy's)
            return None
        m, kdim = avals.shape
        self.check_alloc(m * ncols * out_dtype.itemsize, f"mxm: a dense {m} x {ncols} result")
        with _OOM("the dense times sparse product", m * ncols):
            Bd = cupy.zeros((kdim, ncols), dtype=out_dtype)
            cols = bj.astype(np.int64)
            Bd[self.rows_of(bi, bj.shape[0]), cols] = bv      # (no repeated entry in a CSR)
            out = cupy.matmul(cupy.ascontiguousarray(avals), Bd)
            colp = cupy.zeros(ncols, dtype=bool)
            colp[cols] = True
            if bool(colp.all()):                              # (B is small: one short wait)
                return out, None
            return out, cupy.ascontiguousarray(cupy.broadcast_to(colp, (m, ncols)))

    def spmm(self, A, X, semiring, out_dtype):
        """Sparse A times dense X.  plus_times on floats: cuSPARSE.  Otherwise a
        generated kernel: *row-split* (a thread per (row, column of X)) or
        *merge* (a thread per (chunk of SPMM_CHUNK stored entries, column),
        rows cut by a chunk boundary combined atomically), merge when the mean
        row length is at least SPMM_CHUNK or a hub row is present; the choice
        is recorded as ``gb.stats`` "spmm"."""
        out_dtype = np.dtype(out_dtype)
        ai, aj, av = A
        m = ai.shape[0] - 1
        kdim, ncols = X.shape
        nnz = aj.shape[0]
        self.check_alloc(m * ncols * out_dtype.itemsize, f"the {m}x{ncols} SpMM result")
        with _OOM("the SpMM result", m * ncols):
            lens = ai[1:] - ai[:-1]
            pres = lens > 0
            if nnz == 0 or ncols == 0 or m == 0:
                return cupy.zeros((m, ncols), dtype=out_dtype), pres
            mult = semiring.mult
            if (not semiring.is_user and semiring.monoid.name == "plus" and mult.name == "times"
                    and av is not None and out_dtype.kind == "f" and X.dtype.kind == "f"
                    and nnz < _INT32_MAX):
                stats.record("spmm", "cusparse")
                S = _csp.csr_matrix((av.astype(out_dtype, copy=False),
                                     aj.astype(np.int32, copy=False),
                                     ai.astype(np.int32, copy=False)), shape=(m, kdim))
                Y = S @ cupy.ascontiguousarray(X, dtype=out_dtype)
                return cupy.ascontiguousarray(Y, dtype=out_dtype), pres
            if not self._kernel_ok(semiring):
                stats.record("spmm", "generic")
                return super().spmm(A, X, semiring, out_dtype)
            mean = nnz / m
            longest = int(lens.max())
            merge = (not semiring.monoid.is_any and K.atomic_ok(out_dtype)
                     and (mean >= self.SPMM_CHUNK
                          or (longest >= self.SPMM_HUB_MIN
                              and longest > self.SPMM_HUB_FACTOR * mean)))
            stats.record("spmm", "merge" if merge else "row-split")
            read_a = bool(mult.reads_x and av is not None)
            read_x = bool(mult.reads_y)
            ta = av.dtype if read_a else _BOOL
            tx = X.dtype if read_x else _BOOL
            ip, ix = _c(ai), _c(aj)
            key = ("spmm", semiring.monoid, mult, ta, tx, out_dtype, ip.dtype, ix.dtype, merge)
            build = lambda: K.spmm_source(semiring, ta, tx, out_dtype, ip.dtype, ix.dtype,  # noqa: E731
                                          merge)
            a_arg = _c(av) if read_a else self._dummy(ta)
            x_arg = _c(X) if read_x else self._dummy(tx)
            if merge:
                out = cupy.full((m, ncols), _atomic_fill(semiring.monoid, out_dtype),
                                dtype=out_dtype)
                nchunks = (nnz + self.SPMM_CHUNK - 1) // self.SPMM_CHUNK
                self._fn(key, build, "spmm_merge")(
                    _grid(nchunks * ncols), (K.BLOCK,),
                    (ip, ix, a_arg, np.int32(read_a), x_arg, np.int32(read_x), np.int64(m),
                     np.int64(ncols), np.int64(nnz), np.int64(self.SPMM_CHUNK), out))
                out = cupy.where(pres[:, None], out, out_dtype.type(0))
            else:
                out = cupy.zeros((m, ncols), dtype=out_dtype)
                self._fn(key, build, "spmm_row")(
                    _grid(m * ncols), (K.BLOCK,),
                    (ip, ix, a_arg, np.int32(read_a), x_arg, np.int32(read_x), np.int64(m),
                     np.int64(ncols), out))
            return out, pres


def _iso_key(v):
    """A cache key for an iso value (its bytes: NaN keys equal themselves)."""
    return None if v is None else np.asarray(v).tobytes()


def _describe(key):
    parts = []
    for p in key:
        if hasattr(p, "name") and not isinstance(p, np.dtype):
            parts.append(p.name)
        else:
            parts.append(str(p))
    return "(" + ", ".join(parts) + ")"
