"""Every error kind the operations raise, each a specific exception from
graphblast_py.errors, raised before anything is written: ``out`` (and every
input) is left exactly as it was after a failed call."""
import numpy as np
import pytest

import graphblast_py as gb
from graphblast_py.device import same_device

from .conftest import host


def snapshot(x):
    return (x.shape, x.dtype, [host(a).tolist() for a in x.to_coo()])


@pytest.fixture
def objs(device):
    A = gb.Matrix.from_coo([0, 1, 2], [1, 2, 0], [1.0, 2.0, 3.0], 3, 3, device=device)
    B = gb.Matrix.from_coo([0, 1], [0, 3], [1.0, 2.0], 3, 4, device=device)
    u = gb.Vector.from_coo([0, 2], [1.0, 2.0], 3, device=device)
    v4 = gb.Vector.from_coo([1], [5.0], 4, device=device)
    out3 = gb.Vector.from_coo([1], [9.0], 3, device=device)
    C = gb.Matrix.from_coo([2], [2], [7.0], 3, 3, device=device)
    return dict(A=A, B=B, u=u, v4=v4, out3=out3, C=C)


def fails(exc, fn, *watch, match=None):
    """``fn()`` raises ``exc`` and every object in ``watch`` is unchanged."""
    before = [snapshot(w) for w in watch]
    with pytest.raises(exc, match=match):
        fn()
    after = [snapshot(w) for w in watch]
    assert before == after, "an object changed although the call failed"


def test_hierarchy():
    assert issubclass(gb.DimensionMismatch, ValueError)
    assert issubclass(gb.InvalidValue, ValueError)
    assert issubclass(gb.InvalidIndex, IndexError)
    assert issubclass(gb.IndexOutOfBound, gb.InvalidIndex)
    assert issubclass(gb.DomainMismatch, TypeError)
    assert issubclass(gb.NoValue, KeyError)
    assert issubclass(gb.OutOfMemory, MemoryError)
    for e in (gb.DimensionMismatch, gb.DomainMismatch, gb.InvalidValue, gb.InvalidIndex,
              gb.DeviceMismatch, gb.DeviceUnavailable, gb.MissingKernel, gb.NoValue):
        assert issubclass(e, gb.GraphBLASError)


# ---------------------------------------------------------------- dimensions
def test_dimension_mismatch(objs):
    A, B, u, v4, out3, C = (objs[k] for k in ("A", "B", "u", "v4", "out3", "C"))
    sr = gb.semiring.plus_times
    D = gb.DimensionMismatch
    fails(D, lambda: A.mxv(v4, sr, out=out3), A, v4, out3, match="ncols")
    fails(D, lambda: v4.vxm(A, sr, out=out3), A, v4, out3, match="nrows")
    fails(D, lambda: B.mxm(A, sr, out=C), A, B, C, match="inner")
    fails(D, lambda: A.mxm(A, sr, out=B.dup()), A, match="out has shape")
    fails(D, lambda: A.mxv(u, sr, out=v4), v4, match="out has shape")
    fails(D, lambda: A.mxv(u, sr, mask=v4.S, out=out3), out3, match="mask has shape")
    fails(D, lambda: A.mxm(A, sr, mask=B.S, out=C), C, match="mask")
    fails(D, lambda: u.ewise_add(v4, gb.binary.plus, out=out3), out3, match="shapes")
    fails(D, lambda: A.ewise_mult(B, gb.binary.plus, out=C), C, match="shapes")
    fails(D, lambda: A.ewise_union(B, gb.binary.plus, 0, 0, out=C), C)
    fails(D, lambda: A.apply(gb.unary.abs, out=B), B)
    fails(D, lambda: A.select("tril", out=B), B)
    fails(D, lambda: B.reduce_rowwise(gb.monoid.plus, out=v4), v4)
    fails(D, lambda: B.reduce_columnwise(gb.monoid.plus, out=out3), out3)
    fails(D, lambda: B.transpose(out=B), B)
    fails(D, lambda: A.kronecker(B, gb.binary.times, out=C), C)
    fails(D, lambda: u.extract([0, 1], out=out3), out3)
    fails(D, lambda: A.extract([0, 1], [0], out=C), C)
    fails(D, lambda: C.assign(B, [0, 1], [0, 1]), C, B, match="region")
    fails(D, lambda: out3.assign(v4, [0, 1]), out3, v4)
    fails(D, lambda: out3.assign(u, mask=v4.S), out3)
    fails(D, lambda: gb.Vector.from_coo([0, 1], [1.0]), match="values")
    fails(D, lambda: gb.Matrix.from_coo([0, 1], [0], [1.0, 2.0]))


# ---------------------------------------------------------------- dtypes / domains
def test_domain_errors(objs, device):
    DM = gb.DomainMismatch
    fails(DM, lambda: gb.Matrix("complex64", 2, 2, device=device))
    fails(DM, lambda: gb.Vector(object, 2, device=device))
    fails(DM, lambda: gb.Vector("float16", 2, device=device))
    fails(DM, lambda: gb.Vector.from_coo([0], [1 + 2j], device=device), match="complex")
    fails(DM, lambda: gb.Vector.from_coo([0], ["a"], device=device), match="numeric")
    fails(DM, lambda: gb.Matrix.from_dense(np.array([["a"]]), device=device))
    fails(DM, lambda: objs["u"].dup("decimal"))
    out = objs["out3"]
    fails(DM, lambda: objs["u"].apply(gb.unary.abs, out=gb.Vector("bogus", 3)), out)


def test_user_operator_errors(objs, device):
    u, out3 = objs["u"], objs["out3"]
    bad = gb.BinaryOp.register("no_such_attr", lambda x, y: x.nothing)
    if device == "cpu":
        fails(gb.MissingKernel, lambda: u.ewise_add(u, bad, out=out3), out3, u,
              match="no_such_attr")
    else:
        fails(gb.MissingKernel, lambda: u.ewise_add(u, bad, out=out3), out3, u,
              match="CUDA expression")
    with pytest.raises(gb.InvalidValue):
        gb.BinaryOp.register("not an identifier", lambda x, y: x)
    with pytest.raises(gb.InvalidValue):
        gb.BinaryOp.register("notcallable", 3)
    with pytest.raises(gb.InvalidValue):
        gb.UnaryOp.register("badc", lambda x: x, cuda_expr=5)


# ---------------------------------------------------------------- devices
class _OtherDevice:
    """Stands in for a second device: a backend object that is not this one."""


