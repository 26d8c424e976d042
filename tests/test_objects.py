"""Matrix and Vector as objects: constructors, storage forms, element access,
conversions (NumPy, SciPy), dtypes and casting, copies and aliasing."""
import numpy as np
import pytest
import scipy.sparse as sp

import graphblast_py as gb

from .conftest import host


def coo(x):
    return [host(a) for a in x.to_coo()]


# ---------------------------------------------------------------- constructors
def test_empty_objects(device):
    A = gb.Matrix(gb.dtypes.INT32, 3, 4, device=device)
    assert (A.shape, A.nrows, A.ncols, A.nvals, A.dtype, A.device) == \
        ((3, 4), 3, 4, 0, np.dtype(np.int32), device)
    v = gb.Vector("fp64", 5, device=device)
    assert (v.shape, v.size, v.nvals, v.dtype) == ((5,), 5, 0, np.dtype(np.float64))
    d = gb.Vector(bool, 4, device=device, form="dense")
    assert d.form == "dense" and d.nvals == 0
    assert host(d.to_dense(fill=True)).tolist() == [True] * 4
    Z = gb.Matrix(float, 0, 0, device=device)
    assert Z.nvals == 0 and [a.shape for a in coo(Z)] == [(0,), (0,), (0,)]


def test_matrix_from_coo(device):
    A = gb.Matrix.from_coo([2, 0, 1], [0, 1, 2], [3.5, 1.5, 2.5], device=device)
    assert A.shape == (3, 3) and A.dtype == np.float64 and not A.iso
    r, c, v = coo(A)
    assert r.tolist() == [0, 1, 2] and c.tolist() == [1, 2, 0] and v.tolist() == [1.5, 2.5, 3.5]
    assert A[0, 1] == 1.5 and isinstance(A[0, 1], float)
    B = gb.Matrix.from_coo([0, 1], [1, 0], 7, nrows=4, ncols=5, dtype="int16", device=device)
    assert B.iso and B.iso_value == 7 and B.shape == (4, 5) and B.dtype == np.int16
    assert coo(B)[2].tolist() == [7, 7] and coo(B)[2].dtype == np.int16
    P = gb.Matrix.from_coo([0, 1], [1, 0], device=device)   # pattern: values=True
    assert P.dtype == bool and P.iso and coo(P)[2].tolist() == [True, True]
    E = gb.Matrix.from_coo([], [], [], 2, 3, device=device)
    assert E.shape == (2, 3) and E.nvals == 0
    assert gb.Matrix.from_coo(np.array([], dtype=np.int64), np.array([], dtype=np.int64),
                              device=device).shape == (0, 0)


@pytest.mark.parametrize("op,expect", [("plus", 15), ("min", 2), ("max", 10), ("first", 10),
                                       ("second", 3), ("minus", 5), ("times", 60)])
def test_from_coo_duplicates(device, op, expect):
    """dup_op combines duplicates left to right in input order (SuiteSparse)."""
    v = gb.Vector.from_coo([3, 3, 1, 3], [10, 2, 4, 3], dup_op=op, device=device)
    assert coo(v)[0].tolist() == [1, 3] and coo(v)[1].tolist() == [4, expect]
    A = gb.Matrix.from_coo([1, 1, 0, 1], [2, 2, 0, 2], [10, 2, 4, 3], dup_op=gb.binary[op],
                           device=device)
    assert A[1, 2] == expect and A[0, 0] == 4 and A.nvals == 2


def test_from_coo_duplicates_iso(device):
    A = gb.Matrix.from_coo([0, 0, 1], [1, 1, 0], 5, dup_op="plus", device=device)
    assert A[0, 1] == 10 and A[1, 0] == 5
    B = gb.Matrix.from_coo([0, 0, 1], [1, 1, 0], 5, dup_op="min", device=device)
    assert B.iso and B.nvals == 2
    with pytest.raises(gb.InvalidValue, match=r"\(0, 1\) appears more than once"):
        gb.Matrix.from_coo([0, 0], [1, 1], [1, 2], device=device)
    with pytest.raises(gb.InvalidValue, match="index 3 appears more than once"):
        gb.Vector.from_coo([3, 3], [1, 2], device=device)


