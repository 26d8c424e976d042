"""Every operation held against the dense reference model (tests/reference.py)
with Hypothesis: random small shapes and dtypes, both storage forms of each
operand (vector sparse/dense, matrix sparse/iso/dense), transposed inputs,
every mask kind (none, S, V, ~S, ~V), accumulators that do not commute
(minus, rminus, div, first, second) beside plus and min, replace, and an
output that is new, a fresh object, or aliases an input.  Values are small
integers and, in about a quarter of the objects, the type's special values
(NaN, +-inf, -0.0; the integer type's min and max).

Beside the random cases, fixed tables: the accumulator's operand order on
every output form, reductions of empty objects for every monoid and dtype,
and NaN / infinity through every semiring path (push, pull, dot, saxpy).

Run more random examples with ``HYPOTHESIS_PROFILE=dev`` or ``deep`` (see
conftest.py and docs/testing.md).
"""
import math

import numpy as np
import pytest
from hypothesis import given, note
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import graphblast_py as gb

from . import reference as R

# every value type the library supports except uint64 (with a signed type NumPy
# promotes uint64 to float64, and first/second then cast straight to the output
# instead of through float64 -- by design, see graphblast_py/dtypes.py)
DTYPES = [np.dtype(t) for t in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                                "uint32", "float32", "float64")]
MONOIDS = ["plus", "times", "min", "max", "lor", "land", "lxor", "eq", "any"]
MULTS = ["times", "plus", "minus", "rminus", "div", "min", "max", "first", "second", "pair",
         "land", "lor", "lxor", "eq", "ne", "lt", "ge", "firsti", "firstj", "secondi",
         "secondj", "any"]
EWISE_OPS = ["plus", "minus", "rminus", "times", "div", "min", "max", "first", "second", "pair",
             "eq", "ne", "lt", "le", "gt", "ge", "land", "lor", "lxor", "lxnor",
             "firsti", "firstj", "secondi", "secondj"]
REDUCE_MONOIDS = ["plus", "times", "min", "max", "lor", "land", "lxor", "eq", "any"]
# accumulators: commutative ones and ones whose operand order matters
# (accum(out, t): minus = out - t, rminus = t - out, div = out / t, first = out)
ACCUMS = [None, "plus", "min", "second", "minus", "rminus", "div", "first"]
MASK_KINDS = [None, "S", "V", "~S", "~V"]
SELECT_OPS = [k for k, (t, _) in R.INDEXUNARY.items() if t == R.BOOL]
APPLY_INDEX_OPS = list(R.INDEXUNARY)

dims = st.integers(0, 6)
small_dims = st.integers(0, 3)
small_ints = st.integers(-2, 4)


def special_values(dt):
    """Values of type ``dt`` that break careless code: NaN, +-inf, -0.0 for
    floats; the type's extremes (and -1, 0) for integers."""
    dt = np.dtype(dt)
    if dt.kind == "f":
        return np.array([np.nan, np.inf, -np.inf, -0.0], dtype=dt)
    if dt.kind == "i":
        info = np.iinfo(dt)
        return np.array([info.min, info.max, -1, 0], dtype=dt)
    if dt.kind == "u":
        return np.array([np.iinfo(dt).max, 0], dtype=dt)
    return np.array([True, False])


ref = R.defined_or_reject


# ---------------------------------------------------------------- strategies
@st.composite
def refs(draw, shape, dtype=None):
    """A random Ref: random, full or empty structure, small integer values;
    in about one object of four some values are the type's special values.
    Every element is drawn on its own (``fill=st.nothing()``): with
    Hypothesis' default fill most elements of an array repeat one value, and
    then a - b and b - a agree -- swapped operands went unnoticed."""
    dt = draw(st.sampled_from(DTYPES)) if dtype is None else np.dtype(dtype)
    fill = draw(st.sampled_from(["random", "random", "random", "full", "empty"]))
    if fill == "random":
        present = draw(hnp.arrays(bool, shape, elements=st.booleans(), fill=st.nothing()))
    else:
        present = np.full(shape, fill == "full")
    if dt == bool:
        vals = draw(hnp.arrays(bool, shape, elements=st.booleans(), fill=st.nothing()))
    else:
        vals = draw(hnp.arrays(np.int8, shape, elements=small_ints, fill=st.nothing())).astype(dt)
        if draw(st.integers(0, 3)) == 3:
            sv = special_values(dt)
            pick = draw(hnp.arrays(np.int8, shape, elements=st.integers(-1, len(sv) - 1),
                                   fill=st.nothing()))
            vals = np.where(pick >= 0, sv[np.maximum(pick, 0)], vals).astype(dt)
    vals[~present] = 0
    return R.Ref(vals, present)


@st.composite
def operands(draw, shape, device, dtype=None, transpose=True):
    """(Ref, library object): a vector in sparse or dense form, or a matrix
    sparse / iso / dense, possibly built as the transpose ``X.T`` of another."""
    if len(shape) == 1:
        r = draw(refs(shape, dtype))
        form = draw(st.sampled_from(R.VECTOR_FORMS))
        note(f"vector {r} form={form}")
        return r, R.to_lib(r, form, device)
    tr = transpose and draw(st.booleans())
    base = draw(refs(shape[::-1] if tr else shape, dtype))
    form = draw(st.sampled_from(R.MATRIX_FORMS))
    if form == "iso":
        base = R.make_iso(base)
    x = R.to_lib(base, form, device)
    note(f"matrix {base}{'.T' if tr else ''} form={form}")
    if tr:
        return base.T, x.T
    return base, x


