"""Traversal speculation (operations/speculate.py): a BFS-shaped vxm/mxv that
continues a chain of them is answered from one whole-traversal kernel.

* results identical (structure, values, dtype) to the speculation-off path and
  to SciPy's BFS levels: grids (60x60, 200x3), a path, isolated vertices,
  several components, a directed graph, a frontier that outgrows the capacity
  in the middle, a level cap, one-vertex and edgeless graphs, the README loop
  (vxm and mxv), an out=None loop and algorithms.bfs;
* invalidation: the mask vector changed otherwise (an extra entry, a deleted
  one), the frontier changed, another out, the matrix changed, two BFS loops
  interleaved on one matrix -- each gives the ordinary path's result;
* a Hypothesis test over random small graphs and random perturbations;
* gb.stats: the speculation fires on a grid and a path, not on a Kronecker
  graph.
"""
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse import csgraph

import graphblast_py as gb
from graphblast_py import Vector, backend, semiring
from graphblast_py.algorithms import bfs
from graphblast_py.operations import speculate

from .conftest import host


@pytest.fixture
def spec_on(device):
    """The device's backend with speculation on (restored afterwards)."""
    be = backend.get(device)
    saved = be.speculate, be.speculate_capacity, be.speculate_levels
    be.speculate = True
    yield be
    be.speculate, be.speculate_capacity, be.speculate_levels = saved


def coo(v):
    i, x = v.to_coo()
    return host(i), host(x)


def same(a, b):
    assert a.dtype == b.dtype and a.size == b.size
    (ia, xa), (ib, xb) = coo(a), coo(b)
    np.testing.assert_array_equal(ia, ib)
    np.testing.assert_array_equal(xa, xb)


def scipy_levels(S, src):
    d = csgraph.shortest_path(sp.csr_matrix(S), unweighted=True, indices=src, directed=True)
    reach = np.flatnonzero(np.isfinite(d))
    return reach, d[reach].astype(np.int64)


def matrix(S, device):
    S = sp.csr_matrix(S)
    r, c = S.nonzero()
    return gb.Matrix.from_coo(r, c, True, S.shape[0], S.shape[1], device=device)


def readme_loop(A, src, be, on, mxv=False, out_none=False, frontier_dtype=bool):
    """The README's loop; returns (levels, the frontier after every level)."""
    be.speculate = on
    n = A.nrows
    level = Vector("int32", n, device=A.device)
    frontier = Vector.from_coo([src], True, size=n, dtype=frontier_dtype, device=A.device)
    seen, depth = [], 0
    while frontier.nvals:
        level.assign(depth, mask=frontier.S)
        if out_none:
            frontier = (A.mxv(frontier, semiring.any_pair, mask=~level.S) if mxv else
                        frontier.vxm(A, semiring.any_pair, mask=~level.S))
        elif mxv:
            A.mxv(frontier, semiring.any_pair, mask=~level.S, replace=True, out=frontier)
        else:
            frontier.vxm(A, semiring.any_pair, mask=~level.S, replace=True, out=frontier)
        seen.append(coo(frontier) + (str(frontier.dtype),))
        depth += 1
    return level, seen


def check_graph(S, src, device, be, **kw):
    A = matrix(S, device)
    gb.stats.reset()
    lv_on, seen_on = readme_loop(A, src, be, True, **kw)
    fired = gb.stats()["counts"].get("traversal:launched", 0)
    lv_off, seen_off = readme_loop(A, src, be, False, **kw)
    same(lv_on, lv_off)
    assert len(seen_on) == len(seen_off)
    for a, b in zip(seen_on, seen_off):
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_array_equal(a[1], b[1])
        assert a[2] == b[2]
    reach, d = scipy_levels(S.T if kw.get("mxv") else S, src)
    i, x = coo(lv_on)
    np.testing.assert_array_equal(i, reach)
    np.testing.assert_array_equal(x, d)
    return fired


def grid(r, c):
    return sp.csr_matrix(gb.generators.grid2d(r, c, device="cpu").to_scipy())


def path(n, directed=False):
    S = sp.diags([np.ones(n - 1)], [1], shape=(n, n), format="csr")
    return S if directed else S + S.T


# ---------------------------------------------------------------- results
@pytest.mark.parametrize("shape", [(60, 60), (200, 3)])
def test_grid(shape, device, spec_on):
    assert check_graph(grid(*shape), 0, device, spec_on) >= 1


def test_grid_mxv_and_out_none(device, spec_on):
    S = grid(30, 4)
    assert check_graph(S, 5, device, spec_on, mxv=True) >= 1
    assert check_graph(S, 5, device, spec_on, out_none=True) >= 1
    assert check_graph(S, 5, device, spec_on, mxv=True, out_none=True, frontier_dtype="int64") >= 1


def test_path_directed_and_components(device, spec_on):
    assert check_graph(path(300), 150, device, spec_on) >= 1
    assert check_graph(path(300, directed=True), 0, device, spec_on) >= 1
    assert check_graph(path(300, directed=True).T, 0, device, spec_on, mxv=True) >= 1
    # two paths, a triangle and isolated vertices
    S = sp.block_diag([path(80), path(50), sp.csr_matrix(np.ones((3, 3)) - np.eye(3)),
                       sp.csr_matrix((7, 7))]).tocsr()
    for src in (0, 85, 131, 135):
        check_graph(S, src, device, spec_on)


def test_directed_random(device, spec_on):
    rng = np.random.default_rng(3)
    n = 400
    r = rng.integers(0, n, 700)
    S = sp.csr_matrix((np.ones(700), (r, (r + rng.integers(1, 4, 700)) % n)), shape=(n, n))
    S.data[:] = 1
    for src in (0, 17):
        check_graph(S, src, device, spec_on)


def test_capacity_and_level_cap(device, spec_on):
    S = grid(40, 40)
    spec_on.speculate_capacity = 9      # the frontier outgrows it in the middle
    fired = check_graph(S, 0, device, spec_on)
    assert fired >= 2                   # stops, hands back, starts again on the shrinking side
    spec_on.speculate_capacity = 1 << 16
    spec_on.speculate_levels = 3        # a traversal stops after 3 levels
    assert check_graph(S, 0, device, spec_on) >= 5


def test_tiny_graphs(device, spec_on):
    check_graph(sp.csr_matrix((1, 1)), 0, device, spec_on)
    check_graph(sp.csr_matrix(np.ones((1, 1))), 0, device, spec_on)
    check_graph(sp.csr_matrix((6, 6)), 3, device, spec_on)


