"""More CPU short paths of the calls that SSSP rounds and connected-components
(FastSV) iterations make on grids (issue 15 item 4), each against references
written from the definitions (the dense model of tests/reference.py, SciPy,
networkx) and against the general path (the hook switched off or not
taken):

* the plain push of ``u.vxm(A, s)`` / ``A.mxv(u, s)`` -- no mask, accum or
  out, a sparse ``u`` the cost model pushes (``mxv._plain_push``, with its
  plan kept on the matrix, and the CPU's ``push_plan``: push, sort and
  gather in one numba call) -- on every semiring family and type, iso and
  valued matrices, after the matrix changes, and with the errors of the
  general path;
* whole SSSP and connected components on the graph families that break
  things, with every hook of this file on and off.
"""
import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, note, settings
from hypothesis import strategies as st

import graphblast_py as gb
from graphblast_py import dtypes
from graphblast_py.backend.generic import ArrayBackend
from graphblast_py.errors import DimensionMismatch, InvalidValue
from graphblast_py.operations import mxv as mxv_mod

from . import reference as R

_ref = R.defined_or_reject
CPU = gb.backend.get("cpu")


class _Spy:
    """Counts the calls of ``mxv._plain_push`` that answered (did not fall
    back to the general path)."""

    def __init__(self, monkeypatch):
        self.taken = 0
        real = mxv_mod._plain_push

        def spy(*a):
            r = real(*a)
            self.taken += r is not None
            return r
        monkeypatch.setattr(mxv_mod, "_plain_push", spy)


class _NoPlan:
    """Context: the CPU backend without ``push_plan`` (the generic one:
    None, so the plain push goes through ``backend.push``) and, with
    ``general``, without the plain push at all (the general path of
    ``_matvec``, as before it)."""

    def __init__(self, general=False):
        self.general = general

    def __enter__(self):
        CPU.push_plan = ArrayBackend.push_plan.__get__(CPU)
        self.saved = mxv_mod._plain_push
        if self.general:
            mxv_mod._plain_push = lambda *a: None
        return self

    def __exit__(self, *exc):
        CPU.__dict__.pop("push_plan", None)
        mxv_mod._plain_push = self.saved


def _fresh(A):
    """A copy of ``A`` (no plans kept from earlier calls)."""
    B = A.dup()
    assert not any(isinstance(k, tuple) and k[:1] == ("plain",) for k in (B._derived or {}))
    return B


def _random_matrix(d, m, n, dtype):
    density = d(st.sampled_from([0.0, 0.1, 0.3, 0.7]))
    seed = d(st.integers(0, 2 ** 16))
    rng = np.random.default_rng(seed)
    present = rng.random((m, n)) < density
    vals = rng.integers(-3, 6, size=(m, n))
    vals = vals.astype(dtype) if np.dtype(dtype) != np.bool_ else vals > 0
    vals = np.where(present, vals, np.zeros((), dtype=vals.dtype)).astype(dtype)
    return R.Ref(vals, present)


SEMIRINGS = [("min", "plus"), ("plus", "times"), ("any", "pair"), ("min", "second"),
             ("min", "first"), ("max", "first"), ("max", "second"), ("lor", "land"),
             ("plus", "pair"), ("any", "secondi"), ("min", "firstj"), ("max", "minus"),
             ("times", "plus"), ("min", "max")]


# ---------------------------------------------------------------- the plain push
@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_plain_push_against_the_model(data, monkeypatch):
    """``u.vxm(A, s)`` and ``A.mxv(u, s)`` without mask, accum or out, on a
    sparse ``u`` small enough that the cost model pushes: the model's result
    (structure, values and type), the same as with the plan's kernel off and
    as the general path."""
    d = data.draw
    m = d(st.integers(1, 12))
    n = d(st.integers(1, 12))
    ta = d(st.sampled_from(["float64", "int64", "int32", "bool", "float32", "int8"]))
    tu = d(st.sampled_from(["float64", "int64", "bool", "int16"]))
    add, mult = d(st.sampled_from(SEMIRINGS))
    form = d(st.sampled_from(["sparse", "iso"]))
    swap = d(st.booleans())
    A_r = _random_matrix(d, m, n, ta)
    if form == "iso":
        A_r = R.make_iso(A_r)
    u_r, _ = d(R.vectors(m if swap else n, tu, "sparse", "cpu",
                         kinds=["few", "empty", "random"], few_max=2))
    note(f"{add}_{mult} A {ta} {form} u {tu} {'vxm' if swap else 'mxv'}")
    s = gb.semiring[f"{add}_{mult}"]
    with np.errstate(all="ignore"):
        T = _ref(R.vxm, u_r, A_r, add, mult) if swap else _ref(R.mxv, A_r, u_r, add, mult)
        A = R.to_lib(A_r, form, "cpu")
        u = R.to_lib(u_r, "sparse", "cpu")

        def call(M=A):
            return u.vxm(M, s) if swap else M.mxv(u, s)
        spy = _Spy(monkeypatch)
        got = call()
        again = call()                      # the plan kept on A
        with _NoPlan():
            noplan = call(_fresh(A))        # (a copy: no plan made before)
        with _NoPlan(general=True):
            general = call()
    for x in (got, again, noplan, general):
        assert not R.equal(R.from_lib(x), T), R.equal(R.from_lib(x), T)
    assert spy.taken <= 3


