"""GraphBLAST's descriptor switches on mxv / vxm (dissertation Table 5.2):
``structure_only``, ``mask_first``, ``early_exit`` (plus ``direction`` and
``pull_input``, operand reuse) change the work, never the result.

* every combination of the three switches x direction gives exactly the
  default call's result (values, structure, dtype) for plus_times on values,
  min_plus, any_pair, any_secondi and lor_land, with no mask and with S, ~S
  and V masks, with accum and with replace; the default itself is checked
  against a dense NumPy evaluation of the definition;
* BFS levels are identical in the six cumulative Table 5.2 settings (and with
  pull forced) and equal SciPy's unweighted shortest-path distances, on a path
  searched from one end, a grid, a disconnected graph with isolated vertices,
  a Kronecker graph, an empty graph and a one-vertex graph;
* the switches reach the kernel: the backend's ``last_kernel`` hook reports
  the variant that ran (values loaded, early exit, mask in the kernel), and on
  the GPU the pull kernel's cache key differs with early_exit;
* bad switch values raise InvalidValue naming the keyword, before ``out`` is
  touched.
"""
import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse import csgraph

import graphblast_py as gb
from graphblast_py import backend as gb_backend

from .conftest import host

SWITCHES = [dict(structure_only=s, mask_first=m, early_exit=e)
            for s, m, e in itertools.product((True, False), repeat=3)]
DIRECTIONS = ("auto", "push", "pull")


def coo(x):
    return [host(a) for a in x.to_coo()]


def assert_same(a, b):
    assert a.dtype == b.dtype and a.size == b.size
    for x, y in zip(coo(a), coo(b)):
        np.testing.assert_array_equal(x, y)


