"""Mutation testing: plant one small, realistic bug at a time and see whether
the tests notice.  Run outside CI (minutes, not seconds):

    python3 benchmarks/mutation.py                 # every mutation, prints the score
    python3 benchmarks/mutation.py --list          # the mutations, nothing run
    python3 benchmarks/mutation.py --only output-dense-accum-order bfs-drops-last-level
    python3 benchmarks/mutation.py --workdir /tmp/gbmut --json result.json

How it works: the repository's ``graphblast_py/``, ``algorithms/``,
``tests/`` and ``pyproject.toml`` are copied into a temporary folder (the
real tree is never modified: other people may be editing it).  Each mutation
below names a file, an exact snippet that must occur there exactly once, the
snippet that replaces it, and the tests to run (a focused subset, with
``-x``: the first failure kills the mutant).  Every suite is first run on
the unmutated copy and must pass.  Then, for each mutation: write the
mutant, run its tests in the copy (``python -m pytest`` from the copy's
root, so ``import graphblast_py`` is the copy), restore the file (content
and modification time).  A mutant is *killed* when its tests fail or error,
*timed out* when they run past ``--timeout`` (counted as killed, reported
separately), and *survives* when they pass.  The score is killed / (killed +
survived) over the mutations whose snippet was found.

Hypothesis runs the ``ci`` profile's 100 derandomized examples without the
shrink phase (profile "mutation", registered by a small plugin written into
the copy): the first failing example kills the mutant.  numba caches
compiled kernels under ``NUMBA_CACHE_DIR`` (default: a folder in the work
directory), so only a mutation in a numba kernel file recompiles.

Each mutation is a realistic slip: operands swapped in a non-commutative
place, a comparison off by one, a branch for the wrong case, a sign lost, a
loop that stops one round early.  The list includes the four survivors of
the first measurement (issue 18): the accumulator's operand order on dense
vector outputs, min letting NaN win in the CPU kernels, BFS dropping the
deepest level, and a float ``times`` monoid with the terminal 0.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COPY = ("graphblast_py", "algorithms", "tests", "pyproject.toml")

# test suites: pytest arguments, most targeted first (-x stops at the first failure)
SEM = ["tests/test_semantics.py"]
SUITES = {
    "ops": SEM,
    "ops-mxm": SEM + ["tests/test_vs_graphblas.py"],
    "cpu": ["tests/test_direction.py", "tests/test_semantics.py"],
    "spgemm": ["tests/test_semantics.py", "tests/test_cpu_spgemm.py"],
    "objects": ["tests/test_objects.py", "tests/test_direction.py"],
    "io": ["tests/test_io.py"],
    "alg": ["tests/test_alg_families.py", "tests/test_alg_traversal.py",
            "tests/test_alg_pagerank_tc.py"],
    "relax": ["tests/test_relax_speculation.py"],
    "spec": ["tests/test_traversal_speculation.py"],
    # the loop kernels' dot runs only as the template of a user operator's
    # specialised copy (the predefined semirings take cpu/spgemm.py's)
    "user": ["tests/test_operators_user.py"],
}

# A pytest plugin written into the copy: the "ci" Hypothesis profile (the same
# 100 derandomized examples) without the shrink phase -- a mutant is killed by
# the first failing example; shrinking it to a small one only costs time.
PLUGIN = """
from hypothesis import HealthCheck, Phase, settings
settings.register_profile(
    "mutation", max_examples=100, deadline=None, derandomize=True,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                           HealthCheck.data_too_large])
