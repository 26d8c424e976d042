"""Round speculation (operations/relax.py): the four calls of a
shortest-path round (vxm/mxv over min_plus, ewise_union with lt under t.S,
apply identity under b.V, assign under f.S) answered from one kernel run.

* every round's t, b and f (keys, values, type) and the final distances
  identical with the speculation on and off, read or unread, on grids (unit
  and random weights: vertices that improve several times), a path, a grid
  with isolated vertices and a cut, a power-law graph, a directed graph with
  negative weights, int64 and float32 distances, one vertex, no edges, the
  mxv form; the distances against SciPy's Dijkstra / Bellman-Ford;
* the chain broken mid-run (the distances changed otherwise, the matrix
  changed, another default, another comparison, a skipped or repeated
  assign, the frontier changed): the same operations with the speculation
  off give the same results;
* algorithms.sssp: a reachable negative cycle still raises NegativeCycle;
* gb.stats: a kernel run and answered calls on a grid, none when off;
* the kernel against a plain Python model of the rounds, stopped by
  ``small``, by the round limit and by the room in its output arrays;
* Hypothesis: random weighted graphs and sources, on against off.
"""
import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st
from scipy.sparse import csgraph

import graphblast_py as gb
from graphblast_py import Vector, backend, binary, semiring, unary

from .conftest import host


@pytest.fixture
def be(device):
    """The device's backend; its ``relax`` switch restored afterwards."""
    b = backend.get(device)
    saved = b.relax
    yield b
    b.relax = saved


def coo(v):
    i, x = v.to_coo()
    return host(i), host(x), str(v.dtype)


def weighted(S, device, dtype=None):
    S = sp.csr_matrix(S)
    S.sum_duplicates()
    C = S.tocoo()
    vals = C.data if dtype is None else C.data.astype(dtype)
    return gb.Matrix.from_coo(C.row, C.col, vals, S.shape[0], S.shape[1], device=device)


def grid(k, m=None, weights=None, seed=0):
    m = k if m is None else m
    n = k * m
    r, c = [], []
    for i in range(k):
        for j in range(m):
            v = i * m + j
            if j + 1 < m:
                r += [v, v + 1]
                c += [v + 1, v]
            if i + 1 < k:
                r += [v, v + m]
                c += [v + m, v]
    r, c = np.array(r), np.array(c)
    if weights is None:
        w = np.ones(r.shape[0])
    else:
        rng = np.random.default_rng(seed)
        w = rng.integers(1, weights + 1, r.shape[0]).astype(float)
    return sp.csr_matrix((w, (r, c)), shape=(n, n))


def loop(A, src, be, on, read=True, mxv=False, dtype=None, perturb=None, default=math.inf,
         op=binary.lt, skip=()):
    """The SSSP loop of algorithms/sssp.py written out; returns (dist, every
    round's (t, b, f) contents when ``read``, the round count).
    ``perturb(round, dist, frontier, A)`` runs after each round's assign;
    ``default`` and ``op`` (the comparison's) may be functions of the
    round; the rounds in ``skip`` make no assign."""
    be.relax = on
    n = A.nrows
    dt = dtype or (A.dtype if A.dtype.kind == "f" else np.float64)
    dist = Vector.from_coo([src], 0, size=n, dtype=dt, device=A.device)
    frontier = dist.dup()
    seen = []
    for k in range(n + 2):
        t = A.mxv(frontier, semiring.min_plus) if mxv else frontier.vxm(A, semiring.min_plus)
        dflt = default(k) if callable(default) else default
        cmp = op(k) if callable(op) and not isinstance(op, gb.BinaryOp) else op
        b = t.ewise_union(dist, cmp, math.inf, dflt, mask=t.S)
        frontier = t.apply(unary.identity, mask=b.V)
        if read:
            seen.append((coo(t), coo(b), coo(frontier)))
        if frontier.nvals == 0:
            break
        if k not in skip:
            dist.assign(frontier, mask=frontier.S)
        if perturb is not None:
            r = perturb(k, dist, frontier, A)
            if r is not None:
                frontier = r
    return dist, seen, k


