"""Memory-bounded SpGEMM for :class:`~graphblast_py.backend.generic.ArrayBackend`:
the product in blocks of A's stored entries, and the fused
``mxm -> apply -> row reduction`` that never keeps the product.

Blocks are cut in the *products* of ``A (+).(x) B`` (A(i,k) makes
``nnz(B(k,:))`` of them): consecutive runs of A's stored entries whose products
fit the budget, so a block boundary may fall inside one row's run of entries (a
heavy row).  Each block is computed on its own (mask rows sliced to its rows)
by the backend's ``spgemm_result``; the two partial rows of a row cut by a
boundary are combined with the semiring's monoid before the row is released.
Only finished rows are kept (:meth:`SpgemmMixin.spgemm_blocked`) or reduced at
once (:meth:`SpgemmMixin.spgemm_reduce`).

The budget, in products: ``BLOCK_PRODUCTS`` when set (tests force many blocks
with it), else ``MEMORY_FRACTION`` of the backend's ``spgemm_memory()`` (memory
available now: RAM on the CPU, free device memory on the GPU) divided by
the backend's ``spgemm_bytes_per_product``.  A product that fits the budget
runs in one call, as before.
"""
import numpy as np

from .. import dtypes
from ..results import CSRResult, SparseResult
from .keys import split_keys

# products per block; None: from the memory budget (tests set a small number)
BLOCK_PRODUCTS = None
# share of the memory available now that one block may use
MEMORY_FRACTION = 0.25