def _on_other_device(x, device):
    y = x.dup()
    from graphblast_py import backend
    import copy
    fake = copy.copy(backend.get(device))
    fake.name = "gpu" if device == "cpu" else "cpu"
    y._be = fake
    return y


def test_device_mismatch(objs, device):
    A, u, out3, C = objs["A"], objs["u"], objs["out3"], objs["C"]
    A2 = _on_other_device(A, device)
    u2 = _on_other_device(u, device)
    other = A2.device
    DMM = gb.DeviceMismatch
    sr = gb.semiring.plus_times
    fails(DMM, lambda: A.mxv(u2, sr, out=out3), out3, match=f"on '{other}'")
    fails(DMM, lambda: u2.vxm(A, sr, out=out3), out3)
    fails(DMM, lambda: A.mxm(A2, sr, out=C), C, match="move one with")
    fails(DMM, lambda: A.mxv(u, sr, out=_on_other_device(out3, device)))
    fails(DMM, lambda: A.mxv(u, sr, mask=u2.S, out=out3), out3, match="mask")
    fails(DMM, lambda: u.ewise_add(u2, gb.binary.plus, out=out3), out3)
    fails(DMM, lambda: A.ewise_mult(A2, gb.binary.plus, out=C), C)
    fails(DMM, lambda: A.apply(gb.unary.abs, out=_on_other_device(C, device)))
    fails(DMM, lambda: A.kronecker(A2, gb.binary.times))
    fails(DMM, lambda: out3.assign(u2), out3)
    fails(DMM, lambda: C.assign(A2), C)
    fails(DMM, lambda: C.assign(1, mask=A2.S), C)
    fails(DMM, lambda: A.reduce_rowwise(gb.monoid.plus, out=_on_other_device(out3, device)))
    with pytest.raises(DMM, match=r"x is on .* but y is on"):
        same_device("test", ("x", A), ("y", A2))
    same_device("test", ("x", A), ("y", None), ("z", C))     # same device: fine


def test_unknown_device():
    with pytest.raises(gb.InvalidValue):
        gb.Vector(float, 2, device="tpu")
    with pytest.raises(gb.InvalidValue):
        gb.set_device("quantum")
    from graphblast_py import backend
    if not backend.gpu_available():
        with pytest.raises(gb.DeviceUnavailable):
            gb.Vector(float, 2, device="gpu")


# ---------------------------------------------------------------- indices
def test_out_of_range_and_negative_indices(objs):
    A, u, out3, C = objs["A"], objs["u"], objs["out3"], objs["C"]
    OOB = gb.IndexOutOfBound
    fails(OOB, lambda: u[3], u)
    fails(OOB, lambda: u[-1], u)
    fails(OOB, lambda: u.__setitem__(3, 1.0), u)
    fails(OOB, lambda: u.__setitem__(-1, 1.0), u)
    fails(OOB, lambda: u.__delitem__(5), u)
    fails(OOB, lambda: A[3, 0], A)
    fails(OOB, lambda: A[0, -1], A)
    fails(OOB, lambda: A.__setitem__((0, 3), 1.0), A)
    fails(OOB, lambda: A.__delitem__((-1, 0)), A)
    fails(OOB, lambda: u.extract([0, 3]), u)
    fails(OOB, lambda: u.extract([-1]), u)
    fails(OOB, lambda: A.extract([0], [3]), A)
    fails(OOB, lambda: A.extract(3, [0]), A)
    fails(OOB, lambda: A.extract([0, 1], -1), A)
    fails(OOB, lambda: out3.assign(1.0, [0, 3]), out3)
    fails(OOB, lambda: out3.assign(1.0, [-2]), out3)
    fails(OOB, lambda: C.assign(1.0, [0], [5]), C)
    fails(OOB, lambda: gb.Vector.from_coo([0, 4], [1, 2], 3))
    fails(OOB, lambda: gb.Vector.from_coo([-1], [1]))
    fails(OOB, lambda: gb.Matrix.from_coo([0], [3], [1], 3, 3))
    fails(OOB, lambda: gb.Matrix.from_coo([-1], [0], [1]))
    fails(OOB, lambda: u[[0, 7]], u)


def test_non_integer_indices(objs):
    A, u, out3, C = objs["A"], objs["u"], objs["out3"], objs["C"]
    II = gb.InvalidIndex
    fails(II, lambda: u[1.0], u)
    fails(II, lambda: u.get("0"), u)
    fails(II, lambda: A.get(0.5, 0), A)
    fails(II, lambda: u.extract([0.0, 1.0]), u, match="integer dtype")
    fails(II, lambda: u.extract(["a"]), u)
    fails(II, lambda: u.extract(np.zeros((1, 1), dtype=np.int64)), u, match="1-D")
    fails(II, lambda: A.extract([0.5], None), A)
    fails(II, lambda: out3.assign(1.0, [0.0]), out3)
    fails(II, lambda: out3.assign(1.0, slice(-1, 2)), out3, match="slice")
    fails(II, lambda: gb.Vector.from_coo([0.0, 1.0], [1, 2]), match="integer dtype")
    fails(II, lambda: gb.Matrix.from_coo([[0]], [[0]], [1]))
    fails(II, lambda: u.extract([True, False]), u)
    fails(gb.InvalidValue, lambda: gb.Vector(float, 2.0))
    fails(gb.InvalidValue, lambda: gb.Matrix(float, -1, 2))
    fails(gb.InvalidValue, lambda: gb.Vector(float, True))


def test_duplicate_indices_in_assign(objs):
    out3, C, u = objs["out3"], objs["C"], objs["u"]
    II = gb.InvalidIndex
    fails(II, lambda: out3.assign(1.0, [0, 2, 0]), out3, match="repeats")
    fails(II, lambda: out3.assign(gb.Vector.from_coo([0], [1.0], 2), [1, 1]), out3)
    fails(II, lambda: C.assign(1.0, [0, 0], [1]), C)
    fails(II, lambda: C.assign(1.0, [0], np.array([2, 1, 2])), C)
    fails(II, lambda: out3.__setitem__([1, 1], 5.0), out3)
    # extract allows repeats
    assert u.extract([0, 0]).nvals == 2