def test_user_dup_op(device):
    if device == "gpu":
        absdiff = gb.BinaryOp.register("absdiff_obj", lambda x, y: abs(x - y),
                                       "(x > y ? x - y : y - x)")
    else:
        absdiff = gb.BinaryOp.register("absdiff_obj", lambda x, y: abs(x - y))
    v = gb.Vector.from_coo([3, 3, 3, 1], [10, 2, 3, 4], dup_op=absdiff, device=device)
    assert coo(v)[1].tolist() == [4, 5]


def test_from_csr_and_scipy(device):
    A = gb.Matrix.from_csr([0, 2, 2, 3], [2, 0, 1], [1, 2, 3], ncols=3, device=device)
    assert host(A.to_dense()).tolist() == [[2, 0, 1], [0, 0, 0], [0, 3, 0]]
    S = sp.coo_matrix(([1, 2, 3, 4], ([0, 0, 1, 2], [1, 1, 0, 3])), shape=(3, 5))
    B = gb.Matrix.from_scipy(S, device=device)
    assert B.shape == (3, 5) and B[0, 1] == 3 and B.nvals == 3
    back = B.to_scipy()
    if device == "cpu":
        assert (back != S.tocsr()).nnz == 0
    C = gb.Matrix.from_scipy(S, dtype="float32", device=device)
    assert C.dtype == np.float32
    with pytest.raises(gb.InvalidValue):
        gb.Matrix.from_scipy(np.eye(2), device=device)
    with pytest.raises(gb.DomainMismatch):
        gb.Matrix.from_scipy(sp.csr_matrix(np.eye(2, dtype=complex)), device=device)


def test_from_dense(device):
    A = gb.Matrix.from_dense(np.array([[0, 1], [2, 0]]), missing_value=0, device=device)
    assert A.form == "dense" and A.nvals == 2
    assert [x.tolist() for x in coo(A)] == [[0, 1], [1, 0], [1, 2]]
    F = gb.Matrix.from_dense(np.arange(6.0).reshape(2, 3), device=device)
    assert F.nvals == 6 and F[1, 2] == 5.0
    v = gb.Vector.from_dense(np.array([1, 0, 3]), missing_value=0, device=device)
    assert v.form == "dense" and v.nvals == 2 and coo(v)[0].tolist() == [0, 2]
    w = gb.Vector.from_dense([1.5, 2.5], dtype="int8", device=device)
    assert w.dtype == np.int8 and host(w.to_dense()).tolist() == [1, 2]
    with pytest.raises(gb.DimensionMismatch):
        gb.Vector.from_dense(np.zeros((2, 2)), device=device)
    with pytest.raises(gb.DimensionMismatch):
        gb.Matrix.from_dense(np.zeros(3), device=device)


def test_constructors_copy_their_input(device):
    """Objects never share memory with the caller's arrays, either way."""
    a = np.array([1.0, 2.0, 3.0])
    v = gb.Vector.from_dense(a, device=device)
    a[0] = 100
    assert v[0] == 1.0
    M = np.eye(2)
    A = gb.Matrix.from_dense(M, device=device)
    M[0, 0] = 100
    assert A[0, 0] == 1.0
    if device == "cpu":
        S = sp.csr_matrix(np.eye(2))
        B = gb.Matrix.from_scipy(S)
        S.data[0] = 100
        assert B[0, 0] == 1.0
        S2 = B.to_scipy()
        S2.data[0] = 7
        assert B[0, 0] == 1.0
    idx, vals = v.to_coo()
    vals[0] = 50
    assert v[0] == 1.0
    d = A.to_dense()
    d[0, 0] = 9
    assert A[0, 0] == 1.0
    r, c, x = A.to_coo()
    x[0] = 9
    assert A[0, 0] == 1.0


