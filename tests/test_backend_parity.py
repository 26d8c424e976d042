"""GPUBackend against CPUBackend on the same inputs.

Every GPU backend method (generated CUDA kernels and the generic methods run
on CuPy) is compared with the CPU backend's result: identical for integer and
bool outputs, within float tolerance for floats.  Inputs: random CSR matrices
of several shapes, with empty rows, a hub row of thousands of entries, long
rows (warp pull, merge SpMM), int32 and int64 index arrays; several semirings
(predefined, a user-defined multiply and a user-defined monoid with CUDA
expressions, one that only the vectorized path runs) and dtypes.  Then the
same operations end to end through gb objects on device="gpu" vs "cpu".

All tests are marked ``gpu`` and skip cleanly without CuPy and a CUDA device.
"""
import zlib

import numpy as np
import pytest
import scipy.sparse as sp

import graphblast_py as gb
from graphblast_py import backend as _backend
from graphblast_py import dtypes
from graphblast_py.stats import stats

from .conftest import host

pytestmark = pytest.mark.gpu

BOOL, I32, I64 = np.dtype(bool), np.dtype(np.int32), np.dtype(np.int64)
F32, F64 = np.dtype(np.float32), np.dtype(np.float64)

# ---------------------------------------------------------------- user-defined operators
ABSDIFF = gb.BinaryOp.register("absdiff", lambda x, y: abs(x - y), "(x > y ? x - y : y - x)")
UMIN_OP = gb.BinaryOp.register("umin", lambda x, y: min(x, y), "(x < y ? x : y)")
UMIN = gb.Monoid.register("umin", UMIN_OP, dtypes.max_value, dtypes.min_value)
NOCUDA = gb.BinaryOp.register("nocuda", lambda x, y: x + y)          # no cuda_expr
TWICE = gb.UnaryOp.register("twice", lambda x: x + x, "x + x")
NEAR_DIAG = gb.IndexUnaryOp.register("near_diag", lambda x, i, j, t: abs(i - j) <= t,
                                     "((i > j ? i - j : j - i) <= thunk)")

SEMIRINGS = {
    "plus_absdiff": gb.Semiring.register("plus_absdiff", gb.monoid.plus, ABSDIFF),
    "umin_plus": gb.Semiring.register("umin_plus", UMIN, gb.binary.plus),
}


def semiring(name):
    return SEMIRINGS.get(name) or gb.semiring[name]


# (semiring, value dtype of matrix and vector)
SR_CASES = [
    ("plus_times", BOOL), ("plus_times", I32), ("plus_times", I64), ("plus_times", F32),
    ("plus_times", F64), ("min_plus", I32), ("min_plus", F32), ("min_plus", F64),
    ("any_pair", BOOL), ("any_pair", F64), ("lor_land", BOOL), ("lor_land", I32),
    ("any_secondi", BOOL), ("any_secondi", I64), ("any_secondi", F32),
    ("plus_pair", BOOL), ("plus_pair", F64), ("max_first", I64), ("max_first", F32),
    ("max_first", BOOL), ("plus_absdiff", I32), ("plus_absdiff", F64),
    ("umin_plus", I64), ("umin_plus", F64), ("times_times", I64), ("lxor_land", BOOL),
    ("plus_div", F64),   # div: not a kernel operator, the vectorized path on CuPy
]
SR_IDS = [f"{s}-{d}" for s, d in SR_CASES]


# ---------------------------------------------------------------- inputs
def _values(rng, n, dtype):
    if dtype == BOOL:
        return rng.random(n) < 0.7
    if dtype.kind in "iu":
        return rng.integers(-3, 8, n).astype(dtype)
    return rng.uniform(-2.0, 3.0, n).astype(dtype)