# ---------------------------------------------------------------- masks
def test_bad_mask_argument(objs):
    A, u, out3, C = objs["A"], objs["u"], objs["out3"], objs["C"]
    sr = gb.semiring.plus_times
    IV = gb.InvalidValue
    fails(IV, lambda: A.mxv(u, sr, mask=u, out=out3), out3, match=r"x\.S")
    fails(IV, lambda: A.mxv(u, sr, mask="S", out=out3), out3)
    fails(IV, lambda: A.mxv(u, sr, mask=np.ones(3, bool), out=out3), out3)
    fails(IV, lambda: A.mxm(A, sr, mask=A, out=C), C)
    fails(IV, lambda: out3.assign(1.0, mask=u), out3)
    fails(IV, lambda: u.ewise_add(u, gb.binary.plus, mask=True, out=out3), out3)
    fails(gb.DimensionMismatch, lambda: A.mxm(A, sr, mask=u.S, out=C), C)
    fails(gb.DimensionMismatch, lambda: A.mxv(u, sr, mask=A.S, out=out3), out3)
    with pytest.raises(IV):
        bool(u.S)
    with pytest.raises(IV):
        if ~u.V:
            pass


# ---------------------------------------------------------------- operators and arguments
def test_unknown_operator_names(objs):
    A, u, out3, C = objs["A"], objs["u"], objs["out3"], objs["C"]
    IV = gb.InvalidValue
    fails(IV, lambda: A.mxv(u, "nosuch_semiring", out=out3), out3)
    fails(IV, lambda: A.mxv(u, "plus_nosuch", out=out3), out3)
    fails(IV, lambda: A.mxm(A, gb.binary.plus, out=C), C, match="Semiring")
    fails(IV, lambda: A.mxm(A, gb.monoid.plus, out=C), C)
    fails(IV, lambda: u.ewise_add(u, "nosuch", out=out3), out3)
    fails(IV, lambda: u.ewise_add(u, gb.unary.abs, out=out3), out3)
    fails(IV, lambda: u.ewise_add(u, 3, out=out3), out3)
    fails(IV, lambda: u.apply("nosuch", out=out3), out3)
    fails(IV, lambda: u.apply(gb.semiring.plus_times, out=out3), out3)
    fails(IV, lambda: A.select("nosuch", out=C), C)
    fails(IV, lambda: A.select(gb.binary.plus, out=C), C)
    fails(IV, lambda: A.reduce_rowwise("nosuch", out=out3), out3)
    fails(IV, lambda: A.reduce_rowwise(gb.binary.minus, out=out3), out3, match="monoid")
    fails(IV, lambda: A.reduce_scalar(gb.semiring.plus_times), A)
    fails(IV, lambda: A.kronecker(A, "nosuch", out=C), C)
    fails(IV, lambda: A.mxv(u, gb.semiring.plus_times, accum="nosuch", out=out3), out3)
    fails(IV, lambda: A.mxv(u, gb.semiring.plus_times, accum=gb.binary.firsti, out=out3), out3,
          match="positional")
    fails(IV, lambda: A.mxv(u, gb.semiring.plus_times, accum=gb.unary.abs, out=out3), out3)
    fails(IV, lambda: out3.assign(1.0, accum="nosuch"), out3)
    with pytest.raises(AttributeError):
        gb.binary.nosuch
    assert "plus" in gb.binary and "nosuch" not in gb.binary


def test_bad_arguments(objs):
    A, B, u, out3, C = (objs[k] for k in ("A", "B", "u", "out3", "C"))
    IV = gb.InvalidValue
    sr = gb.semiring.plus_times
    fails(IV, lambda: A.mxv(u, sr, replace=1, out=out3), out3, match="replace")
    fails(IV, lambda: A.mxv(u, sr, direction="up", out=out3), out3, match="direction")
    fails(IV, lambda: A.mxv(u, sr, out=C), C, match="out must be a Vector")
    fails(IV, lambda: A.mxm(A, sr, out=out3), out3, match="out must be a Matrix")
    fails(IV, lambda: A.mxm(A, sr, method="magic", out=C), C, match="method")
    fails(IV, lambda: A.mxm(A, sr, method="dot", out=C), C, match="mask")
    fails(IV, lambda: A.mxm(A, sr, method="dot", mask=~C.S, out=C), C)
    fails(IV, lambda: A.mxm(A, sr, method="spmm", out=C), C, A, match="every entry")
    fails(IV, lambda: A.mxv(A, sr, out=out3), out3)
    fails(IV, lambda: u.ewise_add(A, gb.binary.plus, out=out3), out3)
    fails(IV, lambda: u.apply(gb.binary.plus, out=out3), out3, match="exactly one")
    fails(IV, lambda: u.apply(gb.binary.plus, left=1, right=2, out=out3), out3)
    fails(IV, lambda: u.apply(gb.binary.plus, right="x", out=out3), out3)
    fails(IV, lambda: u.apply(gb.unary.abs, right=1, out=out3), out3)
    fails(IV, lambda: u.apply(gb.indexunary.rowindex, left=1, out=out3), out3)
    fails(IV, lambda: u.ewise_union(u, gb.binary.plus, None, 0, out=out3), out3)
    fails(IV, lambda: u.ewise_union(u, gb.binary.plus, np.zeros(2), 0, out=out3), out3)
    fails(IV, lambda: A.select("tril", "x", out=C), C)
    fails(IV, lambda: out3.assign(A), out3, match="cannot assign")
    fails(IV, lambda: out3.assign("x"), out3)
    fails(IV, lambda: A.extract(0, 0), A)
    fails(IV, lambda: A.kronecker(u, gb.binary.times), A)
    fails(IV, lambda: u.__setitem__(0, [1, 2]), u)
    fails(IV, lambda: u.__setitem__(0, "x"), u)
    fails(IV, lambda: gb.Vector(float, 3, form="diagonal"))
    fails(IV, lambda: A.mxv(u, sr, pull_input=gb.Vector(float, 5), out=out3), out3)
    fails(gb.NoValue, lambda: u[1], u)


def test_no_output_written_on_late_errors(objs, device):
    """Errors found only while computing (a user operator that fails to
    compile) still leave out untouched, including when out aliases an input."""
    u, out3 = objs["u"], objs["out3"]
    if device == "gpu":
        pytest.skip("GPU: user operators without a CUDA expression fail before computing")
    bad = gb.UnaryOp.register("bad_unary_late", lambda x: x.nothing)
    fails(gb.MissingKernel, lambda: u.apply(bad, out=u, accum=gb.binary.plus), u)
    fails(gb.MissingKernel, lambda: u.apply(bad, mask=out3.S, out=out3), out3, u)


