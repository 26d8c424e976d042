"""Traversal speculation on high-diameter graphs: BFS on k x k grids with the
speculation on and off (``backend.speculate``), for algorithms.bfs and the
README's own loop, against SciPy's csgraph.breadth_first_order (CPU) or the
hand-written CuPy BFS of benchmarks/cupy_baselines.py (GPU), in one run; and
algorithms.sssp with round speculation on and off (``backend.relax``,
switched on for the run on either device) against SciPy's Dijkstra on the
host.  Prints the median ms of ``--repeats`` runs (after one warm-up run)
and the kernels launched per call (traversals, or relaxation runs).

    python3 benchmarks/traversal.py [--device cpu|gpu] [--grids 300 1000] [--repeats 5]
                                    [--profile]

``--profile``: also run algorithms.bfs on the last grid under cProfile and
print the functions with the most own time per BFS level (CuPy's Cython
calls count as the own time of the function that makes them);
``--profile-kron S``: the same on a Kronecker graph of scale S from its
highest-degree vertex (a few wide levels instead of thousands of narrow ones).
"""
import argparse
import statistics
import time

import numpy as np
import scipy.sparse.csgraph as csgraph

import graphblast_py as gb
from graphblast_py import backend
from graphblast_py.demo import bfs_levels as readme_loop     # the README's loop
from graphblast_py.suite.systems import finished


def timed(fn, repeats, sync):
    fn()
    sync()
    ts = []
    for _ in range(repeats):
        t = time.perf_counter()
        r = finished(fn())              # pending fills / copies inside the timed region
        sync()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts) * 1e3, r


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", default="cpu", choices=["cpu", "gpu"])
    p.add_argument("--grids", type=int, nargs="*", default=[300, 1000])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--profile", action="store_true")
    p.add_argument("--profile-kron", type=int, nargs="*", default=[])
    p.add_argument("--off-repeats", type=int, default=1,
                   help="repeats with the speculation off (slow on big grids)")
    args = p.parse_args(argv)
    be = backend.get(args.device)
    sync = be.synchronize
    print(f"device: {args.device} ({be.device_name() if hasattr(be, 'device_name') else ''})")
    print(f"{'graph':<12} {'levels':>6} {'work':<10} {'spec on ms':>10} {'spec off ms':>11} "
          f"{'baseline ms':>11} {'on/base':>8} {'launches':>8}")
    for k in args.grids:
        A = gb.generators.grid2d(k, k, device=args.device)
        src = 0
        if args.device == "cpu":
            S = A.to_scipy()
            t_base, _ = timed(lambda: csgraph.breadth_first_order(S, src, directed=True,
                                                                    return_predecessors=False),
                              args.repeats, lambda: None)
            base = "scipy"
        else:
            from benchmarks import cupy_baselines as cb
            ip, ix, _ = A._csr(False)
            t_base, _ = timed(lambda: cb.bfs_levels(ip, ix, src), args.repeats, sync)
            base = "cupy"
        Sw = A.to_scipy()
        Sw = (Sw.get() if hasattr(Sw, "get") else Sw).astype(np.float64)
        t_dij, _ = timed(lambda: csgraph.dijkstra(Sw, directed=True, indices=src),
                         args.repeats, lambda: None)
        for work, fn, switch, key, t_ref, ref in (
                ("bfs", lambda: gb.algorithms.bfs(A, src), "speculate", "traversal:launched",
                 t_base, base),
                ("readme", lambda: readme_loop(A, src), "speculate", "traversal:launched",
                 t_base, base),
                ("sssp", lambda: gb.algorithms.sssp(A, src), "relax", "relaxation:launched",
                 t_dij, "scipy")):
            saved = getattr(be, switch)
            try:
                setattr(be, switch, True)
                gb.stats.reset()
                t_on, lv_on = timed(fn, args.repeats, sync)
                launches = gb.stats()["counts"].get(key, 0) // (args.repeats + 1)
                setattr(be, switch, False)
                t_off, lv_off = timed(fn, args.off_repeats, sync)
            finally:
                setattr(be, switch, saved)
            assert lv_on.isequal(lv_off), "speculation changed the result"
            levels = int(np.max(be.to_host(lv_on.to_coo()[1]))) + 1
            print(f"grid{k}x{k:<6} {levels:>6} {work:<10} {t_on:>10.2f} {t_off:>11.2f} "
                  f"{t_ref:>8.2f} {ref:<2} {t_on / t_ref:>8.1f} {launches:>8}")
    if args.profile:
        profile(A, src, sync)
    for scale in args.profile_kron:
        K = gb.generators.kronecker(scale, seed=42, device=args.device)
        deg = K.dup("int64").reduce_rowwise(gb.monoid.plus)
        hub = int(deg.select("==", deg.reduce(gb.monoid.max)).to_coo()[0][0])
        print(f"\nKronecker {scale}, source {hub}:")
        profile(K, hub, sync, repeat=20)


def profile(A, src, sync, repeat=1):
    import cProfile
    import pstats
    lv = gb.algorithms.bfs(A, src)
    sync()
    nlev = int(gb.backend.get(A.device).to_host(lv.to_coo()[1]).max()) + 1
    t = time.perf_counter()
    for _ in range(repeat):
        gb.algorithms.bfs(A, src)
    sync()
    plain = (time.perf_counter() - t) / repeat
    pr = cProfile.Profile()
    t = time.perf_counter()
    pr.enable()
    for _ in range(repeat):
        gb.algorithms.bfs(A, src)
    sync()
    pr.disable()
    nlev *= repeat
    print(f"\n--- profile: algorithms.bfs, {nlev // repeat} levels, {plain * 1e3:.2f} ms a BFS, "
          f"{(time.perf_counter() - t) / repeat * 1e3:.1f} ms under cProfile; own time per level")
    st = pstats.Stats(pr)
    rows = sorted(st.stats.items(), key=lambda kv: -kv[1][2])[:30]
    for (f, line, fname), (cc, nc, tt, ct, _) in rows:
        print(f"  {tt / nlev * 1e6:7.2f} us  {nc / nlev:6.2f} calls  "
              f"{f.split('/')[-1]}:{line} {fname}")


if __name__ == "__main__":
    main()
