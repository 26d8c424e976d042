"""In-place level updates and lent arrays (issue 15).

A vector writes a store in place (``Vector._update_scalar`` /
``_update_where`` / ``_update_dense``) only into arrays it owns: arrays no
one else can see.  Operations that read a vector's arrays only during the
call (a pull kernel's input, the mask a kernel tests, a count) borrow them
(``Vector._lend``, ``_dense(lend=True)``, ``Mask.dense_parts``) and leave
the ownership; everything that may keep them (a result, a cached mask form,
``dup``) takes them (``_view``, ``_dense()``, ``Mask.dense``), and the next
store then copies.  These tests check both halves: the BFS level vector is
written in place after it was pull's input and mask (that part fails on the
code before the change, which copied every level), and every object that
kept an array still sees the content it had.
"""
import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph

import graphblast_py as gb
from graphblast_py import Vector, semiring
from graphblast_py.backend.cpu import rowops

from .conftest import host


def _levels_ref(S, src):
    """(reached vertices sorted, their BFS levels) by SciPy."""
    d = csgraph.shortest_path(sp.csr_matrix(S, dtype=float), unweighted=True, indices=src,
                              directed=True)
    reach = np.flatnonzero(np.isfinite(d))
    return reach, d[reach].astype(np.int64)


def _loop(A, src, direction, pull_input=True):
    """The README's BFS loop with a forced (or auto) direction."""
    n = A.nrows
    levels = Vector("int64", n, device=A.device)
    f = Vector.from_coo([src], True, size=n, device=A.device)
    d = 0
    while f.nvals:
        levels.assign(d, mask=f.S)
        f.vxm(A, semiring.any_pair, mask=~levels.S, replace=True, out=f,
              pull_input=levels if pull_input else None, direction=direction)
        d += 1
    return levels


def _graphs():
    rng = np.random.default_rng(7)
    out = {}
    # two components, isolated vertices in between, a self loop
    G = nx.disjoint_union(nx.path_graph(30), nx.cycle_graph(17))
    G.add_nodes_from(range(47, 60))
    G.add_edge(3, 3)
    out["disconnected"] = nx.to_scipy_sparse_array(G, nodelist=range(60), format="csr")
    out["grid"] = nx.to_scipy_sparse_array(nx.grid_2d_graph(23, 19), format="csr")
    # power law: a Kronecker graph (hubs, many isolated vertices)
    out["kron"] = gb.generators.kronecker(11, seed=3, device="cpu").to_scipy().tocsr()
    # directed, a few vertices unreachable one way
    D = sp.random(400, 400, density=0.006, random_state=5, format="csr")
    out["directed"] = (D != 0).astype(bool).tocsr()
    star = nx.star_graph(300)          # a hub: the second level is dense
    out["star"] = nx.to_scipy_sparse_array(star, format="csr")
    out["empty"] = sp.csr_matrix((50, 50), dtype=bool)
    del rng
    return out


GRAPHS = _graphs()


@pytest.mark.parametrize("name", sorted(GRAPHS))
@pytest.mark.parametrize("direction", ["auto", "push", "pull"])
@pytest.mark.parametrize("pull_input", [True, False])
def test_bfs_levels_in_place_match_scipy(device, name, direction, pull_input):
    """Level updates after the level vector was pull's input and mask give
    SciPy's levels, from several sources (a hub, an isolated vertex, a
    vertex of a small component)."""
    S = GRAPHS[name]
    A = gb.Matrix.from_scipy(S, device=device)
    deg = np.diff(S.indptr)
    for src in {int(np.argmax(deg)), int(np.argmin(deg)), S.shape[0] - 1, 0}:
        lv = _loop(A, src, direction, pull_input)
        i, x = (host(a) for a in lv.to_coo())
        reach, want = _levels_ref(S, src)
        np.testing.assert_array_equal(i, reach)
        np.testing.assert_array_equal(x, want)
        got = gb.algorithms.bfs(A, src)
        np.testing.assert_array_equal(host(got.to_coo()[0]), reach)
        np.testing.assert_array_equal(host(got.to_coo()[1]), want)