def both(A, src, be, **kw):
    """The loop with the speculation off and on: identical rounds and
    distances; returns the distances and the stats of the 'on' run.  ``A``
    a Matrix, or a function making one per run (a run that changes it)."""
    make = A if callable(A) else (lambda: A)
    d0, s0, k0 = loop(make(), src, be, False, **kw)
    gb.stats.reset()
    d1, s1, k1 = loop(make(), src, be, True, **kw)
    st_on = dict(gb.stats.counts)
    assert k0 == k1
    assert len(s0) == len(s1)
    for r, (x, y) in enumerate(zip(s0, s1)):
        for what, p, q in zip("tbf", x, y):
            np.testing.assert_array_equal(p[0], q[0], err_msg=f"round {r} {what} keys")
            np.testing.assert_array_equal(p[1], q[1], err_msg=f"round {r} {what} values")
            assert p[2] == q[2], (r, what)
    a, b = coo(d0), coo(d1)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert a[2] == b[2]
    return d1, st_on


def launched(stats_counts):
    return stats_counts.get(("relaxation", "launched"), 0)


def has_kernel(be):
    """Whether the backend has a kernel for the rounds (it answers them
    when ``relax`` is switched on, as ``loop`` does)."""
    from graphblast_py.backend.generic import ArrayBackend
    return type(be).relax_rounds is not ArrayBackend.relax_rounds


def scipy_dist(S, src):
    d = csgraph.shortest_path(sp.csr_matrix(S), method="BF", indices=src, directed=True)
    reach = np.flatnonzero(np.isfinite(d))
    return reach, d[reach]


def check_dist(dist, S, src):
    reach, want = scipy_dist(S, src)
    i, x, _ = coo(dist)
    np.testing.assert_array_equal(i, reach)
    np.testing.assert_allclose(x, want, rtol=0, atol=1e-9)


FAMILIES = {
    "grid 40x40": lambda: grid(40),
    "grid 25x25 weighted": lambda: grid(25, weights=9, seed=3),
    "grid 200x3": lambda: grid(200, 3),
    "path 300": lambda: sp.diags([np.ones(299), np.ones(299)], [-1, 1], shape=(300, 300)),
}


@pytest.mark.parametrize("name", sorted(FAMILIES))
@pytest.mark.parametrize("read", [True, False])
def test_rounds_identical_and_right(device, be, name, read):
    S = sp.csr_matrix(FAMILIES[name]())
    A = weighted(S, device)
    d, st_on = both(A, 0, be, read=read)
    check_dist(d, S, 0)
    if has_kernel(be):
        assert launched(st_on) >= 1
        assert st_on.get(("vxm", "speculated"), 0) > 0
        assert st_on.get(("assign", "speculated"), 0) > 0


@pytest.mark.parametrize("mxv", [False, True])
def test_directed_negative_weights_and_mxv(device, be, mxv):
    """A directed graph with negative edges (no negative cycle: weights
    grow along the vertex order, a few go back with positive weight):
    vertices improve in several rounds."""
    rng = np.random.default_rng(7)
    n = 400
    r = np.concatenate([np.arange(n - 1), rng.integers(0, n, 900)])
    c = np.concatenate([np.arange(1, n), rng.integers(0, n, 900)])
    fwd = c > r
    w = np.where(fwd, rng.integers(-3, 6, r.shape[0]), rng.integers(20, 40, r.shape[0]))
    keep = r != c
    S = sp.csr_matrix((w[keep].astype(float), (r[keep], c[keep])), shape=(n, n))
    S.sum_duplicates()
    # mxv pushes along A's columns: A.mxv(f) is f over A's transpose
    A = weighted(S.T if mxv else S, device)
    d, _ = both(A, 0, be, mxv=mxv)
    check_dist(d, S, 0)


