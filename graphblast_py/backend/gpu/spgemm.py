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
* :func:`edge_triangles` -- C = A ∘ A² on a symmetric pattern by triangle
  listing: one thread per edge of the degree-oriented graph merges the two
  out-lists; each triangle is found once and counted atomically on its edges.
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


TRIANGLES = r"""
extern "C" __global__ void edge_triangles(const long long* op, const long long* oj,
                                          const long long* orow, long long ne,
                                          const long long* tot, unsigned int* cnt,
                                          unsigned long long* sums, int pass) {
    for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < ne;
         e += (long long)gridDim.x * blockDim.x) {
        long long u = orow[e], v = oj[e];
        long long a = op[u], ae = op[u + 1], b = op[v], be = op[v + 1];
        while (a < ae && b < be) {
            long long x = oj[a], y = oj[b];
            if (x < y) { a++; continue; }
            if (y < x) { b++; continue; }
            /* triangle u -> v -> w = x, u -> w: edges e (u v), a (u w), b (v w) */
            if (pass == 0) {
                atomicAdd(cnt + e, 1u);
                atomicAdd(cnt + a, 1u);
                atomicAdd(cnt + b, 1u);
            } else {
                atomicAdd(sums + u, (unsigned long long)(tot[b] - 1));
                atomicAdd(sums + v, (unsigned long long)(tot[a] - 1));
                atomicAdd(sums + x, (unsigned long long)(tot[e] - 1));
            }
            a++;
            b++;
        }
    }
}
"""


def _orient(be, ip, ix):
    """The degree orientation of a symmetric pattern: (op, oj, orow, up, rows,
    cols): the CSR of the edges u -> v with (degree, id) of u below v's
    (columns ascending), each oriented edge's row, its position ``up`` in the
    input CSR, and the input's rows and columns (int64)."""
    n = ip.shape[0] - 1
    ip = ip.astype(np.int64)
    deg = ip[1:] - ip[:-1]
    ids = cupy.arange(n, dtype=np.int64)
    rank = cupy.empty(n, dtype=np.int64)
    rank[cupy.lexsort(cupy.stack((ids, deg)))] = ids
    rows = be.rows_of(ip, ix.shape[0]).astype(np.int64)
    cols = ix.astype(np.int64)
    up = cupy.flatnonzero(rank[rows] < rank[cols])
    orow, oj = rows[up], cols[up]
    op = cupy.zeros(n + 1, dtype=np.int64)
    cupy.cumsum(cupy.bincount(orow, minlength=n), out=op[1:])
    return op, oj, orow, up, rows, cols


def _launch(be, key, source, name, ne, args):
    fn = be._fn(key, lambda: source, name)
    if ne:
        blocks = max(1, min((ne + K.BLOCK - 1) // K.BLOCK, 1 << 20))
        fn((blocks,), (K.BLOCK,), args)


def edge_triangles(be, ip, ix, sums):
    """Common neighbours per stored entry (int64, CSR order) of a symmetric
    pattern with columns ascending, and with ``sums`` the per-vertex sums
    over the triangles {i, j, k} of C(j, k) - 1: a thread per oriented edge
    (u, v) merges N+(u) and N+(v); each common w is a triangle found once,
    counted atomically on its three edges (first pass) or, with the counts
    known, added to its corners (second pass)."""
    n = ip.shape[0] - 1
    nnz = ix.shape[0]
    out = cupy.zeros(nnz, dtype=np.int64)
    s = cupy.zeros(n, dtype=np.uint64)
    if n and nnz:
        op, oj, orow, up, rows, cols = _orient(be, ip, ix)
        ne = int(oj.shape[0])
        cnt = cupy.zeros(ne, dtype=np.uint32)
        args = [op, oj, orow, np.int64(ne), be._dummy(np.dtype(np.int64)), cnt, s, np.int32(0)]
        _launch(be, ("edge_triangles",), TRIANGLES, "edge_triangles", ne, tuple(args))
        tot = cnt.astype(np.int64)
        del cnt
        out[up] = tot
        keys = rows * np.int64(n) + cols
        out[cupy.searchsorted(keys, cols[up] * np.int64(n) + rows[up])] = tot
        del keys, rows, cols
        if sums:
            args[4], args[7] = tot, np.int32(1)
            _launch(be, ("edge_triangles",), TRIANGLES, "edge_triangles", ne, tuple(args))
    return (out, s.view(np.int64)) if sums else out


def four_cliques(be, ip, ix):
    """4-cliques containing each vertex (int64 device array) of the symmetric
    pattern (ip, ix) with columns ascending in every row."""
    n = ip.shape[0] - 1
    cnt = cupy.zeros(n, dtype=np.uint64)
    if n and ix.shape[0]:
        op, oj, orow, _, _, _ = _orient(be, ip, ix)
        ne = int(oj.shape[0])
        _launch(be, ("four_cliques",), FOUR_CLIQUES, "four_cliques", ne,
                (op, oj, orow, np.int64(ne), cnt))
    return cnt.view(np.int64)
