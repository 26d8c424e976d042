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
from ..wide_plan import plan_start
from .backend import pinned_u64

BLOCK = 1024

_COMPACT = r"""
// the positions of a dense frontier listed into start, counted in *cnt
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
"""

_SOURCE = _COMPACT + r"""
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


# ---------------------------------------------------------------- wide levels
# A traversal whose levels are big (a power-law graph's few middle levels)
# does not fit one block: traverse_wide runs it as one kernel launch and one
# read of three counters per level, the direction chosen on the host from
# those counters, with no other work between the levels (see
# traverse_wide).  Labels: lvl[v] = -1 unvisited, 0 visited before the run,
# 1 the start frontier, L + 1 found from level L.  Counters (u64): ctr[0]
# vertices found (the queue's tail), ctr[1] out-edges (push structure) and
# ctr[2] in-edges (pull structure) of the vertices found, ctr[3] the start
# frontier's out-edges, ctr[4] its size when listed from a dense frontier,
# ctr[5] the in-edges of the vertices visited before the run.
_WIDE = r"""
// one warp step: the lanes with got append w (one atomic for the warp)
__device__ __forceinline__ void wide_append(bool got, i64 w, i64 from,
        int lane, i64* __restrict__ queue, i64* __restrict__ par,
        int want_par, unsigned long long* ctr, const PP* __restrict__ pp,
        const QP* __restrict__ qp, unsigned long long& my_out, unsigned long long& my_in)
{
    const unsigned ball = __ballot_sync(FULL_MASK, got);
    if (ball == 0u) return;
    unsigned long long at = 0ULL;
    if (lane == 0) at = atomicAdd(&ctr[0], (unsigned long long)__popc(ball));
    at = __shfl_sync(FULL_MASK, at, 0);
    if (got) {
        const i64 pos = (i64)at + __popc(ball & ((1u << lane) - 1u));
        queue[pos] = w;
        if (want_par) par[pos] = from;
        my_out += (unsigned long long)((i64)pp[w + 1] - (i64)pp[w]);
        my_in += (unsigned long long)((i64)qp[w + 1] - (i64)qp[w]);
    }
}

// every thread of the block calls this: the block's sums of a and of b
// added to *da and *db (shared-memory sums, then one atomic each per block)
__device__ __forceinline__ void block_sums(unsigned long long a, unsigned long long b,
                                           unsigned long long* da, unsigned long long* db)
{
    __shared__ unsigned long long s[2];
    if (threadIdx.x == 0) { s[0] = 0ULL; s[1] = 0ULL; }
    __syncthreads();
    if (a) atomicAdd(&s[0], a);
    if (b) atomicAdd(&s[1], b);
    __syncthreads();
    if (threadIdx.x == 0) {
        if (s[0]) atomicAdd(da, s[0]);
        if (s[1]) atomicAdd(db, s[1]);
    }
}

// the run's arrays and constants, written once by wide_init into a small
// device array (a launch costs ~0.6 us of host time per argument: the level
// kernels take this array and their scalars only)
#define WIDE_ARGS \
    const PP* __restrict__ pp = (const PP*)A[0]; \
    const PX* __restrict__ px = (const PX*)A[1]; \
    const QP* __restrict__ qp = (const QP*)A[2]; \
    const QX* __restrict__ qx = (const QX*)A[3]; \
    int* lvl = (int*)A[4]; \
    i64* __restrict__ queue = (i64*)A[5]; \
    i64* __restrict__ par = (i64*)A[6]; \
    unsigned long long* ctr = (unsigned long long*)A[7]; \
    const i64* __restrict__ start = (const i64*)A[8]; \
    const i64 n = (i64)A[9]; \
    const int want_par = (int)A[10]; \
    (void)px; (void)qx; (void)start; (void)n;

// top-down: a warp per vertex of level lev -- (first ? start : queue)[lo:hi]
// -- its lanes over the vertex's out-edges, an unvisited head claimed by a
// compare-and-swap
extern "C" __global__ void wide_push(const unsigned long long* __restrict__ A, i64 lo, i64 hi,
                                     int lev, int first)
{
    WIDE_ARGS
    const i64* __restrict__ src = first ? start : queue;
    const int lane = threadIdx.x & 31;
    const i64 warp = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const i64 nwarps = ((i64)gridDim.x * blockDim.x) >> 5;
    unsigned long long my_out = 0ULL, my_in = 0ULL;
    for (i64 q = lo + warp; q < hi; q += nwarps) {
        const i64 v = src[q];
        const i64 b = (i64)pp[v], e = (i64)pp[v + 1];
        for (i64 base = b; base < e; base += 32) {
            const i64 p = base + lane;
            bool got = false;
            i64 w = 0;
            if (p < e) {
                w = (i64)px[p];
                got = lvl[w] < 0 && atomicCAS(&lvl[w], -1, lev + 1) == -1;
            }
            wide_append(got, w, v, lane, queue, par, want_par, ctr, pp, qp, my_out, my_in);
        }
    }
    block_sums(my_out, my_in, &ctr[1], &ctr[2]);
}