def test_isolated_vertices_and_a_cut(device, be):
    S = grid(30).tolil()
    for v in range(30 * 15, 30 * 16):            # cut the grid along one row
        S[v, :] = 0
        S[:, v] = 0
    S = sp.csr_matrix(S)
    S.eliminate_zeros()
    big = sp.block_diag([S, sp.csr_matrix((20, 20))]).tocsr()     # 20 isolated vertices
    A = weighted(big, device)
    for src in (0, 30 * 20 + 4, 900 + 3):
        d, _ = both(A, src, be)
        check_dist(d, big, src)


def test_power_law_graph(device, be):
    import networkx as nx
    G = nx.barabasi_albert_graph(600, 3, seed=2)
    S = nx.to_scipy_sparse_array(G, format="csr").astype(float)
    A = weighted(S, device)
    d, _ = both(A, 5, be)
    check_dist(d, S, 5)


@pytest.mark.parametrize("dtype", [np.int64, np.float32])
def test_other_types(device, be, dtype):
    S = grid(20, weights=5, seed=1)
    A = weighted(S, device, dtype)
    big = 2**62 if np.dtype(dtype).kind == "i" else math.inf    # (inf is no int64)
    d, _ = both(A, 3, be, dtype=np.dtype(dtype), default=big)
    assert d.dtype == np.dtype(dtype)
    check_dist(d, S, 3)


@pytest.mark.parametrize("n", [0, 1])
def test_tiny(device, be, n):
    A = gb.Matrix("float64", n, n, device=device)
    if n:
        both(A, 0, be)


def test_no_edges(device, be):
    A = weighted(sp.csr_matrix((50, 50)), device)
    d, _ = both(A, 7, be)
    assert coo(d)[0].tolist() == [7]


def _perturbations():
    def dist_extra(k, dist, f, A):
        if k == 12:
            dist[dist.size - 1] = 0.5            # the distances changed otherwise

    def dist_lower(k, dist, f, A):
        if k == 12:
            dist.assign(-1.0, mask=f.S)          # a scalar under f.S: not the chain's assign

    def matrix_changed(k, dist, f, A):
        if k == 12:                              # the matrix changed mid-run, at
            for j in coo(f)[0][:3]:              # the frontier: the next round sees it
                A[int(j), int(j) + 1] = 0.01

    def frontier_changed(k, dist, f, A):
        if k == 12:
            g = f.dup()
            g[0] = 100.0                         # another frontier
            return g

    def frontier_written(k, dist, f, A):
        if k == 12:
            f[f.size - 2] = 1.0                  # the frontier itself written

    def assign_twice(k, dist, f, A):
        if k in (12, 13):
            dist.assign(f, mask=f.S)             # the same assign again

    return {"dist_extra": dist_extra, "dist_lower": dist_lower,
            "matrix_changed": matrix_changed, "frontier_changed": frontier_changed,
            "frontier_written": frontier_written, "assign_twice": assign_twice}


@pytest.mark.parametrize("name", sorted(_perturbations()))
def test_chain_broken_mid_run(device, be, name):
    S = grid(30, weights=3, seed=4)
    p = _perturbations()[name]
    both(lambda: weighted(S, device), 0, be, perturb=p)


