"""A CSR whose entries lie on a few diagonals (the DIA view of grids, tori,
stencils, paths and banded matrices), for the CPU's pull products.

Every stored entry (r, c) of such a matrix has its offset ``c - r`` in a
short list ``offs`` (at most ``MAX_DIAGONALS``); a row holding exactly
``len(offs)`` entries then holds one on each of those diagonals (entries are
distinct, so their offsets are), i.e. its columns are ``r + offs``: a
*regular* row.  The others -- the rows that lose a neighbour at the
boundary of a grid, for one -- are *irregular* and listed.

A pull over the regular rows reads ``x`` at ``r + o`` for each offset: each
diagonal is a contiguous slice of ``x``, so the loop has no index array and
no gather, and LLVM vectorises it; the irregular rows take the CSR loop.
Measured serially on the 2-core VM (the min-second product accumulated into
a full vector, connected components' ``mxv``): 300x300 grid 298 -> 77 us,
1000x1000 grid 3.75 -> 0.99 ms.

The plan (offsets and irregular rows) is one pass over the CSR, kept with the
matrix by the caller (``cache``); a matrix with more diagonals is found out
in its first rows, as a rule (a power-law or random graph's first few rows
already have more than ``MAX_DIAGONALS`` offsets).
"""
import numpy as np
from numba import njit, prange

# at most this many diagonals (a grid with diagonals has 8)
MAX_DIAGONALS = 8
# the plan is used while at most 1/IRREGULAR_FRACTION of the rows are irregular
IRREGULAR_FRACTION = 4


@njit(cache=True)
def _offsets(indptr, indices, maxd):
    """(sorted distinct offsets c - r, True), or (empty, False) when there
    are more than ``maxd`` of them."""
    offs = np.empty(maxd, np.int64)
    nd = 0
    n = indptr.shape[0] - 1
    for r in range(n):
        s = indptr[r]
        for p in range(s, indptr[r + 1]):
            o = np.int64(indices[p]) - r
            j = p - s                   # (a regular row's j-th entry: offs[j] once seen)
            if j < nd and offs[j] == o:
                continue
            found = False
            for d in range(nd):
                if offs[d] == o:
                    found = True
                    break
            if not found:
                if nd == maxd:
                    return offs[:0], False
                offs[nd] = o
                nd += 1
    return np.sort(offs[:nd]), True


@njit(cache=True)
def _irregular(indptr, nd):
    n = indptr.shape[0] - 1
    c = 0
    for r in range(n):
        if indptr[r + 1] - indptr[r] != nd:
            c += 1
    out = np.empty(c, np.int64)
    c = 0
    for r in range(n):
        if indptr[r + 1] - indptr[r] != nd:
            out[c] = r
            c += 1
    return out


def diagonal_plan(indptr, indices, any_share=False):
    """``(offs, irregular)`` (int64 arrays: the sorted offsets, the rows that
    do not hold one entry on each) for a CSR whose entries lie on at most
    ``MAX_DIAGONALS`` diagonals with at most a quarter of its rows
    irregular (any share of them with ``any_share``: for tests); None
    otherwise (and for a matrix without entries)."""
    n = indptr.shape[0] - 1
    if n <= 0 or indices.shape[0] == 0:
        return None
    offs, ok = _offsets(indptr, indices, MAX_DIAGONALS)
    if not ok:
        return None
    irr = _irregular(indptr, offs.shape[0])
    if irr.shape[0] * IRREGULAR_FRACTION > n and not any_share:
        return None
    return offs, irr


@njit(inline="always")
def _segment(lo, hi, x, offs, is_max, old, new):
    # rows lo..hi-1, all regular: new[r] = fold(old[r], x[r + offs[d]] for d).
    # Each diagonal is a slice of x indexed from 0 (a signed r + o index would
    # keep numba's negative-index wraparound test in the loop and stop LLVM
    # from vectorising it: 254 against 77 us on the 300x300 grid)
    m = hi - lo
    ol = old[lo:hi]
    nw = new[lo:hi]
    nd = offs.shape[0]
    if nd == 4:
        x0 = x[lo + offs[0]:hi + offs[0]]
        x1 = x[lo + offs[1]:hi + offs[1]]
        x2 = x[lo + offs[2]:hi + offs[2]]
        x3 = x[lo + offs[3]:hi + offs[3]]
        if is_max:
            for i in range(m):
                v0 = x0[i]
                v1 = x1[i]
                v2 = x2[i]
                v3 = x3[i]
                a = ol[i]
                m0 = v0 if v0 > v1 else v1
                m1 = v2 if v2 > v3 else v3
                t = m0 if m0 > m1 else m1
                nw[i] = t if t > a else a
        else:
            for i in range(m):
                v0 = x0[i]
                v1 = x1[i]
                v2 = x2[i]
                v3 = x3[i]
                a = ol[i]
                m0 = v0 if v0 < v1 else v1
                m1 = v2 if v2 < v3 else v3
                t = m0 if m0 < m1 else m1
                nw[i] = t if t < a else a
        return
    for i in range(m):              # (new may be old: then a copy onto itself)
        nw[i] = ol[i]
    for d in range(nd):
        xd = x[lo + offs[d]:hi + offs[d]]
        if is_max:
            for i in range(m):
                v = xd[i]
                a = nw[i]
                nw[i] = v if v > a else a
        else:
            for i in range(m):
                v = xd[i]
                a = nw[i]
                nw[i] = v if v < a else a


@njit(inline="always")
def _rows(lo, hi, t, indptr, indices, x, is_max, offs, irr, old, new):
    # rows lo..hi-1; irr[t] the first irregular row at or after lo
    k = irr.shape[0]
    while True:
        e = irr[t] if t < k and irr[t] < hi else hi
        if e > lo:
            _segment(lo, e, x, offs, is_max, old, new)
        if e >= hi:
            return
        a = old[e]
        if is_max:
            for p in range(indptr[e], indptr[e + 1]):
                v = x[indices[p]]
                a = v if v > a else a
        else:
            for p in range(indptr[e], indptr[e + 1]):
                v = x[indices[p]]
                a = v if v < a else a
        new[e] = a
        lo = e + 1
        t += 1


@njit(cache=True)
def _pull_accum_serial(indptr, indices, x, is_max, offs, irr, old, new):
    _rows(0, indptr.shape[0] - 1, 0, indptr, indices, x, is_max, offs, irr, old, new)


@njit(cache=True, parallel=True)
def _pull_accum_parallel(indptr, indices, x, is_max, offs, irr, old, new, nblocks):
    n = indptr.shape[0] - 1
    for b in prange(nblocks):
        lo = b * n // nblocks
        hi = (b + 1) * n // nblocks
        t = np.searchsorted(irr, lo)
        _rows(lo, hi, t, indptr, indices, x, is_max, offs, irr, old, new)


def pull_accum_diagonals(indptr, indices, x, is_max, offs, irr, old, new, nblocks=1):
    """``new(r) = min(old(r), min over the row's columns c of x(c))`` (max
    with ``is_max``) for every row, the regular ones by diagonals, the
    irregular ones (``irr``, sorted) by the CSR.  ``new`` may be ``old``
    (each row reads only its own old value), not ``x``.  ``nblocks`` > 1:
    that many blocks of rows in numba's threads."""
    if nblocks > 1:
        _pull_accum_parallel(indptr, indices, x, is_max, offs, irr, old, new, nblocks)
    else:
        _pull_accum_serial(indptr, indices, x, is_max, offs, irr, old, new)
