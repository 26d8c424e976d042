"""A Vector as the index list: ``u.extract(iv)`` (``w(i) = u(iv(i))``) and
``Vector.from_coo(iv, values_vector, dup_op=...)``, against a dense reference
model written as plain loops, on both devices, with both storage forms of
every operand, missing entries, out-of-range values and mismatched inputs."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import graphblast_py as gb
from graphblast_py.errors import (DimensionMismatch, IndexOutOfBound, InvalidIndex,
                                  InvalidValue)


def _vector(vals, present, device, dense_form, dtype=np.int64):
    """A Vector with ``vals[i]`` where ``present[i]``, in the form asked for."""
    vals, present = np.asarray(vals, dtype), np.asarray(present, bool)
    if dense_form:                    # values and presence: the dense (bitmap) form
        v = gb.Vector.from_dense(np.where(present, vals, -999), missing_value=-999,
                                 device=device)
        assert v.form == "dense"
        return v
    idx = np.flatnonzero(present)
    return gb.Vector.from_coo(idx, vals[idx], size=len(vals), dtype=dtype, device=device)


def _entries(v):
    """{position: value} of a Vector, on the host."""
    i, x = v.to("cpu").to_coo()
    return dict(zip(np.asarray(i).tolist(), np.asarray(x).tolist()))


@st.composite
def _case(draw):
    n_u = draw(st.integers(1, 12))
    n_i = draw(st.integers(0, 12))
    u_vals = draw(st.lists(st.integers(-50, 50), min_size=n_u, max_size=n_u))
    u_pres = draw(st.lists(st.booleans(), min_size=n_u, max_size=n_u))
    i_vals = draw(st.lists(st.integers(0, n_u - 1), min_size=n_i, max_size=n_i))
    i_pres = draw(st.lists(st.booleans(), min_size=n_i, max_size=n_i))
    forms = draw(st.tuples(st.booleans(), st.booleans()))
    return u_vals, u_pres, i_vals, i_pres, forms


@pytest.mark.parametrize("full_index", [False, True])
@given(case=_case())
def test_extract_by_vector_matches_reference(device, full_index, case):
    u_vals, u_pres, i_vals, i_pres, (u_dense, i_dense) = case
    if full_index:
        i_pres = [True] * len(i_vals)
    u = _vector(u_vals, u_pres, device, u_dense)
    iv = _vector(i_vals, i_pres, device, i_dense)
    got = u.extract(iv)
    want = {i: u_vals[i_vals[i]] for i in range(len(i_vals))
            if i_pres[i] and u_pres[i_vals[i]]}
    assert got.size == len(i_vals) and got.dtype == u.dtype
    assert _entries(got) == want
    if full_index:                    # the same as the index array's extract
        assert got.isequal(u.extract(np.asarray(i_vals, np.int64)))


@given(case=_case(), mask_bits=st.lists(st.booleans(), min_size=12, max_size=12))
def test_extract_by_vector_mask_accum(device, case, mask_bits):
    """Mask and accumulator go through the common output rule."""
    u_vals, u_pres, i_vals, i_pres, (u_dense, i_dense) = case
    u = _vector(u_vals, u_pres, device, u_dense)
    iv = _vector(i_vals, i_pres, device, i_dense)
    n = len(i_vals)
    m = gb.Vector.from_coo(np.flatnonzero(mask_bits[:n]), True, size=n, device=device)
    w = gb.Vector.from_coo(np.arange(n), 7, size=n, dtype=np.int64, device=device)
    u.extract(iv, mask=m.S, accum=gb.binary.plus, out=w)
    t = {i: u_vals[i_vals[i]] for i in range(n) if i_pres[i] and u_pres[i_vals[i]]}
    want = {i: (7 + t[i] if i in t else 7) if mask_bits[i] else 7 for i in range(n)}
    assert _entries(w) == want


@given(case=_case(), op=st.sampled_from(["min", "max", "plus", "first", "second"]))
def test_from_coo_of_vectors_matches_reference(device, case, op):
    """from_coo(iv, xv): iv's values in position order are the indices, xv's
    values at the same positions the values; duplicates folded left to
    right (position order)."""
    u_vals, _, i_vals, i_pres, (x_dense, i_dense) = case
    n_i = len(i_vals)
    xs = (u_vals * 12)[:n_i]
    iv = _vector(i_vals, i_pres, device, i_dense)
    xv = _vector(xs, i_pres, device, x_dense)
    size = len(u_vals)
    got = gb.Vector.from_coo(iv, xv, size, dup_op=getattr(gb.binary, op))
    fold = {"min": min, "max": max, "plus": lambda a, b: a + b, "first": lambda a, b: a,
            "second": lambda a, b: b}[op]
    want = {}
    for i in range(n_i):
        if i_pres[i]:
            k = i_vals[i]
            want[k] = fold(want[k], xs[i]) if k in want else xs[i]
    assert got.device == device and got.size == size
    assert _entries(got) == want
    scalar = gb.Vector.from_coo(iv, 3, size, dup_op=gb.binary.plus)
    counts = {}
    for i in range(n_i):
        if i_pres[i]:
            counts[i_vals[i]] = counts.get(i_vals[i], 0) + 3
    assert _entries(scalar) == counts


def test_many_entries_take_the_scatter(device):
    """Enough entries for the unsorted scatter (connected components' hooking
    on a full parent vector): the same as the arrays' build and a loop."""
    rng = np.random.default_rng(4)
    n = 3000
    f = rng.integers(0, 40, n)
    x = rng.integers(-10**12, 10**12, n)
    fv = gb.Vector.from_dense(f, device=device)
    xv = gb.Vector.from_dense(x, device=device)
    got = gb.Vector.from_coo(fv, xv, n, dup_op=gb.binary.min)
    want = np.full(n, np.iinfo(np.int64).max)
    np.minimum.at(want, f, x)
    idx, vals = (np.asarray(a) for a in got.to("cpu").to_coo())
    assert np.array_equal(idx, np.unique(f)) and np.array_equal(vals, want[idx])
    assert np.array_equal(np.asarray(fv.extract(fv).to("cpu").to_dense()), f[f])