class Spec:
    """Output arguments of one call and their reference counterparts."""

    def __init__(self, out_ref, out, mask, mask_arr, accum, replace):
        self.out_ref, self.out, self.mask, self.mask_arr = out_ref, out, mask, mask_arr
        self.accum, self.replace = accum, replace

    @property
    def kw(self):
        return dict(out=self.out, mask=self.mask, accum=self.accum, replace=self.replace)


@st.composite
def outputs(draw, shape, device, inputs=(), accums=ACCUMS, masks=True):
    """out: None, a new random object, or an input of the same shape (aliasing);
    mask: none or S/V/~S/~V of a new object, of out itself, or of an input."""
    same = [(r, o) for r, o in inputs if r.shape == shape]
    kind = draw(st.sampled_from(["none", "new", "alias"] if same else ["none", "new"]))
    if kind == "none":
        out_ref, out = None, None
    elif kind == "new":
        out_ref, out = draw(operands(shape, device))
    else:
        out_ref, out = draw(st.sampled_from(same))
    mk = draw(st.sampled_from(MASK_KINDS)) if masks else None
    mask = mask_arr = None
    if mk is not None:
        srcs = ["new"] + (["out"] if out is not None else []) + (["input"] if same else [])
        src = draw(st.sampled_from(srcs))
        if src == "new":
            mr, mo = draw(operands(shape, device))
        elif src == "out":
            mr, mo = out_ref, out
        else:
            mr, mo = draw(st.sampled_from(same))
        mask = mo.S if "S" in mk else mo.V
        if mk.startswith("~"):
            mask = ~mask
        mask_arr = R.mask_array(mr, "S" in mk, mk.startswith("~"))
        note(f"mask {mk} from {src}: {mr}")
    accum = draw(st.sampled_from(accums))
    replace = draw(st.booleans())
    note(f"out={kind} {out_ref} accum={accum} replace={replace}")
    return Spec(out_ref, out, mask, mask_arr, accum, replace)


def check(spec, result, T, inputs=(), structure_only=False):
    """The library's result equals the reference output rule applied to T;
    inputs that are not the output are unchanged."""
    expected = ref(R.write, spec.out_ref, T, spec.mask_arr, spec.accum, spec.replace)
    if spec.out is not None:
        assert result is spec.out, "the operation must return out"
    got = R.from_lib(result)
    if structure_only:
        expected = R.Ref(np.zeros_like(expected.vals), expected.present)
        got = R.Ref(np.zeros_like(got.vals), got.present)
    msg = R.equal(got, expected)
    assert not msg, f"{msg}\n got      {got}\n expected {expected}\n T        {T}"
    _check_bound(result, got)
    for r, o in inputs:
        if o is not spec.out:
            assert not R.equal(R.from_lib(o), r), "an input was modified"


def _check_bound(x, got):
    """A vector's host-side count bound (what the direction choice uses
    instead of counting) is never below its true count ``got.nvals``."""
    if getattr(x, "_is_vector", False):
        assert x._nvals_bound() >= got.nvals, f"count bound {x._nvals_bound()} < {got.nvals}"


# ---------------------------------------------------------------- mxv / vxm / mxm
@given(data=st.data())
def test_mxv_vxm(device, data):
    d = data.draw
    m, n = d(dims), d(dims)
    which = d(st.sampled_from(["mxv", "vxm"]))
    A_r, A = d(operands((m, n), device))
    u_r, u = d(operands((n,) if which == "mxv" else (m,), device))
    add, mult = d(st.sampled_from(MONOIDS)), d(st.sampled_from(MULTS))
    direction = d(st.sampled_from(["auto", "push", "pull"]))
    pull_input = u.dup() if d(st.booleans()) else None
    out_shape = (m,) if which == "mxv" else (n,)
    spec = d(outputs(out_shape, device, [(u_r, u)]))
    sr = gb.semiring[f"{add}_{mult}"]
    note(f"{which} {sr} direction={direction}")
    if which == "mxv":
        T = R.mxv(A_r, u_r, add, mult)
        res = A.mxv(u, sr, direction=direction, pull_input=pull_input, **spec.kw)
    else:
        T = R.vxm(u_r, A_r, add, mult)
        res = u.vxm(A, sr, direction=direction, pull_input=pull_input, **spec.kw)
    if direction != "auto":
        assert gb.stats.last(which) == direction
    check(spec, res, T, [(A_r, A), (u_r, u)], structure_only=(add == "any" or mult == "any"))


