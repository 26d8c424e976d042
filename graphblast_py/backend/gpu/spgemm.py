"""GPU kernels of the memory-bounded SpGEMM family (CuPy RawKernels).

* :func:`spgemm_reduce` -- ``w(i) = plus_j op(C(i, j))`` for
  ``C = A (+).(x) B`` with the plus monoid, no mask, C never stored: a CUDA
  block per row (grid-stride over the rows), its warps spread over A(i, :)
  and the lanes over B(k, :); products are added atomically into the block's
  own dense accumulator of ``ncols`` entries, the first touch of a column
  appends it to the block's list; then the block maps each listed value
  through ``op``, sums the results, and clears what it touched.  Memory: per
  block an accumulator, a flag and a list of ``ncols`` entries (the number of
  blocks is cut to fit ``MEMORY_FRACTION`` of the free memory).
* :func:`four_cliques` -- one thread per edge of the degree-oriented graph:
  for each w in N+(u) ∩ N+(v) (a merge of the two sorted lists), every x in
  N+(w) found in both lists (binary search) closes a 4-clique {u, v, w, x},
  counted once, added atomically to its four vertices.
"""
import cupy
import numpy as np

from . import kernels as K

# share of the free device memory the per-block workspaces may use
MEMORY_FRACTION = 0.5
# blocks per multiprocessor at most (rows are grid-strided over the blocks)
BLOCKS_PER_SM = 2
_TYPES = frozenset(np.dtype(t) for t in ("int32", "int64", "float32", "float64"))
_MULT = {"times": "(T)a * (T)b", "pair": "(T)1", "first": "(T)a", "second": "(T)b"}
_UNARY = {"identity": "x", "one": "1", "ainv": "-x", "abs": "(x < 0 ? -x : x)"}


def _atomic_add(dt):
    """C statement adding ``v`` to ``*p`` atomically for an accumulator type."""
    if np.dtype(dt) == np.int64:
        return "atomicAdd((unsigned long long*)p, (unsigned long long)v);"
    return "atomicAdd(p, v);"


def reduce_source(op_expr, tacc, ta, tb, top, tred, mult):
    T, R = K.ctype(tacc), K.ctype(tred)
    return f"""
typedef {T} T;
__device__ __forceinline__ void acc_add(T* p, T v) {{ {_atomic_add(tacc)} }}
__device__ __forceinline__ {R} apply_op(T x) {{ return ({R})(({K.ctype(top)})({op_expr})); }}
extern "C" __global__ void mxm_reduce(const long long* ai, const long long* aj,
        const {K.ctype(ta)}* av, const long long* bi, const long long* bj,
        const {K.ctype(tb)}* bv, long long m, long long ncols, T* accs, int* flags,
        long long* lists, {R}* outw, bool* outp) {{
    __shared__ unsigned long long cnt;
    __shared__ {R} part[{K.BLOCK}];
    T* acc = accs + (long long)blockIdx.x * ncols;
    int* flag = flags + (long long)blockIdx.x * ncols;
    long long* list = lists + (long long)blockIdx.x * ncols;
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    for (long long i = blockIdx.x; i < m; i += gridDim.x) {{
        if (threadIdx.x == 0) cnt = 0;
        __syncthreads();
        for (long long p = ai[i] + warp; p < ai[i + 1]; p += nwarps) {{
            long long k = aj[p];
            {K.ctype(ta)} a = av[p];
            for (long long q = bi[k] + lane; q < bi[k + 1]; q += 32) {{
                long long j = bj[q];
                {K.ctype(tb)} b = bv[q];
                acc_add(acc + j, {mult});
                if (atomicExch(flag + j, 1) == 0) list[atomicAdd(&cnt, 1ULL)] = j;
            }}
        }}
        __syncthreads();
        long long c = (long long)cnt;
        {R} s = 0;
        for (long long t = threadIdx.x; t < c; t += blockDim.x) {{
            long long j = list[t];
            s += apply_op(acc[j]);
            acc[j] = 0;
            flag[j] = 0;
        }}
        part[threadIdx.x] = s;
        __syncthreads();
        for (int h = blockDim.x / 2; h > 0; h >>= 1) {{
            if (threadIdx.x < h) part[threadIdx.x] += part[threadIdx.x + h];
            __syncthreads();
        }}
        if (threadIdx.x == 0 && c > 0) {{ outw[i] = part[0]; outp[i] = true; }}
        __syncthreads();
    }}
}}
"""