def test_algorithms_bfs(device, spec_on):
    S = grid(50, 20)
    A = matrix(S, device)
    gb.stats.reset()
    on = bfs(A, 7)
    c = gb.stats()["counts"]
    assert c.get("traversal:launched", 0) >= 1 and c.get("vxm:speculated", 0) > 50
    spec_on.speculate = False
    off = bfs(A, 7)
    same(on, off)
    reach, d = scipy_levels(S, 7)
    np.testing.assert_array_equal(coo(on)[0], reach)
    np.testing.assert_array_equal(coo(on)[1], d)
    spec_on.speculate = True
    gb.stats.reset()
    lv_on, par_on = bfs(A, 7, parents=True)       # any_secondi: speculated too
    c = gb.stats()["counts"]
    assert c.get("traversal:launched", 0) >= 1 and c.get("vxm:speculated", 0) > 50
    spec_on.speculate = False
    lv_off, par_off = bfs(A, 7, parents=True)
    same(lv_on, lv_off)
    check_parents(S, 7, lv_on, par_on)
    check_parents(S, 7, lv_off, par_off)


def check_parents(S, src, levels, parents, transpose=False):
    """``parents`` is a BFS parent vector for ``levels``: the same structure,
    int64, the source its own parent, every other vertex's parent one level
    up and joined to it by an edge (any such vertex is a right answer)."""
    S = sp.csr_matrix(S.T if transpose else S)
    li, lx = coo(levels)
    pi, px = coo(parents)
    assert parents.dtype == np.int64
    np.testing.assert_array_equal(li, pi)
    lev = dict(zip(li.tolist(), lx.tolist()))
    for v, p in zip(pi.tolist(), px.tolist()):
        if v == src:
            assert p == src
        else:
            assert lev[p] == lev[v] - 1, (v, p)
            assert S[p, v] != 0, (p, v)


def parents_loop(A, src, be, on, mxv=False, read_every=0):
    """A BFS-with-parents loop (algorithms/bfs.py's, or with mxv and
    any_firstj); ``read_every``: read the parent vector every that many
    levels (pending copies carried out mid-loop)."""
    be.speculate = on
    n = A.nrows
    levels = Vector("int64", n, device=A.device)
    frontier = Vector.from_coo([src], src, size=n, dtype="int64", device=A.device)
    parent = frontier.dup()
    depth, reads = 0, []
    while frontier.nvals:
        levels.assign(depth, mask=frontier.S)
        if mxv:
            A.mxv(frontier, semiring.any_firstj, mask=~levels.S, replace=True, out=frontier)
        else:
            frontier.vxm(A, semiring.any_secondi, mask=~levels.S, replace=True, out=frontier)
        parent.assign(frontier, mask=frontier.S)
        depth += 1
        if read_every and depth % read_every == 0:
            reads.append((depth, coo(parent)))
    return levels, parent, reads


@pytest.mark.parametrize("case", ["grid", "path", "components", "directed", "capacity"])
@pytest.mark.parametrize("mxv", [False, True])
def test_bfs_parents_speculated(device, spec_on, case, mxv):
    """A BFS with parents (any_secondi with vxm, any_firstj with mxv) is
    answered from the traversal kernel with its parents: levels identical to
    the ordinary path and SciPy's, parents valid (each one level up and
    adjacent), on grids, a path, several components with isolated vertices,
    a directed graph and a traversal cut short by its capacity; the parent
    vector read mid-loop (pending copies carried out) stays right."""
    rng = np.random.default_rng(3)
    if case == "grid":
        S, src = grid(40, 30), 5
    elif case == "path":
        S, src = path(300), 150
    elif case == "components":
        S = sp.block_diag([grid(20, 10), sp.csr_matrix((7, 7)), path(50)]).tocsr()
        src = 3
    elif case == "directed":
        S = sp.random(400, 400, density=0.004, random_state=4, format="csr")
        S = (S + path(400, directed=True)).tocsr()
        src = 0
    else:
        S, src = grid(30, 30), 0
        spec_on.speculate_capacity = 20          # levels grow past it: ordinary path after
    A = matrix(S, device)
    T = mxv                                      # mxv follows the in-edges
    gb.stats.reset()
    lv_on, par_on, reads = parents_loop(A, src, spec_on, True, mxv, read_every=7)
    c = gb.stats()["counts"]
    assert c.get("traversal:launched", 0) >= 1
    lv_off, par_off, _ = parents_loop(A, src, spec_on, False, mxv)
    same(lv_on, lv_off)
    reach, d = scipy_levels(S.T if T else S, src)
    np.testing.assert_array_equal(coo(lv_on)[0], reach)
    np.testing.assert_array_equal(coo(lv_on)[1], d)
    check_parents(S, src, lv_on, par_on, transpose=T)
    check_parents(S, src, lv_off, par_off, transpose=T)
    li, lx = coo(lv_on)
    for depth, (pi, px) in reads:                # what the parent vector held then
        np.testing.assert_array_equal(pi, li[lx <= depth])
        final = dict(zip(*coo(par_on)))
        assert all(final[v] == p for v, p in zip(pi.tolist(), px.tolist()))


def launches(wide):
    """The traversal runs in gb.stats' history, wide ones or the others."""
    return sum(1 for h in gb.stats.history if h[:2] == ("traversal", "launched")
               and bool(h[2].get("wide")) == wide)


def test_not_on_kronecker(device, spec_on):
    """The big levels of a power-law graph never start a one-block
    traversal; a backend with ``traverse_wide`` runs them there (its
    results: test_wide_*), one without takes the ordinary path."""
    A = gb.generators.kronecker(10, 8, seed=1, device=device)
    for wide in (False, True):
        spec_on.speculate_wide = wide
        gb.stats.reset()
        for src in (0, 5, 100):
            bfs(A, src)
        assert launches(False) == 0
        assert (launches(True) > 0) == wide
        assert (gb.stats()["counts"].get("vxm:speculated", 0) > 0) == wide


# ---------------------------------------------------------------- wide traversals
@pytest.fixture
def wide_on(spec_on):
    """Speculation with ``traverse_wide`` on (the GPU's kernels; on the CPU
    the generic array form): restored afterwards."""
    saved = spec_on.speculate_wide
    spec_on.speculate_wide = True
    yield spec_on
    spec_on.speculate_wide = saved


def directions(be):
    """The directions of the last wide run's levels ("p" top-down, "u"
    bottom-up) where the backend reports them."""
    k = getattr(be, "last_kernel", None)
    return k[1] if isinstance(k, tuple) and k and k[0] == "traverse_wide" else None


def kron_scipy(scale, ef, seed, directed=False):
    A = gb.generators.kronecker(scale, ef, seed=seed, device="cpu")
    S = sp.csr_matrix(A.to_scipy())
    if directed:                         # keep one direction of most edges
        S = sp.triu(S, 1) + sp.tril(S, -1).multiply(
            sp.random(*S.shape, density=0.05, random_state=seed, format="csr") != 0)
        S = sp.csr_matrix(S)
    S.data[:] = 1
    return S


def _hubs(S):
    """``S`` and its vertices of most out- and most in-edges."""
    return S, [int(np.argmax(np.diff(S.indptr))), int(np.argmax(np.diff(S.tocsc().indptr)))]


