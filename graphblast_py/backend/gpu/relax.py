"""Whole-run kernel of the GPU backend for relaxation rounds (round
speculation, see operations/relax.py and the CPU's backend/cpu/relax.py):
from a frontier ``f`` and the distances ``d``, the later rounds of

    t = f (+).(x) A,   b = t < d (default where d has no entry),
    f' = t<b>,         d<f'.S> = f'

in one *persistent* kernel, as the BFS traversal does (gpu/traverse.py): a
single block of 1024 threads loops over the rounds (``__syncthreads``
between the phases), a thread per frontier entry pushing its row with the
semiring's own multiply and atomic combine (the ordinary push's operator
code, ``kernels._mult_fn`` / ``_atomic_fn``, into an accumulator that
starts at the monoid's identity), the touched outputs listed once (an int
mark claimed with ``atomicExch``), then a thread per touched output
comparing it with the working distances and appending the improved entries
(with the key ``round * n + vertex``).  One sort of the keys afterwards
gives each round's ``f'`` in vertex order.  A round that produces a NaN
(the ordinary push would keep it where this accumulator, starting at the
identity, may not) or whose ``t`` might not fit the output arrays is
dropped, and the run ends before it.  One device-to-host copy (the round
count, completion flag, each ``t``'s size and the offsets) is the run's
only wait.

Status: on (``GPUBackend.relax``) since tests/test_relax_speculation.py's
GPU cases passed on the H100 (2026-11-28).
"""
import numpy as np

import cupy

from . import kernels as K

BLOCK = 1024

_SOURCE = r"""
// rounds of the frontier Bellman-Ford recurrence from (fidx, fvals)[0:fn];
// dv/dp: working distances (changed); acc: ident everywhere, mark: 0 everywhere
// (both left so); head[0] rounds, head[1] complete, head[2 + r] t's size of
// round r + 1, head[2 + max_rounds + r] the offset of round r's f' (r = 0..nr)
extern "C" __global__ void __launch_bounds__(1024) relax_run(
    const IP* __restrict__ indptr, const IX* __restrict__ indices,
    const TA* __restrict__ avals, int read_a, i64 n,
    const i64* __restrict__ fidx, const TOUT* __restrict__ fvals, i64 fn,
    TOUT* dv, bool* dp, TOUT dflt, TOUT ident,
    TOUT* acc, int* mark, i64* __restrict__ touched,
    i64* __restrict__ fk, TOUT* __restrict__ fv, i64* __restrict__ keys, i64 cap,
    i64* __restrict__ head, i64 small, i64 max_rounds)
{
    __shared__ unsigned long long ntouch, nf;
    __shared__ i64 lo, hi, nr, fpos;
    __shared__ int stop, bad;
    if (threadIdx.x == 0) { nr = 0; fpos = 0; stop = 0; lo = 0; hi = fn; }
    __syncthreads();
    while (true) {
        if (threadIdx.x == 0) { ntouch = 0ULL; nf = 0ULL; bad = 0; }
        __syncthreads();
        const i64 L = lo, H = hi;
        const bool first = nr == 0;
        for (i64 q = L + threadIdx.x; q < H; q += blockDim.x) {
            const i64 v = first ? fidx[q] : fk[q];
            const TOUT xv = first ? fvals[q] : fv[q];
            const i64 e = (i64)indptr[v + 1];
            for (i64 p = (i64)indptr[v]; p < e; ++p) {
                const i64 j = (i64)indices[p];
                const TA a = read_a ? avals[p] : avals[0];
#if SWAP
                const TOUT t = mult_op(xv, a, 0, v, j);
#else
                const TOUT t = mult_op(a, xv, j, v, 0);
#endif
                if (t != t) bad = 1;
                atomic_combine(&acc[j], t);
                if (mark[j] == 0 && atomicExch(&mark[j], 1) == 0)
                    touched[atomicAdd(&ntouch, 1ULL)] = j;
            }
        }
        __syncthreads();
        const i64 nt = (i64)ntouch;
        if (bad || fpos + nt > cap) {
            // the round is dropped: its outputs back to the identity, unmarked
            for (i64 q = threadIdx.x; q < nt; q += blockDim.x) {
                const i64 j = touched[q];
                acc[j] = ident;
                mark[j] = 0;
            }
            break;
        }
        const i64 base = fpos;
        const i64 r = nr;
        for (i64 q = threadIdx.x; q < nt; q += blockDim.x) {
            const i64 j = touched[q];
            const TOUT x = acc[j];
            const TOUT y = dp[j] ? dv[j] : dflt;
            if (x < y) {
                const i64 pos = base + (i64)atomicAdd(&nf, 1ULL);
                fk[pos] = j;
                fv[pos] = x;
                keys[pos] = r * n + j;
                dv[j] = x;
                dp[j] = true;
            }
            acc[j] = ident;
            mark[j] = 0;
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            head[2 + nr] = nt;
            nr += 1;
            fpos = base + (i64)nf;
            head[2 + max_rounds + nr] = fpos;
            if (nf == 0ULL) stop = 2;                      // f' empty: complete
            else if ((i64)nf > small || nr >= max_rounds) stop = 1;
            lo = base;
            hi = fpos;
        }
        __syncthreads();
        if (stop) break;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        head[0] = nr;
        head[1] = stop == 2;
        head[2 + max_rounds] = 0;
    }
}
"""


