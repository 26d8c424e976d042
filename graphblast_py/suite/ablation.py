"""GraphBLAST's Table 5.2 on any graph: BFS with the optimizations switched on
one after another, GTEPS per step (``graphblast-py compare --ablation``).

The BFS is the textbook loop over framework calls (a user program, not a
library algorithm): per level ``levels<frontier> = depth`` and
``frontier<~levels, replace> = frontier any.pair A``.  The steps set the
switches of :meth:`Vector.vxm`:

==========================  ============================================================
step                        vxm keywords (cumulative)
==========================  ============================================================
baseline                    structure_only=False on a valued matrix, direction="push",
                            mask_first=False, early_exit=False, no pull_input
+ structure only            structure_only=True
+ direction optimization    direction="auto"
+ masking                   mask_first=True
+ early exit                early_exit=True
+ operand reuse             pull_input=levels (the visited set)
==========================  ============================================================

Every step must give the same levels as SciPy's BFS.  A switch this build of
the framework does not have is left out (the row says so).  GTEPS = undirected
edges in the source's component / median time / 1e9 (Graph500's count).
"""
import inspect
import statistics
import time

import numpy as np

from .graphs import bfs_levels as reference_levels

STEPS = [
    ("baseline", {"structure_only": False, "direction": "push", "mask_first": False,
                  "early_exit": False}, False),
    ("+ structure only", {"structure_only": True}, False),
    ("+ direction optimization", {"direction": "auto"}, False),
    ("+ masking", {"mask_first": True}, False),
    ("+ early exit", {"early_exit": True}, False),
    ("+ operand reuse", {}, True),
]


def supported_switches():
    from ..vector import Vector
    return set(inspect.signature(Vector.vxm).parameters)


def settings_of(step_index):
    """(cumulative vxm keywords, operand reuse?) after ``step_index`` steps."""
    kw, reuse = {}, False
    for _, k, r in STEPS[:step_index + 1]:
        kw.update(k)
        reuse = reuse or r
    return kw, reuse


def bfs(A, source, kw, reuse):
    """int64 levels (-1 unreached) of the BFS loop with the given vxm keywords."""
    from .. import Vector, dtypes, semiring
    n = A.nrows
    levels = Vector(dtypes.INT64, n, device=A.device)
    frontier = Vector.from_coo([source], True, size=n, dtype=dtypes.BOOL, device=A.device)
    depth = 0
    extra = {"pull_input": levels} if reuse else {}
    while frontier.nvals:
        levels.assign(depth, mask=frontier.S)
        frontier.vxm(A, semiring.any_pair, mask=~levels.S, replace=True, out=frontier, **kw,
                     **extra)
        depth += 1
    return levels


def run(graph, device, repeat=3, budget=None):
    """Ablation rows for one graph on one device."""
    from .. import device as dev
    have = supported_switches()
    A = graph.gb_matrix("weights", device)          # a valued matrix (values 1..16)
    ref = reference_levels(graph.S, graph.source)
    edges = graph.stats.get("source_component_edges", 0)
    rows = []
    for i, (name, _, _) in enumerate(STEPS):
        kw, reuse = settings_of(i)
        missing = sorted(k for k in kw if k not in have)
        if reuse and "pull_input" not in have:
            missing.append("pull_input")
        use = {k: v for k, v in kw.items() if k in have}
        row = {"graph": graph.name, "device": device, "step": name,
               "settings": dict(kw, pull_input="levels" if reuse else None),
               "median_s": None, "min_s": None, "gteps": None, "levels_agree": None,
               "note": ("switch not in this build, left out: " + ", ".join(missing))
               if missing else ""}
        try:
            t0 = time.perf_counter()
            lv = bfs(A, graph.source, use, reuse)
            dev.synchronize(device)
            warm = time.perf_counter() - t0
            got = lv.to("cpu").to_dense(fill=-1).astype(np.int64)
            row["levels_agree"] = bool(np.array_equal(got, ref))
            if not row["levels_agree"]:
                bad = np.flatnonzero(got != ref)[:5]
                row["note"] = (row["note"] + "; " if row["note"] else "") + \
                    "levels differ from SciPy at " + ", ".join(
                        f"v{j}: {got[j]}≠{ref[j]}" for j in bad)
            ts = []
            for _ in range(repeat):
                if budget is not None and sum(ts) + warm > budget:
                    row["note"] = (row["note"] + "; " if row["note"] else "") + \
                        f"budget {budget:g}s: {len(ts)} of {repeat} repeats"
                    break
                t = time.perf_counter()
                bfs(A, graph.source, use, reuse)
                dev.synchronize(device)
                ts.append(time.perf_counter() - t)
            if ts:
                row["median_s"], row["min_s"] = statistics.median(ts), min(ts)
                row["gteps"] = edges / row["median_s"] / 1e9
        except Exception as e:  # noqa: BLE001 - reported in the row
            row["levels_agree"] = False
            row["note"] = f"failed: {type(e).__name__}: {e}"
        rows.append(row)
    return rows


def table(rows):
    cols = ["graph", "device", "step", "median", "min", "GTEPS", "x baseline", "levels", "note"]
    base = {}
    out = []
    for r in rows:
        key = (r["graph"], r["device"])
        if r["step"] == "baseline":
            base[key] = r["median_s"]
        b = base.get(key)
        sp = f"{b / r['median_s']:.2f}" if b and r["median_s"] else "-"
        out.append([r["graph"], r["device"], r["step"],
                    f"{r['median_s'] * 1e3:.2f} ms" if r["median_s"] else "-",
                    f"{r['min_s'] * 1e3:.2f} ms" if r["min_s"] else "-",
                    f"{r['gteps']:.4f}" if r["gteps"] else "-", sp,
                    {True: "same", False: "DIFFER", None: "-"}[r["levels_agree"]], r["note"]])
    return "BFS ablation (GraphBLAST Table 5.2)", cols, out