def _op_expr(op):
    if op is None:
        return "x"
    if op.is_user:
        return op.cexpr
    return _UNARY.get(op.name)


def spgemm_reduce(be, A, B, semiring, mask, out_dtype, op, op_dtype, monoid, red_dtype):
    """(rows with an entry, their values), or None for the cases the kernel
    does not take (the caller's generic blocked path runs them)."""
    out_dtype, op_dtype, red_dtype = (np.dtype(t) for t in (out_dtype, op_dtype, red_dtype))
    mult = semiring.mult
    expr = _op_expr(op)
    if (mask is not None or semiring.is_user or semiring.monoid.name != "plus"
            or mult.is_user or mult.name not in _MULT or monoid.is_user
            or monoid.name != "plus" or expr is None
            or not {out_dtype, op_dtype, red_dtype} <= _TYPES):
        return None
    ai, aj, av = A
    bi, bj, bv = B
    m, n = ai.shape[0] - 1, bi.shape[0] - 1
    outw = cupy.zeros(m, dtype=red_dtype)
    outp = cupy.zeros(m, dtype=bool)
    if m and n and aj.shape[0] and bj.shape[0]:
        av = av if av is not None else cupy.ones(aj.shape[0], dtype=out_dtype)
        bv = bv if bv is not None else cupy.ones(bj.shape[0], dtype=out_dtype)
        per_block = n * (out_dtype.itemsize + 4 + 8)
        sms = cupy.cuda.Device().attributes["MultiProcessorCount"]
        fit = int(be.max_alloc_bytes() * MEMORY_FRACTION) // per_block
        nblocks = int(max(1, min(m, sms * BLOCKS_PER_SM, fit)))
        be.check_alloc(nblocks * per_block, "the fused product-reduce workspace")
        accs = cupy.zeros(nblocks * n, dtype=out_dtype)
        flags = cupy.zeros(nblocks * n, dtype=np.int32)
        lists = cupy.empty(nblocks * n, dtype=np.int64)
        key = ("mxm_reduce", expr, out_dtype, av.dtype, bv.dtype, op_dtype, red_dtype, mult.name)
        fn = be._fn(key, lambda: reduce_source(expr, out_dtype, av.dtype, bv.dtype, op_dtype,
                                                red_dtype, _MULT[mult.name]), "mxm_reduce")
        i64 = lambda a: cupy.ascontiguousarray(a, dtype=np.int64)  # noqa: E731
        fn((nblocks,), (K.BLOCK,),
           (i64(ai), i64(aj), cupy.ascontiguousarray(av), i64(bi), i64(bj),
            cupy.ascontiguousarray(bv), np.int64(m), np.int64(n), accs, flags, lists,
            outw, outp))
        del accs, flags, lists
    rows = cupy.flatnonzero(outp)
    return rows.astype(np.int64), outw[rows]


FOUR_CLIQUES = r"""
__device__ __forceinline__ bool has(const long long* oj, long long lo, long long hi,
                                    long long x) {
    while (lo < hi) {
        long long mid = (lo + hi) >> 1;
        long long y = oj[mid];
        if (y == x) return true;
        if (y < x) lo = mid + 1; else hi = mid;
    }
    return false;
}
extern "C" __global__ void four_cliques(const long long* op, const long long* oj,
                                        const long long* orow, long long ne,
                                        unsigned long long* cnt) {
    for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < ne;
         e += (long long)gridDim.x * blockDim.x) {
        long long u = orow[e], v = oj[e];
        long long a = op[u], ae = op[u + 1], b = op[v], be = op[v + 1];
        while (a < ae && b < be) {
            long long x = oj[a], y = oj[b];
            if (x < y) { a++; continue; }
            if (y < x) { b++; continue; }
            long long w = x;
            for (long long q = op[w]; q < op[w + 1]; q++) {
                long long z = oj[q];
                if (has(oj, op[u], ae, z) && has(oj, op[v], be, z)) {
                    atomicAdd(cnt + u, 1ULL);
                    atomicAdd(cnt + v, 1ULL);
                    atomicAdd(cnt + w, 1ULL);
                    atomicAdd(cnt + z, 1ULL);
                }
            }
            a++;
            b++;
        }
    }
}
"""


