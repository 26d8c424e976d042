"""The CPU backend (NumPy, SciPy and numba).

Bulk array expressions come from :class:`ArrayBackend` with ``xp = numpy``;
this class replaces the loop-shaped operations with numba kernels (early-exit
pull, masked push, masked dot-product SpGEMM) and the reductions with
``ufunc.reduceat``.  User-defined operators are compiled with numba once per
dtype and cached on the operator.
"""
import importlib
import threading

import numpy as np
import scipy.sparse as sp

from ... import dtypes
from ...errors import DomainMismatch, GraphBLASError, InvalidValue, MissingKernel
from ...results import CSRResult, DenseVectorResult, SparseResult
from .. import note_compile
from ..generic import ArrayBackend
from ..keys import split_keys

_LOGICAL = ("land", "lor", "lxor", "lxnor")
# multiplies whose bool-cast result equals their result computed on bool-cast operands
_BOOL_SAFE_MULT = frozenset(("first", "second", "pair", "any", "land", "lor", "lxor", "lxnor"))
# below this much work a kernel runs serially: the thread pool's fork/join
# costs more than it saves on small inputs
PARALLEL_WORK = 1 << 16
# pull's threshold (rows + scanned edges), higher: on a loaded machine a
# parallel region waits for a descheduled worker (several ms at 2 threads on
# the shared 2-core VM, where a BFS pull level of Kronecker 16 takes ~1 ms).
# (Checked again 2026-11-26: 2^17 made Kronecker 16's second level 0.86 ->
# 0.52 ms on the quiet VM, and 5 ms while another process held a core.)
PULL_PARALLEL_WORK = 1 << 19
# pull_accum by diagonals (cpu/diagonals.py) runs in threads only above this
# many threads (and above PULL_PARALLEL_WORK row-diagonal pairs)
DIAGONAL_PARALLEL_THREADS = 2
# push compacts its result by a pass over the accumulator's flags (instead
# of sorting the touched outputs) from 1/PUSH_SCAN_FRACTION of the outputs:
# sorting Kronecker 16's first level (9753 of 65536) took ~80 us, the pass ~30
PUSH_SCAN_FRACTION = 16
# ... and sorts up to this many touched outputs with NumPy's stable sort
# (timsort: the touched list of a frontier on a grid or mesh is nearly
# sorted, 598 outputs of an SSSP round on the 300x300 grid: 1.9 us against
# 6.4 us for the default sort; on a random order it is within 20% of it up
# to here, and slower beyond).  The outputs are distinct, so either sort
# gives the same order.
PUSH_STABLE_SORT = 4096
# ... unless the one-call kernel (cpu/rowops.py ``sort_take_clear``: an
# insertion sort that hands a list far from sorted to numba's sort, the
# gather and the workspace's clearing) takes them: an SSSP round on the
# 300x300 grid sorts ~300 touched outputs, a few pairs swapped (False: the
# NumPy sort, gather and clear, for tests and measurements)
PUSH_SORT_KERNEL = True


_kernel_module = None
_BOOL = np.dtype(bool)
_placeholders = {}


def _clear_flags(flags):
    """Clear a per-thread push accumulator's flags after a failure (an
    allocation inside the kernel or the collection): the next push in the
    thread reads them as "touched"."""
    flags[:] = False


def _placeholder(dt):
    """A 1-element array the kernels get for an operand they never read (flag
    off); shared, so a call allocates none.  Kernels never write to it."""
    a = _placeholders.get(dt)
    if a is None:
        a = _placeholders[dt] = np.zeros(1, dtype=dt)
    return a


def _guard(op, run):
    """numba compiles a user operator on its first call (per type signature):
    report a function it cannot compile as MissingKernel, naming the operator."""
    from numba.core.errors import NumbaError

    def call(*args):
        try:
            return run(*args)
        except NumbaError as e:
            import re
            lines = [ln.strip() for ln in re.sub(r"\x1b\[[0-9;]*m", "", str(e)).splitlines()]
            why = [ln for ln in lines if ln and not ln.startswith(("Failed in", "During:", "File"))]
            raise MissingKernel(f"cannot compile user operator {op.name!r} for the CPU with "
                                f"numba: {why[0] if why else lines[:1]}") from None
        except (GraphBLASError, MemoryError):
            raise
        except Exception as e:  # noqa: BLE001 - the user's function failed while running
            raise InvalidValue(f"user operator {op.name!r} raised {type(e).__name__} while "
                               f"computing: {e} (nothing was written)") from e
    return call


def _dt(vals):
    return None if vals is None else vals.dtype


class _UserKernels:
    """The specialised loop kernels of a semiring with user-defined operators,
    each call guarded like the user's elementwise kernels (a numba error names
    the semiring; an exception the function raises becomes InvalidValue).
    The "parallel" variants run the serial kernel on blocks of rows (pull) or
    mask entries (dot) in threads (the copies release the GIL), so that an
    exception in the user's function reaches the caller."""

    def __init__(self, semiring, ks):
        self.pull_serial = _guard(semiring, ks.pull_serial)
        self.push = _guard(semiring, ks.push)
        self.dot_serial = _guard(semiring, ks.dot_serial)
        pull, dot = ks.pull_serial, ks.dot_serial

        def pull_blocks(*args):     # args[9]: the rows
            rows = args[9]
            _in_threads(pull, [args[:9] + (rows[a:b],) + args[10:]
                               for a, b in _blocks(rows.shape[0])])

        def dot_blocks(*args):      # args[8:10]: mask rows/cols; args[15:17]: outputs
            _in_threads(dot, [args[:8] + (args[8][a:b], args[9][a:b]) + args[10:15]
                              + (args[15][a:b], args[16][a:b])
                              for a, b in _blocks(args[8].shape[0])])

        self.pull_parallel = _guard(semiring, pull_blocks)
        self.dot_parallel = _guard(semiring, dot_blocks)


_pool = None


def _blocks(n):
    """Contiguous blocks, a few per thread (rows of skewed graphs differ)."""
    from numba import get_num_threads
    k = max(1, min(n, 4 * get_num_threads()))
    bounds = np.linspace(0, n, k + 1).astype(np.int64)
    return list(zip(bounds[:-1], bounds[1:]))


def _in_threads(run, calls):
    """Run ``run(*args)`` for each args in threads; wait for all, then raise
    the first exception any of them raised."""
    global _pool
    if len(calls) == 1:
        run(*calls[0])
        return
    if _pool is None:
        from concurrent.futures import ThreadPoolExecutor
        from numba import get_num_threads
        _pool = ThreadPoolExecutor(max_workers=get_num_threads(),
                                   thread_name_prefix="graphblast-cpu")
    futures = [_pool.submit(run, *args) for args in calls]
    for f in futures:
        f.exception()           # waits
    for f in futures:
        f.result()              # the first exception, if any


def _first_line(e):
    import re
    lines = [ln.strip() for ln in re.sub(r"\x1b\[[0-9;]*m", "", str(e)).splitlines()]
    why = [ln for ln in lines if ln and not ln.startswith(("Failed in", "During:", "File"))]
    return why[0] if why else (lines[0] if lines else type(e).__name__)