def test_extra_calls_mid_run(device, be):
    """Other calls on a round's results mid-run -- a product of t and of b,
    of the frontier in the other direction (a directed graph), a copy of
    the frontier into another vector -- give the ordinary results, and the
    chain goes on answering as it does without them."""
    rng = np.random.default_rng(5)
    S = grid(60, weights=3, seed=6).tolil()
    for _ in range(12):                          # some one-way shortcuts
        i, j = rng.integers(0, 3600, 2)
        S[i, j] = 1.5
    S = sp.csr_matrix(S)
    A = weighted(S, device)

    def run(on, extra):
        be.relax = on
        gb.stats.reset()
        dist = Vector.from_coo([0], 0.0, size=A.nrows, device=device)
        f = dist.dup()
        seen = []
        for k in range(1000):
            t = f.vxm(A, semiring.min_plus)
            if extra and k == 12:
                seen.append(coo(t.vxm(A, semiring.min_plus)))    # a product of t
                seen.append(coo(A.mxv(f, semiring.min_plus)))    # the other direction
            b = t.ewise_union(dist, binary.lt, math.inf, math.inf, mask=t.S)
            if extra and k == 13:
                seen.append(coo(b.vxm(A, semiring.min_plus)))    # a product of b
                seen.append(coo(b.apply(unary.identity, mask=b.V)))   # b's own
            f = t.apply(unary.identity, mask=b.V)
            seen.append(coo(f))
            if f.nvals == 0:
                break
            if extra and k == 14:
                w = Vector("float64", A.nrows, device=device)
                w.assign(f, mask=f.S)                            # f into another vector
                seen.append(coo(w))
            dist.assign(f, mask=f.S)
        return seen, coo(dist), dict(gb.stats.counts)
    a, b = run(False, True), run(True, True)
    assert len(a[0]) == len(b[0])
    for x, y in zip(a[0], b[0]):
        np.testing.assert_array_equal(x[0], y[0])
        np.testing.assert_array_equal(x[1], y[1])
        assert x[2] == y[2]
    np.testing.assert_array_equal(a[1][1], b[1][1])
    if has_kernel(be):
        plain = run(True, False)[2]
        for key in (("ewise_union", "speculated"), ("apply", "speculated"),
                    ("assign", "speculated"), ("relaxation", "launched")):
            assert b[2].get(key, 0) == plain.get(key, 0) > 0, key


def test_other_default_and_comparison(device, be):
    """A run whose rounds use another default for a missing distance, or
    ``le``, in some rounds: each call either continues the chain or takes
    the ordinary path, as the off run does."""
    A = weighted(grid(30), device)
    both(A, 0, be, default=1e9)
    # (weights 1-3: equal lengths arrive in later rounds, so le and lt differ)
    both(weighted(grid(30, weights=3, seed=8), device), 0, be,
         default=lambda k: -1.0 if k in (20, 21) else math.inf,   # nothing missing improves
         op=lambda k: binary.le if k in (10, 11) else binary.lt)


@pytest.mark.parametrize("skip", [(12,), (12, 13), (20,)])
def test_skipped_assign(device, be, skip):
    """A round that skips the assign (inside a kernel run's answered rounds)
    ends the chain: the next comparison reads distances the kernel did not
    have -- even though their stamp is the one the run last saw."""
    both(weighted(grid(40), device), 0, be, skip=skip)


def test_sssp_algorithm_and_negative_cycle(device, be):
    S = grid(30, weights=4, seed=9)
    be.relax = True
    gb.stats.reset()
    d = gb.algorithms.sssp(weighted(S, device), 0)
    check_dist(d, S, 0)
    if has_kernel(be):
        assert launched(gb.stats.counts) >= 1
    # a long path into a negative cycle: the rounds never end
    n = 120
    r = list(range(n - 1)) + [n - 1]
    c = list(range(1, n)) + [n - 5]
    w = [1.0] * (n - 1) + [-10.0]
    A = weighted(sp.csr_matrix((w, (r, c)), shape=(n, n)), device)
    with pytest.raises(gb.NegativeCycle):
        gb.algorithms.sssp(A, 0)


def test_switch_off(device, be):
    S = grid(30)
    be.relax = False
    gb.stats.reset()
    d = gb.algorithms.sssp(weighted(S, device), 0)
    assert launched(gb.stats.counts) == 0
    assert gb.stats.counts.get(("vxm", "speculated"), 0) == 0
    check_dist(d, S, 0)


