"""``out = accum(out, A (+).(x) u)`` written by one kernel (the backend's
``pull_accum``, operations/mxv.py ``_pull_into``): connected components'
``A.mxv(gf, min_second, accum=min, out=mngf)``.  Against the dense reference
model of tests/reference.py and the same call with the fused path switched
off, over integer types, min/max, mxv and vxm, matrices with empty rows and
columns, an ``out`` that owns its array, one that shares it (a dup), ``out``
being ``u`` itself, and the cases the path does not take (holes, another
accumulator, a mask, a float type)."""
import numpy as np
import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

import graphblast_py as gb

from . import reference as R

_model = R.defined_or_reject
DEVICES = ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)]


@st.composite
def case(draw):
    m = draw(st.integers(1, 30))
    n = draw(st.integers(1, 30))
    dt = draw(st.sampled_from(["int8", "uint8", "int32", "int64", "uint64", "float64"]))
    info = np.iinfo(dt) if dt != "float64" else None
    lo, hi = (info.min, info.max) if info is not None else (-1e9, 1e9)
    values = st.one_of(st.integers(-5, 5), st.sampled_from([lo, hi])).map(
        lambda v: min(max(v, lo), hi))
    present = np.array(draw(st.lists(st.booleans(), min_size=m * n, max_size=m * n)))
    present &= np.array(draw(st.lists(st.booleans(), min_size=m * n, max_size=m * n)))
    A_r = R.Ref(np.where(present, 1, 0).astype(bool).reshape(m, n), present.reshape(m, n))
    return dt, A_r, values, draw(st.data())


def _vector(vals, dt, holes, dev):
    n = vals.shape[0]
    if holes is None:
        return R.Ref(vals.astype(dt), np.ones(n, bool)), \
            gb.Vector.from_dense(vals.astype(dt), device=dev)
    keep = np.flatnonzero(~holes)
    return R.Ref(np.where(holes, 0, vals).astype(dt), ~holes), \
        gb.Vector.from_coo(keep, vals[keep].astype(dt), size=n, dtype=dt, device=dev)


@pytest.mark.parametrize("dev", DEVICES)
@settings(max_examples=300, deadline=None)
@given(c=case())
def test_pull_accum_against_model(dev, c):
    dt, A_r, values, data = c
    d = data.draw
    which = d(st.sampled_from(["mxv", "vxm"]))
    op = d(st.sampled_from(["min", "max"]))
    accum = d(st.sampled_from([op, op, "plus"]))
    masked = d(st.booleans()) and d(st.booleans())
    m, n = A_r.shape
    n_in, n_out = (n, m) if which == "mxv" else (m, n)
    uv = np.array(d(st.lists(values, min_size=n_in, max_size=n_in)), dtype=dt)
    ov = np.array(d(st.lists(values, min_size=n_out, max_size=n_out)), dtype=dt)
    u_holes = np.array(d(st.lists(st.booleans(), min_size=n_in, max_size=n_in))) \
        if d(st.booleans()) and d(st.booleans()) else None
    u_r, u = _vector(uv, dt, u_holes, dev)
    how = d(st.sampled_from(["fresh", "own", "dup of u", "u itself"] if n_in == n_out
                            else ["fresh", "own"]))
    rows, cols = np.nonzero(A_r.present)
    A = gb.Matrix.from_coo(rows, cols, True, m, n, device=dev)
    sr = gb.semiring[f"{op}_{'second' if which == 'mxv' else 'first'}"]
    mask_r = np.arange(n_out) % 3 != 1
    mask = gb.Vector.from_coo(np.flatnonzero(mask_r), True, size=n_out, device=dev).S

    def run(fused):
        if how == "u itself":
            out_r, out = u_r, u.dup()
            src = out
        else:
            out_r, out = _vector(ov, dt, None, dev)
            src = u.dup() if how == "dup of u" else u
            if how == "dup of u":
                out_r, out = u_r, src.dup()     # shares src's array
            elif how == "own":                   # an array the vector owns
                out.assign(out, mask=out.S)
        be = gb.backend.get(dev)
        saved = getattr(be, "_pull_accum", None)
        if saved is not None:
            be._pull_accum = fused
        try:
            kw = dict(accum=gb.binary[accum], out=out, direction="pull",
                      mask=mask if masked else None)
            res = A.mxv(src, sr, **kw) if which == "mxv" else src.vxm(A, sr, **kw)
        finally:
            if saved is not None:
                be._pull_accum = saved
        assert res is out
        return out_r, res

    out_r, got = run(True)
    T = _model(R.mxv, A_r, u_r, op, "second") if which == "mxv" else \
        _model(R.vxm, u_r, A_r, op, "first")
    want = _model(R.write, out_r, T, mask=mask_r if masked else None, accum=accum)
    note(f"{which} {op} accum={accum} {dt} {how} masked={masked}")
    assert not R.equal(R.from_lib(got), want), R.equal(R.from_lib(got), want)
    _, plain = run(False)
    assert not R.equal(R.from_lib(plain), want)
    assert not R.equal(R.from_lib(u), u_r) or how == "u itself"       # u unchanged


