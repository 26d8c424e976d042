"""The GPU push's offsets of a big frontier (the prefix sum of the frontier
vertices' degrees) by two launches, ``push_deg_blocks`` and
``push_scan_blocks`` (backend/gpu/kernels.py): forced on small graphs
(PUSH_SMALL_SCAN 0, few blocks so that every thread scans a run and
blocks add up earlier blocks' totals; and the earlier way, push_degrees and
cupy.cumsum, PUSH_SCAN_BLOCKS 0), every push result equals the CPU's
-- sparse and dense frontiers, frontiers with holes, vertices without
edges, each push mode (any_pair, any with values, plus, min), masked and
not -- and a BFS with parents on a power-law graph is a valid BFS tree."""
import numpy as np
import pytest

import graphblast_py as gb
from graphblast_py import backend

pytestmark = pytest.mark.gpu


@pytest.fixture
def be():
    return backend.get("gpu")


@pytest.mark.parametrize("blocks", [0, 1, 2, 7, 1024])
@pytest.mark.parametrize("sr", ["any_pair", "any_secondi", "plus_times", "min_plus", "lor_pair"])
@pytest.mark.parametrize("frontier", ["sparse", "dense"])
@pytest.mark.parametrize("masked", [False, True])
def test_two_launch_offsets_match_cpu(be, monkeypatch, blocks, sr, frontier, masked):
    monkeypatch.setattr(type(be), "PUSH_SMALL_SCAN", 0)
    monkeypatch.setattr(type(be), "PUSH_SCAN_BLOCKS", blocks)
    S = gb.generators.kronecker(11, seed=6, dtype=float, device="cpu").to_scipy().tocsr()
    S.data = np.random.default_rng(1).random(S.nnz) + 0.5
    n = S.shape[0]
    rng = np.random.default_rng(blocks)
    idx = np.flatnonzero(rng.random(n) < 0.6)               # holes; isolated vertices too
    x = rng.integers(1, 50, idx.size).astype(np.float64)
    seen = np.flatnonzero(rng.random(n) < 0.3)
    out = {}
    for dev in ("cpu", "gpu"):
        A = gb.Matrix.from_scipy(S, device=dev)
        u = gb.Vector.from_coo(idx, x, size=n, device=dev)
        if frontier == "dense":
            u._dense()
        kw = {}
        if masked:
            m = gb.Vector.from_coo(seen, True, size=n, device=dev)
            kw = dict(mask=~m.S, replace=True)
        w = u.vxm(A, sr, direction="push", **kw)
        out[dev] = [gb.backend.get(dev).to_host(a) for a in w.to_coo()]
    assert np.array_equal(out["gpu"][0], out["cpu"][0]), sr
    if sr == "any_secondi":                      # any: some in-neighbour in the frontier
        have = set(idx.tolist())
        for j, i in zip(*out["gpu"]):
            assert i in have and S[i, j]
    else:
        np.testing.assert_allclose(out["gpu"][1], out["cpu"][1], rtol=1e-12)


def test_bfs_parents_with_two_launch_offsets(be, monkeypatch):
    """A BFS with parents whose push levels all take the two-launch offsets
    (a valid BFS tree: each parent one level up and adjacent), levels
    equal to SciPy's."""
    import scipy.sparse.csgraph as csgraph
    from graphblast_py.algorithms import bfs
    monkeypatch.setattr(type(be), "PUSH_SMALL_SCAN", 0)
    monkeypatch.setattr(type(be), "PUSH_SCAN_BLOCKS", 3)
    A = gb.generators.kronecker(12, seed=2, device="gpu")
    S = A.to_scipy().get() if hasattr(A.to_scipy(), "get") else A.to_scipy()
    src = int(np.argmax(np.diff(S.indptr)))
    levels, parents = bfs(A, src, parents=True)
    lv = be.to_host(levels.to_dense(fill=-1))
    pa = be.to_host(parents.to_dense(fill=-1))
    d = csgraph.shortest_path(S, unweighted=True, indices=src)
    want = np.where(np.isinf(d), -1, d).astype(np.int64)
    assert np.array_equal(lv, want)
    for v in np.flatnonzero(lv > 0):
        p = pa[v]
        assert lv[p] == lv[v] - 1 and S[p, v]
    assert pa[src] == src


@pytest.mark.parametrize("fused", [256, 0])
@pytest.mark.parametrize("sr", ["any_pair", "any_secondi", "plus_times", "min_plus", "lor_pair",
                                "land_pair", "max_first"])
@pytest.mark.parametrize("masked", ["none", "complement", "plain"])
def test_fused_small_push_matches_cpu(be, monkeypatch, fused, sr, masked):
    """A sparse frontier of at most PUSH_FUSED entries takes
    ``push_edges_fused`` (each block scans the degrees in shared memory);
    with PUSH_FUSED 0 the same calls take the offsets launch.  Frontiers of
    1, 2, 31, 255 and 256 entries -- the hub alone (its row spread over
    many blocks), vertices without edges, duplicates in the result -- equal
    the CPU's push, entry by entry."""
    monkeypatch.setattr(type(be), "PUSH_FUSED", fused)
    names = []
    orig_fn = be._fn

    def fn(key, build, name):
        names.append(name)
        return orig_fn(key, build, name)

    monkeypatch.setattr(be, "_fn", fn)
    S = gb.generators.kronecker(12, seed=3, dtype=float, device="cpu").to_scipy().tocsr()
    S.data = np.random.default_rng(2).integers(1, 9, S.nnz).astype(np.float64)
    n = S.shape[0]
    deg = np.diff(S.indptr)
    hub = int(np.argmax(deg))
    rng = np.random.default_rng(len(sr))
    seen = np.flatnonzero(rng.random(n) < 0.3)
    iso = np.flatnonzero(deg == 0)
    for m in (1, 2, 31, 255, 256):
        pick = rng.choice(n, m, replace=False)
        if m == 1:
            pick = np.array([hub])
        elif iso.size:
            pick[0] = iso[0]                    # a vertex without edges
        idx = np.sort(pick)
        x = rng.integers(1, 50, idx.size).astype(np.float64)
        out = {}
        for dev in ("cpu", "gpu"):
            A = gb.Matrix.from_scipy(S, device=dev)
            u = gb.Vector.from_coo(idx, x, size=n, device=dev)
            kw = {}
            if masked != "none":
                mv = gb.Vector.from_coo(seen, True, size=n, device=dev)
                kw = dict(mask=~mv.S if masked == "complement" else mv.S, replace=True)
            be.last_kernel = None
            w = u.vxm(A, sr, direction="push", **kw)
            if dev == "gpu":
                assert be.last_kernel is not None and be.last_kernel[0] == "push"
                taken, not_taken = ("push_edges_fused", "push_offsets_small") if fused else \
                    ("push_offsets_small", "push_edges_fused")
                assert taken in names and not_taken not in names, (sr, m, names)
                names.clear()
            out[dev] = [gb.backend.get(dev).to_host(a) for a in w.to_coo()]
        assert np.array_equal(out["gpu"][0], out["cpu"][0]), (sr, m)
        if sr == "any_secondi":                  # any: some in-neighbour in the frontier
            have = set(idx.tolist())
            for j, i in zip(*out["gpu"]):
                assert i in have and S[i, j]
        else:
            np.testing.assert_allclose(out["gpu"][1], out["cpu"][1], rtol=1e-12,
                                       err_msg=f"{sr} m={m}")
