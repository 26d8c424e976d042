"""Row-blocked SpGEMM and the fused mxm_reduce.

The blocked product (forced into many blocks with a tiny per-block budget,
block boundaries inside heavy rows included) must equal the product computed
in one block and SciPy's; ``Matrix.mxm_reduce`` must equal the dense reference
model's mxm, then apply, then reduce_rowwise (tests/reference.py), and the
framework's unfused mxm -> apply -> reduce_rowwise on larger graphs.
"""
import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import graphblast_py as gb
from graphblast_py.backend import generic_spgemm
from graphblast_py.errors import DimensionMismatch, InvalidValue, OutOfMemory

from . import reference as ref
from .conftest import host

SQUARE = gb.UnaryOp.register("test_square", lambda x: x * x, cuda_expr="x * x")


@pytest.fixture
def blocks(monkeypatch):
    """Set the per-block budget in products (None: the memory budget)."""
    def set_budget(n):
        monkeypatch.setattr(generic_spgemm, "BLOCK_PRODUCTS", n)
    return set_budget


def graphs():
    """(name, SciPy CSR int64) of the graph families that break things."""
    star = nx.star_graph(40)                       # one hub row with 40 entries
    star.add_edges_from([(1, 2), (3, 4)])
    k = gb.generators.kronecker(5, seed=3)
    r, c, _ = (host(a) for a in k.to_coo())
    kron = sp.csr_matrix((np.ones(r.shape[0], np.int64), (r, c)), shape=k.shape)
    dis = nx.disjoint_union(nx.complete_graph(5), nx.path_graph(6))
    dis.add_nodes_from(range(11, 15))              # isolated vertices
    out = [("empty", sp.csr_matrix((0, 0), dtype=np.int64)),
           ("one vertex", sp.csr_matrix((1, 1), dtype=np.int64)),
           ("isolated", sp.csr_matrix((4, 4), dtype=np.int64)),
           ("grid", nx.to_scipy_sparse_array(nx.grid_2d_graph(7, 9), dtype=np.int64)),
           ("path", nx.to_scipy_sparse_array(nx.path_graph(30), dtype=np.int64)),
           ("star", nx.to_scipy_sparse_array(star, dtype=np.int64)),
           ("disconnected", nx.to_scipy_sparse_array(dis, nodelist=range(15),
                                                     dtype=np.int64)),
           ("kronecker", kron)]
    return [(name, sp.csr_matrix(S)) for name, S in out]


GRAPHS = graphs()
IDS = [g[0] for g in GRAPHS]


def weighted(S, seed):
    """The pattern of S with small integer values 1..4."""
    S = sp.csr_matrix(S, dtype=np.int64, copy=True)
    S.data = np.random.default_rng(seed).integers(1, 5, S.nnz)
    return S


def lib(S, device, dtype=None):
    return gb.Matrix.from_scipy(S, dtype=dtype, device=device)


def dense(M):
    return host(M.to_dense(fill=0))


@pytest.mark.parametrize("name,S", GRAPHS, ids=IDS)
@pytest.mark.parametrize("budget", [1, 7, 60])
def test_blocked_equals_unblocked(device, blocks, name, S, budget):
    A = lib(weighted(S, 1), device)
    B = lib(weighted(S, 2), device)
    M = lib(sp.csr_matrix(S + sp.eye(S.shape[0], dtype=np.int64, format="csr")), device)
    cases = [(gb.semiring.plus_times, None), (gb.semiring.plus_pair, M.S),
             (gb.semiring.min_plus, ~M.S), (gb.semiring.plus_times, A.S)]
    blocks(None)
    whole = [A.mxm(B, s, mask=m, method="saxpy") for s, m in cases]
    blocks(budget)
    for (s, m), W in zip(cases, whole):
        C = A.mxm(B, s, mask=m, method="saxpy")
        assert C.isequal(W, check_dtype=True), (name, s, m)
    want = (weighted(S, 1) @ weighted(S, 2)).toarray()
    got = dense(A.mxm(B, gb.semiring.plus_times))
    assert np.array_equal(got, want)


def test_block_boundaries_inside_heavy_rows(blocks):
    """A hub row's products span several blocks; its partial rows are merged."""
    S = dict(GRAPHS)["star"]
    be = gb.Matrix.from_scipy(S)._be
    A = lib(weighted(S, 3), "cpu")
    blocks(9)
    cuts = be._blocks(A._csr(), A._csr())
    shared = [b for b in range(len(cuts) - 1) if cuts[b][3] > cuts[b + 1][2]]
    assert len(shared) >= 3          # the hub row (row 0) is cut more than once
    assert all(cuts[b][3] - 1 == cuts[b + 1][2] for b in shared)
    assert [c[0] for c in cuts[1:]] == [c[1] for c in cuts[:-1]]
    C = A.mxm(A, gb.semiring.plus_times)
    assert np.array_equal(dense(C), (weighted(S, 3) @ weighted(S, 3)).toarray())


