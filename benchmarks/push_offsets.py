"""The GPU push's offsets of a big frontier: two launches of our own
(``push_deg_blocks``, ``push_scan_blocks``; the backend's default) against
the earlier way (``push_degrees`` and ``cupy.cumsum``: ``PUSH_SCAN_BLOCKS =
0``), in one process, the two alternated: BFS levels and BFS with parents
from the hub of Kronecker graphs (ms, median), and one push ``vxm`` of a
frontier of the given sizes (host time of the call without a sync, and the
time with one).  Results checked equal.

    python3 benchmarks/push_offsets.py [--scales 18 20 22] [--repeats 9]
"""
import argparse
import statistics
import time

import numpy as np

import graphblast_py as gb
from graphblast_py.algorithms import bfs


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scales", type=int, nargs="*", default=[18, 20, 22])
    p.add_argument("--sizes", type=int, nargs="*", default=[20000, 200000])
    p.add_argument("--repeats", type=int, default=9)
    args = p.parse_args()
    be = gb.backend.get("gpu")
    sync = be.synchronize
    ways = (("two launches", be.PUSH_SCAN_BLOCKS), ("cumsum", 0))
    print(f"device: {be.device_name()}")
    for s in args.scales:
        A = gb.generators.kronecker(s, seed=1, device="gpu")
        n = A.nrows
        src = int(be.to_host(A.mxv(gb.Vector.from_dense(np.ones(n), device="gpu"),
                                   gb.semiring.plus_pair).to_dense()).argmax())
        res, outs = {}, {}
        for _ in range(args.repeats):
            for name, blocks in ways:
                be.PUSH_SCAN_BLOCKS = blocks
                for what, fn in (("bfs", lambda: bfs(A, src)),
                                 ("parents", lambda: bfs(A, src, parents=True))):
                    sync()
                    t = time.perf_counter()
                    r = fn()
                    sync()
                    res.setdefault((what, name), []).append(time.perf_counter() - t)
                    lv = r[0] if isinstance(r, tuple) else r
                    outs.setdefault((what, name), be.to_host(lv.to_dense(fill=-1)))
        be.PUSH_SCAN_BLOCKS = ways[0][1]
        same = all(np.array_equal(outs[(w, "two launches")], outs[(w, "cumsum")])
                   for w in ("bfs", "parents"))
        print(f"kron{s} (levels equal: {same}): " + " ".join(
            f"{w}: two launches {statistics.median(res[(w, 'two launches')]) * 1e3:.3f} ms, "
            f"cumsum {statistics.median(res[(w, 'cumsum')]) * 1e3:.3f} ms;"
            for w in ("bfs", "parents")), flush=True)
        rng = np.random.default_rng(s)
        for size in args.sizes:
            if size >= n:
                continue
            idx = np.sort(rng.choice(n, size, replace=False))
            u = gb.Vector.from_coo(idx, True, size=n, device="gpu")
            host, full = {}, {}
            for _ in range(args.repeats):
                for name, blocks in ways:
                    be.PUSH_SCAN_BLOCKS = blocks
                    sync()
                    t = time.perf_counter()
                    w = u.vxm(A, gb.semiring.any_pair, direction="push")
                    t1 = time.perf_counter()
                    sync()
                    t2 = time.perf_counter()
                    host.setdefault(name, []).append(t1 - t)
                    full.setdefault(name, []).append(t2 - t)
                    del w
            be.PUSH_SCAN_BLOCKS = ways[0][1]
            print(f"  push of {size} vertices: " + " ".join(
                f"{k}: host {statistics.median(host[k]) * 1e6:.1f} us, with sync "
                f"{statistics.median(full[k]) * 1e6:.1f} us;" for k, _ in ways), flush=True)


if __name__ == "__main__":
    main()