@pytest.mark.parametrize("swap", [True, False])
@pytest.mark.parametrize("sname", ["min_plus", "plus_times", "any_pair", "min_second",
                                   "max_first", "plus_pair"])
@pytest.mark.parametrize("dt", ["float64", "int64", "float32", "int32"])
def test_plain_push_on_a_grid_is_taken_and_exact(swap, sname, dt, monkeypatch):
    """On a weighted 30x40 grid (weights 1..7, not iso) and its unit-weight
    (iso) copy: a frontier of a few vertices and one of a sorted diagonal
    band take the plain push (counted), and give what the general path and
    SciPy give; ``gb.stats`` records a push for each call."""
    g = gb.generators.grid2d(30, 40, device="cpu")
    S = g.to_scipy().tocsr().astype(dt)
    S.data[:] = (np.arange(S.nnz) % 7 + 1).astype(dt)
    Aw = gb.Matrix.from_scipy(S, device="cpu")
    Ai = g.dup(dt)
    s = gb.semiring[sname]
    spy = _Spy(monkeypatch)
    n = S.shape[0]
    for A, M in ((Aw, S), (Ai, Ai.to_scipy().tocsr())):
        for keys in ([0], [5, 77, 400, 1199], list(range(0, n, 41)), []):
            keys = np.array(keys, dtype=np.int64)
            vals = (keys % 5 + 1).astype(dt)
            u = gb.Vector.from_coo(keys, vals, n, dtype=dt, device="cpu")
            gb.stats.reset()
            got = u.vxm(A, s) if swap else A.mxv(u, s)
            assert gb.stats.counts[("vxm" if swap else "mxv", "push")] == 1
            with _NoPlan(general=True):
                want = u.vxm(A, s) if swap else A.mxv(u, s)
            gi, gv = got.to_coo()
            wi, wv = want.to_coo()
            assert got.dtype == want.dtype
            assert np.array_equal(gi, wi) and np.array_equal(gv, wv)
            # SciPy: the product over the semiring, for the ones it has
            Mu = M.T if swap else M
            ud = np.zeros(n, dtype=np.float64)
            ud[keys] = vals
            reach = Mu.astype(bool).astype(np.int64) @ np.isin(np.arange(n), keys)
            assert np.array_equal(gi, np.flatnonzero(reach))
            if sname == "plus_times":
                ref = Mu.astype(np.float64) @ ud
                assert np.allclose(gv, ref[gi])
            if sname == "min_plus" and keys.size:
                C = sp.coo_matrix(Mu)
                best = np.full(n, np.inf)
                np.minimum.at(best, C.row, np.where(np.isin(C.col, keys),
                                                    C.data + ud[C.col], np.inf))
                assert np.allclose(gv, best[gi])
    assert spy.taken == 8


def test_plain_push_follows_matrix_changes():
    """The plan kept on the matrix is dropped when the matrix changes: new
    values, a new entry, a new type of ``u``, an iso matrix made valued."""
    A = gb.Matrix.from_coo([0, 0, 1, 2, 3], [1, 2, 3, 3, 0], 1.0, 5, 5, device="cpu")
    u = gb.Vector.from_coo([0], 2.0, 5, device="cpu")
    assert u.vxm(A, gb.semiring.min_plus).to_coo()[1].tolist() == [3.0, 3.0]
    A[0, 2] = 5.0                                   # no longer iso
    assert u.vxm(A, gb.semiring.min_plus).to_coo()[1].tolist() == [3.0, 7.0]
    A[0, 4] = -1.0                                  # a new entry
    w = u.vxm(A, gb.semiring.min_plus)
    assert w.to_coo()[0].tolist() == [1, 2, 4] and w.to_coo()[1].tolist() == [3.0, 7.0, 1.0]
    ui = gb.Vector.from_coo([0], 2, 5, dtype=dtypes.INT64, device="cpu")
    w = ui.vxm(A, gb.semiring.min_plus)
    assert w.dtype == np.float64 and w.to_coo()[1].tolist() == [3.0, 7.0, 1.0]
    w = A.mxv(gb.Vector.from_coo([3], 1.0, 5, device="cpu"), gb.semiring.plus_times)
    assert w.to_coo()[0].tolist() == [1, 2] and w.to_coo()[1].tolist() == [1.0, 1.0]
    A[3, 0] = 4.0
    w = A.mxv(gb.Vector.from_coo([0], 1.0, 5, device="cpu"), gb.semiring.plus_times)
    assert w.to_coo()[0].tolist() == [3] and w.to_coo()[1].tolist() == [4.0]


