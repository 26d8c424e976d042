"""The CPU backend's row-parallel CSR passes (backend/cpu/rowops.py), serial
and parallel (PARALLEL_WORK forced to 0): select against the generic
keys path and NumPy, the transpose against the generic argsort, the product
with a diagonal against the generic gathers, mxm's cost terms against their
array form, and the triangle count built from them against networkx."""
import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import graphblast_py as gb
from graphblast_py.backend.cpu import backend as cpu_backend
from graphblast_py.backend.cpu.rowops import dot_costs
from graphblast_py.backend.generic import ArrayBackend
from graphblast_py.operations import mxm as mxm_op

pytestmark = pytest.mark.filterwarnings("ignore::numba.NumbaPerformanceWarning")

SERIAL, PARALLEL = 1 << 40, 0


@pytest.fixture(params=[SERIAL, PARALLEL], ids=["serial", "parallel"])
def work(request, monkeypatch):
    monkeypatch.setattr(cpu_backend, "PARALLEL_WORK", request.param)
    return request.param


def kron(scale, seed=1):
    return gb.generators.kronecker(scale, seed=seed, device="cpu")


def families():
    """Power-law hubs, a grid, isolated vertices, empty and tiny, rectangular."""
    rng = np.random.default_rng(3)
    S = sp.random(70, 40, density=0.1, format="csr", random_state=4)
    S.data = np.round(S.data * 10 - 5)
    iso = nx.gnp_random_graph(60, 0.08, seed=1)
    iso.add_nodes_from(range(60, 75))
    return {
        "kron": kron(9).to_scipy().tocsr(),
        "grid": gb.generators.grid2d(7, 9, device="cpu").to_scipy().tocsr(),
        "isolated": nx.to_scipy_sparse_array(iso, format="csr"),
        "rect": S,
        "hubrow": sp.csr_matrix(np.vstack([np.ones((1, 50)),
                                           rng.random((30, 50)) < 0.05])),
        "empty0": sp.csr_matrix((0, 0)),
        "one": sp.csr_matrix(np.ones((1, 1))),
        "nocols": sp.csr_matrix((4, 0)),
        "allzero": sp.csr_matrix((5, 6)),
    }


def as_matrix(S, dtype):
    S = S.tocsr().copy()
    S.sort_indices()
    return gb.Matrix.from_scipy(S.astype(dtype), device="cpu")


def generic_select(A, op, thunk):
    """The keys path of operations/apply.select (what the GPU runs)."""
    be = A._be
    orig = be.select_csr
    be.select_csr = lambda *a: None
    try:
        return A.select(op, thunk)
    finally:
        be.select_csr = orig


def same(A, B):
    assert A.dtype == B.dtype and A.shape == B.shape and A.nvals == B.nvals
    ra, ca, va = A.to_coo()
    rb, cb, vb = B.to_coo()
    np.testing.assert_array_equal(ra, rb)
    np.testing.assert_array_equal(ca, cb)
    np.testing.assert_array_equal(va, vb)


SELECTS = [("tril", 0), ("tril", -1), ("triu", 1), ("diag", 0), ("offdiag", 0), ("row<=", 3),
           ("row>", 2), ("col<=", 4), ("col>", 10), ("<", 0), ("<=", 1), (">", 0), (">=", -2),
           ("==", 0), ("!=", 1), ("tril", np.int8(2)), ("triu", True), ("<", 0.5),
           ("tril", 1.0)]


@pytest.mark.parametrize("dtype", ["bool", "int32", "uint64", "float64"])
def test_select_vs_generic(work, dtype):
    for name, S in families().items():
        A = as_matrix(S, dtype)
        for op, thunk in SELECTS:
            got = A.select(op, thunk)
            same(got, generic_select(A, op, thunk))


