"""Hand-written CuPy programs for the work graphblast-py does, used as baselines.

Nothing here uses graphblast_py: these are plain CuPy programs (RawModule
kernels in C++, CuPy's CUB-backed cumsum for scans, cuSPARSE SpMV through
cupyx) written the way one would write each algorithm by hand for speed, so
that ``benchmarks/gpu.py`` can put the framework next to them in one run.

Every function takes the CSR arrays of a graph as CuPy arrays: ``indptr``
(int32 or int64, length n + 1) and ``indices`` (int32 or int64, sorted within
each row), of a symmetric graph without self-loops (an undirected graph stored
both ways).  Vertex ids must fit in int32.

* :func:`bfs_levels` -- direction-optimizing BFS (Beamer, Asanovic, Patterson
  2012): top-down push with one thread per frontier edge (its frontier vertex
  found by binary search in the prefix sum of frontier degrees), visit by
  atomicCAS on the level array, warp-aggregated append to the next frontier
  (small frontiers: degrees, scan and push in one single-block launch);
  bottom-up pull with one thread per unvisited vertex that stops at the first
  neighbour in the frontier; direction chosen per level by Beamer's
  heuristic; one host read per level (the new frontier's size and edge count).
* :func:`pagerank` -- networkx's PageRank, one cuSPARSE SpMV per iteration
  with the scaled transpose built once, plus one fused update kernel.
* :func:`triangle_count` -- degree-ordered orientation, then per-edge
  intersection of the two sorted out-lists (merge, or binary search when the
  lengths differ a lot) in one kernel.
* :func:`connected_components` -- Afforest (Sutton, Ben-Nun, Barak 2018):
  union-find links over a sample of two neighbours per vertex, then only the
  vertices outside the biggest component link the rest (a warp per vertex);
  :func:`connected_components_fastsv` -- FastSV (Zhang, Azad, Hu 2020) hooking
  and shortcutting with atomicMin in edge- and vertex-parallel kernels.  Both
  label each vertex with the smallest vertex id of its component.
"""
import cupy as cp
import numpy as np

try:  # cuSPARSE SpMV into a preallocated output
    from cupyx import cusparse as _cusparse
    _HAVE_SPMV = bool(_cusparse.check_availability("spmv"))
except Exception:  # pragma: no cover - depends on the CuPy build
    _cusparse = None
    _HAVE_SPMV = False
import cupyx.scipy.sparse as cpsparse

BLOCK = 256
SMALL_NF = 1024      # push_small: frontiers of at most this many vertices ...
SMALL_MF = 16384     # ... and edges run as one block