// bottom-up: a thread per vertex; an unvisited vertex takes the first
// in-neighbour of level lev it finds and stops
extern "C" __global__ void wide_pull(const unsigned long long* __restrict__ A, int lev)
{
    WIDE_ARGS
    const int lane = threadIdx.x & 31;
    unsigned long long my_out = 0ULL, my_in = 0ULL;
    const i64 stride = (i64)gridDim.x * blockDim.x;
    for (i64 base = (i64)blockIdx.x * blockDim.x + (threadIdx.x & ~31); base < n;
         base += stride) {
        const i64 w = base + lane;
        bool got = false;
        i64 from = 0;
        if (w < n && lvl[w] < 0) {
            const i64 e = (i64)qp[w + 1];
            for (i64 p = (i64)qp[w]; p < e; ++p) {
                const i64 u = (i64)qx[p];
                if (lvl[u] == lev) { got = true; from = u; break; }
            }
        }
        if (got) lvl[w] = lev + 1;     // (lev + 1 never reads as level lev)
        wide_append(got, w, from, lane, queue, par, want_par, ctr, pp, qp, my_out, my_in);
    }
    block_sums(my_out, my_in, &ctr[1], &ctr[2]);
}

// the labels from the visited set (and from a dense start frontier's
// presence, pres, when flags & 2: its vertices labelled 1), the in-edges of
// the visited vertices, and the run's argument array A (its first thread;
// flags & 1: the parents are wanted)
extern "C" __global__ void wide_init(const bool* __restrict__ vis, i64 n,
        const QP* __restrict__ qp, int* __restrict__ lvl, unsigned long long* ctr,
        unsigned long long* __restrict__ A, const PP* pp, const PX* px, const QX* qx,
        i64* queue, i64* par, const i64* start, const bool* __restrict__ pres, int flags)
{
    const int want_par = flags & 1, has_pres = (flags >> 1) & 1;
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        A[0] = (unsigned long long)pp; A[1] = (unsigned long long)px;
        A[2] = (unsigned long long)qp; A[3] = (unsigned long long)qx;
        A[4] = (unsigned long long)lvl; A[5] = (unsigned long long)queue;
        A[6] = (unsigned long long)par; A[7] = (unsigned long long)ctr;
        A[8] = (unsigned long long)start; A[9] = (unsigned long long)n;
        A[10] = (unsigned long long)want_par;
    }
    unsigned long long my = 0ULL;
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (i64)gridDim.x * blockDim.x) {
        const bool v = vis[i];
        lvl[i] = (has_pres && pres[i]) ? 1 : (v ? 0 : -1);
        if (v) my += (unsigned long long)((i64)qp[i + 1] - (i64)qp[i]);
    }
    block_sums(my, 0ULL, &ctr[5], &ctr[5]);
}

// the start frontier src[0:nf] (nf < 0: the count is ctr[4]) labelled 1,
// its out-edges counted
extern "C" __global__ void wide_start(const i64* __restrict__ src, i64 nf,
        const PP* __restrict__ pp, int* __restrict__ lvl, unsigned long long* ctr)
{
    const i64 m = nf >= 0 ? nf : (i64)ctr[4];
    unsigned long long my = 0ULL;
    for (i64 q = (i64)blockIdx.x * blockDim.x + threadIdx.x; q < m;
         q += (i64)gridDim.x * blockDim.x) {
        const i64 v = src[q];
        lvl[v] = 1;
        my += (unsigned long long)((i64)pp[v + 1] - (i64)pp[v]);
    }
    block_sums(my, 0ULL, &ctr[3], &ctr[3]);
}

