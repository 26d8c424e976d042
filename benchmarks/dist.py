"""graphblast_py.dist on a CPU Dask LocalCluster: BFS and one PageRank
iteration on Kronecker graphs with 1, 2, ... worker processes against the
single process (no Dask) as the baseline measured in the same run.

    NUMBA_NUM_THREADS=1 python3 benchmarks/dist.py --scales 16 18 --workers 1 2

Each worker has one thread (``threads_per_worker=1``); run with
``NUMBA_NUM_THREADS=1`` so the single-process baseline also uses one core
(the workers inherit the environment).  Per row: the median of ``--repeats``
runs after a warm-up run (which loads the compiled kernels on every worker).

* ``bfs ms``: ``bfs(A, s)`` from the vertex of largest degree, levels only;
* ``pr it ms``: one PageRank iteration, (time of ``1 + K`` iterations - time
  of 1 iteration) / K, K = ``--iters``;
* ``ratio``: distributed time / single-process time (< 1: faster);
* ``compute ms``: the busiest worker's time inside the block operations;
  ``gather ms``: its time assembling the gathered input vectors;
  ``comm %``: the rest of the wall time (Dask scheduling, moving the arrays,
  waiting at the client's syncs) as a share of the wall time -- the
  communication and orchestration overhead;
* per cluster, the Dask latency floor: a chain of dependent no-op tasks on one
  worker (ms per hop) and a submit-and-wait from the client (ms per round trip).
"""
import argparse
import os
import time

import numpy as np

import graphblast_py as gb
from graphblast_py import ConvergenceError, dist, monoid
from graphblast_py.algorithms import bfs, pagerank
from graphblast_py.dist import _blocks

from bfs import timed        # benchmarks/bfs.py: median of the repeats after a warm-up run


def pr_iters(A, k):
    try:
        pagerank(A, tol=1e-300, max_iter=k)
    except ConvergenceError:
        pass


def pr_iteration(A, iters, repeats):
    t1 = timed(lambda: pr_iters(A, 1), repeats)
    tk = timed(lambda: pr_iters(A, 1 + iters), repeats)
    return max(tk - t1, 0.0) / iters


def _inc(x):
    return x + 1


def dask_latency(client, hops=30):
    """(ms per dependent task hop on one worker, ms per client round trip):
    the floor under every distributed operation."""
    w = sorted(client.scheduler_info()["workers"])[0]
    f = client.submit(_inc, 0, workers=[w], pure=False)
    f.result()
    t = time.perf_counter()
    for _ in range(hops):
        f = client.submit(_inc, f, workers=[w], pure=False)
    f.result()
    hop = (time.perf_counter() - t) / hops
    t = time.perf_counter()
    for i in range(10):
        client.submit(_inc, i, workers=[w], pure=False).result()
    return hop * 1e3, (time.perf_counter() - t) / 10 * 1e3


def profiled(client, fn):
    """(wall s, busiest worker's compute s, its assemble s) of one fn()."""
    client.run(_blocks.timings, True)
    t = time.perf_counter()
    fn()
    wall = time.perf_counter() - t
    per = client.run(_blocks.timings)
    busiest = max(per.values(), key=lambda d: d["compute"] + d["assemble"])
    return wall, busiest["compute"], busiest["assemble"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scales", type=int, nargs="+", default=[16, 18])
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--iters", type=int, default=5)
    args = ap.parse_args()
    print(f"NUMBA_NUM_THREADS={os.environ.get('NUMBA_NUM_THREADS', '(unset)')}, "
          f"{os.cpu_count()} CPUs, workers of 1 thread")
    graphs = {}
    for s in args.scales:
        A = gb.generators.kronecker(s, seed=1, device="cpu")
        src = int(np.argmax(np.asarray(A.reduce_rowwise(monoid.plus).to_dense())))
        t_bfs = timed(lambda: bfs(A, src), args.repeats)
        t_pr = pr_iteration(A, args.iters, args.repeats)
        graphs[s] = (A, src, t_bfs, t_pr)
        print(f"scale {s}: n={A.nrows} nvals={A.nvals}  single process: bfs {t_bfs * 1e3:.1f} ms,"
              f" pagerank iteration {t_pr * 1e3:.1f} ms")
    hdr = (f"{'scale':>5} {'workers':>7} {'dist s':>7} {'bfs ms':>8} {'ratio':>6} "
           f"{'compute ms':>10} {'gather ms':>9} {'comm %':>6} {'pr it ms':>8} {'ratio':>6} "
           f"{'comm %':>6}")
    print(hdr)
    for w in args.workers:
        client = dist.start_local(n_workers=w, threads_per_worker=1)
        try:
            hop, rtt = dask_latency(client)
            print(f"  {w} worker(s): Dask task hop {hop:.1f} ms, client round trip {rtt:.1f} ms")
            for s in args.scales:
                A, src, t_bfs, t_pr = graphs[s]
                t = time.perf_counter()
                DA = dist.distribute(A, dist.Layout(client, A.nrows))
                DA._column_blocks()
                DA.nvals
                t_dist = time.perf_counter() - t
                d_bfs = timed(lambda: bfs(DA, src), args.repeats)
                wall, comp, asm = profiled(client, lambda: bfs(DA, src))
                comm_bfs = max(wall - comp - asm, 0.0) / wall
                d_pr = pr_iteration(DA, args.iters, args.repeats)
                w1, c1, a1 = profiled(client, lambda: pr_iters(DA, 1))
                wk, ck, ak = profiled(client, lambda: pr_iters(DA, 1 + args.iters))
                busy = (ck + ak) - (c1 + a1)
                comm_pr = max((wk - w1) - busy, 0.0) / max(wk - w1, 1e-9)
                print(f"{s:>5} {w:>7} {t_dist:>7.1f} {d_bfs * 1e3:>8.1f} {d_bfs / t_bfs:>6.2f} "
                      f"{comp * 1e3:>10.1f} {asm * 1e3:>9.1f} {comm_bfs * 100:>6.0f} "
                      f"{d_pr * 1e3:>8.1f} {d_pr / t_pr:>6.2f} {comm_pr * 100:>6.0f}", flush=True)
        finally:
            cluster = client.cluster
            client.close()
            cluster.close()


if __name__ == "__main__":
    main()
