"""Whole-traversal kernel of the GPU backend (traversal speculation, see
operations/speculate.py): the levels of the plain BFS recurrence

    f_{d+1} = { j : A(i, j) for some i in f_d } minus v_d,   v_{d+1} = v_d + f_{d+1}

from a frontier and a visited set, in one *persistent* kernel: a single
block of 1024 threads loops over the levels (``__syncthreads`` between
them), a thread per frontier vertex, the queue in global memory and the
visited set an int array claimed with ``atomicExch``.  It stops after a level
of more than ``capacity`` vertices (a big level goes back to the ordinary
push/pull, which uses the whole GPU), after ``max_levels`` levels, or at an
empty level (the traversal is complete).  Each found vertex w of level d also
gets the key ``d * n + w``; one sort of the keys (CuPy) gives every level in
vertex order.  One device-to-host copy (the level count, the completion flag
and the level offsets, ``max_levels + 3`` int64) is the traversal's only wait.
With parents (a BFS with ``any_secondi``) the thread that claims a vertex
also writes the frontier vertex it came from into a dense parent array,
read at the sorted vertices afterwards.
"""
import numpy as np

import cupy

from . import kernels as K

BLOCK = 1024

_SOURCE = r"""
extern "C" __global__ void trav_compact(const bool* __restrict__ pres, i64 n,
                                        i64* __restrict__ start,
                                        unsigned long long* __restrict__ cnt)
{
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (i64)gridDim.x * blockDim.x) {
        if (pres[i]) {
            unsigned long long p = atomicAdd(cnt, 1ULL);
            start[p] = i;
        }
    }
}

// one block: levels 1, 2, ... of the BFS from start[0 : start_n] (start_n < 0:
// the count is *start_cnt) outside vis (1 = visited; changed)
// __launch_bounds__: one block of BLOCK (1024) threads must fit the register
// file (at most 64 registers a thread)
extern "C" __global__ void __launch_bounds__(1024) trav_bfs(const IP* __restrict__ indptr, const IX* __restrict__ indices,
                                    i64 n, const i64* __restrict__ start, i64 start_n,
                                    const unsigned long long* __restrict__ start_cnt,
                                    int* vis, i64* __restrict__ queue, i64* __restrict__ keys,
                                    i64* __restrict__ head, i64 capacity, i64 max_levels,
                                    i64* __restrict__ par, int want_par)
{
    __shared__ unsigned long long tail;
    __shared__ i64 lo, hi, nlev;
    __shared__ int stop;
    if (threadIdx.x == 0) {
        tail = 0ULL; nlev = 0; stop = 0; lo = 0;
        hi = start_n >= 0 ? start_n : (i64)(*start_cnt);
    }
    __syncthreads();
    i64 level = 0;
    while (true) {
        const i64 L = lo, H = hi;
        for (i64 q = L + threadIdx.x; q < H; q += blockDim.x) {
            const i64 v = level == 0 ? start[q] : queue[q];
            const i64 e = (i64)indptr[v + 1];
            for (i64 p = (i64)indptr[v]; p < e; ++p) {
                const i64 w = (i64)indices[p];
                if (vis[w] == 0 && atomicExch(&vis[w], 1) == 0) {
                    const unsigned long long pos = atomicAdd(&tail, 1ULL);
                    queue[pos] = w;
                    keys[pos] = (level + 1) * n + w;
                    if (want_par) par[w] = v;
                }
            }
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            const i64 beg = level == 0 ? 0 : H;
            const i64 end = (i64)tail;
            if (end == beg) {
                stop = 2;                       // an empty level: complete
            } else {
                nlev += 1;
                head[2 + nlev] = end;
                if (end - beg > capacity || nlev >= max_levels) stop = 1;
                lo = beg; hi = end;
            }
        }
        __syncthreads();
        if (stop) break;
        level += 1;
    }
    if (threadIdx.x == 0) {
        head[0] = nlev;
        head[1] = stop == 2;
        head[2] = 0;
    }
}
"""


def _source(ip, ix):
    return K._COMMON + K._typedefs(IP=ip, IX=ix) + _SOURCE


def traverse(be, indptr, indices, frontier, visited, capacity, max_levels, parents=False):
    """``(order, offsets, complete, parents or None)`` as the CPU backend's
    ``traverse``: level d is ``order[offsets[d-1]:offsets[d]]`` (sorted int64
    vertices on the device), ``offsets`` on the host."""
    from ...results import SparseResult
    n = visited.shape[0]
    max_levels = int(max(1, min(max_levels, n + 1)))
    ip, ix = cupy.ascontiguousarray(indptr), cupy.ascontiguousarray(indices)
    key = ("traverse", ip.dtype, ix.dtype)
    fn_bfs = be._fn(key, lambda: _source(ip.dtype, ix.dtype), "trav_bfs")
    vis = visited.astype(np.int32)
    queue = cupy.empty(max(n, 1), dtype=np.int64)
    keys = cupy.empty(max(n, 1), dtype=np.int64)
    head = cupy.zeros(max_levels + 3, dtype=np.int64)
    cnt = cupy.zeros(1, dtype=np.uint64)
    par = cupy.empty(max(n, 1) if parents else 1, dtype=np.int64)
    if isinstance(frontier, SparseResult):
        start = cupy.ascontiguousarray(frontier.keys, dtype=np.int64)
        start_n = start.shape[0]
    elif frontier.present is None:
        start = cupy.arange(n, dtype=np.int64)
        start_n = n
    else:
        start = cupy.empty(max(n, 1), dtype=np.int64)
        start_n = -1
        if n:
            blocks = max(1, min((n + 255) // 256, 4096))
            be._fn(key, lambda: _source(ip.dtype, ix.dtype), "trav_compact")(
                (blocks,), (256,), (cupy.ascontiguousarray(frontier.present), np.int64(n),
                                    start, cnt))
    if start.shape[0] == 0:
        start = cupy.zeros(1, dtype=np.int64)     # a valid pointer; start_n is 0
    fn_bfs((1,), (BLOCK,), (ip, ix, np.int64(n), start, np.int64(start_n), cnt, vis, queue,
                            keys, head, np.int64(capacity), np.int64(max_levels), par,
                            np.int32(bool(parents))))
    h = head.get()                      # the one wait of a traversal
    nlev, complete = int(h[0]), bool(h[1])
    offsets = h[2:3 + nlev].copy()
    total = int(offsets[-1])
    if total:
        order = cupy.sort(keys[:total]) % np.int64(max(n, 1))
    else:
        order = cupy.zeros(0, dtype=np.int64)
    return order, offsets, complete, (par[order] if parents else None)
