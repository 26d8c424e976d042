"""The unmasked float pull of PageRank's iteration (``w A`` over plus_times
on a dense w) on the GPU, three ways in one run: cuSPARSE's SpMV (the
backend's ``CUSPARSE_PULL``), the backend's own warp-per-row kernel with the
hub rows by a block each, and the hand-written cuSPARSE call of
benchmarks/cupy_baselines.py (cupyx's ``A.T @ x`` with the transpose made
once); on the iso (structure-only) Kronecker matrix
and on the same matrix with float64 values.  Prints ms per vxm (median) and
the largest relative difference from the baseline.

    python3 benchmarks/pull_variants.py [--scales 18 20 22] [--repeats 20]
"""
import argparse
import statistics
import time

import graphblast_py as gb
from graphblast_py import backend, semiring


def per_call(fn, sync, repeats):
    fn()
    sync()
    ts = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        sync()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts) * 1e3


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scales", type=int, nargs="*", default=[18, 20, 22])
    p.add_argument("--repeats", type=int, default=20)
    args = p.parse_args()
    import cupy as cp
    import cupyx.scipy.sparse as csp
    be = backend.get("gpu")
    sync = be.synchronize
    print(f"device: {be.device_name()}")
    print(f"{'graph':<8} {'values':<7} {'cusparse':>9} {'own kernel':>10} {'baseline':>9} "
          f"{'own/base':>8} {'max rel diff':>12}")
    for scale in args.scales:
        A = gb.generators.kronecker(scale, seed=1, device="gpu")
        n = A.nrows
        w = gb.Vector.from_dense(cp.random.default_rng(1).random(n), device="gpu")
        ip, ix, _ = A._csr(False)
        for label, M in (("iso", A), ("float64", A.dup("float64"))):
            S = csp.csr_matrix((cp.ones(ix.shape[0]), ix.astype(cp.int32), ip.astype(cp.int32)),
                               shape=(n, n))
            ST = S.T.tocsr()            # w A = A' w, the transpose made once
            x = w.to_dense()
            t_base = per_call(lambda: ST @ x, sync, args.repeats)
            ref = ST @ x
            res = {}
            saved = be.CUSPARSE_PULL
            try:
                for k, on in (("cusparse", True), ("own", False)):
                    be.CUSPARSE_PULL = on
                    res[k] = per_call(lambda: w.vxm(M, semiring.plus_times), sync, args.repeats)
                    got = w.vxm(M, semiring.plus_times).to_dense()
                    d = float(cp.max(cp.abs(got - ref) / cp.maximum(cp.abs(ref), 1e-300)))
                    res[k + "_d"] = d
            finally:
                be.CUSPARSE_PULL = saved
            print(f"kron{scale:<4} {label:<7} {res['cusparse']:9.3f} {res['own']:10.3f} "
                  f"{t_base:9.3f} {res['own'] / t_base:8.2f} "
                  f"{max(res['cusparse_d'], res['own_d']):12.1e}")


if __name__ == "__main__":
    main()