"""

OPS = "graphblast_py/operations/"
CPU = "graphblast_py/backend/cpu/"
IO = "graphblast_py/io/"
ALG = "algorithms/"

# (id, file, original snippet, mutated snippet, suite)
MUTATIONS = [
    # ------------------------------------------------------------ operations/output.py
    ("output-dense-accum-order", OPS + "output.py",
     "elif cp is None and tp is None:\n            zv = _accum_vals(be, accum, cv, tv, out.dtype)",
     "elif cp is None and tp is None:\n            zv = _accum_vals(be, accum, tv, cv, out.dtype)",
     "ops"),
    ("output-sparse-accum-order", OPS + "output.py",
     "kz, vz = union(be, kc, vc, kt, vt, accum, out.dtype)",
     "kz, vz = union(be, kt, vt, kc, vc, accum, out.dtype)", "ops"),
    ("output-dense-replace-ignored", OPS + "output.py",
     "rv, rp = zv, (m if zp is None else zp & m)", "rv, rp = zv, zp", "ops"),
    ("output-sparse-replace-ignored", OPS + "output.py",
     "if not replace and kc.shape[0]:", "if kc.shape[0]:", "ops"),
    ("output-complement-ignored", OPS + "output.py",
     "hit = be.member(keys, mask.keys())\n    return ~hit if mask.complement else hit",
     "hit = be.member(keys, mask.keys())\n    return hit", "ops"),
    ("output-keeps-allowed-old", OPS + "output.py",
     "old = ~_allowed(be, mask, kc)", "old = _allowed(be, mask, kc)", "ops"),
    ("output-fast-path-too-wide", OPS + "output.py",
     "if (mask is None or (masked and (fresh or replace))) and (accum is None or fresh):",
     "if (mask is None or masked) and (accum is None or fresh):", "ops"),
    ("output-union-default-order", OPS + "output.py",
     "va_only = _op(be, op, va[only_a], right_default, out_dtype, ka_only, positional)",
     "va_only = _op(be, op, right_default, va[only_a], out_dtype, ka_only, positional)", "ops"),
    ("output-positional-i-j", OPS + "output.py",
     'src = i if op.positional.endswith("i") else j',
     'src = j if op.positional.endswith("i") else i', "ops"),
    ("output-dense-accum-drops-old", OPS + "output.py",
     "zp = None if (cp is None or tp is None) else (cp | tp)",
     "zp = None if (cp is None or tp is None) else tp", "ops"),
    # ------------------------------------------------------------ operations/ewise.py
    ("ewise-mult-operand-order", OPS + "ewise.py",
     "k, v = intersect(be, ka, va, kb, vb, op, dt, positional=_positional(a))",
     "k, v = intersect(be, kb, vb, ka, va, op, dt, positional=_positional(a))", "ops"),
    ("ewise-union-wrong-default", OPS + "ewise.py",
     '(-1 as uint8 is 255)\n    ld = dtypes.cast_scalar(left_default, a.dtype,',
     '(-1 as uint8 is 255)\n    ld = dtypes.cast_scalar(right_default, a.dtype,', "ops"),
    ("ewise-dense-operand-order", OPS + "ewise.py",
     "return be.binary(op, x, y, dt)",
     "return be.binary(op, y, x, dt)", "ops"),
    # ------------------------------------------------------------ operations/apply.py
    ("apply-bound-right-as-left", OPS + "apply.py",
     "(lambda vals: be.binary(op, vals, s, dt))",
     "(lambda vals: be.binary(op, s, vals, dt))", "ops"),
    ("apply-row-from-modulo", "graphblast_py/backend/keys.py",
     "rows = keys // n\n", "rows = keys % n\n", "ops"),
    ("apply-thunk-dropped", OPS + "apply.py",
     'th = _scalar(0 if thunk is None else thunk, "apply")', 'th = _scalar(0, "apply")', "ops"),
    # ------------------------------------------------------------ operations/assign.py
    ("assign-accum-order", OPS + "assign.py",
     "k_in, v_in = union(be, kc[inreg], vc[inreg], ka, va, accum, C.dtype)",
     "k_in, v_in = union(be, ka, va, kc[inreg], vc[inreg], accum, C.dtype)", "ops"),
    ("assign-complement-shortcut", OPS + "assign.py",
     "if mask is not None and not mask.complement:", "if mask is not None:", "ops"),
    ("assign-outside-region-lost", OPS + "assign.py",
     "k_out, v_out = kc[~inreg], vc[~inreg]",
     "k_out, v_out = kc[~inreg][1:], vc[~inreg][1:]", "ops"),
    # ------------------------------------------------------------ operations/extract.py
    ("extract-value-position", OPS + "extract.py",
     'T = SparseResult(k.astype(np.int64), vals[pos[k]])',
     'T = SparseResult(k.astype(np.int64), vals[k])', "ops"),
    ("extract-row-one-short", OPS + "extract.py",
     "lo, hi = int(ip[i]), int(ip[i + 1])", "lo, hi = int(ip[i]), int(ip[i + 1]) - 1", "ops"),
    # ------------------------------------------------------------ operations/transpose.py
    ("kronecker-row-stride", OPS + "transpose.py",
     "i = ia[sa] * np.int64(B.nrows) + ib[sb]", "i = ia[sa] * np.int64(B.ncols) + ib[sb]",
     "ops"),
    ("kronecker-row-col-swap", OPS + "transpose.py",
     "ia, ja = ka // na, ka % na", "ia, ja = ka % na, ka // na", "ops"),
    # ------------------------------------------------------------ operations/reduce.py
    ("reduce-rows-as-columns", OPS + "reduce.py",
     "ip, ix, v = A._csr(True) if rows else A._csc_arrays(True)",
     "ip, ix, v = A._csc_arrays(True) if rows else A._csr(True)", "ops"),
    ("reduce-empty-lines-kept", OPS + "reduce.py",
     "nonempty = be.xp.flatnonzero(lens > 0)", "nonempty = be.xp.flatnonzero(lens >= 0)", "ops"),
    ("reduce-iso-scalar-plus-as-v", OPS + "reduce.py",
     'if monoid.name != "plus":\n        return v',
     'if True:\n        return v', "ops"),
    # ------------------------------------------------------------ operations/mxm.py
    ("mxm-saxpy-complement-lost", OPS + "mxm.py",
     "T = SparseResult(keys, vals)\n    else:\n        mk = None if mask is None else "
     "(mask.keys(), mask.complement)",
     "T = SparseResult(keys, vals)\n    else:\n        mk = None if mask is None else "
     "(mask.keys(), False)", "ops-mxm"),
    ("mxm-spmm-empty-rows-present", OPS + "mxm.py",
     "pres = None if bool(rowpres.all()) else", "pres = None if True else", "ops-mxm"),
    # ------------------------------------------------------------ backend/cpu/backend.py
    ("cpu-second-reduce-end", CPU + "backend.py",
     "ends[:-1] = starts[1:] - 1", "ends[:-1] = starts[1:]", "objects"),   # dup_op=second
    ("cpu-reduce-min-nan-wins", "graphblast_py/operators/predefined.py",
     'else xp.minimum(x, y), comm=True, ufunc="fmin")',
     'else xp.minimum(x, y), comm=True, ufunc="minimum")', "cpu"),
    ("cpu-terminal-zero-for-all", CPU + "backend.py",
     "return (t, True) if t is not None else (out_dtype.type(0), False)",
     "return (t, True) if t is not None else (out_dtype.type(0), True)", "cpu"),
    ("cpu-unsigned-through-numba", CPU + "backend.py",
     'if out_dtype.kind == "u":', 'if out_dtype.kind == "x":', "cpu"),
    ("cpu-expand-offsets", CPU + "backend.py",
     "off = np.arange(seg.shape[0], dtype=np.int64) - np.repeat(ends - counts, counts)",
     "off = np.arange(seg.shape[0], dtype=np.int64) - np.repeat(ends - counts, counts) + 1",
     "cpu"),
    # ------------------------------------------------------------ backend/cpu/kernels.py (numba)
    ("kernel-mult-min-nan-wins", CPU + "kernels.py",
     "elif op == 3:  # min\n        return x if x < y else (y if y == y else x)",
     "elif op == 3:  # min\n        return x if x < y else y", "cpu"),
    ("kernel-add-min-nan-wins", CPU + "kernels.py",
     "elif op == 2:  # min\n        return x if x < y else (y if y == y else x)",
     "elif op == 2:  # min\n        return x if x < y else y", "cpu"),
    ("kernel-push-mask-inverted", CPU + "kernels.py",
     "if has_allowed and not allowed[r]:", "if has_allowed and allowed[r]:", "cpu"),
    ("kernel-pull-exit-not-terminal", CPU + "kernels.py",
     "found = True\n            if is_any or (has_term and acc == term):\n                break\n"
     "        if found:",
     "found = True\n            if is_any or (has_term and acc != term):\n                break\n"
     "        if found:", "cpu"),
    ("kernel-dot-merge-skips-equal", CPU + "kernels.py",
     "elif kb < ka:", "elif kb <= ka:", "user"),
    # ------------------------------------------------------------ backend/cpu/spgemm.py (numba)
    ("spgemm-mult-operand-order", CPU + "spgemm.py",
     "prod = acc.dtype.type(_mult(multop, a, bv[q] if read_b else bv[0], i, k, j))",
     "prod = acc.dtype.type(_mult(multop, bv[q] if read_b else bv[0], a, i, k, j))", "spgemm"),
    # ------------------------------------------------------------ operators (monoid table)
    ("times-terminal-zero-on-floats", "graphblast_py/operators/predefined.py",
     'lambda t: 0 if t.kind in "iu" else None', "lambda t: 0", "cpu"),
    # ------------------------------------------------------------ io/
    ("mm-skew-sign-lost", IO + "matrixmarket.py",
     "            mv = -mv", "            mv = mv", "io"),
    ("mm-columns-not-rebased", IO + "matrixmarket.py",
     "    c = c - 1\n", "    c = c\n", "io"),
    ("mm-index-bound-off-by-one", IO + "matrixmarket.py",
     "bad = (arr < 1) | (arr > n)", "bad = (arr < 1) | (arr > n + 1)", "io"),
    ("mm-skew-entry-limit", IO + "matrixmarket.py",
     "return n * (n - 1) // 2", "return n * (n + 1) // 2", "io"),
    ("mm-hermitian-as-general", IO + "matrixmarket.py",
     'h.symmetry = "symmetric" if sym == "hermitian" else sym',
     'h.symmetry = "general" if sym == "hermitian" else sym', "io"),
    ("edgelist-one-based-ignored", IO + "edgelist.py",
     "    base = 1 if one_based else 0", "    base = 0", "io"),
    ("edgelist-undirected-self-loop-twice", IO + "edgelist.py",
     "off = np.flatnonzero(u != v)", "off = np.arange(u.shape[0])", "io"),
    ("edgelist-nrows-bound", IO + "edgelist.py",
     "if hi >= n:", "if hi > n:", "io"),
    # ------------------------------------------------------------ algorithms/
    ("bfs-drops-last-level", ALG + "bfs.py",
     "    while frontier.nvals:", "    while frontier.nvals and depth < n - 1:", "alg"),
    ("bfs-parent-mask", ALG + "bfs.py",
     "parent.assign(frontier, mask=frontier.S)", "parent.assign(frontier, mask=levels.S)",
     "alg"),
    ("sssp-le-not-lt", ALG + "sssp.py",
     "better = t.ewise_union(dist, binary.lt, math.inf, math.inf, mask=t.S)",
     "better = t.ewise_union(dist, binary.le, math.inf, math.inf, mask=t.S)", "alg"),
    ("sssp-one-round-short", ALG + "sssp.py",
     "    for _ in range(n):", "    for _ in range(n - 1):", "alg"),
    ("cc-max-hooking", ALG + "connected_components.py",
     "A.mxv(gf, semiring.min_second, accum=binary.min, out=mngf)",
     "A.mxv(gf, semiring.max_second, accum=binary.min, out=mngf)", "alg"),
    ("pagerank-teleport-denominator", ALG + "pagerank.py",
     "xnew.assign((damping * lost + 1.0 - damping) / n)",
     "xnew.assign((damping * lost + 1.0 - damping) / (n + 1))", "alg"),
    ("pagerank-dangling-inverted", ALG + "pagerank.py",
     "dangling.assign(True, mask=~d.S)", "dangling.assign(True, mask=d.S)", "alg"),
    ("tc-diagonal-counted", ALG + "triangle_count.py",
     'L = A.select("tril", -1).dup(dtypes.INT64)', 'L = A.select("tril", 0).dup(dtypes.INT64)',
     "alg"),
    ("bc-level-dropped", ALG + "betweenness.py",
     "for d in range(len(levels) - 1, 1, -1):", "for d in range(len(levels) - 1, 2, -1):",
     "alg"),
    ("bc-undirected-halving", ALG + "betweenness.py",
     "(1 if directed else 2)", "(1 if directed else 1)", "alg"),
    # ------------------------------------------------------------ held out: written after the
    # tests were last changed (the 58 above guided new tests; these 12 did not)
    ("h-output-merge-no-cast", OPS + "output.py",
     "vals = be.xp.concatenate([va, be.cast(vb, va.dtype)])",
     "vals = be.xp.concatenate([va, vb])", "ops"),
    ("h-intersect-inverted", OPS + "output.py",
     "sel = be.xp.flatnonzero(found)", "sel = be.xp.flatnonzero(~found)", "ops"),
    ("h-apply-vector-i-j", OPS + "apply.py",
     "return keys, vals, keys, np.int64(0)", "return keys, vals, np.int64(0), keys", "ops"),
    ("h-extract-dense-holes", OPS + "extract.py",
     "pres = None if up is None else up[I]", "pres = None", "ops"),
    ("h-kronecker-col-stride", OPS + "transpose.py",
     "j = ja[sa] * np.int64(B.ncols) + jb[sb]", "j = ja[sa] * np.int64(B.nrows) + jb[sb]",
     "ops"),
    ("h-cpu-pull-last-row", CPU + "backend.py",
     "rows = np.arange(nrows, dtype=np.int64)", "rows = np.arange(nrows - 1, dtype=np.int64)",
     "cpu"),
    ("h-kernel-push-any-skip", CPU + "kernels.py",
     "if outp[r] and is_any:", "if outp[r] and not is_any:", "cpu"),
    ("h-mm-skew-not-mirrored", IO + "matrixmarket.py",
     'if h.symmetry == "general":\n        return r, c, values, None',
     'if h.symmetry != "symmetric":\n        return r, c, values, None', "io"),
    ("h-cc-aggressive-max", ALG + "connected_components.py",
     "f.ewise_add(mngf, binary.min, out=f)", "f.ewise_add(mngf, binary.max, out=f)", "alg"),
    ("h-bfs-frontier-kept", ALG + "bfs.py",
     "replace=True, out=frontier, pull_input=levels)",
     "replace=False, out=frontier, pull_input=levels)", "alg"),
    ("h-pagerank-max-error", ALG + "pagerank.py",
     ".apply(unary.abs).reduce(monoid.plus)", ".apply(unary.abs).reduce(monoid.max)", "alg"),
    ("h-tc-per-vertex-axis", ALG + "triangle_count.py",
     "D.reduce_rowwise(monoid.plus, accum=binary.plus, out=t)",
     "D.reduce_columnwise(monoid.plus, accum=binary.plus, out=t)", "alg"),
    # ------------------------------------------------------------ round speculation
    # (operations/relax.py, backend/cpu/relax.py: each answered call's own
    # checks, and the kernel's recurrence)
    ("relax-compare-ignores-distances", OPS + "relax.py",
     "if (b.__class__ is not Vector or b._ver != R.d_ver or R.d_round != r.k - 1",
     "if (b.__class__ is not Vector", "relax"),
    ("spec-wide-level-unsorted", OPS + "speculate.py",
     "if self.in_order or b - a < 2:", "if True:", "spec"),
    ("spec-wide-never-starts", OPS + "speculate.py",
     "        if not linked:                  # a first call",
     "        if True:                  # a first call", "spec"),
    ("spec-wide-parents-dropped", "graphblast_py/backend/generic.py",
     "                pars.append(f[row[first]])", "                pars.append(new)", "spec"),
    ("spec-level-ones-zero", OPS + "speculate.py",
     "got = self.be.full(widest, 1, dtype)", "got = self.be.full(widest, 0, dtype)", "spec"),
    ("spec-level-ones-short", OPS + "speculate.py",
     "widest = max((b - a for a, b in zip(self.offsets, self.offsets[1:])),",
     "widest = min((b - a for a, b in zip(self.offsets, self.offsets[1:])),", "spec"),
    ("spec-wide-plan-size-decides", "graphblast_py/backend/wide_plan.py",
     "nf = int(count) if count is not None and count * beta >= n else -1",
     "nf = int(count) if count is not None else -1", "spec"),
    ("spec-wide-plan-no-labels", "graphblast_py/backend/wide_plan.py",
     "count_start = nf < 0 or (form != \"dense\" and not push)", "count_start = nf < 0", "spec"),
    ("one-entry-swapped", "graphblast_py/backend/generic.py",
     "return self.full(1, i, np.int64), self.full(1, value, dtype)",
     "return self.full(1, value, np.int64), self.full(1, i, dtype)", "spec"),
    ("relax-copies-repeats-unmarked", OPS + "relax.py",
     "w._nv_hi + (hi - lo), repeats=True)", "w._nv_hi + (hi - lo))", "relax"),
    ("relax-compare-any-round", OPS + "relax.py",
     "b._ver != R.d_ver or R.d_round != r.k - 1", "b._ver != R.d_ver", "relax"),
    ("relax-compare-any-default", OPS + "relax.py",
     "if not rd == R.default:", "if False:", "relax"),
    ("relax-compare-any-comparison", OPS + "relax.py",
     'or mask.complement or op.name != "lt" or op.is_user):\n        return None\n    R = r.rounds',
     "or mask.complement or op.is_user):\n        return None\n    R = r.rounds", "relax"),
    ("relax-product-ignores-matrix", OPS + "relax.py",
     "A.__class__ is not Matrix or r.a_tok is not _token(A)",
     "A.__class__ is not Matrix", "relax"),
    ("relax-product-any-record", OPS + "relax.py",
     'r = _rec(u, "f")', "r = u._spec", "relax"),
    ("relax-product-past-the-run", OPS + "relax.py",
     "if R is not None and r.k < R.nr:", "if R is not None and r.k <= R.nr:", "relax"),
    ("relax-select-any-record", OPS + "relax.py",
     'r = _rec(x, "t")\n    if (r is None or r.rounds is None',
     "r = x._spec\n    if (r is None or r.rounds is None", "relax"),
    ("relax-kernel-le", CPU + "relax.py", "if outv[j] < y:", "if outv[j] <= y:", "relax"),
    ("relax-kernel-distances-kept", CPU + "relax.py",
     "fv[q] = x\n            dv[j] = x\n", "fv[q] = x\n", "relax"),
    ("relax-kernel-dropped-round-flags", CPU + "relax.py",
     "outp[touched[q]] = False    # later run", "pass    # later run", "relax"),
]


def copy_tree(dst):
    for name in COPY:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, dst / name, ignore=shutil.ignore_patterns(
                "__pycache__", "*.pyc", ".hypothesis", "*.nbi", "*.nbc"))
        else:
            shutil.copy2(src, dst / name)


def run_suite(work, args, timeout, env):
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-p",
           "_gbmut_profile", "-m", "not gpu", *args]
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", time.perf_counter() - t0, ""
    tail = (p.stdout + p.stderr).strip().splitlines()
    return ("pass" if p.returncode == 0 else "fail"), time.perf_counter() - t0, \
        (tail[-1] if tail else "")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--list", action="store_true", help="print the mutations and exit")
    ap.add_argument("--only", nargs="*", help="run only these mutation ids")
    ap.add_argument("--workdir", help="work in this folder (default: a new temporary one)")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per test run")
    ap.add_argument("--json", help="write the per-mutation results here")
    ap.add_argument("--skip-baseline", action="store_true",
                    help="do not run the suites on the unmutated copy first")
    a = ap.parse_args()

    ids = [m[0] for m in MUTATIONS]
    assert len(set(ids)) == len(ids), "duplicate mutation ids"
    muts = [m for m in MUTATIONS if not a.only or m[0] in a.only]
    if a.list:
        for mid, f, old, new, suite in muts:
            print(f"{mid:38s} {f:45s} {suite:8s} {old.strip()!r} -> {new.strip()!r}")
        print(f"{len(muts)} mutations")
        return 0

    work = Path(a.workdir) if a.workdir else Path(tempfile.mkdtemp(prefix="gbmut-"))
    if work.exists() and any(work.iterdir()):
        shutil.rmtree(work)
    work.mkdir(parents=True, exist_ok=True)
    copy_tree(work)
    (work / "_gbmut_profile.py").write_text(PLUGIN)
    env = dict(os.environ)
    env["PYTHONPATH"] = str(work) + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("NUMBA_CACHE_DIR", str(work / ".numba-cache"))
    env["HYPOTHESIS_PROFILE"] = "mutation"
    env.setdefault("GRAPHBLAST_DEVICE", "cpu")
    print(f"work folder {work} (copy of {ROOT}); {len(muts)} mutations", flush=True)

    # the copy must import as itself
    chk = subprocess.run([sys.executable, "-c", "import graphblast_py, graphblast_py.algorithms "
                          "as a; print(graphblast_py.__file__); print(a.__file__)"],
                         cwd=work, env=env, capture_output=True, text=True)
    if not all(line.startswith(str(work)) for line in chk.stdout.split()):
        print("the copy does not import as itself:", chk.stdout, chk.stderr)
        return 2

    if not a.skip_baseline:
        for name in sorted({m[4] for m in muts}):
            status, secs, tail = run_suite(work, SUITES[name], a.timeout * 3, env)
            print(f"baseline {name:8s} {status:7s} {secs:6.1f}s  {tail}", flush=True)
            if status != "pass":
                print("the unmutated copy fails its tests: fix that first")
                return 2

    results = []
    for mid, f, old, new, suite in muts:
        path = work / f
        text = path.read_text()
        count = text.count(old)
        if count != 1:
            results.append(dict(id=mid, file=f, status=f"snippet found {count} times"))
            print(f"{mid:38s} SKIPPED: snippet found {count} times in {f}", flush=True)
            continue
        st = path.stat()
        path.write_text(text.replace(old, new))
        try:
            status, secs, tail = run_suite(work, SUITES[suite], a.timeout, env)
        finally:
            path.write_text(text)
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
        verdict = {"fail": "killed", "timeout": "killed (timeout)", "pass": "SURVIVED"}[status]
        results.append(dict(id=mid, file=f, suite=suite, status=verdict, seconds=round(secs, 1),
                            old=old, new=new, tail=tail))
        print(f"{mid:38s} {verdict:17s} {secs:6.1f}s  {tail[:90]}", flush=True)

    ran = [r for r in results if r["status"].startswith(("killed", "SURVIVED"))]
    killed = [r for r in ran if r["status"].startswith("killed")]
    survived = [r for r in ran if r["status"] == "SURVIVED"]
    print()
    print(f"mutation score: {len(killed)}/{len(ran)} killed = "
          f"{100.0 * len(killed) / max(len(ran), 1):.1f}%  "
          f"({len(results) - len(ran)} not applied)")
    for r in survived:
        print(f"  survived: {r['id']} ({r['file']}): {r['old'].strip()!r} -> {r['new'].strip()!r}")
    if a.json:
        Path(a.json).write_text(json.dumps(dict(score=len(killed) / max(len(ran), 1),
                                                killed=len(killed), ran=len(ran),
                                                results=results), indent=1))
    if not a.workdir:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
