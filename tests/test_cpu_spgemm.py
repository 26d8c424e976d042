"""The CPU Gustavson SpGEMM (backend/cpu/spgemm.py) against SciPy, against
python-graphblas (masks through the operation layer) and against the generic
ESC path (``ArrayBackend.spgemm`` called on the same inputs).

Values are small integers (also in float64), so sums are exact whatever their
order.  ``any`` results are compared by structure, and their values checked
to be one of the candidate terms."""
import zlib

import numpy as np
import pytest
import scipy.sparse as sp

import graphblast_py as gb
from graphblast_py.backend.cpu.backend import CPUBackend
from graphblast_py.backend.cpu.spgemm import spgemm_csr
from graphblast_py.backend.generic import ArrayBackend

SHAPES = [(37, 23, 41), (1, 50, 1), (60, 1, 60), (50, 40, 30), (0, 5, 7), (6, 0, 4), (5, 6, 0)]
SEMIRINGS = ["plus_times", "min_plus", "max_times", "lor_land", "any_pair", "plus_pair",
             "min_first", "any_secondi", "max_secondj", "plus_min", "max_firsti", "min_firstj",
             "any_first", "land_lor", "lxor_land", "max_second", "plus_rminus", "min_minus"]
DTYPES = ["int64", "float64", "int32", "bool", "int8", "float32"]
MASKS = [None, "S", "~S"]


def rand(rng, m, n, density, dtype, empty_rows=0.2, empty_cols=0.2):
    """A random scipy CSR matrix with some rows and columns left empty."""
    nnz = int(round(density * m * n))
    flat = rng.choice(m * n, size=nnz, replace=False) if m * n else np.zeros(0, np.int64)
    r, c = flat // max(n, 1), flat % max(n, 1)
    keep = (rng.random(m) >= empty_rows)[r] & (rng.random(n) >= empty_cols)[c] if nnz else \
        np.zeros(0, bool)
    r, c = r[keep], c[keep]
    if dtype == "bool":
        v = rng.random(r.shape[0]) < 0.7
    else:
        v = rng.integers(1 if dtype == "uint8" else -3, 7, r.shape[0]).astype(dtype)
    return sp.csr_matrix((v, (r, c)), shape=(m, n), dtype=dtype)


def gbm(S, iso=False):
    S = S.tocoo()
    vals = S.dtype.type(2) if iso else S.data
    return gb.Matrix.from_coo(S.row, S.col, vals, S.shape[0], S.shape[1], dtype=S.dtype)


def parts(M, need):
    ip, ix, v = M._csr(need)
    return ip, ix, v


def backend_inputs(A, B, sr):
    return parts(A, sr.mult.reads_x), parts(B, sr.mult.reads_y)


def mask_arg(M, kind):
    if kind is None:
        return None, None
    keys = M.S.keys()
    return (keys, kind == "~S"), M._csr(False)[:2]


def generic(be, A, B, sr, mask):
    out = sr.out_dtype(A.dtype, B.dtype)
    a, b = backend_inputs(A, B, sr)
    return ArrayBackend.spgemm(be, a, b, sr, mask, out, (A.nrows, B.ncols))


def check_against_generic(be, A, B, sr, mask, mask_csr, parallel_work):
    out = sr.out_dtype(A.dtype, B.dtype)
    a, b = backend_inputs(A, B, sr)
    shape = (A.nrows, B.ncols)
    wk, wv = generic(be, A, B, sr, mask)
    ip, ix, v, iso = spgemm_csr(be, a, b, sr, mask, out, shape, parallel_work, mask_csr)
    assert ix.dtype == np.int32 and (v is None or v.dtype == out)
    assert ip.shape == (shape[0] + 1,) and ip[0] == 0 and ip[-1] == ix.shape[0]
    keys = be.csr_to_keys(ip, ix, shape[1])
    np.testing.assert_array_equal(keys, wk)
    vals = np.full(keys.shape[0], iso, out) if v is None else v
    assert vals.dtype == out and wv.dtype == out
    if sr.monoid.name == "any" and sr.mult.name != "pair":
        check_any(A, B, sr, keys, vals, shape)
    else:
        np.testing.assert_array_equal(vals, wv)
    # the keys contract of CPUBackend.spgemm
    k2, v2 = be.spgemm(a, b, sr, mask, out, shape)
    np.testing.assert_array_equal(k2, wk)
    np.testing.assert_array_equal(v2, vals)


