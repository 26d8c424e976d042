"""Host cost of the CuPy building blocks a small GPU operation is made of:
allocations, fills, views, and raw-kernel launches by argument count and
kind.  Prints
microseconds per call (median of repeats, the device synchronised once per
batch), next to a NumPy call as the host's own speed: what one more
allocation, launch or kernel argument costs a small operation
(docs/performance.md, "Twelfth session").

    python3 benchmarks/launch_cost.py
"""
import statistics
import time

import numpy as np
import cupy

SRC = r"""
extern "C" __global__ void k4(const long long* a, const bool* b, long long n, bool* out)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n && i == 0) out[0] = b[0] && a[0]; }
extern "C" __global__ void k17(const long long* a, const long long* b, const double* c, int ra,
    const double* d, int rd, const bool* e, int he, const long long* f, int af, long long n,
    const bool* g, int hg, int cg, double* outv, bool* outp, int keep)
{ int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && i == 0) { outv[0] = c[0] + ra + rd + he + af + hg + cg + keep; outp[0] = true; } }
"""


def per_call(fn, n=2000, repeats=7):
    for _ in range(200):
        fn()
    out = []
    for _ in range(repeats):
        t = time.perf_counter()
        for _ in range(n):
            fn()
        cupy.cuda.Device().synchronize()
        out.append((time.perf_counter() - t) / n * 1e6)
    return statistics.median(out)


def main():
    mod = cupy.RawModule(code=SRC)
    k4, k17 = mod.get_function("k4"), mod.get_function("k17")
    a = cupy.zeros(16, np.int64)
    b = cupy.zeros(16, bool)
    c = cupy.zeros(16, np.float64)
    base = np.zeros(10)
    rows = {"numpy baseline (np.add on 10 floats)": lambda: np.add(base, base),
            "cupy.empty(10, float64)": lambda: cupy.empty(10, np.float64),
            "cupy.zeros(10, bool)": lambda: cupy.zeros(10, bool),
            "cupy.full(10, 3.0)": lambda: cupy.full(10, 3.0),
            "memset_async of 10 bytes": lambda: b.data.memset_async(0, 10),
            "a[2:5] (a view)": lambda: a[2:5],
            "a.view(np.uint64)": lambda: a.view(np.uint64),
            "np.int32(3) + np.int64(4) (two scalars)": lambda: (np.int32(3), np.int64(4)),
            "RawKernel, 4 args (3 arrays, np.int64)":
                lambda: k4((1,), (32,), (a, b, np.int64(10), b)),
            "RawKernel, 4 args (n as Python int)": lambda: k4((1,), (32,), (a, b, 10, b)),
            "RawKernel, 17 args (8 arrays, 9 numpy scalars)":
                lambda: k17((1,), (32,), (a, a, c, np.int32(1), c, np.int32(1), b, np.int32(1),
                                         a, np.int32(1), np.int64(10), b, np.int32(1),
                                         np.int32(0), c, b, np.int32(0))),
            }
    for name, fn in rows.items():
        print(f"  {name:<52s} {per_call(fn):7.2f} us/call")


if __name__ == "__main__":
    main()