def test_select_iso_and_output_rule(work):
    A = gb.Matrix.from_coo([0, 1, 2, 2, 3], [1, 0, 2, 0, 3], True, 4, 4)
    assert A._vals is None                      # iso
    same(A.select("tril"), generic_select(A, "tril", 0))
    same(A.select("<", 1), generic_select(A, "<", 1))        # iso under a value test
    B = as_matrix(families()["kron"], "int64")
    out = gb.Matrix(gb.dtypes.INT64, *B.shape)
    out.assign(7, mask=B.S)
    got = B.select("triu", 1, out=out, accum=gb.binary.plus)
    ref = gb.Matrix(gb.dtypes.INT64, *B.shape)
    ref.assign(7, mask=B.S)
    generic = generic_select(B, "triu", 1)
    ref = ref.ewise_add(generic, gb.binary.plus)
    same(got, ref)


def test_transpose_vs_generic(work):
    for name, S in families().items():
        for dtype in ("bool", "int64", "float32"):
            A = as_matrix(S, dtype)
            be = A._be
            ip, ix, v = A._csr()
            got = be.transpose_csr(ip, ix, v, *A.shape)
            ref = ArrayBackend.transpose_csr(be, ip, ix, v, *A.shape)
            for g, r in zip(got, ref):
                assert g.dtype == r.dtype
                np.testing.assert_array_equal(g, r)
            assert be.transpose_csr(ip, ix, None, *A.shape)[2] is None


def generic_one_term(A, B, semiring):
    be = A._be
    out_dtype = semiring.out_dtype(A.dtype, B.dtype)
    shape = (A.nrows, B.ncols)
    return ArrayBackend.spgemm_one_term(be, A._csr(semiring.mult.reads_x),
                                        B._csr(semiring.mult.reads_y), semiring, out_dtype,
                                        shape), out_dtype


@pytest.mark.parametrize("semiring", ["any_first", "any_minus", "min_plus", "plus_secondj",
                                      "lor_land"])
@pytest.mark.parametrize("dtype", ["int64", "float32", "bool"])
def test_diagonal_products_vs_generic(work, semiring, dtype):
    sr = (gb.Semiring(gb.monoid.any, gb.binary.minus) if semiring == "any_minus"
          else getattr(gb.semiring, semiring))
    for name, S in families().items():
        A = as_matrix(S, dtype)
        m, n = A.shape
        rng = np.random.default_rng(m + n)
        for k, side in ((m, "left"), (n, "right")):
            d = (rng.integers(-3, 4, k) if dtype != "bool" else rng.random(k) < 0.5).astype(dtype)
            full = np.arange(k)
            some = full[rng.random(k) < 0.7]          # a diagonal with holes
            for idx in (full, some):
                D = gb.Matrix.from_coo(idx, idx, d[idx], k, k, dtype=A.dtype)
                X, Y = (D, A) if side == "left" else (A, D)
                ref, out_dtype = generic_one_term(X, Y, sr)
                C = X.mxm(Y, sr)
                if ref is None:
                    continue
                R = gb.Matrix(out_dtype, X.nrows, Y.ncols)
                R._assign_result(ref)
                same(C, R)


def test_dot_costs_vs_array_form(work):
    for name, S in families().items():
        A = as_matrix(S, "int64")
        B = A.T
        M = as_matrix(S @ S.T, "bool") if S.shape[0] else A
        if M.shape != (A.nrows, B.ncols):
            continue
        ip, ix, _ = A._csr(False)
        bp = B._csr(False)[0]
        cp = B._csc_arrays(False)[0]
        mp, mj, _ = M._csr(False)
        f, w = dot_costs(ip, ix, bp, cp, mp, mj, mxm_op.GALLOP_RATIO,
                         cpu_backend.PARALLEL_WORK)
        blen, alen, clen = np.diff(bp), np.diff(ip), np.diff(cp)
        assert f == int(blen[ix].sum())
        mi = np.repeat(np.arange(M.nrows), np.diff(mp))
        la, lb = alen[mi], clen[mj]
        short, long = np.minimum(la, lb), np.maximum(la, lb)
        steps = np.where(short * mxm_op.GALLOP_RATIO < long,
                         short * (1 + np.log2(long + 1)).astype(np.int64), la + lb)
        assert w == int(steps.sum())


