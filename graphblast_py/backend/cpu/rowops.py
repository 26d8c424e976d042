"""Row-parallel CSR passes of the CPU backend (numba): ``select`` on a CSR
matrix, the counting-sort transpose, a product with a diagonal matrix
(``diag(d) A``, ``A diag(d)``) and the terms of ``mxm``'s cost model.

Both are two passes over blocks of rows of about equal entries: a count per
row (and per block), a prefix sum over the block totals (a few hundred
numbers, on the host), then each block turns its counts into offsets and
writes its part of the output.  Nothing is serial in the number of entries,
so at 16 threads these steps shrink with the threads (they were NumPy passes:
the keys of every entry, a division to split them, a compaction and a
keys-to-CSR conversion).  Below ``PARALLEL_WORK`` entries the same code runs
in a serial kernel (no fork/join).

Values are copied by their bits (viewed as unsigned integers of the same
width), so one compiled kernel serves every dtype of a width.
"""
import numpy as np
from numba import get_num_threads, njit, prange

from .kernels import _compact_clear, _mult, _sort_take_clear

# blocks per thread: blocks have about equal entries; more blocks, finer balance
BLOCKS_PER_THREAD = 4

# select predicates computed in the kernel (positional, integer thunk)
SELECT_CODES = {"tril": 0, "triu": 1, "diag": 2, "offdiag": 3, "rowle": 4, "rowgt": 5,
                "colle": 6, "colgt": 7}
_KEEP = -1          # code: the predicate was evaluated into the ``keep`` array