def test_plain_push_errors_unchanged():
    """What the general path raises, the plain call raises too (the lean
    path declines anything it does not check)."""
    A = gb.generators.grid2d(4, 4, device="cpu")
    u = gb.Vector.from_coo([0], 1.0, 15, device="cpu")
    with pytest.raises(DimensionMismatch):
        u.vxm(A, gb.semiring.min_plus)
    with pytest.raises(DimensionMismatch):
        A.mxv(u, gb.semiring.min_plus)
    u = gb.Vector.from_coo([0], 1.0, 16, device="cpu")
    with pytest.raises(InvalidValue):
        u.vxm(A, gb.binary.plus)
    with pytest.raises(InvalidValue):
        u.vxm(A, gb.semiring.min_plus, direction="sideways")
    # a semiring by name takes the general path and gives the same result
    a = u.vxm(A, "min_plus").to_coo()
    b = u.vxm(A, gb.semiring.min_plus).to_coo()
    assert all(np.array_equal(x, y) for x, y in zip(a, b))


def test_plain_push_empty_and_one_vertex():
    for n in (0, 1):
        A = gb.Matrix(dtypes.FP64, n, n, device="cpu")
        u = gb.Vector(dtypes.FP64, n, device="cpu")
        assert u.vxm(A, gb.semiring.min_plus).nvals == 0
        assert A.mxv(u, gb.semiring.plus_times).nvals == 0
    A = gb.Matrix.from_coo([0], [0], 2.5, 1, 1, device="cpu")       # a self-loop
    u = gb.Vector.from_coo([0], 1.0, 1, device="cpu")
    assert u.vxm(A, gb.semiring.min_plus).to_coo()[1].tolist() == [3.5]
    assert A.mxv(u, gb.semiring.plus_times).to_coo()[1].tolist() == [2.5]


def test_plain_push_user_semiring_takes_the_general_path(monkeypatch):
    """A user-defined operator never takes the plain push (its kernel may
    raise mid-way and needs fresh arrays); the result is the general path's."""
    spy = _Spy(monkeypatch)
    try:
        plus2 = gb.binary["gr_more_plus2"]
    except Exception:
        plus2 = gb.BinaryOp.register("gr_more_plus2", lambda x, y: x + y + 2, "x + y + 2")
    s = gb.Semiring(gb.monoid.min, plus2)
    A = gb.generators.grid2d(5, 5, device="cpu").dup(dtypes.FP64)
    u = gb.Vector.from_coo([0, 6], [1.0, 2.0], 25, device="cpu")
    got = u.vxm(A, s)
    assert spy.taken == 0
    ref = u.vxm(A, gb.semiring.min_plus)
    assert np.array_equal(got.to_coo()[0], ref.to_coo()[0])
    assert np.array_equal(got.to_coo()[1], ref.to_coo()[1] + 2)


# ---------------------------------------------------------------- whole algorithms
_FAM = R.undirected_families()


@pytest.mark.parametrize("mode", ["on", "noplan", "general"])
@pytest.mark.parametrize("name,S", _FAM, ids=[f[0] for f in _FAM])
def test_sssp_and_cc_on_families(name, S, mode):
    ctx = _NoPlan(general=mode == "general") if mode != "on" else _Null()
    with ctx:
        R.check_cc_sssp_bfs(name, S)


class _Null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