@given(data=st.data())
def test_mxm(device, data):
    d = data.draw
    m, k, n = d(dims), d(dims), d(dims)
    A_r, A = d(operands((m, k), device))
    B_r, B = d(operands((k, n), device))
    add, mult = d(st.sampled_from(MONOIDS)), d(st.sampled_from(MULTS))
    alias = [(A_r, A), (B_r, B)]
    spec = d(outputs((m, n), device, alias))
    methods = ["auto", "saxpy"]
    if spec.mask is not None and not spec.mask.complement:
        methods.append("dot")
    if B_r.nvals == B_r.vals.size:
        methods.append("spmm")
    method = d(st.sampled_from(methods))
    sr = gb.semiring[f"{add}_{mult}"]
    note(f"mxm {sr} method={method}")
    T = R.mxm(A_r, B_r, add, mult)
    res = A.mxm(B, sr, method=method, **spec.kw)
    check(spec, res, T, alias, structure_only=(add == "any" or mult == "any"))


@st.composite
def one_term_ref(draw, shape, dtype, kind):
    """A Ref with at most one entry per row ("row": anywhere in the row) or
    a diagonal one ("diag", square), some rows empty."""
    base = draw(refs(shape, dtype))
    pres = np.zeros(shape, dtype=bool)
    for i in range(shape[0]):
        if draw(st.booleans()):
            if shape[1] == 0:
                break
            j = i if kind == "diag" else draw(st.integers(0, shape[1] - 1))
            pres[i, j] = True
    return R.Ref(np.where(pres, base.vals, np.zeros_like(base.vals)), pres)


@given(data=st.data())
def test_mxm_one_term(device, data):
    """Products whose every entry has one term -- A with at most one entry
    per row (diagonal, permutation, selection) or B diagonal -- take the
    gather path of the backend (no sort); every semiring, positional
    multiplies included, against the reference model."""
    d = data.draw
    m, k, n = d(dims), d(dims), d(dims)
    side = d(st.sampled_from(["A rows", "A diag", "B diag"]))
    if side == "B diag":
        n = k
        A_r, A = d(operands((m, k), device))
        B_r = d(one_term_ref((k, k), d(st.sampled_from(DTYPES)), "diag"))
        B = R.to_lib(B_r, "sparse", device)
    else:
        if side == "A diag":
            k = m
        A_r = d(one_term_ref((m, k), d(st.sampled_from(DTYPES)), side.split()[1]))
        A = R.to_lib(A_r, "sparse", device)
        B_r, B = d(operands((k, n), device))
    add, mult = d(st.sampled_from(MONOIDS)), d(st.sampled_from(MULTS))
    sr = gb.semiring[f"{add}_{mult}"]
    note(f"mxm one-term {side} {sr}")
    spec = d(outputs((m, n), device, [(A_r, A), (B_r, B)], masks=False))
    T = R.mxm(A_r, B_r, add, mult)
    res = A.mxm(B, sr, method="saxpy", **spec.kw)
    check(spec, res, T, [(A_r, A), (B_r, B)], structure_only=(add == "any" or mult == "any"))


@pytest.mark.parametrize("mult", ["times", "first", "second", "minus", "firsti", "secondi",
                                  "secondj", "pair"])
@pytest.mark.parametrize("side", ["A diagonal", "B diagonal"])
def test_mxm_one_term_same_structure(device, side, mult):
    """The one-term products whose result keeps an operand's structure: a
    diagonal A with an entry on every non-empty row of B (C has B's
    structure), a diagonal B with an entry on every column A uses (C has A's
    structure) -- triangle counting's degree ordering -- against the
    reference model, with empty rows and a column no row uses."""
    rng = np.random.default_rng(12)
    n = 9
    X = rng.integers(1, 9, (n, n)).astype(np.int64)
    P = rng.random((n, n)) < 0.35
    P[[2, 4], :] = False                             # empty rows
    P[:, [2, 4]] = False                             # unused columns
    G = R.Ref(np.where(P, X, 0), P)
    d = np.arange(n) + 2
    dpres = np.ones(n, dtype=bool)
    dpres[2] = dpres[4] = False                      # missing where nothing needs it
    D = R.Ref(np.diag(np.where(dpres, d, 0)), np.diag(dpres))
    A_r, B_r = (D, G) if side == "A diagonal" else (G, D)
    A, B = R.to_lib(A_r, "sparse", device), R.to_lib(B_r, "sparse", device)
    T = R.mxm(A_r, B_r, "plus", mult)
    spec = Spec(None, None, None, None, None, False)
    check(spec, A.mxm(B, gb.semiring[f"plus_{mult}"]), T, [(A_r, A), (B_r, B)])


# ---------------------------------------------------------------- element-wise
@given(data=st.data())
def test_ewise(device, data):
    d = data.draw
    shape = d(st.sampled_from([(d(dims),), (d(dims), d(dims))]))
    a_r, a = d(operands(shape, device))
    b_r, b = d(operands(shape, device))
    op = d(st.sampled_from(EWISE_OPS))
    which = d(st.sampled_from(["add", "mult", "union"]))
    spec = d(outputs(shape, device, [(a_r, a), (b_r, b)]))
    note(f"ewise_{which} {op}")
    binop = gb.binary[op]
    if which == "add":
        T = ref(R.ewise_add, a_r, b_r, op)   # a-only entries are cast
        res = a.ewise_add(b, binop, **spec.kw)
    elif which == "mult":
        T = ref(R.ewise_mult, a_r, b_r, op)
        res = a.ewise_mult(b, binop, **spec.kw)
    else:
        ld, rd = d(small_ints), d(small_ints)
        T = ref(R.ewise_union, a_r, b_r, op, ld, rd)
        res = a.ewise_union(b, binop, ld, rd, **spec.kw)
    check(spec, res, T, [(a_r, a), (b_r, b)])


