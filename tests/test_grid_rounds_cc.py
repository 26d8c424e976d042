"""The CPU's paths for connected components (FastSV) and SSSP rounds on
grids, issue 15 item 4 (the eleventh session), each against references
nobody here wrote (SciPy's csgraph, networkx, NumPy loops written from the
definition, the dense model of tests/reference.py) and against the general
path (the hook switched off: what a backend without it, the GPU's, runs):

* ``pull_accum`` by diagonals (cpu/diagonals.py): a CSR whose entries lie
  on a few diagonals -- grids with and without diagonals, paths, banded
  matrices with holes, rectangular ones -- is read by contiguous slices of
  the input instead of a gather; the plan is found, refused (too many
  diagonals, too many irregular rows) and dropped when the matrix changes;
* whole connected components and SSSP on the graph families that break
  things (empty, one vertex, isolated vertices, grids, disconnected grids
  with isolated vertices, tori, grids with diagonals, power-law, random, a
  path) with the hooks on and off.
"""
import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph

import graphblast_py as gb
from graphblast_py import binary, semiring

from . import reference as R

CPU = gb.backend.get("cpu")


class _Off:
    """Context: the CPU backend with the named class switches (``_pull_*``)
    set to False."""

    def __init__(self, *names):
        self.names = names

    def __enter__(self):
        for name in self.names:
            setattr(CPU, name, False)
        return self

    def __exit__(self, *exc):
        for name in self.names:
            CPU.__dict__.pop(name, None)


def _fold_loop(ip, ix, x, old, name):
    f = max if name == "max" else min
    want = old.copy()
    for r in range(ip.shape[0] - 1):
        for p in range(ip[r], ip[r + 1]):
            want[r] = f(want[r], x[ix[p]])
    return want


def _banded(n, m, offsets, holes, rng):
    """An n x m CSR with entries on the given diagonals, a share ``holes``
    of them dropped."""
    rows, cols = [], []
    for o in offsets:
        r = np.arange(max(0, -o), min(n, m - o))
        rows.append(r)
        cols.append(r + o)
    r, c = np.concatenate(rows), np.concatenate(cols)
    keep = rng.random(r.shape[0]) >= holes
    M = sp.csr_matrix((np.ones(int(keep.sum())), (r[keep], c[keep])), shape=(n, m))
    M.sort_indices()
    return M


def _diagonal_cases():
    rng = np.random.default_rng(7)
    out = []
    for k, diag in ((1, False), (2, False), (3, False), (17, False), (31, True), (5, True)):
        out.append((f"grid {k}x{k + 3}{' diagonals' if diag else ''}",
                    gb.generators.grid2d(k, k + 3, diagonals=diag, device="cpu")
                    .to_scipy().tocsr()))
    out.append(("path", sp.diags([np.ones(49), np.ones(49)], [-1, 1], shape=(50, 50)).tocsr()))
    out.append(("diagonal", sp.identity(9, format="csr")))
    out.append(("one diagonal above", sp.diags([np.ones(8)], [1], shape=(9, 9)).tocsr()))
    out.append(("banded with holes", _banded(400, 400, [-9, -2, 0, 3, 40], 0.01, rng)))
    out.append(("wide band", _banded(120, 300, [0, 7, 150, 170], 0.0, rng)))
    out.append(("tall band", _banded(300, 60, [-200, -31, -1], 0.0, rng)))
    out.append(("eight diagonals", _banded(500, 500, [-60, -9, -4, -1, 1, 5, 11, 77], 0.002,
                                           rng)))
    return out


_DIAG = _diagonal_cases()


@pytest.mark.parametrize("name", ["min", "max"])
@pytest.mark.parametrize("dt", ["int64", "int32", "uint8", "int8", "uint64"])
@pytest.mark.parametrize("case,M", _DIAG, ids=[c[0] for c in _DIAG])
def test_pull_accum_by_diagonals(case, M, dt, name):
    """The diagonal kernel against a loop over the CSR, into a new array
    and in place, values at the type's extremes."""
    from graphblast_py.backend.cpu import diagonals
    ip, ix = M.indptr.astype(np.int32), M.indices.astype(np.int32)
    plan = diagonals.diagonal_plan(ip, ix, any_share=True)
    assert plan is not None, case
    offs, irr = plan
    cols = ix.astype(np.int64) - np.repeat(np.arange(M.shape[0]), np.diff(ip))
    assert offs.tolist() == sorted(set(cols.tolist()))
    assert irr.tolist() == np.flatnonzero(np.diff(ip) != offs.shape[0]).tolist()
    rng = np.random.default_rng(len(case) + len(dt))
    info = np.iinfo(dt)
    x = rng.integers(info.min, info.max, M.shape[1], endpoint=True, dtype=dt)
    old = rng.integers(info.min, info.max, M.shape[0], endpoint=True, dtype=dt)
    if x.shape[0] > 2:
        x[0], x[-1] = info.min, info.max
    want = _fold_loop(ip, ix, x, old, name)
    got = np.empty_like(old)
    diagonals.pull_accum_diagonals(ip, ix, x, name == "max", offs, irr, old, got)
    assert np.array_equal(got, want)
    o = old.copy()
    diagonals.pull_accum_diagonals(ip, ix, x, name == "max", offs, irr, o, o)
    assert np.array_equal(o, want)
    for nblocks in (2, 3, 7, M.shape[0] + 5):     # blocks of rows in threads (some empty)
        got = np.empty_like(old)
        diagonals.pull_accum_diagonals(ip, ix, x, name == "max", offs, irr, old, got, nblocks)
        assert np.array_equal(got, want), nblocks


