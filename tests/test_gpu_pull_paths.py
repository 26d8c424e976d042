"""GPU pull paths.  (1) The unmasked float plus_times pull by the
structure-only kernel spmv_sum (the GPU backend's _sum_pull, the default on
matrices whose rows are all short) and through cuSPARSE (_cusparse_pull,
with SUM_PULL off): taken where they apply, equal to SciPy's product entry
by entry where taken (empty rows and columns, hub rows, iso and valued
matrices, mxv and vxm, float32 and float64, every lane count), and not
taken where their conditions fail.  (2) Hub rows apart
(_heavy_split, pull_block): equal to the CPU."""
import numpy as np
import pytest
import scipy.sparse as sp

import graphblast_py as gb
from graphblast_py import backend

pytestmark = pytest.mark.gpu


@pytest.fixture
def be():
    return backend.get("gpu")          # the module is marked gpu: skipped without one


@pytest.fixture
def no_sum(be, monkeypatch):
    """The cuSPARSE pull's tests: spmv_sum off, so cuSPARSE takes the case."""
    monkeypatch.setattr(type(be), "SUM_PULL", False)


@pytest.fixture
def sum_calls(be, monkeypatch):
    """Counts the pulls spmv_sum answered."""
    calls = []
    real = type(be)._sum_pull

    def counting(self, *a, **k):
        out = real(self, *a, **k)
        if out is not None:
            calls.append(1)
        return out
    monkeypatch.setattr(type(be), "_sum_pull", counting)
    return calls


def _graph(seed, dtype):
    rng = np.random.default_rng(seed)
    S = sp.random(300, 300, density=0.02, format="csr", random_state=rng,
                  data_rvs=lambda k: rng.random(k) + 0.5).astype(dtype)
    S = S.tolil()
    S[5, :] = 0                                   # an empty row and an empty column
    S[:, 7] = 0
    S[11, :] = 1                                  # a hub row
    return S.tocsr()


def _kept(A, kind):
    """What the GPU pull keeps in A's derived-data cache: ``kind`` "cusparse"
    (plans) or "heavy_split" (hub-row splits)."""
    return [v for d in (A._derived or {}).values() if isinstance(d, dict)
            for k, v in d.items() if isinstance(k, tuple) and k and k[0] == kind]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("iso", [False, True])
@pytest.mark.parametrize("which", ["mxv", "vxm"])
def test_cusparse_pull_matches_scipy(be, no_sum, dtype, iso, which):
    S = _graph(1, dtype)
    if iso:
        S.data[:] = 1
    A = gb.Matrix.from_scipy(S, device="gpu")
    if iso:                                       # one value for all: PageRank's graphs
        r, c = S.nonzero()
        A = gb.Matrix.from_coo(r, c, True, 300, 300, device="gpu")
        assert A.iso
    x = np.random.default_rng(2).random(300).astype(dtype)
    u = gb.Vector.from_dense(x, device="gpu")
    sr = gb.semiring["plus_times"]
    if which == "mxv":
        w = A.mxv(u, sr, direction="pull")
        ref = S.astype(dtype) @ x
        rowlen = np.diff(S.indptr)
    else:
        w = u.vxm(A, sr, direction="pull")
        ref = S.astype(dtype).T @ x
        rowlen = np.diff(S.tocsc().indptr)
    assert len(_kept(A, "cusparse")) == 1, "the cuSPARSE pull was not taken"
    got_i, got_v = (be.to_host(a) for a in w.to_coo())
    assert np.array_equal(got_i, np.flatnonzero(rowlen > 0))     # empty rows: no entry
    np.testing.assert_allclose(got_v, ref[rowlen > 0], rtol=1e-5 if dtype == np.float32 else 1e-12)


@pytest.mark.parametrize("which", ["mxv", "vxm"])
def test_cusparse_pull_rectangular(be, no_sum, which):
    """A matrix that is not square (300 x 70): the plan sizes its buffers
    from both dimensions."""
    rng = np.random.default_rng(8)
    S = sp.random(300, 70, density=0.05, format="csr", random_state=rng)
    A = gb.Matrix.from_scipy(S, device="gpu")
    x = rng.random(70 if which == "mxv" else 300)
    u = gb.Vector.from_dense(x, device="gpu")
    if which == "mxv":
        w, ref, lens = A.mxv(u, "plus_times", direction="pull"), S @ x, np.diff(S.indptr)
    else:
        w, ref, lens = (u.vxm(A, "plus_times", direction="pull"), S.T @ x,
                        np.diff(S.tocsc().indptr))
    assert len(_kept(A, "cusparse")) == 1
    i, v = (be.to_host(a) for a in w.to_coo())
    assert np.array_equal(i, np.flatnonzero(lens > 0))
    np.testing.assert_allclose(v, ref[lens > 0], rtol=1e-12)


