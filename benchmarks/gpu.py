"""graphblast-py on the GPU against hand-written CuPy programs doing the same
work (benchmarks/cupy_baselines.py), in one run, results checked equal.

For each graph (Graph500 Kronecker graphs from the hub vertex, square grids
from vertex 0) and each work item it prints the median time over --repeats
runs after one warm-up run (the device is synchronised around every run), the
ratio graphblast-py / baseline, and whether the results agree:

* bfs          levels from the source (gb.algorithms.bfs); equal exactly; the
               note gives the host synchronisations per level (one extra
               run counted with the backend's ``count_syncs``)
* bfs-loop     the README's BFS loop written by a user with the same calls
               (int32 levels, any_pair, ~level.S mask); equal exactly
* bfs-parents  levels and parents; levels equal, both parent vectors valid BFS
               trees (parents may differ: any vertex of the previous level works)
* pr-1iter     PageRank with setup and one iteration (tol=1.0 stops after the
               first iteration: sum |x' - x| <= 2 < n); equal within 1e-9.
               The baseline's setup builds the scaled transpose with a cuSPARSE
               transpose (it does not assume symmetry), which dominates this
               row on large graphs
* pr-iter      one PageRank iteration: (T(N) - T(1)) / (N - 1), N = the
               iterations the baseline needs to converge at tol = 1e-6 / n
               (sum |x' - x| < 1e-6; networkx's default tol=1e-6 stops large
               graphs after 1-2 iterations); graphblast-py runs with
               max_iter=N, and the N-iteration results agree within 1e-9.
               The baseline's per-iteration time with setup excluded
               (cupy_baselines.pagerank_iteration_time) is in the note.
* tc           triangle count; equal exactly
* cc           connected components, labels = smallest id; baseline Afforest
               (its hand-written FastSV's time in the note); all equal exactly

    python3 benchmarks/gpu.py --scales 18 20 22 --grids 300 1000 --repeats 5 --json out.json

Needs CuPy and a GPU.  Exit status 1 when any check fails.
"""
import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

WORK = ("bfs", "bfs-loop", "bfs-parents", "pr-1iter", "pr-iter", "tc", "cc")


