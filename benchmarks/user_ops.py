"""User-defined operators against the built-in ones on the CPU, in the same run.

For each case the same operation runs twice on a Graph500 Kronecker graph:
once with predefined operators (``semiring.plus_times``, ``binary.plus`` ...)
and once with user operators registered to mean the same thing
(``BinaryOp.register("myplus", lambda x, y: x + y)`` ...).  Prints the median
time of each and the ratio user / built-in (the goal: within 2x), and checks
that both give the same result.

``--builtin`` also times the built-in loop kernels alone (pull and push mxv,
masked dot SpGEMM, Gustavson SpGEMM, a BFS): the numbers to compare before and
after a change to the CPU kernels.

    python3 benchmarks/user_ops.py --scales 14 16 [--repeats 5] [--builtin]
"""
import argparse

import numpy as np

import graphblast_py as gb
from bfs import timed  # the median of repeats after a warm-up (benchmarks/bfs.py)
from graphblast_py import binary, monoid, semiring, unary




def user_ops():
    """User operators equivalent to plus, times, min, ainv (registered once)."""
    myplus = gb.BinaryOp.register("myplus", lambda x, y: x + y, cuda_expr="x + y")
    mytimes = gb.BinaryOp.register("mytimes", lambda x, y: x * y, cuda_expr="x * y")
    mymin = gb.BinaryOp.register("mymin", lambda x, y: x if x < y else (y if y == y else x),
                                 cuda_expr="(x < y ? x : (y == y ? y : x))")
    myneg = gb.UnaryOp.register("myneg", lambda x: -x, cuda_expr="-x")
    myplus_m = gb.Monoid.register("myplus_m", myplus, 0)
    mymin_m = gb.Monoid.register("mymin_m", mymin, np.inf)
    return {
        "plus_times": gb.Semiring.register("my_plus_times", myplus_m, mytimes),
        "min_plus": gb.Semiring.register("my_min_plus", mymin_m, myplus),
        "plus": myplus, "times": mytimes, "neg": myneg, "plus_m": myplus_m,
    }


def cases(A, u, v, my):
    """(name, built-in call, user call)"""
    return [
        ("mxv plus_times (pull)", lambda: A.mxv(u, semiring.plus_times, direction="pull"),
         lambda: A.mxv(u, my["plus_times"], direction="pull")),
        ("mxv min_plus (pull)", lambda: A.mxv(u, semiring.min_plus, direction="pull"),
         lambda: A.mxv(u, my["min_plus"], direction="pull")),
        ("vxm plus_times (push)", lambda: v.vxm(A, semiring.plus_times, direction="push"),
         lambda: v.vxm(A, my["plus_times"], direction="push")),
        ("ewise_add plus", lambda: A.ewise_add(A, binary.plus),
         lambda: A.ewise_add(A, my["plus"])),
        ("apply ainv", lambda: A.apply(unary.ainv), lambda: A.apply(my["neg"])),
        ("apply times(right=0.85)", lambda: A.apply(binary.times, right=0.85),
         lambda: A.apply(my["times"], right=0.85)),
        ("reduce_rowwise plus", lambda: A.reduce_rowwise(monoid.plus),
         lambda: A.reduce_rowwise(my["plus_m"])),
    ]


def same(r1, r2):
    a, b = r1.to_coo(), r2.to_coo()
    return all(np.array_equal(x, y) for x, y in zip(a[:-1], b[:-1])) and \
        np.allclose(a[-1], b[-1])


def builtin(scale, repeats):
    """The built-in loop kernels alone (before/after numbers for kernel changes)."""
    A = gb.generators.kronecker(scale, seed=1).apply(binary.first, right=0.0)
    A = A.apply(gb.indexunary.rowindex, thunk=1).apply(binary.times, right=0.5)
    A = A.to("cpu")
    n = A.nrows
    x = gb.Vector.from_coo(np.arange(n), np.linspace(0.0, 1.0, n), size=n)
    f = gb.Vector.from_coo(np.arange(0, n, 64), 1.0, size=n)
    L = A.select("tril", -1)
    src = int(np.argmax(np.diff(A.to_scipy().indptr)))     # a hub: many levels reached
    out = []
    for name, fn in (
            ("mxv plus_times pull", lambda: A.mxv(x, semiring.plus_times, direction="pull")),
            ("mxv min_plus pull", lambda: A.mxv(x, semiring.min_plus, direction="pull")),
            ("mxv max_times pull", lambda: A.mxv(x, semiring.max_times, direction="pull")),
            ("vxm min_plus push", lambda: f.vxm(A, semiring.min_plus, direction="push")),
            ("vxm any_secondi push", lambda: f.vxm(A, semiring.any_secondi, direction="push")),
            ("mxm plus_pair dot (L.S)", lambda: L.mxm(L.T, semiring.plus_pair, mask=L.S)),
            ("mxm plus_times Gustavson", lambda: L.mxm(L, semiring.plus_times,
                                                       method="saxpy")),
            ("bfs from a hub", lambda: gb.algorithms.bfs(A, src))):
        out.append((name, timed(fn, repeats)))
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--scales", type=int, nargs="+", default=[14, 16])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--builtin", action="store_true")
    args = p.parse_args()
    gb.set_device("cpu")
    my = user_ops()
    print(f"{'scale':>5} {'case':<26} {'built-in ms':>12} {'user ms':>10} {'user/built-in':>14}")
    for scale in args.scales:
        A = gb.generators.kronecker(scale, seed=1).apply(binary.first, right=0.0)
        A = A.apply(gb.indexunary.rowindex, thunk=1).apply(binary.times, right=0.5)
        n = A.nrows
        u = gb.Vector.from_coo(np.arange(n), np.linspace(0.0, 1.0, n), size=n)
        v = gb.Vector.from_coo(np.arange(0, n, 64), 1.0, size=n)
        for name, fb, fu in cases(A, u, v, my):
            ok = same(fb(), fu())
            tb = timed(fb, args.repeats)
            tu = timed(fu, args.repeats)
            print(f"{scale:>5} {name:<26} {tb * 1e3:>12.2f} {tu * 1e3:>10.2f} {tu / tb:>13.2f}x"
                  + ("" if ok else "  RESULTS DIFFER"))
        if args.builtin:
            for name, t in builtin(scale, args.repeats):
                print(f"{scale:>5} built-in kernel: {name:<28} {t * 1e3:>10.2f} ms")


if __name__ == "__main__":
    main()
