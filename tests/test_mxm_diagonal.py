"""``mxm`` with a diagonal operand as a scaling (operations/mxm.py
``_diagonal_product``; the backend's ``diagonal_mxm``, on by default on the
GPU and forced on here for the CPU): ``diag(d) B`` scales B's rows, ``A
diag(d)`` A's columns, with holes on the diagonal dropping rows / columns.
Against the dense reference model (every monoid and non-positional
multiply, the test types, masks, accumulators, replace) and the general
SpGEMM on the same operands; the path must be taken exactly where an
operand is square, sparse and diagonal; triangle counting (whose degree
order multiplies by diag(key)) equals networkx on the graph families."""
import networkx as nx
import numpy as np
import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

import graphblast_py as gb
from graphblast_py.algorithms import triangle_count

from . import reference as R
from .test_semantics import MONOIDS, MULTS, refs

_model = R.defined_or_reject
DTYPES = [np.dtype(t) for t in ("bool", "int8", "int64", "uint16", "float64")]
PLAIN_MULTS = [m for m in MULTS if not m.endswith(("i", "j"))]


@pytest.fixture
def diag_on(monkeypatch):
    """The CPU backend takes the diagonal path too (the GPU's default)."""
    monkeypatch.setattr(type(gb.backend.get("cpu")), "diagonal_mxm", True)


def _diag_ref(n, dtype, draw):
    """A diagonal n x n Ref: values on the diagonal, some of them absent."""
    r = draw(refs((n, n), dtype))
    pres = np.zeros((n, n), dtype=bool)
    on = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
    pres[np.arange(n), np.arange(n)] = on
    return R.Ref(np.where(pres, r.vals, np.zeros_like(r.vals)), pres)


def _took():
    return gb.stats()["counts"].get("mxm:diagonal", 0)


@pytest.mark.parametrize("dev", ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_diagonal_product_against_the_model(diag_on, dev, data):
    d = data.draw
    n, m = d(st.integers(1, 9)), d(st.integers(1, 9))
    left = d(st.booleans())
    D_r = _diag_ref(n, d(st.sampled_from(DTYPES)), d)
    O_r = d(refs((n, m) if left else (m, n), d(st.sampled_from(DTYPES))))
    add, mult = d(st.sampled_from(MONOIDS)), d(st.sampled_from(PLAIN_MULTS))
    sr = gb.semiring[f"{add}_{mult}"]
    A_r, B_r = (D_r, O_r) if left else (O_r, D_r)
    note(f"{sr} left={left} D {D_r.dtype} {D_r.nvals}/{n}, other {O_r.dtype} {O_r.nvals}")
    A, B = R.to_lib(A_r, "sparse", dev), R.to_lib(B_r, "sparse", dev)
    T = _model(R.mxm, A_r, B_r, add, mult)
    shape = T.shape
    kw, mask_arr, accum, replace, out_r = {}, None, None, False, None
    if d(st.booleans()):                                  # a mask, maybe complemented
        M_r = d(refs(shape, np.dtype(bool)))
        structure, complement = d(st.booleans()), d(st.booleans())
        M = R.to_lib(M_r, "sparse", dev)
        mk = M.S if structure else M.V
        kw["mask"] = ~mk if complement else mk
        mask_arr = R.mask_array(M_r, structure, complement)
        replace = d(st.booleans())
        kw["replace"] = replace
    if d(st.booleans()):                                  # into an existing output
        out_r = d(refs(shape, np.dtype(T.dtype)))
        if d(st.booleans()):
            accum = "plus" if T.dtype != np.dtype(bool) else "lor"
            kw["accum"] = accum
    want = _model(R.write, out_r, T, mask_arr, accum, replace)
    gb.stats.reset()
    with np.errstate(all="ignore"):
        out = R.to_lib(out_r, "sparse", dev) if out_r is not None else None
        got = A.mxm(B, sr, out=out, **kw)
    assert _took() == 1, "the diagonal path was not taken"
    msg = R.equal(R.from_lib(got), want)
    assert not msg, msg


@pytest.mark.parametrize("dev", ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def test_diagonal_product_equals_the_spgemm(diag_on, dev):
    """On a power-law graph: diag(key) A (any_first) and A diag(key) (any_minus),
    a diagonal with holes (isolated vertices), equal entry by entry to the
    general SpGEMM (method="saxpy")."""
    A = gb.generators.kronecker(9, seed=3, dtype=np.int64, device=dev)
    n = A.nrows
    rng = np.random.default_rng(1)
    idx = np.flatnonzero(rng.random(n) < 0.8)
    K = gb.Matrix.from_coo(idx, idx, rng.integers(-50, 50, idx.size), n, n, device=dev)
    any_minus = gb.Semiring(gb.monoid.any, gb.binary.minus)
    for a, b, sr in ((K, A, gb.semiring.any_first), (A, K, any_minus),
                     (K, A, gb.semiring.plus_times), (A, K, gb.semiring.min_plus)):
        gb.stats.reset()
        fast = a.mxm(b, sr)
        assert _took() == 1
        slow = a.mxm(b, sr, method="saxpy")
        msg = R.equal(R.from_lib(fast), R.from_lib(slow))
        assert not msg, (sr, msg)


@pytest.mark.parametrize("dev", ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def test_diagonal_path_not_taken(diag_on, dev):
    """Off-diagonal entries, rectangular or dense-form operands, positional
    multiplies and an explicit method take the general path (same results)."""
    rng = np.random.default_rng(2)
    n = 12
    B = gb.Matrix.from_coo(rng.integers(0, n, 40), rng.integers(0, n, 40), 1.5, n, n,
                           dup_op=gb.binary.plus, device=dev)
    near = gb.Matrix.from_coo([0, 1, 2, 3], [0, 1, 2, 4], 2.0, n, n, device=dev)  # one off
    rect = gb.Matrix.from_coo([0, 1], [0, 1], 2.0, n, n + 1, device=dev)
    diag = gb.Matrix.from_coo(np.arange(n), np.arange(n), 3.0, n, n, device=dev)
    dense = diag.dup()
    dense.to_dense_form()
    for a, b, sr, kw in ((near, B, "plus_times", {}), (rect.T, B, "plus_times", {}),
                         (dense, B, "plus_times", {}), (diag, B, "any_secondi", {}),
                         (diag, B, "plus_times", {"method": "saxpy"})):
        gb.stats.reset()
        a.mxm(b, sr, **kw)
        assert _took() == 0, (sr, kw)
    gb.stats.reset()
    diag.mxm(B, "plus_times")
    assert _took() == 1


def test_cpu_default_takes_the_spgemm():
    """The CPU backend's default: the numba SpGEMM, not the scaling."""
    diag = gb.Matrix.from_coo(np.arange(5), np.arange(5), 2, 5, 5, device="cpu")
    gb.stats.reset()
    diag.mxm(diag, "plus_times")
    assert _took() == 0


@pytest.mark.parametrize("dev", ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def test_triangle_count_through_the_diagonal_path(diag_on, dev):
    """Triangle counts equal networkx's on the families that break things
    (isolated vertices, disconnected parts, a grid, a power-law graph, the
    empty and one-vertex graphs): the degree order's diag(key) products take
    the diagonal path."""
    from .reference import undirected_families
    for name, S in undirected_families():
        G = nx.from_scipy_sparse_array(S)
        want = sum(nx.triangles(G).values()) // 3
        gb.stats.reset()
        got = triangle_count(gb.Matrix.from_scipy(S, device=dev))
        assert got == want, name
        if S.nnz:
            assert _took() >= 1, name
