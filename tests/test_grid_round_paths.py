"""The CPU short paths of the calls SSSP rounds and connected-components
(FastSV) iterations make on grids (issue 15 item 4), each against
references written here from the definitions (the dense model of
tests/reference.py, NumPy, SciPy's csgraph, networkx) and against the
general path (the backend hook switched off: what a backend without it,
the GPU's, runs):

* ``ewise_add(min/max)`` of two dense operands, one full, written into a
  full ``out`` that owns its array (``out`` = an operand: in place) or into
  a new array (``backend.minmax_into``); vectors that shared the old array
  keep their content;
* ``extract`` by an index Vector with the gather and the range check in one
  call (``backend.take_checked``), the error of a bad index unchanged;
* ``backend.minmax`` (one pass) against NumPy;
* ``rowops.pull_accum``'s serial and parallel row folds;
* ``ewise_union`` of a comparison at ``x.S`` with a dense operand
  (``backend.compare_at``), ``apply`` under a value mask stored at the
  input's keys (``backend.compress_truthy``), the push's one-call sort of
  its touched outputs (``PUSH_SORT_KERNEL``), ``w<F.S> = F`` turning a
  sparse w dense after enough merges (``assign.MERGE_DENSE_SHARE``);
* SSSP and connected components on graph families that break things
  (empty, one vertex, isolated vertices, grids, disconnected grids,
  power-law, random, a path) against SciPy and networkx, with the hooks on,
  off, and with the parallel kernels forced on small inputs.
"""
import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, note, settings
from hypothesis import strategies as st

import graphblast_py as gb
from graphblast_py import dtypes
from graphblast_py.backend.generic import ArrayBackend
from graphblast_py.errors import IndexOutOfBound

from . import reference as R

_ref = R.defined_or_reject
CPU = gb.backend.get("cpu")

# the CPU hooks of this file; switched off = the generic ArrayBackend's
# method (None: "no such pass here"), as on a backend without them
HOOKS = ("minmax_into", "take_checked", "minmax", "compare_at", "compress_truthy")


class _Switch:
    """Context: the CPU backend's hooks ``names`` replaced by the generic
    ones (``off``), and/or rowops' parallel threshold lowered to 1 so the
    parallel kernels run on short vectors (``parallel``)."""

    def __init__(self, off=(), parallel=False):
        self.off, self.parallel = off, parallel

    def __enter__(self):
        from graphblast_py.backend.cpu import rowops
        self.saved = rowops.DENSE_PARALLEL
        if self.parallel:
            rowops.DENSE_PARALLEL = 1
        for name in self.off:
            setattr(CPU, name, getattr(ArrayBackend, name).__get__(CPU))
        return self

    def __exit__(self, *exc):
        from graphblast_py.backend.cpu import rowops
        rowops.DENSE_PARALLEL = self.saved
        for name in self.off:
            CPU.__dict__.pop(name, None)


def _mode():
    return st.sampled_from(["on", "off", "parallel"])


def _switch(mode):
    return _Switch(off=HOOKS if mode == "off" else (), parallel=mode == "parallel")


def vectors(n, dtype, form, kinds=None):
    return R.vectors(n, dtype, form, "cpu", kinds=kinds)


