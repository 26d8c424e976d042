"""Row and column reductions of iso matrices (one value, no value array):
the closed forms of ``operations/reduce.py`` (k copies of v: plus k v,
min/max/any/lor/land v, times v for v in {0, 1}) against the dense reference
model, every entry and the structure, on both devices; where the closed form
is not exact (a float whose multiples round, NaN, infinity, -0.0 under
times, a float overflow) the general path must run and agree too.

The matrix has an empty row and column, a row of 300 entries (int8 and
uint8 sums wrap; float32 multiples of 2^20 + 1 round) and a column of 300."""
import numpy as np
import pytest

import graphblast_py as gb

from . import reference as R

MONOIDS = ["plus", "times", "min", "max", "lor", "land", "lxor", "eq", "any"]
CLOSED = {"plus", "min", "max", "any", "lor", "land", "times"}


def _pattern():
    """8 x 310 presence: row 2 and column 5 empty, row 0 long, column 7 long
    (through a 2nd block of columns), scattered entries elsewhere."""
    P = np.zeros((8, 310), dtype=bool)
    P[0, [j for j in range(310) if j != 5][:300]] = True
    rng = np.random.default_rng(7)
    for i in (1, 3, 4, 6, 7):
        P[i, rng.choice([j for j in range(310) if j != 5], 6, replace=False)] = True
    P[:, 5] = False
    P[2, :] = False
    return P


def _iso(dtype, value, device, transposed=False):
    P = _pattern()
    r = R.Ref(np.where(P, np.asarray(value, dtype=dtype), np.zeros((), dtype)).astype(dtype), P)
    i, j = np.nonzero(P)
    A = gb.Matrix.from_coo(i, j, np.asarray(value, dtype=dtype)[()], *P.shape, dtype=dtype,
                           device=device)
    assert A.iso
    if transposed:              # a deferred transpose: its CSC is the source's CSR
        return A.T, r.T
    return A, r


CASES = [
    ("bool", True), ("bool", False),
    ("int8", 1), ("int8", 3), ("int8", -1), ("int8", 127), ("int8", 0),
    ("uint8", 255), ("uint8", 1), ("int64", 7), ("int64", -(2 ** 62)), ("int32", 2 ** 30),
    ("float64", 1.0), ("float64", 0.5), ("float64", 3.0), ("float64", -0.0), ("float64", 0.0),
    ("float64", 0.1), ("float64", 2.0 ** 52 + 1), ("float64", 1e308), ("float64", np.nan),
    ("float64", np.inf), ("float64", -np.inf), ("float64", 5e-324),
    ("float32", 1.0), ("float32", 0.25), ("float32", 2.0 ** 20 + 1), ("float32", 0.1),
]


def _closed_form_expected(add, value):
    """True where the closed form must be taken (so the general segmented
    reduction must not run)."""
    if add not in CLOSED:
        return False
    v = np.asarray(value)
    if add == "times":
        return bool(v == 1 or (v == 0 and not np.signbit(v)))
    if add == "plus" and v.dtype.kind == "f":
        return bool(np.isfinite(v)) and float(value) in (0.0, 1.0, 0.5, 3.0, 0.25, 5e-324)
    return True


@pytest.mark.parametrize("dtype,value", CASES)
@pytest.mark.parametrize("transposed", [False, True])
def test_iso_lines_against_reference(device, dtype, value, transposed, monkeypatch):
    for add in MONOIDS:
        A, r = _iso(np.dtype(dtype), value, device, transposed)
        closed = _closed_form_expected(add, np.asarray(value, dtype=dtype)[()])
        if closed:
            def refuse(*a, **k):
                raise AssertionError(f"{add} over an iso {dtype} {value!r}: the general "
                                     "segmented reduction ran where the closed form applies")
            monkeypatch.setattr(A._be, "segment_reduce", refuse)
        for got, want in ((A.reduce_rowwise(gb.monoid[add]), R.reduce_rowwise(r, add)),
                          (A.reduce_columnwise(gb.monoid[add]), R.reduce_columnwise(r, add))):
            g = R.from_lib(got)
            if add == "any":        # any stored value is right; all are v here anyway
                assert np.array_equal(g.present, want.present)
            if add in ("plus", "times") and np.dtype(dtype).kind == "f" and not closed:
                # inexact: the general path sums (multiplies) in its own order
                assert np.array_equal(g.present, want.present)
                np.testing.assert_allclose(g.vals[g.present], want.vals[want.present],
                                           rtol=1e-5, equal_nan=True)
                continue
            msg = R.equal(g, want)
            assert not msg, (add, dtype, value, transposed, msg)
        monkeypatch.undo()