def random_csr(nrows, ncols, density, dtype, seed, hub=0, empty_frac=0.25, index64=False):
    """(indptr, indices, vals) NumPy arrays: sorted, unique columns per row;
    about ``empty_frac`` of the rows empty; row nrows//2 gets ``hub`` entries."""
    rng = np.random.default_rng(seed)
    S = sp.random(nrows, ncols, density=density, format="lil", random_state=rng)
    if hub:
        S[nrows // 2, rng.choice(ncols, size=min(hub, ncols), replace=False)] = 1.0
    S = S.tocsr()
    keep = rng.random(nrows) >= empty_frac
    if hub:
        keep[nrows // 2] = True
    S = sp.diags(keep.astype(float)) @ S
    S = S.tocsr()
    S.eliminate_zeros()
    S.sort_indices()
    it = I64 if index64 else I32
    return (S.indptr.astype(it), S.indices.astype(it),
            _values(rng, S.nnz, dtype))


MATRICES = {
    # name: (nrows, ncols, density, hub, index64)
    "small": (37, 29, 0.15, 0, False),
    "medium": (1500, 1200, 0.005, 0, True),
    "hub": (3000, 2800, 0.002, 2500, False),
    "long": (60, 2000, 0.05, 0, False),     # ~100 per row: warp pull, merge SpMM
}


def matrix(name, dtype, seed=0):
    nrows, ncols, density, hub, index64 = MATRICES[name]
    return random_csr(nrows, ncols, density, dtype, seed + 7, hub=hub, index64=index64), \
        (nrows, ncols)


@pytest.fixture(scope="module")
def cpu():
    return _backend.get("cpu")


@pytest.fixture(scope="module")
def gpu():
    return _backend.get("gpu")


def dev(gpu, arrays):
    return tuple(None if a is None else gpu.asarray(a) for a in arrays)


def assert_same(got, want, dtype=None):
    got, want = host(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    dt = np.dtype(dtype) if dtype is not None else want.dtype
    if dt.kind == "f":
        tol = 1e-3 if dt == F32 else 1e-9
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=tol,
                                   atol=tol)
    else:
        np.testing.assert_array_equal(got, want)


def assert_dense_result(g, c):
    """(vals, present) pairs: same presence, same values where present."""
    gv, gp = host(g[0]), host(g[1])
    cv, cp = c
    np.testing.assert_array_equal(gp, cp)
    assert gv.dtype == cv.dtype
    assert_same(gv[cp] if gv.ndim == 1 else gv[cp], cv[cp])


# ---------------------------------------------------------------- arrays and structure
def test_arrays(gpu, cpu):
    import cupy
    assert gpu.name == "gpu" and gpu.xp is cupy
    a = gpu.asarray([1, 2, 3])
    assert isinstance(a, cupy.ndarray) and a.dtype == I64
    b = gpu.asarray(np.arange(5, dtype=np.float32))
    assert isinstance(b, cupy.ndarray) and b.dtype == F32
    c = gpu.asarray(b, dtype=F64)                      # a device array converted on device
    assert isinstance(c, cupy.ndarray) and c.dtype == F64 and c.get().tolist() == [0, 1, 2, 3, 4]
    assert gpu.asarray([True, False]).dtype == BOOL
    with pytest.raises(gb.DomainMismatch, match="numeric"):
        gb.Vector.from_coo([0], ["a"], device="gpu")
    with pytest.raises(gb.DomainMismatch):
        gb.Matrix.from_dense(np.array([["a"]]), device="gpu")
    assert gpu.asarray([1, 2], dtype=F64).dtype == F64
    h = gpu.to_host(b)
    assert isinstance(h, np.ndarray) and h.tolist() == [0, 1, 2, 3, 4]
    assert gpu.item(gpu.asarray([7])) == 7 and isinstance(gpu.item(gpu.asarray([7])), int)
    assert gpu.item(gpu.asarray(2.5)) == 2.5
    assert gpu.count_nonzero(gpu.asarray([0, 1, 2, 0])) == 2
    free = gpu.max_alloc_bytes()
    assert isinstance(free, int) and free > 2**20


def test_sparse_matrix(gpu):
    ip, ix, v = random_csr(40, 30, 0.2, F64, 1)
    S = gpu.sparse_matrix(*dev(gpu, (ip, ix, v)), (40, 30))
    assert type(S).__module__.startswith("cupyx")
    np.testing.assert_allclose(S.get().toarray(), sp.csr_matrix((v, ix, ip), (40, 30)).toarray())
    S = gpu.sparse_matrix(*dev(gpu, (ip, ix, (v * 10).astype(np.int32))), (40, 30))
    assert S.dtype == F64     # cuSPARSE has no integer matrices
    np.testing.assert_array_equal(S.get().toarray(), sp.csr_matrix(
        ((v * 10).astype(np.int32), ix, ip), (40, 30)).toarray())
    B = sp.random(50, 60, density=0.1, format="csr", random_state=2, dtype=np.float32)
    A = gb.Matrix.from_scipy(B, device="gpu")
    C = A.to_scipy()
    assert type(C).__module__.startswith("cupyx") and C.dtype == F32
    np.testing.assert_array_equal(C.get().toarray(), B.toarray())


def test_argsort_is_stable(gpu):
    rng = np.random.default_rng(3)
    for dt in (np.int64, np.int32, np.float64):
        keys = rng.integers(0, 40, 100_003).astype(dt)
        assert_same(gpu.argsort(gpu.asarray(keys)), np.argsort(keys, kind="stable"))


def test_expand_rows_of_transpose(gpu, cpu):
    rng = np.random.default_rng(4)
    counts = rng.integers(0, 5, 1000)
    counts[[0, 17, 999]] = 0
    counts[500] = 5000
    for got, want in zip(gpu.expand(gpu.asarray(counts)), cpu.expand(counts)):
        assert_same(got, want)
    for got, want in zip(gpu.expand(gpu.asarray(counts[:0])), cpu.expand(counts[:0])):
        assert_same(got, want)
    for name in MATRICES:
        (ip, ix, v), (m, n) = matrix(name, F64)
        assert_same(gpu.rows_of(gpu.asarray(ip), ix.shape[0]), cpu.rows_of(ip, ix.shape[0]))
        got = gpu.transpose_csr(*dev(gpu, (ip, ix, v)), m, n)
        want = cpu.transpose_csr(ip, ix, v, m, n)
        for g, c in zip(got, want):
            assert_same(g, c)
            assert host(g).dtype == c.dtype
        got = gpu.transpose_csr(*dev(gpu, (ip, ix)), None, m, n)
        assert got[2] is None


def test_segment_helpers(gpu, cpu):
    rng = np.random.default_rng(5)
    keys = np.sort(rng.integers(0, 300, 2000))
    assert_same(gpu.segment_starts(gpu.asarray(keys)), cpu.segment_starts(keys))
    s = np.unique(rng.integers(0, 5000, 700))
    q = rng.integers(0, 5000, 3000)
    assert_same(gpu.member(*dev(gpu, (q, s))), cpu.member(q, s))
    for g, c in zip(gpu.locate(*dev(gpu, (q, s))), cpu.locate(q, s)):
        assert_same(g, c)
    ip, ix, v = random_csr(200, 150, 0.05, F64, 6)
    rows = np.array([3, 3, 0, 199, 50], dtype=np.int64)
    for g, c in zip(gpu.gather_rows(*dev(gpu, (ip, rows))), cpu.gather_rows(ip, rows)):
        assert_same(g, c)
    k = gpu.csr_to_keys(*dev(gpu, (ip, ix)), 150)
    assert_same(k, cpu.csr_to_keys(ip, ix, 150))
    for g, c in zip(gpu.keys_to_csr(k, 200, 150), cpu.keys_to_csr(host(k), 200, 150)):
        assert_same(g, c)


@pytest.mark.parametrize("dup", [None, "plus", "first", "second", "min", "times"])
def test_coo_to_sorted(gpu, cpu, dup):
    rng = np.random.default_rng(8)
    r = rng.integers(0, 30, 400)
    c = rng.integers(0, 20, 400)
    v = rng.integers(-5, 9, 400).astype(np.int64)
    op = None if dup is None else gb.binary[dup]
    got = gpu.coo_to_sorted(*dev(gpu, (r, c)), 20, gpu.asarray(v), op)
    want = cpu.coo_to_sorted(r, c, 20, v, op)
    assert_same(got[0], want[0])
    assert_same(got[1], want[1])
    assert got[2] == want[2]


# ---------------------------------------------------------------- reductions
MONOIDS = ["plus", "times", "min", "max", "lor", "land", "lxor", "eq", "any"]


@pytest.mark.parametrize("atomic", [False, True], ids=["kernels", "seg_atomic"])
@pytest.mark.parametrize("dtype", [BOOL, I32, I64, F32, F64], ids=str)
@pytest.mark.parametrize("mname", MONOIDS + ["umin"])
def test_segment_reduce(gpu, cpu, mname, dtype, atomic, monkeypatch):
    """Every monoid and type against the CPU: thread and warp per segment
    and singletons, and (``seg_atomic``, forced for every length) the
    nonzero split, with one hub segment of 19 000 values among short ones."""
    mon = UMIN if mname == "umin" else gb.monoid[mname]
    if mname == "umin" and dtype == BOOL:
        pytest.skip("the user monoid's Python function is for numbers")
    if atomic:
        monkeypatch.setattr(type(gpu), "SEG_ATOMIC_MIN_LEN", 1)
    rng = np.random.default_rng(9)
    hub = np.concatenate([[0], np.arange(3, 900, 7), [19_500, 19_990]])
    for n, nseg in ((5000, 1000), (20_000, 40), (33, 33), (1, 1), (20_000, hub)):
        vals = _values(rng, n, dtype)
        if mname == "times" and dtype.kind != "b":
            vals = rng.choice(np.array([-1, 1, 1, 2], dtype=dtype), n)
        vals = vals.astype(mon.out_dtype(dtype))     # callers reduce in the monoid's type
        starts = nseg.astype(np.int64) if isinstance(nseg, np.ndarray) else \
            np.unique(np.concatenate([[0], rng.integers(0, n, nseg - 1)])).astype(np.int64)
        got = gpu.segment_reduce(mon, gpu.asarray(vals), gpu.asarray(starts))
        want = cpu.segment_reduce(mon, vals, starts)
        assert_same(got, want)
        assert host(got).dtype == want.dtype
    if mname == "umin":
        return
    vals2 = _values(rng, 600 * 3, dtype).reshape(600, 3).astype(mon.out_dtype(dtype))
    starts = np.unique(np.concatenate([[0], rng.integers(0, 600, 50)])).astype(np.int64)
    assert_same(gpu.segment_reduce(mon, gpu.asarray(vals2), gpu.asarray(starts)),
                cpu.segment_reduce(mon, vals2, starts))


@pytest.mark.parametrize("opname", ["first", "second", "plus", "min", "minus"])
def test_segment_reduce_op_left_to_right(gpu, opname):
    rng = np.random.default_rng(10)
    vals = rng.integers(-9, 9, 3000).astype(np.int64)
    starts = np.unique(np.concatenate([[0], rng.integers(0, 3000, 100)])).astype(np.int64)
    got = host(gpu.segment_reduce_op(gb.binary[opname], gpu.asarray(vals), gpu.asarray(starts)))
    ends = np.append(starts[1:], vals.shape[0])
    f = {"first": lambda a, b: a, "second": lambda a, b: b, "plus": lambda a, b: a + b,
         "min": min, "minus": lambda a, b: a - b}[opname]
    want = []
    for a, b in zip(starts, ends):
        acc = vals[a]
        for t in range(a + 1, b):
            acc = f(acc, vals[t])
        want.append(acc)
    np.testing.assert_array_equal(got, np.array(want))


@pytest.mark.parametrize("mname", MONOIDS)
@pytest.mark.parametrize("dtype", [BOOL, I32, F64], ids=str)
def test_reduce(gpu, cpu, mname, dtype):
    rng = np.random.default_rng(11)
    mon = gb.monoid[mname]
    out = mon.out_dtype(dtype)
    for n in (0, 1, 100, 70_001):
        vals = _values(rng, n, dtype)
        if mname == "times" and dtype.kind != "b":
            vals = rng.choice(np.array([-1, 1], dtype=dtype), n)
        got = gpu.reduce(mon, gpu.asarray(vals), out)
        want = cpu.reduce(mon, vals, out)
        assert_same(np.asarray(got), np.asarray(want), out)


# ---------------------------------------------------------------- user operators
def test_user_elementwise(gpu, cpu):
    rng = np.random.default_rng(12)
    for dt in (I32, I64, F32, F64):
        x = _values(rng, 500, dt)
        y = _values(rng, 500, dt)
        assert_same(gpu.user_binary(ABSDIFF, dt, dt)(*dev(gpu, (x, y))),
                    cpu.user_binary(ABSDIFF, dt, dt)(x, y))
        assert_same(gpu.user_binary(ABSDIFF, dt, F64)(gpu.asarray(x), dt.type(2)),
                    cpu.user_binary(ABSDIFF, dt, F64)(x, dt.type(2)))
        assert_same(gpu.user_unary(TWICE, dt, dt)(gpu.asarray(x)),
                    cpu.user_unary(TWICE, dt, dt)(x))
        i = rng.integers(0, 50, 500)
        j = rng.integers(0, 50, 500)
        assert_same(gpu.user_indexunary(NEAR_DIAG, dt, BOOL)(*dev(gpu, (x, i, j)), np.int64(3)),
                    cpu.user_indexunary(NEAR_DIAG, dt, BOOL)(x, i, j, np.int64(3)))
        assert_same(gpu.user_indexunary(NEAR_DIAG, dt, BOOL)(None, gpu.asarray(i), np.int64(0),
                                                             np.int64(20)),
                    cpu.user_indexunary(NEAR_DIAG, dt, BOOL)(None, i, np.int64(0), np.int64(20)))


def test_missing_cuda_expression(gpu):
    x = gpu.asarray(np.arange(5))
    with pytest.raises(gb.MissingKernel, match="nocuda"):
        gpu.user_binary(NOCUDA, I64, I64)(x, x)
    with pytest.raises(gb.MissingKernel, match="nocuda"):
        gpu.segment_reduce(gb.Monoid.register("m", NOCUDA, 0), x, gpu.asarray([0, 2]))
    sr = gb.Semiring.register("plus_nocuda", gb.monoid.plus, NOCUDA)
    (ip, ix, v), (m, n) = matrix("small", I64)
    R = dev(gpu, (ip, ix, v))
    with pytest.raises(gb.MissingKernel, match="nocuda"):
        gpu.spmv_pull(R, (gpu.asarray(np.ones(n, np.int64)), None), sr, None, False, I64)
    bad = gb.BinaryOp.register("bad", lambda x, y: x, "x +* y")
    with pytest.raises(gb.MissingKernel, match="bad"):
        gpu.user_binary(bad, I64, I64)(x, x)


def test_out_of_memory(gpu):
    with pytest.raises(gb.OutOfMemory, match="GPU"):
        gpu.zeros(2**52, F64)
    with pytest.raises(gb.OutOfMemory):
        gpu.check_alloc(gpu.max_alloc_bytes() * 2, "a test allocation")
    with pytest.raises(gb.OutOfMemory):
        gb.Matrix(F64, 10**6, 10**6, device="gpu").to_dense()


# ---------------------------------------------------------------- mxv / mxm kernels
def _vector_dense(rng, n, dtype, with_pres):
    vals = _values(rng, n, dtype)
    pres = (rng.random(n) < 0.6) if with_pres else None
    return vals, pres


@pytest.mark.parametrize("mname", list(MATRICES))
@pytest.mark.parametrize("case", SR_CASES, ids=SR_IDS)
def test_spmv_pull(gpu, cpu, case, mname):
    srname, dt = case
    sr = semiring(srname)
    (ip, ix, v), (m, n) = matrix(mname, dt)
    rng = np.random.default_rng(13)
    R = (ip, ix, v)
    Rg = dev(gpu, R)
    for swap in (False, True):
        out = sr.out_dtype(dt, dt)
        for with_pres, rows in ((False, None), (True, None),
                                (True, np.flatnonzero(rng.random(m) < 0.5).astype(np.int64))):
            xv, xp = _vector_dense(rng, n, dt, with_pres)
            got = gpu.spmv_pull(Rg, dev(gpu, (xv, xp)), sr,
                                None if rows is None else gpu.asarray(rows), swap, out)
            want = cpu.spmv_pull(R, (xv, xp), sr, rows, swap, out)
            assert_dense_result(got, want)


@pytest.mark.parametrize("mname", list(MATRICES))
@pytest.mark.parametrize("case", SR_CASES, ids=SR_IDS)
def test_spmspv_push(gpu, cpu, case, mname):
    srname, dt = case
    sr = semiring(srname)
    (ip, ix, v), (m, n) = matrix(mname, dt)
    rng = np.random.default_rng(14)
    P = (ip, ix, v)
    Pg = dev(gpu, P)
    out = sr.out_dtype(dt, dt)
    hub_row = m // 2
    for swap in (False, True):
        for frac, masked in ((0.02, False), (0.3, True), (1.0, False)):
            xidx = np.flatnonzero(rng.random(m) < frac).astype(np.int64)
            if mname == "hub":
                xidx = np.union1d(xidx, [hub_row]).astype(np.int64)
            xval = _values(rng, xidx.shape[0], dt)
            allowed = (rng.random(n) < 0.5) if masked else None
            got = gpu.spmspv_push(Pg, dev(gpu, (xidx, xval)), sr,
                                  None if allowed is None else gpu.asarray(allowed), swap, out, n)
            want = cpu.spmspv_push(P, (xidx, xval), sr, allowed, swap, out, n)
            assert_same(got[0], want[0])
            assert host(got[1]).dtype == want[1].dtype
            assert_same(got[1], want[1])
    got = gpu.spmspv_push(Pg, dev(gpu, (np.zeros(0, np.int64), _values(rng, 0, dt))), sr, None,
                          False, out, n)
    assert host(got[0]).shape == (0,) and host(got[1]).shape == (0,)


def _mask_keys(rng, m, n, frac):
    k = np.flatnonzero(rng.random(m * n) < frac).astype(np.int64)
    return k


@pytest.mark.parametrize("mname", ["small", "medium", "hub"])
@pytest.mark.parametrize("case", SR_CASES, ids=SR_IDS)
def test_spgemm_dot(gpu, cpu, case, mname):
    srname, dt = case
    sr = semiring(srname)
    (ip, ix, v), (m, k) = matrix(mname, dt)
    rng = np.random.default_rng(15)
    # B^T: n x k (rows of B's transpose); n small so the mask stays small
    n = 40
    bip, bix, bv = random_csr(n, k, min(0.5, 30 / k), dt, 16, hub=min(k, 1500) if mname == "hub"
                              else 0)
    mk = _mask_keys(rng, m, n, min(0.3, 20_000 / (m * n)))
    out = sr.out_dtype(dt, dt)
    got = gpu.spgemm_dot(dev(gpu, (ip, ix, v)), dev(gpu, (bip, bix, bv)), sr, gpu.asarray(mk),
                         out, (m, n), k)
    want = cpu.spgemm_dot((ip, ix, v), (bip, bix, bv), sr, mk, out, (m, n), k)
    assert_same(got[0], want[0])
    assert_same(got[1], want[1])
    got = gpu.spgemm_dot(dev(gpu, (ip, ix, v)), dev(gpu, (bip, bix, bv)), sr,
                         gpu.asarray(mk[:0]), out, (m, n), k)
    assert host(got[0]).shape == (0,)


@pytest.mark.parametrize("case", SR_CASES, ids=SR_IDS)
def test_spgemm(gpu, cpu, case):
    srname, dt = case
    sr = semiring(srname)
    (ip, ix, v), (m, k) = matrix("medium", dt)
    n = 300
    bip, bix, bv = random_csr(k, n, 0.01, dt, 17)
    rng = np.random.default_rng(18)
    out = sr.out_dtype(dt, dt)
    mk = _mask_keys(rng, m, n, 0.05)
    for mask in (None, (mk, False), (mk, True)):
        gmask = None if mask is None else (gpu.asarray(mask[0]), mask[1])
        got = gpu.spgemm(dev(gpu, (ip, ix, v)), dev(gpu, (bip, bix, bv)), sr, gmask, out, (m, n))
        want = cpu.spgemm((ip, ix, v), (bip, bix, bv), sr, mask, out, (m, n))
        assert_same(got[0], want[0])
        assert_same(got[1], want[1])


@pytest.mark.parametrize("mname", list(MATRICES))
@pytest.mark.parametrize("case", SR_CASES, ids=SR_IDS)
def test_spmm(gpu, cpu, case, mname):
    srname, dt = case
    sr = semiring(srname)
    (ip, ix, v), (m, k) = matrix(mname, dt)
    rng = np.random.default_rng(19)
    X = _values(rng, k * 5, dt).reshape(k, 5)
    out = sr.out_dtype(dt, dt)
    got = gpu.spmm(dev(gpu, (ip, ix, v)), gpu.asarray(X), sr, out)
    want = cpu.spmm((ip, ix, v), X, sr, out)
    assert_same(got[1], want[1])
    pres = want[1]
    assert host(got[0]).dtype == want[0].dtype and host(got[0]).shape == want[0].shape
    assert_same(host(got[0])[pres], want[0][pres])
    if sr.name == "plus_times" and dt.kind == "f":
        assert stats.last("spmm") == "cusparse"
    elif srname != "plus_div":
        expect = "merge" if (mname in ("hub", "long") and out.itemsize in (4, 8)
                             and out != BOOL and not sr.monoid.is_any) else "row-split"
        assert stats.last("spmm") == expect


# ---------------------------------------------------------------- end to end: gb objects
def _both(make):
    return make("cpu"), make("gpu")


def _check(g, c, tol=1e-6):
    assert g.device == "gpu" and c.device == "cpu"
    h = g.to("cpu")
    assert h.dtype == c.dtype and h.shape == c.shape
    if c.dtype.kind == "f":
        assert h.isclose(c, rel_tol=tol, abs_tol=tol), (h, c)
    else:
        assert h.isequal(c), (h.to_coo(), c.to_coo())


def _graph(device, dtype=F64, name="hub", iso=False, seed=0):
    (ip, ix, v), (m, n) = matrix(name, dtype, seed)
    rows = np.repeat(np.arange(m), np.diff(ip))
    vals = True if iso else v
    return gb.Matrix.from_coo(rows, ix, vals, m, n, dtype=dtype, device=device)


def _sq_graph(device, dtype=F64, iso=False, n=2000, seed=1):
    ip, ix, v = random_csr(n, n, 0.003, dtype, seed, hub=1500)
    rows = np.repeat(np.arange(n), np.diff(ip))
    return gb.Matrix.from_coo(rows, ix, True if iso else v, n, n, dtype=dtype, device=device)


def _vec(device, n, frac, dtype=F64, seed=2):
    rng = np.random.default_rng(seed)
    idx = np.flatnonzero(rng.random(n) < frac)
    return gb.Vector.from_coo(idx, _values(rng, idx.shape[0], dtype), size=n, dtype=dtype,
                              device=device)


@pytest.mark.parametrize("direction", ["push", "pull", "auto"])
@pytest.mark.parametrize("srname,dt", [("plus_times", F64), ("min_plus", I64),
                                       ("any_pair", BOOL), ("lor_land", BOOL),
                                       ("any_secondi", BOOL), ("plus_absdiff", I32)])
def test_e2e_mxv_vxm(srname, dt, direction):
    sr = semiring(srname)
    Ac, Ag = _both(lambda d: _sq_graph(d, dt))
    uc, ug = _both(lambda d: _vec(d, 2000, 0.05, dt))
    wc, wg = _both(lambda d: _vec(d, 2000, 0.4, dt, seed=3))
    for mask in (None, "S", "~S", "V"):
        def mk(w):
            return None if mask is None else {"S": w.S, "~S": ~w.S, "V": w.V}[mask]
        for kw in ({}, {"replace": True}, {"accum": gb.binary.plus, "out": True}):
            def run(A, u, w):
                k = dict(kw)
                if k.pop("out", False):
                    k["out"] = w.dup()
                if mk(w) is None and "replace" in k:
                    return None
                return (A.mxv(u, sr, mask=mk(w), direction=direction, **k),
                        u.vxm(A, sr, mask=mk(w), direction=direction, **k))
            rc, rg = run(Ac, uc, wc), run(Ag, ug, wg)
            if rc is None:
                continue
            _check(rg[0], rc[0])
            _check(rg[1], rc[1])
    if direction != "auto":
        assert gb.stats.last("vxm") == direction


def test_e2e_pull_input_and_iso():
    Ac, Ag = _both(lambda d: _sq_graph(d, BOOL, iso=True))
    fc, fg = _both(lambda d: _vec(d, 2000, 0.01, BOOL))
    vc, vg = _both(lambda d: _vec(d, 2000, 0.3, BOOL, seed=4).ewise_add(
        _vec(d, 2000, 0.01, BOOL), gb.binary.lor))
    rc = fc.vxm(Ac, gb.semiring.any_pair, mask=~vc.S, direction="pull", pull_input=vc)
    rg = fg.vxm(Ag, gb.semiring.any_pair, mask=~vg.S, direction="pull", pull_input=vg)
    _check(rg, rc)


def test_e2e_bfs_levels():
    def bfs(A, src):
        level = gb.Vector("int32", A.nrows, device=A.device)
        frontier = gb.Vector.from_coo([src], [True], size=A.nrows, device=A.device)
        depth = 0
        while frontier.nvals:
            level.assign(depth, mask=frontier.S)
            frontier.vxm(A, gb.semiring.any_secondi, mask=~level.S, out=frontier, replace=True)
            depth += 1
        return level
    Ac, Ag = _both(lambda d: _sq_graph(d, BOOL, iso=True, n=3000))
    _check(bfs(Ag, 1), bfs(Ac, 1))


@pytest.mark.parametrize("srname,dt", [("plus_times", F64), ("plus_times", I64),
                                       ("min_plus", F32), ("plus_pair", BOOL),
                                       ("any_secondi", BOOL), ("umin_plus", I64)])
def test_e2e_mxm(srname, dt):
    sr = semiring(srname)
    Ac, Ag = _both(lambda d: _sq_graph(d, dt, n=600, seed=5))
    Bc, Bg = _both(lambda d: _sq_graph(d, dt, n=600, seed=6))
    Mc, Mg = _both(lambda d: _sq_graph(d, BOOL, iso=True, n=600, seed=7))
    tol = 1e-4 if dt == F32 else 1e-9
    _check(Ag.mxm(Bg, sr, method="saxpy"), Ac.mxm(Bc, sr, method="saxpy"), tol)
    for mask in ("S", "~S"):
        mc = Mc.S if mask == "S" else ~Mc.S
        mg = Mg.S if mask == "S" else ~Mg.S
        _check(Ag.mxm(Bg, sr, mask=mg, method="saxpy"), Ac.mxm(Bc, sr, mask=mc, method="saxpy"),
               tol)
    _check(Ag.mxm(Bg, sr, mask=Mg.S, method="dot"), Ac.mxm(Bc, sr, mask=Mc.S, method="dot"), tol)
    rng = np.random.default_rng(8)
    X = _values(rng, 600 * 6, dt).reshape(600, 6)
    Xc, Xg = _both(lambda d: gb.Matrix.from_dense(X, device=d))
    _check(Ag.mxm(Xg, sr, method="spmm"), Ac.mxm(Xc, sr, method="spmm"), tol)
    assert gb.stats.last("mxm") == "spmm"
    _check(Ag.mxm(Xg, sr), Ac.mxm(Xc, sr), tol)


def test_e2e_triangle_count():
    def tc(A):
        L = A.select("tril", -1)
        return L.mxm(L.T, gb.semiring.plus_pair, mask=L.S).reduce_scalar(gb.monoid.plus)
    Ac, Ag = _both(lambda d: _sq_graph(d, BOOL, iso=True, n=1500))
    Sc, Sg = Ac.ewise_add(Ac.T, gb.binary.lor), Ag.ewise_add(Ag.T, gb.binary.lor)
    assert tc(Sg) == tc(Sc) > 0


def test_e2e_ewise():
    for dt in (I32, F64, BOOL):
        Ac, Ag = _both(lambda d: _graph(d, dt, "medium", seed=1))
        Bc, Bg = _both(lambda d: _graph(d, dt, "medium", seed=2))
        ops = ["plus", "times", "min", "second", "lor", "eq", "firsti", "secondj"]
        if dt != BOOL:
            ops.append(ABSDIFF)
        for op in ops:
            o = gb.binary[op] if isinstance(op, str) else op
            _check(Ag.ewise_add(Bg, o), Ac.ewise_add(Bc, o))
            _check(Ag.ewise_mult(Bg, o), Ac.ewise_mult(Bc, o))
            _check(Ag.ewise_union(Bg, o, 1, 2), Ac.ewise_union(Bc, o, 1, 2))
        uc, ug = _both(lambda d: _vec(d, 1200, 0.3, dt))
        vc, vg = _both(lambda d: _vec(d, 1200, 0.3, dt, seed=5))
        _check(ug.ewise_add(vg, gb.binary.plus, mask=ug.S), uc.ewise_add(vc, gb.binary.plus,
                                                                          mask=uc.S))
        _check(ug.ewise_mult(vg, gb.binary.min), uc.ewise_mult(vc, gb.binary.min))
        _check(ug.ewise_union(vg, gb.binary.max, 0, 0), uc.ewise_union(vc, gb.binary.max, 0, 0))


def test_e2e_apply_select_reduce():
    for dt in (I64, F64, BOOL):
        Ac, Ag = _both(lambda d: _graph(d, dt, "hub", seed=3))
        for op in (gb.unary.abs, gb.unary.ainv, gb.unary.identity, gb.unary.lnot):
            _check(Ag.apply(op), Ac.apply(op))
        if dt != BOOL:
            _check(Ag.apply(TWICE), Ac.apply(TWICE))
        _check(Ag.apply(gb.binary.times, right=2), Ac.apply(gb.binary.times, right=2))
        _check(Ag.apply(gb.binary.minus, left=1), Ac.apply(gb.binary.minus, left=1))
        _check(Ag.apply(gb.indexunary.rowindex, thunk=1), Ac.apply(gb.indexunary.rowindex,
                                                                   thunk=1))
        for sel, th in (("tril", -1), ("triu", 2), (">", 0), ("offdiag", 0), (NEAR_DIAG, 300)):
            _check(Ag.select(sel, th), Ac.select(sel, th))
        for mname in ("plus", "max", "min", "any", "lor") + (("times",) if dt != F64 else ()):
            _check(Ag.reduce_rowwise(mname), Ac.reduce_rowwise(mname))
            _check(Ag.reduce_columnwise(mname), Ac.reduce_columnwise(mname))
            g, c = Ag.reduce_scalar(mname), Ac.reduce_scalar(mname)
            if dt.kind == "f" and mname in ("plus", "times"):
                assert g == pytest.approx(c, rel=1e-9)
            else:
                assert g == c
        _check(Ag.reduce_rowwise(UMIN) if dt != BOOL else Ag.reduce_rowwise("min"),
               Ac.reduce_rowwise(UMIN) if dt != BOOL else Ac.reduce_rowwise("min"))
        uc, ug = _both(lambda d: _vec(d, 5000, 0.5, dt))
        assert ug.reduce("max") == uc.reduce("max")
        assert ug.reduce("plus") == pytest.approx(uc.reduce("plus"))


def test_e2e_assign_extract_kron_transpose():
    Ac, Ag = _both(lambda d: _graph(d, I64, "medium", seed=4))
    Mc, Mg = _both(lambda d: _graph(d, BOOL, "medium", iso=True, seed=5))
    Cc, Cg = Ac.dup(), Ag.dup()
    Cc.assign(7, mask=Mc.S)
    Cg.assign(7, mask=Mg.S)
    _check(Cg, Cc)
    rows, cols = [5, 3, 900, 11], list(range(0, 1200, 7))
    Ec, Eg = Ac.extract(rows, cols), Ag.extract(rows, cols)
    _check(Eg, Ec)
    Cc.assign(Ec, rows=[1, 2, 3, 4], cols=list(range(100, 100 + len(cols))), accum=gb.binary.plus)
    Cg.assign(Eg, rows=[1, 2, 3, 4], cols=list(range(100, 100 + len(cols))), accum=gb.binary.plus)
    _check(Cg, Cc)
    _check(Ag[750, :], Ac[750, :])
    _check(Ag.T, Ac.T)
    _check(Ag.transpose(mask=Mg.T.S), Ac.transpose(mask=Mc.T.S))
    uc, ug = _both(lambda d: _vec(d, 1500, 0.2, I64))
    _check(ug.extract([4, 4, 1000, 3]), uc.extract([4, 4, 1000, 3]))
    wc, wg = uc.dup(), ug.dup()
    wc.assign(uc.extract(list(range(100))), indices=list(range(200, 300)))
    wg.assign(ug.extract(list(range(100))), indices=list(range(200, 300)))
    _check(wg, wc)
    Sc, Sg = _both(lambda d: _graph(d, F64, "small", seed=6))
    _check(Sg.kronecker(Sg, gb.binary.times), Sc.kronecker(Sc, gb.binary.times))
    _check(Sg.kronecker(Sg.T, gb.binary.first), Sc.kronecker(Sc.T, gb.binary.first))


def test_e2e_missing_kernel_and_oom():
    Ag = _graph("gpu", F64, "small")
    with pytest.raises(gb.MissingKernel, match="nocuda"):
        Ag.ewise_add(Ag, NOCUDA)
    with pytest.raises(gb.MissingKernel, match="nocuda"):
        Ag.mxm(Ag.T, gb.Semiring.register("plus_nocuda", gb.monoid.plus, NOCUDA))
    with pytest.raises(gb.OutOfMemory):
        gb.Matrix(F64, 3 * 10**6, 3 * 10**6, device="gpu").to_dense()
    # an outer product whose m^2 products need (at 8 bytes each, less than
    # they take) four times the free device memory, whatever the card
    import cupy
    m = int((4 * cupy.cuda.runtime.memGetInfo()[0] / 8) ** 0.5)
    with pytest.raises(gb.OutOfMemory):
        big = gb.Matrix.from_coo(np.arange(m), np.zeros(m, np.int64), 1.0, m, m, device="gpu")
        big.mxm(big.T, gb.semiring.plus_times, method="saxpy")
    # nothing silently moved to the host: results are CuPy arrays
    r, c, v = Ag.mxm(Ag.T, gb.semiring.plus_times).to_coo()
    assert all(isinstance(a, cupy.ndarray) for a in (r, c, v))


def test_e2e_element_access():
    Ag = _graph("gpu", F64, "small")
    Ac = Ag.to("cpu")
    r, c, _ = Ac.to_coo()
    assert Ag[int(r[0]), int(c[0])] == Ac[int(r[0]), int(c[0])]
    ug = _vec("gpu", 100, 0.5)
    idx, _ = ug.to_coo()
    assert ug[int(host(idx)[0])] == ug.to("cpu")[int(host(idx)[0])]


# ---------------------------------------------------------------- NaN and infinities
def _special(rng, n, dtype):
    """Floats from {NaN, +-inf, -0.0, 0, 1, 2, -1}: min/max must let NaN lose
    (fmin/fmax) in the CUDA expressions exactly as in the numba kernels."""
    pool = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0, 2.0, -1.0], dtype=dtype)
    return rng.choice(pool, n)