def four_cliques(be, ip, ix):
    """4-cliques containing each vertex (int64 device array) of the symmetric
    pattern (ip, ix) with columns ascending in every row."""
    n = ip.shape[0] - 1
    if n == 0 or ix.shape[0] == 0:
        return cupy.zeros(n, dtype=np.int64)
    ip = ip.astype(np.int64)
    deg = ip[1:] - ip[:-1]
    ids = cupy.arange(n, dtype=np.int64)
    rank = cupy.empty(n, dtype=np.int64)
    rank[cupy.lexsort(cupy.stack((ids, deg)))] = ids
    rows = be.rows_of(ip, ix.shape[0]).astype(np.int64)
    cols = ix.astype(np.int64)
    keep = rank[rows] < rank[cols]
    orow, oj = rows[keep], cols[keep]
    del rows, cols, keep, rank
    op = be.count_ptr(orow, n)
    cnt = cupy.zeros(n, dtype=np.uint64)
    fn = be._fn(("four_cliques",), lambda: FOUR_CLIQUES, "four_cliques")
    ne = int(oj.shape[0])
    if ne:
        blocks = max(1, min((ne + K.BLOCK - 1) // K.BLOCK, 1 << 20))
        fn((blocks,), (K.BLOCK,), (op, oj, orow, np.int64(ne), cnt))
    return cnt.view(np.int64)



EDGE_COMMON = r"""
typedef {IP} IP;
typedef {IX} IX;
// first position in ix[lo:hi) whose column is >= x (columns ascending)
__device__ __forceinline__ long long lower(const IX* __restrict__ ix, long long lo,
                                           long long hi, long long x) {
    while (lo < hi) {
        long long mid = (lo + hi) >> 1;
        if ((long long)ix[mid] < x) lo = mid + 1; else hi = mid;
    }
    return lo;
}
// c[p] = |N(i) ∩ N(j)| for the stored entry p = (i, j) of a symmetric pattern:
// a thread per entry with i < j looks each column of the shorter row up in
// the longer one (binary searches over a shrinking range) and writes the
// count at p and at the mirror entry (j, i); a diagonal entry gets the row's
// length, as the masked dot product A(i, :) A(:, i) does.
extern "C" __global__ void edge_common(const IP* __restrict__ ip, const IX* __restrict__ ix,
                                       const long long* __restrict__ rows, long long nnz,
                                       long long* __restrict__ c) {
    for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < nnz;
         p += (long long)gridDim.x * blockDim.x) {
        long long i = rows[p], j = (long long)ix[p];
        if (j < i) continue;
        long long a = ip[i], ae = ip[i + 1];
        if (j == i) { c[p] = ae - a; continue; }
        long long b = ip[j], be = ip[j + 1];
        if (ae - a > be - b) {
            long long t = a; a = b; b = t;
            t = ae; ae = be; be = t;
        }
        long long cnt = 0;
        for (long long q = a; q < ae && b < be; ++q) {
            long long x = (long long)ix[q];
            b = lower(ix, b, be, x);
            if (b < be && (long long)ix[b] == x) { ++cnt; ++b; }
        }
        c[p] = cnt;
        long long m = lower(ix, ip[j], ip[j + 1], i);
        if (m < (long long)ip[j + 1] && (long long)ix[m] == i) c[m] = cnt;
    }
}
"""


def edge_common(be, ip, ix):
    """For every stored entry (i, j) of the symmetric pattern (ip, ix)
    (columns ascending in every row), the number of common neighbours of i
    and j (int64, CSR order): C = A ∘ A², one kernel, nothing sorted or
    searched by key."""
    n = ip.shape[0] - 1
    nnz = ix.shape[0]
    c = cupy.zeros(nnz, dtype=np.int64)
    if n == 0 or nnz == 0:
        return c
    ip, ix = cupy.ascontiguousarray(ip), cupy.ascontiguousarray(ix)
    rows = be.rows_of(ip, nnz)
    fn = be._fn(("edge_common", ip.dtype, ix.dtype),
                lambda: EDGE_COMMON.replace("{IP}", K.ctype(ip.dtype)).replace(
                    "{IX}", K.ctype(ix.dtype)), "edge_common")
    blocks = max(1, min((nnz + K.BLOCK - 1) // K.BLOCK, 1 << 20))
    fn((blocks,), (K.BLOCK,), (ip, ix, rows, np.int64(nnz), c))
    return c
