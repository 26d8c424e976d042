"""The API explains itself: attached methods carry their public names and real
signatures; the first kernel compile of a process is reported once."""
import inspect
import logging
import pydoc
import typing

import pytest

import graphblast_py as gb
from graphblast_py import backend as _backend
from graphblast_py.operations import METHODS
from graphblast_py.operations import apply as _apply
from graphblast_py.operations import assign as _assign
from graphblast_py.operations import ewise as _ewise
from graphblast_py.operations import extract as _extract
from graphblast_py.operations import mxm as _mxm
from graphblast_py.operations import mxv as _mxv
from graphblast_py.operations import reduce as _reduce
from graphblast_py.operations import transpose as _transpose

ALL = [(c, n) for c, names in METHODS.items() for n in names]

# the operation function each method forwards to: the method's parameters after
# ``self`` must be the operation's (same names, kinds and defaults)
IMPL = {
    ("Matrix", "mxv"): _mxv.mxv, ("Vector", "vxm"): _mxv.vxm, ("Matrix", "mxm"): _mxm.mxm,
    ("Matrix", "mxm_reduce"): _mxm.mxm_reduce,
    ("Matrix", "reduce_rowwise"): _reduce.reduce_rowwise,
    ("Matrix", "reduce_columnwise"): _reduce.reduce_columnwise,
    ("Matrix", "reduce_scalar"): _reduce.reduce_scalar, ("Vector", "reduce"): _reduce.reduce_scalar,
    ("Matrix", "assign"): _assign.matrix_assign, ("Vector", "assign"): _assign.vector_assign,
    ("Matrix", "extract"): _extract.matrix_extract, ("Vector", "extract"): _extract.vector_extract,
    ("Matrix", "transpose"): _transpose.transpose, ("Matrix", "kronecker"): _transpose.kronecker,
}
for _c in ("Matrix", "Vector"):
    IMPL.update({(_c, "ewise_add"): _ewise.ewise_add, (_c, "ewise_mult"): _ewise.ewise_mult,
                 (_c, "ewise_union"): _ewise.ewise_union, (_c, "apply"): _apply.apply,
                 (_c, "select"): _apply.select})

# defaults the method adds where the operation function has none
METHOD_DEFAULTS = {"reduce_rowwise": {"monoid": "plus"}, "reduce_columnwise": {"monoid": "plus"},
                   "reduce_scalar": {"monoid": "plus"}, "reduce": {"monoid": "plus"}}


@pytest.mark.parametrize("cls,name", ALL)
def test_method_names_signature_doc(cls, name):
    f = getattr(getattr(gb, cls), name)
    assert f.__name__ == name
    assert f.__qualname__ == f"{cls}.{name}"
    assert f.__doc__ and f.__doc__.strip()
    assert "_m_" not in pydoc.render_doc(f) and "<lambda>" not in pydoc.render_doc(f)
    sig = inspect.signature(f)
    params = list(sig.parameters.values())
    assert params[0].name == "self"
    assert not any(p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL) for p in params)
    impl = list(inspect.signature(IMPL[(cls, name)]).parameters.values())[1:]
    # same kinds in the same order; keyword-only names identical (the
    # positional operand may have a method-style name: ``other`` for ``B``)
    assert [p.kind for p in params[1:]] == [p.kind for p in impl]
    assert [p.name for p in params if p.kind == p.KEYWORD_ONLY] == \
        [p.name for p in impl if p.kind == p.KEYWORD_ONLY]
    for p, q in zip(params[1:], impl):
        want = METHOD_DEFAULTS.get(name, {}).get(p.name, q.default)
        assert p.default == want, (p.name, p.default, want)
    hints = typing.get_type_hints(f)                  # the annotations resolve
    assert hints


@pytest.mark.parametrize("cls,name", ALL)
def test_methods_survive_the_oom_wrapper(cls, name):
    """graphblast_py.oom wraps every method; the wrapper keeps name and signature."""
    f = getattr(getattr(gb, cls), name)
    assert getattr(f, "_gb_oom_wrapped", False)
    assert inspect.signature(f) == inspect.signature(f.__wrapped__)
    assert f.__qualname__ == f.__wrapped__.__qualname__ == f"{cls}.{name}"