def test_diagonal_plan_refused():
    """No plan for a matrix with more than eight diagonals, with more than a
    quarter of its rows irregular, or without entries."""
    from graphblast_py.backend.cpu import diagonals
    rng = np.random.default_rng(3)

    def plan(M):
        M = sp.csr_matrix(M)
        return diagonals.diagonal_plan(M.indptr.astype(np.int32), M.indices.astype(np.int32))
    assert plan(_banded(50, 50, list(range(-4, 5)), 0.0, rng)) is None       # nine
    assert plan(_banded(50, 50, [-1, 1], 0.5, rng)) is None                  # holes
    assert plan(sp.csr_matrix((5, 5))) is None
    assert plan(gb.generators.grid2d(6, 6, periodic=True, device="cpu").to_scipy()) is None
    k = gb.generators.kronecker(8, seed=2, device="cpu").to_scipy()
    assert plan(k) is None
    assert plan(_banded(50, 50, [-1, 1], 0.0, rng)) is not None


def _mxv_min_second(A, g, accum_op=binary.min, sr=semiring.min_second):
    out = g.dup()
    A.mxv(g, sr, accum=accum_op, out=out)
    return out.to_dense()


@pytest.mark.parametrize("sr,acc,f", [(semiring.min_second, binary.min, np.minimum),
                                      (semiring.max_second, binary.max, np.maximum)])
@pytest.mark.parametrize("case,M", _DIAG, ids=[c[0] for c in _DIAG])
def test_mxv_accum_by_diagonals_against_scipy(case, M, sr, acc, f, monkeypatch):
    """``w = accum(w, A min.second g)`` through the framework, the diagonal
    plan on and off, against a SciPy product written from the definition
    (each row's min/max over the columns it stores); the diagonal kernel
    runs where the plan is made."""
    from graphblast_py.backend.cpu import diagonals
    if M.shape[0] != M.shape[1]:
        pytest.skip("the framework call needs a square matrix for out=g.dup()")
    calls = []
    real = diagonals.pull_accum_diagonals
    monkeypatch.setattr(diagonals, "pull_accum_diagonals",
                        lambda *a: calls.append(1) or real(*a))
    n = M.shape[0]
    rng = np.random.default_rng(n)
    vals = rng.integers(-10**12, 10**12, n)
    B = sp.csr_matrix(M, dtype=bool)
    A = gb.Matrix.from_scipy(B, device="cpu")
    g = gb.Vector.from_dense(vals, device="cpu")
    C = B.tocoo()
    want = vals.copy()
    f.at(want, C.row, vals[C.col])
    gb.stats.reset()
    assert np.array_equal(_mxv_min_second(A, g, acc, sr), want)
    planned = diagonals.diagonal_plan(B.indptr.astype(np.int32), B.indices.astype(np.int32))
    pulled = gb.stats()["last"]["mxv"] == "pull"    # (tiny ones push)
    assert bool(calls) == (planned is not None and pulled)
    assert pulled or n < 30
    with _Off("_pull_diagonals"):
        assert np.array_equal(_mxv_min_second(A.dup(), g, acc, sr), want)
    with _Off("_pull_accum"):
        assert np.array_equal(_mxv_min_second(A.dup(), g, acc, sr), want)


def test_diagonal_pull_in_threads_through_the_framework(monkeypatch):
    """With more threads than DIAGONAL_PARALLEL_THREADS and work above the
    threshold, the framework's call runs the blocks in threads: the same
    result as the CSR kernel."""
    from graphblast_py.backend.cpu import backend as cb
    from graphblast_py.backend.cpu import diagonals
    seen = []
    real = diagonals.pull_accum_diagonals
    monkeypatch.setattr(diagonals, "pull_accum_diagonals",
                        lambda *a: seen.append(a[-1]) or real(*a))
    monkeypatch.setattr(cb, "DIAGONAL_PARALLEL_THREADS", 0)
    monkeypatch.setattr(cb, "PULL_PARALLEL_WORK", 16)
    A = gb.generators.grid2d(40, 45, diagonals=True, device="cpu")
    vals = np.random.default_rng(2).integers(-50, 50, A.nrows)
    g = gb.Vector.from_dense(vals, device="cpu")
    got = _mxv_min_second(A, g)
    assert seen and seen[-1] > 1
    with _Off("_pull_diagonals"):
        assert np.array_equal(_mxv_min_second(A.dup(), g), got)
    S = A.to_scipy().tocoo()
    want = vals.copy()
    np.minimum.at(want, S.row, vals[S.col])
    assert np.array_equal(got, want)


