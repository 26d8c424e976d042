"""A tiny dense reference model of the GraphBLAS rules, written from the
definitions with plain Python loops (no graphblast_py code is used here).

An object is a :class:`Ref`: ``vals`` (a NumPy array of the object's dtype,
shape ``(n,)`` or ``(m, n)``) and ``present`` (a bool array of the same shape).
Every operation computes its result ``T`` from the definition, then
:func:`write` applies the one output rule ``out<mask, replace> = accum(out, T)``.

Typing (the rules graphblast_py documents in ``graphblast_py/dtypes.py``):

* a binary operator computes in the NumPy promotion of its two input types;
  arithmetic operators (plus, minus, rminus, times) on two bools compute in
  int64; comparisons and logical operators give bool; positional ones int64;
* a monoid over type t gives ``op(t, t)``'s type; a semiring gives the monoid's
  type over the multiply's result type, and each product is cast to it;
* a value stored into ``out`` is cast to ``out``'s dtype (C casting).

Values in the tests are small integers plus, now and then, the special values
of the type (integers: the type's min and max, 0, -1; floats: NaN, +inf, -inf,
-0.0) -- no other floats, so a sum of at most a few terms is exact and does
not depend on the order it is taken in.  The operations on NumPy scalars of
the compute type reproduce integer wrap-around.

Floating-point rules (those of SuiteSparse:GraphBLAS, checked against
python-graphblas in tests/test_vs_graphblas.py):

* ``min``/``max`` follow C's ``fmin``/``fmax``: a NaN operand loses
  (``min(2, NaN) = 2``); only ``min(NaN, NaN)`` is NaN.  So the monoid's
  identity (+inf for min) is not an identity for NaN -- a reduction is a fold
  of the stored values, never a fold starting from the identity;
* ``times`` has no terminal value for floats (``0 * inf`` is NaN), ``min``'s
  is -inf, ``max``'s +inf (they absorb NaN too);
* ``div`` on floats is IEEE division (``x/0`` is ±inf or NaN); on integers it
  truncates toward zero, ``x/0`` is 0 for ``x == 0``, else the type's max
  (``x > 0``) or min (``x < 0``), and ``min/-1`` wraps to min;
* a float that is NaN, infinite or out of range has no defined cast to an
  integer type (C leaves it undefined): :func:`cast` raises
  :class:`UndefinedCast` and the tests discard such an example.
"""
import warnings

import numpy as np

BOOL = np.dtype(bool)
INT64 = np.dtype(np.int64)

ARITH = ("plus", "minus", "rminus", "times", "div")
SAME = ("min", "max", "first", "second", "any", "pair")
COMPARE = ("eq", "ne", "lt", "le", "gt", "ge")
LOGICAL = ("land", "lor", "lxor", "lxnor")
POSITIONAL = ("firsti", "firstj", "secondi", "secondj")
BINARY_NAMES = ARITH + SAME + COMPARE + LOGICAL + POSITIONAL


# ---------------------------------------------------------------- objects
class Ref:
    """Dense model of a Vector (1-D) or Matrix (2-D)."""

    def __init__(self, vals, present):
        self.vals = np.asarray(vals)
        self.present = np.asarray(present, dtype=bool)
        assert self.vals.shape == self.present.shape

    @classmethod
    def empty(cls, shape, dtype):
        return cls(np.zeros(shape, dtype=dtype), np.zeros(shape, dtype=bool))

    @property
    def dtype(self):
        return self.vals.dtype

    @property
    def shape(self):
        return self.vals.shape

    @property
    def is_vector(self):
        return self.vals.ndim == 1

    @property
    def nvals(self):
        return int(self.present.sum())

    def copy(self):
        return Ref(self.vals.copy(), self.present.copy())

    def positions(self):
        """Every stored position in row-major order, as index tuples."""
        return [tuple(int(t) for t in p) for p in np.argwhere(self.present)]

    def get(self, pos):
        return self.vals[pos] if self.present[pos] else None

    @property
    def T(self):
        return Ref(self.vals.T.copy(), self.present.T.copy())

    def __repr__(self):
        shown = {p if len(p) > 1 else p[0]: self.vals[p].item() for p in self.positions()}
        return f"Ref(shape={self.shape}, dtype={self.dtype}, {shown})"


