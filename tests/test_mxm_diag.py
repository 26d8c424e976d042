"""``mxm`` with a full diagonal operand (``Matrix.from_diag`` of a vector with
every entry): ``D B`` scales B's rows and ``A D`` A's columns on the other
operand's structure, with nothing read back (operations/mxm.py, the
backend's ``spgemm_diag``; triangle counting's degree order).  Against the
dense reference model over every monoid and multiply (positional ones
included), the test types, B sparse, iso and dense, with masks and
accumulators through the output rule; ``method="auto"`` must take the path
exactly when the diagonal is full and unchanged since ``from_diag``."""
import numpy as np
import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

import graphblast_py as gb

from . import reference as R
from .conftest import host
from .test_semantics import MONOIDS, MULTS, refs

_model = R.defined_or_reject
# (a few types: each combination compiles the kernels once)
DTYPES = [np.dtype(t) for t in ("bool", "int8", "int64", "float64")]


def _diag_ref(d):
    n = d.shape[0]
    vals = np.zeros((n, n), dtype=d.dtype)
    vals[np.arange(n), np.arange(n)] = d
    return R.Ref(vals, np.eye(n, dtype=bool))


def _same(got, want, add, mult):
    msg = R.equal(R.from_lib(got), want)
    if add == "any" or mult == "any":           # any: one of the terms, not a fixed one
        msg = R.equal(R.Ref(np.zeros_like(want.vals), R.from_lib(got).present),
                      R.Ref(np.zeros_like(want.vals), want.present))
    return msg


@pytest.mark.parametrize("dev", ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_diagonal_operand(dev, data):
    d = data.draw
    n, m = d(st.integers(1, 9)), d(st.integers(1, 7))
    left = d(st.booleans())
    dt = d(st.sampled_from(DTYPES))
    dvals = d(refs((n,), dt)).vals            # every entry present
    D_r = _diag_ref(dvals)
    B_r = d(refs((n, m) if left else (m, n), d(st.sampled_from(DTYPES))))
    form = d(st.sampled_from(["sparse", "sparse", "dense"]))
    if d(st.booleans()) and B_r.nvals:        # one value everywhere: iso storage
        B_r = R.Ref(np.where(B_r.present, B_r.vals[B_r.present][0], 0).astype(B_r.dtype),
                    B_r.present)
        form = "iso" if form == "sparse" else form
    add, mult = d(st.sampled_from(MONOIDS)), d(st.sampled_from(MULTS))
    sr = gb.semiring[f"{add}_{mult}"]
    note(f"{sr} left={left} D {dt} B {B_r.dtype} {form} {B_r.nvals}")
    D = gb.Matrix.from_diag(gb.Vector.from_dense(dvals.copy(), device=dev))
    B = R.to_lib(B_r, form, dev)
    T = _model(R.mxm, D_r, B_r, add, mult) if left else _model(R.mxm, B_r, D_r, add, mult)
    gb.stats.reset()
    with np.errstate(all="ignore"):
        got = D.mxm(B, sr) if left else B.mxm(D, sr)
    assert gb.stats()["counts"].get("mxm:diag", 0) == 1
    msg = _same(got, _model(R.write, None, T), add, mult)
    assert not msg, msg
    # through the output rule: a mask (value or structure, complemented or
    # not), an accumulator, replace
    C_r = d(refs(T.shape, T.dtype))
    M_r = d(refs(T.shape, np.dtype(bool)))
    structure, comp, replace = d(st.booleans()), d(st.booleans()), d(st.booleans())
    C = R.to_lib(C_r, "sparse", dev)
    M = R.to_lib(M_r, "sparse", dev)
    mask = M.S if structure else M.V
    mask = ~mask if comp else mask
    with np.errstate(all="ignore"):
        (D.mxm(B, sr, mask=mask, accum=gb.binary.plus, replace=replace, out=C) if left else
         B.mxm(D, sr, mask=mask, accum=gb.binary.plus, replace=replace, out=C))
    want = _model(R.write, C_r, T, mask=R.mask_array(M_r, structure, comp), accum="plus",
                  replace=replace)
    msg = _same(C, want, add, mult)
    assert not msg, msg


def test_diagonal_path_only_while_full_and_unchanged(device):
    """A diagonal with a missing entry, with an off-diagonal entry added
    after ``from_diag``, or off the main diagonal takes the general path
    (and is right); the structure of the scaled operand is shared, not
    changed, when the result is written."""
    A = gb.generators.grid2d(4, 5, device=device)           # 20 vertices, iso
    S = host(A.to_scipy().toarray())                         # NumPy on either device
    n = A.nrows
    d = np.arange(1, n + 1, dtype=np.float64)
    dense = lambda M: host(M.to_scipy().toarray())          # noqa: E731
    cases = []
    D = gb.Matrix.from_diag(gb.Vector.from_dense(d, device=device))
    cases.append(("full", D, np.diag(d), 1))
    hole = gb.Vector.from_coo(np.arange(1, n), d[1:], size=n, device=device)
    cases.append(("a missing entry", gb.Matrix.from_diag(hole), np.diag(np.r_[0, d[1:]]), 0))
    E = gb.Matrix.from_diag(gb.Vector.from_dense(d, device=device))
    E[0, 1] = 7.0                                           # no longer a diagonal
    De = np.diag(d)
    De[0, 1] = 7.0
    cases.append(("changed", E, De, 0))
    F = gb.Matrix.from_diag(gb.Vector.from_dense(d[1:], device=device), 1)
    cases.append(("k=1", F, np.diag(d[1:], 1), 0))
    for what, Dm, Dn, path in cases:
        for left in (True, False):
            gb.stats.reset()
            got = Dm.mxm(A, gb.semiring.plus_times) if left else A.mxm(Dm, gb.semiring.plus_times)
            assert gb.stats()["counts"].get("mxm:diag", 0) == path, what
            want = Dn @ S if left else S @ Dn
            np.testing.assert_array_equal(dense(got), want, err_msg=what)
            pat = (np.abs(Dn) > 0).astype(int) @ (S != 0) if left else \
                (S != 0) @ (np.abs(Dn) > 0).astype(int)
            np.testing.assert_array_equal(dense(got.apply(gb.unary.one)) != 0, pat != 0,
                                          err_msg=what)
    assert A.isequal(gb.generators.grid2d(4, 5, device=device))   # A untouched
    # a forced method runs as asked, with the same result
    gb.stats.reset()
    forced = D.mxm(A, gb.semiring.plus_times, method="saxpy")
    assert gb.stats()["counts"] == {"mxm:saxpy": 1}
    assert forced.isequal(D.mxm(A, gb.semiring.plus_times))


def test_diagonal_of_empty_and_one_vertex(device):
    for n in (0, 1):
        D = gb.Matrix.from_diag(gb.Vector.from_dense(np.full(n, 3, np.int64), device=device))
        B = gb.Matrix.from_coo([0] * n, [0] * n, [5] * n, n, n, dtype=np.int64, device=device)
        for got in (D.mxm(B, gb.semiring.plus_times), B.mxm(D, gb.semiring.plus_times)):
            assert got.nvals == n and (n == 0 or got.get(0, 0) == 15)