def test_diagonal_plan_follows_matrix_changes():
    """The plan is kept with the matrix and dropped when it changes: an
    entry removed, then two added off the diagonals."""
    A = gb.generators.grid2d(20, 30, device="cpu").dup(gb.dtypes.INT64)
    n = A.nrows
    vals = np.arange(n, dtype=np.int64)[::-1].copy()
    g = gb.Vector.from_dense(vals, device="cpu")

    def check():
        S = A.to_scipy().tocoo()
        want = vals.copy()
        np.minimum.at(want, S.row, vals[S.col])
        assert np.array_equal(_mxv_min_second(A, g), want)
    def plan():
        kept = [v["diagonals"] for v in A._derived.values()
                if isinstance(v, dict) and "diagonals" in v]
        assert len(kept) == 1
        return kept[0][2]
    check()
    assert plan()[0].tolist() == [-30, -1, 1, 30]
    irregular = plan()[1].tolist()
    del A[31, 32]                         # an inner row loses an entry
    check()
    assert plan()[0].tolist() == [-30, -1, 1, 30]
    assert 31 in plan()[1].tolist() and 31 not in irregular
    A[0, n - 1] = 1                       # two more diagonals: every row irregular
    A[n - 1, 0] = 1
    check()
    assert plan() is None


# ---------------------------------------------------------------- whole algorithms
def _families():
    out = list(R.undirected_families())
    g = gb.generators.grid2d(30, 40, device="cpu").to_scipy().tocsr()
    out.append(("grid 30x40", g))
    out.append(("torus", gb.generators.grid2d(12, 15, periodic=True, device="cpu")
                .to_scipy().tocsr()))
    out.append(("grid with diagonals", gb.generators.grid2d(11, 14, diagonals=True,
                                                            device="cpu").to_scipy().tocsr()))
    out.append(("1 x n grid", gb.generators.grid2d(1, 57, device="cpu").to_scipy().tocsr()))
    # a grid cut in pieces (a column of edges removed) with isolated vertices
    # at both ends
    cut = gb.generators.grid2d(20, 20, device="cpu").to_scipy().tolil()
    for i in range(20):
        cut[i * 20 + 9, i * 20 + 10] = 0
        cut[i * 20 + 10, i * 20 + 9] = 0
    cut = cut.tocsr()
    cut.eliminate_zeros()
    out.append(("cut grid and isolated", sp.block_diag([sp.csr_matrix((2, 2)), cut,
                                                        sp.csr_matrix((3, 3))]).tocsr()))
    return out


_FAM = _families()


@pytest.mark.parametrize("mode", ["on", "off"])
@pytest.mark.parametrize("name,S", _FAM, ids=[f[0] for f in _FAM])
def test_cc_sssp_bfs_on_families(name, S, mode):
    with (_Off("_pull_diagonals") if mode == "off" else _Off()):
        R.check_cc_sssp_bfs(name, S)


def test_cc_on_a_large_grid_against_scipy(monkeypatch):
    """A grid of 250x250 (segments between irregular rows longer than any
    vector register) with edges removed at random, Boolean (a float matrix
    makes min.second's output float: no fused pull_accum): labels against
    SciPy's components (smallest vertex per component); the diagonal
    kernel ran."""
    from graphblast_py.backend.cpu import diagonals
    calls = []
    real = diagonals.pull_accum_diagonals
    monkeypatch.setattr(diagonals, "pull_accum_diagonals",
                        lambda *a: calls.append(1) or real(*a))
    rng = np.random.default_rng(5)
    S = gb.generators.grid2d(250, 250, device="cpu").to_scipy().tocoo()
    up = S.row < S.col
    keep = rng.random(int(up.sum())) >= 0.03
    r, c = S.row[up][keep], S.col[up][keep]
    M = sp.csr_matrix((np.ones(2 * r.shape[0], dtype=bool), (np.r_[r, c], np.r_[c, r])),
                      shape=S.shape)
    A = gb.Matrix.from_scipy(M, device="cpu")
    got = gb.algorithms.connected_components(A).to_dense()
    assert got.tolist() == R.smallest_labels(M)
    _, comp = csgraph.connected_components(M, directed=False)
    assert len(set(got.tolist())) == comp.max() + 1
    assert calls
