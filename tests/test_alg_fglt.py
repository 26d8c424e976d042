"""FGLT against the authors' gold file and a brute-force count by enumeration."""
import itertools

import networkx as nx
import numpy as np
import pytest
import scipy.io as sio
import scipy.sparse as sp

import graphblast_py as gb
from graphblast_py.algorithms import fglt

from .conftest import host

# graphlet orbits as (pattern edges, orbit vertex 0), in the FGLT order sigma0..sigma15
PATTERNS = [
    (1, []), (2, [(0, 1)]), (3, [(0, 1), (1, 2)]), (3, [(0, 1), (0, 2)]),
    (3, [(0, 1), (0, 2), (1, 2)]),
    (4, [(0, 1), (1, 2), (2, 3)]),                      # 3-path, end
    (4, [(0, 1), (0, 2), (2, 3)]),                      # 3-path, interior
    (4, [(1, 0), (1, 2), (1, 3)]),                      # claw, leaf
    (4, [(0, 1), (0, 2), (0, 3)]),                      # claw, root
    (4, [(0, 1), (1, 2), (1, 3), (2, 3)]),              # paw, handle tip
    (4, [(0, 1), (0, 2), (1, 2), (1, 3)]),              # paw, base
    (4, [(0, 1), (0, 2), (1, 2), (0, 3)]),              # paw, center
    (4, [(0, 1), (1, 2), (2, 3), (3, 0)]),              # 4-cycle
    (4, [(0, 1), (1, 2), (2, 3), (3, 0), (1, 3)]),      # diamond, off the chord
    (4, [(0, 1), (1, 2), (2, 3), (3, 0), (0, 2)]),      # diamond, on the chord
    (4, [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]),
]


def brute_force(D, induced):
    """Per-vertex counts by summing over every injective map of the pattern's
    vertices into the graph (pattern vertex 0 -> the vertex), divided by the
    automorphisms fixing vertex 0.  induced: pattern non-edges must be non-edges."""
    n = D.shape[0]
    D = D.astype(np.int64)
    out = np.zeros((n, len(PATTERNS)), dtype=np.int64)
    for k, (p, edges) in enumerate(PATTERNS):
        E = {tuple(sorted(e)) for e in edges}
        aut = sum(all(tuple(sorted((perm[a], perm[b]))) in E for a, b in E)
                  for perm in ([0] + list(q) for q in itertools.permutations(range(1, p))))
        X = np.ones((n,) * p, dtype=np.int64)
        for a, b in itertools.combinations(range(p), 2):
            shape = [1] * p
            shape[a] = shape[b] = n
            f = D if (a, b) in E else (1 - D if induced else (1 - np.eye(n, dtype=np.int64)))
            X = X * f.reshape(shape)
            if (a, b) not in E:   # distinct vertices
                X = X * (1 - np.eye(n, dtype=np.int64)).reshape(shape)
        out[:, k] = X.reshape(n, -1).sum(axis=1) // aut
    return out


def to_gb(S, device, dtype=None):
    return gb.Matrix.from_scipy(sp.csr_matrix(S), dtype=dtype, device=device)


def test_gold_s6(device, data_dir):
    S = sio.mmread(data_dir / "s6.mtx").tocsr()
    gold = np.loadtxt(data_dir / "s6_freq_net_gold.csv", delimiter=",", skiprows=1,
                      dtype=np.int64)
    F = fglt(to_gb(S, device))
    assert F.shape == (6, 16) and F.dtype == np.int64 and F.nvals == 96
    assert np.array_equal(host(F.to_dense()), gold[:, 1:])
    F5 = fglt(to_gb(S, device), orbits=5)
    assert np.array_equal(host(F5.to_dense()), gold[:, 1:6])


@pytest.mark.parametrize("n,p,seed", [(9, 0.5, 1), (12, 0.35, 2), (14, 0.6, 3), (11, 0.9, 4)])
def test_random_vs_enumeration(device, n, p, seed):
    G = nx.gnp_random_graph(n, p, seed=seed)
    G.add_nodes_from(range(n))
    S = nx.to_scipy_sparse_array(G, nodelist=range(n), format="csr")
    D = S.toarray()
    A = to_gb(S, device)
    assert np.array_equal(host(fglt(A, net=False).to_dense()), brute_force(D, induced=False))
    assert np.array_equal(host(fglt(A).to_dense()), brute_force(D, induced=True))
    assert np.array_equal(host(fglt(A, orbits=5, net=False).to_dense()),
                          brute_force(D, induced=False)[:, :5])