def test_pull_accum_in_place_and_repeated():
    """The CC pattern on a grid with isolated vertices: repeated fused calls
    into an out that owns its array (written in place) and from a u that
    was that out, against SciPy-free plain NumPy."""
    G = gb.generators.grid2d(7, 9, device="cpu")
    r, c, _ = G.to_coo()
    n = G.nrows + 5                                       # 5 isolated vertices
    A = gb.Matrix.from_coo(r, c, True, n, n, device="cpu")
    rng = np.random.default_rng(4)
    x = rng.integers(-50, 50, n)
    u = gb.Vector.from_dense(x, device="cpu")
    out = u.dup()
    S = A.to_scipy().tocsr()
    want = x.copy()

    def step(w, x=None):
        """min(w(i), min of x over i's neighbours); w(i) for no neighbour."""
        x = w if x is None else x
        nxt = w.copy()
        for i in range(n):
            nb = S.indices[S.indptr[i]:S.indptr[i + 1]]
            if nb.size:
                nxt[i] = min(w[i], x[nb].min())
        return nxt

    for k in range(4):
        # twice without a read between: the second call's out owns its array
        # and is its own input (it must not be written while it is read)
        for _ in range(2):
            A.mxv(out, gb.semiring.min_second, accum=gb.binary.min, out=out)
            want = step(want)
        assert out._full_values()[1]
        assert np.array_equal(out.to_dense(), want)
        assert out.nvals == n
        # an out that owns its array, from another input: written in place
        other = gb.Vector.from_dense(want - 1, device="cpu")
        A.mxv(other, gb.semiring.min_second, accum=gb.binary.min, out=out)
        want = step(want, want - 1)
        assert np.array_equal(out.to_dense(), want)
    assert np.array_equal(u.to_dense(), x)                # the first input unchanged


@pytest.mark.parametrize("n, edges", [(0, []), (1, []), (1, [(0, 0)]), (6, []),
                                      (6, [(0, 5), (5, 0), (2, 2)])])
@pytest.mark.parametrize("which", ["mxv", "vxm"])
def test_pull_accum_small_and_empty(n, edges, which):
    """Empty, one-vertex (with and without a self-loop) and edgeless graphs:
    the fused path and the ordinary one agree; rows without entries keep
    the output's values."""
    r = [e[0] for e in edges]
    c = [e[1] for e in edges]
    A = gb.Matrix.from_coo(r, c, True, n, n, device="cpu")
    x = np.arange(n, dtype=np.int64)[::-1].copy()
    be = gb.backend.get("cpu")
    got = []
    for fused in (True, False):
        be._pull_accum = fused
        try:
            u = gb.Vector.from_dense(x, device="cpu")
            out = gb.Vector.from_dense(x + 1, device="cpu")
            sr = gb.semiring.min_second if which == "mxv" else gb.semiring.min_first
            if which == "mxv":
                A.mxv(u, sr, accum=gb.binary.min, out=out)
            else:
                u.vxm(A, sr, accum=gb.binary.min, out=out)
            got.append(np.asarray(out.to_dense()))
        finally:
            be._pull_accum = True
    want = x + 1
    for i, j in edges:
        a, b = (i, j) if which == "mxv" else (j, i)     # out position a reads x at b
        want[a] = min(want[a], x[b])
    assert np.array_equal(got[0], want) and np.array_equal(got[1], want)
