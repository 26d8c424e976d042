"""The CPU paths FGLT takes on grids and other sparse graphs (issue 15): the
degree orientation and edge spreading of the triangle kernel, an empty C
without triangles, the 4-clique search over the edges with C >= 2, and the
columns-times-sparse kernel of the net transform.  Every entry is compared
(against the dense formulas, SciPy or the general kernels), on graph
families that break things: grids, disconnected graphs with isolated
vertices, one vertex, no vertex, power-law hubs, cliques."""
import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import graphblast_py as gb
from graphblast_py.algorithms import fglt
from graphblast_py.algorithms.fglt import NET

from .test_alg_fglt import formulas, to_gb


def _csr(G, n=None):
    G = nx.convert_node_labels_to_integers(G, ordering="sorted")
    return nx.to_scipy_sparse_array(G, nodelist=range(n or G.number_of_nodes()), format="csr")


def graphs():
    hub = nx.barabasi_albert_graph(300, 3, seed=5)
    hub.add_edges_from((0, v) for v in range(1, 300, 2))            # one very high degree
    dis = nx.disjoint_union_all([nx.complete_graph(5), nx.grid_2d_graph(3, 4),
                                 nx.cycle_graph(4)])
    dis.add_nodes_from(range(dis.number_of_nodes(), dis.number_of_nodes() + 5))   # isolated
    wheel = nx.wheel_graph(9)
    return [("grid 17x13", _csr(nx.grid_2d_graph(17, 13))),
            ("power-law hub", _csr(hub)),
            ("disconnected + isolated", _csr(dis)),
            ("wheel", _csr(wheel)),
            ("K6", _csr(nx.complete_graph(6))),
            ("one vertex", sp.csr_matrix((1, 1), dtype=np.int64)),
            ("two isolated", sp.csr_matrix((2, 2), dtype=np.int64)),
            ("empty", sp.csr_matrix((0, 0), dtype=np.int64))]


GRAPHS = graphs()
ids = [g[0] for g in GRAPHS]


def _net(raw):
    U = np.zeros((16, 16), dtype=np.int64)
    for k, j, c in NET:
        U[j, k] = c
    return raw @ U


@pytest.mark.parametrize("name,S", GRAPHS, ids=ids)
@pytest.mark.parametrize("threads", [1, 2])
def test_fglt_every_entry(name, S, threads, monkeypatch):
    """Raw and net frequencies against the dense formulas, serially and with
    the parallel kernels forced on (a tiny parallel threshold)."""
    from graphblast_py.backend.cpu import backend as cpu_backend
    import numba
    if threads == 2:
        monkeypatch.setattr(cpu_backend, "PARALLEL_WORK", 1)
    old = numba.get_num_threads()
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    try:
        raw = formulas(S) if S.shape[0] else np.zeros((0, 16), np.int64)
        A = to_gb(S, "cpu")
        got_raw = np.asarray(fglt(A, net=False).to_dense()).reshape(-1, 16)
        got_net = np.asarray(fglt(A).to_dense()).reshape(-1, 16)
        got5 = np.asarray(fglt(A, orbits=5).to_dense()).reshape(-1, 5)
    finally:
        numba.set_num_threads(old)
    assert np.array_equal(got_raw, raw)
    assert np.array_equal(got_net, _net(raw))
    assert np.array_equal(got5, _net(raw)[:, :5])


@pytest.mark.parametrize("name,S", GRAPHS, ids=ids)
def test_common_neighbours_and_cliques(name, S):
    """C = A ∘ A² (zeros stored; empty without a triangle) and σ13 against SciPy and the formulas;
    σ15 with and without the C >= 2 pruning, against networkx's cliques."""
    from graphblast_py.graphlets import common_neighbours, four_cliques_per_vertex, simple_pattern
    P = simple_pattern(to_gb(S, "cpu"), "test")
    C, t = common_neighbours(P)
    D = sp.csr_matrix(S, dtype=np.int64)
    D.data[:] = 1
    want = (D @ D).multiply(D).toarray()
    i, j, v = (np.asarray(x) for x in C.to_coo())
    got = np.zeros(S.shape, dtype=np.int64)
    got[i, j] = v
    assert np.array_equal(got, want) and C.nvals == (D.nnz if want.any() else 0)
    f = formulas(S) if S.shape[0] else np.zeros((0, 16), np.int64)
    assert np.array_equal(np.asarray(t.to_dense(fill=0)), f[:, 13])
    k4a = np.asarray(four_cliques_per_vertex(P).to_dense(fill=0))
    k4b = np.asarray(four_cliques_per_vertex(P, C).to_dense(fill=0))
    assert np.array_equal(k4a, f[:, 15]) and np.array_equal(k4b, f[:, 15])


@pytest.mark.parametrize("name,S", GRAPHS[:5], ids=ids[:5])
def test_orientation_kernel(name, S):
    """The numba degree orientation: u -> v exactly when (deg u, u) < (deg v,
    v), columns ascending, serial and parallel the same."""
    from graphblast_py.backend.cpu.spgemm import orient_by_degree
    ip, ix = S.indptr.astype(np.int64), S.indices.astype(np.int64)
    deg = np.diff(ip)
    want = [[v for v in ix[ip[u]:ip[u + 1]] if (deg[u], u) < (deg[v], v)]
            for u in range(S.shape[0])]
    for pw in (None, 1):
        op, oj = orient_by_degree(ip, ix, pw)
        assert [list(oj[op[u]:op[u + 1]]) for u in range(S.shape[0])] == want