_SOURCE = r"""
typedef IP_T ip_t;      // indptr element type
typedef IX_T ix_t;      // indices element type
typedef unsigned long long u64;

#define FULL 0xffffffffu

// Append v (where flag) to next[] with one atomic per warp; also add the
// warp's sum of dv (the degrees of the appended vertices) to stats[1].
// Every lane of the warp must call it (no early return before).
__device__ __forceinline__ void warp_append(bool flag, int v, long long dv,
                                            int* next, u64* stats)
{
    unsigned m = __ballot_sync(FULL, flag);
    if (m == 0u) return;                       // the same for the whole warp
    int lane = threadIdx.x & 31;
    int leader = __ffs(m) - 1;
    long long s = dv;
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(FULL, s, o);
    u64 base = 0;
    if (lane == leader) {
        base = atomicAdd(&stats[0], (u64)__popc(m));
        atomicAdd(&stats[1], (u64)s);
    }
    base = __shfl_sync(FULL, base, leader);
    if (flag) next[base + __popc(m & ((1u << lane) - 1u))] = v;
}

// first i in [0, n) with a[i] > x (n if none)
__device__ __forceinline__ int upper_bound_ll(const long long* __restrict__ a, int n,
                                              long long x)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) >> 1;
        if (a[mid] > x) hi = mid; else lo = mid + 1;
    }
    return lo;
}

extern "C" __global__ void frontier_degrees(const int* __restrict__ queue, int nf,
                                            const ip_t* __restrict__ indptr,
                                            long long* __restrict__ deg)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nf) {
        int u = queue[i];
        deg[i] = (long long)(indptr[u + 1] - indptr[u]);
    }
}

// Top-down step: thread e handles the e-th edge leaving the frontier.
// incl = inclusive prefix sum of the frontier degrees; mf = its last value.
extern "C" __global__ void push_step(const int* __restrict__ queue, int nf,
                                     const long long* __restrict__ incl, long long mf,
                                     const ip_t* __restrict__ indptr,
                                     const ix_t* __restrict__ indices,
                                     int* level, int* parent, int with_parent, int depth,
                                     int* __restrict__ next, u64* stats, u64* stats_clear)
{
    long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (blockIdx.x == 0 && threadIdx.x == 0) { stats_clear[0] = 0; stats_clear[1] = 0; }
    bool found = false;
    int v = 0;
    long long dv = 0;
    if (e < mf) {
        int i = upper_bound_ll(incl, nf, e);
        int u = queue[i];
        ip_t start = indptr[u];
        long long excl = incl[i] - (long long)(indptr[u + 1] - start);
        v = (int)indices[start + (ip_t)(e - excl)];
        if (level[v] < 0 && atomicCAS(&level[v], -1, depth + 1) == -1) {
            found = true;
            if (with_parent) parent[v] = u;
            dv = (long long)(indptr[v + 1] - indptr[v]);
        }
    }
    warp_append(found, v, dv, next, stats);
}

// A whole top-down step in one block of SMALL_NF threads, for small frontiers
// (high-diameter graphs): frontier degrees, their inclusive scan in shared
// memory, then the block walks the frontier's mf edges.  One launch per level.
#define SMALL_NF 1024
extern "C" __global__ void push_small(const int* __restrict__ queue, int nf, long long mf,
                                      const ip_t* __restrict__ indptr,
                                      const ix_t* __restrict__ indices,
                                      int* level, int* parent, int with_parent, int depth,
                                      int* __restrict__ next, u64* stats, u64* stats_clear)
{
    __shared__ long long s_incl[SMALL_NF];
    __shared__ int s_u[SMALL_NF];
    int t = threadIdx.x;
    if (t == 0) { stats_clear[0] = 0; stats_clear[1] = 0; }
    int u0 = t < nf ? queue[t] : 0;
    s_u[t] = u0;
    s_incl[t] = t < nf ? (long long)(indptr[u0 + 1] - indptr[u0]) : 0;
    __syncthreads();
    for (int off = 1; off < SMALL_NF; off <<= 1) {      // Hillis-Steele scan
        long long add = t >= off ? s_incl[t - off] : 0;
        __syncthreads();
        s_incl[t] += add;
        __syncthreads();
    }
    for (long long base = 0; base < mf; base += SMALL_NF) {   // same trip count for all
        long long e = base + t;
        bool found = false;
        int v = 0;
        long long dv = 0;
        if (e < mf) {
            int i = upper_bound_ll(s_incl, nf, e);
            int u = s_u[i];
            ip_t start = indptr[u];
            long long excl = s_incl[i] - (long long)(indptr[u + 1] - start);
            v = (int)indices[start + (ip_t)(e - excl)];
            if (level[v] < 0 && atomicCAS(&level[v], -1, depth + 1) == -1) {
                found = true;
                if (with_parent) parent[v] = u;
                dv = (long long)(indptr[v + 1] - indptr[v]);
            }
        }
        warp_append(found, v, dv, next, stats);
    }
}

// Bottom-up step: thread v (unvisited) scans its neighbours until one is in
// the frontier (level == depth).  Vertices found in this step get depth + 1,
// never depth, so concurrent writes cannot fool the test.
extern "C" __global__ void pull_step(int n, const ip_t* __restrict__ indptr,
                                     const ix_t* __restrict__ indices,
                                     int* level, int* parent, int with_parent, int depth,
                                     int* __restrict__ next, u64* stats, u64* stats_clear)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (blockIdx.x == 0 && threadIdx.x == 0) { stats_clear[0] = 0; stats_clear[1] = 0; }
    bool found = false;
    long long dv = 0;
    if (v < n && level[v] < 0) {
        ip_t s = indptr[v], t = indptr[v + 1];
        for (ip_t k = s; k < t; ++k) {
            int u = (int)indices[k];
            if (level[u] == depth) {
                found = true;
                if (with_parent) parent[v] = u;
                break;
            }
        }
        if (found) {
            level[v] = depth + 1;
            dv = (long long)(t - s);
        }
    }
    warp_append(found, v, dv, next, stats);
}

// rows[e] = the row of edge e (binary search in indptr)
extern "C" __global__ void edge_rows(int n, long long m, const ip_t* __restrict__ indptr,
                                     int* __restrict__ rows)
{
    long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (e < m) {
        int lo = 0, hi = n;            // last r with indptr[r] <= e
        while (hi - lo > 1) {
            int mid = (lo + hi) >> 1;
            if ((long long)indptr[mid] <= e) lo = mid; else hi = mid;
        }
        rows[e] = lo;
    }
}

// keep[e] = edge rows[e] -> indices[e] goes from lower to higher (degree, id)
extern "C" __global__ void orient(long long m, const int* __restrict__ rows,
                                  const ix_t* __restrict__ indices,
                                  const ip_t* __restrict__ indptr,
                                  unsigned char* __restrict__ keep)
{
    long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (e < m) {
        int u = rows[e];
        int v = (int)indices[e];
        long long du = (long long)(indptr[u + 1] - indptr[u]);
        long long dv = (long long)(indptr[v + 1] - indptr[v]);
        keep[e] = (du < dv) || (du == dv && u < v);
    }
}

// Triangle count: thread per oriented edge (u, v), |N+(u) & N+(v)|.
extern "C" __global__ void tc_count(long long mL, const int* __restrict__ Lr,
                                    const int* __restrict__ Lj,
                                    const long long* __restrict__ Lp, u64* total)
{
    long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    u64 c = 0;
    if (e < mL) {
        int u = Lr[e], v = Lj[e];
        long long a = Lp[u], ae = Lp[u + 1], b = Lp[v], be = Lp[v + 1];
        long long la = ae - a, lb = be - b;
        if (la > lb) {
            long long t;
            t = a; a = b; b = t;
            t = ae; ae = be; be = t;
            t = la; la = lb; lb = t;
        }
        if (la > 0) {
            if (la * 32 < lb) {          // short list: binary search in the long one
                long long lo = b;
                for (long long k = a; k < ae && lo < be; ++k) {
                    int x = Lj[k];
                    long long hi = be;
                    while (lo < hi) {
                        long long mid = (lo + hi) >> 1;
                        if (Lj[mid] < x) lo = mid + 1; else hi = mid;
                    }
                    if (lo < be && Lj[lo] == x) { ++c; ++lo; }
                }
            } else {                     // merge
                while (a < ae && b < be) {
                    int x = Lj[a], y = Lj[b];
                    if (x < y) ++a;
                    else if (y < x) ++b;
                    else { ++c; ++a; ++b; }
                }
            }
        }
    }
    for (int o = 16; o > 0; o >>= 1) c += __shfl_down_sync(FULL, c, o);
    if ((threadIdx.x & 31) == 0 && c) atomicAdd(total, c);
}

// FastSV, one edge-parallel hooking pass: for edge (u, v) with g = gf[v] < f[u]:
// f[f[u]] = min(f[f[u]], g) (stochastic hooking), f[u] = min(f[u], g)
// (aggressive hooking).  Values only go down and stay ids of the component.
extern "C" __global__ void cc_hook(long long m, const int* __restrict__ rows,
                                   const ix_t* __restrict__ indices, int* f,
                                   const int* __restrict__ gf, int* changed)
{
    long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (e < m) {
        int u = rows[e];
        int g = gf[(int)indices[e]];
        int fu = f[u];
        if (g < fu) {
            int o1 = atomicMin(&f[fu], g);
            int o2 = atomicMin(&f[u], g);
            if (o1 > g || o2 > g) *changed = 1;
        }
    }
}

// shortcutting: f[u] = min(f[u], gf[u])
extern "C" __global__ void cc_shortcut(int n, int* f, const int* __restrict__ gf,
                                       int* changed)
{
    int u = blockIdx.x * blockDim.x + threadIdx.x;
    if (u < n) {
        int g = gf[u];
        if (g < f[u]) { f[u] = g; *changed = 1; }
    }
}

// gf = f[f]
extern "C" __global__ void cc_grand(int n, const int* __restrict__ f, int* __restrict__ gf,
                                    int* changed)
{
    int u = blockIdx.x * blockDim.x + threadIdx.x;
    if (u < n) {
        int g = f[f[u]];
        if (g != gf[u]) { gf[u] = g; *changed = 1; }
    }
}

// Afforest (Sutton, Ben-Nun, Barak 2018): union-find trees in comp, every link
// points a larger id at a smaller one (comp[x] <= x), so a root is the
// smallest id of its tree.  Reads are volatile: other threads change comp.
__device__ __forceinline__ void aff_link(int u, int v, int* comp)
{
    volatile int* c = comp;
    int a = c[u], b = c[v];
    while (a != b) {          // max(a, b) goes down every turn: this ends
        int hi = a > b ? a : b;
        int lo = a > b ? b : a;
        int p = c[hi];
        if (p == lo) break;                                     // already joined
        if (p == hi && atomicCAS(&comp[hi], hi, lo) == hi) break;   // hi was a root
        a = c[c[hi]];         // climb: an ancestor of hi's side ...
        b = c[lo];            // ... and of lo's side
    }
}

// link every vertex u with its r-th neighbour (if it has one)
extern "C" __global__ void aff_sample(int n, const ip_t* __restrict__ indptr,
                                      const ix_t* __restrict__ indices, int* comp, int r)
{
    int u = blockIdx.x * blockDim.x + threadIdx.x;
    if (u < n) {
        ip_t k = indptr[u] + r;
        if (k < indptr[u + 1]) aff_link(u, (int)indices[k], comp);
    }
}

// point every vertex at its root
extern "C" __global__ void aff_compress(int n, int* comp)
{
    int u = blockIdx.x * blockDim.x + threadIdx.x;
    if (u < n) {
        volatile int* c = comp;
        int p = c[u];
        int q = c[p];
        while (p != q) {
            c[u] = q;
            p = q;
            q = c[p];
        }
    }
}

// one warp per vertex u outside the big component (root big): link u with its
// neighbours from position skip on (the first skip were linked by aff_sample)
extern "C" __global__ void aff_finish(int n, const ip_t* __restrict__ indptr,
                                      const ix_t* __restrict__ indices, int* comp, int big,
                                      int skip)
{
    long long w = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    if (w < n) {
        int u = (int)w;
        if (((volatile int*)comp)[u] != big) {
            ip_t t = indptr[u + 1];
            for (ip_t k = indptr[u] + skip + lane; k < t; k += 32)
                aff_link(u, (int)indices[k], comp);
        }
    }
}

// PageRank update: xnew = y + c with c = (alpha * lost + 1 - alpha) / n, lost =
// the dangling mass of x (acc_prev[1]); accumulates err = sum |xnew - x| and the
// dangling mass of xnew into acc_out; zeroes acc_clear for the next step.
extern "C" __global__ void pr_update(int n, const double* __restrict__ y,
                                     const double* __restrict__ x,
                                     const unsigned char* __restrict__ dangling,
                                     double alpha, const double* __restrict__ acc_prev,
                                     double* acc_out, double* acc_clear,
                                     double* __restrict__ xnew)
{
    __shared__ double s_err[32], s_lost[32];
    double c = (alpha * acc_prev[1] + 1.0 - alpha) / (double)n;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (blockIdx.x == 0 && threadIdx.x == 0) { acc_clear[0] = 0.0; acc_clear[1] = 0.0; }
    double err = 0.0, lost = 0.0;
    if (i < n) {
        double v = y[i] + c;
        xnew[i] = v;
        err = fabs(v - x[i]);
        if (dangling[i]) lost = v;
    }
    for (int o = 16; o > 0; o >>= 1) {
        err += __shfl_down_sync(FULL, err, o);
        lost += __shfl_down_sync(FULL, lost, o);
    }
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) { s_err[warp] = err; s_lost[warp] = lost; }
    __syncthreads();
    if (warp == 0) {
        int nw = blockDim.x >> 5;
        err = lane < nw ? s_err[lane] : 0.0;
        lost = lane < nw ? s_lost[lane] : 0.0;
        for (int o = 16; o > 0; o >>= 1) {
            err += __shfl_down_sync(FULL, err, o);
            lost += __shfl_down_sync(FULL, lost, o);
        }
        if (lane == 0) {
            if (err != 0.0) atomicAdd(&acc_out[0], err);
            if (lost != 0.0) atomicAdd(&acc_out[1], lost);
        }
    }
}
"""