# ---------------------------------------------------------------- apply / select
bound_scalars = st.one_of(st.booleans(), small_ints, small_ints.map(float),
                          st.sampled_from([math.nan, math.inf, -math.inf, -0.0]))


@given(data=st.data())
def test_apply(device, data):
    d = data.draw
    shape = d(st.sampled_from([(d(dims),), (d(dims), d(dims))]))
    x_r, x = d(operands(shape, device))
    kind = d(st.sampled_from(["unary", "binary_left", "binary_right", "indexunary"]))
    if kind == "unary":
        name = d(st.sampled_from(sorted(R.UNARY)))
        T = R.apply_unary(x_r, name)
        call = lambda **kw: x.apply(gb.unary[name], **kw)  # noqa: E731
    elif kind.startswith("binary"):
        name = d(st.sampled_from(EWISE_OPS))
        s = d(bound_scalars)
        if kind == "binary_left":
            T = R.apply_binary(x_r, name, left=s)
            call = lambda **kw: x.apply(gb.binary[name], left=s, **kw)  # noqa: E731
        else:
            T = R.apply_binary(x_r, name, right=s)
            call = lambda **kw: x.apply(gb.binary[name], right=s, **kw)  # noqa: E731
    else:
        name = d(st.sampled_from(APPLY_INDEX_OPS))
        s = d(st.integers(-2, 3))
        T = R.apply_indexunary(x_r, name, s)
        call = lambda **kw: x.apply(gb.indexunary[name], thunk=s, **kw)  # noqa: E731
    note(f"apply {kind} {name}")
    spec = d(outputs(shape, device, [(x_r, x)]))
    check(spec, call(**spec.kw), T, [(x_r, x)])


@given(data=st.data())
def test_select(device, data):
    d = data.draw
    shape = d(st.sampled_from([(d(dims),), (d(dims), d(dims))]))
    x_r, x = d(operands(shape, device))
    name = d(st.sampled_from(SELECT_OPS))
    thunk = d(st.one_of(st.integers(-2, 3), st.integers(-2, 3).map(float)))
    spec = d(outputs(shape, device, [(x_r, x)]))
    T = R.select(x_r, name, thunk)
    note(f"select {name} {thunk}")
    check(spec, x.select(gb.indexunary[name], thunk, **spec.kw), T, [(x_r, x)])


# ---------------------------------------------------------------- reduce
@given(data=st.data())
def test_reduce_lines(device, data):
    d = data.draw
    m, n = d(dims), d(dims)
    A_r, A = d(operands((m, n), device))
    add = d(st.sampled_from(REDUCE_MONOIDS))
    rows = d(st.booleans())
    spec = d(outputs((m,) if rows else (n,), device))
    note(f"reduce {'rowwise' if rows else 'columnwise'} {add}")
    if rows:
        T = R.reduce_rowwise(A_r, add)
        res = A.reduce_rowwise(gb.monoid[add], **spec.kw)
    else:
        T = R.reduce_columnwise(A_r, add)
        res = A.reduce_columnwise(gb.monoid[add], **spec.kw)
    check(spec, res, T, [(A_r, A)], structure_only=(add == "any"))


@given(data=st.data())
def test_reduce_scalar(device, data):
    d = data.draw
    shape = d(st.sampled_from([(d(dims),), (d(dims), d(dims))]))
    x_r, x = d(operands(shape, device))
    add = d(st.sampled_from(REDUCE_MONOIDS))
    want = R.reduce_scalar(x_r, add)
    got = x.reduce(gb.monoid[add]) if len(shape) == 1 else x.reduce_scalar(gb.monoid[add])
    note(f"reduce {add}: got {got!r} want {want!r}")
    assert not isinstance(got, np.generic) and np.ndim(got) == 0, "a Python scalar"
    if add == "any":
        cands = [R.cast(v, want.dtype).item() for v in x_r.vals[x_r.present]]
        if not cands:
            assert got == want.item()
        else:
            assert any(got == c or (got != got and c != c) for c in cands), (got, cands)
    elif want.dtype.kind == "f":
        if math.isnan(want):
            assert math.isnan(got), (got, want)
        else:
            assert got == pytest.approx(want.item(), rel=1e-12)
    else:
        assert got == want.item() and type(got) is type(want.item())


# ---------------------------------------------------------------- assign / extract
@st.composite
def index_lists(draw, n, unique):
    """None (all), a slice, or a list (unique for assign; repeats for extract)."""
    kind = draw(st.sampled_from(["all", "slice", "list", "list"]))
    if kind == "all":
        return None, None
    if kind == "slice":
        start = draw(st.integers(0, n))
        stop = draw(st.integers(start, n))
        step = draw(st.integers(1, 3))
        return slice(start, stop, step), list(range(start, stop, step))
    if unique:
        lst = draw(st.lists(st.integers(0, n - 1), unique=True, max_size=n)) if n else []
    else:
        lst = draw(st.lists(st.integers(0, n - 1), max_size=n + 2)) if n else []
    arg = draw(st.sampled_from(["list", "array"]))
    return (lst if arg == "list" else np.asarray(lst, dtype=np.int64)), lst