@pytest.mark.parametrize("accum", [None, "plus", "min"])
def test_iso_lines_mask_accum_replace(device, accum):
    """The dense closed-form result goes through the output rule like any
    other: a mask (structural and complemented), an accumulator, replace."""
    A, r = _iso(np.dtype("int64"), 2, device)
    m_r = R.Ref(np.ones(8, bool), np.array([1, 0, 1, 1, 0, 0, 1, 0], bool))
    mask = R.to_lib(m_r, "sparse", device)
    for comp in (False, True):
        for replace in (False, True):
            out_r = R.Ref(np.arange(8, dtype=np.int64) * 10,
                          np.array([1, 1, 0, 1, 0, 1, 1, 1], bool))
            out = R.to_lib(out_r, "sparse", device)
            T = R.reduce_rowwise(r, "plus")
            want = R.write(out_r, T, mask=R.mask_array(m_r, True, comp), accum=accum,
                           replace=replace)
            A.reduce_rowwise(gb.monoid.plus, mask=~mask.S if comp else mask.S,
                             accum=None if accum is None else gb.binary[accum],
                             replace=replace, out=out)
            msg = R.equal(R.from_lib(out), want)
            assert not msg, (accum, comp, replace, msg)


def test_iso_lines_empty_and_one_vertex(device):
    for shape in ((0, 0), (1, 1), (3, 0), (0, 4)):
        A = gb.Matrix.from_coo([], [], 1.0, *shape, device=device)
        assert A.reduce_rowwise(gb.monoid.plus).nvals == 0
        assert A.reduce_columnwise(gb.monoid.max).nvals == 0
    A = gb.Matrix.from_coo([0], [0], 4, 1, 1, dtype="int64", device=device)
    assert A.reduce_rowwise(gb.monoid.plus).to_coo()[1].tolist() == [4]


def test_iso_lines_against_scipy_on_a_power_law_graph(device):
    """Weighted out- and in-degrees of an iso Kronecker graph (hubs, isolated
    vertices) against SciPy's row and column sums, every entry."""
    S = gb.generators.kronecker(10, 8, seed=3, device=device).to_scipy()
    S = (S.get() if hasattr(S, "get") else S).tocsr()
    i, j = S.nonzero()
    for value in (1.0, 0.5, 3):
        B = gb.Matrix.from_coo(i, j, value, *S.shape, device=device)
        assert B.iso
        Sd = S.astype(bool).astype(np.float64) * value
        got_r = B.reduce_rowwise(gb.monoid.plus)
        got_c = B.reduce_columnwise(gb.monoid.plus)
        assert np.array_equal(R._host(got_r.to_dense(fill=0)), np.asarray(Sd.sum(axis=1)).ravel())
        assert np.array_equal(R._host(got_c.to_dense(fill=0)), np.asarray(Sd.sum(axis=0)).ravel())
        assert got_r.nvals == int((np.diff(S.indptr) > 0).sum())
        assert got_c.nvals == int((np.diff(S.tocsc().indptr) > 0).sum())


@pytest.mark.parametrize("dtype,value", CASES)
def test_iso_scalar_against_reference(device, dtype, value, monkeypatch):
    """``reduce_scalar`` of an iso matrix: the same closed forms (plus as
    nvals x v) computed on the host where they apply -- no device array, no
    reduction -- and the general path where they do not; against the
    reference model's fold of every entry."""
    for add in MONOIDS:
        A, r = _iso(np.dtype(dtype), value, device)
        closed = _closed_form_expected(add, np.asarray(value, dtype=dtype)[()])
        if closed:
            def refuse(*a, **k):
                raise AssertionError(f"{add} over an iso {dtype} {value!r}: a device "
                                     "reduction ran where the closed form applies")
            for name in ("reduce", "full", "cast"):
                monkeypatch.setattr(A._be, name, refuse)
        got = A.reduce_scalar(gb.monoid[add])
        monkeypatch.undo()
        t = R.monoid_type(add, np.dtype(dtype))
        want = R.fold(add, r.vals[r.present], t)
        if add in ("plus", "times") and np.dtype(dtype).kind == "f" and not closed:
            np.testing.assert_allclose(got, want, rtol=1e-5, equal_nan=True)
            continue
        assert type(got) is type(np.asarray(want).item()), (add, dtype, value, got)
        assert np.array_equal(np.asarray(got, dtype=t), np.asarray(want, dtype=t),
                              equal_nan=True), (add, dtype, value, got, want)
        if np.asarray(want).dtype.kind == "f" and want == 0:
            assert np.signbit(got) == np.signbit(want), (add, dtype, value, got, want)


def test_iso_scalar_empty_and_transposed(device):
    for shape in ((0, 0), (1, 1), (3, 0)):
        A = gb.Matrix.from_coo([], [], 2.0, *shape, device=device)
        assert A.reduce_scalar(gb.monoid.plus) == 0.0
        assert A.reduce_scalar(gb.monoid.min) == np.inf
    A, r = _iso(np.dtype("int8"), 3, device, transposed=True)
    assert A.reduce_scalar(gb.monoid.plus) == R.fold("plus", r.vals[r.present], np.dtype("int8"))
