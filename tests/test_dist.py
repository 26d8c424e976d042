"""graphblast_py.dist on Dask LocalClusters of CPU worker processes: every
distributed operation against the same operation on the local objects
(Hypothesis on small shapes), the algorithm files run unchanged on
distributed objects against their single-process results, and a worker
killed mid-algorithm."""
import os
import signal
import threading
import time

import numpy as np
import pytest

pytest.importorskip("distributed")
from hypothesis import given, settings                        # noqa: E402
from hypothesis import strategies as st                       # noqa: E402

import graphblast_py as gb                                    # noqa: E402
from graphblast_py import binary, dist, indexunary, monoid, semiring, unary  # noqa: E402
from graphblast_py.algorithms import bfs, connected_components, pagerank, sssp  # noqa: E402
from graphblast_py.errors import DeviceMismatch, DimensionMismatch  # noqa: E402

FEW = settings(max_examples=6)


def _start(n):
    return dist.start_local(n_workers=n, threads_per_worker=1)


def _close(client):
    cluster = client.cluster
    client.close()
    cluster.close()


@pytest.fixture(scope="module")
def client():
    c = _start(2)
    yield c
    _close(c)


def D(x, client):
    """x distributed over the client's workers."""
    return dist.distribute(x, dist.Layout(client, x.shape[0]))


def rvec(rng, n, dtype=np.float64, density=0.5):
    idx = np.flatnonzero(rng.random(n) < density)
    vals = rng.integers(-3, 5, idx.size).astype(dtype)
    return gb.Vector.from_coo(idx, vals, size=n, dtype=dtype, device="cpu")


def rmat(rng, n, m, dtype=np.float64, density=0.3):
    keep = rng.random((n, m)) < density
    r, c = np.nonzero(keep)
    vals = rng.integers(-3, 5, r.size).astype(dtype)
    return gb.Matrix.from_coo(r, c, vals, n, m, dtype=dtype, device="cpu")


def same(d, local):
    assert isinstance(d, (dist.DistVector, dist.DistMatrix)), type(d)
    g = d.gather()
    assert g.dtype == local.dtype, (g.dtype, local.dtype)
    assert g.isclose(local, rel_tol=1e-12), (g, local)