def test_absurd_sizes_raise_out_of_memory(device):
    """Allocations that cannot fit raise OutOfMemory before allocating."""
    OOM = gb.OutOfMemory
    huge = 1 << 40
    fails(OOM, lambda: gb.Matrix(float, huge, 3, device=device), match="GiB")
    fails(OOM, lambda: gb.Vector(float, huge, device=device, form="dense"))
    v = gb.Vector(float, huge, device=device)            # sparse: fine
    v[huge - 1] = 2.0
    assert v.nvals == 1 and v[huge - 1] == 2.0
    fails(OOM, lambda: v.to_dense(), v)
    fails(OOM, lambda: v.assign(1.0), v)
    wide = gb.Matrix.from_coo([0], [huge - 1], [1.0], 3, huge, device=device)
    u = gb.Vector.from_coo([0], [1.0], 3, device=device)
    fails(OOM, lambda: u.vxm(wide, gb.semiring.plus_times, out=v), v, u)
    fails(OOM, lambda: wide.to_dense(), wide)
    fails(OOM, lambda: wide.to_dense_form(), wide)
    sq = gb.Matrix.from_coo(np.arange(1000), np.arange(1000), 1.0, 1 << 22, 1 << 22,
                            device=device)
    fails(OOM, lambda: sq.assign(True), sq)


# ================================================================ issue 14: hostile input
# Each class below is tested as a class (a table or generated inputs), not only
# the example that found it.  References: SciPy (valid CSR/COO input), networkx
# (algorithm results), NumPy (operator values).
import math  # noqa: E402

import networkx as nx  # noqa: E402
import scipy.sparse as sp  # noqa: E402
from hypothesis import given, settings, strategies as st  # noqa: E402

from graphblast_py.algorithms import (  # noqa: E402
    bfs, betweenness_centrality, connected_components, fglt, pagerank, sssp, triangle_count,
    triangles_per_vertex)


def _csr_valid():
    return sp.csr_matrix(np.array([[0, 1.0, 0], [2.0, 0, 3.0]]))


def _corrupt(kind):
    """A SciPy CSR (SciPy builds it without complaint) with one corrupted array."""
    S = _csr_valid()
    if kind == "col>=ncols":
        S.indices[1] = 3
    elif kind == "col=-1":
        S.indices[1] = -1
    elif kind == "col huge":
        S.indices = S.indices.astype(np.int64)
        S.indices[2] = 2**40
    elif kind == "indptr decreasing":
        S.indptr[:] = [0, 2, 1]
    elif kind == "indptr[0] != 0":
        S.indptr[0] = 1
    elif kind == "indptr beyond indices":
        S.indptr[2] = 5
    return S


CSR_CORRUPTIONS = ["col>=ncols", "col=-1", "col huge", "indptr decreasing", "indptr[0] != 0",
                   "indptr beyond indices"]


@pytest.mark.parametrize("kind", CSR_CORRUPTIONS)
def test_from_scipy_checks_caller_arrays(kind, device):
    S = _corrupt(kind)
    with pytest.raises((gb.InvalidIndex, gb.DimensionMismatch)) as e:
        gb.Matrix.from_scipy(S, device=device)
    assert "from_scipy" in str(e.value)
    # the same arrays through from_csr, and transposed as a CSC
    with pytest.raises((gb.InvalidIndex, gb.DimensionMismatch)):
        gb.Matrix.from_csr(S.indptr, S.indices, S.data, 3, device=device)
    C = sp.csc_matrix(_csr_valid().T)             # then the corrupted arrays put in
    C.indptr, C.indices, C.data = S.indptr.copy(), S.indices.copy(), S.data.copy()
    with pytest.raises((gb.InvalidIndex, gb.DimensionMismatch)):
        gb.Matrix.from_scipy(C, device=device)


def test_bad_index_messages_name_the_first_bad_position():
    S = _csr_valid()
    S.indices[:] = [1, 7, -1]
    with pytest.raises(gb.IndexOutOfBound, match=r"column index 7 at position 1 \(row 1\)"):
        gb.Matrix.from_scipy(S)
    S = _csr_valid()
    S.indptr[:] = [0, 2, 1]
    with pytest.raises(gb.InvalidIndex, match=r"indptr decreases at row 1"):
        gb.Matrix.from_scipy(S)
    coo = sp.coo_matrix(_csr_valid())          # SciPy checks COO input itself: corrupt it after
    coo.col[2] = 4
    with pytest.raises(gb.IndexOutOfBound, match=r"column index 4 at entry 2"):
        gb.Matrix.from_scipy(coo)
    with pytest.raises(gb.IndexOutOfBound, match=r"cols\[2\] = 9"):
        gb.Matrix.from_coo([0, 1, 1], [0, 1, 9], 1.0, 2, 3)
    with pytest.raises(gb.IndexOutOfBound, match=r"negative index -2 at position 1"):
        gb.Matrix.from_coo([0, -2, 1], [0, 1, 2], 1.0, 2, 3)
    with pytest.raises(gb.IndexOutOfBound, match=r"indices\[1\] = 5"):
        gb.Vector.from_coo([0, 5], [1.0, 2.0], 3)
    with pytest.raises(gb.InvalidIndex, match="integer dtype"):
        gb.Matrix.from_csr(np.array([0.0, 1.0]), [0], [1.0], 2)
    with pytest.raises(gb.InvalidIndex, match="integer dtype"):
        gb.Matrix.from_csr([0, 1], np.array([True]), [1.0], 2)
    with pytest.raises(gb.InvalidIndex):
        gb.Matrix.from_csr([0, 1], np.array([2**63], dtype=np.uint64), [1.0], 2)
    with pytest.raises(gb.DimensionMismatch):
        gb.Matrix.from_csr([0, 1, 2], [0, 1], [1.0], 2)
    with pytest.raises(gb.DomainMismatch):
        gb.Vector.from_dense(np.array(["a", "b"]))
    with pytest.raises(gb.InvalidValue):
        gb.Matrix.from_scipy(np.eye(2))


@settings(max_examples=300)
@given(st.integers(0, 4), st.integers(0, 4),
       st.lists(st.integers(-2, 7), min_size=1, max_size=6),
       st.lists(st.integers(-2, 5), min_size=0, max_size=8))