WIDE_GRAPHS = {
    "kronecker": lambda: (kron_scipy(12, 8, 1), [0, 7]),
    "kronecker directed": lambda: _hubs(kron_scipy(12, 8, 2, directed=True)),
    # a hub joined to everything but a few isolated vertices, and a second
    # component: a one-vertex start, a level of everything, an empty one
    "star and components": lambda: (sp.block_diag([
        sp.csr_matrix(np.pad(np.ones((1, 599)), ((0, 599), (1, 0)))) +
        sp.csr_matrix(np.pad(np.ones((1, 599)), ((0, 599), (1, 0)))).T,
        sp.csr_matrix((5, 5)), grid(20, 20)]).tocsr(), [0, 3, 700]),
    "random directed": lambda: (sp.csr_matrix(
        sp.random(3000, 3000, density=8 / 3000, random_state=4, format="csr") != 0,
        dtype=float), [0, 11]),
}


@pytest.mark.parametrize("name", sorted(WIDE_GRAPHS))
@pytest.mark.parametrize("mxv", [False, True])
def test_wide_levels(device, wide_on, name, mxv):
    """A continuing call on a big frontier runs the rest of the BFS in
    ``traverse_wide``: every level and the final levels identical to the
    ordinary path and to SciPy, vxm and mxv (the push and pull structures
    of a directed graph differ), on power-law graphs, a star with isolated
    vertices and other components, a random digraph."""
    S, sources = WIDE_GRAPHS[name]()
    n = S.shape[0]
    ran = []
    for src in sources:
        _, d = scipy_levels(S.T if mxv else S, src)
        sizes = np.bincount(d)
        # a wide run starts at the first call whose frontier is big, once a
        # chain is linked (call 2 on) and before a one-block run (call 4 on
        # small frontiers) takes over
        big = any(sizes[j] > max(speculate.MIN_SMALL, n // speculate.SMALL)
                  for j in range(1, min(4, sizes.shape[0])))
        gb.stats.reset()
        check_graph(S, src, device, wide_on, mxv=mxv)
        assert (launches(True) >= 1) == big, (name, src, sizes[:5])
        ran.append(big)
    assert any(ran)                          # (each case has a source that runs one)


def test_wide_directions(device, wide_on):
    """On a backend that reports them, a Kronecker BFS's wide run goes
    bottom-up on its big levels and top-down again on the small last
    ones -- both kernels ran (their results: test_wide_levels)."""
    S = kron_scipy(14, 16, 5)
    A = matrix(S, device)
    src = int(np.argmax(np.diff(S.indptr)))
    gb.stats.reset()
    lv = bfs(A, src)
    reach, d = scipy_levels(S, src)
    np.testing.assert_array_equal(coo(lv)[0], reach)
    np.testing.assert_array_equal(coo(lv)[1], d)
    assert launches(True) == 1
    dirs = directions(wide_on)
    if dirs is not None:
        assert "u" in dirs and "p" in dirs[dirs.index("u"):], dirs


@pytest.mark.parametrize("mxv", [False, True])
def test_wide_parents(device, wide_on, mxv):
    """BFS with parents through wide runs: the levels equal the ordinary
    path's, every parent is one level up and joined by an edge (pulled
    levels take the first in-neighbour found)."""
    for S, sources in (WIDE_GRAPHS["kronecker directed"](), WIDE_GRAPHS["star and components"]()):
        A = matrix(S, device)
        for src in sources:
            gb.stats.reset()
            lv_on, par_on, _ = parents_loop(A, src, wide_on, True, mxv=mxv)
            lv_off, par_off, _ = parents_loop(A, src, wide_on, False, mxv=mxv)
            same(lv_on, lv_off)
            check_parents(S, src, lv_on, par_on, transpose=mxv)
    S = WIDE_GRAPHS["kronecker"]()[0]
    lv, par = bfs(matrix(S, device), 0, parents=True)
    check_parents(S, 0, lv, par)


def test_wide_level_cap_and_reads(device, wide_on):
    """A wide run stopped by ``speculate_levels`` hands the next call a
    chain that starts another; the frontier and the levels read mid-loop
    give the ordinary results."""
    S, _ = WIDE_GRAPHS["random directed"]()
    wide_on.speculate_levels = 2
    gb.stats.reset()
    check_graph(S, 0, device, wide_on)
    assert launches(True) >= 2
    wide_on.speculate_levels = 1 << 12
    A = matrix(S, device)
    lv_on, par_on, reads_on = parents_loop(A, 0, wide_on, True, read_every=1)
    lv_off, par_off, reads_off = parents_loop(A, 0, wide_on, False, read_every=1)
    same(lv_on, lv_off)
    assert [r[0] for r in reads_on] == [r[0] for r in reads_off]
    for (_, a), (_, b) in zip(reads_on, reads_off):
        np.testing.assert_array_equal(a[0], b[0])      # the same vertices have parents


def test_other_semirings_and_masks_take_the_ordinary_path(device, spec_on):
    A = matrix(path(100), device)
    f = Vector.from_coo([0], True, size=100, device=device)
    lv = Vector("int32", 100, device=device)
    gb.stats.reset()
    for d in range(12):
        lv.assign(d, mask=f.S)
        f.vxm(A, semiring.plus_pair, mask=~lv.S, replace=True, out=f)
    for d in range(12, 24):
        lv.assign(d, mask=f.S)
        f.vxm(A, semiring.any_pair, mask=~lv.V, replace=True, out=f)
    assert gb.stats()["counts"].get("traversal:launched", 0) == 0


# ---------------------------------------------------------------- invalidation
def perturbed_loop(A, src, be, on, ops, A2=None):
    """The README loop with ``ops[depth]`` applied before the vxm of that
    level: the history of frontiers and the levels."""
    be.speculate = on
    n = A.nrows
    level = Vector("int32", n, device=A.device)
    frontier = Vector.from_coo([src], True, size=n, device=A.device)
    seen, depth = [], 0
    while frontier.nvals and depth < 3 * n:
        grow = [j % n for op, j in ops.get(depth, ()) if op in ("grow_other", "grow_dup")]
        if grow:        # M grows by another vector: the frontier plus one entry, or a copy
            x = frontier.dup()
            if any(op == "grow_other" for op, _ in ops[depth]):
                x[grow[0]] = True
            level.assign(depth, mask=x.S)
        else:
            level.assign(depth, mask=frontier.S)
        out = frontier
        for op, j in ops.get(depth, ()):
            j %= n
            if op == "mask_add":
                level[j] = 77
            elif op == "mask_del":
                if level.get(j) is not None:
                    del level[j]
            elif op == "mask_clear":
                level.clear()
            elif op == "front_add":
                frontier[j] = True
            elif op == "front_del":
                if frontier.get(j) is not None:
                    del frontier[j]
            elif op == "front_read":
                frontier.to_coo(), frontier.to_dense(), level.to_dense()
            elif op == "out_other":
                out = Vector("bool", n, device=A.device)
            elif op == "a_add":
                A[j, (j * 7 + 3) % n] = True
            elif op == "a_del":
                i2, j2 = (host(x) for x in A.to_coo()[:2])
                if len(i2):
                    del A[int(i2[j % len(i2)]), int(j2[j % len(i2)])]
            elif op == "other_bfs":       # a second BFS on the same matrix and level type
                lv2, _ = readme_loop(A, j, be, on)
                seen.append(coo(lv2))
                be.speculate = on
        frontier.vxm(A, semiring.any_pair, mask=~level.S, replace=True, out=out)
        frontier = out
        seen.append(coo(frontier))
        depth += 1
    return level, seen


def check_perturbed(S, src, device, be, ops):
    lv_on, seen_on = perturbed_loop(matrix(S, device), src, be, True, ops)
    lv_off, seen_off = perturbed_loop(matrix(S, device), src, be, False, ops)
    same(lv_on, lv_off)
    assert len(seen_on) == len(seen_off)
    for a, b in zip(seen_on, seen_off):
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_array_equal(a[1], b[1])


@pytest.mark.parametrize("op", ["mask_add", "mask_del", "mask_clear", "front_add", "front_del",
                                "front_read", "out_other", "a_add", "a_del", "other_bfs",
                                "grow_other", "grow_dup"])
def test_invalidation(op, device, spec_on):
    S = grid(12, 5)
    for at in (6, 9, 20):               # during and after a traversal started
        for j in (0, 17, 31):
            check_perturbed(S, 2, device, spec_on, {at: [(op, j)]})


def test_interleaved_loops(device, spec_on):
    """Two README loops advanced in turn on one matrix, with their own vectors."""
    A = matrix(grid(25, 8), device)
    n = A.nrows

    def run(on):
        spec_on.speculate = on
        st = []
        for src in (0, 150):
            st.append([Vector("int32", n, device=device),
                       Vector.from_coo([src], True, size=n, device=device), 0])
        hist = []
        while any(f.nvals for _, f, _ in st):
            for s in st:
                lv, f, d = s
                if f.nvals:
                    lv.assign(d, mask=f.S)
                    f.vxm(A, semiring.any_pair, mask=~lv.S, replace=True, out=f)
                    s[2] += 1
                    hist.append(coo(f))
        return [coo(s[0]) for s in st], hist

    gb.stats.reset()
    a = run(True)
    assert gb.stats()["counts"].get("traversal:launched", 0) >= 2
    b = run(False)
    for x, y in zip(a[0] + a[1], b[0] + b[1]):
        np.testing.assert_array_equal(x[0], y[0])
        np.testing.assert_array_equal(x[1], y[1])


def test_mask_shared_between_loops(device, spec_on):
    """Two frontiers writing one visited vector: each growth is by the other
    loop's frontier, so no chain continues; results as the ordinary path."""
    A = matrix(path(120), device)

    def run(on):
        spec_on.speculate = on
        lv = Vector("int32", 120, device=device)
        f1 = Vector.from_coo([0], True, size=120, device=device)
        f2 = Vector.from_coo([119], True, size=120, device=device)
        out = []
        for d in range(70):
            for f in (f1, f2):
                lv.assign(d, mask=f.S)
                f.vxm(A, semiring.any_pair, mask=~lv.S, replace=True, out=f)
                out.append(coo(f))
        return coo(lv), out

    a, b = run(True), run(False)
    for x, y in zip([a[0]] + a[1], [b[0]] + b[1]):
        np.testing.assert_array_equal(x[0], y[0])
        np.testing.assert_array_equal(x[1], y[1])


# ---------------------------------------------------------------- Hypothesis
try:
    from hypothesis import given, settings, strategies as st
except ImportError:  # pragma: no cover
    given = None

if given is not None:
    OPS = ["mask_add", "mask_del", "front_add", "front_del", "front_read", "out_other",
           "a_add", "a_del", "grow_other", "grow_dup"]

    @settings(max_examples=60)
    @given(n=st.integers(1, 40), m=st.integers(0, 80), seed=st.integers(0, 2**16),
           after=st.sampled_from([1, 2, 4]),
           ops=st.dictionaries(st.integers(0, 30),
                               st.lists(st.tuples(st.sampled_from(OPS), st.integers(0, 99)),
                                        max_size=2), max_size=3),
           wide=st.sampled_from([None, 1, 3]))
    def test_random_graphs_and_perturbations(n, m, seed, after, ops, wide, monkeypatch):
        """``wide``: wide runs on (the CPU's generic form), frontiers of more
        than that many vertices counting as big, so they start on these
        small graphs."""
        be = backend.get("cpu")
        saved = be.speculate
        monkeypatch.setattr(speculate, "AFTER", after)
        if wide is not None:
            monkeypatch.setattr(be, "speculate_wide", True)
            monkeypatch.setattr(speculate, "MIN_SMALL", wide)
        try:
            rng = np.random.default_rng(seed)
            r, c = rng.integers(0, n, m), rng.integers(0, n, m)
            S = sp.csr_matrix((np.ones(m), (r, c)), shape=(n, n))
            S.data[:] = 1
            check_perturbed(S, int(rng.integers(0, n)), "cpu", be, ops)
        finally:
            be.speculate = saved


# ---------------------------------------------------------------- GPU: waits
@pytest.mark.gpu
def test_gpu_syncs():
    """On the GPU a traversal waits once (its level offsets); the levels it
    answers wait never -- neither the step nor the loop's ``nvals``.  Levels
    equal SciPy's."""
    be = backend.get("gpu")
    saved = be.speculate
    be.speculate = True
    try:
        A = gb.generators.grid2d(40, 30, device="gpu")
        n = A.nrows
        for warm in (True, False):
            level = Vector("int32", n, device="gpu")
            frontier = Vector.from_coo([0], True, size=n, device="gpu")
            depth, total, per_level = 0, 0, []
            gb.stats.reset()
            while True:
                with be.count_syncs() as c:
                    nf = frontier.nvals
                    if nf:
                        level.assign(depth, mask=frontier.S)
                        frontier.vxm(A, semiring.any_pair, mask=~level.S, replace=True,
                                     out=frontier)
                per_level.append(c.count)
                total += c.count
                if not nf:
                    break
                depth += 1
        launched = gb.stats()["counts"].get("traversal:launched", 0)
        assert launched >= 1
        # a level waits at most once (reading nvals), the level that starts a
        # traversal once more (its offsets); the answered levels never
        assert max(per_level) <= 2 and sum(c > 1 for c in per_level) <= launched, per_level
        assert total <= speculate.AFTER + 2 * launched + 1, (total, per_level)
        reach, d = scipy_levels(A.to("cpu").to_scipy(), 0)
        i, x = coo(level)
        np.testing.assert_array_equal(i, reach)
        np.testing.assert_array_equal(x, d)
    finally:
        be.speculate = saved


# ---------------------------------------------------------------- lean paths
# The answered levels take a lean path (speculate.answer, called from
# Vector.vxm / Matrix.mxv) and the level assign a scalar scatter
# (Vector._update_scalar): each must store what the ordinary path stores and
# raise what it raises.
def _chain(A, be, n_levels, mxv=False, level_dtype="int32"):
    """The README loop run ``n_levels`` levels (a traversal answering by then).
    Like the README's ``while frontier.nvals`` it reads the frontier's count
    every level: on the GPU a count is known on the host only once read, and
    the speculation starts only on frontiers known to be small (it never
    waits on the device to find out)."""
    level = Vector(level_dtype, A.nrows, device=A.device)
    f = Vector.from_coo([0], True, size=A.nrows, device=A.device)
    for d in range(n_levels):
        assert f.nvals
        level.assign(d, mask=f.S)
        if mxv:
            A.mxv(f, semiring.any_pair, mask=~level.S, replace=True, out=f)
        else:
            f.vxm(A, semiring.any_pair, mask=~level.S, replace=True, out=f)
    return level, f


@pytest.mark.parametrize("mxv", [False, True])
def test_lean_answer_outs(device, spec_on, mxv):
    """Outs of another type, with other content (replace or not), out=None,
    the same frontier read twice, pull_input: as the ordinary path."""
    A = matrix(grid(20, 20), device)
    n = A.nrows

    def step(f, lv, **kw):
        return (A.mxv(f, semiring.any_pair, mask=~lv.S, **kw) if mxv
                else f.vxm(A, semiring.any_pair, mask=~lv.S, **kw))

    def run(on):
        spec_on.speculate = on
        gb.stats.reset()
        lv, f = _chain(A, spec_on, 10, mxv)
        got = []
        for d in range(10, 30):
            lv.assign(d, mask=f.S)
            full = Vector.from_coo(np.arange(0, n, 3), 5, size=n, dtype="float32", device=device)
            got.append(coo(step(f, lv, out=Vector("int64", n, device=device))))
            got.append(coo(step(f, lv, out=full, replace=True)) + (str(full.dtype),))
            kept = Vector.from_coo([1, n - 1], 7, size=n, dtype="int8", device=device)
            got.append(coo(step(f, lv, out=kept)))     # old entries outside the mask stay
            got.append(coo(step(f, lv)))               # out=None
            if not mxv:
                got.append(coo(step(f, lv, out=Vector("bool", n, device=device), pull_input=lv)))
            g = step(f, lv, replace=True, out=f)
            got.append(coo(g))
        return coo(lv), got, gb.stats()["counts"].get(("mxv" if mxv else "vxm") + ":speculated", 0)

    a, b = run(True), run(False)
    assert a[2] > 60 and b[2] == 0
    for x, y in zip([a[0]] + a[1], [b[0]] + b[1]):
        assert len(x) == len(y)
        for p, q in zip(x, y):
            np.testing.assert_array_equal(p, q)


def test_lean_answer_raises_as_ordinary(device, spec_on):
    """Bad arguments on a call the chain would answer raise what the ordinary
    path raises, and leave the chain (and every object) as it was."""
    A = matrix(grid(30, 30), device)
    n = A.nrows
    lv, f = _chain(A, spec_on, 12)
    lv.assign(12, mask=f.S)
    before = coo(f), coo(lv)
    small = Vector("bool", n - 1, device=device)
    bad = [
        (dict(replace=1, out=f), gb.errors.InvalidValue),
        (dict(replace=True, out=small), gb.errors.DimensionMismatch),
        (dict(replace=True, out=gb.Matrix("bool", n, 1, device=device)), gb.errors.InvalidValue),
        (dict(replace=True, out=f, direction="AUTO"), gb.errors.InvalidValue),
        (dict(replace=True, out=f, structure_only="yes"), gb.errors.InvalidValue),
        (dict(replace=True, out=f, pull_input=small), gb.errors.InvalidValue),
        (dict(replace=True, out=f, pull_input=A), gb.errors.InvalidValue),
    ]
    for kw, err in bad:
        with pytest.raises(err):
            f.vxm(A, semiring.any_pair, mask=~lv.S, **kw)
        assert all(np.array_equal(p, q)
                   for x, y in zip((coo(f), coo(lv)), before) for p, q in zip(x, y))
    with pytest.raises(gb.errors.InvalidValue):
        f.vxm(A, semiring.any_pair, mask=lv, replace=True, out=f)
    with pytest.raises(gb.errors.DimensionMismatch):
        f.vxm(gb.Matrix("bool", n, n + 1, device=device), semiring.any_pair, mask=~lv.S,
              replace=True, out=f)
    # the chain still answers, with the right level
    gb.stats.reset()
    f.vxm(A, semiring.any_pair, mask=~lv.S, replace=True, out=f)
    assert gb.stats()["counts"].get("vxm:speculated", 0) == 1
    S = grid(30, 30)
    reach, d = scipy_levels(S, 0)
    np.testing.assert_array_equal(coo(f)[0], reach[d == 13])


@pytest.mark.parametrize("level_dtype", ["int8", "int64", "uint16", "float32", "bool"])
def test_level_assign_scalar_casts(device, spec_on, level_dtype):
    """The level assign's scalar scatter casts as the output rule does (C
    casting: 300 wraps in int8, -1 in uint16, 2.5 truncates), for Python and
    NumPy scalars; a copy of the level vector taken in between (shared
    arrays) never changes; replace must be a bool."""
    from graphblast_py.operations.assign import _assign
    A = matrix(grid(15, 15), device)
    n = A.nrows
    lv, f = _chain(A, spec_on, 8, level_dtype=level_dtype)
    for value in (300, -1, 2.5, np.int32(7), np.float64(-3.75), True, np.uint64(2**63 + 5),
                  2**62):
        ref = lv.dup()
        _assign(ref, value, (None,), f.S, None, False)      # the general path
        snap = lv.dup()
        snap_coo = coo(snap)
        lv.assign(value, mask=f.S)
        same(lv, ref)
        np.testing.assert_array_equal(coo(snap)[0], snap_coo[0])   # the copy kept its content
        np.testing.assert_array_equal(coo(snap)[1], snap_coo[1])
        f.vxm(A, semiring.any_pair, mask=~lv.S, replace=True, out=f)
    with pytest.raises(gb.errors.InvalidValue):
        lv.assign(1, mask=f.S, replace=0)
    with pytest.raises(gb.errors.InvalidValue):
        lv.assign("x", mask=f.S)


def test_level_assign_mask_is_the_frontier_itself(device, spec_on):
    """``f.assign(x, mask=f.S)`` on an answered frontier (w and the mask's
    vector one object, its arrays shared with the traversal): every entry
    becomes x, the traversal's arrays unchanged."""
    A = matrix(grid(20, 20), device)
    lv, f = _chain(A, spec_on, 10)
    order = host(f._spec.trav.order).copy()
    i0, _ = coo(f)
    f.assign(4, mask=f.S)
    i1, x1 = coo(f)
    np.testing.assert_array_equal(i0, i1)
    assert (x1 == np.asarray(4).astype(x1.dtype)).all()
    np.testing.assert_array_equal(host(f._spec.trav.order) if f._spec is not None else order,
                                  order)


# ---------------------------------------------------------------- pending stores
# An answered level is stored pending (Vector._set_lazy: sliced out of the
# traversal only when read) and a level assign under it waits (Vector.
# _defer_fills: the fills of consecutive levels are one backend fill_at when
# the level vector is read).  Every read in between must see exactly the
# content stored so far.
READS = {
    "nvals": lambda v: v.nvals,
    "to_coo": lambda v: coo(v),
    "get": lambda v: v.get(3, -7),
    "to_dense": lambda v: host(v.to_dense(fill=-1)),
    "dup": lambda v: coo(v.dup()),
    "as mask": lambda v: coo(Vector.from_coo(np.arange(v.size), 1, size=v.size, dtype="int8",
                                             device=v.device).apply(gb.unary.identity,
                                                                     mask=v.S)),
    "reduce": lambda v: v.reduce(gb.monoid.plus) if v.nvals else 0,
}


def _reference_reads(S, src, read, every):
    """What ``read`` of the levels (and of the frontier's structure) gives
    after each level, computed from SciPy's BFS levels."""
    reach, d = scipy_levels(S, src)
    n = S.shape[0]
    out = []
    for depth in range(int(d.max()) + 1):
        if depth % every:
            continue
        keep = d <= depth
        lv = Vector.from_coo(reach[keep], d[keep].astype(np.int32), size=n, dtype="int32")
        out.append((read(lv), reach[d == depth + 1]))
    return out


@pytest.mark.parametrize("how", sorted(READS))
def test_pending_stores_read_mid_loop(device, spec_on, how):
    """The README loop on a 40x40 grid and a 300x2 ladder, reading the level
    vector every third level in one way (and the frontier's structure): each
    read equals the levels so far from SciPy's BFS, the traversal ran, and
    the final levels are SciPy's."""
    read = READS[how]
    for S in (grid(40, 40), grid(300, 2)):
        A = matrix(S, device)
        n = A.nrows
        gb.stats.reset()
        level = Vector("int32", n, device=device)
        frontier = Vector.from_coo([0], True, size=n, device=device)
        got, depth = [], 0
        while frontier.nvals:
            level.assign(depth, mask=frontier.S)
            frontier.vxm(A, semiring.any_pair, mask=~level.S, replace=True, out=frontier)
            if depth % 3 == 0:
                r = read(level)
                got.append((r, coo(frontier)[0]))
            depth += 1
        assert gb.stats()["counts"].get("traversal:launched", 0) >= 1
        ref = _reference_reads(S, 0, read, 3)
        assert len(got) == len(ref)
        for (g, gf), (r, rf) in zip(got, ref):
            if isinstance(r, tuple):
                np.testing.assert_array_equal(g[0], r[0])
                np.testing.assert_array_equal(g[1], r[1])
            else:
                np.testing.assert_array_equal(g, r)
            np.testing.assert_array_equal(gf, rf)
        reach, d = scipy_levels(S, 0)
        i, x = coo(level)
        np.testing.assert_array_equal(i, reach)
        np.testing.assert_array_equal(x, d)


def test_pending_fills_two_vectors_and_a_snapshot(device, spec_on):
    """Two vectors filled under the same answered frontiers (levels and a
    visited flag), a copy of the levels taken mid-loop and the levels then
    written elsewhere (an element set, which breaks the chain): the copy
    keeps its content, and every vector equals what the speculation-off
    loop doing the same gives."""
    S = grid(50, 20)

    def run(on):
        spec_on.speculate = on
        A = matrix(S, device)
        n = A.nrows
        level = Vector("int64", n, device=device)
        visited = Vector("bool", n, device=device)
        frontier = Vector.from_coo([0], True, size=n, device=device)
        snap, depth = None, 0
        while frontier.nvals:
            level.assign(depth, mask=frontier.S)
            visited.assign(True, mask=frontier.S)
            frontier.vxm(A, semiring.any_pair, mask=~visited.S, replace=True, out=frontier)
            if depth == 20:
                snap = level.dup()
            if depth == 40:
                level[n - 1] = 1000
            depth += 1
        return level, visited, snap

    on, off = run(True), run(False)
    for a, b in zip(on, off):
        same(a, b)


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "int32", "int64", "float32",
                                   "float64"])
