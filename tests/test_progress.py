"""progress=True on the long algorithms: a tqdm bar on stderr, the same result;
progress=False (the default) is silent; a non-bool is refused up front."""
import sys

import numpy as np
import pytest

import graphblast_py as gb
from graphblast_py import InvalidObject, InvalidValue
from graphblast_py.algorithms import betweenness_centrality, fglt
from graphblast_py.algorithms.eigen import eigvalsh
from graphblast_py.algorithms.expm import expm_multiply, total_communicability
from graphblast_py.progress import NoProgress, progress_bar

pytest.importorskip("tqdm")


def _graph():
    """A 12 x 12 grid (many levels) plus two isolated vertices, float64."""
    import scipy.sparse as sp
    G = gb.generators.grid2d(12, 12).to_scipy().astype(np.float64)
    n = G.shape[0] + 2
    G = sp.csr_matrix((G.data, G.indices, np.r_[G.indptr, [G.nnz, G.nnz]]), shape=(n, n))
    return gb.Matrix.from_scipy(G)


def _same(a, b):
    if isinstance(a, tuple):
        return all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, (gb.Matrix, gb.Vector)):
        return a.isequal(b) if hasattr(a, "isequal") else \
            np.array_equal(a.to_dense(fill=0), b.to_dense(fill=0))
    return np.array_equal(np.asarray(a), np.asarray(b))


CASES = {
    "fglt": (lambda A, **kw: fglt(A, **kw), "fglt"),
    "fglt5": (lambda A, **kw: fglt(A, orbits=5, net=False, **kw), "fglt"),
    "betweenness": (lambda A, **kw: betweenness_centrality(A, batch_size=40, **kw),
                    "betweenness_centrality"),
    "eigvalsh": (lambda A, **kw: eigvalsh(A, k=3, **kw), "eigvalsh"),
    "expm": (lambda A, **kw: expm_multiply(A, t=0.5, **kw), "expm_multiply"),
    "communicability": (lambda A, **kw: total_communicability(A, 0.3, **kw), "expm_multiply"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_progress_bar_same_result(case, capsys):
    f, desc = CASES[case]
    A = _graph()
    quiet = f(A)                                   # the default: progress=False
    err = capsys.readouterr().err
    assert err == ""
    assert _same(f(A, progress=False), quiet)
    assert capsys.readouterr().err == ""
    loud = f(A, progress=True)
    err = capsys.readouterr().err
    assert desc in err and ("it" in err or "%" in err), err
    assert _same(loud, quiet)


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("bad", ["yes", 1, None])
def test_progress_must_be_bool(case, bad, capsys):
    f, desc = CASES[case]
    with pytest.raises(InvalidObject, match=rf"{desc}: progress must be True or False"):
        f(_graph(), progress=bad)
    assert capsys.readouterr().err == ""


def test_missing_tqdm_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", None)          # import tqdm fails
    with pytest.raises(InvalidValue, match=r"fglt: progress=True needs tqdm.*'progress' extra"):
        fglt(_graph(), progress=True)
    assert isinstance(progress_bar(3, "x", False), NoProgress)   # off: tqdm not needed


def test_betweenness_bar_counts_sources(capsys):
    A = _graph()
    betweenness_centrality(A, sources=[0, 5, 143, 145], batch_size=3, progress=True)
    err = capsys.readouterr().err
    assert "4/4" in err, err