@given(data=st.data())
def test_assign(device, data):
    d = data.draw
    shape = d(st.sampled_from([(d(dims),), (d(dims), d(dims))]))
    C_r, C = d(operands(shape, device))
    idx = [d(index_lists(n, True)) for n in shape]
    region = tuple(n if lst is None else len(lst) for n, (_, lst) in zip(shape, idx))
    if d(st.booleans()):
        value = d(bound_scalars)
        value_r = value
        inputs = []
    elif region == shape and d(st.booleans()):
        value_r, value = C_r.copy(), C           # the value aliases the output
        inputs = []
    else:
        value_r, value = d(operands(region, device))
        inputs = [(value_r, value)]
    spec = d(outputs(shape, device, [(C_r, C)]))
    # assign writes into C itself: out is always C (the spec's mask/accum/replace are used)
    note(f"assign {value_r} into {C_r} at {[lst for _, lst in idx]}")
    expected = ref(R.assign, C_r, value_r, tuple(lst for _, lst in idx), spec.mask_arr,
                   spec.accum, spec.replace)
    args = [a for a, _ in idx]
    if len(shape) == 1:
        res = C.assign(value, args[0], mask=spec.mask, accum=spec.accum, replace=spec.replace)
    else:
        res = C.assign(value, args[0], args[1], mask=spec.mask, accum=spec.accum,
                       replace=spec.replace)
    assert res is C
    got = R.from_lib(C)
    msg = R.equal(got, expected)
    assert not msg, f"{msg}\n got      {got}\n expected {expected}"
    _check_bound(C, got)
    for r, o in inputs:
        if o is not C:
            assert not R.equal(R.from_lib(o), r), "the value was modified"


@given(data=st.data())
def test_extract(device, data):
    d = data.draw
    shape = d(st.sampled_from([(d(dims),), (d(dims), d(dims))]))
    x_r, x = d(operands(shape, device))
    if len(shape) == 2 and min(shape) > 0 and d(st.booleans()):
        # a row or a column as a Vector
        axis = d(st.integers(0, 1))
        line = d(st.integers(0, shape[axis] - 1))
        other_arg, other = d(index_lists(shape[1 - axis], False))
        if axis == 0:
            T = R.extract(x_r, ([line], other))
            T = R.Ref(T.vals[0], T.present[0])
            spec = d(outputs(T.shape, device))
            res = x.extract(line, other_arg, **spec.kw)
        else:
            T = R.extract(x_r, (other, [line]))
            T = R.Ref(T.vals[:, 0], T.present[:, 0])
            spec = d(outputs(T.shape, device))
            res = x.extract(other_arg, line, **spec.kw)
        check(spec, res, T, [(x_r, x)])
        return
    idx = [d(index_lists(n, False)) for n in shape]
    T = R.extract(x_r, tuple(lst for _, lst in idx))
    spec = d(outputs(T.shape, device, [(x_r, x)]))
    note(f"extract {[lst for _, lst in idx]}")
    res = x.extract(*[a for a, _ in idx], **spec.kw)
    check(spec, res, T, [(x_r, x)])


# ---------------------------------------------------------------- transpose / kronecker
@given(data=st.data())
def test_transpose(device, data):
    d = data.draw
    m, n = d(dims), d(dims)
    A_r, A = d(operands((m, n), device))
    spec = d(outputs((n, m), device, [(A_r, A)]))
    check(spec, A.transpose(**spec.kw), R.transpose(A_r), [(A_r, A)])


@given(data=st.data())
def test_kronecker(device, data):
    d = data.draw
    A_r, A = d(operands((d(small_dims), d(small_dims)), device))
    B_r, B = d(operands((d(small_dims), d(small_dims)), device))
    op = d(st.sampled_from(EWISE_OPS))
    shape = (A_r.shape[0] * B_r.shape[0], A_r.shape[1] * B_r.shape[1])
    spec = d(outputs(shape, device, [(A_r, A), (B_r, B)]))
    note(f"kronecker {op}")
    check(spec, A.kronecker(B, gb.binary[op], **spec.kw), R.kronecker(A_r, B_r, op),
          [(A_r, A), (B_r, B)])


# ---------------------------------------------------------------- user-defined operators
def _user_ops():
    ad = gb.BinaryOp.register("absdiff_sem", lambda x, y: abs(x - y), "(x > y ? x - y : y - x)")
    mx = gb.BinaryOp.register("mymax_sem", lambda x, y: x if x > y else y, "(x > y ? x : y)")
    mon = gb.Monoid.register("mymax_sem", mx, identity=gb.dtypes.min_value)
    return dict(ad=ad, mon=mon, sr=gb.Semiring.register("mymax_absdiff", mon, ad),
                sr2=gb.Semiring.register("plus_absdiff", gb.monoid.plus, ad),
                neg=gb.UnaryOp.register("neg_sem", lambda x: -x, "-x"),
                even=gb.IndexUnaryOp.register("evenrow_sem", lambda x, i, j, t: (i % 2) == t,
                                              "((i % 2) == thunk)"))


