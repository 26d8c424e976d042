"""``Vector.reduce`` / ``Matrix.reduce_scalar`` of large arrays: on the GPU
one ``reduce_all`` launch (a block's partials folded by the last block, no
atomics on values) instead of CuPy's sum or passes of segments.  Every
monoid and type against NumPy's reduction of the same values, sizes from one
entry to past the launch's 1024 x 256 threads (so threads fold several
values), dense vectors with holes (the holes skipped by the kernel, all holes
giving the identity), float min/max with NaN as the library defines them
(a NaN loses to a number; only NaN gives NaN), the same bits on every run."""
import numpy as np
import pytest

import graphblast_py as gb

from . import reference as R

SIZES = [1, 257, 300_000, 1_000_003]
TYPES = ["bool", "int8", "int32", "int64", "uint64", "float32", "float64"]
MONOIDS = ["plus", "times", "min", "max", "lor", "land", "any"]


def _values(rng, n, t):
    t = np.dtype(t)
    if t == bool:
        return rng.random(n) < 0.5
    if t.kind == "f":
        return (rng.random(n) * 2 - 1).astype(t) * 100
    info = np.iinfo(t)
    return rng.integers(max(info.min, -100), min(info.max, 100), n, dtype=t, endpoint=True)


def _expect(add, vals, t):
    """NumPy's reduction in the monoid's output type (the library's cast
    first: bool under plus/times counts in int64), None for any."""
    out_t = np.dtype(gb.monoid[add].out_dtype(np.dtype(t)))
    v = vals.astype(out_t)
    with np.errstate(over="ignore"):          # integers wrap, as the library's do
        return _fold(add, v, out_t)


def _fold(add, v, out_t):
    if add == "plus":
        return np.add.reduce(v, dtype=out_t)
    if add == "times":
        return np.multiply.reduce(v, dtype=out_t)
    if add == "min":
        return np.fmin.reduce(v) if out_t.kind == "f" else v.min()
    if add == "max":
        return np.fmax.reduce(v) if out_t.kind == "f" else v.max()
    if add == "lor":
        return bool(v.astype(bool).any())
    if add == "land":
        return bool(v.astype(bool).all())
    return None


def _check(add, got, want, t, vals):
    if add == "any":
        assert got in set(np.asarray(vals).tolist()) or (got != got)
        return
    out_t = np.asarray(want).dtype
    if add in ("plus", "times") and out_t.kind == "f":
        # a float32 product folded as a tree drifts from the sequential one
        # (roundings of products near 1 do not cancel: ~6e-4 over 2^18
        # factors of 1 +- 5e-4, a pairwise fold on the host the same)
        rtol = (5e-3 if add == "times" else 1e-4) if np.dtype(t) == np.float32 else 1e-12
        np.testing.assert_allclose(got, want, rtol=rtol)
    else:
        assert got == want or (got != got and want != want), (add, t, got, want)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("t", TYPES)
def test_reduce_full_vector(device, n, t):
    rng = np.random.default_rng(n + len(t))
    vals = _values(rng, n, t)
    if np.dtype(t).kind == "f" and n > 1:
        vals[rng.integers(0, n, 3)] = np.nan            # a NaN loses to a number
    x = gb.Vector.from_dense(vals, device=device)
    for add in MONOIDS:
        if add == "times" and np.dtype(t).kind == "f":
            w = gb.Vector.from_dense((1 + (rng.random(n) - 0.5) * 1e-3).astype(t), device=device)
            _check(add, w.reduce(gb.monoid.times), _expect("times", R._host(w.to_dense()), t),
                   t, None)
            continue
        got = x.reduce(gb.monoid[add])
        want = _expect(add, vals, t)
        if add == "plus" and np.dtype(t).kind == "f":
            want = np.add.reduce(np.where(np.isnan(vals), 0, vals).astype(np.float64))
            if np.isnan(vals).any():
                assert got != got                             # NaN + x is NaN
                clean = np.where(np.isnan(vals), np.asarray(1, vals.dtype), vals)
                got = gb.Vector.from_dense(clean, device=device).reduce(gb.monoid.plus)
                want = np.add.reduce(clean.astype(np.float64))
        _check(add, got, want, t, vals)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("t", ["int32", "int64", "float64", "bool"])
