"""FGLT (16 orbits, net frequencies) time and peak memory, one fresh process per graph.

    python3 benchmarks/fglt.py                                 # CPU: Kronecker 10 12 14 16 17, 300x300 grid
    python3 benchmarks/fglt.py --scales 10 12 --grids 300 --steps 10 12
    python3 benchmarks/fglt.py --device gpu --scales 14 17 20 --grids 1000

Each graph runs in its own subprocess (``--timeout`` seconds at most): the
graph is generated (``gb.generators.kronecker(scale)``, Graph500 edge factor
16, or ``grid2d(k, k)``), a scale-6 FGLT call loads the compiled kernels, then
``fglt(A)`` is timed (best of ``--repeat``; one run from 10^6 stored entries
up).  Memory: ``peak MiB`` is the process's peak resident set
(``VmHWM``: the interpreter, NumPy/SciPy/numba and the graph included),
``before MiB`` the same high-water mark just before the first FGLT call
(after generating the graph); on the GPU, ``peak MiB`` is what CuPy's memory
pool holds after the timed calls (the pool keeps freed blocks, so it is the
high-water mark of the device memory FGLT used).

Baselines:

* ``C++ s`` / ``C++ MiB``: the FGLT authors' serial C++ (fcdimitr/fglt, built
  with meson) on the same 2-core machine, as measured for issue 15 (hand-written
  here; identical net frequencies); ``ratio`` = our time / C++ time on the
  CPU, the speed-up C++ time / our time (``x``) with ``--device gpu``.
* ``--steps S...``: the two steps this version changed, old against new in
  the same run on Kronecker S (the old ones store A² and extract two adjacency
  rows per edge: keep S <= 12 on a small machine): sigma12 (A² stored and
  reduced vs ``mxm_reduce``) and sigma15 (per-edge rows vs the oriented
  4-clique kernel); both must agree.
"""
import argparse
import json
import os
import subprocess
import sys
import time

# the authors' serial C++ on the 2-core machine (issue 15): seconds, MiB
CPP = {"kronecker(10)": (0.021, None), "kronecker(12)": (0.23, None),
       "kronecker(14)": (2.6, 15), "kronecker(16)": (25.0, 51), "kronecker(17)": (108.0, 100),
       "grid2d(300, 300)": (0.021, None)}


def make(spec, device):
    import graphblast_py as gb
    kind, k = spec.split(":")
    if kind == "kron":
        return f"kronecker({k})", gb.generators.kronecker(int(k), device=device)
    return f"grid2d({k}, {k})", gb.generators.grid2d(int(k), int(k), device=device)


