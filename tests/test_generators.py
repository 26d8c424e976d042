"""gb.generators: structure (symmetric, no self-loops, no duplicates),
determinism, and comparisons with networkx / brute force."""
import numpy as np
import pytest

import graphblast_py as gb
from tests.conftest import host

nx = pytest.importorskip("networkx")


def coo(A):
    r, c, _ = (host(x) for x in A.to_coo())
    return r.astype(np.int64), c.astype(np.int64)


def check_simple_undirected(A):
    r, c = coo(A)
    assert A.nrows == A.ncols
    assert not np.any(r == c), "self-loop"
    keys = r * A.ncols + c
    assert np.unique(keys).shape[0] == keys.shape[0], "duplicate"
    assert A.isequal(A.T), "not symmetric"
    assert A.iso or A.nvals == 0


def degrees(A):
    r, _ = coo(A)
    return np.bincount(r, minlength=A.nrows)


@pytest.mark.parametrize("scale,ef", [(0, 16), (1, 16), (6, 4), (10, 16)])
def test_kronecker_structure(scale, ef):
    A = gb.generators.kronecker(scale, ef, seed=3)
    assert A.shape == (2**scale, 2**scale) and A.dtype == np.bool_
    check_simple_undirected(A)
    assert A.nvals <= 2 * ef * 2**scale
    if scale >= 6:
        assert A.nvals > 0.5 * ef * 2**scale        # most generated edges survive


def test_kronecker_determinism_and_skew():
    A = gb.generators.kronecker(9, seed=7)
    assert A.isequal(gb.generators.kronecker(9, seed=7))
    assert not A.isequal(gb.generators.kronecker(9, seed=8))
    d = degrees(A)
    assert d.max() > 8 * d.mean()                 # heavy-tailed degrees (R-MAT)
    # without the permutation vertex 0 (all bits in quadrant a) is the hub
    U = gb.generators.kronecker(9, seed=7, permute=False)
    assert int(np.argmax(degrees(U))) == 0
    # the permutation only relabels: same degree multiset
    assert np.array_equal(np.sort(degrees(U)), np.sort(d))
    E = gb.generators.kronecker(8, seed=1, a=0.25, b=0.25, c=0.25)   # uniform: Erdos-Renyi-like
    assert degrees(E).max() < 4 * degrees(E).mean()


def test_kronecker_dtype_and_errors(device):
    A = gb.generators.kronecker(5, 8, seed=0, dtype="float32", device=device)
    assert A.device == device and A.dtype == np.float32 and A.iso and A.iso_value == 1.0
    assert A.to("cpu").isequal(gb.generators.kronecker(5, 8, seed=0, dtype="float32"))
    with pytest.raises(gb.InvalidValue):
        gb.generators.kronecker(-1)
    with pytest.raises(gb.InvalidValue):
        gb.generators.kronecker(4, a=0.6, b=0.3, c=0.3)
    with pytest.raises(gb.InvalidValue):
        gb.generators.kronecker(2.5)


@pytest.mark.parametrize("m,n", [(1, 1), (1, 7), (5, 1), (4, 6), (13, 9)])
def test_grid2d_matches_networkx(m, n):
    A = gb.generators.grid2d(m, n)
    G = nx.grid_2d_graph(m, n)
    assert list(G) == [(i, j) for i in range(m) for j in range(n)]
    ref = nx.to_scipy_sparse_array(G, format="coo")
    r, c = coo(A)
    assert A.nvals == ref.nnz
    assert set(zip(r.tolist(), c.tolist())) == set(zip(ref.row.tolist(), ref.col.tolist()))
    check_simple_undirected(A) if A.nvals else None
    assert degrees(A).max(initial=0) <= 4


def test_grid2d_variants(device):
    D = gb.generators.grid2d(6, 7, diagonals=True, device=device)
    assert D.device == device
    check_simple_undirected(D)
    assert degrees(D).max() == 8 and D.nvals == 2 * (6 * 6 + 5 * 7 + 2 * 5 * 6)
    T = gb.generators.grid2d(5, 4, periodic=True)
    ref = nx.to_scipy_sparse_array(nx.grid_2d_graph(5, 4, periodic=True), format="coo")
    r, c = coo(T)
    assert set(zip(r.tolist(), c.tolist())) == set(zip(ref.row.tolist(), ref.col.tolist()))
    assert np.all(degrees(T) == 4)
    # road-like: large diameter (n + m - 2)
    G = gb.io.to_networkx(gb.generators.grid2d(8, 5))
    assert nx.diameter(G) == 11
    assert gb.generators.grid2d(0, 5).shape == (0, 0)


