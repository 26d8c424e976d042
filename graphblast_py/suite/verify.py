"""Agreement checks of ``graphblast-py compare``: every result against the
reference result of its (graph, algorithm).

* bfs: levels exactly; parents (where a system returns them) checked to form
  a valid BFS tree: the parent of every reached v != source is a neighbour of
  v at level(v) - 1, the source is its own parent, unreached vertices have none.
* sssp (integer weights), tc, cc (labels = smallest vertex id), fglt: exactly.
* pagerank: L1 distance <= 2 n tol / (1 - damping) (the power-iteration
  stopping rule bounds each run's distance to the fixed point).
* bc, expm: |x - ref| <= 1e-9 |ref| + 1e-12 (bc), 1e-8 max|ref| (expm).
* eigvalsh: same count, |λ - ref| <= 1e-6 max|ref| (with multiplicity).

``check`` returns a dict: status ("agree"/"disagree"), tolerance (text),
max_error (float or None), first_differences (up to 5 {vertex, got,
expected}), detail (text).
"""
import numpy as np

from .systems import PARAMS

MAX_DIFFS = 5


def _diffs(bad, got, exp):
    idx = np.flatnonzero(bad)[:MAX_DIFFS]
    return [{"vertex": int(i), "got": _py(got[i]), "expected": _py(exp[i])} for i in idx]


def _py(x):
    x = np.asarray(x)
    if x.ndim:
        return [_py(v) for v in x]
    v = x.item()
    if isinstance(v, float) and not np.isfinite(v):
        return str(v)
    return v


def _agree(tol, max_error=None, detail=""):
    return {"status": "agree", "tolerance": tol, "max_error": max_error,
            "first_differences": [], "detail": detail}


def _disagree(tol, diffs, detail, max_error=None):
    return {"status": "disagree", "tolerance": tol, "max_error": max_error,
            "first_differences": diffs, "detail": detail}


def _shape(got, exp, tol):
    got, exp = np.asarray(got), np.asarray(exp)
    if got.shape != exp.shape:
        return _disagree(tol, [], f"shape {got.shape}, expected {exp.shape}")
    return None


def exact(got, exp, tol="exact"):
    bad = _shape(got, exp, tol)
    if bad:
        return bad
    got, exp = np.asarray(got), np.asarray(exp)
    neq = got != exp
    if neq.ndim > 1:
        neq = neq.reshape(neq.shape[0], -1).any(axis=1)
    if neq.any():
        return _disagree(tol, _diffs(neq, got, exp), f"{int(neq.sum())} of {neq.size} differ")
    return _agree(tol, 0.0 if got.dtype.kind == "f" else None)


def close(got, exp, rtol, atol, tol_text):
    bad = _shape(got, exp, tol_text)
    if bad:
        return bad
    got, exp = np.asarray(got, dtype=np.float64), np.asarray(exp, dtype=np.float64)
    inf_mismatch = np.isinf(got) != np.isinf(exp)
    fin = np.isfinite(got) & np.isfinite(exp)
    err = np.zeros_like(got)
    err[fin] = np.abs(got[fin] - exp[fin])
    neq = inf_mismatch | (err > atol + rtol * np.abs(np.where(fin, exp, 0))) | \
        (np.isnan(got) != np.isnan(exp))
    maxerr = float(err.max()) if err.size else 0.0
    if neq.any():
        return _disagree(tol_text, _diffs(neq, got, exp), f"{int(neq.sum())} of {neq.size} "
                         f"differ beyond the tolerance", maxerr)
    return _agree(tol_text, maxerr)


def bfs_tree(parents, levels, S, source):
    """None if ``parents`` is a valid BFS tree for ``levels``, else (mask, reason)."""
    n = S.shape[0]
    parents = np.asarray(parents, dtype=np.int64)
    v = np.arange(n)
    reached = levels >= 0
    bad = np.zeros(n, dtype=bool)
    bad |= reached != (parents >= 0)
    bad[source] |= parents[source] != source
    inner = reached & (v != source) & (parents >= 0) & (parents < n)
    bad |= reached & (v != source) & ((parents < 0) | (parents >= n))
    p = parents[inner]
    lv_ok = levels[p] == levels[inner] - 1
    # edge p -> v present: search v in row p of the sorted CSR
    keys = np.repeat(np.arange(n, dtype=np.int64), np.diff(S.indptr)) * n + S.indices
    want = p * n + v[inner]
    pos = np.searchsorted(keys, want)
    edge_ok = (pos < keys.shape[0]) & (keys[np.minimum(pos, keys.shape[0] - 1)] == want)
    bad[np.flatnonzero(inner)[~(lv_ok & edge_ok)]] = True
    if bad.any():
        return bad
    return None


def check(alg, got, ref, g):
    """Compare ``got`` with the reference result ``ref`` of graph ``g``."""
    if alg == "bfs":
        r = exact(got["levels"], ref["levels"], "levels exact; parents form a BFS tree")
        if r["status"] != "agree":
            return r
        if got.get("parents") is not None:
            bad = bfs_tree(got["parents"], ref["levels"], g.S, g.source)
            if bad is not None:
                d = [{"vertex": int(i), "got": int(got["parents"][i]),
                      "expected": "a neighbour at level "
                                  f"{int(ref['levels'][i]) - 1}" if i != g.source else
                      int(g.source)} for i in np.flatnonzero(bad)[:MAX_DIFFS]]
                return _disagree(r["tolerance"], d, f"{int(bad.sum())} parents do not form a "
                                 "BFS tree")
            r["detail"] = "parents checked"
        return r
    if alg in ("sssp",):
        return exact(got, ref, "exact (integer weights)")
    if alg == "fglt" and np.ndim(ref) == 2 and np.shape(ref)[1] == 5 and np.ndim(got) == 2:
        r = exact(np.asarray(got)[:, :5], ref, "exact (orbits 0-4: the columns SciPy gives)")
        return r
    if alg in ("cc", "fglt"):
        return exact(got, ref)
    if alg == "tc":
        if int(got) != int(ref):
            return _disagree("exact", [{"vertex": None, "got": int(got), "expected": int(ref)}],
                             f"{int(got)} triangles, expected {int(ref)}")
        return _agree("exact")
    if alg == "pagerank":
        p = PARAMS["pagerank"]
        bound = 2 * max(g.n, 1) * p["tol"] / (1 - p["damping"])
        text = f"L1 <= 2 n tol/(1-damping) = {bound:.2g}"
        bad = _shape(got, ref, text)
        if bad:
            return bad
        diff = np.abs(np.asarray(got, dtype=np.float64) - ref)
        l1 = float(diff.sum())
        if not l1 <= bound:                     # NaN fails too
            order = np.argsort(-np.nan_to_num(diff, nan=np.inf))[:MAX_DIFFS]
            return _disagree(text, [{"vertex": int(i), "got": float(got[i]),
                                     "expected": float(ref[i])} for i in order],
                             f"L1 distance {l1:.3g}", l1)
        return _agree(text, l1)
    if alg == "bc":
        return close(got, ref, 1e-9, 1e-12, "rel 1e-9 + abs 1e-12")
    if alg == "expm":
        scale = float(np.abs(ref).max()) if np.size(ref) else 1.0
        return close(got, ref, 0.0, 1e-8 * scale, "abs 1e-8 max|ref|")
    if alg == "eigvalsh":
        scale = float(np.abs(ref).max()) if np.size(ref) else 1.0
        return close(got, ref, 0.0, 1e-6 * scale, "abs 1e-6 max|λ|")
    raise ValueError(alg)
