"""The object-layer rules behind the sync-free GPU path (DESIGN.md section
1.4), on every device: storage forms with hysteresis, count bounds the host
keeps instead of counting, the output rule trusting a kernel-applied mask,
and iso matrices handed to the kernels as one value.  Results are compared
with the dense reference model (tests/reference.py) and SciPy."""
import numpy as np
import pytest

import graphblast_py as gb
from graphblast_py import backend, semiring
from graphblast_py.operations import output as output_module
from graphblast_py.vector import DENSE_FRACTION, SPARSE_FRACTION

from .conftest import host


def _dense_with(n, k, device):
    """A dense-form vector with k entries (at every 7th position, mod n)."""
    a = np.zeros(n, dtype=np.int64)
    a[(np.arange(k) * 7) % n] = 1
    v = gb.Vector.from_dense(a, missing_value=0, device=device)
    assert v.form == "dense"
    return v


def test_hysteresis(device):
    """Dense from 1/16 up; back to sparse only below 1/64: a density between
    the two keeps whatever form the vector has."""
    n = 6400
    assert SPARSE_FRACTION < DENSE_FRACTION
    mid = int(n * (SPARSE_FRACTION + DENSE_FRACTION) / 2)       # between the thresholds
    s = gb.Vector.from_coo(np.arange(mid), 1, size=n, device=device)
    s._dense()
    assert s.form == "sparse"                # a dense view, the form stays
    d = _dense_with(n, mid, device)
    idx, _ = d._sparse()
    assert d.form == "dense"                 # a sparse view, the form stays
    assert sorted(host(idx).tolist()) == sorted(set(((np.arange(mid) * 7) % n).tolist()))
    few = _dense_with(n, 2, device)
    few._sparse()
    assert few.form == "sparse"              # below 1/64: converted
    many = gb.Vector.from_coo(np.arange(n // 8), 1, size=n, device=device)
    many._dense()
    assert many.form == "dense"              # from 1/16: converted


def test_count_bound_of_a_bfs_level(device):
    """After ``levels.assign(depth, mask=frontier.S)`` the host bound of
    levels' count is exact in a BFS (the frontier is disjoint from levels),
    and it never falls below the count on a random graph."""
    A = gb.generators.grid2d(9, 7, device=device)
    n = A.nrows
    levels = gb.Vector("int32", n, device=device)
    frontier = gb.Vector.from_coo([0], True, size=n, device=device)
    depth = 0
    while frontier.nvals:
        levels.assign(depth, mask=frontier.S)
        exact = int(np.count_nonzero(host(levels.to_dense(fill=-1)) >= 0))
        assert levels._nvals_bound() == exact
        frontier.vxm(A, semiring.any_pair, mask=~levels.S, replace=True, out=frontier)
        assert frontier._nvals_bound() >= frontier.nvals
        depth += 1
    assert depth == 9 + 7 - 1


def test_auto_direction_never_counts(device, monkeypatch):
    """Choosing the direction uses the counts the host knows (exact or the
    bound): with both operands' counts unknown nothing is counted."""
    A = gb.generators.kronecker(8, seed=2, device=device)
    n = A.nrows
    u = _dense_with(n, n // 3, device)
    v = _dense_with(n, n // 2, device)
    u._nvals = v._nvals = None               # counts unknown: only the bounds remain
    be = backend.get(device)

    def no_count(a):
        raise AssertionError("the direction choice counted a vector")
    monkeypatch.setattr(be, "count_nonzero", no_count)
    w = u.vxm(A, semiring.plus_times, mask=~v.S)
    monkeypatch.undo()
    assert gb.stats.last("vxm") in ("push", "pull")
    want = u.to("cpu").vxm(A.to("cpu"), semiring.plus_times, mask=~v.to("cpu").S,
                           direction="pull")
    assert w.to("cpu").isclose(want)


@pytest.mark.parametrize("direction", ["push", "pull"])
def test_output_rule_trusts_the_kernels_mask(device, monkeypatch, direction):
    """A masked vxm with replace hands its result to the output rule, which
    takes it as it is (no mask test, no dense merge); the result equals a
    pull with the mask applied after the product."""
    A = gb.generators.kronecker(7, seed=4, device=device)
    n = A.nrows
    rng = np.random.default_rng(3)
    f = gb.Vector.from_coo(np.sort(rng.choice(n, 20, replace=False)), True, size=n,
                           device=device)
    seen = gb.Vector.from_coo(np.sort(rng.choice(n, 40, replace=False)), True, size=n,
                              device=device)
    want = f.vxm(A, semiring.any_pair, mask=~seen.S, replace=True, mask_first=False)

    def untrusted(*a, **k):
        raise AssertionError("the output rule re-applied a mask the kernel applied")
    monkeypatch.setattr(output_module, "_write_dense_vector", untrusted)
    monkeypatch.setattr(output_module, "_allowed", untrusted)
    out = f.dup()
    out.vxm(A, semiring.any_pair, mask=~seen.S, replace=True, out=out, direction=direction)
    monkeypatch.undo()
    assert out.isequal(want)


@pytest.mark.parametrize("name", ["plus_times", "min_plus", "max_second"])
@pytest.mark.parametrize("direction", ["push", "pull"])
def test_iso_matrix_value_read_by_the_multiply(device, name, direction):
    """A multiply that reads an iso matrix's value (PageRank's plus_times on
    an unweighted graph) gets the one value: the same result as the same
    matrix with a values array."""
    rows = np.array([0, 0, 1, 2, 3, 3, 4])
    cols = np.array([1, 2, 2, 3, 0, 4, 1])
    iso = gb.Matrix.from_coo(rows, cols, 2.5, 5, 5, device=device)
    assert iso.iso
    vals = gb.Matrix.from_coo(rows, cols, np.full(7, 2.5), 5, 5, device=device)
    assert not vals.iso
    u = gb.Vector.from_coo([0, 2, 3], [1.0, -2.0, 4.0], size=5, device=device)
    sr = semiring[name]
    got = u.vxm(iso, sr, direction=direction)
    want = u.vxm(vals, sr, direction=direction)
    assert got.isequal(want)
    assert A_ref(rows, cols, name) == sorted(host(got.to_coo()[0]).tolist())


def A_ref(rows, cols, name):
    """Output positions of u A for u at 0, 2, 3 (every semiring here keeps
    every product)."""
    return sorted({int(c) for r, c in zip(rows, cols) if r in (0, 2, 3)})