# ---------------------------------------------------------------- storage forms
def test_matrix_forms_round_trip(device):
    rng = np.random.default_rng(1)
    dense = np.where(rng.random((6, 7)) < 0.4, rng.integers(1, 9, (6, 7)), 0)
    A = gb.Matrix.from_dense(dense, missing_value=0, device=device)
    S = A.dup().to_sparse_form()
    assert S.form == "sparse" and S.isequal(A)
    D = S.dup().to_dense_form()
    assert D.form == "dense" and D.isequal(A) and D.nvals == A.nvals
    assert host(D.to_dense()).tolist() == dense.tolist()
    assert host(A.T.to_dense()).tolist() == dense.T.tolist()
    assert host(S.T.to_dense()).tolist() == dense.T.tolist()
    assert S.T.T.isequal(S)
    Full = gb.Matrix.from_coo(*np.nonzero(np.ones((2, 3))), 1.0, device=device).to_dense_form()
    assert Full.nvals == 6 and Full.form == "dense"


def test_vector_forms(device):
    v = gb.Vector.from_coo([1, 3], [5, 6], 8, device=device)
    assert v.form == "sparse"
    vals, pres = v._dense()
    assert host(pres).tolist() == [False, True, False, True, False, False, False, False]
    assert v.form == "dense" and v.nvals == 2 and v[3] == 6
    v._sparse()
    assert v.nvals == 2 and coo(v)[0].tolist() == [1, 3]
    big = gb.Vector.from_coo([0], [1], 1000, device=device)
    big._dense()
    assert big.form == "sparse", "a very sparse vector stays sparse"


def test_iso(device):
    A = gb.Matrix.from_coo([0, 1], [1, 0], 2, device=device)
    assert A.iso and A.iso_value == 2
    A[0, 0] = 9
    assert not A.iso and A[0, 0] == 9 and A[0, 1] == 2 and A.nvals == 3
    B = gb.Matrix.from_coo([0, 1], [1, 0], 2, device=device)
    assert B.dup("float32").iso and B.dup("float32").dtype == np.float32
    assert B.dup(bool).iso and bool(B.dup(bool).iso_value) is True
    assert B.T.iso and B.T[1, 0] == 2
    assert B.apply(gb.unary.ainv).iso and B.apply(gb.unary.ainv)[0, 1] == -2


# ---------------------------------------------------------------- elements
@pytest.mark.parametrize("form", ["sparse", "dense"])
def test_matrix_elements(device, form):
    A = gb.Matrix.from_coo([0, 1, 2], [1, 2, 0], [1.5, 2.5, 3.5], device=device)
    if form == "dense":
        A.to_dense_form()
    assert A[0, 1] == 1.5 and A.get(0, 0) is None and A.get(0, 0, 7) == 7
    with pytest.raises(gb.NoValue, match=r"\(0, 0\)"):
        A[0, 0]
    with pytest.raises(KeyError):     # NoValue is a KeyError too
        A[1, 1]
    A[0, 0] = 9
    assert A[0, 0] == 9.0 and A.nvals == 4
    A[0, 0] = 8
    assert A[0, 0] == 8.0 and A.nvals == 4
    del A[0, 0]
    assert A.get(0, 0) is None and A.nvals == 3
    del A[0, 0]                        # deleting a missing entry is a no-op
    assert A.nvals == 3
    A[1, 1] = 7.9
    B = A.dup("int32")
    assert B[1, 1] == 7 and isinstance(B[1, 1], int)
    for bad in ((3, 0), (0, 3), (-1, 0)):
        with pytest.raises(gb.IndexOutOfBound):
            A[bad]
        with pytest.raises(gb.IndexOutOfBound):
            A[bad] = 1
    with pytest.raises(gb.InvalidValue):
        A[0]
    with pytest.raises(gb.InvalidValue):
        A[0, 1, 2]
    with pytest.raises(gb.InvalidValue):
        A[0, 1] = [1, 2]