# ---------------------------------------------------------------- isequal of full vectors
@pytest.mark.parametrize("dt", ["int64", "int32", "int8", "uint16", "uint64", "bool"])
@pytest.mark.parametrize("n", [1, 7, 4095, 4096, 4097, 12289])
def test_all_equal_blocks(dt, n):
    """``backend.all_equal`` (the early-exit pass of ``isequal`` of two
    full vectors) at every block boundary: equal arrays, one difference at
    the first, last and a middle position, and at a block's edges; the
    same through ``Vector.isequal`` and with the hook off."""
    rng = np.random.default_rng(n)
    a = rng.integers(0, 100, size=n).astype(dt)
    b = a.copy()
    assert CPU.all_equal(a, b) is True
    va = gb.Vector.from_dense(a, device="cpu")
    for k in sorted({0, n - 1, n // 2, min(n - 1, 4095), min(n - 1, 4096)}):
        c = b.copy()
        c[k] = (not c[k]) if dt == "bool" else c[k] + 1
        assert CPU.all_equal(a, c) is False
        vc = gb.Vector.from_dense(c, device="cpu")
        assert va.isequal(vc) is False
        with _Hook("all_equal"):
            assert va.isequal(vc) is False
    assert va.isequal(gb.Vector.from_dense(b, device="cpu")) is True
    # other arrays: not this pass
    assert CPU.all_equal(a.astype(np.float64), b.astype(np.float64)) is None
    assert CPU.all_equal(a, b[:-1] if n > 1 else b[:0]) is None
    assert CPU.all_equal(a, b.astype(np.int16 if dt != "int16" else np.int32)) is None


def test_isequal_full_floats_and_mixed_types():
    """Floats keep NumPy's comparison (NaN unequal to itself, -0.0 equal to
    0.0); vectors of two types compare by value."""
    x = gb.Vector.from_dense(np.array([0.0, 1.5, np.nan]), device="cpu")
    assert not x.isequal(x.dup())
    y = gb.Vector.from_dense(np.array([-0.0, 1.5, 2.0]), device="cpu")
    z = gb.Vector.from_dense(np.array([0.0, 1.5, 2.0]), device="cpu")
    assert y.isequal(z)
    i = gb.Vector.from_dense(np.array([0, 1, 2]), device="cpu")
    f = gb.Vector.from_dense(np.array([0.0, 1.0, 2.0]), device="cpu")
    assert i.isequal(f) and not i.isequal(f, check_dtype=True)


class _Hook:
    """Context: the CPU backend's hook ``name`` replaced by the generic one."""

    def __init__(self, name):
        self.name = name

    def __enter__(self):
        setattr(CPU, self.name, getattr(ArrayBackend, self.name).__get__(CPU))
        return self

    def __exit__(self, *exc):
        CPU.__dict__.pop(self.name, None)


# ---------------------------------------------------------------- min/max under a presence array
@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_minmax_where_written_over_an_operand(data):
    """``where(p, min(x, y), x)`` (max) written into ``x`` itself, into
    ``y`` itself and into a new array (``rowops.minmax_into`` with a
    presence array: the accumulation of CC's hooking), at lengths around
    the vector blocks, against NumPy."""
    from graphblast_py.backend.cpu import rowops
    d = data.draw
    n = d(st.sampled_from([1, 3, 64, 1000, 70000]))
    dt = d(st.sampled_from(["int64", "int32", "int8", "uint8", "uint64"]))
    name = d(st.sampled_from(["min", "max"]))
    seed = d(st.integers(0, 2 ** 16))
    density = d(st.sampled_from([0.0, 0.01, 0.5, 1.0]))
    rng = np.random.default_rng(seed)
    info = np.iinfo(dt)
    x = rng.integers(max(info.min, -50), min(info.max, 50), size=n).astype(dt)
    y = rng.integers(max(info.min, -50), min(info.max, 50), size=n).astype(dt)
    if n > 3:
        x[1], y[2] = info.min, info.max
    p = rng.random(n) < density
    f = np.minimum if name == "min" else np.maximum
    want = np.where(p, f(x, y), x)
    where = d(st.sampled_from(["x", "y", "new"]))
    xs, ys = x.copy(), y.copy()
    out = xs if where == "x" else ys if where == "y" else None
    got = rowops.minmax_into(name, xs, ys, p, out)
    assert got.dtype == x.dtype and np.array_equal(got, want)
    if where == "x":
        assert got is xs and np.array_equal(ys, y)
    elif where == "y":
        assert got is ys and np.array_equal(xs, x)
    else:
        assert np.array_equal(xs, x) and np.array_equal(ys, y)


# ---------------------------------------------------------------- the out-of-memory wrapper
def _wrapped_methods():
    from graphblast_py import oom
    out = []
    for cls in (gb.Matrix, gb.Vector):
        for name in oom._NAMES:
            f = cls.__dict__.get(name)
            if isinstance(f, property):
                f = f.fget
            elif isinstance(f, classmethod):
                f = f.__func__
            if f is not None:
                out.append((cls.__name__, name, f))
    return out


@pytest.mark.parametrize("cls,name,f", _wrapped_methods(),
                         ids=[f"{c}.{n}" for c, n, _ in _wrapped_methods()])
def test_oom_wrapper_keeps_parameters(cls, name, f):
    """The wrapper with the method's own parameters: the same names, kinds
    and defaults as the wrapped function (so every argument reaches it as
    given), its public name in argument errors."""
    import inspect
    assert getattr(f, "_gb_oom_wrapped", False)
    inner = f.__wrapped__
    sw = list(inspect.signature(f, follow_wrapped=False).parameters.values())
    si = list(inspect.signature(inner).parameters.values())
    assert [(p.name, p.kind) for p in sw] == [(p.name, p.kind) for p in si]
    for p, q in zip(sw, si):
        assert p.default is q.default or p.default == q.default, (p.name, p.default, q.default)
    assert f.__code__.co_name == inner.__code__.co_name


def test_oom_wrapper_forwards_every_argument_and_names_the_step(monkeypatch):
    """Each argument of a wrapped call reaches the operation as given
    (positional and keyword, defaults and not), and a MemoryError inside
    becomes OutOfMemory naming the step, once."""
    from graphblast_py.operations import mxv as M
    seen = {}

    def fake(what, A, u, semiring, mask, accum, replace, out, direction, pull_input,
             structure_only, mask_first, early_exit, swap):
        seen.update(what=what, A=A, u=u, semiring=semiring, mask=mask, accum=accum,
                    replace=replace, out=out, direction=direction, pull_input=pull_input,
                    structure_only=structure_only, mask_first=mask_first,
                    early_exit=early_exit, swap=swap)
        raise MemoryError("Unable to allocate 8.00 GiB")
    A = gb.generators.grid2d(2, 3, device="cpu")
    u = gb.Vector.from_coo([0], 1.0, 6, device="cpu")
    w = gb.Vector(dtypes.FP64, 6, device="cpu")
    monkeypatch.setattr(M, "_matvec", fake)
    with pytest.raises(gb.OutOfMemory, match=r"^Vector\.vxm \(1 x 6 times 6 x 6\): out of "
                                             r"memory: Unable") as ei:
        u.vxm(A, "min_plus", mask=w.S, accum=gb.binary.min, replace=True, out=w,
              direction="push", pull_input=u, structure_only=False, mask_first=False,
              early_exit=False)
    cause = ei.value.__cause__
    assert type(cause) is MemoryError and str(cause).startswith("Unable")
    assert seen == dict(what="vxm", A=A, u=u, semiring="min_plus", mask=seen["mask"],
                        accum=gb.binary.min, replace=True, out=w, direction="push",
                        pull_input=u, structure_only=False, mask_first=False,
                        early_exit=False, swap=True)
    assert seen["mask"].parent is w and seen["mask"].structure
    seen.clear()
    with pytest.raises(gb.OutOfMemory, match=r"^Matrix\.mxv \(6 x 6 times 1 x 6\): out of"):
        A.mxv(u, semiring=gb.semiring.plus_times)
    assert seen["what"] == "mxv" and seen["u"] is u and seen["direction"] == "auto" \
        and seen["mask"] is None and seen["replace"] is False and seen["swap"] is False
    with pytest.raises(TypeError, match=r"^Vector\.vxm\(\) got an unexpected keyword"):
        u.vxm(A, "min_plus", masks=None)
    with pytest.raises(TypeError, match=r"^Vector\.assign\(\) missing 1 required"):
        u.assign()


# ---------------------------------------------------------------- operator namespaces
def test_namespace_attribute_kept_and_replaced():
    """``gb.binary.lt`` found once is kept as a plain attribute (the same
    object every time); a user operator registered again under its name
    replaces the kept one; a semiring built by name on first use is kept;
    unknown names still raise AttributeError naming the kind."""
    assert gb.binary.lt is gb.binary.lt is gb.binary["lt"]
    assert "lt" in vars(gb.binary)
    s = gb.semiring.max_secondj
    assert s is gb.semiring.max_secondj and "max_secondj" in vars(gb.semiring)
    a = gb.BinaryOp.register("gr_more_twice", lambda x, y: x - y, "x - y")
    assert gb.binary.gr_more_twice is a
    b = gb.BinaryOp.register("gr_more_twice", lambda x, y: y - x, "y - x")
    assert b is not a and gb.binary.gr_more_twice is b and gb.binary["gr_more_twice"] is b
    u = gb.Vector.from_coo([0, 1], [5, 7], 2, device="cpu")
    v = gb.Vector.from_coo([0, 1], [1, 2], 2, device="cpu")
    assert u.ewise_mult(v, gb.binary.gr_more_twice).to_coo()[1].tolist() == [-4, -5]
    with pytest.raises(AttributeError, match="no predefined binary operator named"):
        gb.binary.no_such_operator_here
    with pytest.raises(AttributeError):
        gb.binary._private


# ---------------------------------------------------------------- SSSP's union and apply
class _General:
    """Context: the lean paths of ``ewise_union`` at a sparse operand's own
    mask and of ``apply`` under a value mask at its input's keys switched
    off (the general path of each, as before them); counts the calls they
    answered while on."""

    def __init__(self, monkeypatch, off):
        from graphblast_py.operations import apply as ap, ewise as ew
        self.taken = 0
        for mod, name in ((ap, "_unary_at_own_value_mask"), (ew, "_compare_at_own_mask")):
            real = getattr(mod, name)

            def wrapped(*a, _real=real):
                if off:
                    return None
                r = _real(*a)
                self.taken += r is not None
                return r
            monkeypatch.setattr(mod, name, wrapped)


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_union_and_apply_of_an_sssp_round(data):
    """``better = t.ewise_union(d, cmp, ld, rd, mask=t.S)`` (or ``d`` first)
    with ``t`` sparse and ``d`` dense, then ``t.apply(op, mask=better.V)``:
    the lean paths against the model and against the general path;
    comparisons, defaults (int, float, bool, inf, NaN), types mixed and
    not, ``d`` with and without holes, NaN in the values."""
    d = data.draw
    n = d(st.sampled_from([48, 96]))
    op = d(st.sampled_from(["lt", "le", "gt", "ge", "eq", "ne"]))
    tt = d(st.sampled_from(["float64", "int64", "int8", "bool", "float32"]))
    td = tt if d(st.booleans()) else d(st.sampled_from(["float64", "int32"]))
    t_r, _ = d(R.vectors(n, tt, "sparse", "cpu", kinds=["few", "empty", "random"],
                         few_max=n // 16 - 1, nan=True))
    d_r, _ = d(R.vectors(n, td, "dense", "cpu", nan=True))
    floats = tt in ("float64", "float32") and td == "float64"
    ld = d(st.sampled_from([0, 2, -1, True] + ([math.inf, -1.5, math.nan] if floats else [])))
    rd = d(st.sampled_from([0, 3, False] + ([math.inf, 0.5] if floats else [])))
    if tt == "bool":
        ld = bool(ld)
    if td == "bool":
        rd = bool(rd)
    t_first = d(st.booleans())
    uop = d(st.sampled_from(["identity", "ainv", "abs", "one"]))
    note(f"{op} t {tt} d {td} ld={ld} rd={rd} t_first={t_first} {uop}")
    results = []
    for off in (False, True):
        mp = pytest.MonkeyPatch()
        try:
            g = _General(mp, off)
            with np.errstate(all="ignore"):
                t = R.to_lib(t_r, "sparse", "cpu")
                dv = R.to_lib(d_r, "dense", "cpu")
                a_r, a, b_r, b = (t_r, t, d_r, dv) if t_first else (d_r, dv, t_r, t)
                ld2 = ld if a_r.dtype != np.bool_ else bool(ld)
                rd2 = rd if b_r.dtype != np.bool_ else bool(rd)
                better = a.ewise_union(b, gb.binary[op], ld2, rd2, mask=t.S)
                f = t.apply(gb.unary[uop], mask=better.V)
                results.append((R.from_lib(better), R.from_lib(f)))
                if not off:
                    T = _ref(R.ewise_union, a_r, b_r, op, ld2, rd2)
                    want = _ref(R.write, None, T, mask=R.mask_array(t_r, True, False))
                    assert not R.equal(results[0][0], want), R.equal(results[0][0], want)
                    U = _ref(R.apply_unary, t_r, uop)
                    want_f = _ref(R.write, None, U, mask=R.mask_array(want, False, False))
                    assert not R.equal(results[0][1], want_f), R.equal(results[0][1], want_f)
                    if t_r.nvals * 16 < n:      # (the mask-first size: better at t's keys)
                        assert g.taken >= 1     # (apply; the union where compare_at takes
                        #                          the types)
        finally:
            mp.undo()
    for x, y in zip(*results):
        assert not R.equal(x, y), R.equal(x, y)


def test_union_and_apply_lean_paths_decline(monkeypatch):
    """What the lean paths do not take gives the general path's result or
    error: a dense mask parent, a mask of a third vector, out/accum, a
    user operator, sizes that differ, a string operator."""
    g = _General(monkeypatch, False)
    t = gb.Vector.from_coo([1, 4], [1.0, 5.0], 64, device="cpu")
    dist = gb.Vector.from_dense(np.arange(64.0), device="cpu")
    other = gb.Vector.from_coo([1, 4], [1.0, 1.0], 64, device="cpu")
    b1 = t.ewise_union(dist, gb.binary.lt, math.inf, math.inf, mask=t.S)
    assert g.taken == 1 and b1.to_coo()[1].tolist() == [False, False]
    b2 = t.ewise_union(dist, gb.binary.lt, math.inf, math.inf, mask=other.S)   # not t's own
    assert g.taken == 1 and b2.isequal(b1)
    b3 = t.ewise_union(dist, "lt", math.inf, math.inf, mask=t.S)      # by name: general
    assert g.taken == 1 and b3.isequal(b1)
    with pytest.raises(DimensionMismatch):
        t.ewise_union(gb.Vector.from_dense(np.arange(65.0), device="cpu"), gb.binary.lt,
                      math.inf, math.inf, mask=t.S)
    with pytest.raises(InvalidValue):
        t.ewise_union(dist, gb.binary.lt, None, math.inf, mask=t.S)
    out = gb.Vector(dtypes.BOOL, 64, device="cpu")
    t.ewise_union(dist, gb.binary.gt, 0, 0, mask=t.S, out=out)
    assert g.taken == 1 and out.to_coo()[1].tolist() == [False, True]
    sep = gb.Vector.from_coo([1, 4], [False, True], 64, device="cpu")
    f = t.apply(gb.unary.ainv, mask=sep.V)           # not stored at t's keys: general
    assert g.taken == 1 and f.to_coo()[0].tolist() == [4] and f.to_coo()[1].tolist() == [-5.0]
    better = t.ewise_union(dist, gb.binary.gt, 0, 0, mask=t.S)
    f = t.apply(gb.unary.ainv, mask=better.V)
    assert g.taken == 3 and f.to_coo()[0].tolist() == [4] and f.to_coo()[1].tolist() == [-5.0]
    f2 = t.apply(gb.unary.ainv, mask=better.V, accum=gb.binary.plus)    # accum: general
    assert g.taken == 3 and f2.isequal(f)
    f3 = t.apply("ainv", mask=better.V)                                 # by name: general
    assert g.taken == 3 and f3.isequal(f)
    with pytest.raises(InvalidValue):
        t.apply(gb.unary.ainv, mask=better.V, left=1)
    with pytest.raises(DimensionMismatch):
        t.apply(gb.unary.ainv, mask=gb.Vector(dtypes.BOOL, 65, device="cpu").V)


# ---------------------------------------------------------------- copy_at
@pytest.mark.parametrize("dt", ["float64", "int64", "uint64", "int32", "float32", "bool",
                                "int8"])
@pytest.mark.parametrize("contiguous", [True, False])
def test_copy_at_against_numpy(dt, contiguous):
    """``rowops.copy_at`` (SSSP's ``dist<f.S> = f`` into a dense ``dist``):
    8-byte numbers as they are, others by their bits, a strided source;
    against NumPy's fancy-indexed stores, NaN and -0.0 kept bit for bit."""
    from graphblast_py.backend.cpu import rowops
    rng = np.random.default_rng(7)
    n = 500
    vals = rng.integers(0, 50, n).astype(dt)
    pres = rng.random(n) < 0.3
    keys = np.sort(rng.choice(n, 40, replace=False)).astype(np.int64)
    big = rng.integers(0, 50, 80).astype(dt)
    if np.dtype(dt).kind == "f":
        big[0], big[2] = np.nan, -0.0
    src = big[::2] if not contiguous else big[:40].copy()
    wv, wp = vals.copy(), pres.copy()
    wv[keys], wp[keys] = src, True
    gv, gp = vals.copy(), pres.copy()
    assert rowops.copy_at(gv, gp, keys, src) is True
    assert np.array_equal(gp, wp)
    assert gv.tobytes() == wv.tobytes()
    assert rowops.copy_at(gv, gp, keys, src.astype(np.complex128)) is False


# ---------------------------------------------------------------- pull_accum's rows of four
@pytest.mark.parametrize("parallel", [False, True])
@pytest.mark.parametrize("name", ["min", "max"])
@pytest.mark.parametrize("dt", ["int64", "int32", "uint8", "int8"])
@pytest.mark.parametrize("lengths", ["mixed", "fours", "grid"])
def test_pull_accum_rows_of_four(parallel, name, dt, lengths):
    """``rowops.pull_accum`` (CC's ``A.mxv(gf, min_second, accum=min,
    out=mngf)``) whose rows of exactly four entries take the unrolled fold:
    rows of every length around four, all of four, a grid; against NumPy."""
    from graphblast_py.backend.cpu import rowops
    rng = np.random.default_rng(len(lengths) + len(dt))
    if lengths == "grid":
        ip, ix, _ = gb.generators.grid2d(23, 31, device="cpu")._csr(False)
        n = ip.shape[0] - 1
    else:
        n = 700
        ln = rng.integers(0, 7, n) if lengths == "mixed" else np.full(n, 4)
        ip = np.concatenate([[0], np.cumsum(ln)]).astype(np.int32)
        ix = rng.integers(0, n, ip[-1]).astype(np.int32)
    info = np.iinfo(dt)
    x = rng.integers(info.min, info.max, n, endpoint=True).astype(dt)
    old = rng.integers(info.min, info.max, n, endpoint=True).astype(dt)
    f = np.minimum if name == "min" else np.maximum
    want = old.copy()
    for r in range(n):
        for p in range(ip[r], ip[r + 1]):
            want[r] = f(want[r], x[ix[p]])
    got = rowops.pull_accum(ip, ix, x, name, old.copy(), False, parallel)
    assert got.dtype == want.dtype and np.array_equal(got, want)
    o2 = old.copy()
    got2 = rowops.pull_accum(ip, ix, x, name, o2, True, parallel)
    assert got2 is o2 and np.array_equal(got2, want)


# ---------------------------------------------------------------- from_coo of Vectors, range checked in the scatter
def _fold_reference(idx, vals, op, n):
    """Per position, the left-to-right fold of its values (Python)."""
    out = {}
    for i, v in zip(idx.tolist(), vals.tolist()):
        if i not in out:
            out[i] = v
        elif op == "min":                   # (fmin: a NaN loses)
            out[i] = float(np.fmin(out[i], v)) if isinstance(v, float) else min(out[i], v)
        elif op == "max":
            out[i] = float(np.fmax(out[i], v)) if isinstance(v, float) else max(out[i], v)
        elif op == "land":
            out[i] = out[i] and v
        elif op == "lor":
            out[i] = out[i] or v
        else:
            out[i] = out[i] + v
    return out


def _outcome(fn):
    try:
        return "ok", fn()
    except Exception as e:          # noqa: BLE001 -- the error itself is compared
        return type(e).__name__, str(e)


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_from_coo_of_vectors_checked_in_the_scatter(data):
    """``Vector.from_coo(f, x, size, dup_op=op)`` with an index Vector and a
    value Vector (connected components' hooking): the same vector as the
    checked path (the backend's in-range scatter switched off) and as a
    Python fold, or the same error (an index outside the size, negative, a
    bad size or duplicate operator) -- full and sparse Vectors, every
    scatter operator and type, fewer entries than the scatter takes."""
    d = data.draw
    size = d(st.sampled_from([1, 5, 40, 300]))
    m = d(st.integers(0, 80))
    lo, hi = d(st.sampled_from([(0, size), (0, size), (-2, size), (0, size + 2)]))
    rng = np.random.default_rng(d(st.integers(0, 2 ** 16)))
    idx = rng.integers(lo, hi, m) if hi > lo else np.zeros(m, np.int64)
    vt = d(st.sampled_from(["int64", "int32", "uint8", "float64", "bool"]))
    vals = rng.integers(-5, 6, m).astype(vt) if vt != "bool" else rng.random(m) < 0.5
    if vt == "float64" and m and d(st.booleans()):
        vals[0] = np.nan
    op = d(st.sampled_from(["min", "max", "plus", "land", "lor", "times", "first"]))
    sz = d(st.sampled_from([size, size, -1, "x"]))
    it = d(st.sampled_from(["int64", "int32"]))
    sparse = d(st.booleans())
    n = max(m, 1)
    pos = np.sort(rng.choice(3 * n, m, replace=False)) if sparse else np.arange(m)
    nvec = int(pos[-1]) + 1 if m else 0
    f = gb.Vector.from_coo(pos, idx.astype(it), nvec, dtype=it, device="cpu") if m else \
        gb.Vector(it, 0, device="cpu")
    x = gb.Vector.from_coo(pos, vals, nvec, dtype=vt, device="cpu") if m else \
        gb.Vector(vt, 0, device="cpu")
    note(f"size={sz} m={m} idx in [{lo},{hi}) {it} vals {vt} op={op} sparse={sparse}")

    def build():
        with np.errstate(all="ignore"):
            v = gb.Vector.from_coo(f, x, sz, dup_op=gb.binary[op])
        k, w = v.to_coo()
        return v.dtype, v.size, k.tolist(), w.tolist()
    got = _outcome(build)
    with _Hook("scatter_reduce_in_range"):
        want = _outcome(build)
    assert got[0] == want[0], (got, want)
    if got[0] != "ok":
        assert got[1] == want[1]
        return
    assert got[1][:3] == want[1][:3]
    np.testing.assert_array_equal(np.array(got[1][3], dtype=float), np.array(want[1][3],
                                                                               dtype=float))
    if ((op in ("min", "max") and vt != "bool") or (op in ("land", "lor") and vt == "bool")
            or (op == "plus" and vt in ("int64", "float64"))):  # (a Python fold, no wrap)
        ref = _fold_reference(idx, vals, op, size)
        assert got[1][2] == sorted(ref)
        refv = np.array([ref[i] for i in sorted(ref)], dtype=float)
        np.testing.assert_allclose(np.array(got[1][3], dtype=float), refv, equal_nan=True)


def test_from_coo_scatter_in_range_taken():
    """Connected components' hooking on a grid takes the in-range scatter
    (counted) and gives the checked path's vector; an index past the size
    raises the checked path's error."""
    from graphblast_py.errors import IndexOutOfBound
    n = 40
    f = gb.Vector.from_dense(np.arange(n)[::-1] % 7, device="cpu")
    x = gb.Vector.from_dense(np.arange(n) * 3 % 11, device="cpu")
    with _Hook("scatter_reduce_in_range"):
        w = gb.Vector.from_coo(f, x, 7, dup_op=gb.binary.min)
        with pytest.raises(IndexOutOfBound) as e_checked:
            gb.Vector.from_coo(f, x, 6, dup_op=gb.binary.min)
    calls = []
    real = CPU.scatter_reduce_in_range

    def spy(*a):
        r = real(*a)
        calls.append(r is not None)
        return r
    CPU.scatter_reduce_in_range = spy
    try:
        A = gb.generators.grid2d(12, 17, device="cpu")
        labels = gb.algorithms.connected_components(A).to_dense()
        assert calls and all(calls) and labels.tolist() == [0] * A.nrows
        v = gb.Vector.from_coo(f, x, 7, dup_op=gb.binary.min)
        assert calls[-1] is True and v.isequal(w, check_dtype=True)
        assert v.to_coo()[0].tolist() == list(range(7))
        with pytest.raises(IndexOutOfBound, match=r"indices\[\d+\] = 6 is outside \[0, 6\)") \
                as e_fast:
            gb.Vector.from_coo(f, x, 6, dup_op=gb.binary.min)
        assert calls[-1] is False and str(e_fast.value) == str(e_checked.value)
    finally:
        del CPU.scatter_reduce_in_range


def test_plain_push_on_a_dense_form_matrix_and_mxv_without_kept_csc():
    """A matrix stored dense (its CSR built by the push, which drops the
    plans kept before) and one that keeps no CSC (mxv pushes along a CSC
    built for the call): the plain push gives the general path's result."""
    S = sp.random(40, 40, density=0.1, random_state=3, format="csr")
    S.data[:] = np.arange(S.nnz) % 5 + 1.0
    u = gb.Vector.from_coo([3, 17], [1.0, 2.0], 40, device="cpu")
    for dense in (False, True):
        A = gb.Matrix.from_scipy(S, device="cpu")
        A.keep_csc = False
        if dense:
            A.to_dense_form()
        for s in (gb.semiring.min_plus, gb.semiring.plus_times):
            for _ in range(2):
                got = A.mxv(u, s), u.vxm(A, s)
                with _NoPlan(general=True):
                    want = A.mxv(u, s), u.vxm(A, s)
                for g, w in zip(got, want):
                    assert g.isequal(w, check_dtype=True)
            if dense:
                A.to_dense_form()