def test_index_vector_errors(device):
    u = gb.Vector.from_coo([0, 2], [5, 6], size=4, device=device)
    bad = gb.Vector.from_coo([1, 3], [2, 9], size=5, device=device)
    with pytest.raises(IndexOutOfBound, match="value 9 at position 3"):
        u.extract(bad)
    neg = gb.Vector.from_coo([0], [-1], size=2, device=device)
    with pytest.raises(IndexOutOfBound, match="value -1 at position 0"):
        u.extract(neg)
    with pytest.raises(InvalidIndex, match="integer type"):
        u.extract(gb.Vector.from_coo([0], [1.0], size=2, device=device))
    with pytest.raises(InvalidIndex, match="integer type"):
        gb.Vector.from_coo(gb.Vector.from_coo([0], [1.5], size=2, device=device), 1, 4)
    iv = gb.Vector.from_coo([0, 1], [1, 2], size=3, device=device)
    with pytest.raises(InvalidValue, match="same positions"):
        gb.Vector.from_coo(iv, gb.Vector.from_coo([0, 2], [1, 2], size=3, device=device), 4)
    with pytest.raises(DimensionMismatch, match="size 3 but the value Vector has size 4"):
        gb.Vector.from_coo(iv, gb.Vector.from_coo([0, 1], [1, 2], size=4, device=device), 4)
    with pytest.raises(IndexOutOfBound):
        gb.Vector.from_coo(iv, 1, 2)          # index 2 outside a size of 2
    with pytest.raises(InvalidValue, match="more than once"):
        gb.Vector.from_coo(gb.Vector.from_dense(np.array([1, 1]), device=device), 1, 3)
    empty = gb.Vector(np.int64, 0, device=device)
    assert u.extract(empty).size == 0
    assert gb.Vector(np.int64, 0, device=device).extract(gb.Vector(np.int64, 3,
                                                                   device=device)).nvals == 0
    with pytest.raises(IndexOutOfBound, match="size 0"):
        gb.Vector(np.int64, 0, device=device).extract(iv)
    assert gb.Vector.from_coo(empty, empty, 5).nvals == 0


@pytest.mark.gpu
def test_index_vector_device_mismatch():
    from graphblast_py.errors import DeviceMismatch
    u = gb.Vector.from_coo([0], [1], size=3, device="gpu")
    iv = gb.Vector.from_coo([0], [1], size=3, device="cpu")
    with pytest.raises(DeviceMismatch):
        u.extract(iv)
    with pytest.raises(DeviceMismatch):
        gb.Vector.from_coo(iv, u, 3)
    with pytest.raises(DeviceMismatch):
        gb.Vector.from_coo(iv, 1, 3, device="gpu")


@pytest.mark.parametrize("op", ["rowindex", "valuegt", "rowle", "diagindex"])
@pytest.mark.parametrize("full", [True, False])
def test_index_apply_keeps_a_dense_vector_dense(device, op, full):
    """apply of an index-unary operator to a dense vector: the same entries
    as for the same content stored sparse, and (where the backend keeps the
    form: dense_index_apply) a full vector stays full -- connected
    components' f(v) = v, so every later operation of it runs on full
    vectors."""
    n = 37
    rng = np.random.default_rng(1)
    vals = rng.integers(-5, 5, n)
    present = np.ones(n, bool) if full else rng.random(n) < 0.6
    dense = _vector(vals, present, device, True)
    sparse = _vector(vals, present, device, False)
    a = dense.apply(gb.indexunary[op], thunk=2)
    b = sparse.apply(gb.indexunary[op], thunk=2)
    assert a.dtype == b.dtype and _entries(a) == _entries(b)
    if gb.backend.get(device).dense_index_apply:
        assert a.form == "dense"
        assert (a.nvals == n) == full
