"""gb.generators: structure (symmetric, no self-loops, no duplicates),
determinism, and comparisons with networkx / brute force."""
import numpy as np
import pytest
import scipy.sparse as sp

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


# ---------------------------------------------------------------- the documented random stream
# A re-implementation of the definitions in graphblast_py/generators.py's
# docstrings with Python integers (one edge at a time) and plain NumPy: the
# generators must give exactly these graphs.
M64 = (1 << 64) - 1
GOLD = 0x9E3779B97F4A7C15


def ref_mix(z):
    z &= M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def ref_draw(seed, stream, i):
    key = ref_mix((seed & M64) + stream * GOLD)
    return ref_mix(key + (i + 1) * GOLD)


def test_splitmix64_known_outputs():
    """splitmix64 seeded with 0 (state 0): the reference implementation's
    first outputs; our draw i of key 0 is that sequence."""
    assert [ref_mix(GOLD * i) for i in (1, 2, 3)] == [
        0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]
    from graphblast_py.generators import stream_key
    from graphblast_py.backend.generic import ArrayBackend
    be = gb.backend.get("cpu")
    got = ArrayBackend.hash64(be, 0, np.arange(3, dtype=np.uint64))
    assert got.tolist() == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]
    assert stream_key(7, 2) == ref_mix(7 + 2 * GOLD)


