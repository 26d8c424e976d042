"""The host-side short paths of the calls an SSSP round makes
(``t = f min.+ A``; ``better = t < dist <t.S>``; ``f = t <better.V>``;
``dist<f.S> = f``), each against the dense reference model of
tests/reference.py and, where the general path can be forced, against it:

* ewise with the mask ``x.S`` of one of its operands (``_gather_at``: the
  operand's own values, no search; all keys kept: the mask's index array
  shared);
* the output rule testing a mask at the mask vector's own index array
  (``output._allowed``), an ``apply`` whose mask vector shares the input's
  keys;
* ``w<F.S> = F`` with a sparse F into a dense w (``Vector._update_dense``)
  and into a sparse w (``assign._overwrite_sorted``), with a dense F into a
  dense w (``Vector._update_from``, the backend's ``copy_where``: BFS's
  parents after a pull level);
* ``dtypes.cast_scalar``'s direct cases, the CPU push's sort and its cached
  iso operand;
* SSSP and connected components on disconnected graphs, isolated vertices,
  empty and one-vertex graphs against SciPy.
"""
import math

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
from hypothesis import given, note, reject, settings
from hypothesis import strategies as st

import graphblast_py as gb
from graphblast_py import dtypes
from graphblast_py.operations import assign as AS
from graphblast_py.operations import ewise as E

from . import reference as R
from .conftest import host

OPS = ["lt", "plus", "minus", "div", "min", "max", "first", "second", "eq"]
DTYPES = ["int8", "int32", "float64", "bool"]


_ref = R.defined_or_reject


DEVICES = ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)]


