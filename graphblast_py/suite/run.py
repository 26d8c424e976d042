"""The run loop of ``graphblast-py compare``: graphs x algorithms x systems,
timing with a budget, memory checks, references and agreement."""
import contextlib
import os
import platform
import signal
import statistics
import sys
import threading
import time
from datetime import datetime, timezone

from .. import backend
from ..errors import OutOfMemory
from . import graphs as graphs_mod
from . import verify
from .systems import (ALGORITHMS, PARAMS, REFERENCE_FUNCS, REFERENCES, NotAvailable,
                      all_systems, fmt_exc)

SCHEMA_VERSION = 1


class BudgetExceeded(BaseException):
    """Raised by the budget alarm (a BaseException so that no ``except
    Exception`` inside a system swallows it)."""


@contextlib.contextmanager
def deadline(seconds):
    """Raise BudgetExceeded in this (main) thread after ``seconds``.  Python
    code is interrupted at once; a call inside compiled code is interrupted
    when it returns to Python.  Without SIGALRM (Windows, other threads) the
    budget is checked only between calls."""
    usable = (hasattr(signal, "setitimer") and seconds is not None and
              threading.current_thread() is threading.main_thread())
    if not usable:
        yield
        return

    def _fire(signum, frame):
        raise BudgetExceeded()

    old = signal.signal(signal.SIGALRM, _fire)
    signal.setitimer(signal.ITIMER_REAL, max(float(seconds), 1e-3))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def free_memory(device):
    """Bytes a run on ``device`` can allocate now; None if unknown.  The
    CPU: the backend's ``free_bytes`` (MemAvailable); the GPU: its
    ``max_alloc_bytes``, the free device memory plus what the memory pool
    holds unused from earlier runs (without it a large graph's later runs
    were skipped as not fitting while the pool held most of the memory)."""
    try:
        be = backend.get(device)
        return be.max_alloc_bytes() if device == "gpu" else be.free_bytes()
    except Exception:  # noqa: BLE001 - no such device: unknown
        return None


def cpu_name():
    return backend.get("cpu").device_name()


def gpu_name():
    try:
        return backend.get("gpu").device_name()
    except Exception:  # noqa: BLE001 - no usable GPU
        return None


def environment(devices):
    from .systems import _version
    pk = {}
    for dist in ("graphblast-py", "numpy", "scipy", "numba", "networkx", "python-graphblas",
                 "suitesparse-graphblas", "graphblas-algorithms", "cupy", "cupy-cuda12x",
                 "cupy-cuda13x", "rich", "matplotlib", "tqdm"):
        v = _version(dist)
        if v is not None:
            pk[dist] = v
    devs = [{"name": "cpu", "description": cpu_name(), "cores": os.cpu_count(),
             "free_memory_bytes": free_memory("cpu")}]
    if "gpu" in devices:
        devs.append({"name": "gpu", "description": gpu_name(),
                     "free_memory_bytes": free_memory("gpu")})
    return {"python": sys.version.split()[0], "platform": platform.platform(),
            "hostname": platform.node(), "devices": devs, "packages": pk}


def _gb(x):
    return f"{x / 2**30:.2f} GiB"


def summary(alg, res):
    """A few numbers describing a result (for the JSON file; the results
    themselves are not stored)."""
    import numpy as np
    if res is None:
        return None
    try:
        if alg == "bfs":
            lv = res["levels"]
            return {"reached": int((lv >= 0).sum()), "depth": int(lv.max()) if lv.size else 0}
        if alg == "sssp":
            fin = np.isfinite(res)
            return {"reached": int(fin.sum()),
                    "max_distance": float(res[fin].max()) if fin.any() else 0.0}
        if alg == "tc":
            return {"triangles": int(res)}
        if alg == "cc":
            return {"components": int(np.unique(res).size)}
        if alg in ("pagerank", "bc", "expm"):
            x = np.asarray(res, dtype=np.float64)
            return {"sum": float(x.sum()), "max": float(x.max()) if x.size else 0.0}
        if alg == "eigvalsh":
            return {"eigenvalues": [float(v) for v in res]}
        if alg == "fglt":
            return {"column_sums": [int(v) for v in np.asarray(res).sum(axis=0)]}
    except Exception:  # noqa: BLE001 - a summary is informative only
        return None
    return None


