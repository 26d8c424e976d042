"""numba kernels for the graph generators (the CPU backend's versions of
:meth:`ArrayBackend.rmat_edges` and :meth:`ArrayBackend.random_labels`): the
same splitmix64 stream and the same bits as the vectorised generic code, one
edge per parallel iteration instead of one array pass per label bit."""
import numpy as np
from numba import njit, prange

_G = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_LOW = np.uint64(0xFFFFFFFF)


@njit(inline="always", cache=True)
def _mix64(z):
    z ^= z >> np.uint64(30)
    z *= _M1
    z ^= z >> np.uint64(27)
    z *= _M2
    z ^= z >> np.uint64(31)
    return z


@njit(cache=True, inline="always")
def _endpoints(key, scale, nedges, e, t1, t2, t3):
    """(i, j) of R-MAT edge e: label bits 2h and 2h + 1 come from the high and
    low halves of draw h * nedges + e of the stream."""
    one = np.uint64(1)
    i = 0
    j = 0
    z = np.uint64(0)
    for b in range(scale):
        if b % 2 == 0:
            ctr = np.uint64(b // 2) * np.uint64(nedges) + np.uint64(e) + one
            z = _mix64(key + ctr * _G)
            u = z >> np.uint64(32)
        else:
            u = z & _LOW
        hi = u >= t2
        if hi:
            i |= 1 << b
        if (u >= t1) ^ hi ^ (u >= t3):
            j |= 1 << b
    return i, j


@njit(cache=True, parallel=True)
def rmat_edges(key, scale, nedges, t1, t2, t3, ii, jj):
    """Endpoints of edge e: bits 2h and 2h + 1 from the high and low halves
    of draw h * nedges + e of the stream."""
    for e in prange(nedges):
        i, j = _endpoints(key, scale, nedges, e, t1, t2, t3)
        ii[e] = i
        jj[e] = j


@njit(cache=True, parallel=True)
def label_keys(key, scale, out):
    """out[v] = ((draw(v) >> scale) << scale) | v."""
    sh = np.uint64(scale)
    for v in prange(out.shape[0]):
        uv = np.uint64(v)
        out[v] = ((_mix64(key + (uv + np.uint64(1)) * _G) >> sh) << sh) | uv


@njit(cache=True, parallel=True)
def kronecker_upper(key, scale, nedges, t1, t2, t3, perm, permute, keys):
    """keys[e] = min(i, j) << scale | max(i, j) for edge e (labels through
    perm when permute), n*n for a self-loop: one key per undirected edge."""
    loop = np.int64(1) << np.int64(2 * scale)
    for e in prange(nedges):
        i, j = _endpoints(key, scale, nedges, e, t1, t2, t3)
        if permute:
            i = perm[i]
            j = perm[j]
        if i == j:
            keys[e] = loop
        elif i < j:
            keys[e] = (np.int64(i) << scale) | j
        else:
            keys[e] = (np.int64(j) << scale) | i


@njit(cache=True)
def upper_to_symmetric_csr(keys, scale, indptr, indices_of, fill):
    """From sorted upper keys (lo << scale | hi, lo < hi; keys >= n*n are
    loops): with fill=False, compact the distinct keys to the front, count
    each row's entries into indptr[1:] and return their number; with
    fill=True write the symmetric CSR's column indices: row r holds its
    lower entries (from keys with hi = r, ascending lo) and then its upper
    ones (lo = r, ascending hi), so each row comes out sorted."""
    n = np.int64(1) << scale
    mask = n - 1
    if not fill:
        limit = n * n
        nu = 0
        prev = np.int64(-1)
        for t in range(keys.shape[0]):
            k = keys[t]
            if k >= limit:
                break
            if k == prev:
                continue
            prev = k
            keys[nu] = k
            nu += 1
            indptr[(k >> scale) + 1] += 1
            indptr[(k & mask) + 1] += 1
        return nu
    pos = indptr[:-1].copy()
    nu = indices_of.shape[0] // 2
    for t in range(nu):                       # lower parts, row = hi
        k = keys[t]
        r = k & mask
        indices_of[pos[r]] = k >> scale
        pos[r] += 1
    for t in range(nu):                       # upper parts, row = lo
        k = keys[t]
        r = k >> scale
        indices_of[pos[r]] = k & mask
        pos[r] += 1
    return nu


@njit(cache=True)
def compact_sorted_keys(keys, nkeys, n, indptr, indices):
    """CSR of the sorted keys[:nkeys] (row * n + col), duplicates and keys
    >= n*n skipped, in one pass: fills indptr (n + 1) and indices; returns
    the number of entries."""
    limit = np.int64(n) * np.int64(n)
    nnz = 0
    row = 0
    indptr[0] = 0
    prev = np.int64(-1)
    for t in range(nkeys):
        k = keys[t]
        if k >= limit:
            break
        if k == prev:
            continue
        prev = k
        r = k // n
        while row < r:
            row += 1
            indptr[row] = nnz
        indices[nnz] = k - r * n
        nnz += 1
    while row < n:
        row += 1
        indptr[row] = nnz
    return nnz
