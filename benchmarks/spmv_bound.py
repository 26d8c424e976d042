"""How fast PageRank's product could be on the GPU: a lower bound for any
structure-only SpMV against cuSPARSE's SpMV, on Kronecker graphs and grids.

``gather`` reads every stored entry's column index and sums x[col] per
thread -- no rows, no output, every thread the same share of entries in
CSR order -- so no kernel that reads A's structure and gathers x once per
entry in that order can take less time; ``+values`` also reads a float64
value per entry (what cuSPARSE reads); ``stream`` reads the column indices
alone.  ``cusparse`` is cuSPARSE's SpMV (fp64, the algorithm by
``--algs``: 0 default, 2 CSR_ALG1, 3 CSR_ALG2) with the plan made once,
as the backend runs it; ``framework`` the backend's ``w A`` (plus_times,
iso matrix).  Times from CUDA events (median of ``--repeats``).

    python3 benchmarks/spmv_bound.py [--scales 20 22] [--grids 1000] [--algs 0 2 3]
"""
import argparse
import statistics
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pull_variants import gpu_graphs  # noqa: E402

SRC = r'''
extern "C" __global__ void gather(const int* __restrict__ col, long long nnz,
                                  const double* __restrict__ x, double* __restrict__ out)
{
    long long stride = (long long)gridDim.x * blockDim.x;
    double acc = 0;
    for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < nnz; p += stride)
        acc += x[col[p]];
    if (acc == -1.0) out[0] = acc;          // (never: keeps the loads)
}
extern "C" __global__ void gather_values(const int* __restrict__ col,
                                         const double* __restrict__ v, long long nnz,
                                         const double* __restrict__ x, double* __restrict__ out)
{
    long long stride = (long long)gridDim.x * blockDim.x;
    double acc = 0;
    for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < nnz; p += stride)
        acc += v[p] * x[col[p]];
    if (acc == -1.0) out[0] = acc;
}
extern "C" __global__ void stream(const int* __restrict__ col, long long nnz,
                                  double* __restrict__ out)
{
    long long stride = (long long)gridDim.x * blockDim.x;
    long long acc = 0;
    for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < nnz; p += stride)
        acc += col[p];
    if (acc == -1) out[0] = (double)acc;
}
'''


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scales", type=int, nargs="*", default=[20, 22])
    p.add_argument("--grids", type=int, nargs="*", default=[1000])
    p.add_argument("--algs", type=int, nargs="*", default=[0, 2, 3])
    p.add_argument("--repeats", type=int, default=30)
    args = p.parse_args()
    import cupy as cp
    import cupyx.scipy.sparse as csp
    from cupy._core import _dtype
    from cupy_backends.cuda.libs import cusparse as _cs
    from cupyx import cusparse

    import graphblast_py as gb
    from graphblast_py import backend, semiring

    be = backend.get("gpu")
    mod = cp.RawModule(code=SRC)
    grid = (cp.cuda.Device().attributes["MultiProcessorCount"] * 16,)

    def timed(fn):
        fn()
        a, b = cp.cuda.Event(), cp.cuda.Event()
        ts = []
        for _ in range(args.repeats):
            a.record()
            fn()
            b.record()
            b.synchronize()
            ts.append(cp.cuda.get_elapsed_time(a, b))
        return statistics.median(ts)

    def cusparse_run(S, x, y, alg):
        h = cp.cuda.device.get_cusparse_handle()
        op = _cs.CUSPARSE_OPERATION_NON_TRANSPOSE
        one, zero = np.array(1.0), np.array(0.0)
        ct = _dtype.to_cuda_dtype(S.dtype)
        mat = cusparse.SpMatDescriptor.create(S)
        dx, dy = cusparse.DnVecDescriptor.create(x), cusparse.DnVecDescriptor.create(y)
        size = _cs.spMV_bufferSize(h, op, one.ctypes.data, mat.desc, dx.desc,
                                   zero.ctypes.data, dy.desc, ct, alg)
        buf = cp.empty(max(int(size), 1), cp.int8)
        keep = (one, zero, mat, dx, dy, buf)

        def run():
            _cs.spMV(h, op, keep[0].ctypes.data, mat.desc, dx.desc, keep[1].ctypes.data,
                     dy.desc, ct, alg, buf.data.ptr)
        return run

    print(f"device: {be.device_name()}; ms per product (CUDA events), ratio to cuSPARSE "
          f"(algorithm {args.algs[0]})")
    print(f"{'graph':<10} {'entries':>10} " + " ".join(f"{'cusparse' + str(a):>10}" for a in args.algs)
          + f" {'framework':>10} {'gather':>14} {'+values':>14} {'stream':>8}")
    for name, make in gpu_graphs(args.scales, args.grids):
        A = make()
        n = A.nrows
        ip, ix, _ = A._csr(False)
        S = csp.csr_matrix((cp.ones(ix.shape[0]), ix.astype(cp.int32), ip.astype(cp.int32)),
                           shape=(n, n))     # symmetric: w A = A w
        x = cp.random.default_rng(1).random(n)
        y, out = cp.empty(n), cp.zeros(1)
        ref = S @ x
        t_cs = []
        for alg in args.algs:
            t_cs.append(timed(cusparse_run(S, x, y, alg)))
            if float(cp.max(cp.abs(y - ref))) > 1e-9 * float(cp.max(cp.abs(ref))):
                raise SystemExit(f"cuSPARSE algorithm {alg} differs from cupyx on {name}")
        w = gb.Vector.from_dense(x, device="gpu")
        t_fw = timed(lambda: w.vxm(A, semiring.plus_times))
        col, vals, nnz = S.indices, S.data, np.int64(S.nnz)
        t_g = timed(lambda: mod.get_function("gather")(grid, (256,), (col, nnz, x, out)))
        t_gv = timed(lambda: mod.get_function("gather_values")(grid, (256,),
                                                              (col, vals, nnz, x, out)))
        t_s = timed(lambda: mod.get_function("stream")(grid, (256,), (col, nnz, out)))
        base = t_cs[0]
        print(f"{name:<10} {S.nnz:>10} " + " ".join(f"{t:10.3f}" for t in t_cs)
              + f" {t_fw:10.3f} {t_g:7.3f} ({t_g / base:.2f}x) {t_gv:7.3f} ({t_gv / base:.2f}x)"
              f" {t_s:8.3f}", flush=True)
        A = S = w = None                 # (the next graph is built without them)
        cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