def _hwm():
    """This process's peak resident set in MiB (VmHWM: reset at exec, unlike
    ru_maxrss, which keeps the parent's high-water mark across fork + exec)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def child(spec, device, repeat):
    """Run one graph; print one JSON line."""
    import graphblast_py as gb
    from graphblast_py.algorithms import fglt
    name, A = make(spec, device)
    fglt(gb.generators.kronecker(6, device=device))           # load / compile the kernels
    before = _hwm()
    pool = None
    if device == "gpu":
        import cupy
        pool = cupy.get_default_memory_pool()
        gb.device.synchronize(device)
        pool.free_all_blocks()
    reps = repeat if A.nvals < 10**6 else 1
    times = []
    for _ in range(reps):
        gb.device.synchronize(device)
        t = time.perf_counter()
        F = fglt(A)
        gb.device.synchronize(device)
        times.append(time.perf_counter() - t)
        del F
    peak = _hwm()
    if pool is not None:
        peak = pool.total_bytes() / 2**20
    print(json.dumps({"graph": name, "n": A.nrows, "nvals": A.nvals, "time": min(times),
                      "peak": peak, "before": before}))


def old_sigma12(P):
    import graphblast_py as gb
    W = P.mxm(P, gb.semiring.plus_pair).select("offdiag")
    return W.ewise_mult(W.apply(gb.binary.minus, right=1), gb.binary.times).reduce_rowwise() \
        .apply(gb.binary.div, right=2)


def old_sigma15(P):
    """The previous 4-clique count: per upper edge (r, c) the row
    P(r, :) ∘ P(c, :), masked product with P, reduced."""
    import graphblast_py as gb
    r, c, _ = P.select("triu", 1).to_coo()
    T = P.extract(r, None).ewise_mult(P.extract(c, None), gb.binary.pair)
    k4 = T.mxm(P, gb.semiring.plus_pair, mask=T.S).reduce_rowwise(gb.monoid.plus)
    K4 = gb.Matrix.from_coo(r, c, k4.to_dense(fill=0), P.nrows, P.ncols, dtype="int64")
    return K4.ewise_add(K4.T, gb.binary.plus).reduce_rowwise(gb.monoid.plus) \
        .apply(gb.binary.div, right=6)


def steps(scale):
    """sigma12 and sigma15, old vs new, same process."""
    import graphblast_py as gb
    from graphblast_py.algorithms.fglt import CHOOSE2
    from graphblast_py.graphlets import four_cliques_per_vertex, simple_pattern
    P = simple_pattern(gb.generators.kronecker(scale), "benchmark")

    def new_sigma12(P):
        d = P.reduce_rowwise(gb.monoid.plus)
        s3 = d.ewise_mult(d.apply(gb.binary.minus, right=1), gb.binary.times) \
            .apply(gb.binary.div, right=2)
        return P.mxm_reduce(P, gb.semiring.plus_pair, apply=CHOOSE2) \
            .ewise_union(s3, gb.binary.minus, 0, 0)

    small = simple_pattern(gb.generators.kronecker(6), "warm-up")
    for name, old, new in (("sigma12", old_sigma12, new_sigma12),
                           ("sigma15", old_sigma15, four_cliques_per_vertex)):
        old(small), new(small)                                # load the kernels
        t = time.perf_counter()
        a = old(P)
        t_old = time.perf_counter() - t
        t = time.perf_counter()
        b = new(P)
        t_new = time.perf_counter() - t
        same = (a.to_dense(fill=0) == b.to_dense(fill=0)).all()
        print(f"kronecker({scale}) {name}: old {t_old:8.3f} s  new {t_new:8.3f} s  "
              f"old/new {t_old / t_new:7.1f}x  equal: {bool(same)}", flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--device", default="cpu", choices=("cpu", "gpu"))
    p.add_argument("--scales", type=int, nargs="*", default=None,
                   help="Kronecker scales (default 10 12 14 16 17)")
    p.add_argument("--grids", type=int, nargs="*", default=None,
                   help="k for k x k grids (default 300)")
    p.add_argument("--steps", type=int, nargs="*", default=[],
                   help="Kronecker scales for the old-vs-new step comparison (CPU)")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--timeout", type=float, default=1800, help="seconds per graph")
    p.add_argument("--child", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        return child(args.child, args.device, args.repeat)
    scales = [10, 12, 14, 16, 17] if args.scales is None else args.scales
    grids = [300] if args.grids is None else args.grids
    for s in args.steps:
        steps(s)
    print(f"device {args.device}, NUMBA_NUM_THREADS={os.environ.get('NUMBA_NUM_THREADS', 'all')}"
          f", {os.cpu_count()} CPUs")
    print(f"{'graph':<18} {'n':>9} {'nvals':>11} {'time s':>9} {'peak MiB':>9} "
          f"{'before MiB':>10} {'C++ s':>7} {'ratio':>7} {'C++ MiB':>7}", flush=True)
    here = os.path.abspath(__file__)
    for spec in [f"kron:{s}" for s in scales] + [f"grid:{k}" for k in grids]:
        cmd = [sys.executable, here, "--child", spec, "--device", args.device,
               "--repeat", str(args.repeat)]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
        except subprocess.TimeoutExpired:
            print(f"{spec:<18} timed out after {args.timeout:.0f} s", flush=True)
            continue
        line = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
        if r.returncode or not line.startswith("{"):
            err = (r.stderr.strip().splitlines() or ["?"])[-1]
            print(f"{spec:<18} failed (exit {r.returncode}): {err}", flush=True)
            continue
        o = json.loads(line)
        cpp_t, cpp_m = CPP.get(o["graph"], (None, None))
        ratio = f"{o['time'] / cpp_t:7.2f}" if cpp_t and args.device == "cpu" else \
            (f"{cpp_t / o['time']:6.1f}x" if cpp_t else "      -")
        print(f"{o['graph']:<18} {o['n']:>9} {o['nvals']:>11} {o['time']:>9.3f} "
              f"{o['peak']:>9.0f} {o['before']:>10.0f} "
              f"{cpp_t if cpp_t is not None else '-':>7} {ratio:>7} "
              f"{cpp_m if cpp_m is not None else '-':>7}", flush=True)


if __name__ == "__main__":
    main()
