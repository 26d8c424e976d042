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
