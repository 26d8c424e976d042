"""Triangle counting on the GPU, piece by piece: the degree ordering, the
fused masked count (``mxm_reduce(L, L.T, plus_pair, mask=L.S)``) and the
raw ``dot_masked_rows`` kernel with binary searches from a length ratio
of 8, 16 or 32 (``kernels.DOT_GALLOP``), against the hand-written count of
``cupy_baselines.py`` (its orientation, and its per-edge kernel alone on the
same L).  Every count is checked equal to the baseline's.

    python3 benchmarks/tc_dot.py --scales 18 20 22 [--repeats 7]
"""
import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scales", type=int, nargs="*", default=[18, 20, 22])
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()

    import cupy as cp
    import cupy_baselines as cb
    import graphblast_py as gb
    from graphblast_py import semiring
    from graphblast_py.algorithms import triangle_count
    from graphblast_py.algorithms.triangle_count import degree_ordered
    from graphblast_py.backend.gpu import kernels as K

    gb.set_device("gpu")
    props = cp.cuda.runtime.getDeviceProperties(0)
    name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    print(f"device: {name}  (cupy {cp.__version__})")

    def timed(fn):
        out = fn()
        cp.cuda.Device().synchronize()
        ts = []
        for _ in range(args.repeats):
            cp.cuda.Device().synchronize()
            t = time.perf_counter()
            out = fn()
            cp.cuda.Device().synchronize()
            ts.append(time.perf_counter() - t)
        return statistics.median(ts) * 1e3, out

    for s in args.scales:
        A = gb.generators.kronecker(s, seed=args.seed, device="gpu")
        S = A.to_scipy()
        S.sum_duplicates()
        ip, ix = S.indptr, S.indices
        t_base, want = timed(lambda: cb.triangle_count(ip, ix))
        t_all, got = timed(lambda: triangle_count(A))
        t_ord, L = timed(lambda: degree_ordered(A))
        t_red, w = timed(lambda: L.mxm_reduce(L.T, semiring.plus_pair, mask=L.S))
        print(f"kron{s}: n={A.nrows} nnz={A.nvals} L={L.nvals} triangles={want}")
        print(f"  baseline (orient + count)        {t_base:9.3f} ms")
        print(f"  triangle_count                   {t_all:9.3f} ms  ({t_all / t_base:.2f}x)"
              f"  {'ok' if got == want else 'FAIL %d' % got}")
        print(f"    degree_ordered                 {t_ord:9.3f} ms")
        print(f"    mxm_reduce                     {t_red:9.3f} ms"
              f"  {'ok' if int(w.reduce(gb.monoid.plus)) == want else 'FAIL'}")

        # degree_ordered's steps (the same calls as algorithms/triangle_count.py)
        from graphblast_py import binary, dtypes, indexunary
        n_ = A.nrows
        ones = gb.Vector(dtypes.INT64, n_, device="gpu")
        ones.assign(1)
        def degrees():
            d = gb.Vector(dtypes.INT64, n_, device="gpu")
            d.assign(0)
            A.mxv(ones, semiring.plus_pair, accum=binary.plus, out=d)
            return d
        t1, deg = timed(degrees)
        t2, key = timed(lambda: deg.apply(binary.times, right=n_).ewise_mult(
            deg.apply(indexunary.rowindex), binary.plus))
        t3, Kd = timed(lambda: gb.Matrix.from_diag(key))
        t4, ki = timed(lambda: Kd.mxm(A, semiring.any_first))
        anym = gb.Semiring(gb.monoid.any, binary.minus)
        t5, diff = timed(lambda: ki.mxm(Kd, anym))
        t6, _ = timed(lambda: diff.select("valuelt", 0))
        for what, t in (("deg = A 1", t1), ("key", t2), ("from_diag", t3), ("K A", t4),
                        ("(K A) K", t5), ("select", t6)):
            print(f"      {what:<29}{t:9.3f} ms")
        # mxm_reduce's own steps: the cost model (method="auto") and the mask's keys
        from graphblast_py.operations import mxm as mxm_op
        t_ch, how = timed(lambda: mxm_op._choose(L, L.T, L.S, mxm_op.SAXPY_FLOP_COST))
        ip_, ix_, _ = L._csr(False)
        t_keys, _ = timed(lambda: L._be.csr_to_keys(ip_, ix_, L.ncols))   # (no longer built)
        t_dot, _ = timed(lambda: L.mxm_reduce(L.T, semiring.plus_pair, mask=L.S, method="dot"))
        t_rp, _ = timed(lambda: L.T._row_ptr())
        print(f"      its cost model ({how})       {t_ch:9.3f} ms")
        print(f"        L.T's row lengths          {t_rp:9.3f} ms")
        print(f"      (the mask's keys, if built   {t_keys:9.3f} ms)")
        print(f"      mxm_reduce(method='dot')     {t_dot:9.3f} ms")
        Ls = L.to_scipy()
        Lp = Ls.indptr.astype(cp.int64)
        Lj = Ls.indices.astype(cp.int32)
        mL = int(Lj.size)
        Lr = cp.searchsorted(Lp[1:], cp.arange(mL, dtype=cp.int64), side="right").astype(cp.int32)
        mod = cb._module(Lp.dtype, Lj.dtype)
        total = cp.zeros(1, dtype=cp.uint64)

        def base_count():
            total.fill(0)
            mod.get_function("tc_count")(cb._blocks(mL), (cb.BLOCK,),
                                         (np.int64(mL), Lr, Lj, Lp, total))
            return int(total[0])
        t_k, got = timed(base_count)
        print(f"    baseline tc_count on L         {t_k:9.3f} ms  {'ok' if got == want else 'FAIL'}")

        keys = Lr.astype(cp.int64) * A.ncols + Lj
        dummy = cp.zeros(1, dtype=np.bool_)
        n = A.nrows
        for gallop in (8, 16, 32):
            src = K.dot_rows_source(semiring.plus_pair, np.bool_, np.bool_, np.int64,
                                    Lp.dtype, Lj.dtype, Lp.dtype, Lj.dtype, gallop=gallop)
            fn = cp.RawModule(code=src).get_function("dot_masked_rows")
            outv = cp.zeros(n, dtype=cp.int64)
            outp = cp.zeros(n, dtype=cp.bool_)

            def run():
                outv.fill(0)
                outp.fill(False)
                fn(((mL + K.BLOCK - 1) // K.BLOCK,), (K.BLOCK,),
                   (Lp, Lj, dummy, np.int32(0), Lp, Lj, dummy, np.int32(0), keys,
                    np.int64(mL), np.int64(A.ncols), outv, outp))
                return int(outv.sum())
            t_v, got = timed(run)
            print(f"    dot_masked_rows gallop {gallop:2d}      {t_v:9.3f} ms"
                  f"  ({t_v / t_k:.2f}x tc_count)  {'ok' if got == want else 'FAIL'}")
        del A, S, L, Ls, Lp, Lj, Lr, keys
        cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