def test_reduce_dense_with_holes(device, n, t):
    """A dense vector with holes: only its entries count; all holes: the
    monoid's identity (PageRank's dangling mass of a graph without one)."""
    rng = np.random.default_rng(3 * n)
    vals = _values(rng, n, t)
    keep = rng.random(n) < 0.3
    miss = np.dtype(t).type(0) if np.dtype(t) != bool else False
    vals = np.where(keep, vals, miss)
    keep = vals != miss
    x = gb.Vector.from_dense(vals, missing_value=miss, device=device)
    for add in MONOIDS:
        got = x.reduce(gb.monoid[add])
        if not keep.any():
            if add != "any":
                assert got == gb.monoid[add].identity(gb.monoid[add].out_dtype(np.dtype(t)))
            continue
        _check(add, got, _expect(add, vals[keep], t), t, vals[keep])
    none = gb.Vector.from_dense(np.full(n, miss), missing_value=miss, device=device)
    for add in ("plus", "min", "max", "land", "lor", "times"):
        m = gb.monoid[add]
        assert none.reduce(m) == m.identity(m.out_dtype(np.dtype(t))), add


def test_reduce_same_bits_every_run(device):
    rng = np.random.default_rng(11)
    vals = rng.standard_normal(3_000_017) * np.exp(rng.standard_normal(3_000_017) * 10)
    x = gb.Vector.from_dense(vals, device=device)
    first = x.reduce(gb.monoid.plus)
    assert all(x.reduce(gb.monoid.plus) == first for _ in range(5))
    np.testing.assert_allclose(first, np.add.reduce(vals), rtol=1e-9)


@pytest.mark.gpu
def test_gpu_reduce_takes_one_launch(monkeypatch):
    """On the GPU the reduction is ``reduce_all`` (CuPy's sum never runs)
    for every predefined monoid over the types a warp shuffle moves, and
    matrices reduce the same way."""
    pytest.importorskip("cupy")
    if gb.get_device() != "gpu":
        pytest.skip("needs a GPU")
    import cupy
    be = gb.Vector.from_dense(np.ones(4), device="gpu")._be

    def refuse(*a, **k):
        raise AssertionError("cupy.sum ran where reduce_all applies")
    monkeypatch.setattr(cupy, "sum", refuse)
    x = gb.Vector.from_dense(np.arange(1, 600_001, dtype=np.int64), device="gpu")
    assert x.reduce(gb.monoid.plus) == 600_000 * 600_001 // 2
    A = gb.Matrix.from_coo([0, 1, 2], [2, 0, 1], [1.5, 2.5, 4.0], 3, 3, device="gpu")
    assert A.reduce_scalar(gb.monoid.plus) == 8.0 and A.reduce_scalar(gb.monoid.max) == 4.0
    assert be._reduce_all(gb.monoid.min, cupy.arange(5, dtype=np.float64), None) == 0.0


@pytest.mark.gpu
def test_gpu_reduce_threads_do_not_share_results():
    """Two host threads reducing on the same stream at once each read their
    own result (the scratch buffer is per thread)."""
    pytest.importorskip("cupy")
    if gb.get_device() != "gpu":
        pytest.skip("needs a GPU")
    import threading
    xs = [gb.Vector.from_dense(np.full(200_000, k, dtype=np.int64), device="gpu") for k in (1, 2)]
    bad = []

    def work(k):
        for _ in range(300):
            got = xs[k].reduce(gb.monoid.plus)
            if got != 200_000 * (k + 1):
                bad.append((k, got))
    ts = [threading.Thread(target=work, args=(k,)) for k in (0, 1)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not bad, bad[:5]
