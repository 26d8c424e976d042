"""The CPU fast paths of issue 15 against references from elsewhere (SciPy's
csgraph, python-graphblas), at 1 and 2 numba threads:

* the pull/push loop kernels (row loop in blocks, the structure_only=False
  load, the reused push accumulator, an iso matrix's value passed as one
  constant) on hubs (Kronecker), grids (many levels), isolated vertices,
  empty and one-vertex graphs;
* the output rule with a sparse mask into a dense vector (a BFS level
  update; T from the mask, and T not restricted to the mask);
* ewise_union with a dense and a sparse operand (SSSP's relax test).
"""
import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph

import graphblast_py as gb
from graphblast_py import dtypes, semiring


@pytest.fixture(params=[1, 2])
def threads(request):
    import numba
    old = numba.get_num_threads()
    numba.set_num_threads(min(request.param, numba.config.NUMBA_NUM_THREADS))
    yield request.param
    numba.set_num_threads(old)


def _graphs():
    """(name, scipy CSR with a symmetric 0/1 pattern)."""
    out = []
    K = gb.generators.kronecker(9, seed=3).to_scipy().tocsr()       # hubs + isolated vertices
    out.append(("kron9", K))
    out.append(("grid", gb.generators.grid2d(23, 17).to_scipy().tocsr()))
    # two components and isolated vertices
    r = np.array([0, 1, 2, 5, 6])
    c = np.array([1, 2, 3, 6, 7])
    S = sp.coo_matrix((np.ones(5, bool), (r, c)), shape=(12, 12)).tocsr()
    out.append(("islands", (S + S.T).tocsr()))
    out.append(("one", sp.csr_matrix((1, 1), dtype=bool)))
    out.append(("empty", sp.csr_matrix((6, 6), dtype=bool)))
    return out


GRAPHS = _graphs()


def _levels_ref(S, src):
    d = csgraph.shortest_path(S.astype(np.float64), unweighted=True, indices=src)
    reach = np.flatnonzero(np.isfinite(d))
    return reach, d[reach].astype(np.int64)


def _bfs(A, src, direction, **kw):
    n = A.nrows
    levels = gb.Vector(dtypes.INT64, n)
    frontier = gb.Vector.from_coo([src], True, size=n)
    depth = 0
    while frontier.nvals:
        levels.assign(depth, mask=frontier.S)
        frontier.vxm(A, semiring.any_pair, mask=~levels.S, replace=True, out=frontier,
                     direction=direction, **kw)
        depth += 1
    return levels


@pytest.mark.parametrize("name,S", GRAPHS, ids=[g[0] for g in GRAPHS])
@pytest.mark.parametrize("direction", ["push", "pull", "auto"])
@pytest.mark.parametrize("switches", [{}, {"structure_only": False, "early_exit": False}])
def test_bfs_levels_match_scipy(threads, name, S, direction, switches):
    A = gb.Matrix.from_scipy(S)
    n = S.shape[0]
    srcs = [0] if n == 1 else [0, int(np.argmax(np.diff(S.indptr))), n - 1]
    for src in srcs:
        lv = _bfs(A, src, direction, **switches)
        idx, vals = lv.to_coo()
        want_idx, want_vals = _levels_ref(S, src)
        assert np.array_equal(idx, want_idx) and np.array_equal(vals, want_vals), (name, src)


@pytest.mark.parametrize("name,S", GRAPHS, ids=[g[0] for g in GRAPHS])
@pytest.mark.parametrize("direction", ["push", "pull"])
def test_iso_value_read_by_the_multiply(threads, name, S, direction):
    """An iso matrix whose value the multiply reads (plus_times, min_plus):
    the kernels get the one value; equal to SciPy on the explicit matrix."""
    n = S.shape[0]
    r, c = S.nonzero()
    B = gb.Matrix.from_coo(r, c, 2.5, n, n)         # iso: one value for every entry
    assert B.iso_value == 2.5 or S.nnz == 0
    Sv = S.astype(np.float64) * 2.5
    rng = np.random.default_rng(5)
    x = rng.integers(-3, 4, n).astype(np.float64)
    keep = rng.random(n) < 0.5
    u = gb.Vector.from_coo(np.flatnonzero(keep), x[keep], size=n)
    got = u.vxm(B, semiring.plus_times, direction=direction)
    want = Sv.T @ np.where(keep, x, 0.0)
    has = (S.T.astype(np.int64) @ keep.astype(np.int64)) > 0
    gi, gv = got.to_coo()
    assert np.array_equal(gi, np.flatnonzero(has))
    assert np.allclose(gv, want[has])
    got = u.vxm(B, semiring.min_plus, direction=direction)
    ref = np.full(n, np.inf)
    Sc = Sv.tocsc()
    for j in range(n):
        rows = Sc.indices[Sc.indptr[j]:Sc.indptr[j + 1]]
        rows = rows[keep[rows]]
        if rows.shape[0]:
            ref[j] = (x[rows] + 2.5).min()
    gi, gv = got.to_coo()
    assert np.array_equal(gi, np.flatnonzero(np.isfinite(ref)))
    assert np.array_equal(gv, ref[np.isfinite(ref)])