# ---------------------------------------------------------------- operations
@FEW
@given(n=st.integers(0, 11), seed=st.integers(0, 2**16))
def test_vector_operations(client, n, seed):
    rng = np.random.default_rng(seed)
    u, v, w = rvec(rng, n), rvec(rng, n), rvec(rng, n, np.int64)
    du, dv, dw = D(u, client), D(v, client), D(w, client)
    assert du.nvals == u.nvals and du.size == n
    same(du.ewise_add(dv, binary.plus), u.ewise_add(v, binary.plus))
    same(du.ewise_mult(dv, "times", mask=dw.S), u.ewise_mult(v, "times", mask=w.S))
    same(du.ewise_union(dv, binary.minus, 1.0, -2.0, mask=~dw.V),
         u.ewise_union(v, binary.minus, 1.0, -2.0, mask=~w.V))
    same(du.apply(unary.ainv), u.apply(unary.ainv))
    same(du.apply(binary.div, left=2.0), u.apply(binary.div, left=2.0))
    same(dw.apply(indexunary.rowindex, thunk=3), w.apply(indexunary.rowindex, thunk=3))
    same(du.select("rowle", n // 2), u.select("rowle", n // 2))
    same(du.select("rowgt", n // 3), u.select("rowgt", n // 3))
    same(du.select(">", 0), u.select(">", 0))
    same(du.dup(np.int32), u.dup(np.int32))
    for mon in (monoid.plus, monoid.min, monoid.max, "times"):
        assert du.reduce(mon) == pytest.approx(u.reduce(mon))
    assert dw.apply(unary.one).reduce(monoid.lor) == w.apply(unary.one).reduce(monoid.lor)
    np.testing.assert_array_equal(du.to_dense(fill=-7), u.to_dense(fill=-7))
    # assign: a scalar, an aligned vector, masks, accum, replace
    x, dx = u.dup(), du.dup()
    x.assign(5.0, mask=~v.S)
    dx.assign(5.0, mask=~dv.S)
    same(dx, x)
    x.assign(v, mask=w.S, accum=binary.plus, replace=True)
    dx.assign(dv, mask=dw.S, accum=binary.plus, replace=True)
    same(dx, x)
    # out= (aliasing the input) and accum
    du.ewise_add(dv, binary.min, out=du)
    u.ewise_add(v, binary.min, out=u)
    same(du, u)
    perm = rng.permutation(n)
    same(du.extract(perm), u.extract(perm))
    # an index Vector (connected components' f(f) and hooking), with holes
    if n:
        ix = np.flatnonzero(rng.random(n) < 0.7)
        iv = gb.Vector.from_coo(ix, rng.integers(0, n, ix.size), size=n, device="cpu")
        div = D(iv, client)
        same(du.extract(div), u.extract(iv))
        same(du.extract(div, mask=dw.S, accum=binary.plus, out=dv.dup()),
             u.extract(iv, mask=w.S, accum=binary.plus, out=v.dup()))
        xv = gb.Vector.from_coo(ix, rng.integers(-4, 9, ix.size), size=n, device="cpu")
        for op in (binary.min, binary.plus, binary.first):
            same(gb.Vector.from_coo(div, D(xv, client), n, dup_op=op),
                 gb.Vector.from_coo(iv, xv, n, dup_op=op))
    assert du.isequal(D(u, client)) and du.isequal(u)
    if n:
        i = int(rng.integers(n))
        assert du.get(i) == u.get(i)


SEMIRINGS = ["plus_times", "min_plus", "any_secondi", "any_pair", "min_second", "max_first",
             "plus_firstj"]


@FEW
@given(n=st.integers(0, 10), m=st.integers(0, 10), seed=st.integers(0, 2**16),
       sr=st.sampled_from(SEMIRINGS), direction=st.sampled_from(["auto", "push", "pull"]))
def test_mxv_vxm(client, n, m, seed, sr, direction):
    rng = np.random.default_rng(seed)
    A = rmat(rng, n, m)
    DA = D(A, client)
    x, y = rvec(rng, m), rvec(rng, n)          # A x (size n), y A (size m)
    dx, dy = D(x, client), D(y, client)
    mn, mm = rvec(rng, n, np.int64), rvec(rng, m, np.int64)
    dmn, dmm = D(mn, client), D(mm, client)
    same(DA.mxv(dx, sr, direction=direction), A.mxv(x, sr, direction=direction))
    same(dy.vxm(DA, sr, direction=direction), y.vxm(A, sr, direction=direction))
    same(DA.mxv(dx, sr, mask=~dmn.S, replace=True, direction=direction),
         A.mxv(x, sr, mask=~mn.S, replace=True, direction=direction))
    out, dout = y.dup(), dy.dup()
    same(DA.mxv(dx, sr, mask=dmn.V, accum=binary.plus, out=dout),
         A.mxv(x, sr, mask=mn.V, accum=binary.plus, out=out))
    out, dout = x.dup(), dx.dup()
    same(dy.vxm(DA, sr, mask=~dmm.S, accum=binary.max, out=dout),
         y.vxm(A, sr, mask=~mm.S, accum=binary.max, out=out))


@FEW
@given(n=st.integers(0, 10), m=st.integers(0, 10), seed=st.integers(0, 2**16))
def test_matrix_operations(client, n, m, seed):
    rng = np.random.default_rng(seed)
    A, B = rmat(rng, n, m), rmat(rng, n, m)
    DA, DB = D(A, client), D(B, client)
    assert DA.nvals == A.nvals and DA.shape == A.shape
    assert DA.gather().isequal(A)
    assert DA.T.gather().isequal(A.T) and DA.T.T.gather().isequal(A)
    same(DA.reduce_rowwise(monoid.plus), A.reduce_rowwise(monoid.plus))
    for mon in (monoid.plus, monoid.max, monoid.lor):
        assert DA.reduce_scalar(mon) == pytest.approx(A.reduce_scalar(mon))
    same(DA.ewise_mult(DB, binary.ne), A.ewise_mult(B, binary.ne))
    same(DA.ewise_add(DB, binary.plus), A.ewise_add(B, binary.plus))
    same(DA.select("<", 0), A.select("<", 0))
    for k in (-1, 0, 2):
        same(DA.select("tril", k), A.select("tril", k))
        same(DA.select("offdiag", k), A.select("offdiag", k))
    same(DA.apply(indexunary.rowindex, thunk=1), A.apply(indexunary.rowindex, thunk=1))
    same(DA.apply(unary.abs), A.apply(unary.abs))
    same(DA.dup(np.int64), A.dup(np.int64))
    r, c, v = A.to_coo()
    lay = DA.device
    same(gb.Matrix.from_coo(r, c, v, n, m, device=lay), A)      # the hook in Matrix.from_coo
    same(gb.Vector(np.int32, n, device=lay), gb.Vector(np.int32, n, device="cpu"))
    same(gb.Vector.from_coo(np.arange(n), 2, size=n, device=lay),
         gb.Vector.from_coo(np.arange(n), 2, size=n, device="cpu"))


def test_errors(client):
    rng = np.random.default_rng(1)
    A = rmat(rng, 6, 5)
    DA, du = D(A, client), D(rvec(rng, 6), client)
    dv = D(rvec(rng, 5), client)
    before = du.gather()
    with pytest.raises(DimensionMismatch, match="size"):
        DA.mxv(du, semiring.plus_times)
    with pytest.raises(DimensionMismatch):
        du.ewise_add(dv, binary.plus, out=du)
    assert du.gather().isequal(before)                  # nothing written
    with pytest.raises(DeviceMismatch, match="distribute"):
        du.ewise_add(rvec(rng, 6), binary.plus)
    with pytest.raises(DeviceMismatch):
        DA.mxv(rvec(rng, 5), semiring.plus_times)
    with pytest.raises(dist.NotDistributed, match="firsti"):
        DA.mxv(dv, semiring.any_firsti)
    with pytest.raises(dist.NotDistributed, match="whole-vector"):
        du.assign(1.0, [0, 1])
    with pytest.raises(dist.NotDistributed, match="gather"):
        DA.kronecker(DA, binary.times)                  # a base method not provided
    import copy
    unknown = copy.copy(binary.plus)       # not an operator the workers can look up
    with pytest.raises(dist.NotDistributed, match="predefined"):
        du.ewise_add(du, unknown)
    with pytest.raises(gb.InvalidObject):
        dist.Layout("not a client", 3)


# ---------------------------------------------------------------- algorithms
def _graphs():
    kron12 = gb.generators.kronecker(12, seed=3, device="cpu")   # hubs, isolated vertices
    grid = gb.generators.grid2d(6, 15, device="cpu")              # 19 levels
    er = gb.generators.erdos_renyi(900, nedges=1500, seed=2, device="cpu")
    # isolated vertices and several components: pad an ER graph with empty rows
    r, c, _ = er.to_coo()
    iso = gb.Matrix.from_coo(np.asarray(r) * 2, np.asarray(c) * 2, True, 1801, 1801,
                             device="cpu")
    return {"kron12": kron12, "grid": grid, "isolated": iso}


GRAPHS = _graphs()


def _check_parents(A, levels, parents):
    lv = levels.to_dense(fill=-1)
    idx, par = parents.to_coo()
    S = A.to_scipy()
    for v, p in zip(np.asarray(idx), np.asarray(par)):
        if lv[v] == 0:
            assert p == v
        else:
            assert lv[p] == lv[v] - 1 and S[p, v]


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_algorithms_two_workers(client, name):
    A = GRAPHS[name]
    DA = D(A, client)
    src = int(np.argmax(np.asarray(A.reduce_rowwise(monoid.plus).to_dense())))
    lv = bfs(DA, src)
    assert isinstance(lv, dist.DistVector)
    assert lv.gather().isequal(bfs(A, src))
    if name == "kron12":
        lv, par = bfs(DA, src, parents=True)
        assert par.nvals == lv.nvals
        _check_parents(A, lv.gather(), par.gather())
    assert pagerank(DA).gather().isclose(pagerank(A), rel_tol=1e-9)
    assert connected_components(DA).gather().isequal(connected_components(A))
    W = A.apply(indexunary.colindex, thunk=1).dup(np.float64)      # weight of i->j: j+1
    DW = D(W, client)
    assert sssp(DW, src).gather().isclose(sssp(W, src), rel_tol=1e-12)


@pytest.mark.parametrize("scale", [14])
def test_bfs_pagerank_kronecker(client, scale):
    A = gb.generators.kronecker(scale, seed=scale, device="cpu")
    DA = D(A, client)
    assert bfs(DA, 1).gather().isequal(bfs(A, 1))
    assert pagerank(DA).gather().isclose(pagerank(A), rel_tol=1e-9)


def test_directed_and_tiny(client):
    rng = np.random.default_rng(5)
    A = rmat(rng, 300, 300, density=0.01).apply(unary.abs)
    DA = D(A, client)
    assert bfs(DA, 3).gather().isequal(bfs(A, 3))
    assert sssp(DA, 3).gather().isclose(sssp(A, 3), rel_tol=1e-12)
    assert pagerank(DA).gather().isclose(pagerank(A), rel_tol=1e-9)
    one = gb.Matrix(bool, 1, 1, device="cpu")
    assert bfs(D(one, client), 0).gather().isequal(bfs(one, 0))
    assert pagerank(D(one, client)).gather().isclose(pagerank(one))
    empty = gb.Matrix(bool, 0, 0, device="cpu")
    assert pagerank(D(empty, client)).nvals == 0


def test_direction_choice_matches_single_process(client):
    """On Kronecker 12 every block makes, level by level, the push/pull
    choice the single process makes (the gathered frontier carries its
    count)."""
    A = GRAPHS["kron12"]
    DA = D(A, client)

    def history():
        import graphblast_py
        return [h[1] for h in graphblast_py.stats()["history"] if h[0] == "vxm"]

    def reset():
        import graphblast_py
        graphblast_py.stats.reset()
    src = int(np.argmax(np.asarray(A.reduce_rowwise(monoid.plus).to_dense())))
    gb.stats.reset()
    bfs(A, src)
    single = history()
    assert "push" in single and "pull" in single
    client.run(reset)
    bfs(DA, src)
    for h in client.run(history).values():
        assert h == single


def test_four_workers():
    c = _start(4)
    try:
        A = gb.generators.kronecker(10, seed=9, device="cpu")
        A = A.extract(np.arange(1001), np.arange(1001))       # uneven blocks
        DA = D(A, c)
        assert DA.device.nblocks == 4
        assert bfs(DA, 0).gather().isequal(bfs(A, 0))
        assert pagerank(DA).gather().isclose(pagerank(A), rel_tol=1e-9)
    finally:
        _close(c)


# ---------------------------------------------------------------- faults
def test_worker_lost_mid_algorithm():
    """A worker killed while BFS runs over a long path: WorkerLost naming the
    worker and the step, within seconds (never a hang)."""
    c = _start(2)
    try:
        n = 4000
        path = gb.Matrix.from_coo(np.arange(n - 1), np.arange(1, n), True, n, n, device="cpu")
        DA = D(path, c)
        victim = DA.device.workers[1]
        pid = c.run(os.getpid, workers=[victim])[victim]
        killer = threading.Timer(1.0, os.kill, (pid, signal.SIGKILL))
        t0 = time.perf_counter()
        killer.start()
        with pytest.raises(dist.WorkerLost) as e:
            bfs(DA, 0)                                         # ~n levels: several seconds
        assert time.perf_counter() - t0 < 30
        msg = str(e.value)
        assert victim in msg and "block 1 of 2" in msg and "step" in msg
        assert isinstance(e.value, gb.GraphBLASError)
    finally:
        _close(c)