def test_argument_errors_name_the_public_method():
    A = gb.Matrix.from_coo([0, 1], [1, 0], [1.0, 2.0], 2, 2)
    u = gb.Vector.from_coo([0], [1.0], size=2)
    with pytest.raises(TypeError, match=r"^Matrix\.mxv\(\) missing 1 required positional "
                                        r"argument: 'semiring'"):
        A.mxv(u)
    with pytest.raises(TypeError, match=r"^Vector\.vxm\(\) got an unexpected keyword "
                                        r"argument 'masks'"):
        u.vxm(A, "plus_times", masks=None)
    with pytest.raises(TypeError, match=r"^Matrix\.ewise_add\(\) takes 3 positional"):
        A.ewise_add(A, "plus", None)


def test_methods_still_compute():
    """The explicit signatures forward every argument (checked against SciPy)."""
    import numpy as np
    import scipy.sparse as sp
    S = sp.random(7, 7, density=0.4, format="csr", random_state=3)
    A = gb.Matrix.from_scipy(S)
    x = np.arange(1.0, 8.0)
    u = gb.Vector.from_dense(x)
    np.testing.assert_allclose(A.mxv(u, "plus_times").to_dense(fill=0), S @ x)
    np.testing.assert_allclose(u.vxm(A, "plus_times").to_dense(fill=0), S.T @ x)
    np.testing.assert_allclose(A.mxm(A, "plus_times", method="saxpy").to_dense(fill=0),
                               (S @ S).toarray())
    np.testing.assert_allclose(A.reduce_rowwise().to_dense(fill=0),
                               np.asarray(S.sum(axis=1)).ravel())
    np.testing.assert_allclose(A.select("tril").to_dense(fill=0), sp.tril(S).toarray())
    assert A.reduce_scalar("plus") == pytest.approx(S.sum())


def test_py_typed_marker_ships():
    from pathlib import Path
    assert (Path(gb.__file__).parent / "py.typed").is_file()
    import tomllib
    cfg = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text())
    assert "py.typed" in cfg["tool"]["setuptools"]["package-data"]["graphblast_py"]


# ------------------------------------------------------------ the cold start notice
@pytest.fixture
def fresh_notice(monkeypatch):
    monkeypatch.setattr(_backend, "_compile_noted", set())


def test_note_compile_logs_once_per_device(fresh_notice, caplog):
    with caplog.at_level(logging.INFO, logger="graphblast_py"):
        assert _backend.note_compile("cpu", "kernels") is True
        assert _backend.note_compile("cpu", "kernels") is False
        assert _backend.note_compile("cpu", "user operator kernels") is False
        assert _backend.note_compile("gpu", "kernels") is True
    recs = [r for r in caplog.records if r.name == "graphblast_py"]
    assert len(recs) == 2
    assert all(r.levelno == logging.INFO for r in recs)
    assert "compiling CPU kernels with numba" in recs[0].getMessage()
    assert "once per process" in recs[0].getMessage()
    assert "GPU kernels" in recs[1].getMessage()


def test_first_kernel_dispatch_reports_once(fresh_notice, caplog, monkeypatch):
    """A real operation that reaches the numba kernels fires the hook, once."""
    from graphblast_py.backend.cpu import backend as cpu
    monkeypatch.setattr(cpu, "_kernel_module", None)      # as in a fresh process
    import scipy.sparse as sp
    A = gb.Matrix.from_scipy(sp.random(40, 40, density=0.2, format="csr", random_state=1))
    with caplog.at_level(logging.INFO, logger="graphblast_py"):
        for _ in range(3):
            A.mxm(A, "plus_times")
            cpu._kernels()
    recs = [r for r in caplog.records if r.name == "graphblast_py" and "compiling" in r.getMessage()]
    assert len(recs) == 1, [r.getMessage() for r in recs]
    assert recs[0].getMessage().startswith("graphblast_py: compiling CPU")


def test_no_notice_below_info(fresh_notice, caplog):
    with caplog.at_level(logging.WARNING, logger="graphblast_py"):
        _backend.note_compile("cpu")
    assert not [r for r in caplog.records if r.name == "graphblast_py"]


@pytest.mark.parametrize("name", ["bfs", "sssp", "pagerank", "connected_components",
                                  "triangle_count", "triangles_per_vertex", "fglt",
                                  "betweenness_centrality", "eigvalsh", "expm_multiply",
                                  "total_communicability"])
def test_algorithm_type_hints(name):
    import graphblast_py.algorithms as alg
    from graphblast_py.hints import GraphLike
    f = getattr(alg, name, None)
    if f is None:                                   # not re-exported at the package level
        from graphblast_py.algorithms import eigen, expm
        f = getattr(eigen, name, None) or getattr(expm, name)
    hints = typing.get_type_hints(f)
    assert hints["A"] == GraphLike and "return" in hints