def test_blocked_generic_path(blocks):
    """A semiring the CPU kernel does not take (unsigned output): the generic
    ESC product per block, partial rows merged with the monoid."""
    S = dict(GRAPHS)["star"]
    A = lib(weighted(S, 4), "cpu", dtype="uint16")
    blocks(None)
    whole = A.mxm(A, gb.semiring.max_times)
    blocks(5)
    C = A.mxm(A, gb.semiring.max_times)
    assert C.isequal(whole, check_dtype=True) and C.dtype == np.uint16
    W = weighted(S, 4).toarray()
    want = (W[:, :, None] * W[None, :, :]).max(axis=1)
    assert np.array_equal(dense(C), want)


def test_result_too_large_is_out_of_memory(blocks, monkeypatch):
    S = dict(GRAPHS)["kronecker"]
    A = lib(S, "cpu")
    be = A._be
    blocks(50)
    monkeypatch.setattr(type(be), "max_alloc_bytes", lambda self: 1000)
    with pytest.raises(OutOfMemory, match=r"^Matrix\.mxm .*SpGEMM result"):
        A.mxm(A, gb.semiring.plus_pair)


# ---------------------------------------------------------------- mxm_reduce
def small_cases():
    G = nx.gnp_random_graph(9, 0.4, seed=5)
    G.add_nodes_from(range(11))                    # two isolated vertices
    S = nx.to_scipy_sparse_array(G, nodelist=range(11), dtype=np.int64, format="csr")
    R = sp.random(11, 7, 0.35, format="csr", random_state=6)
    R.data = np.random.default_rng(7).integers(-3, 4, R.nnz).astype(np.float64)
    return weighted(S, 8), R


def to_ref(S):
    D = S.toarray()
    P = np.zeros(D.shape, bool)
    C = S.tocoo()
    P[C.row, C.col] = True                         # stored entries, zeros included
    return ref.Ref(D.astype(S.dtype), P)


def fused_ref(A, B, add, mult, mask, complement, unary, monoid):
    T = ref.mxm(to_ref(A), to_ref(B), add, mult)
    if mask is not None:
        allowed = ref.mask_array(to_ref(mask), True, complement)
        T.present &= allowed
    if unary is not None:
        T = ref.apply_unary(T, unary)
    return ref.reduce_rowwise(T, monoid)


@pytest.mark.parametrize("mask_kind", ["none", "S", "~S"])
@pytest.mark.parametrize("unary,monoid", [(None, "plus"), ("abs", "max"), ("ainv", "min"),
                                          ("one", "plus"), ("lnot", "lor")])
@pytest.mark.parametrize("budget", [None, 4])
def test_mxm_reduce_vs_reference(device, blocks, mask_kind, unary, monoid, budget):
    S, R = small_cases()
    A, B = lib(S, device), lib(R, device)
    Mk = sp.random(11, 7, 0.5, format="csr", random_state=9)
    M = lib(Mk, device)
    mask = None if mask_kind == "none" else (M.S if mask_kind == "S" else ~M.S)
    blocks(budget)
    methods = ["saxpy", "dot"] if mask_kind == "S" else ["saxpy"]
    want = fused_ref(S, R, "plus", "times", None if mask_kind == "none" else Mk,
                     mask_kind == "~S", unary, monoid)
    for method in methods:
        w = A.mxm_reduce(B, gb.semiring.plus_times, mask=mask, apply=unary, monoid=monoid,
                         method=method)
        got = ref.from_lib(w)
        assert got.dtype == want.dtype
        assert np.array_equal(got.present, want.present), method
        assert np.allclose(got.vals[got.present], want.vals[want.present], equal_nan=True)


def test_mxm_reduce_user_op_vs_reference(device):
    S, _ = small_cases()
    A = lib(S, device)
    T = ref.mxm(to_ref(S), to_ref(S), "plus", "pair")
    T.vals = T.vals * T.vals                       # the user operator, entry by entry
    want = ref.reduce_rowwise(T, "plus")
    got = ref.from_lib(A.mxm_reduce(A, gb.semiring.plus_pair, apply=SQUARE))
    assert ref.equal(got, want) == ""


