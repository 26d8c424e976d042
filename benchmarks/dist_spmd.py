"""gb.dist.run (SPMD) on 1, 2, ... workers against one device running the
plain single-process framework, in the same run: a PageRank iteration, BFS
and connected components on Kronecker graphs made on the workers
(gb.dist.kronecker).

    python3 benchmarks/dist_spmd.py --device gpu --scales 22 24 26 --workers 1 2
    NUMBA_NUM_THREADS=1 python3 benchmarks/dist_spmd.py --device cpu --scales 16 18

GPU: one worker process per GPU (gb.dist.start_local_gpus), NCCL between
them.  CPU: one single-threaded worker process each (run with
NUMBA_NUM_THREADS=1 so the baseline also uses one core), sockets between them.
The baseline ("1 device") runs the same algorithm files on an ordinary
gb.Matrix in worker 0 of the first cluster (the graph made there by
gb.generators.kronecker on the same device).

Times are medians of ``--repeats`` after a warm-up, measured on the workers
around the algorithm with a device synchronisation on both sides (the
slowest worker's time; ``wall`` adds the Dask round trip that starts and
ends a run):

* ``pr it``: one PageRank iteration: (time of 1 + K iterations - time of
  1 iteration) / K, K = ``--iters``;
* ``bfs``: levels from the vertex of largest degree;
* ``cc``: connected components (up to ``--cc-max-scale``);
* ``speedup``: baseline time / distributed time (> 1: faster).

Weak scaling (printed at the end): the time of w workers at scale s against
one device at scale s - log2(w) (the same edges per device), for BFS and CC;
at most 1.5 is issue 17's target.  A baseline that does not fit one device
(``OutOfMemory``) is reported as such; the distributed results at that scale
are then checked against each other (the first worker count's levels and
labels), not against a single process.

``--profile``: one more BFS and CC run per row with the collectives timed
on the workers (a device synchronisation around each, so the run is slower
than the timed ones): the slowest worker's run time, its time in the
input-vector gathers (header and payload), in the number gathers, the bytes
it sent and the gathers the cache answered (gb.dist.spmd.PROFILE).

Every distributed result is checked against the baseline's, entry by entry:
BFS levels and CC labels equal; up to scale 20 also PageRank (to tol 1e-7)
within 1e-9 relative of the single process on the CPU.
"""
import argparse
import gc
import sys
import time

import numpy as np

import graphblast_py as gb
from graphblast_py import ConvergenceError, dist, monoid
from graphblast_py.algorithms import bfs, connected_components, pagerank


def pr_iters(A, k):
    try:
        pagerank(A, tol=1e-300, max_iter=k)
    except ConvergenceError:
        pass


def _sync(device):
    gb.device.synchronize(device)


def _timed(fn, repeats, device):
    ts = []
    for _ in range(repeats):
        _sync(device)
        t0 = time.perf_counter()
        out = fn()
        _sync(device)
        ts.append(time.perf_counter() - t0)
    return float(np.median(ts)), out


def _release():
    gc.collect()
    try:
        import cupy
        cupy.get_default_memory_pool().free_all_blocks()
    except Exception:       # noqa: BLE001 - CPU workers
        pass


def _held(dask_worker=None):
    return len(dask_worker.data)