@pytest.mark.parametrize("form", ["sparse", "dense"])
def test_vector_elements(device, form):
    v = gb.Vector.from_coo([1, 3], [1, 2], 5, device=device)
    if form == "dense":
        v._dense()
    assert v[1] == 1 and v.get(0) is None and v.get(0, -1) == -1 and v[np.int32(3)] == 2
    assert 1 in v and 0 not in v
    with pytest.raises(gb.NoValue, match="index 0"):
        v[0]
    v[0] = 7.9                        # cast to int64 (C cast: truncation)
    assert v[0] == 7 and v.nvals == 3
    del v[1]
    assert v.get(1) is None and v.nvals == 2
    del v[1]
    assert v.nvals == 2
    assert coo(v)[0].tolist() == [0, 3] and coo(v)[1].tolist() == [7, 2]
    with pytest.raises(gb.IndexOutOfBound):
        v[5]
    with pytest.raises(gb.IndexOutOfBound):
        v[-1]
    with pytest.raises(gb.InvalidIndex):
        v[1.0]
    with pytest.raises(gb.InvalidIndex):
        v.get("a")


def test_vector_resize_clear_dup(device):
    v = gb.Vector.from_coo([0, 4, 7], [1, 2, 3], 8, device=device)
    w = v.dup()
    v.resize(5)
    assert v.size == 5 and coo(v)[0].tolist() == [0, 4]
    v.resize(10)
    assert v.size == 10 and v.nvals == 2
    v.clear()
    assert v.nvals == 0 and v.size == 10
    assert w.nvals == 3 and w.size == 8, "dup is independent"
    assert w.dup("float32").dtype == np.float32


def test_matrix_clear_dup_independent(device):
    A = gb.Matrix.from_coo([0, 1], [1, 0], [1, 2], device=device)
    B = A.dup()
    A[0, 0] = 5
    A.clear()
    assert A.nvals == 0 and A.shape == (2, 2)
    assert B.nvals == 2 and B.get(0, 0) is None
    T = B.T
    T[0, 0] = 3
    assert B.get(0, 0) is None and B.nvals == 2, "mutating A.T must not change A"


# ---------------------------------------------------------------- comparisons and output
def test_isequal_isclose(device):
    A = gb.Matrix.from_coo([0, 1], [1, 0], [1.0, 2.0], device=device)
    assert A.isequal(A.dup()) and A.isequal(A.dup().to_dense_form())
    assert A.isequal(A.dup("int32"))          # equal values; dtypes checked only on request
    assert not A.isequal(A.dup("int32"), check_dtype=True)
    assert not A.isequal(gb.Matrix.from_coo([0], [1], [1.0], 2, 2, device=device))
    assert not A.isequal(gb.Matrix.from_coo([0, 1], [1, 0], [1.0, 2.0], 3, 3, device=device))
    assert not A.isequal(gb.Vector.from_coo([0], [1.0], device=device))
    assert A.isclose(A.apply(gb.binary.plus, right=1e-12))
    assert not A.isclose(A.apply(gb.binary.plus, right=1e-3))
    v = gb.Vector.from_coo([1], [np.nan], 3, device=device)
    assert v.isclose(v.dup()) and not v.isequal(v.dup())


def _dense_vec(device, vals, pres):
    """A Vector stored dense with exactly these arrays (values at absent
    positions included: whatever a store left there)."""
    v = gb.Vector(vals.dtype, vals.shape[0], device=device)
    be = v._be
    v._set_dense(be.asarray(vals.copy()), None if pres is None else be.asarray(pres.copy()))
    return v