class UndefinedCast(ValueError):
    """A NaN, infinite or out-of-range float cast to an integer type."""


def defined_or_reject(fn, *args, **kw):
    """Run a reference-model function inside a Hypothesis test; an example
    whose answer needs a cast C leaves undefined (NaN or inf to an
    integer) is discarded."""
    from hypothesis import reject
    try:
        return fn(*args, **kw)
    except UndefinedCast:
        reject()


def ewise(which, a, b, op, left_default=None, right_default=None):
    """The model of ``ewise_add`` / ``ewise_mult`` / ``ewise_union``
    (``which``: "add", "mult", "union" with the defaults)."""
    if which == "add":
        return ewise_add(a, b, op)
    if which == "mult":
        return ewise_mult(a, b, op)
    return ewise_union(a, b, op, left_default, right_default)


def ewise_both_ways(dev, which, a, b, op, ld, rd, kw):
    """``a.ewise_<which>(b, op, **kw())`` ("add", "mult", or "union" with
    the defaults ``ld``, ``rd``) with the backend's ``ewise_mask_first`` on,
    then switched off: ``(got, plain)``.  ``kw()`` gives fresh keyword
    arguments for each call (a new ``out``)."""
    import graphblast_py as gb
    binop = gb.binary[op]

    def call():
        with np.errstate(all="ignore"):
            if which == "add":
                return a.ewise_add(b, binop, **kw())
            if which == "mult":
                return a.ewise_mult(b, binop, **kw())
            return a.ewise_union(b, binop, ld, rd, **kw())
    got = call()
    be = gb.backend.get(dev)
    saved, be.ewise_mask_first = be.ewise_mask_first, False
    try:
        plain = call()
    finally:
        be.ewise_mask_first = saved
    return got, plain