def test_karate(device, data_dir):
    S = sio.mmread(data_dir / "karate.mtx").tocsr()
    G = nx.from_scipy_sparse_array(S)
    A = to_gb(S, device, dtype="float64")      # values are ignored
    raw = host(fglt(A, net=False).to_dense())
    tri = nx.triangles(G)
    assert [int(raw[i, 4]) for i in range(34)] == [tri[i] for i in range(34)]
    assert raw[:, 4].sum() == 3 * 45
    assert np.array_equal(raw, brute_force(S.toarray(), induced=False))
    net = host(fglt(A).to_dense())
    assert (net >= 0).all()
    assert np.array_equal(net, brute_force(S.toarray(), induced=True))


def test_weights_ignored_and_isolated_vertices(device):
    rows = [0, 1, 1, 2, 0, 2]
    cols = [1, 0, 2, 1, 2, 0]
    A = gb.Matrix.from_coo(rows, cols, [2.5, 2.5, -1.0, -1.0, 7.0, 7.0], 5, 5, device=device)
    B = gb.Matrix.from_coo(rows, cols, True, 5, 5, device=device)
    F = host(fglt(A).to_dense())
    assert np.array_equal(F, host(fglt(B).to_dense()))
    assert F[:, 4].tolist() == [1, 1, 1, 0, 0]
    assert F[3].tolist() == [1] + [0] * 15            # isolated vertex: only sigma0
    E = gb.Matrix("bool", 4, 4, device=device)
    assert host(fglt(E).to_dense()).tolist() == [[1] + [0] * 15] * 4


def test_errors(device):
    loop = gb.Matrix.from_coo([0, 1, 1], [1, 0, 1], True, 3, 3, device=device)
    with pytest.raises(gb.InvalidValue, match="self-loop"):
        fglt(loop)
    directed = gb.Matrix.from_coo([0, 1], [1, 2], True, 3, 3, device=device)
    with pytest.raises(gb.InvalidValue, match="not symmetric"):
        fglt(directed)
    with pytest.raises(gb.InvalidValue, match="square"):
        fglt(gb.Matrix("bool", 3, 4, device=device))
    with pytest.raises(gb.InvalidValue, match="orbits"):
        fglt(gb.Matrix("bool", 3, 3, device=device), orbits=4)


def test_column_and_row_assign(device):
    """GrB_Col_assign / GrB_Row_assign (added for fglt's output): C(:, j) = v, C(i, :) = v."""
    C = gb.Matrix.from_dense(np.arange(12).reshape(4, 3), device=device)
    ref = np.arange(12).reshape(4, 3)
    v = gb.Vector.from_coo([0, 2], [50, 70], size=4, device=device)
    C.assign(v, cols=1, accum=gb.binary.plus)
    ref[[0, 2], 1] += [50, 70]
    assert np.array_equal(host(C.to_dense()), ref)
    C.assign(v, cols=2)                      # no accum: entries v lacks are deleted
    assert C.nvals == 10 and host(C.to_dense())[:, 2].tolist() == [50, 0, 70, 0]
    C.assign(gb.Vector.from_coo([1], [9], size=3, device=device), rows=3)
    assert host(C.to_dense())[3].tolist() == [0, 9, 0]
    with pytest.raises(gb.DimensionMismatch):
        C.assign(v, rows=0)
    with pytest.raises(gb.InvalidValue):
        C.assign(v, rows=[0, 1, 2, 3], cols=[0, 1])


