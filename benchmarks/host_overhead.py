"""Host (Python-side) cost of one small operation: a masked vxm on a 10-vertex
graph, where the kernel work is negligible, so the time is checks, dispatch
and the output rule.  Prints microseconds per call (median of repeats) for
push, pull and auto, and the same for a cheap baseline (a NumPy call on the
same arrays) measured in the same run; then each call of one PageRank
iteration (algorithms/pagerank.py) on the same graph, and the iteration.

    python3 benchmarks/host_overhead.py [--device cpu|gpu] [--profile]

``--profile``: also run each operation 2000 times under cProfile and print
the functions with the most own time (CuPy's Cython calls count as the own
time of the function that makes them), to find where a call's host time goes.
"""
import argparse
import statistics
import time

import numpy as np

import graphblast_py as gb


def per_call(fn, n=2000, repeats=7):
    for _ in range(200):
        fn()
    sync = gb.device.synchronize
    out = []
    for _ in range(repeats):
        t = time.perf_counter()
        for _ in range(n):
            fn()
        sync()
        out.append((time.perf_counter() - t) / n * 1e6)
    return statistics.median(out)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default=None)
    p.add_argument("--profile", action="store_true")
    args = p.parse_args()
    dev = args.device or gb.get_device()
    n = 10
    A = gb.Matrix.from_coo(np.arange(n), (np.arange(n) + 1) % n, True, n, n, device=dev)
    frontier = gb.Vector.from_coo([0], True, size=n, device=dev)
    visited = gb.Vector.from_coo([0], True, size=n, device=dev)
    out = gb.Vector("bool", n, device=dev)
    sr = gb.semiring.any_pair
    base = np.zeros(n)
    rows = {"numpy baseline (np.add on 10 floats)": per_call(lambda: np.add(base, base))}
    for d in ("push", "pull", "auto"):
        def step(d=d):
            frontier.vxm(A, sr, mask=~visited.S, replace=True, out=out, direction=d)
        rows[f"masked vxm any_pair, {d}"] = per_call(step)
    rows["assign scalar with mask (BFS level update)"] = per_call(
        lambda: out.assign(1, mask=frontier.S))
    # building a one-entry vector from host data (a BFS or SSSP source), and
    # on the GPU the two ways a host value can reach the device: a copy of a
    # one-element host array, and a fill launch with the value as argument
    big = 1 << 18
    rows["Vector.from_coo, one entry (a source)"] = per_call(
        lambda: gb.Vector.from_coo([5], 0, size=big, dtype="int64", device=dev), n=500)
    if dev == "gpu":
        import cupy
        one = np.array([5], dtype=np.int64)
        rows["  cupy.asarray(one-element host array)"] = per_call(lambda: cupy.asarray(one))
        rows["  cupy.full(1, value)"] = per_call(lambda: cupy.full(1, 5, dtype=np.int64))
    # the calls of one PageRank iteration (algorithms/pagerank.py) on the
    # same 10-vertex graph: a full float64 rank and scale vector, a dangling
    # set; each row one call (or the chain the algorithm writes as one line)
    pr = _pagerank_steps(A, n, dev)
    for k, fn in pr.items():
        rows[f"pagerank: {k}"] = per_call(fn, n=1000)
    print(f"device: {dev}")
    for k, v in rows.items():
        print(f"  {k:50s} {v:8.1f} us/call")
    if args.profile:
        import cProfile
        import pstats
        steps = {d: (lambda d=d: frontier.vxm(A, sr, mask=~visited.S, replace=True, out=out,
                                                direction=d)) for d in ("push", "pull")}
        steps["assign"] = lambda: out.assign(1, mask=frontier.S)
        steps["from_coo"] = lambda: gb.Vector.from_coo([5], 0, size=1 << 18, dtype="int64",
                                                       device=dev)
        steps.update({f"pagerank {k}": fn for k, fn in pr.items()})
        for name, fn in steps.items():
            pr = cProfile.Profile()
            pr.enable()
            for _ in range(2000):
                fn()
            pr.disable()
            print(f"\n--- {name}: own time per call, top functions")
            st = pstats.Stats(pr)
            rows = sorted(st.stats.items(), key=lambda kv: -kv[1][2])[:18]
            for (f, line, fname), (cc, nc, tt, ct, _) in rows:
                print(f"  {tt / 2000 * 1e6:7.2f} us  {nc / 2000:5.1f} calls  "
                      f"{f.split('/')[-1]}:{line} {fname}")


def _pagerank_steps(A, n, dev):
    """One PageRank iteration's calls, each as a function (the state they
    read is built once; the results are thrown away)."""
    from graphblast_py import binary, dtypes, monoid, semiring, unary
    Af = A.dup("float64")
    x = gb.Vector.from_dense(np.full(n, 1.0 / n), device=dev)
    scale = gb.Vector.from_dense(np.full(n, 0.85), device=dev)
    dangling = gb.Vector.from_coo([3], True, size=n, device=dev)
    w = x.ewise_mult(scale, binary.times)

    def fresh():
        v = gb.Vector(dtypes.FP64, n, device=dev)
        v.assign(0.015)
        return v

    xnew = fresh()

    def product():
        w.vxm(Af, semiring.plus_times, accum=binary.plus, out=xnew)

    def iteration():
        w = x.ewise_mult(scale, binary.times)
        lost = x.apply(unary.identity, mask=dangling.S).reduce(monoid.plus)
        xn = gb.Vector(dtypes.FP64, n, device=dev)
        xn.assign((0.85 * lost + 0.15) / n)
        w.vxm(Af, semiring.plus_times, accum=binary.plus, out=xn)
        return xn.ewise_mult(x, binary.minus).apply(unary.abs).reduce(monoid.plus)

    return {
        "ewise_mult of two full vectors": lambda: x.ewise_mult(scale, binary.times),
        "masked apply + reduce (dangling mass)":
            lambda: x.apply(unary.identity, mask=dangling.S).reduce(monoid.plus),
        "new vector + scalar assign": fresh,
        "vxm plus_times accumulated into a full vector": product,
        "ewise_mult + apply + reduce (the error)":
            lambda: xnew.ewise_mult(x, binary.minus).apply(unary.abs).reduce(monoid.plus),
        "the whole iteration": iteration,
    }


if __name__ == "__main__":
    main()