def test_backend_fill_at(device, dtype):
    """``fill_at`` with one scalar and with per-segment scalars (empty
    segments included) against NumPy's scatter, in place."""
    be = backend.get(device)
    rng = np.random.default_rng(5)
    n = 1000
    dt = np.dtype(dtype)
    for m in (0, 1, 37, 600):
        keys = rng.permutation(n)[:m].astype(np.int64)
        base = (rng.random(n) * 50).astype(dt)
        pres = rng.random(n) < 0.3
        v, p = be.asarray(base.copy()), be.asarray(pres.copy())
        be.fill_at(v, p, be.asarray(keys), dt.type(3))
        rv, rp = base.copy(), pres.copy()
        rv[keys], rp[keys] = dt.type(3), True
        np.testing.assert_array_equal(host(v), rv)
        np.testing.assert_array_equal(host(p), rp)
        for segs in (1, 2, 3, 4, 6):    # (the GPU passes at most 4 as launch arguments)
            cuts = np.sort(rng.integers(0, m + 1, size=segs - 1))
            starts = np.concatenate([[0], cuts, [m]]).astype(np.int64)
            scal = (np.arange(len(starts) - 1) * 7 + 1).astype(dt)
            if dt.kind == "b":
                scal = np.arange(len(starts) - 1) % 2 == 0
            v, p = be.asarray(base.copy()), be.asarray(pres.copy())
            be.fill_at(v, p, be.asarray(keys), scal, starts)
            rv, rp = base.copy(), pres.copy()
            for j in range(len(scal)):
                rv[keys[starts[j]:starts[j + 1]]] = scal[j]
            rp[keys] = True
            np.testing.assert_array_equal(host(v), rv, err_msg=f"m={m} segs={segs}")
            np.testing.assert_array_equal(host(p), rp)
    m = rng.random(n) < 0.4
    base = (rng.random(n) * 50).astype(dt)
    pres = rng.random(n) < 0.3
    v, p = be.asarray(base.copy()), be.asarray(pres.copy())
    be.assign_where(v, p, be.asarray(m), dt.type(9))
    rv, rp = base.copy(), pres | m
    rv[m] = dt.type(9)
    np.testing.assert_array_equal(host(v), rv)
    np.testing.assert_array_equal(host(p), rp)


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int32", "uint64", "int64", "float32",
                                   "float64", "complex128"])