@pytest.mark.parametrize("name,S", GRAPHS, ids=IDS)
def test_mxm_reduce_vs_unfused(device, blocks, name, S):
    """Against mxm -> apply -> reduce_rowwise, one block and many."""
    A = lib(S, device, dtype="int64")
    C = A.mxm(A, gb.semiring.plus_pair)
    cases = [(None, None, "plus"), (SQUARE, None, "plus"), (SQUARE, A.S, "plus"),
             ("abs", ~A.S, "max"), (None, A.S, "min")]
    for budget in (None, 13):
        blocks(budget)
        for op, mask, mon in cases:
            T = C if mask is None else C.dup()
            if mask is not None:
                T = C.apply(gb.unary.identity, mask=mask)
            want = (T.apply(op) if op is not None else T).reduce_rowwise(mon)
            got = A.mxm_reduce(A, gb.semiring.plus_pair, mask=mask, apply=op, monoid=mon)
            assert got.isequal(want, check_dtype=True), (name, op, mask, mon, budget)


@pytest.mark.parametrize("dt", ["int64", "float64", "int32"])
def test_mxm_reduce_mask_rows_at_the_ends(device, dt):
    """The fused dot kernel over a structural mask read as CSR (the GPU's
    ``dot_masked_rows_csr`` finds each entry's row by a binary search):
    masks whose first, last and middle rows are empty, a mask row where A's
    row is empty, a one-row mask and a mask with one entry, against SciPy."""
    rng = np.random.default_rng(11)
    n = 12
    S = sp.random(n, n, 0.4, format="csr", random_state=12)
    S.data = rng.integers(1, 5, S.nnz).astype(dt)
    S = S.tolil()
    S[4, :] = 0                                            # A's row 4 empty
    S = S.tocsr()
    S.eliminate_zeros()
    A = lib(S, device)
    full = (S @ S.T).toarray()
    cs = ((S != 0).astype(int) @ (S != 0).astype(int).T).toarray()   # terms per entry
    for rows in ([1, 2, 4, 5, 9], [0], [n - 1], list(range(n)), [3]):
        Mk = sp.lil_matrix((n, n))
        for r in rows:
            Mk[r, rng.permutation(n)[: (1 if rows == [3] else 5)]] = 1
        Mk = Mk.tocsr()
        M = lib(Mk, device, dtype="bool")
        for method in ("dot", "auto"):
            w = A.mxm_reduce(A.T, gb.semiring.plus_times, mask=M.S, method=method)
            want = np.where(Mk.toarray() != 0, full, 0)
            rowsum = want.sum(axis=1)
            has = ((Mk.toarray() != 0) & (cs > 0)).any(axis=1)      # a product in the mask
            got = ref.from_lib(w)
            np.testing.assert_array_equal(got.present, has, err_msg=str(rows))
            np.testing.assert_array_equal(got.vals[has], rowsum[has], err_msg=str(rows))


def test_mxm_reduce_accum_out(device):
    S, R = small_cases()
    A, B = lib(S, device), lib(R, device)
    w = gb.Vector.from_dense(np.arange(11, dtype=np.float64), device=device)
    base = A.mxm_reduce(B, gb.semiring.plus_times)
    r = A.mxm_reduce(B, gb.semiring.plus_times, accum=gb.binary.plus, out=w)
    assert r is w
    want = np.arange(11.0) + host(base.to_dense(fill=0))
    assert np.allclose(host(w.to_dense()), want)


def test_mxm_reduce_errors():
    S, R = small_cases()
    A, B = lib(S, "cpu"), lib(R, "cpu")
    with pytest.raises(InvalidValue, match="apply must be a UnaryOp"):
        A.mxm_reduce(B, gb.semiring.plus_times, apply=gb.binary.plus)
    with pytest.raises(DimensionMismatch, match="inner dimensions 7 and 11"):
        B.mxm_reduce(B, gb.semiring.plus_times)
    with pytest.raises(InvalidValue, match="needs a mask that is not complemented"):
        A.mxm_reduce(B, gb.semiring.plus_times, mask=~B.S, method="dot")
    with pytest.raises(DimensionMismatch, match="out has shape"):
        A.mxm_reduce(B, gb.semiring.plus_times, out=gb.Vector("float64", 3))
    with pytest.raises(InvalidValue, match="out must be a Vector"):
        A.mxm_reduce(B, gb.semiring.plus_times, out=gb.Matrix("float64", 11, 7))
    with pytest.raises(InvalidValue, match="pass a mask as"):
        A.mxm_reduce(B, gb.semiring.plus_times, mask=B)


def test_mxm_reduce_dense_operand(device):
    """B in dense form (every entry present): the product's rows, reduced."""
    S, _ = small_cases()
    A = lib(S, device)
    X = np.arange(22, dtype=np.float64).reshape(11, 2) - 7
    B = gb.Matrix.from_dense(X, device=device)
    w = A.mxm_reduce(B, gb.semiring.plus_times, apply="abs", monoid="max")
    assert gb.stats.last("mxm_reduce") == "saxpy"
    want = np.abs(S.toarray() @ X).max(axis=1)
    rows = np.diff(S.indptr) > 0
    got = host(w.to_dense(fill=0))
    assert np.allclose(got[rows], want[rows]) and w.nvals == int(rows.sum())