def _kernels():
    global _kernel_module
    if _kernel_module is None:
        note_compile("cpu", "kernels")   # one INFO record per process: the cold start
        from . import kernels  # imported lazily: numba start-up only when needed
        _kernel_module = kernels
    return _kernel_module


_modules = {}


def _module(name):
    """cpu/<name>.py, imported on first use (numba start-up only when
    needed) and then kept: a function-level ``from .rowops import f`` costs
    ~0.7 us a call, and an SSSP round makes several."""
    mod = _modules.get(name)
    if mod is None:
        mod = _modules[name] = importlib.import_module("." + name, __package__)
    return mod


def _rowops():
    return _module("rowops")


def _diagonals():
    return _module("diagonals")


def _scatter_code(vals, op):
    """The monoid opcode of a scatter ``op`` ("min", "max", "plus") for the
    kernels: each position's values folded with the monoid's own loop
    operator (bool: land for min, lor for max)."""
    from ...operators import monoid as M
    if vals.dtype.kind == "b":
        return M.land.opcode if op == "min" else M.lor.opcode
    return {"min": M.min, "max": M.max, "plus": M.plus}[op].opcode

class CPUBackend(ArrayBackend):
    name = "cpu"
    xp = np
    # the auto direction (operations/mxv.py _choose), in units of one edge
    # that pull scans: measured per BFS level on Kronecker 14/16/18 and grids
    # (benchmarks/cpu.py --levels), one thread: push ~6 ns per frontier edge
    # (the accumulator scatter, the touched list and its sort), pull ~2.5 ns
    # per scanned edge and ~10 ns per allowed row.  The frontier's edges are
    # counted exactly (a gather over its indices: next to a hub a frontier
    # has 5-50x the mean degree, so d * nvals(u) chose push 2-6x too often)
    push_cost_weight = 2.4
    pull_row_cost = 4.0
    exact_push_edges = True
    # traversal speculation: one numba queue BFS (cpu/traverse.py) serves
    # the remaining levels of a BFS-shaped loop (operations/speculate.py)
    speculate = True
    # a Kronecker row block is cut from the whole graph here (kronecker_csr)
    KRON_CHUNK = None

    def __init__(self):
        self._user = {}

    relax = True

    def relax_rounds(self, P, semiring, out_dtype, a_iso, swap, frontier, dist, default, small,
                     max_rounds):
        """The rounds of the frontier Bellman-Ford recurrence after the
        sparse ``frontier`` ``(keys, values)``, from the dense distances
        ``dist`` ``(values, presence or None)``, for ``min_plus`` with the
        plain push's operands (``P`` the push operand, its iso value
        ``a_iso``): cpu/relax.py's kernel (its result, the offsets as
        lists; the push's accumulator and the working distances are
        per-thread workspaces, kept between runs).  None where the push would
        not run the predefined min_plus loop in ``out_dtype`` (the
        frontier's and the distances' type)."""
        pvals = P[2]
        fidx, fvals = frontier
        dvals, dpres = dist
        if (semiring.is_user or semiring.monoid.name != "min" or semiring.mult.name != "plus"
                or (a_iso is not None and not isinstance(a_iso, np.generic))
                or fvals.dtype != out_dtype or dvals.dtype != out_dtype):
            return None
        k, cd, ra, rx, _ = self._push_kernel_plan(semiring, out_dtype, pvals, a_iso, fvals.dtype,
                                                  swap, True)
        if k is not _kernel_module or cd != out_dtype or not rx:
            return None
        read_a = bool(ra and pvals is not None)
        a = self._operand(pvals, ra, cd) if a_iso is None else self._iso_operand(a_iso, cd)
        n = dvals.shape[0]
        w = getattr(self._ws, "relax", None)
        if w is None or w[0].shape[0] != n or w[0].dtype != out_dtype:
            w = (np.empty(n, dtype=out_dtype), np.empty(n, dtype=bool))
            self._ws.relax = w
        from .relax import relax_rounds
        ws = self._push_workspace(n, out_dtype)
        try:
            return relax_rounds(P[0], P[1], a, read_a, fidx, fvals, dvals, dpres, default,
                                swap, small, max_rounds, ws, w)
        except MemoryError:
            _clear_flags(ws[1])         # as the push does: a round's flags may be set
            raise

    def traverse(self, indptr, indices, frontier, visited, capacity, max_levels,
                 parents=False):
        """Every later level of a plain BFS from ``frontier`` (a vector's
        ``_view()``) outside ``visited`` (bool over the vertices, not
        changed): ``(order, offsets, complete, parents or None)`` with
        ``offsets`` on the host -- see cpu/traverse.py."""
        from .traverse import traverse
        if isinstance(frontier, SparseResult):
            start = frontier.keys
        elif frontier.present is None:
            start = np.arange(frontier.vals.shape[0], dtype=np.int64)
        else:
            start = np.flatnonzero(frontier.present)
        return traverse(indptr, indices, start, visited, capacity, max_levels, parents)

    def asarray(self, x, dtype=None):
        if hasattr(x, "get") and type(x).__module__.startswith("cupy"):
            x = x.get()   # a CuPy array handed to a CPU object
        return np.asarray(x, dtype=dtype)

    def sparse_matrix(self, indptr, indices, vals, shape):
        return sp.csr_matrix((vals, indices, indptr), shape=shape)

    # ------------------------------------------------------------ user operators
    def _jit(self, op):
        """The numba dispatcher of a user operator's function (one per operator)."""
        d = self._user.get(("jit", op))
        if d is None:
            from numba import njit
            note_compile("cpu", "user operator kernels")
            d = self._user[("jit", op)] = njit(op.func)
        return d

    def _jit_inline(self, op):
        """The user operator's function compiled to be inlined into the
        kernels that call it (so a loop over it vectorizes like a built-in)."""
        d = self._user.get(("inline", op))
        if d is None:
            from numba import njit
            d = self._user[("inline", op)] = njit(inline="always")(op.func)
        return d

    def _check_return(self, op, arg_dtypes, out_dtype):
        """Compile ``op`` for ``arg_dtypes`` and check what it returns: a
        number or bool (never a string or object, which numba would store as
        garbage), and no float silently truncated into an integer/bool output
        unless the operator's result type was given explicitly as a dtype."""
        key = ("ret", op, arg_dtypes, np.dtype(out_dtype))
        if key in self._user:
            return
        import numba
        from numba.core import types
        from numba.core.errors import NumbaError
        sig = tuple(a if isinstance(a, types.Type) else numba.from_dtype(np.dtype(a))
                    for a in arg_dtypes)
        d = self._jit(op)
        try:
            d.compile(sig)
        except NumbaError as e:
            raise MissingKernel(f"cannot compile user operator {op.name!r} for the CPU with "
                                f"numba for inputs {sig}: {_first_line(e)}") from None
        rt = next((s.return_type for s in d.nopython_signatures if tuple(s.args) == sig), None)
        if rt is not None:
            ins = ", ".join(str(a) for a in sig)
            if isinstance(rt, types.Complex) or not isinstance(rt, (types.Number, types.Boolean)):
                raise DomainMismatch(f"user operator {op.name!r} returns {rt} for ({ins}) inputs; "
                                     "an operator must return a number or a bool")
            out = np.dtype(out_dtype)
            explicit = isinstance(op.result, np.dtype)
            if isinstance(rt, types.Float) and out.kind in "iub" and not explicit:
                raise DomainMismatch(
                    f"user operator {op.name!r} returns {rt} for ({ins}) inputs but its result "
                    f"type is {op.result!r} ({out}): the value would be truncated; register it "
                    f"with result='float64' (or another dtype), or truncate explicitly in the "
                    f"function (e.g. x // 2)")
        self._user[key] = True

    def _compiled(self, key, builder):
        fn = self._user.get(key)
        if fn is None:
            try:
                fn = builder(self._jit_inline(key[1]))
            except Exception as e:  # noqa: BLE001 - report numba's reason clearly
                raise MissingKernel(f"cannot compile user operator {key[1].name!r} for the CPU "
                                    f"with numba: {e}") from e
            fn = _guard(key[1], fn)
            self._user[key] = fn
        return fn

    def user_binary(self, op, in_dtype, out_dtype):
        self._check_return(op, (in_dtype, in_dtype), out_dtype)
        run = self._compiled(("b", op), _kernels().compile_map2)

        def f(x, y):
            x, y = np.asarray(x, dtype=in_dtype), np.asarray(y, dtype=in_dtype)
            if x.ndim and y.ndim and x.shape != y.shape:
                x, y = np.broadcast_arrays(x, y)
            elif not x.ndim and not y.ndim:
                y = y.reshape(1)
            out = np.empty(x.shape if x.ndim else y.shape, dtype=out_dtype)
            run(np.ascontiguousarray(x).reshape(-1) if x.ndim else x,
                np.ascontiguousarray(y).reshape(-1) if y.ndim else y, out.reshape(-1))
            return out
        return f

    def user_unary(self, op, in_dtype, out_dtype):
        self._check_return(op, (in_dtype,), out_dtype)
        run = self._compiled(("u", op), _kernels().compile_map1)

        def f(x):
            out = np.empty(x.shape, dtype=out_dtype)
            run(np.ascontiguousarray(x).reshape(-1), out.reshape(-1))
            return out
        return f

    def user_indexunary(self, op, in_dtype, out_dtype):
        run = self._compiled(("i", op), _kernels().compile_map_index)

        def f(x, i, j, thunk):
            import numba
            self._check_return(op, (in_dtype, np.int64, np.int64, numba.typeof(thunk)),
                               out_dtype)
            n = i.shape[0]
            x = np.broadcast_to(x if x is not None else np.zeros(1, in_dtype), (n,))
            j = np.broadcast_to(np.asarray(j, dtype=np.int64), (n,))
            out = np.empty(n, dtype=out_dtype)
            run(np.ascontiguousarray(x), np.ascontiguousarray(i, dtype=np.int64),
                np.ascontiguousarray(j), thunk, out)
            return out
        return f

    # ------------------------------------------------------------ reductions
    def segment_reduce(self, monoid, vals, starts):
        if vals.shape[0] == 0:
            return vals[:0]
        name = monoid.op.name if not monoid.is_user else None
        if monoid.is_any or name in ("first", "any"):
            return vals[starts]
        if name == "second":
            ends = np.empty_like(starts)
            ends[:-1] = starts[1:] - 1
            ends[-1] = vals.shape[0] - 1
            return vals[ends]
        uf = None if monoid.is_user else monoid.op.ufunc   # the definition's array form
        if uf is not None:
            with np.errstate(over="ignore", invalid="ignore"):   # IEEE results, no warning
                r = getattr(np, uf).reduceat(vals, starts, axis=0)
            if r.dtype == vals.dtype:
                return r
            # a ufunc of another result type (logical_or on numbers): a
            # segment of one value is that value, as in a left fold (the GPU's,
            # and SuiteSparse's build), not its truth value
            r = r.astype(vals.dtype)
            ends = np.empty_like(starts)
            ends[:-1] = starts[1:]
            ends[-1] = vals.shape[0]
            one = (ends - starts) == 1
            r[one] = vals[starts[one]]
            return r
        if vals.ndim != 1:
            return np.stack([self.segment_reduce(monoid, np.ascontiguousarray(vals[:, t]), starts)
                             for t in range(vals.shape[1])], axis=1)
        # no ufunc (lxnor, user-defined): a numba loop over the operator's function
        out = np.empty(starts.shape[0], dtype=vals.dtype)
        self._check_return(monoid.op, (vals.dtype, vals.dtype), vals.dtype)
        run = self._compiled(("s", monoid.op), _kernels().compile_segment_reduce)
        run(vals, starts.astype(np.int64), out)
        return out

    def scatter_reduce(self, idx, vals, size, op):
        """One numba pass over the entries (``kernels.scatter_reduce_checked``,
        whose range test always passes here: the caller checked ``idx``):
        each position's values folded left to right with the monoid's own
        loop operator (min/max: fmin/fmax; bool: land/lor), presence set on
        the way; positions without an entry hold 0.  No sort, no fill pass."""
        out, pres, _ = self._scatter(np.ascontiguousarray(idx, dtype=np.int64), vals, size, op)
        return out, pres

    def scatter_reduce_in_range(self, idx, vals, size, op):
        """:meth:`scatter_reduce` whose numba pass also checks each index
        (one pass over the entries instead of a minimum/maximum pass and the
        scatter -- connected components' hooking, ``from_coo(f, mngf,
        dup_op=min)``); None for an index outside ``[0, size)`` (the partly
        written arrays are dropped) or an index array that is not int64."""
        if idx.dtype != np.int64 or idx.ndim != 1:
            return None
        out, pres, bad = self._scatter(idx, vals, size, op)
        return None if bad >= 0 else (out, pres)

    @staticmethod
    def _scatter(idx, vals, size, op):
        """``(out, pres, k)``: the scatter of both methods above (``k`` the
        position of the first index outside ``[0, size)``, else -1)."""
        out = np.zeros(size, dtype=vals.dtype)
        pres = np.zeros(size, dtype=bool)
        k = _kernels().scatter_reduce_checked(idx, np.ascontiguousarray(vals),
                                              _scatter_code(vals, op), out, pres)
        return out, pres, k

    def expand(self, counts):
        counts = counts.astype(np.int64, copy=False)
        seg = np.repeat(np.arange(counts.shape[0], dtype=np.int64), counts)
        ends = np.cumsum(counts)
        off = np.arange(seg.shape[0], dtype=np.int64) - np.repeat(ends - counts, counts)
        return seg, off

    def rows_of(self, indptr, nnz):
        counts = np.diff(indptr.astype(np.int64))
        return np.repeat(np.arange(counts.shape[0], dtype=np.int64), counts)

    # ------------------------------------------------------------ kernels
    def _kernel_ok(self, semiring, out_dtype):
        key = (semiring, out_dtype)
        ok = self._ok_cache.get(key)
        if ok is None:
            ok = self._ok_cache[key] = self._kernel_ok_uncached(semiring, out_dtype)
        return ok

    _ok_cache = {}

    def _kernel_ok_uncached(self, semiring, out_dtype):
        # The kernels compute each product in the output type.  That is exact
        # unless the output is bool (a logical monoid) and the multiply is not
        # bool-valued: lor_minus needs 2 - 1 = 1 -> True, not True - True.
        if out_dtype == dtypes.BOOL and semiring.mult.name not in _BOOL_SAFE_MULT:
            return False
        # numba widens unsigned products to uint64, and uint64 mixed with the int64
        # positional results becomes float64: 65535*65535 in uint16 came out 0
        if out_dtype.kind == "u":
            return False
        return (not semiring.is_user and self._mult_in_out_type(semiring.mult)
                and semiring.monoid.opcode >= 0)

    @staticmethod
    def _mult_in_out_type(mult):
        """A predefined multiply the kernels run: it has an opcode, and its
        product computed on operands cast to the output type is exact --
        not so for comparisons (eq on two bools cast from 2 and 3), which
        the vectorized path computes in the operands' type."""
        return mult.opcode >= 0 and (mult.result != "bool" or mult.name in _LOGICAL)

    def _loop_kernels(self, semiring, out_dtype, ta, tb):
        """The numba loop kernels (pull, push, dot) for ``semiring``: the
        module's opcode-dispatch kernels for predefined operators, copies
        specialised to the numba-compiled functions of user-defined ones
        (kernels.specialise, once per operator pair and process); None where
        the vectorized path must compute (``ta``/``tb``: operand types, None
        for an operand without values)."""
        key = (semiring, out_dtype, ta, tb)
        k = self._loop_cache.get(key)
        if k is None:
            k = self._loop_cache[key] = self._loop_kernels_uncached(semiring, out_dtype, ta, tb)
        return k or None

    _loop_cache = {}

    def _loop_kernels_uncached(self, semiring, out_dtype, ta, tb):
        if self._kernel_ok(semiring, out_dtype):
            return _kernels()
        mult, mon = semiring.mult, semiring.monoid
        user_mult, user_add = mult.is_user, mon.opcode < 0
        if not (user_mult or user_add) or out_dtype == dtypes.BOOL or out_dtype.kind == "u":
            return False
        if user_mult:
            # the kernels compute in the output type: the user's function must
            # see the operands in the type the vectorized path gives it
            if ta is None or tb is None or dtypes.result_type(ta, tb) != out_dtype:
                return False
            self._check_return(mult, (out_dtype, out_dtype), out_dtype)
        elif not self._mult_in_out_type(mult):
            return False
        if user_add:
            op = mon.op
            if op.func is None or not op.kernel or op.out_dtype(out_dtype, out_dtype) != out_dtype:
                return False
            self._check_return(op, (out_dtype, out_dtype), out_dtype)
        fkey = ("kernels", mon.op if user_add else None, mult if user_mult else None)
        ks = self._user.get(fkey)
        if ks is None:
            note_compile("cpu", "user operator kernels")
            ks = _kernels().specialise(self._jit_inline(mon.op) if user_add else None,
                                       self._jit_inline(mult) if user_mult else None)
            ks = self._user[fkey] = _UserKernels(semiring, ks)
        return ks

    @staticmethod
    def _compute_dtype(semiring, out_dtype):
        return dtypes.BOOL if semiring.mult.name in _LOGICAL else out_dtype

    @staticmethod
    def _operand(vals, read, cd):
        if read and vals is not None:
            return vals if vals.dtype == cd else vals.astype(cd)
        return _placeholder(cd)

    def _term(self, semiring, out_dtype):
        t = semiring.monoid.terminal(out_dtype)
        return (t, True) if t is not None else (out_dtype.type(0), False)

    @staticmethod
    def _iso_dtype(vals, a_iso):
        return np.asarray(a_iso).dtype if a_iso is not None else _dt(vals)

    def _iso_operand(self, a_iso, cd):
        """An iso matrix's one value for the kernels, which read ``avals[0]``
        when they do not index the values (read flag off); kept per value and
        type (the kernels never write it: an SSSP round on a unit-weight
        grid asks for the same one every time)."""
        key = (a_iso.__class__, a_iso, cd)
        try:
            return self._iso_cache[key]
        except (KeyError, TypeError):
            pass
        a = np.full(1, a_iso, dtype=np.asarray(a_iso).dtype).astype(cd)
        # (not NaN, never found again; not a zero: -0.0 and 0.0 are one key)
        if len(self._iso_cache) < 256 and a_iso == a_iso and a_iso != 0:
            try:
                self._iso_cache[key] = a
            except TypeError:
                pass
        return a

    _iso_cache = {}

    def spmv_pull(self, R, x, semiring, rows, swap, out_dtype, structure_only=True,
                  early_exit=True, a_iso=None):
        indptr, indices, rvals = R
        xvals, xpres = x
        k = self._loop_kernels(semiring, out_dtype, self._iso_dtype(rvals, a_iso), xvals.dtype)
        if k is None:
            return super().spmv_pull(R, x, semiring, rows, swap, out_dtype,
                                     structure_only=structure_only, early_exit=early_exit,
                                     a_iso=a_iso)
        nrows = indptr.shape[0] - 1
        cd = self._compute_dtype(semiring, out_dtype)
        ra, rx = self._reads(semiring, swap)
        keep = not structure_only and rvals is not None
        ra = ra or keep
        a = self._operand(rvals, ra, cd) if a_iso is None else self._iso_operand(a_iso, cd)
        xv = self._operand(xvals, True, cd) if rx else np.zeros(xvals.shape[0], dtype=cd)
        outv = np.zeros(nrows, dtype=out_dtype)
        outp = np.zeros(nrows, dtype=bool)
        masked = rows is not None
        if not masked:
            rows = np.arange(nrows, dtype=np.int64)
        term, has_term = self._term(semiring, out_dtype)
        # rows visited plus the edges they scan (a quarter with early exit, as
        # the direction's cost model counts them)
        exits = (has_term or semiring.monoid.is_any) and early_exit
        per_row = indices.shape[0] / max(nrows, 1) * (0.25 if exits else 1.0)
        work = rows.shape[0] * (1.0 + per_row)
        # (the threshold shrinks with more threads: 2 threads keep it)
        from numba import get_num_threads
        kernel = k.pull_parallel if work * get_num_threads() > 2 * PULL_PARALLEL_WORK \
            else k.pull_serial
        read_a = bool(ra and rvals is not None)
        kernel(indptr, indices, a, read_a, keep, self._sink, xv,
               xpres if xpres is not None else _placeholder(_BOOL), xpres is not None, rows,
               semiring.monoid.opcode, semiring.mult.opcode, swap, term, has_term and early_exit,
               semiring.monoid.is_any and early_exit, outv, outp)
        self.last_kernel = ("pull", read_a, early_exit, masked)
        return outv, outp

    _sink = np.zeros(1, dtype=bool)   # the kernels' dummy store target (keep_a)

    def spmspv_push(self, P, x, semiring, allowed, swap, out_dtype, n_out, structure_only=True,
                    a_iso=None):
        indptr, indices, pvals = P
        xidx, xvals = x
        k, cd, ra, rx, keep = self._push_kernel_plan(semiring, out_dtype, pvals, a_iso,
                                                     xvals.dtype, swap, structure_only)
        if k is None:
            return super().spmspv_push(P, x, semiring, allowed, swap, out_dtype, n_out,
                                       structure_only=structure_only, a_iso=a_iso)
        a = self._operand(pvals, ra, cd) if a_iso is None else self._iso_operand(a_iso, cd)
        xv = self._operand(xvals, True, cd) if rx else np.zeros(xidx.shape[0], dtype=cd)
        # the predefined kernels raise nothing but an allocation failure
        # (after which the flags are cleared whole): their dense accumulator
        # is a per-thread workspace, cleared at the touched positions after
        # use (a BFS level on a grid touches a few dozen of n outputs); a
        # user operator may raise mid-way, so its kernel gets fresh arrays
        ws = self._push_workspace(n_out, out_dtype) if k is _kernel_module else None
        outv, outp, touched = ws if ws is not None else (
            np.zeros(n_out, dtype=out_dtype), np.zeros(n_out, dtype=bool),
            np.empty(n_out, dtype=np.int64))
        read_a = bool(ra and pvals is not None)
        try:
            nt = k.push(indptr, indices, a, read_a, keep, self._sink, xidx, xv,
                        allowed if allowed is not None else _placeholder(_BOOL),
                        allowed is not None, semiring.monoid.opcode, semiring.mult.opcode,
                        swap, semiring.monoid.is_any, outv, outp, touched)
            self.last_kernel = ("push", read_a, None, allowed is not None)
            if nt * PUSH_SCAN_FRACTION >= n_out:
                # many outputs: one pass over the flags (sorted by position,
                # and clearing them) instead of sorting the touched list
                compact_clear = _rowops().compact_clear
                r = compact_clear(outp, outv, nt)
                if r is not None:
                    return r
            if ws is not None and PUSH_SORT_KERNEL:
                # the sort (insertion, linear on a grid's nearly sorted list),
                # the gather and the clearing of the workspace in one call
                sort_take_clear = _rowops().sort_take_clear
                r = sort_take_clear(touched, nt, outp, outv)
                if r is not None:
                    return r
            idx = np.sort(touched[:nt], kind="stable" if nt <= PUSH_STABLE_SORT else None)
            vals = outv[idx]
            if ws is not None:
                outp[idx] = False
            return idx, vals
        except MemoryError:
            if ws is not None:
                _clear_flags(outp)
            raise

    def _push_kernel_plan(self, semiring, out_dtype, pvals, a_iso, x_dtype, swap,
                          structure_only):
        """``(kernels, compute type, reads P's values, reads x, keep P's
        values)`` of a push: what depends only on the operators, types and
        flags, worked out once per signature (an SSSP round pushes with the
        same ones every time); an iso value that is not a NumPy scalar is
        worked out every call."""
        pk = None
        if a_iso is None or isinstance(a_iso, np.generic):
            pk = (semiring, out_dtype, None if pvals is None else pvals.dtype,
                  None if a_iso is None else a_iso.dtype, x_dtype, swap, structure_only)
            plan = self._push_plans.get(pk)
            if plan is not None:
                return plan
        k = self._loop_kernels(semiring, out_dtype, self._iso_dtype(pvals, a_iso), x_dtype)
        cd = self._compute_dtype(semiring, out_dtype)
        ra, rx = self._reads(semiring, swap)
        keep = not structure_only and pvals is not None
        plan = (k, cd, ra or keep, rx, keep)
        if pk is not None and len(self._push_plans) < 1024:
            self._push_plans[pk] = plan
        return plan

    def push_plan(self, P, semiring, out_dtype, a_iso, x_dtype, swap):
        """``run(P, xidx, xvals, n_out) -> (idx, vals)``: :meth:`spmspv_push`
        without a mask (structure only) for this semiring, output type,
        push operand ``P`` (its values' type), iso value and frontier type,
        with everything that depends only on them worked out here, once,
        and the push, sort and gather in one numba call
        (``kernels.push_collect``); ``run`` returns None where it does not
        apply to its arguments.  None for what the predefined kernels do not
        compute (user operators: they may raise mid-way)."""
        pvals = P[2]
        if a_iso is not None and not isinstance(a_iso, np.generic):
            return None
        k, cd, ra, rx, _ = self._push_kernel_plan(semiring, out_dtype, pvals, a_iso, x_dtype,
                                                  swap, True)
        if k is not _kernel_module:
            return None
        read_a = bool(ra and pvals is not None)
        iso = self._iso_operand(a_iso, cd) if a_iso is not None else None
        addop, multop, is_any = semiring.monoid.opcode, semiring.mult.opcode, \
            semiring.monoid.is_any
        noflags = _placeholder(_BOOL)
        operand = self._operand
        sink = self._sink

        def run(P, xidx, xvals, n_out):
            if not PUSH_SORT_KERNEL or xvals.dtype != x_dtype:
                return None
            a = operand(P[2], ra, cd) if iso is None else iso
            xv = operand(xvals, True, cd) if rx else np.zeros(xidx.shape[0], dtype=cd)
            outv, outp, touched = self._push_workspace(n_out, out_dtype)
            try:
                r = k.push_collect(P[0], P[1], a, read_a, sink, xidx, xv, noflags, addop,
                                   multop, swap, is_any, outv, outp, touched,
                                   PUSH_SCAN_FRACTION)
            except MemoryError:
                _clear_flags(outp)
                raise
            self.last_kernel = ("push", read_a, None, False)
            return r
        return run

    _ws = threading.local()
    _push_plans = {}

    def _push_workspace(self, n, dtype):
        """(values, presence all False, touched) of length ``n`` for this
        thread: one set per thread, reused while n and dtype stay the same."""
        w = getattr(self._ws, "push", None)
        if w is None or w[0].shape[0] != n or w[0].dtype != dtype:
            w = (np.zeros(n, dtype=dtype), np.zeros(n, dtype=bool), np.empty(n, dtype=np.int64))
            self._ws.push = w
        return w

    def spgemm_dot(self, A, BT, semiring, mask_keys, out_dtype, shape, inner):
        ai, aj, av = A
        bi, bj, bv = BT
        k = self._loop_kernels(semiring, out_dtype, _dt(av), _dt(bv))
        if k is None:
            return super().spgemm_dot(A, BT, semiring, mask_keys, out_dtype, shape, inner)
        if self._kernel_ok(semiring, out_dtype):
            from . import spgemm as k      # merge, or binary searches for unequal lengths
        mrows, mcols = split_keys(mask_keys, shape[1])
        cd = self._compute_dtype(semiring, out_dtype)
        m = semiring.mult
        outv = np.zeros(mask_keys.shape[0], dtype=out_dtype)
        outp = np.zeros(mask_keys.shape[0], dtype=bool)
        term, has_term = self._term(semiring, out_dtype)
        kernel = k.dot_parallel if mask_keys.shape[0] * 8 > PARALLEL_WORK else k.dot_serial
        kernel(ai, aj, self._operand(av, m.reads_x, cd), bool(m.reads_x and av is not None),
               bi, bj, self._operand(bv, m.reads_y, cd), bool(m.reads_y and bv is not None),
               mrows, mcols, semiring.monoid.opcode, m.opcode, term, has_term,
               semiring.monoid.is_any, outv, outp)
        return mask_keys[outp], outv[outp]

    def spgemm(self, A, B, semiring, mask, out_dtype, shape):
        """Gustavson SpGEMM (cpu/spgemm.py); other semirings: the generic ESC."""
        T = self.spgemm_result(A, B, semiring, mask, out_dtype, shape)
        if isinstance(T, SparseResult):
            return T.keys, T.vals
        ip, ix, v, iso = T
        keys = self.csr_to_keys(ip, ix, shape[1])
        return keys, (v if v is not None else np.full(keys.shape[0], iso, dtype=out_dtype))

    def spgemm_result(self, A, B, semiring, mask, out_dtype, shape, mask_csr=None):
        C = None
        if self._kernel_ok(semiring, out_dtype):
            note_compile("cpu", "kernels")
            from .spgemm import spgemm_csr
            C = spgemm_csr(self, A, B, semiring, mask, out_dtype, shape, PARALLEL_WORK, mask_csr)
        if C is None:
            return SparseResult(*super().spgemm(A, B, semiring, mask, out_dtype, shape))
        return CSRResult(*C)

    def saxpy_flop_cost(self, semiring, out_dtype):
        # Gustavson and the dot kernel broke even at 2-3 merge steps per product
        # (benchmarks/spgemm.py, Kronecker scale 12-14, 1 and 16 threads)
        return 3 if self._kernel_ok(semiring, out_dtype) else None

    # a block of the Gustavson kernel keeps no products, at most its output
    # (column + value per product, and the copy that joins the blocks)
    spgemm_bytes_per_product = 24

    def spgemm_reduce(self, A, B, semiring, mask, out_dtype, shape, op, op_dtype, monoid,
                      red_dtype, mask_csr=None):
        """The fused product-reduce kernel (cpu/spgemm.py); other cases: the
        generic blocked path."""
        if self._kernel_ok(semiring, out_dtype):
            note_compile("cpu", "kernels")
            from .spgemm import spgemm_reduce_csr
            r = spgemm_reduce_csr(self, A, B, semiring, mask, out_dtype, op, op_dtype, monoid,
                                  red_dtype, PARALLEL_WORK, mask_csr)
            if r is not None:
                return r
        return super().spgemm_reduce(A, B, semiring, mask, out_dtype, shape, op, op_dtype,
                                     monoid, red_dtype, mask_csr)

    dot_mask_csr = True

    def frontier_edges(self, indptr, x):
        """A frontier's edges in one numba pass (cpu/rowops.py; parallel
        over a long dense frontier); otherwise the generic count."""
        ro = _rowops()
        frontier_edges_dense, frontier_edges_sparse = (ro.frontier_edges_dense,
                                                       ro.frontier_edges_sparse)
        if isinstance(x, SparseResult):
            return frontier_edges_sparse(indptr, x.keys)
        if x.present is not None:
            e = frontier_edges_dense(indptr, x.present)
            if e is not None:
                return e
        return super().frontier_edges(indptr, x)

    def pull(self, R, x, semiring, allowed, swap, out_dtype, structure_only=True,
             early_exit=True, complement=False, a_iso=None, cache=None):
        """The allowed rows listed by one parallel scan (cpu/rowops.py) on
        long vectors (the complement taken in the same scan); otherwise the
        generic listing."""
        if allowed is not None:
            true_positions = _rowops().true_positions
            rows = true_positions(allowed, complement)
            if rows is not None:
                return DenseVectorResult(*self.spmv_pull(
                    R, x, semiring, rows, swap, out_dtype, structure_only=structure_only,
                    early_exit=early_exit, a_iso=a_iso))
        return super().pull(R, x, semiring, allowed, swap, out_dtype,
                            structure_only=structure_only, early_exit=early_exit,
                            complement=complement, a_iso=a_iso, cache=cache)

    def masked_merge(self, m, z, zp, c, cp):
        """The output rule's merge in one parallel pass (cpu/rowops.py) on
        long vectors; otherwise NumPy's ``where``."""
        masked_merge = _rowops().masked_merge
        r = masked_merge(m, z, zp, c, cp)
        return r if r is not None else super().masked_merge(m, z, zp, c, cp)

    def minmax(self, a):
        """One numba pass (cpu/rowops.py) instead
        of NumPy's two."""
        minmax = _rowops().minmax
        r = minmax(a)
        return r if r is not None else super().minmax(a)

    def all_equal(self, a, b):
        """One serial numba pass over blocks of the two arrays that stops at
        the first block with a difference (cpu/rowops.py ``all_equal``:
        connected components' ``gf_new.isequal(gf)`` of two full vectors
        differs in the first block in every iteration but the last)."""
        return _rowops().all_equal(a, b)

    def compare_at(self, op, va, keys, dv, dp, default, swap):
        """One numba pass (cpu/rowops.py ``compare_at``): the dense
        operand read at the keys, its default where it has no entry, and the
        comparison, without gathered arrays (SSSP's ``t < dist <t.S>``)."""
        if op.is_user:
            return None
        compare_at = _rowops().compare_at
        return compare_at(op.name, va, keys, dv, dp, default, swap)

    def compress_truthy(self, keys, vals, flags):
        """One numba pass (cpu/rowops.py ``compress_truthy``) instead of a
        bool conversion and two selections (SSSP's ``t <better.V>``)."""
        return _rowops().compress_truthy(keys, vals, flags)

    def take_checked(self, src, idx):
        """One numba pass (cpu/rowops.py ``take_checked``; parallel on long
        index arrays): the gather and the range check together."""
        take_checked = _rowops().take_checked
        return take_checked(src, idx)

    def minmax_into(self, op, x, y, p, out_dtype, dst):
        """One numba pass (cpu/rowops.py ``minmax_into``; parallel on long
        vectors) for the predefined ``min``/``max`` on integers of one type
        (exact: no rounding, no NaN) -- the output rule's accumulation into a
        full vector and ewise with one full operand (connected components'
        hooking), into a new array or over an operand -- instead of NumPy's
        two passes; None otherwise."""
        if op.is_user or op.name not in ("min", "max") or x.dtype != out_dtype:
            return None
        minmax_into = _rowops().minmax_into
        if dst is not None and ((dst is not x and np.may_share_memory(dst, x))
                                or (dst is not y and np.may_share_memory(dst, y))):
            dst = None          # (only the very operand array is safe to write over)
        return minmax_into(op.name, x, y, p, dst)

    def pull_accum(self, R, xvals, semiring, accum, swap, old, own, cache=None, a_iso=None):
        """``accum(old, T)`` where T is the pull product of ``R`` (the
        output's rows: A's CSR for mxv, its CSC for vxm) and the full
        vector values ``xvals``, for a full output ``old``: one numba pass
        (cpu/rowops.py ``pull_accum``) for a ``min``/``max`` semiring whose
        multiply returns x's value (``second`` in mxv, ``first`` in vxm),
        accumulated with the same operator, on integers of one type
        (order-free, exact); into ``old`` itself when ``own`` (the caller's
        to write) and ``xvals`` shares no memory with it.  None otherwise.

        A matrix whose entries lie on a few diagonals (a grid, a torus, a
        stencil: cpu/diagonals.py) is read by diagonals, without its index
        array: contiguous slices of ``xvals`` instead of a gather per entry
        (the plan is kept in ``cache``, the matrix's dict, when given)."""
        m = semiring.monoid
        if (semiring.is_user or accum.is_user or m.is_any or m.name not in ("min", "max")
                or accum.name != m.name or semiring.mult.name != ("first" if swap else "second")
                or xvals.dtype != old.dtype or old.dtype.kind not in "iu"
                or not self._pull_accum):
            return None
        indptr, indices = R[0], R[1]
        plan = self._diagonal_plan(indptr, indices, cache) if self._pull_diagonals else None
        from numba import get_num_threads
        nt = get_num_threads()
        if plan is not None:
            in_place = bool(own) and not np.may_share_memory(old, xvals)
            new = old if in_place else np.empty_like(old)
            # (serial up to 2 threads: a memory-bound pass gains little from
            # the second core of the 2-core VM and waits several ms for a
            # descheduled worker whenever another process holds one)
            work = old.shape[0] * (plan[0].shape[0] + 1)
            nblocks = nt * 4 if nt > DIAGONAL_PARALLEL_THREADS and work > PULL_PARALLEL_WORK \
                else 1
            _diagonals().pull_accum_diagonals(indptr, indices, xvals, m.name == "max",
                                              plan[0], plan[1], old, new, nblocks)
            return new
        pull_accum = _rowops().pull_accum
        work = old.shape[0] + indices.shape[0]
        return pull_accum(indptr, indices, xvals, m.name, old,
                          bool(own) and not np.may_share_memory(old, xvals),
                          work * nt > 2 * PULL_PARALLEL_WORK)

    #: the fused pull-and-accumulate of :meth:`pull_accum` (False: the
    #: ordinary product and the output rule, for tests and measurements)
    _pull_accum = True
    #: ... reading a matrix of few diagonals by diagonals (False: the CSR
    #: kernel, for tests and measurements)
    _pull_diagonals = True

    @staticmethod
    def _diagonal_plan(indptr, indices, cache):
        """cpu/diagonals.py's plan for this CSR (None: not a matrix of few
        diagonals), kept in ``cache`` (the matrix's dict, dropped when the
        matrix changes) with the arrays it was made from: worked out once
        per matrix contents."""
        if cache is not None:
            hit = cache.get("diagonals")
            if hit is not None and hit[0] is indptr and hit[1] is indices:
                return hit[2]
        plan = _diagonals().diagonal_plan(indptr, indices)
        if cache is not None:
            cache["diagonals"] = (indptr, indices, plan)
        return plan

    def fill_at(self, vals, pres, keys, s, starts=None):
        """With ``starts`` (a traversal's deferred level fills, one scalar per
        level): one numba pass over the keys (cpu/rowops.py) instead of
        NumPy's repeat of the scalars and fancy-indexed stores."""
        fill_segments = _rowops().fill_segments
        if starts is None or not fill_segments(vals, pres, keys, s, starts):
            super().fill_at(vals, pres, keys, s, starts)

    def copy_at(self, vals, pres, keys, src, last=False):
        """One numba pass over the keys (cpu/rowops.py: a BFS-with-parents
        traversal's deferred parent copies, ``Vector._update_dense``)
        instead of two fancy-indexed NumPy stores; the pass goes in key
        order, so with ``last`` a repeated key's last occurrence wins as it
        is."""
        if not _rowops().copy_at(vals, pres, keys, src):
            super().copy_at(vals, pres, keys, src, last)

    def assign_where(self, vals, pres, m, s):
        """One numba pass (cpu/rowops.py; parallel on long vectors) instead
        of NumPy's masked copy, which branches on every position."""
        assign_where = _rowops().assign_where
        if not assign_where(vals, pres, m, s):
            super().assign_where(vals, pres, m, s)

    def spgemm_one_term(self, A, B, semiring, out_dtype, shape):
        """A product with a diagonal matrix (``diag(d) B``, ``A diag(d)``) in
        one row-parallel pass (cpu/rowops.py) for the kernels' semirings;
        other one-term products: the generic gathers."""
        out_dtype = np.dtype(out_dtype)
        if self._kernel_ok(semiring, out_dtype) and not (
                out_dtype == np.uint64 and semiring.mult.name in ("min", "max")):
            from .rowops import diag_product
            from .spgemm import _operands
            a, read_a, b, read_b = _operands(self, semiring, out_dtype, A[2], B[2])
            i64 = np.int64
            r = diag_product((A[0].astype(i64, copy=False), A[1], None),
                             (B[0].astype(i64, copy=False), B[1], None), a, read_a, b, read_b,
                             semiring.mult.opcode, out_dtype, PARALLEL_WORK)
            if r is not None:
                ip, ix, v = r
                return CSRResult(ip.astype(dtypes.index_dtype(max(shape[1], ix.shape[0])),
                                           copy=False),
                                 ix.astype(dtypes.index_dtype(shape[1]), copy=False), v,
                                 out_dtype.type(1))
        return super().spgemm_one_term(A, B, semiring, out_dtype, shape)

    def spgemm_diag(self, A, B, semiring, out_dtype, shape, left):
        """A full diagonal operand: the row-parallel ``diag_product`` of
        :meth:`spgemm_one_term` (its own test of the diagonal is one pass
        on the host), else the generic gathers."""
        T = self.spgemm_one_term(A, B, semiring, out_dtype, shape)
        return T if T is not None else super().spgemm_diag(A, B, semiring, out_dtype, shape,
                                                            left)

    def dot_costs(self, ip, ix, bp, cp, mp, mj, ratio):
        """mxm's cost-model terms in one row-parallel pass (cpu/rowops.py)."""
        from .rowops import dot_costs
        return dot_costs(ip, ix, bp, cp, mp, mj, ratio, PARALLEL_WORK)

    def spgemm_reduce_dot(self, A, BT, semiring, mask_keys, out_dtype, shape, inner, op,
                          op_dtype, monoid, red_dtype, mask_csr=None):
        """The fused reduce over masked dot products (cpu/spgemm.py): nothing
        per mask entry is stored; other cases: the generic path.  The mask:
        its sorted keys, or (``mask_keys`` None) its CSR ``mask_csr``."""
        if self._kernel_ok(semiring, out_dtype):
            note_compile("cpu", "kernels")
            from .spgemm import spgemm_reduce_dot_csr
            r = spgemm_reduce_dot_csr(self, A, BT, semiring, mask_keys, out_dtype, shape, op,
                                      op_dtype, monoid, red_dtype, PARALLEL_WORK, mask_csr)
            if r is not None:
                return r
        return super().spgemm_reduce_dot(A, BT, semiring, mask_keys, out_dtype, shape, inner,
                                         op, op_dtype, monoid, red_dtype, mask_csr)

    def select_csr(self, op, indptr, indices, vals, iso, ncols, thunk):
        """Row-parallel select (cpu/rowops.py) for the predefined predicates:
        the positional ones with an integer thunk are tested in the kernel,
        the value ones (valuelt, ...) by one NumPy comparison first; user
        operators and iso values under a value test take the generic path."""
        if op.is_user:
            return None
        from .rowops import SELECT_CODES, select_csr
        if op.name in SELECT_CODES:
            if np.asarray(thunk).dtype.kind not in "ib":
                return None
            code, t, keep = op.name, int(thunk), None
        elif op.name.startswith("value") and vals is not None:
            keep = self.indexunary(op, vals, None, None, thunk, dtypes.BOOL)
            if getattr(keep, "shape", None) != vals.shape:
                return None
            code, t = None, 0
        else:
            return None
        note_compile("cpu", "kernels")
        ip, ix, v = select_csr(indptr, indices, vals, code, t, keep, PARALLEL_WORK)
        nnz = ix.shape[0]
        return CSRResult(ip.astype(dtypes.index_dtype(max(ncols, nnz)), copy=False), ix, v,
                         iso if v is None else None)

    def transpose_csr(self, indptr, indices, vals, nrows, ncols):
        """A counting sort (cpu/transpose.py) instead of the generic argsort."""
        note_compile("cpu", "kernels")
        from .transpose import transpose_csr
        return transpose_csr(indptr, indices, vals, nrows, ncols, PARALLEL_WORK)

    def edge_triangles(self, indptr, indices, sums=False):
        """Common neighbours per stored entry of a symmetric 0/1 pattern (and
        the per-vertex triangle sums): cpu/spgemm.py, by triangle listing."""
        note_compile("cpu", "kernels")
        from .spgemm import edge_triangles
        return edge_triangles(indptr, indices, sums, PARALLEL_WORK)

    def four_cliques(self, indptr, indices):
        """4-cliques containing each vertex of a symmetric 0/1 pattern (int64)."""
        note_compile("cpu", "kernels")
        from .spgemm import four_cliques
        return four_cliques(indptr, indices, PARALLEL_WORK)

    def rmat_edges(self, key, scale, nedges, t1, t2, t3):
        """The generic definition, one edge per parallel iteration (numba)."""
        note_compile("cpu", "kernels")
        from .generators import rmat_edges
        ii = np.empty(nedges, dtype=np.int64)
        jj = np.empty(nedges, dtype=np.int64)
        rmat_edges(np.uint64(key), scale, nedges, np.uint64(t1), np.uint64(t2), np.uint64(t3),
                   ii, jj)
        return ii, jj

    def kronecker_csr(self, key_edges, key_labels, scale, nedges, t1, t2, t3, permute,
                      lo=0, hi=None):
        """The generic definition with one key per undirected edge: a fused
        parallel pass (endpoints, relabelling, key), a sort of those keys and
        a counting pass that writes both directions (numba); half the keys
        to sort and to allocate, which is what costs most here.  A row range
        [lo, hi) is cut from the whole CSR (the host has the memory)."""
        n = 1 << scale
        if hi is not None and (lo > 0 or hi < n):
            indptr, indices = self.kronecker_csr(key_edges, key_labels, scale, nedges, t1, t2,
                                                 t3, permute)
            a, b = int(indptr[lo]), int(indptr[hi])
            return (indptr[lo:hi + 1] - indptr[lo]).astype(
                dtypes.index_dtype(max(n, b - a)), copy=False), indices[a:b].copy()
        note_compile("cpu", "kernels")
        from .generators import kronecker_upper, upper_to_symmetric_csr
        perm = self.random_labels(key_labels, scale) if permute else \
            _placeholder(np.dtype(np.int64))
        keys = np.empty(nedges, dtype=np.int64)
        kronecker_upper(np.uint64(key_edges), scale, nedges, np.uint64(t1), np.uint64(t2),
                        np.uint64(t3), perm, permute, keys)
        keys.sort()
        n = 1 << scale
        counts = np.zeros(n + 1, dtype=np.int64)
        nu = upper_to_symmetric_csr(keys, scale, counts, counts[:0], False)
        np.cumsum(counts, out=counts)
        indices = np.empty(2 * nu, dtype=dtypes.index_dtype(n))
        upper_to_symmetric_csr(keys[:nu], scale, counts, indices, True)
        return counts.astype(dtypes.index_dtype(max(n, 2 * nu)), copy=False), indices

    def csr_from_edge_keys(self, keys, n, lo=0, hi=None):
        """Sort in place, then dedupe and build the CSR in one numba pass (no
        full-size temporaries: fresh memory is what costs most here); a row
        range [lo, hi) takes the generic definition."""
        if hi is not None and (lo > 0 or hi < n):
            return super().csr_from_edge_keys(keys, n, lo, hi)
        note_compile("cpu", "kernels")
        from .generators import compact_sorted_keys
        keys.sort()
        indptr = np.empty(n + 1, dtype=dtypes.index_dtype(max(n, keys.shape[0])))
        indices = np.empty(keys.shape[0], dtype=dtypes.index_dtype(n))
        nnz = compact_sorted_keys(keys, keys.shape[0], max(n, 1), indptr, indices)
        return indptr, indices[:nnz]

    def random_labels(self, key, scale):
        note_compile("cpu", "kernels")
        from .generators import label_keys
        keys = np.empty(1 << scale, dtype=np.uint64)
        label_keys(np.uint64(key), scale, keys)
        return np.argsort(keys).astype(np.int64)

    def bisect_intervals(self, d, e2, k, a, b, pivmin, iters, atol):
        from .sturm import bisect_intervals
        out = np.empty(k.shape[0], dtype=np.float64)
        bisect_intervals(d, e2, k, a, b, pivmin, iters, atol, out)
        return out

    def dense_sparse_mm(self, avals, apres, B, ncols, semiring, out_dtype):
        """A dense A times a CSR B as a dense result (operations/mxm.py:
        FGLT's net transform, an n x 16 block times a 16 x 16 matrix) in one
        numba pass (cpu/spgemm.py); None for semirings the kernels do not
        compute exactly (the caller converts A and takes saxpy)."""
        out_dtype = np.dtype(out_dtype)
        if not self._kernel_ok(semiring, out_dtype) or out_dtype.kind == "u":
            return None
        m = avals.shape[0]
        self.check_alloc(m * ncols * (out_dtype.itemsize + 1),
                         f"mxm: a dense {m} x {ncols} result")
        from .spgemm import dense_sparse_mm
        return dense_sparse_mm(self, avals, apres, B, ncols, semiring, out_dtype, PARALLEL_WORK)

    def dense_columns_mm(self, cols, B, ncols, semiring, out_dtype):
        """The block of columns ``cols`` (1-D arrays of one length) times a
        CSR B as a dense result, read from the columns in one numba pass
        (cpu/spgemm.py: FGLT's stacking and net transform; the row-major block
        is never formed); None where the kernels do not compute it exactly."""
        out_dtype = np.dtype(out_dtype)
        if not self._kernel_ok(semiring, out_dtype) or out_dtype.kind == "u":
            return None
        m = cols[0].shape[0] if len(cols) else 0
        self.check_alloc(m * (ncols + len(cols)) * out_dtype.itemsize,
                         f"mxm: a dense {m} x {ncols} result")
        from .spgemm import dense_columns_mm
        return dense_columns_mm(self, cols, B, ncols, semiring, out_dtype, PARALLEL_WORK)

    def spmm(self, A, X, semiring, out_dtype):
        ai, aj, av = A
        if (semiring.name == "plus_times" and av is not None and out_dtype.kind == "f"
                and X.dtype.kind == "f"):
            m = ai.shape[0] - 1
            S = sp.csr_matrix((av, aj, ai), shape=(m, X.shape[0]))
            return np.asarray(S @ X, dtype=out_dtype), np.diff(ai) > 0
        return super().spmm(A, X, semiring, out_dtype)