# ---------------------------------------------------------------- ewise_add min/max into out
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_ewise_minmax_into_out(data):
    d = data.draw
    n = d(st.sampled_from([30, 70]))
    mode = d(_mode())
    ta = d(st.sampled_from(["int8", "int32", "int64", "uint8", "float64"]))
    tb = ta if d(st.booleans()) else d(st.sampled_from(["int64", "int32", "float64"]))
    op = d(st.sampled_from(["min", "max"]))
    full_r, _ = d(vectors(n, ta, "dense", kinds=["full"]))
    o_r, _ = d(vectors(n, tb, d(st.sampled_from(["dense", "sparse"]))))
    first_full = d(st.booleans())
    where = d(st.sampled_from(["a", "b", "other", "none"]))
    note(f"{op} {ta}/{tb} first_full={first_full} out={where} mode={mode}")
    with _switch(mode):
        full = R.to_lib(full_r, "dense", "cpu")
        o = R.to_lib(o_r, "dense" if o_r.nvals >= n // 8 and d(st.booleans()) else "sparse",
                     "cpu")
        x_r, x, y_r, y = (full_r, full, o_r, o) if first_full else (o_r, o, full_r, full)
        keep_x, keep_y = x.dup(), y.dup()       # share the arrays until someone writes
        T = _ref(R.ewise_add, x_r, y_r, op)
        if where == "none":
            got = x.ewise_add(y, gb.binary[op])
            want = T
        else:
            if where == "other":
                c_r, c = d(vectors(n, T.dtype, "dense", kinds=["full"]))
                c = R.to_lib(c_r, "dense", "cpu")
                c.ewise_add(c, gb.binary.min, out=c)    # now c owns its array
                keep_c = c.dup()
            else:
                c_r, c = (x_r, x) if where == "a" else (y_r, y)
            want = _ref(R.write, c_r, T)
            got = x.ewise_add(y, gb.binary[op], out=c)
            assert got is c
            if where == "other":
                assert not R.equal(R.from_lib(keep_c), c_r)
        assert not R.equal(R.from_lib(got), want), R.equal(R.from_lib(got), want)
        # the dups taken before still hold the operands' old content
        assert not R.equal(R.from_lib(keep_x), x_r)
        assert not R.equal(R.from_lib(keep_y), y_r)
        # a second call into the same out (which owns its array by now)
        if where in ("a", "b"):
            x2, y2, c2 = R.from_lib(x), R.from_lib(y), R.from_lib(c)
            again = x.ewise_add(y, gb.binary[op], out=c)
            want2 = _ref(R.write, c2, _ref(R.ewise_add, x2, y2, op))
            assert not R.equal(R.from_lib(again), want2)
            assert not R.equal(R.from_lib(keep_x), x_r)
            assert not R.equal(R.from_lib(keep_y), y_r)


def test_ewise_minmax_writes_in_place_once_owned():
    """The second min into the same full int64 vector reuses its array (the
    point of the path) and a dup taken in between is not disturbed."""
    n = 1000
    rng = np.random.default_rng(5)
    a = rng.integers(-50, 50, n)
    b = rng.integers(-50, 50, n)
    f = gb.Vector.from_dense(a, device="cpu")
    g = gb.Vector.from_dense(b, device="cpu")
    f.ewise_add(g, gb.binary.min, out=f)
    arr = f._full_values()[0]
    assert f._full_values()[1]                  # f owns its new array
    snap = f.dup()
    f.ewise_add(g, gb.binary.max, out=f)        # snap shares the array: a copy is made
    arr2 = f._full_values()[0]
    f.ewise_add(g, gb.binary.min, out=f)        # now owned: in place
    assert f._full_values()[0] is arr2
    assert arr2 is not arr
    assert np.array_equal(f.to_dense(), np.minimum(np.maximum(np.minimum(a, b), b), b))
    assert np.array_equal(snap.to_dense(), np.minimum(a, b))
    assert np.array_equal(g.to_dense(), b)
    # (to_dense hands the array out: the next min writes a new one)
    f.ewise_add(g, gb.binary.max, out=f)
    assert f._full_values()[0] is not arr2