_CTYPE = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}
_modules = {}


def _module(ip_dtype, ix_dtype):
    key = (np.dtype(ip_dtype), np.dtype(ix_dtype))
    mod = _modules.get(key)
    if mod is None:
        src = (_SOURCE.replace("IP_T", _CTYPE[key[0]], 1)
                      .replace("IX_T", _CTYPE[key[1]], 1))
        mod = cp.RawModule(code=src)
        _modules[key] = mod
    return mod


def _blocks(count):
    return (max(1, (int(count) + BLOCK - 1) // BLOCK),)


def _check_csr(indptr, indices, what):
    for name, a in (("indptr", indptr), ("indices", indices)):
        if not isinstance(a, cp.ndarray) or a.ndim != 1:
            raise TypeError(f"{what}: {name} must be a 1-D CuPy array, got {type(a).__name__}")
        if np.dtype(a.dtype) not in _CTYPE:
            raise TypeError(f"{what}: {name} must be int32 or int64, got {a.dtype}")
    if indptr.size < 1:
        raise ValueError(f"{what}: indptr must have n + 1 >= 1 entries")
    n = indptr.size - 1
    if n >= 2**31 - 1:
        raise ValueError(f"{what}: {n} vertices do not fit int32 vertex ids")
    return n


def _rows(mod, indptr, m):
    """Row id (int32) of every stored edge."""
    n = indptr.size - 1
    rows = cp.empty(m, dtype=cp.int32)
    if m:
        mod.get_function("edge_rows")(_blocks(m), (BLOCK,),
                                      (np.int32(n), np.int64(m), indptr, rows))
    return rows


# --------------------------------------------------------------------------- BFS

def bfs_levels(indptr, indices, source, parents=False, alpha=15.0, beta=18.0):
    """Direction-optimizing BFS from ``source``.

    Returns ``levels`` (CuPy int32, -1 for unreached vertices), or
    ``(levels, parents)`` with ``parents=True`` (int32; parent of the source is
    the source, -1 for unreached).  Top-down while the frontier's edges are at
    most (unexplored edges) / ``alpha``; bottom-up until the frontier has
    fewer than n / ``beta`` vertices and shrinks (Beamer's heuristic).
    """
    n = _check_csr(indptr, indices, "bfs_levels")
    source = int(source)
    if not 0 <= source < n:
        raise IndexError(f"bfs_levels: source {source} outside [0, {n})")
    mod = _module(indptr.dtype, indices.dtype)
    f_deg, f_push = mod.get_function("frontier_degrees"), mod.get_function("push_step")
    f_pull, f_small = mod.get_function("pull_step"), mod.get_function("push_small")
    level = cp.full(n, -1, dtype=cp.int32)
    level[source] = 0
    parent = cp.full(n if parents else 1, -1, dtype=cp.int32)
    if parents:
        parent[source] = source
    queue = cp.empty(n, dtype=cp.int32)
    nxt = cp.empty(n, dtype=cp.int32)
    queue[0] = source
    deg = cp.empty(n, dtype=cp.int64)
    incl = cp.empty(n, dtype=cp.int64)
    stats = cp.zeros((2, 2), dtype=cp.uint64)
    halves = (stats[0], stats[1])
    h = indptr[cp.array([source, source + 1, n])].get()     # the one setup read
    nf, mf = 1, int(h[1] - h[0])
    mu = int(h[2]) - mf                  # edges of the unvisited vertices
    with_parent = np.int32(1 if parents else 0)
    top_down = True
    prev_nf = nf
    depth = 0
    while nf > 0:
        if top_down:
            if mf > mu / alpha:
                top_down = False
        elif nf < n / beta and nf < prev_nf:
            top_down = True
        cur, clr = halves[depth & 1], halves[(depth + 1) & 1]
        if top_down:
            if mf == 0:
                break                    # no edge leaves the frontier
            if nf <= SMALL_NF and mf <= SMALL_MF:     # one launch for the whole step
                f_small((1,), (SMALL_NF,),
                        (queue, np.int32(nf), np.int64(mf), indptr, indices, level, parent,
                         with_parent, np.int32(depth), nxt, cur, clr))
            else:
                f_deg(_blocks(nf), (BLOCK,), (queue, np.int32(nf), indptr, deg))
                cp.cumsum(deg[:nf], out=incl[:nf])
                f_push(_blocks(mf), (BLOCK,),
                       (queue, np.int32(nf), incl, np.int64(mf), indptr, indices, level,
                        parent, with_parent, np.int32(depth), nxt, cur, clr))
        else:
            f_pull(_blocks(n), (BLOCK,),
                   (np.int32(n), indptr, indices, level, parent, with_parent,
                    np.int32(depth), nxt, cur, clr))
        h = cur.get()                    # one host read per level
        prev_nf = nf
        nf, mf = int(h[0]), int(h[1])
        mu -= mf
        queue, nxt = nxt, queue
        depth += 1
    return (level, parent) if parents else level


def check_bfs_parents(indptr, indices, source, levels, parents):
    """True when ``parents`` is a valid BFS tree for ``levels``: the source is
    its own parent, unreached vertices have -1, and every other reached v has
    an edge (parents[v], v) with levels[parents[v]] == levels[v] - 1."""
    n = indptr.size - 1
    levels = cp.asarray(levels).astype(cp.int64)
    parents = cp.asarray(parents).astype(cp.int64)
    if int(parents[source]) != source or int(levels[source]) != 0:
        return False
    reached = levels >= 0
    if bool(cp.any(parents[~reached] != -1)):
        return False
    v = cp.flatnonzero(reached & (cp.arange(n) != source))
    if v.size == 0:
        return True
    p = parents[v]
    if bool(cp.any((p < 0) | (p >= n))):
        return False
    if not bool(cp.all(levels[p] == levels[v] - 1)):
        return False
    mod = _module(indptr.dtype, indices.dtype)
    m = int(indptr[-1])
    if m == 0:
        return False
    keys = _rows(mod, indptr, m).astype(cp.int64) * n + indices.astype(cp.int64)
    want = p * n + v                     # edge (parent, v); keys are sorted
    pos = cp.minimum(cp.searchsorted(keys, want), m - 1)
    return bool(cp.all(keys[pos] == want))


# ---------------------------------------------------------------------- PageRank

class PageRankIterations:
    """networkx PageRank state on the GPU: the scaled transpose
    M[j, i] = alpha / d(i) (i not dangling) built once; :meth:`step` is one
    iteration (one cuSPARSE SpMV + one fused update kernel, no host read) and
    returns the device array holding [err, dangling mass] of the new x."""

    def __init__(self, indptr, indices, damping=0.85):
        n = _check_csr(indptr, indices, "pagerank")
        m = int(indptr[-1])
        if m >= 2**31:
            raise ValueError(f"pagerank: {m} edges do not fit cuSPARSE int32 indices")
        self.n, self.alpha = n, float(damping)
        mod = _module(indptr.dtype, indices.dtype)
        deg = cp.diff(indptr).astype(cp.float64)
        self.dangling = (deg == 0).astype(cp.uint8)
        scale = cp.where(deg > 0, self.alpha / cp.where(deg > 0, deg, 1.0), 0.0)
        rows = _rows(mod, indptr, m)
        A = cpsparse.csr_matrix((scale[rows], indices.astype(cp.int32), indptr.astype(cp.int32)),
                                shape=(n, n))
        self.M = A.T.tocsr()
        self.M.sum_duplicates()           # canonical form, as cuSPARSE SpMV wants
        self.update = mod.get_function("pr_update")
        self.x = cp.full(n, 1.0 / n if n else 0.0, dtype=cp.float64)
        self.xnew = cp.empty_like(self.x)
        self.y = cp.empty_like(self.x)
        self.acc = cp.zeros((3, 2), dtype=cp.float64)
        self.acc[2, 1] = cp.sum(self.x * self.dangling)      # dangling mass of x0
        self.k = 0
        self.use_spmv = _HAVE_SPMV
        if self.use_spmv:
            try:                      # cuSPARSE SpMV into the preallocated y
                _cusparse.spmv(self.M, self.x, y=self.y)
            except Exception:         # pragma: no cover - CuPy build without it
                self.use_spmv = False

    def step(self):
        if self.use_spmv:
            _cusparse.spmv(self.M, self.x, y=self.y)
        else:  # pragma: no cover
            self.y = self.M @ self.x
        k = self.k
        prev, out, clr = self.acc[(k + 2) % 3], self.acc[k % 3], self.acc[(k + 1) % 3]
        self.update(_blocks(self.n), (BLOCK,),
                    (np.int32(self.n), self.y, self.x, self.dangling, np.float64(self.alpha),
                     prev, out, clr, self.xnew))
        self.x, self.xnew = self.xnew, self.x
        self.k += 1
        return out


def pagerank(indptr, indices, damping=0.85, tol=1e-6, max_iter=100, return_iterations=False):
    """PageRank as networkx defines it (out-degree normalised, dangling mass
    spread uniformly, stop when sum |x - x_prev| < n * tol).  Returns x (CuPy
    float64) or ``(x, iterations)``; raises RuntimeError when not converged
    after ``max_iter`` iterations, as networkx raises
    PowerIterationFailedConvergence."""
    n = _check_csr(indptr, indices, "pagerank")
    if n == 0:
        return (cp.zeros(0, cp.float64), 0) if return_iterations else cp.zeros(0, cp.float64)
    pr = PageRankIterations(indptr, indices, damping)
    for it in range(1, int(max_iter) + 1):
        acc = pr.step()
        if float(acc[0]) < n * tol:     # one host read per iteration
            return (pr.x, it) if return_iterations else pr.x
    raise RuntimeError(f"pagerank did not converge to tol={tol} in {max_iter} iterations")


def pagerank_iteration_time(indptr, indices, iters=20, damping=0.85):
    """Median seconds of one iteration (SpMV + update + the convergence read),
    setup excluded, over ``iters`` iterations after one warm-up iteration."""
    import time
    pr = PageRankIterations(indptr, indices, damping)
    float(pr.step()[0])
    ts = []
    for _ in range(int(iters)):
        t = time.perf_counter()
        float(pr.step()[0])
        ts.append(time.perf_counter() - t)
    ts.sort()
    return ts[len(ts) // 2]


# ------------------------------------------------------------------ triangles

def triangle_count(indptr, indices):
    """Number of triangles of the undirected graph (a Python int)."""
    _check_csr(indptr, indices, "triangle_count")
    m = int(indptr[-1])
    if m == 0:
        return 0
    mod = _module(indptr.dtype, indices.dtype)
    rows = _rows(mod, indptr, m)
    keep = cp.empty(m, dtype=cp.uint8)
    mod.get_function("orient")(_blocks(m), (BLOCK,), (np.int64(m), rows, indices, indptr, keep))
    csum = cp.empty(m + 1, dtype=cp.int64)
    csum[0] = 0
    cp.cumsum(keep, dtype=cp.int64, out=csum[1:])
    Lp = csum[indptr]                                    # kept edges before each row
    sel = keep.view(cp.bool_)
    Lj = indices[sel].astype(cp.int32, copy=False)
    Lr = rows[sel]
    mL = int(Lj.size)
    total = cp.zeros(1, dtype=cp.uint64)
    if mL:
        mod.get_function("tc_count")(_blocks(mL), (BLOCK,), (np.int64(mL), Lr, Lj, Lp, total))
    return int(total[0])


# ------------------------------------------------------- connected components

def connected_components(indptr, indices, rounds=2, samples=1024):
    """Afforest: labels (CuPy int32) = the smallest vertex id of each component.

    Link every vertex with its first ``rounds`` neighbours and compress; take
    the most frequent root among ``samples`` vertices as the big component;
    then only vertices outside it link with their remaining neighbours (an
    edge into the big component is linked from its other end), and compress.
    Links always point from a larger id to a smaller one, so each root is the
    smallest id of its component.
    """
    n = _check_csr(indptr, indices, "connected_components")
    mod = _module(indptr.dtype, indices.dtype)
    comp = cp.arange(n, dtype=cp.int32)
    if n == 0:
        return comp
    sample, compress, finish = (mod.get_function(k)
                                for k in ("aff_sample", "aff_compress", "aff_finish"))
    rounds = int(rounds)
    for r in range(rounds):
        sample(_blocks(n), (BLOCK,), (np.int32(n), indptr, indices, comp, np.int32(r)))
        compress(_blocks(n), (BLOCK,), (np.int32(n), comp))
    k = min(int(samples), n)
    pick = (cp.arange(k, dtype=cp.int64) * 2654435761) % n       # spread over the ids
    roots, counts = cp.unique(comp[pick], return_counts=True)
    big = int(roots[int(cp.argmax(counts))])
    finish(_blocks(32 * n), (BLOCK,),
           (np.int32(n), indptr, indices, comp, np.int32(big), np.int32(rounds)))
    compress(_blocks(n), (BLOCK,), (np.int32(n), comp))
    return comp


def connected_components_fastsv(indptr, indices):
    """FastSV: labels (CuPy int32) = the smallest vertex id of each component.

    Values of f only go down and always name a vertex of the same component,
    so the loop ends; it ends when one pass changes nothing, and then every
    vertex points at a root, both ends of every edge have the same root, and
    that root is the component's smallest id (f[x] <= x throughout)."""
    n = _check_csr(indptr, indices, "connected_components")
    m = int(indptr[-1])
    mod = _module(indptr.dtype, indices.dtype)
    f = cp.arange(n, dtype=cp.int32)
    gf = f.copy()
    if n == 0 or m == 0:
        return f
    rows = _rows(mod, indptr, m)
    hook, short, grand = (mod.get_function(k) for k in ("cc_hook", "cc_shortcut", "cc_grand"))
    changed = cp.zeros(1, dtype=cp.int32)
    while True:
        changed.fill(0)
        hook(_blocks(m), (BLOCK,), (np.int64(m), rows, indices, f, gf, changed))
        short(_blocks(n), (BLOCK,), (np.int32(n), f, gf, changed))
        grand(_blocks(n), (BLOCK,), (np.int32(n), f, gf, changed))
        if not int(changed[0]):            # one host read per iteration
            return f
