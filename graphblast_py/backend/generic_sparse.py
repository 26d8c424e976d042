"""Sparse formats for :class:`~graphblast_py.backend.generic.ArrayBackend`:
CSR <-> keys, COO sorting, transposes, row gathers (see generic.py).
"""
import numpy as np

from .. import dtypes
from .keys import split_keys


class SparseMixin:
    """CSR / keys conversions and transposes (part of ArrayBackend)."""

    # ------------------------------------------------------------ sparse formats
    def rows_of(self, indptr, nnz):
        """Row index of every stored entry of a CSR structure."""
        xp = self.xp
        return xp.searchsorted(indptr[1:].astype(np.int64), xp.arange(nnz, dtype=np.int64),
                               side="right")

    def count_ptr(self, indices, n):
        """int64 pointers (n + 1) of the counts of each value of ``indices``
        (all in [0, n)): the row pointers of a CSR's transpose without the
        transpose."""
        xp = self.xp
        ptr = xp.zeros(n + 1, dtype=np.int64)
        if indices.shape[0]:
            xp.cumsum(xp.bincount(indices, minlength=n), out=ptr[1:])
        return ptr

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
