"""``w.assign(x)``: a Python number to every position of a Vector, no mask,
accum or index list -- the fast path of operations/assign.py
(``_fill_whole``: the fill kept as w's own array, PageRank's fresh teleport
vector).  Against the dense reference model on both devices, every entry:
casts as the output rule casts (int8 wrap, a float into an integer type,
bool, NaN, -0.0), over an empty, a sparse, a dense-with-holes and a full
w; the path taken, the array owned (a later accumulated product writes it
in place), and the calls it must leave to the general path; Python ints
beyond int64's and uint64's range as scalars."""
import numpy as np
import pytest

import graphblast_py as gb
from graphblast_py.operations import assign as assign_mod

from . import reference as R

VALUES = {
    "int8": [300, -129, 5, True],
    "uint8": [-1, 256, 7],
    "int64": [2 ** 62, -3, 7.9, False],
    "float64": [0.015, -0.0, float("nan"), float("inf"), 3, True],
    "float32": [1e-40, 0.1, 2 ** 40],
    "bool": [True, 0, 2.5],
}


def _start(kind, dt, n, device):
    rng = np.random.default_rng(1)
    vals = rng.integers(0, 5, n).astype(dt)
    present = {"empty": np.zeros(n, bool), "sparse": np.arange(n) % 7 == 3,
               "holes": np.arange(n) % 4 != 0, "full": np.ones(n, bool)}[kind]
    r = R.Ref(np.where(present, vals, 0).astype(dt), present)
    form = "dense" if kind in ("holes", "full") else "sparse"
    return r, R.to_lib(r, form, device)


@pytest.mark.parametrize("dt", list(VALUES))
@pytest.mark.parametrize("kind", ["empty", "sparse", "holes", "full"])
def test_scalar_to_every_position(device, dt, kind, monkeypatch):
    n = 37
    for value in VALUES[dt]:
        r, w = _start(kind, dt, n, device)
        want = R.assign(r, value, (None,))

        def general(*a, **k):
            raise AssertionError("the general assign ran for a scalar to every position")

        monkeypatch.setattr(assign_mod, "_assign", general)
        with np.errstate(invalid="ignore", over="ignore"):      # (NaN into no int type here)
            got = w.assign(value)
        monkeypatch.undo()
        assert got is w
        vals, own = w._full_values()
        assert own and w.nvals == n     # (before a read hands the array out)
        msg = R.equal(R.from_lib(w), want)
        assert not msg, (dt, kind, value, msg)
        if np.dtype(dt).kind == "f" and value == 0:
            assert np.signbit(R._host(vals)).all() == np.signbit(value)


def test_the_fill_is_written_in_place_by_an_accumulated_product(device):
    """PageRank's step: a fresh vector filled with the teleport constant,
    then ``w A`` accumulated into it -- into the fill's own array."""
    n = 50
    i = np.arange(n)
    A = gb.Matrix.from_coo(i, (i + 1) % n, 1.0, n, n, device=device)
    u = gb.Vector.from_dense(np.linspace(0, 1, n), device=device)
    w = gb.Vector("float64", n, device=device)
    w.assign(0.5)
    arr = w._full_values()[0]
    u.vxm(A, gb.semiring.plus_times, accum=gb.binary.plus, out=w)
    if device == "gpu":                 # (the CPU's kernel may return a new array)
        assert w._full_values()[0] is arr
    want = 0.5 + np.roll(np.linspace(0, 1, n), 1)
    np.testing.assert_allclose(R._host(w.to_dense()), want, rtol=0, atol=1e-15)


def test_other_calls_take_the_general_path(device, monkeypatch):
    """A mask, an accum, replace=True, an index list, a NumPy scalar, a
    complex number or a Vector value: not the fast path (each still right,
    or refused as before)."""
    seen = []
    real = assign_mod._assign
    monkeypatch.setattr(assign_mod, "_assign", lambda *a: seen.append(1) or real(*a))
    w = gb.Vector.from_coo([1, 3], [5, 6], size=6, dtype="int64", device=device)
    m = gb.Vector.from_coo([0, 1], True, size=6, device=device)
    w.assign(2, accum=gb.binary.plus)
    w.assign(1, replace=True)
    w.assign(7, [0, 2])
    w.assign(np.int64(4))
    assert len(seen) == 4
    assert R._host(w.to_dense()).tolist() == [4] * 6
    w.assign(9, mask=m.S)
    assert R._host(w.to_dense()).tolist() == [9, 9, 4, 4, 4, 4]
    with pytest.raises(gb.InvalidValue, match="expected a scalar"):
        w.assign(1 + 2j)
    with pytest.raises(gb.InvalidValue, match="expected a scalar"):
        w.assign("3")
    assert R._host(w.to_dense()).tolist() == [9, 9, 4, 4, 4, 4]     # nothing written


def test_python_ints_beyond_int64(device):
    """A Python int above int64's range is a uint64 scalar (assigned with C
    casting, or combined by NumPy's promotion); one beyond uint64's range is
    refused with InvalidValue naming it, before anything is written -- in
    assign (the whole-vector fill and the general path), apply and select
    (an OverflowError from NumPy before)."""
    w = gb.Vector("uint64", 3, device=device)
    w.assign(2 ** 64 - 1)
    assert R._host(w.to_dense()).tolist() == [2 ** 64 - 1] * 3
    v = gb.Vector.from_dense(np.array([1, 2, 3]), device=device)
    v.assign(2 ** 63, mask=v.S)                 # C casting into int64: wraps
    assert R._host(v.to_dense()).tolist() == [-(2 ** 63)] * 3
    v = gb.Vector.from_dense(np.array([1, 2, 3]), device=device)
    got = v.apply(gb.binary.plus, right=2 ** 63)     # int64 + uint64: float64
    assert R._host(got.to_dense()).tolist() == [2.0 ** 63 + k for k in (1, 2, 3)]
    for call in (lambda: v.assign(2 ** 70), lambda: v.assign(-(2 ** 64), mask=v.S),
                 lambda: v.apply(gb.binary.plus, right=2 ** 70),
                 lambda: v.select(">", 2 ** 64)):
        with pytest.raises(gb.InvalidValue, match="outside the range of int64 and uint64"):
            call()
    assert R._host(v.to_dense()).tolist() == [1, 2, 3]