def _host_probe():
    """Median us of a NumPy ``add`` of two 10-float arrays: how fast this
    run's host runs Python-level calls (the lent hosts differ by 2x), to
    read the host-bound rows against."""
    a = np.zeros(10)
    ts = []
    for _ in range(15):
        t = time.perf_counter()
        for _ in range(2000):
            np.add(a, a)
        ts.append((time.perf_counter() - t) / 2000 * 1e6)
    return statistics.median(ts)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scales", type=int, nargs="*", default=[18, 20, 22],
                   help="Kronecker scales (default 18 20 22)")
    p.add_argument("--grids", type=int, nargs="*", default=[300, 1000],
                   help="k for k x k grids (default 300 1000)")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--seed", type=int, default=1, help="Kronecker seed")
    p.add_argument("--work", nargs="+", default=list(WORK), choices=WORK)
    p.add_argument("--json", metavar="OUT", help="also write the rows as JSON")
    args = p.parse_args()
    if args.repeats < 1:
        p.error("--repeats must be >= 1")

    try:
        import cupy as cp
    except ImportError:
        sys.exit("benchmarks/gpu.py needs CuPy and an NVIDIA GPU (pip install -e .[gpu])")
    import graphblast_py as gb
    import cupy_baselines as cb
    from graphblast_py import ConvergenceError

    from graphblast_py.demo import bfs_levels as user_bfs   # the README's loop
    from graphblast_py.suite.systems import finished

    gb.set_device("gpu")
    props = cp.cuda.runtime.getDeviceProperties(0)
    name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    print(f"device: {name}  (cupy {cp.__version__}, graphblast-py {getattr(gb, '__version__', '?')})")
    host_us = _host_probe()
    print(f"host: {host_us:.2f} us a NumPy add of 10 floats (the host-bound rows move "
          "with it: 0.5 us on a fast host)")

    def sync():
        gb.device.synchronize("gpu")
        cp.cuda.Device().synchronize()

    gpu_be = gb.backend.get("gpu")

    def syncs(fn):
        """Host synchronisations CuPy declares during one run of fn (None where
        the backend has no counter)."""
        counter = getattr(gpu_be, "count_syncs", None)
        if counter is None:
            return None
        with counter() as c:
            fn()
        return c.count

    def per_level(count, levels):
        return "-" if count is None else f"{count / levels:.1f}"

    def timed(fn):
        out = fn()                      # warm-up (compiles kernels), not timed
        sync()
        ts = []
        for _ in range(args.repeats):
            sync()
            t = time.perf_counter()
            out = finished(fn())        # (pending stores inside the timed region)
            sync()
            ts.append(time.perf_counter() - t)
        return statistics.median(ts), out

    graphs = [(f"kron{s}", lambda s=s: gb.generators.kronecker(s, seed=args.seed, device="gpu"))
              for s in args.scales]
    graphs += [(f"grid{k}x{k}", lambda k=k: gb.generators.grid2d(k, k, device="gpu"))
               for k in args.grids]

    rows = []
    hdr = f"{'graph':>12} {'n':>9} {'nnz':>10} {'work':>12} {'graphblast ms':>14} " \
          f"{'baseline ms':>12} {'ratio':>7}  check"
    print(hdr)
    print("-" * len(hdr))
    failed = False

    def report(gname, n, nnz, work, t_gb, t_bl, ok, note="", extra=None):
        nonlocal failed
        failed |= not ok
        ratio = t_gb / t_bl if t_bl and t_gb is not None else float("nan")
        fmt = (lambda t: f"{t * 1e3:14.3f}" if t is not None else f"{'-':>14}")
        print(f"{gname:>12} {n:>9} {nnz:>10} {work:>12} {fmt(t_gb)} "
              f"{t_bl * 1e3:12.3f} {ratio:7.2f}  {'ok' if ok else 'FAIL'} {note}", flush=True)
        row = dict(graph=gname, n=n, nnz=nnz, work=work, graphblast_s=t_gb, baseline_s=t_bl,
                   ratio=ratio if ratio == ratio else None, ok=bool(ok), note=note)
        row.update(extra or {})
        rows.append(row)
        if args.json:                      # rewritten after every row: a cut-off run keeps them
            with open(args.json, "w") as fh:
                json.dump(dict(device=name, cupy=cp.__version__, repeats=args.repeats,
                               host_numpy_add_us=round(host_us, 3), rows=rows), fh, indent=1)

    for gname, make in graphs:
        A = make()
        S = A.to_scipy()                       # cupyx CSR on the device
        S.sum_duplicates()                     # sorted rows (the baselines need them)
        ip, ix = S.indptr, S.indices
        n, nnz = A.nrows, int(ip[-1])
        deg = cp.diff(ip)
        src = int(cp.argmax(deg)) if gname.startswith("kron") else 0
        sync()

        if "bfs" in args.work:
            t_gb, lv = timed(lambda: gb.algorithms.bfs(A, src))
            t_bl, lb = timed(lambda: cb.bfs_levels(ip, ix, src))
            lv = lv.to_dense(fill=-1).astype(cp.int64)
            ok = bool(cp.all(lv == lb.astype(cp.int64)))
            depth = int(lb.max())
            ns = syncs(lambda: gb.algorithms.bfs(A, src))
            report(gname, n, nnz, "bfs", t_gb, t_bl, ok,
                   f"source {src}, {depth + 1} levels, {int((lb >= 0).sum())} reached, "
                   f"{per_level(ns, depth + 1)} syncs/level", dict(syncs=ns, levels=depth + 1))

        if "bfs-loop" in args.work:
            t_gb, lv = timed(lambda: user_bfs(A, src))
            t_bl, lb = timed(lambda: cb.bfs_levels(ip, ix, src))
            lv = lv.to_dense(fill=-1).astype(cp.int64)
            nlev = int(lb.max()) + 1
            ns = syncs(lambda: user_bfs(A, src))
            report(gname, n, nnz, "bfs-loop", t_gb, t_bl, bool(cp.all(lv == lb.astype(cp.int64))),
                   f"{per_level(ns, nlev)} syncs/level", dict(syncs=ns, levels=nlev))

        if "bfs-parents" in args.work:
            t_gb, (lv, pv) = timed(lambda: gb.algorithms.bfs(A, src, parents=True))
            t_bl, (lb, pb) = timed(lambda: cb.bfs_levels(ip, ix, src, parents=True))
            lv = lv.to_dense(fill=-1).astype(cp.int64)
            pv = pv.to_dense(fill=-1).astype(cp.int64)
            ok_l = bool(cp.all(lv == lb.astype(cp.int64)))
            ok_gb = cb.check_bfs_parents(ip, ix, src, lv, pv)
            ok_bl = cb.check_bfs_parents(ip, ix, src, lb, pb)
            nlev = int(lb.max()) + 1
            ns = syncs(lambda: gb.algorithms.bfs(A, src, parents=True))
            note = f"{per_level(ns, nlev)} syncs/level" if ok_l and ok_gb and ok_bl else \
                f"levels equal {ok_l}, graphblast parents valid {ok_gb}, baseline {ok_bl}"
            report(gname, n, nnz, "bfs-parents", t_gb, t_bl, ok_l and ok_gb and ok_bl, note,
                   dict(syncs=ns, levels=nlev))

        if "pr-1iter" in args.work and n >= 3:
            t_gb, xg = timed(lambda: gb.algorithms.pagerank(A, tol=1.0, max_iter=1))
            t_bl, xb = timed(lambda: cb.pagerank(ip, ix, tol=1.0, max_iter=1))
            diff = float(cp.abs(xg.to_dense() - xb).max())
            report(gname, n, nnz, "pr-1iter", t_gb, t_bl, diff <= 1e-9,
                   f"max |diff| {diff:.1e} (setup + 1 iteration)")

        if "pr-iter" in args.work and n >= 3:
            tol = 1e-6 / n
            _, iters = cb.pagerank(ip, ix, tol=tol, max_iter=1000, return_iterations=True)
            t1_gb, _ = timed(lambda: gb.algorithms.pagerank(A, tol=1.0, max_iter=1))
            t1_bl, _ = timed(lambda: cb.pagerank(ip, ix, tol=1.0, max_iter=1))
            tN_bl, xb = timed(lambda: cb.pagerank(ip, ix, tol=tol, max_iter=iters))
            k = max(iters - 1, 1)
            try:
                tN_gb, xg = timed(lambda: gb.algorithms.pagerank(A, tol=tol, max_iter=iters))
            except ConvergenceError as e:
                report(gname, n, nnz, "pr-iter", None, (tN_bl - t1_bl) / k, False,
                       f"graphblast-py did not converge in the baseline's {iters} "
                       f"iterations: {e}")
            else:
                diff = float(cp.abs(xg.to_dense() - xb).max())
                t_pure = cb.pagerank_iteration_time(ip, ix)
                report(gname, n, nnz, "pr-iter", (tN_gb - t1_gb) / k, (tN_bl - t1_bl) / k,
                       diff <= 1e-9, f"{iters} iterations, max |diff| {diff:.1e}; baseline "
                                     f"SpMV+update alone {t_pure * 1e3:.3f} ms",
                       dict(iterations=iters, graphblast_total_s=tN_gb, baseline_total_s=tN_bl,
                            baseline_pure_iteration_s=t_pure))

        if "tc" in args.work:
            t_gb, cg = timed(lambda: gb.algorithms.triangle_count(A))
            t_bl, cbl = timed(lambda: cb.triangle_count(ip, ix))
            report(gname, n, nnz, "tc", t_gb, t_bl, int(cg) == int(cbl), f"{int(cbl)} triangles")

        if "cc" in args.work:
            t_gb, fg = timed(lambda: gb.algorithms.connected_components(A))
            t_bl, fb = timed(lambda: cb.connected_components(ip, ix))
            t_sv, fs = timed(lambda: cb.connected_components_fastsv(ip, ix))
            fg = fg.to_dense().astype(cp.int64)
            ok = bool(cp.all(fg == fb.astype(cp.int64))) and bool(cp.all(fs == fb))
            ncomp = int((fb == cp.arange(n, dtype=fb.dtype)).sum())
            report(gname, n, nnz, "cc", t_gb, t_bl, ok,
                   f"{ncomp} components; baseline FastSV {t_sv * 1e3:.3f} ms",
                   dict(baseline_fastsv_s=t_sv))

        del A, S, ip, ix, deg
        cp.get_default_memory_pool().free_all_blocks()

    if failed:
        print("some results differ (FAIL above)")
        sys.exit(1)


if __name__ == "__main__":
    main()
