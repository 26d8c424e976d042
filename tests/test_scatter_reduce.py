"""Vector.from_coo with a duplicate operator that takes the unsorted scatter
(min / max / plus on integers, min / max on floats, and / or on bool; a numba
loop on the CPU, one kernel of atomics on the GPU) against a pure-Python
reference (a dict folded entry by entry), a dense NumPy model (``ufunc.at``
into a dense array plus a presence array), and the sort path it replaces (the
same entries in a vector big enough that the build sorts); what connected
components' hooking relies on.

NaN: min/max are fmin/fmax on every path (docs/operations.md), so a NaN loses
and a position whose values are all NaN is NaN.  Zeros: which of -0.0 / 0.0
``min(-0.0, 0.0)`` gives may differ between paths (docs/operations.md), so
zeros are compared by value, not sign."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import graphblast_py as gb

INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


def _wrap(x, dt):
    bits = np.iinfo(dt).bits
    if np.iinfo(dt).min < 0:
        return (x + 2 ** (bits - 1)) % 2 ** bits - 2 ** (bits - 1)
    return x % 2 ** bits


def reference(idx, vals, op, dt):
    out = {}
    for i, v in zip(idx, vals):
        i, v = int(i), int(v)
        if i not in out:
            out[i] = v
        elif op == "min":
            out[i] = min(out[i], v)
        elif op == "max":
            out[i] = max(out[i], v)
        else:
            out[i] = out[i] + v
    keys = sorted(out)
    return keys, [_wrap(out[k], dt) if op == "plus" else out[k] for k in keys]


def check(idx, vals, size, op, dt, device):
    v = gb.Vector.from_coo(idx, vals, size, dtype=dt, dup_op=op, device=device)
    keys, want = reference(idx, vals, op, dt)
    got_i, got_v = (np.asarray(gb.backend.get(device).to_host(a)) for a in v.to_coo())
    assert v.dtype == np.dtype(dt) and v.size == size and v.nvals == len(keys)
    assert got_i.tolist() == keys
    assert [int(x) for x in got_v] == want
    return v


@pytest.mark.parametrize("dt", INTS)
@pytest.mark.parametrize("op", ["min", "max", "plus"])
def test_extremes_duplicates_and_wrap(device, dt, op):
    info = np.iinfo(dt)
    size = 9
    idx = np.array([0, 3, 3, 3, 8, 0, 5, 5, 8, 8, 1])
    vals = np.array([info.max, info.min, info.max, 0, 1, info.min, 7, 7, info.max, info.max, 3],
                    dtype=dt)
    v = check(idx, vals, size, op, dt, device)
    assert v.form == "dense"               # the scatter path: enough entries for the size
    check(np.zeros(40, np.int64), np.arange(40).astype(dt), 1, op, dt, device)   # one index


def test_few_entries_take_the_sort_path_with_the_same_result(device):
    idx = np.array([10, 900, 10])
    vals = np.array([5, -1, 3])
    v = check(idx, vals, 1000, "min", np.int64, device)   # 3 entries < 1000 / 16
    assert v.form == "sparse"


def test_bad_input_still_refused(device):
    with pytest.raises(gb.IndexOutOfBound):
        gb.Vector.from_coo([0, 5, 5], [1, 2, 3], 5, dup_op="min", device=device)
    with pytest.raises(gb.IndexOutOfBound):
        gb.Vector.from_coo([0, -1, 2], [1, 2, 3], 5, dup_op="min", device=device)
    v = gb.Vector.from_coo(np.zeros(0, np.int64), np.zeros(0, np.int64), 0, dup_op="min",
                           device=device)
    assert v.size == 0 and v.nvals == 0


CASES = dict(size=st.integers(1, 60), m=st.integers(0, 200),
             op=st.sampled_from(["min", "max", "plus"]), dt=st.sampled_from(INTS),
             seed=st.integers(0, 2**32 - 1))


def random_entries(size, m, dt, seed):
    """(indices, values) of ``m`` random entries: now and then onto few
    targets (CC's roots), else spread; values over the type's whole range
    (floats with NaN, signed zeros, infinities)."""
    dt = np.dtype(dt)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, size if rng.random() < 0.7 else min(size, 3), m)
    if dt.kind == "b":
        return idx, rng.random(m) < 0.5
    if dt.kind == "f":
        pool = np.array([np.nan, -0.0, 0.0, np.inf, -np.inf, 1.5, -2.0, np.finfo(dt).max,
                         np.finfo(dt).tiny], dtype=dt)
        return idx, np.where(rng.random(m) < 0.5, rng.choice(pool, m),
                             rng.standard_normal(m).astype(dt))
    info = np.iinfo(dt)
    return idx, rng.integers(info.min, int(info.max) + 1, m, dtype=np.int64 if info.min < 0
                             else np.uint64).astype(dt)


def random_case(size, m, op, dt, seed, device):
    check(*random_entries(size, m, dt, seed), size, op, dt, device)


@given(**CASES)
@settings(max_examples=60, deadline=None)
def test_against_reference_cpu(size, m, op, dt, seed):
    random_case(size, m, op, dt, seed, "cpu")


@pytest.mark.gpu
@given(**CASES)
@settings(max_examples=30, deadline=None)
def test_against_reference_gpu(size, m, op, dt, seed):
    random_case(size, m, op, dt, seed, "gpu")


# ---------------------------------------------------------------- every type,
# against a dense NumPy model and the sort path

ALL = INTS + [np.float32, np.float64, np.bool_]


def fast_kind(op, dt, device="cpu"):
    """Whether the build takes the scatter (the documented table; on the GPU
    integer types only while the backend's own kernel is switched off)."""
    k = np.dtype(dt).kind
    if device == "gpu" and k not in "iu" and \
            not gb.backend.get("gpu").SCATTER_KERNEL:
        return False
    if k == "b":
        return op in ("min", "max", "plus", "lor", "land")
    if k == "f":
        return op in ("min", "max")
    return op in ("min", "max", "plus")


def dense_model(idx, vals, size, op, dt):
    """``ufunc.at`` into a dense array and a presence array: values where
    present (the fold order of min/max/and/or does not change the result;
    integer add wraps in the type, as NumPy's does)."""
    dt = np.dtype(dt)
    vals = np.asarray(vals, dtype=dt)
    pres = np.zeros(size, dtype=bool)
    pres[np.asarray(idx, dtype=np.int64)] = True
    if dt.kind == "b":
        uf = np.logical_and if op in ("min", "land") else np.logical_or
        out = np.full(size, op in ("min", "land"), dtype=bool)
    elif dt.kind == "f":
        uf = {"min": np.fmin, "max": np.fmax}[op]
        out = np.full(size, np.nan, dtype=dt)
    else:
        info = np.iinfo(dt)
        uf = {"min": np.minimum, "max": np.maximum, "plus": np.add}[op]
        out = np.full(size, {"min": info.max, "max": info.min, "plus": 0}[op], dtype=dt)
    uf.at(out, np.asarray(idx, dtype=np.int64), vals)
    keys = np.flatnonzero(pres)
    return keys, out[keys]


def host(device, a):
    return np.asarray(gb.backend.get(device).to_host(a))


def same_values(got, want, dt):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == np.dtype(dt)
    if np.dtype(dt).kind == "f":
        assert np.array_equal(np.isnan(got), np.isnan(want)), (got, want)
        ok = ~np.isnan(want)
        assert np.array_equal(got[ok], want[ok]), (got, want)   # -0.0 == 0.0
    else:
        assert np.array_equal(got, want), (got, want)


def check_model(idx, vals, size, op, dt, device):
    """The build against the dense model, and against the sort path (the same
    entries in a vector of 16 (m + 1) + size positions: too few entries for
    the scatter)."""
    idx = np.asarray(idx, dtype=np.int64)
    vals = np.asarray(vals, dtype=dt)
    v = gb.Vector.from_coo(idx, vals, size, dtype=dt, dup_op=op, device=device)
    assert v.size == size and v.dtype == np.dtype(dt)
    if len(idx) >= size / 16 and len(idx):        # (to_coo may turn it sparse: first)
        assert v.form == ("dense" if fast_kind(op, dt, device) else "sparse"), (op, dt)
    assert v.nvals == len(np.unique(idx))
    keys, want = dense_model(idx, vals, size, op, dt)
    gi, gv = (host(device, a) for a in v.to_coo())
    assert gi.tolist() == keys.tolist()
    same_values(gv, want, dt)
    big = 16 * (len(idx) + 1) + size
    s = gb.Vector.from_coo(idx, vals, big, dtype=dt, dup_op=op, device=device)
    assert s.form == "sparse"                        # the sort path
    si, sv = (host(device, a) for a in s.to_coo())
    assert si.tolist() == gi.tolist()
    same_values(gv, sv, dt)
    return v


def tricky_values(dt):
    dt = np.dtype(dt)
    if dt.kind == "b":
        return np.array([True, False, True, True, False, False, True, False, True, True, False])
    if dt.kind == "f":
        return np.array([np.nan, -0.0, 0.0, np.inf, -np.inf, np.nan, 2.5, -3.0, np.nan,
                         np.finfo(dt).max, np.finfo(dt).min], dtype=dt)
    info = np.iinfo(dt)
    return np.array([info.max, info.min, info.max, 0, 1, info.min, 7, 7, info.max, info.max,
                     -3 if info.min < 0 else 3], dtype=dt)


# positions: 0 twice, 3 three times, 8 three times, 5 twice, 1 once; 2, 4, 6, 7 none;
# position 2 of the float case gets NaN, NaN (all NaN); 3 gets -0.0, +0.0 and -inf
TRICKY_IDX = np.array([2, 3, 3, 3, 8, 2, 5, 5, 8, 8, 1])


@pytest.mark.parametrize("dt", ALL)
@pytest.mark.parametrize("op", ["min", "max", "plus", "lor", "land"])
def test_every_type_against_model_and_sort_path(device, dt, op):
    if np.dtype(dt).kind != "b" and op in ("lor", "land"):
        # on a number: the sort path, not a scatter; duplicates combine to
        # 0/1, an index given once keeps its value (GraphBLAS build, as
        # python-graphblas / SuiteSparse: Vector.from_coo([1, 2, 2], [-3, 4, 0],
        # dup_op=lor) is {1: -3, 2: 1})
        vals = tricky_values(dt)
        v = gb.Vector.from_coo(TRICKY_IDX, vals, 9, dup_op=op, device=device)
        assert v.form == "sparse"
        want = {}
        for i, x in zip(TRICKY_IDX.tolist(), vals.tolist()):
            if i not in want:
                want[i] = x
            else:
                a, b = want[i] != 0, x != 0
                want[i] = int(a or b) if op == "lor" else int(a and b)
        gi, gv = (host(device, a) for a in v.to_coo())
        assert gi.tolist() == sorted(want)
        assert gv.tolist() == [want[i] for i in sorted(want)]
        return
    if np.dtype(dt).kind == "f" and op == "plus":
        # a float sum depends on the order: sort path, checked against it only
        idx = TRICKY_IDX
        vals = np.array([1.0, 2.0, 0.5, 0.25, 8.0, -1.0, 3.0, 3.0, 1e3, -1e3, 4.0], dtype=dt)
        v = gb.Vector.from_coo(idx, vals, 9, dup_op=op, device=device)
        assert v.form == "sparse"
        gi, gv = (host(device, a) for a in v.to_coo())
        assert gi.tolist() == [1, 2, 3, 5, 8]
        assert gv.tolist() == [4.0, 0.0, 2.75, 6.0, 8.0]
        return
    check_model(TRICKY_IDX, tricky_values(dt), 9, op, dt, device)


@pytest.mark.parametrize("dt", [np.int64, np.uint64, np.float64, np.bool_, np.int8])
@pytest.mark.parametrize("op", ["min", "max", "plus"])
def test_one_index_size_one_and_empty(device, dt, op):
    if np.dtype(dt).kind == "f" and op == "plus":
        return
    vals = tricky_values(dt)
    check_model(np.zeros(len(vals), np.int64), vals, 1, op, dt, device)    # size 1
    check_model(np.full(len(vals), 6), vals, 7, op, dt, device)             # all one index
    check_model(np.zeros(1, np.int64), vals[:1], 1, op, dt, device)         # one entry
    for size in (0, 1, 5):                                                  # no entries
        v = gb.Vector.from_coo(np.zeros(0, np.int64), np.zeros(0, dt), size, dup_op=op,
                               device=device)
        assert v.size == size and v.nvals == 0 and v.dtype == np.dtype(dt)


def test_int64_extremes_sum_wraps_and_min_is_signed(device):
    lo, hi = np.iinfo(np.int64).min, np.iinfo(np.int64).max
    idx = np.array([0, 0, 1, 1, 2, 2])
    vals = np.array([hi, 1, lo, -1, lo, hi], dtype=np.int64)
    v = gb.Vector.from_coo(idx, vals, 3, dup_op="plus", device=device)
    assert v.form == "dense"
    assert host(device, v.to_dense()).tolist() == [lo, hi, -1]   # wraps both ways
    v = gb.Vector.from_coo(idx, vals, 3, dup_op="min", device=device)
    assert host(device, v.to_dense()).tolist() == [1, lo, lo]    # signed, not unsigned bits
    v = gb.Vector.from_coo(idx, vals, 3, dup_op="max", device=device)
    assert host(device, v.to_dense()).tolist() == [hi, -1, hi]


def test_float_nan_loses_and_all_nan_stays(device):
    nan = np.nan
    idx = np.array([0, 0, 1, 1, 2, 3])
    vals = np.array([nan, 2.0, nan, nan, nan, -1.0])
    for op, want in (("min", [2.0, nan, nan, -1.0]), ("max", [2.0, nan, nan, -1.0])):
        v = gb.Vector.from_coo(idx, vals, 4, dup_op=op, device=device)
        assert v.form == ("dense" if fast_kind(op, np.float64, device) else "sparse")
        assert v.nvals == 4
        got = host(device, v.to_dense())
        np.testing.assert_array_equal(got, np.array(want))


SR_UMIN = gb.BinaryOp.register("sr_umin", lambda x, y: x if x < y else y, "(x < y ? x : y)")


def test_other_operators_and_user_ops_take_the_sort_path(device):
    idx = np.array([0, 1, 1, 2, 2, 2])
    vals = np.array([5, 10, 2, 3, 4, 6], dtype=np.int64)
    want = {"times": [5, 20, 72], "minus": [5, 8, -7], "first": [5, 10, 3],
            "second": [5, 2, 6], "any": None}
    for op, w in want.items():
        v = gb.Vector.from_coo(idx, vals, 3, dup_op=op, device=device)
        assert v.form == "sparse", op
        if w is not None:
            assert host(device, v.to_coo()[1]).tolist() == w, op
    v = gb.Vector.from_coo(idx, vals, 3, dup_op=SR_UMIN, device=device)   # user-defined
    assert v.form == "sparse"
    assert host(device, v.to_coo()[1]).tolist() == [5, 2, 3]


def test_bad_input_refused_before_the_scatter(device):
    for dt in (np.int64, np.float64, np.bool_):
        with pytest.raises(gb.IndexOutOfBound):
            gb.Vector.from_coo([0, 1, 3], np.ones(3, dt), 3, dup_op="min", device=device)
        with pytest.raises(gb.IndexOutOfBound):
            gb.Vector.from_coo([0, -2, 1], np.ones(3, dt), 3, dup_op="max", device=device)
    with pytest.raises(gb.DimensionMismatch):
        gb.Vector.from_coo([0, 1, 1], [1, 2], 3, dup_op="min", device=device)
    with pytest.raises(gb.InvalidIndex):
        gb.Vector.from_coo(np.array([0.0, 1.0, 1.0]), [1, 2, 3], 3, dup_op="min", device=device)


MODEL_CASES = dict(size=st.integers(1, 50), m=st.integers(0, 160),
                   op=st.sampled_from(["min", "max", "plus", "lor", "land"]),
                   dt=st.sampled_from(ALL), seed=st.integers(0, 2**32 - 1))


def random_model_case(size, m, op, dt, seed, device):
    dt = np.dtype(dt)
    if dt.kind != "b" and op in ("lor", "land"):
        op = "min"
    if dt.kind == "f" and op == "plus":
        op = "max"
    idx, vals = random_entries(size, m, dt, seed)
    check_model(idx, vals, size, op, dt, device)


@given(**MODEL_CASES)
@settings(max_examples=80, deadline=None)
def test_against_dense_model_cpu(size, m, op, dt, seed):
    random_model_case(size, m, op, dt, seed, "cpu")


@pytest.mark.gpu
@given(**MODEL_CASES)
@settings(max_examples=60, deadline=None)
def test_against_dense_model_gpu(size, m, op, dt, seed):
    random_model_case(size, m, op, dt, seed, "gpu")


def test_gpu_and_cpu_agree_on_a_large_scatter(device):
    """Many entries into few positions (atomic contention on the GPU, as a
    root's children in CC) and into many, every scatter type."""
    rng = np.random.default_rng(7)
    n = 200_000
    for dt, ops in ((np.int64, ("min", "max", "plus")), (np.int32, ("min", "plus")),
                    (np.uint64, ("max", "plus")), (np.float32, ("min", "max")),
                    (np.bool_, ("min", "max")), (np.int16, ("plus", "min"))):
        for targets in (5, n):
            idx = rng.integers(0, targets, n)
            vals = (rng.integers(-10**6, 10**6, n) if np.dtype(dt).kind in "iu"
                    else rng.standard_normal(n)).astype(dt)
            for op in ops:
                check_model(idx, vals, n, op, dt, device)


@pytest.mark.gpu
@pytest.mark.parametrize("own_kernel", [False, True])
def test_gpu_scatter_waits_never_and_the_build_only_for_its_checks(monkeypatch, own_kernel):
    """The GPU scatter (cupyx's, and the backend's own kernel switched on)
    waits on the device never; a whole build waits only for the input checks
    (negative indices, indices >= size: two reads of a device scalar)."""
    be = gb.backend.get("gpu")
    monkeypatch.setattr(type(be), "SCATTER_KERNEL", own_kernel)
    import cupy
    n = 50_000
    rng = np.random.default_rng(3)
    idx = cupy.asarray(rng.integers(0, n // 7, n))
    vals = cupy.asarray(rng.integers(-n, n, n))
    for warm in (False, True):              # the first run compiles and loads the kernel
        try:
            ctx = be.count_syncs()
        except RuntimeError as e:           # pragma: no cover - depends on the CuPy version
            pytest.skip(str(e))
        with ctx as c:
            out, pres = be.scatter_reduce(idx, vals, n, "min")
        if warm:
            assert c.count == 0, f"{c.count} syncs in scatter_reduce (own kernel: {own_kernel})"
        with be.count_syncs() as c:
            v = gb.Vector.from_coo(idx, vals, n, dup_op="min", device="gpu")
        if warm:
            assert c.count <= 2, f"{c.count} syncs in Vector.from_coo(dup_op=min)"
        assert v.form == "dense"
    keys, want = dense_model(cupy.asnumpy(idx), cupy.asnumpy(vals), n, "min", np.int64)
    assert np.array_equal(cupy.asnumpy(cupy.flatnonzero(pres)), keys)
    assert np.array_equal(cupy.asnumpy(out)[keys], want)


@pytest.mark.parametrize("dt", [np.int8, np.int64, np.uint64, np.float32, np.bool_])
@pytest.mark.parametrize("op", ["min", "max", "plus"])
def test_generic_ufunc_at_form_matches_the_cpu_kernel(dt, op):
    """ArrayBackend.scatter_reduce (the generic ufunc.at form a new backend
    inherits) against the CPU backend's numba loop, where present."""
    from graphblast_py.backend.generic import ArrayBackend
    if np.dtype(dt).kind == "f" and op == "plus":
        return
    be = gb.backend.get("cpu")
    kind = be.scatter_kind(getattr(gb.binary, op), dt)
    vals = tricky_values(dt)
    got_v, got_p = ArrayBackend.scatter_reduce(be, TRICKY_IDX, vals, 9, kind)
    want_v, want_p = be.scatter_reduce(TRICKY_IDX, vals, 9, kind)
    assert np.array_equal(got_p, want_p)
    same_values(got_v[got_p], want_v[want_p], dt)


@pytest.mark.gpu
@pytest.mark.parametrize("dt", [np.int8, np.int16, np.int32, np.int64, np.uint64, np.float32,
                                np.float64, np.bool_])
def test_gpu_scatter_kernel_switched_on(monkeypatch, dt):
    """The GPU backend's own scatter kernel (SCATTER_KERNEL, off by default
    until it has run on a GPU) against the dense model and the sort path,
    every type it takes, with contention."""
    monkeypatch.setattr(type(gb.backend.get("gpu")), "SCATTER_KERNEL", True)
    rng = np.random.default_rng(11)
    n = 5000
    ops = ("min", "max") if np.dtype(dt).kind in "fb" else ("min", "max", "plus")
    for targets in (3, n):
        idx = rng.integers(0, targets, n)
        vals = (rng.integers(-100, 100, n) if np.dtype(dt).kind in "iu"
                else rng.standard_normal(n)).astype(dt)
        if np.dtype(dt).kind == "u":
            vals = rng.integers(0, 200, n).astype(dt)
        for op in ops:
            check_model(idx, vals, n, op, dt, "gpu")


@pytest.mark.parametrize("dt", [np.int64, np.uint32, np.int8, np.float64, np.float32, bool])
@pytest.mark.parametrize("layout", ["one_root", "two_roots_mixed", "runs", "distinct"])
def test_many_entries_on_few_positions(device, dt, layout):
    """Connected components' hooking: hundreds of thousands of entries, most
    on one or two positions (the GPU kernel combines the lanes of a warp that
    share a position before its one atomic), in runs, or all distinct (no
    lane shares); against the dense model and the sort path."""
    rng = np.random.default_rng(abs(hash((str(np.dtype(dt)), layout))) % 2**32)
    size, m = 5000, 300_001
    if layout == "one_root":
        idx = np.zeros(m, np.int64)
    elif layout == "two_roots_mixed":
        idx = np.where(rng.random(m) < 0.9, rng.integers(0, 2, m), rng.integers(0, size, m))
    elif layout == "runs":
        idx = np.repeat(rng.integers(0, size, m // 37 + 1), 37)[:m]
    else:
        idx = rng.permutation(size)
        m = size
    ops = ["min", "max"] if np.dtype(dt).kind in "bf" else ["min", "max", "plus"]
    for op in ops:
        if np.dtype(dt).kind == "b":
            vals = rng.random(m) < 0.5
        elif np.dtype(dt).kind == "f":
            vals = np.where(rng.random(m) < 0.01, np.nan, rng.standard_normal(m)).astype(dt)
        else:
            info = np.iinfo(dt)
            vals = rng.integers(info.min, int(info.max) + 1, m,
                                dtype=np.int64 if info.min < 0 else np.uint64).astype(dt)
        check_model(idx, vals, size, op, dt, device)
