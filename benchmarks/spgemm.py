"""SpGEMM on the CPU: generic ESC (expand, sort, reduce) vs the numba Gustavson
kernel vs SciPy, on Kronecker graphs.

    python3 benchmarks/spgemm.py [--no-esc] [scales ...]      (default: 12 13 14)

Cases (A: Kronecker graph, edge factor 16, float64 values 1.0):
* ``A·A``       plus_times, no mask (SciPy: ``A @ A``; its rows come out
                unsorted, so ``A·A+sort`` also times SciPy's ``sort_indices``);
* ``A·A<A>``    plus_pair, structural mask A (SciPy has no masked product:
                ``(A @ A).multiply(A)``);
* ``L·U<L>``    plus_pair, triangle counting's product (L, U: strict lower and
                upper triangles; SciPy: ``(L @ U).multiply(L)``);
* ``A·A<~A>``   plus_pair, complemented mask: two hops but not one (SciPy:
                ``C - C.multiply(A)`` with ``C = A @ A``);
* ``F·A<~P>``   plus_first, complemented mask: betweenness' forward step
                (F = 256 rows of A, the frontier after one level; P = F plus
                the sources).

Columns (seconds, best of ``REPEAT`` runs after a warm-up call, so numba has
compiled or loaded its cache; SciPy: best of 2): ``esc`` =
``ArrayBackend.spgemm`` (the generic path) on the CPU backend, one run (not
repeated for ``A·A+sort``); ``gustavson`` = the kernel alone (CSR
out); ``mxm`` = the whole operation ``A.mxm(..., method="saxpy")`` with its
output rule; ``dot`` = ``method="dot"`` (masked dot products; non-complemented
masks only) and ``auto`` = what ``method="auto"`` picks; ``scipy``.
Threads: numba's default (all cores); SciPy and the ESC path run on one.
"""
import sys
import time

import numpy as np
import scipy.sparse as sp

import graphblast_py as gb
from graphblast_py.backend.generic import ArrayBackend

REPEAT = 3
RUN_ESC = "--no-esc" not in sys.argv
ESC_MAX_FLOPS = 2e8       # skip the generic path beyond this (memory: ~50 bytes per product)


def best(f, repeat=REPEAT):
    f()
    ts = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t)
    return min(ts)


def once(f):
    t = time.perf_counter()
    f()
    return time.perf_counter() - t


def flops(A, B):
    ip, ix, _ = A._csr(False)
    bp, _, _ = B._csr(False)
    blen = np.diff(bp.astype(np.int64))
    return int(blen[ix.astype(np.int64)].sum())


def case(name, A, B, sr, mask, scipy_fn, esc=True):
    be = A._be
    out_dtype = sr.out_dtype(A.dtype, B.dtype)
    ra, rb = A._csr(sr.mult.reads_x), B._csr(sr.mult.reads_y)
    mk = None if mask is None else (mask.keys(), mask.complement)
    mcsr = None if mask is None else mask.parent._csr(False)[:2]
    shape = (A.nrows, B.ncols)
    fl = flops(A, B)
    T = be.spgemm_result(ra, rb, sr, mk, out_dtype, shape, mcsr)
    nnz = T[2].shape[0]
    t_gus = best(lambda: be.spgemm_result(ra, rb, sr, mk, out_dtype, shape, mcsr))
    t_mxm = best(lambda: A.mxm(B, sr, mask=mask, method="saxpy"))
    if mask is not None and not mask.complement:
        t_dot = f"{best(lambda: A.mxm(B, sr, mask=mask, method='dot')):8.4f}"
        A.mxm(B, sr, mask=mask)
        auto = gb.stats.last("mxm")
    else:
        t_dot, auto = f"{'-':>8s}", "saxpy"
    if esc and RUN_ESC and fl <= ESC_MAX_FLOPS:
        t_esc = once(lambda: ArrayBackend.spgemm(be, ra, rb, sr, mk, out_dtype, shape))
    else:
        t_esc = float("nan")
    t_sp = best(scipy_fn, 2)
    print(f"{name:9s} {fl / 1e6:8.1f}M {nnz / 1e6:7.2f}M {t_esc:8.3f} {t_gus:9.4f} {t_mxm:8.4f} "
          f"{t_dot} {auto:>6s} {t_sp:8.4f}  esc/gus {t_esc / t_gus:5.0f}x  scipy/gus "
          f"{t_sp / t_gus:5.1f}x", flush=True)


def main(scales):
    import numba
    print(f"numba threads: {numba.get_num_threads()}  (best of {REPEAT}; seconds)")
    print(f"{'case':9s} {'products':>9s} {'nnz(C)':>8s} {'esc':>8s} {'gustavson':>9s} "
          f"{'mxm':>8s} {'dot':>8s} {'auto':>6s} {'scipy':>8s}")
    for scale in scales:
        A = gb.generators.kronecker(scale, 16, seed=1, dtype=np.float64, device="cpu")
        S = A.to_scipy().tocsr()
        print(f"-- kronecker scale {scale}: n = {A.nrows}, nnz(A) = {A.nvals}", flush=True)

        def sp_sorted():
            C = S @ S
            C.sort_indices()
        case("A·A", A, A, gb.semiring.plus_times, None, lambda: S @ S)
        case("A·A+sort", A, A, gb.semiring.plus_times, None, sp_sorted, esc=False)
        case("A·A<A>", A, A, gb.semiring.plus_pair, A.S, lambda: (S @ S).multiply(S))
        L, U = A.select("tril", -1), A.select("triu", 1)
        Ls, Us = sp.tril(S, -1).tocsr(), sp.triu(S, 1).tocsr()
        case("L·U<L>", L, U, gb.semiring.plus_pair, L.S, lambda: (Ls @ Us).multiply(Ls))
        case("A·A<~A>", A, A, gb.semiring.plus_pair, ~A.S,
             lambda: (lambda C: C - C.multiply(S))(S @ S))
        rng = np.random.default_rng(7)
        ns = min(256, A.nrows // 2)
        src = np.sort(rng.choice(A.nrows, ns, replace=False))
        Fs = S[src]
        Ps = (Fs + sp.csr_matrix((np.ones(ns), (np.arange(ns), src)),
                                 shape=(ns, A.nrows))).tocsr()
        F = gb.Matrix.from_scipy(Fs, device="cpu")
        P = gb.Matrix.from_scipy(Ps, device="cpu")
        case("F·A<~P>", F, A, gb.semiring.plus_first, ~P.S,
             lambda: (lambda C: C - C.multiply(Ps))(Fs @ S))


if __name__ == "__main__":
    main([int(s) for s in sys.argv[1:] if s != "--no-esc"] or [12, 13, 14])