def test_level_vector_written_in_place_after_pull(device):
    """After pull read the level vector (its input and its mask ~levels.S),
    the next level update writes the same arrays (no copy of n entries per
    level); the code before this change copied them every level."""
    S = GRAPHS["star"]
    A = gb.Matrix.from_scipy(S, device=device)
    n = A.nrows
    levels = Vector("int64", n, device=device, form="dense")
    f = Vector.from_coo([0], True, size=n, device=device)
    levels.assign(0, mask=f.S)
    f.vxm(A, semiring.any_pair, mask=~levels.S, replace=True, out=f, direction="push")
    levels.assign(1, mask=f.S)                          # the hub's 300 leaves
    before = levels._lend()
    g = Vector.from_coo([5], True, size=n, device=device)
    g.vxm(A, semiring.any_pair, mask=~levels.S, replace=True, out=g, pull_input=levels,
          direction="pull")
    assert g.nvals == 0                                 # everything is visited
    lv = levels._lend()
    assert lv.vals is before.vals and lv.present is before.present
    extra = Vector.from_coo([3], True, size=n, device=device)
    levels.assign(7, mask=extra.S)
    after = levels._lend()
    assert after.vals is before.vals and after.present is before.present   # in place
    assert levels[3] == 7 and levels[0] == 0 and levels[4] == 1


def _dense_level(device, n=200):
    lv = Vector("int64", n, device=device, form="dense")
    lv.assign(0, mask=Vector.from_coo(np.arange(0, n, 3), True, size=n, device=device).S)
    lv.assign(1, mask=Vector.from_coo([1], True, size=n, device=device).S)   # owned now
    return lv


@pytest.mark.parametrize("keeper", ["dup", "mask_S", "apply_mask_S", "view", "dense"])
@pytest.mark.parametrize("frontier_form", ["sparse", "dense"])
def test_kept_arrays_never_written_in_place(device, keeper, frontier_form):
    """Whatever kept the level vector's arrays (a dup, a cached mask form,
    a result that took the mask's presence as its own, a view) still sees
    the old content after the next level update, which copies instead."""
    n = 200
    lv = _dense_level(device, n)
    a = Vector.from_dense(np.arange(n, dtype=np.float64), device=device)
    want_lv = (host(lv.to_coo()[0]), host(lv.to_coo()[1]))
    m = lv.S
    kept = None
    if keeper == "dup":
        kept = lv.dup()
    elif keeper == "mask_S":
        a.apply(gb.unary.identity, mask=m)      # m caches lv's presence (handed out)
    elif keeper == "apply_mask_S":
        kept = a.apply(gb.unary.identity, mask=m, replace=True)
    elif keeper == "view":
        held = lv._view()
        held_copy = [None if x is None else host(x).copy() for x in held]
    else:
        held = lv._dense()
        held_copy = [None if x is None else host(x).copy() for x in held]
    kept_coo = None if kept is None else (host(kept.to_coo()[0]), host(kept.to_coo()[1]))
    new = np.arange(1, n, 7)
    F = Vector.from_coo(new, True, size=n, device=device)
    if frontier_form == "dense":
        F._dense()
    assert F.form == frontier_form
    lv.assign(9, mask=F.S)
    # the level vector has the new content
    ref = np.full(n, -1)
    ref[want_lv[0]] = want_lv[1]
    ref[new] = 9
    got = host(lv.to_dense(fill=-1))
    np.testing.assert_array_equal(got, ref)
    # and what was kept has the old one
    if kept is not None:
        np.testing.assert_array_equal(host(kept.to_coo()[0]), kept_coo[0])
        np.testing.assert_array_equal(host(kept.to_coo()[1]), kept_coo[1])
    if keeper in ("view", "dense"):
        for x, c in zip(held, held_copy):
            if x is not None:
                np.testing.assert_array_equal(host(x), c)
    # a mask object evaluated before the update reads the new structure
    r = a.apply(gb.unary.identity, mask=m)
    np.testing.assert_array_equal(host(r.to_coo()[0]), np.flatnonzero(ref >= 0))


