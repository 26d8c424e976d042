"""Two GPU pull paths.  (1) The unmasked float plus_times pull through
cuSPARSE (the GPU backend's _cusparse_pull): taken where it applies, equal
to SciPy's product where it is taken (empty rows and columns, iso and valued
matrices, mxv and vxm, float32 and float64), and not taken where its
conditions fail.  (2) Hub rows apart (_heavy_split, pull_block): equal to the CPU."""
import numpy as np
import pytest
import scipy.sparse as sp

import graphblast_py as gb
from graphblast_py import backend

pytestmark = pytest.mark.gpu


@pytest.fixture
def be():
    return backend.get("gpu")          # the module is marked gpu: skipped without one


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
def test_cusparse_pull_matches_scipy(be, dtype, iso, which):
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
def test_cusparse_pull_rectangular(be, which):
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


def test_cusparse_pull_not_taken(be):
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


def test_pull_caches_go_with_the_matrix(be):
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
