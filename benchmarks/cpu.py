"""CPU speed against SuiteSparse:GraphBLAS (python-graphblas) and SciPy on the
same cores, measured in the same run (issue 15).  Prints ms and the ratio
ours / baseline (below 1: faster than the baseline).

* Kronecker graphs (``--kron``): BFS (levels, from the highest-degree vertex;
  the baseline is the same one-vxm-per-level loop in python-graphblas, with
  SciPy's breadth_first_order beside it), triangle count (python-graphblas:
  the masked plus_pair L L' product and a reduce) and one PageRank SpMV
  (``w A`` over plus_times on a dense w; python-graphblas's vxm, SciPy's
  ``A.T @ w``).
* Grids (``--grids``): BFS, SSSP (unit weights; also with round speculation
  switched off) and connected components against SciPy's csgraph
  (breadth_first_order, dijkstra, connected_components).
* ``--levels``: per BFS level, push and pull forced, and what ``auto``
  chooses (the calibration of the CPU's direction cost model).

numba's threads via numba.set_num_threads, SuiteSparse's via
graphblas.ss.config['nthreads']; SciPy is single-threaded.

    python3 benchmarks/cpu.py --threads 1 2 [--kron 16 18] [--grids 300 1000]
                              [--repeats 5] [--levels]
"""
import argparse
import time

import numpy as np
import scipy.sparse.csgraph as csgraph

import graphblast_py as gb
from bfs import timed  # the median of repeats after a warm-up (benchmarks/bfs.py)
from graphblast_py import dtypes, semiring




def set_threads(t):
    import graphblas
    import numba
    numba.set_num_threads(t)
    graphblas.ss.config["nthreads"] = t


def to_graphblas(S):
    import graphblas
    S = S.tocsr()
    return graphblas.Matrix.ss.import_csr(
        nrows=S.shape[0], ncols=S.shape[1], indptr=S.indptr.astype(np.uint64),
        col_indices=S.indices.astype(np.uint64), values=np.ones(S.nnz, dtype=bool), take_ownership=True)


def ss_bfs(G, source):
    import graphblas
    n = G.nrows
    v = graphblas.Vector(graphblas.dtypes.INT64, n)
    q = graphblas.Vector(graphblas.dtypes.BOOL, n)
    q[source] = True
    d = 0
    while q.nvals:
        v(q.S) << d
        q(~v.S, replace=True) << q.vxm(G, graphblas.semiring.any_pair)
        d += 1
    return v


def ss_tc(G):
    import graphblas
    L = graphblas.select.tril(G, -1).new(dtype=graphblas.dtypes.INT64)
    C = L.mxm(L.T, graphblas.semiring.plus_pair).new(mask=L.S)
    return C.reduce_scalar(graphblas.monoid.plus).value


def row(what, t, refs):
    cells = " ".join(f"{name} {tr * 1e3:8.2f} ms ({t / tr:5.2f}x)" for name, tr in refs)
    print(f"  {what:<22} {t * 1e3:9.2f} ms   vs {cells}")


def kron_rows(scale, repeats):
    import graphblas
    A = gb.generators.kronecker(scale, seed=1)
    S = A.to_scipy().tocsr()
    G = to_graphblas(S)
    src = int(np.argmax(np.diff(S.indptr)))
    print(f" kron:{scale} n={A.nrows} nnz={A.nvals}")
    ref = csgraph.breadth_first_order(S, src, directed=True, return_predecessors=False)
    lv = gb.algorithms.bfs(A, src)
    if lv.nvals != ref.shape[0] or ss_bfs(G, src).nvals != ref.shape[0]:
        raise SystemExit("BFS: reached sets differ")
    t_ss = timed(lambda: ss_bfs(G, src), repeats)
    t_sp = timed(lambda: csgraph.breadth_first_order(S, src, directed=True,
                                                    return_predecessors=False), repeats)
    for d in ("auto", "push", "pull"):
        t = timed(lambda d=d: _bfs_direction(A, src, d), repeats)
        row(f"BFS loop {d}", t, [("SuiteSparse", t_ss), ("SciPy", t_sp)])
    row("gb.algorithms.bfs", timed(lambda: gb.algorithms.bfs(A, src), repeats),
        [("SuiteSparse", t_ss), ("SciPy", t_sp)])
    if gb.algorithms.triangle_count(A) != ss_tc(G):
        raise SystemExit("triangle count differs")
    t_ss = timed(lambda: ss_tc(G), repeats)
    row("triangle count", timed(lambda: gb.algorithms.triangle_count(A), repeats),
        [("SuiteSparse", t_ss)])
    Af = A.dup(dtypes.FP64)
    wv = np.random.default_rng(0).random(A.nrows)
    w = gb.Vector.from_dense(wv)
    Gf = graphblas.Matrix.ss.import_csr(
        nrows=S.shape[0], ncols=S.shape[1], indptr=S.indptr.astype(np.uint64),
        col_indices=S.indices.astype(np.uint64), values=np.ones(S.nnz), take_ownership=True)
    gw = graphblas.Vector.from_dense(wv)
    Sf = S.astype(np.float64)
    ST = Sf.T.tocsr()
    ours = w.vxm(Af, semiring.plus_times).to_dense()
    if not np.allclose(ours, ST @ wv):
        raise SystemExit("PageRank SpMV differs")
    t_ss = timed(lambda: gw.vxm(Gf, graphblas.semiring.plus_times).new(), repeats)
    t_sp = timed(lambda: ST @ wv, repeats)
    row("PageRank SpMV (iso A)", timed(lambda: w.vxm(A, semiring.plus_times), repeats),
        [("SuiteSparse", t_ss), ("SciPy", t_sp)])
    row("PageRank SpMV (fp64 A)", timed(lambda: w.vxm(Af, semiring.plus_times), repeats),
        [("SuiteSparse", t_ss), ("SciPy", t_sp)])


