"""The backend's one-launch folds behind the index checks and the vector
comparison: ``minmax`` (``Vector.from_coo``'s and ``extract``'s range checks
of an index array) and ``all_equal`` (``isequal`` of two full integer
vectors: connected components' stopping test).  On the GPU each is one
kernel and one read (``minmax_all``, ``diff_any``); both devices against
NumPy on every integer type, extremes of the type, sizes from 1 to past the
launch's 1024 x 256 threads, a difference at the first, last and a block
boundary position, and interleaved with ``reduce`` (the folds keep their
scratch apart).  Then connected components and the checks' errors."""
import numpy as np
import pytest

import graphblast_py as gb
from graphblast_py.device import backend_for

from .conftest import host

SIZES = [1, 2, 255, 256, 257, 300_001, 1_000_003]
INT_TYPES = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]


def _array(be, a):
    return be.xp.asarray(a)


@pytest.mark.parametrize("t", INT_TYPES)
@pytest.mark.parametrize("n", SIZES)
def test_minmax_against_numpy(device, t, n):
    be = backend_for(device)
    info = np.iinfo(t)
    rng = np.random.default_rng(n)
    a = rng.integers(info.min, info.max, n, dtype=t, endpoint=True)
    got = be.minmax(_array(be, a))
    assert got == (int(a.min()), int(a.max())) and all(type(x) is int for x in got)
    for pos in {0, n // 2, n - 1}:       # the type's extremes, anywhere
        b = a.copy()
        b[pos] = info.min
        b[(pos + 1) % n] = info.max if n > 1 else info.min
        assert be.minmax(_array(be, b)) == (int(b.min()), int(b.max())), (t, n, pos)


@pytest.mark.parametrize("t", ["bool", "int8", "uint16", "int32", "int64", "uint64"])
@pytest.mark.parametrize("n", SIZES)
def test_all_equal_against_numpy(device, t, n):
    be = backend_for(device)
    rng = np.random.default_rng(n + 1)
    a = rng.random(n) < 0.5 if t == "bool" else rng.integers(0, 100, n).astype(t)
    assert be.all_equal(_array(be, a), _array(be, a.copy())) is True
    for pos in sorted({0, 255, 256, n // 2, n - 1} & set(range(n))):
        b = a.copy()
        b[pos] = not b[pos] if t == "bool" else b[pos] + 1
        assert be.all_equal(_array(be, a), _array(be, b)) is False, (t, n, pos)
        assert be.all_equal(_array(be, a), _array(be, a)) is True


def test_all_equal_declines_floats_and_mismatches(device):
    be = backend_for(device)
    f = _array(be, np.array([0.0, np.nan]))
    assert be.all_equal(f, f) is None                     # NaN, -0.0: not by bits
    i = _array(be, np.arange(4))
    assert be.all_equal(i, _array(be, np.arange(4, dtype=np.int32))) is None
    assert be.all_equal(i, _array(be, np.arange(5))) is None
    assert be.all_equal(_array(be, np.zeros(0, np.int64)),
                        _array(be, np.zeros(0, np.int64))) in (True, None)


def test_folds_interleaved_with_reduce(device):
    """minmax, all_equal and reduce one after another, over and over: each
    result is its own (the folds' scratch and counters kept apart)."""
    be = backend_for(device)
    rng = np.random.default_rng(4)
    for k in range(30):
        n = int(rng.integers(1, 400_000))
        a = rng.integers(-10**9, 10**9, n)
        b = a.copy()
        if k % 2:
            b[int(rng.integers(0, n))] += 1
        v = gb.Vector.from_dense(a, device=device)
        A, B = _array(be, a), _array(be, b)
        assert be.minmax(A) == (int(a.min()), int(a.max()))
        assert v.reduce(gb.monoid.plus) == int(a.sum())
        assert be.all_equal(A, B) is (k % 2 == 0)
        assert v.reduce(gb.monoid.max) == int(a.max())


def test_connected_components_and_the_checks(device):
    """The operations that use the folds: connected components against
    SciPy on a graph with isolated vertices; from_coo, extract and isequal
    refusing or answering as before."""
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components as scc
    rng = np.random.default_rng(2)
    n = 5000
    r, c = rng.integers(0, n - 100, 6000), rng.integers(0, n - 100, 6000)
    S = sp.coo_matrix((np.ones(12000), (np.r_[r, c], np.r_[c, r])), shape=(n, n)).tocsr()
    S.setdiag(0)
    S.eliminate_zeros()
    A = gb.Matrix.from_scipy(S, device=device)
    got = host(gb.algorithms.connected_components(A).to_dense())
    k, lab = scc(S, directed=False)
    first = {}
    for v, l in enumerate(lab):
        first.setdefault(l, v)
    assert got.tolist() == [first[l] for l in lab]
    iv = gb.Vector.from_dense(np.array([3, 0, 7, 2]), device=device)
    with pytest.raises(gb.IndexOutOfBound):
        gb.Vector.from_coo(iv, 1, 5, dup_op=gb.binary.min)
    u = gb.Vector.from_dense(np.arange(5) * 10, device=device)
    with pytest.raises(gb.IndexOutOfBound, match="value 7 at position 2"):
        u.extract(iv)
    ok = gb.Vector.from_dense(np.array([3, 0, 4, 2]), device=device)
    assert host(u.extract(ok).to_dense()).tolist() == [30, 0, 40, 20]
    assert ok.isequal(gb.Vector.from_dense(np.array([3, 0, 4, 2]), device=device))
    assert not ok.isequal(gb.Vector.from_dense(np.array([3, 0, 4, 1]), device=device))


@pytest.mark.parametrize("dt", ["int8", "uint8", "int32", "int64", "uint64", "float64"])
@pytest.mark.parametrize("op", ["min", "max"])
def test_minmax_into_paths(device, dt, op, monkeypatch):
    """``ewise_add(min/max)`` with one full operand (into a new vector, into
    either operand itself) and ``mxv`` with ``accum=min/max`` into a full
    vector -- connected components' hooking -- against the dense reference
    model, every entry; on integers of one type the backend's one pass
    (``minmax_into``: on the GPU one launch, in place where the output is an
    operand it owns) answers each, floats take the ordinary path."""
    from . import reference as R
    be = backend_for(device)
    answered = []
    real = type(be).minmax_into

    def spy(self, *a):
        r = real(self, *a)
        answered.append(r is not None)
        return r

    monkeypatch.setattr(type(be), "minmax_into", spy)
    rng = np.random.default_rng(7)
    n = 300
    info = np.iinfo(dt) if dt != "float64" else None
    lo, hi = (info.min, info.max) if info else (-1e6, 1e6)

    def vals():
        v = rng.integers(-50, 50, n) if info else rng.uniform(-50, 50, n)
        v = v.astype(dt)
        v[0], v[1] = np.asarray(lo, dtype=dt), np.asarray(hi, dtype=dt)
        return v

    full_r = R.Ref(vals(), np.ones(n, bool))
    holes = rng.random(n) < 0.4
    part_r = R.Ref(np.where(holes, 0, vals()).astype(dt), ~holes)
    for first_full in (True, False):
        x_r, y_r = (full_r, part_r) if first_full else (part_r, full_r)
        want = R.ewise_add(x_r, y_r, op)
        x, y = R.to_lib(x_r, "dense", device), R.to_lib(y_r, "dense", device)
        got = x.ewise_add(y, gb.binary[op])
        assert not R.equal(R.from_lib(got), want), (dt, op, first_full)
        for into in ("x", "y"):
            x, y = R.to_lib(x_r, "dense", device), R.to_lib(y_r, "dense", device)
            out = x if into == "x" else y
            r = x.ewise_add(y, gb.binary[op], out=out)
            assert r is out
            assert not R.equal(R.from_lib(out), want), (dt, op, first_full, into)
    # out op= A (op, second) u, u with holes, out full
    A_r = R.Ref(np.zeros((n, n), dtype=dt), np.zeros((n, n), dtype=bool))
    rows, cols = rng.integers(0, n, 900), rng.integers(0, n, 900)
    A_r.present[rows, cols] = True
    A_r.vals[A_r.present] = 1
    A = R.to_lib(A_r, "sparse", device)
    T = R.mxv(A_r, part_r, op, "second")
    want = R.write(full_r, T, accum=op)
    out = R.to_lib(full_r, "dense", device)
    A.mxv(R.to_lib(part_r, "dense", device), gb.semiring[f"{op}_second"],
          accum=gb.binary[op], out=out)
    assert not R.equal(R.from_lib(out), want), (dt, op, "mxv")
    if dt != "float64":
        assert answered and all(answered), answered
    else:
        assert not any(answered)


@pytest.mark.parametrize("tv", ["bool", "int8", "int64", "float32", "float64"])
@pytest.mark.parametrize("ti", ["int64", "int32", "uint8", "uint64"])
def test_take_checked_against_numpy(device, tv, ti):
    """``src[idx]`` with the range check in the same pass (extract by an
    index Vector): every entry against NumPy's gather; an index below 0, at
    len(src) or a huge unsigned one anywhere gives None, and the next
    in-range gather is right again (the GPU's flag put back)."""
    be = backend_for(device)
    rng = np.random.default_rng(11)
    n = 200
    src = (rng.random(n) < 0.5) if tv == "bool" else (rng.random(n) * 100).astype(tv)
    S = _array(be, src)
    declines = device == "cpu" and ti[0] == "u"     # (the CPU's pass: signed indices)
    for m in (0, 1, 257, 300_001):
        idx = rng.integers(0, n, m).astype(ti)
        got = be.take_checked(S, _array(be, idx))
        if declines:
            assert got is None
            continue
        assert np.array_equal(host(got), src[idx]), (tv, ti, m)
        if m == 0:
            continue
        bad_values = [n] + ([-1] if ti[0] == "i" else []) + \
            ([2 ** 64 - 1] if ti == "uint64" else [])
        for pos in {0, m // 2, m - 1}:
            for v in bad_values:
                if ti == "uint8" and v >= 256:
                    continue
                b = idx.copy()
                b[pos] = np.asarray(v).astype(ti) if ti != "uint64" else np.uint64(v)
                assert be.take_checked(S, _array(be, b)) is None, (tv, ti, m, pos, v)
        assert np.array_equal(host(be.take_checked(S, _array(be, idx))), src[idx])