def test_backend_full(device, dtype):
    """``backend.full`` (on the GPU a fill kernel for numbers, cupy.full for
    the rest): every position the value cast as NumPy casts it, sizes 0, 1
    and more than a grid's worth."""
    be = backend.get(device)
    dt = np.dtype(dtype)
    values = [0, 1, 7, 2.7, True, np.float32(0.25), np.int8(-3), np.uint16(9)]
    for v in values:
        if dt.kind in "bu" and np.asarray(v) < 0:
            continue
        want1 = np.asarray(v).astype(dt)
        for n in (0, 1, 1000, 3 * 2**20 + 5):
            got = host(be.full(n, v, dt))
            assert got.dtype == dt and got.shape == (n,)
            assert np.array_equal(got, np.full(n, want1, dtype=dt)), (v, n)


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint64", "int64", "float32", "float64"])
def test_backend_one_entry(device, dtype):
    """``backend.one_entry`` (a source's arrays; on the GPU one launch for
    numbers) and ``Vector.from_coo`` of one host entry, which uses it: the
    index and the value as NumPy casts it."""
    be = backend.get(device)
    dt = np.dtype(dtype)
    for i, v in ((0, 1), (5, 0), (2**40 - 1, 3), (7, True), (3, 2.5)):
        want = np.asarray(v).astype(dt)
        idx, vals = be.one_entry(i, want[()], dt)
        assert host(idx).dtype == np.int64 and host(idx).tolist() == [i]
        assert host(vals).dtype == dt and np.array_equal(host(vals), [want])
        if i < 1000 and not (dt.kind in "iub" and isinstance(v, float)):
            w = Vector.from_coo([i], v, size=1000, dtype=dtype, device=device)
            ri, rv = w.to_coo()
            assert host(ri).tolist() == [i] and np.array_equal(host(rv), [want]), (i, v)