def vectors(n, dtype, form, dev="cpu", kinds=None, few_max=4, nan=False):
    """A Hypothesis strategy of ``(Ref, Vector)`` of size ``n`` stored in
    ``form`` ("sparse"/"dense") on ``dev``: the content one of ``kinds``
    ("random", "full", "empty", "few": at most ``few_max`` entries; default
    random/full for a dense form, random/full/empty/few for a sparse one),
    values in [-3, 5] (``nan``: a float64 vector may hold one NaN or
    infinity); a dense form gets at least n/8 entries (to stay dense)."""
    from hypothesis import strategies as st

    @st.composite
    def draw_vector(draw):
        ks = kinds or (["random", "full"] if form == "dense"
                       else ["random", "full", "empty", "few"])
        kind = draw(st.sampled_from(ks))
        present = np.zeros(n, dtype=bool)
        if kind == "full":
            present[:] = True
        elif kind == "few":
            present[draw(st.lists(st.integers(0, n - 1), max_size=few_max))] = True
        elif kind == "random":
            present = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
        vals = np.array(draw(st.lists(st.integers(-3, 5), min_size=n, max_size=n)))
        if nan and dtype == "float64" and draw(st.booleans()):
            vals = vals.astype(float)
            vals[draw(st.integers(0, n - 1))] = draw(st.sampled_from([np.nan, np.inf, -np.inf]))
        if form == "dense" and present.sum() < n // 8:
            present[: n // 8] = True
        r = Ref(np.where(present, vals, 0).astype(dtype), present)
        return r, to_lib(r, form, dev)
    return draw_vector()


def cast(x, dtype):
    """C-style cast of one value to ``dtype`` (float to int truncates; a float
    with no integer value in range raises :class:`UndefinedCast`)."""
    dtype = np.dtype(dtype)
    a = np.asarray(x)
    if a.dtype.kind == "f" and dtype.kind in "iu":
        v = float(a)
        info = np.iinfo(dtype)
        if not np.isfinite(v) or not (info.min - 1 < v < info.max + 1):
            raise UndefinedCast(f"{v!r} to {dtype}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.asarray(x).astype(dtype, casting="unsafe")[()]


def scalar_dtype(s):
    """Type of a Python/NumPy scalar given without one."""
    if isinstance(s, (bool, np.bool_)):
        return BOOL
    if isinstance(s, np.generic):
        return s.dtype
    if isinstance(s, int):
        return INT64
    return np.dtype(np.float64)


# ---------------------------------------------------------------- typing
def binary_type(name, tx, ty):
    if name in COMPARE or name in LOGICAL:
        return BOOL
    if name in POSITIONAL:
        return INT64
    t = np.result_type(tx, ty)
    if name in ARITH and t == BOOL:
        return INT64
    return t


def monoid_type(name, t):
    return binary_type(name, t, t)


def semiring_type(add, mult, ta, tb):
    return monoid_type(add, binary_type(mult, ta, tb))


# ---------------------------------------------------------------- operators
def binop(name, x, y, tx, ty, pos=None):
    """``name(x, y)`` with x of type tx and y of type ty; ``pos`` gives the
    (firsti, firstj, secondi, secondj) indices for positional operators."""
    out = binary_type(name, tx, ty)
    if name in POSITIONAL:
        return cast(pos[POSITIONAL.index(name)], out)
    if name in ("first", "any"):
        return cast(x, out)
    if name == "second":
        return cast(y, out)
    if name == "pair":
        return cast(1, out)
    if name in LOGICAL:
        a, b = bool(x), bool(y)
        return np.bool_({"land": a and b, "lor": a or b, "lxor": a != b, "lxnor": a == b}[name])
    dom = np.result_type(tx, ty)
    if name in ARITH and dom == BOOL:
        dom = INT64
    a, b = cast(x, dom), cast(y, dom)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name == "plus":
            r = a + b
        elif name == "minus":
            r = a - b
        elif name == "rminus":
            r = b - a
        elif name == "times":
            r = a * b
        elif name == "div":
            r = _div(a, b, dom)
        elif name == "min":                 # fmin: a NaN operand loses
            r = a if b != b else b if a != a else (a if a <= b else b)
        elif name == "max":                 # fmax
            r = a if b != b else b if a != a else (a if a >= b else b)
        else:
            r = {"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b, "gt": a > b,
                 "ge": a >= b}[name]
    return cast(r, out)


def _div(a, b, dom):
    """GraphBLAS division in type ``dom`` (see the module docstring)."""
    if dom.kind == "f":
        return a / b
    if b == 0:
        if a == 0:
            return dom.type(0)
        return np.iinfo(dom).max if a > 0 else np.iinfo(dom).min
    q = abs(int(a)) // abs(int(b))                  # Python ints: exact, then wrap
    if (int(a) < 0) != (int(b) < 0):
        q = -q
    return _wrap(q, dom)


def _wrap(v, dom):
    """The Python int ``v`` wrapped into integer type ``dom``."""
    bits = 8 * dom.itemsize
    v &= (1 << bits) - 1
    if dom.kind == "i" and v >= 1 << (bits - 1):
        v -= 1 << bits
    return dom.type(v)


def identity(name, t):
    if name == "plus" or name == "any" or name == "lor" or name == "lxor":
        return cast(0, t)
    if name == "times":
        return cast(1, t)
    if name in ("land", "eq", "lxnor"):
        return cast(True, t)
    if name == "min":
        return cast(True if t == BOOL else (np.inf if t.kind == "f" else np.iinfo(t).max), t)
    if name == "max":
        return cast(False if t == BOOL else (-np.inf if t.kind == "f" else np.iinfo(t).min), t)
    raise ValueError(name)


def fold(name, values, t):
    """Reduce a non-empty list of values of type t with the monoid ``name``
    (``eq`` is the lxnor monoid; ``any`` takes the first -- the tests compare
    results of the 'any' monoid by structure only)."""
    op = "lxnor" if name == "eq" else name
    acc = values[0]
    for v in values[1:]:
        acc = cast(binop(op, acc, v, t, t), t)
    return acc


UNARY = {
    "identity": lambda x, t: x,
    "ainv": lambda x, t: x if t == BOOL else cast(-x, t) if t.kind != "u" else cast(-int(x), t),
    "abs": lambda x, t: x if t.kind in "ub" else cast(abs(x), t),
    "one": lambda x, t: cast(1, t),
    "lnot": lambda x, t: np.bool_(not bool(x)),
}


def unary_type(name, t):
    return BOOL if name == "lnot" else t


INDEXUNARY = {
    "rowindex": (INT64, lambda x, i, j, s: i + s),
    "colindex": (INT64, lambda x, i, j, s: j + s),
    "diagindex": (INT64, lambda x, i, j, s: j - (i + s)),   # GrB_DIAGINDEX: j - (i + s)
    "tril": (BOOL, lambda x, i, j, s: j <= i + s),
    "triu": (BOOL, lambda x, i, j, s: j >= i + s),
    "diag": (BOOL, lambda x, i, j, s: j == i + s),
    "offdiag": (BOOL, lambda x, i, j, s: j != i + s),
    "rowle": (BOOL, lambda x, i, j, s: i <= s),
    "rowgt": (BOOL, lambda x, i, j, s: i > s),
    "colle": (BOOL, lambda x, i, j, s: j <= s),
    "colgt": (BOOL, lambda x, i, j, s: j > s),
    "valueeq": (BOOL, lambda x, i, j, s: x == s),
    "valuene": (BOOL, lambda x, i, j, s: x != s),
    "valuelt": (BOOL, lambda x, i, j, s: x < s),
    "valuele": (BOOL, lambda x, i, j, s: x <= s),
    "valuegt": (BOOL, lambda x, i, j, s: x > s),
    "valuege": (BOOL, lambda x, i, j, s: x >= s),
}


def _ij(pos):
    return (pos[0], pos[1]) if len(pos) == 2 else (pos[0], 0)


# ---------------------------------------------------------------- masks and the output rule
def mask_array(mask_ref, structure, complement):
    """Where the mask allows writing: stored (S) or stored-and-truthy (V),
    complemented for ``~``."""
    m = mask_ref.present.copy()
    if not structure:
        m &= mask_ref.vals.astype(bool)
    return ~m if complement else m


def write(C, T, mask=None, accum=None, replace=False):
    """``C<mask, replace> = accum(C, T)``; ``C`` may be None (a new object of
    T's dtype).  ``mask`` is a bool array (see :func:`mask_array`) or None;
    ``accum`` a binary operator name or None.  Returns a new Ref."""
    if C is None:
        C = Ref.empty(T.shape, T.dtype)
    assert C.shape == T.shape
    dt = C.dtype
    Z = Ref.empty(C.shape, dt)
    for pos in np.ndindex(*C.shape):
        c, t = C.present[pos], T.present[pos]
        if accum is None:
            if t:
                Z.vals[pos], Z.present[pos] = cast(T.vals[pos], dt), True
        elif c and t:
            z = binop(accum, C.vals[pos], T.vals[pos], C.dtype, T.dtype, pos=_pos4(pos))
            Z.vals[pos], Z.present[pos] = cast(z, dt), True
        elif c:
            Z.vals[pos], Z.present[pos] = C.vals[pos], True
        elif t:
            Z.vals[pos], Z.present[pos] = cast(T.vals[pos], dt), True
    if mask is None:
        return Z
    R = Ref.empty(C.shape, dt)
    for pos in np.ndindex(*C.shape):
        if mask[pos]:
            R.vals[pos], R.present[pos] = Z.vals[pos], Z.present[pos]
        elif not replace and C.present[pos]:
            R.vals[pos], R.present[pos] = C.vals[pos], True
    return R


def _pos4(pos):
    i, j = _ij(pos)
    return (i, j, i, j)


# ---------------------------------------------------------------- operations: T from the definitions
def mxm(A, B, add, mult):
    """T(i,j) = add_k mult(A(i,k), B(k,j)) over k where both are stored."""
    m, n = A.shape[0], B.shape[1]
    t = semiring_type(add, mult, A.dtype, B.dtype)
    T = Ref.empty((m, n), t)
    for i in range(m):
        for j in range(n):
            terms = [cast(binop(mult, A.vals[i, k], B.vals[k, j], A.dtype, B.dtype,
                                pos=(i, k, k, j)), t)
                     for k in range(A.shape[1]) if A.present[i, k] and B.present[k, j]]
            if terms:
                T.vals[i, j], T.present[i, j] = fold(add, terms, t), True
    return T


def mxv(A, u, add, mult):
    """w(i) = add_j mult(A(i,j), u(j)); u is a column: secondj = 0."""
    t = semiring_type(add, mult, A.dtype, u.dtype)
    T = Ref.empty((A.shape[0],), t)
    for i in range(A.shape[0]):
        terms = [cast(binop(mult, A.vals[i, j], u.vals[j], A.dtype, u.dtype, pos=(i, j, j, 0)), t)
                 for j in range(A.shape[1]) if A.present[i, j] and u.present[j]]
        if terms:
            T.vals[i], T.present[i] = fold(add, terms, t), True
    return T


def vxm(u, A, add, mult):
    """w(j) = add_i mult(u(i), A(i,j)); u is a row: firsti = 0."""
    t = semiring_type(add, mult, u.dtype, A.dtype)
    T = Ref.empty((A.shape[1],), t)
    for j in range(A.shape[1]):
        terms = [cast(binop(mult, u.vals[i], A.vals[i, j], u.dtype, A.dtype, pos=(0, i, i, j)), t)
                 for i in range(A.shape[0]) if A.present[i, j] and u.present[i]]
        if terms:
            T.vals[j], T.present[j] = fold(add, terms, t), True
    return T


def ewise_add(a, b, op):
    t = binary_type(op, a.dtype, b.dtype)
    T = Ref.empty(a.shape, t)
    for pos in np.ndindex(*a.shape):
        pa, pb = a.present[pos], b.present[pos]
        if pa and pb:
            T.vals[pos] = binop(op, a.vals[pos], b.vals[pos], a.dtype, b.dtype, pos=_pos4(pos))
        elif pa:
            T.vals[pos] = cast(a.vals[pos], t)
        elif pb:
            T.vals[pos] = cast(b.vals[pos], t)
        T.present[pos] = pa or pb
    return T


def ewise_mult(a, b, op):
    t = binary_type(op, a.dtype, b.dtype)
    T = Ref.empty(a.shape, t)
    for pos in np.ndindex(*a.shape):
        if a.present[pos] and b.present[pos]:
            T.vals[pos] = binop(op, a.vals[pos], b.vals[pos], a.dtype, b.dtype, pos=_pos4(pos))
            T.present[pos] = True
    return T


def ewise_union(a, b, op, left_default, right_default):
    """op applied on the union, a missing operand replaced by its default
    (the default is typed as its operand)."""
    t = binary_type(op, a.dtype, b.dtype)
    T = Ref.empty(a.shape, t)
    for pos in np.ndindex(*a.shape):
        pa, pb = a.present[pos], b.present[pos]
        if not (pa or pb):
            continue
        x = a.vals[pos] if pa else cast(left_default, a.dtype)
        y = b.vals[pos] if pb else cast(right_default, b.dtype)
        T.vals[pos], T.present[pos] = binop(op, x, y, a.dtype, b.dtype, pos=_pos4(pos)), True
    return T


def apply_unary(x, name):
    t = unary_type(name, x.dtype)
    T = Ref.empty(x.shape, t)
    for pos in x.positions():
        T.vals[pos], T.present[pos] = cast(UNARY[name](x.vals[pos], x.dtype), t), True
    return T


def apply_binary(x, name, left=None, right=None):
    """op(left, x) or op(x, right) with a bound scalar."""
    if left is not None:
        ts = scalar_dtype(left)
        t = binary_type(name, ts, x.dtype)
    else:
        ts = scalar_dtype(right)
        t = binary_type(name, x.dtype, ts)
    T = Ref.empty(x.shape, t)
    for pos in x.positions():
        i, j = _ij(pos)
        if left is not None:
            v = binop(name, left, x.vals[pos], ts, x.dtype, pos=(i, j, i, j))
        else:
            v = binop(name, x.vals[pos], right, x.dtype, ts, pos=(i, j, i, j))
        T.vals[pos], T.present[pos] = cast(v, t), True
    return T


def apply_indexunary(x, name, thunk):
    t, f = INDEXUNARY[name]
    T = Ref.empty(x.shape, t)
    for pos in x.positions():
        i, j = _ij(pos)
        T.vals[pos], T.present[pos] = cast(f(x.vals[pos], i, j, thunk), t), True
    return T


def select(x, name, thunk):
    _, f = INDEXUNARY[name]
    T = Ref.empty(x.shape, x.dtype)
    for pos in x.positions():
        i, j = _ij(pos)
        if bool(f(x.vals[pos], i, j, thunk)):
            T.vals[pos], T.present[pos] = x.vals[pos], True
    return T


def reduce_rowwise(A, add):
    t = monoid_type(add, A.dtype)
    T = Ref.empty((A.shape[0],), t)
    for i in range(A.shape[0]):
        terms = [cast(A.vals[i, j], t) for j in range(A.shape[1]) if A.present[i, j]]
        if terms:
            T.vals[i], T.present[i] = fold(add, terms, t), True
    return T


def reduce_columnwise(A, add):
    return reduce_rowwise(A.T, add)


def reduce_scalar(x, add):
    t = monoid_type(add, x.dtype)
    terms = [cast(x.vals[p], t) for p in x.positions()]
    return fold(add, terms, t) if terms else identity(add, t)


def extract(x, indices):
    """w = u(I) / C = A(I, J); ``indices`` a tuple of index lists (None = all;
    repeats allowed)."""
    lists = [list(range(d)) if I is None else list(I) for I, d in zip(indices, x.shape)]
    shape = tuple(len(I) for I in lists)
    T = Ref.empty(shape, x.dtype)
    for pos in np.ndindex(*shape):
        src = tuple(I[p] for I, p in zip(lists, pos))
        if x.present[src]:
            T.vals[pos], T.present[pos] = x.vals[src], True
    return T


def transpose(A):
    return A.T


def kronecker(A, B, op):
    m2, n2 = B.shape
    t = binary_type(op, A.dtype, B.dtype)
    T = Ref.empty((A.shape[0] * m2, A.shape[1] * n2), t)
    for (i1, j1) in A.positions():
        for (i2, j2) in B.positions():
            i, j = i1 * m2 + i2, j1 * n2 + j2
            T.vals[i, j] = binop(op, A.vals[i1, j1], B.vals[i2, j2], A.dtype, B.dtype,
                                 pos=(i, j, i, j))
            T.present[i, j] = True
    return T


def assign(C, value, indices, mask=None, accum=None, replace=False):
    """GrB_assign: ``C<mask, replace>(I, J) = accum(C(I, J), value)``.

    Z = C; inside the region, Z(I, J) = value (no accum: C's entries there
    that value lacks are deleted) or accum(C(I, J), value); then the mask
    (over all of C) and replace decide what reaches C, with no further accum.
    ``value`` a scalar or a Ref of the region's shape; ``indices`` a tuple of
    unique index lists (None = all)."""
    lists = [list(range(d)) if I is None else list(I) for I, d in zip(indices, C.shape)]
    assert all(len(set(I)) == len(I) for I in lists)
    shape = tuple(len(I) for I in lists)
    Z = C.copy()
    if isinstance(value, Ref):
        tv = value.dtype
    else:
        tv = scalar_dtype(value)
    for pos in np.ndindex(*shape):
        dst = tuple(I[p] for I, p in zip(lists, pos))
        if isinstance(value, Ref):
            has, v = bool(value.present[pos]), value.vals[pos]
        else:
            has, v = True, value
        c = C.present[dst]
        if accum is None:
            if has:
                Z.vals[dst], Z.present[dst] = cast(v, C.dtype), True
            else:
                Z.present[dst] = False
        elif has and c:
            Z.vals[dst] = cast(binop(accum, C.vals[dst], v, C.dtype, tv, pos=_pos4(dst)), C.dtype)
        elif has:
            Z.vals[dst], Z.present[dst] = cast(v, C.dtype), True
    Z.vals[~Z.present] = 0
    return write(C, Z, mask, None, replace)


def equal(a, b):
    """Same shape, structure, dtype and values (for tests: returns a message
    describing the first difference, or '' when equal)."""
    if a.shape != b.shape:
        return f"shape {a.shape} != {b.shape}"
    if a.dtype != b.dtype:
        return f"dtype {a.dtype} != {b.dtype}"
    if not np.array_equal(a.present, b.present):
        return f"structure differs: {np.argwhere(a.present != b.present).tolist()}"
    va, vb = a.vals[a.present], b.vals[b.present]
    if not np.array_equal(va, vb, equal_nan=va.dtype.kind in "fc"):
        return f"values differ: {va.tolist()} != {vb.tolist()}"
    return ""


# ---------------------------------------------------------------- bridge to graphblast_py objects
# (the model above never calls graphblast_py; these helpers only build the
# library's objects from a Ref, in a chosen storage form, and read them back)
VECTOR_FORMS = ("sparse", "dense")
MATRIX_FORMS = ("sparse", "iso", "dense")


def make_iso(r, value=None):
    """A copy of ``r`` whose stored values all equal one value (an iso matrix)."""
    r = r.copy()
    if value is None:
        value = r.vals[r.present][0] if r.nvals else r.dtype.type(1)
    r.vals[r.present] = value
    r.vals[~r.present] = 0
    return r


def to_lib(r, form, device):
    """The graphblast_py object for ``r`` in storage ``form``: vectors
    "sparse"/"dense"; matrices "sparse"/"iso"/"dense" ("iso" needs every
    stored value equal, see :func:`make_iso`)."""
    import graphblast_py as gb
    if r.is_vector:
        idx = np.flatnonzero(r.present)
        if form == "dense" and r.nvals == r.shape[0]:
            v = gb.Vector.from_dense(r.vals.copy(), device=device)
        elif form == "dense" and r.nvals == 0:
            v = gb.Vector(r.dtype, r.shape[0], device=device, form="dense")
        else:
            v = gb.Vector.from_coo(idx, r.vals[idx], r.shape[0], dtype=r.dtype, device=device)
            if form == "dense":
                v._dense()
        assert v.form == form, (v.form, form)
        assert v.dtype == r.dtype
        return v
    rows, cols = np.nonzero(r.present)
    if form == "iso":
        vals = r.vals[rows, cols]
        assert r.nvals == 0 or np.array_equal(vals, np.full_like(vals, vals[0]),
                                              equal_nan=vals.dtype.kind == "f")
        value = vals[0] if r.nvals else r.dtype.type(1)
        A = gb.Matrix.from_coo(rows, cols, r.dtype.type(value), r.shape[0], r.shape[1],
                               dtype=r.dtype, device=device)
        assert A.nvals == 0 or A.iso
    elif form == "dense" and r.nvals == r.vals.size:
        A = gb.Matrix.from_dense(r.vals.copy(), device=device)
    else:
        A = gb.Matrix.from_coo(rows, cols, r.vals[rows, cols], r.shape[0], r.shape[1],
                               dtype=r.dtype, device=device)
        if form == "dense":
            A.to_dense_form()
    assert A.form == ("dense" if form == "dense" else "sparse")
    assert A.dtype == r.dtype
    return A


def _host(a):
    if hasattr(a, "get") and type(a).__module__.startswith("cupy"):
        return a.get()
    return np.asarray(a)


def from_lib(x):
    """Read a graphblast_py Vector or Matrix back into a Ref."""
    R = Ref.empty(x.shape, x.dtype)
    if len(x.shape) == 1:
        idx, vals = (_host(a) for a in x.to_coo())
        assert vals.dtype == x.dtype, (vals.dtype, x.dtype)
        assert (np.diff(idx) > 0).all(), "to_coo indices not sorted/unique"
        R.vals[idx], R.present[idx] = vals, True
    else:
        rows, cols, vals = (_host(a) for a in x.to_coo())
        assert vals.dtype == x.dtype, (vals.dtype, x.dtype)
        keys = rows.astype(np.int64) * x.shape[1] + cols
        assert (np.diff(keys) > 0).all(), "to_coo entries not in row-major order/unique"
        R.vals[rows, cols], R.present[rows, cols] = vals, True
    assert R.nvals == x.nvals, (R.nvals, x.nvals)
    return R


# ------------------------------------------------------------ graph families
def _symmetric_pattern(S):
    """S + S' with unit values, zero diagonal, no stored zeros (SciPy CSR)."""
    import scipy.sparse as sp
    S = sp.csr_matrix(((S + S.T) > 0).astype(float))
    S.setdiag(0)
    S.eliminate_zeros()
    return S.tocsr()


def undirected_families():
    """``(name, SciPy CSR)`` undirected unit-weight graphs that break things:
    empty, one vertex, isolated vertices only, a grid, grids with isolated
    vertices, power-law hubs (Kronecker 8), a random sparse graph, a path."""
    import scipy.sparse as sp
    import graphblast_py as gb
    out = [("empty", sp.csr_matrix((0, 0))), ("one vertex", sp.csr_matrix((1, 1))),
           ("isolated", sp.csr_matrix((6, 6)))]
    g = gb.generators.grid2d(9, 13, device="cpu").to_scipy().tocsr()
    out.append(("grid", g))
    two = sp.block_diag([g, gb.generators.grid2d(4, 3, device="cpu").to_scipy(),
                         sp.csr_matrix((3, 3))])
    out.append(("grids and isolated", two.tocsr()))
    k = gb.generators.kronecker(8, seed=2, device="cpu").to_scipy().tocsr()
    out.append(("power-law", _symmetric_pattern(k)))
    rng = np.random.default_rng(11)
    out.append(("random", _symmetric_pattern(sp.random(80, 80, density=0.02,
                                                       random_state=rng, format="csr"))))
    path = sp.diags([np.ones(49), np.ones(49)], [-1, 1], shape=(50, 50))
    out.append(("path", path.tocsr()))
    return out


def smallest_labels(S):
    """Per vertex, the smallest vertex of its connected component (SciPy)."""
    from scipy.sparse import csgraph
    _, comp = csgraph.connected_components(S, directed=False)
    smallest = {}
    for v, c in enumerate(comp):
        smallest.setdefault(c, v)
    return [smallest[c] for c in comp]


def check_cc_sssp_bfs(name, S):
    """Connected components, SSSP (unit, 1..4 float and int64 weights from
    three sources) and BFS levels of the undirected graph ``S`` (a SciPy
    matrix; any stored values) on the CPU against SciPy's csgraph and
    networkx, every entry: the whole-algorithm check of the CPU's round
    paths (tests/test_grid_round_paths.py, tests/test_grid_rounds_more.py),
    run under whatever switches the caller has set."""
    import math
    import networkx as nx
    import scipy.sparse as sp
    import scipy.sparse.csgraph as csgraph
    import graphblast_py as gb
    from graphblast_py import dtypes
    n = S.shape[0]
    S = sp.csr_matrix(S, dtype=np.float64)
    S.data[:] = 1.0
    A = gb.Matrix.from_scipy(S, device="cpu") if n else gb.Matrix(dtypes.FP64, 0, 0, device="cpu")
    labels = gb.algorithms.connected_components(A).to_dense()
    if n == 0:
        assert labels.shape == (0,)
        return
    assert labels.tolist() == smallest_labels(S), name
    G = nx.from_scipy_sparse_array(S)
    for comp in nx.connected_components(G):     # networkx agrees on the partition
        assert len({int(labels[v]) for v in comp}) == 1, name
    W = S.copy()
    W.data = (np.arange(W.nnz) % 4 + 1).astype(float)
    W = ((W + W.T) / 2).tocsr()                  # symmetric weights 1..4
    Aw = gb.Matrix.from_scipy(W, device="cpu")
    Ai = gb.Matrix.from_scipy(W.astype(np.int64), device="cpu")
    for src in sorted({0, n - 1, n // 2}):
        got = gb.algorithms.sssp(Aw, src).to_dense(fill=math.inf)
        assert np.array_equal(got, csgraph.dijkstra(W, directed=True, indices=src)), (name, src)
        got = gb.algorithms.sssp(Ai, src).to_dense(fill=math.inf)
        assert np.array_equal(got, csgraph.dijkstra(W.astype(np.int64), directed=True,
                                                    indices=src)), (name, src)
        d1 = gb.algorithms.sssp(A, src).to_dense(fill=math.inf)
        assert np.array_equal(d1, csgraph.dijkstra(S, directed=True, indices=src)), (name, src)
        lv = gb.algorithms.bfs(A, src).to_dense(fill=-1)
        ref = csgraph.shortest_path(S, unweighted=True, indices=src)
        assert np.array_equal(lv, np.where(np.isinf(ref), -1, ref).astype(np.int64)), (name, src)