# ---------------------------------------------------------------- the kernel
def _model(S, fidx, fvals, dvals, dpres, default, small, max_rounds, cap):
    """The rounds in plain Python: (fk, fv, tn, foff, complete)."""
    S = sp.csr_matrix(S)
    dv, dp = dvals.copy(), dpres.copy()
    fk, fv, tn, foff = [], [], [], [0]
    f = dict(zip(fidx.tolist(), fvals.tolist()))
    complete = False
    for _ in range(max_rounds):
        t = {}
        for i in sorted(f):
            for p in range(S.indptr[i], S.indptr[i + 1]):
                j, w = S.indices[p], S.data[p]
                x = f[i] + w
                t[j] = min(t[j], x) if j in t else x
        if len(fk) + len(t) > cap:
            break                               # f' might not fit
        tn.append(len(t))
        nf = {j: x for j, x in t.items() if x < (dv[j] if dp[j] else default)}
        for j in sorted(nf):
            fk.append(j)
            fv.append(nf[j])
            dv[j], dp[j] = nf[j], True
        foff.append(len(fk))
        if not nf:
            complete = True
            break
        if len(nf) > small:
            break
        f = nf
    return fk, fv, tn, foff, complete


@pytest.mark.parametrize("small,max_rounds,cap", [(10**6, 10**6, None), (5, 10**6, None),
                                                  (10**6, 7, None), (10**6, 10**6, 300),
                                                  (10**6, 10**6, 100)])
def test_kernel_against_model(small, max_rounds, cap):
    from graphblast_py.backend.cpu.relax import relax_rounds
    rng = np.random.default_rng(11)
    n = 150
    r = rng.integers(0, n, 700)
    c = rng.integers(0, n, 700)
    w = rng.integers(1, 20, 700).astype(float)
    S = sp.csr_matrix((w, (r, c)), shape=(n, n))
    S.sum_duplicates()
    dvals = np.zeros(n)
    dpres = np.zeros(n, bool)
    dvals[3], dpres[3] = 0.0, True
    fidx, fvals = np.array([3]), np.array([0.0])
    ws = (np.zeros(n), np.zeros(n, bool), np.empty(n, np.int64))
    dws = (np.empty(n), np.empty(n, bool))
    got = relax_rounds(S.indptr, S.indices, S.data, True, fidx, fvals, dvals, dpres, math.inf,
                       True, small, max_rounds, ws, dws, cap=cap)
    want = _model(S, fidx, fvals, dvals, dpres, math.inf, small, max_rounds,
                  n + 1024 if cap is None else cap)
    if cap is not None:
        assert not want[4] and len(want[2]) > 1      # stopped early by the room, not at 0
    fk, fv, tn, foff, complete = got
    assert tn == want[2] and foff == want[3] and complete == want[4]
    np.testing.assert_array_equal(fk[:foff[-1]], want[0])
    np.testing.assert_array_equal(fv[:foff[-1]], want[1])
    assert not ws[1].any()                      # the accumulator's flags left clear
    assert dvals[3] == 0.0 and dpres.sum() == 1  # the distances not written


# ---------------------------------------------------------------- Hypothesis
@settings(max_examples=40)
@given(st.integers(2, 60), st.integers(0, 400), st.integers(0, 2**31 - 1), st.data())
def test_random_graphs(n, m, seed, data):
    from graphblast_py.backend import get
    be = get("cpu")
    saved = be.relax
    try:
        rng = np.random.default_rng(seed)
        r = rng.integers(0, n, m)
        c = rng.integers(0, n, m)
        w = rng.integers(0, 6, m).astype(float)
        S = sp.csr_matrix((w, (r, c)), shape=(n, n))
        S.sum_duplicates()
        A = weighted(S, "cpu")
        src = data.draw(st.integers(0, n - 1))
        d, _ = both(A, src, be)
        check_dist(d, S, src)
    finally:
        be.relax = saved


def test_read_rounds_without_the_push_plan(monkeypatch):
    """An answered t read where the plain push's one-call kernel is off
    (``PUSH_SORT_KERNEL``): it is computed by the backend's push and the
    output rule, with the same entries."""
    from graphblast_py.backend.cpu import backend as cpu_backend
    be = backend.get("cpu")
    saved = be.relax
    try:
        monkeypatch.setattr(cpu_backend, "PUSH_SORT_KERNEL", False)
        both(weighted(grid(30, weights=3, seed=2), "cpu"), 0, be, read=True)
    finally:
        be.relax = saved