# ---------------------------------------------------------------- extract by an index vector
def _extract_model(u_r, iv_r):
    """t(i) = u(iv(i)) where iv has an entry at i and u one at iv(i)."""
    n = iv_r.shape[0]
    T = R.Ref.empty((n,), u_r.dtype)
    for i in range(n):
        if iv_r.present[i]:
            j = int(iv_r.vals[i])
            if u_r.present[j]:
                T.vals[i], T.present[i] = u_r.vals[j], True
    return T


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_extract_by_vector(data):
    d = data.draw
    m = d(st.sampled_from([20, 40]))              # u's size
    n = d(st.sampled_from([30, 70]))              # the index vector's size
    mode = d(_mode())
    tu = d(st.sampled_from(["int64", "int8", "float64", "bool", "uint16"]))
    ti = d(st.sampled_from(["int64", "int32", "uint8"]))
    u_r, _ = d(vectors(m, tu, d(st.sampled_from(["dense", "sparse"]))))
    pres = np.array(d(st.lists(st.booleans(), min_size=n, max_size=n)))
    if d(st.booleans()):
        pres[:] = True
    vals = np.array(d(st.lists(st.integers(0, m - 1), min_size=n, max_size=n)))
    bad = d(st.sampled_from([None, -1, m, m + 7])) if ti != "uint8" else \
        d(st.sampled_from([None, m, 200]))
    if bad is not None:
        k = d(st.integers(0, n - 1))
        vals[k], pres[k] = bad, True
    iv_r = R.Ref(np.where(pres, vals, 0).astype(ti), pres)
    form_i = "dense" if pres.sum() >= n // 8 and d(st.booleans()) else "sparse"
    note(f"u {tu} iv {ti} {form_i} bad={bad} mode={mode}")
    with _switch(mode):
        u = R.to_lib(u_r, "dense" if u_r.nvals >= m // 8 and d(st.booleans()) else "sparse",
                     "cpu")
        iv = R.to_lib(iv_r, form_i, "cpu")
        if bad is not None:
            first = int(np.flatnonzero(pres & ((iv_r.vals.astype(np.int64) < 0)
                                               | (iv_r.vals.astype(np.int64) >= m)))[0])
            with pytest.raises(IndexOutOfBound) as e:
                u.extract(iv)
            assert f"the value {int(iv_r.vals[first])} at position {first}," in str(e.value)
            return
        got = u.extract(iv)
        assert not R.equal(R.from_lib(got), _extract_model(u_r, iv_r))
        # f.extract(f): the index vector is the vector read
        if tu == ti and tu == "int64" and u_r.nvals == m:
            f_r = R.Ref(np.array(d(st.lists(st.integers(0, m - 1), min_size=m, max_size=m))),
                        np.ones(m, dtype=bool))
            f = R.to_lib(f_r, "dense", "cpu")
            assert not R.equal(R.from_lib(f.extract(f)), _extract_model(f_r, f_r))


@pytest.mark.parametrize("dt", ["int8", "int16", "int32", "int64", "uint8", "uint32",
                                "uint64"])
def test_minmax_against_numpy(dt):
    rng = np.random.default_rng(7)
    info = np.iinfo(dt)
    for n in (1, 2, 17, 1000):
        for extreme in (None, "lo", "hi", "both"):
            a = rng.integers(max(info.min, -100), min(info.max, 100), n, dtype=dt)
            if extreme in ("lo", "both"):
                a[rng.integers(0, n)] = info.min
            if extreme in ("hi", "both"):
                a[rng.integers(0, n)] = info.max
            got = CPU.minmax(a)
            assert got == (int(a.min()), int(a.max()))
            assert all(type(v) is int for v in got)
    assert CPU.minmax(np.array([3.5, -1.0])) == (-1, 3)     # (generic path: floats)


# ---------------------------------------------------------------- whole algorithms
_FAM = R.undirected_families()


@pytest.mark.parametrize("mode", ["on", "off", "parallel"])
@pytest.mark.parametrize("name,S", _FAM, ids=[f[0] for f in _FAM])
def test_cc_and_sssp_on_families(name, S, mode):
    with _switch(mode):
        R.check_cc_sssp_bfs(name, S)