_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def row_blocks(indptr, parallel_work, per_thread=BLOCKS_PER_THREAD):
    """(parallel, int64 block bounds over the rows): blocks of about equal
    entries (plus one per row), several per thread; one block when the
    matrix is small or one thread runs."""
    m = indptr.shape[0] - 1
    nnz = int(indptr[-1]) if m >= 0 else 0
    nthreads = get_num_threads()
    if nthreads > 1 and nnz + m > parallel_work and m > 1:
        nblocks = min(m, nthreads * per_thread)
        total = nnz + m
        targets = np.arange(1, nblocks, dtype=np.int64) * (total // nblocks)
        # the first row whose work before it (indptr[r] + r) reaches each target
        b = _bisect_work(indptr.astype(np.int64, copy=False), targets)
        bounds = np.unique(np.concatenate(([0], b, [m]))).astype(np.int64)
        return True, bounds
    return False, np.array([0, max(m, 0)], dtype=np.int64)


@njit(cache=True)
def _bisect_work(ip, targets):
    out = np.empty(targets.shape[0], dtype=np.int64)
    m = ip.shape[0] - 1
    for t in range(targets.shape[0]):
        lo, hi = 0, m
        x = targets[t]
        while lo < hi:
            mid = (lo + hi) >> 1
            if ip[mid] + mid < x:
                lo = mid + 1
            else:
                hi = mid
        out[t] = lo
    return out


# ---------------------------------------------------------------- select
@njit(inline="always")
def _keep(code, i, j, t, keep, p):
    if code == 0:
        return j <= i + t
    if code == 1:
        return j >= i + t
    if code == 2:
        return j == i + t
    if code == 3:
        return j != i + t
    if code == 4:
        return i <= t
    if code == 5:
        return i > t
    if code == 6:
        return j <= t
    if code == 7:
        return j > t
    return keep[p]


@njit(inline="always")
def _select_count(lo, hi, ip, ix, code, t, keep, cnt):
    tot = 0
    for i in range(lo, hi):
        c = 0
        for p in range(ip[i], ip[i + 1]):
            if _keep(code, np.int64(i), np.int64(ix[p]), t, keep, p):
                c += 1
        cnt[i + 1] = c
        tot += c
    return tot


@njit(inline="always")
def _select_fill(lo, hi, base, ip, ix, v, has_v, code, t, keep, cnt, oj, ov):
    q = base
    for i in range(lo, hi):
        c = cnt[i + 1]
        cnt[i + 1] = q + c          # row pointers (the end of row i)
        for p in range(ip[i], ip[i + 1]):
            if _keep(code, np.int64(i), np.int64(ix[p]), t, keep, p):
                oj[q] = ix[p]
                if has_v:
                    ov[q] = v[p]
                q += 1


@njit(cache=True, parallel=True)
def select_parallel(bounds, ip, ix, v, has_v, code, t, keep, cnt, btot):
    nb = bounds.shape[0] - 1
    for b in prange(nb):
        btot[b + 1] = _select_count(bounds[b], bounds[b + 1], ip, ix, code, t, keep, cnt)
    for b in range(nb):
        btot[b + 1] += btot[b]
    nnz = btot[nb]
    oj = np.empty(nnz, dtype=ix.dtype)
    ov = np.empty(nnz if has_v else 0, dtype=v.dtype)
    for b in prange(nb):
        _select_fill(bounds[b], bounds[b + 1], btot[b], ip, ix, v, has_v, code, t, keep, cnt,
                     oj, ov)
    return oj, ov


@njit(cache=True)
def select_serial(bounds, ip, ix, v, has_v, code, t, keep, cnt, btot):
    m = ip.shape[0] - 1
    nnz = _select_count(0, m, ip, ix, code, t, keep, cnt)
    oj = np.empty(nnz, dtype=ix.dtype)
    ov = np.empty(nnz if has_v else 0, dtype=v.dtype)
    _select_fill(0, m, 0, ip, ix, v, has_v, code, t, keep, cnt, oj, ov)
    return oj, ov


def select_csr(indptr, indices, vals, code, thunk, keep, parallel_work):
    """(indptr int64, indices, vals or None) of the entries of the CSR matrix
    kept by the positional predicate ``code`` (SELECT_CODES; ``thunk`` an
    int) or, with ``code`` None, by the bool array ``keep`` (one per entry).
    ``vals`` None: an iso matrix (no values to copy)."""
    m = indptr.shape[0] - 1
    ip = indptr.astype(np.int64, copy=False)
    if keep is None:
        keep = np.zeros(1, dtype=np.bool_)
        code = SELECT_CODES[code]
    else:
        code = _KEEP
    has_v = vals is not None
    v = vals.view(_UINT[vals.dtype.itemsize]) if has_v else np.zeros(1, dtype=np.uint8)
    cnt = np.zeros(m + 1, dtype=np.int64)
    parallel, bounds = row_blocks(ip, parallel_work)
    btot = np.zeros(bounds.shape[0], dtype=np.int64)
    kern = select_parallel if parallel else select_serial
    oj, ov = kern(bounds, ip, indices, v, has_v, np.int64(code), np.int64(thunk), keep, cnt,
                  btot)
    return cnt, oj, (ov.view(vals.dtype) if has_v else None)


# ---------------------------------------------------------------- transpose
@njit(cache=True, parallel=True)
def transpose_parallel(bounds, indptr, indices, t_indptr, t_indices, order, counts):
    """Counting-sort transpose over row blocks: counts[b, c] = entries of
    column c in block b, turned into each block's first slot per column
    (blocks in row order, so every column lists its rows ascending)."""
    nb = bounds.shape[0] - 1
    ncols = t_indptr.shape[0] - 1
    for b in prange(nb):
        cb = counts[b]
        for p in range(indptr[bounds[b]], indptr[bounds[b + 1]]):
            cb[indices[p]] += 1
    # column totals and the per-block starts: parallel over column ranges
    nchunk = nb
    for k in prange(nchunk):
        c0 = ncols * k // nchunk
        c1 = ncols * (k + 1) // nchunk
        for c in range(c0, c1):
            s = 0
            for b in range(nb):
                x = counts[b, c]
                counts[b, c] = s
                s += x
            t_indptr[c + 1] = s
    for c in range(ncols):
        t_indptr[c + 1] += t_indptr[c]
    for b in prange(nb):
        cb = counts[b]
        for i in range(bounds[b], bounds[b + 1]):
            for p in range(indptr[i], indptr[i + 1]):
                c = indices[p]
                q = t_indptr[c] + cb[c]
                cb[c] += 1
                t_indices[q] = i
                order[q] = p


def transpose_order_parallel(indptr, indices, t_indptr, t_indices, order, parallel_work):
    """The parallel counterpart of transpose.py's ``_transpose_order`` (same
    outputs); False where the matrix is too small to pay for the threads.
    One block of rows per thread: the per-block column counts take
    threads x ncols int32 or int64."""
    parallel, bounds = row_blocks(indptr, parallel_work, per_thread=1)
    ncols = t_indptr.shape[0] - 1
    if not parallel or (bounds.shape[0] - 1) * ncols > 4 * indices.shape[0]:
        return False            # (a wide matrix: the counts would outweigh the entries)
    cdt = np.int32 if indices.shape[0] < 2**31 - 1 else np.int64
    counts = np.zeros((bounds.shape[0] - 1, ncols), dtype=cdt)
    transpose_parallel(bounds, indptr, indices, t_indptr, t_indices, order, counts)
    return True


# ---------------------------------------------------------------- products with a diagonal
@njit(inline="always")
def _scale_block(lo, hi, ip, ix, av, read_a, dv, dpos, read_d, left, multop, cv):
    miss = 0
    for i in range(lo, hi):
        for p in range(ip[i], ip[i + 1]):
            j = ix[p]
            x = av[p] if read_a else av[0]
            if left:
                s = dpos[i]
                cv[p] = _mult(multop, dv[s] if read_d else dv[0], x, i, i, j)
            else:
                s = dpos[j]
                if s < 0:
                    miss += 1
                    continue
                cv[p] = _mult(multop, x, dv[s] if read_d else dv[0], i, j, j)
    return miss


@njit(cache=True, parallel=True)
def scale_parallel(bounds, ip, ix, av, read_a, dv, dpos, read_d, left, multop, cv):
    nb = bounds.shape[0] - 1
    miss = np.zeros(nb, dtype=np.int64)
    for b in prange(nb):
        miss[b] = _scale_block(bounds[b], bounds[b + 1], ip, ix, av, read_a, dv, dpos, read_d,
                               left, multop, cv)
    return miss.sum()


@njit(cache=True)
def scale_serial(bounds, ip, ix, av, read_a, dv, dpos, read_d, left, multop, cv):
    return _scale_block(0, ip.shape[0] - 1, ip, ix, av, read_a, dv, dpos, read_d, left, multop,
                        cv)


@njit(cache=True)
def diagonal_positions(di, dj, other_rows_empty):
    """Position of D(i, i) per row of the CSR (di, dj), -1 where the row is
    empty; None-like (an empty array) unless every row holds at most one
    entry, on the diagonal.  ``other_rows_empty``: row pointers of a matrix
    whose row i must be empty wherever D(i, i) is missing (or a length-0
    array: no such condition)."""
    m = di.shape[0] - 1
    pos = np.empty(m, dtype=np.int64)
    check = other_rows_empty.shape[0] == m + 1
    for i in range(m):
        n = di[i + 1] - di[i]
        if n == 0:
            if check and other_rows_empty[i + 1] != other_rows_empty[i]:
                return np.empty(0, dtype=np.int64)
            pos[i] = -1
        elif n == 1 and dj[di[i]] == i:
            pos[i] = di[i]
        else:
            return np.empty(0, dtype=np.int64)
    return pos


def diag_product(A, B, a, read_a, b, read_b, multop, out_dtype, parallel_work):
    """``D B`` (A = D diagonal over every non-empty row of B) or ``A D``
    (B = D diagonal with D(j, j) stored for every column j that A uses), one
    row-parallel pass: (indptr, indices, vals) sharing the other operand's
    structure, or None when neither holds.  A, B: CSR parts (int64 row
    pointers); a, b: their values in the compute type."""
    ai, aj, _ = A
    bi, bj, _ = B
    m = ai.shape[0] - 1
    if aj.shape[0] <= m and bi.shape[0] == m + 1:
        pos = diagonal_positions(ai, aj, bi)
        if pos.shape[0] == m:                       # D B
            return _diag_run(bi, bj, b, read_b, a, pos, read_a, True, multop, out_dtype,
                             parallel_work)
    if bj.shape[0] <= bi.shape[0] - 1:
        pos = diagonal_positions(bi, bj, np.zeros(0, dtype=np.int64))
        if pos.shape[0] == bi.shape[0] - 1:         # A D
            return _diag_run(ai, aj, a, read_a, b, pos, read_b, False, multop, out_dtype,
                             parallel_work)
    return None


def _diag_run(ip, ix, v, read_v, dv, pos, read_d, left, multop, out_dtype, parallel_work):
    cv = np.empty(ix.shape[0], dtype=out_dtype)
    parallel, bounds = row_blocks(ip, parallel_work)
    kern = scale_parallel if parallel else scale_serial
    if kern(bounds, ip, ix, v, read_v, dv, pos, read_d, left, np.int64(multop), cv):
        return None                                 # A uses a column that D lacks
    return ip, ix, cv


# ---------------------------------------------------------------- mxm's cost model
@njit(inline="always")
def _costs_block(lo, hi, ip, ix, bp, cp, mp, mj, ratio):
    f = 0
    w = 0
    for i in range(lo, hi):
        for p in range(ip[i], ip[i + 1]):
            k = ix[p]
            f += bp[k + 1] - bp[k]
        la = ip[i + 1] - ip[i]
        for t in range(mp[i], mp[i + 1]):
            j = mj[t]
            lb = cp[j + 1] - cp[j]
            short = min(la, lb)
            long = max(la, lb)
            if short * ratio < long:
                w += short * np.int64(1.0 + np.log2(np.float64(long + 1)))
            else:
                w += la + lb
    return f, w


@njit(cache=True, parallel=True)
def costs_parallel(bounds, ip, ix, bp, cp, mp, mj, ratio):
    nb = bounds.shape[0] - 1
    fw = np.zeros((nb, 2), dtype=np.int64)
    for b in prange(nb):
        f, w = _costs_block(bounds[b], bounds[b + 1], ip, ix, bp, cp, mp, mj, ratio)
        fw[b, 0] = f
        fw[b, 1] = w
    return fw[:, 0].sum(), fw[:, 1].sum()


@njit(cache=True)
def costs_serial(bounds, ip, ix, bp, cp, mp, mj, ratio):
    return _costs_block(0, ip.shape[0] - 1, ip, ix, bp, cp, mp, mj, ratio)


def dot_costs(ip, ix, bp, cp, mp, mj, ratio, parallel_work):
    """(flops of A B, merge steps of the masked dot products) -- the terms
    of operations/mxm.py's ``_choose``, in one row-parallel pass."""
    i64 = np.int64
    ip, bp, cp, mp = (x.astype(i64, copy=False) for x in (ip, bp, cp, mp))
    parallel, bounds = row_blocks(ip, parallel_work)
    kern = costs_parallel if parallel else costs_serial
    f, w = kern(bounds, ip, ix, bp, cp, mp, mj, i64(ratio))
    return int(f), int(w)


# ---------------------------------------------------------------- masked count: work per row
@njit(inline="always")
def _dot_work_block(lo, hi, ai, bi, mi, mj, work):
    for i in range(lo, hi):
        s = ai[i + 1] - ai[i] + 1
        for t in range(mi[i], mi[i + 1]):
            j = mj[t]
            s += bi[j + 1] - bi[j]
        work[i] = s


@njit(cache=True, parallel=True)
def dot_work_parallel(bounds, ai, bi, mi, mj, work):
    for b in prange(bounds.shape[0] - 1):
        _dot_work_block(bounds[b], bounds[b + 1], ai, bi, mi, mj, work)


@njit(cache=True)
def dot_work_serial(bounds, ai, bi, mi, mj, work):
    _dot_work_block(0, ai.shape[0] - 1, ai, bi, mi, mj, work)


def dot_row_work(ai, bi, mi, mj, parallel_work):
    """Per row i: |A_i| + 1 + the sum over the mask entries (i, j) of
    |B^T_j| -- the masked count's work (int64 row pointers)."""
    work = np.empty(ai.shape[0] - 1, dtype=np.int64)
    parallel, bounds = row_blocks(mi, parallel_work)
    (dot_work_parallel if parallel else dot_work_serial)(bounds, ai, bi, mi, mj, work)
    return work


# ---------------------------------------------------------------- dense vector passes
# a dense vector pass goes parallel from this many entries at 2 threads, and
# from 2 * DENSE_PARALLEL / threads at more (its serial time grows with n, a
# parallel region's start does not)
DENSE_PARALLEL = 1 << 17


def _dense_parallel(n, min_threads=2):
    nt = get_num_threads()
    return nt >= min_threads and n * nt >= 2 * DENSE_PARALLEL


# The two passes that only read (a frontier's edge count, the positions of
# the allowed rows) go parallel from this many threads: at 2 threads on the
# 2-core VM their parallel kernels were slower than the serial ones at every
# size measured (2^16 to 2^20 positions: the edge count 3.3x, the positions
# 1.7-2.4x NumPy's flatnonzero), while the passes that write two arrays
# (assign_where, the masked merge) gained 1.7-1.9x
READ_PASS_MIN_THREADS = 4


# The dense passes test no flag in a branch: a frontier's or a mask's flags
# are scattered over the positions, and a mispredicted branch per position
# made the parallel passes slower than NumPy's serial ones on the 2-core VM
# (2^18 positions, 30% set: the edge count 336 us against 51, the positions
# 522 us against NumPy's 150)
@njit(cache=True, parallel=True)
def _frontier_edges_parallel(indptr, pres):
    s = 0
    for i in prange(pres.shape[0]):
        s += (indptr[i + 1] - indptr[i]) * pres[i]
    return s


@njit(cache=True)
def _frontier_edges_serial(indptr, pres):
    s = 0
    for i in range(pres.shape[0]):
        s += (indptr[i + 1] - indptr[i]) * pres[i]      # (no branch)
    return s


@njit(cache=True)
def _frontier_edges_listed(indptr, idx):
    s = 0
    for t in range(idx.shape[0]):
        i = idx[t]
        s += indptr[i + 1] - indptr[i]
    return s


def frontier_edges_dense(indptr, pres):
    """Entries of the rows ``pres`` selects (a dense frontier's edges), one
    pass, parallel on long vectors (NumPy's boolean gather and sum took
    ~350 us at 2^16 vertices, this ~12 us); None for a presence that is
    not a bool array."""
    if pres.dtype != np.bool_ or pres.ndim != 1 or indptr.shape[0] != pres.shape[0] + 1:
        return None
    run = _frontier_edges_parallel if _dense_parallel(pres.shape[0], READ_PASS_MIN_THREADS) \
        else _frontier_edges_serial
    return int(run(indptr, pres))


def frontier_edges_sparse(indptr, idx):
    """Entries of the rows ``idx`` lists (a sparse frontier's edges), one
    serial pass (no gathered arrays)."""
    return int(_frontier_edges_listed(indptr, idx))


@njit(cache=True, parallel=True)
def _merge_parallel(m, z, zp, has_zp, c, cp, has_cp, rv, rp):
    for i in prange(m.shape[0]):
        if m[i]:
            rv[i] = z[i]
            rp[i] = zp[i] if has_zp else True
        else:
            rv[i] = c[i]
            rp[i] = cp[i] if has_cp else True


def masked_merge(m, z, zp, c, cp):
    """``(where(m, z, c), where(m, zp, cp))`` (a presence None: every
    position present; the result's presence None when both are) in one
    parallel pass over the positions; None where NumPy's passes serve
    (short vectors, one thread, values of two types)."""
    n = m.shape[0]
    if (not _dense_parallel(n) or z.dtype != c.dtype
            or z.shape != (n,) or c.shape != (n,) or m.dtype != np.bool_):
        return None
    u = _UINT.get(z.dtype.itemsize)
    if u is None or z.dtype.kind not in "biuf":
        return None
    ph = np.zeros(1, dtype=np.bool_)
    rv = np.empty(n, dtype=z.dtype)
    rp = np.empty(n, dtype=np.bool_)
    _merge_parallel(m, z.view(u), zp if zp is not None else ph, zp is not None, c.view(u),
                    cp if cp is not None else ph, cp is not None, rv.view(u), rp)
    return rv, (None if zp is None and cp is None else rp)


@njit(cache=True)
def _assign_where_serial(v, p, m, s):
    for i in range(m.shape[0]):
        mi = m[i]
        v[i] = s if mi else v[i]        # (no branch: a frontier's positions
        p[i] = p[i] | mi                #  are scattered, a branch mispredicts)


@njit(cache=True, parallel=True)
def _assign_where_parallel(v, p, m, s):
    for i in prange(m.shape[0]):
        mi = m[i]
        v[i] = s if mi else v[i]
        p[i] = p[i] | mi


def assign_where(vals, pres, m, s):
    """``vals[m] = s``, ``pres |= m`` in place, in one pass (parallel on
    long vectors); False where it does not apply (the caller takes NumPy's
    path): arrays that are not 1-D of one length, a bool mask and presence,
    or values that are not numbers of 1, 2, 4 or 8 bytes."""
    n = m.shape[0]
    u = _UINT.get(vals.dtype.itemsize)
    if (u is None or vals.dtype.kind not in "biuf" or m.dtype != np.bool_
            or pres.dtype != np.bool_ or vals.shape != (n,) or pres.shape != (n,)
            or m.ndim != 1):
        return False
    bits = np.asarray(s, dtype=vals.dtype).view(u)[()]
    (_assign_where_parallel if _dense_parallel(n) else _assign_where_serial)(
        vals.view(u), pres, m, bits)
    return True


@njit(cache=True)
def _copy_at(v, p, keys, src):
    for t in range(keys.shape[0]):
        k = keys[t]
        v[k] = src[t]
        p[k] = True


def copy_at(vals, pres, keys, src):
    """``vals[keys] = src`` and ``pres[keys] = True`` in place, in one pass
    over the keys in order (a repeated key: its last occurrence wins, as
    ``copy_at(last=True)`` needs); False where it does not apply (the caller takes NumPy's
    path): values that are not numbers of 1, 2, 4 or 8 bytes, ``src`` of
    another type or length, or arrays of other shapes."""
    u = _UINT.get(vals.dtype.itemsize)
    if (u is None or vals.dtype.kind not in "biuf" or not isinstance(src, np.ndarray)
            or not isinstance(keys, np.ndarray) or src.dtype != vals.dtype
            or pres is None or pres.dtype != np.bool_ or vals.ndim != 1
            or pres.shape != vals.shape or keys.ndim != 1 or keys.dtype.kind not in "iu"
            or src.shape != keys.shape):
        return False
    if u is np.uint64 and vals.dtype.kind in "fi" and src.flags.c_contiguous:
        # float64 and int64 as they are (no views: 0.4 us of an SSSP round's
        # dist<f.S> = f on a grid)
        _copy_at(vals, pres, keys, src)
    else:
        _copy_at(vals.view(u), pres, keys, np.ascontiguousarray(src).view(u))
    return True


@njit(cache=True)
def _fill_segments(v, p, keys, svals, starts):
    for j in range(starts.shape[0] - 1):
        s = svals[j]
        for t in range(starts[j], starts[j + 1]):
            k = keys[t]
            v[k] = s
            p[k] = True


def fill_segments(vals, pres, keys, s, starts):
    """``vals[keys[starts[j]:starts[j + 1]]] = s[j]`` and ``pres[keys] =
    True`` in place, in one pass over the keys (a traversal's deferred level
    fills: one scalar per level, no repeated scalar array); False where it
    does not apply (the caller takes NumPy's path): values that are not
    numbers of 1, 2, 4 or 8 bytes, or arrays of other shapes or types."""
    u = _UINT.get(vals.dtype.itemsize)
    if (u is None or vals.dtype.kind not in "biuf" or pres is None or pres.dtype != np.bool_
            or vals.ndim != 1 or pres.shape != vals.shape or keys.ndim != 1
            or keys.dtype.kind not in "iu"):
        return False
    bits = np.asarray(s, dtype=vals.dtype).view(u)
    _fill_segments(vals.view(u), pres, keys, bits, np.asarray(starts, dtype=np.int64))
    return True


def compact_clear(flags, vals, count):
    """``(flatnonzero(flags), vals[that])`` in one pass that also clears
    ``flags`` (push's accumulator after a large level: cheaper than sorting
    the touched list once it holds more than a few per cent of the
    outputs); ``count`` the number of set flags.  Values are moved by their
    bits; None for values that are not numbers of 1, 2, 4 or 8 bytes."""
    u = _UINT.get(vals.dtype.itemsize)
    if u is None or vals.dtype.kind not in "biuf" or flags.dtype != np.bool_:
        return None
    idx = np.empty(count + 1, dtype=np.int64)
    out = np.empty(count + 1, dtype=vals.dtype)
    k = _compact_clear(flags, vals.view(u), idx, out.view(u))
    return idx[:k], out[:k]


_CMP_CODES = {"lt": 0, "le": 1, "gt": 2, "ge": 3, "eq": 4, "ne": 5}


@njit(inline="always", cache=True)
def _cmp(code, x, y):
    if code == 0:
        return x < y
    elif code == 1:
        return x <= y
    elif code == 2:
        return x > y
    elif code == 3:
        return x >= y
    elif code == 4:
        return x == y
    return x != y


@njit(cache=True)
def _compare_at(code, va, keys, dv, dp, has_dp, default, swap, out):
    for i in range(keys.shape[0]):
        j = keys[i]
        y = dv[j] if (not has_dp or dp[j]) else default
        if swap:
            out[i] = _cmp(code, y, va[i])
        else:
            out[i] = _cmp(code, va[i], y)


def compare_at(name, va, keys, dv, dp, default, swap):
    """``cmp(va[i], d(keys[i]))`` for each i (``swap``: ``cmp(d(keys[i]),
    va[i])``) as a new bool array, where ``d(k)`` is ``dv[k]`` where ``dp``
    (None: everywhere) is set and ``default`` elsewhere, and ``cmp`` the
    comparison ``name`` ("lt", "le", "gt", "ge", "eq", "ne"): one pass, no
    gathered arrays.  ``va``, ``dv`` and ``default`` (a NumPy scalar) of
    one type (no promotion); None for other input."""
    code = _CMP_CODES.get(name)
    if (code is None or va.dtype != dv.dtype or va.dtype.kind not in "biuf"
            or not isinstance(default, np.generic) or default.dtype != va.dtype
            or va.shape != keys.shape
            or (dp is not None and dp.dtype != np.bool_)):
        return None
    out = np.empty(keys.shape[0], dtype=np.bool_)
    _compare_at(code, va, keys, dv, dp if dp is not None else _NO_FLAGS, dp is not None,
                default, swap, out)
    return out


_NO_FLAGS = np.zeros(1, dtype=np.bool_)


@njit(cache=True)
def _compress_truthy(keys, vals, flags, ko, vo):
    k = 0
    for i in range(keys.shape[0]):
        ko[k] = keys[i]                 # (written always, kept when the
        vo[k] = vals[i]                 #  flag is nonzero: no branch)
        k += flags[i] != 0
    return k


def compress_truthy(keys, vals, flags):
    """``(keys[f], vals[f])`` with ``f = flags != 0`` (NaN is nonzero) as
    new arrays, in one pass; values of 8 bytes as they are, others by their
    bits (1, 2 or 4 bytes); None for other input."""
    n = keys.shape[0]
    dt = vals.dtype
    if (keys.dtype != np.int64 or dt.kind not in "biuf" or flags.dtype.kind not in "biuf"
            or vals.shape != (n,) or flags.shape != (n,)):
        return None
    ko = np.empty(n + 1, dtype=np.int64)
    vo = np.empty(n + 1, dtype=dt)
    if dt.itemsize == 8:
        k = _compress_truthy(keys, vals, flags, ko, vo)
    else:
        u = _UINT.get(dt.itemsize)
        if u is None:
            return None
        k = _compress_truthy(keys, vals.view(u), flags, ko, vo.view(u))
    return ko[:k], vo[:k]


def sort_take_clear(touched, nt, flags, vals):
    """``(sort(touched[:nt]), vals[that])`` as new arrays, clearing
    ``flags`` at those positions (push's touched outputs with a per-thread
    accumulator: one numba call instead of a sort, a gather and a scatter);
    ``touched[:nt]`` distinct.  Values of 8 bytes (float64, int64: the
    common types, no view) or moved by their bits (1, 2 or 4 bytes); None
    for other values."""
    dt = vals.dtype
    if dt.kind not in "biuf" or flags.dtype != np.bool_:
        return None
    idx = np.empty(nt, dtype=np.int64)
    out = np.empty(nt, dtype=dt)
    if dt.itemsize == 8:
        _sort_take_clear(touched, nt, flags, vals, idx, out, 4 * nt + 64)
        return idx, out
    u = _UINT.get(dt.itemsize)
    if u is None:
        return None
    _sort_take_clear(touched, nt, flags, vals.view(u), idx, out.view(u), 4 * nt + 64)
    return idx, out


@njit(cache=True, parallel=True)
def _positions_parallel(flags, want, bounds, btot):
    nb = bounds.shape[0] - 1
    for b in prange(nb):
        c = 0
        for i in range(bounds[b], bounds[b + 1]):
            c += flags[i] == want
        btot[b + 1] = c
    for b in range(nb):
        btot[b + 1] += btot[b]
    out = np.empty(btot[nb], dtype=np.int64)
    for b in prange(nb):
        q = btot[b]
        qe = btot[b + 1]
        for i in range(bounds[b], bounds[b + 1]):
            if q < qe:                  # (true until the block's last entry)
                out[q] = i              # kept when the flag is set, else
            q += flags[i] == want       # overwritten by the next position
    return out


def true_positions(flags, complement=False):
    """``flatnonzero(flags)`` (``flatnonzero(~flags)`` with ``complement``)
    in one parallel two-pass scan; None where NumPy serves."""
    n = flags.shape[0]
    nt = get_num_threads()
    if not _dense_parallel(n, READ_PASS_MIN_THREADS) or flags.dtype != np.bool_:
        return None
    nb = min(n, nt * BLOCKS_PER_THREAD)
    bounds = (np.arange(nb + 1, dtype=np.int64) * n) // nb
    return _positions_parallel(flags, not complement, bounds,
                               np.zeros(nb + 1, dtype=np.int64))


@njit(cache=True)
def _minmax_where_serial(x, y, p, is_max, out):
    # (one loop per operator, the min/max taken first and the presence
    # selecting after it: the loop compiles to vector code even when out is
    # x itself -- 0.52 against 3.6 ms serially at 10^6 entries with half of
    # them present, where the old loop's combined test ran a branch each)
    if is_max:
        for i in range(x.shape[0]):
            a = x[i]
            b = y[i]
            m = b if b > a else a
            out[i] = m if p[i] else a
    else:
        for i in range(x.shape[0]):
            a = x[i]
            b = y[i]
            m = b if b < a else a
            out[i] = m if p[i] else a


def minmax_into(name, x, y, p, out):
    """``where(p, min(x, y), x)`` (``name`` "min"; "max": max; ``p`` None:
    every position) written into ``out`` (a new array when None), which may
    be ``x`` or ``y`` itself (each position is read before it is written),
    in one pass (with ``p``: one serial numba pass),
    for integer ``x`` and ``y`` of one type; None otherwise.
    Returns ``out``."""
    n = x.shape[0]
    if (x.dtype != y.dtype or x.dtype.kind not in "iu" or x.ndim != 1 or y.shape != (n,)
            or (p is not None and (p.dtype != np.bool_ or p.shape != (n,)))
            or (out is not None and (out.dtype != x.dtype or out.shape != (n,)))):
        return None
    if out is None:
        out = np.empty(n, dtype=x.dtype)
    if p is None:
        # NumPy's serial loop at every length: numba's serial one does not
        # vectorise when out is x or y itself (twice as slow), and a
        # parallel one (0.11 against 0.47 ms at 10^6 on the quiet 2-core VM)
        # waited several ms for a descheduled worker whenever another
        # process held a core (connected components on the 1000x1000 grid
        # 148 -> 375-490 ms with three such regions per iteration)
        (np.maximum if name == "max" else np.minimum)(x, y, out=out)
    else:
        # serial too: the vectorised loop (0.5 ms at 10^6) is about as fast
        # as the parallel one on the quiet 2-core VM, which took 4-8 ms
        # whenever another process held a core
        _minmax_where_serial(x, y, p, name == "max", out)
    return out


@njit(cache=True)
def _all_equal(a, b):
    n = a.shape[0]
    lo = 0
    while lo < n:
        hi = min(n, lo + 4096)
        x = a[lo:hi]
        y = b[lo:hi]
        c = 0
        for i in range(hi - lo):
            c |= x[i] ^ y[i]            # (an or of the bits: vector code)
        if c != 0:
            return False
        lo = hi
    return True


def all_equal(a, b):
    """``bool(all(a == b))`` for 1-D integer or bool arrays of one type and
    length (equal exactly when their bits are), block by block (4096
    entries), stopping at the first block with a difference; None for
    other arrays (floats: NaN and -0.0 compare otherwise than their bits)."""
    if a.ndim != 1 or b.shape != a.shape or a.dtype != b.dtype or a.dtype.kind not in "biu":
        return None
    u = _UINT.get(a.dtype.itemsize)
    if u is None:
        return None
    return bool(_all_equal(a.view(u), b.view(u)))


@njit(cache=True)
def _minmax_serial(a):
    lo = a[0]
    hi = a[0]
    for i in range(1, a.shape[0]):
        v = a[i]
        lo = min(lo, v)
        hi = max(hi, v)
    return lo, hi


def minmax(a):
    """``(min, max)`` of a non-empty 1-D integer array as Python ints, in one
    serial pass (NumPy's ``min`` and ``max`` are two; a parallel pass was
    slower at 10^6 entries on the 2-core VM); None for other arrays."""
    if a.ndim != 1 or a.dtype.kind not in "iu" or a.shape[0] == 0:
        return None
    lo, hi = _minmax_serial(a)
    return int(lo), int(hi)


@njit(cache=True)
def _take_checked_serial(src, idx, out):
    # (serially the check first, then the gather: two loops that compile
    # to vector code run 4x faster than one that tests each index)
    n = src.shape[0]
    lo = 0
    hi = n - 1
    for i in range(idx.shape[0]):
        j = idx[i]
        lo = min(lo, j)
        hi = max(hi, j)
    if lo < 0 or hi >= n:
        return 1
    for i in range(idx.shape[0]):
        out[i] = src[idx[i]]
    return 0


def take_checked(src, idx):
    """``src[idx]`` as a new array, every index checked to be in ``[0,
    len(src))`` first (two vectorised serial loops, one call); None when
    one is not (nothing else is written: the caller reports it) or for
    arrays this pass does not take (it takes values of 1, 2, 4 or 8 bytes
    and 1-D signed integer indices)."""
    u = _UINT.get(src.dtype.itemsize)
    if (u is None or src.dtype.kind not in "biuf" or src.ndim != 1 or idx.ndim != 1
            or idx.dtype.kind != "i" or src.shape[0] == 0):
        return None
    out = np.empty(idx.shape[0], dtype=src.dtype)
    # (serial at every length: see minmax_into on parallel regions)
    if _take_checked_serial(src.view(u), idx, out.view(u)):
        return None
    return out


@njit(inline="always", cache=True)
def _fold_rows(lo, hi, indptr, indices, x, is_max, old, new):
    # (one running position over the entries, each row's end read once, a
    # select instead of a branch: 464 -> 364 us serially on the 300x300
    # grid's CSR against the loop over range(indptr[r], indptr[r + 1]))
    # (a row of exactly four entries -- a grid's or mesh's inner vertex --
    # folds them as a tree without the loop: 0.36 -> 0.31 ms on the 300x300
    # grid, 4.2 -> 3.7 ms on the 1000x1000 one, serially)
    if lo >= hi:
        return
    p = indptr[lo]
    if is_max:
        for r in range(lo, hi):
            e = indptr[r + 1]
            a = old[r]
            if e - p == 4:
                v0 = x[indices[p]]
                v1 = x[indices[p + 1]]
                v2 = x[indices[p + 2]]
                v3 = x[indices[p + 3]]
                m0 = v0 if v0 > v1 else v1
                m1 = v2 if v2 > v3 else v3
                m = m0 if m0 > m1 else m1
                a = m if m > a else a
                p = e
            else:
                while p < e:
                    v = x[indices[p]]
                    a = v if v > a else a
                    p += 1
            new[r] = a
    else:
        for r in range(lo, hi):
            e = indptr[r + 1]
            a = old[r]
            if e - p == 4:
                v0 = x[indices[p]]
                v1 = x[indices[p + 1]]
                v2 = x[indices[p + 2]]
                v3 = x[indices[p + 3]]
                m0 = v0 if v0 < v1 else v1
                m1 = v2 if v2 < v3 else v3
                m = m0 if m0 < m1 else m1
                a = m if m < a else a
                p = e
            else:
                while p < e:
                    v = x[indices[p]]
                    a = v if v < a else a
                    p += 1
            new[r] = a


@njit(cache=True)
def _pull_accum_serial(indptr, indices, x, is_max, old, new):
    _fold_rows(0, indptr.shape[0] - 1, indptr, indices, x, is_max, old, new)


@njit(cache=True, parallel=True)
def _pull_accum_parallel(indptr, indices, x, is_max, old, new):
    n = indptr.shape[0] - 1
    for b in prange((n + 255) // 256):
        _fold_rows(b * 256, min(n, (b + 1) * 256), indptr, indices, x, is_max, old, new)


def pull_accum(indptr, indices, x, name, old, in_place, parallel):
    """``new(r) = min(old(r), min over the row's columns c of x(c))`` (``name``
    "min"; "max": max) for every row of the CSR (indptr, indices), ``x`` and
    ``old`` full integer arrays of one type: a pull SpMV over a min/max
    semiring whose multiply returns x's value, accumulated with the same
    operator into a full output, in one pass (a row without entries keeps
    ``old``).  Written into ``old`` itself with ``in_place`` (the caller owns
    it and ``x`` is not it), else into a new array, which is returned."""
    new = old if in_place else np.empty_like(old)
    kernel = _pull_accum_parallel if parallel else _pull_accum_serial
    kernel(indptr, indices, x, name == "max", old, new)
    return new