@pytest.mark.parametrize("dt", [F32, F64], ids=str)
@pytest.mark.parametrize("srname", ["min_plus", "max_times", "min_max", "max_min", "min_first",
                                    "max_second", "times_times", "plus_times", "min_times"])
def test_nan_inf_kernels(gpu, cpu, srname, dt):
    sr = gb.semiring[srname]
    out = sr.out_dtype(dt, dt)
    rng = np.random.default_rng(zlib.crc32(f"{srname}/{dt}".encode()))
    for mname in ("small", "long"):
        (ip, ix, _), (m, n) = matrix(mname, dt)
        v = _special(rng, ix.shape[0], dt)
        R = (ip, ix, v)
        xv, xp = _special(rng, n, dt), rng.random(n) < 0.7
        assert_dense_result(gpu.spmv_pull(dev(gpu, R), dev(gpu, (xv, xp)), sr, None, False, out),
                            cpu.spmv_pull(R, (xv, xp), sr, None, False, out))
        xidx = np.flatnonzero(rng.random(m) < 0.5).astype(np.int64)
        xval = _special(rng, xidx.shape[0], dt)
        got = gpu.spmspv_push(dev(gpu, R), dev(gpu, (xidx, xval)), sr, None, True, out, n)
        want = cpu.spmspv_push(R, (xidx, xval), sr, None, True, out, n)
        order_g, order_c = np.argsort(host(got[0])), np.argsort(want[0])
        np.testing.assert_array_equal(host(got[0])[order_g], want[0][order_c])
        np.testing.assert_array_equal(host(got[1])[order_g], want[1][order_c])   # NaN == NaN
    vals = _special(rng, 3000, dt).astype(out)
    starts = np.unique(np.concatenate([[0], rng.integers(0, 3000, 200)])).astype(np.int64)
    mon = sr.monoid
    np.testing.assert_array_equal(host(gpu.segment_reduce(mon, gpu.asarray(vals),
                                                          gpu.asarray(starts))),
                                  cpu.segment_reduce(mon, vals, starts))