def test_cusparse_pull_not_taken(be, no_sum):
    """A mask, a vector with holes, a min monoid: the kernels run instead."""
    S = _graph(3, np.float64)
    A = gb.Matrix.from_scipy(S, device="gpu")
    x = np.random.default_rng(4).random(300)
    full = gb.Vector.from_dense(x, device="gpu")
    holes = gb.Vector.from_coo(np.arange(0, 300, 3), x[::3], size=300, device="gpu")
    A.mxv(full, "plus_times", mask=full.S, direction="pull")
    A.mxv(holes, "plus_times", direction="pull")
    A.mxv(full, "min_plus", direction="pull")
    assert not _kept(A, "cusparse")
    # and the results still equal SciPy's where the kernels ran
    w = A.mxv(holes, "plus_times", direction="pull")
    xs = np.zeros(300)
    xs[::3] = x[::3]
    i, v = (be.to_host(a) for a in w.to_coo())
    ref = S @ xs
    np.testing.assert_allclose(v, ref[i], rtol=1e-12)


@pytest.mark.parametrize("sr", ["min_plus", "min_second", "max_times", "plus_times", "plus_min"])
@pytest.mark.parametrize("which", ["mxv", "vxm"])
@pytest.mark.parametrize("holes", [False, True])
def test_hub_rows_apart_match_cpu(be, monkeypatch, sr, which, holes):
    """An unmasked pull that does not stop early takes the rows longer than
    PULL_HEAVY_ROW by a block each (pull_block) and the rest by the kernel
    over a row list: forced here on a small power-law graph (threshold 8), every
    entry equals the CPU's (empty rows, isolated vertices, a vector with
    holes)."""
    monkeypatch.setattr(type(be), "PULL_HEAVY_ROW", 8)
    monkeypatch.setattr(type(be), "CUSPARSE_PULL", False)
    monkeypatch.setattr(type(be), "SUM_PULL", False)
    K = gb.generators.kronecker(9, seed=4, dtype=float, device="cpu")
    S = K.to_scipy()
    S.data = np.random.default_rng(5).random(S.nnz) + 0.25
    n = S.shape[0]
    x = np.random.default_rng(6).random(n)
    idx = np.arange(0, n, 2) if holes else np.arange(n)
    out = {}
    for dev in ("cpu", "gpu"):
        A = gb.Matrix.from_scipy(S, device=dev)
        u = gb.Vector.from_coo(idx, x[idx], size=n, device=dev)
        w = A.mxv(u, sr, direction="pull") if which == "mxv" else u.vxm(A, sr, direction="pull")
        out[dev] = [gb.backend.get(dev).to_host(a) for a in w.to_coo()]
    assert any(v is not None for v in _kept(A, "heavy_split")), "the hub split was not taken"
    assert np.array_equal(out["gpu"][0], out["cpu"][0])
    np.testing.assert_allclose(out["gpu"][1], out["cpu"][1], rtol=1e-12)


def test_pull_caches_go_with_the_matrix(be, no_sum):
    """The cuSPARSE plan and the hub-row split live in the matrix's cache:
    once the matrix is gone its device memory is free again (they were kept
    by the backend before, which held dead graphs' arrays on the GPU)."""
    import gc
    import cupy
    pool = cupy.get_default_memory_pool()

    def run(n, density, seed):
        S = sp.random(n, n, density=density, format="csr", random_state=np.random.default_rng(seed))
        A = gb.Matrix.from_scipy(S, device="gpu")
        u = gb.Vector.from_dense(np.ones(n), device="gpu")
        u.vxm(A, "plus_times", direction="pull")
        A.mxv(u, "plus_times", direction="pull")
        assert _kept(A, "cusparse")
        return S.nnz, pool.used_bytes()
    run(50, 0.2, 1)                      # first-use allocations (kernels, constants) made here
    gc.collect()
    before = pool.used_bytes()
    nnz, during = run(4000, 0.05, 9)
    assert during > before + nnz * 8
    gc.collect()
    assert pool.used_bytes() < before + 2**20