def test_from_csr_any_arrays(nrows, ncols, indptr_tail, indices):
    """Arbitrary (mostly invalid) CSR arrays: valid ones give SciPy's matrix;
    invalid ones raise a library error; nothing else happens."""
    indptr = np.array([0] + indptr_tail[:nrows], dtype=np.int64)
    nrows = indptr.shape[0] - 1                   # from_csr takes nrows from indptr
    ind = np.array(indices, dtype=np.int64)
    vals = np.arange(1, ind.shape[0] + 1, dtype=np.float64)
    valid = (bool(np.all(np.diff(indptr) >= 0))
             and int(indptr[-1]) == ind.shape[0] and bool(np.all((ind >= 0) & (ind < ncols))))
    if valid:
        rows = np.repeat(np.arange(nrows), np.diff(indptr))
        keys = rows * max(ncols, 1) + ind
        valid = np.unique(keys).shape[0] == keys.shape[0]       # duplicates need dup_op
    try:
        A = gb.Matrix.from_csr(indptr, ind, vals, ncols)
    except (gb.InvalidIndex, gb.InvalidValue, gb.DimensionMismatch):
        assert not valid
        return
    assert valid
    ref = sp.csr_matrix((vals, ind, indptr), shape=(nrows, ncols)).toarray()
    assert A.shape == (nrows, ncols)
    np.testing.assert_array_equal(A.to_dense(), ref)


HOSTILE_CONSTRUCTORS = {
    "vector index beyond int64": lambda d: gb.Vector.from_coo([0, 2**70], [1.0, 2.0], device=d),
    "vector string index": lambda d: gb.Vector.from_coo([0, "a"], [1.0, 2.0], device=d),
    "vector 2-D indices": lambda d: gb.Vector.from_coo([[0, 1]], [1.0, 2.0], device=d),
    "vector string values": lambda d: gb.Vector.from_coo([0, 1], ["a", "b"], device=d),
    "vector None values": lambda d: gb.Vector.from_coo([0, 1], None, device=d),
    "vector negative size": lambda d: gb.Vector.from_coo([0], [1.0], -1, device=d),
    "vector float size": lambda d: gb.Vector.from_coo([0], [1.0], 2.5, device=d),
    "vector dense 2-D": lambda d: gb.Vector.from_dense(np.ones((2, 2)), device=d),
    "vector dense ragged": lambda d: gb.Vector.from_dense([[1], [1, 2]], device=d),
    "vector dense strings": lambda d: gb.Vector.from_dense(["a", "b"], device=d),
    "matrix index 2**64": lambda d: gb.Matrix.from_coo([0], [2**64], 1.0, device=d),
    "matrix float index": lambda d: gb.Matrix.from_coo([0.5], [1], 1.0, device=d),
    "matrix string scalar": lambda d: gb.Matrix.from_coo([0], [1], "x", device=d),
    "matrix index lengths": lambda d: gb.Matrix.from_coo([0, 1], [1], [1.0], device=d),
    "csr None indptr": lambda d: gb.Matrix.from_csr(None, [0], 1.0, device=d),
    "csr 2-D indptr": lambda d: gb.Matrix.from_csr([[0, 1]], [0], 1.0, device=d),
    "csr string indptr": lambda d: gb.Matrix.from_csr("abc", [0], 1.0, device=d),
    "csr negative ncols": lambda d: gb.Matrix.from_csr([0, 1], [0], 1.0, -3, device=d),
    "csr values too short": lambda d: gb.Matrix.from_csr([0, 2], [0, 1], [1.0], device=d),
    "dense 3-D": lambda d: gb.Matrix.from_dense(np.ones((2, 2, 2)), device=d),
    "dense strings": lambda d: gb.Matrix.from_dense([["a"]], device=d),
    "dense ragged": lambda d: gb.Matrix.from_dense([[1], [1, 2]], device=d),
    "scipy complex": lambda d: gb.Matrix.from_scipy(sp.csr_matrix(np.eye(2) * 1j), device=d),
    "scipy not a matrix": lambda d: gb.Matrix.from_scipy("x", device=d),
    "negative dimension": lambda d: gb.Matrix(float, -1, 2, device=d),
    "float dimension": lambda d: gb.Matrix(float, 1.5, 2, device=d),
    "complex dtype": lambda d: gb.Matrix("complex64", 2, 2, device=d),
}


@pytest.mark.parametrize("case", sorted(HOSTILE_CONSTRUCTORS))
def test_hostile_constructor_input_raises_library_errors(case, device):
    """Never a raw NumPy/SciPy exception, never a silently built object."""
    with pytest.raises(gb.GraphBLASError):
        HOSTILE_CONSTRUCTORS[case](device)


def test_valid_scipy_formats_still_read(device):
    D = np.array([[0, 1.5, 0, 0], [2.0, 0, 0, -1], [0, 0, 0, 0]])
    for S in (sp.csr_matrix(D), sp.csc_matrix(D), sp.coo_matrix(D), sp.lil_matrix(D),
              sp.csr_array(D), sp.dok_matrix(D), sp.bsr_matrix(D), sp.csr_matrix((3, 4))):
        A = gb.Matrix.from_scipy(S, device=device)
        np.testing.assert_array_equal(host(A.to_dense()), S.toarray())


# ---------------------------------------------------------------- algorithm parameters
def _graph(device):
    """A small undirected graph with an isolated vertex (4) and a triangle."""
    r = [0, 1, 1, 2, 0, 2, 2, 3]
    c = [1, 0, 2, 1, 2, 0, 3, 2]
    return gb.Matrix.from_coo(r, c, 1.0, 5, 5, device=device)


ALGORITHMS = {
    "bfs": lambda A, **kw: bfs(A, 0, **kw),
    "sssp": lambda A, **kw: sssp(A, 0, **kw),
    "pagerank": pagerank,
    "triangle_count": triangle_count,
    "triangles_per_vertex": triangles_per_vertex,
    "connected_components": connected_components,
    "betweenness_centrality": betweenness_centrality,
    "fglt": fglt,
}

# networkx graphs and SciPy sparse matrices are accepted (converted): tests/test_graph.py
NOT_A_MATRIX = [np.eye(3), None, "A", [[0, 1]],
                gb.Vector.from_coo([0], [1.0], 3)]


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
@pytest.mark.parametrize("obj", NOT_A_MATRIX, ids=lambda o: type(o).__name__)
def test_algorithms_refuse_non_matrices(name, obj):
    with pytest.raises(gb.InvalidObject, match=type(obj).__name__) as e:
        ALGORITHMS[name](obj)
    assert isinstance(e.value, TypeError) and name.split("_per")[0] in str(e.value)


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
def test_algorithms_refuse_non_square(name, device):
    A = gb.Matrix.from_coo([0], [1], 1.0, 3, 4, device=device)
    with pytest.raises((gb.DimensionMismatch, gb.InvalidValue)):
        ALGORITHMS[name](A)