def test_push_accumulator_reused_across_sizes_and_types(threads):
    """The push workspace is per thread and per (size, dtype): interleaved
    calls on graphs of other sizes and output types stay exact."""
    rng = np.random.default_rng(9)
    for _ in range(3):
        for name, S in GRAPHS:
            n = S.shape[0]
            A = gb.Matrix.from_scipy(S)
            k = max(1, n // 5)
            idx = np.sort(rng.choice(n, k, replace=False))
            for sr, dt in ((semiring.plus_pair, np.int64), (semiring.any_pair, bool),
                           (semiring.plus_pair, np.int32)):
                u = gb.Vector.from_coo(idx, 1, size=n, dtype=dt)
                got = u.vxm(A, sr, direction="push")
                cnt = S.T.astype(np.int64) @ np.isin(np.arange(n), idx).astype(np.int64)
                gi, gv = got.to_coo()
                assert np.array_equal(gi, np.flatnonzero(cnt)), name
                if sr is semiring.plus_pair:
                    assert np.array_equal(gv, cnt[cnt > 0]), name


def test_sparse_mask_into_dense_vector():
    """The output rule with a sparse mask and a dense out: positions the
    mask allows take T (or lose their entry), the others keep out --
    written out with NumPy."""
    rng = np.random.default_rng(11)
    n = 300
    for trial in range(20):
        ov = rng.integers(0, 50, n)
        op_ = rng.random(n) < 0.7
        out = gb.Vector.from_coo(np.flatnonzero(op_), ov[op_], size=n, dtype=dtypes.INT64)
        out._dense()                                   # dense form, as a BFS level vector
        assert out.form == "dense"
        m = np.zeros(n, bool)
        m[rng.choice(n, 5, replace=False)] = True
        mask = gb.Vector.from_coo(np.flatnonzero(m), True, size=n)
        assert mask.form == "sparse"
        if trial % 2:
            # a scalar into the mask's positions (T from the mask)
            out.assign(7, mask=mask.S)
            wv = np.where(m, 7, ov)
            wp = op_ | m
        else:
            # a Vector whose entries reach outside the mask (T filtered by it)
            tp = rng.random(n) < 0.5
            tv = rng.integers(100, 200, n)
            t = gb.Vector.from_coo(np.flatnonzero(tp), tv[tp], size=n, dtype=dtypes.INT64)
            out.assign(t, mask=mask.S)
            wv = np.where(m, tv, ov)
            wp = np.where(m, tp, op_)
        gi, gv = out.to_coo()
        assert np.array_equal(gi, np.flatnonzero(wp))
        assert np.array_equal(gv, wv[wp])


@pytest.mark.parametrize("op", ["plus", "minus", "lt", "min", "first", "second", "times"])
@pytest.mark.parametrize("sizes", [(3, 150), (150, 3), (150, 160), (0, 150), (200, 5)])
def test_ewise_union_dense_and_sparse_vs_graphblas(op, sizes):
    graphblas = pytest.importorskip("graphblas")
    rng = np.random.default_rng(13)
    n = 200
    vecs = []
    for k in sizes:
        idx = np.sort(rng.choice(n, k, replace=False))
        v = rng.integers(-5, 5, k).astype(np.float64)
        x = gb.Vector.from_coo(idx, v, size=n, dtype=dtypes.FP64)
        x._dense()                      # dense form where it is dense enough
        g = graphblas.Vector.from_coo(idx, v, size=n, dtype="FP64")
        vecs.append((x, g))
    (a, ga), (b, gbv) = vecs
    assert "dense" in (a.form, b.form)
    got = a.ewise_union(b, getattr(gb.binary, op), -2.0, 3.0)
    want = ga.ewise_union(gbv, getattr(graphblas.binary, op), -2.0, 3.0).new()
    wi, wv = want.to_coo()
    gi, gv = got.to_coo()
    assert np.array_equal(gi, wi)
    assert np.array_equal(gv.astype(np.float64), wv.astype(np.float64))


@pytest.mark.parametrize("name,S", GRAPHS, ids=[g[0] for g in GRAPHS])
def test_traversals_match_scipy(threads, name, S):
    n = S.shape[0]
    A = gb.Matrix.from_scipy(S)
    W = A.dup(dtypes.FP64)
    d = gb.algorithms.sssp(W, 0).to_dense(fill=np.inf)
    assert np.array_equal(d, csgraph.dijkstra(S.astype(np.float64), indices=0))
    lab = gb.algorithms.connected_components(A).to_dense()
    _, ref = csgraph.connected_components(S, directed=False)
    # label = the smallest vertex of the component
    smallest = np.array([np.flatnonzero(ref == ref[v])[0] for v in range(n)], dtype=np.int64)
    assert np.array_equal(lab, smallest)