"""

WIDE_BLOCK = 256
# Beamer's switches (direction-optimizing BFS, SC 2012): top-down while the
# frontier's out-edges are at most (unexplored in-edges) / ALPHA; bottom-up
# until the frontier has fewer than n / BETA vertices and shrinks
WIDE_ALPHA = 14.0
WIDE_BETA = 24.0


def _wide_source(pp, px, qp, qx):
    return K._COMMON + K._typedefs(PP=pp, PX=px, QP=qp, QX=qx) + _COMPACT + _WIDE


def traverse_wide(be, push_P, pull_P, frontier, visited, max_levels, parents=False,
                  count=None):
    """``(order, offsets, complete, parents or None)`` as :func:`traverse`
    (but each level's vertices in the order found, the parents aligned with
    them), for traversals with big levels: each level one launch -- top-down
    (``wide_push``: a warp per frontier vertex) or bottom-up (``wide_pull``:
    a thread per vertex, stopping at the first in-neighbour of the level) --
    and one read of the counters (found vertices, their out- and in-edges),
    from which the host picks the next level's direction (Beamer's rule;
    the first level's by its size, with no read before it).  The level
    kernels take their arrays from a small device array written by
    ``wide_init`` (fewer launch arguments).
    ``push_P``: (indptr, indices) listing each vertex's out-neighbours (the
    ones it reaches), ``pull_P`` its in-neighbours."""
    from ...results import SparseResult
    n = visited.shape[0]
    max_levels = int(max(1, min(max_levels, n + 1)))
    pp, px, qp, qx = (a if a.flags.c_contiguous else cupy.ascontiguousarray(a)
                      for a in (*push_P, *pull_P))
    key = ("traverse_wide", pp.dtype, px.dtype, qp.dtype, qx.dtype)
    src_fn = lambda: _wide_source(pp.dtype, px.dtype, qp.dtype, qx.dtype)  # noqa: E731
    fn = lambda name: be._fn(key, src_fn, name)                             # noqa: E731
    m1 = max(n, 1)
    lvl = cupy.empty(m1, dtype=np.int32)
    queue = cupy.empty(m1, dtype=np.int64)
    par = cupy.empty(m1 if parents else 1, dtype=np.int64)
    ctr = cupy.zeros(6, dtype=np.uint64)
    h = pinned_u64()                             # the counters' copy on the host
    blocks = lambda k: max(1, min(-(-k // WIDE_BLOCK), 8192))             # noqa: E731
    # the frontier's size, the first direction, whether it is listed and
    # labelled first (backend/wide_plan.py: no read before the first level
    # where the size decides)
    if isinstance(frontier, SparseResult):
        form, start = "listed", cupy.ascontiguousarray(frontier.keys, dtype=np.int64)
        count = start.shape[0]
    elif frontier.present is None:
        form, start = "all", cupy.arange(n, dtype=np.int64)
    else:
        form, start = "dense", cupy.empty(m1, dtype=np.int64)
    dense = form == "dense"
    nf, push, compact, count_start = plan_start(form, n, count, WIDE_BETA)
    if compact and n:
        fn("trav_compact")((blocks(n),), (WIDE_BLOCK,),
                           (cupy.ascontiguousarray(frontier.present), np.int64(n), start,
                            ctr[4:5]))
    if start.shape[0] == 0:
        start = cupy.zeros(1, dtype=np.int64)      # a valid pointer; nf is 0
    vis = cupy.ascontiguousarray(visited, dtype=bool)
    args = cupy.empty(11, dtype=np.uint64)
    if n:
        # the labels: a dense frontier's by wide_init from its presence, a
        # listed one's by wide_start where the plan says (which also counts
        # the out-edges read below when the size is unknown)
        fn("wide_init")((blocks(n),), (WIDE_BLOCK,),
                        (vis, np.int64(n), qp, lvl, ctr, args, pp, px, qx, queue, par, start,
                         cupy.ascontiguousarray(frontier.present) if dense else vis,
                         np.int32(bool(parents) | dense << 1)))
        if count_start:
            fn("wide_start")((blocks(max(nf, 1) if nf >= 0 else n),), (WIDE_BLOCK,),
                             (start, np.int64(nf), pp, lvl, ctr))
    qnnz = int(qx.shape[0])
    if nf < 0:                                     # a dense frontier not known to be big
        ctr.get(out=h)
        nf = int(h[4])
        push = int(h[3]) * WIDE_ALPHA <= qnnz - int(h[5])
    offsets, out_seen, mf, mu = [0], 0, 0, 0
    prev_nf, complete, lev, first = nf, False, 1, True
    lo, hi = 0, nf
    push_fn, pull_fn = fn("wide_push"), fn("wide_pull")
    pull_blocks = blocks(n)
    dirs = []                                      # "p" top-down, "u" bottom-up
    while len(offsets) <= max_levels:
        if nf == 0:
            complete = True
            break
        if not first:                              # Beamer's switches
            push = (mf * WIDE_ALPHA <= mu) if push else (nf * WIDE_BETA < n and nf < prev_nf)
        dirs.append("p" if push else "u")
        if push:
            push_fn((blocks(32 * (hi - lo)),), (WIDE_BLOCK,),
                    (args, np.int64(lo), np.int64(hi), np.int32(lev), np.int32(first)))
        else:
            pull_fn((pull_blocks,), (WIDE_BLOCK,), (args, np.int32(lev)))
        ctr.get(out=h)                             # the level's one wait
        total = int(h[0])                          # vertices found so far
        found = total - offsets[-1]
        if found == 0:
            complete = True
            break
        # the next frontier: the level just found, queue[lo:hi]
        lo, hi = offsets[-1], total
        offsets.append(total)
        prev_nf, nf = nf, found
        mf, out_seen = int(h[1]) - out_seen, int(h[1])
        mu = qnnz - int(h[5]) - int(h[2])          # in-edges of the unvisited vertices
        lev, first = lev + 1, False
    be.last_kernel = ("traverse_wide", "".join(dirs))
    total = offsets[-1]
    # the levels as found, each in no particular order (no sort: a level is
    # sorted only when someone reads it, speculate._Traversal)
    return (queue[:total], np.asarray(offsets, dtype=np.int64), complete,
            par[:total] if parents else None)