# ---------------------------------------------------------------- the SSSP round's calls
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_union_comparison_at_own_mask(data):
    """``x.ewise_union(d, cmp, ld, rd, mask=x.S)`` (or ``d.ewise_union(x,
    ..., mask=x.S)``) with x sparse and d dense: the backend's one-pass
    comparison (``compare_at``) against the model and the hook off; NaN,
    infinities, defaults of every kind, integer and mixed types (the
    latter take the gather path)."""
    d = data.draw
    n = d(st.sampled_from([48, 96]))
    op = d(st.sampled_from(["lt", "le", "gt", "ge", "eq", "ne"]))
    tx = d(st.sampled_from(["float64", "int64", "int8", "bool"]))
    td = tx if d(st.booleans()) else d(st.sampled_from(["float64", "int32"]))
    x_r, _ = d(R.vectors(n, tx, "sparse", "cpu", kinds=["few"], few_max=n // 16 - 1,
                         nan=True))
    d_r, _ = d(R.vectors(n, td, "dense", "cpu", nan=True))
    fx = d(st.floats(allow_nan=True) if tx == "float64" and td == "float64"
           else st.integers(-3, 5))
    ld = d(st.sampled_from([0, 2, -1, fx]))
    rd = d(st.sampled_from([0, 3, fx]))
    if (tx != "float64" and isinstance(ld, float)) or (td != "float64" and isinstance(rd, float)):
        ld, rd = 1, 2
    x_first = d(st.booleans())
    mode = d(_mode())
    note(f"{op} x {tx} d {td} ld={ld} rd={rd} x_first={x_first} {mode}")
    with _switch(mode), np.errstate(all="ignore"):
        x = R.to_lib(x_r, "sparse", "cpu")
        dv = R.to_lib(d_r, "dense", "cpu")
        a_r, a, b_r, b = (x_r, x, d_r, dv) if x_first else (d_r, dv, x_r, x)
        bool_ld = a_r.dtype == np.bool_ and not isinstance(ld, bool)
        bool_rd = b_r.dtype == np.bool_ and not isinstance(rd, bool)
        ld2 = bool(ld) if bool_ld else ld
        rd2 = bool(rd) if bool_rd else rd
        T = _ref(R.ewise_union, a_r, b_r, op, ld2, rd2)
        want = _ref(R.write, None, T, mask=R.mask_array(x_r, True, False))
        got = a.ewise_union(b, gb.binary[op], ld2, rd2, mask=x.S)
        assert not R.equal(R.from_lib(got), want), R.equal(R.from_lib(got), want)


@pytest.mark.parametrize("order", ["sorted", "pairs", "reversed", "random", "one", "blocks"])
@pytest.mark.parametrize("dt", ["float64", "int64", "int32", "bool", "float32", "int8"])
def test_push_sort_take_clear(order, dt):
    """The push's one-call sort of its touched outputs (insertion sort that
    hands a list far from sorted to numba's sort, the gather, the clearing
    of the workspace) against NumPy, for lists near and far from sorted."""
    from graphblast_py.backend.cpu import rowops
    rng = np.random.default_rng(1)
    n = 5000
    for m in (0, 1, 7, 300, 2000):
        keys = np.sort(rng.choice(n, m, replace=False))
        if order == "pairs":
            keys = keys.reshape(-1, 1) if m % 2 else keys.reshape(-1, 2)[:, ::-1]
            keys = keys.reshape(-1)
        elif order == "reversed":
            keys = keys[::-1]
        elif order == "random":
            keys = rng.permutation(keys)
        elif order == "one":
            keys = np.concatenate([keys[1:], keys[:1]])
        elif order == "blocks":
            keys = np.concatenate([k[::-1] for k in np.array_split(keys, 5)]) if m else keys
        touched = np.zeros(n, dtype=np.int64)
        touched[:m] = keys
        vals = (rng.integers(-5, 5, n) if dt != "bool" else rng.integers(0, 2, n)).astype(dt)
        flags = np.zeros(n, dtype=bool)
        flags[keys] = True
        other = rng.choice(n, 3)
        flags2 = flags.copy()
        got = rowops.sort_take_clear(touched, m, flags, vals)
        assert got is not None
        idx, v = got
        s = np.sort(keys)
        assert np.array_equal(idx, s) and idx.dtype == np.int64
        assert np.array_equal(v, vals[s]) and v.dtype == vals.dtype
        flags2[keys] = False
        assert np.array_equal(flags, flags2)
        assert not flags[other].any() or flags2[other].any()