def test_out_of_memory_in_the_kernel_run(monkeypatch):
    """An allocation failure inside the kernel run: the library's
    OutOfMemory naming the vxm, the distances unchanged, the push's
    accumulator left clear for the next push (which then gives the right
    result)."""
    from graphblast_py.backend.cpu import relax as kernel
    be = backend.get("cpu")
    saved = be.relax
    real = kernel._relax

    def failing(*args):
        outp = args[13]
        outp[:7] = True                         # a round under way
        raise MemoryError("no room")
    try:
        be.relax = True
        S = grid(25)
        A = weighted(S, "cpu")
        monkeypatch.setattr(kernel, "_relax", failing)
        with pytest.raises(gb.OutOfMemory, match=r"^Vector\.vxm"):
            gb.algorithms.sssp(A, 0)
        assert not be._push_workspace(A.nrows, np.dtype(np.float64))[1].any()
        monkeypatch.setattr(kernel, "_relax", real)
        check_dist(gb.algorithms.sssp(A, 0), S, 0)
    finally:
        be.relax = saved


def test_distances_read_every_round(device, be):
    """Reading the distances mid-run (their pending copies carried out each
    time) changes no result and does not end the chain."""
    S = grid(30, weights=3, seed=4)
    seen = []

    def read(k, dist, f, A):
        seen.append((be.relax, coo(dist)))
        assert dist.nvals == coo(dist)[0].shape[0]
    d, counts = both(lambda: weighted(S, device), 0, be, perturb=read)
    off = [c for on, c in seen if not on]
    on = [c for on, c in seen if on]
    assert len(off) == len(on)
    for x, y in zip(off, on):
        np.testing.assert_array_equal(x[0], y[0])
        np.testing.assert_array_equal(x[1], y[1])
    check_dist(d, S, 0)
    if has_kernel(be):
        _, plain = both(lambda: weighted(S, device), 0, be)
        assert counts.get(("assign", "speculated"), 0) == plain.get(("assign", "speculated")) > 0


@pytest.mark.parametrize("cap", [0, 60])
def test_runs_stopped_by_their_room(monkeypatch, cap):
    """Kernel runs whose output arrays are small (cap 60: each run stops
    before a round that might not fit, and later rounds start new runs;
    cap 0: no round fits, every call takes the ordinary path): the same
    rounds and distances as with the speculation off."""
    from graphblast_py.backend.cpu import relax as kernel
    be = backend.get("cpu")
    saved = be.relax
    real = kernel.relax_rounds
    monkeypatch.setattr(kernel, "relax_rounds", lambda *a, **k: real(*a, cap=cap))
    try:
        S = grid(30, weights=3, seed=4)
        d, counts = both(weighted(S, "cpu"), 0, be)
        check_dist(d, S, 0)
        runs = counts.get(("relaxation", "launched"), 0)
        if cap:
            assert runs >= 3 and counts.get(("assign", "speculated"), 0) > 0
        else:
            assert runs == 0 and counts.get(("vxm", "speculated"), 0) == 0
    finally:
        be.relax = saved


def test_dense_vector_backend(monkeypatch):
    """The CPU backend made to keep vectors dense (``dense_vectors``, as the
    GPU's does): the rounds take the general paths, the chain is recorded
    there, a run starts from a dense frontier, and every round and the
    distances equal the speculation off and SciPy."""
    be = backend.get("cpu")
    saved = be.relax
    cases = [(S, weighted(S, "cpu")) for S in (grid(30), grid(30, weights=3, seed=4))]
    monkeypatch.setattr(be, "dense_vectors", True, raising=False)
    try:
        for S, A in cases:
            d, counts = both(A, 0, be)
            check_dist(d, S, 0)
            assert launched(counts) >= 1 and counts.get(("assign", "speculated"), 0) > 0
    finally:
        be.relax = saved


