"""The CPU traversal kernel's pieces (backend/cpu/traverse.py,
backend/cpu/rowops.py): the level sort (an insertion sort that gives up on
a level far from sorted) against NumPy's sort, the whole traversal against
SciPy's breadth-first order on graphs whose levels come out sorted (a grid),
nearly sorted and far from sorted (random, power-law), and the segment
fill of the deferred level fills against NumPy's repeat."""
import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph

import graphblast_py as gb
from graphblast_py.device import backend_for
from graphblast_py.backend.cpu.rowops import copy_at, fill_segments
from graphblast_py.backend.cpu.traverse import sort_nearly_sorted, traverse


@pytest.mark.parametrize("kind", ["sorted", "reversed", "nearly", "random", "dups", "short"])
def test_sort_level_vs_numpy(kind):
    rng = np.random.default_rng(7)
    n = 500
    base = {"sorted": np.arange(n), "reversed": np.arange(n)[::-1].copy(),
            "nearly": np.arange(n) + rng.integers(-3, 4, n),
            "random": rng.permutation(10 * n)[:n], "dups": rng.integers(0, 20, n),
            "short": np.array([3, 1])}[kind].astype(np.int64)
    a = np.concatenate([[99, -5], base, [7, -1]]).astype(np.int64)
    want = a.copy()
    want[2:-2] = np.sort(base)
    sort_nearly_sorted(a, 2, a.shape[0] - 2, 4 * base.shape[0] + 16)
    np.testing.assert_array_equal(a, want)        # the range sorted, the rest untouched


def _levels_ref(S, src):
    d = csgraph.shortest_path(S, unweighted=True, indices=src)
    return d


@pytest.mark.parametrize("graph", ["grid", "random", "kron", "components"])
def test_traverse_levels_vs_scipy(graph):
    if graph == "grid":
        S = gb.generators.grid2d(40, 30, device="cpu").to_scipy().tocsr()
    elif graph == "random":
        S = sp.random(400, 400, density=0.01, format="csr", random_state=3)
    elif graph == "kron":
        S = gb.generators.kronecker(10, seed=2, device="cpu").to_scipy().tocsr()
    else:
        S = sp.block_diag([gb.generators.grid2d(5, 5, device="cpu").to_scipy(),
                           sp.csr_matrix((7, 7))]).tocsr()
    n = S.shape[0]
    vis = np.zeros(n, bool)
    vis[0] = True
    order, offsets, complete, par = traverse(S.indptr, S.indices, np.array([0]), vis,
                                             n, n, parents=True)
    assert complete and not vis[1:].any()          # visited is not changed
    d = _levels_ref(S, 0)
    for lev in range(1, len(offsets)):
        got = order[offsets[lev - 1]:offsets[lev]]
        np.testing.assert_array_equal(got, np.flatnonzero(d == lev))
        p = par[offsets[lev - 1]:offsets[lev]]
        assert (d[p] == lev - 1).all() and all(S[int(u), int(v)] != 0 for u, v in zip(p, got))
    assert offsets[-1] == np.isfinite(d).sum() - 1


@pytest.mark.parametrize("dtype", [np.int64, np.int8, np.float32, np.bool_, np.uint16])
def test_fill_segments_vs_numpy(dtype):
    rng = np.random.default_rng(1)
    n = 300
    keys = rng.permutation(n)[:200].astype(np.int64)
    starts = np.array([0, 0, 13, 90, 150, 200], dtype=np.int64)   # an empty segment too
    s = np.array([5, 1, 0, 3, 2], dtype=dtype)
    vals = rng.integers(0, 9, n).astype(dtype)
    pres = rng.random(n) < 0.2
    want_v, want_p = vals.copy(), pres.copy()
    want_v[keys] = np.repeat(s, np.diff(starts))
    want_p[keys] = True
    assert fill_segments(vals, pres, keys, s, starts)
    np.testing.assert_array_equal(vals, want_v)
    np.testing.assert_array_equal(pres, want_p)


def test_fill_segments_declines_what_it_cannot_do():
    keys = np.array([0, 2], dtype=np.int64)
    v = np.zeros(4, dtype=object)
    assert not fill_segments(v, np.zeros(4, bool), keys, np.array([1], dtype=object),
                             np.array([0, 2]))
    assert not fill_segments(np.zeros(4), None, keys, np.array([1.0]), np.array([0, 2]))
    # the backend then takes NumPy's path
    pres = np.zeros(4, bool)
    backend_for("cpu").fill_at(v, pres, keys, np.array([1, 2], dtype=object),
                               np.array([0, 1, 2]))
    assert list(v) == [1, 0, 2, 0] and pres.tolist() == [True, False, True, False]


@pytest.mark.parametrize("dtype", [np.int64, np.int8, np.float64, np.bool_, np.uint32])
def test_copy_at_vs_numpy(dtype):
    """The deferred parent copies' one pass (rowops.copy_at) against NumPy's
    fancy-indexed stores; and what it declines, the backend does by NumPy."""
    rng = np.random.default_rng(2)
    n = 300
    keys = rng.permutation(n)[:120].astype(np.int64)
    src = rng.integers(0, 50, 120).astype(dtype)
    vals = rng.integers(0, 9, n).astype(dtype)
    pres = rng.random(n) < 0.3
    want_v, want_p = vals.copy(), pres.copy()
    want_v[keys] = src
    want_p[keys] = True
    assert copy_at(vals, pres, keys, src)
    np.testing.assert_array_equal(vals, want_v)
    np.testing.assert_array_equal(pres, want_p)
    assert not copy_at(vals, pres, keys, src.astype(np.float32))     # another type
    assert not copy_at(vals, pres, keys, src[:5])                    # another length
    v, p = np.zeros(4, dtype=object), np.zeros(4, bool)
    assert not copy_at(v, p, np.array([1, 3]), np.array([7, 8], dtype=object))
    backend_for("cpu").copy_at(v, p, np.array([1, 3]), np.array([7, 8], dtype=object))
    assert list(v) == [0, 7, 0, 8] and p.tolist() == [False, True, False, True]
