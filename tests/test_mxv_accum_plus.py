"""``w = w + A x`` (PageRank's accumulated product: ``mxv``/``vxm`` with
``accum=plus`` into a full output, a full float input, no mask) on both
devices against SciPy, on matrices with a hub row (the GPU then runs
cuSPARSE's SpMV with beta = 1 into the output: ``pull_accum``) and without
one (the short-row kernel and the output rule), iso and valued, float32
and float64, plus_times / plus_first / plus_second, with empty rows and
columns, into an output the vector owns and one it shares."""
import numpy as np
import pytest
import scipy.sparse as sp

import graphblast_py as gb

from .conftest import host


def _matrix(kind, dt, iso):
    rng = np.random.default_rng(5)
    n = 300
    if kind == "hub":                      # row/column 0 holds 150 entries: no short-row kernel
        r = np.r_[np.zeros(150, int), rng.integers(1, n, 600)]
        c = np.r_[rng.choice(np.arange(1, n), 150, replace=False), rng.integers(1, n, 600)]
    else:                                  # every row short
        r = rng.integers(0, n, 900)
        c = rng.integers(0, n, 900)
    keep = (r != 7) & (c != 7) & (r != 11)     # an empty row and column (7), an empty row (11)
    S = sp.coo_matrix((np.ones(keep.sum()) if iso else rng.uniform(0.5, 2, keep.sum()),
                       (r[keep], c[keep])), shape=(n, n)).tocsr()
    S.sum_duplicates()
    if iso:
        S.data[:] = 1.5
    return S.astype(dt)


@pytest.mark.parametrize("kind", ["hub", "short"])
@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("iso", [True, False])
@pytest.mark.parametrize("mult", ["times", "first", "second"])
@pytest.mark.parametrize("swap", [False, True])
def test_accumulated_product(device, kind, dt, iso, mult, swap):
    S = _matrix(kind, dt, iso)
    n = S.shape[0]
    if iso:                                   # one value for every entry, stored once
        C = S.tocoo()
        A = gb.Matrix.from_coo(C.row, C.col, 1.5, n, n, dtype=dt, device=device)
        assert A.iso
    else:
        A = gb.Matrix.from_scipy(S, device=device)
    rng = np.random.default_rng(9)
    x = rng.uniform(-1, 1, n).astype(dt)
    w0 = rng.uniform(-1, 1, n).astype(dt)
    sr = gb.semiring[f"plus_{mult}"]
    M = (S.T.tocsr() if swap else S).astype(np.float64)   # w(i) += sum_j mult(M(i, j), x(j))
    x64 = x.astype(np.float64)
    if mult == "times":
        t = M @ x64
    elif (mult == "second") != swap:          # the product is x's value
        t = (M != 0).astype(np.float64) @ x64
    else:                                     # the product is A's value
        t = np.asarray(M.sum(axis=1)).ravel()
    want = w0.astype(np.float64) + t
    for shared in (False, True):
        w = gb.Vector.from_dense(w0.copy(), device=device)
        if shared:
            keep = w.dup()                    # w's array is now shared with keep
        u = gb.Vector.from_dense(x, device=device)
        r = u.vxm(A, sr, accum=gb.binary.plus, out=w) if swap else \
            A.mxv(u, sr, accum=gb.binary.plus, out=w)
        assert r is w and w.nvals == n
        tol = 1e-12 if dt == "float64" else 1e-4
        np.testing.assert_allclose(host(w.to_dense()), want, rtol=tol, atol=tol)
        if shared:
            np.testing.assert_array_equal(host(keep.to_dense()), w0)   # untouched


def test_pagerank_hub_graph_against_networkx(device):
    """PageRank on a graph with hubs and dangling vertices (the accumulated
    product on cuSPARSE on the GPU) against networkx, entry by entry."""
    import networkx as nx
    G = nx.DiGraph(nx.barabasi_albert_graph(400, 3, seed=2))
    G.remove_edges_from([(u, v) for u, v in list(G.edges) if u < 20 and v > u])   # dangling
    G.add_nodes_from(range(400, 405))         # isolated
    want = nx.pagerank(G, tol=1e-10)
    S = nx.to_scipy_sparse_array(G, nodelist=range(405), format="csr")
    A = gb.Matrix.from_scipy(S, device=device)
    got = host(gb.algorithms.pagerank(A, tol=1e-10).to_dense())
    np.testing.assert_allclose(got, [want[i] for i in range(405)], rtol=1e-6, atol=1e-9)


@pytest.mark.gpu
@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("kind", ["iso", "first"])
@pytest.mark.parametrize("into", ["owned", "shared", "input"])
def test_short_rows_accumulate_in_the_kernel(dt, kind, into, monkeypatch):
    """On the GPU a matrix whose rows are all short takes the accumulated
    product in the short-row kernel itself (``spmv_sum_accum``: the sum of
    each row added to the output, rows without entries keep theirs) where
    the product does not read the matrix's values (an iso matrix, or
    ``plus_first``: the product is x itself): every entry bit for bit equal
    to the ordinary path (``spmv_sum``, then the output rule's
    accumulation) and close to SciPy, into an output the vector owns
    (written in place), one it shares with a dup (left untouched) and the
    input vector itself (``w = w + w A``)."""
    gb.Vector(dt, 1, device="gpu")                       # the backend, for its class
    be = gb.device.backend_for("gpu")
    S = _matrix("short", dt, kind == "iso")
    n = S.shape[0]
    C = S.tocoo()
    A = gb.Matrix.from_coo(C.row, C.col, 1.5 if kind == "iso" else C.data, n, n, dtype=dt,
                           device="gpu")
    sr = gb.semiring.plus_times if kind == "iso" else gb.semiring.plus_first
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, n).astype(dt)
    w0 = x if into == "input" else rng.uniform(-1, 1, n).astype(dt)
    names = []
    real = type(be)._sum_kernel

    def spy(self, *a):
        names.append(a[-1])
        return real(self, *a)

    monkeypatch.setattr(type(be), "_sum_kernel", spy)

    def run():
        w = gb.Vector.from_dense(w0.copy(), device="gpu")
        w._set_full(w._full_values()[0], True)           # (from_dense's copy: w's alone)
        keep = w.dup() if into == "shared" else None
        u = w if into == "input" else gb.Vector.from_dense(x, device="gpu")
        arr = w._full_values()[0]
        r = u.vxm(A, sr, accum=gb.binary.plus, out=w)
        assert r is w and w.nvals == n
        if keep is not None:
            np.testing.assert_array_equal(host(keep.to_dense()), w0)
        return host(w.to_dense()), w._full_values()[0] is arr

    got, in_place = run()
    assert names == ["spmv_sum_accum"]
    assert in_place == (into == "owned")
    monkeypatch.setattr(type(be), "pull_accum", lambda self, *a, **k: None)
    names.clear()
    want, _ = run()
    assert names == ["spmv_sum"]                         # the ordinary path
    np.testing.assert_array_equal(got, want)
    M = S.T.astype(np.float64) if kind == "iso" else (S.T != 0).astype(np.float64)
    ref = w0.astype(np.float64) + M @ x.astype(np.float64)
    tol = 1e-12 if dt == "float64" else 1e-4
    np.testing.assert_allclose(got, ref, rtol=tol, atol=tol)