@pytest.mark.parametrize("seed", range(6))
def test_isequal_isclose_of_dense_forms(device, seed):
    """isequal / isclose of two dense vectors (compared without index
    arrays) against the entries each holds: absent positions' leftover
    values never count, a vector without presence equals one whose presence
    is all true, NaN equals NaN only for isclose; and against the same
    comparison through the sparse forms."""
    rng = np.random.default_rng(seed)
    n = 40
    for _ in range(25):
        va = rng.integers(0, 3, n).astype(np.float64)
        if rng.random() < 0.2:
            va[rng.integers(0, n)] = np.nan
        pa = None if rng.random() < 0.3 else rng.random(n) < rng.choice([0.5, 1.0])
        vb = va.copy()
        pb = None if pa is None else pa.copy()
        k = rng.integers(0, 4)
        if k == 1:                      # another value at one position
            i = rng.integers(0, n)
            vb[i] += rng.choice([1.0, 1e-12])
        elif k == 2:                    # another structure
            pb = (np.ones(n, bool) if pb is None else pb.copy())
            pb[rng.integers(0, n)] ^= True
        elif k == 3 and rng.random() < 0.5:     # no presence against an all-true one
            pb = np.ones(n, bool) if pb is None else (None if pb.all() else pb)
        for p_, v_ in ((pa, va), (pb, vb)):     # leftovers where absent
            if p_ is not None:
                v_[~p_] = rng.integers(50, 60, int((~p_).sum()))
        a, b = _dense_vec(device, va, pa), _dense_vec(device, vb, pb)
        ka = np.flatnonzero(np.ones(n, bool) if pa is None else pa)
        kb = np.flatnonzero(np.ones(n, bool) if pb is None else pb)
        same_keys = np.array_equal(ka, kb)
        eq = same_keys and bool(np.all(va[ka] == vb[kb]))
        close = same_keys and bool(np.all(np.isclose(va[ka], vb[kb], rtol=1e-7, atol=0.0,
                                                     equal_nan=True)))
        assert a.isequal(b) == eq and b.isequal(a) == eq
        assert a.isclose(b) == close
        sa, sb = (gb.Vector.from_coo(k_, v_[k_], n, device=device) for k_, v_ in
                  ((ka, va), (kb, vb)))
        assert sa.isequal(sb) == eq and sa.isclose(sb) == close


def test_to_dense_fill_matrix_and_nan(device):
    A = gb.Matrix.from_coo([0], [1], [2.5], 2, 2, device=device)
    assert host(A.to_dense()).tolist() == [[0, 2.5], [0, 0]]
    assert host(A.to_dense(fill=-1)).tolist() == [[-1, 2.5], [-1, -1]]
    v = gb.Vector.from_coo([1], [2.0], 3, device=device)
    d = host(v.to_dense(fill=np.nan))
    assert np.isnan(d[0]) and d[1] == 2.0


def test_repr_and_truth(device):
    A = gb.Matrix.from_coo([0], [1], [2.5], 2, 2, device=device)
    v = gb.Vector.from_coo([0], [1], device=device)
    assert "2x2" in repr(A) and "nvals=1" in repr(A) and "size=1" in repr(v)
    with pytest.raises(gb.InvalidValue):
        bool(A)
    with pytest.raises(gb.InvalidValue):
        bool(v)
    with pytest.raises(TypeError):
        len(v)
    with pytest.raises(TypeError):
        iter(v)
    with pytest.raises(gb.InvalidValue):
        bool(v.S)


def test_to_device_copy(device):
    A = gb.Matrix.from_coo([0, 1], [1, 0], [1, 2], device=device)
    assert A.to(device) is A
    C = A.to("cpu")
    assert C.device == "cpu" and C.isequal(A.to("cpu"))
    v = gb.Vector.from_coo([0, 2], [1, 2], device=device)
    assert v.to("cpu").device == "cpu" and host(v.to("cpu").to_dense()).tolist() == [1, 0, 2]


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "int32", "int64", "float32",
                                   "float64"])
@pytest.mark.parametrize("nnz", [0, 1, 3, 40, 5000])
def test_to_device_and_back_every_entry(device, dtype, nnz):
    """Host vectors moved to ``device`` (sparse and dense forms; small ones
    in one packed transfer on a GPU, ``ArrayBackend.asarrays``) and back:
    every entry equal to the NumPy source, the arrays of the moved vector
    not the host's, and a later in-place update of one leaves the other
    unchanged."""
    rng = np.random.default_rng(nnz)
    size = 7000
    idx = np.sort(rng.choice(size, nnz, replace=False))
    vals = (rng.integers(0, 2, nnz) if dtype == "bool" else rng.integers(-100, 100, nnz)
            if dtype[0] in "iu" and dtype != "uint16" else rng.integers(0, 500, nnz)
            if dtype == "uint16" else rng.standard_normal(nnz)).astype(dtype)
    v = gb.Vector.from_coo(idx, vals, size=size, dtype=dtype, device="cpu")
    for form in ("sparse", "dense"):
        src = v.dup()
        if form == "dense":
            src = gb.Vector(dtype, size, device="cpu", form="dense")
            src.assign(v, mask=v.S)
        assert src.form == form
        w = src.to(device)
        assert w.device == device and w.nvals == nnz
        gi, gv = (host(a) for a in w.to_coo())
        np.testing.assert_array_equal(gi, idx)
        np.testing.assert_array_equal(gv, vals)
        back = w.to("cpu")
        bi, bv = back.to_coo()
        np.testing.assert_array_equal(bi, idx)
        np.testing.assert_array_equal(bv, vals)
        if device != "cpu":
            w.assign(1, mask=w.S, accum=gb.binary.plus)      # stores into the moved vector
            w[3] = 1
            si, sv = src.to_coo()                            # leave the source unchanged
            np.testing.assert_array_equal(si, idx)
            np.testing.assert_array_equal(sv, vals)