BAD_PARAMETERS = [
    ("pagerank", dict(damping=1.5), gb.InvalidValue, "damping"),
    ("pagerank", dict(damping=-3), gb.InvalidValue, "damping"),
    ("pagerank", dict(damping=2), gb.InvalidValue, r"\[0, 1\]"),
    ("pagerank", dict(damping=math.nan), gb.InvalidValue, "damping"),
    ("pagerank", dict(damping=math.inf), gb.InvalidValue, "damping"),
    ("pagerank", dict(damping="0.85"), gb.InvalidObject, "damping"),
    ("pagerank", dict(damping=True), gb.InvalidObject, "damping"),
    ("pagerank", dict(tol=0), gb.InvalidValue, "tol"),
    ("pagerank", dict(tol=-1e-6), gb.InvalidValue, "tol"),
    ("pagerank", dict(tol=math.nan), gb.InvalidValue, "tol"),
    ("pagerank", dict(tol=None), gb.InvalidObject, "tol"),
    ("pagerank", dict(max_iter=0), gb.InvalidValue, "max_iter"),
    ("pagerank", dict(max_iter=-5), gb.InvalidValue, "max_iter"),
    ("pagerank", dict(max_iter=2.5), gb.InvalidObject, "max_iter"),
    ("pagerank", dict(max_iter=True), gb.InvalidObject, "max_iter"),
    ("bfs", dict(parents="yes"), gb.InvalidObject, "parents"),
    ("betweenness_centrality", dict(batch_size=0), gb.InvalidValue, "batch_size"),
    ("betweenness_centrality", dict(batch_size=2.0), gb.InvalidObject, "batch_size"),
    ("betweenness_centrality", dict(batch_size=True), gb.InvalidObject, "batch_size"),
    ("betweenness_centrality", dict(normalized="no"), gb.InvalidObject, "normalized"),
    ("betweenness_centrality", dict(directed=1), gb.InvalidObject, "directed"),
    ("betweenness_centrality", dict(sources=[0, 0]), gb.InvalidValue, "distinct"),
    ("betweenness_centrality", dict(sources=[9]), gb.IndexOutOfBound, ""),
    ("fglt", dict(orbits=5.0), gb.InvalidObject, "orbits"),
    ("fglt", dict(orbits=7), gb.InvalidValue, "orbits"),
    ("fglt", dict(net=None), gb.InvalidObject, "net"),
]


@pytest.mark.parametrize("name,kw,exc,match", BAD_PARAMETERS,
                         ids=[f"{n}-{k}" for n, k, _, _ in BAD_PARAMETERS])
def test_bad_algorithm_parameters(name, kw, exc, match, device):
    A = _graph(device)
    if name == "fglt":
        A = A.dup("bool")
    fails(exc, lambda: ALGORITHMS[name](A, **kw), A, match=match)


@pytest.mark.parametrize("source", [-1, 5, 2**70, 1.0, "0", None, True])
@pytest.mark.parametrize("name", ["bfs", "sssp"])
def test_bad_sources(name, source, device):
    A = _graph(device)
    alg = bfs if name == "bfs" else sssp
    fails(gb.InvalidIndex, lambda: alg(A, source), A, match="source")


def test_pagerank_damping_bounds_match_networkx(device):
    """The accepted edge values 0 and 1 give networkx's answers."""
    G = nx.DiGraph([(0, 1), (1, 2), (2, 0), (2, 3)])
    A = gb.io.from_networkx(G, device=device)
    for alpha in (0.0, 1.0, 0.5):
        ref = nx.pagerank(G, alpha=alpha, tol=1e-10, max_iter=1000)
        got = host(pagerank(A, damping=alpha, tol=1e-10, max_iter=1000).to_dense())
        np.testing.assert_allclose(got, [ref[k] for k in range(4)], rtol=1e-6)


@pytest.mark.parametrize("where", [0, 1, 2])
def test_sssp_refuses_nan_weights(where, device):
    w = [1.0, 2.0, 3.0]
    w[where] = math.nan
    A = gb.Matrix.from_coo([0, 1, 2], [1, 2, 3], w, 4, 4, device=device)
    before = A.dup()
    with pytest.raises(gb.InvalidValue, match=r"A\[%d, %d\] is NaN" % (where, where + 1)):
        sssp(A, 0)
    # an unreachable NaN is still refused: the weights are checked, not the paths
    with pytest.raises(gb.InvalidValue, match="NaN"):
        sssp(A, 3)
    assert A.isclose(before)                      # (isclose: NaN equals NaN)


@pytest.mark.parametrize("bad,match", [(math.nan, "NaN"), (-0.5, "negative")])
def test_weight_checks_see_a_later_change(bad, match, device):
    """The NaN and negative-weight scans are kept with the matrix: a change
    to the matrix (an element set, an assign) drops them, so a weight made
    bad after a clean run is refused on the next call."""
    A = gb.Matrix.from_coo([0, 1, 2], [1, 2, 0], [1.0, 2.0, 3.0], 3, 3, device=device)
    sssp(A, 0)
    pagerank(A)
    A[1, 2] = bad
    with pytest.raises(gb.InvalidValue, match=r"A\[1, 2\].*" + match):
        pagerank(A)
    if bad != bad:
        with pytest.raises(gb.InvalidValue, match=r"A\[1, 2\] is NaN"):
            sssp(A, 0)
    A[1, 2] = 5.0                                  # clean again: accepted again
    pagerank(A)
    sssp(A, 0)


@pytest.mark.parametrize("bad,match", [(math.nan, "NaN"), (-0.5, "negative"),
                                       (-math.inf, "negative")])
def test_pagerank_refuses_nan_and_negative_weights(bad, match, device):
    A = gb.Matrix.from_coo([0, 1, 2], [1, 2, 0], [1.0, bad, 2.0], 3, 3, device=device)
    before = A.dup()
    with pytest.raises(gb.InvalidValue, match=r"A\[1, 2\].*" + match):
        pagerank(A)
    assert A.isclose(before)
    Ai = gb.Matrix.from_coo([0, 1], [1, 0], [3, -1], 2, 2, device=device)   # integer weights too
    fails(gb.InvalidValue, lambda: pagerank(Ai), Ai, match="negative")


