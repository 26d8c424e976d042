"""Element-wise operations computed at a sparse mask's positions only
(operations/ewise.py ``_mask_first``; the backends' ``ewise_mask_first``,
on both devices): against the dense reference model of
tests/reference.py and against the same call with the path switched off,
over operand forms (dense with and without holes, sparse, empty), operators
(comparisons, arithmetic with division by zero, min/max, first/second), mixed
types, accum, replace and outs with content.  The masks are small enough for
the path to be taken, which the test checks."""
import numpy as np
import pytest
from hypothesis import given, note, reject, settings
from hypothesis import strategies as st

import graphblast_py as gb
from graphblast_py.operations import ewise as E

from . import reference as R

OPS = ["lt", "plus", "minus", "div", "min", "max", "first", "second", "times", "eq"]
DTYPES = ["int8", "int32", "float64", "bool"]


_ref = R.defined_or_reject


DEVICES = ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)]


vectors = R.vectors


@pytest.mark.parametrize("dev", DEVICES)
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_ewise_at_mask_positions(dev, data):
    d = data.draw
    n = d(st.integers(48, 96))
    ta, tb = d(st.sampled_from(DTYPES)), d(st.sampled_from(DTYPES))
    fa, fb = d(st.sampled_from(["dense", "sparse"])), d(st.sampled_from(["dense", "sparse"]))
    a_r, a = d(vectors(n, ta, fa, dev))
    b_r, b = d(vectors(n, tb, fb, dev))
    keys = sorted(set(d(st.lists(st.integers(0, n - 1), min_size=0, max_size=n // 16 - 1))))
    if (a.form != "dense" and b.form != "dense"
            and max(a.nvals, b.nvals) <= 4 * len(keys)):
        reject()                        # two sparse operands about the mask's size: no path
    m_r = R.Ref(np.ones(n, dtype="int32") * 0, np.isin(np.arange(n), keys))
    m_r.vals[m_r.present] = 7
    mask_vec = gb.Vector.from_coo(np.asarray(keys, dtype=np.int64), 7, size=n, dtype="int32",
                                  device=dev)
    op = d(st.sampled_from(OPS))
    which = d(st.sampled_from(["add", "mult", "union"]))
    accum = d(st.sampled_from([None, "plus", "min"]))
    replace = d(st.booleans())
    with_out = d(st.booleans())
    out_dt = d(st.sampled_from(["int32", "float64"]))
    note(f"ewise_{which} {op} accum={accum} replace={replace} out={with_out}")
    ld, rd = d(st.integers(-2, 4)), d(st.integers(-2, 4))
    T = _ref(R.ewise, which, a_r, b_r, op, ld, rd)
    if with_out:
        c_r, c = d(vectors(n, out_dt, d(st.sampled_from(["dense", "sparse"])), dev))
    else:
        c_r, c = None, None
    if accum is not None and c_r is None:
        accum = None
    want = _ref(R.write, c_r, T, mask=R.mask_array(m_r, True, False), accum=accum,
                replace=replace)
    mask = mask_vec.S
    assert E._mask_first(a, b, gb.binary[op], mask) is not None    # the path is taken

    def kw():
        k = dict(mask=mask, replace=replace, accum=None if accum is None else gb.binary[accum])
        if c is not None:
            k["out"] = c.dup()
        return k

    got, plain = R.ewise_both_ways(dev, which, a, b, op, ld, rd, kw)
    got_r, plain_r = R.from_lib(got), R.from_lib(plain)
    assert not R.equal(got_r, want), R.equal(got_r, want)
    assert not R.equal(plain_r, want), R.equal(plain_r, want)
    assert got.dtype == plain.dtype


def test_operands_keep_their_arrays():
    """Reading the operands at the mask's positions hands none of their
    storage out: a dense vector updated in place afterwards (a BFS/SSSP
    level update) still owns its arrays, and a copy taken before keeps its
    content."""
    n = 200
    dist = gb.Vector.from_dense(np.arange(n, dtype=float), device="cpu")
    dist.assign(gb.Vector.from_coo([3], 1.0, size=n, device="cpu"),
                mask=gb.Vector.from_coo([3], True, size=n, device="cpu").S)
    snap = dist.dup()
    t = gb.Vector.from_coo([3, 7, 150], [0.5, 99.0, 1.0], size=n, device="cpu")
    better = t.ewise_union(dist, gb.binary.lt, np.inf, np.inf, mask=t.S)
    assert better.to_coo()[0].tolist() == [3, 7, 150]
    assert better.to_coo()[1].tolist() == [True, False, True]
    f = t.apply(gb.unary.identity, mask=better.V)
    dist.assign(f, mask=f.S)
    assert dist[3] == 0.5 and dist[150] == 1.0 and dist[7] == 7.0
    assert snap[3] == 1.0 and snap[150] == 150.0


@pytest.mark.parametrize("fa,fb", [("dense", "dense"), ("sparse", "dense"),
                                   ("dense", "sparse"), ("sparse", "sparse")])
def test_path_not_taken(fa, fb):
    """Complemented, value or large masks and user operators take the ordinary path."""
    n = 64
    a_r = R.Ref(np.arange(n), np.ones(n, dtype=bool))
    a = R.to_lib(a_r, fa if fa == "dense" else "sparse", "cpu")
    b = R.to_lib(a_r, fb if fb == "dense" else "sparse", "cpu")
    small = gb.Vector.from_coo([1, 5], True, size=n, device="cpu")
    big = gb.Vector.from_coo(np.arange(0, n, 2), True, size=n, device="cpu")
    lt = gb.binary.lt
    assert E._mask_first(a, b, lt, small.S) is not None
    assert E._mask_first(a, b, lt, ~small.S) is None
    assert E._mask_first(a, b, lt, small.V) is None
    assert E._mask_first(a, b, lt, big.S) is None
    assert E._mask_first(a, b, gb.binary.firsti, small.S) is None
    assert E._mask_first(a, b, lt, None) is None
    if fa == fb == "sparse":            # two small sparse operands: a merge of their keys
        c = gb.Vector.from_coo([1, 5, 9], 1, size=n, device="cpu")
        assert E._mask_first(c, c, lt, small.S) is None
