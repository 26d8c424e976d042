"""gb.dist.run (SPMD mode): the algorithm files run on every worker at once
with collectives, on CPU worker processes (sockets; one worker: no
communication) and, where GPUs are present, one worker per GPU (NCCL; marked
``gpu``).  Results are checked against the single-process algorithms on the
same graphs; the collectives (the gathered input vector in each form and
dtype, the gathered numbers of every type) against the local operation."""
import numpy as np
import pytest

pytest.importorskip("distributed")
# one xdist process runs this file (--dist loadgroup): its clusters are module-scoped
pytestmark = pytest.mark.xdist_group("dist")

from hypothesis import HealthCheck, given, settings                  # noqa: E402
from hypothesis import strategies as st                               # noqa: E402

import graphblast_py as gb                                         # noqa: E402
from graphblast_py import dist, indexunary, monoid, semiring       # noqa: E402
from graphblast_py.algorithms import bfs, connected_components, pagerank, sssp  # noqa: E402
from graphblast_py.backend import gpu_count                         # noqa: E402
from graphblast_py.dist.spmd import _THERE                          # noqa: E402


def _close(client):
    cluster = client.cluster
    client.close()
    cluster.close()


CLUSTERS = ["cpu2", "cpu1",
            pytest.param("gpu1", marks=pytest.mark.gpu),
            pytest.param("gpu2", marks=pytest.mark.gpu),
            pytest.param("gpu4", marks=pytest.mark.gpu)]


@pytest.fixture(scope="module", params=CLUSTERS)
def client(request):
    kind = request.param
    if kind.startswith("gpu"):
        need = int(kind[3:])
        if gpu_count() < need:
            pytest.skip(f"needs {need} GPUs, {gpu_count()} visible")
        c = dist.start_local_gpus(need)
    else:
        c = dist.start_local(n_workers=int(kind[3:]))
    yield c
    _close(c)


def D(x, client):
    return dist.distribute(x, dist.Layout(client, x.shape[0]))


def _graphs():
    kron = gb.generators.kronecker(12, seed=3, device="cpu")   # hubs, isolated vertices
    grid = gb.generators.grid2d(6, 40, device="cpu")            # 44 levels
    er = gb.generators.erdos_renyi(900, nedges=1500, seed=2, device="cpu")
    r, c, _ = er.to_coo()                                        # every other vertex isolated
    iso = gb.Matrix.from_coo(np.asarray(r) * 2, np.asarray(c) * 2, True, 1801, 1801,
                             device="cpu")
    one = gb.Matrix(bool, 1, 1, device="cpu")
    return {"kron12": kron, "grid": grid, "isolated": iso, "one": one}


GRAPHS = _graphs()


def _source(A):
    return int(np.argmax(np.asarray(A.reduce_rowwise(monoid.plus).to_dense(fill=0)))) \
        if A.nvals else 0


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_algorithms_equal_single_process(client, name):
    A = GRAPHS[name]
    DA = D(A, client)
    src = _source(A)
    lv = dist.run(bfs, DA, src)
    assert isinstance(lv, dist.DistVector) and lv.size == A.nrows
    assert lv.gather().isequal(bfs(A, src))
    lv, par = dist.run(bfs, DA, src, parents=True)
    lv, par = lv.gather(), par.gather()
    assert par.nvals == lv.nvals
    S, depth = A.to_scipy(), lv.to_dense(fill=-1)
    for v, p in zip(*(np.asarray(a) for a in par.to_coo())):
        assert p == v if depth[v] == 0 else (depth[p] == depth[v] - 1 and S[p, v])
    assert dist.run(pagerank, DA).gather().isclose(pagerank(A), rel_tol=1e-9)
    assert dist.run(connected_components, DA).gather().isequal(connected_components(A))
    W = A.apply(indexunary.colindex, thunk=1).dup(np.float64)      # weight of i->j: j+1
    assert dist.run(sssp, D(W, client), src).gather().isclose(sssp(W, src), rel_tol=1e-12)


def _known_symmetric(K):
    """Whether this worker knew the symmetry of K before any check ran."""
    from graphblast_py.dist.objects import kept_values
    lay = K._layout
    kept = dict(kept_values(K._rows[lay.rank], K.nrows, K.ncols))
    return kept.get("symmetric_structure"), gb.Graph(K).is_symmetric_structure