@pytest.mark.parametrize("bits_min", [0, 9])
@pytest.mark.parametrize("sr", ["any_pair", "min_second", "plus_times", "any_secondi", "lor_pair"])
@pytest.mark.parametrize("which", ["mxv", "vxm"])
@pytest.mark.parametrize("masked", [False, True])
def test_pull_reads_packed_presence(be, monkeypatch, bits_min, sr, which, masked):
    """With an input of at least PULL_BITS_MIN positions the pull kernels read
    its presence packed one bit per position (forced here on small graphs,
    with sizes that are not a multiple of 8: the last byte's tail): every
    entry equals the CPU's, for the thread and the warp kernels, with early
    exit and without, under a complemented mask (BFS's pull) and without."""
    monkeypatch.setattr(type(be), "PULL_BITS_MIN", bits_min)
    monkeypatch.setattr(type(be), "CUSPARSE_PULL", False)
    monkeypatch.setattr(type(be), "SUM_PULL", False)
    for n, make in ((1021, lambda d: gb.generators.erdos_renyi(1021, nedges=4000, seed=3,
                                                                 device=d)),
                    (512, lambda d: gb.generators.kronecker(9, seed=4, device=d))):
        rng = np.random.default_rng(n)
        idx = np.flatnonzero(rng.random(n) < 0.3)
        vals = rng.integers(1, 9, idx.size).astype(np.int64)
        seen = np.flatnonzero(rng.random(n) < 0.4)
        out = {}
        for dev in ("cpu", "gpu"):
            A = make(dev)
            u = gb.Vector.from_coo(idx, vals, size=n, device=dev)
            u._dense()                       # the dense (bitmap) form the pull reads
            m = gb.Vector.from_coo(seen, True, size=n, device=dev)
            kw = dict(mask=~m.S, replace=True) if masked else {}
            w = A.mxv(u, sr, direction="pull", **kw) if which == "mxv" else \
                u.vxm(A, sr, direction="pull", **kw)
            out[dev] = [gb.backend.get(dev).to_host(a) for a in w.to_coo()]
        assert np.array_equal(out["gpu"][0], out["cpu"][0]), (n, sr)
        if sr != "any_secondi":              # any: any right index (checked below)
            np.testing.assert_array_equal(out["gpu"][1], out["cpu"][1])
        else:
            S = make("cpu").to_scipy().tocsr()
            S = S if which == "mxv" else S.T.tocsr()
            have = set(idx.tolist())
            for i, k in zip(*out["gpu"]):
                assert k in have and S[i, k]


def test_packed_presence_kernel(be):
    """pack_bits: bit c & 7 of byte c >> 3 is position c, for every length
    around a byte boundary."""
    import cupy
    rng = np.random.default_rng(0)
    for n in (0, 1, 7, 8, 9, 63, 64, 65, 1000):
        p = rng.random(n) < 0.5
        got = cupy.asnumpy(be._pack_bits(cupy.asarray(p)))
        want = np.packbits(p, bitorder="little")
        np.testing.assert_array_equal(got, want)


def _pr_graph(seed, dtype, n=700):
    """A power-law graph with an empty row and an empty column, hub rows and
    a hub column of more than 1024 entries (the default PULL_HEAVY_ROW) and
    rows of many lengths in between; values in [0.5, 1.5)."""
    rng = np.random.default_rng(seed)
    K = gb.generators.kronecker(10, seed=seed, device="cpu").to_scipy().tocsr()
    S = sp.lil_matrix((n + 1500, n + 1500), dtype=dtype)
    S[:1024, :1024] = K
    S[1100, :1400] = 1                             # hub rows longer than 1024
    S[1101, :] = 1
    S[:1300, 1104] = 1                             # a hub column (a hub row of A')
    S[:, 1102] = 0                                 # an empty column
    S[1103, :] = 0                                 # an empty row
    S = S.tocsr()
    S.data = (rng.random(S.nnz) + 0.5).astype(dtype)
    return S