def test_sssp_inf_weights_match_scipy(device):
    """inf is a number: an inf edge is an edge that never helps (as in SciPy)."""
    from scipy.sparse.csgraph import shortest_path
    D = np.array([[0, 1.0, np.inf, 0], [0, 0, 2.0, 0], [0, 0, 0, 1.0], [0, 0, 0, 0]])
    A = gb.Matrix.from_dense(D, missing_value=0, device=device)
    ref = shortest_path(sp.csr_matrix(np.where(np.isinf(D), 0, D)), indices=0)
    got = host(sssp(A, 0).to_dense(fill=np.inf))
    np.testing.assert_allclose(got, ref)


# ---------------------------------------------------------------- user-defined operators
BAD_USER_OPS = [
    ("str", lambda x: str(x), "float64", "must return a number"),
    ("tuple", lambda x: (x, x), "float64", "must return a number"),
    ("complex", lambda x: x + 1j, "float64", "must return a number"),
    ("half_int", lambda x: x / 2, "int64", "truncated"),
    ("float_on_bool", lambda x: x * 0.5, "int32", "truncated"),
    ("sqrt_int", lambda x: x ** 0.5, "int16", "truncated"),
]


@pytest.mark.parametrize("name,func,dtype,match", BAD_USER_OPS, ids=[b[0] for b in BAD_USER_OPS])
def test_user_unary_that_cannot_be_stored_fails(name, func, dtype, match):
    op = gb.UnaryOp.register(f"bad_{name}", func)
    v = gb.Vector.from_coo([0, 2], [3, 4], 3, dtype=dtype)
    out = gb.Vector.from_coo([1], [7], 3, dtype=dtype)
    fails(gb.DomainMismatch, lambda: v.apply(op, out=out), v, out, match=match)


def test_user_binary_monoid_semiring_truncation_fails():
    avg = gb.BinaryOp.register("avg_trunc", lambda x, y: (x + y) / 2)
    u = gb.Vector.from_coo([0, 1], [3, 4], 2)
    A = gb.Matrix.from_coo([0, 1], [1, 0], [1, 2], 2, 2)
    fails(gb.DomainMismatch, lambda: u.ewise_add(u, avg), u, match="truncated")
    fails(gb.DomainMismatch, lambda: u.ewise_mult(u, avg), u, match="truncated")
    fails(gb.DomainMismatch, lambda: u.apply(avg, right=1), u, match="truncated")
    fails(gb.DomainMismatch, lambda: u.reduce(gb.Monoid.register("avg_m", avg, 0)), u)
    fails(gb.DomainMismatch,
          lambda: A.mxv(u, gb.Semiring.register("plus_avg", gb.monoid.plus, avg)), A, u)
    sel = gb.IndexUnaryOp.register("str_sel", lambda x, i, j, t: str(x), result="same")
    fails(gb.DomainMismatch, lambda: u.apply(sel, thunk=0), u, match="number")
    # on float inputs the same operator is fine and matches NumPy
    uf = gb.Vector.from_coo([0, 1], [3.0, 4.0], 2)
    np.testing.assert_allclose(uf.ewise_add(uf, avg).to_dense(), [3.0, 4.0])