def ref_kronecker(scale, ef, seed, a=0.57, b=0.19, c=0.19, permute=True):
    """Sorted (rows, cols) of the documented Kronecker graph."""
    n, m = 1 << scale, ef << scale
    t1, t2, t3 = (min(int(t * 2.0**32), 2**32) for t in (a, a + b, a + b + c))
    ii, jj = np.zeros(m, np.int64), np.zeros(m, np.int64)
    for e in range(m):
        for t in range(scale):
            d = ref_draw(seed, 1, (t // 2) * m + e)
            u = d >> 32 if t % 2 == 0 else d & 0xFFFFFFFF
            ii[e] |= (u >= t2) << t
            jj[e] |= ((u >= t1) ^ (u >= t2) ^ (u >= t3)) << t
    if permute:
        keys = [((ref_draw(seed, 2, v) >> scale) << scale) | v for v in range(n)]
        perm = np.array(sorted(range(n), key=lambda v: keys[v]), dtype=np.int64)
        ii, jj = perm[ii], perm[jj]
    edges = {(int(i), int(j)) for i, j in zip(ii, jj) if i != j}
    edges |= {(j, i) for i, j in edges}
    e = np.array(sorted(edges), dtype=np.int64).reshape(-1, 2)
    return e[:, 0], e[:, 1]


@pytest.mark.parametrize("scale,ef,seed,abc,permute", [
    (0, 16, 0, (0.57, 0.19, 0.19), True), (1, 4, 1, (0.57, 0.19, 0.19), True),
    (5, 8, 2, (0.57, 0.19, 0.19), True), (6, 4, 12345, (0.57, 0.19, 0.19), False),
    (7, 3, -1, (0.45, 0.15, 0.15), True), (4, 5, 2**70, (0.25, 0.25, 0.25), True)])
def test_kronecker_is_the_documented_graph(scale, ef, seed, abc, permute):
    A = gb.generators.kronecker(scale, ef, seed=seed, a=abc[0], b=abc[1], c=abc[2],
                                permute=permute)
    r, c = coo(A)
    wr, wc = ref_kronecker(scale, ef, seed, *abc, permute=permute)
    np.testing.assert_array_equal(r, wr)
    np.testing.assert_array_equal(c, wc)
    assert A.isequal(gb.generators.kronecker(scale, ef, seed=seed, a=abc[0], b=abc[1],
                                             c=abc[2], permute=permute))   # deterministic


def test_erdos_renyi_is_the_documented_graph():
    """G(n, m): the first m distinct draws of stream 3 mod N; dense: all but
    the first N - m distinct draws of stream 4."""
    def first_distinct(seed, stream, m, N):
        seen, t = [], 0
        while len(seen) < m:
            x = ref_draw(seed, stream, t) % N
            if x not in seen:
                seen.append(x)
            t += 1
        return seen
    n, m, seed = 40, 90, 9
    N = n * (n - 1) // 2
    want = set()
    for k in first_distinct(seed, 3, m, N):
        i = next(i for i in range(1, n) if i * (i + 1) // 2 > k)
        want |= {(i, k - i * (i - 1) // 2), (k - i * (i - 1) // 2, i)}
    r, c = coo(gb.generators.erdos_renyi(n, nedges=m, seed=seed))
    assert set(zip(r.tolist(), c.tolist())) == want
    # directed, dense (more than half of the pairs): the complement rule
    n, m = 12, 100
    N = n * (n - 1)
    drop = set(first_distinct(seed, 4, N - m, N))
    want = set()
    for k in set(range(N)) - drop:
        i, j = divmod(k, n - 1)
        want.add((i, j + (j >= i)))
    r, c = coo(gb.generators.erdos_renyi(n, nedges=m, seed=seed, directed=True))
    assert set(zip(r.tolist(), c.tolist())) == want
    # both ways of finding first occurrences (one packed sort; a stable argsort
    # when value and draw number do not fit in 64 bits) give the definition
    from graphblast_py.generators import stream_key
    be = gb.backend.get("cpu")
    for N, m in ((50, 30), (2**61 + 7, 200), (3, 3)):
        got = be.first_distinct(stream_key(seed, 3), m, N)
        assert got.tolist() == sorted(first_distinct(seed, 3, m, N))


# ---------------------------------------------------------------- the generic (GPU) code path
def test_generic_array_code_equals_cpu_kernels():
    """The GPU runs ArrayBackend's xp code; here it runs with NumPy and must
    give the bits of the CPU backend's fused numba kernels."""
    from graphblast_py.backend.generic import ArrayBackend
    from graphblast_py.generators import stream_key
    be = gb.backend.get("cpu")
    t = [int(x * 2.0**32) for x in (0.57, 0.76, 0.95)]
    for scale in (0, 1, 2, 5, 9):
        m = 6 << scale
        k1, k2 = stream_key(scale, 1), stream_key(scale, 2)
        for x, y in zip(be.rmat_edges(k1, scale, m, *t),
                        ArrayBackend.rmat_edges(be, k1, scale, m, *t)):
            np.testing.assert_array_equal(x, y)
        np.testing.assert_array_equal(be.random_labels(k2, scale),
                                      ArrayBackend.random_labels(be, k2, scale))
        for permute in (True, False):
            got = be.kronecker_csr(k1, k2, scale, m, *t, permute)
            want = ArrayBackend.kronecker_csr(be, k1, k2, scale, m, *t, permute)
            for x, y in zip(got, want):
                np.testing.assert_array_equal(x, y)
                assert x.dtype == y.dtype
    rng = np.random.default_rng(0)
    for n in (0, 1, 7, 100):                 # not a power of two: the division path
        r = rng.integers(0, max(n, 1), 300) if n else np.zeros(0, np.int64)
        c = rng.integers(0, max(n, 1), 300) if n else np.zeros(0, np.int64)
        for sym in (True, False):
            got = be.simple_graph_csr(r, c, n, sym)
            want = ArrayBackend.simple_graph_csr(be, r, c, n, sym)
            S = sp.coo_matrix((np.ones(r.shape[0]), (r, c)), shape=(n, n)).tocsr()
            if sym:
                S = S + S.T
            S.setdiag(0)
            S.eliminate_zeros()
            S.sort_indices()
            for x, y, z in zip(got, want, (S.indptr, S.indices)):
                np.testing.assert_array_equal(x, y)
                np.testing.assert_array_equal(x, z)


@pytest.mark.gpu
def test_gpu_generators_equal_cpu():
    for make in (lambda d: gb.generators.kronecker(12, seed=4, device=d),
                 lambda d: gb.generators.kronecker(9, 5, seed=-3, permute=False, device=d),
                 lambda d: gb.generators.kronecker(0, device=d),
                 lambda d: gb.generators.grid2d(9, 11, diagonals=True, periodic=True, device=d),
                 lambda d: gb.generators.erdos_renyi(300, 0.02, seed=5, device=d),
                 lambda d: gb.generators.erdos_renyi(30, nedges=400, seed=5, directed=True,
                                                     device=d),
                 lambda d: gb.generators.random_geometric(200, 0.1, seed=1, device=d)):
        G, C = make("gpu"), make("cpu")
        assert G.device == "gpu"
        assert G.to("cpu").isequal(C)
        for x, y in zip(coo(G), coo(C)):
            np.testing.assert_array_equal(x, y)


# ---------------------------------------------------------------- the distribution
def test_kronecker_quadrant_frequencies():
    """Per label bit, the quadrant frequencies are a, b, c, d (Graph500)."""
    from graphblast_py.generators import stream_key
    be = gb.backend.get("cpu")
    scale, m = 10, 1 << 15
    t = [int(x * 2.0**32) for x in (0.57, 0.76, 0.95)]
    ii, jj = be.rmat_edges(stream_key(1, 1), scale, m, *t)
    for bit in range(scale):
        r, c = (ii >> bit) & 1, (jj >> bit) & 1
        freq = [np.mean((r == x) & (c == y)) for x, y in ((0, 0), (0, 1), (1, 0), (1, 1))]
        for f, p in zip(freq, (0.57, 0.19, 0.19, 0.05)):
            assert abs(f - p) < 5 * np.sqrt(p * (1 - p) / m), (bit, freq)


def rmat_numpy_rng(scale, ef, seed):
    """An independent R-MAT sample (NumPy's Generator, quadrant by quadrant)
    of the same distribution, symmetrised: for statistics only."""
    rng = np.random.default_rng(seed)
    n, m = 1 << scale, ef << scale
    q = rng.choice(4, size=(m, scale), p=[0.57, 0.19, 0.19, 0.05])
    w = 1 << np.arange(scale)
    i, j = ((q >= 2) * w).sum(1), ((q % 2 == 1) * w).sum(1)
    p = rng.permutation(n)
    i, j = p[i], p[j]
    keep = i != j
    S = sp.coo_matrix((np.ones(keep.sum()), (i[keep], j[keep])), shape=(n, n)).tocsr()
    S = ((S + S.T) > 0).astype(np.int8)
    return S


def test_kronecker_statistics_match_an_independent_sampler():
    """nvals, isolated vertices and the degree tail agree with an
    independent R-MAT sample of the same parameters (NumPy's Generator)."""
    scale, ef = 13, 16
    A = gb.generators.kronecker(scale, ef, seed=11)
    d = degrees(A)
    ref = [rmat_numpy_rng(scale, ef, s) for s in (1, 2)]
    ref_nnz = np.mean([S.nnz for S in ref])
    assert abs(A.nvals - ref_nnz) < 0.01 * ref_nnz
    assert A.nvals < 2 * ef * 2**scale
    rd = np.concatenate([np.diff(S.indptr) for S in ref])
    assert abs(np.mean(d == 0) - np.mean(rd == 0)) < 0.02       # isolated vertices
    # heavy tail: the top 1% of vertices hold the same share of edges (+-3 points)
    top = lambda x: np.sort(x)[-len(x) // 100:].sum() / x.sum()   # noqa: E731
    assert abs(top(d) - np.mean([top(np.diff(S.indptr)) for S in ref])) < 0.03
    assert d.max() > 20 * d.mean()


# ---------------------------------------------------------------- argument checks
def test_generator_seed_must_be_an_integer():
    for bad in (None, 1.5, "3", True):
        with pytest.raises(gb.InvalidValue, match="seed"):
            gb.generators.kronecker(3, seed=bad)
        with pytest.raises(gb.InvalidValue, match="seed"):
            gb.generators.erdos_renyi(5, 0.5, seed=bad)


def test_matrix_kronecker_result_too_large():
    """GrB_kronecker whose result dimensions overflow int64 positions:
    DimensionMismatch before anything is computed (was OverflowError)."""
    A = gb.Matrix.from_coo([0], [5], 1.0, 1, 2**40)
    with pytest.raises(gb.DimensionMismatch, match="kronecker"):
        A.kronecker(A, "times")
    B = gb.Matrix.from_coo([1], [5], 1.0, 2, 2**31)
    with pytest.raises(gb.DimensionMismatch, match="2\\*\\*63"):
        B.kronecker(B, "times")                       # 4 x 2**62: positions overflow
    out = gb.Matrix.from_coo([0], [0], 2.0, 1, 1)
    C = gb.Matrix.from_coo([0], [0], 3.0, 1, 1)
    assert C.kronecker(C, "times", out=out).isequal(gb.Matrix.from_coo([0], [0], 9.0, 1, 1))


GENERATOR_CASES = [
    lambda: gb.generators.kronecker(0),
    lambda: gb.generators.kronecker(5, 0),
    lambda: gb.generators.kronecker(1, 1, seed=3),
    lambda: gb.generators.kronecker(8, 6, seed=9, permute=False),
    lambda: gb.generators.kronecker(7, seed=2, a=0.25, b=0.25, c=0.25),
    lambda: gb.generators.grid2d(0, 4),
    lambda: gb.generators.grid2d(1, 1),
    lambda: gb.generators.grid2d(5, 7, diagonals=True, periodic=True),
    lambda: gb.generators.erdos_renyi(0, 0.5),
    lambda: gb.generators.erdos_renyi(1, 0.5, directed=True),
    lambda: gb.generators.erdos_renyi(50, 1.0),
    lambda: gb.generators.erdos_renyi(60, nedges=1500, seed=1),
    lambda: gb.generators.erdos_renyi(25, nedges=500, seed=4, directed=True),
    lambda: gb.generators.random_geometric(100, 0.2, seed=3),
]


def test_generators_through_the_generic_code_path(monkeypatch):
    """Whole generators with the CPU backend's numba overrides replaced by
    ArrayBackend's xp code (what the GPU runs): the same graphs."""
    from graphblast_py.backend.generic import ArrayBackend
    be = gb.backend.get("cpu")
    want = [make() for make in GENERATOR_CASES]
    for name in ("kronecker_csr", "csr_from_edge_keys", "rmat_edges", "random_labels"):
        monkeypatch.setattr(be, name, getattr(ArrayBackend, name).__get__(be))
    for make, W in zip(GENERATOR_CASES, want):
        G = make()
        assert G.shape == W.shape and G.nvals == W.nvals
        for x, y in zip(coo(G), coo(W)):
            np.testing.assert_array_equal(x, y)
        if G.nvals:
            check_simple_undirected(G) if G.isequal(G.T) else None


@pytest.mark.parametrize("chunk, limit", [(1 << 5, 1 << 30), (1 << 9, 1 << 30),
                                          (1 << 26, 1 << 30), (1 << 5, 40), (1 << 9, 300)])
def test_kronecker_row_blocks_drawn_in_chunks(monkeypatch, chunk, limit):
    """A row block of a Kronecker graph through ArrayBackend's code (what a
    GPU worker of gb.dist runs), its edges drawn KRON_CHUNK at a time (a
    chunk boundary inside the draws, one chunk, more than all): the rows of
    the whole graph, the same bits; and the blocks of every split stack up
    to the whole graph.  A small ``KEYS_LIMIT`` makes the whole graph and
    the blocks build their CSR in row ranges (a range's keys halved again
    and again, down to single rows with more keys than the limit)."""
    from graphblast_py.backend.generic import ArrayBackend
    be = gb.backend.get("cpu")
    whole = {s: gb.generators.kronecker(s, seed=7, device="cpu") for s in (0, 3, 9)}
    for name in ("kronecker_csr", "csr_from_edge_keys", "rmat_edges", "random_labels"):
        monkeypatch.setattr(be, name, getattr(ArrayBackend, name).__get__(be))
    monkeypatch.setattr(be, "KRON_CHUNK", chunk, raising=False)
    monkeypatch.setattr(be, "KEYS_LIMIT", limit, raising=False)
    for s, W in whole.items():
        n = 1 << s
        S = W.to_scipy().tocsr()
        G = gb.generators.kronecker(s, seed=7, device="cpu")      # the whole, generic code
        np.testing.assert_array_equal(G.to_scipy().tocsr().indptr, S.indptr)
        np.testing.assert_array_equal(G.to_scipy().tocsr().indices, S.indices)
        for parts in (1, 2, 3):
            cuts = [n * b // parts for b in range(parts + 1)]
            blocks = [gb.generators.kronecker(s, seed=7, rows=(lo, hi), device="cpu")
                      for lo, hi in zip(cuts, cuts[1:])]
            for (lo, hi), B in zip(zip(cuts, cuts[1:]), blocks):
                assert B.shape == (hi - lo, n)
                got = B.to_scipy().tocsr()
                want = S[lo:hi]
                np.testing.assert_array_equal(got.indptr, want.indptr)
                np.testing.assert_array_equal(got.indices, want.indices)
            assert sum(B.nvals for B in blocks) == W.nvals


SYMMETRIC_BY_CONSTRUCTION = [
    lambda d: gb.generators.kronecker(7, seed=2, device=d),
    lambda d: gb.generators.grid2d(5, 7, diagonals=True, periodic=True, device=d),
    lambda d: gb.generators.erdos_renyi(40, nedges=90, seed=3, device=d),
    lambda d: gb.generators.random_geometric(50, 0.3, seed=1, device=d),
]


@pytest.mark.parametrize("make", range(len(SYMMETRIC_BY_CONSTRUCTION)))
def test_symmetric_generators_known_symmetric(make, monkeypatch):
    """The undirected generators' graphs are symmetric (checked with SciPy),
    and their symmetry is known without the whole-matrix check (which on a
    Kronecker 26 graph needs more memory than the graph); a change to the
    matrix drops what was known, and the check then runs and sees it."""
    A = SYMMETRIC_BY_CONSTRUCTION[make]("cpu")
    S = A.to_scipy().tocsr()
    assert abs(S - S.T).nnz == 0
    calls = []
    real = gb.Matrix.ewise_mult
    monkeypatch.setattr(gb.Matrix, "ewise_mult",
                        lambda self, *a, **k: calls.append(1) or real(self, *a, **k))
    G = gb.Graph(A)
    assert G.is_symmetric_structure and G.is_symmetric and not calls
    r, c, _ = A.to_coo()
    i, j = int(np.asarray(r)[0]), int(np.asarray(c)[0])
    del A[i, j]                                         # in place: (j, i) stays
    assert not gb.Graph(A).is_symmetric_structure and calls
    assert not gb.Graph(A).is_symmetric
    A[i, j] = True                                      # symmetric again, checked again
    assert gb.Graph(A).is_symmetric_structure and len(calls) >= 2


def test_directed_erdos_renyi_not_assumed_symmetric():
    A = gb.generators.erdos_renyi(30, nedges=200, seed=5, directed=True, device="cpu")
    S = A.to_scipy().tocsr()
    assert gb.Graph(A).is_symmetric_structure == (abs(S - S.T).nnz == 0) == False  # noqa: E712