def formulas(S):
    """σ0..σ15 from the dense definitions (NumPy; W = A² less its diagonal,
    σ15 from networkx's clique enumeration)."""
    A = S.toarray().astype(np.int64)
    n = A.shape[0]
    d = A.sum(1)
    A2 = A @ A
    W = A2 - np.diag(np.diag(A2))
    C = A * A2
    s = np.zeros((n, 16), dtype=np.int64)
    s[:, 0], s[:, 1], s[:, 2], s[:, 3] = 1, d, A @ d - d, d * (d - 1) // 2
    s[:, 4] = C.sum(1) // 2
    s[:, 5] = A @ s[:, 2] - d * (d - 1) - 2 * s[:, 4]
    s[:, 6] = s[:, 2] * (d - 1) - 2 * s[:, 4]
    s[:, 7] = A @ ((d - 1) * (d - 2) // 2)
    s[:, 8] = d * (d - 1) * (d - 2) // 6
    s[:, 9] = A @ s[:, 4] - 2 * s[:, 4]
    s[:, 10] = C @ (d - 2)
    s[:, 11] = (d - 2) * s[:, 4]
    s[:, 12] = (W * (W - 1) // 2).sum(1)
    s[:, 13] = (A * (A @ (C - A))).sum(1) // 2
    s[:, 14] = (C * (C - 1) // 2).sum(1)
    G = nx.from_scipy_sparse_array(S)
    for q in nx.enumerate_all_cliques(G):
        if len(q) == 4:
            s[q, 15] += 1
        elif len(q) > 4:
            break
    return s


def family_graphs():
    k = gb.generators.kronecker(8, seed=11)
    r, c, _ = (host(a) for a in k.to_coo())
    kron = sp.csr_matrix((np.ones(r.shape[0], np.int64), (r, c)), shape=k.shape)
    dis = nx.disjoint_union(nx.complete_graph(6), nx.grid_2d_graph(4, 5))
    dis.add_nodes_from(range(26, 30))
    return [("kronecker", kron),
            ("grid", nx.to_scipy_sparse_array(nx.grid_2d_graph(9, 11), format="csr")),
            ("path", nx.to_scipy_sparse_array(nx.path_graph(40), format="csr")),
            ("disconnected", nx.to_scipy_sparse_array(dis, nodelist=range(30), format="csr")),
            ("one vertex", sp.csr_matrix((1, 1), dtype=np.int64)),
            ("empty", sp.csr_matrix((0, 0), dtype=np.int64))]


@pytest.mark.parametrize("name,S", family_graphs(), ids=lambda x: x if isinstance(x, str) else "")
def test_families_vs_formulas(device, monkeypatch, name, S):
    """Raw frequencies against the dense formulas, with the masked product C
    in one block and forced into many small blocks."""
    from graphblast_py.backend import generic_spgemm
    want = formulas(S) if S.shape[0] else np.zeros((0, 16), np.int64)
    A = to_gb(S, device)
    assert np.array_equal(host(fglt(A, net=False).to_dense()).reshape(-1, 16), want)
    monkeypatch.setattr(generic_spgemm, "BLOCK_PRODUCTS", 97)
    assert np.array_equal(host(fglt(A, net=False).to_dense()).reshape(-1, 16), want)


def test_four_cliques_dense_graph(device):
    """K7 plus a pendant: every vertex of K7 lies in C(6, 3) = 20 4-cliques."""
    from graphblast_py.graphlets import four_cliques_per_vertex, simple_pattern
    G = nx.complete_graph(7)
    G.add_edge(6, 7)
    A = to_gb(nx.to_scipy_sparse_array(G, format="csr"), device)
    k4 = host(four_cliques_per_vertex(simple_pattern(A, "test")).to_dense())
    assert k4.tolist() == [20] * 7 + [0]


@pytest.mark.parametrize("name,S", family_graphs()[:4], ids=lambda x: x if isinstance(x, str) else "")
def test_common_neighbours_without_sums(device, name, S, monkeypatch):
    """``common_neighbours(P, sums=False)`` (what FGLT with 5 orbits asks
    for): the same C as with the sums, against SciPy, no sums, and the
    backend's kernel asked for no sums pass."""
    from graphblast_py.graphlets import common_neighbours, simple_pattern
    P = simple_pattern(to_gb(S, device), "test")
    asked = []
    be_type = type(P._be)
    real = be_type.edge_triangles
    monkeypatch.setattr(be_type, "edge_triangles",
                        lambda self, ip, ix, sums=False: asked.append(sums) or
                        real(self, ip, ix, sums=sums))
    C, t = common_neighbours(P, sums=False)
    assert t is None and asked == [False]
    C2, _ = common_neighbours(P)
    assert asked == [False, True] and C.isequal(C2)
    D = sp.csr_matrix(S, dtype=np.int64)
    D.data[:] = 1
    want = (D @ D).multiply(D).toarray()
    i, j, v = (host(x) for x in C.to_coo())
    got = np.zeros(S.shape, dtype=np.int64)
    got[i, j] = v
    # zeros stored on every edge; no entry at all without a triangle where
    # the backend knows that without waiting (the CPU; the GPU keeps the zeros)
    assert np.array_equal(got, want)
    empty = not want.any() and device == "cpu"
    assert C.nvals == (0 if empty else D.nnz)


@pytest.mark.parametrize("name,S", family_graphs()[:4], ids=lambda x: x if isinstance(x, str) else "")
def test_edge_triangles_kernel_vs_generic(device, name, S):
    """The backend's triangle-listing kernel against the generic masked-dot
    path and SciPy: C = A ∘ A² and the per-vertex sums."""
    from graphblast_py.backend.generic import ArrayBackend
    A = to_gb(S, device, dtype="int64")
    be = A._be
    ip, ix, _ = A._csr(False)
    c, t = (host(x) for x in be.edge_triangles(ip, ix, sums=True))
    c2, t2 = (host(x) for x in ArrayBackend.edge_triangles(be, ip, ix, sums=True))
    ip, ix = host(ip), host(ix)
    D = sp.csr_matrix(S, dtype=np.int64)
    want = (D @ D).multiply(D).tocsr()
    dense_c = sp.csr_matrix((c, ix, ip), shape=S.shape).toarray()
    assert np.array_equal(dense_c, want.toarray())
    assert np.array_equal(c, c2) and np.array_equal(t, t2)
    assert np.array_equal(t, formulas(S)[:, 13])


def test_out_of_memory_names_the_step(monkeypatch):
    """A failed allocation in a backend kernel of FGLT is the library's
    OutOfMemory naming the framework step, never a raw NumPy MemoryError."""
    A = to_gb(nx.to_scipy_sparse_array(nx.complete_graph(5), format="csr"), "cpu")
    be = A._be

    def no_memory(*args, **kw):
        raise MemoryError("Unable to allocate 8.00 GiB")
    for name, step in (("edge_triangles", "graphlets.common_neighbours"),
                       ("four_cliques", "graphlets.four_cliques_per_vertex")):
        with monkeypatch.context() as m:
            m.setattr(type(be), name, no_memory)
            with pytest.raises(gb.OutOfMemory, match=rf"^{step} \(5 x 5( times 5 x 5)?\): out of memory"):
                fglt(A)


@pytest.mark.gpu
@pytest.mark.slow
@pytest.mark.parametrize("scale", [12, 14])
def test_gpu_equals_cpu_kronecker(scale):
    """All 16 net frequencies on the GPU equal the CPU's on a power-law graph
    (hub rows in the fused kernel, many triangles and 4-cliques)."""
    A = gb.generators.kronecker(scale, seed=5)
    want = host(fglt(A).to_dense())
    got = host(fglt(A.to("gpu")).to_dense())
    assert np.array_equal(got, want)


@pytest.mark.gpu
@pytest.mark.parametrize("index", ["int32", "int64"])
def test_gpu_edge_common_kernel(index):
    """The GPU's one-kernel C = A ∘ A² (gpu/spgemm.py ``edge_common``)
    against SciPy on every entry, with int32 and int64 index arrays, on
    power-law hubs (hub-hub edges: long rows searched), a grid, isolated
    vertices, one vertex, no vertex, and a pattern with diagonal entries
    (a diagonal entry counts its row's length, as the masked dot product
    A(i, :) A(:, i) does: the generic path agrees)."""
    import cupy
    from graphblast_py.backend.generic import ArrayBackend
    from graphblast_py.device import backend_for
    be = backend_for("gpu")
    graphs = [S for _, S in family_graphs()]
    k = gb.generators.kronecker(11, seed=3, device="cpu").to_scipy().tocsr()
    graphs.append(k)
    loops = sp.csr_matrix(nx.to_scipy_sparse_array(nx.cycle_graph(7), format="csr"))
    loops = (loops + sp.eye(7, format="csr")).tocsr()
    loops.data[:] = 1
    graphs.append(loops)
    for S in graphs:
        S = sp.csr_matrix(S, dtype=np.int64)
        S.data[:] = 1
        S.sort_indices()
        ip, ix = cupy.asarray(S.indptr.astype(index)), cupy.asarray(S.indices.astype(index))
        c = cupy.asnumpy(be.edge_triangles(ip, ix))
        want = (S @ S).multiply(S).tocsr()
        got = sp.csr_matrix((c, S.indices, S.indptr), shape=S.shape).toarray()
        assert np.array_equal(got, want.toarray())
        assert np.array_equal(c, cupy.asnumpy(ArrayBackend.edge_triangles(be, ip, ix)))
        c2, t2 = be.edge_triangles(ip, ix, sums=True)
        assert np.array_equal(cupy.asnumpy(c2), c)
        if S.diagonal().sum() == 0:
            assert np.array_equal(cupy.asnumpy(t2), sigma13(S))


def sigma13(S):
    """σ13 = ((A ∘ (A (C − A))) e)/2 with SciPy's sparse products (the dense
    ``formulas`` take minutes on a graph of 2048 vertices)."""
    A = sp.csr_matrix(S, dtype=np.int64)
    C = A.multiply(A @ A).tocsr()
    return np.asarray(A.multiply(A @ (C - A)).sum(axis=1)).ravel().astype(np.int64) // 2


def test_sigma13_sparse_reference():
    """The sparse σ13 reference of the GPU kernel test agrees with the dense
    formulas on the family graphs."""
    for _, S in family_graphs():
        S = sp.csr_matrix(S, dtype=np.int64)
        S.data[:] = 1
        want = formulas(S)[:, 13] if S.shape[0] else np.zeros(0, np.int64)
        assert np.array_equal(sigma13(S), want)