def _bfs_direction(A, source, direction):
    n = A.nrows
    levels = gb.Vector(dtypes.INT64, n)
    frontier = gb.Vector.from_coo([source], source, size=n, dtype=dtypes.INT64)
    depth = 0
    while frontier.nvals:
        levels.assign(depth, mask=frontier.S)
        frontier.vxm(A, semiring.any_pair, mask=~levels.S, replace=True, out=frontier,
                     pull_input=levels, direction=direction)
        depth += 1
    return levels


def grid_rows(k, repeats):
    A = gb.generators.grid2d(k, k)
    S = A.to_scipy().tocsr()
    W = A.dup(dtypes.FP64)
    Sw = S.astype(np.float64)
    print(f" grid:{k} n={A.nrows} nnz={A.nvals}")
    ref = csgraph.breadth_first_order(S, 0, directed=True, return_predecessors=False)
    if gb.algorithms.bfs(A, 0).nvals != ref.shape[0]:
        raise SystemExit("BFS differs")
    t_sp = timed(lambda: csgraph.breadth_first_order(S, 0, directed=True,
                                                    return_predecessors=False), repeats)
    row("BFS", timed(lambda: gb.algorithms.bfs(A, 0), repeats), [("SciPy", t_sp)])
    ref = csgraph.dijkstra(Sw, directed=True, indices=0)
    if not np.allclose(gb.algorithms.sssp(W, 0).to_dense(), ref):
        raise SystemExit("SSSP differs")
    t_sp = timed(lambda: csgraph.dijkstra(Sw, directed=True, indices=0), repeats)
    row("SSSP", timed(lambda: gb.algorithms.sssp(W, 0), repeats), [("SciPy", t_sp)])
    be = gb.backend.get("cpu")
    if be.relax:                   # the same without round speculation (docs/operations.md)
        be.relax = False
        try:
            row("SSSP, relax off", timed(lambda: gb.algorithms.sssp(W, 0), repeats),
                [("SciPy", t_sp)])
        finally:
            be.relax = True
    t_sp = timed(lambda: csgraph.connected_components(S, directed=False), repeats)
    row("connected components", timed(lambda: gb.algorithms.connected_components(A), repeats),
        [("SciPy", t_sp)])


def level_rows(spec, repeats, sync=lambda: None):
    """Per BFS level: push and pull forced, and auto's choice (``sync``
    waits for the device around each timed step; benchmarks/direction.py
    runs this on the GPU)."""
    from graphblast_py.operations import mxv
    kind, size = spec.split(":")
    A = (gb.generators.kronecker(int(size), seed=1) if kind == "kron"
         else gb.generators.grid2d(int(size), int(size)))
    S = A.to("cpu").to_scipy().tocsr()
    src = int(np.argmax(np.diff(S.indptr))) if kind == "kron" else 0
    n = A.nrows

    def run(direction):
        levels = gb.Vector(dtypes.INT64, n)
        frontier = gb.Vector.from_coo([src], src, size=n, dtype=dtypes.INT64)
        out, d = [], 0
        while frontier.nvals:
            levels.assign(d, mask=frontier.S)
            pick = mxv._choose(A, frontier, ~levels.S, semiring.any_pair, n, n)
            sync()
            t = time.perf_counter()
            frontier.vxm(A, semiring.any_pair, mask=~levels.S, replace=True, out=frontier,
                         pull_input=levels, direction=direction)
            sync()
            out.append((pick, time.perf_counter() - t))
            d += 1
        return out
    best = {}
    for direction in ("push", "pull", "auto"):
        runs = [run(direction) for _ in range(repeats + 1)][1:]
        best[direction] = [min(r[i][1] for r in runs) for i in range(len(runs[0]))]
        picks = [p for p, _ in runs[0]]
    tot = {d: sum(v) * 1e3 for d, v in best.items()}
    print(f" {spec}: {len(picks)} levels; total push {tot['push']:.2f} pull {tot['pull']:.2f} "
          f"auto {tot['auto']:.2f} ms (auto / best forced "
          f"{tot['auto'] / min(tot['push'], tot['pull']):.2f})")
    for d in ("push", "pull"):
        at = [i for i, p in enumerate(picks) if p == d]
        if at:
            print(f"   auto chose {d} at {len(at)} levels: there push "
                  f"{sum(best['push'][i] for i in at) * 1e3:.2f}, pull "
                  f"{sum(best['pull'][i] for i in at) * 1e3:.2f}, auto "
                  f"{sum(best['auto'][i] for i in at) * 1e3:.2f} ms")
    if len(picks) <= 12:
        for i, p in enumerate(picks):
            print(f"   level {i}: push {best['push'][i] * 1e3:8.3f} pull {best['pull'][i] * 1e3:8.3f}"
                  f" ms, auto chose {p}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--threads", type=int, nargs="+", default=[1])
    p.add_argument("--kron", type=int, nargs="*", default=[16, 18])
    p.add_argument("--grids", type=int, nargs="*", default=[300, 1000])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--levels", action="store_true", help="the per-level direction table only")
    args = p.parse_args()
    gb.set_device("cpu")
    for t in args.threads:
        set_threads(t)
        print(f"threads: {t} (numba and SuiteSparse; SciPy is serial)")
        if args.levels:
            for spec in [f"kron:{s}" for s in args.kron] + [f"grid:{k}" for k in args.grids]:
                level_rows(spec, args.repeats)
            continue
        for scale in args.kron:
            kron_rows(scale, args.repeats)
        for k in args.grids:
            grid_rows(k, args.repeats)


if __name__ == "__main__":
    main()