# ---------------------------------------------------------------- dtypes
def test_dtype_names():
    names = {"BOOL": bool, "INT8": np.int8, "INT32": np.int32, "int64": np.int64,
             "UINT8": np.uint8, "uint64": np.uint64, "FP32": np.float32, "FP64": np.float64,
             "float": np.float64, "int": np.int64}
    for name, dt in names.items():
        assert gb.Vector(name, 1).dtype == np.dtype(dt)
    for dt in (bool, np.int16, np.uint32, float, np.float32):
        assert gb.Vector(dt, 1).dtype == np.dtype(dt)
    for bad in ("complex128", np.complex64, object, "str", "nope"):
        with pytest.raises(gb.DomainMismatch):
            gb.Vector(bad, 1)


@pytest.mark.parametrize("dtype", ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                                   "uint32", "uint64", "float32", "float64"])
def test_every_dtype_round_trips(device, dtype):
    vals = np.array([1, 0, 3], dtype=dtype)
    v = gb.Vector.from_coo([0, 2, 4], vals, 6, device=device)
    assert v.dtype == np.dtype(dtype) and coo(v)[1].dtype == np.dtype(dtype)
    A = gb.Matrix.from_coo([0, 1, 1], [1, 0, 1], vals, device=device)
    assert coo(A)[2].tolist() == vals.tolist() and A.dtype == np.dtype(dtype)
    assert A.T.dtype == A.dtype and A.dup().dtype == A.dtype
    assert A.reduce_rowwise(gb.monoid.max).dtype == A.dtype
    w = A.mxv(gb.Vector.from_coo([0, 1], vals[:2], 2, device=device), gb.semiring.max_first)
    assert w.dtype == A.dtype


def test_casting_rules(device):
    """Documented in graphblast_py/dtypes.py."""
    i32 = gb.Vector.from_coo([0, 1], np.array([3, -2], dtype=np.int32), device=device)
    f64 = gb.Vector.from_coo([0, 1], [0.5, 1.5], device=device)
    b = gb.Vector.from_coo([0, 1], [True, True], device=device)
    assert i32.ewise_add(f64, gb.binary.plus).dtype == np.float64
    assert i32.ewise_add(i32, gb.binary.plus).dtype == np.int32
    assert b.ewise_add(b, gb.binary.plus).dtype == np.int64          # bool arithmetic counts
    assert b.ewise_add(b, gb.binary.plus)[0] == 2
    assert i32.ewise_add(i32, gb.binary.lt).dtype == bool
    assert i32.apply(gb.binary.plus, right=1).dtype == np.int64      # Python int -> int64
    assert i32.apply(gb.binary.plus, right=np.int32(1)).dtype == np.int32
    assert i32.apply(gb.indexunary.rowindex).dtype == np.int64
    assert b.reduce(gb.monoid.plus) == 2
    # writing into an existing out casts with C semantics
    out = gb.Vector(np.int32, 2, device=device)
    f64.apply(gb.unary.identity, out=out)
    assert coo(out)[1].tolist() == [0, 1] and out.dtype == np.int32
    outb = gb.Vector.from_coo([0], [False], 2, device=device)
    i32.apply(gb.unary.identity, out=outb, accum=gb.binary.min)   # min(False, 3) = 0; 1: -2
    assert coo(outb)[1].tolist() == [False, True]
    assert gb.Vector.from_coo([0, 1], [1.7, -2.7], dtype="int32",
                              device=device).to_coo()[1].tolist() == [1, -2]