def vectors(n, dtype, form, few=False, dev="cpu"):
    """(Ref, Vector) of size n (``few``: at most n/16 - 1 entries, a sparse
    mask-sized vector), a float64 one possibly with a NaN or an infinity."""
    kinds = ["few"] if few else (["random", "full", "empty"] if form == "sparse" else None)
    return R.vectors(n, dtype, form, dev, kinds=kinds, few_max=n // 16 - 1, nan=True)


@pytest.mark.parametrize("dev", DEVICES)
@settings(max_examples=250, deadline=None)
@given(data=st.data())
def test_ewise_with_an_operands_own_mask(dev, data):
    """mask = a.S or b.S where that operand is sparse and small: the
    operand's values are read without a search; the result matches the
    model and the path switched off."""
    d = data.draw
    n = d(st.integers(48, 96))
    ta, tb = d(st.sampled_from(DTYPES)), d(st.sampled_from(DTYPES))
    a_r, a = d(vectors(n, ta, "sparse", few=True, dev=dev))
    fb = d(st.sampled_from(["dense", "sparse"]))
    b_r, b = d(vectors(n, tb, fb, dev=dev))
    swap = d(st.booleans())             # the mask is the second operand's
    if swap:
        a_r, a, b_r, b = b_r, b, a_r, a
    m_r, m = (b_r, b) if swap else (a_r, a)
    mask = m.S
    op = d(st.sampled_from(OPS))
    which = d(st.sampled_from(["add", "mult", "union"]))
    accum = d(st.sampled_from([None, "plus", "min"]))
    replace = d(st.booleans())
    with_out = d(st.booleans())
    ld, rd = d(st.sampled_from([-2, 0, 3, math.inf])), d(st.sampled_from([-1, 2, math.inf]))
    if which == "union" and (math.isinf(ld) and a.dtype.kind != "f"
                             or math.isinf(rd) and b.dtype.kind != "f"):
        reject()                        # inf has no integer value (an error either way)
    note(f"ewise_{which} {op} mask={'b' if swap else 'a'}.S accum={accum} replace={replace}")
    T = _ref(R.ewise, which, a_r, b_r, op, ld, rd)
    c_r, c = d(vectors(n, "float64", d(st.sampled_from(["dense", "sparse"])), dev=dev)) \
        if with_out else (None, None)
    if accum is not None and c_r is None:
        accum = None
    want = _ref(R.write, c_r, T, mask=R.mask_array(m_r, True, False), accum=accum,
                replace=replace)
    if E._mask_first(a, b, gb.binary[op], mask) is None:
        reject()                        # (the other operand is sparse and small too)

    def kw():
        k = dict(mask=mask, replace=replace, accum=None if accum is None else gb.binary[accum])
        if c is not None:
            k["out"] = c.dup()
        return k

    before = [x.to_coo() for x in (a, b)]
    got, plain = R.ewise_both_ways(dev, which, a, b, op, ld, rd, kw)
    assert not R.equal(R.from_lib(got), want), R.equal(R.from_lib(got), want)
    assert not R.equal(R.from_lib(plain), want)
    # the operands are unchanged (the result may share the mask's keys)
    for x, (k, v) in zip((a, b), before):
        k2, v2 = x.to_coo()
        k, v, k2, v2 = (host(y) for y in (k, v, k2, v2))
        assert np.array_equal(k, k2) and np.array_equal(v, v2, equal_nan=v.dtype.kind == "f")


def test_ewise_shared_keys_stay_separate():
    """A result that shares the mask's index array never changes the mask's
    vector when it is written later (and its values are its own, also for
    first/second, which return an operand's values)."""
    n = 160
    t = gb.Vector.from_coo([3, 9, 40], [1.0, 2.0, 3.0], size=n, device="cpu")
    dist = gb.Vector.from_dense(np.arange(n, dtype=float), device="cpu")
    for op in (gb.binary.first, gb.binary.plus, gb.binary.lt):
        r = t.ewise_union(dist, op, math.inf, math.inf, mask=t.S)
        assert r._i is t._i                     # the path shares the keys
        assert r._v is not t._v
        r[3] = 100                              # an element update of the result
        r.assign(7, mask=r.S)
        assert t.to_coo()[0].tolist() == [3, 9, 40]
        assert t.to_coo()[1].tolist() == [1.0, 2.0, 3.0]


@pytest.mark.parametrize("dev", DEVICES)
@settings(max_examples=250, deadline=None)
@given(data=st.data())
def test_apply_with_a_mask_at_the_same_keys(dev, data):
    """``x.apply(op, mask=m.V)`` where m's index array is x's (m computed
    from x): the output rule reads the mask at its own entries."""
    d = data.draw
    n = d(st.integers(20, 60))
    tx = d(st.sampled_from(DTYPES))
    x_r, x = d(vectors(n, tx, "sparse", few=d(st.booleans()), dev=dev))
    mop = d(st.sampled_from(["identity", "lnot", "abs"]))
    if mop == "abs" and x.dtype == np.dtype(bool):
        reject()
    m = x.apply(gb.unary[mop])
    assert m._i is x._i or dev != "cpu"       # (the GPU may copy: then the general path)
    m_r = R.from_lib(m)
    structure, complement = d(st.booleans()), d(st.booleans())
    mask = m.S if structure else m.V
    if complement:
        mask = ~mask
    accum = d(st.sampled_from([None, "plus"]))
    replace = d(st.booleans())
    with_out = d(st.booleans())
    c_r, c = d(vectors(n, "int32", d(st.sampled_from(["dense", "sparse"])), dev=dev)) \
        if with_out else (None, None)
    if accum is not None and c_r is None:
        accum = None
    T = _ref(R.apply_unary, x_r, "identity")
    want = _ref(R.write, c_r, T, mask=R.mask_array(m_r, structure, complement), accum=accum,
                replace=replace)
    kw = dict(mask=mask, replace=replace, accum=None if accum is None else gb.binary[accum])
    if c is not None:
        kw["out"] = c.dup()
    got = x.apply(gb.unary.identity, **kw)
    assert not R.equal(R.from_lib(got), want), R.equal(R.from_lib(got), want)


@pytest.mark.parametrize("dev", DEVICES)
@settings(max_examples=250, deadline=None)
@given(data=st.data())
def test_assign_a_vector_under_its_own_structure(dev, data):
    """``w<F.S> = F``: a sparse F into a dense w, a sparse w (small or
    empty), a dense F into a dense w (and, on the GPU, into any w) and,
    through the general path, the other forms."""
    d = data.draw
    n = d(st.integers(20, 80))
    tw, tf = d(st.sampled_from(DTYPES)), d(st.sampled_from(DTYPES))
    fw = d(st.sampled_from(["dense", "sparse"]))
    w_r, w = d(vectors(n, tw, fw, few=fw == "sparse" and d(st.booleans()), dev=dev))
    ff = d(st.sampled_from(["dense", "sparse"]))
    f_r, f = d(vectors(n, tf, ff, few=ff == "sparse" and d(st.booleans()), dev=dev))
    want = _ref(R.assign, w_r, f_r, (None,), mask=R.mask_array(f_r, True, False))
    note(f"w {w.form} {w.nvals}, F {f.form} {f.nvals}")
    got = w.dup()
    got.assign(f, mask=f.S)
    assert not R.equal(R.from_lib(got), want), R.equal(R.from_lib(got), want)
    assert R.from_lib(f).present.tolist() == f_r.present.tolist()   # F unchanged
    # a second assign into the same w (its own arrays, written in place)
    f2 = f.apply(gb.unary.identity)
    want2 = _ref(R.assign, want, R.from_lib(f2), (None,),
                 mask=R.mask_array(R.from_lib(f2), True, False))
    got.assign(f2, mask=f2.S)
    assert not R.equal(R.from_lib(got), want2)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("tw,tf", [("int64", "int64"), ("float32", "int64"), ("bool", "int8"),
                                   ("uint8", "float64")])
def test_dense_frontier_into_its_parents(dev, monkeypatch, tw, tf):
    """``w<F.S> = F`` with F stored dense with holes (a pull level's
    frontier) into a dense w: one ``copy_where`` pass (Vector._update_from),
    taken, in place on the second call, and equal to the reference model;
    F's arrays are left as they were."""
    calls = []
    real = gb.Vector._update_from
    monkeypatch.setattr(gb.Vector, "_update_from",
                        lambda self, *a: (calls.append(1), real(self, *a))[1])
    n = 300
    rng = np.random.default_rng(5)
    w_pres = rng.random(n) < 0.4
    w_r = R.Ref(np.where(w_pres, rng.integers(0, 100, n), 0).astype(tw), w_pres)
    w = R.to_lib(w_r, "dense", dev)
    for k in range(2):
        f_pres = rng.random(n) < 0.3
        f_r = R.Ref(np.where(f_pres, rng.integers(0, 100, n), 0).astype(tf), f_pres)
        f = R.to_lib(f_r, "dense", dev)
        assert w.form == "dense" and f.form == "dense"
        w_r = _ref(R.assign, w_r, f_r, (None,), mask=R.mask_array(f_r, True, False))
        w.assign(f, mask=f.S)
        assert len(calls) == k + 1, "the dense path was not taken"
        msg = R.equal(R.from_lib(w), w_r)
        assert not msg, msg
        assert not R.equal(R.from_lib(f), f_r)                # F unchanged


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_overwrite_sorted(data):
    n = data.draw(st.integers(0, 60))
    kc = np.array(sorted(set(data.draw(st.lists(st.integers(0, n + 5), max_size=n)))),
                  dtype=np.int64)
    kf = np.array(sorted(set(data.draw(st.lists(st.integers(0, n + 5), max_size=n)))),
                  dtype=np.int64)
    vc = np.arange(kc.shape[0], dtype=np.float64)
    vf = -1.0 - np.arange(kf.shape[0], dtype=np.float64)
    keys, vals = AS._overwrite_sorted(gb.backend.get("cpu"), kc, vc, kf, vf)
    ref = dict(zip(kc.tolist(), vc.tolist()))
    ref.update(zip(kf.tolist(), vf.tolist()))
    assert keys.tolist() == sorted(ref)
    assert vals.tolist() == [ref[k] for k in sorted(ref)]


@pytest.mark.parametrize("x", [1.5, -0.0, math.inf, -math.inf, math.nan, True, False, 0, -7,
                               2**63 - 1, -2**63, 2**63, 2**70, 3.7])
@pytest.mark.parametrize("dt", ["float64", "float32", "int64", "int8", "uint8", "bool"])
def test_cast_scalar_direct_cases(x, dt):
    """The direct cases (float into float64, int into int64, bool into bool)
    give what the array cast gives, type and value."""
    dt = dtypes.lookup(dt)
    if isinstance(x, float) and not math.isfinite(x) and dt.kind != "f":
        return          # undefined in C; not a direct case anyway
    try:
        with np.errstate(all="ignore"):
            want = np.asarray(x).astype(dt, casting="unsafe")[()]   # the general cast
    except (OverflowError, TypeError, ValueError) as e:
        with pytest.raises(type(e)):
            dtypes.cast_scalar(x, dt)
        return
    got = dtypes.cast_scalar(x, dt)
    assert type(got) is type(want)
    assert got.dtype == want.dtype
    assert np.array_equal(np.asarray(got), np.asarray(want), equal_nan=dt.kind == "f")
    if dt.kind == "f" and got == 0:
        assert np.signbit(got) == np.signbit(want)


@pytest.mark.parametrize("k", [3, 40, 90])
def test_push_results_sorted_and_equal_to_pull(k):
    """The CPU push's touched outputs sorted (stable sort below
    PUSH_STABLE_SORT, the default above) equal pull's result; an iso
    matrix's cached operand gives the same products as a stored one."""
    from graphblast_py.backend.cpu import backend as B
    A = gb.generators.grid2d(k, k).dup(dtypes.FP64)
    n = A.nrows
    rng = np.random.default_rng(k)
    Avals = gb.Matrix.from_coo(*A.to_coo()[:2], rng.integers(1, 4, A.nvals).astype(float),
                               n, n, device="cpu")
    for M in (A, Avals):
        for frac in (0.01, 0.2, 1.0):
            idx = np.sort(rng.choice(n, max(1, int(frac * n)), replace=False))
            u = gb.Vector.from_coo(idx, rng.random(idx.shape[0]), size=n, device="cpu")
            saved = B.PUSH_STABLE_SORT
            try:
                for cut in (0, 1 << 30):
                    B.PUSH_STABLE_SORT = cut
                    push = u.vxm(M, gb.semiring.min_plus, direction="push")
                    pull = u.vxm(M, gb.semiring.min_plus, direction="pull")
                    assert push.isequal(pull)
                    ki = push.to_coo()[0]
                    assert (np.diff(ki) > 0).all()
            finally:
                B.PUSH_STABLE_SORT = saved


_GRAPHS = R.undirected_families()


@pytest.mark.parametrize("name,S", _GRAPHS, ids=[g[0] for g in _GRAPHS])
def test_sssp_and_cc_against_scipy(name, S):
    n = S.shape[0]
    S = sp.csr_matrix(S, dtype=np.float64)
    S.data[:] = 1.0
    A = gb.Matrix.from_scipy(S, device="cpu") if n else gb.Matrix(dtypes.FP64, 0, 0,
                                                                   device="cpu")
    if n:
        for src in {0, n - 1, n // 2}:
            d = gb.algorithms.sssp(A, src)
            ref = csgraph.dijkstra(S, directed=True, indices=src)
            got = d.to_dense(fill=math.inf)
            assert np.array_equal(got, ref), (name, src)
    labels = gb.algorithms.connected_components(A).to_dense()
    if n:
        # label = smallest vertex of the component
        assert labels.tolist() == R.smallest_labels(S)
    else:
        assert labels.shape == (0,)


@settings(max_examples=250, deadline=None)
@given(data=st.data())
def test_minmax_where_paths(data):
    """``mxv(..., accum=min/max, out=full)`` and ``ewise_add(min/max)`` with
    one full operand (connected components' calls): the one-pass kernel
    (``minmax_into``: integers of one type) and NumPy's passes (other types) against
    the model, serial and parallel lengths."""
    from graphblast_py.backend.cpu import rowops
    d = data.draw
    n = d(st.sampled_from([30, 70]))
    big = d(st.booleans())
    saved = rowops.DENSE_PARALLEL
    rowops.DENSE_PARALLEL = 1 if big else saved    # the parallel kernel on short vectors
    try:
        dt = d(st.sampled_from(["int8", "int32", "int64", "float64", "uint8"]))
        op = d(st.sampled_from(["min", "max"]))
        full_r, full = d(vectors(n, dt, "dense"))
        full_r.present[:] = True
        full = R.to_lib(full_r, "dense", "cpu")
        o_r, o = d(vectors(n, dt, d(st.sampled_from(["dense", "sparse"]))))
        first_full = d(st.booleans())
        x_r, x, y_r, y = (full_r, full, o_r, o) if first_full else (o_r, o, full_r, full)
        want = _ref(R.ewise_add, x_r, y_r, op)
        got = x.ewise_add(y, gb.binary[op])
        assert not R.equal(R.from_lib(got), want), R.equal(R.from_lib(got), want)
        # out = full; out max= A (min, second) u, u with holes: T with presence
        A_r = R.Ref(np.zeros((n, n), dtype=dt), np.zeros((n, n), dtype=bool))
        rows = d(st.lists(st.integers(0, n - 1), max_size=2 * n))
        cols = d(st.lists(st.integers(0, n - 1), min_size=len(rows), max_size=len(rows)))
        A_r.present[rows, cols] = True
        A_r.vals[A_r.present] = 1
        A = R.to_lib(A_r, "sparse", "cpu")
        T = _ref(R.mxv, A_r, o_r, op, "second")
        want = _ref(R.write, full_r, T, accum=op)
        out = full.dup()
        A.mxv(o, gb.semiring[f"{op}_second"], accum=gb.binary[op], out=out)
        assert not R.equal(R.from_lib(out), want), R.equal(R.from_lib(out), want)
    finally:
        rowops.DENSE_PARALLEL = saved


@pytest.mark.parametrize("idx,value,size,dtype", [
    ([3], 7, 10, "int64"), ((0,), True, 1, None), ([9], 2.5, 10, "int32"),
    ([2], -1, 5, "uint8"), ([1], True, 4, "float32"), ([4], 3, 5, None), ([0], 1.5, 3, None),
    ([6], 2 ** 70, 8, "float64")])
def test_from_coo_one_entry(device, idx, value, size, dtype):
    """One host index and value (a traversal's source) take a short path:
    the same Vector as the general path builds from the same entry given as
    arrays (NumPy's C casting of the value, the inferred type)."""
    v = gb.Vector.from_coo(idx, value, size=size, dtype=dtype, device=device)
    ref = gb.Vector.from_coo(np.array(idx), value, size=size, dtype=dtype,
                             device=device)            # an index array: the general path
    assert v.dtype == ref.dtype and v.size == size and v.nvals == 1
    assert v.isequal(ref)
    i, x = (host(a) for a in v.to_coo())
    assert list(i) == [idx[0]]
    with np.errstate(all="ignore"):
        want = np.asarray(value).astype(v.dtype, casting="unsafe")
    assert x[0] == want


@pytest.mark.parametrize("args,err", [
    (([10], 1, 10), gb.IndexOutOfBound), (([-1], 1, 10), gb.IndexOutOfBound),
    (([True], 1, 10), gb.InvalidIndex), (([1.0], 1, 10), gb.InvalidIndex),
    (([1], "x", 10), gb.DomainMismatch), (([1], 1, -3), gb.InvalidValue)])
def test_from_coo_one_entry_errors(device, args, err):
    """Bad single entries fall to the general path and raise its errors."""
    idx, value, size = args
    with pytest.raises(err):
        gb.Vector.from_coo(idx, value, size=size, device=device)