class Runner:
    def __init__(self, specs=None, algorithms=None, devices=None, systems=None, repeat=3,
                 budget=20.0, nx_max_nnz=200_000, nx_max_nnz_bc=40_000, progress=None,
                 seed=1, warmup_budget=120.0, checkpoint=None):
        self.checkpoint = checkpoint   # called with the report after every (graph, algorithm)
        self.specs = graphs_mod.expand(specs)
        self.algorithms = list(algorithms or ALGORITHMS)
        self.repeat = int(repeat)
        self.budget = float(budget) if budget is not None else None
        self.warmup_budget = float(warmup_budget) if warmup_budget is not None else None
        self.progress = progress
        self.seed = seed
        from .. import backend
        present = ["cpu"] + (["gpu"] if backend.gpu_available() else [])
        self.devices = [d for d in (devices or present)]
        self.systems = []
        self.system_rows = []
        for s in all_systems(nx_max_nnz, nx_max_nnz_bc):
            if systems and not any(s.name == w or s.name.startswith(w + " ") or
                                   s.name.split()[0] == w for w in systems):
                continue
            ok, note = s.available()
            if ok and (s.is_graphblast or s.device == "gpu") and s.device not in self.devices:
                ok, note = False, f"device {s.device} not selected (--devices)"
            if ok and s.device == "gpu" and "gpu" not in present:
                ok, note = False, "no GPU"
            try:
                ver = s.version() if ok else None
            except Exception:  # noqa: BLE001
                ver = None
            self.system_rows.append({"name": s.name, "device": s.device, "available": ok,
                                     "version": ver, "note": note,
                                     "algorithms": [a for a in s.algorithms
                                                    if a in self.algorithms]})
            if ok:
                self.systems.append(s)
        self._loaded = {}
        self._caps = (nx_max_nnz, nx_max_nnz_bc)

    # --------------------------------------------------------------- one run
    def _load(self, s, g):
        key = (s.name, g.name)
        if key not in self._loaded:
            t = time.perf_counter()
            with deadline(self.warmup_budget):
                h = s.load(g)
                s.sync()
            self._loaded[key] = (h, time.perf_counter() - t)
        return self._loaded[key]

    def run_one(self, s, alg, g):
        rec = {"graph": g.name, "algorithm": alg, "system": s.name, "device": s.device,
               "status": "ok", "note": "", "load_s": None, "warmup_s": None, "times_s": [],
               "median_s": None, "min_s": None, "repeats": 0, "teps": None,
               "agreement": None, "summary": None}
        cap = "skipped: empty graph (no vertices)" if g.n == 0 else s.cap_note(alg, g)
        if cap:
            rec.update(status="skipped", note=cap)
            return rec, None
        need, free = s.est_bytes(alg, g), free_memory(s.device)
        if free is not None and need > 0.8 * free:
            rec.update(status="skipped", note=f"skipped: needs about {_gb(need)}, "
                                                f"{_gb(free)} free on {s.device}")
            return rec, None
        stage, result = "load", None
        try:
            h, rec["load_s"] = self._load(s, g)
            stage = "warm-up"
            t0 = time.perf_counter()
            with deadline(self.warmup_budget):
                raw = s.run(alg, h, g)
                s.sync()
            rec["warmup_s"] = time.perf_counter() - t0
            result = s.result(alg, raw, g)
            del raw
            t0 = time.perf_counter()
            for i in range(self.repeat):
                used = time.perf_counter() - t0
                left = None if self.budget is None else self.budget - used
                last = rec["times_s"][-1] if rec["times_s"] else 0.0
                if left is not None and (left <= 0 or last > left):
                    rec["note"] = (f"budget {self.budget:g}s: {i} of {self.repeat} repeats "
                                   "done")
                    break
                stage = f"repeat {i + 1}"
                with deadline(left):
                    t = time.perf_counter()
                    s.run(alg, h, g)
                    s.sync()
                    rec["times_s"].append(time.perf_counter() - t)
        except BudgetExceeded:
            b = self.warmup_budget if stage in ("load", "warm-up") else self.budget
            rec.update(status="skipped" if result is None else "ok",
                       note=f"over the {b:g}s budget in the {stage}; stopped")
        except NotAvailable as e:
            rec.update(status="not available", note=str(e))
            return rec, None
        except OutOfMemory as e:                # the framework's clear refusal: a skip
            rec.update(status="skipped", note=f"{stage}: out of memory: {fmt_exc(e)}")
            return rec, None
        except Exception as e:  # noqa: BLE001 - a failing system is a row, not a crash
            rec.update(status="failed", note=f"{stage}: {fmt_exc(e)}")
            return rec, None
        rec["summary"] = summary(alg, result)
        ts = rec["times_s"]
        rec["repeats"] = len(ts)
        if ts:
            rec["median_s"] = statistics.median(ts)
            rec["min_s"] = min(ts)
        if alg in ("bfs", "sssp") and rec["median_s"]:
            rec["teps"] = g.stats.get("source_component_edges", 0) / rec["median_s"]
        return rec, result

    # --------------------------------------------------------- references
    def _reference(self, alg, g, results):
        """(system name, result, note) of the reference for (g, alg)."""
        for name in REFERENCES.get(alg, []):
            if name in results:
                return name, results[name], ""
        if not results:
            return None, None, "nothing to check"
        for name in REFERENCES.get(alg, []):          # not run: compute it, untimed
            for s in all_systems(*self._caps):
                if s.name != name or alg not in s.algorithms:
                    continue
                if not s.available()[0] or s.cap_note(alg, g):
                    continue
                try:
                    with deadline(self.budget):
                        h = s.load(g)
                        res = s.result(alg, s.run(alg, h, g), g)
                    return name, res, "reference computed untimed"
                except (BudgetExceeded, Exception):  # noqa: BLE001
                    continue
        if alg in REFERENCE_FUNCS:
            name, f = REFERENCE_FUNCS[alg]
            try:
                with deadline(self.budget):
                    return name, f(g), "reference computed untimed"
            except (BudgetExceeded, Exception):  # noqa: BLE001
                pass
        gbs = [n for n in results if n.startswith("graphblast-py")]
        if len(gbs) > 1:                              # no independent reference
            return gbs[0], results[gbs[0]], "no independent reference: devices cross-checked"
        return None, None, "no reference ran (" + (", ".join(REFERENCES.get(alg, [])) or
                                                    "none exists") + ": over a cap or missing)"

    # ---------------------------------------------------------------- all
    def run(self):
        started = datetime.now(timezone.utc)
        t_start = time.perf_counter()
        report = {"schema_version": SCHEMA_VERSION, "tool": "graphblast-py compare",
                  "created": started.isoformat(timespec="seconds"),
                  "command": list(sys.argv),
                  "environment": environment(self.devices),
                  "settings": {"graphs": self.specs, "algorithms": self.algorithms,
                               "devices": self.devices, "repeat": self.repeat,
                               "budget_s": self.budget,
                               "warmup_budget_s": self.warmup_budget,
                               "params": {a: PARAMS[a] for a in self.algorithms}},
                  "systems": self.system_rows, "graphs": [], "runs": []}
        total = 0
        plan = []
        for spec in self.specs:
            jobs = [(a, s) for a in self.algorithms for s in self.systems if a in s.algorithms]
            plan.append((spec, jobs))
            total += len(jobs) + 1
        prog = self.progress(total) if self.progress else None
        for spec, jobs in plan:
            if prog:
                prog.describe(f"loading {spec}")
            try:
                g = graphs_mod.load(spec, seed=self.seed)
            except Exception as e:  # noqa: BLE001 - a bad graph is reported, the run goes on
                report["graphs"].append({"name": spec, "spec": spec, "error": fmt_exc(e)})
                if prog:
                    prog.advance(len(jobs) + 1)
                continue
            report["graphs"].append(dict(name=g.name, spec=g.spec, family=g.family,
                                         gen_s=g.gen_s, **g.stats))
            if prog:
                prog.advance(1)
            for alg in self.algorithms:
                results, recs = {}, []
                for a, s in jobs:
                    if a != alg:
                        continue
                    if prog:
                        prog.describe(f"{g.name} {alg} {s.name}")
                    rec, res = self.run_one(s, alg, g)
                    recs.append(rec)
                    if res is not None:
                        results[s.name] = res
                    if prog:
                        prog.advance(1)
                if not recs:
                    continue
                ref_name, ref, note = self._reference(alg, g, results)
                for rec in recs:
                    res = results.get(rec["system"])
                    if res is None:
                        continue
                    if ref_name is None:
                        rec["agreement"] = {"status": "unchecked", "reference": None,
                                            "tolerance": None, "max_error": None,
                                            "first_differences": [], "detail": note}
                    elif rec["system"] == ref_name:
                        rec["agreement"] = {"status": "reference", "reference": ref_name,
                                            "tolerance": None, "max_error": None,
                                            "first_differences": [], "detail": note}
                    else:
                        try:
                            a = verify.check(alg, res, ref, g)
                        except Exception as e:  # noqa: BLE001
                            a = {"status": "disagree", "tolerance": None, "max_error": None,
                                 "first_differences": [],
                                 "detail": f"result not comparable: {fmt_exc(e)}"}
                        a["reference"] = ref_name
                        if note:
                            a["detail"] = (a["detail"] + "; " if a["detail"] else "") + note
                        rec["agreement"] = a
                gc, gg = results.get("graphblast-py cpu"), results.get("graphblast-py gpu")
                if alg == "fglt" and gc is not None and gg is not None:
                    # the reference has orbits 0-4 only: all 16 across the devices
                    rec = next(r for r in recs if r["system"] == "graphblast-py gpu")
                    if (rec["agreement"] or {}).get("status") == "agree":
                        x = verify.check(alg, gg, gc, g)
                        if x["status"] != "agree":
                            x["reference"] = "graphblast-py cpu"
                            x["detail"] += " (all 16 orbits against graphblast-py cpu)"
                            rec["agreement"] = x
                        else:
                            rec["agreement"]["detail"] += "; all 16 orbits equal the CPU's"
                report["runs"].extend(recs)
                del results
                if self.checkpoint is not None:
                    self.checkpoint(report)
            g.drop_device_copies()
            self._loaded = {k: v for k, v in self._loaded.items() if k[1] != g.name}
        if prog:
            prog.close()
        report["wall_s"] = time.perf_counter() - t_start
        bad = [r for r in report["runs"]
               if (r["agreement"] or {}).get("status") == "disagree"
               or (r["system"].startswith("graphblast-py") and r["status"] == "failed")]
        bad_graphs = [g for g in report["graphs"] if "error" in g]
        report["ok"] = not bad and not bad_graphs
        report["exit_code"] = 0 if report["ok"] else 1
        report["problems"] = [f"{r['graph']} {r['algorithm']} {r['system']}: "
                              + (r["note"] if r["status"] == "failed"
                                 else r["agreement"]["detail"]) for r in bad] + \
            [f"graph {g['spec']}: {g['error']}" for g in bad_graphs]
        return report


__all__ = ["Runner", "BudgetExceeded", "deadline", "free_memory"]