def test_generated_blocks_equal_the_graph(client):
    lay = dist.Layout(client, 1)
    K = dist.kronecker(lay, 11, seed=5)
    A = gb.generators.kronecker(11, seed=5, device="cpu")
    assert K.gather().isequal(A)
    # symmetric by construction: known on every worker and on the client,
    # no whole-matrix check (which at Kronecker 27 would not fit the GPUs)
    assert dist.run(_known_symmetric, K) == (True, True)
    assert gb.Graph(K).is_symmetric_structure
    assert dist.run(connected_components, K).gather().isequal(connected_components(A))
    assert dist.run(bfs, K, 7).gather().isequal(bfs(A, 7))
    assert dist.run(pagerank, K).gather().isclose(pagerank(A), rel_tol=1e-9)
    one = dist.kronecker(lay, 0)                       # one vertex: the other block is empty
    assert one.shape == (1, 1) and one.gather().nvals == 0
    with pytest.raises(gb.InvalidValue):
        dist.kronecker("not a layout", 5)


def _mxv_forms(A, u, sr_name, dense, presence, sentinel):
    """A.mxv(u) after turning this rank's block of u dense (with or without
    a presence bitmap) when ``dense[rank]``: the gathered input then mixes
    the forms."""
    lay = u._layout
    r = lay.rank
    if dense[r]:
        blk = u._blocks[r]
        vals = np.asarray(blk.to("cpu").to_dense(fill=sentinel))
        new = gb.Vector.from_dense(vals, missing_value=sentinel if presence else None,
                                   device=blk.device)
        assert new.form == "dense"
        u._blocks[r] = new
    return A.mxv(u, getattr(semiring, sr_name)), u.vxm(A, getattr(semiring, sr_name))


@pytest.mark.parametrize("dtype,sr", [(np.float64, "plus_times"), (np.float32, "min_plus"),
                                      (np.int8, "max_plus"), (np.int64, "plus_times"),
                                      (bool, "any_pair")])
@pytest.mark.parametrize("dense", [(False, False), (True, False), (True, True)])
def test_gathered_input_every_form(client, dtype, sr, dense):
    rng = np.random.default_rng(int(np.dtype(dtype).num) + 7 * sum(dense))
    n = 201          # odd: unequal blocks
    keep = rng.random((n, n)) < 0.05
    r, c = np.nonzero(keep)
    A = gb.Matrix.from_coo(r, c, rng.integers(-3, 5, r.size).astype(dtype), n, n, dtype=dtype,
                           device="cpu")
    idx = np.flatnonzero(rng.random(n) < 0.04)         # sparse: below DENSE_FRACTION
    u = gb.Vector.from_coo(idx, rng.integers(1, 5, idx.size).astype(dtype), size=n,
                           dtype=dtype, device="cpu")
    nb = len(dist.Layout(client, n).workers)
    flags = tuple(dense[b % 2] for b in range(nb))
    for presence in ([False] if dtype is bool else [True, False]):
        if not presence:                  # a full block: u with every entry present
            u = gb.Vector.from_dense(np.asarray(u.to_dense(fill=2)).astype(dtype),
                                     device="cpu")
        w1, w2 = dist.run(_mxv_forms, D(A, client), D(u, client), sr, flags, presence, 99)
        ref1, ref2 = A.mxv(u, getattr(semiring, sr)), u.vxm(A, getattr(semiring, sr))
        for got, ref in ((w1, ref1), (w2, ref2)):
            got = got.gather()
            if np.dtype(dtype).kind == "f":
                assert got.isclose(ref, rel_tol=1e-6)
            else:
                assert got.isequal(ref)


VALUES = [True, 7, -2**63, 2**70, 1.5, float("inf"), np.uint8(250), np.float32(0.1),
          np.int16(-5), np.bool_(False), np.uint64(2**64 - 1), None, "text",
          np.complex128(1j), (1, [2.5])]