# ---------------------------------------------------------------- indexing sugar
def _dense_of(x, missing):
    d = host(x.to_dense(fill=missing))
    return d


def test_getitem_setitem_sugar_matches_numpy(device):
    rng = np.random.default_rng(8)
    M = np.where(rng.random((5, 6)) < 0.6, rng.integers(1, 9, (5, 6)), 0)
    A = gb.Matrix.from_dense(M, missing_value=0, device=device)
    for rows, cols in (([2, 0, 2], [5, 1]), (slice(1, 4), slice(None, None, 2)),
                       (slice(None), [3]), ([4], slice(2, 6)), (slice(4, 0, -2), [0, 0, 1])):
        want = M[np.ix_(np.arange(5)[rows], np.arange(6)[cols])]
        assert _dense_of(A[rows, cols], 0).tolist() == want.tolist(), (rows, cols)
    assert _dense_of(A[3, :], 0).tolist() == M[3].tolist()
    assert _dense_of(A[:, 4], 0).tolist() == M[:, 4].tolist()
    assert _dense_of(A[1, [5, 0]], 0).tolist() == M[1, [5, 0]].tolist()
    x = np.where(rng.random(9) < 0.5, rng.integers(1, 9, 9), 0)
    v = gb.Vector.from_dense(x, missing_value=0, device=device)
    for idx in ([8, 0, 8], slice(2, 7), slice(None, None, -1), slice(7, 1, -3), []):
        want = x[np.arange(9)[idx]] if not isinstance(idx, list) or idx else x[:0]
        assert _dense_of(v[idx], 0).tolist() == want.tolist(), idx
    v[[1, 2]] = 9
    x[[1, 2]] = 9
    assert _dense_of(v, 0).tolist() == x.tolist()
    A[[0, 4], [1]] = 7
    M[[0, 4], 1] = 7
    assert _dense_of(A, 0).tolist() == M.tolist()
    A[1:3, 0:2] = gb.Matrix.from_coo([0], [1], [3], 2, 2, device=device)
    M[1:3, 0:2] = 0       # the region is replaced by the value (GrB_assign): entries it lacks go
    M[1, 1] = 3
    assert _dense_of(A, 0).tolist() == M.tolist()


@pytest.mark.parametrize("form", ["sparse", "dense"])
@pytest.mark.parametrize("change", ["assign", "setitem", "delitem", "clear", "vxm"])
def test_mask_object_reused_after_its_vector_changed(device, form, change):
    """A mask object passed again after its vector changed reads the new
    content (it used to keep the dense form evaluated at its first use: a
    silently stale mask)."""
    n = 96
    v = gb.Vector.from_coo(np.arange(0, n, 2), 1, size=n, dtype="int64", device=device)
    if form == "dense":
        v._dense()
    assert v.form == form
    a = gb.Vector.from_dense(np.arange(n, dtype=float), device=device)
    A = gb.Matrix.from_coo(np.arange(n - 1), np.arange(1, n), True, n, n, device=device)
    masks = {"~S": ~v.S, "S": v.S, "V": v.V, "~V": ~v.V}
    for m in masks.values():                        # first use: evaluated and cached
        a.apply(gb.unary.identity, mask=m)
    if change == "assign":
        v.assign(0, mask=gb.Vector.from_coo([1, 3, 4], True, size=n, device=device).S)
    elif change == "setitem":
        v[5] = 7
    elif change == "delitem":
        del v[0]
    elif change == "clear":
        v.clear()
    else:
        f = gb.Vector.from_coo([0, 1], True, size=n, device=device)
        f.vxm(A, gb.semiring.any_pair, out=v, replace=True)
    fresh = {"~S": ~v.S, "S": v.S, "V": v.V, "~V": ~v.V}
    for k, m in masks.items():
        for op in (lambda m: a.apply(gb.unary.identity, mask=m),
                   lambda m: a.ewise_mult(a, gb.binary.plus, mask=m),
                   lambda m: a.vxm(A, gb.semiring.plus_times, mask=m)):
            got, want = op(m), op(fresh[k])
            assert host(got.to_coo()[0]).tolist() == host(want.to_coo()[0]).tolist(), (k, change)
            assert np.array_equal(host(got.to_coo()[1]), host(want.to_coo()[1]))


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int64", "float32", "float64"])
def test_to_dense_fill(device, dtype):
    """``to_dense(fill)`` against NumPy's item assignment at the missing
    positions, for fills that fit, that cast (2.7 into an integer type, -1
    into int8) and that cannot be stored (InvalidValue naming the fill, on
    both devices); a full vector has nothing to fill."""
    n = 50
    keys = np.arange(0, n, 3)
    v = gb.Vector.from_coo(keys, 1, size=n, dtype=dtype, device=device)
    for form in ("sparse", "dense"):
        if form == "dense":
            v._dense()
        for fill in (None, 0, 7, 2.7, -1, True, np.inf, np.nan):
            want = np.zeros(n, dtype)
            want[keys] = 1
            miss = np.ones(n, bool)
            miss[keys] = False
            try:
                want[miss] = 0 if fill is None else fill
            except (OverflowError, ValueError):
                with pytest.raises(gb.errors.InvalidValue, match="fill"):
                    v.to_dense(fill=fill)
                continue
            np.testing.assert_array_equal(host(v.to_dense(fill=fill)), want)
    full = gb.Vector.from_coo(np.arange(n), 3, size=n, dtype=dtype, device=device)
    np.testing.assert_array_equal(host(full.to_dense(fill=-1 if dtype != "uint8" else 9)),
                                  np.full(n, 3, dtype))


