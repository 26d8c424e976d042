"""CUDA kernel: Sturm-count bisection for symmetric tridiagonal eigenvalues,
one thread per eigenvalue index (Lessig's data-parallel scheme), with the same
arithmetic as ``ArrayBackend.sturm_count`` (IEEE division, no fast math), so
the count is the same monotone one on every device.

The GPU backend uses it as ``bisect_intervals`` (see ``GPUBackend``)."""
import cupy as cp
import numpy as np

_SRC = r"""
extern "C" __global__ void sturm_bisect(const double* __restrict__ d,
        const double* __restrict__ e2, const long long n, const long long* __restrict__ k,
        const double* __restrict__ a, const double* __restrict__ b, const double pivmin,
        const int iters, const double atol, double* __restrict__ out, const long long K)
{
    long long t = (long long)blockDim.x * blockIdx.x + threadIdx.x;
    if (t >= K) return;
    double lo = a[t], hi = b[t];
    const long long kk = k[t];
    for (int it = 0; it < iters && hi - lo > atol; ++it) {
        const double mid = 0.5 * (lo + hi);
        double q = d[0] - mid;
        if (fabs(q) < pivmin) q = -pivmin;
        long long c = q < 0.0;
        for (long long i = 1; i < n; ++i) {
            q = __dsub_rn(d[i] - mid, __ddiv_rn(e2[i - 1], q));
            if (fabs(q) < pivmin) q = -pivmin;
            c += q < 0.0;
        }
        if (c > kk) hi = mid; else lo = mid;
    }
    out[t] = 0.5 * (lo + hi);
}
"""
_kernel = None


def bisect_intervals(d, e2, k, a, b, pivmin, iters, atol):
    global _kernel
    if _kernel is None:
        _kernel = cp.RawKernel(_SRC, "sturm_bisect")
    K = k.shape[0]
    out = cp.empty(K, dtype=cp.float64)
    if K:
        threads = 128
        _kernel(((K + threads - 1) // threads,), (threads,),
                (cp.ascontiguousarray(d, dtype=cp.float64),
                 cp.ascontiguousarray(e2, dtype=cp.float64), np.int64(d.shape[0]),
                 cp.ascontiguousarray(k, dtype=cp.int64), cp.ascontiguousarray(a),
                 cp.ascontiguousarray(b), np.float64(pivmin), np.int32(iters),
                 np.float64(atol), out, np.int64(K)))
    return out