@pytest.mark.parametrize("w_form", ["sparse", "empty", "dense", "full"])
@pytest.mark.parametrize("f_form", ["sparse", "dense", "full", "self"])
@pytest.mark.parametrize("dtype", ["int64", "int8", "bool", "float32", "uint64"])
@pytest.mark.parametrize("n", [150, 2000])
def test_scalar_assign_under_structure_matches_model(device, w_form, f_form, dtype, n):
    """``w<F.S> = s`` on every combination of the forms (the fast paths for
    a sparse and a dense F, F being w itself, an empty w; at n=2000 a sparse
    w and F stay below the dense fraction: the key path) equals the NumPy
    model."""
    rng = np.random.default_rng(11)
    wi = np.sort(rng.choice(n, 40, replace=False))
    wv = rng.integers(0, 100, 40)
    if w_form == "empty":
        w = Vector(dtype, n, device=device)
    elif w_form == "full":
        w = Vector.from_dense(rng.integers(0, 100, n), dtype=dtype, device=device)
    else:
        w = Vector.from_coo(wi, wv, size=n, dtype=dtype, device=device)
        if w_form == "dense":
            w._dense()
    model_v = np.zeros(n, dtype=dtype)
    model_p = np.zeros(n, dtype=bool)
    i0, x0 = (host(a) for a in w.to_coo())
    model_v[i0], model_p[i0] = x0, True
    if f_form == "self":
        F = w
    elif f_form == "full":
        F = Vector.from_dense(np.ones(n, dtype=bool), device=device)
    else:
        F = Vector.from_coo(np.sort(rng.choice(n, 30, replace=False)), 5, size=n,
                            device=device)
        if f_form == "dense":
            F._dense()
    fi = host(F.to_coo()[0])
    s = np.uint64(np.iinfo(np.uint64).max) if dtype == "uint64" else 3
    w.assign(s, mask=F.S)
    model_v[fi] = np.asarray(s).astype(dtype)
    model_p[fi] = True
    i, x = (host(a) for a in w.to_coo())
    np.testing.assert_array_equal(i, np.flatnonzero(model_p))
    np.testing.assert_array_equal(x, model_v[model_p])
    assert w.nvals == model_p.sum()


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint16, np.int32, np.int64,
                                   np.uint64, np.float32, np.float64])
@pytest.mark.parametrize("parallel", [False, True])
def test_cpu_assign_where_kernel(monkeypatch, dtype, parallel):
    """The CPU backend's one-pass ``vals[m] = s; pres |= m`` against NumPy,
    serial and with the parallel kernel forced."""
    monkeypatch.setattr(rowops, "DENSE_PARALLEL", 1 if parallel else 1 << 40)
    rng = np.random.default_rng(3)
    n = 1000
    vals = rng.integers(0, 50, n).astype(dtype)
    pres = rng.random(n) < 0.3
    m = rng.random(n) < 0.2
    s = np.asarray(np.iinfo(dtype).max if np.dtype(dtype).kind in "iu" else
                   (True if dtype is np.bool_ else -2.5)).astype(dtype)[()]
    wv, wp = vals.copy(), pres.copy()
    wv[m] = s
    wp |= m
    be = gb.backend.get("cpu")
    be.assign_where(vals, pres, m, s)
    np.testing.assert_array_equal(vals, wv)
    np.testing.assert_array_equal(pres, wp)
    be.assign_where(vals, pres, pres, s)        # the mask is the presence itself
    wv[wp] = s
    np.testing.assert_array_equal(vals, wv)
    np.testing.assert_array_equal(pres, wp)
