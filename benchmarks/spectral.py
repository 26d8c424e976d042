"""Spectral algorithms: speed against the hand-written baselines and accuracy
against SciPy, printed as tables (one run; ratios in the same run).

    python3 benchmarks/spectral.py --device gpu --scales 18 20 22 --grids 300 1000
    python3 benchmarks/spectral.py --device cpu --accuracy 10 12 14

Rows:
* expm k=30: graphblast-py ``expm_multiply(krylov_dim=30)`` with the
  components passed in (the Lanczos work), and with ``connected_components``
  included, against ``benchmarks/cupy_lanczos.expm_multiply`` (30 plain
  Lanczos steps, cuSPARSE SpMV) -- GPU only.
* eigvalsh top 6 against ``cupyx.scipy.sparse.linalg.eigsh`` (GPU) or SciPy
  ``eigsh`` (CPU), with the eigenvalues compared.
* tridiagonal_eigvalsh of n = 20000 (all eigenvalues) against SciPy's
  ``eigh_tridiagonal`` on the host.
* accuracy: e^{tA}1 per entry against SciPy per component (the contract of
  algorithms/expm.py).
"""
import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse.csgraph as csg
import scipy.sparse.linalg as sla

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import graphblast_py as gb  # noqa: E402
from graphblast_py.algorithms import (connected_components, eigvalsh, expm_multiply,  # noqa: E402
                                      tridiagonal_eigvalsh)


def timeit(fn, repeats, device):
    fn()
    gb.device.synchronize(device)
    ts = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        gb.device.synchronize(device)
        ts.append(time.perf_counter() - t0)
    return float(np.median(ts)), out


def graph(spec, device):
    kind, size = spec.split(":")
    if kind == "kron":
        return gb.generators.kronecker(int(size), seed=1, dtype="float64", device=device)
    k = int(size)
    return gb.generators.grid2d(k, k, dtype="float64", device=device)


def speed(args):
    dev = args.device
    print(f"# device: {device_name(dev)}")
    print(f"{'graph':>12} {'n':>10} {'nnz':>11} | {'work':<28} {'graphblast-py':>14} "
          f"{'baseline':>10} {'ratio':>6}  note")
    specs = [f"kron:{s}" for s in args.scales] + [f"grid:{g}" for g in args.grids]
    for spec in specs:
        t0 = time.perf_counter()
        A = graph(spec, dev)
        gen = time.perf_counter() - t0
        n, nnz = A.nrows, A.nvals
        head = f"{spec:>12} {n:>10} {nnz:>11} |"
        print(f"{head} {'generate':<28} {gen * 1e3:>12.1f}ms {'':>10} {'':>6}", flush=True)
        tcc, labels = timeit(lambda: connected_components(A), 1, dev)
        print(f"{head} {'connected_components':<28} {tcc * 1e3:>12.1f}ms", flush=True)
        if dev == "gpu":
            import cupy as cp
            import cupy_lanczos as cl
            ip, ix, vals = A._csr(True)
            M = cl.csr(ip, ix, vals, n)
            x = cp.ones(n)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tg, (y, s) = timeit(lambda: expm_multiply(A, krylov_dim=30, components=labels,
                                                          return_log_scale=True),
                                    args.repeats, dev)
                t0 = time.perf_counter()                   # a fresh copy: nothing cached
                expm_multiply(A.dup(), krylov_dim=30, return_log_scale=True)
                gb.device.synchronize(dev)
                tg2 = time.perf_counter() - t0
            tb, (yb, sb) = timeit(lambda: cl.expm_multiply(M, x, 1.0, 30), args.repeats, dev)
            print(f"{head} {'expm k=30 (components given)':<28} {tg * 1e3:>12.1f}ms "
                  f"{tb * 1e3:>8.1f}ms {tg / tb:>6.2f}", flush=True)
            print(f"{head} {'expm k=30 cold (CC, checks)':<28} {tg2 * 1e3:>12.1f}ms "
                  f"{tb * 1e3:>8.1f}ms {tg2 / tb:>6.2f}", flush=True)
            if n <= args.eig_max_n:
                tr = wr = None
                if n <= args.eigsh_max_n:
                    tr, wr = timeit(lambda: cl.eigsh_top(M, 6), 1, dev)
                    wr = cp.asnumpy(wr)
                for verify in (True, False):
                    try:
                        te, w = timeit(lambda: eigvalsh(A, 6, verify=verify), 1, dev)
                    except gb.ConvergenceError as e:
                        print(f"{head} eigvalsh top 6 verify={verify}: {e}", flush=True)
                        continue
                    what = f"eigvalsh top 6{'' if verify else ' verify=False'}"
                    if wr is None:
                        print(f"{head} {what:<28} {te * 1e3:>12.1f}ms  (no eigsh run) "
                              f"ours {np.array2string(w, precision=10)}", flush=True)
                        continue
                    err = np.abs(w - wr).max() / np.abs(wr).max()
                    print(f"{head} {what:<28} {te * 1e3:>12.1f}ms {tr * 1e3:>8.1f}ms "
                          f"{te / tr:>6.2f}  vs cupyx eigsh rel {err:.1e}; ours "
                          f"{np.array2string(w, precision=10)} eigsh "
                          f"{np.array2string(wr, precision=10)}", flush=True)
        else:
            te, w = timeit(lambda: eigvalsh(A, 6), 1, dev)
            S = A.to_scipy().astype(np.float64)
            tr, wr = timeit(lambda: np.sort(sla.eigsh(S, 6, which="LA",
                                                      return_eigenvectors=False)), 1, "cpu")
            err = np.abs(w - wr).max() / np.abs(wr).max()
            print(f"{head} {'eigvalsh top 6 vs SciPy':<28} {te * 1e3:>12.1f}ms {tr * 1e3:>8.1f}ms "
                  f"{te / tr:>6.2f}  rel {err:.1e}", flush=True)
        del A
    for n in args.tridiag:
        rng = np.random.default_rng(0)
        d, e = rng.standard_normal(n), rng.standard_normal(n - 1)
        tt, w = timeit(lambda: tridiagonal_eigvalsh(d, e, device=dev), 1, dev)
        import scipy.linalg as sl
        t0 = time.perf_counter()
        ref = sl.eigh_tridiagonal(d, e, eigvals_only=True)
        th = time.perf_counter() - t0
        w = np.asarray(gb.backend.get(dev).to_host(w))
        print(f"{'tridiag':>12} {n:>10} {'':>11} | {'all eigenvalues':<28} {tt * 1e3:>12.1f}ms "
              f"{th * 1e3:>8.1f}ms  (SciPy host) max err {np.abs(w - ref).max():.1e}", flush=True)
    for k in args.big_grid:
        A = graph(f"grid:{k}", dev)
        labels = gb.Vector("int64", A.nrows, device=dev)
        labels.assign(0)                                 # a grid is connected
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tg, (y, s) = timeit(lambda: expm_multiply(A, krylov_dim=20, components=labels,
                                                      return_log_scale=True), args.repeats, dev)
        print(f"{'grid':>12} {A.nrows:>10} {A.nvals:>11} | {'e^A 1, k=20 (grid connected)':<28} "
              f"{tg * 1e3:>12.1f}ms", flush=True)
        del A, labels, y, s