def test_user_defined_operators(device):
    """Python functions (numba on the CPU, the C expression on the GPU) in every
    role: semiring multiply and add, monoid, unary, bound binary, index-unary,
    accum -- checked against the reference model's definitions."""
    U = _user_ops()
    dense = np.array([[1.0, 0, 5], [0, 3, 0], [2, 0, 0]])
    A_r = R.Ref(dense, dense != 0)
    u_r = R.Ref(np.array([4.0, 1, 2]), np.ones(3, bool))
    A, u = R.to_lib(A_r, "sparse", device), R.to_lib(u_r, "dense", device)
    absd = lambda x, y: abs(x - y)  # noqa: E731

    def semiring_ref(add, X, Y):
        m, n = X.shape[0], Y.shape[1]
        out = {}
        for i in range(m):
            for j in range(n):
                terms = [absd(X.vals[i, k], Y.vals[k, j]) for k in range(X.shape[1])
                         if X.present[i, k] and Y.present[k, j]]
                if terms:
                    out[(i, j)] = add(terms)
        return out
    col = R.Ref(u_r.vals[:, None], u_r.present[:, None])
    for direction in ("push", "pull"):
        for sr, add in ((U["sr"], max), (U["sr2"], sum)):
            want = semiring_ref(add, A_r, col)
            w = A.mxv(u, sr, direction=direction)
            got = dict(zip(R._host(w.to_coo()[0]).tolist(), R._host(w.to_coo()[1]).tolist()))
            assert got == {i: v for (i, _), v in want.items()}, (direction, sr)
    C = A.mxm(A, U["sr"])
    want = semiring_ref(max, A_r, A_r)
    r, c, v = (R._host(a) for a in C.to_coo())
    assert dict(zip(zip(r.tolist(), c.tolist()), v.tolist())) == want
    assert R._host(A.reduce_rowwise(U["mon"]).to_coo()[1]).tolist() == [5.0, 3.0, 2.0]
    assert A.reduce_scalar(U["mon"]) == 5.0
    assert R._host(u.apply(U["neg"]).to_dense()).tolist() == [-4.0, -1.0, -2.0]
    assert R._host(u.apply(U["ad"], right=2.0).to_dense()).tolist() == [2.0, 1.0, 0.0]
    assert R._host(A.select(U["even"], 0).to_dense()).tolist() == [[1, 0, 5], [0, 0, 0], [2, 0, 0]]
    out = u.dup()
    A.mxv(u, gb.semiring.plus_times, accum=U["ad"], out=out)     # |u - A u|
    assert R._host(out.to_dense()).tolist() == [10.0, 2.0, 6.0]
    v = gb.Vector.from_coo([0, 2], [7.0, 1.0], 3, device=device)
    assert R._host(u.ewise_add(v, U["ad"]).to_dense()).tolist() == [3.0, 1.0, 1.0]
    assert R._host(u.ewise_mult(v, U["ad"]).to_coo()[1]).tolist() == [3.0, 1.0]


# ---------------------------------------------------------------- fixed tables
ORDERED_ACCUMS = ["minus", "rminus", "div", "first", "second"]


@pytest.mark.parametrize("accum", ORDERED_ACCUMS)
@pytest.mark.parametrize("form", ["sparse", "dense"])
def test_accum_operand_order(device, accum, form):
    """out = accum(out, T) -- out is the FIRST operand.  Every operation that
    writes a vector or matrix, into each storage form of ``out``, with
    accumulators whose operand order matters: 10 - A u is [8, 7], never
    [-8, -7]."""
    A_r = R.Ref(np.array([[1, 1], [2, 1]], np.int64), np.ones((2, 2), bool))
    u_r = R.Ref(np.array([1, 1], np.int64), np.ones(2, bool))
    A, u = R.to_lib(A_r, "sparse", device), R.to_lib(u_r, "dense", device)
    out_r = R.Ref(np.array([10, 20], np.int64), np.ones(2, bool))
    if form == "sparse":
        out_r = R.Ref(np.array([10, 0], np.int64), np.array([True, False]))
    M_r = R.Ref(np.array([[10, 20], [30, 40]], np.int64), np.ones((2, 2), bool))
    if form == "sparse":
        M_r = R.Ref(np.array([[10, 0], [30, 40]], np.int64), np.array([[1, 0], [1, 1]], bool))
    cases = [
        ("mxv pull", lambda o: A.mxv(u, "plus_times", accum=accum, out=o, direction="pull"),
         R.mxv(A_r, u_r, "plus", "times"), out_r),
        ("mxv push", lambda o: A.mxv(u, "plus_times", accum=accum, out=o, direction="push"),
         R.mxv(A_r, u_r, "plus", "times"), out_r),
        ("vxm", lambda o: u.vxm(A, "plus_times", accum=accum, out=o),
         R.vxm(u_r, A_r, "plus", "times"), out_r),
        ("ewise_add", lambda o: u.ewise_add(u, "plus", accum=accum, out=o),
         R.ewise_add(u_r, u_r, "plus"), out_r),
        ("ewise_mult", lambda o: u.ewise_mult(u, "times", accum=accum, out=o),
         R.ewise_mult(u_r, u_r, "times"), out_r),
        ("apply", lambda o: u.apply(gb.binary.times, right=3, accum=accum, out=o),
         R.apply_binary(u_r, "times", right=3), out_r),
        ("reduce_rowwise", lambda o: A.reduce_rowwise("plus", accum=accum, out=o),
         R.reduce_rowwise(A_r, "plus"), out_r),
        ("extract", lambda o: u.extract([1, 0], accum=accum, out=o),
         R.extract(u_r, ([1, 0],)), out_r),
        ("mxm", lambda o: A.mxm(A, "plus_times", accum=accum, out=o),
         R.mxm(A_r, A_r, "plus", "times"), M_r),
        ("mxm dot", lambda o: A.mxm(A, "plus_times", accum=accum, out=o, method="dot",
                                    mask=A.S), R.mxm(A_r, A_r, "plus", "times"), M_r),
        ("transpose", lambda o: A.transpose(accum=accum, out=o), R.transpose(A_r), M_r),
        ("matrix ewise_add", lambda o: A.ewise_add(A, "plus", accum=accum, out=o),
         R.ewise_add(A_r, A_r, "plus"), M_r),
    ]
    for what, call, T, o_r in cases:
        out = R.to_lib(o_r, form, device)
        got = R.from_lib(call(out))
        want = R.write(o_r, T, None, accum, False)
        msg = R.equal(got, want)
        assert not msg, f"{what} accum={accum} out={form}: {msg}\n got {got}\n want {want}"
    # assign: C(I) = accum(C(I), value) with the same order
    for value in (3, R.Ref(np.array([3, 5], np.int64), np.ones(2, bool))):
        C = R.to_lib(out_r, form, device)
        lib_value = value if not isinstance(value, R.Ref) else R.to_lib(value, "dense", device)
        C.assign(lib_value, [0, 1], accum=accum)
        want = R.assign(out_r, value, ([0, 1],), None, accum, False)
        msg = R.equal(R.from_lib(C), want)
        assert not msg, f"assign accum={accum} out={form}: {msg}"