@pytest.mark.parametrize("lanes", [None, 2, 4, 8, 16, 32])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("iso", [False, True])
@pytest.mark.parametrize("which", ["mxv", "vxm"])
def test_sum_pull_matches_scipy(be, monkeypatch, sum_calls, lanes, dtype, iso, which):
    """spmv_sum answers the unmasked float plus_times pull over a full
    vector: every entry equals SciPy's product, rows without entries have
    no entry, for every lane count, hub rows of more than 1024 entries
    included (forced: SUM_PULL_MAX_ROW None)."""
    monkeypatch.setattr(type(be), "SUM_PULL_LANES", lanes)
    monkeypatch.setattr(type(be), "SUM_PULL_MAX_ROW", None)     # power-law rows too
    S = _pr_graph(3, dtype)
    n = S.shape[0]
    if iso:
        r, c = S.nonzero()
        A = gb.Matrix.from_coo(r, c, True, n, n, device="gpu")
        assert A.iso
        S = sp.csr_matrix((np.ones(r.size, dtype), (r, c)), shape=(n, n))
    else:
        A = gb.Matrix.from_scipy(S, device="gpu")
    x = np.random.default_rng(2).random(n).astype(dtype)
    u = gb.Vector.from_dense(x, device="gpu")
    if which == "mxv":
        w, M = A.mxv(u, "plus_times", direction="pull"), S
    else:
        w, M = u.vxm(A, "plus_times", direction="pull"), S.T.tocsr()
    assert sum_calls, "spmv_sum was not taken"
    ref = (M.astype(np.float64) @ x.astype(np.float64))
    lens = np.diff(M.indptr)
    assert lens.max() > 1024 and (lens == 0).any()
    i, v = (be.to_host(a) for a in w.to_coo())
    assert np.array_equal(i, np.flatnonzero(lens > 0))
    np.testing.assert_allclose(v, ref[lens > 0], rtol=2e-5 if dtype == np.float32 else 1e-12)


@pytest.mark.parametrize("sr", ["plus_first", "plus_second"])
@pytest.mark.parametrize("which", ["mxv", "vxm"])
def test_sum_pull_projections(be, monkeypatch, sum_calls, sr, which):
    """plus_first / plus_second where the product is the vector's entry (the
    matrix's values unread): each output is the sum of x over the row's
    columns, or the sum of the matrix's values where they are the operand read."""
    monkeypatch.setattr(type(be), "SUM_PULL_MAX_ROW", None)
    S = _pr_graph(4, np.float64)
    n = S.shape[0]
    A = gb.Matrix.from_scipy(S, device="gpu")
    x = np.random.default_rng(5).random(n)
    u = gb.Vector.from_dense(x, device="gpu")
    M = S if which == "mxv" else S.T.tocsr()
    w = A.mxv(u, sr, direction="pull") if which == "mxv" else u.vxm(A, sr, direction="pull")
    reads_x = (sr == "plus_second") == (which == "mxv")
    P = M.copy()
    if reads_x:
        P.data[:] = 1.0
        ref = P @ x
        assert sum_calls, "spmv_sum was not taken"
    else:
        ref = np.asarray(M.sum(axis=1)).ravel()     # the matrix's values, x ignored
    lens = np.diff(M.indptr)
    i, v = (be.to_host(a) for a in w.to_coo())
    assert np.array_equal(i, np.flatnonzero(lens > 0))
    np.testing.assert_allclose(v, ref[lens > 0], rtol=1e-12)


def test_sum_pull_not_taken(be, monkeypatch, sum_calls):
    """A mask, a vector with holes, an integer product, a min monoid, a
    matrix with rows longer than SUM_PULL_MAX_ROW: the other kernels run
    (and still equal SciPy)."""
    S = _pr_graph(6, np.float64)
    n = S.shape[0]
    A = gb.Matrix.from_scipy(S, device="gpu")
    x = np.random.default_rng(7).random(n)
    full = gb.Vector.from_dense(x, device="gpu")
    holes = gb.Vector.from_coo(np.arange(0, n, 3), x[::3], size=n, device="gpu")
    A.mxv(full, "plus_times", mask=full.S, direction="pull")
    A.mxv(full, "min_plus", direction="pull")
    A.dup("int64").mxv(gb.Vector.from_dense(np.arange(n), device="gpu"), "plus_times",
                       direction="pull")
    w = A.mxv(holes, "plus_times", direction="pull")
    assert not sum_calls
    got = A.mxv(full, "plus_times", direction="pull")
    assert not sum_calls              # the default SUM_PULL_MAX_ROW: a power-law graph, cuSPARSE
    monkeypatch.setattr(type(be), "SUM_PULL_MAX_ROW", 100)
    got = A.mxv(full, "plus_times", direction="pull")
    assert not sum_calls                           # a row of 2199 entries: cuSPARSE
    i, v = (be.to_host(a) for a in got.to_coo())
    np.testing.assert_allclose(v, (S @ x)[i], rtol=1e-12)
    monkeypatch.setattr(type(be), "SUM_PULL_MAX_ROW", 5000)
    A.mxv(full, "plus_times", direction="pull")
    assert sum_calls
    xs = np.zeros(n)
    xs[::3] = x[::3]
    i, v = (be.to_host(a) for a in w.to_coo())
    np.testing.assert_allclose(v, (S @ xs)[i], rtol=1e-12)


