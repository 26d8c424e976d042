"""Vector.from_coo with dup_op min / max / plus on integer types: the
unsorted scatter path (NumPy ufunc.at on the CPU, atomics on the GPU) against
a pure-Python reference (a dict folded entry by entry), and against the sort
path it replaces; what connected components' hooking relies on."""
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


def random_case(size, m, op, dt, seed, device):
    rng = np.random.default_rng(seed)
    info = np.iinfo(dt)
    idx = rng.integers(0, size, m)
    vals = rng.integers(info.min, int(info.max) + 1, m, dtype=np.int64 if info.min < 0
                        else np.uint64).astype(dt)
    check(idx, vals, size, op, dt, device)


@given(**CASES)
@settings(max_examples=60, deadline=None)
def test_against_reference_cpu(size, m, op, dt, seed):
    random_case(size, m, op, dt, seed, "cpu")


@pytest.mark.gpu
@given(**CASES)
@settings(max_examples=30, deadline=None)
def test_against_reference_gpu(size, m, op, dt, seed):
    random_case(size, m, op, dt, seed, "gpu")