@pytest.mark.parametrize("k", [1, 2, 5, 17, 60])
@pytest.mark.parametrize("on", [True, False])
def test_push_kernel_sort_switch(k, on):
    """vxm with push forced on grids, weighted and unit weights, the
    one-call sort on and off, against SciPy (``u A`` over min_plus as a
    dense computation)."""
    from graphblast_py.backend.cpu import backend as B
    A = gb.generators.grid2d(k, k + 1, device="cpu").dup(dtypes.FP64)
    S = A.to_scipy().tocsr()
    rng = np.random.default_rng(k)
    W = S.copy()
    W.data = rng.integers(1, 5, W.nnz).astype(float)
    Aw = gb.Matrix.from_scipy(W, device="cpu")
    n = A.nrows
    saved = B.PUSH_SORT_KERNEL
    B.PUSH_SORT_KERNEL = on
    try:
        for M, SM in ((A, S), (Aw, W)):
            for frac in (0.002, 0.01, 0.05, 0.3, 1.0):
                idx = np.sort(rng.choice(n, max(1, int(frac * n)), replace=False))
                x = rng.integers(0, 9, idx.shape[0]).astype(float)
                u = gb.Vector.from_coo(idx, x, size=n, device="cpu")
                got = u.vxm(M, gb.semiring.min_plus, direction="push")
                dense = np.full((n, n), np.inf)
                r, c = SM.nonzero()
                dense[r, c] = np.asarray(SM[r, c]).ravel()
                xv = np.full(n, np.inf)
                xv[idx] = x
                want = (xv[:, None] + dense).min(axis=0)
                gi, gv = got.to_coo()
                assert np.array_equal(gi, np.flatnonzero(np.isfinite(want)))
                assert np.array_equal(gv, want[gi])
    finally:
        B.PUSH_SORT_KERNEL = saved


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_apply_under_a_value_mask_at_its_keys(data):
    """``x.apply(op, mask=m.V)`` with m stored at x's keys (SSSP's ``f = t
    <better.V>``, better computed at t.S) into a new vector: the one-pass
    selection (``compress_truthy``) against the model and the hook off;
    mask values of every type, NaN among them; also m with other keys, ~m.V
    and m.S (the general selection)."""
    d = data.draw
    n = d(st.sampled_from([48, 96]))
    tx = d(st.sampled_from(["float64", "int64", "int8", "bool", "float32"]))
    tm = d(st.sampled_from(["bool", "float64", "int32", "uint8"]))
    x_r, _ = d(R.vectors(n, tx, "sparse", "cpu", kinds=["few", "random", "empty"],
                         few_max=n // 16 - 1, nan=True))
    same_keys = d(st.booleans())
    mvals = np.array(d(st.lists(st.sampled_from([0, 1, 2, -1]), min_size=n, max_size=n)))
    mvals = mvals.astype(tm if tm != "bool" else np.int8).astype(tm)
    if tm == "float64" and d(st.booleans()):
        mvals[d(st.integers(0, n - 1))] = np.nan
    kind = d(st.sampled_from(["V", "V", "~V", "S"]))
    op = d(st.sampled_from(["identity", "ainv", "abs"]))
    mode = d(_mode())
    note(f"x {tx} m {tm} same_keys={same_keys} {kind} {op} {mode}")
    with _switch(mode), np.errstate(all="ignore"):
        x = R.to_lib(x_r, "sparse", "cpu")
        if same_keys:
            # the mask vector computed at x's keys shares x's index array
            # (the mask-first path: a dense operand, the result at x's keys)
            dv = gb.Vector.from_dense(mvals, device="cpu")
            m = x.ewise_union(dv, gb.binary.second, 0, 0, mask=x.S)
        else:
            pres = np.array(d(st.lists(st.booleans(), min_size=n, max_size=n)))
            m = gb.Vector.from_coo(np.flatnonzero(pres), mvals[pres], size=n)
        m_r = R.from_lib(m)
        mask = {"V": m.V, "~V": ~m.V, "S": m.S}[kind]
        marr = R.mask_array(m_r, kind == "S", kind == "~V")
        T = _ref(R.apply_unary, x_r, op)
        want = _ref(R.write, None, T, mask=marr)
        got = x.apply(gb.unary[op], mask=mask)
        assert not R.equal(R.from_lib(got), want), R.equal(R.from_lib(got), want)


@pytest.mark.parametrize("dt", ["int64", "float64", "int32", "bool", "int8", "uint16"])
@pytest.mark.parametrize("ft", ["bool", "float64", "int8"])
def test_compress_truthy(dt, ft):
    from graphblast_py.backend.cpu import rowops
    rng = np.random.default_rng(3)
    for n in (0, 1, 5, 600):
        keys = np.sort(rng.choice(10 * n + 1, n, replace=False)).astype(np.int64)
        vals = rng.integers(0, 3, n).astype(dt)
        flags = rng.integers(-1, 2, n).astype(ft)
        if ft == "float64" and n:
            flags[0] = np.nan
        k, v = rowops.compress_truthy(keys, vals, flags)
        t = flags.astype(bool)
        assert np.array_equal(k, keys[t]) and k.dtype == np.int64
        assert np.array_equal(v, vals[t]) and v.dtype == vals.dtype


@pytest.mark.parametrize("parallel", [False, True])
@pytest.mark.parametrize("dt", ["int64", "int8", "uint64", "int32"])
@pytest.mark.parametrize("name", ["min", "max"])
def test_pull_accum_kernels(parallel, dt, name):
    """rowops.pull_accum's serial and parallel row folds against a NumPy
    loop: CSRs with empty rows (first, last, runs), rows longer than a
    block, values at the type's extremes."""
    from graphblast_py.backend.cpu import rowops
    rng = np.random.default_rng(4)
    info = np.iinfo(dt)
    for nrows, ncols, dens in ((0, 3, 0.5), (1, 1, 1.0), (7, 5, 0.3), (300, 40, 0.05),
                               (600, 600, 0.002), (3, 2000, 0.9)):
        M = sp.random(nrows, ncols, density=dens, random_state=rng, format="csr")
        if nrows > 2:
            M = M.tolil()
            M[0, :] = 0
            M[nrows - 1, :] = 0
            M = M.tocsr()
            M.eliminate_zeros()
        ip, ix = M.indptr.astype(np.int32), M.indices.astype(np.int32)
        x = rng.integers(max(info.min, -100), min(info.max, 100), ncols, dtype=dt)
        if ncols > 2:
            x[0], x[1] = info.min, info.max
        old = rng.integers(max(info.min, -100), min(info.max, 100), nrows, dtype=dt)
        want = old.copy()
        for r in range(nrows):
            for c in ix[ip[r]:ip[r + 1]]:
                want[r] = max(want[r], x[c]) if name == "max" else min(want[r], x[c])
        for in_place in (False, True):
            o = old.copy()
            got = rowops.pull_accum(ip, ix, x, name, o, in_place, parallel)
            assert np.array_equal(got, want) and got.dtype == want.dtype
            assert (got is o) == in_place


@pytest.mark.parametrize("share", [0.25, 0.0, 1e-3, math.inf])
@pytest.mark.parametrize("dt", ["float64", "int32", "bool"])
def test_assign_merges_then_dense(share, dt):
    """``w<F.S> = F`` repeated into a sparse w (SSSP's distances): the
    sorted merges, then (once they have copied MERGE_DENSE_SHARE of w's
    size; inf: never) the dense update, against a dict model; a vector
    assigned into once stays sparse."""
    from graphblast_py.operations import assign as AS
    rng = np.random.default_rng(9)
    n = 4000
    saved = AS.MERGE_DENSE_SHARE
    AS.MERGE_DENSE_SHARE = share
    try:
        w = gb.Vector(dt, n, device="cpu")
        model = {}
        forms = []
        for step in range(60):
            k = np.sort(rng.choice(n, rng.integers(0, 12), replace=False))
            v = rng.integers(-3, 4, k.shape[0]).astype(dt)
            F = gb.Vector.from_coo(k, v, size=n, dtype=dt, device="cpu")
            before = len(model)
            w.assign(F, mask=F.S)
            for i, x in zip(k.tolist(), v.tolist()):
                model[i] = x
            forms.append((w.form, before))
            idx, vals = w.to_coo()
            assert idx.tolist() == sorted(model)
            assert vals.tolist() == [model[i] for i in sorted(model)]
            assert w.nvals == len(model) and w.dtype == np.dtype(dt)
        if share == math.inf:       # dense only where the general rule makes it so
            assert all(f == "sparse" or b >= n / 16 for f, b in forms)
        elif share == 0.0:
            assert forms[1][0] == "dense"
        one = gb.Vector(dt, n, device="cpu")
        one.assign(F, mask=F.S)
        if share > 0:
            assert one.form == "sparse"
    finally:
        AS.MERGE_DENSE_SHARE = saved