ALL_DTYPES = [np.dtype(t) for t in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                                    "uint32", "uint64", "float32", "float64")]


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("add", REDUCE_MONOIDS)
def test_empty_objects_every_monoid(device, add, dt):
    """Empty vectors and matrices (no entries; also zero rows / columns) for
    every monoid and dtype: the scalar reduction is the monoid's identity in
    the monoid's type (reference model), line reductions and products are
    empty vectors / matrices of that type."""
    t = R.monoid_type(add, dt)
    want = R.identity(add, t)
    for shape in ((0,), (4,)):
        got = gb.Vector(dt, shape[0], device=device).reduce(gb.monoid[add])
        assert got == want.item() and type(got) is type(want.item()), (shape, got, want)
    for shape in ((0, 0), (3, 0), (0, 3), (3, 4)):
        A = gb.Matrix(dt, *shape, device=device)
        got = A.reduce_scalar(gb.monoid[add])
        assert got == want.item() and type(got) is type(want.item()), (shape, got, want)
        for line in (A.reduce_rowwise(gb.monoid[add]), A.reduce_columnwise(gb.monoid[add])):
            assert line.nvals == 0 and line.dtype == t
        assert line.size == shape[1]
    sr = gb.semiring[f"{add}_times"]
    st_ = R.semiring_type(add, "times", dt, dt)
    E = gb.Matrix(dt, 3, 4, device=device)
    full = R.to_lib(R.Ref(np.ones(4, dt), np.ones(4, bool)), "dense", device)
    for direction in ("push", "pull"):
        w = E.mxv(full, sr, direction=direction)
        assert w.nvals == 0 and w.dtype == st_ and w.size == 3
    C = E.mxm(gb.Matrix(dt, 4, 2, device=device), sr)
    assert C.nvals == 0 and C.dtype == st_ and C.shape == (3, 2)


ORDERED_OPS = ["minus", "rminus", "div", "first", "second", "lt", "ge", "firsti", "secondj"]


def _distinct(shape, seed, dtype=np.int64, density=0.7):
    """A Ref with distinct non-zero values (so op(a, b) != op(b, a))."""
    rng = np.random.default_rng(seed)
    present = rng.random(shape) < density
    vals = (rng.permutation(int(np.prod(shape))).reshape(shape) + 2).astype(dtype)
    vals[~present] = 0
    return R.Ref(vals, present)