def _gather_all(A):
    lay = A._layout
    out = []
    for v in VALUES:
        out.append(lay.gather([v if b == lay.rank else _THERE for b in range(lay.nblocks)],
                              "test"))
    # one block's value (as Vector.get does): only its owner contributes
    out.append(lay.gather([lay.rank * 10 if lay.rank == lay.nblocks - 1 else _THERE], "one"))
    return out


def test_gathered_numbers_keep_their_type(client):
    DA = D(GRAPHS["kron12"], client)
    nb = DA.device.nblocks
    got = dist.run(_gather_all, DA)
    for v, res in zip(VALUES, got):
        assert len(res) == nb
        for x in res:
            assert type(x) is type(v) and (x == v if not isinstance(v, float) or v == v
                                           else x != x)
    assert got[-1] == [(nb - 1) * 10]


def _raises(A, kind):
    if kind == "value":
        raise ValueError("broken on purpose")
    A.mxm(A, semiring.plus_times)


def test_errors(client):
    DA = D(GRAPHS["grid"], client)
    with pytest.raises(ValueError, match="broken on purpose.*raised on a worker"):
        dist.run(_raises, DA, "value")
    with pytest.raises(dist.NotDistributed):
        dist.run(_raises, DA, "mxm")
    with pytest.raises(gb.IndexOutOfBound):
        dist.run(bfs, DA, 10**6)
    with pytest.raises(gb.InvalidValue, match="no distributed argument"):
        dist.run(bfs, GRAPHS["grid"], 0)
    # the cluster is still usable after errors raised on every worker
    assert dist.run(bfs, DA, 0).gather().isequal(bfs(GRAPHS["grid"], 0))


def test_timed_and_last_seconds(client):
    DA = D(GRAPHS["kron12"], client)
    res, secs = dist.run_timed(pagerank, DA)
    assert secs > 0 and dist.last_seconds() == secs
    assert res.gather().isclose(pagerank(GRAPHS["kron12"]), rel_tol=1e-9)


def test_generator_rows_argument():
    A = gb.generators.kronecker(9, seed=4, device="cpu")
    r, c, _ = (np.asarray(a) for a in A.to_coo())
    for lo, hi in [(0, 512), (100, 300), (511, 512), (7, 7)]:
        B = gb.generators.kronecker(9, seed=4, rows=(lo, hi), device="cpu")
        assert B.shape == (hi - lo, 512)
        rb, cb, _ = (np.asarray(a) for a in B.to_coo())
        keep = (r >= lo) & (r < hi)
        assert np.array_equal(rb, r[keep] - lo) and np.array_equal(cb, c[keep])
    for bad in [(5, 600), (-1, 3), (4, 2), "x", (1.5, 2)]:
        with pytest.raises(gb.InvalidValue, match="rows"):
            gb.generators.kronecker(9, rows=bad)


def _coo_cases(A, u, case):
    n, dev = A.nrows, A.device
    if case == "dup":          # a duplicate in the last block only: every worker raises
        return gb.Vector.from_coo([0, n - 1, n - 1], [1, 2, 3], n, device=dev)
    if case == "range":
        return gb.Vector.from_coo([0, n], [1, 2], n, device=dev)
    if case == "min":
        return gb.Vector.from_coo([0, n - 1, 0, n - 1, 1], [5, 3, 2, 7, 1], n,
                                  dup_op=gb.binary.min, device=dev)
    idx, vals = u.to_coo()     # the arrays of this worker's device, the same on every one
    back = gb.Vector.from_coo(idx, vals, n, device=dev)
    picked = u.extract(idx[::-1].copy())      # device indices
    return back, picked, u.to_dense(fill=-1)


def test_from_coo_to_coo_extract_inside_run(client):
    A = GRAPHS["isolated"]
    n = A.nrows
    rng = np.random.default_rng(3)
    idx = np.flatnonzero(rng.random(n) < 0.3)
    u = gb.Vector.from_coo(idx, rng.integers(-9, 9, idx.size), size=n, device="cpu")
    DA, Du = D(A, client), D(u, client)
    with pytest.raises(gb.InvalidValue, match="more than once"):
        dist.run(_coo_cases, DA, Du, "dup")
    with pytest.raises(gb.IndexOutOfBound):
        dist.run(_coo_cases, DA, Du, "range")
    got = dist.run(_coo_cases, DA, Du, "min").gather()
    assert got.isequal(gb.Vector.from_coo([0, n - 1, 1], [2, 3, 1], n, device="cpu"))
    back, picked, dense = dist.run(_coo_cases, DA, Du, "roundtrip")
    assert back.gather().isequal(u)
    assert picked.gather().isequal(u.extract(idx[::-1].copy()))
    dense = dense.get() if hasattr(dense, "get") else dense      # CuPy from GPU workers
    assert np.array_equal(dense, np.asarray(u.to_dense(fill=-1)))


