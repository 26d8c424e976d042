"""Where an algorithm's time goes, operation by operation: every public
Matrix/Vector method (and the property ``nvals``) is wrapped so that each
call synchronises the device before and after and adds its wall time to a
table; calls made from inside another wrapped call count once, in the
outer one.  Synchronising per call removes the overlap of host and device
work, so the total is above the algorithm's plain time (both are printed);
what the table shows is which operations carry the time.

    python3 benchmarks/op_profile.py --algorithms cc sssp bfs --scale 18 [--device gpu]
                                     [--cprofile]

``--cprofile``: also run each algorithm once more under cProfile (no syncs
added) and print the functions with the most own time -- the host side
(CuPy's Cython calls count as the own time of the function that makes them).

``--trace``: also run each algorithm once more with no syncs added and print
its calls in order: when each started and how long the host spent in it
(us from the start), then when the device finished -- a call that waits on
the device shows the wait as its host time.
"""
import argparse
import time
from collections import defaultdict

import numpy as np

import graphblast_py as gb
from graphblast_py import algorithms as alg

ALGS = {
    "bfs": lambda A, W, s: alg.bfs(A, s),
    "bfs-parents": lambda A, W, s: alg.bfs(A, s, parents=True),
    "sssp": lambda A, W, s: alg.sssp(W, s),
    "cc": lambda A, W, s: alg.connected_components(A),
    "pagerank": lambda A, W, s: alg.pagerank(A),
    "tc": lambda A, W, s: alg.triangle_count(A),
    "fglt": lambda A, W, s: alg.fglt(A),
}


class Profile:
    def __init__(self, sync):
        self.sync = sync
        self.time = defaultdict(float)
        self.calls = defaultdict(int)
        self.depth = 0
        self.saved = []

    def _wrap(self, cls, name, fn):
        prof = self

        def wrapped(*args, **kwargs):
            if prof.depth:
                return fn(*args, **kwargs)
            prof.sync()
            prof.depth += 1
            t = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                prof.sync()
                prof.record(f"{cls.__name__}.{name}", t, time.perf_counter())
                prof.depth -= 1
        return wrapped

    def record(self, op, start, end):
        self.time[op] += end - start
        self.calls[op] += 1

    def install(self):
        for cls in (gb.Matrix, gb.Vector):
            for name, attr in list(vars(cls).items()):
                if name.startswith("__"):
                    continue
                if isinstance(attr, property) and name == "nvals":
                    self.saved.append((cls, name, attr))
                    setattr(cls, name, property(self._wrap(cls, name, attr.fget)))
                elif (callable(attr) or isinstance(attr, (staticmethod, classmethod))) \
                        and not name.startswith("_"):
                    self.saved.append((cls, name, attr))
                    raw = attr.__func__ if isinstance(attr, (staticmethod, classmethod)) else attr
                    w = self._wrap(cls, name, raw)
                    if isinstance(attr, staticmethod):
                        w = staticmethod(w)
                    elif isinstance(attr, classmethod):
                        w = classmethod(w)
                    setattr(cls, name, w)

    def remove(self):
        for cls, name, attr in reversed(self.saved):
            setattr(cls, name, attr)
        self.saved.clear()


class Trace(Profile):
    """The outermost calls in order, (name, start, end) host times, no
    syncs."""

    def __init__(self):
        super().__init__(lambda: None)
        self.events = []

    def record(self, op, start, end):
        self.events.append((op, start, end))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--algorithms", nargs="+", default=["cc", "sssp"], choices=sorted(ALGS))
    p.add_argument("--scale", type=int, default=16)
    p.add_argument("--grid", type=int, default=None, help="a grid of this side instead")
    p.add_argument("--device", default=None)
    p.add_argument("--top", type=int, default=12)
    p.add_argument("--cprofile", action="store_true")
    p.add_argument("--trace", action="store_true")
    args = p.parse_args()
    if args.device:
        gb.set_device(args.device)
    sync = gb.device.synchronize
    if args.grid:
        A = gb.generators.grid2d(args.grid, args.grid)
        W = gb.generators.grid2d(args.grid, args.grid, dtype=float)
        graph = f"grid {args.grid}^2"
    else:
        A = gb.generators.kronecker(args.scale, seed=1)
        W = gb.generators.kronecker(args.scale, seed=1, dtype=float)   # SSSP: unit weights
        graph = f"Kronecker {args.scale}"
    src = int(np.argmax(np.diff(A.to("cpu").to_scipy().indptr)))   # a hub: a long run
    print(f"device {gb.get_device()}, {graph}: n={A.nrows} nnz={A.nvals}, source {src}")
    for name in args.algorithms:
        run = ALGS[name]
        run(A, W, src)
        sync()
        t = time.perf_counter()
        run(A, W, src)
        sync()
        plain = time.perf_counter() - t
        prof = Profile(sync)
        gb.stats.reset()
        prof.install()
        try:
            t = time.perf_counter()
            run(A, W, src)
            total = time.perf_counter() - t
        finally:
            prof.remove()
        print(f"\n{name}: {plain * 1e3:.1f} ms plain, {total * 1e3:.1f} ms with a sync per call")
        print("  choices:", ", ".join(f"{k} {v}" for k, v in gb.stats()["counts"].items()))
        rows = sorted(prof.time.items(), key=lambda kv: -kv[1])[:args.top]
        for op, s in rows:
            print(f"  {op:<28} {s * 1e3:9.2f} ms  {prof.calls[op]:6d} calls "
                  f"{s / prof.calls[op] * 1e6:9.1f} µs/call")
        if args.trace:
            tr = Trace()
            tr.install()
            try:
                t0 = time.perf_counter()
                run(A, W, src)
                host = time.perf_counter() - t0
                sync()
                done = time.perf_counter() - t0
            finally:
                tr.remove()
            print(f"  trace (us from the start; host time of each call): host returned at "
                  f"{host * 1e6:.0f}, device finished at {done * 1e6:.0f}")
            for i, (op, a, b) in enumerate(tr.events):
                if i < 40 or i >= len(tr.events) - 5:
                    print(f"    {(a - t0) * 1e6:9.1f} {(b - a) * 1e6:8.1f}  {op}")
                elif i == 40:
                    print(f"    ... ({len(tr.events) - 45} calls)")
        if args.cprofile:
            import cProfile
            import pstats
            pr = cProfile.Profile()
            pr.enable()
            run(A, W, src)
            sync()
            pr.disable()
            print(f"  host side (cProfile), own time:")
            st = pstats.Stats(pr)
            for (f, line, fname), (cc, nc, tt, ct, _) in sorted(
                    st.stats.items(), key=lambda kv: -kv[1][2])[:25]:
                print(f"    {tt * 1e3:8.3f} ms {nc:6d} calls  {f.split('/')[-1]}:{line} {fname}")


if __name__ == "__main__":
    main()