def test_triangle_count_families(work):
    for S in list(families().values()) + [kron(11, seed=2).to_scipy().tocsr()]:
        if S.shape[0] != S.shape[1]:
            continue
        S = ((S + S.T) != 0).astype(np.int8).tocsr()
        S.setdiag(0)
        S.eliminate_zeros()
        G = nx.from_scipy_sparse_array(S)
        ref = sum(nx.triangles(G).values()) // 3
        assert gb.algorithms.triangle_count(gb.Matrix.from_scipy(S)) == ref


def test_dense_vector_passes(monkeypatch):
    """The parallel frontier count and output merge against NumPy (every
    presence combination, the value types of one width and bool)."""
    from graphblast_py.backend.cpu import rowops
    monkeypatch.setattr(rowops, "DENSE_PARALLEL", 0)
    monkeypatch.setattr(rowops, "READ_PASS_MIN_THREADS", 1)
    be = gb.Matrix(gb.dtypes.INT64, 1, 1)._be
    rng = np.random.default_rng(7)
    n = 1000
    ip = np.concatenate(([0], np.cumsum(rng.integers(0, 9, n)))).astype(np.int32)
    pres = rng.random(n) < 0.3
    assert rowops.frontier_edges_dense(ip, pres) == int(np.diff(ip)[pres].sum())
    # serial (short vectors) and on the CPU backend: exact, dense and sparse
    from graphblast_py.backend.generic import ArrayBackend
    from graphblast_py.results import DenseVectorResult, SparseResult
    monkeypatch.setattr(rowops, "DENSE_PARALLEL", 1 << 40)
    for p_ in (pres, np.zeros(n, bool), np.ones(n, bool)):
        want = int(np.diff(ip)[p_].sum())
        assert rowops.frontier_edges_dense(ip, p_) == want
        assert be.frontier_edges(ip, DenseVectorResult(np.zeros(n), p_)) == want
        idx = np.flatnonzero(p_)
        assert be.frontier_edges(ip, SparseResult(idx, np.zeros(idx.shape[0]))) == want
        assert ArrayBackend.frontier_edges(be, ip, SparseResult(idx, None)) == want
    monkeypatch.setattr(rowops, "DENSE_PARALLEL", 0)
    # push's compaction of its accumulator: positions, values, flags cleared
    for dt in ("int64", "float32", "bool", "int8"):
        v = (rng.random(n) * 100).astype(dt)
        for f in (pres, np.zeros(n, bool), np.ones(n, bool)):
            fl = f.copy()
            got = rowops.compact_clear(fl, v, int(f.sum()))
            np.testing.assert_array_equal(got[0], np.flatnonzero(f))
            np.testing.assert_array_equal(got[1], v[f])
            assert got[1].dtype == v.dtype and not fl.any()
    for flags in (pres, np.zeros(n, bool), np.ones(n, bool)):
        for comp in (False, True):
            got = rowops.true_positions(flags, comp)
            assert np.array_equal(got, np.flatnonzero(~flags if comp else flags))
    m = rng.random(n) < 0.5
    for dt in ("int64", "float64", "bool", "int8", "float32"):
        z = (rng.random(n) * 100).astype(dt)
        c = (rng.random(n) * 100).astype(dt)
        for zp in (None, rng.random(n) < 0.5):
            for cp in (None, rng.random(n) < 0.5):
                got = be.masked_merge(m, z, zp, c, cp)
                ref = ArrayBackend.masked_merge(be, m, z, zp, c, cp)
                np.testing.assert_array_equal(got[0], ref[0])
                assert got[0].dtype == ref[0].dtype
                if ref[1] is None:
                    assert got[1] is None
                else:
                    np.testing.assert_array_equal(got[1], ref[1])
    # the BFS that uses them (pull levels included), against SciPy
    A = kron(12)
    S = A.to_scipy().tocsr()
    src = int(np.argmax(np.diff(S.indptr)))
    import scipy.sparse.csgraph as csgraph
    order, _ = csgraph.breadth_first_order(S, src, return_predecessors=True)
    dist = csgraph.shortest_path(S, indices=src, unweighted=True)
    lv = gb.algorithms.bfs(A, src)
    idx, val = lv.to_coo()
    np.testing.assert_array_equal(np.sort(idx), np.sort(order))
    np.testing.assert_array_equal(val, dist[idx].astype(np.int64))