def check_any(A, B, sr, keys, vals, shape):
    """Every value of an ``any`` result is one of the entry's terms."""
    n = max(shape[1], 1)
    i, j = keys // n, keys % n
    Ad = A.to_dense(fill=0)
    Bd = B.to_dense(fill=0)
    Ap = np.zeros(A.shape, bool)
    r, c, _ = A.to_coo()
    Ap[r, c] = True
    Bp = np.zeros(B.shape, bool)
    r, c, _ = B.to_coo()
    Bp[r, c] = True
    name = sr.mult.name
    for t in range(keys.shape[0]):
        ks = np.flatnonzero(Ap[i[t]] & Bp[:, j[t]])
        assert ks.shape[0] > 0
        if name == "secondi":
            cand = ks
        elif name == "first":
            cand = Ad[i[t], ks]
        elif name == "second":
            cand = Bd[ks, j[t]]
        else:  # pragma: no cover
            raise AssertionError(name)
        assert vals[t] in cand.astype(vals.dtype)


# ---------------------------------------------------------------- against SciPy
@pytest.mark.parametrize("dtype", ["float64", "int64", "int32"])
@pytest.mark.parametrize("shape", SHAPES)
def test_plus_times_vs_scipy(shape, dtype):
    rng = np.random.default_rng(zlib.crc32(repr((shape, dtype)).encode()))
    m, k, n = shape
    SA, SB = rand(rng, m, k, 0.15, dtype), rand(rng, k, n, 0.15, dtype)
    C = gbm(SA).mxm(gbm(SB), gb.semiring.plus_times, method="saxpy")
    PA, PB = SA.copy(), SB.copy()
    PA.data[:] = 1                        # structure: every product that exists
    PB.data[:] = 1
    Ref = (PA.astype(np.int64) @ PB.astype(np.int64)).tocoo()
    r, c, v = C.to_coo()
    order = np.lexsort((Ref.col, Ref.row))
    np.testing.assert_array_equal(r, Ref.row[order])
    np.testing.assert_array_equal(c, Ref.col[order])
    np.testing.assert_array_equal(v, np.asarray((SA @ SB).todense())[r, c])
    assert C.dtype == np.dtype(dtype)


@pytest.mark.parametrize("parallel_work", [0, 1 << 40])
def test_large_vs_scipy(parallel_work):
    """Big enough for the parallel kernels (and forced serial), with hub rows."""
    rng = np.random.default_rng(5)
    SA = rand(rng, 700, 500, 0.02, "float64")
    SA = sp.vstack([SA, sp.csr_matrix(np.ones((1, 500)))]).tocsr()    # a dense hub row
    SB = rand(rng, 500, 900, 0.03, "float64")
    SA.data = np.abs(SA.data) + 1          # SciPy drops sums that cancel to zero
    SB.data = np.abs(SB.data) + 1
    be = CPUBackend()
    A, B = gbm(SA), gbm(SB)
    sr = gb.semiring.plus_times
    ip, ix, v, _ = spgemm_csr(be, A._csr(), B._csr(), sr, None, np.dtype(np.float64),
                              (701, 900), parallel_work)
    R = (SA @ SB).tocsr()
    R.sort_indices()
    C = sp.csr_matrix((v, ix, ip), shape=(701, 900))
    np.testing.assert_array_equal(C.indptr, R.indptr)
    np.testing.assert_array_equal(C.indices, R.indices)
    np.testing.assert_allclose(C.data, R.data, rtol=1e-12)


def test_kronecker_square_vs_scipy():
    A = gb.generators.kronecker(9, 8, seed=3, dtype=np.float64)
    S = A.to_scipy().tocsr()
    C = A.mxm(A, gb.semiring.plus_times)
    R = (S @ S).tocsr()
    R.sort_indices()
    Cs = C.to_scipy().tocsr()
    np.testing.assert_array_equal(Cs.indptr, R.indptr)
    np.testing.assert_array_equal(Cs.indices, R.indices)
    np.testing.assert_array_equal(Cs.data, R.data)