@pytest.mark.parametrize("op", ORDERED_OPS)
def test_operand_order_every_form(device, op):
    """ewise_add / ewise_mult / ewise_union / apply / kronecker with operators
    whose operand order matters, on every storage form of both operands
    (vectors sparse, dense with holes, full dense; matrices sparse, iso,
    dense) -- including the full-dense-vector fast path."""
    for shape, forms in (((7,), ("sparse", "dense", "full")),
                         ((4, 5), ("sparse", "iso", "dense"))):
        a_r, b_r = _distinct(shape, 1), _distinct(shape, 2)
        full_a = R.Ref(a_r.vals + 1, np.ones(shape, bool))
        full_b = R.Ref(b_r.vals + 3, np.ones(shape, bool))
        for fa in forms:
            for fb in forms:
                x_r = full_a if fa == "full" else R.make_iso(a_r, 5) if fa == "iso" else a_r
                y_r = full_b if fb == "full" else R.make_iso(b_r, 2) if fb == "iso" else b_r
                x = R.to_lib(x_r, "dense" if fa == "full" else fa, device)
                y = R.to_lib(y_r, "dense" if fb == "full" else fb, device)
                binop = gb.binary[op]
                for what, got, want in (
                        ("ewise_add", x.ewise_add(y, binop), R.ewise_add(x_r, y_r, op)),
                        ("ewise_mult", x.ewise_mult(y, binop), R.ewise_mult(x_r, y_r, op)),
                        ("ewise_union", x.ewise_union(y, binop, 3, 4),
                         R.ewise_union(x_r, y_r, op, 3, 4)),
                        ("apply left", x.apply(binop, left=3), R.apply_binary(x_r, op, left=3)),
                        ("apply right", x.apply(binop, right=3),
                         R.apply_binary(x_r, op, right=3))):
                    msg = R.equal(R.from_lib(got), want)
                    assert not msg, f"{what} {op} {fa}/{fb}: {msg}"
                if len(shape) == 2:
                    xs, ys = x.extract([0, 2], [1, 3, 4]), y.extract([3, 1], [0, 2])
                    want = R.kronecker(R.extract(x_r, ([0, 2], [1, 3, 4])),
                                       R.extract(y_r, ([3, 1], [0, 2])), op)
                    msg = R.equal(R.from_lib(xs.kronecker(ys, binop)), want)
                    assert not msg, f"kronecker {op} {fa}/{fb}: {msg}"


@pytest.mark.parametrize("add", REDUCE_MONOIDS)
def test_reduce_every_form(device, add):
    """reduce_scalar / reduce_rowwise / reduce_columnwise of every storage form
    (an iso matrix included: plus over k copies of v is k*v, not v)."""
    base = _distinct((5, 6), 3, np.int64, 0.6)
    for dt in (np.dtype(np.int64), np.dtype(np.float64), np.dtype(bool)):
        for form in R.MATRIX_FORMS:
            r = R.Ref(base.vals.astype(dt), base.present)
            if form == "iso":
                r = R.make_iso(r, dt.type(3) if dt != bool else True)
            A = R.to_lib(r, form, device)
            want = R.reduce_scalar(r, add)
            got = A.reduce_scalar(gb.monoid[add])
            if add != "any":
                assert got == want.item(), (add, dt, form, got, want)
            for lib, ref_ in ((A.reduce_rowwise(gb.monoid[add]), R.reduce_rowwise(r, add)),
                              (A.reduce_columnwise(gb.monoid[add]),
                               R.reduce_columnwise(r, add))):
                got_r = R.from_lib(lib)
                if add == "any":
                    got_r, ref_ = (R.Ref(np.zeros_like(q.vals), q.present) for q in (got_r, ref_))
                msg = R.equal(got_r, ref_)
                assert not msg, (add, dt, form, msg)
        for form in ("sparse", "dense"):
            v_r = R.Ref(base.vals[0].astype(dt), base.present[0])
            got = R.to_lib(v_r, form, device).reduce(gb.monoid[add])
            if add != "any":
                assert got == R.reduce_scalar(v_r, add).item(), (add, dt, form)


@pytest.mark.parametrize("name", ["plus_times", "min_plus", "max_first", "plus_minus",
                                  "times_second", "any_pair", "min_secondi"])
def test_mxm_every_method_and_form(device, name):
    """mxm by every method (saxpy, dot, spmm, auto) and storage form of both
    operands, against the reference; A has empty rows and columns."""
    add, mult = name.split("_")
    A_r = _distinct((6, 5), 4, np.int64, 0.5)
    A_r.present[[1, 4]] = False
    A_r.present[:, 2] = False
    A_r.vals[~A_r.present] = 0
    B_r = _distinct((5, 4), 5, np.int64, 0.6)
    F_r = R.Ref(_distinct((5, 4), 6).vals + 1, np.ones((5, 4), bool))
    M_r = _distinct((6, 4), 7, np.int64, 0.5)
    M = R.to_lib(M_r, "sparse", device)
    for fa in R.MATRIX_FORMS:
        Ar = R.make_iso(A_r, 3) if fa == "iso" else A_r
        A = R.to_lib(Ar, fa, device)
        for Br, fb in ((B_r, "sparse"), (R.make_iso(B_r, 2), "iso"), (B_r, "dense"),
                       (F_r, "dense")):
            B = R.to_lib(Br, fb, device)
            T = R.mxm(Ar, Br, add, mult)
            methods = [("auto", None), ("saxpy", None), ("saxpy", M.S), ("dot", M.S)]
            if Br.nvals == Br.vals.size:
                methods.append(("spmm", None))
            for method, mask in methods:
                want = T if mask is None else R.write(None, T, R.mask_array(M_r, True, False))
                got = R.from_lib(A.mxm(B, gb.semiring[name], method=method, mask=mask))
                if add == "any":
                    got, want = (R.Ref(np.zeros_like(q.vals), q.present) for q in (got, want))
                msg = R.equal(got, want)
                assert not msg, f"{name} {method} {fa}/{fb} mask={mask is not None}: {msg}"