def test_user_operator_raising_at_run_time():
    """An exception inside the user's function (integer division by zero)
    becomes InvalidValue naming the operator; nothing is written."""
    op = gb.BinaryOp.register("idiv_run", lambda x, y: x // y)
    u = gb.Vector.from_coo([0, 1], [3, 4], 2)
    v = gb.Vector.from_coo([0, 1], [0, 2], 2)
    out = gb.Vector.from_coo([1], [9], 2)
    fails(gb.InvalidValue, lambda: u.ewise_mult(v, op, out=out), u, v, out,
          match="'idiv_run' raised ZeroDivisionError")
    np.testing.assert_array_equal(u.ewise_mult(gb.Vector.from_coo([0, 1], [2, 2], 2), op)
                                  .to_dense(), np.array([3, 4]) // 2)


@pytest.mark.parametrize("result,expect_dtype", [("float64", np.float64), (np.float32, np.float32),
                                                 ("int32", np.int32), ("same", np.int64),
                                                 ("bool", np.bool_)])
def test_user_operator_explicit_result_type(result, expect_dtype):
    """An explicit result dtype is the output type; the value is cast to it as
    NumPy casts (C semantics); 'same' keeps the input type."""
    x = np.array([3, 4, 0, -5], dtype=np.int64)
    func = (lambda v: v / 2) if result != "same" else (lambda v: v // 2)
    if result == "bool":
        func = lambda v: v > 0  # noqa: E731
    op = gb.UnaryOp.register(f"res_{np.dtype(expect_dtype).name}", func, result=result)
    got = gb.Vector.from_dense(x).apply(op)
    assert got.dtype == expect_dtype
    ref = np.array([func(v) for v in x.tolist()]).astype(expect_dtype)
    np.testing.assert_array_equal(got.to_dense(), ref)
    bop = gb.BinaryOp.register("res_bin", lambda a, b: a / b, result="float64")
    np.testing.assert_allclose(gb.Vector.from_dense(x).apply(bop, right=8).to_dense(), x / 8)


@pytest.mark.parametrize("result", ["float", "samee", "arith", 3, "complex128", None])
def test_user_operator_bad_result_names(result):
    if result == "float":          # an alias of float64: accepted
        assert gb.UnaryOp.register("ok_alias", lambda x: x, result=result).result == np.float64
        return
    with pytest.raises((gb.InvalidValue, gb.DomainMismatch)):
        gb.UnaryOp.register("bad_result", lambda x: x, result=result)


# ---------------------------------------------------------------- reprs
@pytest.mark.parametrize("form", ["sparse", "dense"])
def test_repr_shows_first_values(form, device):
    D = np.zeros((5, 6))
    D[0, 3], D[2, 1], D[4, 5] = 1.5, -2.0, 7.0
    A = gb.Matrix.from_scipy(sp.csr_matrix(D), device=device)
    if form == "dense":
        A.to_dense_form()
    text = repr(A)
    assert "{(0, 3): 1.5, (2, 1): -2.0, (4, 5): 7.0}" in text and "nvals=3" in text
    big = gb.Matrix.from_scipy(sp.random(40, 40, density=0.3, random_state=1, format="csr"),
                               device=device)
    r, c, v = (host(a) for a in big.to_coo())
    first = ", ".join(f"({int(i)}, {int(j)}): {x.item()!r}" for i, j, x in
                      zip(r[:8], c[:8], v[:8]))
    assert "{" + first + ", ...}" in repr(big)
    u = gb.Vector.from_coo([1, 4], [10, 20], 6, device=device)
    if form == "dense":
        u = gb.Vector.from_dense(np.array([0, 10, 0, 0, 20, 0]), missing_value=0, device=device)
    assert "{1: 10, 4: 20}" in repr(u)
    assert "{}" in repr(gb.Vector("fp32", 0, device=device))
    assert repr(A) == text                      # repr reads, never changes, the object


# ---------------------------------------------------------------- out of memory mid-algorithm
def test_out_of_memory_inside_an_algorithm_names_the_step(monkeypatch):
    """CPU: an allocation that fails deep inside an operation (simulated: the
    backend's cast raises MemoryError on its 5th call) becomes OutOfMemory
    naming the operation; the input matrix is unchanged."""
    from graphblast_py.device import backend_for
    be = backend_for("cpu")
    G = nx.gnp_random_graph(30, 0.2, seed=3, directed=True)
    A = gb.io.from_networkx(G)
    before = snapshot(A)
    calls = {"n": 0}
    real = be.cast

    def cast(*a, **k):
        calls["n"] += 1
        if calls["n"] == 5:
            raise MemoryError("Unable to allocate 8.00 EiB")
        return real(*a, **k)
    monkeypatch.setattr(be, "cast", cast)
    with pytest.raises(gb.OutOfMemory, match=r"^(Matrix|Vector)\.\w+ \(.*\): out of memory"):
        pagerank(A)
    monkeypatch.setattr(be, "cast", real)
    real_full = be.full                       # a constructor names itself too
    monkeypatch.setattr(be, "full", lambda *a, **k: (_ for _ in ()).throw(MemoryError("x")))
    with pytest.raises(gb.OutOfMemory, match=r"^Vector\.from_coo: out of memory"):
        gb.Vector.from_coo([0, 1], 2.0, 3)
    monkeypatch.setattr(be, "full", real_full)
    assert snapshot(A) == before
    ref = nx.pagerank(G)
    np.testing.assert_allclose(pagerank(A).to_dense(), [ref[k] for k in range(30)], rtol=1e-4)


@pytest.mark.gpu
@pytest.mark.parametrize("alg", ["bfs", "pagerank", "triangle_count"])
def test_gpu_out_of_memory_mid_algorithm(alg):
    """GPU: an allocator that grants 64 KiB more and then fails (CuPy's own
    OutOfMemoryError); the algorithm's first large temporary fails.  Expect
    OutOfMemory naming the framework call, and the input unchanged."""
    import cupy
    G = nx.gnm_random_graph(20000, 100000, seed=1)
    A = gb.io.from_networkx(G, weight=None, device="gpu")
    before = snapshot(A)
    pool = cupy.get_default_memory_pool()
    cupy.cuda.Device().synchronize()
    left = [64 << 10]

    def alloc(size):
        if size > left[0]:
            raise cupy.cuda.memory.OutOfMemoryError(size, left[0], left[0])
        left[0] -= size
        return pool.malloc(size)
    cupy.cuda.set_allocator(alloc)
    try:
        with pytest.raises(gb.OutOfMemory, match=r"(Matrix|Vector)\.\w+ \(.*\): out of memory"):
            ALGORITHMS[alg](A)
    finally:
        cupy.cuda.set_allocator(pool.malloc)
    assert snapshot(A) == before


def test_out_of_memory_in_lazy_transpose_names_the_step(monkeypatch):
    """A.T builds the transpose when its CSR is first read: an allocation
    failure there names Matrix.T, whichever call read it, leaves the matrix
    unchanged and the transpose still deferred (a later read builds it)."""
    from graphblast_py.device import backend_for
    be = backend_for("cpu")
    B = gb.Matrix.from_coo([0, 1], [1, 2], 1.0, 3, 3)
    before = snapshot(B)
    T = B.T
    with monkeypatch.context() as m:
        m.setattr(be, "transpose_csr",
                  lambda *a, **k: (_ for _ in ()).throw(MemoryError("no room")))
        with pytest.raises(gb.OutOfMemory, match=r"^Matrix\.T \(3 x 3\): out of memory"):
            T.to_coo()
        with pytest.raises(gb.OutOfMemory, match=r"^Matrix\.T \(3 x 3\): out of memory"):
            T.get(1, 0)                       # not an operation: still named
    assert snapshot(B) == before
    r, c, v = T.to_coo()
    assert (list(r), list(c), list(v)) == ([1, 2], [0, 1], [1.0, 1.0])


@pytest.mark.parametrize("kernel", ["push_collect", "push"])
def test_out_of_memory_in_a_cpu_push_leaves_its_workspace_clear(monkeypatch, kernel):
    """The CPU push keeps a per-thread accumulator whose flags it clears
    after each push; an allocation failure in the kernel or its collection
    (after the flags are set) clears them whole before it propagates, so the
    next push in the thread is right (a stale flag would merge into the old
    value and drop the entry from the result)."""
    import scipy.sparse as sp
    from graphblast_py.backend.cpu import backend as cpu_backend
    from graphblast_py.device import backend_for
    be = backend_for("cpu")
    cpu_backend._kernels()                      # the kernels module, loaded
    km = cpu_backend._kernel_module
    real = getattr(km, kernel)
    S = sp.random(300, 300, density=0.02, format="csr", random_state=3)
    A = gb.Matrix.from_scipy(S, device="cpu")
    u = gb.Vector.from_coo([1, 7, 40], [1.0, 2.0, 3.0], size=300, device="cpu")
    want = u.vxm(A, gb.semiring.min_plus)

    def failing(*args):
        outp = args[-2] if kernel == "push" else args[-3]
        outp[:50] = True
        raise MemoryError("no room")
    monkeypatch.setattr(km, kernel, failing)
    if kernel == "push":                        # (the general push: no one-call plan)
        monkeypatch.setattr(cpu_backend, "PUSH_SORT_KERNEL", False)
    with pytest.raises(gb.OutOfMemory, match=r"^Vector\.vxm"):
        u.vxm(A, gb.semiring.min_plus)
    assert not be._push_workspace(300, np.dtype(np.float64))[1].any()
    monkeypatch.setattr(km, kernel, real)
    got = u.vxm(A, gb.semiring.min_plus)
    assert got.isequal(want)
