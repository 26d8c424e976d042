"""Products for :class:`~graphblast_py.backend.generic.ArrayBackend`: the
semiring product batch, mxv/vxm (pull and push), mxm (ESC SpGEMM, masked dot,
spmm with a dense right operand) (see generic.py).
"""
import numpy as np

from ..results import DenseVectorResult, SparseResult


class MatVecMixin:
    """Matrix-vector and matrix-matrix products (part of ArrayBackend)."""

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

    # the auto direction's weight of a push edge against a pull edge
    # (operations/mxv.py: push_cost = d * nvals(u) * push_cost_weight), the
    # cost of visiting one allowed row in pull, in scanned edges
    # (pull_cost = (d * early-exit factor + pull_row_cost) * allowed rows),
    # and whether frontier_edges counts a frontier's edges exactly
    push_cost_weight = 1.0
    pull_row_cost = 0.0
    exact_push_edges = False

    def frontier_edges(self, indptr, x):
        """The number of stored entries in the rows of ``indptr`` that the
        frontier ``x`` (a vector's stored content, see ``Vector._view``)
        selects, or None where counting would cost more than it saves (a
        device read).  A dense frontier is counted over its presence (one
        pass over the rows, as push's own scan of a dense frontier): the
        mean-degree guess it replaces undercounts a frontier next to a hub,
        and a gathered frontier (graphblast_py.dist) arrives dense."""
        if isinstance(x, SparseResult):
            idx = x.keys
            return int((indptr[idx + 1] - indptr[idx]).sum()) if idx.shape[0] else 0
        pres = x.present
        if pres is None:
            return int(indptr[-1] - indptr[0])
        lens = indptr[1:] - indptr[:-1]
        return int(lens[pres].sum())

    def max_row_length(self, indptr):
        """The longest row of a CSR (0 for none): one device read."""
        if indptr.shape[0] < 2:
            return 0
        return int((indptr[1:] - indptr[:-1]).max())

    def _with_iso(self, M, a_iso):
        """(indptr, indices, vals) with an iso value materialised as a values
        array (``a_iso``: the value of every stored entry when ``M`` comes
        without values; a backend whose kernels take it as a constant skips
        this)."""
        if a_iso is None or M[2] is not None:
            return M
        return M[0], M[1], self.full(M[1].shape[0], a_iso, np.asarray(a_iso).dtype)

    def push(self, P, x, semiring, allowed, swap, out_dtype, n_out, structure_only=True,
             complement=False, max_row_length=None, a_iso=None):
        """Push for ``mxv``/``vxm``, as a result for the output rule.  ``x`` is
        a :class:`SparseResult` (indices, values), or, where
        ``dense_vectors`` is set, possibly a :class:`DenseVectorResult`
        (values, presence) -- the frontier as it is stored.  Here: the
        sorted :meth:`spmspv_push` result; a backend may return a
        :class:`DenseVectorResult` instead (no compaction, no device wait).
        The result holds no entry that the mask forbids: ``allowed`` (a bool
        array over the outputs, or None), or its complement (``complement``).
        ``max_row_length``: the longest row of P when the caller knows it
        (a backend may pick its work distribution from it); ``a_iso``: the
        value of every entry of P when P comes without values (iso)."""
        if complement and allowed is not None:
            allowed = ~allowed
        if isinstance(x, DenseVectorResult):
            vals, pres = x
            idx = self.arange(vals.shape[0]) if pres is None else self.xp.flatnonzero(pres)
            x = SparseResult(idx, vals[idx])
        return SparseResult(*self.spmspv_push(P, x, semiring, allowed, swap, out_dtype,
                                              n_out, structure_only=structure_only, a_iso=a_iso))

    def pull(self, R, x, semiring, allowed, swap, out_dtype, structure_only=True,
             early_exit=True, complement=False, a_iso=None, cache=None):
        """Pull for ``mxv``/``vxm`` as a :class:`DenseVectorResult`;
        ``allowed`` a bool array over the output rows (the mask; its
        complement with ``complement``) or None.  Here the allowed rows are
        listed for :meth:`spmv_pull`; a backend whose pull kernel tests the
        mask itself hands it over unlisted.  ``a_iso`` as for :meth:`push`;
        ``cache``: a dict that lives as long as R's matrix (or None), where a
        backend may keep what it derives from R (row splits, library plans)."""
        if allowed is not None:
            allowed = ~allowed if complement else allowed
        rows = None if allowed is None else self.xp.flatnonzero(allowed)
        return DenseVectorResult(*self.spmv_pull(R, x, semiring, rows, swap, out_dtype,
                                                 structure_only=structure_only,
                                                 early_exit=early_exit, a_iso=a_iso))

    # backend-level hook: the variant the last spmv_pull/spmspv_push ran, as
    # (kind, reads matrix values, early exit (None for push), mask used in the kernel)
    last_kernel = None

    def spmv_pull(self, R, x, semiring, rows, swap, out_dtype, structure_only=True,
                  early_exit=True, a_iso=None):
        """Pull: ``w(r) = add_c R(r,c) (*) x(c)`` for the rows ``rows`` (int64
        array) or all rows (None).  ``R = (indptr, indices, vals)`` (vals None
        when not read); ``x = (vals, present)`` dense (present None: all
        present).  ``swap``: x is the first operand of the product (vxm).
        ``structure_only=False``: load R's values even when the multiply
        ignores them; ``early_exit=False``: no row stops at the monoid's
        terminal value (this vectorised path never stops early anyway).
        ``a_iso``: the value of every entry of R when R comes without values
        (iso; a backend whose kernels take it as a constant skips the array).
        Returns (vals, present) dense over all rows of R."""
        xp = self.xp
        nrows = R[0].shape[0] - 1
        xvals, xpres = x
        masked = rows is not None
        if not masked:
            rows = xp.arange(nrows, dtype=np.int64)
        seg, c, a, loaded, rx = self._gather_terms(R, a_iso, rows, xpres, semiring, swap,
                                                   structure_only)
        self.last_kernel = ("pull", loaded, False, masked)
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

    def _gather_terms(self, R, a_iso, rows, keep, semiring, swap, structure_only):
        """The stored entries of the rows ``rows`` of ``R = (indptr, indices,
        vals)`` whose column passes ``keep`` (a bool array over columns, or
        None): (seg, col, a, loaded, reads_x) -- the position in ``rows`` and
        the column of every term, R's values when the multiply reads them
        (else None), whether the values were loaded (``structure_only=False``
        loads them even when unread), and whether the multiply reads the
        vector."""
        indptr, indices, vals = self._with_iso(R, a_iso)
        seg, pos = self.gather_rows(indptr, rows)
        col = indices[pos].astype(np.int64)
        if keep is not None:
            k = keep[col]
            seg, pos, col = seg[k], pos[k], col[k]
        ra, rx = self._reads(semiring, swap)
        a = vals[pos] if ((ra or not structure_only) and vals is not None) else None
        return seg, col, (a if ra else None), a is not None, rx

    def push_plan(self, P, semiring, out_dtype, a_iso, x_dtype, swap):
        """A function ``run(P, xidx, xvals, n_out) -> (idx, vals) or None``
        that pushes a sparse frontier without a mask, worked out once for
        these operators and types (operations/mxv.py's plain push keeps it
        with the matrix); None here: the ordinary :meth:`push` serves."""
        return None

    def spmspv_push(self, P, x, semiring, allowed, swap, out_dtype, n_out, structure_only=True,
                    a_iso=None):
        """Push: for every stored x(c), scatter ``P(c, r) (*) x(c)`` into w(r),
        ``P = (indptr, indices, vals)`` (the columns of A for mxv, its rows for
        vxm).  ``x = (idx, vals)`` sparse; ``allowed`` an optional bool array
        over outputs (the mask, applied to products before reduction).
        ``structure_only=False``: load P's values even when the multiply
        ignores them; ``a_iso`` as for :meth:`spmv_pull`.  Returns (idx, vals)
        sparse, sorted."""
        xidx, xvals = x
        seg, r, a, loaded, rx = self._gather_terms(P, a_iso, xidx, allowed, semiring, swap,
                                                   structure_only)
        self.last_kernel = ("push", loaded, None, allowed is not None)
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
