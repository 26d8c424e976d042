"""Direction optimization of mxv / vxm and the mxm method choice.

* push and pull give identical results (deterministic semirings; 'any' by
  structure);
* direction="auto" follows the cost model (push while the frontier's edges
  are fewer than what pull would scan) and records its choice in gb.stats: on
  a growing BFS frontier it switches from push to pull and back;
* structure only: a BFS step (any_pair / any_secondi) never materializes the
  values of an iso matrix -- the backend kernels receive ``vals=None``;
* SpMM (mxm with a dense B) matches SciPy for several block widths;
* early exit is only taken on a true terminal value: every monoid's terminal
  absorbs every value of its type (NaN and infinities included), and push,
  pull, dot and saxpy agree with the reference model on floats holding
  NaN, +-inf, -0.0 and 0 (``0 * inf`` is NaN, so float ``times`` has no
  terminal).

Random inputs come from fixed seeds (numbers written here, never ``hash()``),
so every run tests the same matrices.
"""
import zlib

import numpy as np
import pytest
import scipy.sparse as sp

import graphblast_py as gb
from graphblast_py.operations import mxv as mxv_module

from . import reference as R
from .conftest import host


def random_graph(rng, n, avg_deg, device, iso=True, directed=False, dtype="int64"):
    m = int(n * avg_deg / (1 if directed else 2))
    r = rng.integers(0, n, m)
    c = rng.integers(0, n, m)
    keep = r != c
    r, c = r[keep], c[keep]
    if not directed:
        r, c = np.concatenate([r, c]), np.concatenate([c, r])
    if iso:
        return gb.Matrix.from_coo(r, c, 1, n, n, dtype=dtype, dup_op="first", device=device)
    vals = rng.integers(1, 9, r.shape[0]).astype(dtype)
    return gb.Matrix.from_coo(r, c, vals, n, n, dup_op="min", device=device)


def coo(x):
    return [host(a) for a in x.to_coo()]


def same(a, b, values=True):
    ca, cb = coo(a), coo(b)
    for x, y in zip(ca[:-1], cb[:-1]):
        np.testing.assert_array_equal(x, y)
    if values:
        np.testing.assert_array_equal(ca[-1], cb[-1])
    assert a.dtype == b.dtype


# ---------------------------------------------------------------- push == pull
@pytest.mark.parametrize("name", ["plus_times", "min_plus", "max_times", "lor_land", "plus_pair",
                                  "min_first", "max_second", "min_secondi", "any_pair",
                                  "any_secondi", "land_lor", "times_times", "eq_lor"])
