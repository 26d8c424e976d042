"""Graph generation time per generator, size and device.

Times ``gb.generators.kronecker(scale)`` (Graph500: edge factor 16), square
grids and Erdos-Renyi G(n, m) graphs on each requested device: the first call
of a size (which includes numba / CUDA compilation on a fresh cache) is shown
apart, then the median and minimum of ``--repeat`` further calls, each ended
by a device synchronisation.  Prints one row per (generator, size, device).

    python3 benchmarks/generators.py                       # kron 16 18 20, cpu (+gpu)
    python3 benchmarks/generators.py --scales 20 22 --devices gpu --repeat 5
    python3 benchmarks/generators.py --grids 1000 --er 1000000:8000000

Baseline (hand-written; a 2-core host shared with other jobs, load average
3.5-6, so single runs vary up to 3x; old and new code run interleaved, one
fresh process per call): before the device/counter-based rewrite
kronecker(16 / 18 / 20) took 0.36-1.06 / 2.5-4.4 / 7.6-16.4 s, after it
0.13-0.14 / 0.31-0.74 / 1.5-4.2 s; erdos_renyi(10**6, nedges=8 * 10**6) 30 s
before, 2-4.2 s after.  Target on an H100: kronecker(22) <= 1 s (not yet
measured).
"""
import argparse
import statistics
import time

import graphblast_py as gb


def timed(fn, device):
    gb.device.synchronize(device)
    t = time.perf_counter()
    A = fn()
    gb.device.synchronize(device)
    return time.perf_counter() - t, A


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scales", type=int, nargs="*", default=[16, 18, 20],
                   help="Kronecker scales (2**scale vertices, 16 * 2**scale edges drawn)")
    p.add_argument("--grids", type=int, nargs="*", default=[],
                   help="K for K x K grids")
    p.add_argument("--er", nargs="*", default=[],
                   help="N:M for Erdos-Renyi G(N, M) graphs")
    p.add_argument("--devices", default=None,
                   help="comma-separated, default: cpu and gpu when present")
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()
    devices = args.devices.split(",") if args.devices else \
        (["cpu", "gpu"] if gb.backend.gpu_available() else ["cpu"])
    jobs = [(f"kronecker({s})", lambda d, s=s: gb.generators.kronecker(s, device=d))
            for s in args.scales]
    jobs += [(f"grid2d({k}, {k})", lambda d, k=k: gb.generators.grid2d(k, k, device=d))
             for k in args.grids]
    for spec in args.er:
        n, m = (int(x) for x in spec.split(":"))
        jobs.append((f"erdos_renyi({n}, nedges={m})",
                     lambda d, n=n, m=m: gb.generators.erdos_renyi(n, nedges=m, device=d)))
    print(f"{'graph':<32} {'device':<6} {'n':>10} {'nvals':>12} {'first s':>9} "
          f"{'median s':>9} {'min s':>9} {'Medges/s':>9}")
    for dev in devices:
        gb.generators.kronecker(4, device=dev)          # load the kernels once
        for name, make in jobs:
            first, A = timed(lambda: make(dev), dev)
            n, nvals = A.nrows, A.nvals
            del A
            ts = []
            for _ in range(args.repeat):
                t, A = timed(lambda: make(dev), dev)
                ts.append(t)
                del A
            med, best = (statistics.median(ts), min(ts)) if ts else (first, first)
            print(f"{name:<32} {dev:<6} {n:>10} {nvals:>12} {first:>9.3f} {med:>9.3f} "
                  f"{best:>9.3f} {nvals / med / 1e6:>9.1f}", flush=True)


if __name__ == "__main__":
    main()