# ---------------------------------------------------------------- inputs
def graph(rng, n, avg_deg, device, dtype, values):
    m = int(n * avg_deg)
    r, c = rng.integers(0, n, m), rng.integers(0, n, m)
    r[: n // 10] = 0                       # a hub row and column
    c[n // 10: n // 5] = 1
    if values:
        v = rng.integers(1, 6, m).astype(dtype)
        if dtype == bool:
            v = rng.random(m) < 0.8        # some stored False entries
        return gb.Matrix.from_coo(r, c, v, n, n, dup_op="min", device=device)
    return gb.Matrix.from_coo(r, c, dtype(1), n, n, dtype=dtype, dup_op="first", device=device)


def vector(rng, n, frac, device, dtype):
    idx = np.flatnonzero(rng.random(n) < frac)
    if dtype == bool:
        v = rng.random(idx.shape[0]) < 0.7
    else:
        v = rng.integers(0, 6, idx.shape[0]).astype(dtype)
    return gb.Vector.from_coo(idx, v, size=n, dtype=dtype, device=device)


# semiring, matrix dtype, matrix has values, vector dtype
CASES = {
    "plus_times": (np.int64, True, np.int64),
    "min_plus": (np.int64, True, np.int64),
    "any_pair": (np.int64, False, np.int64),
    "any_secondi": (bool, False, np.int64),
    "lor_land": (bool, True, bool),
}


def _dense_ref(name, A, u, swap):
    """T by the definition on dense arrays (absent entries by a presence mask)."""
    r, c, v = coo(A)
    n = A.nrows
    M = np.zeros((n, n), dtype=np.int64)
    P = np.zeros((n, n), dtype=bool)
    M[r, c], P[r, c] = v, True
    ui, uv = coo(u)
    x = np.zeros(n, dtype=np.int64)
    xp = np.zeros(n, dtype=bool)
    x[ui], xp[ui] = uv, True
    if swap:                               # u A: w(j) = add_i u(i) * A(i, j)
        M, P = M.T, P.T
    out, pres = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=bool)
    for i in range(n):
        terms = P[i] & xp
        if not terms.any():
            continue
        pres[i] = True
        a, b = M[i, terms], x[terms]
        if name == "plus_times":
            out[i] = (a * b).sum()
        elif name == "min_plus":
            out[i] = (a + b).min()
        elif name == "any_pair":
            out[i] = 1
        elif name == "lor_land":
            out[i] = np.any(a.astype(bool) & b.astype(bool))
        else:
            out[i] = -1                    # any_secondi: checked separately
    return out, pres


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("op", ["mxv", "vxm"])
@pytest.mark.parametrize("maskkind", [None, "S", "~S", "V"])
@pytest.mark.parametrize("extra", ["plain", "accum", "replace"])
def test_switches_give_the_default_result(device, name, op, maskkind, extra):
    adt, values, udt = CASES[name]
    seed = sum(map(ord, f"{name}{op}{maskkind}{extra}"))
    rng = np.random.default_rng(seed)
    n = 70
    A = graph(rng, n, 4, device, adt, values)
    u = vector(rng, n, 0.3, device, udt)
    m = vector(rng, n, 0.5, device, bool)
    mask = {None: None, "S": m.S, "~S": ~m.S, "V": m.V}[maskkind]
    w0 = vector(rng, n, 0.4, device, np.int64)
    kw = {}
    if extra == "accum":
        kw["accum"] = "plus"
    elif extra == "replace":
        kw["replace"] = True

    def call(**sw):
        out = w0.dup()
        if op == "mxv":
            return A.mxv(u, name, mask=mask, out=out, **kw, **sw)
        return u.vxm(A, name, mask=mask, out=out, **kw, **sw)

    want = call()
    if extra == "plain" and maskkind is None:
        # the default against the definition (any_secondi: a valid parent)
        ref, pres = _dense_ref(name, A, u, op == "vxm")
        wi, wv = coo(want)
        np.testing.assert_array_equal(wi, np.flatnonzero(pres))
        if name == "any_secondi":
            ui = set(coo(u)[0].tolist())
            Ad = sp.csr_matrix((np.ones(len(coo(A)[0])), coo(A)[:2]), shape=(n, n)).toarray()
            for j, i in zip(wi.tolist(), wv.tolist()):
                assert i in ui and (Ad[i, j] if op == "vxm" else Ad[j, i])
        else:
            np.testing.assert_array_equal(wv, ref[pres].astype(wv.dtype))
    for sw in SWITCHES:
        for d in DIRECTIONS:
            assert_same(call(direction=d, **sw), want)


# ---------------------------------------------------------------- BFS, Table 5.2
# GraphBLAST's Table 5.2: each row switches one more optimisation on
TABLE_5_2 = [
    ("baseline", dict(structure_only=False, direction="push", mask_first=False,
                      early_exit=False), False),
    ("structure only", dict(structure_only=True, direction="push", mask_first=False,
                            early_exit=False), False),
    ("direction optimization", dict(structure_only=True, direction="auto", mask_first=False,
                                    early_exit=False), False),
    ("masking", dict(structure_only=True, direction="auto", mask_first=True,
                     early_exit=False), False),
    ("early exit", dict(structure_only=True, direction="auto", mask_first=True,
                        early_exit=True), False),
    ("operand reuse", dict(structure_only=True, direction="auto", mask_first=True,
                           early_exit=True), True),
]


def bfs_levels(A, source, switches, reuse, sr="any_pair"):
    n = A.nrows
    levels = gb.Vector("int64", n, device=A.device)
    frontier = gb.Vector.from_coo([source], True, size=n, dtype=bool, device=A.device)
    depth = 0
    while frontier.nvals:
        levels.assign(depth, mask=frontier.S)
        frontier.vxm(A, sr, mask=~levels.S, replace=True, out=frontier,
                     pull_input=levels if reuse else None, **switches)
        depth += 1
    return levels


def path(n, device):
    r = np.arange(n - 1)
    return gb.Matrix.from_coo(np.r_[r, r + 1], np.r_[r + 1, r], True, n, n, device=device)


def disconnected(device):
    rng = np.random.default_rng(11)
    n = 120
    r, c = rng.integers(0, 50, 150), rng.integers(0, 50, 150)      # a dense part
    r2, c2 = rng.integers(60, 100, 40), rng.integers(60, 100, 40)   # another one
    r, c = np.r_[r, r2], np.r_[c, c2]
    keep = r != c
    r, c = r[keep], c[keep]                                         # 100..119 isolated
    return gb.Matrix.from_coo(np.r_[r, c], np.r_[c, r], True, n, n, dup_op="any",
                              device=device)


GRAPHS = {
    "path": (lambda d: path(300, d), 0),
    "grid": (lambda d: gb.generators.grid2d(17, 13, device=d), 5),
    "disconnected": (disconnected, 3),
    "isolated source": (disconnected, 110),
    "kronecker": (lambda d: gb.generators.kronecker(9, seed=2, device=d), None),
    "empty": (lambda d: gb.Matrix(bool, 9, 9, device=d), 4),
    "one vertex": (lambda d: gb.Matrix(bool, 1, 1, device=d), 0),
}


@pytest.mark.parametrize("gname", list(GRAPHS))
def test_bfs_levels_identical_across_table_5_2(device, gname):
    make, src = GRAPHS[gname]
    A = make(device)
    if src is None:                        # the Kronecker hub
        r, _, _ = coo(A)
        src = int(np.argmax(np.bincount(r, minlength=A.nrows)))
    r, c, _ = coo(A)
    S = sp.csr_matrix((np.ones(r.shape[0]), (r, c)), shape=A.shape)
    dist = csgraph.shortest_path(S, unweighted=True, indices=src)
    reached = np.flatnonzero(np.isfinite(dist))
    for label, sw, reuse in TABLE_5_2:
        for d in (sw["direction"], "pull"):
            lv = bfs_levels(A, src, dict(sw, direction=d), reuse)
            idx, val = coo(lv)
            np.testing.assert_array_equal(idx, reached, err_msg=f"{label}, {d}")
            np.testing.assert_array_equal(val, dist[reached].astype(np.int64),
                                          err_msg=f"{label}, {d}")
    # parents (any_secondi) too: identical across the settings on CPU and GPU
    base = bfs_levels(A, src, {}, True, "any_pair")
    assert_same(base, bfs_levels(A, src, TABLE_5_2[0][1], False, "any_secondi"))


# ---------------------------------------------------------------- the switch reaches the kernel
def test_switches_reach_the_kernel(device):
    A = gb.generators.kronecker(8, seed=5, device=device)
    be = gb_backend.get(device)
    n = A.nrows
    f = gb.Vector.from_coo(np.arange(0, n, 7), True, size=n, dtype=bool, device=device)
    seen = {}
    for sw in SWITCHES:
        for d in ("push", "pull"):
            be.last_kernel = None
            f.vxm(A, "any_pair", mask=~f.S, direction=d, **sw)
            kind, values, early, masked = be.last_kernel
            assert kind == d
            assert values == (not sw["structure_only"])       # A's values loaded
            assert masked == sw["mask_first"]                 # mask tested in the kernel
            assert early == (sw["early_exit"] if d == "pull" else None)
            seen[(d, values, early, masked)] = True
    assert len(seen) == 12   # 8 pull variants + 4 push (push has no early exit)
    # stats record the switches of a non-default call
    gb.stats.reset()
    f.vxm(A, "any_pair", mask=~f.S, direction="pull", early_exit=False)
    f.vxm(A, "any_pair", mask=~f.S, direction="pull")
    hist = gb.stats()["history"]
    assert hist[0] == ("vxm", "pull", {"switches": {"structure_only": True, "mask_first": True,
                                                    "early_exit": False}})
    assert hist[1] == ("vxm", "pull")
    if device == "gpu":
        keys = [k for (k, _name) in be._fns if k[0] == "pull"]
        # early_exit is in the cache key (before the packed-bitmap flag)
        assert {k[-2] for k in keys} >= {True, False}


def test_structure_only_false_reads_iso_values(device, monkeypatch):
    """An iso matrix hands the kernel no values array by default and a
    materialised one with structure_only=False."""
    A = gb.generators.grid2d(6, 6, device=device)
    assert A.iso
    be = gb_backend.get(device)
    got = []
    for meth in ("spmv_pull", "spmspv_push"):
        orig = getattr(be, meth)

        def spy(M, *a, _orig=orig, **k):
            got.append(M[2] is not None)
            return _orig(M, *a, **k)
        monkeypatch.setattr(be, meth, spy)
    u = gb.Vector.from_coo([0, 7], True, size=36, dtype=bool, device=device)
    for d in ("push", "pull"):
        for so in (True, False):
            A.mxv(u, "any_pair", direction=d, structure_only=so)
    assert got == [False, True, False, True]


# ---------------------------------------------------------------- validation
@pytest.mark.parametrize("name", ["structure_only", "mask_first", "early_exit"])
@pytest.mark.parametrize("bad", [1, 0, None, "yes", np.bool_(True)])
def test_bad_switch_values(name, bad):
    A = gb.generators.grid2d(3, 3)
    u = gb.Vector.from_coo([0], True, size=9, dtype=bool)
    out = gb.Vector.from_coo([4], 7, size=9, dtype="int64")
    for call in (lambda: A.mxv(u, "any_pair", out=out, **{name: bad}),
                 lambda: u.vxm(A, "any_pair", out=out, **{name: bad})):
        with pytest.raises(gb.InvalidValue, match=name):
            call()
        assert coo(out)[0].tolist() == [4] and coo(out)[1].tolist() == [7]