# ---------------------------------------------------------------- against the generic ESC
@pytest.mark.parametrize("mask", MASKS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", SEMIRINGS)
def test_vs_generic(name, dtype, mask):
    rng = np.random.default_rng(zlib.crc32(repr((name, dtype, mask)).encode()))
    be = CPUBackend()
    sr = gb.semiring[name]
    for m, k, n in [(37, 23, 41), (50, 40, 30), (1, 9, 12)]:
        A, B = gbm(rand(rng, m, k, 0.2, dtype)), gbm(rand(rng, k, n, 0.2, dtype))
        M = gbm(rand(rng, m, n, 0.3, "bool"))
        out = sr.out_dtype(A.dtype, B.dtype)
        if not be._kernel_ok(sr, out):
            pytest.skip(f"{name} on {dtype}: not a kernel semiring (generic path)")
        mk, mcsr = mask_arg(M, mask)
        for pw in PARALLEL_WORKS[dtype]:      # parallel and serial kernels
            check_against_generic(be, A, B, sr, mk, mcsr, pw)
        if mk is not None:                    # the mask given as keys only
            check_against_generic(be, A, B, sr, mk, None, PARALLEL_WORKS[dtype][0])


# The parallel kernels run the serial kernels' row loops (inlined) on blocks
# of rows: every semiring and mask runs parallel on the types whose parallel
# kernels the suite compiles anyway -- int64, float64, bool (the logical
# multiplies' compute type), int8 (test_small_int_overflow_wraps_like_numpy)
# and int32 (fglt's counts) -- and serially on every type.  float32 would
# cost its own numba compiles (~10 s each on a cold cache) for no code path
# of the parallel kernels (its arithmetic is the serial loop's, run here on
# every semiring).
PARALLEL_WORKS = {dt: ((1 << 40,) if dt == "float32" else (0, 1 << 40)) for dt in DTYPES}


@pytest.mark.parametrize("name", ["plus_times", "min_plus", "any_pair", "plus_pair",
                                  "any_secondi", "max_secondj"])
@pytest.mark.parametrize("mask", MASKS)
def test_vs_generic_iso_and_mixed(name, mask):
    """Iso operands (no values array) and mixed operand types."""
    rng = np.random.default_rng(11)
    be = CPUBackend()
    sr = gb.semiring[name]
    A = gbm(rand(rng, 45, 30, 0.2, "int32"), iso=True)
    B = gbm(rand(rng, 30, 35, 0.2, "float64"))
    M = gbm(rand(rng, 45, 35, 0.4, "bool"))
    mk, mcsr = mask_arg(M, mask)
    for pw in (0, 1 << 40):
        check_against_generic(be, A, B, sr, mk, mcsr, pw)
        check_against_generic(be, B.T, A.T, sr, None if mk is None else
                              mask_arg(M.T, mask)[0], None, pw)


@pytest.mark.parametrize("name", ["plus_times", "min_plus", "max_minus", "plus_rminus"])
def test_small_int_overflow_wraps_like_numpy(name):
    """int8 products overflow: each product wraps to int8 before it is reduced."""
    rng = np.random.default_rng(4)
    be = CPUBackend()
    A, B = rand(rng, 30, 20, 0.4, "int8"), rand(rng, 20, 25, 0.4, "int8")
    A.data = rng.integers(-128, 127, A.nnz).astype(np.int8)
    B.data = rng.integers(-128, 127, B.nnz).astype(np.int8)
    for pw in (0, 1 << 40):
        check_against_generic(be, gbm(A), gbm(B), gb.semiring[name], None, None, pw)


def test_mask_edge_cases():
    rng = np.random.default_rng(2)
    be = CPUBackend()
    A, B = gbm(rand(rng, 30, 20, 0.3, "int64")), gbm(rand(rng, 20, 25, 0.3, "int64"))
    sr = gb.semiring.plus_times
    empty = gb.Matrix(bool, 30, 25)
    full = gb.Matrix.from_dense(np.ones((30, 25), bool))
    for M in (empty, full):
        for comp in (False, True):
            mk = (M.S.keys(), comp)
            for pw in (0, 1 << 40):
                check_against_generic(be, A, B, sr, mk, M._csr(False)[:2], pw)
                check_against_generic(be, A, B, sr, mk, None, pw)


def test_empty_operands():
    be = CPUBackend()
    sr = gb.semiring.plus_times
    A = gb.Matrix(np.float64, 4, 3)
    B = gbm(sp.random(3, 5, density=0.5, random_state=1, format="csr"))
    for X, Y in ((A, B), (gbm(sp.random(4, 3, density=0.5, random_state=2, format="csr")),
                          gb.Matrix(np.float64, 3, 5))):
        ip, ix, v, _ = spgemm_csr(be, X._csr(), Y._csr(), sr, None, np.dtype(np.float64),
                                  (4, 5), 0)
        assert ip.shape == (5,) and not ip.any() and ix.shape == (0,) and v.shape == (0,)
        assert X.mxm(Y, sr).nvals == 0


# ---------------------------------------------------------------- operation layer
graphblas = pytest.importorskip("graphblas")


def to_g(x):
    r, c, v = x.to_coo()
    return graphblas.Matrix.from_coo(r, c, v, nrows=x.nrows, ncols=x.ncols, dtype=x.dtype)


def gsemiring(name):
    try:   # python-graphblas keeps SuiteSparse-only semirings under .ss
        return getattr(graphblas.semiring.ss, name)
    except AttributeError:
        return getattr(graphblas.semiring, name)


def same(C, Cg, values=True):
    r, c, v = C.to_coo()
    rg, cg, vg = Cg.to_coo()
    np.testing.assert_array_equal(r, rg)
    np.testing.assert_array_equal(c, cg)
    if values:
        np.testing.assert_array_equal(v.astype(np.float64), vg.astype(np.float64))


@pytest.mark.parametrize("mask", [None, "S", "~S", "V", "~V"])
@pytest.mark.parametrize("name", ["plus_times", "min_plus", "max_times", "any_pair", "plus_pair",
                                  "min_first", "max_secondj", "any_secondi", "lor_land"])
def test_mxm_masks_vs_graphblas(name, mask):
    rng = np.random.default_rng(zlib.crc32(repr((name, mask)).encode()))
    dtype = "bool" if name == "lor_land" else "int64"
    A = gbm(rand(rng, 60, 45, 0.1, dtype))
    B = gbm(rand(rng, 45, 50, 0.1, dtype))
    Mv = rand(rng, 60, 50, 0.3, "int64")
    Mv.data[::3] = 0                                  # stored zeros: V differs from S
    M = gbm(Mv)
    Mg = to_g(M)
    gm = {None: None, "S": (M.S, Mg.S), "~S": (~M.S, ~Mg.S), "V": (M.V, Mg.V),
          "~V": (~M.V, ~Mg.V)}[mask]
    C = A.mxm(B, gb.semiring[name], mask=None if gm is None else gm[0], method="saxpy")
    expr = to_g(A).mxm(to_g(B), gsemiring(name))
    Cg = expr.new(mask=None if gm is None else gm[1])
    same(C, Cg, values=not name.startswith("any") or name == "any_pair")
    # into an existing matrix: old entries outside the mask survive (no replace)
    Cin = gbm(rand(rng, 60, 50, 0.2, "int64"))
    if gm is not None and not name.startswith("any"):
        for replace in (False, True):
            C1 = A.mxm(B, gb.semiring[name], mask=gm[0], out=Cin.dup(), replace=replace,
                       method="saxpy")
            Cg1 = to_g(Cin)
            Cg1(mask=gm[1], replace=replace) << expr
            same(C1, Cg1)
    # accumulate into an existing matrix, replace
    if name in ("plus_times", "min_plus", "plus_pair"):
        C2 = A.mxm(B, gb.semiring[name], mask=None if gm is None else gm[0], accum=gb.binary.plus,
                   out=Cin.dup(), replace=gm is not None)
        Cg2 = to_g(Cin)
        Cg2(mask=None if gm is None else gm[1], accum=graphblas.binary.plus,
            replace=gm is not None) << expr
        same(C2, Cg2)


def test_auto_choice_uses_the_cpu_cost():
    """mxm's auto choice weighs a Gustavson product as 3 merge steps of the dot
    kernel (the ESC path's 16 elsewhere)."""
    be = CPUBackend()
    assert be.saxpy_flop_cost(gb.semiring.plus_pair, np.dtype(np.int64)) == 3
    assert ArrayBackend().saxpy_flop_cost(gb.semiring.plus_pair, np.dtype(np.int64)) is None
    # unsigned outputs take the generic path: the default cost
    assert be.saxpy_flop_cost(gb.semiring.plus_times, np.dtype(np.uint8)) is None
    # a hub row of n entries times a column with n/8 entries: n/8 products but
    # a merge of n + n/8 steps -- ratio 9: dot under the ESC cost, saxpy here
    n = 400
    A = gb.Matrix.from_coo(np.zeros(n, np.int64), np.arange(n), 1, 1, n, dtype=np.int64)
    B = gb.Matrix.from_coo(np.arange(0, n, 8), np.zeros(n // 8, np.int64), 1, n, 1,
                           dtype=np.int64)
    M = gb.Matrix.from_coo([0], [0], True, 1, 1)
    C = A.mxm(B, gb.semiring.plus_times, mask=M.S)
    assert gb.stats.last("mxm") == "saxpy"
    assert C[0, 0] == n // 8
    Cu = A.dup(np.uint8).mxm(B.dup(np.uint8), gb.semiring.plus_times, mask=M.S)
    assert gb.stats.last("mxm") == "dot"
    assert Cu[0, 0] == n // 8


def test_betweenness_forward_step_vs_graphblas():
    """F<~P.S> = F plus_first A, the forward step of batched Brandes."""
    A = gb.generators.kronecker(8, 8, seed=4, dtype=np.float64)
    rng = np.random.default_rng(0)
    src = np.sort(rng.choice(A.nrows, 32, replace=False))
    S = A.to_scipy().tocsr()
    F = gbm(S[src].tocsr())
    P = gbm((S[src] + sp.csr_matrix((np.ones(32), (np.arange(32), src)),
                                    shape=(32, A.nrows))).tocsr())
    C = F.mxm(A, gb.semiring.plus_first, mask=~P.S)
    Cg = to_g(F).mxm(to_g(A), graphblas.semiring.plus_first).new(mask=~to_g(P).S)
    same(C, Cg)