@pytest.mark.parametrize("w_form", ["empty", "sparse", "dense", "full"])
@pytest.mark.parametrize("f_form", ["sparse", "dense"])
def test_scalar_assign_under_structure(device, w_form, f_form):
    """``w.assign(x, mask=F.S)`` (the level update's fast paths: into an empty
    w, a dense or full w, with F sparse or dense) equals python-graphblas's
    assign on the same content, for a few scalars and types."""
    gbl = pytest.importorskip("graphblas")
    rng = np.random.default_rng(11)
    n = 400
    for dt, value in (("int32", 5), ("int8", 300), ("float64", -2.5), ("bool", True)):
        fk = np.flatnonzero(rng.random(n) < (0.02 if f_form == "sparse" else 0.5))
        F = Vector.from_coo(fk, 1.5, size=n, dtype="float32", device=device)

        if f_form == "dense":
            F._dense()                  # converts (half the positions are stored)
            assert F.form == "dense"
        if w_form == "empty":
            wk = np.zeros(0, np.int64)
        elif w_form == "full":
            wk = np.arange(n)
        else:
            wk = np.flatnonzero(rng.random(n) < (0.03 if w_form == "sparse" else 0.6))
        wv = (rng.random(wk.shape[0]) * 100).astype(dt)
        w = Vector.from_coo(wk, wv, size=n, dtype=dt, device=device)
        if w_form in ("dense", "full"):
            w._dense()
            assert w.form == "dense"
        ref = gbl.Vector.from_coo(wk, wv, size=n, dtype=dt)
        refF = gbl.Vector.from_coo(fk, 1.5, size=n, dtype="float32")
        ref(mask=refF.S) << value
        w.assign(value, mask=F.S)
        ri, rv = ref.to_coo()
        i, x = coo(w)
        np.testing.assert_array_equal(i, ri)
        np.testing.assert_array_equal(x, rv)


