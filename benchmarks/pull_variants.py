"""The unmasked float pull of PageRank's iteration (``w A`` over plus_times
on a dense w) on the GPU, several ways in one run: the structure-only
kernel ``spmv_sum`` (the backend's ``SUM_PULL``, forced on every graph;
lanes per short row by its rule, then 2 ... 32), cuSPARSE's SpMV (``CUSPARSE_PULL``), the backend's
own warp-per-row pull kernel with the hub rows by a block each, and the
hand-written cuSPARSE call of benchmarks/cupy_baselines.py (cupyx's
``A.T @ x`` with the transpose made once); on the iso (structure-only)
Kronecker matrix and on the same matrix with float64 values, and on grids.
``default`` is the backend's own choice.  Prints ms per vxm (median) and the
largest relative difference from the baseline over all the ways.

    python3 benchmarks/pull_variants.py [--scales 18 20 22] [--grids 1000] [--repeats 20]
"""
import argparse
import statistics
import time

import graphblast_py as gb
from graphblast_py import backend, semiring


def gpu_graphs(scales, grids):
    """``(name, make)`` for the Kronecker graphs (seed 1) of ``scales`` and
    the square grids of sides ``grids`` on the GPU, each made when called."""
    return ([(f"kron{s}", lambda s=s: gb.generators.kronecker(s, seed=1, device="gpu"))
             for s in scales]
            + [(f"grid{k}", lambda k=k: gb.generators.grid2d(k, k, device="gpu"))
               for k in grids])


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
    p.add_argument("--grids", type=int, nargs="*", default=[1000])
    p.add_argument("--repeats", type=int, default=20)
    args = p.parse_args()
    import cupy as cp
    import cupyx.scipy.sparse as csp
    be = backend.get("gpu")
    sync = be.synchronize
    print(f"device: {be.device_name()}")
    forced = dict(SUM_PULL=True, SUM_PULL_MAX_ROW=None)
    ways = [("default", {}), ("sum", dict(forced, SUM_PULL_LANES=None))] + \
        [(f"sum{k}", dict(forced, SUM_PULL_LANES=k)) for k in (2, 4, 8, 16, 32)] + \
        [("cusparse", dict(SUM_PULL=False, CUSPARSE_PULL=True)),
         ("own", dict(SUM_PULL=False, CUSPARSE_PULL=False))]
    print(f"{'graph':<10} {'values':<7} {'lanes':>5} " + " ".join(f"{k:>8}" for k, _ in ways)
          + f" {'baseline':>8} {'sum/base':>8} {'sum/cusp':>8} {'max rel diff':>12}")
    for name, make in gpu_graphs(args.scales, args.grids):
        A = make()
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
            res, worst = {}, 0.0
            saved = {k: getattr(be, k) for k in ("SUM_PULL", "SUM_PULL_LANES", "SUM_PULL_MAX_ROW",
                                                 "CUSPARSE_PULL")}
            try:
                for k, settings in ways:
                    for attr, v in settings.items():
                        setattr(be, attr, v)
                    res[k] = per_call(lambda: w.vxm(M, semiring.plus_times), sync, args.repeats)
                    got = w.vxm(M, semiring.plus_times).to_dense()
                    d = float(cp.max(cp.abs(got - ref) / cp.maximum(cp.abs(ref), 1e-300)))
                    worst = max(worst, d)
                    for attr, v in saved.items():
                        setattr(be, attr, v)
            finally:
                for attr, v in saved.items():
                    setattr(be, attr, v)
            lanes = be._sum_lanes(ix.shape[0], n)
            print(f"{name:<10} {label:<7} {lanes:>5} " + " ".join(f"{res[k]:8.3f}" for k, _ in ways)
                  + f" {t_base:8.3f} {res['sum'] / t_base:8.2f} {res['sum'] / res['cusparse']:8.2f}"
                  f" {worst:12.1e}")

if __name__ == "__main__":
    main()