CASES = [("plus", "times", "int64"), ("plus", "times", "float64"), ("plus", "times", "int8"),
         ("min", "plus", "int64"), ("max", "times", "float64"), ("plus", "pair", "int64"),
         ("plus", "first", "int64"), ("plus", "second", "int64"), ("any", "times", "int64"),
         ("times", "minus", "int32"), ("plus", "firsti", "int64"), ("plus", "secondj", "int64")]


# par: a parallel threshold of 1 (the dense-rows kernel's parallel loop) on
# the int64 and float64 cases, every operator pair among them: the int8 and
# int32 cases' arithmetic is the serial run's, and each type costs a numba
# compile of the parallel kernel (~9 s cold)
@pytest.mark.parametrize("add,mult,dt,par", [(*c, False) for c in CASES]
                         + [(*c, True) for c in CASES if c[2] in ("int64", "float64")])
@pytest.mark.parametrize("m", [0, 1, 130, 1000])
def test_dense_columns_mm(add, mult, dt, m, par):
    """The columns-times-sparse kernel against the dense-rows kernel (itself
    tested against the reference model in test_mxm_dense_a.py), every entry
    and the presence, with empty columns and rows of B."""
    from graphblast_py.backend.cpu import spgemm as S
    be = gb.backend.get("cpu")
    rng = np.random.default_rng(m + len(add) + len(mult))
    # 5 columns, as fglt(orbits=5) passes (the columns' tuple length is part
    # of the kernel's numba type: one compile shared with the fglt tests)
    k, ncols = 5, 9
    cols = [rng.integers(-9, 10, m).astype(dt) for _ in range(k)]
    Bd = rng.integers(-4, 5, (k, ncols)) * (rng.random((k, ncols)) < 0.4)
    Bd[3, :] = 0                                  # an empty row
    Bd[:, 2] = 0                                  # an empty column
    B = sp.csr_matrix(Bd.astype(dt))
    B.eliminate_zeros()
    sr = gb.semiring[f"{add}_{mult}"]
    out = np.dtype(sr.out_dtype(np.dtype(dt), np.dtype(dt)))
    if not be._kernel_ok(sr, out) or out.kind == "u":
        pytest.skip("not a kernel semiring")
    Bc = (B.indptr.astype(np.int64), B.indices.astype(np.int64), B.data)
    A = np.stack(cols, axis=1) if m else np.zeros((0, k), dtype=dt)
    pw = 1 if par else 1 << 60
    with np.errstate(all="ignore"):
        want_v, want_p = S.dense_sparse_mm(be, A, None, Bc, ncols, sr, out, pw)
        got_v, got_p = S.dense_columns_mm(be, cols, Bc, ncols, sr, out, pw)
    wp = np.ones((m, ncols), bool) if want_p is None else want_p
    gp = np.ones((m, ncols), bool) if got_p is None else got_p
    assert np.array_equal(wp, gp)
    if add == "any":
        return                                    # any: one of the terms
    assert np.array_equal(np.where(wp, want_v, 0), np.where(gp, got_v, 0), equal_nan=True)


def test_net_transform_takes_the_columns_path():
    """fglt's net transform on the CPU: the columns kernel, recorded as the
    dense mxm path, equal to the raw frequencies times the transform."""
    A = gb.generators.grid2d(7, 5)
    gb.stats.reset()
    F = fglt(A)
    assert gb.stats()["counts"].get("mxm:dense", 0) == 1
    raw = np.asarray(fglt(A, net=False).to_dense()).reshape(-1, 16)
    assert np.array_equal(np.asarray(F.to_dense()).reshape(-1, 16), _net(raw))


CUBE = gb.UnaryOp.register("test_fglt_cube_minus", lambda x: x * x * x - 3 * x,
                           cuda_expr="x * x * x - 3 * x")


@pytest.mark.parametrize("dt", ["int64", "int32", "int8", "uint8", "uint16"])
@pytest.mark.parametrize("op", [None, "abs", "ainv", "one", "cube"])
@pytest.mark.parametrize("par", [False, True])
def test_count_reduce_table(dt, op, par, monkeypatch):
    """The fused plus_pair reduce reads the operator's value at counts below
    64 from a table: against the unfused product, apply and row reduce, with
    counts below and above 64 (K80 next to a grid and a star), small types
    whose counts wrap, plus and max monoids, serial and parallel."""
    from graphblast_py.backend.cpu import backend as cpu_backend
    if par:
        monkeypatch.setattr(cpu_backend, "PARALLEL_WORK", 1)
    G = nx.disjoint_union_all([nx.complete_graph(80), nx.grid_2d_graph(6, 7), nx.star_graph(70)])
    A = to_gb(_csr(G), "cpu", dtype=dt)
    apply = CUBE if op == "cube" else op
    for mon in ("plus", "max"):
        got = A.mxm_reduce(A, gb.semiring.plus_pair, apply=apply, monoid=mon)
        P = A.mxm(A, gb.semiring.plus_pair)
        if apply is not None:
            P = P.apply(gb.unary[apply] if isinstance(apply, str) else apply)
        want = P.reduce_rowwise(mon)
        assert got.isequal(want), (dt, op, mon)
