"""FGLT with 5 orbits on graphs of the sizes and shapes of the FGLT seed's
CUDA exercise, against the seed's own times (issue 15: "the H100 should beat
each by >= 5x").

The seed timed its 5-orbit CUDA FGLT on three SuiteSparse graphs.  They are
not in this repository (and nothing can be downloaded on the GPU machine),
so each is replaced by a generated graph of the same size and shape:

* ``auto`` (448 695 vertices, 6.6 M stored entries, a 3-D finite-element
  mesh): a random geometric graph in the unit cube with the same vertex count
  and mean degree (14.8);
* ``delaunay_n22`` (4 194 304 vertices, 25.2 M entries, a planar Delaunay
  mesh, mean degree 6): a random geometric graph in the unit square with the
  same vertex count and mean degree;
* ``com-Youtube`` (1 134 890 vertices, 6.0 M entries, a power-law social
  graph): a Graph500 Kronecker graph of scale 20 with edge factor 3
  (1 048 576 vertices, about 6 M entries after symmetrising).

Each row prints n, the stored entries, the time of ``fglt(A, orbits=5)``
(best of ``--repeat`` after a warm-up call on the same graph), the seed's
time and the speed-up (seed / ours).  The graphs differ from the originals
in detail, so this is a comparison of sizes and shapes, not of the same
inputs.

    python3 benchmarks/fglt_seed.py --device gpu
    python3 benchmarks/fglt_seed.py --device cpu --shrink 64     # a quick CPU check
"""
import argparse
import math
import time

import graphblast_py as gb
from graphblast_py.algorithms import fglt

# name: (seed's vertices, seed's stored entries, seed's 5-orbit CUDA ms)
SEED = {"auto": (448695, 6629222, 27.0),
        "delaunay_n22": (4194304, 25165738, 202.0),
        "com-Youtube": (1134890, 5975248, 1709.0)}


def make(name, shrink, device):
    n, nnz, _ = SEED[name]
    n //= shrink
    deg = nnz / SEED[name][0]
    if name == "auto":          # unit cube: E[deg] = n * 4/3 pi r^3
        r = (deg / (n * 4.0 / 3.0 * math.pi)) ** (1.0 / 3.0)
        return gb.generators.random_geometric(n, r, dim=3, seed=1, device=device)
    if name == "delaunay_n22":  # unit square: E[deg] = n * pi r^2
        r = math.sqrt(deg / (n * math.pi))
        return gb.generators.random_geometric(n, r, dim=2, seed=1, device=device)
    scale = max(4, 20 - int(round(math.log2(shrink))))
    return gb.generators.kronecker(scale, edge_factor=3, seed=1, device=device)


def profile(A, dev):
    """One ``fglt(A, orbits=5)`` with a sync around every Matrix/Vector call
    and every graphlets step the algorithm file calls (op_profile.Profile)."""
    import importlib
    from op_profile import Profile
    fm = importlib.import_module("graphblast_py.algorithms.fglt")
    prof = Profile(lambda: gb.device.synchronize(dev))
    step = type("graphlets", (), {})
    saved = {k: getattr(fm, k) for k in ("simple_pattern", "common_neighbours", "stack_columns")}
    prof.install()
    for k, f in saved.items():
        setattr(fm, k, prof._wrap(step, k, f))
    try:
        t = time.perf_counter()
        fglt(A, orbits=5)
        total = time.perf_counter() - t
    finally:
        prof.remove()
        for k, f in saved.items():
            setattr(fm, k, f)
    print(f"    with a sync per call: {total * 1e3:.2f} ms")
    for op, sec in sorted(prof.time.items(), key=lambda kv: -kv[1])[:10]:
        print(f"    {op:<30} {sec * 1e3:8.2f} ms {prof.calls[op]:4d} calls")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default=None)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--shrink", type=int, default=1,
                   help="divide the vertex counts by this (a quick run)")
    p.add_argument("--profile", action="store_true",
                   help="also one run per graph with a device sync around every framework "
                        "call and graphlets step (benchmarks/op_profile.py): where the time goes")
    args = p.parse_args()
    dev = args.device or gb.get_device()
    print(f"# device: {gb.backend.get(dev).device_name()}")
    print(f"{'seed graph':>14} {'generated as':>26} {'n':>9} {'nnz':>10} "
          f"{'fglt(5) ms':>11} {'seed ms':>8} {'speed-up':>9}")
    for name, (_, _, seed_ms) in SEED.items():
        t0 = time.perf_counter()
        A = make(name, args.shrink, dev)
        gen = time.perf_counter() - t0
        fglt(A, orbits=5)                       # warm-up: kernels compiled, caches built
        gb.device.synchronize(dev)
        ts = []
        for _ in range(args.repeat):
            t = time.perf_counter()
            F = fglt(A, orbits=5)
            gb.device.synchronize(dev)
            ts.append(time.perf_counter() - t)
            del F
        ms = min(ts) * 1e3
        how = "geometric 3-D" if name == "auto" else \
            "geometric 2-D" if name == "delaunay_n22" else "Kronecker EF 3"
        print(f"{name:>14} {how:>26} {A.nrows:>9} {A.nvals:>10} {ms:>11.2f} "
              f"{seed_ms:>8.0f} {seed_ms / ms:>8.1f}x   (generated in {gen:.1f} s)", flush=True)
        if args.profile:
            profile(A, dev)
        del A


if __name__ == "__main__":
    main()