def test_checked_chain_rechecks_what_can_change(device, spec_on):
    """A chain whose last call was checked in full skips only the checks that
    cannot have changed (speculate.answer's ``checked``): a resized level
    vector (the mask) raises as the ordinary path does, with the frontier
    unchanged; switching the backend's speculation off mid-chain takes the
    ordinary path, with the right level; a second matrix of the same shape
    is checked and answered by the ordinary path."""
    A = matrix(grid(30, 30), device)
    n = A.nrows
    S = grid(30, 30)
    reach, d = scipy_levels(S, 0)
    lv, f = _chain(A, spec_on, 12)
    lv.assign(12, mask=f.S)
    before = coo(f)
    lv.resize(n - 1)
    with pytest.raises(gb.errors.DimensionMismatch):
        f.vxm(A, semiring.any_pair, mask=~lv.S, replace=True, out=f)
    assert all(np.array_equal(p, q) for p, q in zip(coo(f), before))

    lv, f = _chain(A, spec_on, 12)
    lv.assign(12, mask=f.S)
    spec_on.speculate = False
    gb.stats.reset()
    f.vxm(A, semiring.any_pair, mask=~lv.S, replace=True, out=f)
    assert gb.stats()["counts"].get("vxm:speculated", 0) == 0
    np.testing.assert_array_equal(coo(f)[0], reach[d == 13])
    spec_on.speculate = True

    lv, f = _chain(A, spec_on, 12)
    lv.assign(12, mask=f.S)
    B = matrix(S, device)                       # same shape and structure, another object
    gb.stats.reset()
    f.vxm(B, semiring.any_pair, mask=~lv.S, replace=True, out=f)
    assert gb.stats()["counts"].get("vxm:speculated", 0) == 0
    np.testing.assert_array_equal(coo(f)[0], reach[d == 13])


def test_kept_frontier_does_not_keep_the_matrix(device, spec_on):
    """The frontier of a chain answered by a traversal keeps no strong
    reference to the matrix (speculate.answer's ``checked`` is weak): once
    the caller drops the matrix and the level vector, they are freed while
    the frontier lives on."""
    import gc
    import weakref

    def run():
        A = matrix(grid(30, 30), device)
        lv, f = _chain(A, spec_on, 12)
        assert gb.stats()["counts"].get("vxm:speculated", 0) > 0
        return f, weakref.ref(A), weakref.ref(lv)

    gb.stats.reset()
    f, a_ref, lv_ref = run()
    gc.collect()
    assert f.nvals > 0 and a_ref() is None and lv_ref() is None