def settle(client, seconds=60):
    """Wait until the workers have dropped the blocks of released objects
    (Dask frees them asynchronously), then free the memory pools: the next
    scale must not share the GPU with the last one's graph."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds and any(client.run(_held).values()):
        time.sleep(0.2)
    client.run(_release)


def baseline(scale, seed, iters, repeats, do_cc):
    """On one worker: the plain framework on its device (no dist); an
    ``{"oom": message}`` where the graph or a step does not fit."""
    try:
        return _baseline(scale, seed, iters, repeats, do_cc)
    except MemoryError as e:          # gb.OutOfMemory and CuPy's are MemoryErrors
        _release()
        return {"oom": f"{type(e).__name__}: {str(e)[:160]}"}


def _hub_of(A):
    """The vertex of largest degree (run on every worker of a dist.run: the
    degrees all-gathered on every worker's device, the argmax there)."""
    deg = A.reduce_rowwise("plus").to_dense(fill=0)   # (by name: the function travels by value)
    return int(deg.argmax())


def _baseline(scale, seed, iters, repeats, do_cc):
    from graphblast_py.dist import _blocks
    dev = _blocks.BLOCK_DEVICE
    t0 = time.perf_counter()
    A = gb.generators.kronecker(scale, seed=seed, device=dev)
    deg = A.reduce_rowwise(monoid.plus)
    src = int(np.argmax(np.asarray(deg.to("cpu").to_dense(fill=0))))
    _sync(dev)
    gen = time.perf_counter() - t0
    pr_iters(A, 1)                                            # warm-up (kernels, CSC)
    t1, _ = _timed(lambda: pr_iters(A, 1), repeats, dev)
    tk, _ = _timed(lambda: pr_iters(A, 1 + iters), repeats, dev)
    bfs(A, src)
    tb, lv = _timed(lambda: bfs(A, src), repeats, dev)
    out = {"n": A.nrows, "nvals": A.nvals, "src": src, "gen": gen,
           "pr": max(tk - t1, 0.0) / iters, "bfs": tb,
           "levels": np.asarray(lv.to("cpu").to_dense(fill=-1))}
    if do_cc:
        try:
            connected_components(A)
            tc, cc = _timed(lambda: connected_components(A), repeats, dev)
            out["cc"], out["labels"] = tc, np.asarray(cc.to("cpu").to_dense())
        except MemoryError as e:      # the rows above stand; CC did not fit
            out["cc_oom"] = f"{type(e).__name__}: {str(e)[:120]}"
            cc = None
            _release()
    A = deg = None                                            # freed before the next scale
    _release()
    return out


def _where():
    from graphblast_py.dist import _blocks
    return _blocks.BLOCK_DEVICE


def pr_converged(A):
    return pagerank(A, tol=1e-7)


def run_median(fn, repeats, *args):
    ts, walls, res = [], [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        res, s = dist.run_timed(fn, *args)
        walls.append(time.perf_counter() - t0)
        ts.append(s)
    return float(np.median(ts)), float(np.median(walls)), res


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", choices=["cpu", "gpu"], default="cpu")
    ap.add_argument("--scales", type=int, nargs="+", default=[16, 18])
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--iters", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cc-max-scale", type=int, default=20)
    ap.add_argument("--profile", action="store_true",
                    help="time the collectives of one more BFS and CC run per row")
    ap.add_argument("--base-scales", type=int, nargs="+", default=None,
                    help="scales of the one-device baseline (default: every scale); at "
                         "another scale the distributed results are checked against the "
                         "first worker count's")
    ap.add_argument("--base-cc-max-scale", type=int, default=None,
                    help="largest scale of the one-device CC baseline (default: --cc-max-scale)")
    args = ap.parse_args()
    p = lambda *a: print(*a, flush=True)          # noqa: E731
    p(f"device {args.device}: "
      + (gb.device.backend_for("gpu").device_name() if args.device == "gpu" else
         f"{__import__('os').cpu_count()} CPUs"))
    base, ref, rows = {}, {}, {}
    bcc = args.cc_max_scale if args.base_cc_max_scale is None else args.base_cc_max_scale
    p(f"{'scale':>5} {'workers':>7} {'gen s':>6} {'pr it ms':>9} {'speedup':>7} "
      f"{'bfs ms':>8} {'wall ms':>8} {'speedup':>7} {'cc ms':>8} {'speedup':>7}  check")
    for w in args.workers:
        client = dist.start_local_gpus(w) if args.device == "gpu" else \
            dist.start_local(n_workers=w)
        p(f"{w} workers, blocks on: {sorted(set(client.run(_where).values()))}")
        try:
            for s in args.scales:
                do_cc = s <= args.cc_max_scale
                if s not in base and args.base_scales is not None and \
                        s not in args.base_scales:
                    base[s] = {"skip": "not asked for (--base-scales)"}
                    p(f"{s:>5} {'1 dev':>7} not run (--base-scales)")
                if s not in base:
                    w0 = sorted(client.scheduler_info()["workers"])[0]
                    b = base[s] = client.submit(baseline, s, args.seed, args.iters, args.repeats,
                                                do_cc and s <= bcc, workers=[w0],
                                                pure=False).result()
                    if "cc_oom" in b:
                        p(f"{s:>5} {'1 dev':>7} connected components do not fit one device: "
                          f"{b['cc_oom']}")
                    if "oom" in b:
                        p(f"{s:>5} {'1 dev':>7} does not fit one device: {b['oom']}")
                    else:
                        p(f"{s:>5} {'1 dev':>7} {b['gen']:6.1f} {b['pr'] * 1e3:9.2f} {'':>7} "
                          f"{b['bfs'] * 1e3:8.2f} {'':>8} {'':>7} "
                          f"{b.get('cc', float('nan')) * 1e3:8.1f}        "
                          f"n={b['n']} nvals={b['nvals']}")
                    settle(client)
                b = base[s]
                t0 = time.perf_counter()
                lay = dist.Layout(client, 1 << s)
                K = dist.kronecker(lay, s, seed=args.seed)
                nv = K.nvals
                gen = time.perf_counter() - t0
                if "oom" in b or "skip" in b:        # the source from the distributed graph
                    b = {"src": dist.run(_hub_of, K), "pr": float("nan"), "bfs": float("nan"),
                         "nvals": nv}
                    base[s].update(b)
                assert nv == b["nvals"], (nv, b["nvals"])
                # checked against the single process, else the first worker count's results
                dist.run(pr_iters, K, 1)
                t1, _, _ = run_median(pr_iters, args.repeats, K, 1)
                tk, _, _ = run_median(pr_iters, args.repeats, K, 1 + args.iters)
                pr = max(tk - t1, 0.0) / args.iters
                dist.run(bfs, K, b["src"])
                tb, wb, lv = run_median(bfs, args.repeats, K, b["src"])
                ok, how = _check(np.asarray(lv.to_dense(fill=-1)), "levels", b, ref.setdefault(s, {}))
                del lv
                tc = float("nan")
                if do_cc:
                    dist.run(connected_components, K)             # warm-up (kernels)
                    tc, _, cc = run_median(connected_components, 1, K)
                    ok_cc, how_cc = _check(np.asarray(cc.to_dense()), "labels", b, ref[s])
                    ok, how = ok and ok_cc, f"{how}; labels {how_cc}"
                    del cc
                rows.setdefault(s, {})[w] = {"bfs": tb, "cc": tc, "pr": pr}
                pr_ok = None
                if s <= 20:        # PageRank to convergence against the CPU single process
                    pr_ref = pr_converged(gb.generators.kronecker(s, seed=args.seed, device="cpu"))
                    pr_ok = dist.run(pr_converged, K).gather().isclose(pr_ref, rel_tol=1e-9)
                p(f"{s:>5} {w:>7} {gen:6.1f} {pr * 1e3:9.2f} {b['pr'] / pr:7.2f} "
                  f"{tb * 1e3:8.2f} {wb * 1e3:8.1f} {b['bfs'] / tb:7.2f} "
                  f"{tc * 1e3:8.1f} {b.get('cc', float('nan')) / tc:7.2f}  "
                  f"levels{' and labels' if do_cc else ''} "
                  f"{'DIFFER' if not ok else 'kept' if how.startswith('unch') else 'equal'} ({how})"
                  + ("" if pr_ok is None else f", pagerank {'agrees' if pr_ok else 'DIFFERS'}"))
                if args.profile:
                    profile(client, K, b["src"], do_cc, p)
                del K
                settle(client)
        finally:
            client.close()
            client.cluster.close()
    weak(base, rows, p)
    return 0


def profile(client, K, src, do_cc, p):
    """One BFS (and CC) run with the collectives timed on the workers."""
    from graphblast_py.dist import spmd
    for name, fn, args in [("bfs", bfs, (K, src))] + \
            ([("cc", connected_components, (K,))] if do_cc else []):
        client.run(spmd.profile_collectives, True)
        _, secs = dist.run_timed(fn, *args)
        prof = client.run(spmd.profile_collectives, False)
        worst = max(prof.values(), key=lambda d: d["exchange"] + d["numbers"])
        p(f"        profile {name}: run {secs * 1e3:.1f} ms; gathers {worst['exchanges']} "
          f"({worst['hits']} from the cache, {worst['headers_reused']} on nvals' header) "
          f"{worst['exchange'] * 1e3:.1f} ms, {worst['bytes'] / 2**20:.1f} MiB sent; numbers "
          f"{worst['number_calls']} {worst['numbers'] * 1e3:.1f} ms; block products "
          f"{worst['products'] * 1e3:.1f} ms (the slowest worker's collectives); products "
          + " / ".join(f"{d['products'] * 1e3:.1f}" for _, d in sorted(prof.items()))
          + " ms per worker")


def _check(got, key, b, first):
    """Compare ``got`` with the one-device result ``b[key]``, else with the
    first worker count's at this scale (``first``, kept there when this is
    the first); (equal, against what)."""
    if key in b:
        return np.array_equal(got, b[key]), "against one device"
    if key in first:
        return np.array_equal(got, first[key]), "against the first worker count"
    first[key] = got
    return True, "unchecked: the first at this scale"


def weak(base, rows, p):
    """Weak scaling: w workers at scale s against one device at s - log2(w)."""
    out = []
    for s, per in sorted(rows.items()):
        for w, r in sorted(per.items()):
            k = w.bit_length() - 1
            b = base.get(s - k)
            if w < 2 or 1 << k != w or b is None or "oom" in b or "skip" in b:
                continue
            out.append(f"{w:>7} {s:>5} {s - k:>5} {r['bfs'] * 1e3:9.2f} {b['bfs'] * 1e3:9.2f} "
                       f"{r['bfs'] / b['bfs']:6.2f} {r['cc'] * 1e3:9.1f} "
                       f"{b.get('cc', float('nan')) * 1e3:9.1f} "
                       f"{r['cc'] / b.get('cc', float('nan')):6.2f}")
    if out:
        p("weak scaling (w workers at scale s / one device at s - log2 w; target <= 1.5):")
        p(f"{'workers':>7} {'scale':>5} {'base':>5} {'bfs ms':>9} {'1 dev':>9} {'ratio':>6} "
          f"{'cc ms':>9} {'1 dev':>9} {'ratio':>6}")
        for line in out:
            p(line)


if __name__ == "__main__":
    sys.exit(main())
