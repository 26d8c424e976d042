"""The pieces of triangle counting's degree order, on both devices:
``Matrix.from_diag`` against NumPy's ``diag`` (every entry, every k, sparse
and dense vectors, missing entries, empty and one-entry vectors, bad
input); ``select`` straight from the CSR rows (the GPU's ``select_csr``)
against SciPy on iso, valued, empty and one-vertex matrices with every
predefined predicate; the degree-ordered L against its definition computed
with SciPy; the triangle count against networkx on graph families."""
import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import graphblast_py as gb
from graphblast_py.algorithms import triangle_count
from graphblast_py.algorithms.triangle_count import degree_ordered

from .conftest import host


def _dense(M):
    """(values, present) as NumPy arrays."""
    r, c, v = (host(a) for a in M.to_coo())
    D = np.zeros(M.shape, dtype=np.result_type(v.dtype, np.float64) if v.size else float)
    P = np.zeros(M.shape, bool)
    D[r, c] = v
    P[r, c] = True
    return D, P


@pytest.mark.parametrize("k", [0, 1, 3, -1, -4])
@pytest.mark.parametrize("form", ["sparse", "dense", "full"])
def test_from_diag(device, k, form):
    n = 9
    vals = np.arange(1, n + 1, dtype=np.int64) * 10
    if form == "full":
        idx = np.arange(n)
    else:
        idx = np.array([0, 2, 3, 7])
    if form == "dense":                     # stored dense, with missing entries
        d = np.zeros(n, dtype=np.int64)
        d[idx] = vals[idx]
        v = gb.Vector.from_dense(d, missing_value=0, device=device)
    else:
        v = gb.Vector.from_coo(idx, vals[idx], size=n, device=device)
    C = gb.Matrix.from_diag(v, k)
    assert C.shape == (n + abs(k), n + abs(k)) and C.dtype == v.dtype
    assert C.device == device and C.nvals == idx.size
    full = np.zeros(n)
    full[idx] = vals[idx]
    want = np.diag(full, k)
    wantp = np.diag(np.isin(np.arange(n), idx), k)
    D, P = _dense(C)
    np.testing.assert_array_equal(P, wantp)
    np.testing.assert_array_equal(D, want)
    # rows sorted and usable: row scaling by D.mxm(A) against NumPy
    A = gb.Matrix.from_dense(np.ones((n + abs(k), 4)), device=device).to_sparse_form()
    got, gotp = _dense(C.mxm(A, gb.semiring.plus_times))
    np.testing.assert_array_equal(got, want @ np.ones((n + abs(k), 4)))
    v[int(idx[0])] = 5                      # C is a copy: v's change does not reach it
    assert _dense(C)[0][idx[0] - min(k, 0), idx[0] + max(k, 0)] == vals[idx[0]]


@pytest.mark.parametrize("size", [0, 1])
def test_from_diag_tiny(device, size):
    v = gb.Vector(gb.dtypes.FP32, size, device=device)
    C = gb.Matrix.from_diag(v)
    assert C.shape == (size, size) and C.nvals == 0 and C.dtype == gb.dtypes.FP32
    if size:
        v[0] = 2.5
        C = gb.Matrix.from_diag(v, -2)
        assert C.shape == (3, 3) and C.get(2, 0) == 2.5 and C.nvals == 1


def test_from_diag_bad_input(device):
    A = gb.Matrix(gb.dtypes.FP64, 3, 3, device=device)
    with pytest.raises(gb.InvalidValue, match="expected a Vector"):
        gb.Matrix.from_diag(A)
    v = gb.Vector(gb.dtypes.FP64, 3, device=device)
    for bad in (1.5, True, "1", None):
        with pytest.raises(gb.InvalidIndex, match="diagonal k must be an integer"):
            gb.Matrix.from_diag(v, bad)


_SELECT = [("tril", 0), ("tril", -1), ("triu", 1), ("diag", 0), ("offdiag", 0),
           ("rowle", 3), ("rowgt", 2), ("colle", 4), ("colgt", 0),
           ("valuelt", 4.0), ("valuege", 4.0), ("valueeq", 3.0), ("valuene", 3.0)]


def _scipy_select(S, name, t):
    C = S.tocoo()
    r, c, v = C.row, C.col, C.data
    keep = {"tril": c <= r + t, "triu": c >= r + t, "diag": c == r + t,
            "offdiag": c != r + t, "rowle": r <= t, "rowgt": r > t, "colle": c <= t,
            "colgt": c > t, "valuelt": v < t, "valuege": v >= t, "valueeq": v == t,
            "valuene": v != t}[name]
    return sp.csr_matrix((v[keep], (r[keep], c[keep])), shape=S.shape), keep.sum()


@pytest.mark.parametrize("name,t", _SELECT)
@pytest.mark.parametrize("shape,iso", [((8, 6), False), ((8, 6), True), ((0, 0), False),
                                       ((1, 1), False), ((5, 5), True)])
def test_select_rows(device, name, t, shape, iso):
    rng = np.random.default_rng(7)
    n, m = shape
    S = sp.random(n, m, density=0.5, format="csr", random_state=3)
    S.data = rng.integers(1, 8, S.nnz).astype(float)
    if shape == (1, 1):
        S = sp.csr_matrix(np.array([[3.0]]))
    if iso:
        S.data[:] = 3.0
    C = S.tocoo()
    A = gb.Matrix.from_coo(C.row, C.col, 3.0 if iso else C.data, n, m, device=device)
    want, nkeep = _scipy_select(S, name, t)
    got = A.select(name, t)
    assert got.nvals == nkeep
    D, P = _dense(got)
    wd = want.toarray()
    wp = np.zeros(S.shape, bool)
    wc = want.tocoo()
    wp[wc.row, wc.col] = True
    np.testing.assert_array_equal(P, wp)
    np.testing.assert_array_equal(D[P], wd[wp])
    if iso and nkeep and not name.startswith("value"):
        assert got.iso                     # a positional test keeps the one value


