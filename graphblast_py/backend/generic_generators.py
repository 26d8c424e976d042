"""Graph generators for :class:`~graphblast_py.backend.generic.ArrayBackend`:
the splitmix64 counter stream, R-MAT/Kronecker edges and simple-graph CSR
(see generic.py).
"""
import numpy as np

from .. import dtypes
from .keys import split_keys


class GeneratorMixin:
    """Random graph generation (part of ArrayBackend)."""

    # ------------------------------------------------------------ graph generators
    # A counter-based random stream (splitmix64): the i-th draw of the stream
    # with key k is mix64(k + (i + 1) * GOLDEN) in uint64 arithmetic, the same
    # bits in NumPy, numba and CuPy; graphblast_py.generators documents its use.
    def hash64(self, key, counters):
        """``mix64(key + (counters + 1) * GOLDEN)`` for a uint64 array ``counters``."""
        z = (counters + np.uint64(1)) * np.uint64(GOLDEN)
        z += np.uint64(key)
        return _mix64(z)

    def rmat_edges(self, key, scale, nedges, t1, t2, t3, start=0, count=None):
        """R-MAT endpoints (int64 arrays) of ``nedges`` edges (of edges
        ``[start, start + count)`` of them when given).  Draw
        ``h * nedges + e`` of the stream serves bits ``2h`` (its high 32 bits)
        and ``2h + 1`` (its low 32 bits) of edge e; with u those 32 bits, the
        row bit is ``u >= t2`` and the column bit ``(u >= t1) ^ (u >= t2) ^
        (u >= t3)`` (thresholds out of 2**32)."""
        xp = self.xp
        m = nedges - start if count is None else count
        base = (xp.arange(start, start + m, dtype=np.uint64) + np.uint64(1)) * \
            np.uint64(GOLDEN)
        base += np.uint64(key)
        ii = xp.zeros(m, dtype=np.int64)
        jj = xp.zeros(m, dtype=np.int64)
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

    #: edges drawn at a time for a row block of a Kronecker graph
    KRON_CHUNK = 1 << 26
    #: most keys one sort-and-dedupe handles at once: more are split by rows
    #: (CuPy's boolean indexing and sorts count in 32 bits)
    KEYS_LIMIT = 1 << 30

    def kronecker_csr(self, key_edges, key_labels, scale, nedges, t1, t2, t3, permute,
                      lo=0, hi=None):
        """CSR (indptr, indices) of the Kronecker graph of :meth:`kronecker_keys`
        (rows [lo, hi) only when given).  A row block, or a whole graph of
        more than ``KEYS_LIMIT`` keys, draws the edges in chunks of
        ``KRON_CHUNK`` and keeps each chunk's keys in its rows, so its memory
        is its own keys plus one chunk's temporaries (a quarter of a
        Kronecker 28 fits one GPU; the whole graph's keys would not), and
        builds its CSR in row ranges of at most ``KEYS_LIMIT`` keys
        (:meth:`csr_from_key_parts`)."""
        n = 1 << scale
        whole = hi is None or (lo == 0 and hi == n)
        if whole and 2 * nedges <= self.KEYS_LIMIT:
            return self.csr_from_edge_keys(
                self.kronecker_keys(key_edges, key_labels, scale, nedges, t1, t2, t3, permute),
                n, 0, n)
        if whole:
            lo, hi = 0, n
        perm = self.random_labels(key_labels, scale) if permute else None
        low, high = np.int64(lo) * np.int64(n), np.int64(hi) * np.int64(n)
        parts = []
        for e0 in range(0, nedges, self.KRON_CHUNK):
            keys = self.kronecker_keys(key_edges, key_labels, scale, nedges, t1, t2, t3,
                                       permute, e0, min(self.KRON_CHUNK, nedges - e0), perm)
            parts.append(keys[(keys >= low) & (keys < high)])
            keys = None
        return self.csr_from_key_parts(parts, n, lo, hi)

    def csr_from_key_parts(self, parts, n, lo, hi):
        """:meth:`csr_from_edge_keys` of the rows [lo, hi) of the keys in the
        list ``parts`` (each within those rows; the list is emptied): one
        build when they number at most ``KEYS_LIMIT``, else the rows halved
        (each part cut in two) and the two CSRs stacked, so that no array
        sorted or indexed holds more than ``KEYS_LIMIT`` keys (one row with
        more is built whole)."""
        xp = self.xp
        total = sum(int(k.shape[0]) for k in parts)
        if total <= self.KEYS_LIMIT or hi - lo <= 1:
            keys = xp.concatenate(parts) if parts else xp.zeros(0, dtype=np.int64)
            parts.clear()
            return self.csr_from_edge_keys(keys, n, lo, hi)
        mid = lo + (hi - lo) // 2
        cut = np.int64(mid) * np.int64(n)
        upper = []
        for i, k in enumerate(parts):
            upper.append(k[k >= cut])
            parts[i] = k[k < cut]
        p1, c1 = self.csr_from_key_parts(parts, n, lo, mid)
        p2, c2 = self.csr_from_key_parts(upper, n, mid, hi)
        nnz = int(c1.shape[0]) + int(c2.shape[0])
        it = dtypes.index_dtype(max(n, nnz))
        indptr = xp.concatenate([p1.astype(it), p2[1:].astype(it) + it.type(c1.shape[0])])
        return indptr, xp.concatenate([c1, c2])

    def kronecker_keys(self, key_edges, key_labels, scale, nedges, t1, t2, t3, permute,
                       start=0, count=None, perm=None):
        """Edge keys (unsorted int64 ``row << scale | col``, both directions,
        self-loops dropped or set to ``n*n``) of a Kronecker graph: the R-MAT
        endpoints of :meth:`rmat_edges` (edges ``[start, start + count)``
        when ``count`` is given), relabelled by :meth:`random_labels` (``perm``: those
        labels, when the caller made them already)."""
        ii, jj = self.rmat_edges(key_edges, scale, nedges, t1, t2, t3) if count is None else \
            self.rmat_edges(key_edges, scale, nedges, t1, t2, t3, start, count)
        if permute:
            perm = self.random_labels(key_labels, scale) if perm is None else perm
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

    def csr_from_edge_keys(self, keys, n, lo=0, hi=None):
        """CSR (indptr, indices) of an n x n pattern from unsorted edge keys
        ``row * n + col`` with duplicates; keys ``>= n*n`` are dropped.  With
        ``lo``/``hi`` only the rows [lo, hi): an ``(hi - lo) x n`` block.
        Sort + dedupe on the device (not xp.unique: NumPy's hashes it, 100x
        slower here)."""
        xp = self.xp
        hi = n if hi is None else hi
        nn = np.int64(max(n, 1))
        if lo > 0 or hi < n:
            keys = keys[(keys >= np.int64(lo) * nn) & (keys < np.int64(hi) * nn)]
            keys -= np.int64(lo) * nn
        limit = (hi - lo) * n
        keys.sort()
        if keys.shape[0] and int(keys[-1]) >= limit:
            keys = keys[:int(xp.searchsorted(keys, xp.full(1, limit, dtype=np.int64))[0])]
        if keys.shape[0] > 1:
            new = xp.empty(keys.shape[0], dtype=bool)
            new[0] = True
            xp.not_equal(keys[1:], keys[:-1], out=new[1:])
            keys = keys[new]
        r, c = split_keys(keys, n)
        it = dtypes.index_dtype(max(n, keys.shape[0]))
        indptr = xp.searchsorted(r, xp.arange(hi - lo + 1, dtype=np.int64)).astype(it)
        return indptr, c.astype(dtypes.index_dtype(n))

    def simple_graph_csr(self, rows, cols, n, symmetric):
        """CSR (indptr, indices) of the edges (rows, cols) of an n-vertex
        graph without self-loops and duplicates (and, when ``symmetric``,
        with both directions of every edge)."""
        return self.csr_from_edge_keys(self.edge_keys(rows, cols, n, symmetric), n)


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