@pytest.mark.parametrize("graph", ["power-law", "grid"])
def test_sum_pull_pagerank_equals_networkx(be, monkeypatch, sum_calls, graph):
    """PageRank on the GPU through spmv_sum equals networkx's, vertex by
    vertex: on a power-law graph with vertices without out-edges (spmv_sum
    forced) and, with the default settings, on a grid with an isolated
    vertex (its rows are short: spmv_sum is the default there)."""
    import networkx as nx
    from graphblast_py.algorithms import pagerank
    if graph == "power-law":
        monkeypatch.setattr(type(be), "SUM_PULL_MAX_ROW", None)
        S = _pr_graph(8, np.float64)
    else:
        G0 = gb.generators.grid2d(30, 40, device="cpu").to_scipy().tolil().astype(np.float64)
        G0[17, :] = 0
        G0[:, 17] = 0
        S = G0.tocsr()
        S.eliminate_zeros()
    S.data[:] = 1.0
    G = nx.from_scipy_sparse_array(S, create_using=nx.DiGraph)
    ref = nx.pagerank(G, tol=1e-10)
    got = pagerank(gb.Matrix.from_scipy(S, device="gpu"), tol=1e-10).to_dense()
    assert sum_calls
    np.testing.assert_allclose(be.to_host(got), [ref[i] for i in range(S.shape[0])],
                               rtol=1e-6, atol=1e-12)


@pytest.mark.parametrize("semiring_name,degree", [("any_pair", 3), ("min_plus", 3),
                                                  ("any_pair", 40), ("plus_times", 40)])
@pytest.mark.parametrize("complement", [False, True])
def test_pull_presence_on_reused_memory(be, semiring_name, degree, complement):
    """A pull over all rows writes every row's presence itself (no zero
    fill): on memory the pool hands back dirty (all True before), rows the
    mask leaves out and rows without a term are absent -- equal to the CPU,
    by the thread-per-row kernel (mean degree 3) and the warp kernel (40)."""
    import cupy
    rng = np.random.default_rng(degree)
    n = 3000
    S = sp.random(n, n, density=degree / n, format="lil", random_state=rng, dtype=np.float64)
    S[:, :50] = 0                                   # columns (vxm's outputs) without a term
    S = S.tocsr()
    S.eliminate_zeros()
    S.data[:] = rng.integers(1, 9, S.nnz)
    keep = rng.random(n) < 0.5
    u_idx = np.flatnonzero(rng.random(n) < 0.3)
    u_val = rng.integers(1, 5, u_idx.size).astype(np.float64)
    sr = gb.semiring[semiring_name]

    def run(device):
        A = gb.Matrix.from_scipy(S, device=device)
        u = gb.Vector.from_coo(u_idx, u_val, size=n, device=device)
        m = gb.Vector.from_dense(keep, missing_value=False, device=device)   # dense, holes
        got = u.vxm(A, sr, mask=~m.S if complement else m.S, direction="pull")
        assert gb.stats.last("vxm") == "pull"
        return [np.asarray(a.get() if hasattr(a, "get") else a) for a in got.to_coo()]

    want = run("cpu")
    assert want[0].size and want[0].size < n
    for _ in range(3):
        junk = cupy.ones(n, dtype=bool)               # dirty the pool's block of this size
        del junk
        idx, vals = run("gpu")
        np.testing.assert_array_equal(idx, want[0])
        if semiring_name != "any_pair":
            np.testing.assert_array_equal(vals, want[1])
