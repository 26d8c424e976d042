"""BFS timing on Graph500 Kronecker graphs: graphblast-py (auto direction,
push only, pull only) against SciPy's csgraph breadth_first_order as the
baseline measured in the same run.  Prints ms, MTEPS and the ratio to SciPy.

    python3 benchmarks/bfs.py --scales 14 16 18 [--device cpu|gpu] [--repeats 5]
"""
import argparse
import statistics
import time

import numpy as np
import scipy.sparse.csgraph as csgraph

import graphblast_py as gb
from graphblast_py import semiring
from graphblast_py.suite.systems import finished


def bfs_levels(A, source, direction):
    level = gb.Vector("int32", A.nrows)
    frontier = gb.Vector.from_coo([source], True, size=A.nrows)
    depth = 0
    while frontier.nvals:
        level.assign(depth, mask=frontier.S)
        frontier.vxm(A, semiring.any_pair, mask=~level.S, replace=True, out=frontier,
                     direction=direction)
        depth += 1
    return level


def timed(fn, repeats, sync=lambda: None):
    """Median seconds of ``fn()`` over ``repeats`` runs after a warm-up; a
    graphblast-py result's pending stores (a speculated BFS's level fills,
    an SSSP's distance copies) are carried out inside the timed region, as
    the peers return finished arrays."""
    fn()
    sync()
    ts = []
    for _ in range(repeats):
        t = time.perf_counter()
        finished(fn())
        sync()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--scales", type=int, nargs="+", default=[12, 14, 16])
    p.add_argument("--device", default=None)
    p.add_argument("--repeats", type=int, default=5)
    args = p.parse_args()
    if args.device:
        gb.set_device(args.device)
    dev = gb.get_device()
    sync = gb.device.synchronize
    name = "CPU"
    if dev == "gpu":
        import cupy
        name = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    print(f"device: {dev} ({name})")
    print(f"{'scale':>5} {'edges':>10} {'system':>22} {'ms':>9} {'MTEPS':>9} {'vs scipy':>9}")
    for scale in args.scales:
        A = gb.generators.kronecker(scale, seed=1)
        S = A.to("cpu").to_scipy()
        deg = np.diff(S.indptr)
        source = int(np.argmax(deg))
        edges = A.nvals
        t_ref = timed(lambda: csgraph.breadth_first_order(S, source, directed=True,
                                                         return_predecessors=False),
                      args.repeats)
        ref = csgraph.breadth_first_order(S, source, directed=True, return_predecessors=False)
        rows = [("scipy csgraph (CPU)", t_ref)]
        for d in ("auto", "push", "pull"):
            lv = bfs_levels(A, source, d)
            if lv.nvals != ref.shape[0]:
                raise SystemExit(f"BFS ({d}) reached {lv.nvals} vertices, scipy {ref.shape[0]}")
            rows.append((f"graphblast-py {d}", timed(lambda d=d: bfs_levels(A, source, d),
                                                     args.repeats, sync)))
        for label, t in rows:
            print(f"{scale:>5} {edges:>10} {label:>22} {t * 1e3:9.2f} {edges / t / 1e6:9.1f} "
                  f"{t / t_ref:9.2f}")


if __name__ == "__main__":
    main()