@pytest.mark.parametrize("n,radius,dim", [(0, 0.1, 2), (1, 0.5, 2), (200, 0.1, 2),
                                          (150, 0.25, 3), (80, 0.05, 1)])
def test_random_geometric_brute_force(n, radius, dim):
    A, pos = gb.generators.random_geometric(n, radius, dim=dim, seed=5, return_positions=True)
    assert pos.shape == (n, dim) and A.shape == (n, n)
    d = np.sqrt(((pos[:, None, :] - pos[None, :, :]) ** 2).sum(-1))
    want = (d <= radius) & ~np.eye(n, dtype=bool)
    P = np.zeros((n, n), dtype=bool)
    r, c = coo(A)
    P[r, c] = True
    assert np.array_equal(P, want)
    if A.nvals:
        check_simple_undirected(A)


def test_random_geometric_determinism(device):
    A = gb.generators.random_geometric(300, 0.08, seed=2, device=device)
    assert A.device == device
    assert A.isequal(gb.generators.random_geometric(300, 0.08, seed=2, device=device))
    assert not A.isequal(gb.generators.random_geometric(300, 0.08, seed=3, device=device))
    with pytest.raises(gb.InvalidValue):
        gb.generators.random_geometric(10, -1.0)


def test_erdos_renyi():
    for directed in (False, True):
        A = gb.generators.erdos_renyi(200, 0.05, seed=1, directed=directed)
        r, c = coo(A)
        assert not np.any(r == c)
        if not directed:
            check_simple_undirected(A)
        else:
            assert not A.isequal(A.T)
        pairs = 200 * 199 / (1 if directed else 2)
        edges = A.nvals / (1 if directed else 2)
        assert abs(edges - 0.05 * pairs) < 5 * np.sqrt(pairs * 0.05)
        assert A.isequal(gb.generators.erdos_renyi(200, 0.05, seed=1, directed=directed))
    M = gb.generators.erdos_renyi(100, nedges=321, seed=4)
    check_simple_undirected(M)
    assert M.nvals == 642
    Md = gb.generators.erdos_renyi(30, nedges=800, seed=4, directed=True)   # > half the pairs
    assert Md.nvals == 800 and not np.any(np.equal(*coo(Md)))
    full = gb.generators.erdos_renyi(12, 1.0)
    assert full.nvals == 12 * 11
    assert gb.generators.erdos_renyi(12, 0.0).nvals == 0
    with pytest.raises(gb.InvalidValue):
        gb.generators.erdos_renyi(10, nedges=46)
    with pytest.raises(gb.InvalidValue):
        gb.generators.erdos_renyi(10)
    with pytest.raises(gb.InvalidValue):
        gb.generators.erdos_renyi(10, 1.5)


def test_erdos_renyi_uniform_pairs():
    """Every undirected pair is about equally likely (the pair-number mapping
    has no holes or bias)."""
    n = 9
    counts = np.zeros((n, n))
    for seed in range(300):
        r, c = coo(gb.generators.erdos_renyi(n, nedges=6, seed=seed))
        counts[r, c] += 1
    off = counts[~np.eye(n, dtype=bool)]
    expect = 300 * 6 / (n * (n - 1) / 2)
    assert off.min() > 0.4 * expect and off.max() < 1.6 * expect
    assert np.array_equal(counts, counts.T)


def test_triangle_pair_mapping():
    from graphblast_py.generators import _triangle_pair
    k = np.arange(5000, dtype=np.int64)
    i, j = _triangle_pair(k)
    assert np.all(j < i) and np.all(j >= 0)
    assert np.array_equal(i * (i - 1) // 2 + j, k)
    big = np.array([2**40, 2**50 + 12345], dtype=np.int64)
    i, j = _triangle_pair(big)
    assert np.array_equal(i * (i - 1) // 2 + j, big) and np.all((j >= 0) & (j < i))