class SpgemmMixin:
    """Row-blocked SpGEMM and the fused product-reduce (part of ArrayBackend)."""

    # bytes one product of the generic ESC path holds (expanded keys, values,
    # positions, the sort's copies)
    spgemm_bytes_per_product = 48
    # spgemm_reduce_dot takes a structural mask as its CSR rows (mask_keys
    # None, mask_csr=(indptr, indices)) instead of its sorted keys
    dot_mask_csr = False

    def dot_costs(self, ip, ix, bp, cp, mp, mj, ratio):
        """(flops of A B, merge steps of the masked dot products) for mxm's
        cost model from CSR parts (A: ip, ix; B's row and column pointers
        bp, cp; the mask: mp, mj), or None: operations/mxm.py computes them
        with array operations."""
        return None

    def spgemm_block_products(self):
        """The per-block budget in products (at least 1)."""
        if BLOCK_PRODUCTS is not None:
            return max(1, int(BLOCK_PRODUCTS))
        free = self.spgemm_memory()
        if free is None:
            free = 4 << 30
        return max(1 << 16, int(free * MEMORY_FRACTION) // self.spgemm_bytes_per_product)

    def spgemm_memory(self):
        """Bytes available to size the blocks from (the GPU adds its pool's
        unused memory)."""
        return self.free_bytes()

    def _entry_products(self, A, B):
        """Cumulative products of A's stored entries (int64, length nnz(A))."""
        xp = self.xp
        bi = B[0].astype(np.int64, copy=False)
        blen = bi[1:] - bi[:-1]
        return xp.cumsum(blen[A[1].astype(np.int64, copy=False)])

    def _blocks(self, A, B):
        """Host list of (p0, p1, r0, r1): A's entries p0:p1 in rows r0:r1;
        None when the whole product fits one block."""
        xp = self.xp
        ai = A[0].astype(np.int64, copy=False)
        m, nnz = ai.shape[0] - 1, A[1].shape[0]
        if nnz == 0:
            return None
        cp = self._entry_products(A, B)
        total = int(cp[-1])
        budget = self.spgemm_block_products()
        if total <= budget:
            return None
        nb = -(-total // budget)
        targets = xp.arange(1, nb, dtype=np.int64) * np.int64(budget)
        cut = self.to_host(xp.searchsorted(cp, targets, side="right")).astype(np.int64)
        p = np.unique(np.concatenate(([0], cut, [nnz])))
        if p.shape[0] <= 2:
            return None
        # row holding entry p (p < nnz): the last row starting at or before p
        inner = xp.asarray(p[1:-1])
        rs = self.to_host(xp.searchsorted(ai, inner, side="right") - 1).astype(np.int64)
        split = self.to_host(ai[xp.asarray(rs)] < inner).astype(bool)
        starts = np.concatenate(([0], rs))
        ends = np.concatenate((rs + split, [m]))
        return [(int(p[b]), int(p[b + 1]), int(starts[b]), int(ends[b]))
                for b in range(p.shape[0] - 1)]

    def _block_operand(self, A, p0, p1, r0, r1):
        xp = self.xp
        ai, aj, av = A
        ip = xp.clip(ai[r0:r1 + 1].astype(np.int64), p0, p1) - np.int64(p0)
        return ip, aj[p0:p1], (av[p0:p1] if av is not None else None)

    def _block_mask(self, mask, mask_csr, r0, r1, ncols):
        if mask is None:
            return None, None
        xp = self.xp
        keys, comp = mask
        lo, hi = (int(x) for x in self.to_host(xp.searchsorted(
            keys, xp.asarray([r0 * ncols, r1 * ncols], dtype=np.int64))))
        mk = (keys[lo:hi] - np.int64(r0) * np.int64(ncols), comp)
        if mask_csr is None:
            return mk, None
        mi, mj = mask_csr
        a, b = int(mi[r0]), int(mi[r1])
        return mk, (mi[r0:r1 + 1] - mi[r0], mj[a:b])

    def _as_csr(self, T, nrows, ncols, out_dtype):
        """(indptr int64, indices, vals) of a block result."""
        if isinstance(T, SparseResult):
            ip, ix = self.keys_to_csr(T.keys, nrows, ncols)
            return ip.astype(np.int64), ix, self.cast(T.vals, out_dtype)
        ip, ix, v, iso = T
        if v is None:
            v = self.full(ix.shape[0], iso, out_dtype)
        return ip.astype(np.int64), ix, v

    def _merge_row(self, monoid, c1, v1, c2, v2):
        """One row from two partial rows (columns ascending in each): equal
        columns combined with ``monoid``, the first part's term first."""
        xp = self.xp
        cols = xp.concatenate((c1.astype(np.int64), c2.astype(np.int64)))
        vals = xp.concatenate((v1, v2))
        k, v = self.reduce_by_key(monoid, cols, vals)
        return k, v

    def _product_rows(self, A, B, semiring, mask, out_dtype, shape, mask_csr, blocks):
        """Yield (r0, indptr, indices, vals): finished rows r0.. of the
        product, one block at a time (a row cut by a block boundary is held
        back and completed with the next block's part)."""
        xp = self.xp
        ncols = shape[1]
        it = dtypes.index_dtype(ncols)
        held = None                              # (row, cols, vals) of a cut row
        for p0, p1, r0, r1 in blocks:
            Ab = self._block_operand(A, p0, p1, r0, r1)
            mk, mc = self._block_mask(mask, mask_csr, r0, r1, ncols)
            T = self.spgemm_result(Ab, B, semiring, mk, out_dtype, (r1 - r0, ncols), mc)
            ip, ix, v = self._as_csr(T, r1 - r0, ncols, out_dtype)
            if held is not None and held[0] == r0:
                e = int(ip[1])
                k, mv = self._merge_row(semiring.monoid, held[1], held[2], ix[:e], v[:e])
                ix = xp.concatenate((k.astype(it), ix[e:].astype(it)))
                v = xp.concatenate((mv, v[e:]))
                ip = ip + np.int64(k.shape[0] - e)
                ip[0] = 0
            held = None
            if p1 < int(A[0][r1]):               # row r1 - 1 continues in the next block
                s = int(ip[-2])
                held = (r1 - 1, ix[s:], v[s:])
                ip, ix, v = ip[:-1], ix[:s], v[:s]
                r_end = r1 - 1
            else:
                r_end = r1
            if r_end > r0:
                yield r0, ip, ix, v

    def spgemm_blocked(self, A, B, semiring, mask, out_dtype, shape, mask_csr=None):
        """:meth:`spgemm_result` computed block by block (see the module);
        one call when the product fits the budget.  Without a mask, a product
        whose every entry has one term (A with at most one entry per row, or
        B diagonal) is a gather instead (:meth:`spgemm_one_term`)."""
        if mask is None:
            T = self.spgemm_one_term(A, B, semiring, out_dtype, shape)
            if T is not None:
                return T
        blocks = self._blocks(A, B)
        if blocks is None:
            return self.spgemm_result(A, B, semiring, mask, out_dtype, shape, mask_csr)
        xp = self.xp
        counts, cols, vals = [], [], []
        nnz = 0
        for r0, ip, ix, v in self._product_rows(A, B, semiring, mask, out_dtype, shape,
                                                mask_csr, blocks):
            counts.append(ip[1:] - ip[:-1])
            cols.append(ix)
            vals.append(v)
            nnz += ix.shape[0]
        m, n = shape
        self.check_alloc(nnz * (8 + np.dtype(out_dtype).itemsize) + (m + 1) * 8,
                         f"the {m}x{n} SpGEMM result ({nnz} entries)")
        indptr = xp.zeros(m + 1, dtype=np.int64)
        if counts:
            xp.cumsum(xp.concatenate(counts), out=indptr[1:])
        it = dtypes.index_dtype(n)
        ix = xp.concatenate(cols).astype(it) if cols else xp.zeros(0, dtype=it)
        v = xp.concatenate(vals) if vals else xp.zeros(0, dtype=out_dtype)
        return CSRResult(indptr.astype(dtypes.index_dtype(max(n, nnz))), ix,
                         self.cast(v, out_dtype), np.dtype(out_dtype).type(1))

    def spgemm_one_term(self, A, B, semiring, out_dtype, shape):
        """``A (+).(x) B`` (CSR parts; vals None where the multiply does not
        read them) when every entry of the product has exactly one term, so
        the monoid never combines anything and no sort is needed:

        * A has at most one entry per row (a diagonal, a permutation, a
          selection): row i of C is row k of B, each entry multiplied by
          A(i, k) -- B's rows are sorted, so C's are;
        * B is diagonal (at most one entry per row, on the diagonal): C has
          A's structure without the columns j where B(j, j) is missing.

        Returns a ``CSRResult``, or None when neither holds.  The test costs
        nothing when nnz(A) > rows(A) and nnz(B) > rows(B) (known on the
        host); otherwise a device read or two."""
        xp = self.xp
        ai, aj, av = A
        bi, bj, bv = B
        m, n = shape
        i64 = np.int64
        ai64 = ai.astype(i64, copy=False)
        bi64 = bi.astype(i64, copy=False)
        na, nb = aj.shape[0], bj.shape[0]
        if 0 < na <= m:
            lens = ai64[1:] - ai64[:-1]
            if int(lens.max()) <= 1:                    # A: one entry per row at most
                has = lens > 0
                first = xp.minimum(ai64[:-1], na - 1)           # row i's entry, if any
                k = xp.where(has, aj[first].astype(i64), 0)
                if m == bi64.shape[0] - 1 and bool(xp.all(xp.where(
                        has, k == xp.arange(m, dtype=i64), bi64[1:] == bi64[:-1]))):
                    # A diagonal over every non-empty row of B: C has B's
                    # structure, each row scaled by A(i, i)
                    row = self.rows_of(bi64, nb)
                    x = av[first][row] if av is not None else None
                    return self._one_term_result(bi64, bj, semiring, x, bv, lambda: row, row,
                                                 bj, out_dtype, shape)
                indptr = xp.zeros(m + 1, dtype=i64)
                xp.cumsum(xp.where(has, bi64[k + 1] - bi64[k], 0), out=indptr[1:])
                nnz = int(indptr[-1])
                row = self.rows_of(indptr, nnz)
                kr = k[row]
                src = bi64[kr] + (xp.arange(nnz, dtype=i64) - indptr[row])
                cols = bj[src]
                x = av[ai64[row]] if av is not None else None
                y = bv[src] if bv is not None else None
                return self._one_term_result(indptr, cols, semiring, x, y, lambda: row, kr,
                                             cols, out_dtype, shape)
        if nb <= bi64.shape[0] - 1:
            blens = bi64[1:] - bi64[:-1]
            if nb == 0 or bool(xp.all(blens <= 1) &
                               xp.all(bj.astype(i64) == self.rows_of(bi64, nb))):
                diag = xp.where(blens > 0, bi64[:-1], -1)   # position of B(j, j), or -1
                dpos = diag[aj.astype(i64)]
                keep = dpos >= 0
                if bool(keep.all()):            # every column of A kept: A's structure
                    y = bv[dpos] if bv is not None else None
                    return self._one_term_result(ai64, aj, semiring, av, y,
                                                 lambda: self.rows_of(ai64, na), aj, aj,
                                                 out_dtype, shape)
                kept = xp.flatnonzero(keep)
                cum = xp.zeros(na + 1, dtype=i64)
                xp.cumsum(keep.astype(i64), out=cum[1:])
                indptr = cum[ai64]
                cols = aj[kept]
                x = av[kept] if av is not None else None
                y = bv[diag[cols.astype(i64)]] if bv is not None else None
                return self._one_term_result(
                    indptr, cols, semiring, x, y,
                    lambda: self.rows_of(ai64, na)[kept], cols, cols, out_dtype, shape)
        return None

    def spgemm_diag(self, A, B, semiring, out_dtype, shape, left):
        """``A (+).(x) B`` (CSR parts; vals None where the multiply does not
        read them) where ``left``: A is a full diagonal (A(i, i) stored at
        position i), the product B's rows scaled, ``C(i, j) = A(i, i) (x)
        B(i, j)``; else B is one, A's columns scaled, ``C(i, j) = A(i, j)
        (x) B(j, j)``.  C has the other operand's structure (its arrays
        shared: no stored array is ever written in place); one gather and
        the multiply per entry, nothing read back."""
        ai, aj, av = A
        bi, bj, bv = B
        if left:
            rows = self.rows_of(bi, bj.shape[0])
            x = av[rows] if av is not None else None
            return self._one_term_result(bi, bj, semiring, x, bv, lambda: rows, rows, bj,
                                         out_dtype, shape, owned=(True, False))
        y = bv[aj] if bv is not None else None
        return self._one_term_result(ai, aj, semiring, av, y,
                                     lambda: self.rows_of(ai, aj.shape[0]), aj, aj,
                                     out_dtype, shape, owned=(False, True))

    def _one_term_result(self, indptr, cols, semiring, x, y, rows, inner, ocols, out_dtype,
                         shape, owned=(False, False)):
        """``owned``: whether x, y are arrays made for this product (a
        product that is one of them unchanged takes it without a copy);
        the structure's arrays are shared where their types fit."""
        xp = self.xp
        nnz = cols.shape[0]
        v = self.mult(semiring.mult, x, y, rows, inner, ocols, out_dtype)
        if getattr(v, "ndim", 0) == 0:                  # pair and the like: one value
            v = xp.full(nnz, v, dtype=out_dtype)
        elif (v is x and not owned[0]) or (v is y and not owned[1]):
            v = v.copy()                                # first/second: an operand's own array
        return CSRResult(indptr.astype(dtypes.index_dtype(max(shape[1], nnz)), copy=False),
                         cols.astype(dtypes.index_dtype(shape[1]), copy=False),
                         self.cast(v, out_dtype), np.dtype(out_dtype).type(1))

    # ------------------------------------------------------------ fused reduce
    def spgemm_reduce(self, A, B, semiring, mask, out_dtype, shape, op, op_dtype, monoid,
                      red_dtype, mask_csr=None):
        """``w(i) = monoid_j op(C(i, j))`` for ``C<mask> = A (+).(x) B`` without
        keeping C: (rows with an entry, int64 ascending; their values).
        Generic path: the blocked product, each block's values mapped and
        reduced per row before the next block is computed."""
        blocks = self._blocks(A, B)
        if blocks is None:
            blocks = [(0, A[1].shape[0], 0, shape[0])]
        rows, vals = [], []
        for r0, ip, ix, v in self._product_rows(A, B, semiring, mask, out_dtype, shape,
                                                mask_csr, blocks):
            r, w = self.reduce_rows(ip, self.unary_values(op, v, op_dtype), monoid, red_dtype)
            rows.append(r + np.int64(r0))
            vals.append(w)
        return self._cat(rows, np.int64), self._cat(vals, red_dtype)

    def spgemm_reduce_dot(self, A, BT, semiring, mask_keys, out_dtype, shape, inner, op,
                          op_dtype, monoid, red_dtype, mask_csr=None):
        """The fused reduce over a non-complemented mask: the masked dot
        products (one value per mask entry, no more), mapped and reduced.
        The mask: its sorted keys, or (``mask_keys`` None) its CSR
        ``mask_csr`` (a backend with ``dot_mask_csr`` reads it as it is)."""
        if mask_keys is None:
            mask_keys = self.csr_to_keys(mask_csr[0], mask_csr[1], shape[1])
        keys, v = self.spgemm_dot(A, BT, semiring, mask_keys, out_dtype, shape, inner)
        rows = split_keys(keys, shape[1])[0]
        return self.reduce_by_key(monoid, rows, self.cast(self.unary_values(op, v, op_dtype),
                                                          red_dtype), presorted=True)

    def dense_columns_mm(self, cols, B, ncols, semiring, out_dtype):
        """``[cols[0] ... cols[k-1]] (+).(x) B``: the n x k block whose columns
        are the 1-D arrays ``cols`` (every entry present) times a k x
        ``ncols`` CSR ``B``, as ``(values, presence or None)``, where the
        backend reads the columns directly (CPU); None here (the caller stacks
        the columns into a dense Matrix and multiplies it, ``mxm``)."""
        return None

    def edge_triangles(self, indptr, indices, sums=False):
        """For every stored entry (i, j) of a symmetric pattern, the number of
        common neighbours of i and j (int64, CSR order): C = (A ∘ A²)(i, j) by
        masked dot products.  ``sums=True`` also returns, per vertex i, the sum
        over the triangles {i, j, k} of C(j, k) - 1, i.e.
        (sum_j (A (C - 1))(i, j) over the mask A) / 2."""
        from ..operators import semiring
        xp = self.xp
        n = indptr.shape[0] - 1
        i64 = np.dtype(np.int64)
        keys = self.csr_to_keys(indptr, indices, n)
        out = xp.zeros(keys.shape[0], dtype=np.int64)
        A = (indptr, indices, None)
        if keys.shape[0]:
            k, v = self.spgemm_dot(A, A, semiring.plus_pair, keys, i64, (n, n), n)
            out[xp.searchsorted(keys, k)] = v
        if not sums:
            return out
        return out, self.triangle_sums(indptr, indices, out, keys)

    def triangle_sums(self, indptr, indices, c, keys=None):
        """Per vertex i, the sum over the triangles {i, j, k} of C(j, k) - 1,
        from ``c`` = C = A ∘ A² in CSR order (see :meth:`edge_triangles`):
        (sum_j (A (C - 1))(i, j) over the mask A) / 2, by masked dot products.
        ``keys``: the pattern's keys when the caller has them."""
        from ..operators import monoid, semiring
        n = indptr.shape[0] - 1
        i64 = np.dtype(np.int64)
        if keys is None:
            keys = self.csr_to_keys(indptr, indices, n)
        s = self.xp.zeros(n, dtype=np.int64)
        if keys.shape[0]:                      # C is symmetric: its CSR is its CSC
            A = (indptr, indices, None)
            rows, vals = self.spgemm_reduce_dot(A, (indptr, indices, c - 1),
                                                semiring.plus_second, keys, i64, (n, n), n,
                                                None, i64, monoid.plus, i64)
            s[rows] = vals // 2
        return s

    def unary_values(self, op, v, op_dtype):
        return v if op is None else self.unary(op, v, op_dtype)

    def reduce_rows(self, indptr, vals, monoid, red_dtype):
        """(rows with entries, their reductions) of a CSR block's values."""
        xp = self.xp
        ip = indptr.astype(np.int64, copy=False)
        lens = ip[1:] - ip[:-1]
        nonempty = xp.flatnonzero(lens > 0)
        if nonempty.shape[0] == 0:
            return nonempty.astype(np.int64), xp.zeros(0, dtype=red_dtype)
        red = self.segment_reduce(monoid, self.cast(vals, red_dtype), ip[:-1][nonempty])
        return nonempty.astype(np.int64), red

    def _cat(self, parts, dtype):
        xp = self.xp
        return xp.concatenate(parts).astype(dtype, copy=False) if parts else \
            xp.zeros(0, dtype=dtype)