def _families():
    yield "empty", nx.empty_graph(0)
    yield "one vertex", nx.empty_graph(1)
    yield "isolated + cliques", nx.disjoint_union_all([nx.complete_graph(5), nx.empty_graph(4),
                                                       nx.complete_graph(3)])
    yield "grid", nx.grid_2d_graph(12, 9)
    yield "grid with diagonals", nx.triangular_lattice_graph(6, 8)
    yield "power law", nx.barabasi_albert_graph(300, 6, seed=2)
    yield "star + hub clique", nx.compose(nx.star_graph(60), nx.complete_graph(8))


@pytest.mark.parametrize("fam", [f[0] for f in _families()])
def test_degree_order_and_count(device, fam):
    G = dict(_families())[fam]
    G = nx.convert_node_labels_to_integers(G)
    n = G.number_of_nodes()
    S = (nx.to_scipy_sparse_array(G, nodelist=range(n), format="csr", dtype=float) if n
         else sp.csr_matrix((0, 0)))
    A = gb.Matrix.from_scipy(S, device=device) if n else gb.Matrix(gb.dtypes.BOOL, 0, 0,
                                                                   device=device)
    assert triangle_count(A) == sum(nx.triangles(G).values()) // 3
    L = degree_ordered(A)
    deg = np.asarray((S != 0).sum(axis=1)).ravel().astype(np.int64)
    key = deg * n + np.arange(n)
    C = S.tocoo()
    keep = key[C.row] < key[C.col]
    wp = np.zeros((n, n), bool)
    wp[C.row[keep], C.col[keep]] = True
    D, P = _dense(L)
    np.testing.assert_array_equal(P, wp)
    np.testing.assert_array_equal(D[P], (key[C.row] - key[C.col])[keep][
        np.lexsort((C.col[keep], C.row[keep]))])


@pytest.mark.parametrize("fam", [f[0] for f in _families()])
def test_dot_costs(device, fam):
    """mxm's cost-model terms from the backend (the GPU: one kernel) against
    the NumPy formula of tests/test_cpu_rowops.py, with B = A.T deferred."""
    from graphblast_py.operations import mxm as mxm_op
    G = nx.convert_node_labels_to_integers(dict(_families())[fam])
    n = G.number_of_nodes()
    if n == 0:
        return
    S = nx.to_scipy_sparse_array(G, nodelist=range(n), format="csr", dtype=float)
    A = gb.Matrix.from_scipy(S, device=device)
    L = A.select("tril", -1)
    for X, B, M in ((A, A.T, A), (L, L.T, L)):
        ip, ix, _ = X._csr(False)
        bp = B._row_ptr()
        cp = B._csc_arrays(False)[0]
        mp, mj, _ = M._csr(False)
        if mj.shape[0] == 0:
            continue
        f, w = X._be.dot_costs(ip, ix, bp, cp, mp, mj, mxm_op.GALLOP_RATIO)
        ip, ix, bp, cp, mp, mj = (host(a).astype(np.int64) for a in (ip, ix, bp, cp, mp, mj))
        blen, alen, clen = np.diff(bp), np.diff(ip), np.diff(cp)
        assert f == int(blen[ix].sum())
        mi = np.repeat(np.arange(len(mp) - 1), np.diff(mp))
        la, lb = alen[mi], clen[mj]
        short, long = np.minimum(la, lb), np.maximum(la, lb)
        steps = np.where(short * mxm_op.GALLOP_RATIO < long,
                         short * (1 + np.log2(long + 1)).astype(np.int64), la + lb)
        assert w == int(steps.sum())


@pytest.mark.parametrize("n,nnz", [(0, 0), (1, 0), (1, 5), (7, 3), (1000, 20000)])
def test_count_ptr(device, n, nnz):
    """The backend's count pointers (a deferred transpose's row pointers;
    the GPU's own atomic count) against NumPy's bincount, with a hub value
    taking most of the entries."""
    from graphblast_py.device import backend_for
    be = backend_for(device)
    rng = np.random.default_rng(n + nnz)
    ix = rng.integers(0, max(n, 1), nnz).astype(np.int32)
    if nnz > 100:
        ix[: nnz // 2] = n - 1
    want = np.zeros(n + 1, dtype=np.int64)
    if nnz:
        want[1:] = np.cumsum(np.bincount(ix, minlength=n))
    got = be.count_ptr(be.asarray(ix), n)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(host(got), want)


def test_known_all_zero(device):
    """The backend's free all-zero test: exact on the CPU; the GPU never
    claims it (it would wait on the device to know)."""
    from graphblast_py.device import backend_for
    be = backend_for(device)
    z, nz = be.zeros(5, np.int64), be.asarray(np.array([0, 0, 3]))
    if device == "cpu":
        assert be.known_all_zero(z) and not be.known_all_zero(nz)
        assert be.known_all_zero(be.zeros(0, np.int64))
    else:
        assert not be.known_all_zero(z) and not be.known_all_zero(nz)