def _index_vector_cases(f, x, case):
    """Index-vector extract and from_coo inside run (each worker reads its
    own blocks of the index and value vectors)."""
    n = f.size
    if case == "range":                   # a bad value in the last block only
        return x.extract(f.apply(gb.binary.plus, right=1))
    if case == "pattern":                 # x and the sparser f differ in one block
        return gb.Vector.from_coo(f.select(indexunary.rowle, n - 2), x, n,
                                  dup_op=gb.binary.min)
    out = []
    for op in ("min", "max", "plus", "first"):
        out.append(gb.Vector.from_coo(f, x, n, dup_op=getattr(gb.binary, op)))
    out.append(gb.Vector.from_coo(f, 1, n, dup_op=gb.binary.plus))
    out.append(x.extract(f))
    out.append(f.extract(f))
    out.append(x.extract(f, mask=x.S, accum=gb.binary.plus, out=x.dup()))
    return out


@pytest.mark.parametrize("kind", ["full", "sparse", "negative"])
def test_index_vectors_inside_run_and_task_mode(client, kind):
    """from_coo(f, x, dup_op) and x.extract(f) with distributed index vectors
    (connected components' hooking and grandparents), inside run and in
    task mode, against the local operations: the reduce-scatter (values of
    32 bits sent packed, and negative ones that are not), the gathered
    fallback (first, few entries), missing entries; a bad index or
    mismatched positions on one block raise on every worker."""
    rng = np.random.default_rng(17)
    for n in (601, 5):
        f = rng.integers(0, max(n // 7, 1), n)          # the parents: small ids
        x = rng.integers(-5 if kind == "negative" else 0, 10**6, n)
        fv = gb.Vector.from_dense(f, device="cpu")
        xv = gb.Vector.from_dense(x, device="cpu")
        if kind == "sparse":
            keep = np.flatnonzero(rng.random(n) < 0.5)
            fv = gb.Vector.from_coo(keep, f[keep], n, device="cpu")
            xv = gb.Vector.from_coo(keep, x[keep], n, device="cpu")
        want = _index_vector_cases(fv, xv, "all")
        for got in (dist.run(_index_vector_cases, D(fv, client), D(xv, client), "all"),
                    _index_vector_cases(D(fv, client), D(xv, client), "all")):
            for g, w in zip(got, want):
                assert g.gather().isequal(w, check_dtype=True), (n, kind)
        bad = fv.dup()
        bad.assign(n - 1, mask=gb.Vector.from_coo([n - 1], True, n, device="cpu").S)
        with pytest.raises(gb.IndexOutOfBound, match="outside"):
            dist.run(_index_vector_cases, D(bad, client), D(xv, client), "range")
        if kind == "full":
            with pytest.raises(gb.InvalidValue, match="same positions"):
                dist.run(_index_vector_cases, D(fv, client), D(xv, client), "pattern")


def _gather_twice(u, last):
    """Gathers of an unchanged vector, then of one whose last block changed,
    then of a dup (the same content under new stamps); the collective
    profile of this worker."""
    from graphblast_py.dist import spmd
    spmd.profile_collectives(True)
    n = u.size
    first = u.to_dense(fill=-1)
    again = u.to_dense(fill=-1)                          # unchanged: the cache answers
    picked = u.extract(u.to_dense(fill=0) % n)           # an index array, the same u
    m = gb.Vector.from_coo([last], True, n, device=u.device)
    u.assign(100, mask=m.S)                              # one entry, in the last block
    changed = u.to_dense(fill=-1)
    copy = u.dup().to_dense(fill=-1)                     # new stamps: gathered again
    prof = spmd.profile_collectives(False)
    return first, again, picked, changed, copy, prof["exchanges"], prof["hits"]


def test_repeated_gathers_are_answered_without_sending(client):
    """A vector gathered again with no block changed is not sent again (the
    header's stamps), a changed block is; the results equal the local ones."""
    rng = np.random.default_rng(11)
    n = 301
    idx = np.flatnonzero(rng.random(n) < 0.4)
    u = gb.Vector.from_coo(idx, rng.integers(0, 50, idx.size), size=n, device="cpu")
    first, again, picked, changed, copy, ex, hits = dist.run(_gather_twice, D(u, client), n - 2)
    host_ = lambda a: a.get() if hasattr(a, "get") else np.asarray(a)      # noqa: E731
    want = np.asarray(u.to_dense(fill=-1))
    assert np.array_equal(host_(first), want) and np.array_equal(host_(again), want)
    assert picked.gather().isequal(u.extract(np.asarray(u.to_dense(fill=0)) % n))
    want[n - 2] = 100
    assert np.array_equal(host_(changed), want) and np.array_equal(host_(copy), want)
    # six gathers: 'again', the index array's and the extract's own were not sent
    assert (ex, hits) == (6, 3)


def _gather_dense(u, junk):
    """u.to_dense inside run, this worker's block first stored dense (with a
    presence bitmap and the value ``junk`` at its holes when it has any)."""
    from graphblast_py.dist import spmd
    r = u._layout.rank
    blk = u._blocks[r]
    vals = np.asarray(blk.to("cpu").to_dense(fill=junk))
    u._blocks[r] = gb.Vector.from_dense(vals, missing_value=junk if blk.nvals < blk.size
                                        else None, device=blk.device)
    assert u._blocks[r].form == "dense"
    spmd.profile_collectives(True)
    got = u.to_dense(fill=7)
    return got, spmd.profile_collectives(False)["bytes"]


@pytest.mark.parametrize("dt, fits, over", [
    ("int64", [-2**31, 2**31 - 1, 0, -5], [2**31, -2**31 - 1]),
    ("uint64", [0, 2**32 - 1, 5], [2**32, 2**63])])
@pytest.mark.parametrize("presence", [False, True])
@pytest.mark.parametrize("n", [1, 3, 301])
def test_dense_integer_gathers_travel_narrow(client, dt, fits, over, presence, n):
    """A dense vector of 64-bit integers whose values all fit 32 bits (on
    every worker; the values stored at holes do not count) is gathered as
    int32/uint32 -- about half the bytes -- and comes back exactly; one value
    out of range anywhere sends 64 bits."""
    workers = len(client.nthreads())       # (scheduler_info() is a cached copy)
    rng = np.random.default_rng(3)
    sent = {}
    for case, extremes in (("fits", fits), ("over", over)):
        vals = rng.integers(0, 1000, n).astype(dt)
        vals[rng.integers(0, n, len(extremes))] = np.array(extremes, dtype=dt)
        if case == "over":
            vals[n - 1] = np.array(over[0], dtype=dt)           # in the last block only
        u = gb.Vector.from_dense(vals, device="cpu")
        if presence:            # holes, whose stored values (out of range) are not looked at
            keep = np.flatnonzero(np.arange(n) % 3 != 0)
            u = gb.Vector.from_coo(keep, vals[keep], size=n, device="cpu")
            assert u.nvals < n
        junk = np.array(2**40, dtype=dt)
        got, sent[case] = dist.run(_gather_dense, D(u, client), junk)
        got = got.get() if hasattr(got, "get") else np.asarray(got)
        want = np.asarray(u.to_dense(fill=7))
        assert got.dtype == want.dtype and np.array_equal(got, want), case
    if workers > 1 and n > 64:            # (tiny blocks: the 8-byte alignment decides)
        assert sent["fits"] < 0.7 * sent["over"], sent


def _replicated_coo(n, m, dt, seed):
    """m entries over n positions, most at a few small ids (connected
    components' hooking: labels sent to their roots), some everywhere."""
    rng = np.random.default_rng(seed)
    idx = np.where(rng.random(m) < 0.7, rng.integers(0, min(3, n), m), rng.integers(0, n, m))
    info = np.iinfo(dt)
    vals = rng.integers(max(info.min, -1000), min(info.max, 1000), m, endpoint=True)
    return idx, vals.astype(dt)


def _reduced_build(u, m, dt, op, seed):
    from graphblast_py.dist import spmd
    spmd.profile_collectives(True)
    idx, vals = _replicated_coo(u.size, m, dt, seed)
    dev = u.device
    be = u._layout._be if hasattr(u._layout, "_be") else None
    idx, vals = (be.asarray(idx), be.asarray(vals)) if be is not None else (idx, vals)
    w = gb.Vector.from_coo(idx, vals, u.size, dup_op=getattr(gb.binary, op), device=dev)
    return w, spmd.profile_collectives(False)["bytes"]


@pytest.mark.parametrize("dt", ["int64", "uint8", "int32", "uint64", "int8"])
@pytest.mark.parametrize("op", ["min", "max", "plus"])
def test_from_coo_by_reduce_scatter(client, dt, op):
    """Vector.from_coo of many replicated entries with an integer min / max /
    plus inside run: each worker combines its share and a reduce-scatter
    combines the shares; equal to the local build (wrap-around sums of the
    small types included), with positions that no entry reaches."""
    workers = len(client.nthreads())       # (scheduler_info() is a cached copy)
    for n, ms in ((517, (517, 3 * 517)), (3, (0, 1, 5)), (1, (1, 4))):
        u = gb.Vector.from_coo([0], [1], size=n, device="cpu")
        for m in ms:                    # (tiny sizes: blocks of no position)
            w, sent = dist.run(_reduced_build, D(u, client), m, dt, op, 5)
            idx, vals = _replicated_coo(n, m, dt, 5)
            want = gb.Vector.from_coo(idx, vals, n, dup_op=getattr(gb.binary, op), device="cpu")
            assert w.gather().isequal(want, check_dtype=True), (n, m, dt, op)
            assert (sent > 0) == (workers > 1 and m > 0), (n, m)


def _slow_bfs(A, rounds):
    for _ in range(rounds):
        bfs(A, 0)


def test_worker_lost_inside_run():
    """A CPU worker killed while gb.dist.run runs BFS over a long path:
    WorkerLost naming the worker, within seconds (the survivor's collective
    sees the closed socket instead of waiting forever)."""
    import os
    import signal
    import threading
    import time
    c = dist.start_local(n_workers=2)
    try:
        n = 3000
        path = gb.Matrix.from_coo(np.arange(n - 1), np.arange(1, n), True, n, n, device="cpu")
        DA = D(path, c)
        victim = DA.device.workers[1]
        pid = c.run(os.getpid, workers=[victim])[victim]
        killer = threading.Timer(1.5, os.kill, (pid, signal.SIGKILL))
        t0 = time.perf_counter()
        killer.start()
        with pytest.raises(dist.WorkerLost) as e:
            dist.run(_slow_bfs, DA, 50)                  # ~3000 levels each: far beyond 1.5 s
        assert time.perf_counter() - t0 < 30
        assert victim in str(e.value) and "block 1 of 2" in str(e.value)
    finally:
        _close(c)


def _matrix_from_coo(A, u, case):
    n, dev = A.nrows, A.device
    if case == "dup":          # a duplicate in the first block only
        return gb.Matrix.from_coo([0, 0, n - 1], [1, 1, 2], [1, 2, 3], n, n, device=dev)
    idx, vals = u.to_coo()
    T = gb.Matrix.from_coo(vals.astype(np.int64) % n if hasattr(vals, "astype") else vals,
                           idx, 1, n, n, dup_op=gb.binary.any, device=dev)
    return T.reduce_rowwise(monoid.plus), T.nvals


def test_matrix_from_coo_inside_run(client):
    A = GRAPHS["isolated"]
    n = A.nrows
    rng = np.random.default_rng(4)
    idx = np.flatnonzero(rng.random(n) < 0.5)
    u = gb.Vector.from_coo(idx, rng.integers(0, 3 * n, idx.size), size=n, device="cpu")
    DA, Du = D(A, client), D(u, client)
    with pytest.raises(gb.InvalidValue, match="more than once"):
        dist.run(_matrix_from_coo, DA, Du, "dup")
    rows, nv = dist.run(_matrix_from_coo, DA, Du, "build")
    ref, ref_nv = _matrix_from_coo(A, u, "build")
    assert nv == ref_nv and rows.gather().isequal(ref)


def _ops(A, u, v, thunk):
    """A chain of the operations the algorithms use, on whatever objects it
    is given (local, or distributed inside gb.dist.run)."""
    out = [u.ewise_add(v, gb.binary.plus), u.ewise_mult(v, gb.binary.times),
           u.ewise_union(v, gb.binary.minus, 0, 1),
           u.apply(gb.unary.abs), u.apply(gb.binary.times, right=2),
           u.apply(indexunary.rowindex, thunk=thunk), u.select("valuegt", thunk),
           u.select(indexunary.rowle, thunk)]
    w = v.dup()
    w.assign(u, mask=v.S, accum=gb.binary.max)
    w.assign(7, mask=~u.S)
    out.append(w)
    out.append(A.mxv(u, semiring.plus_times, mask=~v.S, replace=True))
    out.append(u.vxm(A, semiring.min_plus, mask=v.V, accum=gb.binary.plus, out=v.dup()))
    out.append(A.mxv(u, semiring.any_pair))
    out.append(A.reduce_rowwise(monoid.max))
    out.append(A.select("rowle", thunk).reduce_rowwise(monoid.plus))
    out += [u.reduce(monoid.plus), u.reduce(monoid.min) if u.nvals else None, u.nvals,
            A.nvals, A.reduce_scalar(monoid.plus), u.isequal(v), u.isclose(u)]
    return out


@given(n=st.integers(1, 23), du=st.floats(0, 1), dv=st.floats(0, 1), thunk=st.integers(-3, 20),
       seed=st.integers(0, 2**16))
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_operations_against_local(client, n, du, dv, thunk, seed):
    """Every operation the algorithms use, inside gb.dist.run, against the
    same operations on local objects (Hypothesis on small shapes, uneven
    and empty blocks included)."""
    rng = np.random.default_rng(seed)
    keep = rng.random((n, n)) < 0.3
    r, c = np.nonzero(keep)
    A = gb.Matrix.from_coo(r, c, rng.integers(-3, 5, r.size).astype(np.int64), n, n,
                           device="cpu")

    def vec(d):
        idx = np.flatnonzero(rng.random(n) < d)
        return gb.Vector.from_coo(idx, rng.integers(-3, 5, idx.size), size=n, dtype=np.int64,
                                  device="cpu")
    u, v = vec(du), vec(dv)
    got = dist.run(_ops, D(A, client), D(u, client), D(v, client), thunk)
    ref = _ops(A, u, v, thunk)
    assert len(got) == len(ref)
    for k, (g, e) in enumerate(zip(got, ref)):
        if isinstance(e, gb.Vector):
            assert g.gather().isequal(e, check_dtype=True), k
        else:
            assert g == e and type(g) is type(e), (k, g, e)


def test_four_processes():
    c = dist.start_local(n_workers=4)
    try:
        A = gb.generators.kronecker(10, seed=9, device="cpu")
        A = A.extract(np.arange(1001), np.arange(1001))          # uneven blocks
        DA = D(A, c)
        assert DA.device.nblocks == 4
        assert dist.run(bfs, DA, 0).gather().isequal(bfs(A, 0))
        assert dist.run(pagerank, DA).gather().isclose(pagerank(A), rel_tol=1e-9)
        assert dist.run(connected_components, DA).gather().isequal(connected_components(A))
        K = dist.kronecker(dist.Layout(c, 1), 12, seed=2)
        G = gb.generators.kronecker(12, seed=2, device="cpu")
        assert dist.run(bfs, K, 5).gather().isequal(bfs(G, 5))
    finally:
        _close(c)


# ---------------------------------------------------------------- Matrix Market in parallel
from pathlib import Path                                             # noqa: E402

DATA = Path(__file__).resolve().parent / "data"
GOOD = ["A.mtx", "karate.mtx", "ldbc-undirected-example.mtx", "matrix_int32.mtx", "s6.mtx",
        "skew_fp64.mtx", "typed_fp32_inf.mtx", "typed_fp64_inf.mtx", "typed_int8.mtx",
        "west0067.mtx"]
BAD = ["mangled1.mtx", "mangled2.mtx", "mangled3.mtx", "mangled4.mtx", "mangled5.mtx",
       "headerless.mtx", "skew_diagonal.mtx", "typed_bool_bad.mtx", "typed_int8_bad.mtx",
       "typed_uint8_bad.mtx"]


@pytest.mark.parametrize("name", GOOD)
def test_mmread_in_parallel_equals_mmread(client, name):
    ref = gb.io.mmread(DATA / name, device="cpu")
    M = dist.mmread(dist.Layout(client, 1), DATA / name)
    assert M.shape == ref.shape and M.dtype == ref.dtype
    assert M.gather().isequal(ref)


@pytest.mark.parametrize("name", BAD)
def test_mmread_in_parallel_refuses_what_mmread_refuses(client, name):
    with pytest.raises(gb.MatrixMarketError) as serial:
        gb.io.mmread(DATA / name, device="cpu")
    with pytest.raises(gb.MatrixMarketError) as par:
        dist.mmread(dist.Layout(client, 1), DATA / name)
    assert name in str(par.value)
    if "line" in str(serial.value) and "line " in str(par.value):   # the same line named
        line = str(serial.value).split("line ")[1].split(":")[0]
        assert f"line {line}:" in str(par.value)


def test_mmread_in_parallel_large_file(client, tmp_path):
    """Entry lines crossing the byte ranges, comments and blank lines in the
    body, CRLF line ends, a bad index near the end (its line named), a wrong
    entry count, a duplicate."""
    rng = np.random.default_rng(6)
    n, m = 3001, 20000
    r = rng.integers(1, n + 1, m)
    c = rng.integers(1, n + 1, m)
    keys = np.unique(r * (n + 1) + c)
    r, c = keys // (n + 1), keys % (n + 1)
    v = rng.standard_normal(r.size)
    lines = [f"{a} {b} {float(x)!r}" for a, b, x in zip(r, c, v)]
    lines.insert(len(lines) // 3, "% a comment inside the body")
    lines.insert(len(lines) // 2, "")
    text = "%%MatrixMarket matrix coordinate real general\r\n% made by the test\r\n" \
           f"{n} {n} {r.size}\r\n" + "\r\n".join(lines) + "\r\n"
    good = tmp_path / "big.mtx"
    good.write_bytes(text.encode())
    ref = gb.io.mmread(good, device="cpu")
    assert dist.mmread(dist.Layout(client, 1), good).gather().isequal(ref)
    bad = text.splitlines()
    k = len(bad) - 5
    bad[k] = f"{n + 1} 1 1.0"
    (tmp_path / "bad.mtx").write_text("\n".join(bad) + "\n")
    with pytest.raises(gb.MatrixMarketError, match=f"line {k + 1}: row index {n + 1}"):
        dist.mmread(dist.Layout(client, 1), tmp_path / "bad.mtx")
    short = text.replace(f"{n} {n} {r.size}", f"{n} {n} {r.size + 1}")
    (tmp_path / "short.mtx").write_text(short)
    with pytest.raises(gb.MatrixMarketError, match="holds"):
        dist.mmread(dist.Layout(client, 1), tmp_path / "short.mtx")
    dup = text.replace(f"{n} {n} {r.size}", f"{n} {n} {r.size + 1}") + lines[0] + "\n"
    (tmp_path / "dup.mtx").write_text(dup)
    with pytest.raises(gb.MatrixMarketError, match="more than once"):
        dist.mmread(dist.Layout(client, 1), tmp_path / "dup.mtx")
    summed = dist.mmread(dist.Layout(client, 1), tmp_path / "dup.mtx", dup_op=gb.binary.plus)
    assert summed.gather().isequal(gb.io.mmread(tmp_path / "dup.mtx", dup_op=gb.binary.plus,
                                                device="cpu"))
    with pytest.raises(dist.NotDistributed, match="compressed"):
        dist.mmread(dist.Layout(client, 1), tmp_path / "x.mtx.gz")