@pytest.mark.parametrize("form", ["sparse", "dense known", "dense unknown"])
@pytest.mark.parametrize("size", ["small", "big"])
def test_wide_start_forms(device, form, size):
    """``backend.traverse_wide`` called directly with each start form -- a
    listed frontier, a dense one whose count the caller gives, a dense one
    whose count the backend finds (the GPU reads it) -- small (the first
    level pushes) and big (it pulls), with visited vertices besides the
    frontier: each level's set equals SciPy's multi-source BFS that avoids
    the visited vertices, on a directed graph (push and pull structures
    differ) and an undirected one."""
    from graphblast_py.results import DenseVectorResult, SparseResult
    be = backend.get(device)
    xp = np if device == "cpu" else __import__("cupy")
    rng = np.random.default_rng(len(form) * 7 + len(size))
    for S in (kron_scipy(12, 8, 3, directed=True), kron_scipy(12, 8, 4)):
        S = sp.csr_matrix(S)
        n = S.shape[0]
        m = 3 if size == "small" else n // 4
        front = np.sort(rng.choice(n, m, replace=False))
        blocked = np.setdiff1d(np.flatnonzero(rng.random(n) < 0.05), front)
        visited = np.zeros(n, dtype=bool)
        visited[front] = visited[blocked] = True
        # reference: a super-source joined to the frontier, the blocked
        # vertices' edges removed, SciPy's unweighted shortest paths
        keep = np.ones(n, dtype=bool)
        keep[blocked] = False
        D = sp.diags(keep.astype(float))
        T = sp.csr_matrix(D @ S @ D)
        top = sp.csr_matrix((np.ones(m), (np.zeros(m, dtype=int), front)), shape=(1, n))
        G = sp.bmat([[sp.csr_matrix((1, 1)), top], [sp.csr_matrix((n, 1)), T]], format="csr")
        dist = csgraph.shortest_path(G, indices=0, unweighted=True)[1:] - 1
        push_P = (xp.asarray(S.indptr.astype(np.int64)), xp.asarray(S.indices.astype(np.int64)))
        St = sp.csr_matrix(S.T)
        pull_P = (xp.asarray(St.indptr.astype(np.int64)), xp.asarray(St.indices.astype(np.int64)))
        count = None
        if form == "sparse":
            x = SparseResult(xp.asarray(front.astype(np.int64)), xp.ones(m, dtype=bool))
        else:
            pres = np.zeros(n, dtype=bool)
            pres[front] = True
            x = DenseVectorResult(xp.asarray(pres.copy()), xp.asarray(pres))
            count = m if form == "dense known" else None
        order, offsets, complete, _ = be.traverse_wide(push_P, pull_P, x, xp.asarray(visited),
                                                       1 << 12, False, count)
        order = host(order)
        assert complete
        want_levels = int(np.nanmax(np.where(np.isinf(dist), np.nan, dist)))
        assert len(offsets) - 1 == want_levels, (len(offsets), want_levels)
        for d in range(1, want_levels + 1):
            got = np.sort(order[offsets[d - 1]:offsets[d]])
            np.testing.assert_array_equal(got, np.flatnonzero(dist == d), err_msg=f"level {d}")


def test_wide_start_plan():
    """How a wide run starts (backend/wide_plan.py, what the GPU's
    traverse_wide follows): the size decides the first direction with no
    read only for a listed frontier or a dense one known to have at least
    n/beta vertices (it pulls); a dense frontier of unknown or smaller size
    -- a few hubs may hold most of the edges -- is listed, labelled, its
    out-edges counted and read; a listed frontier pushed from needs no
    labels."""
    from graphblast_py.backend.wide_plan import plan_start
    n, beta = 20000, 24.0
    assert tuple(plan_start("dense", n, 100, beta)) == (-1, None, True, True)
    assert tuple(plan_start("dense", n, None, beta)) == (-1, None, True, True)
    assert tuple(plan_start("dense", n, 833, beta)) == (-1, None, True, True)   # 833 * 24 < n
    assert tuple(plan_start("dense", n, 834, beta)) == (834, False, False, False)
    assert tuple(plan_start("dense", 262144, 25137, beta)) == (25137, False, False, False)
    assert tuple(plan_start("listed", 4096, 3, beta)) == (3, True, False, False)
    assert tuple(plan_start("listed", 4096, 1024, beta)) == (1024, False, False, True)
    assert tuple(plan_start("all", 4096, None, beta)) == (4096, False, False, True)
    assert plan_start("listed", 0, 0, beta).nf == 0
    with pytest.raises(ValueError, match="form"):
        plan_start("sparse", n, 1, beta)


@pytest.mark.gpu
def test_wide_first_direction_by_edges():
    """A small dense frontier whose vertices are hubs (few vertices, most of
    the edges: a big power-law graph's level after the source) starts the
    GPU's wide run bottom-up, as Beamer's edge rule says, even when its
    count is known -- its size alone would push (Kronecker 22 took 6.6 ms
    that way against 1.9); the levels equal SciPy's."""
    from graphblast_py.results import DenseVectorResult
    import cupy
    be = backend.get("gpu")
    rng = np.random.default_rng(4)
    n, hubs, deg = 20000, 100, 1000
    rows = np.repeat(np.arange(hubs), deg)
    cols = rng.integers(hubs, n, hubs * deg)
    ring = np.arange(n)
    S = sp.csr_matrix((np.ones(rows.size + n), (np.concatenate([rows, ring]),
                                                 np.concatenate([cols, (ring + 1) % n]))),
                      shape=(n, n))
    S = sp.csr_matrix(S + S.T)
    S.data[:] = 1
    P = (cupy.asarray(S.indptr.astype(np.int64)), cupy.asarray(S.indices.astype(np.int64)))
    pres = np.zeros(n, dtype=bool)
    pres[:hubs] = True
    for count in (hubs, None):
        x = DenseVectorResult(cupy.asarray(pres.copy()), cupy.asarray(pres))
        order, offsets, complete, _ = be.traverse_wide(P, P, x, cupy.asarray(pres), 1 << 12,
                                                       False, count)
        assert be.last_kernel[0] == "traverse_wide" and be.last_kernel[1][0] == "u", \
            be.last_kernel
        top = sp.csr_matrix((np.ones(hubs), (np.zeros(hubs, dtype=int), np.arange(hubs))),
                            shape=(1, n))
        G = sp.bmat([[sp.csr_matrix((1, 1)), top], [sp.csr_matrix((n, 1)), S]], format="csr")
        dist = csgraph.shortest_path(G, indices=0, unweighted=True)[1:] - 1
        order = host(order)
        assert complete and len(offsets) - 1 == int(dist.max())
        for d in range(1, len(offsets)):
            np.testing.assert_array_equal(np.sort(order[offsets[d - 1]:offsets[d]]),
                                          np.flatnonzero(dist == d))


def test_wide_levels_in_any_order(device, wide_on, monkeypatch):
    """A wide run may give each level's vertices in any order (the GPU's
    kernels append them as found): with the levels shuffled again within
    each level (parents along), the frontiers and parents read every level,
    the final levels and parents equal the ordinary path's."""
    be = wide_on
    orig = be.traverse_wide
    rng = np.random.default_rng(9)

    def shuffled(*args, **kwargs):
        order, offsets, complete, par = orig(*args, **kwargs)
        perm = np.concatenate([a + rng.permutation(b - a)
                               for a, b in zip(offsets[:-1], offsets[1:])] or [[]]).astype(int)
        perm = be.asarray(perm)
        return order[perm], offsets, complete, (None if par is None else par[perm])

    monkeypatch.setattr(be, "traverse_wide", shuffled)
    for S, sources in (WIDE_GRAPHS["kronecker"](), WIDE_GRAPHS["random directed"]()):
        A = matrix(S, device)
        for src in sources:
            gb.stats.reset()
            check_graph(S, src, device, be)          # every frontier read and compared
            assert launches(True) >= 1
            lv_on, par_on, reads_on = parents_loop(A, src, be, True, read_every=1)
            lv_off, par_off, reads_off = parents_loop(A, src, be, False, read_every=1)
            same(lv_on, lv_off)
            check_parents(S, src, lv_on, par_on)
            assert len(reads_on) == len(reads_off)
            for (_, x), (_, y) in zip(reads_on, reads_off):
                np.testing.assert_array_equal(x[0], y[0])