def source(semiring, ip, ix, ta, tout, swap):
    """The kernel's CUDA source for these index, value and output types."""
    tl, tr = (tout, ta) if swap else (ta, tout)
    return (K._COMMON + K._typedefs(IP=ip, IX=ix, TA=ta, TOUT=tout, TL=tl, TR=tr)
            + f"#define SWAP {1 if swap else 0}\n"
            + K._mult_fn(semiring.mult, tl, tr) + K._add_fn(semiring.monoid.op)
            + K._atomic_fn(semiring.monoid.op, tout) + _SOURCE)


def relax_rounds(be, P, semiring, out_dtype, a_iso, swap, frontier, dist, default, small,
                 max_rounds):
    """The CPU backend's ``relax_rounds`` on the device: ``(fk, fv, tn, foff,
    complete)``, ``fk``/``fv`` device arrays (each round's entries sorted by
    vertex), ``tn`` and ``foff`` host lists."""
    indptr, indices, pvals = P
    fidx, fvals = frontier
    dvals, dpres = dist
    n = dvals.shape[0]
    out_dtype = np.dtype(out_dtype)
    max_rounds = int(max(1, min(max_rounds, n + 1)))
    ip, ix = cupy.ascontiguousarray(indptr), cupy.ascontiguousarray(indices)
    if pvals is None or a_iso is not None:
        avals = be.full(1, a_iso, np.asarray(a_iso).dtype)
        read_a = False
    else:
        avals, read_a = cupy.ascontiguousarray(pvals), True
    key = ("relax", semiring, ip.dtype, ix.dtype, avals.dtype, out_dtype, bool(swap))
    fn = be._fn(key, lambda: source(semiring, ip.dtype, ix.dtype, avals.dtype, out_dtype,
                                    swap), "relax_run")
    ident = semiring.monoid.identity(out_dtype)
    acc = be.full(max(n, 1), ident, out_dtype)
    mark = cupy.zeros(max(n, 1), dtype=np.int32)
    touched = cupy.empty(max(n, 1), dtype=np.int64)
    dv = cupy.array(dvals, dtype=out_dtype, copy=True)
    dp = (cupy.ones(n, dtype=bool) if dpres is None
          else cupy.array(dpres, dtype=bool, copy=True))
    cap = n + 1024
    fk = cupy.empty(cap, dtype=np.int64)
    fv = cupy.empty(cap, dtype=out_dtype)
    keys = cupy.empty(cap, dtype=np.int64)
    head = cupy.zeros(3 + 2 * max_rounds, dtype=np.int64)
    start = cupy.ascontiguousarray(fidx, dtype=np.int64)
    svals = cupy.ascontiguousarray(fvals, dtype=out_dtype)
    if start.shape[0] == 0:
        start = cupy.zeros(1, dtype=np.int64)      # a valid pointer; fn is 0
        svals = cupy.zeros(1, dtype=out_dtype)
    dt = out_dtype.type
    fn((1,), (BLOCK,), (ip, ix, avals, np.int32(read_a), np.int64(n), start, svals,
                        np.int64(fidx.shape[0]), dv, dp, dt(default), dt(ident), acc, mark,
                        touched, fk, fv, keys, np.int64(cap), head, np.int64(small),
                        np.int64(max_rounds)))
    h = head.get()                                 # the one wait of a run
    nr, complete = int(h[0]), bool(h[1])
    tn = [int(x) for x in h[2:2 + nr]]
    foff = [int(x) for x in h[2 + max_rounds:3 + max_rounds + nr]]
    total = foff[-1] if foff else 0
    if total:
        order = cupy.argsort(keys[:total])
        fk, fv = fk[:total][order], fv[:total][order]
    else:
        fk, fv = fk[:0], fv[:0]
    return fk, fv, tn, foff, complete