@pytest.mark.parametrize("mask", [None, "S", "~S", "V", "~V"])
def test_push_equals_pull(device, name, mask):
    rng = np.random.default_rng(zlib.crc32(f"{name}/{mask}".encode()))   # same every run
    n = 300
    A = random_graph(rng, n, 6, device, iso=False, directed=True)
    for k in (1, 20, 250):
        idx = rng.choice(n, k, replace=False)
        u = gb.Vector.from_coo(idx, rng.integers(1, 5, k), n, device=device)
        mk = None
        if mask is not None:
            M = gb.Vector.from_coo(rng.choice(n, n // 3, replace=False),
                                   rng.integers(0, 2, n // 3), n, device=device)
            mk = M.S if "S" in mask else M.V
            if mask.startswith("~"):
                mk = ~mk
        for op in ("vxm", "mxv"):
            res = {}
            for direction in ("push", "pull"):
                if op == "vxm":
                    res[direction] = u.vxm(A, gb.semiring[name], mask=mk, direction=direction)
                else:
                    res[direction] = A.mxv(u, gb.semiring[name], mask=mk, direction=direction)
                assert gb.stats.last(op) == direction
            same(res["push"], res["pull"], values=not name.startswith("any"))
            if name == "any_secondi":    # every value is a valid predecessor index
                P = np.zeros((n, n), bool)
                ar, ac, _ = coo(A)
                P[ar, ac] = True
                upres = np.zeros(n, bool)
                upres[coo(u)[0]] = True
                for r in res.values():
                    out_idx, k = coo(r)
                    assert upres[k].all()
                    if op == "vxm":      # w(j) = any_i u(i) A(i,j): secondi = i
                        assert P[k, out_idx].all()
                    else:                # w(i) = any_j A(i,j) u(j): secondi = j
                        assert P[out_idx, k].all()


# ---------------------------------------------------------------- the cost model
def _bfs_choices(A, source, direction):
    n = A.nrows
    levels = gb.Vector(gb.dtypes.INT64, n, device=A.device)
    frontier = gb.Vector.from_coo([source], True, n, device=A.device)
    choices, sizes, depth = [], [], 0
    while frontier.nvals:
        levels.assign(depth, mask=frontier.S)
        sizes.append(frontier.nvals)
        frontier.vxm(A, gb.semiring.any_pair, mask=~levels.S, replace=True, out=frontier,
                     direction=direction)
        choices.append(gb.stats.last("vxm"))
        depth += 1
    return levels, choices, sizes


def test_auto_switches_on_growing_frontier(device, monkeypatch):
    # the ordinary calls' choice: no wide traversal run answering the big
    # levels (the GPU's default; its directions: test_alg_traversal.py)
    monkeypatch.setattr(gb.backend.get(device), "speculate_wide", False)
    rng = np.random.default_rng(1)
    A = random_graph(rng, 4000, 10, device)
    gb.stats.reset()
    levels, choices, sizes = _bfs_choices(A, 0, "auto")
    # a small-world graph: the frontier grows from 1 vertex to thousands, then shrinks
    assert choices[0] == "push", (choices, sizes)
    assert "pull" in choices, (choices, sizes)
    peak = int(np.argmax(sizes))
    assert choices[peak] == "pull", (choices, sizes)
    assert gb.stats()["counts"].get("vxm:pull", 0) >= 1
    # the choice does not change the answer
    for forced in ("push", "pull"):
        lv, ch, _ = _bfs_choices(A, 0, forced)
        assert set(ch) == {forced}
        same(levels, lv)


def _expected_direction(A, u, device, factor, allowed, swap):
    """The cost model written out from its definition (operations/mxv.py
    ``_choose``), with the counts taken from SciPy: push_cost = the
    frontier's edges (exact where the backend counts them, for vxm; else
    d * nvals(u)) * push_cost_weight; pull_cost = (d * factor +
    pull_row_cost) * allowed outputs."""
    from graphblast_py import backend
    be = backend.get(device)
    S = A.to("cpu").to_scipy().tocsr()
    d = S.nnz / S.shape[0]
    idx, _ = u.to("cpu").to_coo()
    deg = np.diff(S.indptr)
    edges = int(deg[idx].sum()) if (swap and be.exact_push_edges) else d * idx.shape[0]
    push = edges * be.push_cost_weight
    pull = (d * factor + be.pull_row_cost) * allowed
    return "push" if push < pull else "pull"


def test_auto_follows_the_cost_model(device):
    """push_cost = the frontier's edges * the backend's push_cost_weight;
    pull_cost = (d, times the early-exit factor for monoids with a terminal
    value (any, lor, min ...), + the backend's pull_row_cost) * allowed
    outputs."""
    rng = np.random.default_rng(2)
    n = 1000
    A = random_graph(rng, n, 8, device)
    f = mxv_module.EARLY_EXIT_FACTOR
    seen = set()
    for sr, factor in ((gb.semiring.any_pair, f), (gb.semiring.lor_land, f),
                       (gb.semiring.plus_times, 1.0)):
        for k in (1, 10, 100, 240, 260, 400, 900):
            u = gb.Vector.from_coo(rng.choice(n, k, replace=False), 1, n, device=device)
            u.vxm(A, sr)
            want = _expected_direction(A, u, device, factor, n, True)
            assert gb.stats.last("vxm") == want, (sr, k)
            A.mxv(u, sr)
            assert gb.stats.last("mxv") == _expected_direction(A, u, device, factor, n, False)
            seen.add(want)
    assert seen == {"push", "pull"}         # the sizes cover both sides of the switch
    # a mask limits what pull scans: few allowed outputs -> pull even for a big frontier
    u = gb.Vector.from_coo(rng.choice(n, 100, replace=False), 1, n, device=device)
    few = gb.Vector.from_coo([3, 5, 7], True, n, device=device)
    u.vxm(A, gb.semiring.plus_times, mask=few.S)
    assert gb.stats.last("vxm") == "pull"
    u.vxm(A, gb.semiring.plus_times, mask=~few.S)
    assert gb.stats.last("vxm") == _expected_direction(A, u, device, 1.0, n - 3, True)


def _hub_graph(device, n=20000, nhubs=40, hub_deg=5000):
    """A power-law shape: the source 0 joined to ``nhubs`` hubs, each joined
    to ``hub_deg`` random vertices, all on a ring; the frontier after the
    source is the hubs, of ~12x the mean degree."""
    rng = np.random.default_rng(7)
    r = [np.zeros(nhubs, np.int64)]
    c = [np.arange(1, nhubs + 1)]
    for h in range(1, nhubs + 1):
        t = rng.choice(np.arange(nhubs + 1, n), hub_deg, replace=False)
        r.append(np.full(t.shape[0], h))
        c.append(t)
    ring = np.arange(n)
    r.append(ring)
    c.append((ring + 1) % n)
    r, c = np.concatenate(r), np.concatenate(c)
    r, c = np.concatenate([r, c]), np.concatenate([c, r])
    S = sp.coo_matrix((np.ones(r.shape[0], bool), (r, c)), shape=(n, n)).tocsr()
    S.sum_duplicates()
    return gb.Matrix.from_scipy(S, device=device)


def test_cpu_direction_hub_frontier_and_grid_frontier():
    """The CPU's calibrated choice (cost-model level, no timing): the frontier
    next to a hub holds the high-degree vertices, so its edges are many times
    ``d * nvals(u)`` -- pull, although the mean-degree estimate says push;
    a grid's frontier (a diagonal of a few dozen vertices of degree <= 4)
    pushes while most rows are unvisited."""
    A = _hub_graph("cpu")
    n = A.nrows
    S = A.to_scipy()
    frontier = gb.Vector.from_coo(np.arange(1, 41), True, n)     # the source's neighbours
    visited = gb.Vector.from_coo(np.arange(0, 41), True, n)
    nxt = frontier.vxm(A, gb.semiring.any_pair, mask=~visited.S, replace=True)
    assert gb.stats.last("vxm") == "pull"
    want = np.setdiff1d(np.unique(S[1:41].indices), np.arange(41))   # SciPy's answer
    assert np.array_equal(np.sort(nxt.to_coo()[0]), want)
    # what the mean degree alone would have said
    d = S.nnz / n
    be_w = gb.backend.get("cpu").push_cost_weight
    assert d * 40 * be_w < (d * mxv_module.EARLY_EXIT_FACTOR
                            + gb.backend.get("cpu").pull_row_cost) * (n - 41)
    # the grid frontier of BFS level 40 from a corner: vertices i + j = 40
    G = gb.generators.grid2d(100, 100)
    ii = np.arange(41)
    front = ii * 100 + (40 - ii)
    seen = np.concatenate([i * 100 + np.arange(41 - i) for i in range(41)])
    f = gb.Vector.from_coo(front, True, 10000)
    v = gb.Vector.from_coo(seen, True, 10000)
    nxt = f.vxm(G, gb.semiring.any_pair, mask=~v.S, replace=True)
    assert gb.stats.last("vxm") == "push"
    Sg = G.to_scipy()
    want = np.setdiff1d(np.unique(Sg[front].indices), seen)         # SciPy's answer
    assert np.array_equal(np.sort(nxt.to_coo()[0]), want) and want.shape[0] == 42


def test_direction_argument_checked(device):
    A = gb.Matrix.from_coo([0], [1], 1, 2, 2, device=device)
    u = gb.Vector.from_coo([0], 1, 2, device=device)
    with pytest.raises(gb.InvalidValue, match="direction"):
        u.vxm(A, gb.semiring.any_pair, direction="sideways")
    E = gb.Matrix(bool, 3, 3, device=device)
    u3 = gb.Vector.from_coo([0], True, 3, device=device)
    for direction in ("push", "pull"):      # an empty matrix, either direction: no entries
        assert u3.vxm(E, gb.semiring.any_pair, direction=direction).nvals == 0
        assert gb.stats.last("vxm") == direction


# ---------------------------------------------------------------- structure only
class _Spy:
    """Wraps a backend's mxv kernels to record which values arrays they get."""

    def __init__(self, be, monkeypatch):
        self.seen = []
        push, pull = be.spmspv_push, be.spmv_pull

        def spy_push(P, x, semiring, *a, **k):
            self.seen.append(("push", P[2]))
            return push(P, x, semiring, *a, **k)

        def spy_pull(R, x, semiring, *a, **k):
            self.seen.append(("pull", R[2]))
            return pull(R, x, semiring, *a, **k)
        monkeypatch.setattr(be, "spmspv_push", spy_push)
        monkeypatch.setattr(be, "spmv_pull", spy_pull)


@pytest.mark.parametrize("name", ["any_pair", "any_secondi", "plus_pair", "min_secondi"])
@pytest.mark.parametrize("iso", [True, False])
def test_bfs_step_never_reads_matrix_values(device, monkeypatch, name, iso):
    rng = np.random.default_rng(4)
    A = random_graph(rng, 500, 6, device, iso=iso)
    assert A.iso == iso
    from graphblast_py import backend
    spy = _Spy(backend.get(device), monkeypatch)

    def no_values(self):
        raise AssertionError("the matrix values were materialized")
    if iso:
        monkeypatch.setattr(gb.Matrix, "_values_full", no_values)
    visited = gb.Vector.from_coo(rng.choice(500, 100, replace=False), True, 500, device=device)
    for k, direction in ((3, "push"), (300, "pull"), (5, "auto"), (400, "auto")):
        f = gb.Vector.from_coo(rng.choice(500, k, replace=False), True, 500, device=device)
        f.vxm(A, gb.semiring[name], mask=~visited.S, replace=True, out=f, direction=direction)
        A.mxv(f, gb.semiring[name], mask=~visited.S, direction=direction)
    assert {d for d, _ in spy.seen} == {"push", "pull"}
    assert all(v is None for _, v in spy.seen), "kernels received a values array"


def test_value_semiring_does_read_values(device, monkeypatch):
    """The spy itself works: a semiring that reads A gets its values."""
    rng = np.random.default_rng(5)
    A = random_graph(rng, 200, 6, device, iso=False)
    from graphblast_py import backend
    spy = _Spy(backend.get(device), monkeypatch)
    u = gb.Vector.from_coo([0, 1], [1, 2], 200, device=device)
    u.vxm(A, gb.semiring.min_plus, direction="push")
    u.vxm(A, gb.semiring.min_plus, direction="pull")
    assert len(spy.seen) == 2 and all(v is not None for _, v in spy.seen)


def test_early_exit_results(device):
    """Monoids with a terminal value (lor: True, min over int: INT_MIN, times:
    0, any) stop a pull row early; the results equal push's."""
    rng = np.random.default_rng(6)
    A = random_graph(rng, 400, 12, device, iso=False)
    Ab = A.apply(gb.binary.gt, right=4)               # bool matrix, some False values
    u = gb.Vector.from_coo(np.arange(400), rng.integers(-3, 4, 400), 400, device=device)
    ub = u.apply(gb.binary.ne, right=0)
    for sr, x, M in (("lor_land", ub, Ab), ("land_lor", ub, Ab), ("min_times", u, A),
                     ("times_plus", u, A), ("max_min", u, A)):
        same(x.vxm(M, gb.semiring[sr], direction="pull"),
             x.vxm(M, gb.semiring[sr], direction="push"))


# ---------------------------------------------------------------- terminal values, NaN, inf
ALL_DTYPES = [np.dtype(t) for t in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                                    "uint32", "uint64", "float32", "float64")]
MONOID_NAMES = ["plus", "times", "min", "max", "lor", "land", "lxor", "eq", "any"]


def _probe_values(dt):
    """Every special value of ``dt`` and a few ordinary ones."""
    if dt.kind == "b":
        return [np.bool_(False), np.bool_(True)]
    if dt.kind == "f":
        return [dt.type(v) for v in (np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0, -2.5,
                                     np.finfo(dt).max, np.finfo(dt).min)]
    info = np.iinfo(dt)
    return [dt.type(v) for v in {info.min, info.max, 0, 1, 2, info.min + 1, info.max - 1}
            | ({-1} if dt.kind == "i" else set())]


def _same_value(a, b):
    return (a != a and b != b) or (a == b)


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("name", MONOID_NAMES)
def test_terminal_absorbs_every_value(name, dt):
    """A pull row stops at the monoid's terminal value t, so t must satisfy
    op(t, x) == op(x, t) == t for EVERY x of the type -- NaN and +-inf
    included (the reference model's operator, not the library's, decides).
    Float times has no terminal: 0 * inf is NaN."""
    mon = gb.monoid[name]
    t = mon.out_dtype(dt)
    term = mon.terminal(t)
    op = "lxnor" if name == "eq" else name
    if name == "times":
        assert (term is None) == (t.kind == "f"), term
    if name in ("min", "max") and t.kind == "f":      # fmin/fmax: -inf/+inf absorb NaN too
        assert term == (-np.inf if name == "min" else np.inf)
    if term is None:
        return
    term = t.type(term)
    for x in _probe_values(t):
        for z in (R.binop(op, term, x, t, t), R.binop(op, x, term, t, t)):
            assert _same_value(z, term), f"{name} on {t}: op({term!r}, {x!r}) = {z!r}"


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("name", MONOID_NAMES)
def test_identity_is_neutral(name, dt):
    """op(identity, x) == x for every x of the type -- except that fmin/fmax
    let a NaN lose against the identity (min(+inf, NaN) = +inf), which is why
    every reduction folds the stored values instead of starting from it."""
    if name == "any":
        return
    mon = gb.monoid[name]
    t = mon.out_dtype(dt)
    ident = t.type(mon.identity(t))
    op = "lxnor" if name == "eq" else name
    for x in _probe_values(t):
        if x != x and name in ("min", "max"):
            assert R.binop(op, ident, x, t, t) == ident
            continue
        assert _same_value(R.binop(op, ident, x, t, t), x), (name, t, ident, x)


def _special_matrix(rng, m, n, density, specials):
    """A float64 (Ref, Matrix) with values drawn from ``specials`` and small ints."""
    present = rng.random((m, n)) < density
    pool = np.array(list(specials) + [1.0, 2.0, -1.0, 4.0])   # powers of 2: exact sums
    vals = np.where(present, rng.choice(pool, (m, n)), 0.0)
    return R.Ref(vals, present)


SPECIAL_SEMIRINGS = ["times_times", "times_plus", "times_first", "times_second", "min_plus",
                     "min_times", "max_plus", "max_times", "min_first", "max_second",
                     "plus_times", "plus_min", "max_min", "min_max", "plus_div", "lor_land",
                     "any_pair", "eq_lor"]


@pytest.mark.parametrize("name", SPECIAL_SEMIRINGS)
def test_nan_inf_every_path_matches_reference(device, name):
    """Values 0, -0.0, NaN, +-inf through push, pull (early exit), dot and
    saxpy: every path equals the reference model (tests/reference.py), e.g.
    pull must not stop a times row at 0 when a later term is inf."""
    add, mult = name.split("_")
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    sr = gb.semiring[name]
    structure = add == "any"
    for trial, specials in enumerate(([0.0, np.inf], [np.nan, 0.0, -0.0],
                                      [np.nan, np.inf, -np.inf, 0.0])):
        A_r = _special_matrix(rng, 12, 15, 0.6, specials)
        u_r = R.Ref(rng.choice(np.array(specials + [2.0, -4.0]), 15), rng.random(15) < 0.8)
        u_r.vals[~u_r.present] = 0
        A = R.to_lib(A_r, "sparse", device)
        for form in ("sparse", "dense"):
            u = R.to_lib(u_r, form, device)
            want = R.mxv(A_r, u_r, add, mult)
            for direction in ("push", "pull"):
                got = R.from_lib(A.mxv(u, sr, direction=direction))
                assert gb.stats.last("mxv") == direction
                _assert_ref(got, want, structure, (name, trial, direction, "mxv"))
            want = R.vxm(u_r, A_r.T, add, mult)
            for direction in ("push", "pull"):
                got = R.from_lib(u.vxm(A.T, sr, direction=direction))
                _assert_ref(got, want, structure, (name, trial, direction, "vxm"))
        B_r = _special_matrix(rng, 15, 9, 0.5, specials)
        B = R.to_lib(B_r, "sparse", device)
        want = R.mxm(A_r, B_r, add, mult)
        full = gb.Matrix.from_dense(np.ones((12, 9), bool), device=device)
        for method, mask in (("saxpy", None), ("dot", full.S), ("auto", None)):
            got = R.from_lib(A.mxm(B, sr, method=method, mask=mask))
            _assert_ref(got, want, structure, (name, trial, method, "mxm"))
        want = R.reduce_rowwise(A_r, add)
        if add != "any":
            _assert_ref(R.from_lib(A.reduce_rowwise(gb.monoid[add])), want, False,
                        (name, trial, "reduce"))


def _assert_ref(got, want, structure_only, what):
    if structure_only:
        got = R.Ref(np.zeros_like(got.vals), got.present)
        want = R.Ref(np.zeros_like(want.vals), want.present)
    msg = R.equal(got, want)
    assert not msg, f"{what}: {msg}\n got      {got}\n expected {want}"


@pytest.mark.parametrize("dt", ["int8", "int16", "uint8", "uint16", "uint32"])
@pytest.mark.parametrize("name", ["plus_times", "times_times", "min_plus", "max_times",
                                  "plus_minus", "times_plus"])
def test_narrow_and_unsigned_wrap_in_every_path(device, dt, name):
    """Products and sums of narrow and unsigned integers wrap in their own
    type on every path -- push, pull, saxpy, dot -- as in the reference model
    (numba widens uint16 products to 64 bits: 65535 * 65535 must not be 0)."""
    add, mult = name.split("_")
    dt = np.dtype(dt)
    info = np.iinfo(dt)
    rng = np.random.default_rng(zlib.crc32(f"{name}/{dt}".encode()))
    pool = np.array([info.max, info.max - 1, info.min, 2, 3, 1, info.max // 2 + 1], dtype=dt)
    present = rng.random((9, 8)) < 0.6
    A_r = R.Ref(np.where(present, rng.choice(pool, (9, 8)), 0).astype(dt), present)
    u_r = R.Ref(rng.choice(pool, 8).astype(dt), rng.random(8) < 0.8)
    u_r.vals[~u_r.present] = 0
    A, u = R.to_lib(A_r, "sparse", device), R.to_lib(u_r, "sparse", device)
    want = R.mxv(A_r, u_r, add, mult)
    for direction in ("push", "pull"):
        _assert_ref(R.from_lib(A.mxv(u, gb.semiring[name], direction=direction)), want, False,
                    (name, str(dt), direction))
    U_r = R.Ref(u_r.vals[:, None].copy(), u_r.present[:, None].copy())
    U = R.to_lib(U_r, "sparse", device)
    full = gb.Matrix.from_dense(np.ones((9, 1), bool), device=device)
    want = R.mxm(A_r, U_r, add, mult)
    for method, mask in (("saxpy", None), ("dot", full.S)):
        _assert_ref(R.from_lib(A.mxm(U, gb.semiring[name], method=method, mask=mask)), want,
                    False, (name, str(dt), method))


# ---------------------------------------------------------------- SpMM
@pytest.mark.parametrize("width", [1, 2, 7, 32])
def test_spmm_matches_scipy(device, width):
    rng = np.random.default_rng(width)
    A = random_graph(rng, 300, 5, device, iso=False, directed=True, dtype="float64")
    X = rng.standard_normal((300, width))
    B = gb.Matrix.from_dense(X, device=device)
    C = A.mxm(B, gb.semiring.plus_times)
    assert gb.stats.last("mxm") == "spmm"
    S = sp.csr_matrix((host(coo(A)[2]), (coo(A)[0], coo(A)[1])), shape=A.shape)
    want = S @ X
    got = host(C.to_dense())
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    # rows of A with no entries have no entries in C
    empty = np.diff(S.indptr) == 0
    r, _, _ = coo(C)
    assert not np.isin(np.flatnonzero(empty), r).any()
    # integer and non-arithmetic semirings through the generic path
    Ai = A.apply(gb.unary.round).dup("int64")
    Xi = rng.integers(-3, 4, (300, width))
    Ci = Ai.mxm(gb.Matrix.from_dense(Xi, device=device), gb.semiring.plus_times)
    Si = sp.csr_matrix((host(coo(Ai)[2]), (coo(Ai)[0], coo(Ai)[1])), shape=A.shape)
    np.testing.assert_array_equal(host(Ci.to_dense()), Si @ Xi)
    Cm = Ai.mxm(gb.Matrix.from_dense(Xi, device=device), gb.semiring.min_plus)
    Dense = host(Ai.to_dense(fill=np.iinfo(np.int64).max // 4))
    present = np.zeros(A.shape, bool)
    present[coo(Ai)[0], coo(Ai)[1]] = True
    want_m = np.where(present[:, :, None], Dense[:, :, None] + Xi[None, :, :],
                      np.iinfo(np.int64).max).min(axis=1)
    got_m = host(Cm.to_dense())
    rows = present.any(axis=1)
    np.testing.assert_array_equal(got_m[rows], want_m[rows])
    # SpMM equals the sparse product of the same matrices
    assert A.mxm(B, gb.semiring.plus_times, method="saxpy").isclose(C, rel_tol=1e-12,
                                                                      abs_tol=1e-12)


@pytest.mark.parametrize("name", ["min_times", "max_plus", "plus_times", "times_times"])
def test_int32_wraps_alike_in_every_path(device, name):
    """Products and sums wrap in the output type (int32 here) whichever path
    computes them: push, pull, saxpy, dot and the reference's NumPy int32."""
    big = np.array([2**16, 2**15, 3, 2**30, -(2**31) + 1], dtype=np.int32)
    A = gb.Matrix.from_coo([0, 0, 0, 1, 1], [0, 1, 2, 1, 2], big, 2, 3, device=device)
    u = gb.Vector.from_coo([0, 1, 2], np.array([2**15, 4, 2**20], dtype=np.int32), 3,
                           device=device)
    add, mult = name.split("_")
    ops = {"times": np.multiply, "plus": np.add, "min": np.minimum, "max": np.maximum}
    want = []
    with np.errstate(over="ignore"):
        for i in range(2):
            r, c, v = coo(A)
            terms = [ops[mult](np.int32(v[t]), np.int32(coo(u)[1][c[t]])) for t in range(len(r))
                     if r[t] == i]
            acc = terms[0]
            for x in terms[1:]:
                acc = np.int32(ops[add](acc, x))
            want.append(int(acc))
    for direction in ("push", "pull"):
        w = A.mxv(u, gb.semiring[name], direction=direction)
        assert w.dtype == np.int32 and coo(w)[1].tolist() == want, direction
    U = gb.Matrix.from_coo([0, 1, 2], [0, 0, 0], coo(u)[1], 3, 1, device=device)
    full = gb.Matrix.from_coo([0, 1], [0, 0], True, 2, 1, device=device)
    for method in ("saxpy", "dot"):
        C = A.mxm(U, gb.semiring[name], method=method, mask=full.S)
        assert coo(C)[2].tolist() == want, method
