"""``mxm`` of an A stored dense and a sparse B without a mask: a dense result
computed from A's dense rows (operations/mxm.py, the backend's
``dense_sparse_mm``; FGLT's net transform).  Against the dense reference
model and the saxpy path on the same operands, over every monoid and
multiply (positional ones included), the test types, A with and without
holes, B with empty rows and columns; on the CPU the path must be taken."""
import numpy as np
import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

import graphblast_py as gb

from . import reference as R
from .test_semantics import MONOIDS, MULTS, refs

_model = R.defined_or_reject
# (a few types: each combination compiles the kernel once)
DTYPES = [np.dtype(t) for t in ("bool", "int8", "int64", "float64")]


@pytest.mark.parametrize("dev", ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_dense_times_sparse(dev, data):
    d = data.draw
    m, k = d(st.integers(1, 12)), d(st.integers(1, 8))
    n = d(st.integers(1, 10))
    A_r = d(refs((m, k), d(st.sampled_from(DTYPES))))
    if d(st.booleans()):
        A_r = R.Ref(A_r.vals, np.ones((m, k), dtype=bool))         # every entry present
    elif A_r.nvals * 16 < m * k:
        A_r.present[0, :] = True                                   # enough to stay dense
    B_r = d(refs((k, n), d(st.sampled_from(DTYPES))))
    if B_r.nvals * 4 < n:
        B_r.present[0, :] = True            # (the path wants about as many entries as columns)
    add, mult = d(st.sampled_from(MONOIDS)), d(st.sampled_from(MULTS))
    sr = gb.semiring[f"{add}_{mult}"]
    note(f"{sr} A {A_r.dtype} {A_r.nvals}/{m * k}, B {B_r.dtype} {B_r.nvals}")
    A = R.to_lib(A_r, "dense", dev)
    B = R.to_lib(B_r, "sparse", dev)
    assert A.form == "dense" and B.form == "sparse"
    T = _model(R.mxm, A_r, B_r, add, mult)
    gb.stats.reset()
    with np.errstate(all="ignore"):
        got = A.mxm(B, sr)
    took = gb.stats()["counts"].get("mxm:dense", 0)
    want = _model(R.write, None, T)
    msg = R.equal(R.from_lib(got), want)
    if add == "any" or mult == "any":           # any: one of the terms, not a fixed one
        msg = R.equal(R.Ref(np.zeros_like(want.vals), R.from_lib(got).present),
                      R.Ref(np.zeros_like(want.vals), want.present))
    assert not msg, msg
    As = R.to_lib(A_r, "sparse", dev)
    with np.errstate(all="ignore"):
        plain = As.mxm(B, sr, method="saxpy")
    if not (add == "any" or mult == "any"):
        msg = R.equal(R.from_lib(got), R.from_lib(plain))          # (NaN equals NaN here)
        assert not msg, msg
    if dev == "cpu" and gb.backend.get("cpu")._kernel_ok(sr, np.dtype(T.dtype)) \
            and np.dtype(T.dtype).kind != "u":
        assert took == 1
    if (dev == "gpu" and add == "plus" and mult == "times" and A_r.present.all()
            and np.dtype(T.dtype).kind == "i" and A_r.dtype == B_r.dtype == np.dtype(T.dtype)):
        assert took == 1                    # the GPU's matmul path (integer plus_times)


def test_fglt_net_transform_takes_the_dense_path(device):
    """FGLT's net transform (an n x 16 dense block times the 16 x 16
    transform) goes through the dense path on both devices, with the gold
    frequencies unchanged (tests/test_alg_fglt.py checks the values)."""
    A = gb.generators.grid2d(5, 6, device=device)
    gb.stats.reset()
    F = gb.algorithms.fglt(A)
    assert gb.stats()["counts"].get("mxm:dense", 0) == 1
    raw = gb.algorithms.fglt(A, net=False)
    assert F.shape == raw.shape == (30, 16) and F.nvals == 30 * 16