def test_from_coo_index_checks(device):
    """The indices' range is read once (min and max together): a negative
    index, an index at the size, an inferred size, on device arrays too."""
    be = gb.backend.get(device)
    for idx, size, err in (([0, 5, 2], 6, None), ([0, 6, 2], 6, "indices\\[1\\] = 6"),
                           ([3, -1], 6, "negative index -1 at position 1"),
                           ([4, 9, 1], None, None), ([], 4, None), ([], None, None)):
        for arr in (np.asarray(idx, dtype=np.int64), be.asarray(np.asarray(idx, np.int64))):
            if err is not None:
                with pytest.raises(gb.errors.IndexOutOfBound, match=err):
                    gb.Vector.from_coo(arr, 1, size=size, device=device)
                with pytest.raises(gb.errors.IndexOutOfBound):
                    gb.Matrix.from_coo(arr, arr, 1, size, size, device=device)
                continue
            v = gb.Vector.from_coo(arr, 1, size=size, device=device)
            assert v.size == (size if size is not None else (max(idx) + 1 if idx else 0))
            np.testing.assert_array_equal(host(v.to_coo()[0]), np.sort(idx))
            M = gb.Matrix.from_coo(arr, arr[::-1].copy(), 1, size, size, device=device)
            assert M.shape == (v.size, v.size) and M.nvals == len(idx)


def test_matrix_from_coo_small_host_input(device):
    """A few host entries for a device are built on the host and moved
    (Matrix.from_coo): the same matrix and the same errors as a build on the
    device's own path would give -- 0-d index arrays, duplicates, indices out
    of range, an iso value."""
    A = gb.Matrix.from_coo([0, 2, 1], [1, 0, 2], [5, 6, 7], 3, 4, device=device)
    assert A.device == device and A.shape == (3, 4)
    r, c, v = (host(x) for x in A.to_coo())
    assert r.tolist() == [0, 1, 2] and c.tolist() == [1, 2, 0] and v.tolist() == [5, 7, 6]
    I = gb.Matrix.from_coo(np.array([0, 1]), np.array([1, 0]), 3, device=device)
    assert I.nvals == 2 and host(I.to_dense()).tolist() == [[0, 3], [3, 0]]
    with pytest.raises(gb.InvalidIndex):
        gb.Matrix.from_coo(np.array(1), np.array(2), np.array(5), 3, 3, device=device)
    with pytest.raises(gb.InvalidValue):
        gb.Matrix.from_coo([0, 0], [1, 1], [1, 2], 2, 2, device=device)
    with pytest.raises(gb.IndexOutOfBound):
        gb.Matrix.from_coo([0, 5], [1, 1], [1, 2], 2, 2, device=device)
