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
"""
import numpy as np

from .. import dtypes
from ..errors import OutOfMemory
from ..results import SparseResult
from .keys import split_keys


class ArrayBackend:
    name = "generic"
    xp = np
    # user operators run here only with a CUDA C expression (the GPU backend)
    needs_cuda_expr = False

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

    def cast(self, a, dtype):
        return a if a.dtype == dtype else a.astype(dtype)

    def check_alloc(self, nbytes, what):
        """Refuse absurd allocations before trying them."""
        if nbytes > self.max_alloc_bytes():
            raise OutOfMemory(f"{what} needs {nbytes / 2**30:.1f} GiB, more than the "
                              f"{self.max_alloc_bytes() / 2**30:.1f} GiB this {self.name} "
                              "device can provide")

    def max_alloc_bytes(self):
        try:
            import os
            return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (ValueError, OSError, AttributeError):  # pragma: no cover
            return 2**40

    # ------------------------------------------------------------ operators
    def unary(self, op, x, out_dtype):
        if op.is_user:
            return self.user_unary(op, x.dtype, out_dtype)(x)
        return self.cast(self.xp.asarray(op.vec(self.xp, x)), out_dtype)

    def binary(self, op, x, y, out_dtype):
        """Elementwise ``op(x, y)`` for non-positional operators; ``x``/``y``
        are arrays or scalars (``None`` where the operator does not read it)."""
        xp = self.xp
        if op.is_user:
            dt = dtypes.result_type(_dt(x), _dt(y))
            return self.cast(self.user_binary(op, dt, out_dtype)(x, y), out_dtype)
        if op.name == "pair":
            n = _len(x, y)
            return xp.ones(n, dtype=out_dtype) if n is not None else out_dtype.type(1)
        if op.name in ("first", "any", "second"):
            r = self.cast(xp.asarray(y if op.name == "second" else x), out_dtype)
            return self._fit(r, x, y)
        if op.result == "arith":
            if _dt(x) == dtypes.BOOL and _dt(y) == dtypes.BOOL:
                x = xp.asarray(x).astype(np.int64)
                y = xp.asarray(y).astype(np.int64)
        return self.cast(xp.asarray(op.vec(xp, x, y)), out_dtype)

    def _fit(self, r, x, y):
        """Broadcast ``r`` (computed from one operand) to the shape of both:
        ``first(s, array)`` with a bound scalar s is an array like the other."""
        shapes = [a.shape for a in (x, y) if a is not None and getattr(a, "ndim", 0) > 0]
        if not shapes:
            return r
        shape = shapes[0] if len(shapes) == 1 else np.broadcast_shapes(*shapes)
        if r.shape == shape:
            return r
        return self.xp.ascontiguousarray(self.xp.broadcast_to(r, shape))

    def mult(self, op, x, y, r, c, col, out_dtype):
        """Semiring product for a batch of terms ``x(r, c) (*) y(c, col)``:
        positional operators return ``r`` (firsti), ``c`` (firstj/secondi) or
        ``col`` (secondj); ``r``/``col`` may be callables producing the array
        lazily or the scalar 0 (the index of a vector's single column/row)."""
        if op.positional is not None:
            which = {"firsti": r, "firstj": c, "secondi": c, "secondj": col}[op.positional]
            which = which() if callable(which) else which
            n = _len(x, y, c)
            if not hasattr(which, "shape") or which.shape == ():
                return self.xp.full(n, which, dtype=out_dtype)
            return self.cast(which, out_dtype)
        return self.binary(op, x, y, out_dtype)

    def indexunary(self, op, x, i, j, thunk, out_dtype):
        if op.is_user:
            return self.cast(self.user_indexunary(op, _dt(x), out_dtype)(x, i, j, thunk),
                             out_dtype)
        return self.cast(self.xp.asarray(op.vec(self.xp, x, i, j, thunk)), out_dtype)

    def user_unary(self, op, in_dtype, out_dtype):  # pragma: no cover - backend specific
        raise NotImplementedError

    user_binary = user_indexunary = user_unary

    # ------------------------------------------------------------ reductions
    def segment_reduce(self, monoid, vals, starts):
        """Reduce ``vals`` over the contiguous segments beginning at ``starts``
        (non-empty, ascending) with ``monoid``."""
        raise NotImplementedError  # pragma: no cover - backend specific

    def reduce(self, monoid, vals, out_dtype):
        """Reduce a whole array to a host scalar (identity when empty)."""
        if vals.shape[0] == 0:
            return monoid.identity(out_dtype)
        vals = self.cast(vals, out_dtype)
        r = self.segment_reduce(monoid, vals, self.xp.zeros(1, dtype=np.int64))
        return self.to_host(r)[0]

    # ------------------------------------------------------------ structure
    def expand(self, counts):
        """For segments of the given lengths: (segment id, offset within the
        segment) of every element, in order."""
        xp = self.xp
        counts = counts.astype(np.int64, copy=False)
        ends = xp.cumsum(counts)
        total = int(ends[-1]) if ends.shape[0] else 0
        idx = xp.arange(total, dtype=np.int64)
        seg = xp.searchsorted(ends, idx, side="right")
        off = idx - (ends[seg] - counts[seg]) if total else idx
        return seg, off

    def argsort(self, keys):
        return self.xp.argsort(keys, kind="stable")

    def segment_starts(self, sorted_keys):
        """Offsets where a new run of equal keys begins."""
        xp = self.xp
        n = sorted_keys.shape[0]
        if n == 0:
            return xp.zeros(0, dtype=np.int64)
        flag = xp.empty(n, dtype=bool)
        flag[0] = True
        xp.not_equal(sorted_keys[1:], sorted_keys[:-1], out=flag[1:])
        return xp.flatnonzero(flag)

    def reduce_by_key(self, monoid, keys, vals, presorted=False):
        """Combine values of equal keys: returns (unique sorted keys, values)."""
        if not presorted:
            order = self.argsort(keys)
            keys = keys[order]
            vals = vals[order] if vals is not None else None
        starts = self.segment_starts(keys)
        if vals is None:
            return keys[starts], None
        if starts.shape[0] == keys.shape[0]:
            return keys, vals
        return keys[starts], self.segment_reduce(monoid, vals, starts)

    def member(self, keys, set_keys):
        """Boolean array: which of ``keys`` occur in sorted ``set_keys``."""
        xp = self.xp
        if set_keys.shape[0] == 0 or keys.shape[0] == 0:
            return xp.zeros(keys.shape[0], dtype=bool)
        pos = xp.searchsorted(set_keys, keys)
        pos = xp.minimum(pos, set_keys.shape[0] - 1)
        return set_keys[pos] == keys

    def locate(self, keys, set_keys):
        """(found mask, position in set_keys) for each of ``keys``."""
        xp = self.xp
        if set_keys.shape[0] == 0:
            return xp.zeros(keys.shape[0], dtype=bool), xp.zeros(keys.shape[0], dtype=np.int64)
        pos = xp.minimum(xp.searchsorted(set_keys, keys), set_keys.shape[0] - 1)
        return set_keys[pos] == keys, pos

    # ------------------------------------------------------------ sparse formats
    def rows_of(self, indptr, nnz):
        """Row index of every stored entry of a CSR structure."""
        xp = self.xp
        return xp.searchsorted(indptr[1:].astype(np.int64), xp.arange(nnz, dtype=np.int64),
                               side="right")

    def csr_to_keys(self, indptr, indices, ncols):
        rows = self.rows_of(indptr, indices.shape[0])
        return rows * np.int64(ncols) + indices.astype(np.int64)

    def keys_to_csr(self, keys, nrows, ncols):
        """Sorted unique keys -> (indptr, indices) with compact index dtypes."""
        xp = self.xp
        it = dtypes.index_dtype(max(ncols, keys.shape[0]))
        rows, cols = split_keys(keys, ncols)
        indptr = xp.searchsorted(rows, xp.arange(nrows + 1, dtype=np.int64)).astype(it)
        return indptr, cols.astype(dtypes.index_dtype(ncols))

    def coo_to_sorted(self, rows, cols, ncols, vals, dup):
        """Sort COO triples into keys order; ``dup`` is a BinaryOp/Monoid used
        to combine duplicates, or None to reject them (returns the first
        duplicate position for the error message)."""
        keys = rows.astype(np.int64) * np.int64(ncols) + cols.astype(np.int64)
        order = self.argsort(keys)
        keys = keys[order]
        vals = vals[order] if vals is not None else None
        starts = self.segment_starts(keys)
        if starts.shape[0] == keys.shape[0]:
            return keys, vals, None
        if dup is None:
            xp = self.xp
            flag = xp.ones(keys.shape[0], dtype=bool)
            flag[starts] = False
            first = int(xp.flatnonzero(flag)[0])
            return keys, vals, int(keys[first])
        if vals is None:
            return keys[starts], None, None
        return keys[starts], self.segment_reduce_op(dup, vals, starts), None

    def segment_reduce_op(self, op, vals, starts):
        """Like segment_reduce but with any BinaryOp, applied left to right
        (e.g. ``dup_op=minus``: 10, 2, 3 -> 5)."""
        from ..operators.core import Monoid
        if op.is_user or op.name in _SEGMENT_MONOID_OPS:
            return self.segment_reduce(Monoid(op, 0, None), vals, starts)
        return self._segment_fold(op, vals, starts)

    def _segment_fold(self, op, vals, starts):
        """Left-to-right fold of a predefined BinaryOp over each segment,
        vectorized across segments: one step per position within a segment
        (the loop runs max-segment-length times, not per element)."""
        xp = self.xp
        n = vals.shape[0]
        if starts.shape[0] == 0:
            return vals[:0]
        starts = starts.astype(np.int64, copy=False)
        ends = xp.empty_like(starts)
        ends[:-1] = starts[1:]
        ends[-1] = n
        lens = ends - starts
        acc = vals[starts].copy()
        for t in range(1, int(lens.max())):
            live = xp.flatnonzero(lens > t)
            acc[live] = self.binary(op, acc[live], vals[starts[live] + t], vals.dtype)
        return acc

    def transpose_csr(self, indptr, indices, vals, nrows, ncols):
        """CSR of the transpose (= CSC of the matrix), stable in row order."""
        xp = self.xp
        nnz = indices.shape[0]
        rows = self.rows_of(indptr, nnz)
        cols = indices.astype(np.int64)
        order = self.argsort(cols)
        t_indices = rows[order].astype(dtypes.index_dtype(nrows))
        counts = xp.bincount(cols, minlength=ncols) if nnz else xp.zeros(ncols, dtype=np.int64)
        t_indptr = xp.zeros(ncols + 1, dtype=indptr.dtype if nnz < 2**31 - 1 else np.int64)
        xp.cumsum(counts, out=t_indptr[1:])
        return t_indptr, t_indices, (vals[order] if vals is not None else None)

    def gather_rows(self, indptr, rows):
        """Positions of every stored entry of the listed rows, with the list
        position each came from: (seg, pos)."""
        rows = rows.astype(np.int64, copy=False)
        start = indptr[rows].astype(np.int64)
        lens = indptr[rows + 1].astype(np.int64) - start
        seg, off = self.expand(lens)
        return seg, start[seg] + off

    # ------------------------------------------------------------ mxv / vxm
    def product(self, mult, x, y, r, c, col, out_dtype, n):
        """Batch of ``n`` semiring products ``x (*) y`` cast to ``out_dtype``;
        positional operators take ``r``/``c``/``col`` (see :meth:`mult`)."""
        if mult.positional is not None:
            p = self.mult(mult, x, y, r, c, col, out_dtype)
        elif mult.name == "pair" or (x is None and y is None):
            return self.xp.ones(n, dtype=out_dtype)
        else:
            p = self.binary(mult, x, y, out_dtype)
        if not hasattr(p, "shape") or p.shape == ():
            p = self.xp.full(n, p, dtype=out_dtype)
        return self.cast(p, out_dtype)

    def _vec_product(self, semiring, mat_vals, vec_vals, r, c, swap, out_dtype, n):
        # mxv: A(r, c) (*) x(c)  -> firsti=r, firstj=secondi=c, secondj=0
        # vxm: x(c) (*) A(c, r)  -> firsti=0, firstj=secondi=c, secondj=r
        if swap:
            return self.product(semiring.mult, vec_vals, mat_vals, 0, c, r, out_dtype, n)
        return self.product(semiring.mult, mat_vals, vec_vals, r, c, 0, out_dtype, n)

    @staticmethod
    def _reads(semiring, swap):
        """(reads matrix values, reads vector values)"""
        m = semiring.mult
        return (m.reads_y, m.reads_x) if swap else (m.reads_x, m.reads_y)

    # backend-level hook: the variant the last spmv_pull/spmspv_push ran, as
    # (kind, reads matrix values, early exit (None for push), mask used in the kernel)
    last_kernel = None

    def spmv_pull(self, R, x, semiring, rows, swap, out_dtype, structure_only=True,
                  early_exit=True):
        """Pull: ``w(r) = add_c R(r,c) (*) x(c)`` for the rows ``rows`` (int64
        array) or all rows (None).  ``R = (indptr, indices, vals)`` (vals None
        when not read); ``x = (vals, present)`` dense (present None: all
        present).  ``swap``: x is the first operand of the product (vxm).
        ``structure_only=False``: load R's values even when the multiply
        ignores them; ``early_exit=False``: no row stops at the monoid's
        terminal value (this vectorised path never stops early anyway).
        Returns (vals, present) dense over all rows of R."""
        xp = self.xp
        indptr, indices, rvals = R
        nrows = indptr.shape[0] - 1
        xvals, xpres = x
        masked = rows is not None
        if not masked:
            rows = xp.arange(nrows, dtype=np.int64)
        seg, pos = self.gather_rows(indptr, rows)
        c = indices[pos].astype(np.int64)
        if xpres is not None:
            keep = xpres[c]
            seg, pos, c = seg[keep], pos[keep], c[keep]
        ra, rx = self._reads(semiring, swap)
        a = rvals[pos] if ((ra or not structure_only) and rvals is not None) else None
        self.last_kernel = ("pull", a is not None, False, masked)
        a = a if ra else None
        b = xvals[c] if rx else None
        prod = self._vec_product(semiring, a, b, lambda: rows[seg], c, swap, out_dtype,
                                 c.shape[0])
        starts = self.segment_starts(seg)
        out = xp.zeros(nrows, dtype=out_dtype)
        pres = xp.zeros(nrows, dtype=bool)
        if starts.shape[0]:
            hit = rows[seg[starts]]
            out[hit] = self.segment_reduce(semiring.monoid, prod, starts)
            pres[hit] = True
        return out, pres

    def spmspv_push(self, P, x, semiring, allowed, swap, out_dtype, n_out, structure_only=True):
        """Push: for every stored x(c), scatter ``P(c, r) (*) x(c)`` into w(r),
        ``P = (indptr, indices, vals)`` (the columns of A for mxv, its rows for
        vxm).  ``x = (idx, vals)`` sparse; ``allowed`` an optional bool array
        over outputs (the mask, applied to products before reduction).
        ``structure_only=False``: load P's values even when the multiply
        ignores them.  Returns (idx, vals) sparse, sorted."""
        indptr, indices, pvals = P
        xidx, xvals = x
        seg, pos = self.gather_rows(indptr, xidx)
        r = indices[pos].astype(np.int64)
        if allowed is not None:
            keep = allowed[r]
            seg, pos, r = seg[keep], pos[keep], r[keep]
        ra, rx = self._reads(semiring, swap)
        a = pvals[pos] if ((ra or not structure_only) and pvals is not None) else None
        self.last_kernel = ("push", a is not None, None, allowed is not None)
        a = a if ra else None
        b = xvals[seg] if rx else None
        prod = self._vec_product(semiring, a, b, r, xidx[seg], swap, out_dtype, r.shape[0])
        if semiring.monoid.is_any:
            order = self.argsort(r)
            r, prod = r[order], prod[order]
            starts = self.segment_starts(r)
            return r[starts], prod[starts]
        return self.reduce_by_key(semiring.monoid, r, prod)

    # ------------------------------------------------------------ mxm
    def spgemm(self, A, B, semiring, mask, out_dtype, shape):
        """Saxpy / ESC SpGEMM: expand all products, filter by the mask
        (``mask = (keys, complement)`` or None), sort, reduce.
        A, B: (indptr, indices, vals) with vals None when not read.
        Returns (keys, vals)."""
        ai, aj, av = A
        bi, bj, bv = B
        n = shape[1]
        arow = self.rows_of(ai, aj.shape[0])
        k = aj.astype(np.int64)
        blen = (bi[1:] - bi[:-1]).astype(np.int64)
        seg, off = self.expand(blen[k])
        bpos = bi[:-1].astype(np.int64)[k][seg] + off
        i = arow[seg]
        j = bj[bpos].astype(np.int64)
        keys = i * np.int64(n) + j
        if mask is not None:
            mkeys, comp = mask
            keep = self.member(keys, mkeys)
            if comp:
                keep = ~keep
            seg, bpos, i, j, keys = seg[keep], bpos[keep], i[keep], j[keep], keys[keep]
        mult = semiring.mult
        a = av[seg] if (av is not None and mult.reads_x) else None
        b = bv[bpos] if (bv is not None and mult.reads_y) else None
        p = self.product(mult, a, b, i, lambda: k[seg], j, out_dtype, keys.shape[0])
        return self.reduce_by_key(semiring.monoid, keys, p)

    def spgemm_result(self, A, B, semiring, mask, out_dtype, shape, mask_csr=None):
        """:meth:`spgemm` as a result for the output rule (operations/output.py):
        ``SparseResult(keys, vals)`` here; a backend whose kernel builds CSR
        returns ``CSRResult(indptr, indices, vals, iso)`` and saves the
        conversion.  ``mask_csr``: the mask's (indptr, indices) when the caller
        has them for free (a structural mask), else None."""
        keys, vals = self.spgemm(A, B, semiring, mask, out_dtype, shape)
        return SparseResult(keys, vals)

    def saxpy_flop_cost(self, semiring, out_dtype):
        """mxm's cost model: one saxpy product of :meth:`spgemm_result` in
        merge steps of :meth:`spgemm_dot`, or None for the default
        (``operations.mxm.SAXPY_FLOP_COST``, measured for the ESC path)."""
        return None

    def spgemm_dot(self, A, BT, semiring, mask_keys, out_dtype, shape, inner):
        """Masked dot-product SpGEMM: for each (i, j) in ``mask_keys`` (sorted),
        ``add_k A(i,k) (*) B(k,j)`` with B given by the rows of its transpose
        ``BT`` (n x k).  Generic version: ESC restricted to the mask."""
        ti, tj, tv = BT
        B = self.transpose_csr(ti, tj, tv, shape[1], inner)
        return self.spgemm(A, B, semiring, (mask_keys, False), out_dtype, shape)

    def spmm(self, A, X, semiring, out_dtype):
        """Sparse A (CSR, vals None when not read) times a dense block X (2-D,
        every entry present): returns (dense m x ncols array, row presence)."""
        xp = self.xp
        ai, aj, av = A
        m = ai.shape[0] - 1
        ncols = X.shape[1]
        nnz = aj.shape[0]
        out = xp.zeros((m, ncols), dtype=out_dtype)
        pres = (ai[1:] - ai[:-1]) > 0
        if nnz == 0 or ncols == 0:
            return out, pres
        rows = self.rows_of(ai, nnz)
        k = aj.astype(np.int64)
        mult = semiring.mult
        if mult.positional is not None:
            cols = xp.arange(ncols, dtype=np.int64)[None, :]
            which = {"firsti": rows[:, None], "firstj": k[:, None], "secondi": k[:, None],
                     "secondj": cols}[mult.positional]
            p = xp.broadcast_to(which, (nnz, ncols)).astype(out_dtype)
        elif mult.name == "pair" or (not mult.reads_x and not mult.reads_y):
            p = xp.ones((nnz, ncols), dtype=out_dtype)
        else:
            a = av[:, None] if (mult.reads_x and av is not None) else None
            b = X[k] if mult.reads_y else None
            p = xp.broadcast_to(self.binary(mult, a, b, out_dtype), (nnz, ncols))
        p = xp.ascontiguousarray(p)
        starts = self.segment_starts(rows)
        out[rows[starts]] = self.segment_reduce(semiring.monoid, p, starts)
        return out, pres

    def lanczos_fused(self):
        """Fused kernels for a one-set Lanczos step, or None: the array
        expressions of ``backend/krylov.py`` are used as they are."""
        return None

    # ------------------------------------------------------------ tridiagonal eigenvalues
    def sturm_count(self, d, e2, x, pivmin):
        """For every shift ``x[k]``: the number of eigenvalues of the symmetric
        tridiagonal T (diagonal ``d``, squared off-diagonal ``e2``) below
        ``x[k]``, i.e. the number of negative pivots of the LDL^T factorisation
        of T - x[k] I; a pivot smaller than ``pivmin`` in magnitude becomes
        ``-pivmin``.  This is the count that Demmel, Dhillon and Ren (1995)
        prove monotone in x in IEEE arithmetic.  Vectorised over the shifts;
        the recurrence runs over the rows."""
        xp = self.xp
        q = d[0] - x
        q = xp.where(xp.abs(q) < pivmin, -pivmin, q)
        count = (q < 0).astype(np.int64)
        for i in range(1, d.shape[0]):
            q = (d[i] - x) - e2[i - 1] / q
            q = xp.where(xp.abs(q) < pivmin, -pivmin, q)
            count += q < 0
        return count

    def bisect_intervals(self, d, e2, k, a, b, pivmin, iters, atol):
        """Bisection for eigenvalue indices ``k`` (ascending order, 0-based)
        from brackets with count(a) <= k < count(b): every interval is halved
        ``iters`` times (all at once: one Sturm count per step for all of
        them) or until narrower than ``atol``.  Returns the midpoints."""
        xp = self.xp
        for _ in range(iters):
            mid = 0.5 * (a + b)
            up = self.sturm_count(d, e2, mid, pivmin) > k
            a, b = xp.where(up, a, mid), xp.where(up, mid, b)
        return 0.5 * (a + b)

    def sturm_bisect(self, d, e, lo=None, hi=None, tol=0.0):
        """Eigenvalues in ``[lo, hi)`` (None: unbounded) of the symmetric
        tridiagonal matrix with diagonal ``d`` and off-diagonal ``e``,
        ascending, by Sturm-count bisection (LAPACK dstebz's brackets and
        pivot guard; Lessig's data-parallel formulation: all intervals at
        once).  ``tol``: absolute accuracy; <= 0 means 2 eps ||T||."""
        xp = self.xp
        d = xp.asarray(d, dtype=np.float64)
        e = xp.asarray(e, dtype=np.float64)
        n = d.shape[0]
        if n == 0:
            return xp.zeros(0, dtype=np.float64)
        e2 = e * e
        ae = xp.abs(e)
        r = xp.zeros(n, dtype=np.float64)
        r[:-1] += ae
        r[1:] += ae
        gl, gu = float((d - r).min()), float((d + r).max())
        tnorm = max(abs(gl), abs(gu))
        eps, tiny = np.finfo(np.float64).eps, np.finfo(np.float64).tiny
        pivmin = tiny * max(1.0, float(e2.max()) if n > 1 else 1.0)
        widen = 2.1 * tnorm * eps * n + 4.0 * pivmin
        gl, gu = gl - widen, gu + widen
        atol = tol if tol > 0 else 2.0 * eps * max(tnorm, tiny)
        a0 = gl if lo is None else max(float(lo), gl)
        b0 = gu if hi is None else min(float(hi), gu)
        if not a0 < b0:
            return xp.zeros(0, dtype=np.float64)
        k0 = 0 if a0 == gl else int(self.sturm_count(d, e2, xp.full(1, a0), pivmin)[0])
        k1 = n if b0 == gu else int(self.sturm_count(d, e2, xp.full(1, b0), pivmin)[0])
        if k1 <= k0:
            return xp.zeros(0, dtype=np.float64)
        iters = int(np.ceil(np.log2((b0 - a0) / atol))) + 1
        k = xp.arange(k0, k1, dtype=np.int64)
        return self.bisect_intervals(d, e2, k, xp.full(k1 - k0, a0), xp.full(k1 - k0, b0),
                                     pivmin, max(iters, 1), atol)


    # ------------------------------------------------------------ graph generators
    # A counter-based random stream (splitmix64): the i-th draw of the stream
    # with key k is mix64(k + (i + 1) * GOLDEN) in uint64 arithmetic, the same
    # bits in NumPy, numba and CuPy; graphblast_py.generators documents its use.
    def hash64(self, key, counters):
        """``mix64(key + (counters + 1) * GOLDEN)`` for a uint64 array ``counters``."""
        z = (counters + np.uint64(1)) * np.uint64(GOLDEN)
        z += np.uint64(key)
        return _mix64(z)

    def rmat_edges(self, key, scale, nedges, t1, t2, t3):
        """R-MAT endpoints (int64 arrays) of ``nedges`` edges.  Draw
        ``h * nedges + e`` of the stream serves bits ``2h`` (its high 32 bits)
        and ``2h + 1`` (its low 32 bits) of edge e; with u those 32 bits, the
        row bit is ``u >= t2`` and the column bit ``(u >= t1) ^ (u >= t2) ^
        (u >= t3)`` (thresholds out of 2**32)."""
        xp = self.xp
        base = (xp.arange(nedges, dtype=np.uint64) + np.uint64(1)) * np.uint64(GOLDEN)
        base += np.uint64(key)
        ii = xp.zeros(nedges, dtype=np.int64)
        jj = xp.zeros(nedges, dtype=np.int64)
        t1, t2, t3 = np.uint64(t1), np.uint64(t2), np.uint64(t3)
        for h in range((scale + 1) // 2):   # one vectorised pass per two label bits
            z = _mix64(base + np.uint64((h * nedges * GOLDEN) % 2**64))
            for b in range(2 * h, min(2 * h + 2, scale)):
                u = z >> np.uint64(32) if b % 2 == 0 else z & np.uint64(0xFFFFFFFF)
                hi = u >= t2
                ii |= hi.astype(np.int64) << np.int64(b)
                jj |= ((u >= t1) ^ hi ^ (u >= t3)).astype(np.int64) << np.int64(b)
        return ii, jj

    def random_labels(self, key, scale):
        """A random permutation of ``range(2**scale)``: the argsort of the
        distinct keys ``(draw(v) >> scale) << scale | v``."""
        xp = self.xp
        v = xp.arange(1 << scale, dtype=np.uint64)
        keys = (self.hash64(key, v) >> np.uint64(scale)) << np.uint64(scale)
        keys |= v
        return xp.argsort(keys).astype(np.int64)

    def first_distinct(self, key, m, modulus):
        """The first ``m`` distinct values (in draw order) of the stream's
        draws reduced ``mod modulus``, as a sorted int64 array."""
        xp = self.xp
        if m == 0:
            return xp.zeros(0, dtype=np.int64)
        total = m + m // 8 + 64
        while True:
            t = xp.arange(total, dtype=np.uint64)
            x = self.hash64(key, t) % np.uint64(modulus)
            bits = total.bit_length()
            if modulus < 1 << (64 - bits):
                # one sort of the distinct keys (value, draw number)
                ck = (x << np.uint64(bits)) | t
                ck.sort()
                starts = self.segment_starts(ck >> np.uint64(bits))
                first = ck[starts] & np.uint64((1 << bits) - 1)
            else:
                order = self.argsort(x)                  # stable: first draw first
                first = order[self.segment_starts(x[order])]
            if first.shape[0] >= m:
                first = xp.sort(first)[:m]               # draw numbers of the first m
                return xp.sort(x[first.astype(np.int64)].astype(np.int64))
            total *= 2

    def kronecker_csr(self, key_edges, key_labels, scale, nedges, t1, t2, t3, permute):
        """CSR (indptr, indices) of the Kronecker graph of :meth:`kronecker_keys`."""
        return self.csr_from_edge_keys(
            self.kronecker_keys(key_edges, key_labels, scale, nedges, t1, t2, t3, permute),
            1 << scale)

    def kronecker_keys(self, key_edges, key_labels, scale, nedges, t1, t2, t3, permute):
        """Edge keys (unsorted int64 ``row << scale | col``, both directions,
        self-loops dropped or set to ``n*n``) of a Kronecker graph: the R-MAT
        endpoints of :meth:`rmat_edges`, relabelled by :meth:`random_labels`."""
        ii, jj = self.rmat_edges(key_edges, scale, nedges, t1, t2, t3)
        if permute:
            perm = self.random_labels(key_labels, scale)
            ii, jj = perm[ii], perm[jj]
        return self.edge_keys(ii, jj, 1 << scale, True)

    def edge_keys(self, rows, cols, n, symmetric):
        """int64 keys ``row * n + col`` of the edges without self-loops (and,
        when ``symmetric``, also ``col * n + row``), unsorted."""
        xp = self.xp
        rows = rows.astype(np.int64, copy=False)
        cols = cols.astype(np.int64, copy=False)
        keep = rows != cols
        if not bool(keep.all()):
            rows, cols = rows[keep], cols[keep]
        nn = np.int64(max(n, 1))
        rk = rows * nn
        rk += cols
        if not symmetric:
            return rk
        ck = cols * nn
        ck += rows
        return xp.concatenate([rk, ck])

    def csr_from_edge_keys(self, keys, n):
        """CSR (indptr, indices) of an n x n pattern from unsorted edge keys
        ``row * n + col`` with duplicates; keys ``>= n*n`` are dropped.
        Sort + dedupe on the device (not xp.unique: NumPy's hashes it, 100x
        slower here)."""
        xp = self.xp
        keys.sort()
        if keys.shape[0] and int(keys[-1]) >= n * n:
            keys = keys[:int(xp.searchsorted(keys, xp.full(1, n * n, dtype=np.int64))[0])]
        if keys.shape[0] > 1:
            new = xp.empty(keys.shape[0], dtype=bool)
            new[0] = True
            xp.not_equal(keys[1:], keys[:-1], out=new[1:])
            keys = keys[new]
        r, c = split_keys(keys, n)
        it = dtypes.index_dtype(max(n, keys.shape[0]))
        indptr = xp.searchsorted(r, xp.arange(n + 1, dtype=np.int64)).astype(it)
        return indptr, c.astype(dtypes.index_dtype(n))

    def simple_graph_csr(self, rows, cols, n, symmetric):
        """CSR (indptr, indices) of the edges (rows, cols) of an n-vertex
        graph without self-loops and duplicates (and, when ``symmetric``,
        with both directions of every edge)."""
        return self.csr_from_edge_keys(self.edge_keys(rows, cols, n, symmetric), n)

# BinaryOps that segment_reduce handles as monoids (associative)
_SEGMENT_MONOID_OPS = frozenset(("plus", "times", "min", "max", "lor", "land", "lxor", "lxnor",
                                 "any", "first", "second"))


GOLDEN = 0x9E3779B97F4A7C15
_M1, _M2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31 = np.uint64(30), np.uint64(27), np.uint64(31)


def _mix64(z):
    """splitmix64's finaliser on a uint64 array, in place (wrapping arithmetic)."""
    z ^= z >> _S30
    z *= _M1
    z ^= z >> _S27
    z *= _M2
    z ^= z >> _S31
    return z


def _dt(x):
    if x is None:
        return dtypes.BOOL
    if hasattr(x, "dtype"):
        return x.dtype
    return dtypes.of_value(x)


def _len(*arrays):
    for a in arrays:
        if a is not None and hasattr(a, "shape") and a.shape != ():
            return a.shape[0]
    return None