def test_repeated_keys_copied_last_wins(device, be, monkeypatch):
    """A vertex improved in several rounds of one run is in each round's
    entries, and the distances' joined deferred copy then holds repeated
    keys: every ``copy_at`` the rounds make with a repeated key must ask for
    the last occurrence to win (``last=True``; a fancy-indexed store on the
    GPU leaves the winner unspecified, which gave wrong distances there),
    and a copy that does get repeats (random weights) gives the right
    distances."""
    seen = {"repeats": 0}
    orig = be.copy_at

    def checked(vals, pres, keys, src, last=False):
        k = host(keys)
        if np.unique(k).shape[0] != k.shape[0]:
            assert last, "repeated keys copied without last=True"
            seen["repeats"] += 1
        return orig(vals, pres, keys, src, last)

    monkeypatch.setattr(be, "copy_at", checked)
    S = grid(30, weights=9, seed=2)
    d, counts = both(weighted(S, device), 0, be, read=False)
    check_dist(d, S, 0)
    if has_kernel(be):
        assert launched(counts) >= 1 and seen["repeats"] >= 1


@pytest.mark.parametrize("dt", ["float64", "int64", "float32", "int8", "bool", "complex128"])
def test_copy_at_last_occurrence(device, dt):
    """``copy_at(last=True)`` with repeated keys (each backend's own path:
    the CPU's one pass, the GPU's scatter-max of occurrences, the generic
    sort for what the CPU kernel does not take) against a sequential Python
    store; without repeats and with one key it is the plain copy."""
    be = backend.get(device)
    xp = np if device == "cpu" else __import__("cupy")
    rng = np.random.default_rng(len(dt))
    n = 300
    for m in (0, 1, 2, 50, 900):
        keys = rng.integers(0, n, m).astype(np.int64)
        src = rng.integers(0, 100, m).astype(dt)
        vals = rng.integers(0, 100, n).astype(dt)
        pres = rng.random(n) < 0.4
        wv, wp = vals.copy(), pres.copy()
        for k, x in zip(keys, src):
            wv[k], wp[k] = x, True
        gv, gp = xp.asarray(vals.copy()), xp.asarray(pres.copy())
        be.copy_at(gv, gp, xp.asarray(keys), xp.asarray(src), last=True)
        np.testing.assert_array_equal(host(gp), wp, err_msg=f"m={m}")
        np.testing.assert_array_equal(host(gv), wv, err_msg=f"m={m}")
    for m in (1, 7, 300):                   # distinct keys, the plain copy
        for kt in ("int64", "int32"):       # (int32 keys: the general path)
            keys = rng.permutation(n)[:m].astype(kt)
            src = rng.integers(0, 100, m).astype(dt)
            vals = rng.integers(0, 100, n).astype(dt)
            pres = rng.random(n) < 0.4
            wv, wp = vals.copy(), pres.copy()
            wv[keys], wp[keys] = src, True
            gv, gp = xp.asarray(vals.copy()), xp.asarray(pres.copy())
            be.copy_at(gv, gp, xp.asarray(keys), xp.asarray(src))
            np.testing.assert_array_equal(host(gp), wp, err_msg=f"m={m} {kt}")
            np.testing.assert_array_equal(host(gv), wv, err_msg=f"m={m} {kt}")
    from graphblast_py.backend.generic import ArrayBackend
    keys = np.array([4, 1, 4, 4, 2, 1], dtype=np.int64)
    src = np.arange(6).astype(dt)
    gv, gp = np.zeros(6, dtype=dt), np.zeros(6, dtype=bool)
    ArrayBackend.copy_at(backend.get("cpu"), gv, gp, keys, src, last=True)  # the generic sort
    np.testing.assert_array_equal(gv, np.array([0, 5, 4, 0, 3, 0]).astype(dt))
    np.testing.assert_array_equal(gp, [False, True, True, False, True, False])