def accuracy(args):
    dev = args.device
    print(f"# accuracy, device: {device_name(dev)}: per component, entries >= 1e-6 max: worst "
          "relative error; others: worst error / component max; negatives; isolated exact")
    from tests.test_alg_lanczos import reference_expm   # the reference the tests use
    for spec in args.accuracy:
        A = graph(spec, dev)
        S = A.to("cpu").to_scipy().astype(np.float64)
        for t in (0.1, 1.0, 5.0):
            y, s = expm_multiply(A, t=t, return_log_scale=True)
            y = np.asarray(gb.backend.get(dev).to_host(y.to_dense()))
            s = np.asarray(gb.backend.get(dev).to_host(s.to_dense()))
            ref, shift, cmax = reference_expm(S, np.ones(S.shape[0]), t)
            got = y * np.exp(s - shift)
            big = np.abs(ref) >= 1e-6 * cmax
            rel = (np.abs(got[big] - ref[big]) / np.abs(ref[big])).max(initial=0)
            ab = (np.abs(got - ref)[~big] / cmax[~big]).max(initial=0)
            iso = np.diff(S.indptr) == 0
            exact = bool(np.all(y[iso] * np.exp(s[iso]) == 1.0))
            print(f"{spec:>10} t={t:<4} n={S.shape[0]:>7} comps={csg.connected_components(S)[0]:>6}"
                  f" rel={rel:.1e} abs={ab:.1e} neg={(y < 0).sum()} isolated_exact={exact}",
                  flush=True)


def device_name(dev):
    if dev == "gpu":
        import cupy as cp
        return cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    import platform
    return platform.processor() or platform.machine()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--device", default="cpu")
    p.add_argument("--scales", type=int, nargs="*", default=[])
    p.add_argument("--grids", type=int, nargs="*", default=[])
    p.add_argument("--big-grid", type=int, nargs="*", default=[])
    p.add_argument("--tridiag", type=int, nargs="*", default=[])
    p.add_argument("--accuracy", nargs="*", default=[])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--eig-max-n", type=int, default=1 << 23)
    p.add_argument("--eigsh-max-n", type=int, default=1 << 23)
    args = p.parse_args()
    if args.scales or args.grids or args.tridiag or args.big_grid:
        speed(args)
    if args.accuracy:
        accuracy(args)


if __name__ == "__main__":
    main()
